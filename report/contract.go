package report

import (
	"fmt"
	"sort"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// SchemaVersion names the JSON contract; renaming a field is a breaking change.
const SchemaVersion = "readygap/v1"

// Report is what every renderer draws from; its JSON form is the contract
// documented in the README. Times are UTC; zero times are left out of JSON.
type Report struct {
	Schema    string     `json:"schema"`
	Inputs    []Input    `json:"inputs"`
	Warnings  []string   `json:"warnings"`
	Incidents []Incident `json:"incidents"`
	// Lanes is every backend's life on the shared time axis.
	Lanes []Lane `json:"lanes"`
	// Series is the per-second outcome series on the same axis.
	Series *Series `json:"series,omitempty"`
	// PrunedObjects counts ALB log objects skipped by the end time in their name.
	PrunedObjects int `json:"pruned_objects,omitempty"`
}

// Input describes one input read.
type Input struct {
	Name       string    `json:"name"`
	Format     string    `json:"format"`
	Records    int       `json:"records"`
	Skipped    int       `json:"skipped"`
	Filtered   int       `json:"filtered,omitempty"`
	Duplicates int       `json:"duplicates,omitempty"`
	First      time.Time `json:"first,omitzero"`
	Last       time.Time `json:"last,omitzero"`
}

// Incident is one window of LB-generated failures with its verdict.
type Incident struct {
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	DurationSeconds float64   `json:"duration_seconds"`
	Cause           string    `json:"cause"`
	Variant         string    `json:"variant,omitempty"`
	Confidence      string    `json:"confidence"`
	// FailedRequests counts client-visible 5xx the LB or proxy generated.
	FailedRequests int `json:"failed_requests"`
	// HiddenFailures counts requests a proxy retry rescued after a failed attempt.
	HiddenFailures int            `json:"hidden_failures"`
	StatusCounts   map[string]int `json:"status_counts"`
	Summary        string         `json:"summary"`
	Backends       []Backend      `json:"backends"`
	Evidence       []Evidence     `json:"evidence"`
	Remediation    []Remediation  `json:"remediation"`
	Timeline       []Moment       `json:"timeline"`
	Notes          []string       `json:"notes,omitempty"`
}

// Backend names a backend involved in an incident.
type Backend struct {
	IP       string `json:"ip,omitempty"`
	Pod      string `json:"pod,omitempty"`
	Role     string `json:"role"`
	Failures int    `json:"failures"`
	Why      string `json:"why,omitempty"`
}

// Evidence is one record that supports a verdict.
type Evidence struct {
	Time   time.Time `json:"time,omitzero"`
	Source string    `json:"source,omitempty"`
	Text   string    `json:"text"`
}

// Remediation is one manifest change that prevents the incident.
type Remediation struct {
	Title string `json:"title"`
	Why   string `json:"why"`
	Patch string `json:"patch"`
}

// Moment is one line of an incident's timeline.
type Moment struct {
	Time   time.Time `json:"time"`
	What   string    `json:"what"`
	Who    string    `json:"who,omitempty"`
	Zone   string    `json:"zone,omitempty"`
	Source string    `json:"source,omitempty"`
}

// Lane is one backend's life: milestones by name (created, scheduled,
// started, ready, lb_attached, lb_healthy, terminating, lb_detached,
// deleted), when it served traffic, and its events.
type Lane struct {
	Name        string               `json:"name"`
	IP          string               `json:"ip,omitempty"`
	ReplicaSet  string               `json:"replica_set,omitempty"`
	Zone        string               `json:"zone,omitempty"`
	Role        string               `json:"role"`
	Milestones  map[string]time.Time `json:"milestones"`
	FirstServed time.Time            `json:"first_served,omitzero"`
	LastServed  time.Time            `json:"last_served,omitzero"`
	Markers     []Marker             `json:"markers"`
}

// Marker is one event on a lane.
type Marker struct {
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	Text   string    `json:"text"`
	Source string    `json:"source,omitempty"`
}

// Series is the per-second outcome series: Values[i] holds the counts of
// second Start+i, one per column.
type Series struct {
	Start       time.Time `json:"start"`
	StepSeconds int       `json:"step_seconds"`
	Columns     []string  `json:"columns"`
	Values      [][]int   `json:"values"`
}

// seriesColumns names the series columns: client-visible outcomes by kind,
// then requests whose failed attempts a retry hid.
var seriesColumns = []string{"ok", "app_5xx", "no_backend", "refused", "unreachable", "closed", "timeout", "other", "hidden"}

// newReport builds the report of a read and its verdicts.
func newReport(res *sources.Result, a *correlate.Analysis, verdicts []*classify.Verdict) *Report {
	rep := &Report{Schema: SchemaVersion, Inputs: []Input{}, Warnings: []string{}, Incidents: []Incident{}, Lanes: []Lane{}, PrunedObjects: res.Pruned}
	for _, in := range res.Inputs {
		rep.Inputs = append(rep.Inputs, Input{
			Name: in.Name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates,
			First: utc(in.First), Last: utc(in.Last),
		})
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	for _, v := range verdicts {
		rep.Incidents = append(rep.Incidents, newIncident(v))
	}
	for _, l := range a.Lanes() {
		rep.Lanes = append(rep.Lanes, newLane(l))
	}
	rep.Series = newSeries(a.Series())
	return rep
}

func newLane(l *correlate.Lane) Lane {
	rl := Lane{Name: l.Name, ReplicaSet: l.ReplicaSet, Zone: l.Zone, Role: l.Role.String(), Milestones: map[string]time.Time{},
		FirstServed: utc(l.FirstServed), LastServed: utc(l.LastServed), Markers: []Marker{}}
	if l.IP.IsValid() {
		rl.IP = l.IP.String()
	}
	for m := correlate.Created; m <= correlate.Deleted; m++ {
		if t := l.Milestone(m); !t.IsZero() {
			rl.Milestones[m.String()] = t.UTC()
		}
	}
	for _, mk := range l.Markers {
		rl.Markers = append(rl.Markers, Marker{Time: utc(mk.Time), Kind: mk.Kind.String(), Text: mk.Text, Source: mk.Source})
	}
	return rl
}

func newSeries(points []correlate.Point) *Series {
	if len(points) == 0 {
		return nil
	}
	s := &Series{Start: utc(points[0].Time), StepSeconds: 1, Columns: seriesColumns}
	for _, p := range points {
		f := p.LBFailed
		s.Values = append(s.Values, []int{p.OK, p.AppErrors, f[sources.FailureNoBackend], f[sources.FailureRefused],
			f[sources.FailureUnreachable], f[sources.FailureClosed], f[sources.FailureTimeout], f[sources.FailureOther], p.Hidden})
	}
	return s
}

func newIncident(v *classify.Verdict) Incident {
	w := v.Window
	in := Incident{
		Start: utc(w.Start), End: utc(w.End), DurationSeconds: w.Duration().Seconds(),
		Cause: v.Cause, Variant: v.Variant, Confidence: string(v.Confidence),
		FailedRequests: w.Failed, HiddenFailures: w.Hidden, StatusCounts: map[string]int{},
		Summary: v.Summary, Backends: []Backend{}, Evidence: []Evidence{}, Remediation: []Remediation{},
		Timeline: []Moment{}, Notes: v.Notes,
	}
	for code, n := range w.StatusCounts {
		in.StatusCounts[fmt.Sprint(code)] = n
	}
	sort.SliceStable(v.Backends, func(i, j int) bool {
		if v.Backends[i].Role != v.Backends[j].Role {
			return v.Backends[i].Role > v.Backends[j].Role
		}
		return v.Backends[i].Failures > v.Backends[j].Failures
	})
	for _, b := range v.Backends {
		rb := Backend{Pod: b.Pod, Role: b.Role.String(), Failures: b.Failures, Why: b.Why}
		if b.IP.IsValid() {
			rb.IP = b.IP.String()
		}
		in.Backends = append(in.Backends, rb)
	}
	for _, e := range v.Evidence {
		in.Evidence = append(in.Evidence, Evidence{Time: utc(e.Time), Source: e.Source, Text: e.Text})
	}
	for _, f := range v.Remediation {
		in.Remediation = append(in.Remediation, Remediation{Title: f.Title, Why: f.Why, Patch: f.Patch})
	}
	for _, m := range v.Timeline {
		in.Timeline = append(in.Timeline, Moment{Time: utc(m.Time), What: m.What, Who: m.Who, Zone: m.Zone, Source: m.Source})
	}
	return in
}

// rfc3339 renders t as the JSON contract does: UTC RFC 3339 with the
// precision the input had; the zero time renders empty.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// utc returns t in UTC; the zero time stays zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// plural renders n with a noun in singular or plural.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

package report

import (
	"fmt"
	"sort"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// newReport builds the report of a read and its verdicts.
func newReport(res *sources.Result, a *correlate.Analysis, verdicts []*classify.Verdict) *Report {
	rep := &Report{Schema: SchemaVersion, Summary: Summary{Changes: []Change{}}, Inputs: []Input{}, Warnings: []string{},
		Rollouts: []Rollout{}, Incidents: []Incident{}, Lanes: []Lane{}, PrunedObjects: res.Pruned}
	for _, in := range res.Inputs {
		rep.Inputs = append(rep.Inputs, Input{
			Name: in.Name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates,
			First: utc(in.First), Last: utc(in.Last),
		})
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	for i, v := range verdicts {
		in := newIncident(v)
		in.ID = fmt.Sprintf("incident-%d", i+1)
		rep.Incidents = append(rep.Incidents, in)
	}
	rep.Summary = summarize(a, rep.Incidents)
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
		FailedRequests: w.Failed, LoggedFailedRequests: w.Failed, HiddenFailures: w.Hidden, StatusCounts: map[string]int{},
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

// summarize adds up the incidents and states each of their fixes once, in
// the order they first appear.
func summarize(a *correlate.Analysis, incidents []Incident) Summary {
	sum := Summary{Incidents: len(incidents), Changes: []Change{}}
	for _, p := range a.Series() {
		sum.Requests += p.Total
		sum.AppErrors += p.AppErrors
	}
	index := map[Remediation]int{}
	for _, in := range incidents {
		sum.FailedRequests += in.FailedRequests
		sum.LoggedFailedRequests += in.LoggedFailedRequests
		sum.HiddenFailures += in.HiddenFailures
		for _, r := range in.Remediation {
			i, ok := index[r]
			if !ok {
				i = len(sum.Changes)
				index[r] = i
				sum.Changes = append(sum.Changes, Change{Remediation: r})
			}
			sum.Changes[i].Incidents = append(sum.Changes[i].Incidents, in.ID)
		}
	}
	return sum
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

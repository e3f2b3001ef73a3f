package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// newReport builds the report of a read and its verdicts; win is the time
// window the inputs were read with (nil without one).
func newReport(res *sources.Result, a *correlate.Analysis, verdicts []*classify.Verdict, win *Window) *Report {
	rep := &Report{Schema: SchemaVersion, Inputs: []Input{}, Warnings: []string{}, Window: win,
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
		if in.Cut == "" {
			in.Cut = cutBy(win, in, a.Opts.MergeGap)
		}
		rep.Incidents = append(rep.Incidents, in)
	}
	x := newDataAxis(a)
	if w := x.warning(); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	rep.Summary = summarize(a, rep.Incidents)
	rep.Summary.First, rep.Summary.Last = x.First, x.Last
	rep.Summary.Caveats = caveats(rep, x)
	for _, l := range a.Lanes() {
		rl := newLane(l)
		if x.ok {
			rl.States = laneStates(rl, x.First, x.Last)
		}
		rep.Lanes = append(rep.Lanes, rl)
	}
	rep.Lanes, rep.LanesOmitted = boundLanes(rep.Lanes, rep.Incidents)
	rep.Series = newSeries(a, x, rep.Incidents)
	return rep
}

func newLane(l *correlate.Lane) Lane {
	rl := Lane{Name: l.Name, ReplicaSet: l.ReplicaSet, Zone: l.Zone, Role: l.Role.String(), Milestones: map[string]time.Time{},
		FirstServed: utc(l.FirstServed), LastServed: utc(l.LastServed), Markers: []Marker{}, States: []LaneState{}}
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

// cutBy says whether the window may have cut the incident: its first
// failure lies closer to --since, or its last one closer to --until, than
// the gap that joins failures into one incident, so failures outside the
// window could have belonged to it.
func cutBy(win *Window, in Incident, gap time.Duration) string {
	if win == nil {
		return ""
	}
	var cut []string
	if !win.Since.IsZero() && in.Start.Sub(win.Since) < gap {
		cut = append(cut, "starts before --since")
	}
	if !win.Until.IsZero() && win.Until.Sub(in.End) < gap {
		cut = append(cut, "ends after --until")
	}
	return strings.Join(cut, ", ")
}

// summarize adds up the incidents and states each of their fixes once, in
// the order they first appear.
func summarize(a *correlate.Analysis, incidents []Incident) Summary {
	sum := Summary{Incidents: len(incidents), Changes: []Change{}, Caveats: []string{}}
	eachSecond(a, func(_ int64, c correlate.Counts) {
		sum.Requests += c.Total
		sum.AppErrors += c.AppErrors
	})
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

// caveats collects what changes how to read the verdicts, from the fields
// that say so.
func caveats(rep *Report, x dataAxis) []string {
	out := []string{}
	if w := rep.Window; w != nil && w.Empty {
		msg := "the time window " + windowText(w) + " holds no record with a time"
		if !w.DataFirst.IsZero() {
			msg += fmt.Sprintf("; the data runs from %s to %s UTC", w.DataFirst.UTC().Format(time.DateTime), w.DataLast.UTC().Format(time.DateTime))
		}
		out = append(out, msg)
	}
	for _, c := range rep.Clocks {
		out = append(out, fmt.Sprintf("%s times were shifted by %+.1f s to the load balancer's clock (%s, %s)",
			c.Source, c.OffsetSeconds, plural(c.Pairs, "paired observation"), c.How))
	}
	for _, in := range rep.Incidents {
		if in.SampleRate > 0 && in.SampleRate < 1 {
			out = append(out, fmt.Sprintf("%s: request logs are sampled at %s; its %d failed requests are an estimate from the %d logged",
				in.ID, percent(in.SampleRate), in.FailedRequests, in.LoggedFailedRequests))
		}
		if in.Cut != "" {
			out = append(out, fmt.Sprintf("%s %s: it may have begun or ended outside the window", in.ID, in.Cut))
		}
	}
	if w := x.warning(); w != "" {
		out = append(out, w)
	}
	return out
}

// windowText renders a window as [since, until).
func windowText(w *Window) string {
	t := func(t time.Time, open string) string {
		if t.IsZero() {
			return open
		}
		return t.UTC().Format(time.DateTime)
	}
	return "[" + t(w.Since, "…") + ", " + t(w.Until, "…") + ") UTC"
}

// percent renders a share as a percentage for people.
func percent(f float64) string {
	if f*100 >= 10 {
		return fmt.Sprintf("%.0f %%", f*100)
	}
	return fmt.Sprintf("%.2g %%", f*100)
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

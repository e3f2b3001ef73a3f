package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	yaml "go.yaml.in/yaml/v2"
)

// newReport builds the report of a read and its classification; win is the
// time window the inputs were read with (nil without one).
func newReport(res *sources.Result, a *correlate.Analysis, cl *classify.Result, win *Window) *Report {
	rep := &Report{Schema: SchemaVersion, Summary: Summary{Changes: []Change{}, Caveats: []string{}}, Inputs: []Input{}, Unread: []Unread{}, Warnings: []string{}, Window: win,
		Rollouts: []Rollout{}, Incidents: []Incident{}, Lanes: []Lane{}, Notes: cl.Notes, PrunedObjects: res.Pruned}
	for _, in := range res.Inputs {
		rep.Inputs = append(rep.Inputs, Input{
			Name: in.Name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates,
			First: utc(in.First), Last: utc(in.Last),
		})
	}
	for _, u := range res.Unread {
		rep.Unread = append(rep.Unread, Unread{Name: u.Name, Reason: u.Reason, Empty: u.Empty})
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	if off := a.Clock; off.Offset != 0 {
		rep.Clocks = append(rep.Clocks, Clock{Source: "kubernetes", OffsetSeconds: off.Offset.Seconds(), Pairs: off.Pairs, How: correlate.ClockPairs})
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the cluster's clock is %+.1f s off the load balancer's (from %d paired observations); Kubernetes times are shown corrected", -off.Offset.Seconds(), off.Pairs))
	}
	used := map[*correlate.Rollout]bool{}
	for i, f := range cl.Findings {
		in := newIncident(f)
		in.ID = fmt.Sprintf("incident-%d", i+1)
		if in.Cut == "" {
			in.Cut = cutBy(win, in, a.Opts.MergeGap)
		}
		rep.Incidents = append(rep.Incidents, in)
		if f.Rollout != nil {
			used[f.Rollout] = true
		}
	}
	for _, r := range a.Rollouts {
		if used[r] {
			rep.Rollouts = append(rep.Rollouts, newRollout(r))
		}
	}
	x := newDataAxis(a)
	if w := x.warning(); w != "" {
		rep.Warnings = append(rep.Warnings, w)
	}
	rep.Summary = summarize(a, rep.Incidents, cl.Findings)
	rep.Summary.First, rep.Summary.Last = x.First, x.Last
	rep.Summary.Caveats = caveats(rep, x)
	rep.Summary.Coverage = newCoverage(res)
	judge(rep, res, a.Rollouts)
	setAsideCaveat(rep, a.SetAside)
	lanes, omitted := newLanes(a, rep.Incidents)
	for _, l := range lanes {
		l.States = []LaneState{}
		if x.ok {
			l.States = laneStates(l, x.First, x.Last)
		}
		rep.Lanes = append(rep.Lanes, l)
	}
	rep.LanesOmitted = omitted
	rep.Series = newSeries(a, x, rep.Incidents)
	return rep
}

// newRollout describes one rollout for the contract.
func newRollout(r *correlate.Rollout) Rollout {
	out := Rollout{ID: r.ID(), Namespace: r.Namespace, OldReplicaSets: r.OldNames(), Start: utc(r.Start), End: utc(r.End), How: r.How}
	if r.Workload != "" {
		out.Workload = "Deployment/" + r.Workload
	}
	if r.New != nil {
		out.NewReplicaSet, out.Revision = r.New.Name, r.New.Revision
	}
	out.OldReplicaSets = slices.DeleteFunc(out.OldReplicaSets, func(s string) bool { return s == "" })
	return out
}

// newIncident turns one finding into the contract's incident.
func newIncident(f *classify.Finding) Incident {
	w := f.Window
	in := Incident{
		Start: utc(w.Start), End: utc(w.End), DurationSeconds: w.Duration().Seconds(),
		Cause: f.Cause, Variant: f.Variant, Confidence: string(f.Confidence), Trigger: f.Trigger,
		FailedRequests: f.Estimated(), LoggedFailedRequests: w.Failed, SampleRate: f.SampleRate, HiddenFailures: w.Hidden,
		StatusCounts: map[string]int{}, Summary: f.Summary, Backends: []Backend{}, Evidence: []Evidence{}, Remediation: []Remediation{},
		Timeline: []Moment{}, Notes: f.Notes,
	}
	if f.Rollout != nil {
		in.Rollout = f.Rollout.ID()
	}
	if r := f.Rate; r != nil {
		in.Rate = &Rate{PerHour: r.PerHour, Share: r.Share, Backends: r.Backends, Hours: r.Hours}
	}
	for _, t := range f.Timeouts {
		in.Timeouts = append(in.Timeouts, Timeout{What: t.What, Seconds: t.Seconds, Source: t.Source})
	}
	for code, n := range w.StatusCounts {
		in.StatusCounts[fmt.Sprint(code)] = n
	}
	for _, b := range f.Backends {
		rb := Backend{Pod: b.Pod, Role: b.Role.String(), Failures: b.Attempts, FailedRequests: b.Requests, Start: utc(b.Start), End: utc(b.End), Why: b.Why}
		if b.IP.IsValid() {
			rb.IP = b.IP.String()
		}
		if b.Of != nil {
			rb.ReplicaSet = b.Of.ReplicaSet
			for _, l := range b.Of.Leases {
				if l.IP == b.IP && l.Join != "" {
					rb.Joined = l.Join
				}
			}
		}
		in.Backends = append(in.Backends, rb)
	}
	for _, e := range f.Evidence {
		ev := Evidence{Time: utc(e.Time), Text: describeEvidence(e)}
		if e.Origin.File != "" {
			ev.Source = e.Origin.String()
		}
		in.Evidence = append(in.Evidence, ev)
	}
	for _, x := range f.Remediation {
		in.Remediation = append(in.Remediation, Remediation{Title: x.Title, Why: x.Why, Patch: patchYAML(x.Patch)})
	}
	for _, m := range f.Timeline {
		what, who := describeEntry(m)
		mo := Moment{Time: utc(m.Time), What: what, Who: who}
		switch {
		case m.Event != nil:
			mo.Zone, mo.Source = m.Event.Zone, m.Event.Origin.String()
		case m.Request != nil:
			mo.Source = m.Request.Origin.String()
		}
		in.Timeline = append(in.Timeline, mo)
	}
	return in
}

// patchYAML renders a fix's patch as YAML; "" when there is none. A patch
// holds only maps, lists, strings and ints, which go-yaml writes directly,
// keys sorted, as sigs.k8s.io/yaml would through JSON (at a fraction of the
// cost: a check may write thousands).
func patchYAML(p classify.Patch) string {
	if p == nil {
		return ""
	}
	b, err := yaml.Marshal(map[string]any(p))
	if err != nil {
		return ""
	}
	return string(b)
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

// summarize adds up the incidents and states each change to make once, in
// the order they first appear: fixes of several incidents that make the
// same change are one, sized for the incident that needs the most of it
// (classify.Fix.Covers). findings are the incidents' findings, in order.
func summarize(a *correlate.Analysis, incidents []Incident, findings []*classify.Finding) Summary {
	sum := Summary{Incidents: len(incidents), Changes: []Change{}, Caveats: []string{}}
	eachSecond(a, func(_ int64, c correlate.Counts) {
		sum.Requests += c.Total
		sum.AppErrors += c.AppErrors
	})
	var fixes []classify.Fix // the fix behind each change
	for i, in := range incidents {
		sum.FailedRequests += in.FailedRequests
		sum.LoggedFailedRequests += in.LoggedFailedRequests
		sum.HiddenFailures += in.HiddenFailures
		for j, r := range in.Remediation {
			fix := findings[i].Remediation[j]
			k := slices.IndexFunc(fixes, func(f classify.Fix) bool { return f.Covers(fix) || fix.Covers(f) })
			switch {
			case k < 0:
				k = len(sum.Changes)
				fixes = append(fixes, fix)
				sum.Changes = append(sum.Changes, Change{Remediation: r})
			case !fixes[k].Covers(fix):
				// This incident needs more of the same change: its fix
				// covers the others' too.
				fixes[k], sum.Changes[k].Remediation = fix, r
			}
			if !slices.Contains(sum.Changes[k].Incidents, in.ID) {
				sum.Changes[k].Incidents = append(sum.Changes[k].Incidents, in.ID)
			}
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

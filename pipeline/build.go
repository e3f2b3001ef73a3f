package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	yaml "go.yaml.in/yaml/v2"
)

// newReport builds the report of a read and its classification; win is the
// time window the inputs were read with (nil without one).
func newReport(res *sources.Result, a *correlate.Analysis, cl *classify.Result, win *report.Window) *report.Report {
	rep := &report.Report{Schema: report.SchemaVersion, Summary: report.Summary{Changes: []report.Change{}, Caveats: []string{}}, Inputs: []report.Input{}, Unread: []report.Unread{}, Warnings: []string{}, Window: win,
		Rollouts: []report.Rollout{}, Incidents: []report.Incident{}, Lanes: []report.Lane{}, Notes: cl.Notes, PrunedObjects: res.Pruned}
	for _, in := range res.Inputs {
		rep.Inputs = append(rep.Inputs, report.Input{
			Name: in.Name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates,
			First: utc(in.First), Last: utc(in.Last),
		})
	}
	for _, u := range res.Unread {
		rep.Unread = append(rep.Unread, report.Unread{Name: u.Name, Reason: u.Reason, Empty: u.Empty})
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	clocks, warn := clockReport(a.Clock)
	rep.Clocks = append(rep.Clocks, clocks...)
	rep.Warnings = append(rep.Warnings, warn...)
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
	// What lies off the axis is a caveat (caveats), and only that.
	x := newDataAxis(a)
	rep.Summary = summarize(a, rep.Incidents, cl.Findings)
	rep.Summary.First, rep.Summary.Last = x.First, x.Last
	rep.Summary.Caveats = caveats(rep, x)
	rep.Summary.Coverage = newCoverage(res)
	judge(rep, res, a.Rollouts)
	setAsideCaveat(rep, a.SetAside)
	rep.Lanes, rep.LanesOmitted = newLanes(a, rep.Incidents, x)
	rep.Series = newSeries(a, x, rep.Incidents)
	return rep
}

// newRollout describes one rollout for the contract.
func newRollout(r *correlate.Rollout) report.Rollout {
	out := report.Rollout{ID: r.ID(), Namespace: r.Namespace, OldReplicaSets: r.OldNames(), Start: utc(r.Start), End: utc(r.End), How: r.How}
	out.Workload = r.WorkloadRef()
	for _, l := range r.Steps {
		out.Steps = append(out.Steps, report.Moment{Time: utc(l.Time), What: describeEvent(l), Who: l.Object, Source: l.Origin.String()})
	}
	if r.New != nil {
		out.NewReplicaSet, out.Revision = r.New.Name, r.New.Revision
	}
	out.OldReplicaSets = slices.DeleteFunc(out.OldReplicaSets, func(s string) bool { return s == "" })
	return out
}

// clockReport says what the clock comparison found and how sure it is: the
// offset applied, with how closely its pairs agree and the propagation lag
// it exceeded, or that the pairs' median was within the proxies' lag and
// nothing was moved (a clock with offset zero, its median and the lag).
func clockReport(off correlate.ClockOffset) ([]report.Clock, []string) {
	clock := report.Clock{Source: "kubernetes", OffsetSeconds: off.Offset.Seconds(), MedianSeconds: (off.Offset + off.Residual).Seconds(),
		Pairs: off.Pairs, How: correlate.ClockPairs, SpreadSeconds: off.Spread.Seconds(), LagSeconds: off.Lag.Seconds()}
	switch {
	case off.Offset != 0:
		return []report.Clock{clock},
			[]string{fmt.Sprintf("the cluster's clock is %+.1f s off the load balancer's (from %d paired observations agreeing within %.1f s%s); Kubernetes times are shown corrected",
				-off.Offset.Seconds(), off.Pairs, off.Spread.Seconds(), lagBeyond(off))}
	case off.WithinLag():
		return []report.Clock{clock}, []string{fmt.Sprintf("the load balancer saw pods stop %.1f s after the cluster recorded it (median of %d paired observations): within its proxies' propagation lag (up to %.1f s), so taken for that lag and not for a clock offset; no Kubernetes time was moved, and a clock offset of that size would go unnoticed",
			off.Residual.Seconds(), off.Pairs, off.Lag.Seconds())}
	}
	return nil, nil
}

// lagBeyond says, for a clock offset read against a proxy's propagation
// lag, that the offset exceeded it.
func lagBeyond(off correlate.ClockOffset) string {
	if off.Lag == 0 {
		return ""
	}
	return fmt.Sprintf(", beyond the proxies' propagation lag of up to %.1f s", off.Lag.Seconds())
}

// newIncident turns one finding into the contract's incident.
func newIncident(f *classify.Finding) report.Incident {
	w := f.Window
	in := report.Incident{
		Start: utc(w.Start), End: utc(w.End), DurationSeconds: w.Duration().Seconds(), ActiveSeconds: w.Active.Seconds(), Bursts: w.Bursts,
		Cause: f.Cause, Variant: f.Variant, Confidence: string(f.Confidence), Trigger: f.Trigger,
		FailedRequests: f.Estimated(), LoggedFailedRequests: w.Failed, SampleRate: f.SampleRate, HiddenFailures: w.Hidden,
		StatusCounts: map[string]int{}, Summary: f.Summary, Backends: []report.Backend{}, Evidence: []report.Evidence{}, Remediation: []report.Remediation{},
		Timeline: []report.Moment{}, Notes: f.Notes,
	}
	if c, ok := classify.CauseByID(f.Cause); ok {
		in.CauseName = c.Name
		if f.Variant != "" {
			in.VariantName = c.VariantName(f.Variant)
		}
	}
	if f.Rollout != nil {
		in.Rollout = f.Rollout.ID()
	}
	if l := f.Step; l != nil {
		in.Step = &report.Moment{Time: utc(l.Time), What: describeEvent(l), Who: l.Object, Source: l.Origin.String()}
	}
	if r := f.Rate; r != nil {
		in.Rate = &report.Rate{PerHour: r.PerHour, Share: r.Share, Backends: r.Backends, Hours: r.Hours}
	}
	for _, t := range f.Timeouts {
		in.Timeouts = append(in.Timeouts, report.Timeout{What: t.What, Seconds: t.Seconds, Source: t.Source})
	}
	for code, n := range w.StatusCounts {
		in.StatusCounts[fmt.Sprint(code)] = n
	}
	for _, b := range f.Backends {
		rb := report.Backend{Pod: b.Pod, Role: b.Role.String(), Failures: b.Attempts, FailedRequests: b.Requests, Start: utc(b.Start), End: utc(b.End), Why: b.Why}
		if b.Active < b.End.Sub(b.Start) {
			rb.ActiveSeconds = b.Active.Seconds()
		}
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
		ev := report.Evidence{Time: utc(e.Time), Text: describeEvidence(e)}
		if e.Origin.File != "" {
			ev.Source = e.Origin.String()
		}
		in.Evidence = append(in.Evidence, ev)
	}
	for _, x := range f.Remediation {
		in.Remediation = append(in.Remediation, report.Remediation{Title: x.Title, Why: x.Why, Patch: patchYAML(x.Patch)})
	}
	for _, m := range f.Timeline {
		what, who := describeEntry(m)
		mo := report.Moment{Time: utc(m.Time), What: what, Who: who}
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
func cutBy(win *report.Window, in report.Incident, gap time.Duration) string {
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
func summarize(a *correlate.Analysis, incidents []report.Incident, findings []*classify.Finding) report.Summary {
	sum := report.Summary{Incidents: len(incidents), Changes: []report.Change{}, Caveats: []string{}}
	if first, last, ok := a.Span(); ok {
		all := a.Sum(first, last)
		sum.Requests, sum.AppErrors = all.Total, all.AppErrors
	}
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
				sum.Changes = append(sum.Changes, report.Change{Remediation: r})
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
func caveats(rep *report.Report, x dataAxis) []string {
	out := []string{}
	if w := rep.Window; w != nil && w.Empty {
		msg := "the time window " + windowText(w) + " holds no record with a time"
		if !w.DataFirst.IsZero() {
			msg += fmt.Sprintf("; the data runs from %s to %s UTC", w.DataFirst.UTC().Format(time.DateTime), w.DataLast.UTC().Format(time.DateTime))
		}
		out = append(out, msg)
	}
	for _, c := range rep.Clocks {
		if c.OffsetSeconds == 0 {
			continue // taken for the proxies' lag: nothing was shifted (warnings say so)
		}
		out = append(out, fmt.Sprintf("%s times were shifted by %+.1f s to the load balancer's clock (%s, %s)",
			c.Source, c.OffsetSeconds, words.Plural(c.Pairs, "paired observation"), c.How))
	}
	for _, in := range rep.Incidents {
		if in.SampleRate > 0 && in.SampleRate < 1 {
			out = append(out, fmt.Sprintf("%s: request logs are sampled at %s; its %d failed requests are an estimate from the %d logged",
				in.ID, words.Percent(in.SampleRate), in.FailedRequests, in.LoggedFailedRequests))
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
func windowText(w *report.Window) string {
	t := func(t time.Time, open string) string {
		if t.IsZero() {
			return open
		}
		return t.UTC().Format(time.DateTime)
	}
	return "[" + t(w.Since, "…") + ", " + t(w.Until, "…") + ") UTC"
}

// utc returns t in UTC; the zero time stays zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

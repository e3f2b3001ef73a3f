package report

import (
	"fmt"
	"slices"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	"sigs.k8s.io/yaml"
)

// newReport builds the report of a read and its classification.
func newReport(res *sources.Result, a *correlate.Analysis, cl *classify.Result) *Report {
	rep := &Report{Schema: SchemaVersion, Summary: Summary{Changes: []Change{}}, Inputs: []Input{}, Warnings: []string{},
		Rollouts: []Rollout{}, Incidents: []Incident{}, Lanes: []Lane{}, Notes: cl.Notes, PrunedObjects: res.Pruned}
	for _, in := range res.Inputs {
		rep.Inputs = append(rep.Inputs, Input{
			Name: in.Name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates,
			First: utc(in.First), Last: utc(in.Last),
		})
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
	rep.Summary = summarize(a, rep.Incidents)
	rep.Lanes = newLanes(a)
	rep.Series = newSeries(a)
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

// newSeries is the per-second outcome series from the first to the last
// second with requests.
func newSeries(a *correlate.Analysis) *Series {
	first, last, ok := a.Span()
	if !ok {
		return nil
	}
	s := &Series{Start: time.Unix(first, 0).UTC(), StepSeconds: 1, Columns: seriesColumns, Values: make([][]int, 0, last-first+1)}
	row := func(c correlate.Counts) []int {
		f := c.LBFailed
		return []int{c.OK, c.AppErrors, f[sources.FailureNoBackend], f[sources.FailureRefused],
			f[sources.FailureUnreachable], f[sources.FailureClosed], f[sources.FailureTimeout], f[sources.FailureOther], c.Hidden}
	}
	next := first
	a.Each(first, last, func(sec int64, c correlate.Counts) {
		for ; next < sec; next++ {
			s.Values = append(s.Values, row(correlate.Counts{}))
		}
		s.Values = append(s.Values, row(c))
		next = sec + 1
	})
	return s
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

// patchYAML renders a fix's patch as YAML; "" when there is none.
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

// summarize adds up the incidents and states each of their fixes once, in
// the order they first appear.
func summarize(a *correlate.Analysis, incidents []Incident) Summary {
	sum := Summary{Incidents: len(incidents), Changes: []Change{}}
	if first, last, ok := a.Span(); ok {
		all := a.Sum(first, last)
		sum.Requests, sum.AppErrors = all.Total, all.AppErrors
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

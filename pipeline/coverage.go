package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
)

// alwaysListed are the kinds of source every report's coverage lists, read
// or not; the others (health checks) are listed only when read.
var alwaysListed = []sources.RecordKind{sources.KindRequestLog, sources.KindEvent, sources.KindObject, sources.KindControllerLog}

// kindNames are the kinds of source for people, by sources.RecordKind.
var kindNames = [sources.NumRecordKinds]string{"request logs", "events", "objects", "controller logs", "health checks", "client-side requests"}

// maxUnreadNamed is how many unread inputs a cannot-judge reason names, each
// with its reason; the rest are counted.
const maxUnreadNamed = 3

// newCoverage sums what each kind of source gave over the inputs read:
// the kinds every report lists, then any other kind read.
func newCoverage(res *sources.Result) []report.Coverage {
	var spans [sources.NumRecordKinds]report.Coverage
	for k := range spans {
		spans[k].Kind, spans[k].Name = sources.RecordKind(k).String(), kindNames[k]
	}
	for _, in := range res.Inputs {
		for k, s := range in.Kinds {
			if s.Records == 0 {
				continue
			}
			c := &spans[k]
			c.Files++
			c.Records += s.Records
			if f := utc(s.First); !f.IsZero() && (c.First.IsZero() || f.Before(c.First)) {
				c.First = f
			}
			if l := utc(s.Last); l.After(c.Last) {
				c.Last = l
			}
		}
	}
	out := []report.Coverage{}
	for _, k := range alwaysListed {
		out = append(out, spans[k])
	}
	for k := range spans {
		if spans[k].Files > 0 && !slices.Contains(alwaysListed, sources.RecordKind(k)) {
			out = append(out, spans[k])
		}
	}
	return out
}

// coverageOf returns the coverage of kind k in rep; the zero Coverage
// when rep lists none.
func coverageOf(rep *report.Report, k sources.RecordKind) report.Coverage {
	for _, c := range rep.Summary.Coverage {
		if c.Kind == k.String() {
			return c
		}
	}
	return report.Coverage{Kind: k.String()}
}

// judge sets the report's verdict from what was read: without records of a
// request log it cannot judge; with one that does not cover a rollout the
// other sources show, that rollout was not judged (the verdict, when no
// incident was found elsewhere, or a caveat).
func judge(rep *report.Report, res *sources.Result, rollouts []*correlate.Rollout) {
	rep.Summary.Verdict = report.VerdictNoIncident
	if len(rep.Incidents) > 0 {
		rep.Summary.Verdict = report.VerdictIncident
	}
	req := coverageOf(rep, sources.KindRequestLog)
	if req.Records == 0 {
		cannotJudge(rep, "no request log was read: "+noRequestLogWhy(rep, res))
		return
	}
	// One of the inputs not read may be the request log that shows the
	// incident (a second gateway's log in a format not read): the verdict
	// says what it rests on at the top, not only among the warnings. An
	// empty one cannot.
	if n := orderOnlyRequests(res); n > 0 {
		// Pasted lines without their time: how they fall against the
		// rollout is not known, so no run of errors can be ruled out.
		why := fmt.Sprintf("%d of the %d requests read have no time of their own (access lines pasted without it): their order is known, not when they happened against the rollout", n, req.Records)
		if len(rep.Incidents) == 0 {
			cannotJudge(rep, why)
		} else {
			rep.Summary.Caveats = append(rep.Summary.Caveats, why+"; the incidents' times from them are order only")
		}
	}
	if held := slices.DeleteFunc(slices.Clone(res.Unread), func(u sources.Unread) bool { return u.Empty }); len(held) > 0 {
		rep.Summary.Caveats = append(rep.Summary.Caveats, unreadText(held)+": the verdict rests on the other inputs")
	}
	// Once the request logs show the pods of some rollouts, a rollout none
	// of whose pods they show is of a workload behind no load balancer
	// read (a worker, in an export of every namespace's events): said, but
	// not what the verdict rests on.
	served := slices.ContainsFunc(rollouts, rolloutServed)
	var gaps, elsewhere []string
	for _, r := range rollouts {
		switch gap := rolloutGap(r, req); {
		case gap == "":
		case served && !rolloutServed(r):
			elsewhere = append(elsewhere, rolloutName(r))
		default:
			gaps = append(gaps, gap)
		}
	}
	if len(elsewhere) > 0 {
		verb := " lies outside the request logs, and none of its pods shows in them: not judged"
		if len(elsewhere) > 1 {
			verb = " lie outside the request logs, and none of their pods shows in them: not judged"
		}
		rep.Summary.Caveats = append(rep.Summary.Caveats, joinAnd(elsewhere)+verb)
	}
	if len(gaps) == 0 {
		return
	}
	why := strings.Join(gaps, "; ") + ": " + fmt.Sprintf("the request logs cover %s", spanOf(req.First, req.Last))
	if len(rep.Incidents) == 0 {
		cannotJudge(rep, why)
		return
	}
	while := "; failures while it ran may be missing"
	if len(gaps) > 1 {
		while = "; failures while they ran may be missing"
	}
	rep.Summary.Caveats = append(rep.Summary.Caveats, why+while)
}

// maxSetAsideNamed is how many namespaces of pods set aside a caveat
// names; the rest are counted.
const maxSetAsideNamed = 3

// setAsideCaveat says which pods the analysis set aside: those of the
// namespaces nothing else in the inputs mentions (see correlate.SetAside).
func setAsideCaveat(rep *report.Report, aside correlate.SetAside) {
	if aside.Pods == 0 {
		return
	}
	names := aside.Namespaces
	if len(names) > maxSetAsideNamed {
		names = append(slices.Clone(names[:maxSetAsideNamed]), fmt.Sprintf("%d more", len(aside.Namespaces)-maxSetAsideNamed))
	}
	pods, of := "pods", "namespaces"
	if aside.Pods == 1 {
		pods = "pod"
	}
	if len(aside.Namespaces) == 1 {
		of = "namespace"
	}
	rep.Summary.Caveats = append(rep.Summary.Caveats, fmt.Sprintf("%d %s of the %s %s were read and set aside: no traffic to their addresses, no event, no other object mentions them or their namespaces; not judged",
		aside.Pods, pods, of, joinAnd(names)))
}

// orderOnlyRequests counts the requests read whose time only orders them.
func orderOnlyRequests(res *sources.Result) int {
	n := 0
	for _, in := range res.Inputs {
		n += in.OrderOnly
	}
	return n
}

// cannotJudge makes the verdict cannot_judge, for why (added after the
// reasons already given).
func cannotJudge(rep *report.Report, why string) {
	s := &rep.Summary
	s.Verdict = report.VerdictCannotJudge
	if s.CannotJudge != "" {
		why = s.CannotJudge + "; " + why
	}
	s.CannotJudge = why
}

// cannotJudgeFirst makes the verdict cannot_judge, for why (put before the
// reasons already given: it is the one to act on first).
func cannotJudgeFirst(rep *report.Report, why string) {
	s := &rep.Summary
	s.Verdict = report.VerdictCannotJudge
	if s.CannotJudge != "" {
		why += "; " + s.CannotJudge
	}
	s.CannotJudge = why
}

// rolloutGap says how the request logs (req) miss rollout r; "" when they
// cover it, or when the rollout was found in the traffic itself.
func rolloutGap(r *correlate.Rollout, req report.Coverage) string {
	if r.How == correlate.FoundByTraffic || r.Start.IsZero() || req.First.IsZero() {
		return ""
	}
	start, end := utc(r.Start), utc(r.End)
	if end.IsZero() {
		end = start
	}
	name := rolloutName(r)
	first, last := req.First.Add(-stampResolution), req.Last.Add(stampResolution)
	switch {
	case end.Before(first) || start.After(last):
		return name + " lies outside the request logs"
	case start.Before(first) || end.After(last):
		return name + " is only partly inside the request logs"
	}
	return ""
}

// rolloutName names a rollout and its time for a reason: "the rollout of
// Deployment/web in shop (2026-02-11 06:20:15 – 06:22:24 UTC)".
func rolloutName(r *correlate.Rollout) string {
	start, end := utc(r.Start), utc(r.End)
	if end.IsZero() {
		end = start
	}
	name := "the rollout"
	if r.Workload != "" {
		name += " of Deployment/" + r.Workload
		if r.Namespace != "" {
			name += " in " + r.Namespace
		}
	}
	return name + " (" + spanOf(start, end) + ")"
}

// rolloutServed reports whether the request logs show any pod of rollout r,
// old or new: a request sent to it.
func rolloutServed(r *correlate.Rollout) bool {
	sent := func(b *correlate.Backend) bool { return !b.FirstServed.IsZero() || !b.LastSent.IsZero() }
	if r.New != nil && slices.ContainsFunc(r.New.Pods, sent) {
		return true
	}
	for _, rs := range r.Old {
		if slices.ContainsFunc(rs.Pods, sent) {
			return true
		}
	}
	return false
}

// stampResolution is how far a rollout's steps may lie outside the request
// logs' time and still count as covered: Kubernetes events, which the
// steps come from, are stamped to the second, and request logs to the
// millisecond or finer.
const stampResolution = time.Second

// noRequestLogWhy says why no request log was read: the inputs that gave
// nothing, with their reasons, and what the others hold.
func noRequestLogWhy(rep *report.Report, res *sources.Result) string {
	var parts []string
	if len(res.Inputs) == 0 && len(res.Unread) == 0 {
		return "no input file was found"
	}
	if len(res.Unread) > 0 {
		parts = append(parts, unreadText(res.Unread))
	}
	var empty []string
	for _, in := range res.Inputs {
		if in.Records == 0 {
			what := fmt.Sprintf("%s (%s): 0 records, %d skipped", in.Name, in.Format, in.Skipped)
			if in.Filtered > 0 {
				what += fmt.Sprintf(", %d outside the time window", in.Filtered)
			}
			empty = append(empty, what)
		}
	}
	if n := len(empty); n > 0 {
		if n > maxUnreadNamed {
			empty = append(empty[:maxUnreadNamed], fmt.Sprintf("and %d more", n-maxUnreadNamed))
		}
		parts = append(parts, fmt.Sprintf("%s gave no record (%s)", words.Plural(n, "file"), strings.Join(empty, "; ")))
	}
	var held []string
	for _, c := range rep.Summary.Coverage {
		if c.Records > 0 {
			held = append(held, c.Name)
		}
	}
	if len(held) > 0 {
		parts = append(parts, "the inputs read hold only "+joinAnd(held))
	}
	if coverageOf(rep, sources.KindClientLog).Records > 0 {
		parts = append(parts, "client-side requests say what users got, not whether the load balancer or the application answered (the notes say what they show)")
	}
	return strings.Join(parts, "; ")
}

// unreadText words the inputs not read, the first maxUnreadNamed with their
// reasons: "2 files not read (a.log: not in a format readygap reads; …)".
func unreadText(unread []sources.Unread) string {
	n := len(unread)
	var named []string
	for _, u := range unread[:min(n, maxUnreadNamed)] {
		named = append(named, u.Name+": "+u.Reason)
	}
	if n > maxUnreadNamed {
		named = append(named, fmt.Sprintf("and %d more", n-maxUnreadNamed))
	}
	return fmt.Sprintf("%s not read (%s)", words.Plural(n, "file"), strings.Join(named, "; "))
}

// joinAnd joins words as a list: "a", "a and b", "a, b and c".
func joinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// spanOf renders a time range for a reason: dates and times of day in UTC,
// the second date left out when it is the first's.
func spanOf(from, to time.Time) string {
	if from.IsZero() {
		return "no time"
	}
	end := to.UTC().Format(time.DateTime)
	if words.SameDay(from, to) {
		end = to.UTC().Format(time.TimeOnly)
	}
	return from.UTC().Format(time.DateTime) + " – " + end + " UTC"
}

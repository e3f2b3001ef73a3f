package classify

import (
	"fmt"
	"github.com/readygap/readygap/internal/words"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// This file words what the client-side requests (load-test tools, curl
// loops: correlate.ClientRuns) show: a run of failures users got. The
// client cannot tell who produced a 502 or 503 or which backend was
// chosen, so a run is never an incident; the Kubernetes records around it
// say which mechanisms it is consistent with, and the note names the
// export that would decide.

// clientExportMargin is how far before and after a run the suggested
// export of the load balancer's logs reaches: the old pods leave up to
// oldLeavesBefore before the failures, and the client's clock may be off
// by the tolerated skew.
const clientExportMargin = 2 * time.Minute

// clientNotes returns one note per run of failures the client saw.
func clientNotes(a *correlate.Analysis) []string {
	var out []string
	for _, run := range a.ClientRuns() {
		out = append(out, clientNote(a, run))
	}
	return out
}

// clientNote words one run.
func clientNote(a *correlate.Analysis, run correlate.ClientRun) string {
	var b strings.Builder
	end := run.End.Add(time.Second - time.Millisecond)
	fmt.Fprintf(&b, "The client saw %s (%s) between %s and %s UTC (client-side records, first at %s: what users got; they do not say whether the load balancer or the application answered, nor which backend)",
		words.Plural(run.Failed, "failed request"), clientStatuses(run.Statuses), correlate.Clock(run.Start), correlate.Clock(end), run.First)
	if run.OrderOnly {
		b.WriteString("; some of them have no time of their own, so their times are their order only")
	}
	b.WriteString(". ")
	skew := a.Opts.Skew
	leaving := firstEvent(a.EventsBetween(run.Start.Add(-oldLeavesBefore), run.Start.Add(oldLeavesAfter),
		sources.Killing, sources.PodDeleted, sources.ScaledDown, sources.NEGDetach, sources.TargetDeregistering))
	readyBefore := lastEvent(a.EventsBetween(run.Start.Add(-registrationLookback), run.Start.Add(-skew), sources.PodReady))
	readyAtEnd := firstEvent(a.EventsBetween(run.Start.Add(skew), end.Add(recoveryLookahead), sources.PodReady))
	var seen []string
	if leaving != nil {
		seen = append(seen, fmt.Sprintf("%s %s at %s (%s)", clientSubject(leaving), clientVerb(leaving), correlate.Clock(leaving.Time), leaving.Origin))
	}
	if readyAtEnd != nil {
		seen = append(seen, fmt.Sprintf("%s became Ready at %s (%s)", clientSubject(readyAtEnd), correlate.Clock(readyAtEnd.Time), readyAtEnd.Origin))
	}
	if l := firstProxyUpdate(a, run.Start.Add(-skew), end.Add(proxySyncAfter+skew)); l != nil {
		seen = append(seen, fmt.Sprintf("%s at %s (%s)", proxyLearnedNote(l), correlate.Clock(l.Time), l.Origin))
	}
	switch {
	case leaving != nil && readyBefore == nil && readyAtEnd != nil:
		fmt.Fprintf(&b, "Records around it: %s. Consistent with a registration lag: the old pods left before a new one was Ready, so nothing could serve until it was. ", strings.Join(seen, "; "))
	case leaving != nil:
		fmt.Fprintf(&b, "Records around it: %s. Consistent with a termination race (the old pods kept getting requests after they began terminating) or a registration lag (the load balancer had no new pod it saw healthy yet); the load balancer's log tells them apart: failures naming an old pod's IP are the first, failures without a backend the second. ", strings.Join(seen, "; "))
	case len(seen) > 0:
		fmt.Fprintf(&b, "Records around it: %s; no pod left as the failures began. ", strings.Join(seen, "; "))
	default:
		b.WriteString("No Kubernetes record in the inputs falls around it. ")
	}
	if first, last := a.DataSpan(); !first.IsZero() && !first.After(run.Start) && !last.Before(run.End) {
		b.WriteString("The request logs read cover this span: the incidents and notes from them say who produced these failures.")
		return b.String()
	}
	from := run.Start.Add(-clientExportMargin).UTC().Format(time.RFC3339)
	to := end.Add(clientExportMargin).UTC().Format(time.RFC3339)
	fmt.Fprintf(&b, "To decide, export the load balancer's or proxy's request logs from %s to %s (docs/formats.md says how for each) and analyze them with these records.", from, to)
	return b.String()
}

// clientStatuses renders the statuses of a run, 0 as "no response".
func clientStatuses(counts map[int]int) string {
	none := counts[0]
	rest := make(map[int]int, len(counts))
	for code, n := range counts {
		if code != 0 {
			rest[code] = n
		}
	}
	out := statusList(rest)
	if none > 0 {
		if out != "" {
			out += ", "
		}
		out += fmt.Sprintf("%d× no response", none)
	}
	return out
}

// clientSubject names what a record is about.
func clientSubject(l *sources.Lifecycle) string {
	switch {
	case l.Pod != "":
		return "pod " + l.Pod
	case l.Object != "":
		return l.Object
	case l.Group != "":
		return l.Group
	}
	return "a backend"
}

// clientVerb says what a departure record says happened.
func clientVerb(l *sources.Lifecycle) string {
	switch l.Kind {
	case sources.Killing:
		return "began terminating"
	case sources.PodDeleted:
		return "was deleted"
	case sources.ScaledDown:
		return "was scaled down"
	}
	return "was taken out of the load balancer"
}

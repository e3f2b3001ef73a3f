package correlate

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Entry is one line of an incident's timeline.
type Entry struct {
	Time time.Time
	// What happened, in a few words.
	What string
	// Who it happened to: a pod, an IP, a Service or the load balancer.
	Who  string
	Zone string
	// Source is the file:line of the record that says so; empty for counts
	// derived from many records.
	Source string
}

// maxTimelineEvents bounds the lifecycle entries of one timeline.
const maxTimelineEvents = 30

// Timeline lists the key moments around window w: rollout steps, what
// Kubernetes and the load balancer did to the involved backends, and where
// the failures began and ended.
func (a *Analysis) Timeline(w *Window, involved []*Backend) []Entry {
	var out []Entry
	keep := map[*sources.Lifecycle]bool{}
	for _, b := range involved {
		for _, l := range b.Events {
			keep[l] = true
		}
	}
	from, to := w.SignalStart.Add(-3*time.Minute), w.SignalEnd.Add(time.Minute)
	// once keeps the first of the records that say the same thing about the
	// same subject: an event and a pod object both report Ready, a health
	// check passes every interval.
	once := map[string]time.Time{}
	for _, l := range a.EventsBetween(from, to) {
		switch l.Kind {
		case sources.ScaledUp, sources.ScaledDown, sources.NEGAttach, sources.NEGDetach, sources.NEGOperationFailed,
			sources.NoEndpoints, sources.EventsLost:
		case sources.PodReady, sources.PodNotReady, sources.ReadinessGate, sources.Killing, sources.PodDeleted,
			sources.TargetRegistering, sources.TargetDeregistering, sources.HealthCheck, sources.ProbeFailed, sources.PreStopFailed:
			if !keep[l] {
				continue
			}
		default:
			continue // creation, scheduling and container starts belong to the lanes, not the key moments
		}
		key := fmt.Sprint(l.Kind, Subject(l), l.Status, l.Reason)
		if prev, ok := once[key]; ok && (l.Kind == sources.HealthCheck || l.Kind == sources.ProbeFailed || l.Time.Sub(prev) < 2*time.Second) {
			continue
		}
		once[key] = l.Time
		out = append(out, Entry{Time: l.Time, What: DescribeEvent(l), Who: Subject(l), Zone: l.Zone, Source: l.Origin.String()})
		if len(out) == maxTimelineEvents {
			break
		}
	}
	out = append(out, a.trafficMarks(w)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// trafficMarks marks the last success before the window, the first and last
// failure, and the first clean second after it.
func (a *Analysis) trafficMarks(w *Window) []Entry {
	var out []Entry
	var first, last *sources.Request
	for _, r := range w.Signals {
		if !r.AttemptOnly && r.Failure.LBGenerated() {
			if first == nil {
				first = r
			}
			last = r
		}
	}
	if sig := w.Signals[0]; first == nil || sig.Time.Before(first.Time) {
		out = append(out, Entry{Time: sig.Time, What: "first failed upstream attempt: " + DescribeRequest(sig), Who: "proxy", Source: sig.Origin.String()})
	}
	if first != nil {
		out = append(out,
			Entry{Time: first.Time, What: "first failed request: " + DescribeRequest(first), Who: "load balancer", Source: first.Origin.String()},
			Entry{Time: last.Time, What: fmt.Sprintf("last failed request (%d in the window)", w.Failed), Who: "load balancer", Source: last.Origin.String()})
	}
	if sig := w.Signals[len(w.Signals)-1]; last == nil || sig.Time.After(last.Time) {
		out = append(out, Entry{Time: sig.Time, What: "last failed upstream attempt: " + DescribeRequest(sig), Who: "proxy", Source: sig.Origin.String()})
	}
	var before, after int64 = -1, -1
	a.Each(math.MinInt64, math.MaxInt64, func(s int64, n Counts) {
		if n.OK > 0 && s < w.SignalStart.Unix() && s > before {
			before = s
		}
		if n.OK > 0 && n.Failed() == 0 && n.Hidden == 0 && s > w.SignalEnd.Unix() && (after < 0 || s < after) {
			after = s
		}
	})
	if before >= 0 {
		out = append(out, Entry{Time: time.Unix(before, 0).UTC(), What: "last successful second before the failures", Who: "load balancer"})
	}
	if after >= 0 {
		out = append(out, Entry{Time: time.Unix(after, 0).UTC(), What: "requests succeed again", Who: "load balancer"})
	}
	return out
}

// DescribeEvent words a lifecycle record for a timeline or an evidence line.
func DescribeEvent(l *sources.Lifecycle) string {
	switch l.Kind {
	case sources.ScaledUp, sources.ScaledDown:
		verb := "scaled up"
		if l.Kind == sources.ScaledDown {
			verb = "scaled down"
		}
		if l.From >= 0 {
			return fmt.Sprintf("%s %s from %d to %d", verb, l.Group, l.From, l.Count)
		}
		return fmt.Sprintf("%s %s to %d", verb, l.Group, l.Count)
	case sources.NEGAttach, sources.NEGDetach:
		return fmt.Sprintf("NEG %s %d endpoint(s) in %s", map[bool]string{true: "attach", false: "detach"}[l.Kind == sources.NEGAttach], l.Count, l.Zone)
	case sources.ReadinessGate:
		return fmt.Sprintf("readiness gate %s (%s)", orText(l.Status, "not ready"), orText(l.Reason, l.Group))
	case sources.ProbeFailed:
		return fmt.Sprintf("%s probe failed", l.Reason)
	case sources.HealthCheck:
		if l.Reason != "" && l.Health != sources.HealthHealthy {
			return fmt.Sprintf("LB health check %s (%s)", l.Status, l.Reason)
		}
		return "LB health check " + l.Status
	case sources.TargetRegistering, sources.TargetRegistered, sources.TargetDeregistering, sources.TargetDeregistered:
		return l.Message
	case sources.NoEndpoints:
		return "proxy: Service has no active endpoint"
	case sources.EventsLost:
		return "events may have been lost before this"
	case sources.Killing:
		return "Killing: " + l.Message
	case sources.PodReady:
		return "pod Ready"
	case sources.PodNotReady:
		return "pod not Ready"
	case sources.PodCreated:
		return "pod created"
	case sources.PodScheduled:
		return "scheduled to " + l.Node
	case sources.ContainerStarted:
		return "container started"
	case sources.PodDeleted:
		return "pod deleted (termination begins)"
	}
	return orText(l.Reason, l.Kind.String())
}

// Subject names what a lifecycle record is about: the pod, else the IP,
// else the object.
func Subject(l *sources.Lifecycle) string {
	switch {
	case l.Pod != "":
		return l.Pod
	case l.IP.IsValid():
		return l.IP.String()
	}
	return l.Object
}

// DescribeRequest words one failed request for a timeline or an evidence
// line: what was asked, what the client got, and which backends failed.
func DescribeRequest(r *sources.Request) string {
	var b strings.Builder
	if r.Method != "" || r.Path != "" {
		fmt.Fprintf(&b, "%s %s ", r.Method, r.Path)
	}
	if r.AttemptOnly {
		fmt.Fprintf(&b, "attempt to %s failed: %s", r.Backend, failureText(r.Failure))
		if r.Detail != "" {
			fmt.Fprintf(&b, " (%s)", truncate(r.Detail, 90))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "→ %d", r.Status)
	if r.Failure != sources.FailureNone {
		b.WriteString(" " + failureText(r.Failure))
	}
	var failed []string
	for _, a := range r.Attempts {
		if a.Failure.LBGenerated() {
			failed = append(failed, fmt.Sprintf("%s (%d)", a.Backend, a.Status))
		}
	}
	switch {
	case len(failed) > 0 && !r.Failure.LBGenerated():
		fmt.Fprintf(&b, " after failed attempts to %s", strings.Join(failed, ", "))
	case len(failed) > 0:
		fmt.Fprintf(&b, " from %s", strings.Join(failed, ", "))
	case r.Backend.IsValid():
		fmt.Fprintf(&b, " from %s", r.Backend)
	}
	if r.Detail != "" {
		fmt.Fprintf(&b, " (%s)", truncate(r.Detail, 90))
	}
	return b.String()
}

// failureText words a failure kind.
func failureText(k sources.FailureKind) string {
	switch k {
	case sources.FailureNoBackend:
		return "no backend"
	case sources.FailureRefused:
		return "connection refused"
	case sources.FailureUnreachable:
		return "backend unreachable"
	case sources.FailureClosed:
		return "connection closed or reset"
	case sources.FailureTimeout:
		return "timeout"
	case sources.FailureAppError:
		return "application error"
	case sources.FailureOther:
		return "proxy error"
	}
	return "ok"
}

// truncate shortens s to n bytes with an ellipsis.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

package pipeline

import (
	"cmp"
	"fmt"
	"net/netip"
	"strings"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// maxDetail bounds how much of a load balancer's own wording of an outcome
// an evidence line quotes.
const maxDetail = 90

// describeEvent words a lifecycle record for a timeline or an evidence line.
func describeEvent(l *sources.Lifecycle) string {
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
		return fmt.Sprintf("readiness gate %s (%s)", cmp.Or(l.Status, "not ready"), cmp.Or(l.Reason, l.Group))
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
	case sources.NodeDraining:
		return fmt.Sprintf("node %s drained (%s: %s)", l.Node, cmp.Or(l.Source, "?"), l.Reason)
	case sources.PodEvicted:
		return fmt.Sprintf("evicted by %s (%s)", cmp.Or(l.Source, "?"), l.Reason)
	case sources.Rescaled:
		return fmt.Sprintf("autoscaler set %d replicas", l.Count)
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
	case sources.ServiceSwitched, sources.TrafficWeight, sources.RolloutStep, sources.RolloutCompleted, sources.RolloutAborted:
		return describeStep(l)
	case sources.ProxyUpdated:
		what := "the proxy learned the endpoints"
		if l.Object != "" {
			what += " of " + l.Object
		}
		return what + " (" + cmp.Or(l.Source, "control plane") + ": " + l.Reason + ")"
	}
	return cmp.Or(l.Reason, l.Kind.String())
}

// describeStep words a progressive-delivery controller's record: a
// Service switch, a canary weight, a step, a promotion or an abort.
func describeStep(l *sources.Lifecycle) string {
	switch l.Kind {
	case sources.ServiceSwitched:
		return fmt.Sprintf("Service %s switched from pods %s to pods %s", l.Group, cmp.Or(l.Previous, "(none)"), l.Status)
	case sources.TrafficWeight:
		if l.From >= 0 {
			return fmt.Sprintf("canary weight %d%% → %d%%", l.From, l.Count)
		}
		return fmt.Sprintf("canary weight set to %d%%", l.Count)
	case sources.RolloutStep:
		if l.Reason == "RolloutStepCompleted" && l.Status != "" {
			return fmt.Sprintf("step %d completed (%s)", l.Count, l.Status)
		}
	case sources.RolloutCompleted:
		return "promoted: " + truncate(l.Message, maxDetail)
	case sources.RolloutAborted:
		return "aborted: " + truncate(l.Message, maxDetail)
	}
	return l.Reason + ": " + truncate(l.Message, maxDetail)
}

// describeRequest words one failed request for a timeline or an evidence
// line: what was asked, what the client got, and which backends failed.
func describeRequest(r *sources.Request) string {
	var b strings.Builder
	if r.Method != "" || r.Path != "" {
		fmt.Fprintf(&b, "%s %s ", r.Method, r.Path)
	}
	if r.AttemptOnly {
		fmt.Fprintf(&b, "attempt to %s failed: %s", backendText(r.Backend), failureText(r.Failure))
		if r.Detail != "" {
			fmt.Fprintf(&b, " (%s)", truncate(r.Detail, maxDetail))
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
			failed = append(failed, fmt.Sprintf("%s (%d)", backendText(a.Backend), a.Status))
		}
	}
	switch {
	case len(failed) > 0 && !r.Failure.LBGenerated():
		fmt.Fprintf(&b, " after failed attempts to %s", strings.Join(failed, ", "))
	case len(failed) > 0:
		fmt.Fprintf(&b, " from %s", strings.Join(failed, ", "))
	case r.Backend.IsValid():
		fmt.Fprintf(&b, " from %s", backendText(r.Backend))
	}
	if r.Detail != "" {
		fmt.Fprintf(&b, " (%s)", truncate(r.Detail, maxDetail))
	}
	return b.String()
}

// backendText is a backend's address: its IP and port, or its IP alone
// when the log gives no port (Google's load balancer logs serverIp
// without one).
func backendText(a netip.AddrPort) string {
	if a.Port() == 0 {
		return a.Addr().String()
	}
	return a.String()
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

// describeEvidence words one piece of evidence: the record, what the rule
// says it shows, or the fact.
func describeEvidence(e classify.Evidence) string {
	var text string
	switch {
	case e.Event != nil:
		text = describeEvent(e.Event)
		if who := correlate.Subject(e.Event); who != "" {
			text = who + ": " + text
		}
		if e.Note != "" {
			text += " — " + e.Note
		}
	case e.Request != nil:
		text = describeRequest(e.Request)
		if e.Note != "" {
			text += " — " + e.Note
		}
	case e.Fact != "":
		text = e.Fact
	default:
		text = e.Note
	}
	return text
}

// describeEntry words one key moment of a timeline, and names who it
// happened to.
func describeEntry(e correlate.Entry) (what, who string) {
	switch e.Kind {
	case correlate.EntryEvent:
		return describeEvent(e.Event), correlate.Subject(e.Event)
	case correlate.EntryFirstFailure:
		return "first failed request: " + describeRequest(e.Request), "load balancer"
	case correlate.EntryLastFailure:
		return fmt.Sprintf("last failed request (%d in the window)", e.Count), "load balancer"
	case correlate.EntryFirstAttempt:
		return "first failed upstream attempt: " + describeRequest(e.Request), "proxy"
	case correlate.EntryLastAttempt:
		return "last failed upstream attempt: " + describeRequest(e.Request), "proxy"
	case correlate.EntryLastSuccess:
		return "last successful second before the failures", "load balancer"
	case correlate.EntryRecovered:
		return "requests succeed again", "load balancer"
	}
	return "", ""
}

package classify

import (
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// This file names what the events alone make suspect when no request log
// was read: no failure can be counted, so no incident is claimed, but a
// record that is the signature of a mechanism is worth saying, with the
// export that would decide.

// Tuning of the suspicions.
const (
	// suspicionProbeNear is how close a failed readiness probe of the
	// same pod must be to the gate's opening to raise the confidence:
	// kubectl tables print ages to the minute past 10 minutes, so a
	// probe failure and a gate opening in one sync print a minute apart
	// at most (ingress-gce#1718 shows both at 16m).
	suspicionProbeNear = 2 * time.Minute
	// suspicionExportMargin is how far before and after the records the
	// suggested export reaches: a rollout step around the gate takes
	// minutes, and the records' own times may be a minute off.
	suspicionExportMargin = 15 * time.Minute
)

// suspicions returns the notes for what the events make suspect when no
// request log was read; none when one was.
func suspicions(a *correlate.Analysis) []string {
	if first, _ := a.DataSpan(); !first.IsZero() {
		return nil
	}
	var out []string
	for i := range a.Lifecycle {
		l := &a.Lifecycle[i]
		if l.Kind != sources.ReadinessGate || l.Gate != sources.GateWithoutHealthCheck && l.Gate != sources.GateTimeout {
			continue
		}
		out = append(out, registrationLagSuspicion(a, l))
	}
	return out
}

// registrationLagSuspicion words the suspicion one gate opened without the
// load balancer's health check raises.
func registrationLagSuspicion(a *correlate.Analysis, gate *sources.Lifecycle) string {
	pod := "a pod"
	if gate.Pod != "" {
		pod = "pod " + gate.Namespace + "/" + gate.Pod
		if gate.Namespace == "" {
			pod = "pod " + gate.Pod
		}
	}
	how := "with no load-balancer health check covering it yet (LoadBalancerNegWithoutHealthCheck)"
	if gate.Gate == sources.GateTimeout {
		how = "after waiting too long for the load balancer's health check (LoadBalancerNegTimeout)"
	}
	confidence := "low"
	why := ""
	for _, p := range a.EventsBetween(gate.Time.Add(-suspicionProbeNear), gate.Time.Add(suspicionProbeNear), sources.ProbeFailed) {
		if p.Pod == gate.Pod && (gate.Pod != "" || p.Origin.File == gate.Origin.File) {
			confidence = "medium"
			why = fmt.Sprintf("; its readiness probe was failing at the same time (%s), so the load balancer could send it requests it could not serve", p.Origin)
			break
		}
	}
	at := "at " + correlate.Clock(gate.Time)
	if gate.TimeError > 0 {
		at += fmt.Sprintf(" ± %s", gate.TimeError.Round(time.Second))
	}
	from := gate.Time.Add(-gate.TimeError - suspicionExportMargin).UTC().Format(time.RFC3339)
	to := gate.Time.Add(gate.TimeError + suspicionExportMargin).UTC().Format(time.RFC3339)
	if gate.OrderOnly {
		// The table's ages count back from an unknown time: no clock
		// time is worth printing, nor a window to export.
		at = "at a time the table does not give (its ages need --now)"
		from, to = "START", "END"
	}
	return fmt.Sprintf("Suspected registration lag (%s confidence, no failure counted: no request log was read): "+
		"the NEG readiness gate of %s opened %s %s (%s)%s. "+
		"If the old pods left before the load balancer saw this one healthy, it answered 502/503 with no healthy backend (kubernetes/ingress-gce#1718). "+
		"To confirm, export the load balancer's request logs around it and analyze them with these events: "+
		"`gcloud logging read 'resource.type=(\"http_load_balancer\" OR \"http_external_regional_lb_rule\" OR \"internal_http_lb_rule\") AND timestamp>=\"%s\" AND timestamp<=\"%s\"' --format=json > lb-requests.json`%s.",
		confidence, pod, at, how, gate.Origin, why, from, to, window(gate))
}

// window says which times to put in the export command of a record
// whose time is only its order.
func window(l *sources.Lifecycle) string {
	if !l.OrderOnly {
		return ""
	}
	return ", START and END a quarter of an hour either side of when the gate opened (the time `kubectl describe` ran minus the row's age)"
}

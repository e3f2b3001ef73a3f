package classify

import (
	"cmp"
	"fmt"
	"github.com/readygap/readygap/internal/words"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// rolloutSwitchLag explains a blue-green rollout's outage: Argo Rollouts
// switched the active Service's selector to the new pods, and the load
// balancer behind that Service, which registers pods by IP, dropped the
// old ones and had to register the new ones and pass its health check
// before it had a healthy target again (argo-rollouts PR #4259, issues
// #1283, #4834). It is registration lag, caused by the switch rather than
// by a rolling update.
type rolloutSwitchLag struct{}

// rolloutSwitchLagCause is the cause rolloutSwitchLag names.
var rolloutSwitchLagCause = Cause{
	ID:          "rollout_switch_lag",
	Name:        "registration lag by Service switch",
	Description: "an Argo Rollout switched its active Service to the new pods before the load balancer had registered them and passed its health check: no healthy target",
	Signature:   "answers without a backend (ALB 503, no target) starting at a `SwitchService` event of the Rollout, with no traffic-weight change, until the new pods pass the load balancer's health check",
	Variants:    []Variant{{variantBlueGreenSwitch, "blue-green active Service switch"}},
	Checks:      rolloutSwitchLagChecks,
}

// variantBlueGreenSwitch is the switch of a blue-green active Service (or
// of any Service switched without a weight change).
const variantBlueGreenSwitch = "blue-green-active-switch"

// switchLagMax is how long after a Service switch the load balancer may
// still lack a healthy target because of it: registration (seconds) plus
// the ALB's default health check, 15 s × 5 healthy checks, twice over.
const switchLagMax = 3 * time.Minute

// Cause implements Rule.
func (rolloutSwitchLag) Cause() Cause { return rolloutSwitchLagCause }

// Claims implements Rule: an answer without a backend in a progressive
// rollout within switchLagMax after one of its Service switches, with no
// weight change since just before the switch (rollout_weight_no_target.go
// explains those).
func (rolloutSwitchLag) Claims(a *correlate.Analysis, s *correlate.Signal) bool {
	_, sw := switchOf(a, s)
	return sw != nil
}

// switchOf returns the rollout and Service switch a signal followed.
func switchOf(a *correlate.Analysis, s *correlate.Signal) (*correlate.Rollout, *sources.Lifecycle) {
	if !noBackendAnswer(s) {
		return nil, nil
	}
	r, sw := progressiveStep(a, s, switchLagMax, sources.ServiceSwitched)
	if sw == nil || len(r.StepsBetween(sw.Time.Add(-stepEventSlack), s.Time().Add(stepEventSlack), sources.TrafficWeight)) > 0 {
		return nil, nil
	}
	return r, sw
}

// Explain implements Rule: one finding per switch.
func (rolloutSwitchLag) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	return explainBySteps(a, claimed, switchOf, explainSwitchLag)
}

func explainSwitchLag(a *correlate.Analysis, g *stepGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	r, sw := g.Rollout, g.Step
	f := &Finding{Cause: rolloutSwitchLagCause.ID, Variant: variantBlueGreenSwitch, Window: w, Rollout: r, Step: sw, explicit: true}
	f.Evidence = append(f.Evidence, eventEvidence(sw, stepNote(sw)))
	f.Evidence = append(f.Evidence, failureEvidence(w, nil)...)
	corroborated := 1 // the switch itself
	if l := firstEvent(a.EventsBetween(sw.Time.Add(-stepEventSlack), w.End, sources.TargetRegistering, sources.TargetRegistered, sources.NEGAttach)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer began registering the new pods only after the switch"))
	}
	obj := rolloutObject(a, r)
	if obj != nil && obj.Rollout.Strategy == "blueGreen" {
		corroborated++
		f.Evidence = append(f.Evidence, factEvidence("%s is a blue-green Rollout: its active Service %s moves all traffic at once (read at %s)", r.WorkloadRef(), cmp.Or(obj.Rollout.ActiveService, sw.Group), obj.Origin))
	}
	f.grade(1, corroborated, registrationClearFit)
	var olds []*correlate.Backend
	for _, rs := range r.Old {
		olds = append(olds, rs.Pods...)
	}
	f.Backends = podRefs(a, r.New.Pods, olds, r)
	lag := w.End.Sub(sw.Time)
	family := platformOf(w)
	f.Summary = fmt.Sprintf("For %s after %s switched Service %s to the new pods (%s), %s had no healthy target: %s failed with %s. The switch moved traffic to pods the load balancer had not yet registered and health-checked.",
		seconds(w.End.Sub(w.Start)), r.WorkloadRef(), sw.Group, span(w), family.noun(""), words.Plural(w.Failed, "request"), cmp.Or(statusList(w.StatusCounts), "no client-visible error"))
	f.Remediation = switchLagFixes(r, obj, sw, lag, true, family)
	return f
}

// switchLagFixes (measured says lag was observed, not computed from the
// health check): move traffic by weight between two target groups that
// already hold healthy targets (canary with pingPong, the workaround of
// argo-rollouts#4834), pausing after the new pods are scaled up for the
// time the load balancer took to register them here.
func switchLagFixes(r *correlate.Rollout, obj *sources.Config, sw *sources.Lifecycle, lag time.Duration, measured bool, family platform) []Fix {
	pause := ceilSeconds(lag + stepMargin)
	ping, pong := sw.Group, placeholderName("preview Service")
	if obj != nil && obj.Rollout.PreviewService != "" {
		pong = obj.Rollout.PreviewService
	}
	routing := family.rolloutRouting(sw.Group)
	canary := map[string]any{
		"pingPong":       map[string]any{"pingService": ping, "pongService": pong},
		"trafficRouting": routing,
		"steps": []any{
			map[string]any{"setCanaryScale": map[string]any{"weight": 100}},
			map[string]any{"pause": map[string]any{"duration": fmt.Sprintf("%ds", pause)}},
			map[string]any{"setWeight": 100},
		},
	}
	p := rolloutPatch(r, "canary", canary)
	p["spec"].(map[string]any)["strategy"].(map[string]any)["blueGreen"] = nil
	return []Fix{{
		Title: fmt.Sprintf("Shift traffic by weight between ping-pong Services, pausing %d s after scaling the new pods up", pause),
		Why: fmt.Sprintf("A blue-green switch moves the Service's target group to pods it has not registered: %s for %s after the switch. With canary pingPong both Services keep registered targets, and the weight moves only after the pause (those %s plus %s), once the new pods are healthy in their target group (argo-rollouts#4834's workaround; PR #4259 documents the blue-green downtime).",
			map[bool]string{true: "here the load balancer had no healthy target", false: "the health check leaves the load balancer without a healthy target"}[measured],
			seconds(lag), seconds(lag), seconds(stepMargin)),
		Patch:    p,
		Template: true,
	}}
}

// Check implements Rule: see rollout_check.go.
func (rolloutSwitchLag) Check(objs *Objects) []*Risk { return checkBlueGreenBehindALB(objs) }

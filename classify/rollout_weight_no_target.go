package classify

import (
	"cmp"
	"fmt"
	"github.com/readygap/readygap/internal/words"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// rolloutWeightNoTarget explains failures that follow a canary weight
// change: the controller (Argo Rollouts, Flagger) sent a share of the
// traffic to a target group or Service that had no healthy target. Either
// the weight moved to the canary before the load balancer had passed its
// pods, or, at the end of an Argo canary with ALB routing and no
// ping-pong, the weight went back to the stable Service right after its
// selector was switched to the new pods, which the stable target group had
// yet to register (argo-rollouts#4433, #2864).
type rolloutWeightNoTarget struct{}

// Variants of a weight moved to no healthy target.
const (
	variantWeightToCanary     = "weight-to-unready-canary"
	variantWeightBackToStable = "weight-back-to-switched-stable"
)

// rolloutWeightNoTargetCause is the cause rolloutWeightNoTarget names.
var rolloutWeightNoTargetCause = Cause{
	ID:          "rollout_weight_no_healthy_target",
	Name:        "canary weight moved to a target group with no healthy target",
	Description: "a canary step moved traffic to a target group or Service whose pods the load balancer had not yet passed: that share of the requests had no healthy target",
	Signature:   "answers without a backend (ALB 503, nginx 503) for a share of the requests, starting at a `TrafficWeightUpdated` event (Flagger: `Advance … canary weight`), often right after a `SwitchService` of the stable Service",
	Variants: []Variant{
		{variantWeightToCanary, "weight moved to a canary not yet healthy"},
		{variantWeightBackToStable, "weight moved back to a stable Service just switched"},
	},
	Checks: rolloutWeightNoTargetChecks,
}

// weightLagMax is how long after a weight change the target group it
// moved traffic to may still lack a healthy target because of it: as
// switchLagMax.
const weightLagMax = switchLagMax

// Cause implements Rule.
func (rolloutWeightNoTarget) Cause() Cause { return rolloutWeightNoTargetCause }

// Claims implements Rule: an answer without a backend in a progressive
// rollout within weightLagMax after one of its weight changes. The load
// balancer may serve the other share meanwhile.
func (rolloutWeightNoTarget) Claims(a *correlate.Analysis, s *correlate.Signal) bool {
	_, tw := weightOf(a, s)
	return tw != nil
}

// weightOf returns the rollout and the weight change a signal followed.
func weightOf(a *correlate.Analysis, s *correlate.Signal) (*correlate.Rollout, *sources.Lifecycle) {
	if !noBackendAnswer(s) {
		return nil, nil
	}
	return progressiveStep(a, s, weightLagMax, sources.TrafficWeight)
}

// Explain implements Rule: one finding per weight change.
func (rolloutWeightNoTarget) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	return explainBySteps(a, claimed, weightOf, explainWeightNoTarget)
}

func explainWeightNoTarget(a *correlate.Analysis, g *stepGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	r, tw := g.Rollout, g.Step
	f := &Finding{Cause: rolloutWeightNoTargetCause.ID, Variant: variantWeightToCanary, Window: w, Rollout: r, Step: tw, explicit: true}
	f.Evidence = append(f.Evidence, eventEvidence(tw, stepNote(tw)))
	corroborated := 1
	// A stable Service switched within the same reconcile: the weight went
	// back to a target group re-registering its pods.
	sw := lastEvent(r.StepsBetween(tw.Time.Add(-stepEventSlack), tw.Time.Add(stepEventSlack), sources.ServiceSwitched))
	if sw != nil && tw.Count == 0 {
		f.Variant = variantWeightBackToStable
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(sw, stepNote(sw)))
	}
	f.Evidence = append(f.Evidence, failureEvidence(w, nil)...)
	obj := rolloutObject(a, r)
	pingPong := obj != nil && obj.Rollout.PingPong
	if obj != nil && obj.Rollout.TrafficRouting != "" && !pingPong {
		corroborated++
		f.Evidence = append(f.Evidence, factEvidence("%s routes its canary through %s without pingPong (read at %s)", r.WorkloadRef(), obj.Rollout.TrafficRouting, obj.Origin))
	}
	f.grade(1, corroborated, registrationClearFit)
	f.Backends = podRefs(a, r.New.Pods, nil, r)
	lag := w.End.Sub(tw.Time)
	family := platformOf(w)
	total := w.Failed + servedIn(a, w)
	f.Summary = fmt.Sprintf("%s set the canary weight to %d%% at %s and %s had no healthy target for that share for %s (%s): %s of %s in the window failed with %s.",
		r.WorkloadRef(), tw.Count, correlate.Clock(tw.Time), family.noun(""), seconds(lag), span(w), words.Plural(w.Failed, "request"), fmt.Sprint(total), cmp.Or(statusList(w.StatusCounts), "no client-visible error"))
	stable := ""
	if sw != nil {
		stable = sw.Group
	} else if obj != nil {
		stable = obj.Rollout.StableService
	}
	f.Remediation = weightFixes(r, stable, tw, f.Variant, lag, family)
	return f
}

// servedIn counts the requests the load balancer served in the window.
func servedIn(a *correlate.Analysis, w *correlate.Window) int {
	n := 0
	a.Each(w.Start.Unix(), w.End.Unix(), func(_ int64, c correlate.Counts) { n += c.OK })
	return n
}

// weightFixes (stable is the stable Service, "" when unknown): in Argo, pause after scaling the new pods up for as long as
// the load balancer took to pass them, before any weight moves to them;
// back to a just-switched stable Service, use ping-pong Services; on an
// ALB, verify the target group's weights. Flagger: wait longer between
// steps.
func weightFixes(r *correlate.Rollout, stable string, tw *sources.Lifecycle, variant string, lag time.Duration, family platform) []Fix {
	pause := ceilSeconds(lag + stepMargin)
	if r.Kind == correlate.KindFlaggerCanary {
		name := r.WorkloadRef()[len(correlate.KindFlaggerCanary)+1:]
		return []Fix{{
			Title: fmt.Sprintf("Advance the canary at most every %d s (analysis.interval)", pause),
			Why:   fmt.Sprintf("Flagger moved the weight to pods %s had no healthy target for during %s: an interval of %d s (that plus %s) lets the canary's pods pass before the next step.", family.noun(""), seconds(lag), pause, seconds(stepMargin)),
			Patch: objectPatch("flagger.app/v1beta1", "Canary", r.Namespace, name, nil, map[string]any{"analysis": map[string]any{"interval": fmt.Sprintf("%ds", pause)}}),
		}}
	}
	var fixes []Fix
	if variant == variantWeightBackToStable {
		fixes = append(fixes, Fix{
			Title: "Use ping-pong Services so the weight never moves to a target group re-registering its pods",
			Why: fmt.Sprintf("Without pingPong the last step switches the stable Service to the new pods and moves the weight back to it at once, while its target group has no healthy target (%s; argo-rollouts#4433). With pingPong the Services swap roles instead: the weight goes to the target group already serving the new pods.",
				seconds(lag)),
			Patch:    rolloutPatch(r, "canary", map[string]any{"pingPong": map[string]any{"pingService": cmp.Or(stable, placeholderName("ping Service")), "pongService": placeholderName("pong Service")}}),
			Template: true,
		})
	} else {
		steps := []any{
			map[string]any{"setCanaryScale": map[string]any{"weight": max(tw.Count, 1)}},
			map[string]any{"pause": map[string]any{"duration": fmt.Sprintf("%ds", pause)}},
			map[string]any{"setWeight": tw.Count},
		}
		fixes = append(fixes, Fix{
			Title: fmt.Sprintf("Scale the canary up and pause %d s before setting its weight", pause),
			Why: fmt.Sprintf("The weight moved to pods %s had not passed yet: it had no healthy target for them for %s. setCanaryScale starts the pods first; the pause (that plus %s) lets them pass the health check before setWeight sends them traffic. Put these steps in place of the setWeight: %d step.",
				family.noun(""), seconds(lag), seconds(stepMargin), tw.Count),
			Patch:    rolloutPatch(r, "canary", map[string]any{"steps": steps}),
			Template: true,
		})
	}
	if family.verifiesTargetGroups() {
		fixes = append(fixes, verifyTargetGroupFix(
			"With target-group verification the controller confirms each weight on the ALB before the next step, and holds the old ReplicaSet until the switched Service's endpoints are registered."))
	}
	return fixes
}

// Check implements Rule: see rollout_check.go.
func (rolloutWeightNoTarget) Check(objs *Objects) []*Risk { return checkCanaryWithoutPingPong(objs) }

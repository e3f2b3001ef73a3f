package classify

import (
	"cmp"
	"fmt"
	"github.com/readygap/readygap/internal/words"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// rolloutScaleDownRace explains failures at the old pods of an Argo
// Rollout after the controller scaled their ReplicaSet down: it waits
// scaleDownDelaySeconds after switching the Service (30 s by default),
// then terminates the old pods while the load balancer, slower to move its
// targets, still sends them requests (argo-rollouts#1283, #4772). It is a
// termination race whose trigger is the Rollout's scale-down, fixed in the
// Rollout's own delay.
type rolloutScaleDownRace struct{}

// rolloutScaleDownRaceCause is the cause rolloutScaleDownRace names.
var rolloutScaleDownRaceCause = Cause{
	ID:          "rollout_scale_down_race",
	Name:        "termination race by Rollout scale-down",
	Description: "an Argo Rollout scaled its old ReplicaSet down after scaleDownDelaySeconds while the load balancer still sent requests to its pods",
	Signature:   "502/503 with the old pods as the target (refused, reset, closed, unreachable) after the Rollout's `ScalingReplicaSet` event scaled their ReplicaSet down, following its `SwitchService`",
	Variants:    []Variant{{variantScaleDownAfterSwitch, "old ReplicaSet scaled down after the Service switch"}},
	Checks:      rolloutScaleDownRaceChecks,
}

// variantScaleDownAfterSwitch is the scale-down that follows a switch.
const variantScaleDownAfterSwitch = "scale-down-after-switch"

// scaleDownRaceMax is how long after the scale-down the old pods' failures
// are still its doing: their grace period (30 s by default) plus the
// load balancer's deregistration delay (300 s by default on an ALB).
const scaleDownRaceMax = 6 * time.Minute

// Cause implements Rule.
func (rolloutScaleDownRace) Cause() Cause { return rolloutScaleDownRaceCause }

// Claims implements Rule: a failed attempt at an old pod of a progressive
// rollout after the controller scaled its ReplicaSet down.
func (rolloutScaleDownRace) Claims(a *correlate.Analysis, s *correlate.Signal) bool {
	_, sd := scaleDownOf(a, s)
	return sd != nil
}

// scaleDownOf returns the rollout and the scale-down a signal followed.
func scaleDownOf(a *correlate.Analysis, s *correlate.Signal) (*correlate.Rollout, *sources.Lifecycle) {
	at := s.Last()
	if at == nil || !at.Kind.LBGenerated() || at.Kind == sources.FailureNoBackend || at.Of == nil {
		return nil, nil
	}
	r := progressiveOf(a, s)
	if r == nil {
		return nil, nil
	}
	rs := ""
	switch {
	case at.Of.Pod != "" && at.Role == correlate.RoleOld:
		rs = at.Of.ReplicaSet
	case at.Of.Pod == "":
		rs = alikeOldReplicaSet(r, at.Of)
	}
	if rs == "" {
		return nil, nil
	}
	for _, l := range r.StepsBetween(at.Time.Add(-scaleDownRaceMax), at.Time.Add(stepEventSlack), sources.ScaledDown) {
		if l.Group == rs && l.Count < max(l.From, 1) {
			return r, l
		}
	}
	return nil, nil
}

// alikeOldReplicaSet is the old ReplicaSet of r that every pod a bare IP
// may be belongs to ("" when they differ or one is not old): a scale-down
// deletes a ReplicaSet's pods in one moment, so nothing tells their IPs
// apart (correlate's Backend.Alike), but they are all its pods.
func alikeOldReplicaSet(r *correlate.Rollout, b *correlate.Backend) string {
	rs := ""
	for _, p := range b.Alike {
		if r.RoleOf(p) != correlate.RoleOld || rs != "" && p.ReplicaSet != rs {
			return ""
		}
		rs = p.ReplicaSet
	}
	return rs
}

// Explain implements Rule: one finding per scale-down.
func (rolloutScaleDownRace) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	return explainBySteps(a, claimed, scaleDownOf, explainScaleDownRace)
}

func explainScaleDownRace(a *correlate.Analysis, g *stepGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	r, sd := g.Rollout, g.Step
	f := &Finding{Cause: rolloutScaleDownRaceCause.ID, Variant: variantScaleDownAfterSwitch, Window: w, Rollout: r, Step: sd,
		Backends: backendRefs(a, w), Trigger: correlate.TriggerRollout.String(), explicit: true}
	f.Evidence = append(f.Evidence, eventEvidence(sd, stepNote(sd)))
	corroborated := 1
	obj := rolloutObject(a, r)
	delay, delayFrom := scaleDownDelay(obj, false)
	// The switch the scale-down waited for; without one the scale-down
	// stands in for it, delay before.
	base := sd.Time.Add(-delay)
	sw := stepBefore(r, sd.Time, scaleDownRaceMax, sources.ServiceSwitched)
	if sw != nil {
		base = sw.Time
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(sw, stepNote(sw)))
	}
	f.Evidence = append(f.Evidence, failureEvidence(w, nil)...)
	if l := lastEvent(a.EventsBetween(sd.Time.Add(-stepEventSlack), w.End, sources.TargetDeregistering, sources.NEGDetach)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer was told to stop sending to an old pod only now"))
	}
	f.grade(1, corroborated, terminationClearFit)
	reach := w.End.Sub(base) // how long after the switch the LB still sent to the old pods
	family := platformOf(w)
	f.Summary = fmt.Sprintf("%s scaled %s down %s after %s, but %s kept sending its pods requests until %s after it (%s; %s failed with %s on %s).",
		r.WorkloadRef(), sd.Group, seconds(sd.Time.Sub(base)), switchText(sw), family.noun(""), seconds(reach), span(w),
		words.Plural(w.Failed, "request"), cmp.Or(statusList(w.StatusCounts), "no client-visible error"), words.Plural(len(f.Backends), "pod IP"))
	need := ceilSeconds(reach + stepMargin)
	strategy := rolloutStrategy(obj, r)
	f.Remediation = []Fix{{
		Title: fmt.Sprintf("Keep the old ReplicaSet for %d s after the switch (scaleDownDelaySeconds)", need),
		Why: fmt.Sprintf("The old pods were scaled down %s after %s (%s), but requests reached them until %s after it: %d s is that plus %s.",
			seconds(sd.Time.Sub(base)), switchText(sw), delayFrom, seconds(reach), need, seconds(stepMargin)),
		Patch: rolloutPatch(r, strategy, map[string]any{"scaleDownDelaySeconds": need}),
	}}
	if family.verifiesTargetGroups() {
		f.Remediation = append(f.Remediation, verifyTargetGroupFix(
			"With target-group verification the controller scales the old ReplicaSet down only once every endpoint of the switched Service is registered in the ALB's target group, whatever the delay."))
	}
	return f
}

// switchText names the switch a scale-down followed.
func switchText(sw *sources.Lifecycle) string {
	if sw == nil {
		return "the Service switch (no event read; scaleDownDelaySeconds before the scale-down)"
	}
	return fmt.Sprintf("the switch of Service %s at %s", sw.Group, correlate.Clock(sw.Time))
}

// Check implements Rule: see rollout_check.go.
func (rolloutScaleDownRace) Check(objs *Objects) []*Risk { return checkScaleDownDelay(objs) }

package classify

import (
	"cmp"
	"fmt"
	"github.com/readygap/readygap/internal/words"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// rolloutAbortGone explains failures that follow an abort: the controller
// sent the traffic back to the stable pods, but they were gone (Argo
// canary with dynamicStableScale scales the stable ReplicaSet down as the
// canary grows) or not yet back, so the load balancer had no healthy
// target or sent requests to pods that no longer existed.
type rolloutAbortGone struct{}

// rolloutAbortGoneCause is the cause rolloutAbortGone names.
var rolloutAbortGoneCause = Cause{
	ID:          "rollout_abort_gone",
	Name:        "abort sent traffic back to pods already gone",
	Description: "a rollout was aborted and its traffic went back to stable pods that had been scaled down, before they were back and healthy",
	Signature:   "answers without a backend, or failed attempts at pods already gone, starting at a `RolloutAborted` event (Flagger: `Rolling back …`), until the stable pods are back",
	Variants:    []Variant{{variantAbortToScaledDown, "abort to a scaled-down stable ReplicaSet"}},
	Checks:      rolloutAbortGoneChecks,
}

// variantAbortToScaledDown is an abort back to a stable ReplicaSet the
// rollout had scaled down.
const variantAbortToScaledDown = "abort-to-scaled-down-stable"

// abortLagMax is how long after an abort the stable pods may still be
// missing because of it: scheduling and starting them (a minute) and
// passing the load balancer's health check (as switchLagMax).
const abortLagMax = switchLagMax + time.Minute

// Cause implements Rule.
func (rolloutAbortGone) Cause() Cause { return rolloutAbortGoneCause }

// Claims implements Rule: an answer without a backend, or a failed attempt
// at a pod that was gone, in a progressive rollout within abortLagMax
// after it was aborted.
func (rolloutAbortGone) Claims(a *correlate.Analysis, s *correlate.Signal) bool {
	_, ab := abortOf(a, s)
	return ab != nil
}

// abortOf returns the rollout and the abort a signal followed.
func abortOf(a *correlate.Analysis, s *correlate.Signal) (*correlate.Rollout, *sources.Lifecycle) {
	last := s.Last()
	gone := last != nil && last.Kind.LBGenerated() && last.State == correlate.StateGone
	if !noBackendAnswer(s) && !gone {
		return nil, nil
	}
	return progressiveStep(a, s, abortLagMax, sources.RolloutAborted)
}

// Explain implements Rule: one finding per abort.
func (rolloutAbortGone) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	return explainBySteps(a, claimed, abortOf, explainAbortGone)
}

func explainAbortGone(a *correlate.Analysis, g *stepGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	r, ab := g.Rollout, g.Step
	f := &Finding{Cause: rolloutAbortGoneCause.ID, Variant: variantAbortToScaledDown, Window: w, Rollout: r, Step: ab, explicit: true}
	f.Evidence = append(f.Evidence, eventEvidence(ab, stepNote(ab)))
	corroborated := 1
	// The stable ReplicaSet's scale-downs before the abort.
	stable := map[string]bool{}
	for _, rs := range r.Old {
		stable[rs.Name] = true
	}
	var shrank *sources.Lifecycle
	for _, l := range r.StepsBetween(r.Start.Add(-stepEventSlack), ab.Time, sources.ScaledDown) {
		if stable[l.Group] {
			shrank = l
		}
	}
	if shrank != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(shrank, "the stable ReplicaSet had been scaled down before the abort"))
	}
	f.Evidence = append(f.Evidence, failureEvidence(w, nil)...)
	obj := rolloutObject(a, r)
	dynamic := obj != nil && obj.Rollout.DynamicStableScale
	if dynamic {
		corroborated++
		f.Evidence = append(f.Evidence, factEvidence("%s scales its stable ReplicaSet down as the canary grows (dynamicStableScale, read at %s)", r.WorkloadRef(), obj.Origin))
	}
	f.grade(1, corroborated, registrationClearFit)
	var olds []*correlate.Backend
	for _, rs := range r.Old {
		olds = append(olds, rs.Pods...)
	}
	f.Backends = podRefs(a, nil, olds, r)
	for _, ref := range backendRefs(a, w) {
		if !hasRef(f.Backends, ref) {
			f.Backends = append(f.Backends, ref)
		}
	}
	back := w.End.Sub(ab.Time)
	family := platformOf(w)
	f.Summary = fmt.Sprintf("%s was aborted at %s and its traffic went back to stable pods that were gone: %s had no healthy target for %s (%s; %s failed with %s).",
		r.WorkloadRef(), correlate.Clock(ab.Time), family.noun(""), seconds(back), span(w), words.Plural(w.Failed, "request"), cmp.Or(statusList(w.StatusCounts), "no client-visible error"))
	f.Remediation = abortFixes(r, obj, back, dynamic)
	return f
}

// hasRef reports whether refs name the same backend IP as ref.
func hasRef(refs []BackendRef, ref BackendRef) bool {
	for _, r := range refs {
		if r.IP == ref.IP && r.Pod == ref.Pod {
			return true
		}
	}
	return false
}

// abortFixes: keep the canary serving after an abort until the stable
// pods are back (abortScaleDownDelaySeconds), or keep the stable
// ReplicaSet at full size (dynamicStableScale: false). Flagger: the
// primary is never scaled down, so a rollback's gap is its routing's.
func abortFixes(r *correlate.Rollout, obj *sources.Config, back time.Duration, dynamic bool) []Fix {
	need := ceilSeconds(back + stepMargin)
	if r.Kind == correlate.KindFlaggerCanary {
		return nil
	}
	delay, delayFrom := scaleDownDelay(obj, true)
	strategy := rolloutStrategy(obj, r)
	var fixes []Fix
	if dynamic || obj == nil {
		fixes = append(fixes, Fix{
			Title: "Keep the stable ReplicaSet at full size during the canary (dynamicStableScale: false)",
			Why:   "With dynamicStableScale the stable pods are scaled down as the canary grows, so an abort sends traffic back to pods that must first be started and pass the load balancer's health check" + measuredText(back) + "; without it they keep serving throughout.",
			Patch: rolloutPatch(r, "canary", map[string]any{"dynamicStableScale": false}),
		})
	}
	fixes = append(fixes, Fix{
		Title: fmt.Sprintf("Keep the canary pods for %d s after an abort (abortScaleDownDelaySeconds)", need),
		Why: fmt.Sprintf("After the abort the stable pods took %s to serve again, and the canary's pods were scaled down after %s (abortScaleDownDelaySeconds %s): the share still routed to the canary meanwhile fails too. %d s is the stable pods' return plus %s.",
			seconds(back), seconds(delay), delayFrom, need, seconds(stepMargin)),
		Patch: rolloutPatch(r, strategy, map[string]any{"abortScaleDownDelaySeconds": need}),
	})
	return fixes
}

// measuredText is " (N s here)" for a measured time; "" for none (a
// static check).
func measuredText(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " (" + seconds(d) + " here)"
}

// Check implements Rule: see rollout_check.go.
func (rolloutAbortGone) Check(objs *Objects) []*Risk { return checkDynamicStableScale(objs) }

package classify

import (
	"fmt"
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// What the progressive-delivery rules share (rollout_switch_lag.go,
// rollout_scale_down_race.go, rollout_weight_no_target.go,
// rollout_abort_gone.go): the rollout a failure happened in when a
// progressive-delivery controller drove it, the controller's step the
// failure followed, the Rollout object and the fixes in its own fields.

// Tuning shared by the progressive-delivery rules.
const (
	// stepEventSlack is how long after a failure the step that caused it
	// may be stamped: events carry whole seconds (lastTimestamp), and the
	// controller records the event after the change it made.
	stepEventSlack = 2 * time.Second
	// stepMargin is added to an observed time in a fix: one health check
	// of the ALB's fastest interval (5 s) and its event's second, twice.
	stepMargin = 10 * time.Second
)

// argoControllerNamespace and argoControllerName are where Argo Rollouts'
// install manifests run the controller (manifests/install.yaml).
const (
	argoControllerNamespace = "argo-rollouts"
	argoControllerName      = "argo-rollouts"
)

// progressiveOf returns the rollout a progressive-delivery controller
// drove that s may follow a step of: its decisive attempt's, else its own,
// else, when no rollout covers s, the latest such rollout that started before s and whose last
// record is no more than progressiveLookahead before it (a step's effect
// may outlast the rollout's coverage: the rules bound it by their own
// lags); nil for a Deployment's rollout or none.
func progressiveOf(a *correlate.Analysis, s *correlate.Signal) *correlate.Rollout {
	if s.Group == nil {
		return nil // a kind of failure asked about in general (ConsistentWith): no step to follow
	}
	r := s.Rollout
	if l := s.Last(); l != nil && l.Rollout != nil {
		r = l.Rollout
	}
	if r != nil {
		if r.Kind == "" {
			return nil // a Deployment's rollout covers it
		}
		return r
	}
	t := s.Time()
	var found *correlate.Rollout
	for _, x := range a.Rollouts {
		if x.Kind == "" || x.Start.After(t.Add(stepEventSlack)) || t.Sub(lastStepTime(x)) > progressiveLookahead {
			continue
		}
		found = x
	}
	return found
}

// progressiveLookahead is how long after a progressive rollout's last
// record a failure may still be its doing: the longest lag a rule allows
// (abortLagMax).
const progressiveLookahead = abortLagMax

// lastStepTime is the time of the rollout's last step, or its end.
func lastStepTime(r *correlate.Rollout) time.Time {
	t := r.End
	if n := len(r.Steps); n > 0 && r.Steps[n-1].Time.After(t) {
		t = r.Steps[n-1].Time
	}
	return t
}

// stepBefore returns the latest step of the given kinds the rollout took
// from t−within to t+stepEventSlack; nil when none.
func stepBefore(r *correlate.Rollout, t time.Time, within time.Duration, kinds ...sources.LifecycleKind) *sources.Lifecycle {
	steps := r.StepsBetween(t.Add(-within), t.Add(stepEventSlack), kinds...)
	if len(steps) == 0 {
		return nil
	}
	return steps[len(steps)-1]
}

// stepGroup is the failures one step of a rollout caused.
type stepGroup struct {
	Rollout *correlate.Rollout
	Step    *sources.Lifecycle
	Signals []*correlate.Signal
}

// stepFinder gives the rollout and the step a failure followed; a nil
// step when it followed none.
type stepFinder func(*correlate.Analysis, *correlate.Signal) (*correlate.Rollout, *sources.Lifecycle)

// explainBySteps is a step rule's Explain: the claimed failures split by
// the step stepOf gives each (dropping those it gives none), one finding
// per step by explain, in time order of the steps.
func explainBySteps(a *correlate.Analysis, claimed []*correlate.Signal, stepOf stepFinder, explain func(*correlate.Analysis, *stepGroup) *Finding) []*Finding {
	by := map[*sources.Lifecycle]*stepGroup{}
	var groups []*stepGroup
	for _, s := range claimed {
		r, l := stepOf(a, s)
		if l == nil {
			continue
		}
		g := by[l]
		if g == nil {
			g = &stepGroup{Rollout: r, Step: l}
			by[l] = g
			groups = append(groups, g)
		}
		g.Signals = append(g.Signals, s)
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].Step.Time.Before(groups[j].Step.Time) })
	out := make([]*Finding, 0, len(groups))
	for _, g := range groups {
		out = append(out, explain(a, g))
	}
	return out
}

// progressiveStep returns the progressive rollout a failure belongs to
// and its latest step of kind from within before the failure; a nil step
// when there is none.
func progressiveStep(a *correlate.Analysis, s *correlate.Signal, within time.Duration, kind sources.LifecycleKind) (*correlate.Rollout, *sources.Lifecycle) {
	r := progressiveOf(a, s)
	if r == nil {
		return nil, nil
	}
	if l := stepBefore(r, s.Time(), within, kind); l != nil {
		return r, l
	}
	return nil, nil
}

// rolloutObject returns the Rollout object read for r; nil when none was.
func rolloutObject(a *correlate.Analysis, r *correlate.Rollout) *sources.Config {
	for _, c := range a.ConfigsOf("Rollout") {
		if c.Rollout != nil && c.Name == r.Workload && (r.Namespace == "" || c.Namespace == r.Namespace) {
			return c
		}
	}
	return nil
}

// rolloutStrategy is the Rollout's strategy: the object's, else the one
// its steps show (a Service switch without weights is blue-green's).
func rolloutStrategy(obj *sources.Config, r *correlate.Rollout) string {
	if obj != nil && obj.Rollout.Strategy != "" {
		return obj.Rollout.Strategy
	}
	if len(r.StepsBetween(r.Start.Add(-time.Hour), r.End.Add(time.Hour), sources.TrafficWeight)) > 0 {
		return "canary"
	}
	return "blueGreen"
}

// rolloutPatch is a merge patch of the Rollout's strategy: fields set
// under spec.strategy.<strategy>. A Rollout no input names is a
// placeholder, which makes the fix a template.
func rolloutPatch(r *correlate.Rollout, strategy string, fields map[string]any) Patch {
	name := r.Workload
	if name == "" {
		name = placeholderName("Rollout")
	}
	return objectPatch(argoRolloutAPIVersion, correlate.KindArgoRollout, r.Namespace, name, nil,
		map[string]any{"strategy": map[string]any{strategy: fields}})
}

// scaleDownDelay is the Rollout's scaleDownDelaySeconds (abort: its
// abortScaleDownDelaySeconds) and where it comes from: read from the
// object, or Argo Rollouts' default (ArgoScaleDownDelayDefault, assumed).
func scaleDownDelay(obj *sources.Config, abort bool) (time.Duration, string) {
	if obj != nil {
		p := obj.Rollout.ScaleDownDelaySeconds
		field := "scaleDownDelaySeconds"
		if abort {
			p, field = obj.Rollout.AbortScaleDownDelaySeconds, "abortScaleDownDelaySeconds"
		}
		if p != nil {
			return time.Duration(*p) * time.Second, fmt.Sprintf("%s %d s, read at %s", field, *p, obj.Origin)
		}
	}
	return sources.ArgoScaleDownDelayDefault * time.Second,
		fmt.Sprintf("%d s, Argo Rollouts' default (%s)", sources.ArgoScaleDownDelayDefault, assumedDefault)
}

// verifyTargetGroupFix is the controller flag that holds the old
// ReplicaSet until the new pods' IPs are registered in the target group
// (Argo Rollouts v1.1+, IP target mode; docs/features/traffic-management/alb.md).
func verifyTargetGroupFix(why string) Fix {
	return Fix{
		Title: "Run the Argo Rollouts controller with --aws-verify-target-group",
		Why:   why + " The flag needs --aws-region and the controller's rights to call elasticloadbalancing:DescribeTargetGroups, DescribeLoadBalancers, DescribeListeners, DescribeRules, DescribeTags and DescribeTargetHealth.",
		Patch: objectPatch("apps/v1", "Deployment", argoControllerNamespace, argoControllerName, nil, templateSpec(map[string]any{
			"containers": []any{map[string]any{"name": argoControllerName, "args": []any{"--aws-verify-target-group", "--aws-region=<region>"}}},
		})),
		Template: true,
	}
}

// stepNote words what a step did, for evidence.
func stepNote(l *sources.Lifecycle) string {
	switch l.Kind {
	case sources.ServiceSwitched:
		return fmt.Sprintf("Service %s now selects the pods of hash %s: the load balancer must register them and pass its health check before it sends them requests", l.Group, l.Status)
	case sources.TrafficWeight:
		return fmt.Sprintf("the controller set the canary's share of traffic to %d%%", l.Count)
	case sources.ScaledDown:
		return fmt.Sprintf("the controller scaled %s down to %d: its pods begin terminating", l.Group, l.Count)
	case sources.RolloutAborted:
		return "the rollout was aborted: traffic goes back to the stable pods"
	}
	return "a step of the rollout"
}

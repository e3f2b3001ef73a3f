package classify

import (
	"cmp"
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// The static checks of Argo Rollout manifests: the same mechanisms as the
// progressive-delivery rules, from the Rollout's spec and the Ingresses
// and Services that send it traffic.

// Static checks of Rollouts, by cause.
const (
	checkBlueGreenALB      = "blue-green-behind-alb"
	checkRolloutScaleDown  = "scale-down-delay"
	checkCanaryALBPingPong = "canary-alb-without-ping-pong"
	checkDynamicStable     = "dynamic-stable-scale"
)

// The static checks of each progressive-delivery cause.
var (
	rolloutSwitchLagChecks = []StaticCheck{{checkBlueGreenALB, "blue-green switch behind an ALB",
		"a blueGreen Rollout whose active Service an ALB sends traffic to by pod IP (target-type ip): each switch leaves the target group without a healthy target for its health check's interval × healthy threshold (argo-rollouts PR #4259)"}}
	rolloutScaleDownRaceChecks = []StaticCheck{{checkRolloutScaleDown, "old pods scaled down before the ALB moved",
		"scaleDownDelaySeconds (default 30) below the ALB health check's interval × healthy threshold + 10 s, for a Rollout whose Services an ALB sends traffic to by pod IP (not a pingPong canary: its old pods carry no weight when they go)"}}
	rolloutWeightNoTargetChecks = []StaticCheck{{checkCanaryALBPingPong, "ALB canary without ping-pong",
		"a canary Rollout with trafficRouting.alb and no pingPong: its last step switches the stable Service and moves the weight back to it at once (argo-rollouts#4433)"}}
	rolloutAbortGoneChecks = []StaticCheck{{checkDynamicStable, "abort back to a scaled-down stable ReplicaSet",
		"a canary Rollout with dynamicStableScale: an abort sends traffic back to stable pods that were scaled down"}}
)

// rolloutNotApplied names the checks that do not judge an Argo Rollout:
// the rolling update's (maxSurge, minReadySeconds), which a Rollout's own
// steps replace. Those of its pod template (probes, preStop, grace period,
// keep-alive) judge its spec.template, or the template of the Deployment
// its workloadRef names, as they judge a Deployment's.
var rolloutNotApplied = map[string]string{
	registrationLagCause.ID: rolloutOwnSteps,
}

// rolloutCauses are the causes of a progressive-delivery controller's
// steps: their checks judge Argo Rollouts only.
var rolloutCauses = map[string]bool{
	rolloutSwitchLagCause.ID: true, rolloutScaleDownRaceCause.ID: true,
	rolloutWeightNoTargetCause.ID: true, rolloutAbortGoneCause.ID: true,
}

// Judges reports whether the static checks of cause judge a workload of
// kind: a Rollout's checks judge Rollouts only, and a Deployment's checks
// judge every kind notAppliedTo does not exclude.
func Judges(cause, kind string) bool {
	if rolloutCauses[cause] {
		return kind == "Rollout"
	}
	_, excluded := notAppliedTo[kind][cause]
	return !excluded
}

// rolloutOwnSteps is why a Deployment's checks do not judge a Rollout.
const rolloutOwnSteps = "judged by the rollout_* checks only"

// rolloutRisk starts a risk of a Rollout, pointing at it.
func rolloutRisk(cause Cause, check string, sev Severity, c *sources.Config) *Risk {
	return &Risk{Cause: cause.ID, Check: check, Severity: sev, Workload: c, Object: c}
}

// rolloutOf is a Rollout object as a correlate rollout, for the patches.
func rolloutOf(c *sources.Config) *correlate.Rollout {
	return &correlate.Rollout{Namespace: c.Namespace, Workload: c.Name, Kind: correlate.KindArgoRollout}
}

// albFront is an ALB path to one of a Rollout's Services: the Ingress,
// the Service, and the health check they set.
type albFront struct {
	Ingress, Service *sources.Config
	hc               healthCheck
}

// albFrontOf returns the ALB Ingress that sends traffic to the Service by
// pod IP (target-type ip on the Service or the Ingress), and its health
// check; ok is false when no input shows one.
func albFrontOf(objs *Objects, ns, service string) (albFront, bool) {
	if service == "" {
		return albFront{}, false
	}
	var svc *sources.Config
	for _, c := range objs.ConfigsOf("Service") {
		if c.Namespace == ns && c.Name == service {
			svc = c
		}
	}
	classes := map[string]bool{}
	for _, c := range objs.ConfigsOf("IngressClass") {
		if c.IngressClass != nil && c.IngressClass.Controller == sources.ALBIngressController {
			classes[c.Name] = true
		}
	}
	for _, ing := range objs.ConfigsOf("Ingress") {
		if ing.Namespace != ns || ing.Ingress == nil || !(ing.Ingress.Class == "alb" || classes[ing.Ingress.Class]) {
			continue
		}
		for _, b := range ing.Ingress.Backends {
			if b.Service != service {
				continue
			}
			holders := []*sources.Config{ing}
			if svc != nil {
				holders = []*sources.Config{svc, ing}
			}
			tt := albDefaultTargetType
			for i := len(holders) - 1; i >= 0; i-- {
				if hc := holders[i].HealthCheck; hc != nil && hc.TargetType != "" {
					tt = hc.TargetType
				}
			}
			if tt != "ip" {
				return albFront{}, false // instance targets are nodes: kube-proxy follows the switch
			}
			return albFront{Ingress: ing, Service: svc, hc: albAnnotationsHealthCheck(holders)}, true
		}
	}
	return albFront{}, false
}

// healthTime is how long the front's health check takes to pass a new
// target, with the objects it was read from or the defaults it assumed.
func (f albFront) healthTime() (time.Duration, string) {
	d := time.Duration(f.hc.IntervalSec*f.hc.HealthyThreshold) * time.Second
	from := fmt.Sprintf("the AWS Load Balancer Controller's defaults, %d s × %d (%s)", f.hc.IntervalSec, f.hc.HealthyThreshold, assumedDefault)
	if f.hc.Kind != "" {
		from = fmt.Sprintf("%d s × %d, read from %s %s/%s", f.hc.IntervalSec, f.hc.HealthyThreshold, f.hc.Kind, f.hc.Namespace, f.hc.Name)
	}
	return d, from
}

// checkBlueGreenBehindALB finds blue-green Rollouts whose active Service
// an ALB reaches by pod IP.
func checkBlueGreenBehindALB(objs *Objects) []*Risk {
	var out []*Risk
	for _, c := range objs.ConfigsOf("Rollout") {
		ro := c.Rollout
		if ro == nil || ro.Strategy != "blueGreen" {
			continue
		}
		f, ok := albFrontOf(objs, c.Namespace, ro.ActiveService)
		if !ok {
			continue
		}
		d, from := f.healthTime()
		r := rolloutRisk(rolloutSwitchLagCause, checkBlueGreenALB, SeverityError, c)
		r.Via = f.Ingress
		r.Title = fmt.Sprintf("each switch of %s leaves the ALB without a healthy target", objectName(c))
		r.Reason = fmt.Sprintf("%s sends ALB traffic to the pods of Service %s by IP; a blue-green switch deregisters the old pods and registers the new ones, which must pass the health check (%s) first: about %s without a healthy target per rollout (argo-rollouts PR #4259).",
			objectName(f.Ingress), ro.ActiveService, from, seconds(d))
		sw := &sources.Lifecycle{Group: ro.ActiveService}
		r.Fixes = switchLagFixes(rolloutOf(c), c, sw, d, false, albPlatform{})
		out = append(out, r)
	}
	return out
}

// checkScaleDownDelay finds Rollouts behind an ALB by pod IP whose old
// ReplicaSet goes before the ALB can have moved to the new pods.
func checkScaleDownDelay(objs *Objects) []*Risk {
	var out []*Risk
	for _, c := range objs.ConfigsOf("Rollout") {
		ro := c.Rollout
		if ro == nil {
			continue
		}
		svc := ro.ActiveService
		if ro.Strategy == "canary" {
			if ro.TrafficRouting == "" {
				continue // plain canary: Argo scales by replicas, no delay applies
			}
			if ro.PingPong {
				// The weight left the old pods' Service before the
				// promotion: they serve nothing when they go.
				continue
			}
			svc = cmp.Or(ro.RootService, ro.StableService)
		}
		f, ok := albFrontOf(objs, c.Namespace, svc)
		if !ok {
			continue
		}
		d, from := f.healthTime()
		delay, delayFrom := scaleDownDelay(c, false)
		need := d + stepMargin
		if delay >= need {
			continue
		}
		r := rolloutRisk(rolloutScaleDownRaceCause, checkRolloutScaleDown, SeverityWarning, c)
		r.Via = f.Ingress
		r.Title = fmt.Sprintf("%s scales its old pods down before the ALB can have moved", objectName(c))
		r.Reason = fmt.Sprintf("%s waits %s after switching Service %s before scaling the old ReplicaSet down, but the ALB sends the old pods requests until the new ones pass its health check (%s); the old pods then go while still in the target group (argo-rollouts#1283).",
			objectName(c), delayFrom, svc, from)
		n := ceilSeconds(need)
		r.Fixes = []Fix{{
			Title: fmt.Sprintf("Keep the old ReplicaSet for %d s after the switch (scaleDownDelaySeconds)", n),
			Why:   fmt.Sprintf("%d s is the health check's %s plus %s; --aws-verify-target-group makes the controller wait for the registration itself.", n, seconds(d), seconds(stepMargin)),
			Patch: rolloutPatch(rolloutOf(c), ro.Strategy, map[string]any{"scaleDownDelaySeconds": n}),
		}, verifyTargetGroupFix("With target-group verification the controller scales the old ReplicaSet down only once every endpoint of the switched Service is registered in the ALB's target group.")}
		out = append(out, r)
	}
	return out
}

// checkCanaryWithoutPingPong finds ALB canaries without ping-pong.
func checkCanaryWithoutPingPong(objs *Objects) []*Risk {
	var out []*Risk
	for _, c := range objs.ConfigsOf("Rollout") {
		ro := c.Rollout
		if ro == nil || ro.Strategy != "canary" || ro.TrafficRouting != "alb" || ro.PingPong {
			continue
		}
		r := rolloutRisk(rolloutWeightNoTargetCause, checkCanaryALBPingPong, SeverityWarning, c)
		r.Title = fmt.Sprintf("the last step of %s moves the weight to a target group re-registering its pods", objectName(c))
		r.Reason = fmt.Sprintf("%s routes its canary through an ALB without pingPong: at the end it switches Service %s to the new pods and sets the weight back to it at once, while its target group deregisters the old pods and health-checks the new ones (argo-rollouts#4433).",
			objectName(c), cmp.Or(ro.StableService, "<stable Service>"))
		d := time.Duration(albDefaultInterval*albDefaultHealthy) * time.Second
		if f, ok := albFrontOf(objs, c.Namespace, cmp.Or(ro.RootService, ro.StableService)); ok {
			d, _ = f.healthTime()
		}
		r.Fixes = weightFixes(rolloutOf(c), ro.StableService, &sources.Lifecycle{}, variantWeightBackToStable, d, albPlatform{})
		out = append(out, r)
	}
	return out
}

// checkDynamicStableScale finds canaries whose abort goes back to a
// scaled-down stable ReplicaSet.
func checkDynamicStableScale(objs *Objects) []*Risk {
	var out []*Risk
	for _, c := range objs.ConfigsOf("Rollout") {
		ro := c.Rollout
		if ro == nil || ro.Strategy != "canary" || !ro.DynamicStableScale {
			continue
		}
		r := rolloutRisk(rolloutAbortGoneCause, checkDynamicStable, SeverityWarning, c)
		r.Title = fmt.Sprintf("an abort of %s sends traffic back to scaled-down stable pods", objectName(c))
		r.Reason = fmt.Sprintf("%s sets dynamicStableScale: the stable ReplicaSet shrinks as the canary grows, so an abort moves the traffic back to pods that must first start and pass the load balancer's health check.", objectName(c))
		r.Fixes = abortFixes(rolloutOf(c), c, 0, true)[:1] // the abort delay needs a measured time
		out = append(out, r)
	}
	return out
}

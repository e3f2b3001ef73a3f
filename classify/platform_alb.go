package classify

import (
	"strconv"
	"time"

	"github.com/readygap/readygap/sources"
)

// albPlatform is AWS's Application Load Balancer as the AWS Load Balancer
// Controller configures it from Ingresses, Services and
// TargetGroupBindings.
type albPlatform struct{ genericPlatform }

func (albPlatform) family() sources.Family    { return sources.FamilyALB }
func (albPlatform) ingressController() string { return sources.ALBIngressController }

// ingressClass: the class alb, or the controller's annotations.
func (albPlatform) ingressClass(class string, ann map[string]string, _ *sources.Service) bool {
	return class == "alb" || hasKeyPrefix(ann, "alb.ingress.kubernetes.io/")
}

// ingressObjects settles the path's target type: the controller's default,
// else the Ingress's annotation, else the Service's, which wins.
func (albPlatform) ingressObjects(f *front, _ *objectIndex) []*sources.Config {
	f.TargetType = albDefaultTargetType
	for _, c := range []*sources.Config{f.Via, f.Service} { // the Service's annotation wins
		if c.HealthCheck != nil && c.HealthCheck.TargetType != "" {
			f.TargetType = c.HealthCheck.TargetType
		}
	}
	return nil
}

// ownFronts adds the TargetGroupBindings to the Service. One the
// controller made for an Ingress (albMadeBinding) is that Ingress's path:
// it counts only when no ALB Ingress to the Service was read.
func (p albPlatform) ownFronts(svc *sources.Config, x *objectIndex, out []front) []front {
	s := svc.Service
	albIngress := hasFamily(out, p.family())
	for _, tgb := range x.bindings[svc.Namespace+"/"+svc.Name] {
		if albIngress && albMadeBinding(tgb) {
			// The controller made it for an Ingress read above: the same
			// path, set by that Ingress and the Service.
			continue
		}
		if b := tgb.TargetGroupBinding; b != nil && tgb.Namespace == svc.Namespace && b.Service == svc.Name {
			port := servicePort(s, b.ServicePort, 0)
			if n, err := strconv.Atoi(b.ServicePort); err == nil {
				port = servicePort(s, "", n)
			}
			out = appendFront(out, front{Family: p.family(), Via: tgb, Service: svc, Port: port, TargetType: b.TargetType,
				Objects: NewObjects([]*sources.Config{svc, tgb})})
		}
	}
	return out
}

func (albPlatform) titleNoun() string                   { return "the ALB" }
func (albPlatform) pathHealthCheck(f front) healthCheck { return albHealthCheckOf(f) }

// loneHealthCheck is the slowest that an Ingress's or Service's ALB
// annotations state taken alone, else the controller's defaults.
func (albPlatform) loneHealthCheck(objs *Objects) healthCheck {
	var candidates []healthCheck
	for _, c := range objs.All() {
		if (c.Kind == "Ingress" || c.Kind == "Service") && c.HealthCheck != nil {
			candidates = append(candidates, albAnnotationsHealthCheck([]*sources.Config{c}))
		}
	}
	if len(candidates) == 0 {
		return albAnnotationsHealthCheck(nil)
	}
	return slowestHealthCheck(candidates)
}

func (albPlatform) gateMissing(objs *Objects) string {
	if albGateMissing(objs) {
		return variantALBNoGate
	}
	return ""
}

func (albPlatform) gateFix(wl workload) (Fix, bool) { return albGateFix(wl.Namespace), true }

// lagRisk: instance targets are nodes, where kube-proxy routes to Ready
// pods; ip targets need the readiness gate (albGateRisk).
func (albPlatform) lagRisk(t *target, f front) (healthCheck, *Risk) {
	if f.TargetType != "ip" {
		return healthCheck{}, nil
	}
	return pathHealthCheck(f), albGateRisk(t, f)
}

func (albPlatform) stopPropagation() time.Duration { return albStopPropagation }
func (albPlatform) excludesNodes() bool            { return true }

// stopFixes: the deregistration delay of every target group in front of
// the workload, for the pod's whole termination.
func (albPlatform) stopFixes(objs *Objects, wl workload, _ *sources.PodSpec, _, grace int, _ sources.Platform) []Fix {
	return albDrainFixes(albTargetGroupSettings(workloadFronts(objs, wl), objs), wl, grace)
}

func (albPlatform) drainFixes(t *target, _ front, _, grace int) []Fix {
	return albDrainFixes(albTargetGroupSettings(t.Fronts, nil), t.wl, grace)
}

// idleTimeout is that of the ALBs the Ingresses ings configure which
// keeps idle connections longest (the app's keep-alive must outlast
// each), else the ALB default.
func (albPlatform) idleTimeout(objs *Objects, ings []*sources.Config) Timeout {
	longest := Timeout{What: "the ALB's idle timeout", Seconds: albIdleTimeout, Source: "the ALB default"}
	for i, ing := range ings {
		if t := albIdleTimeoutOf(objs, ing); i == 0 || t.Seconds > longest.Seconds {
			longest = t
		}
	}
	return longest
}

func (albPlatform) idleChecked() bool { return true }

// idleFix: not when the app already outlasts the longest idle timeout an
// ALB takes.
func (albPlatform) idleFix(_ *Objects, wl workload, lb Timeout, lower int) (Fix, bool) {
	if lower > albMaxIdle {
		return Fix{}, false
	}
	return albIdleFix(lb, wl, lower), true
}

// refusalIsIdleClose: the ALB logs both as `-1 -1 -1 502` (albIdleClose).
func (albPlatform) refusalIsIdleClose() bool { return true }

// verifiesTargetGroups implements platform: --aws-verify-target-group.
func (albPlatform) verifiesTargetGroups() bool { return true }

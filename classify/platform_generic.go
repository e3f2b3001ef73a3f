package classify

import (
	"cmp"
	"time"

	"github.com/readygap/readygap/sources"
)

// genericPlatform is a load balancer readygap knows nothing particular
// of (plain nginx, an unnamed proxy): no readiness gate, no setting of
// its own to patch, the generic wording. The other platforms embed it
// for what they do not know better. It also finds the Gateway API's
// HTTPRoutes, whatever their class: the Gateway resolves their platform.
type genericPlatform struct{}

func (genericPlatform) family() sources.Family                                        { return "" }
func (genericPlatform) ingressController() string                                     { return "" }
func (genericPlatform) ingressClass(string, map[string]string, *sources.Service) bool { return false }
func (genericPlatform) gatewayClass(string) (sources.Platform, bool)                  { return "", false }
func (genericPlatform) ingressObjects(*front, *objectIndex) []*sources.Config         { return nil }

// ownFronts adds the HTTPRoutes that send traffic to the Service, each
// through its Gateways (routeFront).
func (genericPlatform) ownFronts(svc *sources.Config, x *objectIndex, out []front) []front {
	for _, route := range x.routes[svc.Namespace+"/"+svc.Name] {
		if route.HTTPRoute == nil {
			continue
		}
		for _, rule := range route.HTTPRoute.Rules {
			for _, b := range rule.Backends {
				if (b.Kind != "" && b.Kind != "Service") || b.Name != svc.Name || cmp.Or(b.Namespace, route.Namespace) != svc.Namespace {
					continue
				}
				out = appendFront(out, routeFront(route, svc, servicePort(svc.Service, "", b.Port), x))
			}
		}
	}
	return out
}

func (genericPlatform) noun(sources.Platform) string { return "the load balancer" }
func (genericPlatform) titleNoun() string            { return "the load balancer" }

// pathHealthCheck is GKE's defaults, as no object of an unknown load
// balancer says more.
func (genericPlatform) pathHealthCheck(front) healthCheck {
	return healthCheck{IntervalSec: gkeDefaultInterval, HealthyThreshold: gkeDefaultHealthy}
}

// loneHealthCheck is the slowest a BackendConfig read states, else GKE's
// defaults (backendConfigsHealthCheck).
func (genericPlatform) loneHealthCheck(objs *Objects) healthCheck {
	return backendConfigsHealthCheck(objs)
}

func (genericPlatform) gateMissing(*Objects) string  { return "" }
func (genericPlatform) gateFix(workload) (Fix, bool) { return Fix{}, false }
func (genericPlatform) fasterCheck(hc healthCheck, _ workload) (*Fix, healthCheck) {
	return nil, hc
}
func (genericPlatform) emptyServiceFix(*Objects, map[int]int) (Fix, bool) { return Fix{}, false }
func (genericPlatform) healthCheckBoundsLag() bool                        { return false }
func (genericPlatform) lagReason(healthCheck) string                      { return "" }
func (genericPlatform) lagRisk(*target, front) (healthCheck, *Risk)       { return healthCheck{}, nil }
func (genericPlatform) stopPropagation() time.Duration                    { return 0 }
func (genericPlatform) propagationNote() string                           { return "" }
func (genericPlatform) excludesNodes() bool                               { return false }
func (genericPlatform) drainFixes(*target, front, int, int) []Fix         { return nil }
func (genericPlatform) idleChecked() bool                                 { return false }
func (genericPlatform) refusalIsIdleClose() bool                          { return false }
func (genericPlatform) samplesLogs() bool                                 { return false }
func (genericPlatform) verifiesTargetGroups() bool                        { return false }
func (genericPlatform) stopFixes(*Objects, workload, *sources.PodSpec, int, int, sources.Platform) []Fix {
	return nil
}

// idleTimeout is Google's fixed backend keep-alive, the longest of the
// known load balancers' defaults.
func (genericPlatform) idleTimeout(*Objects, []*sources.Config) Timeout {
	return Timeout{What: "the load balancer's backend keep-alive", Seconds: gcpBackendKeepalive, Source: "Google's external Application Load Balancer (fixed)"}
}

func (genericPlatform) idleFix(*Objects, workload, Timeout, int) (Fix, bool) { return Fix{}, false }
func (genericPlatform) refusalFix(*Objects, sources.Platform, workload) (Fix, bool) {
	return Fix{}, false
}

// rolloutRouting is the ALB's trafficRouting (Argo Rollouts' most common
// one), as a template: the generic platform has none of its own.
func (genericPlatform) rolloutRouting(service string) map[string]any {
	return map[string]any{"alb": map[string]any{"ingress": placeholderName("Ingress"), "rootService": service, "servicePort": "<port>"}}
}

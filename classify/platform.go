package classify

import (
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// platform is what readygap knows of one load-balancer family: how its
// objects route traffic to a Service, the settings it applies to new and
// leaving backends (health check, readiness gate, stop propagation, idle
// timeout) with their defaults and where they come from, and the fixes
// in its own terms. Rules ask a platform resolved once (platformOf,
// platformFor, front.platform) and never name a family; one file per
// platform (platform_<family>.go) implements it, embedding
// genericPlatform for what it does not know better.
type platform interface {
	// family is the load-balancer family the platform stands for.
	family() sources.Family

	// ingressController is the controller name of the IngressClasses the
	// platform serves; "" when it serves none by controller.
	ingressController() string
	// ingressClass reports whether an Ingress of the class name (in lower
	// case) with these annotations, to a Service, is the platform's when
	// no IngressClass object says.
	ingressClass(class string, ann map[string]string, svc *sources.Service) bool
	// gatewayClass names the product of a GatewayClass (its name in lower
	// case) when it is the platform's.
	gatewayClass(class string) (product sources.Platform, ok bool)
	// ingressObjects are the objects beyond the Service and the Ingress
	// that configure an Ingress's path of the platform; it may settle the
	// path's fields (the ALB target type).
	ingressObjects(f *front, x *objectIndex) []*sources.Config
	// ownFronts adds to out the paths to a Service through the platform's
	// own routing objects.
	ownFronts(svc *sources.Config, x *objectIndex, out []front) []front

	// noun names who sent the failed requests, for a summary.
	noun(product sources.Platform) string
	// titleNoun names the load balancer in a check's title.
	titleNoun() string

	// pathHealthCheck is the health check the platform runs on new
	// backends of one path, as its controller settles it.
	pathHealthCheck(f front) healthCheck
	// loneHealthCheck is its health check when the objects hold no path.
	loneHealthCheck(objs *Objects) healthCheck
	// gateMissing names the registration-lag variant of pods that lack
	// the platform's readiness gate; "" when they have it or it has none.
	gateMissing(objs *Objects) string
	// gateFix is the fix that gives new pods the platform's readiness gate.
	gateFix(wl workload) (Fix, bool)
	// fasterCheck proposes a health check that passes new backends sooner,
	// in the platform's object, and returns the check minReadySeconds is
	// then sized on (hc when there is no such fix).
	fasterCheck(hc healthCheck, wl workload) (*Fix, healthCheck)
	// healthCheckBoundsLag reports whether the health check's time alone
	// sizes minReadySeconds; false when an outage measured longer than it
	// is to be covered too.
	healthCheckBoundsLag() bool
	// lagReason ends the registration-lag summary in the platform's
	// terms; "" for the generic ending.
	lagReason(hc healthCheck) string
	// emptyServiceFix makes the platform's answer while a Service has no
	// ready endpoint one clients retry; not ok when it already is, or the
	// failures' statuses show it was.
	emptyServiceFix(objs *Objects, statuses map[int]int) (Fix, bool)
	// lagRisk is the static registration-lag risk of one path, with the
	// health check it is sized on; nil when the platform's readiness
	// keeps old pods or it sends to new ones at once.
	lagRisk(t *target, f front) (healthCheck, *Risk)

	// stopPropagation is how long the platform may keep sending to a pod
	// that began terminating; 0 when unknown.
	stopPropagation() time.Duration
	// propagationNote says how the platform learns that a pod is leaving,
	// appended to its noun; "" when it needs no saying.
	propagationNote() string
	// excludesNodes reports whether the platform takes a node's backends
	// out on labelExcludeFromLB.
	excludesNodes() bool
	// stopFixes are the platform's own fixes for a termination race after
	// an incident, beside the preStop and grace period fixes.
	stopFixes(objs *Objects, wl workload, spec *sources.PodSpec, sleep, grace int, product sources.Platform) []Fix
	// drainFixes are its settings for in-flight requests a static check
	// proposes for one path.
	drainFixes(t *target, f front, sleep, grace int) []Fix

	// idleTimeout is how long the platform keeps idle upstream
	// connections, for the Ingresses ings where the platform reads it
	// from them.
	idleTimeout(objs *Objects, ings []*sources.Config) Timeout
	// idleChecked reports whether the static check compares the app's
	// keep-alive with the platform's idle timeout.
	idleChecked() bool
	// idleFix lowers the platform's idle timeout to lower seconds; not ok
	// when it has no such setting or lower is out of its range.
	idleFix(objs *Objects, wl workload, lb Timeout, lower int) (Fix, bool)
	// refusalIsIdleClose reports whether the platform logs a connection
	// the backend closed while idle as a refusal.
	refusalIsIdleClose() bool
	// refusalFix makes the platform try another endpoint when one refuses
	// the connection; not ok when it cannot be told to.
	refusalFix(objs *Objects, product sources.Platform, wl workload) (Fix, bool)
	// samplesLogs reports whether the platform may sample its request
	// logs (the count is then an estimate).
	samplesLogs() bool

	// rolloutRouting is the trafficRouting of an Argo Rollout whose stable
	// Service is service, through the platform, as a template.
	rolloutRouting(service string) map[string]any
	// verifiesTargetGroups reports whether the Argo Rollouts controller
	// can verify the platform's target groups before it scales down or
	// moves a weight (--aws-verify-target-group).
	verifiesTargetGroups() bool
}

// platforms is the registry, in the order paths are found and an
// Ingress's class is matched: a platform's row is the one place that
// names its family.
var platforms = []platform{albPlatform{}, nginxPlatform{}, traefikPlatform{}, genericPlatform{}, envoyPlatform{}, gcpPlatform{}}

// platformByFamily indexes the registry; a family not in it is generic.
var platformByFamily = func() map[sources.Family]platform {
	out := map[sources.Family]platform{}
	for _, p := range platforms {
		if f := p.family(); f != "" {
			out[f] = p
		}
	}
	return out
}()

// platformFor resolves the platform of a family: generic for one the
// registry does not know (plain nginx, or none).
func platformFor(f sources.Family) platform {
	if p, ok := platformByFamily[f]; ok {
		return p
	}
	return genericPlatform{}
}

// platformOf resolves the platform that logged the window's failures:
// that of the family counted most (familyOf).
func platformOf(w *correlate.Window) platform { return platformFor(familyOf(w)) }

// platform resolves the platform of a path.
func (f front) platform() platform { return platformFor(f.Family) }

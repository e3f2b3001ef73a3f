package classify

import (
	"cmp"
	"fmt"
	"net/http"
	"time"

	"github.com/readygap/readygap/sources"
)

// traefikPlatform is the Traefik proxy (k3s's default ingress
// controller): Ingresses of class traefik and its IngressRoutes, sent to
// pod IPs from inside the cluster. It runs no health check of its own on
// a Kubernetes Service's endpoints: it sends to a pod once its
// EndpointSlice says so, after its providers' throttle, and drops the
// router of a Service without endpoints, answering 404, unless
// allowEmptyServices is set (then 503).
type traefikPlatform struct{ genericPlatform }

// Traefik's defaults, from its source (traefik/traefik, v3).
const (
	// traefikIngressController is the controller of Traefik's
	// IngressClass (pkg/provider/kubernetes/ingress: traefik.io/ingress-controller).
	traefikIngressController = "traefik.io/ingress-controller"
	// traefikStopPropagation: an EndpointSlice change reaches Traefik's
	// routing after providers.providersThrottleDuration, 2 s by default
	// (cmd/configuration.go), plus the watch and the new configuration's
	// build: about 3 s. It assumes the endpoint leaves when the pod begins
	// terminating; from v3.3 Traefik keeps a terminating endpoint while
	// the EndpointSlice says it is serving (its readiness still passes,
	// traefik 9588e511), which this value does not model.
	traefikStopPropagation = 3 * time.Second
	// traefikIdleConnTimeout is how long Traefik keeps an idle connection
	// to a server when no ServersTransport sets
	// forwardingTimeouts.idleConnTimeout: 90 s (pkg/config/static
	// ServersTransport.SetDefaults).
	traefikIdleConnTimeout = 90
	// traefikRetryAttempts is the retry middleware the fix proposes:
	// three attempts, the first try and two more, enough to step past an
	// endpoint or two that refuse. Traefik retries only idempotent
	// methods unless told otherwise (pkg/middlewares/retry).
	traefikRetryAttempts = 3
	// annotationTraefikServersTransport names the ServersTransport of a
	// Service's connections (pkg/provider/kubernetes/ingress annotations).
	annotationTraefikServersTransport = "traefik.ingress.kubernetes.io/service.serverstransport"
)

func (traefikPlatform) family() sources.Family    { return sources.FamilyTraefik }
func (traefikPlatform) ingressController() string { return traefikIngressController }

// ingressClass: the class traefik (k3s's), or Traefik's annotations.
func (traefikPlatform) ingressClass(class string, ann map[string]string, _ *sources.Service) bool {
	return class == "traefik" || hasKeyPrefix(ann, "traefik.ingress.kubernetes.io/")
}

// ingressObjects are the ServersTransports the Service's connections may
// use, and the Traefik Deployments whose flags set its defaults.
func (traefikPlatform) ingressObjects(_ *front, x *objectIndex) []*sources.Config {
	return traefikObjects(x)
}

// ownFronts adds the IngressRoutes whose routes name the Service.
func (p traefikPlatform) ownFronts(svc *sources.Config, x *objectIndex, out []front) []front {
	s := svc.Service
	for _, ir := range x.ingressRoutes[svc.Namespace+"/"+svc.Name] {
		for _, r := range ir.IngressRoute.Routes {
			for _, b := range r.Services {
				if (b.Kind != "" && b.Kind != "Service") || b.Name != svc.Name || cmp.Or(b.Namespace, ir.Namespace) != svc.Namespace {
					continue
				}
				objs := append([]*sources.Config{svc, ir}, traefikObjects(x)...)
				out = appendFront(out, front{Family: p.family(), Via: ir, Service: svc, Port: servicePort(s, b.PortName, b.Port), Objects: NewObjects(objs)})
			}
		}
	}
	return out
}

// traefikObjects are the objects that set Traefik's behaviour beyond the
// route: its ServersTransports and the Deployments that run it.
func traefikObjects(x *objectIndex) []*sources.Config {
	out := append([]*sources.Config(nil), x.byKind["ServersTransport"]...)
	for _, d := range x.byKind["Deployment"] {
		if traefikFlags(d) != nil {
			out = append(out, d)
		}
	}
	return out
}

// traefikFlags returns the provider flags of the Traefik container of a
// Deployment; nil when it runs no Traefik.
func traefikFlags(d *sources.Config) *sources.TraefikProvider {
	if d.Workload == nil || d.Workload.Template == nil {
		return nil
	}
	for _, c := range d.Workload.Template.Containers {
		if c.Traefik != nil {
			return c.Traefik
		}
	}
	return nil
}

func (traefikPlatform) noun(sources.Platform) string { return "Traefik" }
func (traefikPlatform) titleNoun() string            { return "Traefik" }

// pathHealthCheck: none; Traefik sends to an endpoint once its
// EndpointSlice says it is ready.
func (traefikPlatform) pathHealthCheck(front) healthCheck { return traefikNoCheck }

func (traefikPlatform) loneHealthCheck(*Objects) healthCheck { return traefikNoCheck }

// traefikNoCheck is Traefik's health check of a Kubernetes Service's
// endpoints: none.
var traefikNoCheck = healthCheck{Kind: "none", none: "Traefik sends to a pod as soon as its EndpointSlice says it is ready, a throttle after"}

// lagReason: without a ready endpoint Traefik drops the Service's router.
func (traefikPlatform) lagReason(healthCheck) string {
	return ": Traefik had no ready endpoint for the Service while the rollout replaced the pods, and without one it drops the Service's router and answers 404 (503 with allowEmptyServices)."
}

// emptyServiceFix: without allowEmptyServices Traefik answers 404 for a
// Service without endpoints, which clients and caches take for "not
// found"; with it, 503. Not when no failure was a 404 (the 503s say it is
// set), nor when a Traefik Deployment read sets it. The flags are
// arguments of Traefik's container, a list a patch would replace whole,
// so the fix says what to add.
func (traefikPlatform) emptyServiceFix(objs *Objects, statuses map[int]int) (Fix, bool) {
	if statuses[http.StatusNotFound] == 0 {
		return Fix{}, false
	}
	where := "Traefik's arguments (k3s: additionalArguments in the HelmChartConfig of kube-system/traefik)"
	for _, d := range objs.ConfigsOf("Deployment") {
		if f := traefikFlags(d); f != nil {
			if f.AllowEmptyServices {
				return Fix{}, false
			}
			where = fmt.Sprintf("the arguments of Deployment %s/%s (%s)", d.Namespace, d.Name, readAt(d.Origin))
		}
	}
	return Fix{
		Title: "Let Traefik answer 503, not 404, while the Service has no ready endpoint",
		Why: "Without allowEmptyServices Traefik drops the router of a Service without ready endpoints and answers 404, which clients and caches take for \"not found\"; with it Traefik keeps the router and answers 503, which they retry. " +
			"Add --providers.kubernetesingress.allowEmptyServices=true and --providers.kubernetescrd.allowEmptyServices=true to " + where + ". It changes the answer, not the gap: the rollout change above closes that.",
	}, true
}

func (traefikPlatform) stopPropagation() time.Duration { return traefikStopPropagation }

// propagationNote: Traefik learns of a leaving pod from its EndpointSlice.
func (traefikPlatform) propagationNote() string {
	return ", which learns of it from the EndpointSlice after its providers' throttle,"
}

// stopFixes: Traefik's retry middleware, for the refusals that still
// get through.
func (p traefikPlatform) stopFixes(objs *Objects, wl workload, _ *sources.PodSpec, _, _ int, product sources.Platform) []Fix {
	if fix, ok := p.refusalFix(objs, product, wl); ok {
		return []Fix{fix}
	}
	return nil
}

// idleTimeout is the idleConnTimeout of the ServersTransport read (the
// first by name), else of the flags of the Traefik Deployment read, else
// Traefik's default.
func (traefikPlatform) idleTimeout(objs *Objects, _ []*sources.Config) Timeout {
	if st := firstConfig(objs, "ServersTransport"); st != nil && st.ServersTransport != nil && st.ServersTransport.IdleConnTimeout != nil {
		return Timeout{What: "Traefik's idleConnTimeout", Seconds: st.ServersTransport.IdleConnTimeout.Seconds(), Source: fmt.Sprintf("ServersTransport %s/%s", st.Namespace, st.Name)}
	}
	for _, d := range objs.ConfigsOf("Deployment") {
		if f := traefikFlags(d); f != nil && f.IdleConnTimeout != nil {
			return Timeout{What: "Traefik's idleConnTimeout", Seconds: f.IdleConnTimeout.Seconds(), Source: fmt.Sprintf("the flags of Deployment %s/%s", d.Namespace, d.Name)}
		}
	}
	return Timeout{What: "Traefik's idleConnTimeout", Seconds: traefikIdleConnTimeout, Source: "the Traefik default"}
}

func (traefikPlatform) idleChecked() bool { return true }

// idleFix lowers idleConnTimeout in a ServersTransport, which the
// Service's annotation must then name.
func (traefikPlatform) idleFix(objs *Objects, wl workload, _ Timeout, lower int) (Fix, bool) {
	ns, name := wl.Namespace, placeholderName("ServersTransport")
	if st := firstConfig(objs, "ServersTransport"); st != nil {
		ns, name = st.Namespace, st.Name
	}
	return Fix{
		Title: fmt.Sprintf("Or let Traefik drop idle connections after %d s", lower),
		Why: fmt.Sprintf("idleConnTimeout below the app's keep-alive makes Traefik close an idle connection before the app does. The Service's %s annotation (%s-%s@kubernetescrd), or the IngressRoute service's serversTransport, must name the ServersTransport.",
			annotationTraefikServersTransport, ns, name),
		Patch:  objectPatch("traefik.io/v1alpha1", "ServersTransport", ns, name, nil, map[string]any{"forwardingTimeouts": map[string]any{"idleConnTimeout": fmt.Sprintf("%ds", lower)}}),
		AtMost: true,
	}, true
}

// refusalIsIdleClose: Traefik's access log gives a refused connection and
// one the backend closed while idle the same 502 "Bad Gateway".
func (traefikPlatform) refusalIsIdleClose() bool { return true }

// refusalFix: a retry Middleware, which the route must name (an
// IngressRoute's middlewares, an Ingress's router.middlewares
// annotation); none when a retry Middleware was read.
func (traefikPlatform) refusalFix(objs *Objects, _ sources.Platform, wl workload) (Fix, bool) {
	for _, m := range objs.ConfigsOf("Middleware") {
		if m.TraefikMiddleware != nil && m.TraefikMiddleware.Retry != nil && m.Namespace == wl.Namespace {
			return Fix{}, false
		}
	}
	ns := cmp.Or(wl.Namespace, placeholderName("namespace"))
	return Fix{
		Title: "Let Traefik retry refused connections on another pod",
		Why: fmt.Sprintf("Traefik retries only when a retry middleware is on the route: name this one in the IngressRoute's middlewares, or in the Ingress's traefik.ingress.kubernetes.io/router.middlewares annotation (%s-retry@kubernetescrd). "+
			"It retries idempotent methods only, and only when the pod did not answer, so a refused connection is tried on another pod.", ns),
		Patch: objectPatch("traefik.io/v1alpha1", "Middleware", ns, "retry", nil, map[string]any{"retry": map[string]any{"attempts": traefikRetryAttempts, "initialInterval": "100ms"}}),
	}, true
}

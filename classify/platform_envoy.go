package classify

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// envoyPlatform is the Envoy-based gateways and meshes (Istio, Contour,
// kgateway, Envoy Gateway): Envoy sends to pod IPs from inside the
// cluster and learns of endpoints from its control plane; each product
// has its own routing objects and retry settings (envoyProducts).
type envoyPlatform struct{ genericPlatform }

// envoyProduct is what differs between the Envoy-based products.
type envoyProduct struct {
	id sources.Platform
	// classes are substrings of the names its GatewayClasses take.
	classes []string
	// noun names its proxy, for a summary.
	noun string
	// retry lets it try another endpoint when one refuses the connection;
	// nil when readygap has no fix in its terms.
	retry func(objs *Objects, wl workload) (Fix, bool)
}

// envoyProducts lists the products in the order a GatewayClass's name is
// matched: istio, contour, kgateway (or gloo), then Envoy Gateway (eg, or
// any name with envoy).
var envoyProducts = []envoyProduct{
	{id: sources.PlatformIstio, classes: []string{"istio"}, noun: "the Istio gateway",
		retry: func(objs *Objects, wl workload) (Fix, bool) { return istioRetryFix(objs, wl), true }},
	{id: sources.PlatformContour, classes: []string{"contour"}, noun: "Contour's Envoy", retry: contourRetryFix},
	{id: sources.PlatformKgateway, classes: []string{"kgateway", "gloo"}, noun: "kgateway's Envoy"},
	{id: sources.PlatformEnvoyGateway, classes: []string{"envoy"}, noun: "Envoy Gateway's proxy", retry: envoyGatewayRetryFix},
}

// envoyGatewayClassName is the GatewayClass Envoy Gateway's quickstart
// installs.
const envoyGatewayClassName = "eg"

// envoyProductOf returns the product's row; ok is false for "" or one not
// listed.
func envoyProductOf(id sources.Platform) (envoyProduct, bool) {
	for _, p := range envoyProducts {
		if p.id == id && id != "" {
			return p, true
		}
	}
	return envoyProduct{}, false
}

func (envoyPlatform) family() sources.Family { return sources.FamilyEnvoy }

// gatewayClass names the product a GatewayClass's name says (GKE's
// gke-l7 classes are Google's load balancer, whatever follows).
func (envoyPlatform) gatewayClass(class string) (sources.Platform, bool) {
	if strings.HasPrefix(class, "gke-l7") {
		return "", false
	}
	for _, p := range envoyProducts {
		for _, c := range p.classes {
			if strings.Contains(class, c) || (p.id == sources.PlatformEnvoyGateway && class == envoyGatewayClassName) {
				return p.id, true
			}
		}
	}
	return "", false
}

// ownFronts adds Istio's VirtualServices and Contour's HTTPProxies that
// send traffic to the Service.
func (p envoyPlatform) ownFronts(svc *sources.Config, x *objectIndex, out []front) []front {
	s := svc.Service
	for _, vs := range x.virtualServices[svc.Name] {
		if vs.VirtualService == nil {
			continue
		}
		for _, r := range vs.VirtualService.Routes {
			for _, d := range r.Destinations {
				if hostIsService(d.Name, vs.Namespace, svc) {
					out = appendFront(out, front{Family: p.family(), Platform: sources.PlatformIstio, Via: vs, Service: svc,
						Port: servicePort(s, "", d.Port), Objects: NewObjects([]*sources.Config{svc, vs})})
				}
			}
		}
	}
	for _, hp := range x.proxies[svc.Namespace+"/"+svc.Name] {
		if hp.HTTPProxy == nil || hp.Namespace != svc.Namespace {
			continue
		}
		for _, r := range hp.HTTPProxy.Routes {
			for _, b := range r.Services {
				if b.Name == svc.Name {
					out = appendFront(out, front{Family: p.family(), Platform: sources.PlatformContour, Via: hp, Service: svc,
						Port: servicePort(s, "", b.Port), Objects: NewObjects([]*sources.Config{svc, hp})})
				}
			}
		}
	}
	return out
}

// noun names the product's proxy, "Envoy" when unknown.
func (envoyPlatform) noun(product sources.Platform) string {
	if p, ok := envoyProductOf(product); ok {
		return p.noun
	}
	return "Envoy"
}

// pathHealthCheck is the BackendTrafficPolicy's that applies to the route
// (envoyPolicyFor); Kind "none" without an active check.
func (envoyPlatform) pathHealthCheck(f front) healthCheck {
	return envoyHealthCheckOf(envoyPolicyFor(f))
}

// loneHealthCheck is the first BackendTrafficPolicy's.
func (envoyPlatform) loneHealthCheck(objs *Objects) healthCheck {
	return envoyHealthCheckOf(envoyPolicyOf(objs))
}

// fasterCheck proposes Envoy Gateway's initial jitter of envoyFastJitter,
// in the policy hc came from.
func (envoyPlatform) fasterCheck(hc healthCheck, _ workload) (*Fix, healthCheck) {
	fix, ok := envoyJitterFix(hc)
	if !ok {
		return nil, hc
	}
	hc.JitterSec = int(envoyFastJitter.Seconds())
	return &fix, hc
}

func (envoyPlatform) lagReason(hc healthCheck) string {
	if hc.Kind == "BackendTrafficPolicy" {
		return fmt.Sprintf(": Kubernetes removed the old pods while Envoy's active health check had not yet passed the new ones (first check after up to %d s, then every %d s).", hc.JitterSec, hc.IntervalSec)
	}
	return ": Kubernetes removed the old pods before the control plane had handed the new endpoints to Envoy."
}

// lagRisk: Envoy sends a new endpoint nothing until its active health
// check passes, which Kubernetes knows nothing of; without one it sends
// to an endpoint once the control plane hands it over.
func (envoyPlatform) lagRisk(t *target, f front) (healthCheck, *Risk) {
	hc := pathHealthCheck(f)
	if hc.Kind == "none" {
		return hc, nil
	}
	risk := newRisk(registrationLagCause, checkMinReady, SeverityError, t)
	risk.Via = f.Via
	risk.Title = fmt.Sprintf("Old pods of %s go before Envoy has checked the new ones", objectName(t.Config))
	risk.Reason = fmt.Sprintf("%s sends Envoy Gateway's traffic to the pods, and Envoy sends a new endpoint nothing until its active health check passes (%s); Kubernetes knows nothing of it and removes an old pod as soon as a new one is Ready.",
		objectName(f.Via), hc.Source())
	return hc, risk
}

func (envoyPlatform) stopPropagation() time.Duration { return envoyStopPropagation }

// propagationNote: Envoy learns of a terminating endpoint through the
// control plane (EndpointSlice → istiod or Envoy Gateway → EDS).
func (envoyPlatform) propagationNote() string { return ", told through the control plane," }

// stopFixes: the Istio sidecar's drain, and retries of refused
// connections in the product's terms.
func (p envoyPlatform) stopFixes(objs *Objects, wl workload, spec *sources.PodSpec, sleep, _ int, product sources.Platform) []Fix {
	var fixes []Fix
	if fix, ok := istioDrainFix(wl, spec, sleep); ok {
		fixes = append(fixes, fix)
	}
	if fix, ok := p.refusalFix(objs, product, wl); ok {
		fixes = append(fixes, fix)
	}
	return fixes
}

// refusalFix is the product's retry fix (envoyRetryFix).
func (envoyPlatform) refusalFix(objs *Objects, product sources.Platform, wl workload) (Fix, bool) {
	return envoyRetryFix(objs, product, wl)
}

// routerFronts returns the workload's paths through routing objects of
// kind (HTTPRoute, VirtualService, HTTPProxy) of an Envoy-based product,
// one per object, by namespace and name: those whose rules send traffic
// to a Service that selects the workload's pods.
func routerFronts(objs *Objects, wl workload, kind string, product sources.Platform) []front {
	var out []front
	seen := map[*sources.Config]bool{}
	for _, f := range workloadFronts(objs, wl) {
		if f.Via == nil || f.Via.Kind != kind || seen[f.Via] ||
			(f.Family != "" && f.Family != sources.FamilyEnvoy) || (f.Platform != "" && f.Platform != product) {
			continue
		}
		seen[f.Via] = true
		out = append(out, f)
	}
	sort.SliceStable(out, func(i, j int) bool {
		return out[i].Via.Namespace+"/"+out[i].Via.Name < out[j].Via.Namespace+"/"+out[j].Via.Name
	})
	return out
}

package classify

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Envoy-side settings and their defaults, for fixes on Envoy-based gateways.
const (
	// envoyRetries is the number of retries the fixes ask for: Istio's
	// default (pilot/pkg/networking/core/route/retry: DefaultPolicy), and
	// enough to step past one or two endpoints that refuse.
	envoyRetries = 2
	// istioFixRetries is one more than Istio's default of 2: visible
	// refusals on Istio mean the default retries were used up.
	istioFixRetries = 3
	// istioDefaultDrain is the sidecar's terminationDrainDuration when
	// nothing sets it (Istio ProxyConfig reference: 5 s).
	istioDefaultDrain = 5 * time.Second
	// envoyFastJitter is the initialJitter the fix asks for: Envoy checks a
	// new host within a second of learning of it.
	envoyFastJitter = time.Second
	// envoyDefaultPanic is Envoy's healthy_panic_threshold when unset (50 %,
	// cluster.proto).
	envoyDefaultPanic = 50
)

// safeRetryOn are the retry conditions under which the request never
// reached the application (Envoy's router docs: connect-failure,
// refused-stream), so retrying is safe for every method.
var safeRetryOn = []string{"connect-failure", "refused-stream"}

// istioRetryOn is Istio's default retryOn list, kept when raising attempts.
const istioRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"

// envoyPlatformOf names the product around the Envoy that logged the
// window's failures: what its records show, else what the objects read
// say; "" when neither tells.
func envoyPlatformOf(a *correlate.Analysis, w *correlate.Window) sources.Platform {
	counts := map[sources.Platform]int{}
	for _, s := range w.Signals {
		if s.Req.Platform != "" {
			counts[s.Req.Platform]++
		}
	}
	if len(counts) > 0 {
		return mostCounted(counts)
	}
	return envoyPlatformOfObjects(objectsOf(a))
}

// envoyPlatformOfObjects names the Envoy-based product the objects
// configure: a BackendTrafficPolicy is Envoy Gateway's, a VirtualService
// or DestinationRule Istio's, an HTTPProxy Contour's; "" for none.
func envoyPlatformOfObjects(objs *Objects) sources.Platform {
	switch {
	case len(objs.ConfigsOf("BackendTrafficPolicy")) > 0:
		return sources.PlatformEnvoyGateway
	case len(objs.ConfigsOf("VirtualService")) > 0 || len(objs.ConfigsOf("DestinationRule")) > 0:
		return sources.PlatformIstio
	case len(objs.ConfigsOf("HTTPProxy")) > 0:
		return sources.PlatformContour
	}
	return ""
}

// proxyNoun names who sent the failed requests, for a summary.
func proxyNoun(family sources.Family, platform sources.Platform) string {
	if family != sources.FamilyEnvoy {
		return "the load balancer"
	}
	switch platform {
	case sources.PlatformEnvoyGateway:
		return "Envoy Gateway's proxy"
	case sources.PlatformIstio:
		return "the Istio gateway"
	case sources.PlatformContour:
		return "Contour's Envoy"
	case sources.PlatformKgateway:
		return "kgateway's Envoy"
	}
	return "Envoy"
}

// firstConfig returns the object of kind the objects hold first by
// namespace and name; nil when there is none.
func firstConfig(objs *Objects, kind string) *sources.Config {
	cs := objs.ConfigsOf(kind)
	if len(cs) == 0 {
		return nil
	}
	return slices.MinFunc(cs, func(x, y *sources.Config) int {
		return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name)
	})
}

// nameOr returns the namespace and name of c, or the workload's namespace
// and a placeholder for kind when c is nil.
func nameOr(c *sources.Config, wl workload, kind string) (string, string) {
	if c == nil {
		return wl.Namespace, placeholderName(kind)
	}
	return c.Namespace, c.Name
}

// envoyPolicyOf returns the Envoy Gateway BackendTrafficPolicy the objects
// hold (the first by name); nil when none.
func envoyPolicyOf(objs *Objects) (*sources.Config, *sources.BackendTrafficPolicy) {
	c := firstConfig(objs, "BackendTrafficPolicy")
	if c == nil {
		return nil, nil
	}
	return c, c.BackendTrafficPolicy
}

// retriesSafely reports whether a retry policy already retries refused
// connections.
func retriesSafely(r *sources.ProxyRetry) bool {
	if r == nil || (r.Retries != nil && *r.Retries <= 0) {
		return false
	}
	for _, on := range r.On {
		if strings.TrimSpace(on) == "connect-failure" {
			return true
		}
	}
	return false
}

// envoyRetryFix asks the gateway to try another endpoint when one refuses
// the connection, in the object its platform configures retries with; ok
// is false when the platform is unknown or already does.
func envoyRetryFix(objs *Objects, platform sources.Platform, wl workload) (Fix, bool) {
	why := "A refused connection never reached the application, so trying another endpoint is safe for every method; " +
		"add `reset` only on idempotent routes, as a reset may come after the application began the request."
	switch platform {
	case sources.PlatformEnvoyGateway:
		c, p := envoyPolicyOf(objs)
		if p != nil && retriesSafely(p.Retry) {
			return Fix{}, false
		}
		route := firstConfig(objs, "HTTPRoute")
		rns, rname := nameOr(route, wl, "HTTPRoute")
		ns, name := rns, rname+"-retry"
		if c != nil {
			ns, name = c.Namespace, c.Name
		}
		return Fix{
			Title: "Let Envoy Gateway retry refused connections on another endpoint",
			Why:   "Envoy Gateway retries only when a BackendTrafficPolicy says so. " + why,
			Patch: objectPatch("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", ns, name, nil, map[string]any{
				"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": rname}},
				"retry":      map[string]any{"numRetries": envoyRetries, "retryOn": map[string]any{"triggers": anyList(safeRetryOn)}},
			}),
		}, true
	case sources.PlatformIstio:
		vs := firstConfig(objs, "VirtualService")
		ns, name := nameOr(vs, wl, "VirtualService")
		route := map[string]any{"retries": map[string]any{"attempts": istioFixRetries, "retryOn": istioRetryOn}}
		now := fmt.Sprintf("Istio retries %d times by default", envoyRetries)
		if vs != nil && vs.VirtualService != nil && len(vs.VirtualService.Routes) > 0 {
			r := vs.VirtualService.Routes[0]
			if r.Name != "" {
				route["name"] = r.Name
			}
			if r.Retries != nil && r.Retries.Retries != nil {
				now = fmt.Sprintf("the route sets %d attempts", *r.Retries.Retries)
			}
		}
		return Fix{
			Title: fmt.Sprintf("Let Istio try %d endpoints before giving up", istioFixRetries+1),
			Why: fmt.Sprintf("%s and the failures still reached clients, so every try landed on an endpoint that refused. "+
				"Set these retries on each http route of the VirtualService, in its manifest: a merge patch would replace the whole list of routes. %s", now, why),
			Patch: objectPatch("networking.istio.io/v1", "VirtualService", ns, name, nil, map[string]any{"http": []any{route}}),
		}, true
	case sources.PlatformContour:
		hp := firstConfig(objs, "HTTPProxy")
		if hp != nil && hp.HTTPProxy != nil {
			for _, r := range hp.HTTPProxy.Routes {
				if retriesSafely(r.Retry) {
					return Fix{}, false
				}
			}
		}
		ns, name := nameOr(hp, wl, "HTTPProxy")
		return Fix{
			Title: "Let Contour retry refused connections on another endpoint",
			Why:   "Set a retryPolicy on each route of the HTTPProxy. " + why,
			Patch: objectPatch("projectcontour.io/v1", "HTTPProxy", ns, name, nil, map[string]any{"routes": []any{map[string]any{
				"retryPolicy": map[string]any{"count": envoyRetries, "retryOn": anyList(safeRetryOn)}}}}),
		}, true
	}
	return Fix{}, false
}

// envoyHealthCheckOf is the active health check Envoy Gateway runs on new
// hosts, from a BackendTrafficPolicy: Envoy waits a random time up to the
// initial jitter before a new host's first check and needs one pass at
// startup (health_check.proto: healthy_threshold "during startup, only a
// single successful health check is required"). ok is false without one.
func envoyHealthCheckOf(objs *Objects) (healthCheck, bool) {
	c, p := envoyPolicyOf(objs)
	if p == nil || p.ActiveHealthCheck == nil {
		return healthCheck{Kind: "none"}, false
	}
	ah := p.ActiveHealthCheck
	h := healthCheck{IntervalSec: envoyGatewayInterval, HealthyThreshold: 1, Kind: "BackendTrafficPolicy", Namespace: c.Namespace, Name: c.Name}
	if ah.Interval != nil {
		h.IntervalSec = ceilSeconds(*ah.Interval)
	}
	if ah.InitialJitter != nil {
		h.JitterSec = ceilSeconds(*ah.InitialJitter)
	}
	return h, true
}

// envoyGatewayInterval is Envoy Gateway's active health-check interval when
// the policy does not set one (api/v1alpha1/healthcheck_types.go: 3 s).
const envoyGatewayInterval = 3

// envoyJitterFix asks Envoy Gateway to check new hosts sooner when the
// initial jitter leaves them unchecked for seconds.
func envoyJitterFix(objs *Objects, hc healthCheck) (Fix, bool) {
	if hc.Kind != "BackendTrafficPolicy" || time.Duration(hc.JitterSec)*time.Second <= envoyFastJitter {
		return Fix{}, false
	}
	why := fmt.Sprintf("Envoy checks a new endpoint first after a random wait of up to %d s (initialJitter) and sends it nothing until it passes.", hc.JitterSec)
	if _, p := envoyPolicyOf(objs); p != nil && p.PanicThreshold != nil && *p.PanicThreshold < envoyDefaultPanic {
		why += fmt.Sprintf(" With panicThreshold %d Envoy will not fall back to the unchecked endpoints, so until then it has no healthy upstream.", *p.PanicThreshold)
	}
	return Fix{
		Title: "Check new endpoints within a second",
		Why:   why,
		Patch: objectPatch("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", hc.Namespace, hc.Name, nil, map[string]any{
			"healthCheck": map[string]any{"active": map[string]any{"initialJitter": fmt.Sprintf("%ds", int(envoyFastJitter.Seconds()))}}}),
	}, true
}

// istioDrainFix keeps an Istio sidecar serving through the application's
// preStop sleep: the sidecar gets SIGTERM with the application and stops
// after terminationDrainDuration, whatever the application still does.
// ok is false when the pods have no classic sidecar or it already waits
// long enough (a native sidecar stops after the application).
func istioDrainFix(wl workload, spec *sources.PodSpec, sleep int) (Fix, bool) {
	if spec == nil || spec.Istio == nil || spec.Istio.Native || strings.EqualFold(spec.Istio.NativeSidecar, "true") {
		return Fix{}, false
	}
	is := spec.Istio
	if !is.Container && is.Inject != "true" {
		return Fix{}, false
	}
	drain := istioDefaultDrain
	for _, pc := range []*sources.IstioProxyConfig{is.Injected, is.Annotation} {
		if pc == nil {
			continue
		}
		if pc.ExitOnZeroActiveConnections != nil && *pc.ExitOnZeroActiveConnections {
			return Fix{}, false
		}
		if pc.TerminationDrainDuration != nil {
			drain = *pc.TerminationDrainDuration
		}
	}
	want := sleep + int(preStopMargin.Seconds())
	if drain >= time.Duration(want)*time.Second {
		return Fix{}, false
	}
	return Fix{
		Title: fmt.Sprintf("Keep the Istio sidecar up for %d s after SIGTERM", want),
		Why: fmt.Sprintf("The sidecar stops %s after SIGTERM (terminationDrainDuration), before the %d s preStop sleep ends, and requests to the pod fail with it; "+
			"a native sidecar (sidecar.istio.io/nativeSidecar: \"true\") stops after the application instead.", seconds(drain), sleep),
		Patch: deploymentPatch(wl, map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": map[string]any{
			"proxy.istio.io/config": fmt.Sprintf("terminationDrainDuration: %ds\n", want)}}}}),
	}, true
}

// anyList converts strings to a patch's list.
func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

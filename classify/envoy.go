package classify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	"sigs.k8s.io/yaml"
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

// envoyPlatformOf names the product around the Envoy that logged the
// window's failures: what its records show, else what the objects read
// say; "" when neither tells.
func envoyPlatformOf(a *correlate.Analysis, w *correlate.Window) sources.Platform {
	counts := map[sources.Platform]int{}
	for _, s := range w.Signals {
		if s.Group.Platform != "" {
			counts[s.Group.Platform] += s.Weight()
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

// proxyNoun names who sent the failed requests, for a summary: the
// family's platform's noun for the product.
func proxyNoun(family sources.Family, product sources.Platform) string {
	return platformFor(family).noun(product)
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

// envoyPolicyOf returns the Envoy Gateway BackendTrafficPolicy the objects
// hold (the first by name); nil when none.
func envoyPolicyOf(objs *Objects) *sources.Config {
	return firstConfig(objs, "BackendTrafficPolicy")
}

// envoyHealthCheckOf is the active health check Envoy Gateway runs on new
// hosts, from a BackendTrafficPolicy (nil for none): Envoy waits a random
// time up to the initial jitter before a new host's first check and needs
// one pass at startup (health_check.proto: healthy_threshold "during
// startup, only a single successful health check is required"). Its Kind
// is "none" without an active check.
func envoyHealthCheckOf(c *sources.Config) healthCheck {
	if c == nil || c.BackendTrafficPolicy == nil || c.BackendTrafficPolicy.ActiveHealthCheck == nil {
		return healthCheck{Kind: "none"}
	}
	ah := c.BackendTrafficPolicy.ActiveHealthCheck
	h := healthCheck{IntervalSec: envoyGatewayInterval, HealthyThreshold: 1, Kind: "BackendTrafficPolicy", Namespace: c.Namespace, Name: c.Name, policy: c}
	if ah.Interval != nil {
		h.IntervalSec = ceilSeconds(*ah.Interval)
	}
	if ah.InitialJitter != nil {
		h.JitterSec = ceilSeconds(*ah.InitialJitter)
	}
	return h
}

// envoyPolicyFor is the BackendTrafficPolicy that applies to a path's
// route, among those that target it, its Gateways or its Service (the
// front's objects): the one that targets the route wins over one that
// targets a Gateway ("the configuration from the policy that is targeting
// the xRoute resource will win in a conflict", Envoy Gateway's
// BackendTrafficPolicy design), whole, not field by field; among equals
// the oldest, then the first by namespace and name, as Gateway API orders
// conflicting policies. nil when none applies.
func envoyPolicyFor(f front) *sources.Config {
	if f.Objects == nil {
		return nil
	}
	var best *sources.Config
	for _, c := range f.Objects.ConfigsOf("BackendTrafficPolicy") {
		if c.BackendTrafficPolicy == nil {
			continue
		}
		if best == nil || policyRank(c, f) < policyRank(best, f) || policyRank(c, f) == policyRank(best, f) && olderPolicy(c, best) {
			best = c
		}
	}
	return best
}

// Ranks of a BackendTrafficPolicy on a path, the lowest winning (see
// envoyPolicyFor).
const (
	targetsRoute = iota
	targetsGateway
	targetsOther
)

// policyRank says what of a path a BackendTrafficPolicy among its objects
// targets: its route, a Gateway, or something else (its Service).
func policyRank(c *sources.Config, f front) int {
	for _, t := range c.BackendTrafficPolicy.Targets {
		if t.Kind == "HTTPRoute" && f.Via != nil && cmp.Or(t.Namespace, c.Namespace) == f.Via.Namespace && t.Name == f.Via.Name {
			return targetsRoute
		}
	}
	for _, t := range c.BackendTrafficPolicy.Targets {
		if t.Kind == "Gateway" {
			return targetsGateway
		}
	}
	return targetsOther
}

// olderPolicy reports whether policy a takes precedence over b among
// policies of equal rank: created earlier, else first by namespace and name.
func olderPolicy(a, b *sources.Config) bool {
	if !a.Created.Equal(b.Created) && !a.Created.IsZero() && !b.Created.IsZero() {
		return a.Created.Before(b.Created)
	}
	return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
}

// envoyGatewayInterval is Envoy Gateway's active health-check interval when
// the policy does not set one (api/v1alpha1/healthcheck_types.go: 3 s).
const envoyGatewayInterval = 3

// envoyJitterFix asks Envoy Gateway to check new hosts sooner when the
// initial jitter leaves them unchecked for seconds.
func envoyJitterFix(hc healthCheck) (Fix, bool) {
	if hc.Kind != "BackendTrafficPolicy" || time.Duration(hc.JitterSec)*time.Second <= envoyFastJitter {
		return Fix{}, false
	}
	why := fmt.Sprintf("Envoy checks a new endpoint first after a random wait of up to %d s (initialJitter) and sends it nothing until it passes.", hc.JitterSec)
	if p := hc.policy; p != nil && p.BackendTrafficPolicy.PanicThreshold != nil && *p.BackendTrafficPolicy.PanicThreshold < envoyDefaultPanic {
		why += fmt.Sprintf(" With panicThreshold %d Envoy will not fall back to the unchecked endpoints, so until then it has no healthy upstream.", *p.BackendTrafficPolicy.PanicThreshold)
	}
	return Fix{
		Title: fmt.Sprintf("Check new endpoints within %d s", int(envoyFastJitter.Seconds())),
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
			istioProxyConfigAnnotation: withProxyConfig(is.AnnotationText, "terminationDrainDuration", fmt.Sprintf("%ds", want))}}}}),
	}, true
}

// istioProxyConfigAnnotation is the pod annotation that overrides the
// mesh's ProxyConfig for one workload's sidecars.
const istioProxyConfigAnnotation = "proxy.istio.io/config"

// withProxyConfig returns a proxy.istio.io/config annotation (YAML or
// JSON, as written) with key set to value and every other key kept
// (holdApplicationUntilProxyStarts, proxyMetadata, ...): a patch replaces
// an annotation's value whole. An annotation that does not parse as a map
// is kept as written with the key appended on a line of its own.
func withProxyConfig(annotation, key, value string) string {
	doc := map[string]any{}
	if strings.TrimSpace(annotation) != "" && yaml.Unmarshal([]byte(annotation), &doc) != nil {
		return strings.TrimRight(annotation, "\n") + "\n" + key + ": " + value + "\n"
	}
	if doc == nil {
		doc = map[string]any{}
	}
	doc[key] = value
	out, err := yaml.Marshal(doc)
	if err != nil {
		return key + ": " + value + "\n"
	}
	return string(out)
}

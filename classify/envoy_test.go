package classify

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// analysisOf builds an analysis of nothing but the objects given.
func analysisOf(cfgs ...*sources.Config) *correlate.Analysis {
	c := correlate.NewCollector()
	for _, cfg := range cfgs {
		c.Config(cfg)
	}
	return correlate.Analyze(correlate.Merge(c), correlate.Options{})
}

func ptr[T any](v T) *T { return &v }

// TestIstioDrainFix checks when the sidecar's drain must be lengthened: a
// classic injected sidecar with the default 5 s drain cannot outlive a
// 10 s preStop sleep; a native sidecar, EXIT_ON_ZERO_ACTIVE_CONNECTIONS or a
// drain already past the sleep need nothing.
func TestIstioDrainFix(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	injected := func(pc *sources.IstioProxyConfig) *sources.PodSpec {
		return &sources.PodSpec{Istio: &sources.IstioSidecar{Container: true, Injected: pc}}
	}
	cases := []struct {
		name  string
		spec  *sources.PodSpec
		sleep int
		want  string // the annotation, "" for no fix
	}{
		{"no sidecar", &sources.PodSpec{}, 10, ""},
		{"default drain", injected(nil), 10, "terminationDrainDuration: 15s\n"},
		{"drain just short", injected(&sources.IstioProxyConfig{TerminationDrainDuration: ptr(14 * time.Second)}), 10, "terminationDrainDuration: 15s\n"},
		{"drain long enough", injected(&sources.IstioProxyConfig{TerminationDrainDuration: ptr(15 * time.Second)}), 10, ""},
		{"exit on zero connections", injected(&sources.IstioProxyConfig{ExitOnZeroActiveConnections: ptr(true)}), 10, ""},
		{"native sidecar", &sources.PodSpec{Istio: &sources.IstioSidecar{Container: true, Native: true}}, 10, ""},
		{"annotated native", &sources.PodSpec{Istio: &sources.IstioSidecar{Inject: "true", NativeSidecar: "true"}}, 10, ""},
		{"template with inject annotation", &sources.PodSpec{Istio: &sources.IstioSidecar{Inject: "true"}}, 20, "terminationDrainDuration: 25s\n"},
		{"injection turned off", &sources.PodSpec{Istio: &sources.IstioSidecar{Inject: "false"}}, 10, ""},
	}
	for _, c := range cases {
		fix, ok := istioDrainFix(wl, c.spec, c.sleep)
		got := ""
		if ok {
			got = fix.Patch["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["annotations"].(map[string]any)["proxy.istio.io/config"].(string)
		}
		if got != c.want {
			t.Errorf("%s: annotation %q, want %q", c.name, got, c.want)
		}
	}
}

// TestEnvoyRetryFix checks the retry fix per platform: it goes into the
// object the platform retries with, names the route, and is left out
// when the policy already retries refused connections.
func TestEnvoyRetryFix(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	route := &sources.Config{Kind: "HTTPRoute", Namespace: "shop", Name: "web-route", HTTPRoute: &sources.HTTPRoute{}}
	policy := func(r *sources.ProxyRetry) *sources.Config {
		return &sources.Config{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "web-policy", BackendTrafficPolicy: &sources.BackendTrafficPolicy{Retry: r}}
	}
	kindName := func(f Fix) string {
		return f.Patch["kind"].(string) + "/" + f.Patch["metadata"].(map[string]any)["name"].(string)
	}
	t.Run("envoy gateway without a policy", func(t *testing.T) {
		f, ok := envoyRetryFix(objectsOf(analysisOf(route)), sources.PlatformEnvoyGateway, wl)
		if !ok || kindName(f) != "BackendTrafficPolicy/web-route-retry" {
			t.Fatalf("fix %v %+v", ok, f.Patch)
		}
		refs := f.Patch["spec"].(map[string]any)["targetRefs"].([]any)
		if refs[0].(map[string]any)["name"] != "web-route" {
			t.Errorf("targets %v, want the HTTPRoute web-route", refs)
		}
	})
	t.Run("envoy gateway policy without retries", func(t *testing.T) {
		f, ok := envoyRetryFix(objectsOf(analysisOf(route, policy(nil))), sources.PlatformEnvoyGateway, wl)
		if !ok || kindName(f) != "BackendTrafficPolicy/web-policy" {
			t.Fatalf("fix %v %+v, want a patch of the existing policy", ok, f.Patch)
		}
	})
	t.Run("envoy gateway retries refused connections already", func(t *testing.T) {
		if _, ok := envoyRetryFix(objectsOf(analysisOf(route, policy(&sources.ProxyRetry{Retries: ptr(2), On: []string{"connect-failure"}}))), sources.PlatformEnvoyGateway, wl); ok {
			t.Error("a fix for a policy that already retries connect-failure")
		}
	})
	t.Run("envoy gateway retries turned off", func(t *testing.T) {
		if _, ok := envoyRetryFix(objectsOf(analysisOf(route, policy(&sources.ProxyRetry{Retries: ptr(0), On: []string{"connect-failure"}}))), sources.PlatformEnvoyGateway, wl); !ok {
			t.Error("no fix though numRetries 0 turns retries off")
		}
	})
	t.Run("istio names the route", func(t *testing.T) {
		vs := &sources.Config{Kind: "VirtualService", Namespace: "shop", Name: "web-vs", VirtualService: &sources.VirtualService{Routes: []sources.VirtualServiceRoute{{Name: "primary"}}}}
		f, ok := envoyRetryFix(objectsOf(analysisOf(vs)), sources.PlatformIstio, wl)
		if !ok || kindName(f) != "VirtualService/web-vs" {
			t.Fatalf("fix %v %+v", ok, f.Patch)
		}
		r := f.Patch["spec"].(map[string]any)["http"].([]any)[0].(map[string]any)
		if r["name"] != "primary" || r["retries"].(map[string]any)["attempts"] != istioFixRetries {
			t.Errorf("route %v", r)
		}
	})
	t.Run("contour already retries", func(t *testing.T) {
		hp := &sources.Config{Kind: "HTTPProxy", Namespace: "shop", Name: "web", HTTPProxy: &sources.HTTPProxy{Routes: []sources.HTTPProxyRoute{{Retry: &sources.ProxyRetry{Retries: ptr(1), On: []string{"connect-failure"}}}}}}
		if _, ok := envoyRetryFix(objectsOf(analysisOf(hp)), sources.PlatformContour, wl); ok {
			t.Error("a fix for a route that already retries")
		}
	})
	t.Run("unknown platform", func(t *testing.T) {
		if _, ok := envoyRetryFix(objectsOf(analysisOf()), "", wl); ok {
			t.Error("a retry fix with no platform to put it in")
		}
	})
}

// TestEnvoyJitterFix pins envoyFastJitter: a jitter of a second needs no
// fix, two seconds do.
func TestEnvoyJitterFix(t *testing.T) {
	a := analysisOf()
	for _, c := range []struct {
		jitter int
		want   bool
	}{{0, false}, {1, false}, {2, true}, {10, true}} {
		hc := healthCheck{IntervalSec: 5, HealthyThreshold: 1, JitterSec: c.jitter, Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "p"}
		if _, ok := envoyJitterFix(objectsOf(a), hc); ok != c.want {
			t.Errorf("jitter %d s: fix %v, want %v", c.jitter, ok, c.want)
		}
	}
	if _, ok := envoyJitterFix(objectsOf(a), healthCheck{Kind: "none", JitterSec: 10}); ok {
		t.Error("a jitter fix without an active health check")
	}
}

// TestEnvoyGatewayNoHealthyUpstreamFixes checks the fixes of the Envoy
// Gateway fixture whose active health check (initialJitter 10 s, interval
// 5 s, panicThreshold 0) left the new pod unchecked: the proxy is named,
// the jitter is shortened in the policy the objects hold, and
// minReadySeconds covers 1 s + 5 s + the margin.
func TestEnvoyGatewayNoHealthyUpstreamFixes(t *testing.T) {
	_, findings := analyzeDir(t, filepath.Join("..", "fixtures", "envoy-gateway-no-healthy-upstream"))
	if len(findings) != 1 || findings[0].Cause != registrationLagCause.ID {
		t.Fatalf("findings %v, want one registration lag", findings)
	}
	f := findings[0]
	if !strings.Contains(f.Summary, "Envoy Gateway's proxy") || !strings.Contains(f.Summary, "active health check") {
		t.Errorf("summary %q names neither the proxy nor its health check", f.Summary)
	}
	var titles []string
	for _, x := range f.Remediation {
		titles = append(titles, x.Title)
	}
	if len(f.Remediation) < 2 || f.Remediation[0].Patch["metadata"].(map[string]any)["name"] != "web-health" {
		t.Fatalf("fixes %q: want the policy web-health's jitter first", titles)
	}
	want := 1 + 5 + int(minReadyMargin.Seconds())
	if got := patchNumber(t, f, "minReadySeconds", "spec.minReadySeconds"); int(got) != want {
		t.Errorf("minReadySeconds %v, want %d", got, want)
	}
}

// TestIstioDefaultDrain pins the sidecar's default terminationDrainDuration,
// 5 s: it covers a preStop of 0 s plus the 5 s margin, not one of 3 s.
func TestIstioDefaultDrain(t *testing.T) {
	spec := &sources.PodSpec{Istio: &sources.IstioSidecar{Container: true}}
	if _, ok := istioDrainFix(workload{Name: "web"}, spec, 0); ok {
		t.Error("the default drain does not cover no preStop sleep")
	}
	fix, ok := istioDrainFix(workload{Name: "web"}, spec, 3)
	if !ok || !strings.Contains(fix.Why, "stops 5 s after SIGTERM") {
		t.Errorf("a 3 s sleep: fix %v %q, want one saying the sidecar stops 5 s after SIGTERM", ok, fix.Why)
	}
}

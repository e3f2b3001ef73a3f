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

// TestEnvoyJitterFix pins envoyFastJitter: a jitter of a second needs no
// fix, two seconds do.
func TestEnvoyJitterFix(t *testing.T) {
	for _, c := range []struct {
		jitter int
		want   bool
	}{{0, false}, {1, false}, {2, true}, {10, true}} {
		hc := healthCheck{IntervalSec: 5, HealthyThreshold: 1, JitterSec: c.jitter, Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "p"}
		if _, ok := envoyJitterFix(hc); ok != c.want {
			t.Errorf("jitter %d s: fix %v, want %v", c.jitter, ok, c.want)
		}
	}
	if _, ok := envoyJitterFix(healthCheck{Kind: "none", JitterSec: 10}); ok {
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

// TestIstioNoHealthyUpstreamFixes checks the Istio fixture whose one
// replica went with maxUnavailable 1 before its replacement was Ready: the
// summary says the rollout removed it first, and the only fix is the
// strategy (minReadySeconds cannot help when no new pod is Ready, and
// Istio runs no active check that would need it).
func TestIstioNoHealthyUpstreamFixes(t *testing.T) {
	_, findings := analyzeDir(t, filepath.Join("..", "fixtures", "istio-no-healthy-upstream"))
	if len(findings) != 1 || findings[0].Cause != registrationLagCause.ID || findings[0].Variant != variantGoneBeforeReady {
		t.Fatalf("findings %v, want one registration lag, %s", findings, variantGoneBeforeReady)
	}
	f := findings[0]
	if !strings.Contains(f.Summary, "the Istio gateway") || !strings.Contains(f.Summary, "maxUnavailable 1 (1 of 1) with maxSurge 0") {
		t.Errorf("summary %q names neither the gateway nor the strategy", f.Summary)
	}
	if len(f.Remediation) != 1 || patchNumber(t, f, "Never take", "spec.strategy.rollingUpdate.maxUnavailable") != 0 {
		t.Errorf("fixes %+v, want only maxUnavailable 0", f.Remediation)
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

// TestMostCounted: the key counted most wins, the least key among ties,
// whatever the map's order.
func TestMostCounted(t *testing.T) {
	for i := 0; i < 20; i++ {
		if got := mostCounted(map[string]int{"istio": 2, "contour": 2, "kgateway": 1}); got != "contour" {
			t.Fatalf("a tie went to %q", got)
		}
	}
	if got := mostCounted(map[string]int{"a": 1, "b": 2}); got != "b" {
		t.Errorf("most counted %q", got)
	}
	if got := mostCounted(map[string]int{}); got != "" {
		t.Errorf("nothing counted gave %q", got)
	}
}

// TestEnvoyPlatformOfObjects names the Envoy-based product from the kinds
// of objects read.
func TestEnvoyPlatformOfObjects(t *testing.T) {
	obj := func(kinds ...string) *Objects {
		var cs []*sources.Config
		for _, k := range kinds {
			cs = append(cs, &sources.Config{Kind: k, Name: strings.ToLower(k)})
		}
		return NewObjects(cs)
	}
	for _, tc := range []struct {
		kinds []string
		want  sources.Platform
	}{
		{[]string{"HTTPRoute", "BackendTrafficPolicy"}, sources.PlatformEnvoyGateway},
		{[]string{"VirtualService"}, sources.PlatformIstio},
		{[]string{"DestinationRule"}, sources.PlatformIstio},
		{[]string{"HTTPProxy"}, sources.PlatformContour},
		{[]string{"HTTPRoute"}, ""},
	} {
		if got := envoyPlatformOfObjects(obj(tc.kinds...)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.kinds, got, tc.want)
		}
	}
	two := NewObjects([]*sources.Config{{Kind: "HTTPRoute", Namespace: "shop", Name: "web"}, {Kind: "HTTPRoute", Namespace: "shop", Name: "api"}})
	if c := firstConfig(two, "HTTPRoute"); c == nil || c.Name != "api" {
		t.Errorf("first HTTPRoute %+v, want shop/api", c)
	}
}

// TestEnvoyGatewayHealthCheckDefaults pins Envoy Gateway's 3 s check
// interval and Envoy's 50 % panic threshold: a policy below it leaves no
// healthy upstream until the first check, one at it does not.
func TestEnvoyGatewayHealthCheckDefaults(t *testing.T) {
	policy := func(panic *int) *Objects {
		jitter := 5 * time.Second
		return NewObjects([]*sources.Config{{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "web-btp",
			BackendTrafficPolicy: &sources.BackendTrafficPolicy{ActiveHealthCheck: &sources.ActiveHealthCheck{InitialJitter: &jitter}, PanicThreshold: panic}}})
	}
	hc := envoyHealthCheckOf(envoyPolicyOf(policy(nil)))
	if hc.Kind != "BackendTrafficPolicy" || hc.IntervalSec != 3 || hc.HealthyThreshold != 1 || hc.JitterSec != 5 {
		t.Errorf("health check %+v", hc)
	}
	for _, tc := range []struct {
		panic int
		says  bool
	}{{49, true}, {50, false}} {
		fix, ok := envoyJitterFix(envoyHealthCheckOf(envoyPolicyOf(policy(ptr(tc.panic)))))
		if !ok || strings.Contains(fix.Why, "no healthy upstream") != tc.says {
			t.Errorf("panicThreshold %d: fix %v %q", tc.panic, ok, fix.Why)
		}
	}
}

// TestEnvoyPlatformOf: the product the failed requests' records name,
// else the one the objects configure.
func TestEnvoyPlatformOf(t *testing.T) {
	a := &correlate.Analysis{Dataset: &correlate.Dataset{Configs: []*sources.Config{{Kind: "VirtualService", Namespace: "shop", Name: "web"}}}}
	unnamed := &correlate.Window{Signals: []*correlate.Signal{signalOf(t, failed(time.Time{}))}}
	if got := envoyPlatformOf(a, unnamed); got != sources.PlatformIstio {
		t.Errorf("records without a product: %q, want the objects' %q", got, sources.PlatformIstio)
	}
	contour := failed(time.Time{})
	contour.Platform = sources.PlatformContour
	named := &correlate.Window{Signals: []*correlate.Signal{signalOf(t, contour)}}
	if got := envoyPlatformOf(a, named); got != sources.PlatformContour {
		t.Errorf("records naming Contour: %q", got)
	}
}

// TestEnvoyPolicyPrecedence pins which BackendTrafficPolicy applies to a
// route among policies of the same rank, in either order read: the oldest;
// and that one targeting a Gateway wins over an older one targeting the
// Service.
func TestEnvoyPolicyPrecedence(t *testing.T) {
	route := &sources.Config{Kind: "HTTPRoute", Namespace: "shop", Name: "web-route"}
	policy := func(name, created, kind, target string) *sources.Config {
		at, err := time.Parse(time.RFC3339, created)
		if err != nil {
			t.Fatal(err)
		}
		return &sources.Config{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: name, Created: at,
			BackendTrafficPolicy: &sources.BackendTrafficPolicy{Targets: []sources.ObjectRef{{Kind: kind, Name: target}}}}
	}
	older := policy("zz-older", "2026-03-01T10:00:00Z", "Gateway", "eg")
	newer := policy("aa-newer", "2026-03-02T10:00:00Z", "Gateway", "eg")
	service := policy("aa-service", "2026-02-01T10:00:00Z", "Service", "web")
	for _, c := range []struct {
		name     string
		policies []*sources.Config
		want     *sources.Config
	}{
		{"the older read first", []*sources.Config{older, newer}, older},
		{"the older read last", []*sources.Config{newer, older}, older},
		{"the Gateway's over the older Service's", []*sources.Config{service, newer}, newer},
		{"the Gateway's over the older Service's, read first", []*sources.Config{newer, service}, newer},
	} {
		got := envoyPolicyFor(front{Via: route, Objects: NewObjects(c.policies)})
		if got != c.want {
			name := "none"
			if got != nil {
				name = got.Name
			}
			t.Errorf("%s: %s applies, want %s", c.name, name, c.want.Name)
		}
	}
}

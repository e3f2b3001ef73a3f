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

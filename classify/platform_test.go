package classify

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestPlatformRegistry: one platform per family, each resolved from its
// family; a family without one (plain nginx, Kubernetes, none) is generic,
// which answers as the rules did before platforms had a home: no stop
// propagation, no readiness gate, Google's fixed keep-alive as the idle
// timeout, no static keep-alive check.
func TestPlatformRegistry(t *testing.T) {
	seen := map[sources.Family]bool{}
	for _, p := range platforms {
		f := p.family()
		if seen[f] {
			t.Errorf("family %q registered twice", f)
		}
		seen[f] = true
		if platformFor(f).family() != f {
			t.Errorf("platformFor(%q) is %q's", f, platformFor(f).family())
		}
	}
	for _, f := range []sources.Family{sources.FamilyNginx, sources.FamilyKubernetes, ""} {
		p := platformFor(f)
		if p.family() != "" || p.stopPropagation() != 0 || p.idleChecked() || p.idleTimeout(NewObjects(nil), nil).Seconds != gcpBackendKeepalive {
			t.Errorf("%q is not generic", f)
		}
		if _, ok := p.gateFix(workload{}); ok {
			t.Errorf("%q has a readiness gate", f)
		}
	}
	// The stop propagation of each platform, as each file names it.
	for f, want := range map[sources.Family]time.Duration{
		sources.FamilyALB: albStopPropagation, sources.FamilyGCP: gcpStopPropagation, sources.FamilyIngressNginx: nginxStopPropagation,
		sources.FamilyEnvoy: envoyStopPropagation, sources.FamilyTraefik: traefikStopPropagation,
	} {
		if got := platformFor(f).stopPropagation(); got != want || got == 0 {
			t.Errorf("%s: stop propagation %v, want %v", f, got, want)
		}
	}
}

// TestGatewayClassFamily: GKE's classes are Google's load balancer even
// when their name holds a product's, the Envoy products' by their names.
func TestGatewayClassFamily(t *testing.T) {
	for class, want := range map[string]sources.Platform{
		"istio": sources.PlatformIstio, "contour": sources.PlatformContour, "gloo-gateway": sources.PlatformKgateway,
		"kgateway": sources.PlatformKgateway, "eg": sources.PlatformEnvoyGateway, "my-envoy": sources.PlatformEnvoyGateway,
	} {
		if f, p := gatewayClassFamily(class); f != sources.FamilyEnvoy || p != want {
			t.Errorf("%s: %s/%s, want envoy/%s", class, f, p, want)
		}
	}
	for _, class := range []string{"gke-l7-global-external-managed", "gke-l7-envoy"} {
		if f, p := gatewayClassFamily(class); f != sources.FamilyGCP || p != "" {
			t.Errorf("%s: %s/%s, want gcp", class, f, p)
		}
	}
	if f, _ := gatewayClassFamily("haproxy"); f != "" {
		t.Errorf("haproxy: %s", f)
	}
}

package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

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

package classify

import (
	"reflect"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// gatewayOfClass is a Gateway of the given GatewayClass in namespace shop.
func gatewayOfClass(name, class string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  gatewayClassName: " + class +
		"\n  listeners:\n    - name: http\n      port: 80\n      protocol: HTTP"
}

// httpRouteVia routes everything through the Gateway to the Service.
func httpRouteVia(name, gateway, svc string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  parentRefs:\n    - name: " + gateway + "\n" +
		"  rules:\n    - backendRefs:\n        - name: " + svc + "\n          port: 80"
}

// TestEnvoyGatewayRetryFixSkipsOtherProducts checks which HTTPRoutes to
// the workload the Envoy Gateway fix considers: not one through Google's
// load balancer or Istio's gateway, which sort first here, but one
// through a Gateway whose class names no product.
func TestEnvoyGatewayRetryFixSkipsOtherProducts(t *testing.T) {
	for _, c := range []struct {
		name, class, want string
	}{
		{"Google's load balancer", "gke-l7-global-external-managed", "BackendTrafficPolicy shop/web-route-retry"},
		{"Istio's gateway", "istio", "BackendTrafficPolicy shop/web-route-retry"},
		{"a class naming no product", "acme", "BackendTrafficPolicy shop/aaa-route-retry"},
	} {
		docs := append(twoWorkloads(), gatewayEG, gatewayOfClass("other-gw", c.class),
			httpRouteVia("aaa-route", "other-gw", "web"), httpRouteVia("web-route", "eg", "web"))
		objs := objectsOfYAML(t, docs...)
		f, ok := envoyRetryFix(objs, sources.PlatformEnvoyGateway, workloadNamed(t, objs, "web"))
		if !ok || patchedName(f) != c.want {
			t.Errorf("%s: fix %v patches %s, want %s", c.name, ok, patchedName(f), c.want)
		}
	}
}

// TestIstioRetryFixSaysWhatTheRouteSets checks that the Why quotes the
// attempts the workload's route sets, and Istio's default when it sets
// none.
func TestIstioRetryFixSaysWhatTheRouteSets(t *testing.T) {
	for _, c := range []struct {
		retries, want string
	}{
		{"attempts: 1", "the route sets 1 attempts"},
		{"perTryTimeout: 2s", "Istio retries 2 times by default"},
		{"", "Istio retries 2 times by default"},
	} {
		objs := objectsOfYAML(t, append(twoWorkloads(), virtualService("web-vs", "web", c.retries))...)
		f, ok := envoyRetryFix(objs, sources.PlatformIstio, workloadNamed(t, objs, "web"))
		if !ok || !strings.Contains(f.Why, c.want) {
			t.Errorf("retries %q: fix %v, why %q lacks %q", c.retries, ok, f.Why, c.want)
		}
	}
}

// httpProxyTwoRoutes is a Contour HTTPProxy with two routes to the
// Service, neither retrying.
func httpProxyTwoRoutes(name, svc string) string {
	r := "    - conditions:\n        - prefix: /a\n      services:\n        - name: " + svc + "\n          port: 80\n" +
		"    - conditions:\n        - prefix: /b\n      services:\n        - name: " + svc + "\n          port: 80\n"
	return "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  virtualhost:\n    fqdn: " + name + ".example.com\n  routes:\n" + r
}

// TestContourRetryFixNamesEachOtherProxyOnce checks that the Contour fix
// patches the first HTTPProxy that needs the retry and names every other
// one once, and the one it patches only as the object patched (with where
// it was read), never among the others, however many of its routes need it.
func TestContourRetryFixNamesEachOtherProxyOnce(t *testing.T) {
	objs := objectsOfYAML(t, append(twoWorkloads(), httpProxyTwoRoutes("web-a", "web"), httpProxyTwoRoutes("web-b", "web"))...)
	f, ok := envoyRetryFix(objs, sources.PlatformContour, workloadNamed(t, objs, "web"))
	if !ok || patchedName(f) != "HTTPProxy shop/web-a" {
		t.Fatalf("fix %v patches %s, want HTTPProxy shop/web-a", ok, patchedName(f))
	}
	if strings.Count(f.Why, "shop/web-b") != 1 || strings.Count(f.Why, "shop/web-a") != 1 || !strings.HasPrefix(f.Why, "HTTPProxy shop/web-a (read at ") {
		t.Errorf("why %q: want HTTPProxy shop/web-b named once, web-a only as the object patched", f.Why)
	}
	if routes := patchSpec(f)["routes"].([]any); len(routes) != 2 {
		t.Errorf("routes %v, want both routes of web-a carried whole", routes)
	}
	objs = objectsOfYAML(t, append(twoWorkloads(), httpProxyTwoRoutes("web-a", "web"))...)
	if f, _ = envoyRetryFix(objs, sources.PlatformContour, workloadNamed(t, objs, "web")); strings.Count(f.Why, "shop/web-a") != 1 || strings.Contains(f.Why, "other routes") {
		t.Errorf("one HTTPProxy: why %q names it as another route", f.Why)
	}
}

// TestContourRetryWithoutStatusCodes checks that a route's policy without
// retriable status codes gets none in the fix, not an empty list.
func TestContourRetryWithoutStatusCodes(t *testing.T) {
	got := contourRetry(&sources.ProxyRetry{On: []string{"5xx"}})
	want := map[string]any{"count": 2, "retryOn": []any{"5xx", "connect-failure", "refused-stream"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("retryPolicy %v, want %v", got, want)
	}
}

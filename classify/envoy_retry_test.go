package classify

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// gatewayEG is an Envoy Gateway Gateway, eg.
const gatewayEG = "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: eg\n  namespace: shop\nspec:\n  gatewayClassName: eg\n  listeners:\n    - name: http\n      port: 80\n      protocol: HTTP"

// twoWorkloads are the Deployments and Services of two workloads, web and
// other (which sorts first).
func twoWorkloads() []string {
	return []string{
		deployment("other", "replicas: 2", webContainer("http", "")), service("other", ""),
		deployment("web", "replicas: 2", webContainer("http", "")), service("web", ""),
	}
}

// httpRoute routes everything through Gateway eg to the Service.
func httpRoute(name, svc string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  parentRefs:\n    - name: eg\n" +
		"  rules:\n    - backendRefs:\n        - name: " + svc + "\n          port: 80"
}

// trafficPolicy is a BackendTrafficPolicy targeting one object (kind/name)
// with the given spec lines besides its targetRefs.
func trafficPolicy(name, target, spec string) string {
	kind, tname, _ := strings.Cut(target, "/")
	return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n" +
		"  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: " + kind + "\n      name: " + tname + "\n" + indent(spec, "  ")
}

// patchSpec returns the spec of a fix's patch.
func patchSpec(f Fix) map[string]any { return f.Patch["spec"].(map[string]any) }

// TestEnvoyGatewayRetryFixPatchesTheWorkloadsPolicy checks that the retry
// fix goes into the BackendTrafficPolicy that applies to the HTTPRoute
// sending traffic to the workload, not into the first policy or route by
// name (another workload's here), with the route's own policy winning
// over its Gateway's, whole; that a merge patch of an existing policy
// leaves its targets alone and keeps its triggers and a higher
// numRetries; and that no fix is proposed once the policy that applies
// retries refused connections.
func TestEnvoyGatewayRetryFixPatchesTheWorkloadsPolicy(t *testing.T) {
	safe := "retry:\n  numRetries: 2\n  retryOn:\n    triggers: [connect-failure]"
	unsafe := "retry:\n  numRetries: 5\n  retryOn:\n    triggers: [reset]\n    httpStatusCodes: [503]\n  perRetry:\n    timeout: 2s"
	off := "retry:\n  numRetries: 0\n  retryOn:\n    triggers: [connect-failure]"
	health := "healthCheck:\n  passive:\n    consecutive5XxErrors: 3"
	cases := []struct {
		name     string
		policies []string
		want     string // the object patched, "" for no fix
		retries  int
		triggers []string
		why      string
	}{
		{"no policy: a new one for the workload's route", nil,
			"BackendTrafficPolicy shop/web-route-retry", 2, []string{"connect-failure", "refused-stream"}, ""},
		{"only the other workload's route has a policy", []string{trafficPolicy("aaa-policy", "HTTPRoute/aaa-route", health)},
			"BackendTrafficPolicy shop/web-route-retry", 2, []string{"connect-failure", "refused-stream"}, ""},
		{"the other workload's policy retries, the workload's does not", []string{
			trafficPolicy("aaa-policy", "HTTPRoute/aaa-route", safe), trafficPolicy("web-policy", "HTTPRoute/web-route", unsafe)},
			"BackendTrafficPolicy shop/web-policy", 5, []string{"reset", "connect-failure", "refused-stream"}, "sets the policy of HTTPRoute shop/web-route"},
		{"the workload's policy retries, the other's does not", []string{
			trafficPolicy("aaa-policy", "HTTPRoute/aaa-route", unsafe), trafficPolicy("web-policy", "HTTPRoute/web-route", safe)},
			"", 0, nil, ""},
		{"retries turned off", []string{trafficPolicy("web-policy", "HTTPRoute/web-route", off)},
			"BackendTrafficPolicy shop/web-policy", 2, []string{"connect-failure", "refused-stream"}, ""},
		{"the Gateway's policy alone", []string{trafficPolicy("aaa-gateway", "Gateway/eg", health)},
			"BackendTrafficPolicy shop/aaa-gateway", 2, []string{"connect-failure", "refused-stream"}, "every other route it applies to"},
		{"the Gateway's policy retries", []string{trafficPolicy("aaa-gateway", "Gateway/eg", safe)},
			"", 0, nil, ""},
		{"the route's policy wins over the Gateway's that retries", []string{
			trafficPolicy("aaa-gateway", "Gateway/eg", safe), trafficPolicy("web-policy", "HTTPRoute/web-route", health)},
			"BackendTrafficPolicy shop/web-policy", 2, []string{"connect-failure", "refused-stream"}, ""},
		{"the route's policy that retries wins over the Gateway's", []string{
			trafficPolicy("aaa-gateway", "Gateway/eg", unsafe), trafficPolicy("web-policy", "HTTPRoute/web-route", safe)},
			"", 0, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs := append(twoWorkloads(), gatewayEG, httpRoute("aaa-route", "other"), httpRoute("web-route", "web"))
			objs := objectsOfYAML(t, append(docs, c.policies...)...)
			f, ok := envoyRetryFix(objs, sources.PlatformEnvoyGateway, workloadNamed(t, objs, "web"))
			if ok != (c.want != "") {
				t.Fatalf("fix %v %+v, want %q", ok, f.Patch, c.want)
			}
			if !ok {
				return
			}
			if got := patchedName(f); got != c.want {
				t.Fatalf("patches %s, want %s", got, c.want)
			}
			spec := patchSpec(f)
			refs, retargets := spec["targetRefs"].([]any)
			if strings.HasSuffix(c.want, "-retry") {
				if !retargets || refs[0].(map[string]any)["name"] != "web-route" {
					t.Errorf("new policy targets %v, want the HTTPRoute web-route", refs)
				}
			} else if retargets {
				t.Errorf("the patch of an existing policy sets its targets to %v", refs)
			}
			retry := spec["retry"].(map[string]any)
			if retry["numRetries"] != c.retries || !reflect.DeepEqual(retry["retryOn"].(map[string]any)["triggers"], anyList(c.triggers)) {
				t.Errorf("retry %v, want %d retries on %v", retry, c.retries, c.triggers)
			}
			if !strings.Contains(f.Why, c.why) {
				t.Errorf("why %q lacks %q", f.Why, c.why)
			}
		})
	}
}

// TestEnvoyGatewayRetryFixNamesOtherRoutes checks a workload behind two
// HTTPRoutes: the first that needs the retry is patched and the Why names
// the other.
func TestEnvoyGatewayRetryFixNamesOtherRoutes(t *testing.T) {
	objs := objectsOfYAML(t, append(twoWorkloads(), gatewayEG, httpRoute("web-a", "web"), httpRoute("web-b", "web"))...)
	f, ok := envoyRetryFix(objs, sources.PlatformEnvoyGateway, workloadNamed(t, objs, "web"))
	if !ok || patchedName(f) != "BackendTrafficPolicy shop/web-a-retry" || !strings.Contains(f.Why, "HTTPRoute shop/web-b") {
		t.Fatalf("fix %v %v: %s", ok, f.Patch, f.Why)
	}
}

// TestRetryFixWithoutARouteToTheWorkload checks that a fix for a workload
// no routing object read sends traffic to names a placeholder and says so,
// rather than patching another workload's objects.
func TestRetryFixWithoutARouteToTheWorkload(t *testing.T) {
	for _, c := range []struct {
		platform sources.Platform
		docs     []string
		want     string
	}{
		{sources.PlatformEnvoyGateway, []string{gatewayEG, httpRoute("aaa-route", "other"), trafficPolicy("aaa-policy", "HTTPRoute/aaa-route", "")},
			"BackendTrafficPolicy shop/<httproute>-retry"},
		{sources.PlatformIstio, []string{virtualService("aaa-vs", "other", "")}, "VirtualService shop/<virtualservice>"},
		{sources.PlatformContour, []string{httpProxy("aaa", "other", "")}, "HTTPProxy shop/<httpproxy>"},
	} {
		objs := objectsOfYAML(t, append(twoWorkloads(), c.docs...)...)
		f, ok := envoyRetryFix(objs, c.platform, workloadNamed(t, objs, "web"))
		if !ok || patchedName(f) != c.want {
			t.Errorf("%s: fix %v %v, want %s", c.platform, ok, f.Patch, c.want)
			continue
		}
		if kind := f.Patch["kind"].(string); !strings.Contains(f.Why, "No "+kind) && !strings.Contains(f.Why, "No HTTPRoute") {
			t.Errorf("%s: why %q does not say that no object routes to the workload", c.platform, f.Why)
		}
	}
	if _, ok := envoyRetryFix(objectsOfYAML(t, twoWorkloads()...), "", workload{Namespace: "shop", Name: "web"}); ok {
		t.Error("a retry fix with no platform to put it in")
	}
}

// virtualService is an Istio VirtualService with one http route named
// "main" to host, with the given retries lines, and a second named
// "reports" to the Service other.
func virtualService(name, host, retries string) string {
	main := "    - name: main\n      route:\n        - destination:\n            host: " + host + "\n            port:\n              number: 80\n"
	if retries != "" {
		main += "      retries:\n" + indent(retries, "        ") + "\n"
	}
	return "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  hosts: [shop.example.com]\n  http:\n" + main +
		"    - name: reports\n      route:\n        - destination:\n            host: other\n"
}

// TestIstioRetryFixPatchesTheWorkloadsVirtualService checks that the
// Istio fix carries every http route of the VirtualService whole (a merge
// patch replaces the list) and sets retries on those whose destination is
// the workload's Service, by short name or FQDN, not another's; raises
// attempts to one more than the route's own, at least istioFixRetries;
// and keeps the route's retryOn and per-try timeout.
func TestIstioRetryFixPatchesTheWorkloadsVirtualService(t *testing.T) {
	cases := []struct {
		name, host, retries string
		want                map[string]any
	}{
		{"short host, default retries", "web", "", map[string]any{"attempts": istioFixRetries, "retryOn": istioRetryOn}},
		{"FQDN, two attempts", "web.shop.svc.cluster.local", "attempts: 2", map[string]any{"attempts": istioFixRetries, "retryOn": istioRetryOn}},
		{"name.namespace, own settings", "web.shop", "attempts: 4\nperTryTimeout: 1500ms\nretryOn: 5xx,reset",
			map[string]any{"attempts": 5, "retryOn": "5xx,reset,connect-failure,refused-stream", "perTryTimeout": "1500ms"}},
		{"retries off", "web", "attempts: 0", map[string]any{"attempts": istioFixRetries, "retryOn": istioRetryOn}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			objs := objectsOfYAML(t, append(twoWorkloads(), virtualService("aaa-vs", "other", "attempts: 7"), virtualService("web-vs", c.host, c.retries))...)
			f, ok := envoyRetryFix(objs, sources.PlatformIstio, workloadNamed(t, objs, "web"))
			if !ok || patchedName(f) != "VirtualService shop/web-vs" {
				t.Fatalf("fix %v %v, want a patch of VirtualService shop/web-vs", ok, f.Patch)
			}
			routes := patchSpec(f)["http"].([]any)
			if len(routes) != 2 || routes[0].(map[string]any)["name"] != "main" || routes[0].(map[string]any)["route"] == nil {
				t.Fatalf("routes %v, want main, the route to web, with its destination", routes)
			}
			if other := routes[1].(map[string]any); other["name"] != "reports" || other["route"] == nil || other["retries"] != nil {
				t.Errorf("route %v, want reports carried as written", other)
			}
			if f.Template {
				t.Error("a VirtualService read whole gives a patch, not a template")
			}
			if got := routes[0].(map[string]any)["retries"]; !reflect.DeepEqual(got, c.want) {
				t.Errorf("retries %v, want %v", got, c.want)
			}
			if want := "up to " + itoa(c.want["attempts"].(int)) + " times"; !strings.Contains(f.Title, want) {
				t.Errorf("title %q lacks %q", f.Title, want)
			}
		})
	}
}

// httpProxy is a Contour HTTPProxy with one route to the Service and the
// given retryPolicy lines.
func httpProxy(name, svc, retry string) string {
	r := "    - conditions:\n        - prefix: /\n      services:\n        - name: " + svc + "\n          port: 80\n"
	if retry != "" {
		r += "      retryPolicy:\n" + indent(retry, "        ") + "\n"
	}
	return "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  virtualhost:\n    fqdn: " + name + ".example.com\n  routes:\n" + r
}

// TestContourRetryFixPatchesTheWorkloadsHTTPProxy checks that only the
// routes to the workload's Service decide whether Contour needs the
// retry, and that the fix patches their HTTPProxy with the route's own
// settings kept.
func TestContourRetryFixPatchesTheWorkloadsHTTPProxy(t *testing.T) {
	safe := "count: 1\nretryOn: [connect-failure]"
	own := "count: 4\nretryOn: [5xx]\nretriableStatusCodes: [503]\nperTryTimeout: 2s"
	for _, c := range []struct {
		name, other, web string
		want             map[string]any // nil for no fix
	}{
		{"the workload's route retries", "", safe, nil},
		{"only the other workload's route retries", safe, "",
			map[string]any{"count": envoyRetries, "retryOn": anyList(safeRetryOn)}},
		{"the workload's own settings kept", safe, own,
			map[string]any{"count": 4, "retryOn": []any{"5xx", "connect-failure", "refused-stream"}, "retriableStatusCodes": []any{503}, "perTryTimeout": "2s"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs := objectsOfYAML(t, append(twoWorkloads(), httpProxy("aaa", "other", c.other), httpProxy("web-proxy", "web", c.web))...)
			f, ok := envoyRetryFix(objs, sources.PlatformContour, workloadNamed(t, objs, "web"))
			if ok != (c.want != nil) {
				t.Fatalf("fix %v %v, want %v", ok, f.Patch, c.want != nil)
			}
			if !ok {
				return
			}
			if patchedName(f) != "HTTPProxy shop/web-proxy" {
				t.Fatalf("patches %s, want HTTPProxy shop/web-proxy", patchedName(f))
			}
			got := patchSpec(f)["routes"].([]any)[0].(map[string]any)["retryPolicy"]
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("retryPolicy %v, want %v", got, c.want)
			}
		})
	}
}

// TestDurationText pins how a kept timeout is written back.
func TestDurationText(t *testing.T) {
	for in, want := range map[string]string{"2s": "2s", "1500ms": "1500ms", "1m": "60s", "250ms": "250ms"} {
		d, err := time.ParseDuration(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := durationText(d); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

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

package classify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestLinkTargets checks every way the static checks tie a Deployment to
// the load balancers and proxies in front of it, and the near misses that
// must not tie: other namespaces, other names, empty selectors, routes to
// something other than a Service, parents other than Gateways.
func TestLinkTargets(t *testing.T) {
	web := map[string]string{"app": "web"}
	cfgs := []*sources.Config{
		{Kind: "Deployment", Namespace: "shop", Name: "web", Workload: &sources.Workload{Selector: web, TemplateLabels: web, Template: &sources.PodSpec{}}},
		{Kind: "Deployment", Namespace: "shop", Name: "any", Workload: &sources.Workload{TemplateLabels: map[string]string{"app": "any"}, Template: &sources.PodSpec{}}},
		{Kind: "Pod", Namespace: "shop", Name: "web-1", Labels: web},
		{Kind: "Pod", Namespace: "other", Name: "web-2", Labels: web},
		{Kind: "Pod", Namespace: "shop", Name: "any-1", Labels: map[string]string{"app": "any"}},
		{Kind: "Service", Namespace: "shop", Name: "web", Service: &sources.Service{Selector: web,
			Ports:           []sources.ServicePort{{Name: "http", Port: 80, TargetPortNumber: 8080}, {Name: "admin", Port: 9090, TargetPortNumber: 9090}},
			NEGExposedPorts: []int{9090}, BackendConfigs: map[string]string{"default": "web-bc"}}},
		{Kind: "Service", Namespace: "shop", Name: "selects-all", Service: &sources.Service{}},
		{Kind: "Service", Namespace: "other", Name: "web", Service: &sources.Service{Selector: web}},
		{Kind: "BackendConfig", Namespace: "shop", Name: "web-bc"},
		{Kind: "ConfigMap", Namespace: "ingress-nginx", Name: "ingress-nginx-controller", Proxy: &sources.ProxySettings{}},
		{Kind: "ConfigMap", Namespace: "shop", Name: "unrelated"},
		{Kind: "Ingress", Namespace: "shop", Name: "alb", Ingress: &sources.Ingress{Class: "alb", Backends: []sources.IngressBackend{{Service: "web", PortName: "http"}, {Service: "web", PortNumber: 80}, {Service: "api", PortNumber: 80}}}},
		{Kind: "Ingress", Namespace: "shop", Name: "internal", Ingress: &sources.Ingress{Class: "gce-internal", Backends: []sources.IngressBackend{{Service: "web", PortNumber: 80}}}},
		{Kind: "Ingress", Namespace: "shop", Name: "nginx", Ingress: &sources.Ingress{Class: "nginx", Backends: []sources.IngressBackend{{Service: "web", PortNumber: 80}}}},
		{Kind: "Ingress", Namespace: "shop", Name: "classless", Ingress: &sources.Ingress{Backends: []sources.IngressBackend{{Service: "web", PortNumber: 9090}}}},
		{Kind: "Ingress", Namespace: "other", Name: "elsewhere", Ingress: &sources.Ingress{Class: "alb", Backends: []sources.IngressBackend{{Service: "web", PortNumber: 80}}}},
		{Kind: "TargetGroupBinding", Namespace: "shop", Name: "tgb", TargetGroupBinding: &sources.TargetGroupBinding{Service: "web", ServicePort: "80", TargetType: "ip"}},
		{Kind: "TargetGroupBinding", Namespace: "shop", Name: "tgb-named", TargetGroupBinding: &sources.TargetGroupBinding{Service: "web", ServicePort: "admin"}},
		{Kind: "Gateway", Namespace: "gw", Name: "public", Gateway: &sources.Gateway{Class: "eg"}},
		{Kind: "Gateway", Namespace: "gw", Name: "istio", Gateway: &sources.Gateway{Class: "istio"}},
		{Kind: "HTTPRoute", Namespace: "shop", Name: "route", HTTPRoute: &sources.HTTPRoute{
			Parents: []sources.ObjectRef{{Kind: "Service", Name: "mesh"}, {Namespace: "gw", Name: "public"}, {Kind: "Gateway", Namespace: "gw", Name: "istio"}},
			Rules: []sources.HTTPRouteRule{{Backends: []sources.RouteBackend{
				{Name: "web", Port: 80}, {Kind: "ServiceImport", Name: "web", Port: 9090}, {Kind: "Service", Namespace: "other", Name: "web", Port: 81},
			}}}}},
		{Kind: "HTTPRoute", Namespace: "shop", Name: "policy-route", HTTPRoute: &sources.HTTPRoute{
			Rules: []sources.HTTPRouteRule{{Backends: []sources.RouteBackend{{Kind: "Service", Name: "web", Port: 9090}}}}}},
		{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "by-service", BackendTrafficPolicy: &sources.BackendTrafficPolicy{Targets: []sources.ObjectRef{{Kind: "Service", Name: "web"}}}},
		{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "elsewhere", BackendTrafficPolicy: &sources.BackendTrafficPolicy{Targets: []sources.ObjectRef{{Kind: "Service", Namespace: "other", Name: "web"}}}},
		{Kind: "VirtualService", Namespace: "shop", Name: "vs", VirtualService: &sources.VirtualService{Routes: []sources.VirtualServiceRoute{{Destinations: []sources.RouteBackend{
			{Name: "web", Port: 80}, {Name: "web.other.svc.cluster.local", Port: 80}, {Name: "web.shop.svc.cluster.local", Port: 9090},
		}}}}},
		{Kind: "HTTPProxy", Namespace: "shop", Name: "hp", HTTPProxy: &sources.HTTPProxy{Routes: []sources.HTTPProxyRoute{{Services: []sources.RouteBackend{{Name: "web", Port: 80}, {Name: "api", Port: 80}}}}}},
		{Kind: "HTTPProxy", Namespace: "other", Name: "hp", HTTPProxy: &sources.HTTPProxy{Routes: []sources.HTTPProxyRoute{{Services: []sources.RouteBackend{{Name: "web", Port: 80}}}}}},
	}
	got := dumpTargets(NewObjects(cfgs).targetsOf())
	want := strings.Join([]string{
		"shop/web replicas=1 pods=[web-1] services=[shop/web]",
		"  alb via Ingress shop/alb port http target instance objects [Service/web Ingress/alb]",
		"  gcp via Ingress shop/internal port http objects [Service/web Ingress/internal BackendConfig/web-bc]",
		"  ingress-nginx via Ingress shop/nginx port http objects [Service/web Ingress/nginx ConfigMap/ingress-nginx-controller]",
		"  gcp via Ingress shop/classless port admin objects [Service/web Ingress/classless BackendConfig/web-bc]",
		"  alb via TargetGroupBinding shop/tgb port http target ip objects [Service/web TargetGroupBinding/tgb]",
		"  alb via TargetGroupBinding shop/tgb-named port admin objects [Service/web TargetGroupBinding/tgb-named]",
		"  envoy/envoy-gateway via HTTPRoute shop/route port http objects [Service/web HTTPRoute/route Gateway/public Gateway/istio BackendTrafficPolicy/by-service]",
		"  envoy/envoy-gateway via HTTPRoute shop/policy-route port admin objects [Service/web HTTPRoute/policy-route BackendTrafficPolicy/by-service]",
		"  envoy/istio via VirtualService shop/vs port http objects [Service/web VirtualService/vs]",
		"  envoy/istio via VirtualService shop/vs port admin objects [Service/web VirtualService/vs]",
		"  envoy/contour via HTTPProxy shop/hp port http objects [Service/web HTTPProxy/hp]",
		"  gcp via Service shop/web port admin standalone objects [Service/web BackendConfig/web-bc]",
		"shop/any replicas=1 pods=[] services=[]",
	}, "\n")
	if got != want {
		t.Errorf("targets:\n%s\nwant:\n%s", got, want)
	}
}

// dumpTargets writes the targets and their fronts.
func dumpTargets(ts []*target) string {
	var lines []string
	name := func(c *sources.Config) string { return c.Kind + "/" + c.Name }
	for _, t := range ts {
		var pods, svcs []string
		for _, p := range t.Pods {
			pods = append(pods, p.Name)
		}
		for _, s := range t.Services {
			svcs = append(svcs, s.Namespace+"/"+s.Name)
		}
		lines = append(lines, fmt.Sprintf("%s/%s replicas=%d pods=%v services=%v", t.Config.Namespace, t.Config.Name, t.Replicas, pods, svcs))
		for _, f := range t.Fronts {
			s := "  " + string(f.Family)
			if f.Platform != "" {
				s += "/" + string(f.Platform)
			}
			s += fmt.Sprintf(" via %s %s/%s", f.Via.Kind, f.Via.Namespace, f.Via.Name)
			if f.Port != nil {
				s += " port " + f.Port.Name
			}
			if f.TargetType != "" {
				s += " target " + f.TargetType
			}
			if f.Standalone {
				s += " standalone"
			}
			var objs []string
			for _, c := range f.Objects.All() {
				objs = append(objs, name(c))
			}
			lines = append(lines, s+fmt.Sprintf(" objects %v", objs))
		}
	}
	return strings.Join(lines, "\n")
}

// TestServedPorts: the container ports traffic reaches are those the
// fronts use, else every port of the Services that select the pods (the
// first Service naming a port keeps it).
func TestServedPorts(t *testing.T) {
	svc := func(name string, ports ...sources.ServicePort) *sources.Config {
		return &sources.Config{Kind: "Service", Namespace: "shop", Name: name, Service: &sources.Service{Ports: ports}}
	}
	a := svc("a", sources.ServicePort{Name: "http", Port: 80, TargetPortNumber: 8080}, sources.ServicePort{Name: "unknown", Port: 81, TargetPort: "nope"})
	b := svc("b", sources.ServicePort{Name: "http", Port: 80, TargetPortNumber: 8080}, sources.ServicePort{Name: "admin", Port: 90, TargetPortNumber: 9090})
	tg := &target{wl: workload{Template: &sources.PodSpec{}}, Services: []*sources.Config{a, b}}
	show := func(m map[int]*sources.Config) string {
		var out []string
		for _, port := range []int{8080, 9090} {
			if c := m[port]; c != nil {
				out = append(out, fmt.Sprintf("%d:%s", port, c.Name))
			}
		}
		return fmt.Sprintf("%v %d", out, len(m))
	}
	if got := show(tg.servedPorts()); got != "[8080:a 9090:b] 2" {
		t.Errorf("without fronts: %s", got)
	}
	tg.Fronts = []front{{Service: b, Port: &b.Service.Ports[1]}, {Service: a, Port: &a.Service.Ports[1]}, {Service: a}}
	if got := show(tg.servedPorts()); got != "[9090:b] 1" {
		t.Errorf("with fronts: %s", got)
	}
}

// TestLinkTargetsNearMisses: an HTTPProxy that routes to another Service
// is no front of the workload, and an Envoy Gateway policy joins a route's
// front when it targets one of the route's Gateways, not another Gateway.
func TestLinkTargetsNearMisses(t *testing.T) {
	web := map[string]string{"app": "web"}
	cfgs := []*sources.Config{
		{Kind: "Deployment", Namespace: "shop", Name: "web", Workload: &sources.Workload{Selector: web, TemplateLabels: web, Template: &sources.PodSpec{}}},
		{Kind: "Service", Namespace: "shop", Name: "web", Service: &sources.Service{Selector: web,
			Ports: []sources.ServicePort{{Name: "http", Port: 80, TargetPortNumber: 8080}}}},
		{Kind: "Gateway", Namespace: "gw", Name: "public", Gateway: &sources.Gateway{Class: "eg"}},
		{Kind: "HTTPRoute", Namespace: "shop", Name: "route", HTTPRoute: &sources.HTTPRoute{
			Parents: []sources.ObjectRef{{Kind: "Gateway", Namespace: "gw", Name: "public"}},
			Rules:   []sources.HTTPRouteRule{{Backends: []sources.RouteBackend{{Name: "web", Port: 80}}}}}},
		{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "by-gateway", BackendTrafficPolicy: &sources.BackendTrafficPolicy{
			Targets: []sources.ObjectRef{{Kind: "Gateway", Namespace: "gw", Name: "public"}}}},
		{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: "other-gateway", BackendTrafficPolicy: &sources.BackendTrafficPolicy{
			Targets: []sources.ObjectRef{{Kind: "Gateway", Namespace: "gw", Name: "private"}}}},
		{Kind: "HTTPProxy", Namespace: "shop", Name: "api", HTTPProxy: &sources.HTTPProxy{Routes: []sources.HTTPProxyRoute{{Services: []sources.RouteBackend{{Name: "api", Port: 80}}}}}},
	}
	got := dumpTargets(NewObjects(cfgs).targetsOf())
	want := strings.Join([]string{
		"shop/web replicas=1 pods=[] services=[shop/web]",
		"  envoy/envoy-gateway via HTTPRoute shop/route port http objects [Service/web HTTPRoute/route Gateway/public BackendTrafficPolicy/by-gateway]",
	}, "\n")
	if got != want {
		t.Errorf("targets:\n%s\nwant:\n%s", got, want)
	}
}

package classify

import (
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

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

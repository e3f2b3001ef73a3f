package sources

import (
	"reflect"
	"testing"
	"time"
)

// Traefik's objects, written with the fields of its CRDs (traefik.io/v1alpha1,
// pkg/provider/kubernetes/crd/traefikio/v1alpha1) and of its Helm chart's
// Deployment (the flags of cmd/traefik's static configuration).

func TestK8sObjectsIngressRoute(t *testing.T) {
	for _, group := range []string{"traefik.io", "traefik.containo.us"} {
		cfg := meshConfig(t, `
apiVersion: `+group+`/v1alpha1
kind: IngressRoute
metadata: {name: web, namespace: shop}
spec:
  entryPoints: [web]
  routes:
  - match: Host(`+"`shop.example.com`"+`) && PathPrefix(`+"`/api`"+`)
    kind: Rule
    middlewares: [{name: retry}, {name: auth, namespace: infra}]
    services:
    - {name: web, port: 80, serversTransport: keepalive}
    - {name: web-v2, namespace: shop, port: http, kind: Service}
`)
		want := &IngressRoute{Routes: []IngressRouteRoute{{
			Match: "Host(`shop.example.com`) && PathPrefix(`/api`)",
			Services: []IngressRouteService{
				{Name: "web", Port: 80, ServersTransport: "keepalive"},
				{Kind: "Service", Namespace: "shop", Name: "web-v2", PortName: "http"},
			},
			Middlewares: []string{"retry", "infra/auth"},
		}}}
		if cfg.Kind != "IngressRoute" || cfg.Namespace != "shop" || !reflect.DeepEqual(cfg.IngressRoute, want) {
			t.Errorf("%s: ingress route = %+v", group, cfg.IngressRoute)
		}
	}
}

func TestK8sObjectsTraefikMiddlewareAndTransport(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: traefik.io/v1alpha1
kind: Middleware
metadata: {name: retry, namespace: shop}
spec:
  retry: {attempts: 3, initialInterval: 100ms}
`)
	if r := cfg.TraefikMiddleware.Retry; r == nil || r.Retries == nil || *r.Retries != 2 {
		t.Errorf("retry middleware = %+v (attempts 3 is two retries)", r)
	}
	cfg = meshConfig(t, `
apiVersion: traefik.io/v1alpha1
kind: Middleware
metadata: {name: strip, namespace: shop}
spec:
  stripPrefix: {prefixes: [/api]}
`)
	if cfg.TraefikMiddleware == nil || cfg.TraefikMiddleware.Retry != nil {
		t.Errorf("strip middleware = %+v", cfg.TraefikMiddleware)
	}
	for _, c := range []struct {
		value string
		want  *time.Duration
	}{{"30s", durp(30 * time.Second)}, {"45", durp(45 * time.Second)}, {"soon", nil}} {
		cfg = meshConfig(t, `
apiVersion: traefik.io/v1alpha1
kind: ServersTransport
metadata: {name: keepalive, namespace: shop}
spec:
  forwardingTimeouts: {idleConnTimeout: "`+c.value+`"}
`)
		if got := cfg.ServersTransport.IdleConnTimeout; !reflect.DeepEqual(got, c.want) {
			t.Errorf("idleConnTimeout %q = %v, want %v", c.value, got, c.want)
		}
	}
}

func TestK8sObjectsTraefikFlags(t *testing.T) {
	deployment := func(args string) *Config {
		return meshConfig(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: traefik, namespace: kube-system}
spec:
  selector: {matchLabels: {app: traefik}}
  template:
    metadata: {labels: {app: traefik}}
    spec:
      containers:
      - name: traefik
        image: rancher/mirrored-library-traefik:3.3.6
        args: `+args+`
`)
	}
	c := deployment(`["--entryPoints.web.address=:8000/tcp", "--providers.kubernetescrd.allowEmptyServices=true", "--serversTransport.forwardingTimeouts.idleConnTimeout=30s"]`)
	p := c.Workload.Template.Containers[0].Traefik
	if p == nil || !p.AllowEmptyServices || p.IdleConnTimeout == nil || *p.IdleConnTimeout != 30*time.Second {
		t.Errorf("flags = %+v", p)
	}
	c = deployment(`["--providers.kubernetesingress", "--providers.kubernetesingress.allowEmptyServices=false"]`)
	if p := c.Workload.Template.Containers[0].Traefik; p == nil || p.AllowEmptyServices || p.IdleConnTimeout != nil {
		t.Errorf("flags = %+v", p)
	}
}

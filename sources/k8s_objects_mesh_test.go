package sources

import (
	"reflect"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// Objects of Envoy-based gateways, written with the fields of each
// product's API (the sources are in k8s_objects_mesh.go's decoders and in
// docs/envoy.md).

// meshConfig decodes one YAML object and requires exactly one Config.
func meshConfig(t *testing.T, doc string) *Config {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := oneConfig(t, string(js))
	return cfg
}

func durp(d time.Duration) *time.Duration { return &d }

func TestK8sObjectsGateway(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg, namespace: default}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: https, protocol: HTTPS, port: 443, hostname: "*.example.com"}
status:
  addresses: [{type: IPAddress, value: 172.18.255.200}]
`)
	want := &Gateway{Class: "eg", Addresses: []string{"172.18.255.200"}, Listeners: []GatewayListener{
		{Name: "http", Protocol: "HTTP", Port: 80}, {Name: "https", Protocol: "HTTPS", Hostname: "*.example.com", Port: 443}}}
	if cfg.Kind != "Gateway" || cfg.Name != "eg" || !reflect.DeepEqual(cfg.Gateway, want) {
		t.Errorf("gateway = %+v", cfg.Gateway)
	}
}

func TestK8sObjectsHTTPRoute(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: eg, namespace: default, sectionName: http}]
  hostnames: [shop.example.com]
  rules:
  - backendRefs:
    - {name: web-v1, port: 8080, weight: 90}
    - {name: web-v2, port: 8080, weight: 10}
    retry: {attempts: 3, backoff: 100ms, codes: [503]}
    timeouts: {request: 10s}
  - name: static
    backendRefs: [{group: "", kind: Service, name: static, port: 80}]
`)
	want := &HTTPRoute{
		Parents:   []ObjectRef{{Namespace: "default", Name: "eg", Section: "http"}},
		Hostnames: []string{"shop.example.com"},
		Rules: []HTTPRouteRule{
			{Index: 0, Backends: []RouteBackend{{Name: "web-v1", Port: 8080, Weight: intp(90)}, {Name: "web-v2", Port: 8080, Weight: intp(10)}},
				Retry: &RouteRetry{Attempts: intp(3), Codes: []int{503}, Backoff: durp(100 * time.Millisecond)}, RequestTimeout: durp(10 * time.Second)},
			{Index: 1, Name: "static", Backends: []RouteBackend{{Kind: "Service", Name: "static", Port: 80}}},
		},
	}
	if !reflect.DeepEqual(cfg.HTTPRoute, want) {
		t.Errorf("route =\n%+v\nwant\n%+v", cfg.HTTPRoute, want)
	}
}

func TestK8sObjectsBackendTrafficPolicy(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: web, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  healthCheck:
    panicThreshold: 0
    active: {type: HTTP, http: {path: /healthz}, interval: 3s, initialJitter: 10s, timeout: 1s, unhealthyThreshold: 3, healthyThreshold: 1}
    passive: {consecutive5XxErrors: 5, consecutiveGatewayErrors: 2, interval: 2s, baseEjectionTime: 30s, maxEjectionPercent: 50}
  retry:
    numRetries: 5
    retryOn: {triggers: [connect-failure, retriable-status-codes], httpStatusCodes: [503]}
    perRetry: {timeout: 250ms}
`)
	want := &BackendTrafficPolicy{
		Targets:            []ObjectRef{{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "web"}},
		ActiveHealthCheck:  &ActiveHealthCheck{Type: "HTTP", Path: "/healthz", Interval: durp(3 * time.Second), InitialJitter: durp(10 * time.Second), Timeout: durp(time.Second), HealthyThreshold: intp(1), UnhealthyThreshold: intp(3)},
		PanicThreshold:     intp(0),
		PassiveHealthCheck: &OutlierDetection{Consecutive5xxErrors: intp(5), ConsecutiveGatewayErrors: intp(2), Interval: durp(2 * time.Second), BaseEjectionTime: durp(30 * time.Second), MaxEjectionPercent: intp(50)},
		Retry:              &ProxyRetry{Retries: intp(5), On: []string{"connect-failure", "retriable-status-codes"}, StatusCodes: []int{503}, PerTryTimeout: durp(250 * time.Millisecond)},
	}
	if !reflect.DeepEqual(cfg.BackendTrafficPolicy, want) {
		t.Errorf("policy =\n%+v\nwant\n%+v", cfg.BackendTrafficPolicy, want)
	}
	// Facts hold only what the object says: no retry policy, no defaults.
	bare := meshConfig(t, `{apiVersion: gateway.envoyproxy.io/v1alpha1, kind: BackendTrafficPolicy, metadata: {name: b}, spec: {targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: eg}}}`)
	if p := bare.BackendTrafficPolicy; p.Retry != nil || p.ActiveHealthCheck != nil || p.PassiveHealthCheck != nil || p.PanicThreshold != nil || len(p.Targets) != 1 || p.Targets[0].Kind != "Gateway" {
		t.Errorf("bare policy = %+v", p)
	}
}

func TestK8sObjectsDestinationRule(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: networking.istio.io/v1
kind: DestinationRule
metadata: {name: web, namespace: shop}
spec:
  host: web.shop.svc.cluster.local
  trafficPolicy:
    outlierDetection: {consecutive5xxErrors: 7, interval: 5m, baseEjectionTime: 15m, maxEjectionPercent: 100}
  subsets:
  - {name: v1, labels: {version: v1}}
  - name: v2
    labels: {version: v2}
    trafficPolicy: {outlierDetection: {consecutiveGatewayErrors: 1, splitExternalLocalOriginErrors: true, consecutiveLocalOriginFailures: 2}}
`)
	want := &DestinationRule{
		Host:             "web.shop.svc.cluster.local",
		OutlierDetection: &OutlierDetection{Consecutive5xxErrors: intp(7), Interval: durp(5 * time.Minute), BaseEjectionTime: durp(15 * time.Minute), MaxEjectionPercent: intp(100)},
		Subsets: []DestinationSubset{{Name: "v1", Labels: map[string]string{"version": "v1"}},
			{Name: "v2", Labels: map[string]string{"version": "v2"}, OutlierDetection: &OutlierDetection{ConsecutiveGatewayErrors: intp(1), ConsecutiveLocalOriginFailures: intp(2), SplitExternalLocalOriginErrors: boolp(true)}}},
	}
	if !reflect.DeepEqual(cfg.DestinationRule, want) {
		t.Errorf("rule =\n%+v\nwant\n%+v", cfg.DestinationRule, want)
	}
}

func TestK8sObjectsVirtualService(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: networking.istio.io/v1beta1
kind: VirtualService
metadata: {name: web, namespace: shop}
spec:
  hosts: [shop.example.com]
  gateways: [istio-system/public]
  http:
  - name: canary
    route:
    - {destination: {host: web, subset: v1, port: {number: 8080}}, weight: 90}
    - {destination: {host: web, subset: v2}, weight: 10}
    retries: {attempts: 3, perTryTimeout: 2s, retryOn: "connect-failure,refused-stream, 503"}
    timeout: 10s
  - route: [{destination: {host: static}}]
    retries: {attempts: 0}
`)
	want := &VirtualService{Hosts: []string{"shop.example.com"}, Gateways: []string{"istio-system/public"}, Routes: []VirtualServiceRoute{
		{Name: "canary", Timeout: durp(10 * time.Second),
			Destinations: []RouteBackend{{Name: "web", Subset: "v1", Port: 8080, Weight: intp(90)}, {Name: "web", Subset: "v2", Weight: intp(10)}},
			Retries:      &ProxyRetry{Retries: intp(3), On: []string{"connect-failure", "refused-stream", "503"}, PerTryTimeout: durp(2 * time.Second)},
			Raw: map[string]any{"name": "canary", "timeout": "10s",
				"route": []any{
					map[string]any{"destination": map[string]any{"host": "web", "subset": "v1", "port": map[string]any{"number": float64(8080)}}, "weight": float64(90)},
					map[string]any{"destination": map[string]any{"host": "web", "subset": "v2"}, "weight": float64(10)}},
				"retries": map[string]any{"attempts": float64(3), "perTryTimeout": "2s", "retryOn": "connect-failure,refused-stream, 503"}}},
		{Destinations: []RouteBackend{{Name: "static"}}, Retries: &ProxyRetry{Retries: intp(0)},
			Raw: map[string]any{"route": []any{map[string]any{"destination": map[string]any{"host": "static"}}}, "retries": map[string]any{"attempts": float64(0)}}},
	}}
	if !reflect.DeepEqual(cfg.VirtualService, want) {
		t.Errorf("service =\n%+v\nwant\n%+v", cfg.VirtualService, want)
	}
}

func TestK8sObjectsHTTPProxy(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: projectcontour.io/v1
kind: HTTPProxy
metadata: {name: web, namespace: shop}
spec:
  virtualhost: {fqdn: shop.example.com}
  routes:
  - conditions: [{header: {name: x-canary, present: true}}, {prefix: /api}]
    services: [{name: web, port: 80, weight: 90}, {name: web-canary, port: 80, weight: 10}]
    healthCheckPolicy: {path: /healthz, intervalSeconds: 5, timeoutSeconds: 2, unhealthyThresholdCount: 3, healthyThresholdCount: 5}
    retryPolicy: {count: 3, perTryTimeout: 150ms, retryOn: [reset, 5xx], retriableStatusCodes: [503]}
    timeoutPolicy: {response: 1s}
`)
	want := &HTTPProxy{FQDN: "shop.example.com", Routes: []HTTPProxyRoute{{
		Prefix:          "/api",
		Services:        []RouteBackend{{Name: "web", Port: 80, Weight: intp(90)}, {Name: "web-canary", Port: 80, Weight: intp(10)}},
		HealthCheck:     &ActiveHealthCheck{Type: "HTTP", Path: "/healthz", Interval: durp(5 * time.Second), Timeout: durp(2 * time.Second), HealthyThreshold: intp(5), UnhealthyThreshold: intp(3)},
		Retry:           &ProxyRetry{Retries: intp(3), On: []string{"reset", "5xx"}, StatusCodes: []int{503}, PerTryTimeout: durp(150 * time.Millisecond)},
		ResponseTimeout: durp(time.Second),
		Raw: map[string]any{
			"conditions":        []any{map[string]any{"header": map[string]any{"name": "x-canary", "present": true}}, map[string]any{"prefix": "/api"}},
			"services":          []any{map[string]any{"name": "web", "port": float64(80), "weight": float64(90)}, map[string]any{"name": "web-canary", "port": float64(80), "weight": float64(10)}},
			"healthCheckPolicy": map[string]any{"path": "/healthz", "intervalSeconds": float64(5), "timeoutSeconds": float64(2), "unhealthyThresholdCount": float64(3), "healthyThresholdCount": float64(5)},
			"retryPolicy":       map[string]any{"count": float64(3), "perTryTimeout": "150ms", "retryOn": []any{"reset", "5xx"}, "retriableStatusCodes": []any{float64(503)}},
			"timeoutPolicy":     map[string]any{"response": "1s"}},
	}}}
	if !reflect.DeepEqual(cfg.HTTPProxy, want) {
		t.Errorf("proxy =\n%+v\nwant\n%+v", cfg.HTTPProxy, want)
	}
}

func TestK8sObjectsIstioMeshConfig(t *testing.T) {
	cfg := meshConfig(t, `
apiVersion: v1
kind: ConfigMap
metadata: {name: istio, namespace: istio-system}
data:
  mesh: |-
    accessLogFile: /dev/stdout
    defaultConfig:
      terminationDrainDuration: 20s
      holdApplicationUntilProxyStarts: true
      proxyMetadata:
        EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"
        MINIMUM_DRAIN_DURATION: 5s
`)
	want := &IstioProxyConfig{TerminationDrainDuration: durp(20 * time.Second), HoldApplicationUntilProxyStarts: boolp(true),
		ExitOnZeroActiveConnections: boolp(true), MinimumDrainDuration: durp(5 * time.Second)}
	if cfg.Kind != "ConfigMap" || !reflect.DeepEqual(cfg.IstioMesh, want) {
		t.Errorf("mesh = %+v", cfg.IstioMesh)
	}
	// Other ConfigMaps are no fact; a mesh without defaultConfig says nothing.
	for _, doc := range []string{
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: app-settings}, data: {mesh: "defaultConfig: {}"}}`,
		`{apiVersion: v1, kind: ConfigMap, metadata: {name: istio-ca-root-cert}, data: {root-cert.pem: x}}`,
	} {
		js, _ := yaml.YAMLToJSON([]byte(doc))
		if c, rep := runJSON(t, k8sObjects{}, "cm.json", string(js)); len(c.configs) != 0 || rep.Skipped != 0 {
			t.Errorf("%s: configs %d skipped %d", doc, len(c.configs), rep.Skipped)
		}
	}
	rev := meshConfig(t, `{apiVersion: v1, kind: ConfigMap, metadata: {name: istio-1-24, namespace: istio-system}, data: {mesh: "accessLogFile: /dev/stdout"}}`)
	if rev.IstioMesh == nil || *rev.IstioMesh != (IstioProxyConfig{}) {
		t.Errorf("revision mesh = %+v", rev.IstioMesh)
	}
}

func TestK8sObjectsIstioSidecar(t *testing.T) {
	// An injected pod with a native sidecar, the annotation and the
	// injector's environment.
	pod := meshConfig(t, `
apiVersion: v1
kind: Pod
metadata:
  name: web-1
  namespace: shop
  annotations:
    sidecar.istio.io/nativeSidecar: "true"
    proxy.istio.io/config: |
      terminationDrainDuration: 30s
      proxyMetadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: "true"}
spec:
  initContainers:
  - name: istio-proxy
    restartPolicy: Always
    env:
    - {name: PROXY_CONFIG, value: '{"terminationDrainDuration":"30s","holdApplicationUntilProxyStarts":true}'}
    - {name: EXIT_ON_ZERO_ACTIVE_CONNECTIONS, value: "true"}
    - {name: POD_NAME, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
  containers:
  - {name: app, image: web}
`)
	want := &IstioSidecar{Container: true, Native: true, NativeSidecar: "true",
		Annotation:     &IstioProxyConfig{TerminationDrainDuration: durp(30 * time.Second), ExitOnZeroActiveConnections: boolp(true)},
		AnnotationText: "terminationDrainDuration: 30s\nproxyMetadata: {EXIT_ON_ZERO_ACTIVE_CONNECTIONS: \"true\"}\n",
		Injected:       &IstioProxyConfig{TerminationDrainDuration: durp(30 * time.Second), HoldApplicationUntilProxyStarts: boolp(true), ExitOnZeroActiveConnections: boolp(true)}}
	if !reflect.DeepEqual(pod.PodSpec.Istio, want) {
		t.Errorf("pod sidecar =\n%+v\nwant\n%+v", pod.PodSpec.Istio, want)
	}
	// An older injection: a regular container and the drain in seconds.
	old := meshConfig(t, `
apiVersion: v1
kind: Pod
metadata: {name: web-2}
spec:
  containers:
  - {name: app}
  - name: istio-proxy
    env: [{name: TERMINATION_DRAIN_DURATION_SECONDS, value: "5"}]
`)
	if s := old.PodSpec.Istio; s == nil || !s.Container || s.Native || s.Annotation != nil ||
		!reflect.DeepEqual(s.Injected, &IstioProxyConfig{TerminationDrainDuration: durp(5 * time.Second)}) {
		t.Errorf("old sidecar = %+v", s)
	}
	// A Deployment's template asks for injection; no container yet.
	dep := meshConfig(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
      annotations: {sidecar.istio.io/inject: "true", proxy.istio.io/config: "holdApplicationUntilProxyStarts: true"}
    spec:
      containers: [{name: app}]
`)
	if s := dep.Workload.Template.Istio; s == nil || s.Container || s.Inject != "true" || s.Annotation == nil ||
		s.Annotation.HoldApplicationUntilProxyStarts == nil || !*s.Annotation.HoldApplicationUntilProxyStarts {
		t.Errorf("template sidecar = %+v", s)
	}
	// No sign of Istio: no fact.
	plain := meshConfig(t, `{apiVersion: v1, kind: Pod, metadata: {name: web-3}, spec: {containers: [{name: app}]}}`)
	if plain.PodSpec.Istio != nil {
		t.Errorf("plain pod sidecar = %+v", plain.PodSpec.Istio)
	}
}

func TestK8sObjectsMeshMalformed(t *testing.T) {
	for _, doc := range []string{
		`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"x"},"spec":{"rules":[{"backendRefs":[{"name":1}]}]}}`,
		`{"apiVersion":"networking.istio.io/v1","kind":"DestinationRule","metadata":{"name":"x"},"spec":{"host":["a"]}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"istio"},"data":{"mesh":"defaultConfig: [unclosed"}}`,
	} {
		if c, rep := runJSON(t, k8sObjects{}, "bad.json", doc); rep.Skipped != 1 || len(c.configs) != 0 {
			t.Errorf("%.60s: skipped %d configs %d", doc, rep.Skipped, len(c.configs))
		}
	}
}

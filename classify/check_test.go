package classify

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/readygap/readygap/sources"
)

// objectsOfYAML reads manifests through the sources pipeline, as check does.
func objectsOfYAML(t testing.TB, docs ...string) *Objects {
	t.Helper()
	p := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(p, []byte(strings.Join(docs, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return objectsOfPaths(t, p)
}

// objectsOfPaths reads the Kubernetes objects of paths in file-and-line order.
func objectsOfPaths(t testing.TB, paths ...string) *Objects {
	t.Helper()
	var mu sync.Mutex
	var configs []*sources.Config
	_, err := sources.Read(context.Background(), paths, sources.Options{}, func(*sources.InputReport) sources.Handler {
		return configFunc(func(c *sources.Config) {
			cp := *c
			mu.Lock()
			configs = append(configs, &cp)
			mu.Unlock()
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(configs, func(i, j int) bool {
		a, b := configs[i].Origin, configs[j].Origin
		return a.File < b.File || (a.File == b.File && a.Line < b.Line)
	})
	return NewObjects(configs)
}

// configFunc is a sources.Handler that hands every configuration fact to a function.
type configFunc func(*sources.Config)

func (configFunc) Request(*sources.Request)     {}
func (configFunc) Lifecycle(*sources.Lifecycle) {}
func (f configFunc) Config(c *sources.Config)   { f(c) }

// rules returns the rule ids of risks, sorted, each once.
func rules(risks []*Risk) string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range risks {
		if !seen[r.RuleID()] {
			seen[r.RuleID()] = true
			ids = append(ids, r.RuleID())
		}
	}
	sort.Strings(ids)
	return strings.Join(ids, " ")
}

// riskOf returns the one risk of a rule; it fails the test when there is not exactly one.
func riskOf(t testing.TB, risks []*Risk, rule string) *Risk {
	t.Helper()
	var found []*Risk
	for _, r := range risks {
		if r.RuleID() == rule {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d risks of %s in %s", len(found), rule, rules(risks))
	}
	return found[0]
}

// has reports whether risks include one of the rule.
func has(risks []*Risk, rule string) bool {
	for _, r := range risks {
		if r.RuleID() == rule {
			return true
		}
	}
	return false
}

// wantText fails the test unless s contains every part.
func wantText(t testing.TB, what, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%s lacks %q:\n%s", what, p, s)
		}
	}
}

// fixesText renders a risk's fixes as titles, whys and YAML.
func fixesText(t testing.TB, r *Risk) string {
	var b strings.Builder
	for _, f := range r.Fixes {
		b.WriteString(f.Title + "\n" + f.Why + "\n" + patchText(t, f.Patch))
	}
	return b.String()
}

// deployment is a Deployment manifest with the given spec lines (indented
// two spaces under spec) and pod template lines (under template.spec).
func deployment(name, spec, podSpec string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: shop
spec:
  selector:
    matchLabels:
      app: ` + name + `
` + indent(spec, "  ") + `
  template:
    metadata:
      labels:
        app: ` + name + `
    spec:
` + indent(podSpec, "      ")
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// webContainer serves on 8080 (http), has an admin port 9090 and a
// readiness probe on the given port.
func webContainer(probePort string, extra string) string {
	return `containers:
  - name: web
    ports:
      - name: http
        containerPort: 8080
      - name: admin
        containerPort: 9090
    readinessProbe:
      httpGet:
        path: /ready
        port: ` + probePort + `
` + indent(extra, "    ")
}

// service selects app: name and sends port 80 to targetPort http, and
// 9100 to the admin port.
func service(name, annotations string) string {
	return `apiVersion: v1
kind: Service
metadata:
  name: ` + name + `
  namespace: shop
  annotations:
    x: "y"
` + indent(annotations, "    ") + `
spec:
  selector:
    app: ` + name + `
  ports:
    - name: http
      port: 80
      targetPort: http
    - name: admin
      port: 9100
      targetPort: admin`
}

// albIngress routes to the Service's http port through an ALB with the
// given annotations.
func albIngress(name, annotations string) string {
	return `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: ` + name + `
  namespace: shop
  annotations:
    alb.ingress.kubernetes.io/scheme: internal
` + indent(annotations, "    ") + `
spec:
  ingressClassName: alb
  defaultBackend:
    service:
      name: ` + name + `
      port:
        name: http`
}

const namespaceShop = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop"

// TestCheckALBReadinessGate pins minReadySeconds against interval ×
// threshold + 10 s on both sides, and what makes the gate work: the
// namespace label, a gate in the template, instance targets (no gate needed).
func TestCheckALBReadinessGate(t *testing.T) {
	ing := albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/healthcheck-interval-seconds: \"10\"\nalb.ingress.kubernetes.io/healthy-threshold-count: \"3\"")
	preStop := "lifecycle:\n  preStop:\n    sleep:\n      seconds: 15"
	for _, c := range []struct {
		name, minReady, ns, ing, extraPod string
		want                              string
		sev                               Severity
	}{
		{"10 s × 3 + 10 s is 40: 39 is short", "minReadySeconds: 39", namespaceShop, ing, "", "registration_lag/alb-readiness-gate", SeverityError},
		{"40 covers it", "minReadySeconds: 40", namespaceShop, ing, "", "", ""},
		{"namespace not read", "minReadySeconds: 0", "", ing, "", "registration_lag/alb-readiness-gate", SeverityWarning},
		{"namespace labelled", "minReadySeconds: 0", namespaceShop + "\n  labels:\n    elbv2.k8s.aws/pod-readiness-gate-inject: enabled", ing, "", "", ""},
		{"gate in the template", "minReadySeconds: 0", namespaceShop, ing, "readinessGates:\n  - conditionType: target-health.elbv2.k8s.aws/k8s-shop-web-0123456789", "", ""},
		{"instance targets", "minReadySeconds: 0", namespaceShop, albIngress("web", "alb.ingress.kubernetes.io/target-type: instance"), "", "", ""},
		{"no target type: the controller's instance default", "minReadySeconds: 0", namespaceShop, albIngress("web", ""), "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := []string{deployment("web", "replicas: 3\n"+c.minReady, webContainer("http", preStop)+"\nterminationGracePeriodSeconds: 35\n"+c.extraPod), service("web", ""), c.ing}
			if c.ns != "" {
				docs = append(docs, c.ns)
			}
			risks := Check(objectsOfYAML(t, docs...))
			if got := rules(risks); got != c.want {
				t.Fatalf("risks %q, want %q", got, c.want)
			}
			if c.want == "" {
				return
			}
			r := riskOf(t, risks, c.want)
			if r.Severity != c.sev {
				t.Errorf("severity %s, want %s", r.Severity, c.sev)
			}
			wantText(t, "reason", r.Reason, "10 s × 3 = 30 s", "below the 40 s", "Ingress shop/web", "target-type ip")
			wantText(t, "fixes", fixesText(t, r), "elbv2.k8s.aws/pod-readiness-gate-inject: enabled", "minReadySeconds: 40")
			if (c.ns != "") != (r.Object.Kind == "Namespace") {
				t.Errorf("points at %s; want the Namespace when it was read", objectKey(r.Object))
			}
		})
	}
}

// TestCheckALBServiceAnnotationsWin checks that the Service's ALB
// annotations override the Ingress's, as the controller applies them, and
// that a TargetGroupBinding's target group has AWS's defaults.
func TestCheckALBServiceAnnotationsWin(t *testing.T) {
	dep := deployment("web", "replicas: 2", webContainer("http", ""))
	ing := albIngress("web", "alb.ingress.kubernetes.io/target-type: instance\nalb.ingress.kubernetes.io/healthcheck-interval-seconds: \"30\"")
	svc := service("web", "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/healthcheck-interval-seconds: \"5\"")
	r := riskOf(t, Check(objectsOfYAML(t, dep, svc, ing, namespaceShop)), "registration_lag/alb-readiness-gate")
	wantText(t, "reason", r.Reason, "5 s × 2 = 10 s", "below the 20 s", "Service shop/web annotations")

	tgb := "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: web-tg\n  namespace: shop\nspec:\n  targetType: ip\n  serviceRef:\n    name: web\n    port: 80\n  targetGroupARN: arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/web/0123456789abcdef"
	r = riskOf(t, Check(objectsOfYAML(t, dep, service("web", ""), tgb, namespaceShop)), "registration_lag/alb-readiness-gate")
	wantText(t, "reason", r.Reason, "TargetGroupBinding shop/web-tg sends ALB traffic", "30 s × 5 = 150 s", "below the 160 s", "AWS's defaults")
}

// TestCheckNEGZoneMove pins replicas against zones (the Service's NEG
// status, else 3) on both sides, the topology spread that makes a zone
// move impossible, and minReadySeconds that covers the check anyway.
func TestCheckNEGZoneMove(t *testing.T) {
	bc := "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: web-hc\n  namespace: shop\nspec:\n  healthCheck:\n    checkIntervalSec: 20\n    healthyThreshold: 2"
	ing := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\nspec:\n  defaultBackend:\n    service:\n      name: web\n      port:\n        number: 80"
	neg := "cloud.google.com/neg: '{\"ingress\": true}'\ncloud.google.com/backend-config: '{\"ports\": {\"http\": \"web-hc\"}}'"
	twoZones := neg + "\ncloud.google.com/neg-status: '{\"network_endpoint_groups\":{\"80\":\"k8s1-web\"},\"zones\":[\"europe-west1-b\",\"europe-west1-c\"]}'"
	spread := "topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: topology.kubernetes.io/zone\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector:\n      matchLabels:\n        app: web"
	for _, c := range []struct {
		name, spec, svc, pod string
		fires                bool
	}{
		{"2 replicas, 3 zones assumed", "replicas: 2", neg, "", true},
		{"3 replicas, 3 zones assumed", "replicas: 3", neg, "", false},
		{"1 replica, 2 zones in the status", "replicas: 1", twoZones, "", true},
		{"2 replicas, 2 zones in the status", "replicas: 2", twoZones, "", false},
		{"spread over zones", "replicas: 1", neg, spread, false},
		{"20 s × 2 + 10 s is 50: 49 is short", "replicas: 1\nminReadySeconds: 49", neg, "", true},
		{"50 covers it", "replicas: 1\nminReadySeconds: 50", neg, "", false},
		{"instance groups", "replicas: 1", "cloud.google.com/neg: '{\"ingress\": false}'", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dep := deployment("web", c.spec, webContainer("http", "lifecycle:\n  preStop:\n    sleep:\n      seconds: 15")+"\n"+c.pod+"\nterminationGracePeriodSeconds: 35")
			risks := Check(objectsOfYAML(t, dep, service("web", c.svc), ing, bc))
			if has(risks, "registration_lag/neg-zone-move") != c.fires {
				t.Fatalf("risks %q; want neg-zone-move: %v", rules(risks), c.fires)
			}
			if !c.fires {
				return
			}
			r := riskOf(t, risks, "registration_lag/neg-zone-move")
			wantText(t, "reason", r.Reason, "20 s × 2 = 40 s", "below the 50 s", "BackendConfig shop/web-hc", "ingress-gce#1718")
			// The fixes are those of the incident: a 5 s interval, minReadySeconds for it, replicas over the zones.
			wantText(t, "fixes", fixesText(t, r), "checkIntervalSec: 5", "minReadySeconds: 20", "replicas: 3", "topologyKey: topology.kubernetes.io/zone")
		})
	}
}

// TestCheckStandaloneNEG checks that a standalone NEG, which gets no
// readiness gate, needs minReadySeconds for its health check (GKE's 15 s ×
// 1 by default).
func TestCheckStandaloneNEG(t *testing.T) {
	dep := deployment("web", "replicas: 3\nminReadySeconds: 24", webContainer("http", ""))
	risks := Check(objectsOfYAML(t, dep, service("web", "cloud.google.com/neg: '{\"exposed_ports\": {\"80\": {}}}'")))
	r := riskOf(t, risks, "registration_lag/neg-readiness-gate")
	wantText(t, "reason", r.Reason, "exposes port 80 as a standalone NEG", "15 s × 1 = 15 s", "below the 25 s")
	if r.Object.Kind != "Service" {
		t.Errorf("points at %s, want the Service", objectKey(r.Object))
	}
	dep = deployment("web", "replicas: 3\nminReadySeconds: 25", webContainer("http", ""))
	if risks := Check(objectsOfYAML(t, dep, service("web", "cloud.google.com/neg: '{\"exposed_ports\": {\"80\": {}}}'"))); has(risks, "registration_lag/neg-readiness-gate") {
		t.Errorf("25 s covers 15 s × 1 + 10 s: %s", rules(risks))
	}
}

// TestCheckEnvoyGatewayHealthCheck pins minReadySeconds against Envoy
// Gateway's initial jitter + interval + 10 s.
func TestCheckEnvoyGatewayHealthCheck(t *testing.T) {
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  parentRefs:\n    - name: eg\n  rules:\n    - backendRefs:\n        - name: web\n          port: 80"
	policy := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: web-hc\n  namespace: shop\nspec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: HTTPRoute\n      name: web\n  healthCheck:\n    active:\n      type: HTTP\n      http:\n        path: /ready\n      interval: 4s\n      initialJitter: 6s"
	for minReady, fires := range map[int]bool{19: true, 20: false} {
		dep := deployment("web", "replicas: 2\nminReadySeconds: "+itoa(minReady), webContainer("http", ""))
		risks := Check(objectsOfYAML(t, dep, service("web", ""), route, policy))
		if has(risks, "registration_lag/min-ready-seconds") != fires {
			t.Fatalf("minReadySeconds %d: risks %q", minReady, rules(risks))
		}
		if fires {
			r := riskOf(t, risks, "registration_lag/min-ready-seconds")
			wantText(t, "reason", r.Reason, "6 s + 4 s = 10 s", "below the 20 s", "BackendTrafficPolicy shop/web-hc")
			wantText(t, "fixes", fixesText(t, r), "initialJitter: 1s", "minReadySeconds: 15")
		}
	}
	// Without an active health check Envoy sends to an endpoint once it has it.
	dep := deployment("web", "replicas: 2", webContainer("http", ""))
	if risks := Check(objectsOfYAML(t, dep, service("web", ""), route)); has(risks, "registration_lag/min-ready-seconds") {
		t.Errorf("no health check, no wait: %s", rules(risks))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRolloutFloor pins how maxSurge and maxUnavailable resolve, as the
// Deployment controller rounds them.
func TestRolloutFloor(t *testing.T) {
	for _, c := range []struct {
		replicas                 int
		strategy, surge, unavail string
		floor                    int
	}{
		{1, "", "", "", 1},         // 25 % of 1: surge 1 (up), unavailable 0 (down)
		{4, "", "", "", 3},         // 25 % of 4 is 1
		{3, "", "", "", 3},         // 25 % of 3 rounds down to 0
		{1, "", "0", "25%", 0},     // both 0: unavailable becomes 1
		{2, "", "1", "1", 1},       // one of two may go
		{1, "", "1", "1", 0},       // the only one may go
		{4, "", "25%", "75%", 1},   // 3 of 4
		{4, "", "25%", "100%", 0},  // all of them
		{3, "Recreate", "", "", 0}, // every pod stops first
	} {
		if got, _ := rolloutFloor(c.replicas, c.strategy, c.surge, c.unavail); got != c.floor {
			t.Errorf("%d replicas, %q, surge %q, unavailable %q: keeps %d, want %d", c.replicas, c.strategy, c.surge, c.unavail, got, c.floor)
		}
	}
	dep := deployment("web", "replicas: 1\nstrategy:\n  rollingUpdate:\n    maxSurge: 0\n    maxUnavailable: 1", webContainer("http", ""))
	r := riskOf(t, Check(objectsOfYAML(t, dep, service("web", ""))), "registration_lag/max-unavailable")
	wantText(t, "reason", r.Reason, "1 replica", "maxUnavailable 1 (1 of 1) with maxSurge 0", "Service shop/web has no endpoint")
	wantText(t, "fix", fixesText(t, r), "maxUnavailable: 0", "maxSurge: 1")
	// Nothing sends it traffic: nothing to lose.
	if risks := Check(objectsOfYAML(t, dep)); len(risks) != 0 {
		t.Errorf("no Service: %s", rules(risks))
	}
}

// TestCheckProbePorts checks the probe ports against the port the
// load balancer's traffic reaches: the Ingress backend's Service port,
// through its named targetPort; every Service port when nothing routes.
func TestCheckProbePorts(t *testing.T) {
	nginx := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  ingressClassName: nginx\n  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http"
	for _, c := range []struct {
		name, probe, extra string
		ingress            bool
		want               string
	}{
		{"probe on the serving port by name", "http", "", true, ""},
		{"probe on the serving port by number", "8080", "", true, ""},
		{"probe on the admin port", "admin", "", true, "wrong_probe_port/readiness-probe-port wrong_probe_port/startup-probe-missing"},
		{"probe on the admin port, with a startupProbe", "9090", "startupProbe:\n  httpGet:\n    path: /ready\n    port: http", true, "wrong_probe_port/readiness-probe-port"},
		// Without an Ingress every Service port counts, the admin one too.
		{"admin port a Service sends to", "admin", "", false, ""},
		{"startupProbe on the admin port", "http", "startupProbe:\n  tcpSocket:\n    port: admin", true, "wrong_probe_port/startup-probe-port"},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := []string{deployment("web", "replicas: 2", webContainer(c.probe, c.extra)), service("web", "")}
			if c.ingress {
				docs = append(docs, nginx)
			}
			var probe []*Risk
			for _, r := range Check(objectsOfYAML(t, docs...)) {
				if r.Cause == wrongProbePortCause.ID {
					probe = append(probe, r)
				}
			}
			if got := rules(probe); got != c.want {
				t.Fatalf("risks %q, want %q", got, c.want)
			}
			if has(probe, "wrong_probe_port/readiness-probe-port") {
				r := riskOf(t, probe, "wrong_probe_port/readiness-probe-port")
				wantText(t, "reason", r.Reason, "readinessProbe httpGet on port 9090 (admin)", "Service shop/web sends the load balancer's traffic to port 8080 (http)")
				wantText(t, "fix", fixesText(t, r), "port: http", "path: /ready", `by its name, "http" (8080)`)
			}
			if has(probe, "wrong_probe_port/startup-probe-missing") {
				wantText(t, "fix", fixesText(t, riskOf(t, probe, "wrong_probe_port/startup-probe-missing")), "failureThreshold: 30", "periodSeconds: 2", "up to 50 s")
			}
			if has(probe, "wrong_probe_port/startup-probe-port") {
				r := riskOf(t, probe, "wrong_probe_port/startup-probe-port")
				if r.Severity != SeverityWarning {
					t.Errorf("a readiness probe on the right port still guards: severity %s", r.Severity)
				}
				wantText(t, "reason", r.Reason, "startupProbe tcpSocket on port 9090 (admin)")
			}
		})
	}
}

// TestCheckPreStop pins the preStop sleep against each load balancer's
// stop propagation + 5 s (10 s at the least) on both sides, and the
// grace period against the sleep + the kubelet's 2 s minimum shutdown.
func TestCheckPreStop(t *testing.T) {
	fronts := map[string]string{
		"alb":   albIngress("web", "alb.ingress.kubernetes.io/target-type: ip") + "\n---\n" + namespaceShop + "\n  labels:\n    elbv2.k8s.aws/pod-readiness-gate-inject: enabled",
		"nginx": "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  ingressClassName: nginx\n  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http",
		"gce":   "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\nspec:\n  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http",
	}
	for _, c := range []struct {
		front        string
		sleep, grace int
		want         string
		sev          Severity
	}{
		{"alb", 14, 60, "termination_race/prestop", SeverityError}, // 10 s + 5 s
		{"alb", 15, 60, "", ""},
		{"gce", 14, 60, "termination_race/prestop", SeverityError},
		{"gce", 15, 60, "", ""},
		{"nginx", 9, 60, "termination_race/prestop", SeverityError}, // 5 s + 5 s is 10 s, the least
		{"nginx", 10, 60, "", ""},
		{"nginx", 10, 12, "termination_race/grace-period", SeverityError}, // 10 s + the kubelet's 2 s
		{"nginx", 10, 13, "", ""},
		{"nginx", 10, 10, "termination_race/grace-period", SeverityError}, // killed as the sleep ends
		{"alb", 15, 30, "", ""},                                           // seed 004's fix: 15 s left after SIGTERM
		{"nginx", 0, 60, "termination_race/prestop", SeverityError},
	} {
		hook := ""
		if c.sleep > 0 {
			hook = "lifecycle:\n  preStop:\n    exec:\n      command: [\"sh\", \"-c\", \"sleep " + itoa(c.sleep) + "\"]"
		}
		dep := deployment("web", "replicas: 3\nminReadySeconds: 60", webContainer("http", hook)+"\nterminationGracePeriodSeconds: "+itoa(c.grace))
		var got []*Risk
		for _, r := range Check(objectsOfYAML(t, dep, service("web", ""), fronts[c.front])) {
			if r.Cause == terminationRaceCause.ID {
				got = append(got, r)
			}
		}
		if rules(got) != c.want {
			t.Errorf("%s, sleep %d, grace %d: risks %q, want %q", c.front, c.sleep, c.grace, rules(got), c.want)
			continue
		}
		if c.want != "" && got[0].Severity != c.sev {
			t.Errorf("%s, sleep %d, grace %d: severity %s, want %s", c.front, c.sleep, c.grace, got[0].Severity, c.sev)
		}
	}
	// A hook that is not a sleep takes a time the objects do not say.
	dep := deployment("web", "replicas: 3", webContainer("http", "lifecycle:\n  preStop:\n    httpGet:\n      path: /drain\n      port: http"))
	if risks := Check(objectsOfYAML(t, dep, service("web", ""), fronts["nginx"])); has(risks, "termination_race/prestop") {
		t.Errorf("an HTTP preStop hook was judged: %s", rules(risks))
	}
	// The fixes: the sleep, the grace period it needs, ALB's deregistration delay when set shorter.
	dep = deployment("web", "replicas: 3", webContainer("http", ""))
	alb := albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds=20")
	r := riskOf(t, Check(objectsOfYAML(t, dep, service("web", ""), alb, namespaceShop)), "termination_race/prestop")
	wantText(t, "reason", r.Reason, "no preStop hook", "about 10 s", "15 s")
	wantText(t, "fixes", fixesText(t, r), "seconds: 15", "terminationGracePeriodSeconds: 45", "deregistration_delay.timeout_seconds=45")
	// The grace-period risk proposes the sleep + 30 s, and neither fix is
	// itself flagged.
	dep = deployment("web", "replicas: 3", webContainer("http", "lifecycle:\n  preStop:\n    sleep:\n      seconds: 15")+"\nterminationGracePeriodSeconds: 16")
	r = riskOf(t, Check(objectsOfYAML(t, dep, service("web", ""), albIngress("web", "alb.ingress.kubernetes.io/target-type: ip"), namespaceShop)), "termination_race/grace-period")
	wantText(t, "grace-period risk", r.Reason+fixesText(t, r), "leaves the app 1 s after SIGTERM", "terminationGracePeriodSeconds: 45")
	dep = deployment("web", "replicas: 3", webContainer("http", "lifecycle:\n  preStop:\n    sleep:\n      seconds: 15")+"\nterminationGracePeriodSeconds: 45")
	for _, r := range Check(objectsOfYAML(t, dep, service("web", ""), alb, namespaceShop)) {
		if r.Cause == terminationRaceCause.ID {
			t.Errorf("the proposed fix is flagged: %s: %s", r.RuleID(), r.Reason)
		}
	}
}

// TestCheckIstioDrain checks that a classic sidecar draining shorter than
// the preStop sleep + 5 s is found, and a long enough drain is not.
func TestCheckIstioDrain(t *testing.T) {
	vs := "apiVersion: networking.istio.io/v1\nkind: VirtualService\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  hosts: [web.example.com]\n  http:\n    - route:\n        - destination:\n            host: web\n            port:\n              number: 80"
	for drain, fires := range map[string]bool{"": true, "19s": true, "20s": false} {
		ann := "sidecar.istio.io/inject: \"true\""
		if drain != "" {
			ann += "\nproxy.istio.io/config: |\n  terminationDrainDuration: " + drain
		}
		dep := strings.Replace(deployment("web", "replicas: 2", webContainer("http", "lifecycle:\n  preStop:\n    sleep:\n      seconds: 15")+"\nterminationGracePeriodSeconds: 60"),
			"      labels:\n        app: web\n    spec:", "      labels:\n        app: web\n      annotations:\n"+indent(ann, "        ")+"\n    spec:", 1)
		risks := Check(objectsOfYAML(t, dep, service("web", ""), vs))
		if has(risks, "termination_race/istio-drain") != fires {
			t.Errorf("drain %q: risks %q", drain, rules(risks))
		}
	}
}

// TestCheckKeepalive pins the app's keep-alive against the load balancer's
// idle timeout on both sides.
func TestCheckKeepalive(t *testing.T) {
	for _, c := range []struct {
		name, args, annotation string
		fires                  bool
	}{
		{"gunicorn's 2 s default under ALB's 60 s", `["gunicorn", "-k", "gthread", "app:app"]`, "", true},
		{"59 s", `["gunicorn", "-k", "gthread", "--keep-alive", "59", "app:app"]`, "", true},
		{"60 s", `["gunicorn", "-k", "gthread", "--keep-alive", "60", "app:app"]`, "", false},
		{"45 s under an idle timeout of 30 s", `["gunicorn", "-k", "gthread", "--keep-alive", "45", "app:app"]`, "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=30", false},
		// gunicorn's default sync worker closes every connection after
		// its response: there is no idle connection to race.
		{"gunicorn's sync worker", `["gunicorn", "--keep-alive", "2", "app:app"]`, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dep := deployment("web", "replicas: 2", webContainer("http", "command: "+c.args))
			ing := albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\n"+c.annotation)
			risks := Check(objectsOfYAML(t, dep, service("web", ""), ing))
			if has(risks, "keepalive_timeout/keepalive") != c.fires {
				t.Fatalf("risks %q", rules(risks))
			}
			if c.fires {
				r := riskOf(t, risks, "keepalive_timeout/keepalive")
				wantText(t, "reason", r.Reason, "gunicorn closes idle keep-alive connections", "up to 60 s")
				wantText(t, "fixes", fixesText(t, r), "65")
			}
		})
	}
}

// TestChecksShareTheIncidentsFixes checks, on the recreated GKE incident,
// that the static check proposes the very changes the analysis of its
// logs does: same helpers, same numbers, but for minReadySeconds, which
// the incident sizes from what it measured (18 s) and the check, which
// measures nothing, from its model of the zone move (15 s for a pod Ready
// 11 s after its IP).
func TestChecksShareTheIncidentsFixes(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "gke-neg-zone-move")
	_, findings := analyzeDir(t, dir)
	if len(findings) != 1 {
		t.Fatalf("%d findings", len(findings))
	}
	r := riskOf(t, Check(objectsOfPaths(t, filepath.Join(dir, "objects.yaml"), filepath.Join(dir, "backendconfig.yaml"))), "registration_lag/neg-zone-move")
	want := map[string]string{}
	for _, f := range findings[0].Remediation {
		if strings.Contains(f.Title, "(minReadySeconds)") {
			wantText(t, "the incident's minReadySeconds fix", f.Title+" "+f.Why, "Keep old pods for 18 s", "Sized from what was measured")
			continue
		}
		want[f.Title] = patchText(t, f.Patch)
	}
	for _, f := range r.Fixes {
		if strings.Contains(f.Title, "(minReadySeconds)") {
			wantText(t, "the check's minReadySeconds fix", f.Title, "Keep old pods for 15 s")
			continue
		}
		if w, ok := want[f.Title]; !ok || w != patchText(t, f.Patch) {
			t.Errorf("static fix %q:\n%s\nthe incident's:\n%s", f.Title, patchText(t, f.Patch), w)
		}
	}
	if len(r.Fixes) != 3 {
		t.Errorf("%d fixes, want the interval, minReadySeconds and the zone spread", len(r.Fixes))
	}
}

// TestStaticChecksRegistry checks that every rule declares checks with ids,
// names and descriptions, each rule id once.
func TestStaticChecksRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, rc := range StaticChecks() {
		if seen[rc.RuleID] || rc.Check.ID == "" || rc.Check.Name == "" || rc.Check.Description == "" {
			t.Errorf("bad check %+v", rc)
		}
		seen[rc.RuleID] = true
	}
	for _, r := range Rules {
		if len(r.Cause().Checks) == 0 {
			t.Errorf("%s has no static check", r.Cause().ID)
		}
	}
}

// TestObjectKey: static-check risks are told apart by their workload's
// kind, namespace and name; a risk without a workload has an empty key.
func TestObjectKey(t *testing.T) {
	if got := objectKey(nil); got != "" {
		t.Errorf("no object: %q", got)
	}
	if got := objectKey(&sources.Config{Kind: "Deployment", Namespace: "shop", Name: "web"}); got != "Deployment/shop/web" {
		t.Errorf("a Deployment: %q", got)
	}
}

package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// workloadNamed returns the workload of the Deployment named name.
func workloadNamed(t testing.TB, objs *Objects, name string) workload {
	t.Helper()
	for _, d := range objs.ConfigsOf("Deployment") {
		if d.Name == name {
			return workloadOf(d)
		}
	}
	t.Fatalf("no Deployment %s", name)
	return workload{}
}

// risksOf returns the rule's risks for the Deployment named name.
func risksOf(risks []*Risk, rule, name string) []*Risk {
	var out []*Risk
	for _, r := range risks {
		if r.RuleID() == rule && r.Workload.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// albTwoWorkloads are two workloads behind two ALB Ingresses: billing
// first, whose Ingress checks every 30 s and passes a target after 3
// checks, then web with the annotations given on its Service and Ingress.
func albTwoWorkloads(t *testing.T, webService, webIngress string) *Objects {
	t.Helper()
	billingIngress := "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/healthcheck-interval-seconds: \"30\"\nalb.ingress.kubernetes.io/healthy-threshold-count: \"3\""
	return objectsOfYAML(t,
		deployment("billing", "replicas: 2", webContainer("http", "")), service("billing", ""), albIngress("billing", billingIngress),
		deployment("web", "replicas: 2", webContainer("http", "")), service("web", webService),
		albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\n"+webIngress), namespaceShop)
}

// TestALBHealthCheckPerWorkload checks that a workload's ALB health check
// comes from its own Service and Ingress, never the other workload's read
// first, number by number with the Service's annotation over the
// Ingress's (each side of the precedence), after an incident and before a
// deploy alike, and that the minReadySeconds fix carries those numbers.
func TestALBHealthCheckPerWorkload(t *testing.T) {
	const interval, healthy = "alb.ingress.kubernetes.io/healthcheck-interval-seconds", "alb.ingress.kubernetes.io/healthy-threshold-count"
	for _, c := range []struct {
		name, svc, ing string
		interval       int
		healthy        int
		source         string
	}{
		{"nothing set: the controller's defaults", "", "", 15, 2, "the platform defaults (15 s × 2; assumed default: not in the inputs)"},
		{"the Ingress alone", "", interval + ": \"10\"\n" + healthy + ": \"4\"", 10, 4, "the Ingress shop/web annotations"},
		{"the Service alone", interval + ": \"5\"\n" + healthy + ": \"3\"", "", 5, 3, "the Service shop/web annotations"},
		{"the Service's interval over the Ingress's", interval + ": \"5\"", interval + ": \"10\"\n" + healthy + ": \"4\"", 5, 4,
			"the Service shop/web and Ingress shop/web annotations"},
		{"the Service's threshold over the Ingress's", healthy + ": \"3\"", interval + ": \"10\"\n" + healthy + ": \"4\"", 10, 3,
			"the Service shop/web and Ingress shop/web annotations"},
		{"the Service's both over the Ingress's", interval + ": \"5\"\n" + healthy + ": \"3\"", interval + ": \"10\"\n" + healthy + ": \"4\"", 5, 3,
			"the Service shop/web annotations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs := albTwoWorkloads(t, c.svc, c.ing)
			required := c.interval*c.healthy + int(minReadyMargin.Seconds())
			// After an incident: every object read.
			hc := workloadHealthCheck(objs, workloadNamed(t, objs, "web"), sources.FamilyALB)
			if hc.IntervalSec != c.interval || hc.HealthyThreshold != c.healthy || hc.Source() != c.source {
				t.Errorf("web: %d s × %d from %s, want %d s × %d from %s", hc.IntervalSec, hc.HealthyThreshold, hc.Source(), c.interval, c.healthy, c.source)
			}
			if other := workloadHealthCheck(objs, workloadNamed(t, objs, "billing"), sources.FamilyALB); other.IntervalSec != 30 || other.HealthyThreshold != 3 {
				t.Errorf("billing: %d s × %d, want its own 30 s × 3", other.IntervalSec, other.HealthyThreshold)
			}
			plan := planMinReady(sources.FamilyALB, hc, workloadNamed(t, objs, "web"))
			fix := minReadyFix(plan.Basis, hc, plan.MinReady, workloadNamed(t, objs, "web"), 0)
			wantText(t, "the incident's fix", fix.Title+"\n"+patchText(t, fix.Patch), "minReadySeconds: "+itoa(required), "Keep old pods for "+itoa(required)+" s")
			// Before a deploy: the same numbers, each workload its own.
			risks := Check(objs)
			web := risksOf(risks, "registration_lag/alb-readiness-gate", "web")
			billing := risksOf(risks, "registration_lag/alb-readiness-gate", "billing")
			if len(web) != 1 || len(billing) != 1 {
				t.Fatalf("%d readiness-gate risks for web, %d for billing; want one each: %s", len(web), len(billing), rules(risks))
			}
			wantText(t, "web's risk", web[0].Reason+fixesText(t, web[0]), itoa(c.interval)+" s × "+itoa(c.healthy), "by "+c.source, "minReadySeconds: "+itoa(required))
			wantText(t, "billing's risk", billing[0].Reason+fixesText(t, billing[0]), "30 s × 3", "Ingress shop/billing annotations", "minReadySeconds: 100")
		})
	}
}

// TestALBHealthCheckOfTheIncident runs the whole analysis on the ALB
// seed (api/api-admin, whose Ingress checks every 15 s × 2) with the
// objects of another workload read first, whose Ingress checks every 30 s
// × 3: the registration-lag fix is sized on the incident's workload.
func TestALBHealthCheckOfTheIncident(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "fixtures", "eks-alb-no-gate")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	other := strings.ReplaceAll(strings.Join([]string{
		deployment("billing", "replicas: 2", webContainer("http", "")), service("billing", ""),
		albIngress("billing", "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/healthcheck-interval-seconds: \"30\"\nalb.ingress.kubernetes.io/healthy-threshold-count: \"3\""),
	}, "\n---\n"), "namespace: shop", "namespace: api")
	if err := os.WriteFile(filepath.Join(dir, "aaa-billing.yaml"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	_, vs := analyzeDir(t, dir)
	if len(vs) != 1 || vs[0].Cause != registrationLagCause.ID {
		t.Fatalf("verdicts %+v, want one registration lag", vs)
	}
	var fixes string
	for _, f := range vs[0].Remediation {
		fixes += f.Title + "\n" + f.Why + "\n" + patchText(t, f.Patch)
	}
	// 15 s × 2 + 10 s is 40; the incident measured 35 s from a new pod's
	// Ready to its first response: 41 with the 5 s margin.
	wantText(t, "fixes", fixes, "15 s × 2 + 10 s", "Ingress api/api-admin annotations", "minReadySeconds: 41", "measured: at least 35 s")
	if strings.Contains(fixes, "billing") || strings.Contains(fixes, "30 s × 3") {
		t.Errorf("the fixes use the other workload's health check:\n%s", fixes)
	}
}

// TestALBControllerMadeBinding checks a TargetGroupBinding the AWS Load
// Balancer Controller made for an Ingress: with the Ingress read it is
// the Ingress's path, one risk with the Ingress's numbers; without it,
// its target group still has the annotations' numbers (the Service's,
// else the controller's defaults), not AWS's defaults for a target group
// made outside the cluster.
func TestALBControllerMadeBinding(t *testing.T) {
	tgb := "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: k8s-shop-web-0123456789\n  namespace: shop\n  labels:\n    ingress.k8s.aws/stack-namespace: shop\n    ingress.k8s.aws/stack-name: web\nspec:\n  targetType: ip\n  serviceRef:\n    name: web\n    port: 80\n  targetGroupARN: arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web/0123456789abcdef"
	dep := deployment("web", "replicas: 2", webContainer("http", ""))
	ing := albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/healthcheck-interval-seconds: \"10\"")
	risks := risksOf(Check(objectsOfYAML(t, dep, service("web", ""), ing, tgb, namespaceShop)), "registration_lag/alb-readiness-gate", "web")
	if len(risks) != 1 || risks[0].Via.Kind != "Ingress" {
		t.Fatalf("%d risks, want one through the Ingress", len(risks))
	}
	wantText(t, "reason", risks[0].Reason, "10 s × 2 = 20 s", "Ingress shop/web annotations")
	for svc, want := range map[string]string{
		"": "15 s × 2 = 30 s",
		"alb.ingress.kubernetes.io/healthcheck-interval-seconds: \"5\"": "5 s × 2 = 10 s",
	} {
		r := riskOf(t, Check(objectsOfYAML(t, dep, service("web", svc), tgb, namespaceShop)), "registration_lag/alb-readiness-gate")
		wantText(t, "reason without the Ingress", r.Reason, "TargetGroupBinding shop/k8s-shop-web-0123456789", want)
		if strings.Contains(r.Reason, "30 s × 5") {
			t.Errorf("a controller-made target group with AWS's defaults for one made outside:\n%s", r.Reason)
		}
	}
}

// gkeTwoPorts is a workload of 2 replicas without a preStop hook whose
// Service names fast-hc for its http port and slow-hc for every other
// port, behind a GKE Ingress to the given port; bcs are the BackendConfig
// manifests read beside it.
func gkeTwoPorts(t *testing.T, port string, bcs ...string) *Objects {
	t.Helper()
	ing := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\nspec:\n  defaultBackend:\n    service:\n      name: web\n      port:\n        " + port
	neg := "cloud.google.com/neg: '{\"ingress\": true}'\ncloud.google.com/backend-config: '{\"default\": \"slow-hc\", \"ports\": {\"http\": \"fast-hc\"}}'"
	dep := deployment("web", "replicas: 2", webContainer("http", ""))
	return objectsOfYAML(t, append([]string{dep, service("web", neg), ing}, bcs...)...)
}

// backendConfig is a BackendConfig manifest checking every interval
// seconds.
func backendConfig(name string, interval int) string {
	return "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  healthCheck:\n    checkIntervalSec: " + itoa(interval) + "\n    healthyThreshold: 1"
}

// TestGKEBackendConfigPerPort checks the BackendConfig of a path: the
// Service's ports entry for the port the Ingress uses, by name or by
// number, over its default; the default for a port not listed; after an
// incident and before a deploy alike.
func TestGKEBackendConfigPerPort(t *testing.T) {
	bcs := []string{backendConfig("slow-hc", 30), backendConfig("fast-hc", 10)}
	for _, c := range []struct {
		port, want string
		interval   int
	}{
		{"name: http", "fast-hc", 10},
		{"number: 80", "fast-hc", 10},
		{"name: admin", "slow-hc", 30},
	} {
		objs := gkeTwoPorts(t, c.port, bcs...)
		hc := workloadHealthCheck(objs, workloadNamed(t, objs, "web"), sources.FamilyGCP)
		if hc.Name != c.want || hc.IntervalSec != c.interval {
			t.Errorf("port %s: %d s from %s, want %d s from %s", c.port, hc.IntervalSec, hc.Source(), c.interval, c.want)
		}
		r := riskOf(t, Check(objs), "registration_lag/neg-zone-move")
		wantText(t, "port "+c.port+": the static check", r.Reason+fixesText(t, r), itoa(c.interval)+" s × 1", "BackendConfig shop/"+c.want, "name: "+c.want)
	}
}

// TestBackendConfigNamedButNotRead checks that when the Service names a
// BackendConfig that is not among the inputs, the fixes after an incident
// and before a deploy both patch it by its name, with GKE's defaults for
// its numbers, not a placeholder.
func TestBackendConfigNamedButNotRead(t *testing.T) {
	objs := gkeTwoPorts(t, "name: http")
	wl := workloadNamed(t, objs, "web")
	// After an incident.
	hc := workloadHealthCheck(objs, wl, sources.FamilyGCP)
	if hc.IntervalSec != gkeDefaultInterval || hc.Kind != "" {
		t.Errorf("health check %d s from %s, want GKE's defaults", hc.IntervalSec, hc.Source())
	}
	plan := planMinReady(sources.FamilyGCP, hc, wl)
	if plan.Faster == nil || patchedName(*plan.Faster) != "BackendConfig shop/fast-hc" {
		t.Fatalf("faster check %+v, want a patch of BackendConfig shop/fast-hc", plan.Faster)
	}
	var drain string
	for _, f := range terminationFixes(objs, wl, nil, 2*time.Second, 0, 30, sources.FamilyGCP, "") {
		if strings.HasPrefix(f.Title, "Drain connections") {
			drain = patchedName(f)
		}
	}
	if drain != "BackendConfig shop/fast-hc" {
		t.Errorf("the incident's drain fix patches %q, want BackendConfig shop/fast-hc", drain)
	}
	// Before a deploy.
	risks := Check(objs)
	for _, rule := range []string{"registration_lag/neg-zone-move", "termination_race/prestop"} {
		fixes := fixesText(t, riskOf(t, risks, rule))
		wantText(t, rule+"'s fixes", fixes, "kind: BackendConfig", "name: fast-hc")
		if strings.Contains(fixes, placeholderName("BackendConfig")) {
			t.Errorf("%s patches a placeholder:\n%s", rule, fixes)
		}
	}
}

// TestEnvoyGatewayPolicyPerRoute checks which BackendTrafficPolicy sets a
// route's active health check: one that targets the route wins over one
// that targets its Gateway, whole (a route policy without a health check
// leaves the route unchecked), and a route without its own takes the
// Gateway's; two workloads behind two routes each get their own.
func TestEnvoyGatewayPolicyPerRoute(t *testing.T) {
	route := func(name string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  parentRefs:\n    - name: eg\n  rules:\n    - backendRefs:\n        - name: " + name + "\n          port: 80"
	}
	policy := func(name, kind, target, healthCheck string) string {
		return "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n  targetRefs:\n    - group: gateway.networking.k8s.io\n      kind: " + kind + "\n      name: " + target + "\n" + healthCheck
	}
	active := func(interval, jitter int) string {
		return "  healthCheck:\n    active:\n      type: HTTP\n      http:\n        path: /ready\n      interval: " + itoa(interval) + "s\n      initialJitter: " + itoa(jitter) + "s"
	}
	gateway := policy("aaa-gateway", "Gateway", "eg", active(9, 20))
	docs := []string{
		deployment("web", "replicas: 2", webContainer("http", "")), service("web", ""), route("web"),
		deployment("api", "replicas: 2", webContainer("http", "")), service("api", ""), route("api"),
		deployment("cart", "replicas: 2", webContainer("http", "")), service("cart", ""), route("cart"),
		gateway, policy("web-hc", "HTTPRoute", "web", active(4, 6)), policy("cart-retries", "HTTPRoute", "cart", "  retry:\n    numRetries: 2"),
	}
	objs := objectsOfYAML(t, docs...)
	risks := Check(objs)
	for name, want := range map[string]string{
		"web":  "BackendTrafficPolicy shop/web-hc",      // its route's, over the Gateway's
		"api":  "BackendTrafficPolicy shop/aaa-gateway", // the Gateway's
		"cart": "no active health check",                // its route's, which checks nothing
	} {
		hc := workloadHealthCheck(objs, workloadNamed(t, objs, name), sources.FamilyEnvoy)
		if !strings.HasPrefix(hc.Source(), want) {
			t.Errorf("%s: health check from %s, want %s", name, hc.Source(), want)
		}
		mine := risksOf(risks, "registration_lag/min-ready-seconds", name)
		if (len(mine) == 1) != (name != "cart") {
			t.Errorf("%s: %d min-ready-seconds risks", name, len(mine))
			continue
		}
		if len(mine) == 1 {
			wantText(t, name+"'s risk", mine[0].Reason+fixesText(t, mine[0]), want, "name: "+strings.TrimPrefix(want, "BackendTrafficPolicy shop/"))
		}
	}
}

// TestLoneHealthCheck checks the health check when the objects hold no
// path to a Service (no Service read): the slowest that an object states
// alone, so that a fix covers whichever is the workload's; a BackendConfig
// is patched by name only when it is the one read.
func TestLoneHealthCheck(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	ings := objectsOfYAML(t,
		albIngress("fast", "alb.ingress.kubernetes.io/healthcheck-interval-seconds: \"5\""),
		albIngress("slow", "alb.ingress.kubernetes.io/healthcheck-interval-seconds: \"20\""))
	if hc := workloadHealthCheck(ings, wl, sources.FamilyALB); hc.IntervalSec != 20 || hc.Name != "slow" {
		t.Errorf("two Ingresses: %d s from %s, want the slower 20 s of Ingress shop/slow", hc.IntervalSec, hc.Source())
	}
	if hc := workloadHealthCheck(NewObjects(nil), wl, sources.FamilyALB); hc.IntervalSec != albDefaultInterval || hc.HealthyThreshold != albDefaultHealthy || hc.Kind != "" {
		t.Errorf("no objects: %s, want the controller's defaults", hc.Source())
	}
	one := objectsOfYAML(t, backendConfig("web-hc", 10))
	if hc := workloadHealthCheck(one, wl, sources.FamilyGCP); hc.IntervalSec != 10 || hc.BackendConfig.Name != "web-hc" {
		t.Errorf("one BackendConfig: %d s, patching %q; want 10 s, patching web-hc", hc.IntervalSec, hc.BackendConfig.Name)
	}
	two := objectsOfYAML(t, backendConfig("web-hc", 10), backendConfig("other-hc", 30))
	if hc := workloadHealthCheck(two, wl, sources.FamilyGCP); hc.IntervalSec != 30 || hc.BackendConfig.known() {
		t.Errorf("two BackendConfigs: %d s, patching %q; want the slower 30 s, patching neither", hc.IntervalSec, hc.BackendConfig.Name)
	}
}

// TestFindWorkloadByTheRolloutsName checks that a rollout's workload is
// looked up by its name: the one Deployment read stands in only when no
// name is known, not for a rollout of another workload.
func TestFindWorkloadByTheRolloutsName(t *testing.T) {
	a := &correlate.Analysis{Dataset: &correlate.Dataset{Configs: []*sources.Config{{Kind: "Deployment", Namespace: "shop", Name: "other"}}}}
	if wl := findWorkload(a, &correlate.Rollout{Namespace: "shop", Workload: "web"}, nil); wl.Known || wl.Name != "web" {
		t.Errorf("rollout of web: workload %+v, want web, unknown", wl)
	}
	if wl := findWorkload(a, nil, nil); !wl.Known || wl.Name != "other" {
		t.Errorf("no rollout: workload %+v, want the one Deployment, other", wl)
	}
}

// albCheck are ALB annotations setting the health check to 10 s × 3.
const albCheck = "alb.ingress.kubernetes.io/healthcheck-interval-seconds: \"10\"\nalb.ingress.kubernetes.io/healthy-threshold-count: \"3\""

// TestALBHealthCheckTieKeepsTheFirst checks that among ALB paths, or
// lone objects, whose health checks take as long, the first one's is
// quoted.
func TestALBHealthCheckTieKeepsTheFirst(t *testing.T) {
	objs := objectsOfYAML(t, append(twoWorkloads(), ingressTo("web-a", "alb", "web", albCheck), ingressTo("web-b", "alb", "web", albCheck))...)
	if hc := workloadHealthCheck(objs, workloadNamed(t, objs, "web"), sources.FamilyALB); hc.Time().Seconds() != 30 || hc.Name != "web-a" {
		t.Errorf("workload web: %s %s/%s, %v; want Ingress web-a's 30 s", hc.Kind, hc.Namespace, hc.Name, hc.Time())
	}
	if hc := loneHealthCheck(objs, sources.FamilyALB); hc.Time().Seconds() != 30 || hc.Name != "web-a" {
		t.Errorf("lone: %s %s/%s, %v; want Ingress web-a's 30 s", hc.Kind, hc.Namespace, hc.Name, hc.Time())
	}
}

// TestALBLoneHealthCheckFromAService checks that a Service's ALB
// annotations count when no path links the objects.
func TestALBLoneHealthCheckFromAService(t *testing.T) {
	objs := objectsOfYAML(t, service("web", albCheck))
	if hc := loneHealthCheck(objs, sources.FamilyALB); hc.Kind != "Service" || hc.Name != "web" || hc.IntervalSec != 10 || hc.HealthyThreshold != 3 {
		t.Errorf("health check %+v, want Service web's 10 s × 3", hc)
	}
}

// TestBackendConfigOfPathsPrefersOneRead checks that among the paths'
// BackendConfigs the first one read is taken over one named but not read.
func TestBackendConfigOfPathsPrefersOneRead(t *testing.T) {
	neg := func(bc string) string {
		return "cloud.google.com/neg: '{\"ingress\": true}'\ncloud.google.com/backend-config: '{\"default\": \"" + bc + "\"}'"
	}
	gce := func(name, svc string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: " + name + "\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\n" +
			"spec:\n  defaultBackend:\n    service:\n      name: " + svc + "\n      port:\n        number: 80"
	}
	webB := strings.Replace(service("web", neg("web-hc")), "  name: web\n", "  name: web-b\n", 1)
	objs := objectsOfYAML(t, deployment("web", "replicas: 2", webContainer("http", "")),
		service("web", neg("gone-hc")), gce("aaa-ing", "web"), webB, gce("web-ing", "web-b"), backendConfig("web-hc", 10))
	fronts := workloadFronts(objs, workloadNamed(t, objs, "web"))
	if ref := backendConfigOfPaths(fronts); ref.Name != "web-hc" || ref.Config == nil {
		t.Errorf("BackendConfig %s (read: %v) of %d paths, want web-hc, read", ref.Name, ref.Config != nil, len(fronts))
	}
}

// TestPathsOfEveryService checks that the objects' paths include those to
// a Service no workload read selects.
func TestPathsOfEveryService(t *testing.T) {
	objs := objectsOfYAML(t, service("web", ""), ingressTo("web-a", "alb", "web", ""))
	if ps := objs.paths(); len(ps) != 1 || ps[0].Via.Name != "web-a" || ps[0].Service.Name != "web" {
		t.Errorf("%d paths, want Ingress web-a to Service web", len(ps))
	}
}

// variantAnalysis is an analysis holding the objects of one variant.
func variantAnalysis(t *testing.T, name string) *correlate.Analysis {
	objs := objectsOfPaths(t, filepath.Join("testdata", "variants", name))
	configs := append([]*sources.Config{{Kind: "Deployment", Namespace: "shop", Name: "other"}}, objs.All()...)
	return &correlate.Analysis{Dataset: &correlate.Dataset{Configs: configs}}
}

// incidentFixes are the fixes of an incident on wl's pods that patch its
// own spec: the registration lag's, the probe port's and the termination
// race's, finished as a finding's are.
func incidentFixes(a *correlate.Analysis, wl workload) []Fix {
	objs := objectsOf(a)
	hc := workloadHealthCheck(objs, wl, sources.FamilyALB)
	plan := planMinReady(sources.FamilyALB, hc, wl)
	fixes := []Fix{minReadyFix(plan.Basis, hc, plan.MinReady, wl, 40*time.Second)}
	fixes = append(fixes, zoneSpreadFix(wl, []string{"us-east-1a", "us-east-1b"}, 0)...)
	fixes = append(fixes, rolloutStrategyFix(wl)...)
	fixes = append(fixes, wrongProbePortFixes(wl, nil, "", 8080, "http", 20*time.Second)...)
	fixes = append(fixes, terminationFixes(objs, wl, wl.Template, 12*time.Second, 0, 30, sources.FamilyALB, "")...)
	finishFixes(fixes)
	return fixes
}

// TestFindWorkloadOfStatefulSetPods checks that an incident on a
// StatefulSet's pods is patched on the StatefulSet: found by the pods'
// names (NAME-ORDINAL) or their owner, not the one Deployment read nor a
// <deployment> placeholder, and patched without the strategy, maxSurge or
// progressDeadlineSeconds a StatefulSet lacks; every patch applies to the
// StatefulSet as read.
func TestFindWorkloadOfStatefulSetPods(t *testing.T) {
	a := variantAnalysis(t, "statefulset.yaml")
	byName := []BackendRef{{Of: &correlate.Backend{Namespace: "shop", Pod: "db-api-1"}}}
	if wl := findWorkload(a, nil, byName); !wl.Known || wl.Kind != "StatefulSet" || wl.Name != "db-api" || wl.Serving != "db-api" {
		t.Errorf("pod db-api-1: workload %s %s (known %v, serving %q), want StatefulSet db-api", wl.Kind, wl.Name, wl.Known, wl.Serving)
	}
	owned := &sources.Config{Kind: "Pod", Namespace: "shop", Name: "renamed-7", Pod: &sources.PodStatus{StatefulSet: "db-api"}}
	a.Configs = append(a.Configs, owned)
	byOwner := []BackendRef{{Of: &correlate.Backend{Namespace: "shop", Pod: "renamed-7"}}}
	if wl := findWorkload(a, nil, byOwner); wl.Kind != "StatefulSet" || wl.Name != "db-api" {
		t.Errorf("pod owned by db-api: workload %s %s, want StatefulSet db-api", wl.Kind, wl.Name)
	}
	// A StatefulSet not read, which a pod read names as its owner.
	alone := &correlate.Analysis{Dataset: &correlate.Dataset{Configs: []*sources.Config{{Kind: "Deployment", Namespace: "shop", Name: "other"}, owned}}}
	if wl := findWorkload(alone, nil, byOwner); wl.Known || wl.Kind != "StatefulSet" || wl.Name != "db-api" || deploymentPatch(wl, nil)["kind"] != "StatefulSet" {
		t.Errorf("pod owned by db-api, not read: workload %s %s (known %v), want StatefulSet db-api", wl.Kind, wl.Name, wl.Known)
	}
	// A Deployment's pod (a ReplicaSet's 5-character suffix) is not taken
	// for a StatefulSet's.
	if got := statefulSetName("db-api-7f9c4"); got != "" {
		t.Errorf("statefulSetName(db-api-7f9c4) = %q, want none", got)
	}
	wl := findWorkload(a, nil, byName)
	if spec, note := withMinReady(wl, map[string]any{}, 700); spec["progressDeadlineSeconds"] != nil || note != "" {
		t.Errorf("a StatefulSet's minReadySeconds 700 raised a progressDeadlineSeconds it lacks: %v %q", spec, note)
	}
	raw := rawObjects(t, filepath.Join("testdata", "variants", "statefulset.yaml"))
	n := 0
	for _, f := range incidentFixes(a, wl) {
		if f.Patch == nil || !slices.Contains(workloadKinds, f.Patch["kind"].(string)) {
			continue
		}
		n++
		text := patchText(t, f.Patch)
		if f.Patch["kind"] != "StatefulSet" || f.Patch["apiVersion"] != "apps/v1" || strings.Contains(text, "strategy") || strings.Contains(text, "maxSurge") || strings.Contains(text, "progressDeadlineSeconds") || strings.Contains(text, "pod-template-hash") {
			t.Errorf("%s: not a StatefulSet's patch:\n%s", f.Title, text)
		}
		for _, p := range patchProblems(f, raw) {
			t.Errorf("%s: %s\n%s", f.Title, p, text)
		}
	}
	if n < 4 {
		t.Errorf("%d fixes patch the StatefulSet, want the minReadySeconds, spread, probe and preStop ones", n)
	}
}

// TestFindWorkloadOfArgoRolloutPods checks that an incident on an Argo
// Rollout's pods is patched on the Rollout (argoproj.io/v1alpha1, a JSON
// merge patch): never as a Deployment, never with a rollingUpdate; its
// container changes, which a merge patch would make by replacing the
// containers list, shown as templates that say why; each patch decodes
// into a Rollout's fields and applies to the Rollout as read. A Rollout
// not read keeps its kind and name from the records.
func TestFindWorkloadOfArgoRolloutPods(t *testing.T) {
	a := variantAnalysis(t, "rollout.yaml")
	r := &correlate.Rollout{Namespace: "shop", Workload: "checkout", Kind: correlate.KindArgoRollout}
	wl := findWorkload(a, r, nil)
	if !wl.Known || wl.Kind != correlate.KindArgoRollout || wl.Name != "checkout" || wl.Serving != "app" {
		t.Fatalf("rollout of Rollout checkout: workload %s %s (known %v, serving %q)", wl.Kind, wl.Name, wl.Known, wl.Serving)
	}
	raw := rawObjects(t, filepath.Join("testdata", "variants", "rollout.yaml"))
	n, templates, merge := 0, 0, 0
	for _, f := range incidentFixes(a, wl) {
		if f.Patch == nil || !slices.Contains(workloadKinds, f.Patch["kind"].(string)) {
			continue
		}
		n++
		text := patchText(t, f.Patch)
		if f.Patch["kind"] != correlate.KindArgoRollout || f.Patch["apiVersion"] != argoRolloutAPIVersion || f.Patch.Builtin() || strings.Contains(text, "rollingUpdate") || strings.Contains(text, "RollingUpdate") {
			t.Errorf("%s: not a Rollout's merge patch:\n%s", f.Title, text)
		}
		switch {
		case mergedContainers(f.Patch):
			templates++
			if !f.Template || !strings.Contains(f.Why, "replace its whole containers list") {
				t.Errorf("%s: a container change of a Rollout not shown as a template that says why: %s", f.Title, f.Why)
			}
		case f.Template:
			t.Errorf("%s: a template, though it names no container: %s", f.Title, f.Why)
		default:
			merge++
			if !strings.Contains(f.Why, "kubectl patch rollout checkout -n shop --type merge") {
				t.Errorf("%s: the command does not merge-patch the Rollout: %s", f.Title, f.Why)
			}
		}
		for _, p := range patchProblems(f, raw) {
			t.Errorf("%s: %s\n%s", f.Title, p, text)
		}
	}
	if templates < 2 || merge < 3 {
		t.Errorf("%d Rollout fixes, %d container templates and %d merge patches; want the probe and preStop templates and the minReadySeconds, spread and canary ones", n, templates, merge)
	}
	// A Rollout not read: its kind and name from the records.
	gone := &correlate.Analysis{Dataset: &correlate.Dataset{Configs: []*sources.Config{{Kind: "Deployment", Namespace: "shop", Name: "other"}}}}
	if wl := findWorkload(gone, r, nil); wl.Known || wl.Kind != correlate.KindArgoRollout || wl.Name != "checkout" || deploymentPatch(wl, nil)["apiVersion"] != argoRolloutAPIVersion {
		t.Errorf("Rollout not read: workload %s %s (known %v)", wl.Kind, wl.Name, wl.Known)
	}
}

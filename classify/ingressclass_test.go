package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// ingressClass is an IngressClass of the AWS Load Balancer Controller,
// naming the IngressClassParams params ("" for none), marked default or not.
func ingressClass(name, params string, isDefault bool) string {
	s := "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: " + name + "\n"
	if isDefault {
		s += "  annotations:\n    ingressclass.kubernetes.io/is-default-class: \"true\"\n"
	}
	s += "spec:\n  controller: ingress.k8s.aws/alb\n"
	if params != "" {
		s += "  parameters:\n    apiGroup: elbv2.k8s.aws\n    kind: IngressClassParams\n    name: " + params + "\n"
	}
	return s
}

// classParams is an IngressClassParams with the given spec lines.
func classParams(name, spec string) string {
	return "apiVersion: elbv2.k8s.aws/v1beta1\nkind: IngressClassParams\nmetadata:\n  name: " + name + "\nspec:\n" + indent(spec, "  ")
}

// paramsIdle120 sets the idle timeout to 120 s among other attributes.
const paramsIdle120 = "loadBalancerAttributes:\n  - key: deletion_protection.enabled\n    value: \"true\"\n  - key: idle_timeout.timeout_seconds\n    value: \"120\""

// ingressOfClass is an Ingress web in shop routing to Service web with the
// given class lines under spec (ingressClassName) and annotations.
func ingressOfClass(name, classLine, annotations string) string {
	return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: " + name + "\n  namespace: shop\n  annotations:\n    alb.ingress.kubernetes.io/target-type: ip\n" +
		indent(annotations, "    ") + "\nspec:\n" + indent(classLine, "  ") + "\n  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http"
}

// TestALBIdleTimeoutPrecedence resolves the idle timeout of the ALB of
// Ingress web as the AWS Load Balancer Controller does: IngressClassParams
// over the annotation key by key, the annotation of any Ingress of the
// IngressGroup, the default class for an Ingress naming none, nothing
// through the legacy class annotation or another controller's class, and
// never a Service's annotation.
func TestALBIdleTimeoutPrecedence(t *testing.T) {
	const idle30 = "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=30"
	for _, c := range []struct {
		name    string
		docs    []string
		seconds float64
		source  string
	}{
		{"the ALB default", []string{ingressOfClass("web", "ingressClassName: alb", "")}, 60, "the ALB default"},
		{"the annotation", []string{ingressOfClass("web", "ingressClassName: alb", idle30)}, 30, "Ingress shop/web alb.ingress.kubernetes.io/load-balancer-attributes"},
		{"IngressClassParams over the annotation", []string{ingressOfClass("web", "ingressClassName: shared", idle30), ingressClass("shared", "shared-params", false), classParams("shared-params", paramsIdle120)},
			120, "IngressClassParams shared-params loadBalancerAttributes"},
		{"IngressClassParams without the key", []string{ingressOfClass("web", "ingressClassName: shared", idle30), ingressClass("shared", "shared-params", false),
			classParams("shared-params", "loadBalancerAttributes:\n  - key: deletion_protection.enabled\n    value: \"true\"")}, 30, "Ingress shop/web"},
		{"the default class for an Ingress naming none", []string{ingressOfClass("web", "rules: []", ""), ingressClass("shared", "shared-params", true), classParams("shared-params", paramsIdle120)},
			120, "IngressClassParams shared-params"},
		{"two default classes: none is given", []string{ingressOfClass("web", "rules: []", ""), ingressClass("shared", "shared-params", true), ingressClass("other", "", true),
			classParams("shared-params", paramsIdle120)}, 60, "the ALB default"},
		{"the legacy class annotation comes first", []string{ingressOfClass("web", "ingressClassName: shared", "kubernetes.io/ingress.class: alb"), ingressClass("shared", "shared-params", false),
			classParams("shared-params", paramsIdle120)}, 60, "the ALB default"},
		{"another controller's class", []string{ingressOfClass("web", "ingressClassName: shared", ""),
			strings.Replace(ingressClass("shared", "shared-params", false), "ingress.k8s.aws/alb", "example.com/ingress", 1), classParams("shared-params", paramsIdle120)}, 60, "the ALB default"},
		{"parameters of another kind", []string{ingressOfClass("web", "ingressClassName: shared", ""),
			strings.Replace(ingressClass("shared", "shared-params", false), "kind: IngressClassParams", "kind: ConfigMap", 1), classParams("shared-params", paramsIdle120)}, 60, "the ALB default"},
		{"another Ingress of the group", []string{ingressOfClass("web", "ingressClassName: alb", "alb.ingress.kubernetes.io/group.name: shop"),
			ingressOfClass("api", "ingressClassName: alb", "alb.ingress.kubernetes.io/group.name: shop\n"+strings.Replace(idle30, "=30", "=90", 1))}, 90, "Ingress shop/api"},
		{"an Ingress of another group", []string{ingressOfClass("web", "ingressClassName: alb", "alb.ingress.kubernetes.io/group.name: shop"),
			ingressOfClass("api", "ingressClassName: alb", "alb.ingress.kubernetes.io/group.name: other\n"+idle30)}, 60, "the ALB default"},
		{"the group of the IngressClassParams", []string{ingressOfClass("web", "ingressClassName: shared", ""), ingressOfClass("api", "ingressClassName: shared", idle30),
			ingressClass("shared", "shared-params", false), classParams("shared-params", "group:\n  name: shop")}, 30, "Ingress shop/api"},
		{"a Service's annotation", []string{ingressOfClass("web", "ingressClassName: alb", ""),
			service("web", "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=300\nservice.beta.kubernetes.io/aws-load-balancer-attributes: idle_timeout.timeout_seconds=300")}, 60, "the ALB default"},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs := objectsOfYAML(t, c.docs...)
			var web *Timeout
			for _, ing := range objs.ConfigsOf("Ingress") {
				if ing.Name == "web" {
					lb := albIdleTimeoutOf(objs, ing)
					web = &lb
				}
			}
			if web == nil || web.Seconds != c.seconds || !strings.Contains(web.Source, c.source) {
				t.Errorf("idle timeout %+v, want %g s from %q", web, c.seconds, c.source)
			}
		})
	}
}

// TestALBIdleFix checks where the load-balancer side of the keep-alive fix
// lowers the idle timeout: in the IngressClassParams that set it (its
// whole attribute list, cluster-scoped), else in the annotation of the
// Ingress, keeping its other attributes.
func TestALBIdleFix(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	objs := objectsOfYAML(t, ingressOfClass("web", "ingressClassName: shared", "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=30"),
		ingressClass("shared", "shared-params", false), classParams("shared-params", paramsIdle120))
	web := objs.ConfigsOf("Ingress")[0]
	got := patchText(t, albIdleFix(albIdleTimeoutOf(objs, web), wl, 74).Patch)
	want := `apiVersion: elbv2.k8s.aws/v1beta1
kind: IngressClassParams
metadata:
  name: shared-params
spec:
  loadBalancerAttributes:
  - key: deletion_protection.enabled
    value: "true"
  - key: idle_timeout.timeout_seconds
    value: "74"
`
	if got != want {
		t.Errorf("IngressClassParams patch:\n%s\nwant:\n%s", got, want)
	}
	objs = objectsOfYAML(t, ingressOfClass("web", "ingressClassName: alb", "alb.ingress.kubernetes.io/load-balancer-attributes: deletion_protection.enabled=true, idle_timeout.timeout_seconds=90"))
	got = patchText(t, albIdleFix(albIdleTimeoutOf(objs, objs.ConfigsOf("Ingress")[0]), wl, 74).Patch)
	wantText(t, "Ingress patch", got, "alb.ingress.kubernetes.io/load-balancer-attributes: deletion_protection.enabled=true,idle_timeout.timeout_seconds=74", "name: web", "namespace: shop")
	objs = objectsOfYAML(t, ingressOfClass("web", "ingressClassName: alb", "alb.ingress.kubernetes.io/load-balancer-attributes: routing.http2.enabled=false"))
	got = patchText(t, albIdleFix(albIdleTimeoutOf(objs, objs.ConfigsOf("Ingress")[0]), wl, 74).Patch)
	wantText(t, "Ingress patch, key added", got, "load-balancer-attributes: routing.http2.enabled=false,idle_timeout.timeout_seconds=74")
}

// TestKeepAliveIdleTimeoutFromIngressClassParams analyses the recreated
// gunicorn keep-alive incident behind an ALB whose IngressClassParams set
// the idle timeout to 120 s over the Ingress's 60 s annotation: the
// finding, its fix and the load-balancer side of it use 120.
func TestKeepAliveIdleTimeoutFromIngressClassParams(t *testing.T) {
	src := filepath.Join("..", "fixtures", "eks-alb-keepalive-gunicorn")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(dir, "objects.yaml")
	body, err := os.ReadFile(objects)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), "ingressClassName: alb\n") || !strings.Contains(string(body), "idle_timeout.timeout_seconds=60") {
		t.Fatal("the fixture's Ingress changed: class alb, idle timeout 60 s expected")
	}
	body = []byte(strings.Replace(string(body), "ingressClassName: alb\n", "ingressClassName: shared\n", 1))
	classes := ingressClass("shared", "shared-params", false) + "---\n" + classParams("shared-params", paramsIdle120) + "\n"
	if os.WriteFile(objects, body, 0o644) != nil || os.WriteFile(filepath.Join(dir, "classes.yaml"), []byte(classes), 0o644) != nil {
		t.Fatal("writing the objects")
	}
	_, findings := analyzeDir(t, dir)
	var f *Finding
	for _, x := range findings {
		if x.Cause == keepaliveTimeoutCause.ID {
			f = x
		}
	}
	if f == nil {
		t.Fatalf("no keep-alive finding among %d", len(findings))
	}
	if lb := f.Timeouts[0]; lb.Seconds != 120 || lb.Source != "IngressClassParams shared-params loadBalancerAttributes" {
		t.Errorf("the load balancer's timeout %+v", lb)
	}
	wantText(t, "summary", f.Summary, "up to 120 s (IngressClassParams shared-params")
	if len(f.Remediation) != 1 || !strings.Contains(f.Remediation[0].Title, "open 125 s in the app") || !strings.Contains(patchText(t, f.Remediation[0].Patch), `"125"`) {
		t.Errorf("fixes %+v", f.Remediation)
	}
}

// TestCheckKeepaliveIngressClassParams runs check on the manifest fixture
// where the IngressClassParams raise the ALB's idle timeout to 120 s over
// the Ingress's 60 s: uvicorn's 75 s is below it, which the annotation
// alone would not show.
func TestCheckKeepaliveIngressClassParams(t *testing.T) {
	p := filepath.Join("..", "fixtures", "manifests", "eks-alb-ingressclassparams", "keepalive.yaml")
	risks := Check(objectsOfPaths(t, p))
	r := riskOf(t, risks, "keepalive_timeout/keepalive")
	wantText(t, "title", r.Title, "after 75 s, the ALB reuses them for 120 s")
	wantText(t, "reason", r.Reason, "uvicorn closes idle keep-alive connections after 75 s", "IngressClassParams shared-alb-params loadBalancerAttributes", "through Ingress shop/web")
	wantText(t, "fixes", fixesText(t, r), "--timeout-keep-alive\n", "- \"125\"", "Or close idle connections in the ALB after 74 s",
		"kind: IngressClassParams", "value: \"74\"", "key: deletion_protection.enabled")
	if len(risks) != 1 {
		t.Errorf("risks %q, want the keep-alive one alone", rules(risks))
	}
	// Without the class's parameters, the Ingress's 60 s is below 75 s.
	body, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, d := range strings.Split(string(body), "\n---\n") {
		if !strings.Contains(d, "kind: IngressClassParams") {
			docs = append(docs, d)
		}
	}
	if risks := Check(objectsOfYAML(t, docs...)); len(risks) != 0 {
		t.Errorf("without the IngressClassParams: risks %q", rules(risks))
	}
}

// TestIngressFamilyFromClass names the load balancer of an Ingress whose
// class name and annotations say nothing from its IngressClass's
// controller, and of one without the class object from its name alone.
func TestIngressFamilyFromClass(t *testing.T) {
	plain := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  ingressClassName: edge"
	nginx := strings.Replace(ingressClass("edge", "", false), "ingress.k8s.aws/alb", "k8s.io/ingress-nginx", 1)
	for _, c := range []struct {
		name string
		docs []string
		want sources.Family
	}{
		{"the ALB controller's class", []string{plain, ingressClass("edge", "", false)}, sources.FamilyALB},
		{"ingress-nginx's class", []string{plain, nginx}, sources.FamilyIngressNginx},
		{"no class object", []string{plain}, ""},
	} {
		objs := objectsOfYAML(t, c.docs...)
		ing := objs.ConfigsOf("Ingress")[0]
		if got := ingressFamily(ing, &sources.Service{}, ingressClassOf(objs.ConfigsOf("IngressClass"), ing)); got != c.want {
			t.Errorf("%s: family %q, want %q", c.name, got, c.want)
		}
	}
}

// TestALBDrainFix checks where the ALB side of the termination-race fix
// sets the deregistration delay, as the AWS Load Balancer Controller reads
// it: in the target-group-attributes annotation of the Ingress routing to
// the workload, its other attributes kept, and of no other Ingress; in the
// Service's annotation when it has one, which replaces the Ingress's
// whole; nowhere when the delay already covers the termination (the
// default is 300 s); and, for a TargetGroupBinding of a target group made
// outside the cluster, in that target group, while one the controller made
// for an Ingress follows the Ingress.
func TestALBDrainFix(t *testing.T) {
	const grace = 43
	wl := workload{Namespace: "shop", Name: "web"}
	dep := deployment("web", "replicas: 3", webContainer("http", ""))
	attrs := func(v string) string { return "alb.ingress.kubernetes.io/target-group-attributes: " + v }
	const stickyDelay30 = "stickiness.enabled=true,deregistration_delay.timeout_seconds=30,stickiness.lb_cookie.duration_seconds=86400"
	binding := func(labels string) string {
		return "apiVersion: elbv2.k8s.aws/v1beta1\nkind: TargetGroupBinding\nmetadata:\n  name: web-tg\n  namespace: shop\n" + labels +
			"spec:\n  serviceRef:\n    name: web\n    port: 80\n  targetGroupARN: arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/web/0123456789abcdef\n  targetType: ip"
	}
	fixes := func(docs ...string) []Fix {
		objs := objectsOfYAML(t, docs...)
		return albDrainFixes(albTargetGroupSettings(workloadFronts(objs, wl), objs), wl, grace)
	}
	onePatch := func(what string, fs []Fix) string {
		t.Helper()
		if len(fs) != 1 {
			t.Fatalf("%s: %d fixes, want 1: %+v", what, len(fs), fs)
		}
		return patchText(t, fs[0].Patch)
	}

	// The Ingress's other attributes stay, in their order.
	fs := fixes(dep, service("web", ""), albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\n"+attrs(stickyDelay30)))
	got := onePatch("other attributes", fs)
	wantText(t, "why", fs[0].Why, "other attributes stay")
	wantText(t, "other attributes", got, "kind: Ingress", "name: web\n",
		"target-group-attributes: stickiness.enabled=true,deregistration_delay.timeout_seconds=43,stickiness.lb_cookie.duration_seconds=86400")

	// Two Ingresses: only the one routing to the workload's Service,
	// though the other comes first by name.
	fs = fixes(dep, service("web", ""), service("api", ""), albIngress("api", attrs("deregistration_delay.timeout_seconds=5")),
		albIngress("web", attrs("deregistration_delay.timeout_seconds=30")))
	got = onePatch("two Ingresses", fs)
	wantText(t, "two Ingresses", got, "name: web\n", "deregistration_delay.timeout_seconds=43")
	if strings.Contains(got, "name: api") {
		t.Errorf("the Ingress of another workload is patched:\n%s", got)
	}
	wantText(t, "why", fs[0].Why, "(30 s, from Ingress shop/web's annotation, read at ", "43 s")
	if strings.Contains(fs[0].Why, "other attributes") {
		t.Errorf("an annotation of the delay alone keeps other attributes: %s", fs[0].Why)
	}

	// The Service's annotation replaces the Ingress's whole: the Service
	// is patched, with its own attributes.
	got = onePatch("Service annotation", fixes(dep, service("web", attrs("deregistration_delay.timeout_seconds=10,slow_start.duration_seconds=30")),
		albIngress("web", attrs(stickyDelay30))))
	wantText(t, "Service annotation", got, "apiVersion: v1\n", "kind: Service", "name: web\n",
		"target-group-attributes: deregistration_delay.timeout_seconds=43,slow_start.duration_seconds=30")
	if strings.Contains(got, "stickiness") {
		t.Errorf("the Ingress's attributes, which the Service's replace, are in the patch:\n%s", got)
	}

	// A Service annotation without the delay leaves the default, whatever
	// the Ingress says.
	if fs := fixes(dep, service("web", attrs("slow_start.duration_seconds=30")), albIngress("web", attrs(stickyDelay30))); len(fs) != 0 {
		t.Errorf("the Service's annotation sets no delay (300 s by default): fixes %+v", fs)
	}

	// A delay that covers the termination, given or by default, needs no
	// change; one a second short does.
	for _, c := range []struct {
		annotations string
		fixes       int
	}{
		{attrs("deregistration_delay.timeout_seconds=43"), 0},
		{attrs("deregistration_delay.timeout_seconds=42"), 1},
		{attrs("stickiness.enabled=true"), 0},
		{"alb.ingress.kubernetes.io/target-type: ip", 0},
	} {
		if fs := fixes(dep, service("web", ""), albIngress("web", c.annotations)); len(fs) != c.fixes {
			t.Errorf("%s: %d fixes, want %d", c.annotations, len(fs), c.fixes)
		}
	}

	// A target group made outside the cluster is changed there; one the
	// controller made for an Ingress follows the Ingress.
	fs = fixes(dep, service("web", ""), binding(""))
	if len(fs) != 1 || fs[0].Patch != nil {
		t.Fatalf("a bound target group: fixes %+v, want one without a patch", fs)
	}
	wantText(t, "bound target group", fs[0].Why, "TargetGroupBinding shop/web-tg", "--target-group-arn arn:aws:elasticloadbalancing:eu-west-1:111122223333:targetgroup/web/0123456789abcdef",
		"Key=deregistration_delay.timeout_seconds,Value=43")
	fs = fixes(dep, service("web", ""), albIngress("web", attrs(stickyDelay30)),
		binding("  labels:\n    ingress.k8s.aws/stack-name: web\n    ingress.k8s.aws/stack-namespace: shop\n"))
	wantText(t, "the controller's binding", onePatch("the controller's binding", fs), "kind: Ingress", "stickiness.enabled=true,deregistration_delay.timeout_seconds=43")

	// Two places to change: each title names its own.
	fs = fixes(dep, service("web", ""), albIngress("web", attrs(stickyDelay30)), binding(""))
	if len(fs) != 2 {
		t.Fatalf("an Ingress and a bound target group: %d fixes, want 2", len(fs))
	}
	wantText(t, "titles", fs[0].Title+"\n"+fs[1].Title, "for 43 s (Ingress shop/web)", "for 43 s (the target group of TargetGroupBinding shop/web-tg)")

	// Objects that do not link the workload: every Ingress of the ALB.
	got = onePatch("unlinked", fixes(albIngress("web", attrs(stickyDelay30))))
	wantText(t, "unlinked", got, "name: web\n", "stickiness.enabled=true,deregistration_delay.timeout_seconds=43")
}

// TestALBIngressesToTheWorkload checks which Ingresses' ALBs keep-alive
// compares the app with: each ALB Ingress routing to the workload once,
// not another controller's; and, for a workload no object routes to,
// every ALB Ingress read.
func TestALBIngressesToTheWorkload(t *testing.T) {
	objs := objectsOfYAML(t, append(twoWorkloads(),
		deployment("lonely", "replicas: 2", webContainer("http", "")), service("lonely", ""),
		ingressTo("web-a", "alb", "web", ""), ingressTo("web-nginx", "nginx", "web", ""),
		ingressTo("other-ing", "alb", "other", ""), ingressTo("web-b", "alb", "web", ""))...)
	for _, c := range []struct {
		workload string
		want     []string
	}{
		{"web", []string{"shop/web-a", "shop/web-b"}},
		{"other", []string{"shop/other-ing"}},
		{"lonely", []string{"shop/web-a", "shop/other-ing", "shop/web-b"}},
	} {
		if got := configNames(ingressesTo(objs, workloadNamed(t, objs, c.workload), sources.FamilyALB)); !slices.Equal(got, c.want) {
			t.Errorf("%s: ALB Ingresses %v, want %v", c.workload, got, c.want)
		}
	}
}

// ingressTo is an Ingress in shop of the given class routing to the
// Service's http port, with the given annotations (none when "").
func ingressTo(name, class, svc, annotations string) string {
	meta := "metadata:\n  name: " + name + "\n  namespace: shop\n"
	if annotations != "" {
		meta += "  annotations:\n" + indent(annotations, "    ") + "\n"
	}
	return "apiVersion: networking.k8s.io/v1\nkind: Ingress\n" + meta +
		"spec:\n  ingressClassName: " + class + "\n  defaultBackend:\n    service:\n      name: " + svc + "\n      port:\n        name: http"
}

// configNames lists the objects' namespaces and names.
func configNames(cs []*sources.Config) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Namespace+"/"+c.Name)
	}
	return out
}

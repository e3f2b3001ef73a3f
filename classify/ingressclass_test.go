package classify

import (
	"os"
	"path/filepath"
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

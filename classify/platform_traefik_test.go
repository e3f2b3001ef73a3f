package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// traefikIngress is an Ingress of class traefik to the Service web.
const traefikIngress = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  ingressClassName: traefik\n  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http"

// traefikRoute is an IngressRoute to the Service web.
const traefikRoute = `apiVersion: traefik.io/v1alpha1
kind: IngressRoute
metadata:
  name: web
  namespace: shop
spec:
  routes:
  - match: Host(` + "`shop.example.com`" + `)
    services:
    - name: web
      port: 80`

// TestTraefikFronts: an Ingress of class traefik (by its class name, or by
// an IngressClass naming Traefik's controller) and an IngressRoute are
// paths of the Traefik platform.
func TestTraefikFronts(t *testing.T) {
	dep := deployment("web", "replicas: 2", webContainer("http", ""))
	byController := strings.Replace(traefikIngress, "traefik", "edge", 1)
	class := "apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata:\n  name: edge\nspec:\n  controller: traefik.io/ingress-controller"
	for name, docs := range map[string][]string{
		"class name":   {traefikIngress},
		"IngressClass": {byController, class},
		"IngressRoute": {traefikRoute},
	} {
		objs := objectsOfYAML(t, append([]string{dep, service("web", "")}, docs...)...)
		fronts := workloadFronts(objs, workloadNamed(t, objs, "web"))
		if len(fronts) != 1 || fronts[0].Family != sources.FamilyTraefik || fronts[0].Port == nil || fronts[0].Port.Port != 80 {
			t.Errorf("%s: fronts %+v", name, fronts)
		}
	}
}

// TestTraefikChecks: behind Traefik a pod without preStop is a
// termination-race risk (its stop propagation), an app keep-alive under
// Traefik's idleConnTimeout (90 s, or a ServersTransport's) a keep-alive
// risk, and there is no registration-lag risk (Traefik runs no health
// check of its own on a Service's endpoints).
func TestTraefikChecks(t *testing.T) {
	for _, c := range []struct {
		name, args, transport string
		fires                 bool
		idle                  string
	}{
		{"gunicorn's 2 s default under Traefik's 90 s", `["gunicorn", "-k", "gthread", "app:app"]`, "", true, "up to 90 s"},
		{"89 s", `["gunicorn", "-k", "gthread", "--keep-alive", "89", "app:app"]`, "", true, "up to 90 s"},
		{"90 s", `["gunicorn", "-k", "gthread", "--keep-alive", "90", "app:app"]`, "", false, ""},
		{"29 s under a ServersTransport's 30 s", `["gunicorn", "-k", "gthread", "--keep-alive", "29", "app:app"]`, "30s", true, "up to 30 s"},
		{"30 s under a ServersTransport's 30 s", `["gunicorn", "-k", "gthread", "--keep-alive", "30", "app:app"]`, "30s", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			docs := []string{deployment("web", "replicas: 2", webContainer("http", "command: "+c.args)), service("web", ""), traefikRoute}
			if c.transport != "" {
				docs = append(docs, "apiVersion: traefik.io/v1alpha1\nkind: ServersTransport\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  forwardingTimeouts:\n    idleConnTimeout: "+c.transport)
			}
			risks := Check(objectsOfYAML(t, docs...))
			if has(risks, "keepalive_timeout/keepalive") != c.fires {
				t.Fatalf("risks %q", rules(risks))
			}
			if c.fires {
				r := riskOf(t, risks, "keepalive_timeout/keepalive")
				wantText(t, "reason", r.Reason, "Traefik's idleConnTimeout", c.idle)
				if c.args != `["gunicorn", "-k", "gthread", "app:app"]` { // a 2 s keep-alive gets no idle-timeout fix (minLBIdleFix)
					wantText(t, "fixes", fixesText(t, r), "Or let Traefik drop idle connections", "kind: ServersTransport")
				}
			}
			if !has(risks, "termination_race/prestop") {
				t.Errorf("no termination-race risk behind Traefik: %q", rules(risks))
			}
			for _, r := range risks {
				if r.Cause == registrationLagCause.ID && r.Check != checkMaxUnavailable {
					t.Errorf("registration-lag risk %s behind Traefik", r.RuleID())
				}
			}
		})
	}
}

// TestTraefikRetryFix: the retry Middleware is proposed unless one was
// read in the workload's namespace.
func TestTraefikRetryFix(t *testing.T) {
	dep := deployment("web", "replicas: 2", webContainer("http", ""))
	objs := objectsOfYAML(t, dep, service("web", ""), traefikRoute)
	fix, ok := traefikPlatform{}.refusalFix(objs, "", workloadNamed(t, objs, "web"))
	if !ok || fix.Patch["kind"] != "Middleware" || !strings.Contains(fix.Why, "shop-retry@kubernetescrd") {
		t.Fatalf("fix %v %+v", ok, fix)
	}
	// Three attempts: the first try and two more (traefikRetryAttempts).
	if got := patchText(t, fix.Patch); !strings.Contains(got, "attempts: 3\n") {
		t.Errorf("patch:\n%s", got)
	}
	mw := "apiVersion: traefik.io/v1alpha1\nkind: Middleware\nmetadata:\n  name: retry\n  namespace: shop\nspec:\n  retry:\n    attempts: 2"
	objs = objectsOfYAML(t, dep, service("web", ""), traefikRoute, mw)
	if _, ok := (traefikPlatform{}).refusalFix(objs, "", workloadNamed(t, objs, "web")); ok {
		t.Error("a retry fix beside a retry Middleware")
	}
}

// traefikLog writes a `common` access log into a temporary folder: a
// request every 100 ms for 60 s, served by 10.42.1.5 except in the
// seconds gap says, when Traefik has no router (404 of 19 bytes); and a
// stray 404 without a router every strayEvery (0: none), as scanners make.
func traefikLog(t *testing.T, gap [2]int, strayEvery time.Duration) string {
	t.Helper()
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := 0; i < 600; i++ {
		at := base.Add(time.Duration(i) * 100 * time.Millisecond)
		stamp := at.Format("02/Jan/2006:15:04:05 -0700")
		sec := i / 10
		switch {
		case sec >= gap[0] && sec < gap[1]:
			fmt.Fprintf(&b, "%s 10.42.0.1 - - [%s] \"GET /api HTTP/1.1\" 404 19 \"-\" \"curl/8.5.0\" %d \"-\" \"-\" 0ms\n", at.Format(time.RFC3339Nano), stamp, i)
		case strayEvery > 0 && time.Duration(i)*100*time.Millisecond%strayEvery == 0:
			fmt.Fprintf(&b, "%s 10.42.0.9 - - [%s] \"GET /wp-login.php HTTP/1.1\" 404 19 \"-\" \"scanner\" %d \"-\" \"-\" 0ms\n", at.Format(time.RFC3339Nano), stamp, i)
		default:
			fmt.Fprintf(&b, "%s 10.42.0.1 - - [%s] \"GET /api HTTP/1.1\" 200 512 \"-\" \"curl/8.5.0\" %d \"shop-web@kubernetes\" \"http://10.42.1.5:8080\" 3ms\n", at.Format(time.RFC3339Nano), stamp, i)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "traefik.log"), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTraefikNotFound: Traefik's 404 without a router is a missing
// backend only where nothing was served around it. Scanners' 404s among
// served traffic make no incident; ten seconds of nothing but 404s are a
// registration lag, even with the scanners.
func TestTraefikNotFound(t *testing.T) {
	if _, findings := analyzeDir(t, traefikLog(t, [2]int{-1, -1}, 3*time.Second)); len(findings) != 0 {
		t.Errorf("stray 404s: %d findings, first %s", len(findings), findings[0].Summary)
	}
	_, findings := analyzeDir(t, traefikLog(t, [2]int{20, 30}, 3*time.Second))
	if len(findings) != 1 || findings[0].Cause != registrationLagCause.ID || findings[0].Window.Failed < 95 || findings[0].Window.Failed > 105 {
		for _, f := range findings {
			t.Logf("%s: %s", f.Cause, f.Summary)
		}
		t.Fatalf("404 burst: %d findings", len(findings))
	}
	if !strings.Contains(findings[0].Summary, "Traefik") || !strings.Contains(findings[0].Summary, "404") {
		t.Errorf("summary %s", findings[0].Summary)
	}
}

// TestTraefikEmptyServiceFix: allowEmptyServices is proposed for a 404
// burst, not for 503s (already set), nor when Traefik's Deployment read
// sets it; a Deployment read without it is named.
func TestTraefikEmptyServiceFix(t *testing.T) {
	traefikDeployment := func(args string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: traefik\n  namespace: kube-system\nspec:\n  selector:\n    matchLabels: {app: traefik}\n  template:\n    metadata:\n      labels: {app: traefik}\n    spec:\n      containers:\n      - name: traefik\n        image: traefik:v3.3\n        args: " + args
	}
	p := traefikPlatform{}
	if _, ok := p.emptyServiceFix(NewObjects(nil), map[int]int{503: 40}); ok {
		t.Error("a fix for 503s")
	}
	fix, ok := p.emptyServiceFix(NewObjects(nil), map[int]int{404: 40})
	if !ok || !strings.Contains(fix.Why, "HelmChartConfig") {
		t.Errorf("no Deployment read: %v %s", ok, fix.Why)
	}
	objs := objectsOfYAML(t, traefikDeployment(`["--providers.kubernetesingress"]`))
	if fix, ok := p.emptyServiceFix(objs, map[int]int{404: 40}); !ok || !strings.Contains(fix.Why, "Deployment kube-system/traefik") {
		t.Errorf("Deployment without the flag: %v %s", ok, fix.Why)
	}
	objs = objectsOfYAML(t, traefikDeployment(`["--providers.kubernetesingress.allowEmptyServices=true"]`))
	if _, ok := p.emptyServiceFix(objs, map[int]int{404: 40}); ok {
		t.Error("a fix beside the flag")
	}
}

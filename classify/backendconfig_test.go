package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// twoBackendConfigs are the objects of two workloads behind GKE Ingresses,
// each Service naming its own BackendConfig: web's web-hc (checks every
// 20 s, drains for the given seconds) and other's aaa-hc, which sorts
// first and checks every 30 s.
func twoBackendConfigs(t *testing.T, draining string) (*Objects, workload) {
	t.Helper()
	ing := func(name string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: " + name + "\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\n" +
			"spec:\n  defaultBackend:\n    service:\n      name: " + name + "\n      port:\n        number: 80"
	}
	bc := func(name, spec string) string {
		return "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n" + indent(spec, "  ")
	}
	neg := func(bc string) string {
		return "cloud.google.com/neg: '{\"ingress\": true}'\ncloud.google.com/backend-config: '{\"default\": \"" + bc + "\"}'"
	}
	webBC := "healthCheck:\n  checkIntervalSec: 20\n  healthyThreshold: 1"
	if draining != "" {
		webBC += "\nconnectionDraining:\n  drainingTimeoutSec: " + draining
	}
	objs := objectsOfYAML(t,
		deployment("other", "replicas: 3", webContainer("http", "")), service("other", neg("aaa-hc")), ing("other"),
		bc("aaa-hc", "healthCheck:\n  checkIntervalSec: 30\n  healthyThreshold: 1\nconnectionDraining:\n  drainingTimeoutSec: 0"),
		deployment("web", "replicas: 3", webContainer("http", "")), service("web", neg("web-hc")), ing("web"),
		bc("web-hc", webBC))
	for _, d := range objs.ConfigsOf("Deployment") {
		if d.Name == "web" {
			return objs, workloadOf(d)
		}
	}
	t.Fatal("no Deployment web")
	return nil, workload{}
}

// patchedName names the object a fix patches: Kind namespace/name.
func patchedName(f Fix) string {
	m := f.Patch["metadata"].(map[string]any)
	return f.Patch["kind"].(string) + " " + m["namespace"].(string) + "/" + m["name"].(string)
}

// TestNEGDrainFixPatchesTheServicesBackendConfig checks that GKE's
// connection-draining fix patches the BackendConfig the workload's Service
// names, not the first one read, and states the seconds its YAML sets;
// and that it is left out once that BackendConfig drains as long as the
// preStop sleep (10 s here), and proposed one second short of it.
func TestNEGDrainFixPatchesTheServicesBackendConfig(t *testing.T) {
	for _, c := range []struct {
		draining string
		want     bool
		now      string
	}{
		{"", true, "(not set in BackendConfig shop/web-hc, read at "},
		{"9", true, "(9 s, read at "},
		{"10", false, ""},
	} {
		objs, wl := twoBackendConfigs(t, c.draining)
		// After an incident: every object the analysis read.
		var drain *Fix
		for _, f := range terminationFixes(objs, wl, nil, 2*time.Second, 0, 30, sources.FamilyGCP, "") {
			if strings.HasPrefix(f.Title, "Drain connections") {
				drain = &f
			}
		}
		if (drain != nil) != c.want {
			t.Fatalf("draining %q: drain fix %v, want %v", c.draining, drain != nil, c.want)
		}
		if !c.want {
			continue
		}
		if got := patchedName(*drain); got != "BackendConfig shop/web-hc" {
			t.Errorf("draining %q: patches %s, want BackendConfig shop/web-hc, which Service web names", c.draining, got)
		}
		wantText(t, "drain fix", drain.Title+"\n"+drain.Why+"\n"+patchText(t, drain.Patch),
			"Drain connections for 10 s", "drainingTimeoutSec to 10 s "+c.now, "drainingTimeoutSec: 10")
	}
	// Before a deploy the static check reads the same objects, and sizes
	// the sleep for GKE's 10 s stop propagation + 5 s.
	objs, _ := twoBackendConfigs(t, "")
	var fixes string
	for _, r := range Check(objs) {
		if r.RuleID() == "termination_race/prestop" && r.Workload.Name == "web" {
			fixes = fixesText(t, r)
		}
	}
	wantText(t, "the static check's fixes", fixes, "Drain connections for 15 s", "drainingTimeoutSec to 15 s (not set in BackendConfig shop/web-hc, read at ", "name: web-hc", "drainingTimeoutSec: 15")
	if strings.Contains(fixes, "aaa-hc") {
		t.Errorf("the static check patches another Service's BackendConfig:\n%s", fixes)
	}
}

// TestGKEHealthCheckOfTheWorkload checks that after an incident the health
// check and its faster fix come from the BackendConfig of the workload's
// Service, not from the first one read.
func TestGKEHealthCheckOfTheWorkload(t *testing.T) {
	objs, wl := twoBackendConfigs(t, "")
	hc := workloadHealthCheck(objs, wl, sources.FamilyGCP)
	if hc.IntervalSec != 20 || hc.Name != "web-hc" {
		t.Fatalf("health check every %d s from %s, want 20 s from web-hc", hc.IntervalSec, hc.Source())
	}
	plan := planMinReady(sources.FamilyGCP, hc, wl)
	if plan.Faster == nil || patchedName(*plan.Faster) != "BackendConfig shop/web-hc" {
		t.Fatalf("faster check %+v, want a patch of BackendConfig shop/web-hc", plan.Faster)
	}
	// Objects that link no workload to a Service: a BackendConfig read
	// alone is its, one of two is anybody's.
	lone := NewObjects(objs.ConfigsOf("BackendConfig")[:1])
	if ref := backendConfigOf(lone, workload{Namespace: "shop", Name: "web"}); !ref.known() || ref.Name != "aaa-hc" {
		t.Errorf("a lone BackendConfig: %+v", ref)
	}
	if ref := backendConfigOf(NewObjects(objs.ConfigsOf("BackendConfig")), workload{Namespace: "shop", Name: "web"}); ref.known() {
		t.Errorf("two BackendConfigs and no Service: %+v, want none", ref)
	}
}

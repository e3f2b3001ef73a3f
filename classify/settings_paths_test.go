package classify

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

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

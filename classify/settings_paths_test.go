package classify

import (
	"strings"
	"testing"

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

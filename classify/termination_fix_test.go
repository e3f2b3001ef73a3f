package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestDrainFixBounds pins when the termination race also proposes the load
// balancer's own drain: an ALB deregistration delay shorter than the 45 s
// grace period the fix needs (the 15 s sleep and 30 s to shut down; 45 s
// is enough), a GKE connection draining
// shorter than the 15 s preStop sleep (15 s is enough).
func TestDrainFixBounds(t *testing.T) {
	dep := deployment("web", "replicas: 3", webContainer("http", ""))
	for _, delay := range []string{"44", "45"} {
		alb := albIngress("web", "alb.ingress.kubernetes.io/target-type: ip\nalb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds="+delay)
		r := riskOf(t, Check(objectsOfYAML(t, dep, service("web", ""), alb, namespaceShop)), "termination_race/prestop")
		if got, want := strings.Contains(fixesText(t, r), "deregistration_delay.timeout_seconds=45"), delay == "44"; got != want {
			t.Errorf("deregistration delay %s s: drain fix %v, want %v:\n%s", delay, got, want, fixesText(t, r))
		}
	}
	ing := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\nspec:\n  defaultBackend:\n    service:\n      name: web\n      port:\n        number: 80"
	neg := "cloud.google.com/neg: '{\"ingress\": true}'\ncloud.google.com/backend-config: '{\"ports\": {\"http\": \"web-hc\"}}'"
	for _, draining := range []string{"14", "15"} {
		bc := "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: web-hc\n  namespace: shop\nspec:\n  connectionDraining:\n    drainingTimeoutSec: " + draining
		r := riskOf(t, Check(objectsOfYAML(t, dep, service("web", neg), ing, bc)), "termination_race/prestop")
		if got, want := strings.Contains(fixesText(t, r), "drainingTimeoutSec: 15"), draining == "14"; got != want {
			t.Errorf("connection draining %s s: drain fix %v, want %v:\n%s", draining, got, want, fixesText(t, r))
		}
	}
}

// TestNoStopPropagationNoRisk: a workload only behind an Ingress of a
// class readygap does not know (no stop propagation to compare with) has
// no termination-race risk.
func TestNoStopPropagationNoRisk(t *testing.T) {
	dep := deployment("web", "replicas: 3", webContainer("http", ""))
	ing := "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  ingressClassName: haproxy\n  defaultBackend:\n    service:\n      name: web\n      port:\n        name: http"
	for _, r := range Check(objectsOfYAML(t, dep, service("web", ""), ing)) {
		if r.Cause == terminationRaceCause.ID {
			t.Errorf("risk %s behind an unknown Ingress class", r.RuleID())
		}
	}
	// Traefik is known: it drops a leaving pod a throttle after its
	// EndpointSlice changes, which a pod without preStop does not outlast.
	traefik := strings.Replace(ing, "haproxy", "traefik", 1)
	r := riskOf(t, Check(objectsOfYAML(t, dep, service("web", ""), traefik)), "termination_race/prestop")
	if !strings.Contains(r.Reason, "Traefik") || !strings.Contains(r.Reason, "3 s") {
		t.Errorf("Traefik's risk: %s", r.Reason)
	}
}

// TestOldSpec: the spec of the first named pod that was read, skipping
// IPs tied to no pod, over the workload's template.
func TestOldSpec(t *testing.T) {
	pod, tmpl := &sources.PodSpec{}, &sources.PodSpec{}
	refs := []BackendRef{{}, {Of: &correlate.Backend{}}, {Of: &correlate.Backend{Spec: pod}}}
	if got := oldSpec(refs, workload{Template: tmpl}); got != pod {
		t.Errorf("oldSpec = %p, want the pod's %p (template %p)", got, pod, tmpl)
	}
	if got := oldSpec(refs[:2], workload{Template: tmpl}); got != tmpl {
		t.Errorf("without a pod spec: %p, want the template %p", got, tmpl)
	}
}

// TestHPAName: the autoscaler a scale-in's event names, else the
// workload's name.
func TestHPAName(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	ev := &sources.Lifecycle{Object: "HorizontalPodAutoscaler/web-hpa"}
	for _, tc := range []struct {
		t    correlate.Trigger
		want string
	}{
		{correlate.Trigger{Kind: correlate.TriggerScaleIn, Event: ev}, "web-hpa"},
		{correlate.Trigger{Kind: correlate.TriggerScaleIn, Event: &sources.Lifecycle{Object: "ReplicaSet/web-a"}}, "<horizontalpodautoscaler>"},
		{correlate.Trigger{Kind: correlate.TriggerScaleIn}, "<horizontalpodautoscaler>"},
	} {
		if got := hpaName(tc.t, wl); got != tc.want {
			t.Errorf("hpaName(%+v) = %q, want %q", tc.t.Event, got, tc.want)
		}
	}
	// The autoscaler read that scales the workload, when no event names one.
	scaled := wl
	scaled.Autoscaler = &sources.Config{Kind: "HorizontalPodAutoscaler", Namespace: "shop", Name: "web-scaler"}
	if got := hpaName(correlate.Trigger{Kind: correlate.TriggerScaleIn}, scaled); got != "web-scaler" {
		t.Errorf("hpaName with an autoscaler read = %q, want web-scaler", got)
	}
}

// TestDrainFixesFitTheLoadBalancer: the node-exclusion label is proposed
// where the load balancer reads it (ALB, Google's), not for ingress-nginx
// or Envoy, which send to pod IPs; the disruption budget everywhere.
func TestDrainFixesFitTheLoadBalancer(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web", Selector: map[string]string{"app": "web"}}
	drain := correlate.Trigger{Kind: correlate.TriggerNodeDrain, Node: "node-1"}
	for _, c := range []struct {
		family sources.Family
		node   bool
	}{
		{sources.FamilyALB, true}, {sources.FamilyGCP, true}, {sources.FamilyIngressNginx, false}, {sources.FamilyEnvoy, false},
	} {
		fixes := triggerFixes(nil, wl, drain, 10*time.Second, c.family)
		node := false
		for _, f := range fixes {
			node = node || f.Patch["kind"] == "Node"
		}
		if node != c.node || fixes[0].Patch["kind"] != "PodDisruptionBudget" {
			t.Errorf("%s: fixes %v, want the budget first and a Node label %v", c.family, fixes, c.node)
		}
	}
}

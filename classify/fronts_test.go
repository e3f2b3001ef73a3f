package classify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

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

// TestALBIdleTimeoutTieKeepsTheFirst checks that among ALBs with the same
// idle timeout the first Ingress's is quoted.
func TestALBIdleTimeoutTieKeepsTheFirst(t *testing.T) {
	const idle120 = "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=120"
	objs := objectsOfYAML(t, append(twoWorkloads(), ingressTo("web-a", "alb", "web", idle120), ingressTo("web-b", "alb", "web", idle120))...)
	got := lbIdleTimeout(objs, sources.FamilyALB, objs.ConfigsOf("Ingress"))
	if got.Seconds != 120 || !strings.Contains(got.Source, "shop/web-a") {
		t.Errorf("idle timeout %g s from %q, want 120 s from Ingress shop/web-a", got.Seconds, got.Source)
	}
}

// TestStatedSampleRatesOrder checks that BackendConfigs are listed by
// namespace, then name, whatever order they were read in.
func TestStatedSampleRatesOrder(t *testing.T) {
	rate := 0.5
	bc := func(ns, name string) *sources.Config {
		return &sources.Config{Kind: "BackendConfig", Namespace: ns, Name: name, HealthCheck: &sources.LBHealthCheck{LogSampleRate: &rate}}
	}
	var got []string
	for _, s := range statedSampleRates(NewObjects([]*sources.Config{bc("b", "a"), bc("a", "z"), bc("a", "b")})) {
		got = append(got, s.Object.Namespace+"/"+s.Object.Name)
	}
	if want := []string{"a/b", "a/z", "b/a"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

// TestGoneBeforeReadyQuotesTheBudgetOfKnownReplicas checks that the
// summary of old pods gone before a new one was Ready quotes the
// rollout's budget when the Deployment states its replicas, and not when
// it states none.
func TestGoneBeforeReadyQuotesTheBudgetOfKnownReplicas(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	w := &correlate.Window{Start: start, End: start.Add(10 * time.Second), Failed: 3}
	for _, c := range []struct {
		replicas int
		want     string
	}{{4, " (maxUnavailable 25% (1 of 4) with maxSurge 25%)"}, {0, ""}} {
		got := registrationLagSummary(w, sources.FamilyIngressNginx, "", variantGoneBeforeReady, healthCheck{}, workload{Known: true, Replicas: c.replicas}, true)
		if !strings.Contains(got, "before a new one was Ready"+c.want+", so") {
			t.Errorf("replicas %d: %q lacks %q", c.replicas, got, c.want)
		}
	}
}

package classify

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestAlikeTerminations: three pods the records cannot tell apart began
// terminating at 31, 33 and 35 s; two of their IPs were last sent a
// request at 36 and 38 s. Each IP is measured from the mean of the three
// terminations, 33 s (lags 3 and 5 s), not from the group's earliest, 31 s
// (7 s); the stop lag is 5 s. An IP named by its own pod keeps that pod's
// termination, and a group with a termination unknown gives no mean.
func TestAlikeTerminations(t *testing.T) {
	t0 := time.Date(2026, 2, 11, 6, 20, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	pod := func(name string, term float64) *correlate.Backend {
		b := &correlate.Backend{Namespace: "shop", Pod: name}
		if term > 0 {
			b.Moments[correlate.Terminating] = &correlate.Moment{Time: sec(term)}
		}
		return b
	}
	group := []*correlate.Backend{pod("web-bbp7xz4vfk-gs9wq", 35), pod("web-bbp7xz4vfk-bngcs", 31), pod("web-bbp7xz4vfk-26nsb", 33)}
	bare := func(ip string, alike []*correlate.Backend) *correlate.Backend {
		b := &correlate.Backend{IPs: []netip.Addr{netip.MustParseAddr(ip)}, Alike: alike}
		b.Moments[correlate.Terminating] = &correlate.Moment{Time: sec(31)} // the group's earliest
		return b
	}
	known := pod("web-bbp7xz4vfk-wb2d6", 40)
	refs := []BackendRef{
		{IP: netip.MustParseAddr("10.244.1.204"), Of: bare("10.244.1.204", group), Start: sec(33.5), End: sec(38)},
		{IP: netip.MustParseAddr("10.244.2.99"), Of: bare("10.244.2.99", group), Start: sec(33.6), End: sec(36)},
		{IP: netip.MustParseAddr("10.244.2.200"), Of: known, Pod: known.Pod, Start: sec(40.5), End: sec(42)},
		{IP: netip.MustParseAddr("10.244.3.7"), Of: bare("10.244.3.7", []*correlate.Backend{pod("web-bbp7xz4vfk-xv8qx", 0), known}), Start: sec(33.5), End: sec(36)},
	}
	paired := alikeTerminations(refs)
	if len(paired) != 2 || !paired[0].Equal(sec(33)) || !paired[1].Equal(sec(33)) {
		t.Errorf("terminations %v, want 33 s for the first two IPs and none for the others", paired)
	}
	a := &correlate.Analysis{Opts: correlate.Options{Skew: correlate.DefaultSkew}}
	if lag, _ := stopLag(a, refs); lag != 5*time.Second {
		t.Errorf("stop lag %v, want 5s", lag)
	}
}

// TestStopLagEvidenceNeverPairsAGuess: the record quoted for the stop lag
// is that of a pod joined to its IP when one is; where none is, it names
// the IP with every pod it may have been, never the group's first pod as
// if it were that IP's.
func TestStopLagEvidenceNeverPairsAGuess(t *testing.T) {
	t0 := time.Date(2026, 2, 11, 6, 20, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	pod := func(name string, term float64) *correlate.Backend {
		b := &correlate.Backend{Namespace: "shop", Pod: name}
		b.Moments[correlate.Terminating] = &correlate.Moment{Time: sec(term)}
		return b
	}
	group := []*correlate.Backend{pod("web-bbp7xz4vfk-gs9wq", 33), pod("web-bbp7xz4vfk-t4dwz", 33.5)}
	bare := &correlate.Backend{IPs: []netip.Addr{netip.MustParseAddr("10.244.3.171")}, Alike: group}
	bare.Moments[correlate.Terminating] = group[0].Moments[correlate.Terminating]
	known := pod("web-bbp7xz4vfk-wb2d6", 34)
	unjoined := BackendRef{IP: netip.MustParseAddr("10.244.3.171"), Of: bare, Start: sec(34), End: sec(38)}
	joined := BackendRef{IP: netip.MustParseAddr("10.244.2.200"), Of: known, Pod: known.Pod, Start: sec(35), End: sec(39)}
	a := &correlate.Analysis{Opts: correlate.Options{Skew: correlate.DefaultSkew}}

	_, ev := stopLag(a, []BackendRef{unjoined, joined})
	if ev == nil || !strings.Contains(ev.Fact, "web-bbp7xz4vfk-wb2d6 10.244.2.200 began terminating") {
		t.Errorf("evidence %+v, want the joined pod's termination", ev)
	}
	_, ev = stopLag(a, []BackendRef{unjoined})
	want := "requests still reached 10.244.3.171 (one of web-bbp7xz4vfk-gs9wq, web-bbp7xz4vfk-t4dwz: the records cannot tell which)"
	if ev == nil || !strings.Contains(ev.Fact, want) || strings.Contains(ev.Fact, "10.244.3.171 began terminating") {
		t.Errorf("evidence %+v, want it to say %q", ev, want)
	}
}

// TestALBDefaultDeregistrationDelay pins the target group's default
// deregistration delay, 300 s, from both sides: a pod terminating for
// 300 s needs no longer delay than an Ingress that sets none, one
// terminating for 301 s does, and the fix quotes the 300 s.
func TestALBDefaultDeregistrationDelay(t *testing.T) {
	ing := &sources.Config{Kind: "Ingress", Namespace: "shop", Name: "web"}
	wl := workload{Namespace: "shop", Name: "web", Known: true}
	if fixes := albDrainFixes([]targetGroupSetting{{Holder: ing}}, wl, 300); len(fixes) != 0 {
		t.Errorf("300 s of termination: %d fixes, want none", len(fixes))
	}
	fixes := albDrainFixes([]targetGroupSetting{{Holder: ing}}, wl, 301)
	if len(fixes) != 1 || !strings.Contains(fixes[0].Why, "(300 s, from the target group's default: assumed default: not in the inputs)") {
		t.Errorf("301 s of termination: fixes %+v, want one quoting the default 300 s", fixes)
	}
}

// TestTerminationCheckTieKeepsTheFirstPath checks that among paths whose
// load balancers take as long to stop sending (two ALB Ingresses) the
// check names the first.
func TestTerminationCheckTieKeepsTheFirstPath(t *testing.T) {
	objs := objectsOfYAML(t, append(twoWorkloads(), ingressTo("web-a", "alb", "web", ""), ingressTo("web-b", "alb", "web", ""))...)
	var vias []string
	for _, r := range (terminationRace{}).Check(objs) {
		if r.Workload.Name == "web" && r.Via != nil {
			vias = append(vias, r.Via.Name)
		}
	}
	if len(vias) == 0 {
		t.Fatal("no risk for web")
	}
	for _, v := range vias {
		if v != "web-a" {
			t.Errorf("a risk through %s, want every one through web-a", v)
		}
	}
}

// nginxRisks are the termination risks of Deployment web behind
// ingress-nginx with the given preStop sleep (none when 0) and grace
// period.
func nginxRisks(t *testing.T, sleep, grace int) []*Risk {
	t.Helper()
	hook := ""
	if sleep > 0 {
		hook = "lifecycle:\n  preStop:\n    exec:\n      command: [\"sh\", \"-c\", \"sleep " + itoa(sleep) + "\"]"
	}
	dep := deployment("web", "replicas: 3", webContainer("http", hook)+"\nterminationGracePeriodSeconds: "+itoa(grace))
	var out []*Risk
	for _, r := range Check(objectsOfYAML(t, dep, service("web", ""), ingressTo("web", "nginx", "web", ""))) {
		if r.Cause == terminationRaceCause.ID {
			out = append(out, r)
		}
	}
	return out
}

// TestPreStopRiskGraceFixOnlyWhenLonger checks that the preStop risk
// proposes a longer grace period only when the 10 s sleep plus 30 s of
// shutdown need more than the pod has: at 39 s, 40 s; at 40 s, none.
func TestPreStopRiskGraceFixOnlyWhenLonger(t *testing.T) {
	for _, c := range []struct {
		grace int
		want  string
	}{{39, "Give termination 40 s"}, {40, ""}} {
		rs := nginxRisks(t, 0, c.grace)
		if len(rs) != 1 {
			t.Fatalf("grace %d: %d risks, want the preStop one", c.grace, len(rs))
		}
		got := ""
		for _, f := range rs[0].Fixes {
			if strings.HasPrefix(f.Title, "Give termination") {
				got = f.Title
			}
		}
		if got != c.want {
			t.Errorf("grace %d: grace fix %q, want %q", c.grace, got, c.want)
		}
	}
}

// TestGraceRiskSaysWhenItRunsOutInTheSleep checks the grace-period risk's
// reason on each side of a grace period equal to the sleep: equal, it runs
// out as the sleep ends; a second longer, it leaves the app that second.
func TestGraceRiskSaysWhenItRunsOutInTheSleep(t *testing.T) {
	for _, c := range []struct {
		grace int
		want  string
	}{{10, "runs out before the sleep ends"}, {11, "leaves the app 1 s after SIGTERM"}} {
		rs := nginxRisks(t, 10, c.grace)
		if len(rs) != 1 || !strings.Contains(rs[0].Reason, c.want) {
			t.Errorf("sleep 10, grace %d: risks %v, want one saying %q", c.grace, rs, c.want)
		}
	}
}

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

package classify

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// registrationLag explains windows in which the load balancer had no backend
// it considered healthy: Kubernetes called the new pod Ready (and removed the
// old one) before the load balancer's own health check passed. Its signature
// in the LB logs alone is a run of "no backend" answers: GCP
// failed_to_pick_backend, ALB 503/502 without a target, ingress-nginx 503
// with no upstream. Events and objects make it certain: the NEG readiness
// gate opened by LoadBalancerNegWithoutHealthCheck, targets registered
// without a readiness gate, the proxy's "no active Endpoint".
type registrationLag struct{}

// Variants of registration lag.
const (
	variantNEGWithoutHealthCheck = "gke-neg-gate-without-health-check"
	variantNEGTimeout            = "gke-neg-gate-timeout"
	variantALBNoGate             = "alb-without-readiness-gate"
	variantNginxNoEndpoints      = "ingress-nginx-zero-endpoints"
)

// registrationLagCause is the cause registrationLag names.
var registrationLagCause = Cause{
	ID:          "registration_lag",
	Name:        "registration lag",
	Description: "Kubernetes called the new pod Ready and removed the old one before the load balancer's own health check passed the new one: no healthy backend",
	Signature:   "GCP `failed_to_pick_backend`, ALB 503/502 without a target, ingress-nginx 503 with no upstream; NEG gate opened by `LoadBalancerNegWithoutHealthCheck`, targets registered without a readiness gate, \"no active Endpoint\"",
	Variants: []Variant{
		{variantNEGWithoutHealthCheck, "NEG readiness gate opened without a health check"},
		{variantNEGTimeout, "NEG readiness gate timed out"},
		{variantALBNoGate, "ALB targets without a readiness gate"},
		{variantNginxNoEndpoints, "ingress-nginx had no endpoint"},
	},
}

// Cause implements Rule.
func (registrationLag) Cause() Cause { return registrationLagCause }

// Evaluate implements Rule.
func (registrationLag) Evaluate(a *correlate.Analysis, w *correlate.Window) *Finding {
	noBackend := w.Kinds[sources.FailureNoBackend]
	if w.Failed == 0 || share(noBackend, w.Failed) < 0.5 {
		return nil
	}
	platform := platformOf(w)
	f := &Finding{Cause: registrationLagCause.ID}
	f.Evidence = failureEvidence(w, func(r *sources.Request) bool { return r.Failure == sources.FailureNoBackend })
	corroborated := 0
	skew := a.Opts.Skew
	before := w.Start.Add(-10 * time.Minute)

	// The readiness gate opened without the LB having seen the pod healthy.
	for _, l := range a.EventsBetween(before, w.End.Add(skew), sources.ReadinessGate) {
		switch l.Gate {
		case sources.GateWithoutHealthCheck:
			f.Variant = variantNEGWithoutHealthCheck
		case sources.GateTimeout:
			if f.Variant == "" {
				f.Variant = variantNEGTimeout
			}
		default:
			continue
		}
		corroborated += 2
		f.Evidence = append(f.Evidence, eventEvidence(l, "the readiness gate opened without a load-balancer health check"))
		f.Backends = appendPod(f.Backends, a, l, correlate.RoleNew, "readiness gate opened by "+l.Reason)
	}
	// New endpoints were attached or registered shortly before.
	if l := lastEvent(a.EventsBetween(before, w.End, sources.NEGAttach, sources.TargetRegistering, sources.TargetRegistered)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "a new endpoint was handed to the load balancer"))
		if l.IP.IsValid() {
			f.Backends = appendPod(f.Backends, a, l, correlate.RoleNew, "registered with the load balancer at "+correlate.Clock(l.Time))
		}
	}
	// Kubernetes declared a new pod Ready before the failures began.
	if l := lastEvent(a.EventsBetween(before, w.Start.Add(skew), sources.PodReady)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "Ready for Kubernetes before the load balancer could use it"))
		f.Backends = appendPod(f.Backends, a, l, correlate.RoleNew, "Ready at "+correlate.Clock(l.Time))
	}
	// The old backend went away as the failures began.
	if l := firstEvent(a.EventsBetween(w.Start.Add(-time.Minute), w.Start.Add(15*time.Second),
		sources.Killing, sources.PodDeleted, sources.NEGDetach, sources.TargetDeregistering, sources.ScaledDown)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the old backend left as the failures began"))
		if l.Pod != "" || l.IP.IsValid() {
			f.Backends = appendPod(f.Backends, a, l, correlate.RoleOld, "terminating at "+correlate.Clock(l.Time))
		}
	}
	// The proxy itself said it had no endpoint.
	if nx := a.EventsBetween(w.Start.Add(-skew), w.End.Add(skew), sources.NoEndpoints); len(nx) > 0 {
		corroborated += 2
		f.Variant = variantNginxNoEndpoints
		f.Evidence = append(f.Evidence, eventEvidence(nx[0], fmt.Sprintf("%s during the window", plural(len(nx), "such line"))))
	}
	// The load balancer saw the new backend healthy when the failures ended.
	if l := firstEvent(a.EventsBetween(w.End.Add(-skew), w.End.Add(time.Minute), sources.HealthCheck)); l != nil && l.Health == sources.HealthHealthy {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer's health check passed as the failures ended"))
	}
	if platform == platformALB && f.Variant == "" && albGateMissing(a) {
		corroborated++
		f.Variant = variantALBNoGate
	}

	noBackendShare := share(noBackend, w.Failed)
	f.grade(noBackendShare, corroborated, 0.9)
	hc := healthCheckOf(a, platform)
	wl := findWorkload(a, w)
	f.Summary = registrationLagSummary(w, platform, f.Variant, hc)
	f.Remediation = registrationLagFixes(a, w, platform, f.Variant, hc, wl)
	return f
}

// registrationLagSummary is the one sentence a human reads first.
func registrationLagSummary(w *correlate.Window, platform, variant string, hc healthCheck) string {
	head := fmt.Sprintf("For %s (%s) the load balancer had no backend it considered healthy and answered %s itself (%s)",
		seconds(w.Duration()), span(w), plural(w.Failed, "request"), statusList(w.StatusCounts))
	switch variant {
	case variantNEGWithoutHealthCheck:
		return head + ": the new pod's NEG readiness gate opened without any health check (LoadBalancerNegWithoutHealthCheck, typical of the first pod in a new zone), so the old pod was removed before the load balancer had checked the new one."
	case variantNEGTimeout:
		return head + ": the NEG readiness gate timed out and opened anyway, so Kubernetes moved on before the load balancer saw the new pod healthy."
	case variantALBNoGate:
		return head + fmt.Sprintf(": pods became Ready and old ones were removed while the new targets were still in ALB's initial state (%d s × %d health checks), because no readiness gate ties pod readiness to target health.", hc.IntervalSec, hc.HealthyThreshold)
	case variantNginxNoEndpoints:
		return head + ": ingress-nginx had zero ready endpoints for the Service — the old pods were gone before a new one was Ready."
	}
	if platform == platformNginx {
		return head + ": the proxy had no endpoint to send requests to while the rollout replaced the pods."
	}
	return head + ": Kubernetes considered the new pods Ready and removed the old ones before the load balancer's health check passed the new ones."
}

// registrationLagFixes computes the changes that keep old and new backends
// overlapping until the load balancer can use the new one.
func registrationLagFixes(a *correlate.Analysis, w *correlate.Window, platform, variant string, hc healthCheck, wl workload) []Fix {
	var fixes []Fix
	margin := 10 * time.Second
	minReady := ceilSeconds(hc.Time() + margin)
	if measured := ceilSeconds(w.Duration() + 5*time.Second); platform != platformGKE && measured > minReady {
		minReady = measured
	}
	switch platform {
	case platformALB:
		ns := orDefault(wl.Namespace, "<namespace>")
		fixes = append(fixes, Fix{
			Title: "Let the AWS Load Balancer Controller gate pod readiness on target health",
			Why:   "With the readiness gate a new pod becomes Ready only when its ALB target is healthy, so the rollout cannot remove the old pods first. It needs target-type ip and applies to pods created after the label is set.",
			Patch: fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n    elbv2.k8s.aws/pod-readiness-gate-inject: enabled\n", ns),
		})
	case platformGKE:
		if hc.IntervalSec > 5 {
			fixes = append(fixes, Fix{
				Title: "Check new endpoints more often",
				Why:   fmt.Sprintf("The health check runs every %d s (from %s); a new endpoint waits up to that long for its first check.", hc.IntervalSec, hc.Source),
				Patch: "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: <backendconfig>\nspec:\n  healthCheck:\n    checkIntervalSec: 5\n    timeoutSec: 3\n    healthyThreshold: 1\n    unhealthyThreshold: 3\n",
			})
			hc = healthCheck{IntervalSec: 5, HealthyThreshold: hc.HealthyThreshold,
				Source: fmt.Sprintf("the 5 s interval above (with today's %d s it would take %d s)", hc.IntervalSec, minReady)}
			minReady = ceilSeconds(hc.Time() + margin)
		}
	}
	fixes = append(fixes, Fix{
		Title: fmt.Sprintf("Keep old pods for %d s after a new one is Ready (minReadySeconds)", minReady),
		Why: fmt.Sprintf("minReadySeconds must exceed check interval × healthy threshold plus a margin: %d s × %d + %d s, from %s; the failures lasted %s. It is now %d.",
			hc.IntervalSec, hc.HealthyThreshold, int(margin.Seconds()), hc.Source, seconds(w.Duration()), wl.MinReadySeconds),
		Patch: deploymentPatch(wl, fmt.Sprintf("minReadySeconds: %d\n", minReady)),
	})
	if variant == variantNEGWithoutHealthCheck {
		zones := zonesSeen(a)
		replicas := max(len(zones), 3)
		fixes = append(fixes, Fix{
			Title: fmt.Sprintf("Run at least %d replicas spread over the zones", replicas),
			Why: fmt.Sprintf("The gate opens without a health check for the first pod in a zone (kubernetes/ingress-gce#1718). With replicas ≥ zones (%s seen) and topology spread, a rollout never moves the only pod to a new zone.",
				orDefault(strings.Join(zones, ", "), "several")),
			Patch: deploymentPatch(wl, fmt.Sprintf("replicas: %d\ntemplate:\n  spec:\n    topologySpreadConstraints:\n    - maxSkew: 1\n      topologyKey: topology.kubernetes.io/zone\n      whenUnsatisfiable: DoNotSchedule\n      labelSelector:\n        matchLabels:\n          app: %s\n      matchLabelKeys:\n      - pod-template-hash\n", replicas, wl.Name)),
		})
	}
	if wl.MaxUnavailable != "0" {
		fixes = append(fixes, rolloutStrategyFix(wl))
	}
	return fixes
}

// albGateMissing reports whether the pods lack an ALB target-health readiness
// gate and their namespace lacks the injection label, as far as objects say.
func albGateMissing(a *correlate.Analysis) bool {
	sawPods := false
	for _, c := range a.Configs {
		spec := c.PodSpec
		if c.Workload != nil {
			spec = c.Workload.Template
		}
		if c.ALBReadinessGateInjected() {
			return false
		}
		if spec == nil {
			continue
		}
		sawPods = true
		if spec.HasALBTargetHealthGate() {
			return false
		}
	}
	return sawPods
}

// zonesSeen lists the zones named by NEG events and backends.
func zonesSeen(a *correlate.Analysis) []string {
	set := map[string]bool{}
	for i := range a.Lifecycle {
		if z := a.Lifecycle[i].Zone; z != "" {
			set[z] = true
		}
	}
	var out []string
	for z := range set {
		out = append(out, z)
	}
	sort.Strings(out)
	return out
}

func firstEvent(ls []*sources.Lifecycle) *sources.Lifecycle {
	if len(ls) == 0 {
		return nil
	}
	return ls[0]
}

func lastEvent(ls []*sources.Lifecycle) *sources.Lifecycle {
	if len(ls) == 0 {
		return nil
	}
	return ls[len(ls)-1]
}

// appendPod adds the backend a lifecycle record names, once.
func appendPod(refs []BackendRef, a *correlate.Analysis, l *sources.Lifecycle, role correlate.Role, why string) []BackendRef {
	ref := BackendRef{IP: l.IP, Pod: l.Pod, Role: role, Why: why}
	if ref.Pod == "" && l.IP.IsValid() {
		if b := a.BackendOf(l.IP, l.Time); b != nil {
			ref.Pod = b.Pod
		}
	}
	if !ref.IP.IsValid() && ref.Pod != "" {
		for _, b := range a.Backends {
			if b.Pod == ref.Pod && len(b.IPs) > 0 {
				ref.IP = b.IPs[0]
			}
		}
	}
	for _, r := range refs {
		if (r.Pod != "" && r.Pod == ref.Pod) || (r.Pod == "" && ref.Pod == "" && r.IP == ref.IP) {
			return refs
		}
	}
	return append(refs, ref)
}

package classify

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// registrationLag explains failures in which the load balancer had no
// backend it considered healthy: Kubernetes called the new pod Ready (and
// removed the old one) before the load balancer's own health check passed.
// Its symptom is an answer without a backend: GCP failed_to_pick_backend,
// ALB 503/502 without a target, ingress-nginx 503 with no upstream. Events
// and objects make it certain: the NEG readiness gate opened by
// LoadBalancerNegWithoutHealthCheck, targets registered without a readiness
// gate, the proxy's "no active Endpoint".
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

// Tuning of the registration-lag rule.
const (
	// registrationLookback is how long before the failures a new pod's
	// start still explains them: a rollout step waits for the previous
	// one, and minReadySeconds plus a slow start take minutes at most.
	registrationLookback = 10 * time.Minute
	// oldLeavesBefore and oldLeavesAfter bound when an old backend's
	// departure counts as the start of the failures: the NEG detach or
	// target deregistration lands within a minute before, and the Killing
	// event up to its delivery delay after.
	oldLeavesBefore = time.Minute
	oldLeavesAfter  = 15 * time.Second
	// recoveryLookahead is how long after the failures a passing health
	// check still marks their end.
	recoveryLookahead = time.Minute
	// registrationClearFit is the share of no-backend answers above which
	// the logs alone name the mechanism with medium confidence.
	registrationClearFit = 0.9
	// minReadyMargin is added to check interval × healthy threshold for
	// minReadySeconds: one more check than the minimum, for the check that
	// races the registration.
	minReadyMargin = 10 * time.Second
	// measuredMargin is added to a measured outage when that is longer than
	// the computed minReadySeconds.
	measuredMargin = 5 * time.Second
	// fastCheckInterval is the interval proposed when the health check is
	// slower: GKE's and ALB's minimum is 5 s.
	fastCheckInterval = 5
	// minSpreadReplicas is the replica count proposed against the zone-move
	// variant when fewer zones were seen: a regional cluster has three zones.
	minSpreadReplicas = 3
)

// Cause implements Rule.
func (registrationLag) Cause() Cause { return registrationLagCause }

// Claims implements Rule: an answer the load balancer gave without any backend.
func (registrationLag) Claims(_ *correlate.Analysis, s *correlate.Signal) bool {
	return s.Kind == sources.FailureNoBackend && len(s.Attempts) == 0
}

// Explain implements Rule: one finding per rollout (or stretch of time).
func (registrationLag) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	var out []*Finding
	for _, g := range groupByRollout(a, claimed) {
		out = append(out, explainRegistrationLag(a, g))
	}
	return out
}

func explainRegistrationLag(a *correlate.Analysis, g incidentGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	platform := platformOf(w)
	f := &Finding{Cause: registrationLagCause.ID, Window: w, Rollout: g.Rollout}
	f.Evidence = failureEvidence(w, nil)
	corroborated := 0
	skew := a.Opts.Skew
	before := w.Start.Add(-registrationLookback)
	var newPods, oldPods []*correlate.Backend

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
		newPods = appendBackend(newPods, a.Backend(l.Namespace+"/"+l.Pod))
	}
	// New endpoints were attached or registered shortly before.
	if l := lastEvent(a.EventsBetween(before, w.End, sources.NEGAttach, sources.TargetRegistering, sources.TargetRegistered)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "a new endpoint was handed to the load balancer"))
		if l.IP.IsValid() {
			newPods = appendBackend(newPods, a.BackendOf(l.IP, l.Time))
		}
	}
	// Kubernetes declared a new pod Ready before the failures began.
	if l := lastEvent(a.EventsBetween(before, w.Start.Add(skew), sources.PodReady)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "Ready for Kubernetes before the load balancer could use it"))
		newPods = appendBackend(newPods, a.Backend(l.Namespace+"/"+l.Pod))
	}
	// The old backend went away as the failures began.
	if l := firstEvent(a.EventsBetween(w.Start.Add(-oldLeavesBefore), w.Start.Add(oldLeavesAfter),
		sources.Killing, sources.PodDeleted, sources.NEGDetach, sources.TargetDeregistering, sources.ScaledDown)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the old backend left as the failures began"))
		switch {
		case l.Pod != "":
			oldPods = appendBackend(oldPods, a.Backend(l.Namespace+"/"+l.Pod))
		case l.IP.IsValid():
			oldPods = appendBackend(oldPods, a.BackendOf(l.IP, l.Time))
		}
	}
	// The proxy itself said it had no endpoint.
	if nx := a.EventsBetween(w.Start.Add(-skew), w.End.Add(skew), sources.NoEndpoints); len(nx) > 0 {
		corroborated += 2
		f.Variant = variantNginxNoEndpoints
		f.Evidence = append(f.Evidence, eventEvidence(nx[0], fmt.Sprintf("%s during the failures", plural(len(nx), "such line"))))
	}
	// The load balancer saw the new backend healthy when the failures ended.
	if l := firstEvent(a.EventsBetween(w.End.Add(-skew), w.End.Add(recoveryLookahead), sources.HealthCheck)); l != nil && l.Health == sources.HealthHealthy {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer's health check passed as the failures ended"))
		newPods = appendBackend(newPods, a.BackendOf(l.IP, l.Time))
	}
	if platform == sources.FamilyALB && f.Variant == "" && albGateMissing(objectsOf(a)) {
		corroborated++
		f.Variant = variantALBNoGate
	}
	if g.Rollout != nil {
		newPods = append(newPods, g.Rollout.New.Pods...)
	}
	f.Backends = podRefs(a, newPods, oldPods, g.Rollout)
	f.grade(share(w.Kinds[sources.FailureNoBackend], len(w.Signals)), corroborated, registrationClearFit)
	hc := healthCheckOf(objectsOf(a), platform)
	wl := findWorkload(a, g.Rollout, f.Backends)
	f.Summary = registrationLagSummary(w, platform, envoyPlatformOf(a, w), f.Variant, hc)
	f.Remediation = registrationLagFixes(a, w, platform, f.Variant, hc, wl)
	return f
}

// podRefs names the new and old pods of a registration-lag finding once
// each: the ones records named, then the rest of the rollout's new pods
// that started before the failures ended.
func podRefs(a *correlate.Analysis, newPods, oldPods []*correlate.Backend, r *correlate.Rollout) []BackendRef {
	var refs []BackendRef
	seen := map[*correlate.Backend]bool{}
	add := func(b *correlate.Backend, role correlate.Role) {
		if b == nil || seen[b] {
			return
		}
		seen[b] = true
		ref := BackendRef{Of: b, Pod: b.Pod, Role: role}
		if len(b.IPs) > 0 {
			ref.IP = b.IPs[0]
		}
		if r != nil && r.RoleOf(b) != correlate.RoleUnknown {
			ref.Role = r.RoleOf(b)
		}
		ref.Why = roleWhy(a, b, ref.Role, ref.IP)
		refs = append(refs, ref)
	}
	for _, b := range newPods {
		add(b, correlate.RoleNew)
	}
	for _, b := range oldPods {
		add(b, correlate.RoleOld)
	}
	sortRefs(refs)
	return refs
}

// appendBackend adds b to bs unless it is nil.
func appendBackend(bs []*correlate.Backend, b *correlate.Backend) []*correlate.Backend {
	if b == nil {
		return bs
	}
	return append(bs, b)
}

// registrationLagSummary is the one sentence a human reads first.
func registrationLagSummary(w *correlate.Window, platform sources.Family, envoy sources.Platform, variant string, hc healthCheck) string {
	head := fmt.Sprintf("For %s (%s) %s had no backend it considered healthy and answered %s itself (%s)",
		seconds(w.Duration()), span(w), proxyNoun(platform, envoy), plural(w.Failed, "request"), statusList(w.StatusCounts))
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
	switch {
	case platform == sources.FamilyIngressNginx:
		return head + ": the proxy had no endpoint to send requests to while the rollout replaced the pods."
	case platform == sources.FamilyEnvoy && hc.Kind == "BackendTrafficPolicy":
		return head + fmt.Sprintf(": Kubernetes removed the old pods while Envoy's active health check had not yet passed the new ones (first check after up to %d s, then every %d s).", hc.JitterSec, hc.IntervalSec)
	case platform == sources.FamilyEnvoy:
		return head + ": Kubernetes removed the old pods before the control plane had handed the new endpoints to Envoy."
	}
	return head + ": Kubernetes considered the new pods Ready and removed the old ones before the load balancer's health check passed the new ones."
}

// registrationLagFixes computes the changes that keep old and new backends
// overlapping until the load balancer can use the new one.
func registrationLagFixes(a *correlate.Analysis, w *correlate.Window, platform sources.Family, variant string, hc healthCheck, wl workload) []Fix {
	objs := objectsOf(a)
	var fixes []Fix
	if platform == sources.FamilyALB {
		fixes = append(fixes, albGateFix(wl.Namespace))
	}
	plan := planMinReady(objs, platform, hc, wl)
	if plan.Faster != nil {
		fixes = append(fixes, *plan.Faster)
	}
	minReady := plan.MinReady
	if measured := ceilSeconds(w.Duration() + measuredMargin); platform != sources.FamilyGCP && measured > minReady {
		minReady = measured
	}
	fixes = append(fixes, minReadyFix(plan.Basis, hc, minReady, wl, w.Duration()))
	if variant == variantNEGWithoutHealthCheck {
		fixes = append(fixes, zoneSpreadFix(wl, zonesSeen(a)))
	}
	if wl.MaxUnavailable != "0" {
		fixes = append(fixes, rolloutStrategyFix(wl))
	}
	return fixes
}

// albGateFix labels the namespace so that the AWS Load Balancer Controller
// injects its target-health readiness gate into new pods.
func albGateFix(namespace string) Fix {
	return Fix{
		Title: "Let the AWS Load Balancer Controller gate pod readiness on target health",
		Why:   "With the readiness gate a new pod becomes Ready only when its ALB target is healthy, so the rollout cannot remove the old pods first. It needs target-type ip and applies to pods created after the label is set.",
		Patch: objectPatch("v1", "Namespace", "", orDefault(namespace, placeholderName("namespace")), map[string]any{"labels": map[string]any{sources.LabelALBReadinessGateInject: "enabled"}}, nil),
	}
}

// readyPlan is how long minReadySeconds must keep old pods after a new one
// is Ready for the load balancer's health check to pass it.
type readyPlan struct {
	// Basis is the health check MinReady is computed for: today's, or the
	// faster one Faster proposes.
	Basis healthCheck
	// MinReady is Basis's time to pass a new backend plus minReadyMargin,
	// in whole seconds.
	MinReady int
	// Faster makes the load balancer check new endpoints sooner; nil when
	// it already does (or the platform has no such setting).
	Faster *Fix
}

// planMinReady sizes minReadySeconds for the health check hc, proposing
// first a faster check where the platform allows: GKE's minimum interval,
// Envoy Gateway's initial jitter.
func planMinReady(objs *Objects, platform sources.Family, hc healthCheck, wl workload) readyPlan {
	plan := readyPlan{Basis: hc}
	switch platform {
	case sources.FamilyEnvoy:
		if fix, ok := envoyJitterFix(objs, hc); ok {
			plan.Faster = &fix
			plan.Basis.JitterSec = int(envoyFastJitter.Seconds())
		}
	case sources.FamilyGCP:
		if hc.IntervalSec > fastCheckInterval {
			ns, name := hc.Namespace, hc.Name
			if hc.Kind != "BackendConfig" {
				var ok bool
				if ns, name, ok = backendConfigOf(objs); !ok {
					ns, name = wl.Namespace, placeholderName("BackendConfig")
				}
			}
			plan.Faster = &Fix{
				Title: "Check new endpoints more often",
				Why:   fmt.Sprintf("The health check runs every %d s (from %s); a new endpoint waits up to that long for its first check.", hc.IntervalSec, hc.Source()),
				Patch: objectPatch("cloud.google.com/v1", "BackendConfig", ns, name, nil, map[string]any{"healthCheck": map[string]any{
					"checkIntervalSec": fastCheckInterval, "timeoutSec": 3, "healthyThreshold": 1, "unhealthyThreshold": 3}}),
			}
			plan.Basis = healthCheck{IntervalSec: fastCheckInterval, HealthyThreshold: hc.HealthyThreshold}
		}
	}
	plan.MinReady = minReadyFor(plan.Basis)
	return plan
}

// minReadyFor is the minReadySeconds that outlasts a health check's time to
// pass a new backend: that time plus minReadyMargin, in whole seconds.
func minReadyFor(hc healthCheck) int { return ceilSeconds(hc.Time() + minReadyMargin) }

// minReadyFix sets minReadySeconds to minReady, computed for the health
// check basis (today's hc, or a faster one proposed beside it). lasted is
// how long the failures lasted; zero before a deploy, when nothing was
// measured.
func minReadyFix(basis, hc healthCheck, minReady int, wl workload, lasted time.Duration) Fix {
	from := hc.Source()
	switch {
	case basis.IntervalSec != hc.IntervalSec:
		from = fmt.Sprintf("the %d s interval above (with today's %d s it would take %d s)", basis.IntervalSec, hc.IntervalSec, minReadyFor(hc))
	case basis.JitterSec != hc.JitterSec:
		from = fmt.Sprintf("the %d s initial jitter above (with today's %d s it would take %d s)", basis.JitterSec, hc.JitterSec, minReadyFor(hc))
	}
	observed := ""
	if lasted > 0 {
		observed = "; the failures lasted " + seconds(lasted)
	}
	why := fmt.Sprintf("minReadySeconds must exceed check interval × healthy threshold plus a margin: %d s × %d + %d s, from %s%s. It is now %d.",
		basis.IntervalSec, basis.HealthyThreshold, int(minReadyMargin.Seconds()), from, observed, wl.MinReadySeconds)
	switch {
	case hc.Kind == "none":
		why = fmt.Sprintf("minReadySeconds must outlast the endpoint update's way to Envoy; the failures lasted %s, so %d s leaves a %d s margin (%s). It is now %d.",
			seconds(lasted), minReady, int(measuredMargin.Seconds()), from, wl.MinReadySeconds)
	case basis.JitterSec > 0:
		why = fmt.Sprintf("minReadySeconds must exceed Envoy's wait before a new endpoint's first check, one check and a margin: %d s + %d s + %d s, from %s%s. It is now %d.",
			basis.JitterSec, basis.IntervalSec, int(minReadyMargin.Seconds()), from, observed, wl.MinReadySeconds)
	}
	return Fix{
		Title: fmt.Sprintf("Keep old pods for %d s after a new one is Ready (minReadySeconds)", minReady),
		Why:   why,
		Patch: deploymentPatch(wl, map[string]any{"minReadySeconds": minReady}),
	}
}

// zoneSpreadFix runs at least one replica per zone, spread by the
// scheduler, so that a rollout never moves the only pod to a new zone
// (where the NEG readiness gate opens without a health check). zones are
// the zones seen; a regional cluster's three when none.
func zoneSpreadFix(wl workload, zones []string) Fix {
	replicas := max(len(zones), minSpreadReplicas)
	return Fix{
		Title: fmt.Sprintf("Run at least %d replicas spread over the zones", replicas),
		Why: fmt.Sprintf("The gate opens without a health check for the first pod in a zone (kubernetes/ingress-gce#1718). With replicas ≥ zones (%s seen) and topology spread, a rollout never moves the only pod to a new zone.",
			orDefault(strings.Join(zones, ", "), "several")),
		Patch: deploymentPatch(wl, map[string]any{
			"replicas": replicas,
			"template": map[string]any{"spec": map[string]any{"topologySpreadConstraints": []any{map[string]any{
				"maxSkew": 1, "topologyKey": sources.LabelZone, "whenUnsatisfiable": "DoNotSchedule",
				"labelSelector":  map[string]any{"matchLabels": selectorOf(wl)},
				"matchLabelKeys": []any{"pod-template-hash"},
			}}}},
		}),
	}
}

// selectorOf returns the labels the workload's pods carry, for a topology
// spread's selector; app=<name> when the template is unknown.
func selectorOf(wl workload) map[string]any {
	return map[string]any{"app": wl.Name}
}

// rolloutStrategyFix keeps the old pods until the new ones are available.
func rolloutStrategyFix(wl workload) Fix {
	return Fix{
		Title: "Never take an old pod away before its replacement is available",
		Why:   fmt.Sprintf("maxUnavailable is %q; with 0 the Deployment removes an old pod only after a new one counts as available.", orDefault(wl.MaxUnavailable, defaultMaxUnavailable)),
		Patch: deploymentPatch(wl, map[string]any{"strategy": map[string]any{"type": "RollingUpdate",
			"rollingUpdate": map[string]any{"maxUnavailable": 0, "maxSurge": 1}}}),
	}
}

// albGateMissing reports whether the pods lack an ALB target-health readiness
// gate and their namespace lacks the injection label, as far as objects say.
func albGateMissing(objs *Objects) bool {
	sawPods := false
	for _, c := range objs.All() {
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

// zonesSeen lists the zones named by lifecycle records.
func zonesSeen(a *correlate.Analysis) []string {
	set := map[string]bool{}
	for i := range a.Lifecycle {
		if z := a.Lifecycle[i].Zone; z != "" {
			set[z] = true
		}
	}
	out := make([]string, 0, len(set))
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

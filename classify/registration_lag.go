package classify

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
	appsv1 "k8s.io/api/apps/v1"
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
	variantGoneBeforeReady       = "old-pods-gone-before-ready"
)

// registrationLagCause is the cause registrationLag names.
var registrationLagCause = Cause{
	ID:          "registration_lag",
	Name:        "registration lag",
	Description: "Kubernetes called the new pod Ready and removed the old one before the load balancer's own health check passed the new one: no healthy backend",
	Signature:   "GCP `failed_to_pick_backend`, ALB 503/502 without a target, ingress-nginx 503 with no upstream, Traefik 404 without a router (503 without a server with `allowEmptyServices`), in seconds the same load balancer served nothing; NEG gate opened by `LoadBalancerNegWithoutHealthCheck`, targets registered without a readiness gate, \"no active Endpoint\"",
	Variants: []Variant{
		{variantNEGWithoutHealthCheck, "NEG readiness gate opened without a health check"},
		{variantNEGTimeout, "NEG readiness gate timed out"},
		{variantALBNoGate, "ALB targets without a readiness gate"},
		{variantNginxNoEndpoints, "ingress-nginx had no endpoint"},
		{variantGoneBeforeReady, "old pods removed before a new one was Ready"},
	},
	Checks: registrationLagChecks,
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

// Claims implements Rule: an answer the load balancer gave without any
// backend, at a moment it had none: not one interleaved with answers its
// backends sent (see servedAround).
func (registrationLag) Claims(a *correlate.Analysis, s *correlate.Signal) bool {
	return noBackendAnswer(s) && !servedAround(a, s)
}

// servedAround reports whether the load balancer (or proxy upstream) that
// answered s without a backend had a backend answer other requests in the
// second of s and in the seconds either side. Then it did not lack healthy
// backends: a registration lag leaves a load balancer with none, so its
// answers without a backend fill the seconds between its last served
// response and its next; only the first and last of those seconds may also
// hold served ones. Failures like these come from a listener rule or target
// group without targets, or a capacity or WAF limit. A second beyond the
// request logs says nothing either way, nor does a signal of no group (as
// ConsistentWith asks about a kind of failure in general). Answers without
// a backend next to s with nothing served between (a gap of a second or so
// spanning two seconds that both hold served responses) are a lack of
// backends too.
func servedAround(a *correlate.Analysis, s *correlate.Signal) bool {
	if s.Group == nil {
		return false
	}
	lb := s.Group.LB
	if lb == "" {
		return false
	}
	sec := s.Time().Unix()
	first, last := a.DataSpan()
	if !a.ServedThrough(lb, sec) ||
		!(sec-1 < first.Unix() || a.ServedThrough(lb, sec-1)) ||
		!(sec+1 > last.Unix() || a.ServedThrough(lb, sec+1)) {
		return false
	}
	// Stamped to the second, a handover's gap of a second or so between
	// the last old pod's response and the first new one's holds served
	// responses in both its seconds: below the second, the answers
	// without a backend on one side of s with nothing served between them
	// and s are that gap, not a trickle among served ones.
	prev, next := a.NoBackendAround(lb, s.Time(), s.End())
	return (prev.IsZero() || a.ServedBetween(prev, s.Time())) && (next.IsZero() || a.ServedBetween(s.End(), next))
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
	family := familyOf(w)
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
	readyBefore := lastEvent(a.EventsBetween(before, w.Start.Add(skew), sources.PodReady))
	if l := readyBefore; l != nil {
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
		f.Evidence = append(f.Evidence, eventEvidence(nx[0], fmt.Sprintf("%s during the failures", words.Plural(len(nx), "such line"))))
	}
	// The proxy learned the new endpoints from its control plane as the
	// failures ended (proxysync.go).
	if ev, corr, ok := registrationProxySync(a, w); ok {
		f.Evidence = append(f.Evidence, ev)
		if corr {
			corroborated++
		}
	}
	// The load balancer saw the new backend healthy when the failures ended.
	if l := firstEvent(a.EventsBetween(w.End.Add(-skew), w.End.Add(recoveryLookahead), sources.HealthCheck)); l != nil && l.Health == sources.HealthHealthy {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer's health check passed as the failures ended"))
		newPods = appendBackend(newPods, a.BackendOf(l.IP, l.Time))
	}
	// No new pod was Ready before the failures, one became Ready as they
	// ended: the rollout took the old pods away first, whatever the load
	// balancer did.
	if f.Variant == "" && readyBefore == nil {
		if l := firstEvent(a.EventsBetween(w.Start.Add(skew), w.End.Add(recoveryLookahead), sources.PodReady)); l != nil {
			corroborated++
			f.Variant = variantGoneBeforeReady
			f.Evidence = append(f.Evidence, eventEvidence(l, "the first new pod Ready, after the failures began"))
			newPods = appendBackend(newPods, a.Backend(l.Namespace+"/"+l.Pod))
		}
	}
	if f.Variant == "" {
		if v := platformFor(family).gateMissing(objectsOf(a)); v != "" {
			corroborated++
			f.Variant = v
		}
	}
	if g.Rollout != nil {
		newPods = append(newPods, g.Rollout.New.Pods...)
		// Every old pod the rollout took away before or during the
		// failures left the load balancer fewer backends; the last of
		// them left it none.
		for _, rs := range g.Rollout.Old {
			for _, b := range rs.Pods {
				if t := b.At(correlate.Terminating); !t.IsZero() && !t.Before(w.Start.Add(-oldLeavesBefore)) && !t.After(w.End) {
					oldPods = appendBackend(oldPods, b)
				}
			}
		}
	}
	f.explicit = f.Variant == variantNEGWithoutHealthCheck
	f.Backends = podRefs(a, newPods, oldPods, g.Rollout)
	f.grade(share(w.Kinds[sources.FailureNoBackend], w.Count), corroborated, registrationClearFit)
	wl := findWorkload(a, g.Rollout, f.Backends)
	hc := workloadHealthCheck(objectsOf(a), wl, family) // the workload's own paths, not another's
	f.Summary = registrationLagSummary(w, family, envoyPlatformOf(a, w), f.Variant, hc, wl, g.Rollout != nil || corroborated > 0)
	f.Remediation = registrationLagFixes(a, w, family, f.Variant, hc, wl, f.Backends)
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
//
// shown is whether the data shows a rollout or a Kubernetes record behind
// the failures; without one the summary says so rather than tell a story
// of pods the data never mentions.
func registrationLagSummary(w *correlate.Window, family sources.Family, product sources.Platform, variant string, hc healthCheck, wl workload, shown bool) string {
	p := platformFor(family)
	head := fmt.Sprintf("For %s (%s) %s had no backend it considered healthy and answered %s itself (%s)",
		seconds(w.Duration()), span(w), p.noun(product), words.Plural(w.Failed, "request"), statusList(w.StatusCounts))
	switch variant {
	case variantNEGWithoutHealthCheck:
		return head + ": the new pod's NEG readiness gate opened without any health check (LoadBalancerNegWithoutHealthCheck, typical of the first pod in a new zone), so the old pod was removed before the load balancer had checked the new one."
	case variantNEGTimeout:
		return head + ": the NEG readiness gate timed out and opened anyway, so Kubernetes moved on before the load balancer saw the new pod healthy."
	case variantALBNoGate:
		return head + fmt.Sprintf(": pods became Ready and old ones were removed while the new targets were still in ALB's initial state (%d s × %d health checks), because no readiness gate ties pod readiness to target health.", hc.IntervalSec, hc.HealthyThreshold)
	case variantNginxNoEndpoints:
		return head + ": ingress-nginx had zero ready endpoints for the Service — the old pods were gone before a new one was Ready."
	case variantGoneBeforeReady:
		strategy := ""
		if wl.Known && wl.Replicas > 0 {
			_, why := rolloutFloor(wl.Replicas, "", wl.MaxSurge, wl.MaxUnavailable)
			strategy = " (" + why + ")"
		}
		return head + fmt.Sprintf(": the rollout removed the old pods before a new one was Ready%s, so there was nothing to send requests to until the new pod started and %s learned of it.", strategy, p.noun(product))
	}
	if !shown {
		return head + ": no rollout and no Kubernetes record in the data show what took its backends away. New pods that Kubernetes called Ready before the load balancer's health check passed them do this; so does a target group or Service left without endpoints."
	}
	if reason := p.lagReason(hc); reason != "" {
		return head + reason
	}
	return head + ": Kubernetes considered the new pods Ready and removed the old ones before the load balancer's health check passed the new ones."
}

// registrationLagFixes computes the changes that keep old and new backends
// overlapping until the load balancer can use the new one; refs are the
// incident's pods, whose Ready and first use by the load balancer size
// minReadySeconds where they were measured.
func registrationLagFixes(a *correlate.Analysis, w *correlate.Window, family sources.Family, variant string, hc healthCheck, wl workload, refs []BackendRef) []Fix {
	var fixes []Fix
	p := platformFor(family)
	if variant == variantGoneBeforeReady {
		// The outage was the new pod's start: the strategy is the fix, and
		// minReadySeconds only for a health check the load balancer runs
		// on new endpoints once old and new overlap.
		fixes = append(fixes, rolloutStrategyFix(wl)...)
		if fix, ok := p.gateFix(wl); ok {
			fixes = append(fixes, fix)
		}
		if plan := planMinReady(family, hc, wl); hc.Time() > 0 {
			if plan.Faster != nil {
				fixes = append(fixes, *plan.Faster)
			}
			fixes = append(fixes, minReadyFix(plan.Basis, hc, plan.MinReady, wl, 0))
		}
		if fix, ok := p.emptyServiceFix(objectsOf(a), w.StatusCounts); ok {
			fixes = append(fixes, fix)
		}
		return fixes
	}
	if fix, ok := p.gateFix(wl); ok {
		fixes = append(fixes, fix)
	}
	plan := planMinReady(family, hc, wl)
	if plan.Faster != nil {
		fixes = append(fixes, *plan.Faster)
	}
	minReady := plan.MinReady
	if !p.healthCheckBoundsLag() {
		// An outage longer than the health check explains: cover it.
		minReady = max(minReady, ceilSeconds(w.Duration()+measuredMargin))
	}
	// What the load balancer took from a new pod's Ready to its use, where
	// the records measure it, beats the formula when it is longer.
	m, measured := measureReadyToServed(refs)
	minReady, note := sizedFromMeasured(minReady, hc, plan.Basis, m, measured)
	fix := minReadyFix(plan.Basis, hc, minReady, wl, w.Duration())
	fix.Why += note
	fixes = append(fixes, fix)
	if variant == variantNEGWithoutHealthCheck {
		fixes = append(fixes, zoneSpreadFix(wl, zonesSeen(a), 0)...)
	}
	if wl.MaxUnavailable != "0" {
		fixes = append(fixes, rolloutStrategyFix(wl)...)
	}
	if fix, ok := p.emptyServiceFix(objectsOf(a), w.StatusCounts); ok {
		fixes = append(fixes, fix)
	}
	return fixes
}

// albGateFix labels the namespace so that the AWS Load Balancer Controller
// injects its target-health readiness gate into new pods.
func albGateFix(namespace string) Fix {
	return Fix{
		Title: "Let the AWS Load Balancer Controller gate pod readiness on target health",
		Why:   "With the readiness gate a new pod becomes Ready only when its ALB target is healthy, so the rollout cannot remove the old pods first. It needs target-type ip and applies to pods created after the label is set.",
		Patch: objectPatch("v1", "Namespace", "", cmp.Or(namespace, placeholderName("namespace")), map[string]any{"labels": map[string]any{sources.LabelALBReadinessGateInject: "enabled"}}, nil),
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
// in the BackendConfig the path's Service names; Envoy Gateway's initial
// jitter, in the policy hc came from.
func planMinReady(family sources.Family, hc healthCheck, wl workload) readyPlan {
	plan := readyPlan{Basis: hc}
	plan.Faster, plan.Basis = platformFor(family).fasterCheck(hc, wl)
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
		from = fmt.Sprintf("the %d s interval above (with the %d s of %s it would take %d s)", basis.IntervalSec, hc.IntervalSec, hc.Source(), minReadyFor(hc))
	case basis.JitterSec != hc.JitterSec:
		from = fmt.Sprintf("the %d s initial jitter above (with the %d s of %s it would take %d s)", basis.JitterSec, hc.JitterSec, hc.Source(), minReadyFor(hc))
	}
	observed := ""
	if lasted > 0 {
		observed = "; the failures lasted " + seconds(lasted)
	}
	current := fmt.Sprintf(" minReadySeconds is %d (%s).", wl.MinReadySeconds, wl.minReadySource())
	why := fmt.Sprintf("minReadySeconds must exceed check interval × healthy threshold plus a margin: %d s × %d + %d s, from %s%s.%s",
		basis.IntervalSec, basis.HealthyThreshold, int(minReadyMargin.Seconds()), from, observed, current)
	switch {
	case hc.Kind == "none":
		why = fmt.Sprintf("minReadySeconds must outlast the endpoint update's way to Envoy; the failures lasted %s, so %d s leaves a %d s margin (%s).%s",
			seconds(lasted), minReady, int(measuredMargin.Seconds()), from, current)
	case basis.JitterSec > 0:
		why = fmt.Sprintf("minReadySeconds must exceed Envoy's wait before a new endpoint's first check, one check and a margin: %d s + %d s + %d s, from %s%s.%s",
			basis.JitterSec, basis.IntervalSec, int(minReadyMargin.Seconds()), from, observed, current)
	}
	spec, deadline := withMinReady(wl, map[string]any{}, minReady)
	return Fix{
		Title: fmt.Sprintf("Keep old pods for %d s after a new one is Ready (minReadySeconds)", minReady),
		Why:   why + deadline,
		Patch: deploymentPatch(wl, spec),
	}
}

// zoneSpreadFix runs at least one replica per zone, spread by the
// scheduler, so that a rollout never moves the only pod to a new zone
// (where the NEG readiness gate opens without a health check). zones are
// the zones seen, assumed how many were assumed when none was (0: not
// said); a regional cluster's three at the least. A workload an
// autoscaler scales gets the replicas as the autoscaler's minReplicas
// (spec.replicas would be overwritten at its next sync) and the spread in
// its template: two fixes.
func zoneSpreadFix(wl workload, zones []string, assumed int) []Fix {
	replicas := max(len(zones), minSpreadReplicas)
	seen := cmp.Or(strings.Join(zones, ", "), "several") + " seen"
	if len(zones) == 0 && assumed > 0 {
		seen = fmt.Sprintf("%d assumed", assumed)
	}
	spec := map[string]any{
		"template": map[string]any{"spec": map[string]any{"topologySpreadConstraints": []any{map[string]any{
			"maxSkew": 1, "topologyKey": sources.LabelZone, "whenUnsatisfiable": "DoNotSchedule",
			"labelSelector":  map[string]any{"matchLabels": selectorOf(wl)},
			"matchLabelKeys": []any{revisionLabel(wl)},
		}}}},
	}
	why := fmt.Sprintf("The gate opens without a health check for the first pod in a zone (kubernetes/ingress-gce#1718). With replicas ≥ zones (%s) and topology spread, a rollout never moves the only pod to a new zone.", seen)
	hpa := wl.Autoscaler
	if hpa == nil {
		spec["replicas"] = replicas
		return []Fix{{Title: fmt.Sprintf("Run at least %d replicas spread over the zones", replicas), Why: why, Patch: deploymentPatch(wl, spec)}}
	}
	min := 1
	if hpa.Autoscaler.MinReplicas != nil {
		min = *hpa.Autoscaler.MinReplicas
	}
	fixes := []Fix{{Title: "Spread the pods over the zones", Why: why, Patch: deploymentPatch(wl, spec)}}
	if min < replicas {
		fixes = append(fixes, Fix{
			Title: fmt.Sprintf("Let the autoscaler run at least %d replicas", replicas),
			Why: fmt.Sprintf("%s scales the workload (minReplicas %d, %s): its minReplicas, not spec.replicas, keeps a pod in each zone.",
				objectName(hpa), min, readAt(hpa.Origin)),
			Patch: objectPatch("autoscaling/v2", "HorizontalPodAutoscaler", hpa.Namespace, hpa.Name, nil, map[string]any{
				"minReplicas": replicas, "maxReplicas": max(hpa.Autoscaler.MaxReplicas, replicas)}),
		})
	}
	return fixes
}

// revisionLabel is the label the workload's controller puts on the pods
// of one revision, which a topology spread's matchLabelKeys names so that
// old and new pods are spread apart: pod-template-hash on a Deployment's
// pods, controller-revision-hash on a StatefulSet's, and
// rollouts-pod-template-hash on an Argo Rollout's.
func revisionLabel(wl workload) string {
	switch wl.Kind {
	case "StatefulSet":
		return appsv1.StatefulSetRevisionLabel
	case correlate.KindArgoRollout:
		return sources.RolloutLabelPodTemplateHash
	}
	return appsv1.DefaultDeploymentUniqueLabelKey
}

// selectorOf returns the labels that select the workload's pods, for a
// topology spread's or a disruption budget's selector: its
// spec.selector.matchLabels as read; a placeholder, which makes the fix a
// template, when the workload was not read.
func selectorOf(wl workload) map[string]any {
	if len(wl.Selector) == 0 {
		return map[string]any{"app": placeholderName("pod label")}
	}
	out := make(map[string]any, len(wl.Selector))
	for k, v := range wl.Selector {
		out[k] = v
	}
	return out
}

// maxUnavailableSource says where the workload's maxUnavailable comes from.
func maxUnavailableSource(wl workload) string {
	switch {
	case !wl.Known:
		return assumedDefault
	case wl.MaxUnavailable == "":
		return "the API default: the spec read at " + wl.Origin.String() + " does not set it"
	}
	return readAt(wl.Origin)
}

// rolloutStrategyFix keeps the old pods until the new ones are available:
// a Deployment's rollingUpdate, or an Argo canary Rollout's own maxSurge
// and maxUnavailable (spec.strategy.canary). None for a StatefulSet, which
// has no surge and replaces one pod at a time, nor for a blue-green
// Rollout (which keeps the old pods until it switches) or a Rollout not
// read.
func rolloutStrategyFix(wl workload) []Fix {
	switch {
	case wl.Kind == "StatefulSet":
		return nil
	case wl.Kind == correlate.KindArgoRollout && wl.Strategy == "canary":
		return []Fix{{
			Title: "Never take an old pod away before its replacement is available",
			Why: fmt.Sprintf("maxUnavailable is %q (%s); with 0 the canary Rollout removes an old pod only after a new one counts as available.",
				cmp.Or(wl.MaxUnavailable, defaultMaxUnavailable), maxUnavailableSource(wl)),
			Patch: deploymentPatch(wl, map[string]any{"strategy": map[string]any{"canary": map[string]any{"maxUnavailable": 0, "maxSurge": 1}}}),
		}}
	case wl.Kind == correlate.KindArgoRollout:
		return nil
	}
	return []Fix{{
		Title: "Never take an old pod away before its replacement is available",
		Why: fmt.Sprintf("maxUnavailable is %q (%s); with 0 the Deployment removes an old pod only after a new one counts as available.%s",
			cmp.Or(wl.MaxUnavailable, defaultMaxUnavailable), maxUnavailableSource(wl), strategyNote(wl)),
		Patch: deploymentPatch(wl, map[string]any{"strategy": map[string]any{"type": "RollingUpdate",
			"rollingUpdate": map[string]any{"maxUnavailable": 0, "maxSurge": 1}}}),
	}}
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

// Static checks of registration lag.
const (
	checkALBGate        = "alb-readiness-gate"
	checkNEGGate        = "neg-readiness-gate"
	checkNEGZoneMove    = "neg-zone-move"
	checkMinReady       = "min-ready-seconds"
	checkMaxUnavailable = "max-unavailable"
)

// registrationLagChecks describe the static checks of registrationLag.
var registrationLagChecks = []StaticCheck{
	{checkALBGate, "ALB targets without a readiness gate",
		"target-type ip without the AWS Load Balancer Controller's readiness gate (Namespace label missing, or pods created without it), while minReadySeconds is below the target group's health-check interval × healthy threshold + 10 s (more where a first check as late as 1.5 intervals after registration needs it)"},
	{checkNEGGate, "NEG endpoints without a readiness gate",
		"a standalone NEG (GKE injects no readiness gate), or pods of a live cluster created without the NEG gate, while minReadySeconds is below the health check's interval × healthy threshold + 10 s"},
	{checkNEGZoneMove, "fewer replicas than zones behind a NEG",
		"replicas below the zones (the Service's NEG status, else 3) without a topology spread over zones, where the NEG gate opens without a health check for the first pod in a zone (kubernetes/ingress-gce#1718), while minReadySeconds is below interval × healthy threshold + 10 s"},
	{checkMinReady, "minReadySeconds shorter than Envoy's active health check",
		"an Envoy Gateway BackendTrafficPolicy's active health check (initial jitter + interval) + 10 s above minReadySeconds"},
	{checkMaxUnavailable, "a rollout may take every pod away",
		"replicas minus maxUnavailable, as Kubernetes rounds it, at or below zero (or strategy Recreate) for a workload a Service selects"},
}

// Check implements Rule: per workload and path, the pods have no readiness
// gate that works and minReadySeconds does not outlast the load
// balancer's health check; or a rollout may leave no pod at all.
func (registrationLag) Check(objs *Objects) []*Risk {
	var out []*Risk
	for _, t := range objs.targetsOf() {
		if r := maxUnavailableRisk(t); r != nil {
			out = append(out, r)
		}
		for _, f := range t.Fronts {
			out = append(out, registrationLagRisks(t, f)...)
		}
	}
	return out
}

// registrationLagRisks checks one path to a workload: what keeps the
// rollout from removing old pods before the load balancer passed a new
// one, and whether minReadySeconds covers the health check when nothing
// does.
func registrationLagRisks(t *target, f front) []*Risk {
	hc, risk := f.platform().lagRisk(t, f)
	if risk == nil {
		return nil
	}
	required := minReadyFor(hc)
	// A new zone's NEG joins the backend service well after the pod's
	// endpoint: a pod that is Ready soon needs more than the health
	// check's time plus the margin.
	var lead time.Duration
	var probe *sources.Probe
	if c, _ := servingContainer(t.wl.Template, t.servedPorts()); c != nil {
		probe = c.Readiness
	}
	// ALB checks a new target first up to one and a half intervals after
	// registering it: a slow check may need more too.
	surge, unavailable := albRolloutRound(t.wl, t.Replicas)
	switch risk.Check {
	case checkNEGZoneMove:
		lead, _ = readyLead(probe)
		required = max(required, negZoneMoveMinReady(hc, lead))
	case checkALBGate:
		lead, _ = podReadyLead(probe)
		required = max(required, albMinReady(hc, lead, t.Replicas, surge, unavailable))
	}
	if t.wl.MinReadySeconds >= required {
		return nil // old pods outlast the health check
	}
	margin := fmt.Sprintf("that plus a %d s margin", int(minReadyMargin.Seconds()))
	if formula := minReadyFor(hc); required > formula && risk.Check == checkALBGate {
		margin = fmt.Sprintf("that plus a %d s margin is %d s, raised for a first check that comes late", int(minReadyMargin.Seconds()), formula)
	}
	risk.Reason += fmt.Sprintf(" A new backend needs %s = %d s of health checks before the load balancer sends it requests, by %s; minReadySeconds is %d, below the %d s (%s) that would keep the old pods serving meanwhile.",
		checkFormula(hc), ceilSeconds(hc.Time()), hc.Source(), t.wl.MinReadySeconds, required, margin)
	plan := planMinReady(f.Family, hc, t.wl)
	switch {
	case risk.Check == checkALBGate && risk.Severity == SeverityWarning && t.Namespace != nil:
		risk.Fixes = append(risk.Fixes, recreateFix(t.wl, "the AWS Load Balancer Controller's webhook"))
	case risk.Check == checkALBGate:
		risk.Fixes = append(risk.Fixes, albGateFix(t.Config.Namespace))
	case risk.Check == checkNEGGate && !f.Standalone:
		risk.Fixes = append(risk.Fixes, recreateFix(t.wl, "GKE"))
	}
	if plan.Faster != nil {
		risk.Fixes = append(risk.Fixes, *plan.Faster)
	}
	if risk.Check == checkALBGate {
		sized := plan.MinReady
		plan.MinReady = max(plan.MinReady, albMinReady(plan.Basis, lead, t.Replicas, surge, unavailable))
		fix := minReadyFix(plan.Basis, hc, plan.MinReady, t.wl, 0)
		if plan.MinReady > sized {
			fix.Why += fmt.Sprintf(" Raised from %d s to %d s: ALB checks a new target first one to one and a half intervals after registering it (assumed), so %d s would still leave up to %s of 502s.",
				sized, plan.MinReady, sized, secondsText(albWindowAt(albLateCheckShare, plan.Basis, sized, lead, t.Replicas, surge, unavailable, albDataPlaneLag)))
		}
		risk.Fixes = append(risk.Fixes, fix)
		risk.Prediction = predictALBNoGate(hc, plan, t.wl, t.Replicas, probe)
		return []*Risk{risk}
	}
	if risk.Check != checkNEGZoneMove {
		risk.Fixes = append(risk.Fixes, minReadyFix(plan.Basis, hc, plan.MinReady, t.wl, 0))
		return []*Risk{risk}
	}
	sized := plan.MinReady
	plan.MinReady = max(plan.MinReady, negZoneMoveMinReady(plan.Basis, lead))
	fix := minReadyFix(plan.Basis, hc, plan.MinReady, t.wl, 0)
	if plan.MinReady > sized {
		fix.Why += fmt.Sprintf(" Raised from %d s to %d s: the new zone's NEG joins the backend service about %s after the pod's endpoint (assumed), while this pod is Ready about %s after it, so %d s would still leave ≈ %s of %ds.",
			sized, plan.MinReady, secondsText(negNewZoneProgramming), secondsText(lead), sized, secondsText(negZoneMoveWindow(plan.Basis, sized, lead)), 502)
	}
	risk.Fixes = append(risk.Fixes, fix)
	risk.Fixes = append(risk.Fixes, zoneSpreadFix(t.wl, f.Service.Service.NEGZones, minSpreadReplicas)...)
	risk.Prediction = predictNEGZoneMove(hc, plan, t.wl, probe)
	return []*Risk{risk}
}

// recreateFix recreates the pods a readiness-gate webhook (by) skipped:
// it adds the gate to new pods only.
func recreateFix(wl workload, by string) Fix {
	return Fix{
		Title: "Recreate the pods that lack the readiness gate",
		Why: fmt.Sprintf("%s adds the gate to pods as they are created: `kubectl rollout restart deployment/%s -n %s` replaces them, and with the gate that rollout itself waits for the load balancer.",
			upperFirst(by), wl.Name, wl.Namespace),
	}
}

// checkFormula writes a health check's time to pass a new backend as its
// parts: "30 s × 5", "1 s + 3 s" (Envoy's initial jitter, then one check).
func checkFormula(hc healthCheck) string {
	if hc.JitterSec > 0 {
		return fmt.Sprintf("%d s + %d s", hc.JitterSec, hc.IntervalSec*hc.HealthyThreshold)
	}
	return fmt.Sprintf("%d s × %d", hc.IntervalSec, hc.HealthyThreshold)
}

// albGateRisk is the risk of ALB targets whose pods no target-health
// readiness gate holds back; nil when every pod read has the gate.
func albGateRisk(t *target, f front) *Risk {
	path := fmt.Sprintf("%s sends ALB traffic straight to pod IPs (target-type ip)", objectName(f.Via))
	spec := t.wl.Template
	labelled := t.Namespace != nil && t.Namespace.ALBReadinessGateInjected()
	if spec.HasALBTargetHealthGate() || labelled {
		var without []string
		for _, p := range t.Pods {
			if p.PodSpec != nil && !p.PodSpec.HasALBTargetHealthGate() {
				without = append(without, p.Name)
			}
		}
		if len(without) == 0 {
			return nil
		}
		r := newRisk(registrationLagCause, checkALBGate, SeverityWarning, t)
		r.Via = f.Via
		r.Title = fmt.Sprintf("%s has pods without the ALB readiness gate (%d of %d)", objectName(t.Config), len(without), len(t.Pods))
		r.Reason = fmt.Sprintf("%s, and namespace %s is labelled for the readiness gate, but these pods carry none: %s. They were created before the label or the target group binding, or while the controller's webhook was down (its failurePolicy Ignore lets pods through).",
			path, t.Config.Namespace, strings.Join(without, ", "))
		return r
	}
	r := newRisk(registrationLagCause, checkALBGate, SeverityError, t)
	r.Via = f.Via
	r.Title = fmt.Sprintf("ALB targets of %s have no readiness gate", objectName(t.Config))
	why := fmt.Sprintf("Namespace %s lacks the label %s=enabled", t.Config.Namespace, sources.LabelALBReadinessGateInject)
	if t.Namespace == nil {
		r.Severity = SeverityWarning
		why = fmt.Sprintf("namespace %s is not among the objects read, and unless it carries the label %s=enabled", t.Config.Namespace, sources.LabelALBReadinessGateInject)
	} else {
		r.Object = t.Namespace
	}
	r.Reason = fmt.Sprintf("%s, but nothing holds a new pod back until its target is healthy: %s, and the pod template has no target-health readiness gate.", path, why)
	return r
}

// negGateRisk is the risk of NEG endpoints whose readiness gate does not
// wait for the load balancer: a standalone NEG (no gate at all), pods
// created without the gate, or fewer replicas than zones; nil when the
// gate works.
func negGateRisk(t *target, f front) *Risk {
	s := f.Service.Service
	if f.Standalone {
		r := newRisk(registrationLagCause, checkNEGGate, SeverityError, t)
		r.Via, r.Object = f.Via, f.Service
		r.Title = fmt.Sprintf("the standalone NEG of %s has no readiness gate", objectName(f.Service))
		r.Reason = fmt.Sprintf("%s exposes port %d as a standalone NEG, and GKE gives pods behind a standalone NEG no readiness gate: Kubernetes calls a new pod Ready, and the rollout removes an old one, before the load balancer has checked it.",
			objectName(f.Service), f.Port.Port)
		return r
	}
	if s.NEG != "" && !s.NEGIngress {
		return nil // {"ingress": false}: instance groups, kube-proxy routes to Ready pods
	}
	var without []string
	for _, p := range t.Pods {
		if p.PodSpec != nil && !p.PodSpec.HasNEGReadinessGate() {
			without = append(without, p.Name)
		}
	}
	if len(without) > 0 {
		r := newRisk(registrationLagCause, checkNEGGate, SeverityWarning, t)
		r.Via = f.Via
		r.Title = fmt.Sprintf("%s has pods without the NEG readiness gate (%d of %d)", objectName(t.Config), len(without), len(t.Pods))
		r.Reason = fmt.Sprintf("%s, but these pods carry no %s readiness gate: %s. They were created before the Service used a NEG.",
			negPath(f), sources.NEGReadinessGate, strings.Join(without, ", "))
		return r
	}
	zones, assumed := len(s.NEGZones), ""
	if zones == 0 {
		zones, assumed = minSpreadReplicas, " (assumed: a regional cluster; a live Service's NEG status names them)"
	}
	if t.Replicas >= zones || t.wl.Template.SpreadsOverZones() {
		return nil
	}
	r := newRisk(registrationLagCause, checkNEGZoneMove, SeverityError, t)
	r.Via = f.Via
	r.Title = fmt.Sprintf("%s runs %s in %d zones behind a NEG", objectName(t.Config), words.Plural(t.Replicas, "replica"), zones)
	r.Reason = fmt.Sprintf("%s; with %s in %d zones%s and no topology spread over zones, a rollout may start the new pod in a zone of its own, where the NEG readiness gate opens without a health check (LoadBalancerNegWithoutHealthCheck, kubernetes/ingress-gce#1718).",
		negPath(f), words.Plural(t.Replicas, "replica"), zones, assumed)
	return r
}

// negPath says how Google's load balancer reaches the pods through a NEG.
func negPath(f front) string {
	if f.Via == f.Service {
		return fmt.Sprintf("%s is a NEG backend of a GKE Ingress (its cloud.google.com/neg annotation)", objectName(f.Service))
	}
	return fmt.Sprintf("%s sends Google's load balancer to a NEG of %s", objectName(f.Via), objectName(f.Service))
}

// maxUnavailableRisk is the risk of a rollout that may stop every pod of a
// workload a Service selects before a replacement is available; nil when
// it keeps one.
func maxUnavailableRisk(t *target) *Risk {
	if len(t.Services) == 0 || t.Replicas < 1 {
		return nil
	}
	w := t.Config.Workload
	floor, why := rolloutFloor(t.Replicas, w.Strategy, w.MaxSurge, w.MaxUnavailable)
	if floor > 0 {
		return nil
	}
	r := newRisk(registrationLagCause, checkMaxUnavailable, SeverityError, t)
	r.Title = fmt.Sprintf("a rollout of %s may leave no pod serving", objectName(t.Config))
	r.Reason = fmt.Sprintf("%s runs %s and %s, so a rollout may take every pod away before a replacement is available: %s has no endpoint, and the load balancer no healthy backend.",
		objectName(t.Config), words.Plural(t.Replicas, "replica"), why, objectName(t.Services[0]))
	r.Fixes = rolloutStrategyFix(t.wl)
	return r
}

// rolloutFloor is how many pods a rollout keeps available, with maxSurge
// and maxUnavailable resolved as the Deployment controller does
// (correlate.RolloutBudget); 0 for Recreate. why words the numbers.
func rolloutFloor(replicas int, strategy, maxSurge, maxUnavailable string) (floor int, why string) {
	if strategy == "Recreate" {
		return 0, "strategy Recreate (every old pod stops before a new one starts)"
	}
	surgeText, unavailText := cmp.Or(maxSurge, defaultMaxUnavailable), cmp.Or(maxUnavailable, defaultMaxUnavailable)
	_, unavail := correlate.RolloutBudget(replicas, maxSurge, maxUnavailable)
	return replicas - unavail, fmt.Sprintf("maxUnavailable %s (%d of %d) with maxSurge %s", unavailText, unavail, replicas, surgeText)
}

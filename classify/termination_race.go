package classify

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// terminationRace explains failures at pods that had begun terminating: the
// pod leaves the EndpointSlice and gets SIGTERM at the same moment, and the
// load balancer learns of the removal seconds later. Its symptom is a
// refused, closed or unreachable connection at a pod after its termination
// began (or, from the logs alone, after it served its last request); events
// and objects add the Killing times and the missing preStop hook.
type terminationRace struct{}

// terminationRaceCause is the cause terminationRace names.
var terminationRaceCause = Cause{
	ID:          "termination_race",
	Name:        "termination race",
	Description: "old pods stop listening at SIGTERM while the load balancer still sends to them",
	Signature:   "refused/closed connections to old pod IPs only, right after each began terminating; no preStop hook",
	Checks:      terminationRaceChecks,
}

// Tuning of the termination-race rule.
const (
	// terminationClearFit is the share of failures at terminating or gone
	// pods above which the logs alone name the mechanism with medium
	// confidence.
	terminationClearFit = 0.9
	// goneFit is how much a failure at a backend that merely stopped
	// serving (the traffic alone says so) counts towards the fit, against 1
	// for one whose termination a Kubernetes record shows.
	goneFit = 0.9
	// preStopMargin is added to the measured stop lag for the preStop
	// sleep, and minPreStop is the least proposed: the load balancers'
	// deregistration propagates in single seconds when it goes well.
	preStopMargin = 5 * time.Second
	minPreStop    = 10
	// appShutdown is what the fixes add to the preStop sleep for the grace
	// period: the app's own shutdown after SIGTERM, as long as Kubernetes
	// gives it when a spec sets no grace period (the
	// terminationGracePeriodSeconds default, 30 s), which is also the
	// default graceful-shutdown timeout of gunicorn (graceful_timeout) and
	// Spring Boot (spring.lifecycle.timeout-per-shutdown-phase). The sleep
	// then costs the app none of its shutdown time.
	appShutdown = int(correlate.DefaultGracePeriod / time.Second)
	// kubeletMinShutdown is the kubelet's minimal shutdown window: when the
	// preStop hook has used up the grace period, the kubelet still sends
	// SIGTERM and waits 2 s before SIGKILL (minimumGracePeriodInSeconds in
	// pkg/kubelet/kuberuntime, "a minimal shutdown window for avoiding
	// unnecessary SIGKILLs"; the Pod Lifecycle docs' "one-off grace period
	// extension of 2 seconds"). A grace period that leaves the app no more
	// than that after the sleep gives it no shutdown of its own, which the
	// static check reports; beyond it, how long the app needs is its own
	// business, which the objects do not say.
	kubeletMinShutdown = 2
)

// Cause implements Rule.
func (terminationRace) Cause() Cause { return terminationRaceCause }

// Claims implements Rule: a failed attempt at a pod that had begun
// terminating or was gone.
func (terminationRace) Claims(_ *correlate.Analysis, s *correlate.Signal) bool {
	at := s.Last()
	return at != nil && (at.State == correlate.StateTerminating || at.State == correlate.StateGone) && backendFailure(at.Kind)
}

// Explain implements Rule: one finding per rollout (or stretch of time).
func (terminationRace) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	var out []*Finding
	for _, g := range groupByEpisode(a, claimed, func(s *correlate.Signal) incidentGroup {
		at := s.Last()
		t := a.TriggerOf(at.Of, terminationStart(at.Of))
		alike := false // the trigger of every pod the bare IP may be
		if at.Of == nil || at.Of.Pod == "" {
			t, alike = alikeTrigger(a, at.Of)
			if !alike {
				t = a.TriggerNear(s.Time())
			}
		}
		if t.Kind == correlate.TriggerUnknown && s.Rollout != nil {
			// Nothing says what deleted the pod but a rollout was under way:
			// group with it.
			return incidentGroup{Rollout: s.Rollout, Trigger: correlate.Trigger{Kind: correlate.TriggerRollout, Rollout: s.Rollout}}
		}
		// The drain, eviction or scale-in event found from the failing
		// pod itself names it.
		explicit := at.Of != nil && (at.Of.Pod != "" || alike) && t.Event != nil &&
			(t.Kind == correlate.TriggerNodeDrain || t.Kind == correlate.TriggerScaleIn)
		return incidentGroup{Rollout: t.Rollout, Trigger: t, Explicit: explicit}
	}) {
		out = append(out, explainTerminationRace(a, g))
	}
	return out
}

// alikeTrigger returns what deleted the pods a bare IP may have been (pods
// deleted in the same second, which timing cannot tell apart), when one
// drain, eviction or scale-in record deleted them all; ok is false
// otherwise.
func alikeTrigger(a *correlate.Analysis, b *correlate.Backend) (t correlate.Trigger, ok bool) {
	if b == nil || len(b.Alike) == 0 {
		return correlate.Trigger{}, false
	}
	for i, p := range b.Alike {
		pt := a.TriggerOf(p, terminationStart(p))
		if pt.Event == nil || pt.Kind != correlate.TriggerNodeDrain && pt.Kind != correlate.TriggerScaleIn {
			return correlate.Trigger{}, false
		}
		if i == 0 {
			t = pt
		} else if pt.Key() != t.Key() {
			return correlate.Trigger{}, false
		}
	}
	return t, true
}

func explainTerminationRace(a *correlate.Analysis, g incidentGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	f := &Finding{Cause: terminationRaceCause.ID, Window: w, Rollout: g.Rollout, Backends: backendRefs(a, w), Trigger: g.Trigger.Kind.String(), explicit: g.Explicit}
	if e := g.Trigger.Event; e != nil {
		f.Evidence = append(f.Evidence, eventEvidence(e, triggerNote(g.Trigger)))
	}
	f.Evidence = failureEvidence(w, nil)
	corroborated := 0
	lag, stopEvidence := stopLag(a, f.Backends)
	if stopEvidence != nil {
		corroborated++
		f.Evidence = append(f.Evidence, *stopEvidence)
	}
	if l := lastEvent(a.EventsBetween(w.Start.Add(-oldLeavesBefore), w.End, sources.TargetDeregistering, sources.NEGDetach)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer was told to stop sending to it"))
	}
	// When the proxy learned the old pods had left (proxysync.go).
	if ev, corr, ok := terminationProxySync(a, w, f.Backends); ok {
		f.Evidence = append(f.Evidence, ev)
		if corr {
			corroborated++
		}
	}
	wl := findWorkload(a, g.Rollout, f.Backends)
	spec := oldSpec(f.Backends, wl)
	wl = wl.servingFromPod(spec)
	preStop, grace, specKnown := shutdownSettings(spec, wl.Serving)
	if specKnown && preStop == 0 {
		corroborated++
		f.Evidence = append(f.Evidence, factEvidence("the old pods have no preStop hook: the app got SIGTERM the moment the pod began terminating"))
	}
	terminating, gone := 0, 0
	for _, s := range w.Signals {
		switch s.Last().State {
		case correlate.StateTerminating:
			terminating += s.Weight()
		case correlate.StateGone:
			gone += s.Weight()
		}
	}
	f.grade(share(terminating, w.Count)+goneFit*share(gone, w.Count), corroborated, terminationClearFit)
	family := familyOf(w)
	platform := envoyPlatformOf(a, w)
	f.Summary = fmt.Sprintf("%s stopped accepting connections as they began terminating, but %s kept sending them requests for up to %s (%s; %s failed with %s on %s).",
		terminatedBy(g.Trigger), proxyNoun(family, platform), seconds(lag), span(w), words.Plural(w.Failed, "request"), cmp.Or(statusList(w.StatusCounts), "no client-visible error"), words.Plural(len(f.Backends), "pod IP"))
	f.Remediation = terminationFixes(objectsOf(a), wl, spec, lag, preStop, grace, family, platform)
	f.Remediation = append(f.Remediation, triggerFixes(a, wl, g.Trigger, lag, family)...)
	return f
}

// terminationStart is when b began terminating; zero when unknown.
func terminationStart(b *correlate.Backend) time.Time {
	if b == nil {
		return time.Time{}
	}
	return b.At(correlate.Terminating)
}

// terminatedBy names the pods of a termination race by what deleted them.
func terminatedBy(t correlate.Trigger) string {
	switch t.Kind {
	case correlate.TriggerRollout:
		return "Old pods replaced by the rollout"
	case correlate.TriggerNodeDrain:
		return fmt.Sprintf("Pods evicted from node %s as it was drained", cmp.Or(t.Node, "(unnamed)"))
	case correlate.TriggerScaleIn:
		return "Pods removed by a scale-in"
	}
	return "Pods that were being deleted"
}

// triggerNote says what the record of a deletion's trigger shows.
func triggerNote(t correlate.Trigger) string {
	switch t.Kind {
	case correlate.TriggerNodeDrain:
		return "the node was drained: its pods were deleted without a rollout"
	case correlate.TriggerScaleIn:
		return "the workload was scaled in: its pods were deleted without a rollout"
	}
	return ""
}

// triggerFixes are the changes that fit what deleted the pods, beside the
// preStop and grace period every trigger needs.
func triggerFixes(a *correlate.Analysis, wl workload, t correlate.Trigger, lag time.Duration, family sources.Family) []Fix {
	switch t.Kind {
	case correlate.TriggerNodeDrain:
		fixes := []Fix{
			{
				Title: fmt.Sprintf("Let a drain evict one pod at a time with a PodDisruptionBudget (maxUnavailable %d)", pdbMaxUnavailable),
				Why: "A drain evicts pods through the eviction API, which waits while the budget would be broken, so the load balancer never loses every backend at once. " +
					"maxUnavailable, unlike a minAvailable near the replica count, never blocks every eviction: with one replica, or an autoscaler below it, kubectl drain, Karpenter and the cluster autoscaler would wait forever. " +
					"With one replica the drain still takes the only pod: run two or more." + replicasNote(wl),
				Patch: objectPatch("policy/v1", "PodDisruptionBudget", wl.Namespace, wl.Name, nil, map[string]any{
					"maxUnavailable": pdbMaxUnavailable, "selector": map[string]any{"matchLabels": selectorOf(wl)}}),
			},
			{
				Title: "Take the node out of the load balancer before draining it",
				Why: fmt.Sprintf("With the label %s the cloud controllers remove the node's backends first; the load balancer kept sending for %s after the pods began terminating. Karpenter sets it on shutdown; for kubectl drain and the cluster-autoscaler, label the node (or use a termination handler that does).",
					labelExcludeFromLB, seconds(lag)),
				Patch: objectPatch("v1", "Node", "", cmp.Or(t.Node, placeholderName("Node")), map[string]any{"labels": map[string]any{labelExcludeFromLB: "true"}}, nil),
			},
		}
		if !platformFor(family).excludesNodes() {
			// A proxy in the cluster sends to pod IPs and reads no node label.
			return fixes[:1]
		}
		return fixes
	case correlate.TriggerScaleIn:
		return []Fix{{
			Title: "Scale in one pod at a time",
			Why:   "An autoscaler that removes several pods at once multiplies the requests the load balancer still sends to terminating pods; a scale-down policy of one pod per minute spreads them.",
			Patch: objectPatch("autoscaling/v2", "HorizontalPodAutoscaler", wl.Namespace, hpaName(t, wl), nil, map[string]any{"behavior": map[string]any{"scaleDown": map[string]any{
				"policies": []any{map[string]any{"type": "Pods", "value": 1, "periodSeconds": scaleDownPeriod}}}}}),
		}}
	}
	return nil
}

// pdbMaxUnavailable is the disruption budget a drain fix proposes: one pod
// at a time, which lets every eviction through in turn whatever the
// replica count (policy/v1 PodDisruptionBudget: "maxUnavailable ... An
// eviction is allowed if at most maxUnavailable pods selected by selector
// are unavailable after the eviction").
const pdbMaxUnavailable = 1

// replicasNote says where the replica count a fix speaks of comes from.
func replicasNote(wl workload) string {
	if wl.Replicas > 0 {
		return fmt.Sprintf(" (spec.replicas %d, %s)", wl.Replicas, readAt(wl.Origin))
	}
	return ""
}

// preStopSource says what preStop sleep the pods have and where that was read.
func preStopSource(spec *sources.PodSpec, wl workload, sleep int) string {
	where := "read from a pod"
	if wl.Origin.File != "" {
		where = readAt(wl.Origin)
	}
	switch {
	case spec == nil:
		return "none, " + assumedDefault
	case sleep == 0:
		return "none, " + where
	}
	return fmt.Sprintf("%d s, %s", sleep, where)
}

// hpaName names the autoscaler of a scale-in: the one its event names,
// else the one read that scales the workload; a placeholder, which makes
// the fix a template, when neither says.
func hpaName(t correlate.Trigger, wl workload) string {
	if t.Event != nil {
		if name, ok := strings.CutPrefix(t.Event.Object, "HorizontalPodAutoscaler/"); ok {
			return name
		}
	}
	if wl.Autoscaler != nil {
		return wl.Autoscaler.Name
	}
	return placeholderName("HorizontalPodAutoscaler")
}

// labelExcludeFromLB is the node label that makes the cloud controllers
// and the AWS Load Balancer Controller remove a node's backends
// (Kubernetes well-known labels).
const labelExcludeFromLB = "node.kubernetes.io/exclude-from-external-load-balancers"

// scaleDownPeriod is the period of the one-pod scale-down policy proposed:
// long enough for the load balancer to let go of each pod (a minute covers
// ALB deregistration and NEG detach).
const scaleDownPeriod = 60

// stopLag measures how long the load balancer kept sending to each pod
// after it began terminating (its Killing event or deletion), or, without
// events, how long its failures lasted; it returns the longest, and the
// record of the first termination of a pod joined to its IP as evidence
// (else of the first one). An IP the records could not tie to one of
// several pods that changed together is measured from the termination
// alikeTerminations pairs it with.
func stopLag(a *correlate.Analysis, refs []BackendRef) (time.Duration, *Evidence) {
	var lag time.Duration
	var ev, unjoined *Evidence
	paired := alikeTerminations(refs)
	for i, r := range refs {
		from := r.Start
		if r.Of != nil {
			if m := r.Of.Moments[correlate.Terminating]; m != nil && !m.Time.After(r.Start.Add(a.Opts.Skew)) {
				from = m.Time
				if t, ok := paired[i]; ok && !t.After(r.Start.Add(a.Opts.Skew)) {
					from = t
				}
				switch {
				case ev == nil && r.Pod != "":
					e := momentEvidence(m, fmt.Sprintf("%s %s began terminating; requests still reached it until %s", r.Pod, r.IP, correlate.Clock(r.End)))
					ev = &e
				case unjoined == nil && r.Pod == "":
					e := momentEvidence(m, unjoinedTermination(r))
					unjoined = &e
				}
			}
		}
		// The load balancer kept sending until it sent the last
		// request; one in flight when the pod exited failed later.
		sent := r.End
		if !r.LastSent.IsZero() {
			sent = r.LastSent
		}
		lag = max(lag, sent.Sub(from))
	}
	if ev == nil {
		ev = unjoined
	}
	return lag, ev
}

// unjoinedTermination says when requests last reached an IP no record
// ties to one pod: the termination it is measured from is that of a pod
// it may have been, which the note must not present as its own.
func unjoinedTermination(r BackendRef) string {
	var names []string
	if r.Of != nil {
		for _, p := range r.Of.Alike {
			names = append(names, p.Pod)
		}
	}
	if len(names) == 0 {
		return fmt.Sprintf("pods began terminating; requests still reached %s, whose pod is not known, until %s", r.IP, correlate.Clock(r.End))
	}
	return fmt.Sprintf("pods began terminating; requests still reached %s (one of %s: the records cannot tell which) until %s",
		r.IP, strings.Join(names, ", "), correlate.Clock(r.End))
}

// alikeTerminations gives each IP of refs that stands for one of a group
// of pods the records cannot tell apart (correlate.Backend.Alike) the
// termination its lag is measured from, by index into refs: which pod it
// was is unknown, so the mean of those pods' terminations. The group's
// earliest termination (its shared Terminating moment) would measure every
// IP as the pod that began first, and the longest lag with it; pairing the
// IPs with the latest terminations would measure the shortest the records
// allow.
func alikeTerminations(refs []BackendRef) map[int]time.Time {
	out := map[int]time.Time{}
	for i, r := range refs {
		if r.Of == nil || r.Of.Pod != "" || len(r.Of.Alike) == 0 {
			continue
		}
		first := r.Of.Alike[0].At(correlate.Terminating)
		var sum time.Duration
		known := true // a pod whose termination is unknown leaves no mean
		for _, p := range r.Of.Alike {
			t := p.At(correlate.Terminating)
			known = known && !t.IsZero()
			sum += t.Sub(first)
		}
		if known {
			out[i] = first.Add(sum / time.Duration(len(r.Of.Alike)))
		}
	}
	return out
}

// oldSpec is the spec of the pods a termination race names: the first one
// read of them, else the workload's template; nil when neither was read.
func oldSpec(refs []BackendRef, wl workload) *sources.PodSpec {
	for _, r := range refs {
		if r.Of != nil && r.Of.Spec != nil {
			return r.Of.Spec
		}
	}
	return wl.Template
}

// shutdownSettings reads a spec's preStop sleep (of the serving
// container, see servingHook) and grace period. specKnown is false when
// no spec was read.
func shutdownSettings(spec *sources.PodSpec, serving string) (preStop, grace int, specKnown bool) {
	if spec == nil {
		return 0, int(correlate.DefaultGracePeriod.Seconds()), false
	}
	preStop, _ = servingHook(spec, serving)
	return preStop, spec.TerminationGracePeriodSec, true
}

// servingHook is the preStop sleep and hook of the serving container
// (serving, "" when unknown): a helper container's sleep does not keep
// the app serving. Without a serving container, the longest sleep and the
// first hook of any container.
func servingHook(spec *sources.PodSpec, serving string) (sleep int, hook string) {
	if serving == "" {
		for _, c := range spec.Containers {
			if c.PreStop != nil && hook == "" {
				hook = c.PreStop.Description
			}
		}
		return spec.PreStopSleep(), hook
	}
	for _, c := range spec.Containers {
		if c.Name == serving && c.PreStop != nil {
			if c.PreStop.SleepSec != nil {
				sleep = *c.PreStop.SleepSec
			}
			return sleep, c.PreStop.Description
		}
	}
	return 0, ""
}

// preStopFor is the preStop sleep that outlasts a load balancer that keeps
// sending for lag after a pod began terminating: lag plus preStopMargin,
// minPreStop at the least, in whole seconds.
func preStopFor(lag time.Duration) int { return max(ceilSeconds(lag+preStopMargin), minPreStop) }

// graceFor is the grace period that covers a preStop sleep and the app's
// shutdown after it (appShutdown): grace itself when already longer.
func graceFor(grace, sleep int) int { return max(grace, sleep+appShutdown) }

// preStopFix delays SIGTERM by a sleep in the serving container's preStop
// hook, in place of the hook it has (a container has one preStop handler):
// a sleep handler's seconds raised; an exec whose script starts with a
// sleep keeps its command with the sleep raised (a graceful-stop command
// after it stays); another exec runs after the sleep in a shell; an HTTP
// or TCP hook makes the fix a template, as a sleep cannot run beside it.
// Its Why says what the handler needs; the caller puts what the sleep
// must outlast before it.
func preStopFix(wl workload, sleep int) Fix {
	fix := Fix{Title: fmt.Sprintf("Delay SIGTERM with a %d s preStop sleep", sleep)}
	hook := servingPreStop(wl)
	handler, needs := map[string]any{"sleep": map[string]any{"seconds": sleep}}, sleepHandlerNeeds(sleep, wl.Kube)
	if wl.Kube.Below(sleepHandlerMajor, sleepHandlerMinor) {
		handler, needs = map[string]any{"exec": map[string]any{"command": []any{"sleep", strconv.Itoa(sleep)}}}, execSleepNeeds(wl.Kube)
	}
	switch {
	case hook == nil || hook.Handler == "sleep" || hook.Handler == "":
		fix.Why = " " + needs
	case hook.Handler == "exec" && hook.SleepSec != nil:
		handler = map[string]any{"exec": map[string]any{"command": anyList(withSleep(hook.Command, sleep))}}
		fix.Why = fmt.Sprintf(" The container's preStop already runs `%s`: its sleep is raised to %d s and the rest of the command stays.", strings.Join(hook.Command, " "), sleep)
	case hook.Handler == "exec":
		handler = map[string]any{"exec": map[string]any{"command": []any{"sh", "-c", fmt.Sprintf("sleep %d && %s", sleep, shellJoin(hook.Command))}}}
		fix.Why = fmt.Sprintf(" The container's preStop already runs `%s`: it runs after the sleep, in a shell (the image needs sh and sleep; distroless images have neither).", strings.Join(hook.Command, " "))
	default:
		handler[hook.Handler] = nil
		fix.Template = true
		fix.Why = fmt.Sprintf(" The container's preStop is %s, and a container has one preStop handler: this replaces it with the sleep, so move what it does into the app's SIGTERM handling first, or make the endpoint wait %d s before it answers.", hook.Description, sleep) + " " + needs
	}
	fix.Why += servingNote(wl)
	fix.Patch = containerPatch(wl, mainContainer(wl), map[string]any{"lifecycle": map[string]any{"preStop": handler}})
	return fix
}

// sleepHandlerMajor and sleepHandlerMinor are the first Kubernetes
// version whose sleep preStop handler is on by default: the sleep action
// is beta and enabled from 1.30 (PodLifecycleSleepAction, KEP-3960).
const (
	sleepHandlerMajor = 1
	sleepHandlerMinor = 30
)

// sleepHandlerNeeds says what the sleep preStop handler needs: with the
// cluster's version known (and not below 1.30), that it has it; unknown,
// the exec sleep of as many seconds that replaces it on older clusters.
func sleepHandlerNeeds(seconds int, kube sources.KubeVersion) string {
	if kube.Known() {
		return fmt.Sprintf("The sleep handler needs Kubernetes %d.%d or later; the cluster runs %s.", sleepHandlerMajor, sleepHandlerMinor, kube)
	}
	return fmt.Sprintf("The sleep handler needs Kubernetes %d.%d or later (the cluster's version is not in the inputs; --kube-version gives it); before that use `exec: {command: [sleep, \"%d\"]}`, which needs a sleep binary in the image (distroless images have none).", sleepHandlerMajor, sleepHandlerMinor, seconds)
}

// execSleepNeeds says why the fix is an exec sleep and what it needs.
func execSleepNeeds(kube sources.KubeVersion) string {
	return fmt.Sprintf("The cluster runs Kubernetes %s, before the sleep handler (%d.%d), so the sleep is an exec of the image's sleep binary: distroless and scratch images have none, and the hook then fails at once; add one (a busybox sleep) or make the app delay its own shutdown on SIGTERM.", kube, sleepHandlerMajor, sleepHandlerMinor)
}

// servingPreStop is the preStop hook of the workload's serving container
// as its template has it; nil when it has none or it is unknown.
func servingPreStop(wl workload) *sources.PreStop {
	if wl.Template == nil || wl.Serving == "" {
		return nil
	}
	for _, c := range wl.Template.Containers {
		if c.Name == wl.Serving {
			return c.PreStop
		}
	}
	return nil
}

// withSleep returns an exec preStop command whose first command is a
// sleep (`sleep N`, or `sh -c "sleep N && ..."`) with N set to seconds.
func withSleep(cmd []string, seconds int) []string {
	out := append([]string(nil), cmd...)
	n := strconv.Itoa(seconds)
	if len(out) == 2 {
		out[1] = n
		return out
	}
	if len(out) >= 3 {
		out[2] = sleepArgRE.ReplaceAllString(out[2], "${1}"+n)
	}
	return out
}

// sleepArgRE matches the sleep that starts a preStop script and its number.
var sleepArgRE = regexp.MustCompile(`^(\s*(?:\S*/)?sleep\s+)\d+(?:\.\d+)?s?`)

// shellJoin quotes a command for sh -c, each word in single quotes.
func shellJoin(cmd []string) string {
	q := make([]string, len(cmd))
	for i, w := range cmd {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// graceSource says where the workload's grace period was read: the
// template, the API default its template leaves, or nowhere.
func graceSource(wl workload) string {
	switch {
	case wl.Template == nil:
		return assumedDefault
	case wl.Template.TerminationGraceDefaulted:
		return "the API default: the template read at " + wl.Origin.String() + " does not set it"
	}
	return readAt(wl.Origin)
}

// graceFix gives termination newGrace seconds: the sleep plus the app's shutdown.
func graceFix(wl workload, sleep, grace, newGrace int) Fix {
	return Fix{
		Title: fmt.Sprintf("Give termination %d s", newGrace),
		Why: fmt.Sprintf("terminationGracePeriodSeconds (%d s, %s) counts from the start of preStop: it should cover the %d s sleep, then the %d s an app gets to shut down by default.",
			grace, graceSource(wl), sleep, appShutdown),
		Patch: deploymentPatch(wl, templateSpec(map[string]any{"terminationGracePeriodSeconds": newGrace})),
	}
}

// terminationFixes keeps the app serving until the load balancer has let go.
func terminationFixes(objs *Objects, wl workload, spec *sources.PodSpec, lag time.Duration, preStop, grace int, family sources.Family, platform sources.Platform) []Fix {
	sleep := preStopFor(lag)
	newGrace := graceFor(grace, sleep)
	p := platformFor(family)
	// How the proxy learns of a terminating endpoint (Envoy: through its
	// control plane); the lag is that propagation, measured from the logs.
	who := p.noun(platform) + p.propagationNote()
	stop := preStopFix(wl, sleep)
	stop.Why = fmt.Sprintf("%s kept sending requests for %s after the pod began terminating; the app must keep serving a little longer than that (preStop sleep: %s).",
		upperFirst(who), seconds(lag), preStopSource(spec, wl, preStop)) + stop.Why
	fixes := []Fix{stop, graceFix(wl, sleep, grace, newGrace)}
	return append(fixes, p.stopFixes(objs, wl, spec, sleep, newGrace, platform)...)
}

// albDefaultDeregistrationDelay is the deregistration delay of a target
// group whose attributes do not set it: 300 s (ELBv2 target group
// attributes reference).
const albDefaultDeregistrationDelay = 300

// albMaxDeregistrationDelay is the longest deregistration delay a target
// group takes (deregistration_delay.timeout_seconds: "The range is
// 0-3600 seconds", ELBv2 target group attributes reference).
const albMaxDeregistrationDelay = 3600

// gkeMaxDrainingTimeout is the longest connection draining timeout of a
// backend service (BackendConfig connectionDraining.drainingTimeoutSec,
// 0 to 3600 s, Cloud Load Balancing "Connection draining").
const gkeMaxDrainingTimeout = 3600

// albDrainFixes keep in-flight requests to a deregistered ALB target alive
// for the pod's whole termination (grace seconds), where the deregistration
// delay of each target group in settings is set and shorter than that: in
// the target-group-attributes annotation of the Service or Ingress the
// controller reads, its other attributes kept; for a target group made
// outside the cluster, in the target group itself. Without settings, an
// Ingress the objects do not name.
func albDrainFixes(settings []targetGroupSetting, wl workload, grace int) []Fix {
	why := "The deregistration delay keeps in-flight requests to a deregistered target alive"
	if grace > albMaxDeregistrationDelay {
		why = fmt.Sprintf("The deregistration delay keeps in-flight requests to a deregistered target alive, for %d s at most: shorten terminationGracePeriodSeconds to %d s or less, the other side of the mismatch; until then", albMaxDeregistrationDelay, albMaxDeregistrationDelay)
		grace = albMaxDeregistrationDelay
	}
	title := fmt.Sprintf("Let the target group drain in-flight requests for %d s", grace)
	if len(settings) == 0 {
		return []Fix{{
			Title: title,
			Why:   fmt.Sprintf("%s; make it at least the pod's %d s of termination.", why, grace),
			Patch: objectPatch("networking.k8s.io/v1", "Ingress", wl.Namespace, placeholderName("Ingress"), map[string]any{"annotations": map[string]any{
				annotationALBTargetGroupAttributes: withAttribute("", sources.ALBDeregistrationDelayAttribute, grace)}}, nil),
		}}
	}
	var out []Fix
	var names []string // the object each fix changes
	for _, s := range settings {
		if b := s.Binding; b != nil {
			arn := cmp.Or(b.TargetGroupBinding.TargetGroupARN, "<target-group-arn>")
			out = append(out, Fix{
				Title: title,
				Why: fmt.Sprintf("%s. TargetGroupBinding %s/%s binds a target group made outside the cluster: make its delay at least the pod's %d s of termination there, e.g. `aws elbv2 modify-target-group-attributes --target-group-arn %s --attributes Key=%s,Value=%d`, which changes that attribute alone.",
					why, b.Namespace, b.Name, grace, arn, sources.ALBDeregistrationDelayAttribute, grace),
			})
			names = append(names, "the target group of TargetGroupBinding "+b.Namespace+"/"+b.Name)
			continue
		}
		h := s.Holder
		delay, from := albDefaultDeregistrationDelay, "the target group's default: "+assumedDefault
		if hc := h.HealthCheck; hc != nil && hc.DeregistrationDelaySec != nil {
			delay, from = *hc.DeregistrationDelaySec, fmt.Sprintf("%s %s/%s's annotation, %s", h.Kind, h.Namespace, h.Name, readAt(h.Origin))
		}
		if delay >= grace {
			continue
		}
		apiVersion := "networking.k8s.io/v1"
		if h.Kind == "Service" {
			apiVersion = "v1"
		}
		value := withAttribute(s.annotation(), sources.ALBDeregistrationDelayAttribute, grace)
		fix := Fix{
			Title: title,
			Why:   fmt.Sprintf("%s (%d s, from %s); make it at least the pod's %d s of termination.", why, delay, from, grace),
			Patch: objectPatch(apiVersion, h.Kind, h.Namespace, h.Name, map[string]any{"annotations": map[string]any{annotationALBTargetGroupAttributes: value}}, nil),
		}
		if strings.Contains(value, ",") {
			fix.Why += " The annotation's other attributes stay as they are."
		}
		out = append(out, fix)
		names = append(names, h.Kind+" "+h.Namespace+"/"+h.Name)
	}
	if len(out) > 1 {
		// Several objects to change: each title names its own.
		for i := range out {
			out[i].Title += " (" + names[i] + ")"
		}
	}
	return out
}

// negDrainFix lets in-flight requests to an endpoint detached from the NEG
// finish, for as long as the preStop sleep, in the BackendConfig the
// workload's Service names (ref, from backendConfigOf after an incident,
// backendConfigOfPaths before a deploy), read or not; ok is false when
// that BackendConfig already drains that long.
func negDrainFix(ref backendConfigRef, wl workload, sleep int) (Fix, bool) {
	sleep = min(sleep, gkeMaxDrainingTimeout)
	ns, name := ref.patchTarget(wl)
	bc := ref.Config
	now := ""
	switch {
	case bc == nil:
	case bc.HealthCheck != nil && bc.HealthCheck.DrainingTimeoutSec != nil:
		if *bc.HealthCheck.DrainingTimeoutSec >= sleep {
			return Fix{}, false
		}
		now = fmt.Sprintf(" (%d s, %s)", *bc.HealthCheck.DrainingTimeoutSec, readAt(bc.Origin))
	default:
		now = fmt.Sprintf(" (not set in %s, %s)", objectName(bc), readAt(bc.Origin))
	}
	return Fix{
		Title: fmt.Sprintf("Drain connections for %d s when endpoints leave the NEG", sleep),
		Why: fmt.Sprintf("connectionDraining lets requests in flight to an endpoint detached from the NEG finish: set drainingTimeoutSec to %d s%s, "+
			"as long as the preStop sleep keeps the app serving.", sleep, now),
		Patch: objectPatch("cloud.google.com/v1", "BackendConfig", ns, name, nil, map[string]any{"connectionDraining": map[string]any{"drainingTimeoutSec": sleep}}),
	}, true
}

// Static checks of the termination race.
const (
	checkPreStop     = "prestop"
	checkGracePeriod = "grace-period"
	checkIstioDrain  = "istio-drain"
)

// terminationRaceChecks describe the static checks of terminationRace.
var terminationRaceChecks = []StaticCheck{
	{checkPreStop, "no preStop sleep, or one shorter than the load balancer lets go",
		"the longest preStop sleep of the pod template below the load balancer's stop propagation (ALB 10 s, GKE NEG 10 s, ingress-nginx 5 s, Envoy xDS 2 s) + 5 s, and at least 10 s"},
	{checkGracePeriod, "terminationGracePeriodSeconds spent by the preStop sleep",
		"terminationGracePeriodSeconds leaves the app no more than the kubelet's own 2 s between SIGTERM and SIGKILL after the preStop sleep (the fix proposes the sleep + 30 s, the default grace period)"},
	{checkIstioDrain, "the Istio sidecar stops before the preStop sleep ends",
		"a classic Istio sidecar's terminationDrainDuration (5 s by default) below the preStop sleep + 5 s"},
}

// Stop propagation before a deploy: how long after a pod begins
// terminating a load balancer or proxy may still send it new requests.
// Nothing is measured before a deploy, so these are the figures reported
// for each path; preStopFor adds preStopMargin.
const (
	// albStopPropagation: the AWS Load Balancer Controller deregisters a
	// target when it sees the EndpointSlice change, and ALB keeps routing
	// to it for seconds after DeregisterTargets returns: a 5 s sleep was
	// not enough in aws-load-balancer-controller#1064, the EKS best
	// practices start at 10 s.
	albStopPropagation = 10 * time.Second
	// gcpStopPropagation: the NEG controller detaches a terminating
	// endpoint and the load balancer's proxies are programmed after the
	// API call completes, a latency no log records
	// (kubernetes/ingress-gce#1718, "GCE programming latency").
	gcpStopPropagation = 10 * time.Second
	// nginxStopPropagation: ingress-nginx syncs at most every 3.3 s
	// (--sync-rate-limit 0.3) and its workers poll for backends every
	// second: about 4.3 s at the most.
	nginxStopPropagation = 5 * time.Second
	// envoyStopPropagation: EndpointSlice → control plane → EDS, sub-second
	// to seconds when the control plane is not busy.
	envoyStopPropagation = 2 * time.Second
)

// stopPropagation is the stop propagation of a load-balancer family; 0
// when unknown (platform.stopPropagation).
func stopPropagation(f sources.Family) time.Duration { return platformFor(f).stopPropagation() }

// Check implements Rule: per workload behind a load balancer or proxy, the
// app gets SIGTERM before the load balancer stops sending, or is killed
// before it drained.
func (terminationRace) Check(objs *Objects) []*Risk {
	var out []*Risk
	for _, t := range objs.targetsOf() {
		var slowest *front
		for i := range t.Fronts {
			f := &t.Fronts[i]
			if lag := stopPropagation(f.Family); lag > 0 && (slowest == nil || lag > stopPropagation(slowest.Family)) {
				slowest = f
			}
		}
		if slowest != nil {
			out = append(out, terminationRisks(t, *slowest)...)
		}
	}
	return out
}

// terminationRisks checks how the workload's pods stop behind one path.
func terminationRisks(t *target, f front) []*Risk {
	var out []*Risk
	spec := t.wl.Template
	sleep, hook := servingHook(spec, t.wl.Serving)
	grace := spec.TerminationGracePeriodSec
	lag := stopPropagation(f.Family)
	need := preStopFor(lag)
	who := upperFirst(proxyNoun(f.Family, f.Platform))
	switch {
	case hook != "" && sleep == 0:
		// A hook that is not a sleep (an HTTP call, a script) takes a time
		// the objects do not say.
	case sleep < need:
		r := newRisk(terminationRaceCause, checkPreStop, SeverityError, t)
		r.Via = f.Via
		now := "no preStop hook: the app gets SIGTERM the moment the pod begins terminating"
		if sleep > 0 {
			now = fmt.Sprintf("a preStop sleep of %d s", sleep)
		}
		r.Title = fmt.Sprintf("%s stops serving before %s stops sending", objectName(t.Config), proxyNoun(f.Family, f.Platform))
		r.Reason = fmt.Sprintf("The pods have %s, but %s (through %s) may send new requests for about %s after a pod begins terminating; the sleep must outlast that by %s: %d s.",
			now, proxyNoun(f.Family, f.Platform), objectName(f.Via), seconds(lag), seconds(preStopMargin), need)
		stop := preStopFix(t.wl, need)
		stop.Why = fmt.Sprintf("%s may keep sending requests for about %s after the pod began terminating (nothing is measured before a deploy); the app must keep serving a little longer than that (preStop sleep: %s).",
			who, seconds(lag), preStopSource(t.wl.Template, t.wl, sleep)) + stop.Why
		r.Fixes = []Fix{stop}
		if newGrace := graceFor(grace, need); newGrace > grace {
			r.Fixes = append(r.Fixes, graceFix(t.wl, need, grace, newGrace))
		}
		r.Fixes = append(r.Fixes, drainFixes(t, f, need, graceFor(grace, need))...)
		if f.Family == sources.FamilyALB {
			r.Prediction = predictALBStop(sleep, need, preStopSource(t.wl.Template, t.wl, sleep))
		}
		out = append(out, r)
	case grace-sleep <= kubeletMinShutdown:
		then := fmt.Sprintf("leaves the app %d s after SIGTERM, no more than the kubelet's own %d s minimum before SIGKILL", grace-sleep, kubeletMinShutdown)
		if grace <= sleep {
			then = fmt.Sprintf("runs out before the sleep ends: the kubelet then sends SIGTERM and kills the app %d s later, with its requests in flight", kubeletMinShutdown)
		}
		r := newRisk(terminationRaceCause, checkGracePeriod, SeverityError, t)
		r.Via = f.Via
		r.Title = fmt.Sprintf("%s gives termination %d s for a %d s preStop sleep", objectName(t.Config), grace, sleep)
		r.Reason = fmt.Sprintf("terminationGracePeriodSeconds %d counts from the start of the %d s preStop sleep, so it %s; it should cover the sleep plus the %d s an app gets to shut down by default: %d s.",
			grace, sleep, then, appShutdown, sleep+appShutdown)
		r.Fixes = []Fix{graceFix(t.wl, sleep, grace, graceFor(grace, sleep))}
		out = append(out, r)
	}
	if fix, ok := istioDrainFix(t.wl, spec, max(sleep, need)); ok {
		r := newRisk(terminationRaceCause, checkIstioDrain, SeverityError, t)
		r.Via = f.Via
		r.Title = fmt.Sprintf("the Istio sidecar of %s stops before its preStop sleep ends", objectName(t.Config))
		r.Reason = fmt.Sprintf("The pods run a classic Istio sidecar (through %s), which gets SIGTERM with the app and stops after its terminationDrainDuration, while the app still sleeps %d s in preStop: requests to the pod fail once the sidecar is gone.",
			objectName(f.Via), max(sleep, need))
		r.Fixes = []Fix{fix}
		out = append(out, r)
	}
	return out
}

// drainFixes are the load balancer's own settings for in-flight requests
// when the objects set them shorter than the pod's termination, or cannot
// say: the ALB deregistration delay of every target group in front of the
// workload, GKE's connection draining.
func drainFixes(t *target, f front, sleep, grace int) []Fix {
	return f.platform().drainFixes(t, f, sleep, grace)
}

package classify

import (
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// terminationRace explains windows in which old pods stopped accepting
// connections at SIGTERM while the load balancer still sent them requests:
// removal from the EndpointSlice and the signal happen together, and the
// load balancer learns of the removal seconds later. The LB logs show
// refused or closed connections to old pod IPs only, starting when each was
// told to stop; events and objects add the Killing times and the missing
// preStop hook.
type terminationRace struct{}

// terminationRaceCause is the cause terminationRace names.
var terminationRaceCause = Cause{
	ID:          "termination_race",
	Name:        "termination race",
	Description: "old pods stop listening at SIGTERM while the load balancer still sends to them",
	Signature:   "refused/closed connections to old pod IPs only, right after each began terminating; no preStop hook",
}

// Cause implements Rule.
func (terminationRace) Cause() Cause { return terminationRaceCause }

// backendFailures are the kinds of failure that happen on the way to a chosen backend.
var backendFailures = []sources.FailureKind{sources.FailureRefused, sources.FailureClosed, sources.FailureUnreachable, sources.FailureTimeout, sources.FailureOther}

// Evaluate implements Rule.
func (terminationRace) Evaluate(a *correlate.Analysis, w *correlate.Window) *Finding {
	roles, refs := roleCounts(a, w, backendFailures...)
	total := roles[correlate.RoleOld] + roles[correlate.RoleNew] + roles[correlate.RoleUnknown]
	if total < 2 || share(w.Kinds[sources.FailureNoBackend], total+w.Kinds[sources.FailureNoBackend]) > 0.5 {
		return nil
	}
	oldShare := share(roles[correlate.RoleOld], total)
	if oldShare < 0.6 {
		return nil
	}
	f := &Finding{Cause: terminationRaceCause.ID, Backends: refs}
	oldIPs := ipsWithRole(refs, correlate.RoleOld)
	f.Evidence = failureEvidence(w, namesIP(oldIPs))

	corroborated := 0
	lag, stopEvidence := stopLag(a, w, refs)
	if stopEvidence != nil {
		corroborated++
		f.Evidence = append(f.Evidence, *stopEvidence)
	}
	if l := lastEvent(a.EventsBetween(w.Start.Add(-time.Minute), w.End, sources.TargetDeregistering, sources.NEGDetach)); l != nil {
		corroborated++
		f.Evidence = append(f.Evidence, eventEvidence(l, "the load balancer was told to stop sending to it"))
	}
	wl := findWorkload(a, w)
	preStop, grace, specKnown := shutdownSettings(a, w, refs, wl)
	if specKnown && preStop == 0 {
		corroborated++
		f.Evidence = append(f.Evidence, Evidence{Text: "the old pods have no preStop hook: the app got SIGTERM the moment the pod began terminating"})
	}

	f.grade(oldShare, corroborated, 0.9)
	f.Summary = fmt.Sprintf("Old pods stopped accepting connections as they began terminating, but the load balancer kept sending them requests for up to %s (%s; %s failed with %s on %s).",
		seconds(lag), span(w), plural(w.Failed, "request"), statusList(w.StatusCounts), plural(len(oldIPs), "old pod IP"))
	f.Remediation = terminationFixes(wl, lag, preStop, grace, platformOf(w))
	return f
}

// stopLag measures how long the load balancer kept sending to old pods after
// they began terminating (the Killing event or deletion), or, without
// events, how long the failures to old pods lasted.
func stopLag(a *correlate.Analysis, w *correlate.Window, refs []BackendRef) (time.Duration, *Evidence) {
	var lag time.Duration
	var ev *Evidence
	for _, r := range refs {
		if r.Role != correlate.RoleOld {
			continue
		}
		ip := r.IP
		f := w.ByIP[ip]
		if f == nil {
			continue
		}
		from := f.First
		if b := a.BackendOf(ip, w.Start); b != nil {
			if m := b.Moments[correlate.Terminating]; m != nil && !m.Time.After(f.First.Add(a.Opts.Skew)) {
				from = m.Time
				if ev == nil {
					ev = &Evidence{Time: m.Time, Source: m.Origin.String(), Text: fmt.Sprintf("%s %s: %s; requests still reached it until %s", b.Pod, ip, m.What, correlate.Clock(f.Last))}
				}
			}
		}
		if d := f.Last.Sub(from); d > lag {
			lag = d
		}
	}
	return lag, ev
}

// shutdownSettings reads the old pods' preStop sleep and grace period.
// specKnown is false when no spec was read.
func shutdownSettings(a *correlate.Analysis, w *correlate.Window, refs []BackendRef, wl workload) (preStop, grace int, specKnown bool) {
	var spec *sources.PodSpec
	for _, r := range refs {
		if b := a.BackendOf(r.IP, w.Start); r.Role == correlate.RoleOld && b != nil && b.Spec != nil {
			spec = b.Spec
			break
		}
	}
	if spec == nil {
		spec = wl.Template
	}
	if spec == nil {
		return 0, 30, false
	}
	for _, c := range spec.Containers {
		if c.PreStop != nil && c.PreStop.SleepSec != nil && *c.PreStop.SleepSec > preStop {
			preStop = *c.PreStop.SleepSec
		}
	}
	return preStop, spec.TerminationGracePeriodSec, true
}

// terminationFixes keeps the app serving until the load balancer has let go.
func terminationFixes(wl workload, lag time.Duration, preStop, grace int, platform string) []Fix {
	sleep := max(ceilSeconds(lag)+5, 10)
	newGrace := max(grace, sleep+20)
	fixes := []Fix{
		{
			Title: fmt.Sprintf("Delay SIGTERM with a %d s preStop sleep", sleep),
			Why: fmt.Sprintf("The load balancer kept sending requests for %s after the pod began terminating; the app must keep serving a little longer than that (now: preStop %d s).",
				seconds(lag), preStop),
			Patch: deploymentPatch(wl, fmt.Sprintf("template:\n  spec:\n    containers:\n    - name: <container>\n      lifecycle:\n        preStop:\n          sleep:\n            seconds: %d\n", sleep)),
		},
		{
			Title: fmt.Sprintf("Give termination %d s", newGrace),
			Why: fmt.Sprintf("terminationGracePeriodSeconds counts from the start of preStop; it must cover the %d s sleep plus the app's own drain (now %d s).",
				sleep, grace),
			Patch: deploymentPatch(wl, fmt.Sprintf("template:\n  spec:\n    terminationGracePeriodSeconds: %d\n", newGrace)),
		},
	}
	switch platform {
	case platformALB:
		fixes = append(fixes, Fix{
			Title: "Let the target group drain in-flight requests",
			Why:   "The deregistration delay keeps in-flight requests to a deregistered target alive; keep it at least as long as the app's drain.",
			Patch: fmt.Sprintf("metadata:\n  annotations:\n    alb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds=%d\n", newGrace),
		})
	case platformGKE:
		fixes = append(fixes, Fix{
			Title: "Drain connections when endpoints leave the NEG",
			Why:   "connectionDraining lets in-flight requests to a detached endpoint finish.",
			Patch: fmt.Sprintf("apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: <backendconfig>\nspec:\n  connectionDraining:\n    drainingTimeoutSec: %d\n", sleep),
		})
	}
	return fixes
}

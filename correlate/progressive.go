package correlate

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Progressive delivery: rollouts that a controller moves in steps of its
// own (Argo Rollouts' canary weights and blue-green Service switches,
// Flagger's canary analysis) rather than the Deployment controller's
// rolling update. Their ReplicaSets and pods are found as a Deployment's
// are (rollouts.go); this file adds the controller's records to them.

// Workload kinds of a rollout other than a Deployment.
const (
	// KindArgoRollout is an Argo Rollout (argoproj.io/v1alpha1).
	KindArgoRollout = "Rollout"
	// KindFlaggerCanary is a Flagger Canary (flagger.app/v1beta1): it
	// drives the rollout of its target Deployment's `-primary` copy.
	KindFlaggerCanary = "Canary"
)

// flaggerPrimarySuffix ends the name of the Deployment Flagger creates
// beside a Canary's target and promotes into (<target>-primary).
const flaggerPrimarySuffix = "-primary"

// stepKinds are the lifecycle kinds of a progressive-delivery controller.
var stepKinds = []sources.LifecycleKind{sources.ServiceSwitched, sources.TrafficWeight, sources.RolloutStep, sources.RolloutCompleted, sources.RolloutAborted}

// scalingKinds are the kinds of a controller's scaling events: Argo
// Rollouts scales its ReplicaSets itself (reported on Rollout/<name>),
// and its scale-downs are steps too.
var scalingKinds = []sources.LifecycleKind{sources.ScaledUp, sources.ScaledDown}

// attachSteps gives each rollout the records its progressive-delivery
// controller wrote about its workload from its start (less
// rolloutLookback) to its end (plus rolloutLookahead), and the kind of
// its workload when those records name it. A Flagger Canary named web
// drives the rollout of Deployment web-primary (and of web, its canary).
func (a *Analysis) attachSteps() {
	for _, r := range a.Rollouts {
		if r.Workload == "" {
			continue
		}
		for _, l := range a.EventsBetween(r.Start.Add(-rolloutLookback), r.End.Add(rolloutLookahead), append(stepKinds, scalingKinds...)...) {
			kind, name, ok := strings.Cut(l.Object, "/")
			if !ok || l.Namespace != r.Namespace || slices.Contains(scalingKinds, l.Kind) && kind != KindArgoRollout {
				continue
			}
			switch {
			case kind == KindArgoRollout && name == r.Workload:
				r.Kind = KindArgoRollout
			case kind == KindFlaggerCanary && (name == r.Workload || name+flaggerPrimarySuffix == r.Workload):
				if r.Kind == "" {
					r.Kind = KindFlaggerCanary
				}
			default:
				continue
			}
			r.Steps = append(r.Steps, l)
		}
	}
	a.flaggerRollouts()
}

// FoundByFlagger: a Flagger Canary's events, for a canary analysis that
// no ReplicaSet replacement shows (the canary Deployment scales from zero,
// the primary is not yet promoted).
const FoundByFlagger = "Flagger events"

// flaggerRollouts makes a rollout of each Flagger Canary whose events no
// rollout took: its canary Deployment's pods are the new side, its
// -primary Deployment's the old, from its first event to its last. Backends
// keep the role a rollout of their own gave them.
func (a *Analysis) flaggerRollouts() {
	taken := map[*sources.Lifecycle]bool{}
	for _, r := range a.Rollouts {
		for _, l := range r.Steps {
			taken[l] = true
		}
	}
	byCanary := map[string]*Rollout{}
	var added []*Rollout
	for i := range a.Lifecycle {
		l := &a.Lifecycle[i]
		kind, name, ok := strings.Cut(l.Object, "/")
		if !ok || kind != KindFlaggerCanary || taken[l] || !slices.Contains(stepKinds, l.Kind) {
			continue
		}
		k := l.Namespace + "/" + name
		r := byCanary[k]
		if r == nil {
			r = &Rollout{Namespace: l.Namespace, Workload: name, Kind: KindFlaggerCanary, How: FoundByFlagger,
				New: &ReplicaSet{Namespace: l.Namespace, Workload: name}, Old: []*ReplicaSet{{Namespace: l.Namespace, Workload: name + flaggerPrimarySuffix}},
				Start: l.Time, End: l.Time}
			byCanary[k] = r
			added = append(added, r)
		}
		r.Start, r.End = earliest(r.Start, l.Time), latest(r.End, l.Time)
		r.Steps = append(r.Steps, l)
	}
	if len(added) == 0 {
		return
	}
	for _, b := range a.Backends {
		if b.Pod == "" {
			continue
		}
		for _, r := range added {
			if b.Namespace != r.Namespace {
				continue
			}
			switch b.Workload {
			case r.Workload:
				r.New.Pods = append(r.New.Pods, b)
				if b.Rollout == nil {
					b.Role, b.Rollout = RoleNew, r
				}
			case r.Workload + flaggerPrimarySuffix:
				r.Old[0].Pods = append(r.Old[0].Pods, b)
				if b.Rollout == nil {
					b.Role, b.Rollout = RoleOld, r
				}
			}
		}
	}
	a.Rollouts = append(a.Rollouts, added...)
	sort.SliceStable(a.Rollouts, func(i, j int) bool { return a.Rollouts[i].Start.Before(a.Rollouts[j].Start) })
	for i, r := range a.Rollouts {
		r.N = i + 1
	}
}

// earliest returns the earlier of two non-zero times.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// StepsBetween returns the rollout's controller records of the given kinds
// (all when none are given) from..to, in time order.
func (r *Rollout) StepsBetween(from, to time.Time, kinds ...sources.LifecycleKind) []*sources.Lifecycle {
	var out []*sources.Lifecycle
	for _, l := range r.Steps {
		if l.Time.Before(from) || l.Time.After(to) {
			continue
		}
		if len(kinds) == 0 || slices.Contains(kinds, l.Kind) {
			out = append(out, l)
		}
	}
	return out
}

// WorkloadRef names the rollout's workload as Kind/name: Deployment/web,
// Rollout/web, or Canary/web for a Flagger canary; "" when unknown.
func (r *Rollout) WorkloadRef() string {
	if r.Workload == "" {
		return ""
	}
	if r.Kind == KindFlaggerCanary {
		return KindFlaggerCanary + "/" + strings.TrimSuffix(r.Workload, flaggerPrimarySuffix)
	}
	return cmp.Or(r.Kind, "Deployment") + "/" + r.Workload
}

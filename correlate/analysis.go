package correlate

import (
	"net/netip"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Role says which side of a rollout a backend was on.
type Role uint8

// Roles of a backend in a rollout.
const (
	RoleUnknown Role = iota
	// RoleOld: the backend belonged to the ReplicaSet being replaced.
	RoleOld
	// RoleNew: the backend belonged to the ReplicaSet being rolled out.
	RoleNew
)

// String names the role as used in JSON output.
func (r Role) String() string {
	switch r {
	case RoleOld:
		return "old"
	case RoleNew:
		return "new"
	}
	return "unknown"
}

// Analysis is the correlated view of every input: backends with their
// timelines, IP identities and the failure windows.
type Analysis struct {
	*Dataset
	Identities *Identities
	// Backends maps namespace/pod (or the IP of a bare IP) to every backend seen.
	Backends map[string]*Backend
	// Windows are the candidate incidents, in time order.
	Windows []*Window
	// Opts are the options the analysis ran with, defaults filled in.
	Opts Options
	// firstRequest is the earliest request second, for judging whether a
	// backend appeared during the data or was there from its start.
	firstRequest time.Time
}

// Analyze correlates a Dataset.
func Analyze(d *Dataset, o Options) *Analysis {
	o = o.withDefaults()
	id := buildIdentities(d)
	a := &Analysis{Dataset: d, Identities: id, Backends: buildBackends(d, id), Windows: findWindows(d, o), Opts: o}
	if first, _, ok := d.Span(); ok {
		a.firstRequest = time.Unix(first, 0).UTC()
	}
	return a
}

// BackendOf returns the backend that held ip at t, or nil when no record ties
// the IP to anything but request logs.
func (a *Analysis) BackendOf(ip netip.Addr, t time.Time) *Backend {
	if ns, pod, ok := a.Identities.PodAt(ip, t); ok {
		if b := a.Backends[ns+"/"+pod]; b != nil {
			return b
		}
	}
	return a.Backends[ip.String()]
}

// RoleOf decides whether ip belonged to the old or the new side of the
// rollout around window w, and says how it decided. It prefers the
// Deployment's scaling events, then the pod's own creation and termination,
// then, for a bare IP, when it served traffic relative to the window.
func (a *Analysis) RoleOf(ip netip.Addr, w *Window) (Role, string) {
	if b := a.BackendOf(ip, w.Start); b != nil {
		if r, why := a.podRole(b, w); r != RoleUnknown {
			return r, why
		}
	}
	return a.trafficRole(ip, w)
}

// podRole decides a pod's role from its ReplicaSet's scaling and its own milestones.
func (a *Analysis) podRole(b *Backend, w *Window) (Role, string) {
	if b.ReplicaSet != "" {
		if r, why := a.replicaSetRole(b.Namespace, b.ReplicaSet, w); r != RoleUnknown {
			return r, why
		}
	}
	from := w.Start.Add(-15 * time.Minute)
	created, terminating := b.At(Created), b.At(Terminating)
	if !created.IsZero() && !created.Before(from) && !created.After(w.End) {
		return RoleNew, "created at " + Clock(created)
	}
	if !terminating.IsZero() && !terminating.Before(from) && !terminating.After(w.End.Add(a.Opts.Skew)) {
		return RoleOld, "terminating from " + Clock(terminating)
	}
	return RoleUnknown, ""
}

// replicaSetRole looks at the Deployment's last scaling of rs around w:
// scaled up means new, scaled down means old.
func (a *Analysis) replicaSetRole(ns, rs string, w *Window) (Role, string) {
	from, to := w.Start.Add(-15*time.Minute), w.End.Add(time.Minute)
	role, why := RoleUnknown, ""
	for i := range a.Lifecycle {
		l := &a.Lifecycle[i]
		if l.Time.Before(from) || l.Time.After(to) || l.Group != rs || (l.Namespace != "" && ns != "" && l.Namespace != ns) {
			continue
		}
		switch l.Kind {
		case sources.ScaledUp:
			role, why = RoleNew, "ReplicaSet "+rs+" scaled up at "+Clock(l.Time)
		case sources.ScaledDown:
			role, why = RoleOld, "ReplicaSet "+rs+" scaled down at "+Clock(l.Time)
		}
	}
	return role, why
}

// trafficRole decides from the request logs alone: an IP that first served
// shortly before or during the window, after the data began, is new; one that
// served before the window and never after it is old.
func (a *Analysis) trafficRole(ip netip.Addr, w *Window) (Role, string) {
	t := a.Traffic[ip]
	if t == nil || t.Served == 0 {
		if f := w.ByIP[ip]; f != nil && !a.firstRequest.IsZero() && f.First.Sub(a.firstRequest) > 30*time.Second {
			return RoleNew, "never served before the window; first seen failing at " + Clock(f.First)
		}
		return RoleUnknown, ""
	}
	appeared := t.FirstServed.Sub(a.firstRequest) > 30*time.Second
	if appeared && t.FirstServed.After(w.Start.Add(-2*time.Minute)) {
		return RoleNew, "first served at " + Clock(t.FirstServed) + ", after the logs began"
	}
	if t.LastServed.Before(w.End.Add(a.Opts.MergeGap)) && t.FirstServed.Before(w.Start) {
		return RoleOld, "served until " + Clock(t.LastServed) + " and never after"
	}
	return RoleUnknown, ""
}

// EventsBetween returns the lifecycle records in [from, to] of the given
// kinds (all kinds when none are given).
func (a *Analysis) EventsBetween(from, to time.Time, kinds ...sources.LifecycleKind) []*sources.Lifecycle {
	lo := sort.Search(len(a.Lifecycle), func(i int) bool { return !a.Lifecycle[i].Time.Before(from) })
	var out []*sources.Lifecycle
	for i := lo; i < len(a.Lifecycle) && !a.Lifecycle[i].Time.After(to); i++ {
		l := &a.Lifecycle[i]
		if len(kinds) == 0 || containsKind(kinds, l.Kind) {
			out = append(out, l)
		}
	}
	return out
}

func containsKind(kinds []sources.LifecycleKind, k sources.LifecycleKind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// ConfigsOf returns the configuration facts of the given kind.
func (a *Analysis) ConfigsOf(kind string) []*sources.Config {
	var out []*sources.Config
	for _, c := range a.Configs {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// Clock renders a time of day for explanations: UTC, with milliseconds only
// when the time has them.
func Clock(t time.Time) string { return strings.TrimSuffix(t.UTC().Format("15:04:05.000"), ".000") }

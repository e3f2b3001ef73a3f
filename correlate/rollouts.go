package correlate

import (
	"cmp"
	"fmt"
	"math"
	"net/netip"
	"slices"
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
	// RoleOld: the backend belonged to a ReplicaSet being replaced.
	RoleOld
	// RoleNew: the backend belonged to the ReplicaSet being rolled out.
	RoleNew
)

// String names the role as the JSON contract does.
func (r Role) String() string {
	switch r {
	case RoleOld:
		return "old"
	case RoleNew:
		return "new"
	}
	return "unknown"
}

// How a rollout was found, strongest first.
const (
	// FoundByScaling: the Deployment controller's scaling events.
	FoundByScaling = "scaling events"
	// FoundByPods: pods of a new ReplicaSet appearing (by owner or name) and
	// the old one's terminating.
	FoundByPods = "pods"
	// FoundByTraffic: backends appearing and disappearing in the load
	// balancer's logs, with no Kubernetes record.
	FoundByTraffic = "load-balancer traffic"
)

// ReplicaSet is one ReplicaSet of a workload, as objects, scaling events
// and its pods' names say.
type ReplicaSet struct {
	Namespace, Name string
	// Workload is its Deployment ("" for traffic-only rollouts).
	Workload string
	// Revision is the deployment.kubernetes.io/revision annotation (an
	// Argo Rollout's: rollout.argoproj.io/revision).
	Revision string
	// Kind is the kind of its Workload: KindArgoRollout when an object or
	// an event says an Argo Rollout owns it, "" for a Deployment.
	Kind string
	// Born is when it first grew in the data: created, scaled up from
	// zero, or its first pod created, started or Ready; zero when it was
	// there before the data.
	Born time.Time
	// Pods are its backends, in key order.
	Pods []*Backend
	// scaledUp and scaledDown are the times its size was raised and lowered.
	scaledUp, scaledDown []time.Time
	// lastOut is the last time it was scaled to zero or one of its pods
	// began terminating; zero when neither.
	lastOut time.Time
}

// Rollout is one rollout of a workload: the ReplicaSet it brought and the
// ones it replaced, and when.
type Rollout struct {
	// N numbers the rollouts in time order, from 1.
	N         int
	Namespace string
	Workload  string
	New       *ReplicaSet
	Old       []*ReplicaSet
	// Start is the first step (the new ReplicaSet's first scale-up or pod);
	// End the last (the last old pod terminating, or the last new pod Ready).
	Start, End time.Time
	// How says what the rollout was found from (FoundBy...).
	How string
	// Kind is the workload's kind: KindArgoRollout, or "" for a
	// Deployment (progressive.go).
	Kind string
	// Steps are the progressive-delivery controller's records of the
	// rollout (Argo Rollouts, Flagger), in time order: weight changes,
	// Service switches, steps, promotion, abort, and Argo's own scaling
	// of the ReplicaSets (progressive.go).
	Steps []*sources.Lifecycle
}

// ID names the rollout in reports.
func (r *Rollout) ID() string { return fmt.Sprintf("rollout-%d", r.N) }

// Covers reports whether t falls within the rollout, widened by the lags
// with which its steps show in the load balancer's logs.
func (r *Rollout) Covers(t time.Time) bool {
	return !t.Before(r.Start.Add(-rolloutLookback)) && !t.After(r.End.Add(rolloutLookahead))
}

// OldNames lists the names of the replaced ReplicaSets.
func (r *Rollout) OldNames() []string {
	out := make([]string, 0, len(r.Old))
	for _, rs := range r.Old {
		out = append(out, rs.Name)
	}
	return out
}

// findRollouts groups the backends into ReplicaSets and finds every
// rollout: each ReplicaSet that grew during the data (scaled up, created,
// or its pods started) replaces the ReplicaSets of its workload that shrank
// (scaled down, or their pods began terminating) from then on. Roles follow
// from this structure, so a lost or merged event cannot flip one. Backends
// with no Kubernetes record are grouped by when they appeared and
// disappeared in the load balancer's traffic.
func findRollouts(d *Dataset, backends []*Backend, stops map[netip.Addr]stopRun, dataStart, dataEnd time.Time) []*Rollout {
	sets := replicaSets(d, backends)
	var out []*Rollout
	byWorkload := map[string][]*ReplicaSet{}
	var workloads []string
	for _, rs := range sets {
		k := rs.Namespace + "/" + rs.Workload
		if byWorkload[k] == nil {
			workloads = append(workloads, k)
		}
		byWorkload[k] = append(byWorkload[k], rs)
	}
	sort.Strings(workloads)
	for _, k := range workloads {
		rss := byWorkload[k]
		slices.SortFunc(rss, func(x, y *ReplicaSet) int { return cmp.Or(x.Born.Compare(y.Born), strings.Compare(x.Name, y.Name)) })
		for _, rs := range rss {
			if rs.Born.IsZero() {
				continue // there before the data: it can only be replaced
			}
			r := &Rollout{Namespace: rs.Namespace, Workload: rs.Workload, New: rs, Start: rs.Born, End: rs.Born, How: FoundByPods, Kind: rs.Kind}
			if len(rs.scaledUp) > 0 {
				r.How = FoundByScaling
			}
			for _, old := range rss {
				// An older ReplicaSet takes part when it shrank after the new
				// one was born.
				if old == rs || (!old.Born.IsZero() && !old.Born.Before(rs.Born)) {
					continue
				}
				if !old.lastOut.IsZero() && !old.lastOut.Before(rs.Born.Add(-rolloutLookback)) {
					r.Old = append(r.Old, old)
					r.End = latest(r.End, old.lastOut)
				}
			}
			if len(r.Old) == 0 {
				continue // a ReplicaSet growing alone is a scale-up, not a rollout
			}
			for _, b := range rs.Pods {
				r.End = latest(r.End, firstTime(b.At(Ready), b.At(LBHealthy)))
			}
			out = append(out, r)
		}
	}
	if !d.HasKubernetes() {
		// Kubernetes records explain every change they show; the traffic
		// alone speaks only when there are none.
		out = append(out, trafficRollouts(d, backends, stops, dataStart, dataEnd)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	for i, r := range out {
		r.N = i + 1
		// A pod brought by one rollout is replaced by the next: its role is
		// the last one it had.
		for _, b := range r.New.Pods {
			b.Role, b.Rollout = RoleNew, r
		}
		for _, rs := range r.Old {
			for _, b := range rs.Pods {
				b.Role, b.Rollout = RoleOld, r
			}
		}
	}
	return out
}

// latest returns the later of two times.
func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// RoleOf returns the side b was on in the rollout.
func (r *Rollout) RoleOf(b *Backend) Role {
	for _, x := range r.New.Pods {
		if x == b {
			return RoleNew
		}
	}
	for _, rs := range r.Old {
		for _, x := range rs.Pods {
			if x == b {
				return RoleOld
			}
		}
	}
	return RoleUnknown
}

// replicaSets builds every ReplicaSet that objects, scaling events or pod
// names reveal, with its pods.
func replicaSets(d *Dataset, backends []*Backend) []*ReplicaSet {
	m := map[string]*ReplicaSet{}
	get := func(ns, name, workload string) *ReplicaSet {
		k := ns + "/" + name
		rs := m[k]
		if rs == nil {
			rs = &ReplicaSet{Namespace: ns, Name: name, Workload: workload}
			m[k] = rs
		}
		if rs.Workload == "" {
			rs.Workload = workload
		}
		return rs
	}
	born := func(rs *ReplicaSet, t time.Time) {
		if !t.IsZero() && (rs.Born.IsZero() || t.Before(rs.Born)) {
			rs.Born = t
		}
	}
	for _, c := range d.Configs {
		if c.Kind == "ReplicaSet" && c.Workload != nil {
			rs := get(c.Namespace, c.Name, cmp.Or(c.Workload.Deployment, cmp.Or(c.Workload.Rollout, workloadOf(c.Name))))
			rs.Revision = c.Workload.Revision
			if c.Workload.Rollout != "" {
				rs.Kind = KindArgoRollout
			}
			born(rs, c.Created)
		}
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if (l.Kind != sources.ScaledUp && l.Kind != sources.ScaledDown) || l.Group == "" || l.OrderOnly {
			continue
		}
		owner, byArgo := strings.CutPrefix(l.Object, KindArgoRollout+"/")
		if !byArgo {
			owner = strings.TrimPrefix(l.Object, "Deployment/")
		}
		rs := get(l.Namespace, l.Group, cmp.Or(owner, workloadOf(l.Group)))
		if byArgo {
			rs.Kind = KindArgoRollout
		}
		if l.Kind == sources.ScaledUp {
			rs.scaledUp = append(rs.scaledUp, l.Time)
			if l.From <= 0 {
				born(rs, l.Time)
			}
		} else {
			rs.scaledDown = append(rs.scaledDown, l.Time)
			if l.Count == 0 && l.Time.After(rs.lastOut) {
				rs.lastOut = l.Time
			}
		}
	}
	for _, b := range backends {
		if b.Pod == "" || b.ReplicaSet == "" {
			continue
		}
		rs := get(b.Namespace, b.ReplicaSet, b.Workload)
		rs.Pods = append(rs.Pods, b)
		born(rs, b.grewAt())
		if t := b.At(Terminating); t.After(rs.lastOut) {
			rs.lastOut = t
		}
	}
	out := make([]*ReplicaSet, 0, len(m))
	for _, rs := range m {
		// An Argo Rollout's ReplicaSet scaled down before it grew is the
		// stable one coming back after an abort or a rollback: it was
		// there before the data, and its regrowth is no new rollout.
		if rs.Kind == KindArgoRollout && len(rs.scaledDown) > 0 && slices.MinFunc(rs.scaledDown, time.Time.Compare).Before(rs.Born) {
			rs.Born = time.Time{}
		}
		if rs.Workload != "" {
			out = append(out, rs)
		}
	}
	slices.SortFunc(out, func(x, y *ReplicaSet) int { return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name) })
	return out
}

// trafficRollouts finds rollouts in the load balancer's logs alone, for the
// bare IPs no Kubernetes record names: IPs that began serving well after the
// logs start are new, IPs that stopped well before they end are old, and
// those within trafficRolloutGap of each other are one rollout. An old IP
// whose traffic ends in failures stopped at its last response, not at its
// last failure: the rollout holds the whole of that run, however long the
// proxies took to stop sending to it (issue 27: an Envoy gateway's slow
// endpoint propagation started the rollout after the first failures and
// split each pod's run in two), and such an IP is old even when its run
// reaches the logs' end (see stopRun).
func trafficRollouts(d *Dataset, backends []*Backend, stops map[netip.Addr]stopRun, dataStart, dataEnd time.Time) []*Rollout {
	type step struct {
		from, to time.Time
		b        *Backend
		new      bool
	}
	var steps []step
	for _, b := range backends {
		if b.Pod != "" || len(b.IPs) != 1 {
			continue
		}
		ip := b.IPs[0]
		first, last, ok := trafficSpan(d, ip)
		if !ok {
			continue
		}
		stop := stops[ip]
		var s step
		switch {
		case first.Sub(dataStart) > dataEdge:
			s = step{first, first, b, true}
		case dataEnd.Sub(last) > dataEdge || stop.stopped():
			s = step{last, last, b, false}
			if stop.failed > 0 {
				s.from = stop.served
			}
		default:
			continue
		}
		steps = append(steps, s)
	}
	slices.SortFunc(steps, func(x, y step) int { return cmp.Or(x.from.Compare(y.from), strings.Compare(x.b.Key(), y.b.Key())) })
	var out []*Rollout
	var cur *Rollout
	for _, s := range steps {
		if cur == nil || s.from.Sub(cur.End) > trafficRolloutGap {
			cur = &Rollout{New: &ReplicaSet{}, Start: s.from, End: s.to, How: FoundByTraffic}
			cur.Old = []*ReplicaSet{{}}
			out = append(out, cur)
		}
		cur.End = latest(cur.End, s.to)
		if s.new {
			cur.New.Pods = append(cur.New.Pods, s.b)
		} else {
			cur.Old[0].Pods = append(cur.Old[0].Pods, s.b)
		}
	}
	return out
}

// stopRun is how an IP's traffic ends when it ends in failures: when it
// last served, how many requests failed at it since, and the chance that
// as many in a row fail by chance at the share of its requests that failed.
type stopRun struct {
	served time.Time
	failed int
	chance float64
}

// stopped reports whether the failures that end the IP's traffic say it
// stopped answering for good: stopFailures or more of them, none served,
// too many in a row for the IP's own share of failures (a trickle over a
// fleet of thousands of targets ends a few of them in three failures by
// chance).
func (r stopRun) stopped() bool { return r.failed >= stopFailures && r.chance < stopChance }

// stopRuns returns the stopRun of every IP whose traffic ends in failures
// after it last served; fails are each IP's failure groups.
func stopRuns(d *Dataset, fails map[netip.Addr][]*Failure) map[netip.Addr]stopRun {
	out := map[netip.Addr]stopRun{}
	for ip, t := range d.Traffic {
		served := t.Runs.Last()
		if served.IsZero() || !t.LastFailed.After(served) {
			continue
		}
		r := stopRun{served: served}
		for _, f := range fails[ip] {
			if f.Time.After(served) {
				r.failed += f.N
			}
		}
		if r.failed > 0 {
			share := float64(t.Failed) / float64(t.Served+t.Failed)
			r.chance = math.Pow(share, float64(r.failed))
			out[ip] = r
		}
	}
	return out
}

// trafficSpan returns the first and last time the IP served a response or
// was sent a request that failed at it.
func trafficSpan(d *Dataset, ip netip.Addr) (first, last time.Time, ok bool) {
	t := d.Traffic[ip]
	if t == nil {
		return time.Time{}, time.Time{}, false
	}
	first, last = t.Runs.First(), t.Runs.Last()
	if f := t.FirstFailed; !f.IsZero() && (first.IsZero() || f.Before(first)) {
		first = f
	}
	if l := t.LastFailed; l.After(last) {
		last = l
	}
	return first, last, !first.IsZero()
}

// firstTime returns the earliest non-zero time.
func firstTime(ts ...time.Time) time.Time {
	var first time.Time
	for _, t := range ts {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

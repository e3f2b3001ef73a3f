package correlate

import (
	"cmp"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Lease says that a backend held an IP from From to To. Pod IPs are reused,
// so who an IP was depends on when.
type Lease struct {
	IP      netip.Addr
	Backend *Backend
	// From and To bound the lease; zero is open.
	From, To time.Time
	// Join names the clues an inferred lease rests on; it is empty when a
	// record named both the pod and the IP (a pod object, an EndpointSlice,
	// a probe message).
	Join string
	// seen is the first record of the lease; it orders a lease whose start
	// is open among the others of its IP.
	seen time.Time
}

// Contains reports whether t falls in the lease.
func (l *Lease) Contains(t time.Time) bool {
	return (l.From.IsZero() || !t.Before(l.From)) && (l.To.IsZero() || !t.After(l.To))
}

// Identities maps backend IPs to pods over time.
type Identities struct {
	byIP map[netip.Addr][]*Lease
	// Alike lists the groups of pods and IPs that changed at the same
	// moment, so that timing cannot tell which IP was which pod's; their
	// pods stay unjoined.
	Alike []AlikeGroup
}

// AlikeGroup is pods and IPs that timing matches as a group but not one to
// one: the pods began terminating (or became Ready) together and the IPs
// stopped (or started) together.
type AlikeGroup struct {
	Pods []*Backend
	IPs  []netip.Addr
}

// At returns the lease of ip that contains t (give or take the tolerated
// clock skew); nil when no record ties the IP to a pod at that time.
func (id *Identities) At(ip netip.Addr, t time.Time) *Lease {
	ls := id.byIP[ip]
	if len(ls) == 0 {
		return nil
	}
	// Leases of one IP are in time order and do not overlap: find the last
	// one that starts at or before t (allowing for clock skew).
	i := sort.Search(len(ls), func(i int) bool { return !ls[i].From.IsZero() && ls[i].From.Add(-DefaultSkew).After(t) }) - 1
	if i < 0 || (!ls[i].To.IsZero() && t.After(ls[i].To.Add(DefaultSkew))) {
		return nil // no pod the records know held the IP then
	}
	return ls[i]
}

// Leases returns the leases of ip in time order.
func (id *Identities) Leases(ip netip.Addr) []*Lease { return id.byIP[ip] }

// buildIdentities learns IP-to-pod leases from every source that names
// both — pod objects, EndpointSlices, lifecycle records with a pod and an IP
// (probe failures) — then joins the pods no record ties to an IP with the
// IPs no record ties to a pod, from the timing of what each did.
func buildIdentities(d *Dataset, s *backendSet) *Identities {
	id := &Identities{byIP: map[netip.Addr][]*Lease{}}
	type key struct {
		ip netip.Addr
		b  *Backend
	}
	leases := map[key]*Lease{}
	var order []*Lease
	// observe widens the lease of ip by b to a record's time span [from, to]
	// (zero is unbounded), creating it at the first record.
	observe := func(b *Backend, ip netip.Addr, from, to time.Time) {
		k := key{ip, b}
		l := leases[k]
		if l == nil {
			l = &Lease{IP: ip, Backend: b, From: from, To: to, seen: from}
			leases[k] = l
			order = append(order, l)
			return
		}
		if from.IsZero() || (!l.From.IsZero() && from.Before(l.From)) {
			l.From, l.seen = from, from
		}
		if to.IsZero() || (!l.To.IsZero() && to.After(l.To)) {
			l.To = to
		}
	}
	for _, c := range d.Configs {
		switch {
		case c.Pod != nil && c.Pod.IP.IsValid():
			observe(s.pod(c.Namespace, c.Name), c.Pod.IP, c.Created, time.Time{})
		case c.EndpointSlice != nil:
			for _, ep := range c.EndpointSlice.Endpoints {
				for _, ip := range ep.Addresses {
					if ep.Pod != "" {
						observe(s.pod(c.Namespace, ep.Pod), ip, time.Time{}, time.Time{})
					}
				}
			}
		}
	}
	for i := range d.Lifecycle {
		if l := &d.Lifecycle[i]; l.IP.IsValid() && l.Pod != "" {
			observe(s.pod(l.Namespace, l.Pod), l.IP, l.Time, l.Time)
		}
	}
	life := podLives(d, s)
	for _, l := range order {
		// A pod holds its IP from its creation to its end; what records
		// say about it in between only confirms that.
		switch lf := life[l.Backend]; {
		case !lf.born.IsZero() && (l.From.IsZero() || lf.born.Before(l.From)):
			l.From = lf.born
		case lf.before:
			l.From = time.Time{} // it held the IP before the records began
		}
		if lf := life[l.Backend]; !l.To.IsZero() {
			l.To = time.Time{}
			if !lf.end.IsZero() {
				l.To = lf.end
			}
		}
		id.byIP[l.IP] = append(id.byIP[l.IP], l)
	}
	id.settle()
	joinByTiming(d, s, id, life)
	id.settle()
	for _, ls := range id.byIP {
		for _, l := range ls {
			l.Backend.Leases = append(l.Backend.Leases, l)
		}
	}
	for _, b := range s.byKey {
		slices.SortFunc(b.Leases, compareLeases)
	}
	return id
}

// podLife bounds a pod's life as records tell it: born is its creation
// (or scheduling, or start), end the end of its grace period after it
// began terminating; zero when unknown. before says that the records of
// the pod tell only of its end: it was there before they began.
type podLife struct {
	born, end time.Time
	before    bool
}

// podLives reads every pod's life from objects and events.
func podLives(d *Dataset, s *backendSet) map[*Backend]podLife {
	m := map[*Backend]podLife{}
	born := func(b *Backend, t time.Time) {
		if lf := m[b]; !t.IsZero() && (lf.born.IsZero() || t.Before(lf.born)) {
			lf.born = t
			m[b] = lf
		}
	}
	ended := func(b *Backend, t time.Time, grace time.Duration) {
		if lf := m[b]; !t.IsZero() && (lf.end.IsZero() || t.Add(grace).Before(lf.end)) {
			lf.end = t.Add(grace)
			m[b] = lf
		}
	}
	for _, c := range d.Configs {
		if c.Pod == nil {
			continue
		}
		b := s.pod(c.Namespace, c.Name)
		born(b, c.Created)
		if !c.Pod.Deleted.IsZero() {
			ended(b, c.Pod.Deleted, 0) // deletionTimestamp already holds the grace period
		}
	}
	began := map[*Backend]bool{} // a record tells of the pod's start
	for _, c := range d.Configs {
		if c.Pod != nil {
			began[s.pod(c.Namespace, c.Name)] = true
		}
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if l.Pod == "" {
			continue
		}
		b := s.pod(l.Namespace, l.Pod)
		switch l.Kind {
		case sources.PodCreated, sources.PodScheduled, sources.ContainerStarted:
			born(b, l.Time)
		case sources.ReadinessGate:
			// A closed gate tells of a pod starting: the NEG and ALB
			// controllers open a pod's gate once, when the load balancer
			// first has it, and never close it again.
			if l.Gate == sources.GateWaiting {
				born(b, l.Time)
			}
		case sources.Killing, sources.PodDeleted:
			ended(b, l.Time, graceOf(b, s))
		}
		if !endOfLife(l.Kind) {
			began[b] = true
		}
	}
	for b, lf := range m {
		if lf.born.IsZero() && !began[b] {
			lf.before = true
			m[b] = lf
		}
	}
	return m
}

// endOfLife reports whether a record of kind k tells only of a pod's end:
// a pod known by such records alone was running before they began.
func endOfLife(k sources.LifecycleKind) bool {
	switch k {
	case sources.Killing, sources.PreStopFailed, sources.PodDeleted, sources.PodEvicted,
		sources.TargetDeregistering, sources.TargetDeregistered, sources.NEGDetach:
		return true
	}
	return false
}

// graceOf is a pod's grace period from its spec or its workload's template.
func graceOf(b *Backend, s *backendSet) time.Duration {
	spec := b.Spec
	if spec == nil && b.ReplicaSet != "" {
		spec = s.templates[b.Namespace+"/"+b.ReplicaSet]
	}
	if spec != nil && spec.TerminationGracePeriodSec > 0 {
		return time.Duration(spec.TerminationGracePeriodSec) * time.Second
	}
	return DefaultGracePeriod
}

// compareLeases orders leases by start (an open start by the lease's first
// record), then by IP and pod.
func compareLeases(a, b *Lease) int {
	return cmp.Or(a.start().Compare(b.start()), a.IP.Compare(b.IP), strings.Compare(a.Backend.Key(), b.Backend.Key()))
}

// start is when the lease begins, or, for an open start, its first record.
func (l *Lease) start() time.Time {
	if l.From.IsZero() {
		return l.seen
	}
	return l.From
}

// settle orders each IP's leases and closes every lease at the start of
// the next one, so that a reused IP maps to one pod at any time. A lease
// with an open start after another begins where that one ends (or, when
// that one has no end, at its own first record).
func (id *Identities) settle() {
	for _, ls := range id.byIP {
		slices.SortStableFunc(ls, compareLeases)
		for i := 0; i+1 < len(ls); i++ {
			next := ls[i+1]
			if next.From.IsZero() && !next.seen.IsZero() {
				if ls[i].To.IsZero() || ls[i].To.After(next.seen) {
					ls[i].To = next.seen.Add(-time.Nanosecond)
				}
				next.From = ls[i].To.Add(time.Nanosecond)
			}
			if !next.From.IsZero() && (ls[i].To.IsZero() || ls[i].To.After(next.From)) {
				ls[i].To = next.From.Add(-time.Nanosecond)
			}
		}
	}
}

func absDuration(d time.Duration) time.Duration { return max(d, -d) }

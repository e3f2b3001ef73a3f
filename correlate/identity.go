package correlate

import (
	"net/netip"
	"sort"
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
}

// Contains reports whether t falls in the lease.
func (l *Lease) Contains(t time.Time) bool {
	return (l.From.IsZero() || !t.Before(l.From)) && (l.To.IsZero() || !t.After(l.To))
}

// Identities maps backend IPs to pods over time.
type Identities struct {
	byIP map[netip.Addr][]*Lease
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

// observation is one record that names both a pod and an IP.
type observation struct {
	b        *Backend
	ip       netip.Addr
	from, to time.Time // the record's time span; zero is unbounded
}

// buildIdentities learns IP-to-pod leases from every source that names
// both — pod objects, EndpointSlices, lifecycle records with a pod and an IP
// (probe failures) — then joins the pods no record ties to an IP with the
// IPs no record ties to a pod, from the timing of what each did.
func buildIdentities(d *Dataset, s *backendSet) *Identities {
	var obs []observation
	for _, c := range d.Configs {
		switch {
		case c.Pod != nil && c.Pod.IP.IsValid():
			obs = append(obs, observation{b: s.pod(c.Namespace, c.Name), ip: c.Pod.IP, from: c.Created})
		case c.EndpointSlice != nil:
			for _, ep := range c.EndpointSlice.Endpoints {
				for _, ip := range ep.Addresses {
					if ep.Pod != "" {
						obs = append(obs, observation{b: s.pod(c.Namespace, ep.Pod), ip: ip})
					}
				}
			}
		}
	}
	for i := range d.Lifecycle {
		if l := &d.Lifecycle[i]; l.IP.IsValid() && l.Pod != "" {
			obs = append(obs, observation{b: s.pod(l.Namespace, l.Pod), ip: l.IP, from: l.Time, to: l.Time})
		}
	}
	id := &Identities{byIP: map[netip.Addr][]*Lease{}}
	type key struct {
		ip netip.Addr
		b  *Backend
	}
	leases := map[key]*Lease{}
	var order []*Lease
	for _, o := range obs {
		k := key{o.ip, o.b}
		l := leases[k]
		if l == nil {
			l = &Lease{IP: o.ip, Backend: o.b, From: o.from, To: o.to}
			leases[k] = l
			order = append(order, l)
			continue
		}
		if o.from.IsZero() || (!l.From.IsZero() && o.from.Before(l.From)) {
			l.From = o.from
		}
		if o.to.IsZero() || (!l.To.IsZero() && o.to.After(l.To)) {
			l.To = o.to
		}
	}
	life := podLives(d, s)
	for _, l := range order {
		// A pod holds its IP from its creation to its end; what records
		// say about it in between only confirms that.
		if lf := life[l.Backend]; !lf.born.IsZero() && (l.From.IsZero() || lf.born.Before(l.From)) {
			l.From = lf.born
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
	joinByTiming(d, s, id)
	id.settle()
	for _, ls := range id.byIP {
		for _, l := range ls {
			l.Backend.Leases = append(l.Backend.Leases, l)
		}
	}
	for _, b := range s.byKey {
		sort.Slice(b.Leases, func(i, j int) bool { return leaseBefore(b.Leases[i], b.Leases[j]) })
	}
	return id
}

// podLife bounds a pod's life as records tell it: born is its creation
// (or scheduling, or start), end the end of its grace period after it
// began terminating; zero when unknown.
type podLife struct{ born, end time.Time }

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
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if l.Pod == "" {
			continue
		}
		b := s.pod(l.Namespace, l.Pod)
		switch l.Kind {
		case sources.PodCreated, sources.PodScheduled, sources.ContainerStarted:
			born(b, l.Time)
		case sources.Killing, sources.PodDeleted:
			ended(b, l.Time, graceOf(b, s))
		}
	}
	return m
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

// leaseBefore orders leases by start (open starts first), then by pod.
func leaseBefore(a, b *Lease) bool {
	if !a.From.Equal(b.From) {
		return a.From.Before(b.From)
	}
	if a.IP != b.IP {
		return a.IP.Less(b.IP)
	}
	return a.Backend.Key() < b.Backend.Key()
}

// settle orders each IP's leases and closes every lease at the start of
// the next one, so that a reused IP maps to one pod at any time.
func (id *Identities) settle() {
	for _, ls := range id.byIP {
		sort.SliceStable(ls, func(i, j int) bool { return leaseBefore(ls[i], ls[j]) })
		for i := 0; i+1 < len(ls); i++ {
			next := ls[i+1]
			if !next.From.IsZero() && (ls[i].To.IsZero() || ls[i].To.After(next.From)) {
				ls[i].To = next.From.Add(-time.Nanosecond)
			}
		}
	}
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

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

// At returns the lease of ip that contains t, else the last one that started
// before t, else the first; nil when nothing ties the IP to a pod.
func (id *Identities) At(ip netip.Addr, t time.Time) *Lease {
	ls := id.byIP[ip]
	if len(ls) == 0 {
		return nil
	}
	// Leases of one IP are in time order and do not overlap: find the last
	// one that starts at or before t.
	i := sort.Search(len(ls), func(i int) bool { return !ls[i].From.IsZero() && ls[i].From.After(t) }) - 1
	switch {
	case i < 0:
		return ls[0]
	case ls[i].Contains(t) || i == len(ls)-1:
		return ls[i]
	case !ls[i+1].From.IsZero() && ls[i+1].From.Sub(t) < t.Sub(ls[i].To):
		return ls[i+1]
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
	for _, l := range order {
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

// pending is a pod without an IP, or an IP without a pod, described by
// when it started and stopped taking traffic.
type pending struct {
	b  *Backend   // the pod (nil for an IP)
	ip netip.Addr // the IP (invalid for a pod)
	// start and stop are the pod's Ready and termination times, or the
	// IP's first and last traffic (served or failed) and controller steps.
	start, stop time.Time
	// startWhy and stopWhy name the records behind start and stop.
	startWhy, stopWhy string
	// created is when the pod was created, if a record says.
	created time.Time
}

// joinByTiming joins pods that no record ties to an IP with IPs that no
// record ties to a pod, when exactly one of each fits the other: the pod
// began terminating when the IP stopped serving (or was deregistered), or
// became Ready when the IP began serving (or was registered). Events are
// lossy and deleted pods are gone from `kubectl get pods`, so the old pods
// of a rollout are often known by name only.
func joinByTiming(d *Dataset, s *backendSet, id *Identities) {
	pods := pendingPods(d, s, id)
	if len(pods) == 0 {
		return
	}
	ips := pendingIPs(d, id)
	type pair struct {
		p, q *pending
		fit  time.Duration
		why  string
	}
	var pairs []pair
	for _, p := range pods {
		for _, q := range candidates(ips, p) {
			if fit, why, ok := joinFit(p, q); ok {
				pairs = append(pairs, pair{p, q, fit, why})
			}
		}
	}
	// The best fit of each pod and of each IP, and the next best.
	type bests struct{ first, second time.Duration }
	byPod, byIP := map[*pending]*bests{}, map[*pending]*bests{}
	for _, x := range pairs {
		for _, k := range [2]struct {
			m map[*pending]*bests
			p *pending
		}{{byPod, x.p}, {byIP, x.q}} {
			b := k.m[k.p]
			switch {
			case b == nil:
				k.m[k.p] = &bests{x.fit, 1 << 62}
			case x.fit < b.first:
				b.first, b.second = x.fit, b.first
			case x.fit < b.second:
				b.second = x.fit
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].fit != pairs[j].fit {
			return pairs[i].fit < pairs[j].fit
		}
		if pairs[i].p.b.Key() != pairs[j].p.b.Key() {
			return pairs[i].p.b.Key() < pairs[j].p.b.Key()
		}
		return pairs[i].q.ip.Less(pairs[j].q.ip)
	})
	used := map[*pending]bool{}
	for _, x := range pairs {
		if used[x.p] || used[x.q] {
			continue
		}
		bp, bq := byPod[x.p], byIP[x.q]
		if x.fit != bp.first || x.fit != bq.first || bp.second-bp.first < joinMargin || bq.second-bq.first < joinMargin {
			continue // another pod or IP fits about as well: no join
		}
		used[x.p], used[x.q] = true, true
		id.byIP[x.q.ip] = append(id.byIP[x.q.ip], &Lease{IP: x.q.ip, Backend: x.p.b, From: x.p.created, Join: x.why})
	}
}

// pendingPods describes every pod that no record ties to an IP by when it
// became Ready and began terminating.
func pendingPods(d *Dataset, s *backendSet, id *Identities) []*pending {
	leased := map[*Backend]bool{}
	for _, ls := range id.byIP {
		for _, l := range ls {
			leased[l.Backend] = true
		}
	}
	m := map[*Backend]*pending{}
	for _, c := range d.Configs {
		if b := s.byKey[c.Namespace+"/"+c.Name]; c.Pod != nil && b != nil && !leased[b] {
			m[b] = &pending{b: b, created: c.Created}
		}
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if l.Pod == "" {
			continue
		}
		b := s.byKey[l.Namespace+"/"+l.Pod]
		if b == nil || leased[b] {
			continue
		}
		p := m[b]
		if p == nil {
			p = &pending{b: b}
			m[b] = p
		}
		switch {
		case l.Kind == sources.PodReady || l.Kind == sources.ReadinessGate && l.Gate.Opened():
			if p.start.IsZero() || l.Time.Before(p.start) {
				p.start, p.startWhy = l.Time, "Ready at "+Clock(l.Time)
			}
		case l.Kind == sources.Killing || l.Kind == sources.PodDeleted:
			if p.stop.IsZero() || l.Time.Before(p.stop) {
				p.stop, p.stopWhy = l.Time, "began terminating at "+Clock(l.Time)
			}
		}
	}
	out := make([]*pending, 0, len(m))
	for _, p := range m {
		if !p.start.IsZero() || !p.stop.IsZero() {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].b.Key() < out[j].b.Key() })
	return out
}

// pendingIPs describes every backend IP that no record ties to a pod by
// when it started and stopped taking traffic: the load-balancer
// controller's registration and deregistration when it logged them, else
// the first and last response the IP served.
func pendingIPs(d *Dataset, id *Identities) []*pending {
	m := map[netip.Addr]*pending{}
	get := func(ip netip.Addr) *pending {
		q := m[ip]
		if q == nil {
			q = &pending{ip: ip}
			m[ip] = q
		}
		return q
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if !l.IP.IsValid() || l.Pod != "" || len(id.byIP[l.IP]) > 0 {
			continue
		}
		switch l.Kind {
		case sources.TargetRegistering, sources.TargetRegistered:
			if q := get(l.IP); q.start.IsZero() || l.Time.Before(q.start) {
				q.start, q.startWhy = l.Time, "registered with the load balancer at "+Clock(l.Time)
			}
		case sources.TargetDeregistering, sources.TargetDeregistered:
			if q := get(l.IP); q.stop.IsZero() || l.Time.Before(q.stop) {
				q.stop, q.stopWhy = l.Time, "deregistered from the load balancer at "+Clock(l.Time)
			}
		}
	}
	for ip, t := range d.Traffic {
		if len(id.byIP[ip]) > 0 || len(t.Runs) == 0 {
			continue
		}
		q := get(ip)
		if q.start.IsZero() {
			q.start, q.startWhy = t.Runs.First(), "first served at "+Clock(t.Runs.First())
		}
		if q.stop.IsZero() {
			q.stop, q.stopWhy = t.Runs.Last(), "last served at "+Clock(t.Runs.Last())
		}
	}
	out := make([]*pending, 0, len(m))
	for _, q := range m {
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ip.Less(out[j].ip) })
	return out
}

// candidates returns the IPs whose start or stop lies within joinWindow of
// the pod's. The lists are short (pods that no object describes), so a scan
// is enough; it stays linear in the IPs for each such pod.
func candidates(ips []*pending, p *pending) []*pending {
	var out []*pending
	near := func(a, b time.Time) bool { return !a.IsZero() && !b.IsZero() && absDuration(a.Sub(b)) <= joinWindow }
	for _, q := range ips {
		if near(p.stop, q.stop) || near(p.start, q.start) {
			out = append(out, q)
		}
	}
	return out
}

// joinFit says how well a pod p and an IP q fit: the distance between the
// pod's termination and the IP's stop (the stronger clue: the load balancer
// is told at once), else between its Ready and the IP's start. ok is false
// when they do not fit within joinWindow.
func joinFit(p, q *pending) (fit time.Duration, why string, ok bool) {
	if !p.stop.IsZero() && !q.stop.IsZero() {
		// The load balancer stops sending at most joinWindow after the pod
		// began terminating, and not much before it (clock skew).
		d := q.stop.Sub(p.stop)
		if d >= -DefaultSkew && d <= joinWindow {
			return absDuration(d), p.stopWhy + "; " + q.stopWhy, true
		}
		return 0, "", false
	}
	if !p.start.IsZero() && !q.start.IsZero() {
		d := q.start.Sub(p.start)
		if d >= -joinWindow && d <= joinWindow {
			return absDuration(d), p.startWhy + "; " + q.startWhy, true
		}
	}
	return 0, "", false
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

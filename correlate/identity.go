package correlate

import (
	"net/netip"
	"sort"
	"time"
)

// Lease says that a pod held an IP from From to To. Pod IPs are reused, so
// who an IP was depends on when.
type Lease struct {
	IP        netip.Addr
	Namespace string
	Pod       string
	// From and To bound the times the pod was seen with the IP, widened to
	// the pod's creation and deletion when those are known; a zero To is open.
	From, To time.Time
}

// Identities maps backend IPs to pods over time.
type Identities struct {
	byIP map[netip.Addr][]*Lease
}

// buildIdentities learns IP-to-pod leases from every source that names both:
// pod objects, EndpointSlices, and lifecycle records that carry a pod and an
// IP (probe failures, pod status).
func buildIdentities(d *Dataset) *Identities {
	type key struct {
		ip      netip.Addr
		ns, pod string
	}
	leases := map[key]*Lease{}
	observe := func(ip netip.Addr, ns, pod string, from, to time.Time) {
		if !ip.IsValid() || pod == "" {
			return
		}
		k := key{ip, ns, pod}
		l := leases[k]
		if l == nil {
			l = &Lease{IP: ip, Namespace: ns, Pod: pod, From: from, To: to}
			leases[k] = l
			return
		}
		if !from.IsZero() && (l.From.IsZero() || from.Before(l.From)) {
			l.From = from
		}
		if to.IsZero() || (!l.To.IsZero() && to.After(l.To)) {
			l.To = to
		}
	}
	for _, c := range d.Configs {
		switch {
		case c.Pod != nil && c.Pod.IP.IsValid():
			var to time.Time
			if !c.Pod.Deleted.IsZero() {
				to = c.Pod.Deleted
			}
			observe(c.Pod.IP, c.Namespace, c.Name, c.Created, to)
		case c.EndpointSlice != nil:
			for _, ep := range c.EndpointSlice.Endpoints {
				for _, ip := range ep.Addresses {
					observe(ip, c.Namespace, ep.Pod, time.Time{}, time.Time{})
				}
			}
		}
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		observe(l.IP, l.Namespace, l.Pod, l.Time, l.Time)
	}
	id := &Identities{byIP: map[netip.Addr][]*Lease{}}
	for _, l := range leases {
		id.byIP[l.IP] = append(id.byIP[l.IP], l)
	}
	for _, ls := range id.byIP {
		sort.Slice(ls, func(i, j int) bool {
			if !ls[i].From.Equal(ls[j].From) {
				return ls[i].From.Before(ls[j].From)
			}
			return ls[i].Namespace+"/"+ls[i].Pod < ls[j].Namespace+"/"+ls[j].Pod
		})
	}
	return id
}

// PodAt returns the pod that held ip at t: the lease containing t, else the
// last lease that started before t, else the first one. ok is false when no
// source ever tied the IP to a pod.
func (id *Identities) PodAt(ip netip.Addr, t time.Time) (ns, pod string, ok bool) {
	ls := id.byIP[ip]
	if len(ls) == 0 {
		return "", "", false
	}
	best := ls[0]
	for _, l := range ls {
		if (l.From.IsZero() || !t.Before(l.From)) && (l.To.IsZero() || !t.After(l.To)) {
			return l.Namespace, l.Pod, true
		}
		if !l.From.After(t) {
			best = l
		}
	}
	return best.Namespace, best.Pod, true
}

// IPsOf returns every IP the pod was seen with.
func (id *Identities) IPsOf(ns, pod string) []netip.Addr {
	var ips []netip.Addr
	for ip, ls := range id.byIP {
		for _, l := range ls {
			if l.Pod == pod && (ns == "" || l.Namespace == "" || l.Namespace == ns) {
				ips = append(ips, ip)
				break
			}
		}
	}
	sort.Slice(ips, func(i, j int) bool { return ips[i].Less(ips[j]) })
	return ips
}

// Package correlate joins the records of every input into what the rules
// need: who each backend IP was over time (pods joined to IPs from every
// clue), one lifecycle timeline per pod, the rollouts and each backend's
// side in them, the offset between the load balancer's clock and the
// cluster's, and every failure the load balancer or proxy generated,
// attributed to the backend it failed at and what that backend was doing.
// It knows no input format and names no cause.
package correlate

import (
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/sources"
)

// Analysis is the correlated view of every input.
type Analysis struct {
	*Dataset
	Identities *Identities
	// Backends lists every pod and bare IP, in key order.
	Backends []*Backend
	// Rollouts lists the rollouts found, in time order.
	Rollouts []*Rollout
	// Clock is the offset applied to the cluster's records.
	Clock ClockOffset
	// Signals are the failures the load balancer or proxy generated,
	// attributed, in time order.
	Signals []*Signal
	// Opts are the options the analysis ran with, defaults filled in.
	Opts Options

	byKey        map[string]*Backend
	failuresByIP map[netip.Addr][]*Failure
	// stops holds how the traffic of each IP that ends in failures ends
	// (see stopRun).
	stops map[netip.Addr]stopRun
	// servedGaps is built on first use (see gaps).
	servedGaps *servedGaps
	gapsOnce   sync.Once
	// firstRequest and lastRequest bound the request logs, requests far
	// from the rest left out (Axis).
	firstRequest, lastRequest time.Time
	// maxTimeError is the largest TimeError of the lifecycle records: how
	// far outside a window EventsBetween must look.
	maxTimeError time.Duration
}

// Analyze correlates a Dataset. It may move the times of the cluster's
// records by the clock offset it finds (see ClockOffset).
func Analyze(d *Dataset, o Options) *Analysis {
	o = o.withDefaults()
	a := build(d, o)
	off := estimateClockLag(a.clockPairs())
	if off.Offset != 0 {
		shiftCluster(d, off.Offset)
		a = build(d, o)
	}
	a.Clock = off
	a.Signals = a.attribute()
	a.lastSent()
	return a
}

// termSkew is how much earlier than its recorded termination a failure at
// a pod may come and still count as after it: the clock offset's Skew when
// the clocks were compared, else Opts.Skew (what unmeasured clocks may
// differ by), and never more than that.
func (a *Analysis) termSkew() time.Duration {
	if a.Clock.Pairs == 0 {
		return a.Opts.Skew
	}
	return min(a.Clock.Skew(), a.Opts.Skew)
}

// build assembles identities, backends and rollouts.
func build(d *Dataset, o Options) *Analysis {
	a := &Analysis{Dataset: d, Opts: o, failuresByIP: map[netip.Addr][]*Failure{}}
	for i := range d.Lifecycle {
		a.maxTimeError = max(a.maxTimeError, d.Lifecycle[i].TimeError)
	}
	if first, last, ok := requestSpan(d); ok {
		a.firstRequest, a.lastRequest = first, last
	}
	for _, r := range d.Failures {
		seen := map[netip.Addr]bool{}
		add := func(ap netip.AddrPort) {
			if ap.IsValid() && !seen[ap.Addr()] {
				seen[ap.Addr()] = true
				a.failuresByIP[ap.Addr()] = append(a.failuresByIP[ap.Addr()], r)
			}
		}
		add(r.Backend)
		for _, at := range r.Attempts {
			add(at.Backend)
		}
	}
	set := newBackendSet(d)
	a.Identities = buildIdentities(d, set)
	// An IP's activity that no lease covers belongs to a bare backend.
	for ip, t := range d.Traffic {
		if !a.covered(ip, t.Runs.First()) || !a.covered(ip, t.Runs.Last()) {
			set.bare(ip)
		}
	}
	for ip, fs := range a.failuresByIP {
		for _, f := range fs {
			// A lease that ends within a group's second leaves its
			// latest records uncovered.
			if !a.covered(ip, f.Time) || !a.covered(ip, f.Last()) {
				set.bare(ip)
				break
			}
		}
	}
	a.Backends = set.finish(d, a.Identities)
	a.byKey = set.byKey
	a.servedSpans()
	a.linkAlike()
	a.stops = stopRuns(d, a.failuresByIP)
	a.Rollouts = findRollouts(d, a.Backends, a.stops, a.firstRequest, a.lastRequest)
	a.attachSteps()
	inferReady(d, a.Rollouts)
	a.shareAlike()
	return a
}

// linkAlike ties the bare IPs and the pods of each group timing could not
// tell apart to each other.
func (a *Analysis) linkAlike() {
	for _, g := range a.Identities.Alike {
		for _, ip := range g.IPs {
			b := a.byKey[ip.String()]
			if b == nil {
				continue
			}
			b.Alike = g.Pods
			for _, p := range g.Pods {
				p.Alike = append(p.Alike, b)
			}
		}
	}
}

// shareAlike gives a bare IP what all the pods it may be agree on: their
// ReplicaSet, role and rollout, and the milestones they reached within
// the tolerated skew of each other (the IP's own records win).
func (a *Analysis) shareAlike() {
	for _, b := range a.Backends {
		if b.Pod != "" || len(b.Alike) == 0 {
			continue
		}
		first := b.Alike[0]
		same := true
		for _, p := range b.Alike[1:] {
			same = same && p.ReplicaSet == first.ReplicaSet && p.Role == first.Role && p.Rollout == first.Rollout
		}
		if same {
			b.ReplicaSet, b.Workload, b.Role, b.Rollout = first.ReplicaSet, first.Workload, first.Role, first.Rollout
		}
		for _, m := range []Milestone{Created, Ready, Terminating, Deleted} {
			if b.Moments[m] != nil {
				continue
			}
			var earliest *Moment
			agree := true
			for _, p := range b.Alike {
				pm := p.Moments[m]
				if pm == nil {
					agree = false
					break
				}
				if earliest != nil && absDuration(pm.Time.Sub(earliest.Time)) > a.Opts.Skew {
					agree = false
					break
				}
				if earliest == nil || pm.Time.Before(earliest.Time) {
					earliest = pm
				}
			}
			if agree && earliest != nil {
				b.Moments[m] = earliest
			}
		}
	}
}

// covered reports whether a lease of ip covers t (zero t counts as covered).
func (a *Analysis) covered(ip netip.Addr, t time.Time) bool {
	return t.IsZero() || a.Identities.At(ip, t) != nil
}

// Backend returns the backend with the given key (namespace/pod, or an IP).
func (a *Analysis) Backend(key string) *Backend { return a.byKey[key] }

// BackendOf returns the backend that held ip at t, or nil.
func (a *Analysis) BackendOf(ip netip.Addr, t time.Time) *Backend { return a.backendAt(ip, t) }

// DataSpan returns the first and last second with requests, the requests
// far from the rest left out by the rule of Axis, which the report's time
// axis follows too.
func (a *Analysis) DataSpan() (first, last time.Time) { return a.firstRequest, a.lastRequest }

// EventsBetween returns the lifecycle records of the given kinds (all
// kinds when none are given) that may have happened in [from, to]: those
// whose time, give or take its TimeError (a kubectl table's rounded age),
// falls in it. A record whose time is only its order (OrderOnly) has no
// place on the clock and is never returned.
func (a *Analysis) EventsBetween(from, to time.Time, kinds ...sources.LifecycleKind) []*sources.Lifecycle {
	lo := sort.Search(len(a.Lifecycle), func(i int) bool { return !a.Lifecycle[i].Time.Before(from.Add(-a.maxTimeError)) })
	var out []*sources.Lifecycle
	for i := lo; i < len(a.Lifecycle) && !a.Lifecycle[i].Time.After(to.Add(a.maxTimeError)); i++ {
		l := &a.Lifecycle[i]
		if l.OrderOnly || l.Time.Add(l.TimeError).Before(from) || l.Time.Add(-l.TimeError).After(to) {
			continue
		}
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

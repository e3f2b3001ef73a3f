package correlate

import (
	"net/netip"
	"slices"
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// ClockOffset is the offset found between the load balancer's clock (the
// request logs) and the cluster's (the Kubernetes API's events and objects),
// and applied to the cluster's records. Pairs is zero when the clocks could
// not be compared (too few pairs, or pairs that disagree); the clocks may
// be found to agree, with no offset applied.
type ClockOffset struct {
	// Offset was added to every Kubernetes record's time: positive when the
	// cluster's clock ran behind the load balancer's.
	Offset time.Duration
	// Pairs counts the paired observations it rests on.
	Pairs int
	// Residual is the pairs' median less Offset: how much later than its
	// record, once corrected, the load balancer saw the median pod stop
	// (about half a second when the clocks agree, as the records are
	// stamped to the second). Spread is the pairs' median absolute
	// deviation.
	Residual, Spread time.Duration
	// Lag is the propagation delay of the load balancer's proxies the
	// pairs were read against (see pushLag): a median within it is the
	// proxies acting late, not a clock offset, and is not shifted.
	Lag time.Duration
}

// WithinLag reports whether the clocks were compared and the pairs' median
// offset, too large to be the stamps' resolution, is what the proxies'
// propagation lag explains: no offset was applied.
func (c ClockOffset) WithinLag() bool {
	return c.Pairs > 0 && c.Offset == 0 && c.Residual >= minClockOffset && c.Lag > 0
}

// Skew is how much earlier than its record, in the load balancer's clock,
// a pod's termination may have happened once the offset is applied (see
// Analysis.termSkew): the earliest a stop appears against a record stamped
// to the second is half a second before the median, less the residual
// offset, give or take twice the spread; never less than
// minTerminationSkew.
func (c ClockOffset) Skew() time.Duration {
	return max(stampResolution/2-c.Residual+2*c.Spread, minTerminationSkew)
}

// How names the observations a clock offset rests on, for reports.
const ClockPairs = "pods' termination vs the moment their IP stopped answering"

// clockPairs measures, for every old pod that stopped answering at once,
// how much later the load balancer saw it: its termination (plus the
// preStop sleep its spec states) against the instant its IP went from
// serving to failing for good, which the last response and the first
// failure after it bracket (a failure the IP answered after is not that
// instant). The application stops at SIGTERM whatever the load balancer's
// settings, so what remains is the offset between the clocks. A new pod's
// Ready against its first refused connection is no such pair: the refusal
// waits for the proxy's endpoint sync, which ingress-nginx rate-limits to
// one every few seconds (--sync-rate-limit 0.3).
func (a *Analysis) clockPairs() (pairs []time.Duration, lag time.Duration) {
	var out []time.Duration
	for _, b := range a.Backends {
		if b.Pod == "" {
			continue
		}
		for _, lease := range b.Leases {
			tr := a.Traffic[lease.IP]
			if tr == nil {
				continue
			}
			fails := a.failuresAt(lease.IP)
			if d, f, ok := stopPair(b, lease, tr, fails); ok {
				out = append(out, d)
				lag = max(lag, pushLag(f.ProxyFamily()))
			}
		}
	}
	return out, lag
}

// stopPair is the termination pair of one lease (see clockPairs), and the
// failure that marks the stop.
func stopPair(b *Backend, lease *Lease, tr *Traffic, fails []*Failure) (time.Duration, *Failure, bool) {
	term := b.Moments[Terminating]
	if term == nil || !term.Event.ClusterClock() || b.Spec == nil || term.Event.TimeError > 0 {
		// A termination known only within a kubectl table's rounding
		// measures no clock.
		return 0, nil, false
	}
	stop := term.Time.Add(time.Duration(b.Spec.PreStopSleep()) * time.Second)
	served := tr.Runs.LastIn(lease.From, lease.To)
	for _, f := range fails {
		if f.Time.After(stop.Add(maxClockOffset)) {
			break
		}
		// When the attempt at this IP failed: a retried request's last
		// attempt came after the others.
		at := attemptTime(f, f.Backend.Addr() == lease.IP, f.Failure)
		if at.Before(stop.Add(-maxClockOffset)) {
			// The group's later records may come after: its latest
			// does if any does.
			at = attemptTimeAt(f, f.Last(), f.Backend.Addr() == lease.IP, f.Failure)
			if at.Before(stop.Add(-maxClockOffset)) {
				continue
			}
		}
		if f.Failure != sources.FailureRefused && f.Failure != sources.FailureClosed && !f.AttemptOnly {
			continue
		}
		if served.After(at) {
			continue // it answered again: a failure while it served (an idle keep-alive race), not its stop
		}
		last := tr.Runs.LastIn(lease.From, at)
		if last.IsZero() || at.Sub(last) > maxStopEdge {
			return 0, nil, false // no sharp edge from serving to failing
		}
		mid := last.Add(at.Sub(last) / 2)
		return mid.Sub(stop), f, true
	}
	return 0, nil, false
}

// failuresAt returns the failure groups that name ip, in time order.
func (a *Analysis) failuresAt(ip netip.Addr) []*Failure {
	return a.failuresByIP[ip]
}

// estimateClock returns the offset the pairs agree on, with no propagation
// lag to allow for (see estimateClockLag).
func estimateClock(pairs []time.Duration) ClockOffset { return estimateClockLag(pairs, 0) }

// estimateClockLag returns the offset the pairs agree on: their median, when
// there are enough of them, they agree within maxClockSpread and it is at
// least minClockOffset. Pairs that agree on less leave the offset zero but
// say how closely the clocks agree; too few pairs, or pairs that disagree,
// give the zero ClockOffset. The proxies' propagation lag (up to lag) makes
// the load balancer see a stop late with the clocks agreeing: a median in
// [0, lag + minClockOffset) is explained by that lag as well as by an
// offset, and the clocks are taken to agree (no offset is applied; the
// report says so). Beyond it, or before the record, no lag explains it and
// the median is the offset, as without lag.
func estimateClockLag(pairs []time.Duration, lag time.Duration) ClockOffset {
	if len(pairs) < minClockPairs {
		return ClockOffset{}
	}
	sorted := slices.Clone(pairs)
	slices.Sort(sorted)
	med := median(sorted)
	dev := make([]time.Duration, len(sorted))
	for i, d := range sorted {
		dev[i] = absDuration(d - med)
	}
	slices.Sort(dev)
	spread := median(dev)
	if spread > maxClockSpread {
		return ClockOffset{}
	}
	if absDuration(med) < minClockOffset || med >= 0 && med < lag+minClockOffset {
		return ClockOffset{Pairs: len(pairs), Residual: med, Spread: spread, Lag: lag}
	}
	// The load balancer saw the changes med later: the cluster's clock is
	// med behind, so its records move forward by med.
	off := med.Round(clockResolution)
	return ClockOffset{Offset: off, Pairs: len(pairs), Residual: med - off, Spread: spread, Lag: lag}
}

// median returns the middle of a sorted list.
func median(sorted []time.Duration) time.Duration {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// shiftCluster moves every record stamped by the cluster's clocks by off.
func shiftCluster(d *Dataset, off time.Duration) {
	for i := range d.Lifecycle {
		if d.Lifecycle[i].ClusterClock() {
			d.Lifecycle[i].Time = d.Lifecycle[i].Time.Add(off)
		}
	}
	for _, c := range d.Configs {
		shiftConfig(c, off)
	}
	sort.SliceStable(d.Lifecycle, func(i, j int) bool {
		return earlier(d.Lifecycle[i].Time, d.Lifecycle[i].Origin, d.Lifecycle[j].Time, d.Lifecycle[j].Origin)
	})
}

// shiftConfig moves the times an object states by off.
func shiftConfig(c *sources.Config, off time.Duration) {
	move := func(t *time.Time) {
		if !t.IsZero() {
			*t = t.Add(off)
		}
	}
	move(&c.Created)
	if p := c.Pod; p != nil {
		move(&p.Started)
		move(&p.Deleted)
		for i := range p.Conditions {
			move(&p.Conditions[i].LastTransition)
		}
		for i := range p.Containers {
			move(&p.Containers[i].StartedAt)
		}
	}
}

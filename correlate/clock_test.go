package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestEstimateClock pins each limit of the offset estimate on both sides.
func TestEstimateClock(t *testing.T) {
	s := func(secs ...float64) []time.Duration {
		var out []time.Duration
		for _, x := range secs {
			out = append(out, time.Duration(x*float64(time.Second)))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		pairs []time.Duration
		want  time.Duration
	}{
		{"one pair is too few", s(5), 0},
		{"two pairs are enough", s(5, 5), 5 * time.Second},
		{"the median of an odd count is the middle pair", s(1, 5, 5.2), 5 * time.Second},
		{"the median of an even count is the mean of the middle two", s(4.6, 5, 5.4, 5.6), 5200 * time.Millisecond},
		{"a spread of exactly maxClockSpread is accepted", s(4, 6), 5 * time.Second},
		{"a spread over maxClockSpread is not", s(3.8, 6.2), 0},
		{"an offset of exactly minClockOffset is corrected", s(1.5, 1.5), 1500 * time.Millisecond},
		{"a smaller one is not", s(1.4, 1.4), 0},
		{"a negative offset counts by its size", s(-2, -2), -2 * time.Second},
		{"the offset is rounded to clockResolution", s(5.04, 5.06), 5100 * time.Millisecond},
	} {
		got := estimateClock(tc.pairs)
		if got.Offset != tc.want {
			t.Errorf("%s: estimateClock(%v) = %v, want %v", tc.name, tc.pairs, got.Offset, tc.want)
		}
		// Pairs that agree count even when the offset is too small to
		// apply: they say how closely the clocks agree.
		agree := tc.want != 0 || tc.name == "a smaller one is not"
		if wantPairs := map[bool]int{true: len(tc.pairs), false: 0}[agree]; got.Pairs != wantPairs {
			t.Errorf("%s: %d pairs, want %d", tc.name, got.Pairs, wantPairs)
		}
	}
}

// TestStopPair pins what makes a termination and a backend's first
// failure one pair: a cluster-clock termination, the preStop sleep, a
// failure of the right kind within maxClockOffset, and a sharp edge.
func TestStopPair(t *testing.T) {
	ip := netip.MustParseAddr("10.0.1.5")
	term := t0.Add(time.Minute)
	sleep := 5
	stop := term.Add(time.Duration(sleep) * time.Second)
	backend := func() *Backend {
		b := &Backend{Pod: "web-1", Spec: &sources.PodSpec{Containers: []sources.Container{{Name: "app",
			PreStop: &sources.PreStop{SleepSec: &sleep}}}}}
		b.Moments[Terminating] = &Moment{Time: term, Event: &sources.Lifecycle{Time: term, FromAPI: true}}
		return b
	}
	// pair runs the backend serving until lastServed, then one failure.
	pair := func(b *Backend, lastServed, failed time.Time, kind sources.FailureKind, attemptOnly bool) (time.Duration, bool) {
		tr := &Traffic{Runs: Runs{{from: nanos(t0), to: nanos(lastServed)}}}
		fail := &sources.Request{Time: failed, Failure: kind, AttemptOnly: attemptOnly}
		d, _, ok := stopPair(b, &Lease{IP: ip}, tr, ones(fail))
		return d, ok
	}
	sec := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	for _, tc := range []struct {
		name         string
		served, fail time.Duration // after the stop
		kind         sources.FailureKind
		attemptOnly  bool
		want         time.Duration
		ok           bool
	}{
		{"refused a second after the last response", sec(3), sec(4), sources.FailureRefused, false, sec(3.5), true},
		{"closed counts too", sec(3), sec(4), sources.FailureClosed, false, sec(3.5), true},
		{"a timeout does not pin the stop", sec(3), sec(4), sources.FailureTimeout, false, 0, false},
		{"a hidden attempt of any kind does", sec(3), sec(4), sources.FailureTimeout, true, sec(3.5), true},
		{"a pause of exactly maxStopEdge is an edge", sec(2), sec(4), sources.FailureRefused, false, sec(3), true},
		{"a pause of 1.5 maxStopEdge is not", sec(1), sec(4), sources.FailureRefused, false, 0, false},
		// maxClockOffset, 30 s, on each side of the stop.
		{"a failure just past maxClockOffset before the stop is ignored", sec(-31.001), sec(-30.001), sources.FailureRefused, false, 0, false},
		{"one at 2/3 of maxClockOffset after the stop counts", sec(19), sec(20), sources.FailureRefused, false, sec(19.5), true},
		{"one just past maxClockOffset after it does not", sec(30), sec(30.5), sources.FailureRefused, false, 0, false},
	} {
		got, ok := pair(backend(), stop.Add(tc.served), stop.Add(tc.fail), tc.kind, tc.attemptOnly)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: stopPair = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}

	// Without a cluster-clock termination or a spec there is no pair.
	b := backend()
	b.Moments[Terminating].Event = &sources.Lifecycle{Time: term, Format: sources.FormatALBAccess}
	if _, ok := pair(b, stop.Add(sec(3)), stop.Add(sec(4)), sources.FailureRefused, false); ok {
		t.Error("a termination on the load balancer's clock made a pair")
	}
	b = backend()
	b.Spec = nil
	if _, ok := pair(b, stop.Add(sec(3)), stop.Add(sec(4)), sources.FailureRefused, false); ok {
		t.Error("a backend without a spec made a pair")
	}
	b = backend()
	b.Moments[Terminating] = nil
	if _, ok := pair(b, stop.Add(sec(3)), stop.Add(sec(4)), sources.FailureRefused, false); ok {
		t.Error("a backend that never terminated made a pair")
	}
}

// TestStopPairPlacesTheLeasesAttempt checks when stopPair takes a retried
// request to have failed at the lease's IP: at its end (less nothing, a
// refusal) when the record names the IP, its last attempt; at its start
// when the IP was an earlier attempt and the record names another.
func TestStopPairPlacesTheLeasesAttempt(t *testing.T) {
	b, tr, ip := servedUntilTermination()
	other := netip.AddrPortFrom(netip.MustParseAddr("10.0.18.200"), 8080)
	for _, c := range []struct {
		name string
		req  *sources.Request
		want time.Duration
	}{
		{"the IP is the last attempt: failed at 60.4 s", &sources.Request{Backend: ip,
			Attempts: []sources.Attempt{{Backend: other, Failure: sources.FailureRefused}, {Backend: ip, Failure: sources.FailureRefused}}}, 200 * time.Millisecond},
		{"the IP is an earlier attempt: failed at 60.1 s", &sources.Request{Backend: other,
			Attempts: []sources.Attempt{{Backend: ip, Failure: sources.FailureRefused}, {Backend: other, Failure: sources.FailureRefused}}}, 50 * time.Millisecond},
	} {
		r := c.req
		r.Time, r.Duration, r.Status, r.Generator, r.Failure = at(60.1), 300*time.Millisecond, 502, sources.GeneratedByLB, sources.FailureRefused
		d, _, ok := stopPair(b, &Lease{IP: ip.Addr(), Backend: b}, tr, ones(r))
		if !ok || d != c.want {
			t.Errorf("%s: pair %v %v, want %v after the termination", c.name, d, ok, c.want)
		}
	}
}

// TestShiftClusterKeepsOneLinesOrder checks that records of one line, at
// one time, keep the order they were read in once shifted: sorting by
// time, file and line leaves equal records as they were.
func TestShiftClusterKeepsOneLinesOrder(t *testing.T) {
	o := sources.Origin{File: "events.json", Line: 7}
	d := &Dataset{Lifecycle: []sources.Lifecycle{
		{Time: at(10), Kind: sources.PodScheduled, Namespace: "shop", Pod: "web-a", Format: sources.FormatK8sEvents, FromAPI: true, Origin: o},
		{Time: at(10), Kind: sources.PodCreated, Namespace: "shop", Pod: "web-a", Format: sources.FormatK8sEvents, FromAPI: true, Origin: o},
	}}
	shiftCluster(d, 2*time.Second)
	if d.Lifecycle[0].Kind != sources.PodScheduled || d.Lifecycle[1].Kind != sources.PodCreated || !d.Lifecycle[0].Time.Equal(at(12)) {
		t.Errorf("shifted records %v %v at %v, want PodScheduled then PodCreated at 12 s", d.Lifecycle[0].Kind, d.Lifecycle[1].Kind, d.Lifecycle[0].Time.Sub(t0))
	}
}

// servedUntilTermination is a pod that began terminating at 60 s, as the
// API recorded it, and the traffic of its IP, 10.0.18.123:8080, which
// answered every half second up to then.
func servedUntilTermination() (*Backend, *Traffic, netip.AddrPort) {
	b := &Backend{Namespace: "api", Pod: "api-9hdvcsx88d-rgq2l", Spec: &sources.PodSpec{}}
	b.Moments[Terminating] = &Moment{Time: at(60), Event: &sources.Lifecycle{Format: sources.FormatK8sEvents, FromAPI: true}}
	tr := &Traffic{}
	for s := 0.0; s <= 60; s += 0.5 {
		tr.serve(at(s))
	}
	return b, tr, netip.AddrPortFrom(netip.MustParseAddr("10.0.18.123"), 8080)
}

// TestEstimateClockLag checks that the proxies' propagation lag is not
// taken for a clock offset: pairs whose median the lag of an Envoy-based
// gateway explains (1.6 s, within 2.5 s and minClockOffset) shift nothing
// and say so (WithinLag), where without lag they shift the cluster's
// records by 1.6 s; a median beyond lag and minClockOffset, or before the
// records, is still the offset.
func TestEstimateClockLag(t *testing.T) {
	ms := time.Millisecond
	lagged := []time.Duration{1400 * ms, 1600 * ms, 1900 * ms}
	if off := estimateClockLag(lagged, envoyPushLag); off.Offset != 0 || !off.WithinLag() || off.Residual != 1600*ms {
		t.Errorf("within the push lag: %+v, want no offset, said to be the lag", off)
	}
	if off := estimateClockLag(lagged, 0); off.Offset != 1600*ms || off.WithinLag() {
		t.Errorf("no lag: %+v, want 1.6 s", off)
	}
	beyond := []time.Duration{5300 * ms, 5400 * ms, 5500 * ms}
	if off := estimateClockLag(beyond, envoyPushLag); off.Offset != 5400*ms {
		t.Errorf("beyond the lag: %+v, want 5.4 s", off)
	}
	edge := envoyPushLag + minClockOffset
	if off := estimateClockLag([]time.Duration{edge - ms, edge - ms}, envoyPushLag); off.Offset != 0 {
		t.Errorf("just within lag and minClockOffset: %+v, want no offset", off)
	}
	if off := estimateClockLag([]time.Duration{edge, edge}, envoyPushLag); off.Offset != edge.Round(clockResolution) {
		t.Errorf("at lag and minClockOffset: %+v, want %v", off, edge)
	}
	ahead := []time.Duration{-2100 * ms, -2000 * ms, -1900 * ms}
	if off := estimateClockLag(ahead, envoyPushLag); off.Offset != -2000*ms {
		t.Errorf("the load balancer saw the stop before its record: %+v, want -2 s", off)
	}
}

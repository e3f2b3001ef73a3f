package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestAttemptTime pins where an attempt is placed: the last attempt of a
// request the proxy retried at its end, less unreachableConnect when a
// vanished pod's IP failed it; any other attempt, and the attempts of a
// request not retried, at the request's time.
func TestAttemptTime(t *testing.T) {
	start := at(10)
	for _, c := range []struct {
		name     string
		req      sources.Request
		last     bool
		kind     sources.FailureKind
		wantSecs float64
	}{
		{"not retried", sources.Request{Duration: 5 * time.Second}, true, sources.FailureRefused, 10},
		{"retried, refused at the end", sources.Request{Duration: 6085 * time.Millisecond, RetryLimit: true}, true, sources.FailureRefused, 16.085},
		{"retried, an earlier attempt", sources.Request{Duration: 6085 * time.Millisecond, RetryLimit: true}, false, sources.FailureRefused, 10},
		{"retried, unreachable: the connect began 3 s before the end", sources.Request{Duration: 6085 * time.Millisecond, AttemptCount: 3}, true, sources.FailureUnreachable, 13.085},
		{"retried, unreachable, shorter than a connect", sources.Request{Duration: 2 * time.Second, RetryLimit: true}, true, sources.FailureUnreachable, 10},
		{"retried, timed out: when it began is not known", sources.Request{Duration: 20 * time.Second, RetryLimit: true}, true, sources.FailureTimeout, 10},
		{"retried, no duration logged", sources.Request{RetryLimit: true}, true, sources.FailureRefused, 10},
	} {
		r := c.req
		r.Time = start
		if got := attemptTime(&r, c.last, c.kind); !got.Equal(at(c.wantSecs)) {
			t.Errorf("%s: %v, want %g s", c.name, got.Sub(t0).Seconds(), c.wantSecs)
		}
	}
}

// TestClockSkew pins ClockOffset.Skew: half the stamps' resolution less
// the residual, plus twice the spread, never under minTerminationSkew; and
// termSkew falls back to Options.Skew when the clocks were not compared.
func TestClockSkew(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		residual, spread, want time.Duration
	}{
		{414 * ms, 70 * ms, minTerminationSkew},                           // 0.5 - 0.414 + 0.14 = 0.226 s: the floor
		{0, 10 * ms, 520 * ms},                                            // just above the floor
		{-700 * ms, 100 * ms, 1400 * ms},                                  // the cluster's clock ahead by about 0.7 s
		{-1400 * ms, 400 * ms, 2700 * ms},                                 // beyond Options.Skew's default below
		{stampResolution / 2, minTerminationSkew / 2, minTerminationSkew}, // exactly the floor
	} {
		if got := (ClockOffset{Pairs: 3, Residual: c.residual, Spread: c.spread}).Skew(); got != c.want {
			t.Errorf("residual %v spread %v: skew %v, want %v", c.residual, c.spread, got, c.want)
		}
	}
	a := &Analysis{Opts: Options{}.withDefaults()}
	if got := a.termSkew(); got != DefaultSkew {
		t.Errorf("clocks not compared: %v, want %v", got, DefaultSkew)
	}
	a.Clock = ClockOffset{Pairs: 3, Residual: 414 * ms, Spread: 70 * ms}
	if got := a.termSkew(); got != minTerminationSkew {
		t.Errorf("clocks found to agree: %v, want %v", got, minTerminationSkew)
	}
	a.Clock = ClockOffset{Pairs: 3, Residual: -3 * time.Second, Spread: 500 * ms}
	if got := a.termSkew(); got != DefaultSkew {
		t.Errorf("a residual beyond Options.Skew: %v, want it capped at %v", got, DefaultSkew)
	}
}

// TestEstimateClockAgreeing: pairs that agree on less than minClockOffset
// apply no offset but say how closely the clocks agree; pairs that
// disagree say nothing.
func TestEstimateClockAgreeing(t *testing.T) {
	ms := time.Millisecond
	off := estimateClock([]time.Duration{-41 * ms, 414 * ms, 484 * ms})
	if off.Offset != 0 || off.Pairs != 3 || off.Residual != 414*ms || off.Spread != 70*ms {
		t.Errorf("agreeing pairs: %+v, want no offset, 3 pairs, residual 414ms, spread 70ms", off)
	}
	off = estimateClock([]time.Duration{4900 * ms, 5400 * ms, 5600 * ms})
	if off.Offset != 5400*ms || off.Residual != 0 || off.Spread != 200*ms {
		t.Errorf("an offset: %+v, want 5.4 s applied, residual 0, spread 200ms", off)
	}
	if off := estimateClock([]time.Duration{-13 * time.Second, 0, 20 * time.Second}); off != (ClockOffset{}) {
		t.Errorf("disagreeing pairs: %+v, want nothing", off)
	}
}

// TestStopPairSkipsFailuresWhileServing: an idle keep-alive race 20 s
// before a pod's termination, while it kept serving, is not the instant
// its IP stopped answering; the refusals after its termination are.
func TestStopPairSkipsFailuresWhileServing(t *testing.T) {
	b := &Backend{Namespace: "api", Pod: "api-9hdvcsx88d-rgq2l", Spec: &sources.PodSpec{}}
	b.Moments[Terminating] = &Moment{Time: at(60), Event: &sources.Lifecycle{Format: sources.FormatK8sEvents, FromAPI: true}}
	tr := &Traffic{}
	for s := 0.0; s <= 60; s += 0.5 {
		tr.Runs.Add(at(s))
	}
	ip := netip.AddrPortFrom(netip.MustParseAddr("10.0.18.123"), 8080)
	fail := func(s float64, k sources.FailureKind) *sources.Request {
		return &sources.Request{Time: at(s), Status: 502, Generator: sources.GeneratedByLB, Failure: k, Backend: ip}
	}
	fails := []*sources.Request{fail(40.2, sources.FailureClosed), fail(60.4, sources.FailureRefused), fail(61, sources.FailureRefused)}
	d, ok := stopPair(b, &Lease{IP: ip.Addr(), Backend: b}, tr, fails)
	if !ok || d != 200*time.Millisecond {
		t.Errorf("pair %v %v, want the stop between 60 s and 60.4 s: 0.2 s after the termination", d, ok)
	}
}

// TestStateBeforeTermination: a pod that served until 55.8 s, then got an
// idle keep-alive race at 57.8 s and began terminating at 59 s was still
// serving at 57.8 s, though it never answered again; once the clocks are
// found to agree within half a second, that failure is not at a
// terminating pod, nor is one 0.6 s before the record, while one 0.4 s
// before it is.
func TestStateBeforeTermination(t *testing.T) {
	c := NewCollector()
	ip := netip.MustParseAddr("10.0.18.123")
	for s := 0.0; s <= 55.8; s += 2 {
		c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
	}
	servedUntil(c, netip.MustParseAddr("10.0.30.7"), 200, 0.5)
	event(c, 59, sources.Killing, "api-9hdvcsx88d-rgq2l", "", ip)
	a := Analyze(Merge(c), Options{})
	for _, w := range []struct {
		secs  float64
		clock ClockOffset
		want  State
	}{
		{57.8, ClockOffset{}, StateTerminating}, // clocks not compared: within DefaultSkew
		{57.8, ClockOffset{Pairs: 3, Residual: 400 * time.Millisecond}, StateServing},
		{58.4, ClockOffset{Pairs: 3, Residual: 400 * time.Millisecond}, StateServing},     // 0.6 s before: past minTerminationSkew
		{58.6, ClockOffset{Pairs: 3, Residual: 400 * time.Millisecond}, StateTerminating}, // 0.4 s before: within it
		{59.5, ClockOffset{Pairs: 3, Residual: 400 * time.Millisecond}, StateTerminating},
		{150, ClockOffset{Pairs: 3, Residual: 400 * time.Millisecond}, StateGone}, // past the grace period
	} {
		a.Clock = w.clock
		if _, got := a.StateAt(ip, at(w.secs)); got != w.want {
			t.Errorf("at %g s with %+v: %v, want %v", w.secs, w.clock, got, w.want)
		}
	}
}

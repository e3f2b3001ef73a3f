package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestAttemptTime pins where an attempt is placed: the last attempt of a
// request the proxy retried at its end, less unreachableConnect when a
// vanished pod's IP failed it, and so is a connection closed under a
// request not retried; any other attempt at the request's time.
func TestAttemptTime(t *testing.T) {
	start := at(10.25)
	for _, c := range []struct {
		name     string
		req      sources.Request
		last     bool
		kind     sources.FailureKind
		wantSecs float64
	}{
		{"not retried", sources.Request{Duration: 5 * time.Second}, true, sources.FailureRefused, 10.25},
		// A slow request whose connection closed under it, as the pod
		// exited: the attempt failed at the request's end.
		{"not retried, closed under the request", sources.Request{Duration: 4205 * time.Millisecond, Backend: netip.MustParseAddrPort("10.0.0.1:8080"), Failure: sources.FailureClosed}, true, sources.FailureClosed, 14.455},
		{"not retried, timed out", sources.Request{Duration: 10 * time.Second}, true, sources.FailureTimeout, 10.25},
		{"retried, refused at the end", sources.Request{Duration: 6085 * time.Millisecond, RetryLimit: true}, true, sources.FailureRefused, 16.335},
		{"retried, an earlier attempt", sources.Request{Duration: 6085 * time.Millisecond, RetryLimit: true}, false, sources.FailureRefused, 10.25},
		{"retried, unreachable: the connect began 3 s before the end", sources.Request{Duration: 6085 * time.Millisecond, AttemptCount: 3}, true, sources.FailureUnreachable, 13.335},
		{"retried, unreachable, shorter than a connect", sources.Request{Duration: 2 * time.Second, RetryLimit: true}, true, sources.FailureUnreachable, 10.25},
		{"retried, timed out: when it began is not known", sources.Request{Duration: 20 * time.Second, RetryLimit: true}, true, sources.FailureTimeout, 10.25},
		{"retried, no duration logged", sources.Request{RetryLimit: true}, true, sources.FailureRefused, 10.25},
	} {
		r := c.req
		r.Time = start
		if got := attemptTime(groupOf(&r), c.last, c.kind); !got.Equal(at(c.wantSecs)) {
			t.Errorf("%s: %v, want %g s", c.name, got.Sub(t0).Seconds(), c.wantSecs)
		}
	}
	// A start known to the second (nginx's $time_local less the whole
	// seconds of $request_time) ends in the second its line was written.
	r := sources.Request{Time: at(10), Duration: 4205 * time.Millisecond, Backend: netip.MustParseAddrPort("10.0.0.1:8080"), Failure: sources.FailureClosed}
	if got := attemptTime(groupOf(&r), true, sources.FailureClosed); !got.Equal(at(14)) {
		t.Errorf("a start to the second: %v, want 14 s", got.Sub(t0).Seconds())
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
	b, tr, ip := servedUntilTermination()
	fail := func(s float64, k sources.FailureKind) *sources.Request {
		return &sources.Request{Time: at(s), Status: 502, Generator: sources.GeneratedByLB, Failure: k, Backend: ip}
	}
	fails := []*sources.Request{fail(40.2, sources.FailureClosed), fail(60.4, sources.FailureRefused), fail(61, sources.FailureRefused)}
	d, _, ok := stopPair(b, &Lease{IP: ip.Addr(), Backend: b}, tr, ones(fails...))
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

// stateDataset holds one backend for each state StateAt tells apart; the
// records run from 0 to 300 s.
//
//	10.0.0.1  pod web-a, serves 0–59.5 s, Killing at 60 s (default grace)
//	10.0.0.2  pod web-b, Ready at 100 s with its IP, never serves
//	10.0.0.3  pod web-c, grace 10 s, serves 0–119.5 s, Killing at 120 s
//	10.0.0.4  bare IP, serves 0–100 s
//	10.0.0.5  bare IP, serves 0–270 s (dataEdge, 30 s, before the end)
//	10.0.0.6  bare IP, serves 0–269 s
//	10.0.0.7  bare IP, serves from 150 s, stamped to the second
//	10.0.0.8  pod web-d, grace 0 in its spec (unset), serves 0–199.5 s, Killing at 200 s
//	10.0.0.9  bare IP, serves 0–300 s
func stateDataset() *Dataset {
	c := NewCollector()
	serve := func(ip string, from, to float64, step float64) {
		addr := netip.MustParseAddr(ip)
		for s := from; s <= to; s += step {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(addr, 8080), Format: sources.FormatALBAccess})
		}
	}
	serve("10.0.0.1", 0, 59.5, 0.5)
	serve("10.0.0.3", 0, 119.5, 0.5)
	serve("10.0.0.4", 0, 100, 0.5)
	serve("10.0.0.5", 0, 270, 0.5)
	serve("10.0.0.6", 0, 269, 0.5)
	serve("10.0.0.7", 150, 300, 1)
	serve("10.0.0.8", 0, 199.5, 0.5)
	serve("10.0.0.9", 0, 300, 0.5)
	ev := func(s float64, kind sources.LifecycleKind, pod, ip string) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Pod: pod, IP: netip.MustParseAddr(ip), Format: sources.FormatK8sEvents, From: -1})
	}
	ev(60, sources.Killing, "web-a", "10.0.0.1")
	ev(100, sources.PodReady, "web-b", "10.0.0.2")
	ev(120, sources.Killing, "web-c", "10.0.0.3")
	ev(200, sources.Killing, "web-d", "10.0.0.8")
	c.Config(&sources.Config{Kind: "Pod", Name: "web-d", Namespace: "shop", Format: sources.FormatK8sObjects,
		Pod: &sources.PodStatus{IP: netip.MustParseAddr("10.0.0.8")}, PodSpec: &sources.PodSpec{}})
	c.Config(&sources.Config{Kind: "Pod", Name: "web-c", Namespace: "shop", Format: sources.FormatK8sObjects,
		Pod: &sources.PodStatus{IP: netip.MustParseAddr("10.0.0.3")}, PodSpec: &sources.PodSpec{TerminationGracePeriodSec: 10}})
	return Merge(c)
}

// TestStateAt pins each state's bounds, in seconds as the constants state
// them: the skew before a termination (DefaultSkew, 3 s), the grace period
// after it (the pod's, else DefaultGracePeriod, 30 s), a pod that never
// served, the first second of a log stamped to the second, and dataEdge
// (30 s) before the last request.
func TestStateAt(t *testing.T) {
	a := Analyze(stateDataset(), Options{})
	const grace, skew = 30, 3
	for _, tc := range []struct {
		ip   string
		at   float64
		want State
	}{
		{"10.0.0.1", 30, StateServing},
		{"10.0.0.1", 60 - skew - 0.5, StateServing},
		{"10.0.0.1", 60 - skew, StateTerminating},
		{"10.0.0.1", 60 + grace/2, StateTerminating},
		{"10.0.0.1", 60 + grace, StateTerminating},
		{"10.0.0.1", 60 + grace + 0.001, StateGone},
		{"10.0.0.1", 60 + 2*grace, StateGone},
		{"10.0.0.2", 150, StateStarting},
		{"10.0.0.3", 125, StateTerminating},
		{"10.0.0.3", 130, StateTerminating},
		{"10.0.0.3", 130.5, StateGone},
		{"10.0.0.4", 50, StateServing},
		{"10.0.0.4", 200, StateGone},
		{"10.0.0.5", 271, StateUnknown},
		{"10.0.0.6", 270, StateGone},
		{"10.0.0.7", 149, StateStarting},
		{"10.0.0.7", 150, StateStarting},
		{"10.0.0.7", 150.5, StateServing},
		{"10.0.0.8", 200 + grace - 1, StateTerminating},
		{"10.0.0.10", 100, StateUnknown},
	} {
		b, got := a.StateAt(netip.MustParseAddr(tc.ip), at(tc.at))
		if got != tc.want {
			name := "nothing"
			if b != nil {
				name = b.Name()
			}
			t.Errorf("%s at %v s (%s): %s, want %s", tc.ip, tc.at, name, got, tc.want)
		}
	}
	if _, s := a.StateAt(netip.Addr{}, at(1)); s != StateUnknown {
		t.Errorf("no IP: %s", s)
	}
	if got := State(len(stateNames)).String(); got != "unknown" {
		t.Errorf("a state past the names is %q", got)
	}
	if got := StateGone.String(); got != "gone" {
		t.Errorf("StateGone is %q", got)
	}
}

// TestErrorLineKinds pins errorLineMatch: an access line's unspecific
// failure takes the kind of the error line of the same backend nearest in
// time, within errorLineMatch and no further.
func TestErrorLineKinds(t *testing.T) {
	backend := netip.MustParseAddrPort("10.0.0.1:8080")
	other := netip.MustParseAddrPort("10.0.0.2:8080")
	line := func(s float64, kind sources.FailureKind, b netip.AddrPort) *sources.Request {
		return &sources.Request{Time: at(s), Failure: kind, Backend: b, AttemptOnly: true}
	}
	a := &Analysis{Dataset: &Dataset{Failures: ones(
		line(10, sources.FailureRefused, backend),
		line(10.5, sources.FailureOther, backend), // says nothing more
		line(11, sources.FailureUnreachable, other),
		line(20, sources.FailureTimeout, backend),
		line(21, sources.FailureClosed, backend),
	)}}
	m := a.errorLines()
	const match = 1.5 // errorLineMatch
	for _, tc := range []struct {
		at   float64
		b    netip.AddrPort
		want sources.FailureKind
	}{
		{10, backend, sources.FailureRefused},
		{10 + match, backend, sources.FailureRefused},
		{10 - match, backend, sources.FailureRefused},
		{10 + match + 0.01, backend, sources.FailureOther},
		{10 - match - 0.01, backend, sources.FailureOther},
		{11, other, sources.FailureUnreachable},
		{20.4, backend, sources.FailureTimeout},
		{20.5, backend, sources.FailureTimeout}, // as near as the next: the first wins
		{20.6, backend, sources.FailureClosed},
		{10, netip.MustParseAddrPort("10.0.0.3:8080"), sources.FailureOther},
	} {
		if got := m.kindOf(tc.b, at(tc.at), at(tc.at), sources.FailureOther); got != tc.want {
			t.Errorf("%s at %v s: %v, want %v", tc.b, tc.at, got, tc.want)
		}
	}
	// A request that started at 15.9 s and whose line was written at
	// 21 s: the refusal at 10 s is too early for its start, the closed
	// connection at 21 s is its end. One that started at 11 s and was
	// written at 21 s was refused (its start is within reach of 10 s).
	if got := m.kindOf(backend, at(15.9), at(21), sources.FailureOther); got != sources.FailureClosed {
		t.Errorf("a slow request cut at 21 s: %v, want closed", got)
	}
	if got := m.kindOf(backend, at(11), at(25), sources.FailureOther); got != sources.FailureRefused {
		t.Errorf("a request refused at 11 s, logged at 25 s: %v, want refused", got)
	}
}

// TestRolloutAt prefers a rollout whose steps span the instant, from
// rolloutLookback before its start, over one that only covers it with its
// lags.
func TestRolloutAt(t *testing.T) {
	first := &Rollout{Start: at(0), End: at(60)}
	second := &Rollout{Start: at(100), End: at(160)}
	a := &Analysis{Rollouts: []*Rollout{first, second}}
	for _, tc := range []struct {
		at   time.Duration
		want *Rollout
	}{
		{30 * time.Second, first},
		{95 * time.Second, second}, // rolloutLookback, 5 s, before its start
		{95*time.Second - time.Millisecond, first},
		{160 * time.Second, second},
	} {
		if got := a.RolloutAt(t0.Add(tc.at)); got != tc.want {
			t.Errorf("at %v: rollout %+v, want %+v", tc.at, got, tc.want)
		}
	}
}

// TestAttemptTimeRetriedFromTwo pins what makes a request retried: two
// attempts counted or listed, not one. The last attempt of a request with
// one attempt stays at the request's time; with two it moves to the end.
func TestAttemptTimeRetriedFromTwo(t *testing.T) {
	refused := sources.Attempt{Backend: netip.MustParseAddrPort("10.4.0.7:8080"), Failure: sources.FailureRefused}
	for _, c := range []struct {
		name     string
		req      sources.Request
		wantSecs float64
	}{
		{"one attempt counted", sources.Request{Duration: 5 * time.Second, AttemptCount: 1}, 10},
		{"two attempts counted", sources.Request{Duration: 5 * time.Second, AttemptCount: 2}, 15},
		{"one attempt listed", sources.Request{Duration: 5 * time.Second, Attempts: []sources.Attempt{refused}}, 10},
		{"two attempts listed", sources.Request{Duration: 5 * time.Second, Attempts: []sources.Attempt{refused, refused}}, 15},
		{"retried, a negative duration", sources.Request{Duration: -5 * time.Second, RetryLimit: true}, 10},
	} {
		r := c.req
		r.Time = at(10)
		if got := attemptTime(groupOf(&r), true, sources.FailureRefused); !got.Equal(at(c.wantSecs)) {
			t.Errorf("%s: %v s, want %g s", c.name, got.Sub(t0).Seconds(), c.wantSecs)
		}
	}
}

// TestInFlightCutByExit checks that a slow request whose connection closed
// under it is read in the state of its pod when it failed, at its end: a
// POST sent at 56 s to a pod that began terminating at 59 s and cut 4.2 s
// later failed at a terminating pod; the same failure 0.5 s after it was
// sent, and a refusal at 56 s, failed at a serving one.
func TestInFlightCutByExit(t *testing.T) {
	for _, c := range []struct {
		name string
		dur  time.Duration
		kind sources.FailureKind
		want State
	}{
		{"cut at the exit", 4200 * time.Millisecond, sources.FailureClosed, StateTerminating},
		{"closed at once", 500 * time.Millisecond, sources.FailureClosed, StateServing},
		{"refused", 4200 * time.Millisecond, sources.FailureRefused, StateServing},
	} {
		col := NewCollector()
		ip := netip.MustParseAddr("10.0.18.123")
		for s := 0.0; s <= 55.8; s += 2 {
			col.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
		}
		servedUntil(col, netip.MustParseAddr("10.0.30.7"), 200, 0.5)
		event(col, 59, sources.Killing, "api-9hdvcsx88d-rgq2l", "", ip)
		col.Request(&sources.Request{Time: at(56), LoggedAfter: c.dur, Duration: c.dur, Status: 502, Generator: sources.GeneratedByLB, Failure: c.kind,
			Backend: netip.AddrPortFrom(ip, 8080), Method: "POST", Format: sources.FormatALBAccess})
		a := Analyze(Merge(col), Options{})
		a.Clock = ClockOffset{Pairs: 3, Residual: 400 * time.Millisecond}
		a.Signals = a.attribute()
		if len(a.Signals) != 1 || a.Signals[0].Last() == nil {
			t.Fatalf("%s: %d signals", c.name, len(a.Signals))
		}
		if got := a.Signals[0].Last().State; got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCountAttempts pins countAttempts to what attribute lists: a record
// without attempts counts once when it names a backend, none otherwise;
// a record with attempts counts its LB-generated ones only.
func TestCountAttempts(t *testing.T) {
	b := netip.MustParseAddrPort("10.4.0.7:8080")
	rs := []*sources.Request{
		{Backend: b, Failure: sources.FailureRefused},
		{Failure: sources.FailureNoBackend},
		{Failure: sources.FailureRefused, Attempts: []sources.Attempt{
			{Backend: b, Failure: sources.FailureRefused},
			{Backend: b, Status: 500, Failure: sources.FailureAppError},
			{Backend: b, Failure: sources.FailureUnreachable},
		}},
	}
	if got := countAttempts(ones(rs...)); got != 3 {
		t.Errorf("countAttempts = %d, want 3", got)
	}
}

// TestOrdinaryPause pins ordinaryPauseFactor on both sides: a bare IP that
// answers every 5 s, pauses after 100 s and answers again for 200 s, is
// serving during a pause its rate makes ordinary (14 mean intervals: the
// pause P with P = 14 × (300 s + P) / 61, 89.4 s) and gone in a longer one.
func TestOrdinaryPause(t *testing.T) {
	for _, c := range []struct {
		pause float64
		want  State
	}{
		{85, StateServing},
		{95, StateGone},
	} {
		col := NewCollector()
		ip := netip.MustParseAddr("10.0.7.7")
		serve := func(from, to float64) {
			for s := from; s <= to+1e-9; s += 5 {
				col.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
			}
		}
		serve(0, 100)
		serve(100+c.pause, 300+c.pause)
		a := Analyze(Merge(col), Options{})
		if _, got := a.StateAt(ip, at(100+c.pause/2)); got != c.want {
			t.Errorf("a %g s pause: %v, want %v", c.pause, got, c.want)
		}
	}
}

// TestActiveFailureTime checks that a window's active time is the union of
// its bursts: two 7 s bursts 46 s apart are 14 s of failure in a 60 s
// span, and a pause of burstGap keeps one burst while a longer one splits
// it; per IP, each backend's own bursts.
func TestActiveFailureTime(t *testing.T) {
	for _, c := range []struct {
		name   string
		times  []float64
		active time.Duration
		bursts int
	}{
		{"two bursts 46 s apart", []float64{0, 1, 2, 3, 4, 5, 6, 7, 53, 54, 55, 56, 57, 58, 59, 60}, 14 * time.Second, 2},
		{"a pause of burstGap", []float64{0, 2, 7, 9}, 9 * time.Second, 1},
		{"a longer pause", []float64{0, 2, 7.5, 9}, 3500 * time.Millisecond, 2},
		{"one failure", []float64{3}, 0, 1},
	} {
		col := NewCollector()
		ip := netip.MustParseAddr("10.0.3.3")
		for k, s := range c.times {
			col.Request(&sources.Request{Time: at(s), Status: 502, Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
				Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess, Origin: sources.Origin{File: "a", Line: k + 1}})
		}
		a := Analyze(Merge(col), Options{})
		w := Summarize(a.Signals)
		if w.Active != c.active || w.Bursts != c.bursts || w.ByIP[ip].Active != c.active {
			t.Errorf("%s: active %v in %d bursts (IP %v), want %v in %d", c.name, w.Active, w.Bursts, w.ByIP[ip].Active, c.active, c.bursts)
		}
	}
}

package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

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
	a := &Analysis{Dataset: &Dataset{Failures: []*sources.Request{
		line(10, sources.FailureRefused, backend),
		line(10.5, sources.FailureOther, backend), // says nothing more
		line(11, sources.FailureUnreachable, other),
		line(20, sources.FailureTimeout, backend),
		line(21, sources.FailureClosed, backend),
	}}}
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
		if got := m.kindOf(tc.b, at(tc.at), sources.FailureOther); got != tc.want {
			t.Errorf("%s at %v s: %v, want %v", tc.b, tc.at, got, tc.want)
		}
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

package classify

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestFailureEvidence quotes every failure of a short window and four
// spread from the first to the last of a long one.
func TestFailureEvidence(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	window := func(n int) *correlate.Window {
		var sigs []*correlate.Signal
		for i := 0; i < n; i++ {
			r := failed(t0.Add(time.Duration(i) * time.Second))
			r.Origin = sources.Origin{File: "alb.log", Line: i + 1}
			sigs = append(sigs, signalOf(t, r))
		}
		return &correlate.Window{Signals: sigs}
	}
	lines := func(ev []Evidence) []int {
		var out []int
		for _, e := range ev {
			out = append(out, e.Origin.Line)
		}
		return out
	}
	for _, tc := range []struct {
		n    int
		want []int
	}{{1, []int{1}}, {2, []int{1, 2}}, {3, []int{1, 2, 3}}, {4, []int{1, 2, 3, 4}}, {10, []int{1, 4, 7, 10}}, {0, nil}} {
		got := lines(failureEvidence(window(tc.n), nil))
		if len(got) != len(tc.want) {
			t.Errorf("%d failures: quoted lines %v, want %v", tc.n, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%d failures: quoted lines %v, want %v", tc.n, got, tc.want)
				break
			}
		}
	}
}

// TestRoleWhyFromTraffic: with no other record, a backend's role is told
// by its traffic: first served more than 30 s after the logs began (new),
// or last served more than 30 s before they end (old); never by an IP
// that only failed.
func TestRoleWhyFromTraffic(t *testing.T) {
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	c := correlate.NewCollector()
	serve := func(ip string, from, to float64) {
		for s := from; s <= to; s++ {
			c.Request(&sources.Request{Time: base.Add(time.Duration(s * float64(time.Second))), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(netip.MustParseAddr(ip), 8080), Format: sources.FormatALBAccess})
		}
	}
	serve("10.0.0.9", 0, 300)
	serve("10.0.0.1", 30, 300)
	serve("10.0.0.2", 31, 300)
	serve("10.0.0.3", 0, 270)
	serve("10.0.0.4", 0, 269)
	c.Request(&sources.Request{Time: base.Add(time.Minute), Status: 502, Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
		Backend: netip.MustParseAddrPort("10.0.0.5:8080"), Format: sources.FormatALBAccess})
	a := correlate.Analyze(correlate.Merge(c), correlate.Options{})
	for ip, want := range map[string]string{
		"10.0.0.1": "",
		"10.0.0.2": "first served at 12:00:31, after the logs began",
		"10.0.0.3": "",
		"10.0.0.4": "served until 12:04:29 and never after",
		"10.0.0.5": "",
	} {
		if got := roleWhy(a, nil, correlate.RoleUnknown, netip.MustParseAddr(ip)); got != want {
			t.Errorf("%s: %q, want %q", ip, got, want)
		}
	}
	if got := roleWhy(a, nil, correlate.RoleNew, netip.MustParseAddr("10.0.0.5")); got != "" {
		t.Errorf("an IP that only failed: %q", got)
	}
}

// TestStatusList: counts by status code, lowest code first, leaving out
// codes counted zero times.
func TestStatusList(t *testing.T) {
	if got, want := statusList(map[int]int{503: 3, 502: 182, 504: 0}), "182×502, 3×503"; got != want {
		t.Errorf("statusList = %q, want %q", got, want)
	}
	if got := statusList(map[int]int{502: 0}); got != "" {
		t.Errorf("only zero counts: %q", got)
	}
}

// TestSeconds: tenths below 10 s unless whole, whole seconds from 10 s.
func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		2500 * time.Millisecond:  "2.5 s",
		3 * time.Second:          "3 s",
		9900 * time.Millisecond:  "9.9 s",
		10 * time.Second:         "10 s",
		10400 * time.Millisecond: "10 s",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

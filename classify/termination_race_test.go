package classify

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
)

// TestAlikeTerminations: three pods the records cannot tell apart began
// terminating at 31, 33 and 35 s; two of their IPs were last sent a
// request at 36 and 38 s. Each IP is measured from the mean of the three
// terminations, 33 s (lags 3 and 5 s), not from the group's earliest, 31 s
// (7 s); the stop lag is 5 s. An IP named by its own pod keeps that pod's
// termination, and a group with a termination unknown gives no mean.
func TestAlikeTerminations(t *testing.T) {
	t0 := time.Date(2026, 2, 11, 6, 20, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	pod := func(name string, term float64) *correlate.Backend {
		b := &correlate.Backend{Namespace: "shop", Pod: name}
		if term > 0 {
			b.Moments[correlate.Terminating] = &correlate.Moment{Time: sec(term)}
		}
		return b
	}
	group := []*correlate.Backend{pod("web-bbp7xz4vfk-gs9wq", 35), pod("web-bbp7xz4vfk-bngcs", 31), pod("web-bbp7xz4vfk-26nsb", 33)}
	bare := func(ip string, alike []*correlate.Backend) *correlate.Backend {
		b := &correlate.Backend{IPs: []netip.Addr{netip.MustParseAddr(ip)}, Alike: alike}
		b.Moments[correlate.Terminating] = &correlate.Moment{Time: sec(31)} // the group's earliest
		return b
	}
	known := pod("web-bbp7xz4vfk-wb2d6", 40)
	refs := []BackendRef{
		{IP: netip.MustParseAddr("10.244.1.204"), Of: bare("10.244.1.204", group), Start: sec(33.5), End: sec(38)},
		{IP: netip.MustParseAddr("10.244.2.99"), Of: bare("10.244.2.99", group), Start: sec(33.6), End: sec(36)},
		{IP: netip.MustParseAddr("10.244.2.200"), Of: known, Pod: known.Pod, Start: sec(40.5), End: sec(42)},
		{IP: netip.MustParseAddr("10.244.3.7"), Of: bare("10.244.3.7", []*correlate.Backend{pod("web-bbp7xz4vfk-xv8qx", 0), known}), Start: sec(33.5), End: sec(36)},
	}
	paired := alikeTerminations(refs)
	if len(paired) != 2 || !paired[0].Equal(sec(33)) || !paired[1].Equal(sec(33)) {
		t.Errorf("terminations %v, want 33 s for the first two IPs and none for the others", paired)
	}
	a := &correlate.Analysis{Opts: correlate.Options{Skew: correlate.DefaultSkew}}
	if lag, _ := stopLag(a, refs); lag != 5*time.Second {
		t.Errorf("stop lag %v, want 5s", lag)
	}
}

// TestStopLagEvidenceNeverPairsAGuess: the record quoted for the stop lag
// is that of a pod joined to its IP when one is; where none is, it names
// the IP with every pod it may have been, never the group's first pod as
// if it were that IP's.
func TestStopLagEvidenceNeverPairsAGuess(t *testing.T) {
	t0 := time.Date(2026, 2, 11, 6, 20, 0, 0, time.UTC)
	sec := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	pod := func(name string, term float64) *correlate.Backend {
		b := &correlate.Backend{Namespace: "shop", Pod: name}
		b.Moments[correlate.Terminating] = &correlate.Moment{Time: sec(term)}
		return b
	}
	group := []*correlate.Backend{pod("web-bbp7xz4vfk-gs9wq", 33), pod("web-bbp7xz4vfk-t4dwz", 33.5)}
	bare := &correlate.Backend{IPs: []netip.Addr{netip.MustParseAddr("10.244.3.171")}, Alike: group}
	bare.Moments[correlate.Terminating] = group[0].Moments[correlate.Terminating]
	known := pod("web-bbp7xz4vfk-wb2d6", 34)
	unjoined := BackendRef{IP: netip.MustParseAddr("10.244.3.171"), Of: bare, Start: sec(34), End: sec(38)}
	joined := BackendRef{IP: netip.MustParseAddr("10.244.2.200"), Of: known, Pod: known.Pod, Start: sec(35), End: sec(39)}
	a := &correlate.Analysis{Opts: correlate.Options{Skew: correlate.DefaultSkew}}

	_, ev := stopLag(a, []BackendRef{unjoined, joined})
	if ev == nil || !strings.Contains(ev.Fact, "web-bbp7xz4vfk-wb2d6 10.244.2.200 began terminating") {
		t.Errorf("evidence %+v, want the joined pod's termination", ev)
	}
	_, ev = stopLag(a, []BackendRef{unjoined})
	want := "requests still reached 10.244.3.171 (one of web-bbp7xz4vfk-gs9wq, web-bbp7xz4vfk-t4dwz: the records cannot tell which)"
	if ev == nil || !strings.Contains(ev.Fact, want) || strings.Contains(ev.Fact, "10.244.3.171 began terminating") {
		t.Errorf("evidence %+v, want it to say %q", ev, want)
	}
}

package correlate

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// The tests below pin tuning values of the correlation by the numbers their
// comments state, so that a change to one fails a test on each side.

// TestServedRunGapIsHalfAMinute: a pause of 30 s keeps a backend's run
// (servedRunGap), a longer one ends it.
func TestServedRunGapIsHalfAMinute(t *testing.T) {
	var tr Traffic
	tr.serve(after(0))
	tr.serve(after(30 * time.Second))
	if len(tr.Runs) != 1 {
		t.Errorf("a 30 s pause split the run: %v", tr.Runs)
	}
	tr.serve(after(60*time.Second + time.Millisecond))
	if len(tr.Runs) != 2 {
		t.Errorf("a pause over 30 s kept the run: %v", tr.Runs)
	}
}

// TestServedCellsAre256: runs that cover 256 cells of 30 s keep level 0,
// where a 45 s pause splits them (maxServedCells); one response more, in
// the 257th cell, takes them to level 1, where the pause joins them.
func TestServedCellsAre256(t *testing.T) {
	var tr Traffic
	for s := 0; s <= 600; s += 30 {
		tr.serve(after(time.Duration(s) * time.Second))
	}
	for s := 645; s <= 7665; s += 30 { // 7665 s is in cell 255
		tr.serve(after(time.Duration(s) * time.Second))
	}
	if tr.level != 0 || tr.cells != 256 || len(tr.Runs) != 2 {
		t.Fatalf("256 cells: level %d, %d cells, %d runs", tr.level, tr.cells, len(tr.Runs))
	}
	tr.serve(after(7695 * time.Second))
	if tr.level != 1 || tr.cells != 129 || len(tr.Runs) != 1 {
		t.Errorf("257 cells: level %d, %d cells, %d runs", tr.level, tr.cells, len(tr.Runs))
	}
}

// TestRolloutCoversItsLags: a rollout covers from 5 s before its first step
// (rolloutLookback) to 2 min after its last (rolloutLookahead).
func TestRolloutCoversItsLags(t *testing.T) {
	r := &Rollout{Start: at(100), End: at(200)}
	for _, tc := range []struct {
		at   float64
		want bool
	}{{95, true}, {94.999, false}, {320, true}, {320.001, false}} {
		if got := r.Covers(at(tc.at)); got != tc.want {
			t.Errorf("Covers(%v s) = %v, want %v", tc.at, got, tc.want)
		}
	}
}

// TestTrafficRolloutGap: backends that appear or disappear within 5 min of
// the previous one (trafficRolloutGap) are one rollout, and only those
// more than 30 s from the edges of the logs count (dataEdge).
func TestTrafficRolloutGap(t *testing.T) {
	c := NewCollector()
	serve := func(ip string, from, to float64) {
		for s := from; s <= to; s += 1 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(netip.MustParseAddr(ip), 8080), Format: sources.FormatALBAccess})
		}
	}
	serve("10.0.0.9", 0, 1500)   // throughout
	serve("10.0.0.1", 0, 100)    // old: stops at 100 s
	serve("10.0.0.2", 400, 1500) // new: 300 s after, the same rollout
	serve("10.0.0.3", 701, 1500) // new: 301 s after that, another
	serve("10.0.0.4", 30, 1470)  // starts and stops within 30 s of the edges: neither
	serve("10.0.0.5", 31, 1500)  // starts 31 s in: new, in the first rollout
	a := Analyze(Merge(c), Options{})
	var got [][]string
	for _, r := range a.Rollouts {
		var names []string
		for _, b := range r.Old[0].Pods {
			names = append(names, "old "+b.Name())
		}
		for _, b := range r.New.Pods {
			names = append(names, "new "+b.Name())
		}
		got = append(got, names)
	}
	want := [][]string{{"old 10.0.0.1", "new 10.0.0.5", "new 10.0.0.2"}, {"new 10.0.0.3"}}
	if len(got) != len(want) {
		t.Fatalf("rollouts %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("rollouts %v, want %v", got, want)
		}
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("rollouts %v, want %v", got, want)
			}
		}
	}
}

// TestRolloutFromScalingEvents: the Deployment controller's scaling events
// alone make a rollout: the ReplicaSet scaled up from zero is born then, the
// one scaled down to zero leaves then (a scale-down to two does not end
// it), and a ReplicaSet object's owner names the workload.
func TestRolloutFromScalingEvents(t *testing.T) {
	c := NewCollector()
	c.Config(&sources.Config{Kind: "ReplicaSet", Namespace: "shop", Name: "web-6b7c8d9f5", Format: sources.FormatK8sObjects,
		Workload: &sources.Workload{Deployment: "storefront"}})
	scale := func(s float64, kind sources.LifecycleKind, group, object string, from, count int) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Group: group, Object: object,
			From: from, Count: count, Format: sources.FormatK8sEvents})
	}
	scale(10, sources.ScaledUp, "web-6b7c8d9f5", "", 0, 1)
	scale(12, sources.ScaledUp, "web-6b7c8d9f5", "", 1, 2)
	scale(15, sources.ScaledDown, "web-5d4c3b2a1", "Deployment/storefront", 3, 2)
	scale(20, sources.ScaledDown, "web-5d4c3b2a1", "Deployment/storefront", 2, 0)
	c.Lifecycle(&sources.Lifecycle{Time: at(25), Kind: sources.ReadinessGate, Namespace: "shop", Group: "cloud.google.com/load-balancer-neg-ready",
		Format: sources.FormatK8sEvents, From: -1})
	a := Analyze(Merge(c), Options{})
	if len(a.Rollouts) != 1 {
		t.Fatalf("%d rollouts, want 1", len(a.Rollouts))
	}
	r := a.Rollouts[0]
	got := fmt.Sprintf("%s/%s new=%s old=%v %v..%v by %s", r.Namespace, r.Workload, r.New.Name, r.OldNames(), r.Start.Sub(t0), r.End.Sub(t0), r.How)
	if want := "shop/storefront new=web-6b7c8d9f5 old=[web-5d4c3b2a1] 10s..20s by scaling events"; got != want {
		t.Errorf("rollout %s, want %s", got, want)
	}
}

// TestSplitAtTheMergeGap: signals exactly the gap apart are one run, a
// millisecond more apart two.
func TestSplitAtTheMergeGap(t *testing.T) {
	sig := func(s float64) *Signal {
		f := groupOf(&sources.Request{Time: at(s), Status: 503, Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend})
		return &Signal{Group: f}
	}
	gap := 5 * time.Second
	if runs := Split([]*Signal{sig(0), sig(5), sig(10.001)}, gap); len(runs) != 2 || len(runs[0]) != 2 {
		t.Errorf("runs %v", runs)
	}
	if Split(nil, gap) != nil {
		t.Error("runs of nothing")
	}
}

// TestStopRunEndsTheTrafficRollout: an old IP whose traffic ends in
// failures opens the rollout the traffic shows at its last response, not
// at its last failure; and within dataEdge of the logs' end it is old (and
// gone) only when three or more requests failed at it since
// (stopFailures) and so many in a row are less likely than one in a
// million at its own share of failures (stopChance).
func TestStopRunEndsTheTrafficRollout(t *testing.T) {
	ip := func(s string) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr(s), 8080) }
	// refused fails n requests half a second apart from s.
	refused := func(c *Collector, addr string, s float64, n int) {
		for i := range n {
			c.Request(&sources.Request{Time: at(s + float64(i)/2), Status: 502, Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
				Backend: ip(addr), Format: sources.FormatALBAccess})
		}
	}
	// serve answers ten requests a second from from to to.
	serve := func(c *Collector, addr string, from, to float64) {
		for s := from; s <= to; s += 0.1 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: ip(addr), Format: sources.FormatALBAccess})
		}
	}
	// Old at 100 s, failing until 130 s: the rollout starts at its last
	// response.
	c := NewCollector()
	serve(c, "10.0.0.9", 0, 300)
	serve(c, "10.0.0.1", 0, 100)
	refused(c, "10.0.0.1", 100.5, 60)
	a := Analyze(Merge(c), Options{})
	if len(a.Rollouts) != 1 || a.Rollouts[0].Start.After(at(100)) || a.Rollouts[0].Start.Before(at(99.9)) || !a.Rollouts[0].End.Equal(at(130)) {
		t.Errorf("rollouts %v, want one from 100 s to 130 s", a.Rollouts)
	}
	// At the logs' end: requests failed after a last response at 294 s
	// (about 2,950 served), with some failed among the served before.
	for _, tc := range []struct {
		name           string
		before, failed int
		stopped        bool
	}{
		{"two failures", 0, 2, false},            // (2/2950)² is below stopChance: stopFailures decides
		{"three failures", 0, 3, true},           // (3/2950)³
		{"three at a 0.9 % share", 25, 3, true},  // (28/2980)³ = 8.3e-7
		{"three at a 2.1 % share", 60, 3, false}, // (63/3010)³ = 9.2e-6
	} {
		c := NewCollector()
		serve(c, "10.0.0.9", 0, 300)
		serve(c, "10.0.0.1", 0, 294)
		for i := range tc.before {
			refused(c, "10.0.0.1", float64(i)*4+0.05, 1)
		}
		refused(c, "10.0.0.1", 295, tc.failed)
		a := Analyze(Merge(c), Options{})
		if got := len(a.Rollouts) == 1; got != tc.stopped {
			t.Errorf("%s: rollouts %v", tc.name, a.Rollouts)
		}
		if _, st := a.StateAt(netip.MustParseAddr("10.0.0.1"), at(295.2)); (st == StateGone) != tc.stopped {
			t.Errorf("%s: state %v at 295.2 s", tc.name, st)
		}
	}
}

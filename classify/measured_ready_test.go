package classify

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// minReadyFixOf returns the minReadySeconds fix of the first finding of
// cause in the fixture dir, and its number.
func minReadyFixOf(t *testing.T, dir, cause string) (Fix, int) {
	t.Helper()
	_, findings := analyzeDir(t, filepath.Join("..", "fixtures", dir))
	for _, f := range findings {
		if f.Cause != cause {
			continue
		}
		for _, x := range f.Remediation {
			if spec, ok := x.Patch["spec"].(map[string]any); ok {
				if n, ok := spec["minReadySeconds"].(int); ok {
					return x, n
				}
			}
		}
	}
	t.Fatalf("%s: no minReadySeconds fix for %s", dir, cause)
	return Fix{}, 0
}

// TestMinReadySizedFromMeasured: where the incident measured a longer time
// from a new pod's Ready to the load balancer's first use of it than the
// formula allows (GKE NEG zone move, 5 s × 1: 16 s from the latest Ready
// the scaling event allows to the first response), minReadySeconds is the
// measurement plus the margin, and the fix says what was measured and
// where; where the formula covers the measurement (Envoy Gateway, 7.7 s),
// the formula's number stays and the fix says so.
func TestMinReadySizedFromMeasured(t *testing.T) {
	fix, n := minReadyFixOf(t, "gke-neg-zone-move-5s", "registration_lag")
	if formula := minReadyFor(healthCheck{IntervalSec: 5, HealthyThreshold: 1}); n <= formula || n != 22 {
		t.Errorf("gke-neg-zone-move-5s: minReadySeconds %d, want 22 (16.4 s measured + 5 s), above the formula's %d", n, formula)
	}
	wantText(t, "gke-neg-zone-move-5s fix", fix.Why, "Sized from what was measured", "measured: at least 16 s from pod my-app-btrx85ccdl-dq224 Ready",
		"k8s-events.json:138", "first response in the request logs, at 00:57:17.428 UTC")

	fix, n = minReadyFixOf(t, "envoy-gateway-no-healthy-upstream", "registration_lag")
	if n != 16 {
		t.Errorf("envoy-gateway-no-healthy-upstream: minReadySeconds %d, want the formula's 16", n)
	}
	wantText(t, "envoy-gateway fix", fix.Why, "Sized by the formula, which covers the measurement", "measured: 7.7 s from pod web-np7mwttfr2-tjkhc Ready (at 06:20:33 UTC, recorded at")
}

// TestMeasureReadyToServed: only new pods count; the load balancer's own
// word that a pod was healthy comes before its first response; a Ready
// known only as the latest it can have been makes the measurement a lower
// bound ("at least"); a Ready no record says, or a first use before Ready,
// measures nothing; the longest measurement wins.
func TestMeasureReadyToServed(t *testing.T) {
	at := func(s int) time.Time { return time.Date(2026, 3, 25, 0, 57, s, 0, time.UTC) }
	ev := func(s, line int) *correlate.Moment {
		return &correlate.Moment{Time: at(s), Event: &sources.Lifecycle{Time: at(s), Origin: sources.Origin{File: "events.json", Line: line}}}
	}
	ready := func(s int) *correlate.Backend {
		b := &correlate.Backend{Namespace: "shop", Pod: "new-" + itoa(s)}
		b.Moments[correlate.Ready] = ev(s, s)
		return b
	}
	slow, quick, healthy, old, unrecorded, early, by := ready(1), ready(2), ready(3), ready(4), &correlate.Backend{Pod: "unrecorded"}, ready(6), &correlate.Backend{Pod: "by"}
	slow.FirstServed, quick.FirstServed = at(21), at(5)
	healthy.FirstServed = at(40)
	healthy.Moments[correlate.LBHealthy] = ev(10, 99) // the load balancer said healthy before the first response
	old.FirstServed = at(59)
	unrecorded.Moments[correlate.Ready] = &correlate.Moment{Time: at(0)}
	unrecorded.FirstServed = at(50)
	early.FirstServed = at(5)
	by.ReadyBy, by.FirstServed = ev(30, 7), at(45)
	refs := func(bs ...*correlate.Backend) []BackendRef {
		var out []BackendRef
		for _, b := range bs {
			role := correlate.RoleNew
			if b == old {
				role = correlate.RoleOld
			}
			out = append(out, BackendRef{Of: b, Role: role})
		}
		return out
	}
	m, ok := measureReadyToServed(refs(quick, slow, healthy, old, unrecorded, early))
	if !ok || m.Pod != "new-1" || m.Took != 20*time.Second || m.ReadyBy {
		t.Errorf("measured %+v, want 20 s on new-1", m)
	}
	if m, ok := measureReadyToServed(refs(healthy)); !ok || m.Took != 7*time.Second || !strings.Contains(m.ServedWhy, "events.json:99") {
		t.Errorf("measured %+v, want 7 s to the health check at events.json:99", m)
	}
	m, ok = measureReadyToServed(refs(by))
	if !ok || m.Took != 15*time.Second || !strings.Contains(m.note(), "at least 15 s") || !strings.Contains(m.note(), "as the scaling event recorded at events.json:7 says") {
		t.Errorf("measured %+v (%s), want at least 15 s from the scaling event", m, m.note())
	}
	if m, ok := measureReadyToServed(refs(old, unrecorded, early)); ok {
		t.Errorf("measured %+v from an old pod, a Ready no record says, a first use before Ready", m)
	}
}

// TestSizedFromMeasured pins the sizing on both sides: the measurement
// plus the margin when longer than the formula, the formula otherwise; and
// a measurement made with a slower check than the fix proposes counts the
// time the faster check saves off.
func TestSizedFromMeasured(t *testing.T) {
	five, thirty := healthCheck{IntervalSec: 5, HealthyThreshold: 1}, healthCheck{IntervalSec: 30, HealthyThreshold: 1}
	for _, c := range []struct {
		took      time.Duration
		hc, basis healthCheck
		want      int
		says      string
	}{
		{10 * time.Second, five, five, 15, "Sized by the formula"},
		{10*time.Second + time.Millisecond, five, five, 16, "Sized from what was measured, plus a 5 s margin: 16 s, above the formula's 15 s"},
		{38 * time.Second, thirty, five, 18, "less the 25 s the faster check saves (30 s × 1 → 5 s × 1)"},
		{20 * time.Second, thirty, five, 15, "Sized by the formula"},
	} {
		got, note := sizedFromMeasured(15, c.hc, c.basis, readyToServed{Took: c.took, Pod: "p", ReadyWhy: "e:1", ServedWhy: "x"}, true)
		if got != c.want || !strings.Contains(note, c.says) {
			t.Errorf("%v measured with %s, fix %s: %d (%q), want %d saying %q", c.took, checkFormula(c.hc), checkFormula(c.basis), got, note, c.want, c.says)
		}
	}
	if got, note := sizedFromMeasured(15, five, five, readyToServed{}, false); got != 15 || note != "" {
		t.Errorf("nothing measured: %d %q", got, note)
	}
}

package classify

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/fixtures/sim"
	"github.com/readygap/readygap/sources"
)

// steadyALB is an hour of one ALB's access log: targets targets of one
// target group sharing rps requests a second, and a share stray of them
// answered 503 by the ALB without a target, at random. With an outage, the
// ALB answers every request in [outageFrom, outageTo) without a target, as
// when a rollout leaves it no healthy target; with handover, the targets
// after the outage are new ones (10.0.2.x instead of 10.0.1.x), as when
// the rollout replaced them all. It returns the analysis and how many
// requests the outage failed.
func steadyALB(seed uint64, targets int, rps float64, stray float64, outageFrom, outageTo time.Duration, handover bool) (*correlate.Analysis, time.Time, int) {
	const lb = "app/prod-alb/50dc6c495c0c9188"
	rng := rand.New(rand.NewPCG(seed, 1))
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	c := correlate.NewCollector()
	outage := 0
	step := time.Duration(float64(time.Second) / rps)
	line := 0
	for at := time.Duration(0); at < time.Hour; at += step {
		line++
		r := sources.Request{Time: base.Add(at), LB: lb, Format: sources.FormatALBAccess, Origin: sources.Origin{File: "alb.log", Line: line}, Method: "GET", Path: "/api/items"}
		inOutage := at >= outageFrom && at < outageTo
		if inOutage || rng.Float64() < stray {
			r.Status, r.Generator, r.Failure = 503, sources.GeneratedByLB, sources.FailureNoBackend
			if inOutage {
				outage++
			}
		} else {
			r.Status, r.Generator, r.Failure = 200, sources.GeneratedByBackend, sources.FailureNone
			group := byte(1)
			if handover && at >= outageTo {
				group = 2
			}
			r.Backend = netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, group, byte(10 + rng.IntN(targets))}), 8080)
		}
		c.Request(&r)
	}
	return correlate.Analyze(correlate.Merge(c), correlate.Options{}), base, outage
}

// Figures of the steady-ALB tests, from the report of a stray-503 false
// alarm: 24 targets, about 280 requests a second, 0.2% answered without a
// target.
const (
	steadyTargets = 24
	steadyRPS     = 280
	steadyStray   = 0.002
)

// TestNoBackendAmidServedResponses checks that answers without a target
// scattered through an hour of steady traffic, the same ALB's targets
// serving in those very seconds, make no registration lag (nor any
// incident) and one compact note, on several seeds; and, as the controls,
// that a real 20 s outage among them is still one registration lag with
// its count and window, while the stray answers stay a note, and so is a
// gap of 1.2 s across two seconds that both hold served responses when it
// is a handover from the old targets to new ones.
func TestNoBackendAmidServedResponses(t *testing.T) {
	if testing.Short() {
		t.Skip("an hour of traffic at 280 requests a second")
	}
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			a, _, _ := steadyALB(seed, steadyTargets, steadyRPS, steadyStray, 0, 0, false)
			res := Classify(a)
			for _, f := range res.Findings {
				t.Errorf("incident %s %s–%s, %d failed", f.Cause, correlate.Clock(f.Window.Start), correlate.Clock(f.Window.End), f.Window.Failed)
			}
			if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not a lack of healthy backends") || !strings.Contains(res.Notes[0], "For example alb.log:") {
				t.Errorf("%d notes, want one that counts the answers without a backend: %q", len(res.Notes), res.Notes)
			}
			if n := correlate.Weight(a.Signals); n < 1800 || !strings.Contains(res.Notes[0], fmt.Sprintf("%d answers without a backend", n)) {
				t.Errorf("the note does not count all %d answers without a target: %q", n, res.Notes)
			}
		})
	}
	for _, c := range []struct {
		name     string
		from, to time.Duration
		handover bool
	}{
		{"control: a 20 s outage among them", 30 * time.Minute, 30*time.Minute + 20*time.Second, false},
		// A handover's gap: 1.2 s from 0.5 s into one second to 0.7 s
		// into the next, both of which hold served responses, the old
		// targets' last before it, the new ones' first after.
		{"control: a 1.2 s handover across two seconds", 30*time.Minute + 500*time.Millisecond, 30*time.Minute + 1700*time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) { noBackendOutage(t, c.from, c.to, c.handover) })
	}
	// The same gap among targets that serve on both sides: their runs of
	// served responses go on through it, and the seconds cannot tell it
	// from answers among served ones (a note, as the strays).
	t.Run("a 1.2 s gap among the same targets", func(t *testing.T) {
		a, _, _ := steadyALB(4, steadyTargets, steadyRPS, steadyStray, 30*time.Minute+500*time.Millisecond, 30*time.Minute+1700*time.Millisecond, false)
		if res := Classify(a); len(res.Findings) != 0 {
			t.Errorf("%d incidents, want none", len(res.Findings))
		}
	})
}

// noBackendOutage checks that an outage from from to to among the stray
// answers without a target of TestNoBackendAmidServedResponses is one
// registration lag with its count and window, the strays a note.
func noBackendOutage(t *testing.T, from, to time.Duration, handover bool) {
	{
		a, base, outage := steadyALB(4, steadyTargets, steadyRPS, steadyStray, from, to, handover)
		res := Classify(a)
		if len(res.Findings) != 1 {
			t.Fatalf("%d incidents, want the outage's registration lag", len(res.Findings))
		}
		f := res.Findings[0]
		if f.Cause != registrationLagCause.ID {
			t.Errorf("cause %s, want %s", f.Cause, registrationLagCause.ID)
		}
		// The answers of the outage's first and last seconds, and the strays
		// of the seconds either side, may join it.
		if d := f.Window.Failed - outage; d < 0 || d > 4 {
			t.Errorf("%d failed requests, want the outage's %d (up to 4 strays beside it)", f.Window.Failed, outage)
		}
		if d := f.Window.SignalStart.Sub(base.Add(from)); d < -time.Second || d > time.Second {
			t.Errorf("starts at %s, want %s ±1 s", f.Window.SignalStart, base.Add(from))
		}
		if d := f.Window.SignalEnd.Sub(base.Add(to)); d < -time.Second || d > time.Second {
			t.Errorf("ends at %s, want %s ±1 s", f.Window.SignalEnd, base.Add(to))
		}
		if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "not a lack of healthy backends") {
			t.Errorf("notes %q, want one for the stray answers", res.Notes)
		}
	}
}

// TestHandoverGapOfAZoneMove checks the varied runs of the fixed zone move
// in which the robustness test found a real registration lag of 5 to 8
// requests set aside: the last old pod's response and the new pod's first
// (its own warm-up 503 on the regional load balancer) a second or so
// apart, the answers without a backend between them, and both seconds
// holding served responses. Each must be the truth's registration lag,
// with its count and window.
func TestHandoverGapOfAZoneMove(t *testing.T) {
	for _, c := range []struct {
		name string
		seed uint64
	}{{"gke-regional-warmup-503", 1041003}, {"gke-neg-zone-move-fixed", 1002003}, {"gke-neg-zone-move-clock-skew-fixed", 1015003}} {
		t.Run(c.name, func(t *testing.T) {
			s, ok := sim.Lookup(c.name)
			if !ok {
				t.Fatalf("no scenario %s", c.name)
			}
			dir := filepath.Join(t.TempDir(), c.name)
			if err := sim.WriteDir(dir, sim.Simulate(sim.Vary(s, c.seed))); err != nil {
				t.Fatal(err)
			}
			if tr := readTruth(t, dir); len(tr.Incidents) != 1 || tr.Incidents[0].Mechanism != registrationLagCause.ID {
				t.Fatalf("truth %+v, want one registration lag", tr.Incidents)
			}
			for _, p := range checkVerdicts(t, dir) {
				t.Error(p)
			}
		})
	}
}

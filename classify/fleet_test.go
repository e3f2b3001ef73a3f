package classify

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// trickleALB is an hour of one ALB's access log, without Kubernetes data:
// targets targets sharing rps requests a second at random, and a share
// closed of the requests answered 502 by the ALB after the target closed
// the connection (`0.001 0.000 -1 502 -`, the shape of keep-alive races),
// at random targets that serve before and after. It returns the analysis
// and how many requests failed.
func trickleALB(seed uint64, targets int, rps, closed float64) (*correlate.Analysis, int) {
	const lb = "app/prod-alb/50dc6c495c0c9188"
	rng := rand.New(rand.NewPCG(seed, 2))
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	c := correlate.NewCollector()
	failed := 0
	step := time.Duration(float64(time.Second) / rps)
	line := 0
	for at := time.Duration(0); at < time.Hour; at += step {
		line++
		k := rng.IntN(targets)
		ip := netip.AddrFrom4([4]byte{10, byte(k >> 16), byte(k >> 8), byte(k)})
		r := sources.Request{Time: base.Add(at), LB: lb, Format: sources.FormatALBAccess, Origin: sources.Origin{File: "alb.log", Line: line},
			Method: "GET", Path: "/api/items", Backend: netip.AddrPortFrom(ip, 8080)}
		if rng.Float64() < closed {
			r.Status, r.Generator, r.Failure = 502, sources.GeneratedByLB, sources.FailureClosed
			failed++
		} else {
			r.Status, r.Generator, r.Failure = 200, sources.GeneratedByBackend, sources.FailureNone
		}
		c.Request(&r)
	}
	return correlate.Analyze(correlate.Merge(c), correlate.Options{}), failed
}

// Figures of the fleet test, from the report of a trickle read as dozens
// of termination races on large fleets: about 280 requests a second, 2 %
// of them closed connections, over an hour.
const (
	fleetRPS    = 280
	fleetClosed = 0.02
)

// fleetSizes are the numbers of targets the trickle is spread over: a
// small service, the size the verdict held at, and the fleets where it
// broke and beyond.
var fleetSizes = []int{24, 300, 2000, 20000}

// TestTrickleVerdictAtEveryFleetSize checks that a trickle of closed
// connections over an hour gets the same verdict whatever the number of
// targets it is spread over: one keep-alive incident counting every
// failure over the whole hour, and nothing else. A broken implementation
// reads the rare requests of each target of a large fleet as a backend
// that served and was then gone, and splits the trickle into termination
// races.
func TestTrickleVerdictAtEveryFleetSize(t *testing.T) {
	if testing.Short() {
		t.Skip("an hour of traffic at 280 requests a second, four times")
	}
	for _, n := range fleetSizes {
		t.Run(fmt.Sprintf("%d targets", n), func(t *testing.T) {
			a, failed := trickleALB(uint64(n), n, fleetRPS, fleetClosed)
			res := Classify(a)
			causes := map[string]int{}
			for _, f := range res.Findings {
				causes[f.Cause]++
			}
			t.Logf("%d targets: %d failed; incidents %v, %d notes", n, failed, causes, len(res.Notes))
			for _, f := range res.Findings {
				if f.Cause != keepaliveTimeoutCause.ID {
					t.Logf("  %s %s–%s %d failed: %s", f.Cause, correlate.Clock(f.Window.SignalStart), correlate.Clock(f.Window.SignalEnd), f.Window.Failed, f.Summary)
					for ip, x := range f.Window.ByIP {
						t.Logf("    %s %v %v..%v", ip, x.States, correlate.Clock(x.First), correlate.Clock(x.Last))
					}
				}
			}
			if len(res.Findings) != 1 || res.Findings[0].Cause != keepaliveTimeoutCause.ID {
				t.Fatalf("incidents %v, want one %s", causes, keepaliveTimeoutCause.ID)
			}
			f := res.Findings[0]
			if !near(f.Window.Failed, failed) {
				t.Errorf("%d failed requests, want %d", f.Window.Failed, failed)
			}
			if f.Window.SignalEnd.Sub(f.Window.SignalStart) < 59*time.Minute {
				t.Errorf("window %s–%s, want the whole hour", correlate.Clock(f.Window.SignalStart), correlate.Clock(f.Window.SignalEnd))
			}
		})
	}
}

// BenchmarkTrickleFleet classifies the trickle at each fleet size.
func BenchmarkTrickleFleet(b *testing.B) {
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("%d targets", n), func(b *testing.B) {
			for b.Loop() {
				a, _ := trickleALB(uint64(n), n, fleetRPS, fleetClosed)
				Classify(a)
			}
		})
	}
}

package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/fixtures/sim"
)

// inFlightSeeds is how many seeds each in-flight scenario runs with.
const inFlightSeeds = 5

// inFlightSlowPosts is the share of POSTs that take seconds in these runs:
// enough that every drain or scale-in cuts some in flight.
const inFlightSlowPosts = 0.4

// TestInFlightCutByExit runs the drains and scale-ins behind an ALB and
// ingress-nginx, with slow POSTs that are in flight when their pod's
// process exits, over five seeds, and checks each run against the
// simulator's truth as TestFixtureVerdicts does (cause, trigger, count
// within 5 %, window within 2 s, the fix's numbers): a request cut by its
// pod's exit started while the pod served and failed as it exited, and
// belongs to that pod's termination race. The controls (a preStop sleep
// longer than deregistration and than the slowest request) must stay
// silent. Each run's figures are logged.
func TestInFlightCutByExit(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 50 runs")
	}
	cut := 0
	for _, name := range []string{
		"eks-alb-hpa-scale-in", "eks-alb-karpenter-consolidation", "eks-alb-spot-interruption",
		"nginx-hpa-scale-in", "nginx-kubectl-drain",
	} {
		for _, control := range []bool{false, true} {
			n := name
			if control {
				n += "-fixed"
			}
			base, ok := sim.Lookup(n)
			if !ok {
				t.Fatalf("no scenario %s", n)
			}
			for k := uint64(1); k <= inFlightSeeds; k++ {
				s := base
				s.Seed = base.Seed*1000 + 500 + k
				s.Traffic.SlowPosts, s.Traffic.SlowPost = inFlightSlowPosts, sim.Range{Min: 1.5, Max: 6}
				res := sim.Simulate(s)
				cuts := 0
				for _, r := range res.Requests {
					for _, a := range r.Attempts {
						if a.Cut {
							cuts++
						}
					}
				}
				cut += cuts
				dir := filepath.Join(t.TempDir(), s.Name)
				if err := sim.WriteDir(dir, res); err != nil {
					t.Fatal(err)
				}
				tr := readTruth(t, dir)
				_, findings := analyzeDir(t, dir)
				var got, want []string
				for _, f := range findings {
					got = append(got, fmt.Sprintf("%s %d %s–%s", f.Cause, f.Estimated(), f.Window.SignalStart.Format("15:04:05.000"), f.Window.SignalEnd.Format("15:04:05.000")))
				}
				for _, w := range tr.Incidents {
					want = append(want, fmt.Sprintf("%s %d %s–%s", w.Mechanism, w.FailedRequests, w.Start.Format("15:04:05.000"), w.End.Format("15:04:05.000")))
				}
				t.Logf("%s seed %d: %d cut in flight; found [%s], truth [%s]", s.Name, s.Seed, cuts, strings.Join(got, "; "), strings.Join(want, "; "))
				if control && len(findings) > 0 {
					t.Errorf("%s seed %d: control reports %s", s.Name, s.Seed, strings.Join(got, "; "))
				}
				for _, p := range checkVerdicts(t, dir) {
					t.Errorf("%s seed %d: %s", s.Name, s.Seed, p)
				}
				os.RemoveAll(dir)
			}
		}
	}
	if cut == 0 {
		t.Fatal("no request was cut in flight: the runs test nothing")
	}
}

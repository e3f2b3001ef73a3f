package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
)

// pushLagTruth is what TestPushLagIsNotClockSkew reads of a fixture's
// truth (fixtures/sim/result.go): its incidents, per pod.
type pushLagTruth struct {
	Incidents []struct {
		Mechanism      string    `json:"mechanism"`
		Start          time.Time `json:"start"`
		End            time.Time `json:"end"`
		FailedRequests int       `json:"failed_requests"`
		Pods           []struct {
			Pod            string    `json:"pod"`
			Start          time.Time `json:"start"`
			End            time.Time `json:"end"`
			FailedRequests int       `json:"failed_requests"`
		} `json:"pods"`
	} `json:"incidents"`
}

// Bounds of the push-lag verdict test, from the fixtures' scenarios
// (fixtures/sim/scenarios.go) and the estimator's constants
// (correlate/options.go, correlate/proxylag.go).
const (
	// pushLagSeconds is the propagation lag of an Envoy-based gateway's
	// proxies that the report names (envoyPushLag).
	pushLagSeconds = 2.5
	// pushLagMinOffset is minClockOffset: a median below it is the
	// records' one-second stamps, not lateness.
	pushLagMinOffset = 1.5
	// pushLagSkew is how far the control's cluster clock runs behind
	// the load balancer's (Output.ClusterSkew -3 s).
	pushLagSkew = 3.0
	// pushLagWindow is how close to the truth's an incident's and each
	// pod's window must be, as in TestFixtureVerdicts.
	pushLagWindow = 2 * time.Second
	// clockRounding is half of clockResolution: an applied offset is the
	// median rounded to a tenth of a second.
	clockRounding = 0.05
)

// TestPushLagIsNotClockSkew is the verdict test of an Envoy Gateway
// rollout whose proxies act on endpoint changes 0.6-2.2 s late, with the
// clocks agreeing (fixtures/envoy-gateway-push-lag): the pods' stops are
// seen 1.5 s after their records, which an estimator blind to the lag
// shifts the cluster's records by. The report must take that for the lag:
// a clock of offset zero whose median lies within the lag, said in
// warnings, and the termination race with every failure of every pod (the
// last pod's too) at the truth's count and window. The control is the same
// rollout with the cluster's clock 3 s behind
// (fixtures/envoy-gateway-push-lag-clock-skew): there the offset is
// applied, at least the true 3 s and at most 3 s plus the lag and a
// stamp's second, and the verdict is as right.
func TestPushLagIsNotClockSkew(t *testing.T) {
	for _, c := range []struct {
		fixture  string
		min, max float64 // bounds of offset_seconds
	}{
		{"envoy-gateway-push-lag", 0, 0},
		{"envoy-gateway-push-lag-clock-skew", pushLagSkew, pushLagSkew + pushLagSeconds + 1},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			var rep report.Report
			if err := json.Unmarshal([]byte(render(t, report.JSON, analyze(t, fixture(c.fixture)))), &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Clocks) != 1 {
				t.Fatalf("clocks %+v, want one comparison", rep.Clocks)
			}
			clk := rep.Clocks[0]
			if clk.Source != "kubernetes" || clk.OffsetSeconds < c.min || clk.OffsetSeconds > c.max {
				t.Errorf("clock %+v, want an offset in [%g, %g] s", clk, c.min, c.max)
			}
			// How sure it is: its pairs, how closely they agree, and the
			// lag it was read against.
			if clk.Pairs < 3 || clk.SpreadSeconds <= 0 || clk.SpreadSeconds >= 1 || clk.LagSeconds != pushLagSeconds || clk.How == "" {
				t.Errorf("clock %+v: want 3 pairs or more agreeing within a second, read against the %g s lag", clk, pushLagSeconds)
			}
			lagWarned := false
			for _, w := range rep.Warnings {
				lagWarned = lagWarned || strings.Contains(w, "taken for that lag and not for a clock offset")
			}
			if c.max == 0 {
				// The lateness the lag was taken for: more than the
				// stamps' second, less than the lag and that second.
				if clk.MedianSeconds < pushLagMinOffset || clk.MedianSeconds >= pushLagSeconds+pushLagMinOffset || !lagWarned {
					t.Errorf("clock %+v, lag warned %v: want a median in [%g, %g) s taken for the lag", clk, lagWarned, pushLagMinOffset, pushLagSeconds+pushLagMinOffset)
				}
				for _, cv := range rep.Summary.Caveats {
					if strings.Contains(cv, "shifted") {
						t.Errorf("caveat %q: nothing was shifted", cv)
					}
				}
			} else if d := clk.MedianSeconds - clk.OffsetSeconds; d < -clockRounding || d > clockRounding || lagWarned {
				t.Errorf("clock %+v, lag warned %v: want the median applied as the offset", clk, lagWarned)
			}
			checkAgainstTruth(t, c.fixture, rep)
		})
	}
}

// checkAgainstTruth compares rep's incidents with the fixture's truth:
// cause, count and window of each, and of each pod its failures and
// window.
func checkAgainstTruth(t *testing.T, name string, rep report.Report) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixture(name), ".expected.json"))
	must(t, err)
	var tr pushLagTruth
	must(t, json.Unmarshal(b, &tr))
	if len(rep.Incidents) != len(tr.Incidents) || len(tr.Incidents) == 0 {
		t.Fatalf("%d incidents, want %d", len(rep.Incidents), len(tr.Incidents))
	}
	near := func(a, b time.Time) bool { return a.Sub(b).Abs() <= pushLagWindow }
	for i, w := range tr.Incidents {
		in := rep.Incidents[i]
		if in.Cause != w.Mechanism || in.FailedRequests != w.FailedRequests || !near(in.Start, w.Start) || !near(in.End, w.End) {
			t.Errorf("incident %s %d failed %s–%s, want %s %d failed %s–%s", in.Cause, in.FailedRequests, in.Start, in.End,
				w.Mechanism, w.FailedRequests, w.Start, w.End)
		}
		for _, p := range w.Pods {
			var got *report.Backend
			for j := range in.Backends {
				if in.Backends[j].Pod == p.Pod {
					got = &in.Backends[j]
				}
			}
			if got == nil {
				t.Errorf("pod %s (%d failed) not named", p.Pod, p.FailedRequests)
				continue
			}
			if got.FailedRequests != p.FailedRequests || !near(got.Start, p.Start) || !near(got.End, p.End) {
				t.Errorf("pod %s: %d failed %s–%s, want %d failed %s–%s", p.Pod, got.FailedRequests, got.Start, got.End, p.FailedRequests, p.Start, p.End)
			}
		}
	}
}

package classify

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/fixtures/sim"
	"github.com/readygap/readygap/sources"
)

// predictSeeds is how many seeds each simulated setting runs: the ALB's
// first health check of a new target falls anywhere in half an interval,
// so one run spreads ±¼ interval about the model's mean.
const predictSeeds = 8

// seedStats runs s on predictSeeds seeds (offset from its own) and returns
// the mean, least and greatest of what measure finds in each run.
func seedStats(s sim.Scenario, offset uint64, measure func(sim.Result) time.Duration) (mean, lo, hi time.Duration) {
	lo = time.Duration(1<<63 - 1)
	var sum time.Duration
	for i := uint64(0); i < predictSeeds; i++ {
		r := s
		r.Seed += offset + i
		d := measure(sim.Simulate(r))
		sum += d
		lo, hi = min(lo, d), max(hi, d)
	}
	return sum / predictSeeds, lo, hi
}

// lagSpan is a run's registration-lag failures' span (first to last
// client-visible failure); 0 when none failed.
func lagSpan(r sim.Result) time.Duration {
	var first, last time.Time
	for _, in := range r.Truth.Incidents {
		if in.Mechanism != sim.CauseRegistrationLag || in.FailedRequests == 0 {
			continue
		}
		if first.IsZero() || in.Start.Before(first) {
			first = in.Start
		}
		if in.End.After(last) {
			last = in.End
		}
	}
	return last.Sub(first)
}

// meanOf is the middle of a simulator range of seconds.
func meanOf(r sim.Range) time.Duration {
	return time.Duration((r.Min + r.Max) / 2 * float64(time.Second))
}

// holdToSimulator fails when the model's prediction is more than
// predictSlack from the simulator's mean over seeds, or outside its range
// widened by predictSlack.
func holdToSimulator(t *testing.T, name string, want, mean, lo, hi time.Duration) {
	t.Helper()
	t.Logf("%s: simulated mean %v (%v-%v), predicted %v", name, mean.Round(100*time.Millisecond), lo.Round(100*time.Millisecond), hi.Round(100*time.Millisecond), want)
	if d := mean - want; d < -predictSlack || d > predictSlack || want < lo-predictSlack || want > hi+predictSlack {
		t.Errorf("%s: simulated mean %v (%v-%v), predicted %v", name, mean.Round(100*time.Millisecond), lo.Round(100*time.Millisecond), hi.Round(100*time.Millisecond), want)
	}
}

// TestALBNoGatePredictionMatchesSimulator holds the ALB model without the
// readiness gate to the rollout simulator over replicas, health checks and
// minReadySeconds on both sides of the seeds' values; with the gate every
// run has no window, as the prediction says.
func TestALBNoGatePredictionMatchesSimulator(t *testing.T) {
	base, ok := sim.Lookup("eks-alb-no-gate")
	if !ok {
		t.Fatal("no eks-alb-no-gate scenario")
	}
	zones := []string{"ap-northeast-2a", "ap-northeast-2c", "ap-northeast-2a"}
	lead, _ := podReadyLead(&sources.Probe{InitialDelaySec: base.ReadinessProbe.InitialDelaySeconds, PeriodSec: base.ReadinessProbe.PeriodSeconds})
	for _, replicas := range []int{1, 2, 3} {
		for _, hc := range []healthCheck{{IntervalSec: 5, HealthyThreshold: 2}, {IntervalSec: 15, HealthyThreshold: 2}, {IntervalSec: 30, HealthyThreshold: 5}} {
			for _, minReady := range []int{0, 20} {
				s := base
				s.Replicas, s.OldZones = replicas, zones[:replicas]
				s.HealthCheck.IntervalSeconds, s.HealthCheck.HealthyThreshold = hc.IntervalSec, hc.HealthyThreshold
				s.MinReadySeconds = minReady
				s.Traffic.After = time.Duration(replicas*(minReady+20)+hc.IntervalSec*(hc.HealthyThreshold+2)+60) * time.Second
				mean, lo, hi := seedStats(s, 7100, lagSpan)
				want := albNoGateWindow(hc, minReady, lead, replicas, s.MaxSurge, s.MaxUnavailable, meanOf(s.DeregistrationLag))
				holdToSimulator(t, fmt.Sprintf("%d replicas, %s, minReadySeconds %d", replicas, checkFormula(hc), minReady), want, mean, lo, hi)
				if replicas != 2 || minReady != 0 {
					continue
				}
				s.ReadinessGate = sim.GateALB
				if _, _, hi := seedStats(s, 7200, lagSpan); hi != 0 {
					t.Errorf("%d replicas, %s, the readiness gate: a run failed for %v, the prediction says none", replicas, checkFormula(hc), hi)
				}
			}
		}
	}
}

// TestALBMinReadyIsSilent: the minReadySeconds the ALB model asks for
// leaves no window in any simulated run (within the slack), and one
// second less than it still leaves one when the first check comes late.
func TestALBMinReadyIsSilent(t *testing.T) {
	base, _ := sim.Lookup("eks-alb-no-gate")
	lead, _ := podReadyLead(&sources.Probe{InitialDelaySec: base.ReadinessProbe.InitialDelaySeconds, PeriodSec: base.ReadinessProbe.PeriodSeconds})
	for _, hc := range []healthCheck{{IntervalSec: 15, HealthyThreshold: 2}, {IntervalSec: 60, HealthyThreshold: 3}} {
		s := base
		s.Replicas, s.OldZones = 1, s.OldZones[:1]
		s.HealthCheck.IntervalSeconds, s.HealthCheck.HealthyThreshold = hc.IntervalSec, hc.HealthyThreshold
		m := albMinReady(hc, lead, 1, 1, 0)
		if albWindowAt(albLateCheckShare, hc, m-1, lead, 1, 1, 0, albDataPlaneLag) == 0 {
			t.Errorf("%s: minReadySeconds %d is not the least the model asks for", checkFormula(hc), m)
		}
		s.MinReadySeconds = m
		s.DeregistrationLag = sim.Range{Min: albDataPlaneLag.Seconds() - 0.5, Max: albDataPlaneLag.Seconds() + 0.5}
		s.Traffic.After = time.Duration(m+hc.IntervalSec*(hc.HealthyThreshold+2)+60) * time.Second
		_, _, hi := seedStats(s, 7300, lagSpan)
		t.Logf("%s, minReadySeconds %d: simulated at most %v", checkFormula(hc), m, hi)
		if hi > predictSlack {
			t.Errorf("%s, minReadySeconds %d: a simulated run failed for %v, the model expects none", checkFormula(hc), m, hi)
		}
	}
}

// podRaceSpan is the mean span of a run's termination-race failures at
// each old pod that had some; 0 when none had.
func podRaceSpan(r sim.Result) time.Duration {
	var sum time.Duration
	n := 0
	for _, in := range r.Truth.Incidents {
		if in.Mechanism != sim.CauseTerminationRace {
			continue
		}
		for _, p := range in.Pods {
			sum += p.End.Sub(p.Start)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// TestALBStopPredictionMatchesSimulator holds the ALB termination-race
// model to the simulator over ALB's routing lag after deregistration and
// the preStop sleep, the fix's 15 s among them.
func TestALBStopPredictionMatchesSimulator(t *testing.T) {
	base, ok := sim.Lookup("eks-alb-termination-race")
	if !ok {
		t.Fatal("no eks-alb-termination-race scenario")
	}
	for _, lag := range []sim.Range{{Min: 1, Max: 2}, {Min: 4, Max: 6}, {Min: 8, Max: 10}} {
		for _, sleep := range []int{0, 3, 5, preStopFor(albStopPropagation)} {
			s := base
			s.DeregistrationLag, s.PreStopSleepSeconds = lag, sleep
			mean, lo, hi := seedStats(s, 7400, podRaceSpan)
			holdToSimulator(t, fmt.Sprintf("routing lag %g-%g s, preStop %d s", lag.Min, lag.Max, sleep), albStopWindow(sleep, meanOf(lag)), mean, lo, hi)
		}
	}
}

// TestKeepAlivePredictionMatchesSimulator: the keep-alive prediction says
// 502s recur with the app's keep-alive under the ALB's idle timeout and
// none with the fix; the simulator agrees on every seed, and its failures
// spread over the run rather than gather in a window.
func TestKeepAlivePredictionMatchesSimulator(t *testing.T) {
	for _, c := range []struct {
		scenario string
		recurs   bool
	}{{"eks-alb-keepalive-gunicorn", true}, {"eks-alb-keepalive-fixed", false}} {
		s, ok := sim.Lookup(c.scenario)
		if !ok {
			t.Fatalf("no %s scenario", c.scenario)
		}
		app := &sources.KeepAlive{Server: s.KeepAlive.AppServer, Seconds: s.KeepAlive.AppTimeout.Seconds()}
		lb := Timeout{Seconds: s.KeepAlive.LBIdleTimeout.Seconds(), What: "the ALB's idle timeout", Source: "the annotation"}
		if got := app.Seconds < lb.Seconds; got != c.recurs {
			t.Fatalf("%s: the check would flag it: %v", c.scenario, got)
		}
		if c.recurs {
			p := predictKeepalive(app, lb, "the ALB")
			if !p.Windows[0].Recurring || p.Windows[0].Window != 0 || p.Windows[1].Recurring || p.Windows[1].Window != 0 {
				t.Errorf("prediction %+v: want recurring now, none with the fix", p.Windows)
			}
			if fixed := float64(int(lb.Seconds) + keepaliveMargin); fixed <= lb.Seconds || !strings.Contains(p.Windows[1].Settings, fmt.Sprint(fixed)) {
				t.Errorf("fixed settings %q, want keep-alive %g s", p.Windows[1].Settings, fixed)
			}
		}
		for i := uint64(0); i < 3; i++ {
			r := s
			r.Seed += 7500 + i
			var failed int
			var first, last time.Time
			for _, in := range sim.Simulate(r).Truth.Incidents {
				if in.Mechanism != sim.CauseKeepAliveTimeout {
					continue
				}
				failed += in.FailedRequests
				if first.IsZero() || in.Start.Before(first) {
					first = in.Start
				}
				if in.End.After(last) {
					last = in.End
				}
			}
			t.Logf("%s seed %d: %d keep-alive failures over %v", c.scenario, r.Seed, failed, last.Sub(first).Round(time.Second))
			if (failed > 0) != c.recurs {
				t.Errorf("%s seed %d: %d keep-alive failures; the prediction says recurring: %v", c.scenario, r.Seed, failed, c.recurs)
			}
			if c.recurs && last.Sub(first) < s.Traffic.After/2 {
				t.Errorf("%s seed %d: failures over %v of %v: a window, not a rate", c.scenario, r.Seed, last.Sub(first), s.Traffic.After)
			}
		}
	}
}

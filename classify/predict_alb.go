package classify

import (
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// The ALB models: the AWS Load Balancer Controller registers a pod's IP
// target when its EndpointSlice entry turns ready (without the readiness
// gate), the target stays in `initial` for about an interval
// (Elb.RegistrationInProgress) and needs HealthyThreshold passing checks;
// a terminating pod's target is deregistered when its entry turns
// terminating, and ALB keeps routing to it for some seconds after. The
// numbers are the simulator's model of that path (fixtures/sim/lb_alb.go,
// calibrated on seeds 001 and 004); TestALBPredictionsMatchSimulator holds
// them together.
const (
	// albRegisterChain: from a pod's Ready to its target registered
	// (EndpointSlice update, the controller's reconcile 0.5-2 s,
	// RegisterTargets), plus from healthy to the first request routed to
	// it (assumed: no input says it).
	albRegisterChain = 2200 * time.Millisecond
	// albFirstCheckShare: a new target's first health check comes one to
	// one and a half intervals after it is registered, 1.25 on average;
	// albLateCheckShare is the late end, which minReadySeconds must cover
	// for no rollout to fail.
	albFirstCheckShare = 1.25
	albLateCheckShare  = 1.5
	// albDeregisterChain: from a pod beginning to terminate to its target
	// deregistered (EndpointSlice update, the controller's reconcile,
	// DeregisterTargets), less the kubelet's start of the stop (assumed).
	albDeregisterChain = 1600 * time.Millisecond
	// albDataPlaneLag: ALB routes new requests to a deregistered target
	// for some seconds after DeregisterTargets returns: 1-2 s in seeds 001
	// and 004, 4-6 s in the termination race readygap reproduces, and a
	// 5 s preStop sleep was not enough in aws-load-balancer-controller#1064
	// (assumed: no input says it; the preStop fix is sized for the longer
	// albStopPropagation).
	albDataPlaneLag = 5 * time.Second
)

// albNoGateWindow is the expected time an ALB has no healthy target at a
// rollout of pods without the readiness gate: the first new target passes
// its checks (HealthyThreshold of them, the first one to one and a half
// intervals after registration) later than the last old target stops
// getting requests, minReadySeconds after the last new pod is Ready. The
// rollout replaces maxSurge + maxUnavailable pods a round, each new pod
// Ready lead after it is created; dataPlane is ALB's routing lag after
// DeregisterTargets.
func albNoGateWindow(hc healthCheck, minReady int, lead time.Duration, replicas, surge, unavailable int, dataPlane time.Duration) time.Duration {
	return albWindowAt(albFirstCheckShare, hc, minReady, lead, replicas, surge, unavailable, dataPlane)
}

// albWindowAt is albNoGateWindow with the first check share intervals
// after registration.
func albWindowAt(share float64, hc healthCheck, minReady int, lead time.Duration, replicas, surge, unavailable int, dataPlane time.Duration) time.Duration {
	interval := time.Duration(hc.IntervalSec) * time.Second
	healthy := albRegisterChain + time.Duration(share*float64(interval)) +
		time.Duration(max(hc.HealthyThreshold-1, 0))*interval
	stop := albDeregisterChain + dataPlane
	var w time.Duration
	replicas = max(replicas, 1)
	if unavailable >= replicas {
		// Every old pod goes at once, before a new one is Ready.
		w = lead + healthy - stop
	} else {
		step := max(surge+unavailable, 1)
		rounds := (replicas + step - 1) / step
		minR := time.Duration(minReady) * time.Second
		gone := time.Duration(rounds-1)*(lead+minR) + minR + stop
		w = healthy - gone
	}
	if w = w.Round(time.Second); w <= 0 {
		return 0
	}
	return w
}

// albMinReady is the least minReadySeconds for which the ALB model expects
// no window without the readiness gate, even when the first check comes
// late; 0 when the rollout stops every old pod at once, which no
// minReadySeconds holds back.
func albMinReady(hc healthCheck, lead time.Duration, replicas, surge, unavailable int) int {
	if unavailable >= max(replicas, 1) {
		return 0
	}
	m := 0
	for albWindowAt(albLateCheckShare, hc, m, lead, replicas, surge, unavailable, albDataPlaneLag) > 0 {
		m++
	}
	return m
}

// predictALBNoGate predicts the ALB readiness-gate risk's window with the
// settings read, with the plan's minReadySeconds alone, and with the
// readiness gate.
func predictALBNoGate(hc healthCheck, plan readyPlan, wl workload, replicas int, probe *sources.Probe) *Prediction {
	lead, leadWhy := podReadyLead(probe)
	surge, unavailable := albRolloutRound(wl, replicas)
	window := func(h healthCheck, minReady int) time.Duration {
		return albNoGateWindow(h, minReady, lead, replicas, surge, unavailable, albDataPlaneLag)
	}
	p := &Prediction{Status: 502}
	p.Windows = append(p.Windows, PredictedWindow{
		Settings: fmt.Sprintf("health check %s, minReadySeconds %d, no readiness gate", checkFormula(hc), wl.MinReadySeconds),
		Window:   window(hc, wl.MinReadySeconds),
	})
	if plan.MinReady > wl.MinReadySeconds {
		p.Windows = append(p.Windows, PredictedWindow{
			Settings: fmt.Sprintf("minReadySeconds %d, no readiness gate", plan.MinReady),
			Window:   window(plan.Basis, plan.MinReady),
		})
	}
	p.Windows = append(p.Windows, PredictedWindow{Settings: "the readiness gate (a new pod is Ready once its target is healthy)"})
	p.Basis = fmt.Sprintf("Settings: the health check %s (%s), minReadySeconds %d (%s), %s (%s). A new target passes ALB's checks about %s + %.2f × interval + (healthy threshold - 1) × interval after its pod is Ready (the controller's registration and the target's initial state, assumed); an old target gets requests until about %s after its pod begins terminating (deregistration, then ALB's routing lag, assumed); a rollout replaces its %s %d at a time (maxSurge %s, maxUnavailable %s), each Ready about %s after it is created (%s). Without a healthy target ALB answers 502 while old targets drain (deregistration_delay, 300 s by default), 503 after.",
		checkFormula(hc), hc.Source(), wl.MinReadySeconds, wl.minReadySource(), words.Plural(max(replicas, 1), "replica"), replicasSource(wl),
		secondsText(albRegisterChain), albFirstCheckShare, secondsText(albDeregisterChain+albDataPlaneLag),
		words.Plural(max(replicas, 1), "pod"), max(surge+unavailable, 1), rollingValue(wl.MaxSurge), rollingValue(wl.MaxUnavailable), secondsText(lead), leadWhy)
	return p
}

// albRolloutRound is how many pods a rollout of replicas starts (surge)
// and stops (unavailable) at once, as the Deployment controller resolves
// maxSurge and maxUnavailable; every pod at once for Recreate.
func albRolloutRound(wl workload, replicas int) (surge, unavailable int) {
	if wl.Strategy == "Recreate" {
		return 0, max(replicas, 1)
	}
	return correlate.RolloutBudget(max(replicas, 1), wl.MaxSurge, wl.MaxUnavailable)
}

// replicasSource says where the replicas a prediction counts come from:
// the workload read (spec.replicas, or the API default of 1 when it sets
// none), else assumed.
func replicasSource(wl workload) string {
	if !wl.Known {
		return assumedDefault
	}
	if wl.Replicas == 0 {
		return "the API default: the spec " + readAt(wl.Origin) + " does not set it"
	}
	return readAt(wl.Origin)
}

// rollingValue writes a rollingUpdate value, or the API's default.
func rollingValue(v string) string {
	if v == "" {
		return defaultMaxUnavailable + " (the API default)"
	}
	return v
}

// albStopWindow is how long an old pod that stops listening preStop
// seconds after it begins terminating still gets requests from ALB.
func albStopWindow(preStop int, dataPlane time.Duration) time.Duration {
	w := (albDeregisterChain + dataPlane - time.Duration(preStop)*time.Second).Round(time.Second)
	if w <= 0 {
		return 0
	}
	return w
}

// predictALBStop predicts the ALB termination race's window at each old
// pod with the preStop sleep read and with the one the fix proposes.
func predictALBStop(sleep, need int, sleepWhy string) *Prediction {
	now := fmt.Sprintf("a preStop sleep of %d s", sleep)
	if sleep == 0 {
		now = "no preStop sleep"
	}
	return &Prediction{
		Status: 502,
		Per:    "old pod",
		Windows: []PredictedWindow{
			{Settings: now, Window: albStopWindow(sleep, albDataPlaneLag)},
			{Settings: fmt.Sprintf("a preStop sleep of %d s", need), Window: albStopWindow(need, albDataPlaneLag)},
		},
		Basis: fmt.Sprintf("Settings: the preStop sleep, %s. The AWS Load Balancer Controller deregisters a terminating pod's target about %s after it begins terminating and ALB keeps routing to it about %s more (both assumed: nothing is measured before a deploy; the fix is sized for %s); the app stops listening when the preStop sleep ends. Each old pod's share of the requests fails that long once it begins terminating.",
			sleepWhy, secondsText(albDeregisterChain), secondsText(albDataPlaneLag), secondsText(albStopPropagation)),
	}
}

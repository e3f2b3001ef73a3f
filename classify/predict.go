package classify

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Prediction is a static check's expected failure window: how long clients
// would get the load balancer's own errors at the next rollout with the
// settings read, then with the risk's fixes applied one after the other.
// It comes from a closed-form model of the mechanism (one per check that
// has one), whose every number is read from the objects or assumed, as
// Basis says; classify's tests hold it to the rollout simulator's result.
type Prediction struct {
	// Status is the status clients get (502 behind Google's load balancer).
	Status int
	// Windows are the expected failure windows: the first with the
	// settings read, each next one with a fix applied, as its Settings
	// say.
	Windows []PredictedWindow
	// Per says what one window covers when it is not the whole rollout:
	// "old pod" for a termination race, whose window recurs at each old
	// pod with the share of requests sent to it; "" for the rollout.
	Per string
	// Basis says the model and where each of its numbers comes from.
	Basis string
}

// PredictedWindow is the expected failure window with some settings.
type PredictedWindow struct {
	// Settings names the settings: "30 s × 1, minReadySeconds 0".
	Settings string
	// Window is the expected time clients get errors; 0 for none.
	Window time.Duration
	// Recurring says the failures come at a rate, at any time, rather than
	// in a window (Window is then 0): an idle keep-alive race.
	Recurring bool
}

// The GKE zone-move model: a rollout starts the only new pod in a zone
// without a NEG, the readiness gate opens without a health check
// (kubernetes/ingress-gce#1718), and the old pod goes minReadySeconds after
// the new one is Ready; Google's load balancer has no healthy backend
// until the new zone's NEG is in the backend service and its endpoint has
// passed the health check. The numbers are the simulator's model of that
// path (fixtures/sim/lb_gke.go, calibrated on seed 000's timeline:
// about 35 s of 502s at a 30 s interval, 12 s at 5 s, none at 5 s with
// minReadySeconds 15); TestPredictionMatchesSimulator holds them together.
const (
	// negNewZoneProgramming: from the endpoint joining the new zone's NEG
	// to ingress-gce adding that NEG to the backend service (17-20 s).
	negNewZoneProgramming = 18500 * time.Millisecond
	// negFirstCheckShare: a new NEG's first health check comes near the
	// end of its first interval (0.9-1.0 of it).
	negFirstCheckShare = 0.95
	// negHealthySettle: from the passing check to the first request sent
	// to the endpoint (0.5-1.5 s).
	negHealthySettle = time.Second
	// negDetachLag: the old endpoint keeps getting requests this long after
	// it began terminating (0.5-1.5 s).
	negDetachLag = time.Second
	// negGateLead: the gate opens without a health check about this long
	// after the endpoint joined the NEG (attach 3-6 s, then 0.3-1.5 s).
	negGateLead = 5400 * time.Millisecond
	// podStartAssumed: from the pod's IP (its endpoint) to its container
	// starting, with the image already on the node, plus the kubelet's
	// probe and status latencies (assumed: no input says it; the CNI's IP
	// comes about halfway through a 3-6 s pod start).
	podStartAssumed = 3 * time.Second
)

// predictNEGZoneMove predicts the zone-move risk's window with the health
// check and minReadySeconds read, then with the faster check (when the
// plan proposes one) and with the plan's minReadySeconds.
func predictNEGZoneMove(hc healthCheck, plan readyPlan, wl workload, probe *sources.Probe) *Prediction {
	lead, leadWhy := readyLead(probe)
	p := &Prediction{Status: 502}
	add := func(h healthCheck, minReady int) {
		p.Windows = append(p.Windows, PredictedWindow{
			Settings: fmt.Sprintf("health check %s, minReadySeconds %d", checkFormula(h), minReady),
			Window:   negZoneMoveWindow(h, minReady, lead),
		})
	}
	add(hc, wl.MinReadySeconds)
	if plan.Faster != nil {
		add(plan.Basis, wl.MinReadySeconds)
	}
	add(plan.Basis, max(plan.MinReady, wl.MinReadySeconds))
	p.Basis = fmt.Sprintf("The new zone's NEG joins the backend service about %s after the pod's endpoint (ingress-gce's programming latency, assumed), its first check comes near the end of an interval, and the old pod leaves minReadySeconds after the new one is Ready, which takes about %s from its IP (%s).",
		secondsText(negNewZoneProgramming), secondsText(lead), leadWhy)
	return p
}

// negZoneMoveWindow is the expected time with no healthy backend.
func negZoneMoveWindow(hc healthCheck, minReady int, lead time.Duration) time.Duration {
	interval := time.Duration(hc.IntervalSec) * time.Second
	healthy := negNewZoneProgramming + time.Duration(negFirstCheckShare*float64(interval)) +
		time.Duration(max(hc.HealthyThreshold-1, 0))*interval + negHealthySettle
	gone := lead + time.Duration(minReady)*time.Second + negDetachLag
	w := (healthy - gone).Round(time.Second)
	if w <= 0 {
		return 0
	}
	return w
}

// negZoneMoveMinReady is the least minReadySeconds for which the model
// expects no window with the health check hc and the pod's ready lead.
func negZoneMoveMinReady(hc healthCheck, lead time.Duration) int {
	m := 0
	for negZoneMoveWindow(hc, m, lead) > 0 {
		m++
	}
	return m
}

// readyLead is how long a new pod takes from its IP to Ready: the assumed
// start, then the readiness probe's first check at initialDelaySeconds
// (assumed to fail: the app is rarely listening that early) and the next
// one periodSeconds later; at least until the NEG gate opens.
func readyLead(probe *sources.Probe) (time.Duration, string) {
	if probe == nil {
		return max(podStartAssumed, negGateLead), fmt.Sprintf("no readiness probe read: the gate's %s", secondsText(negGateLead))
	}
	lead, why := podReadyLead(probe)
	return max(lead, negGateLead), why
}

// podReadyLead is how long a new pod takes from its IP to Ready without a
// readiness gate: the assumed start, then the readiness probe's first
// check at initialDelaySeconds (assumed to fail) and the next one
// periodSeconds later; the start alone without a probe.
func podReadyLead(probe *sources.Probe) (time.Duration, string) {
	if probe == nil {
		return podStartAssumed, fmt.Sprintf("%s to start, assumed; no readiness probe read", secondsText(podStartAssumed))
	}
	period := cmp.Or(probe.PeriodSec, defaultProbePeriod)
	lead := podStartAssumed + time.Duration(probe.InitialDelaySec+period)*time.Second
	return lead, fmt.Sprintf("%s to start, assumed, then initialDelaySeconds %d and one periodSeconds %d of the readiness probe, read",
		secondsText(podStartAssumed), probe.InitialDelaySec, period)
}

// defaultProbePeriod is a probe's periodSeconds when the spec sets none
// (the API default).
const defaultProbePeriod = 10

// secondsText writes a duration as whole seconds, "18 s", or "18.5 s".
func secondsText(d time.Duration) string {
	s := d.Seconds()
	if s == math.Trunc(s) {
		return fmt.Sprintf("%d s", int(s))
	}
	return fmt.Sprintf("%.1f s", s)
}

// String says the prediction in one line: "≈ 37 s of 502s with health
// check 30 s × 1, minReadySeconds 0; ≈ 13 s with ...; none with ...";
// "≈ 7 s of 502s per old pod with ..."; "502s at any time, at a rate
// the traffic sets, with ...".
func (p *Prediction) String() string {
	parts := make([]string, len(p.Windows))
	per := ""
	if p.Per != "" {
		per = " per " + p.Per
	}
	for i, w := range p.Windows {
		amount := "none"
		switch {
		case w.Recurring:
			amount = fmt.Sprintf("%ds at any time, at a rate the traffic sets (no window),", p.Status)
		case w.Window > 0:
			amount = fmt.Sprintf("≈ %s of %ds%s", secondsText(w.Window), p.Status, per)
		}
		parts[i] = fmt.Sprintf("%s with %s", amount, w.Settings)
	}
	return strings.Join(parts, "; ")
}

package sources

import (
	"regexp"
	"strconv"
	"strings"
)

// Events of progressive-delivery controllers: Argo Rollouts
// (argoproj/argo-rollouts utils/conditions/conditions.go and the call
// sites in rollout/, reported by `rollouts-controller` on `Rollout/<name>`)
// and Flagger (fluxcd/flagger pkg/controller/scheduler*.go, every event
// with reason Synced, reported by `flagger` on `Canary/<name>`).

// Argo Rollouts event reasons readygap interprets.
const (
	reasonArgoSwitchService    = "SwitchService"
	reasonArgoTrafficWeight    = "TrafficWeightUpdated"
	reasonArgoStepCompleted    = "RolloutStepCompleted"
	reasonArgoPaused           = "RolloutPaused"
	reasonArgoResumed          = "RolloutResumed"
	reasonArgoCompleted        = "RolloutCompleted"
	reasonArgoAborted          = "RolloutAborted"
	reasonArgoUpdated          = "RolloutUpdated"
	reasonArgoNewReplicaSet    = "NewReplicaSetCreated"
	reasonArgoTGVerified       = "TargetGroupVerified"
	reasonArgoTGUnverified     = "TargetGroupUnverified"
	reasonArgoPatchingALB      = "PatchingALBIngress"
	reasonArgoPatchingCanary   = "PatchingCanaryIngress"
	reasonArgoCreatingCanary   = "CreatingCanaryIngress"
	reasonArgoAnalysisRunPrefx = "AnalysisRun"
	// reasonFlaggerSynced is the reason of every Flagger event.
	reasonFlaggerSynced = "Synced"
)

// Argo Rollouts messages (conditions.go, service.go:71, trafficrouting.go).
var (
	// argoScalingRe is Argo's ScalingReplicaSet message (since v1.0.0):
	// "Scaled up ReplicaSet web-7fdb8fff6b (revision 7) from 0 to 3".
	argoScalingRe = regexp.MustCompile(`^Scaled (up|down) ReplicaSet (\S+) \(revision \d+\) from (\d+) to (\d+)$`)
	// argoSwitchRe is the SwitchService message; the old hash may be ''.
	argoSwitchRe = regexp.MustCompile(`^Switched selector for service '([^']+)' from '([^']*)' to '([^']*)'$`)
	// argoWeightRe is the TrafficWeightUpdated message: "Traffic weight
	// updated to 10" or "... from 10 to 20", with ", additional: [...]"
	// after it when experiments or header routes add destinations.
	argoWeightRe = regexp.MustCompile(`^Traffic weight updated (?:from (\d+) )?to (\d+)(?:,.*)?$`)
	// argoStepRe is the RolloutStepCompleted message: "Rollout step 2/4
	// completed (setWeight: 20)".
	argoStepRe = regexp.MustCompile(`^Rollout step (\d+)/(\d+) completed \((.*)\)$`)
	// argoPausedRe is the RolloutPaused message.
	argoPausedRe = regexp.MustCompile(`^Rollout is paused \((\w+)\)$`)
)

// interpretArgoScaling reads Argo Rollouts' ScalingReplicaSet wording,
// which differs from the Deployment controller's ("ReplicaSet", a
// revision): Group is the ReplicaSet, Count its new size, From its old
// one. It reports false for another wording.
func interpretArgoScaling(l *Lifecycle, msg string) bool {
	m := argoScalingRe.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	from, err1 := strconv.Atoi(m[3])
	to, err2 := strconv.Atoi(m[4])
	if err1 != nil || err2 != nil {
		return false
	}
	l.Kind = ScaledUp
	if m[1] == "down" {
		l.Kind = ScaledDown
	}
	l.Group, l.Count, l.From = m[2], to, from
	return true
}

// interpretRolloutEvent reads the events of Argo Rollouts and Flagger; it
// reports false for any other reason, and leaves l as LifecycleOther for a
// message without the documented shape.
func interpretRolloutEvent(l *Lifecycle, reason, msg string) bool {
	switch {
	case reason == reasonArgoSwitchService:
		if m := argoSwitchRe.FindStringSubmatch(msg); m != nil {
			l.Kind, l.Group, l.Previous, l.Status = ServiceSwitched, m[1], m[2], m[3]
		}
	case reason == reasonArgoTrafficWeight:
		m := argoWeightRe.FindStringSubmatch(msg)
		if m == nil {
			return true
		}
		to, err := strconv.Atoi(m[2])
		if err != nil {
			return true
		}
		from := -1
		if m[1] != "" {
			if from, err = strconv.Atoi(m[1]); err != nil {
				return true
			}
		}
		l.Kind, l.Count, l.From = TrafficWeight, to, from
	case reason == reasonArgoStepCompleted:
		if m := argoStepRe.FindStringSubmatch(msg); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				l.Kind, l.Count, l.Status = RolloutStep, n, m[3]
			}
		}
	case reason == reasonArgoPaused:
		l.Kind = RolloutStep
		if m := argoPausedRe.FindStringSubmatch(msg); m != nil {
			l.Status = m[1]
		}
	case reason == reasonArgoResumed, reason == reasonArgoUpdated, reason == reasonArgoNewReplicaSet,
		reason == reasonArgoTGVerified, reason == reasonArgoTGUnverified,
		reason == reasonArgoPatchingALB, reason == reasonArgoPatchingCanary, reason == reasonArgoCreatingCanary,
		strings.HasPrefix(reason, reasonArgoAnalysisRunPrefx) && strings.Contains(msg, " Analysis Run '"):
		l.Kind = RolloutStep
	case reason == reasonArgoCompleted:
		l.Kind = RolloutCompleted
	case reason == reasonArgoAborted:
		l.Kind = RolloutAborted
	case reason == reasonFlaggerSynced && strings.HasPrefix(l.Object, "Canary/"):
		interpretFlaggerEvent(l, msg)
	default:
		return false
	}
	return true
}

// Flagger messages (pkg/controller/scheduler.go, scheduler_*.go at v1.44.0).
var (
	// flaggerWeightRe is "Advance web.shop canary weight 10".
	flaggerWeightRe = regexp.MustCompile(`^Advance \S+ canary weight (\d+)$`)
	// flaggerPrimaryWeightRe is "Advance web.shop primary weight 60"
	// (stepWeightPromotion): the canary gets the rest.
	flaggerPrimaryWeightRe = regexp.MustCompile(`^Advance \S+ primary weight (\d+)$`)
)

// Flagger message prefixes.
const (
	flaggerAllToPrimary = "Routing all traffic to primary"
	flaggerAllToCanary  = "Routing all traffic to canary"
	flaggerPromoted     = "Promotion completed!"
	flaggerRollingBack  = "Rolling back "
	flaggerFailed       = "Canary failed!"
)

// interpretFlaggerEvent reads one Flagger event on a Canary: weight
// changes, promotion and rollback; the other messages (new revision,
// analysis starting, halts, iterations) are steps.
func interpretFlaggerEvent(l *Lifecycle, msg string) {
	l.Kind = RolloutStep
	switch {
	case flaggerWeightRe.MatchString(msg):
		if n, err := strconv.Atoi(flaggerWeightRe.FindStringSubmatch(msg)[1]); err == nil {
			l.Kind, l.Count = TrafficWeight, n
		}
	case flaggerPrimaryWeightRe.MatchString(msg):
		if n, err := strconv.Atoi(flaggerPrimaryWeightRe.FindStringSubmatch(msg)[1]); err == nil && n <= 100 {
			l.Kind, l.Count = TrafficWeight, 100-n
		}
	case strings.HasPrefix(msg, flaggerAllToPrimary):
		l.Kind, l.Count = TrafficWeight, 0
	case strings.HasPrefix(msg, flaggerAllToCanary):
		l.Kind, l.Count = TrafficWeight, 100
	case strings.HasPrefix(msg, flaggerPromoted):
		l.Kind = RolloutCompleted
	case strings.HasPrefix(msg, flaggerRollingBack), strings.HasPrefix(msg, flaggerFailed):
		l.Kind = RolloutAborted
	}
}

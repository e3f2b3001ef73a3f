package correlate

import (
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// TriggerKind says what deleted a pod.
type TriggerKind uint8

// Triggers of a pod's deletion.
const (
	// TriggerUnknown: no record says.
	TriggerUnknown TriggerKind = iota
	// TriggerRollout: a rollout replaced it.
	TriggerRollout
	// TriggerNodeDrain: its node was drained (kubectl drain, an autoscaler's
	// scale-down, Karpenter, a spot interruption) or the pod was evicted.
	TriggerNodeDrain
	// TriggerScaleIn: its workload was scaled in (an autoscaler, or a
	// ReplicaSet scaled down without a new one).
	TriggerScaleIn
)

var triggerNames = [...]string{"unknown", "rollout", "node_drain", "scale_in"}

// String names the trigger as the JSON contract does.
func (k TriggerKind) String() string {
	if int(k) < len(triggerNames) {
		return triggerNames[k]
	}
	return "unknown"
}

// Trigger is what deleted a pod, and the record that says so.
type Trigger struct {
	Kind TriggerKind
	// Rollout is the rollout of a TriggerRollout.
	Rollout *Rollout
	// Node is the drained node of a TriggerNodeDrain.
	Node string
	// Event is the record that names the drain, eviction or scale-in.
	Event *sources.Lifecycle
}

// Key identifies the episode the trigger belongs to: pods deleted by one
// rollout, one node's drain or one scale-in share it.
func (t Trigger) Key() string {
	switch t.Kind {
	case TriggerRollout:
		return "rollout/" + t.Rollout.ID()
	case TriggerNodeDrain:
		return "node/" + t.Node
	case TriggerScaleIn:
		if t.Event != nil {
			return "scale-in/" + t.Event.Object + "/" + t.Event.Time.String()
		}
	}
	return ""
}

// How far a deletion's cause may precede it.
const (
	// drainLookback: cordoning to the eviction of a node's last pod; a
	// drain evicts pod by pod and respects disruption budgets, the
	// cluster-autoscaler waits for pods up to its max-graceful-termination
	// (600 s).
	drainLookback = 10 * time.Minute
	// evictionLookback: an eviction event and the pod's termination are
	// recorded within seconds of each other.
	evictionLookback = time.Minute
	// scaleInLookback: an autoscaler's new size reaches the ReplicaSet
	// within a sync period (15 s) and its pods are deleted at once.
	scaleInLookback = time.Minute
)

// TriggerOf says what deleted backend b, which began terminating at term:
// the rollout it was replaced by, its node's drain or its eviction, or a
// scale-in of its workload.
func (a *Analysis) TriggerOf(b *Backend, term time.Time) Trigger {
	if b == nil {
		return Trigger{}
	}
	if r := a.rolloutOf(b, term); r != nil && r.RoleOf(b) == RoleOld {
		return Trigger{Kind: TriggerRollout, Rollout: r}
	}
	if term.IsZero() {
		return Trigger{}
	}
	skew := a.Opts.Skew
	for _, l := range a.EventsBetween(term.Add(-evictionLookback), term.Add(skew), sources.PodEvicted) {
		if l.Pod == b.Pod && (l.Namespace == "" || l.Namespace == b.Namespace) {
			return Trigger{Kind: TriggerNodeDrain, Node: b.Node, Event: l}
		}
	}
	if b.Node != "" {
		if ls := a.EventsBetween(term.Add(-drainLookback), term.Add(skew), sources.NodeDraining); len(ls) > 0 {
			for i := len(ls) - 1; i >= 0; i-- {
				if ls[i].Node == b.Node {
					return Trigger{Kind: TriggerNodeDrain, Node: b.Node, Event: ls[i]}
				}
			}
		}
	}
	var rescaled []*sources.Lifecycle
	for _, l := range a.EventsBetween(term.Add(-scaleInLookback), term.Add(skew), sources.Rescaled, sources.ScaledDown) {
		if l.Namespace != "" && b.Namespace != "" && l.Namespace != b.Namespace {
			continue
		}
		switch {
		case l.Kind == sources.ScaledDown && l.Group == b.ReplicaSet:
			return Trigger{Kind: TriggerScaleIn, Event: l}
		case l.Kind == sources.Rescaled && b.Workload != "" && strings.TrimPrefix(l.Object, "HorizontalPodAutoscaler/") == b.Workload:
			return Trigger{Kind: TriggerScaleIn, Event: l}
		case l.Kind == sources.Rescaled:
			rescaled = append(rescaled, l)
		}
	}
	// An autoscaler is often named apart from its Deployment: one that
	// alone rescaled in the namespace then is the one.
	if len(rescaled) == 1 {
		return Trigger{Kind: TriggerScaleIn, Event: rescaled[0]}
	}
	return Trigger{}
}

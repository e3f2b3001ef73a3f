package correlate

import (
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
			return "scale-in/" + t.Event.Origin.String()
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
		ls := a.EventsBetween(term.Add(-drainLookback), term.Add(skew), sources.NodeDraining)
		for i := len(ls) - 1; i >= 0; i-- {
			if ls[i].Node == b.Node {
				return Trigger{Kind: TriggerNodeDrain, Node: b.Node, Event: ls[i]}
			}
		}
	}
	if e := a.scaleInBefore(term.Add(skew), b.Namespace, b.ReplicaSet); e != nil {
		return Trigger{Kind: TriggerScaleIn, Event: e}
	}
	return Trigger{}
}

// scaleInBefore returns the record of a scale-in shortly before t in the
// namespace: the autoscaler's rescale when there is one (every pod the
// scale-in deleted names the same record, so they group together), else
// the ReplicaSet's scale-down outside any rollout; nil when neither. rs,
// when given, must be the ReplicaSet scaled down.
func (a *Analysis) scaleInBefore(t time.Time, ns, rs string) *sources.Lifecycle {
	var down *sources.Lifecycle
	for _, l := range a.EventsBetween(t.Add(-scaleInLookback), t, sources.Rescaled, sources.ScaledDown) {
		if l.Namespace != "" && ns != "" && l.Namespace != ns {
			continue
		}
		switch {
		case l.Kind == sources.Rescaled:
			return l
		case down == nil && (rs == "" || l.Group == rs) && a.RolloutAt(l.Time) == nil:
			down = l
		}
	}
	return down
}

// TriggerNear says what deleted the pod behind a failure at t when no
// record ties the failing IP to a pod: the node drain, eviction or
// scale-in recorded shortly before t, if exactly one kind of them was.
func (a *Analysis) TriggerNear(t time.Time) Trigger {
	var found []Trigger
	for _, l := range a.EventsBetween(t.Add(-drainLookback), t, sources.NodeDraining, sources.PodEvicted) {
		node := l.Node
		if b := a.Backend(l.Namespace + "/" + l.Pod); l.Pod != "" && b != nil && b.Node != "" {
			node = b.Node
		}
		found = append(found, Trigger{Kind: TriggerNodeDrain, Node: node, Event: l})
	}
	if len(found) == 0 {
		if e := a.scaleInBefore(t, "", ""); e != nil {
			return Trigger{Kind: TriggerScaleIn, Event: e}
		}
		return Trigger{}
	}
	// The latest before t; a drain's key is its node, so the pods of one
	// node group together.
	return found[len(found)-1]
}

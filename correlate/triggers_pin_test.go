package correlate

import (
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestTriggerOfRollout: a pod a rollout replaced was deleted by it, even
// with an eviction recorded beside; a pod the rollout created was not (it
// was deleted later, by something else).
func TestTriggerOfRollout(t *testing.T) {
	old := &Backend{Namespace: "shop", Pod: "web-a-abcde", ReplicaSet: "web-a", Node: "node-a"}
	nu := &Backend{Namespace: "shop", Pod: "web-b-fghij", ReplicaSet: "web-b", Node: "node-a"}
	r := &Rollout{N: 1, Namespace: "shop", Start: at(0), End: at(60),
		New: &ReplicaSet{Namespace: "shop", Name: "web-b", Pods: []*Backend{nu}},
		Old: []*ReplicaSet{{Namespace: "shop", Name: "web-a", Pods: []*Backend{old}}}}
	evicted := sources.Lifecycle{Time: at(25), Kind: sources.PodEvicted, Namespace: "shop", Pod: old.Pod, From: -1, Format: sources.FormatK8sEvents}
	a := &Analysis{Dataset: &Dataset{Lifecycle: []sources.Lifecycle{evicted}}, Rollouts: []*Rollout{r}, Opts: Options{Skew: DefaultSkew}}
	if got := a.TriggerOf(old, at(30)); got.Kind != TriggerRollout || got.Rollout != r {
		t.Errorf("the replaced pod: trigger %s (%+v), want the rollout", got.Kind, got.Rollout)
	}
	if got := a.TriggerOf(nu, at(30)); got.Kind != TriggerUnknown {
		t.Errorf("the new pod: trigger %s, want unknown", got.Kind)
	}
}

// TestTriggerOfEvictionWithoutNamespace: an eviction record that names the
// pod but no namespace (a node-level event) still names the pod's trigger;
// one in another namespace does not.
func TestTriggerOfEvictionWithoutNamespace(t *testing.T) {
	b := &Backend{Namespace: "shop", Pod: "web-a-abcde", ReplicaSet: "web-a", Node: "node-a"}
	for _, tc := range []struct {
		ns   string
		want TriggerKind
	}{{"", TriggerNodeDrain}, {"shop", TriggerNodeDrain}, {"other", TriggerUnknown}} {
		ev := sources.Lifecycle{Time: at(25), Kind: sources.PodEvicted, Namespace: tc.ns, Pod: b.Pod, From: -1, Format: sources.FormatK8sEvents}
		a := &Analysis{Dataset: &Dataset{Lifecycle: []sources.Lifecycle{ev}}, Opts: Options{Skew: DefaultSkew}}
		if got := a.TriggerOf(b, at(30)); got.Kind != tc.want {
			t.Errorf("eviction in namespace %q: trigger %s, want %s", tc.ns, got.Kind, tc.want)
		}
	}
}

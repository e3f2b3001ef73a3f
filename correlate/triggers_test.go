package correlate

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestTriggerLookbacks pins how long before a pod's termination its cause
// may be recorded, in the seconds the constants state: an eviction 60 s
// (evictionLookback), its node's drain 600 s (drainLookback), a scale-in
// 60 s (scaleInLookback) before the termination plus the 3 s skew.
func TestTriggerLookbacks(t *testing.T) {
	b := &Backend{Namespace: "shop", Pod: "web-rs-abcde", ReplicaSet: "web-rs", Node: "node-a"}
	term := at(1000)
	ev := func(before float64, kind sources.LifecycleKind, f func(*sources.Lifecycle)) sources.Lifecycle {
		l := sources.Lifecycle{Time: term.Add(-sec(before)), Kind: kind, Namespace: "shop", From: -1, Format: sources.FormatK8sEvents}
		if f != nil {
			f(&l)
		}
		return l
	}
	evicted := func(l *sources.Lifecycle) { l.Pod = b.Pod }
	onNode := func(node string) func(*sources.Lifecycle) { return func(l *sources.Lifecycle) { l.Node = node } }
	ofRS := func(rs string) func(*sources.Lifecycle) { return func(l *sources.Lifecycle) { l.Group = rs } }
	for _, tc := range []struct {
		name string
		ev   sources.Lifecycle
		want TriggerKind
	}{
		{"eviction 60 s before", ev(60, sources.PodEvicted, evicted), TriggerNodeDrain},
		{"eviction 60.001 s before", ev(60.001, sources.PodEvicted, evicted), TriggerUnknown},
		{"drain of its node 600 s before", ev(600, sources.NodeDraining, onNode("node-a")), TriggerNodeDrain},
		{"drain of its node 600.001 s before", ev(600.001, sources.NodeDraining, onNode("node-a")), TriggerUnknown},
		{"drain of another node", ev(10, sources.NodeDraining, onNode("node-b")), TriggerUnknown},
		{"its ReplicaSet scaled down 57 s before", ev(57, sources.ScaledDown, ofRS("web-rs")), TriggerScaleIn},
		{"its ReplicaSet scaled down 57.001 s before", ev(57.001, sources.ScaledDown, ofRS("web-rs")), TriggerUnknown},
		{"another ReplicaSet scaled down", ev(10, sources.ScaledDown, ofRS("api-rs")), TriggerUnknown},
		{"an autoscaler's rescale 57 s before", ev(57, sources.Rescaled, nil), TriggerScaleIn},
		{"a rescale in another namespace", ev(10, sources.Rescaled, func(l *sources.Lifecycle) { l.Namespace = "other" }), TriggerUnknown},
	} {
		a := &Analysis{Dataset: &Dataset{Lifecycle: []sources.Lifecycle{tc.ev}}, Opts: Options{Skew: DefaultSkew}}
		if got := a.TriggerOf(b, term); got.Kind != tc.want {
			t.Errorf("%s: trigger %s, want %s", tc.name, got.Kind, tc.want)
		}
	}
	if got := (&Analysis{Dataset: &Dataset{}}).TriggerOf(b, term); got.Kind != TriggerUnknown {
		t.Errorf("no records: %s", got.Kind)
	}
	if got := (&Analysis{Dataset: &Dataset{}}).TriggerOf(nil, term); got.Kind != TriggerUnknown {
		t.Errorf("no backend: %s", got.Kind)
	}
	if got := TriggerKind(len(triggerNames)).String(); got != "unknown" {
		t.Errorf("a trigger past the names is %q", got)
	}
}

// TestTriggerNear pins the drain lookback (600 s) for a failure no record
// ties to a pod, and that the latest drain wins.
func TestTriggerNear(t *testing.T) {
	fail := at(1000)
	drain := func(before float64, node string) sources.Lifecycle {
		return sources.Lifecycle{Time: fail.Add(-sec(before)), Kind: sources.NodeDraining, Node: node, From: -1, Format: sources.FormatK8sEvents}
	}
	for _, tc := range []struct {
		evs  []sources.Lifecycle
		want string
	}{
		{[]sources.Lifecycle{drain(600, "node-a")}, "node/node-a"},
		{[]sources.Lifecycle{drain(600.001, "node-a")}, ""},
		{[]sources.Lifecycle{drain(300, "node-a"), drain(200, "node-b")}, "node/node-b"},
		{[]sources.Lifecycle{{Time: fail.Add(-sec(30)), Kind: sources.ScaledDown, Group: "web-rs", From: -1, Origin: sources.Origin{File: "events.json", Line: 4}}}, "scale-in/events.json:4"},
	} {
		a := &Analysis{Dataset: &Dataset{Lifecycle: tc.evs}, byKey: map[string]*Backend{}}
		if got := a.TriggerNear(fail).Key(); got != tc.want {
			t.Errorf("%v: trigger %q, want %q", tc.evs, got, tc.want)
		}
	}
}

// sec is x seconds as a duration.
func sec(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

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

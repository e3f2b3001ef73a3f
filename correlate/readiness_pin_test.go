package correlate

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestInferReadyNotFromAnEmptyNewReplicaSet checks that a scale-down of
// the old pods while the new ReplicaSet had none says nothing of its
// pods, though the budget (two replicas, maxUnavailable 1, one old pod
// left) needs none available: a pod it made before it was scaled to zero
// (whose Killing the events lost) was not among those the controller
// counted.
func TestInferReadyNotFromAnEmptyNewReplicaSet(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	col := NewCollector()
	two := 2
	col.Config(&sources.Config{Kind: "Deployment", Namespace: "shop", Name: "web",
		Workload: &sources.Workload{Replicas: &two, MaxSurge: "1", MaxUnavailable: "1"}})
	ev := func(s int, kind sources.LifecycleKind, pod, group string, from, count int) {
		col.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Pod: pod, Group: group, From: from, Count: count,
			Object: "Deployment/web", Format: sources.FormatK8sEvents})
	}
	ev(-60, sources.PodCreated, "web-old-x1", "", 0, 0)
	ev(-60, sources.PodCreated, "web-old-x2", "", 0, 0)
	ev(2, sources.ScaledUp, "", "web-new", 0, 1)
	ev(2, sources.PodCreated, "web-new-aaaaa", "", 0, 0)
	ev(5, sources.ScaledDown, "", "web-new", 1, 0)
	ev(10, sources.ScaledDown, "", "web-old", 2, 1)
	ev(10, sources.Killing, "web-old-x1", "", 0, 0)
	ev(20, sources.ScaledDown, "", "web-old", 1, 0)
	ev(20, sources.Killing, "web-old-x2", "", 0, 0)
	a := Analyze(Merge(col), Options{})
	if len(a.Rollouts) != 1 || a.Rollouts[0].New.Name != "web-new" {
		t.Fatalf("%d rollouts, want one to web-new", len(a.Rollouts))
	}
	b := a.Backend("shop/web-new-aaaaa")
	if b == nil {
		t.Fatal("no backend web-new-aaaaa")
	}
	if b.ReadyBy != nil {
		t.Errorf("web-new-aaaaa Ready by %v, want nothing inferred", b.ReadyBy.Time.Sub(start))
	}
}

package correlate

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestInferReady runs a two-pod rollout (old ReplicaSet web-old, new
// web-new, pods a then b) through the Deployment's scaling events: with
// maxUnavailable 0 each scale-down of the old pods says every new pod then
// there was Ready by then, less minReadySeconds (never before the pod
// began); with maxUnavailable 1 neither says which new pod was available;
// a pod created in the moment of the scale-down and a pod with a Ready
// record get nothing, nor does any pod from a scale-down before an event
// gave the new ReplicaSet's size, or in a Recreate rollout.
func TestInferReady(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	type want struct{ a, b time.Time }
	for _, c := range []struct {
		name           string
		maxUnavailable string
		strategy       string
		minReady       int
		upFirst        bool // the second scale-up is listed before the scale-down of its second
		noFirstUp      bool // no event says the new ReplicaSet grew to one pod
		readyA         bool
		want           want
	}{
		{name: "maxUnavailable 0", maxUnavailable: "0", want: want{at(10), at(20)}},
		{name: "minReadySeconds", maxUnavailable: "0", minReady: 5, want: want{at(5), at(15)}},
		{name: "minReadySeconds before the pod began", maxUnavailable: "0", minReady: 12, want: want{at(8), time.Time{}}},
		{name: "maxUnavailable 1", maxUnavailable: "1"},
		{name: "default 25% of 2 is 0", want: want{at(10), at(20)}},
		{name: "scale-up listed first", maxUnavailable: "0", upFirst: true, want: want{at(10), at(20)}},
		{name: "new size unknown", maxUnavailable: "0", noFirstUp: true, want: want{at(20), at(20)}},
		{name: "a Ready record", maxUnavailable: "0", readyA: true, want: want{time.Time{}, at(20)}},
		{name: "Recreate", strategy: "Recreate", maxUnavailable: "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			col := NewCollector()
			two := 2
			col.Config(&sources.Config{Kind: "Deployment", Namespace: "shop", Name: "web",
				Workload: &sources.Workload{Replicas: &two, MaxSurge: "1", MaxUnavailable: c.maxUnavailable, Strategy: c.strategy, MinReadySeconds: c.minReady}})
			ev := func(s int, kind sources.LifecycleKind, pod, group string, from, count int) {
				col.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Pod: pod, Group: group, From: from, Count: count,
					Object: "Deployment/web", Format: sources.FormatK8sEvents})
			}
			ev(-60, sources.PodCreated, "web-old-x1", "", 0, 0)
			ev(-60, sources.PodCreated, "web-old-x2", "", 0, 0)
			if !c.noFirstUp {
				ev(2, sources.ScaledUp, "", "web-new", 0, 1)
			}
			ev(2, sources.PodCreated, "web-new-aaaaa", "", 0, 0)
			if c.readyA {
				ev(7, sources.PodReady, "web-new-aaaaa", "", 0, 0)
			}
			if c.upFirst {
				ev(10, sources.ScaledUp, "", "web-new", 1, 2)
			}
			ev(10, sources.ScaledDown, "", "web-old", 2, 1)
			ev(10, sources.Killing, "web-old-x1", "", 0, 0)
			if !c.upFirst {
				ev(10, sources.ScaledUp, "", "web-new", 1, 2)
			}
			ev(10, sources.PodCreated, "web-new-bbbbb", "", 0, 0)
			ev(20, sources.ScaledDown, "", "web-old", 1, 0)
			ev(20, sources.Killing, "web-old-x2", "", 0, 0)
			a := Analyze(Merge(col), Options{})
			if len(a.Rollouts) != 1 {
				t.Fatalf("%d rollouts", len(a.Rollouts))
			}
			got := func(pod string) time.Time {
				if b := a.Backend("shop/" + pod); b != nil && b.ReadyBy != nil {
					return b.ReadyBy.Time
				}
				return time.Time{}
			}
			if a, b := got("web-new-aaaaa"), got("web-new-bbbbb"); !a.Equal(c.want.a) || !b.Equal(c.want.b) {
				t.Errorf("Ready by %v and %v, want %v and %v", a, b, c.want.a, c.want.b)
			}
		})
	}
}

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

package correlate

import (
	"fmt"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestArgoBlueGreenRollout: an Argo Rollout's own events make a rollout of
// kind Rollout: its ScalingReplicaSet events name the ReplicaSets, its
// Service switch and completion are the rollout's steps, and the records
// of another Rollout, another namespace or after the lookahead are not.
func TestArgoBlueGreenRollout(t *testing.T) {
	c := NewCollector()
	ev := func(s float64, kind sources.LifecycleKind, ns, object string, f func(*sources.Lifecycle)) {
		l := &sources.Lifecycle{Time: at(s), Kind: kind, Namespace: ns, Object: object, From: -1, Format: sources.FormatK8sEvents, FromAPI: true}
		if f != nil {
			f(l)
		}
		c.Lifecycle(l)
	}
	scale := func(s float64, kind sources.LifecycleKind, rs string, from, to int) {
		ev(s, kind, "shop", "Rollout/web", func(l *sources.Lifecycle) { l.Group, l.From, l.Count = rs, from, to })
	}
	scale(10, sources.ScaledUp, "web-7fdb8fff6b", 0, 3)
	ev(40, sources.ServiceSwitched, "shop", "Rollout/web", func(l *sources.Lifecycle) {
		l.Group, l.Previous, l.Status = "web-active", "56b5dc5bc", "7fdb8fff6b"
	})
	ev(40, sources.RolloutCompleted, "shop", "Rollout/web", nil)
	ev(41, sources.ServiceSwitched, "shop", "Rollout/api", nil)
	ev(42, sources.ServiceSwitched, "other", "Rollout/web", nil)
	scale(70, sources.ScaledDown, "web-56b5dc5bc", 3, 0)
	ev(70+rolloutLookahead.Seconds()+1, sources.RolloutAborted, "shop", "Rollout/web", nil)
	a := Analyze(Merge(c), Options{})
	if len(a.Rollouts) != 1 {
		t.Fatalf("%d rollouts, want 1", len(a.Rollouts))
	}
	r := a.Rollouts[0]
	got := fmt.Sprintf("%s new=%s old=%v %v..%v", r.WorkloadRef(), r.New.Name, r.OldNames(), r.Start.Sub(t0), r.End.Sub(t0))
	if want := "Rollout/web new=web-7fdb8fff6b old=[web-56b5dc5bc] 10s..1m10s"; got != want {
		t.Errorf("rollout %s, want %s", got, want)
	}
	var steps []string
	for _, l := range r.Steps {
		steps = append(steps, fmt.Sprintf("%v %s", l.Time.Sub(t0), l.Kind))
	}
	if got, want := fmt.Sprint(steps), "[10s scaled_up 40s service_switched 40s rollout_completed 1m10s scaled_down]"; got != want {
		t.Errorf("steps %s, want %s", got, want)
	}
	if n := len(r.StepsBetween(at(40), at(40), sources.ServiceSwitched)); n != 1 {
		t.Errorf("%d switches at 40 s, want 1", n)
	}
}

// TestFlaggerCanarySteps: a Flagger Canary's events belong to the rollout
// of its -primary Deployment, which they name as the Canary.
func TestFlaggerCanarySteps(t *testing.T) {
	c := NewCollector()
	scale := func(s float64, kind sources.LifecycleKind, rs string, from, to int) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "test", Group: rs, Object: "Deployment/podinfo-primary",
			From: from, Count: to, Format: sources.FormatK8sEvents})
	}
	scale(10, sources.ScaledUp, "podinfo-primary-6b7c8d9f5", 0, 2)
	c.Lifecycle(&sources.Lifecycle{Time: at(12), Kind: sources.TrafficWeight, Namespace: "test", Object: "Canary/podinfo", Count: 0, From: -1, Format: sources.FormatK8sEvents})
	scale(20, sources.ScaledDown, "podinfo-primary-5d4c3b2a1", 2, 0)
	a := Analyze(Merge(c), Options{})
	if len(a.Rollouts) != 1 || len(a.Rollouts[0].Steps) != 1 || a.Rollouts[0].WorkloadRef() != "Canary/podinfo" {
		t.Fatalf("rollouts %+v", a.Rollouts)
	}
}

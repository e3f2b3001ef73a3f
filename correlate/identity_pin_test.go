package correlate

import (
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestPodLivesFromAClosedGate checks that a closed readiness gate tells
// of a pod's start, and that an opened one, which may come long after,
// does not.
func TestPodLivesFromAClosedGate(t *testing.T) {
	gate := func(s float64, pod string, g sources.GateState) sources.Lifecycle {
		return sources.Lifecycle{Time: at(s), Kind: sources.ReadinessGate, Namespace: "shop", Pod: pod, Gate: g, Format: sources.FormatK8sEvents}
	}
	d := &Dataset{Lifecycle: []sources.Lifecycle{gate(10, "web-a", sources.GateWaiting), gate(20, "web-b", sources.GateLBHealthy)}}
	s := &backendSet{byKey: map[string]*Backend{}, templates: map[string]*sources.PodSpec{}, deployments: map[string]string{}}
	m := podLives(d, s)
	if got := m[s.lookup("shop", "web-a")].born; !got.Equal(at(10)) {
		t.Errorf("closed gate at 10 s: born %g s, want 10 s", got.Sub(t0).Seconds())
	}
	if got := m[s.lookup("shop", "web-b")].born; !got.IsZero() {
		t.Errorf("opened gate at 20 s: born %g s, want unknown", got.Sub(t0).Seconds())
	}
}

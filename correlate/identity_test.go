package correlate

import (
	"net/netip"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestLeaseEndsWithTheGracePeriod checks that a terminating pod holds its
// IP for its grace period: the one its ReplicaSet's template states when
// no pod object gives one, and the Kubernetes default when none does or a
// spec leaves it unset.
func TestLeaseEndsWithTheGracePeriod(t *testing.T) {
	ip := netip.MustParseAddr("10.0.20.143")
	holder := func(s float64, extra ...*sources.Config) string {
		d := reuseDataset()
		d.Configs = append(d.Configs, extra...)
		a := Analyze(d, Options{})
		if l := a.Identities.At(ip, at(s)); l != nil {
			return l.Backend.Pod
		}
		return ""
	}
	template := func(grace int) *sources.Config {
		return &sources.Config{Kind: "ReplicaSet", Namespace: "api", Name: "web-7c9f8d6b5d", Format: sources.FormatK8sObjects,
			Workload: &sources.Workload{Template: &sources.PodSpec{TerminationGracePeriodSec: grace}}}
	}
	// Killing at 100 s: a 150 s grace period covers 200 s, the default
	// (30 s) covers 115 s and not 200 s.
	old := "web-7c9f8d6b5d-olda1"
	for _, tc := range []struct {
		name  string
		at    float64
		extra []*sources.Config
		want  string
	}{
		{"a 150 s grace period in the template", 200, []*sources.Config{template(150)}, old},
		{"the template's grace period unset", 115, []*sources.Config{template(0)}, old},
		{"the template's grace period unset", 200, []*sources.Config{template(0)}, ""},
		{"no objects", 115, nil, old},
		{"no objects", 200, nil, ""},
	} {
		if got := holder(tc.at, tc.extra...); got != tc.want {
			t.Errorf("with %s, at %v s the IP is %q, want %q", tc.name, tc.at, got, tc.want)
		}
	}
}

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

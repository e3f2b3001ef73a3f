package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestSettleFixFloor: minReadySeconds is the start-to-listen time plus
// 5 s (settleMargin), rounded up, and never below 10 s (minSettle).
func TestSettleFixFloor(t *testing.T) {
	for listen, want := range map[time.Duration]string{
		0:                       "minReadySeconds 10 ",
		2 * time.Second:         "minReadySeconds 10 ",
		5 * time.Second:         "minReadySeconds 10 ",
		5100 * time.Millisecond: "minReadySeconds 11 ",
		7 * time.Second:         "minReadySeconds 12 ",
	} {
		if got := settleFix(workload{Namespace: "shop", Name: "web"}, listen).Why; !strings.Contains(got, want) {
			t.Errorf("listening after %v: %q, want %q", listen, got, want)
		}
	}
}

// TestServingContainer: the first regular container that declares a
// served port, with the lowest it declares; when none does, the first
// regular container and the lowest served port.
func TestServingContainer(t *testing.T) {
	ports := func(ns ...int) []sources.ContainerPort {
		var out []sources.ContainerPort
		for _, n := range ns {
			out = append(out, sources.ContainerPort{Number: n})
		}
		return out
	}
	cfg := &sources.Config{}
	served := map[int]*sources.Config{80: cfg, 8080: cfg, 8081: cfg}
	spec := &sources.PodSpec{Containers: []sources.Container{
		{Name: "proxy", Sidecar: true, Ports: ports(80)},
		{Name: "metrics", Ports: ports(9000)},
		{Name: "app", Ports: ports(8081, 8080)},
	}}
	if c, p := servingContainer(spec, served); c == nil || c.Name != "app" || p != 8080 {
		t.Errorf("servingContainer = %v, %d; want app, 8080", c, p)
	}
	spec.Containers[2].Ports = ports(9001)
	if c, p := servingContainer(spec, served); c == nil || c.Name != "metrics" || p != 80 {
		t.Errorf("no container declares a served port: %v, %d; want metrics, 80", c, p)
	}
}

// TestStartToListenOfAnUntiedIP: an IP no record ties to a pod joined no
// earlier than the last new pod that could have been Ready before its
// first failure (started at 0 s, 4 s of initial delay: 4 s); it listened
// at its last failure, 20 s.
func TestStartToListenOfAnUntiedIP(t *testing.T) {
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	pod := &correlate.Backend{Pod: "web-b-abcde", Spec: &sources.PodSpec{Containers: []sources.Container{{Name: "app", Readiness: &sources.Probe{InitialDelaySec: 4}}}}}
	pod.Moments[correlate.Started] = &correlate.Moment{Time: base}
	r := &correlate.Rollout{New: &correlate.ReplicaSet{Pods: []*correlate.Backend{pod}}}
	refs := []BackendRef{{Start: base.Add(10 * time.Second), End: base.Add(20 * time.Second)}}
	if got := startToListen(refs, r); got != 16*time.Second {
		t.Errorf("startToListen = %v, want 16s", got)
	}
}

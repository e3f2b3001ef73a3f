package classify

import (
	"net/netip"
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/correlate"
)

// TestSlowPropagationKeepsEachPodRunWhole is the verdict test of a
// termination race read from an Envoy gateway's logs alone while its
// control plane took 10-20 s to push endpoint changes
// (fixtures/envoy-gateway-slow-propagation-lb-only): the first old pod
// refuses from the rollout's first second, long before any new pod serves
// or any old IP goes quiet. The rollout the traffic shows must start no
// later than the first failure, and the race must be one incident holding
// every pod's run whole, at the truth's count and window per pod (before,
// the rollout started at the first old IP's last failure, and each pod's
// first seconds of refusals were an incident of their own). The control
// (…-fixed-lb-only, a 35 s preStop sleep) is silent.
func TestSlowPropagationKeepsEachPodRunWhole(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "envoy-gateway-slow-propagation-lb-only")
	for _, p := range checkVerdicts(t, dir) {
		t.Error(p)
	}
	tr := readTruth(t, dir)
	_, findings := analyzeDir(t, dir)
	if len(findings) != 1 || len(tr.Incidents) != 1 || findings[0].Cause != terminationRaceCause.ID {
		t.Fatalf("%d findings, want one termination race", len(findings))
	}
	f, w := findings[0], tr.Incidents[0]
	if r := f.Rollout; r == nil || r.How != correlate.FoundByTraffic || r.Start.After(w.Start) {
		t.Errorf("rollout %+v, want one found by traffic starting by the first failure at %s", r, w.Start)
	}
	for _, p := range w.Pods {
		found := false
		for _, b := range f.Backends {
			if b.IP != netip.MustParseAddr(p.IP) {
				continue
			}
			found = true
			if b.Requests != p.FailedRequests || b.Start.Sub(p.Start).Abs() > windowSlack || b.End.Sub(p.End).Abs() > windowSlack {
				t.Errorf("%s (%s): %d failed %s–%s, want %d failed %s–%s", p.IP, p.Pod, b.Requests, b.Start, b.End, p.FailedRequests, p.Start, p.End)
			}
		}
		if !found {
			t.Errorf("%s (%s, %d failed) not in the incident", p.IP, p.Pod, p.FailedRequests)
		}
	}
	control := filepath.Join("..", "fixtures", "envoy-gateway-slow-propagation-fixed-lb-only")
	if _, findings := analyzeDir(t, control); len(findings) != 0 || len(readTruth(t, control).Incidents) != 0 {
		t.Errorf("control: %d findings, want none", len(findings))
	}
}

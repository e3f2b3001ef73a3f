package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestShareAlike pins what a bare IP takes from the pods it may be: their
// ReplicaSet, role and rollout only when all agree, and each milestone
// only when every pod reached it within the tolerated skew of the others.
func TestShareAlike(t *testing.T) {
	const skew = 3 * time.Second // DefaultSkew
	r := &Rollout{}
	pod := func(name, rs string, terminating time.Duration) *Backend {
		b := &Backend{Pod: name, ReplicaSet: rs, Workload: "web", Role: RoleOld, Rollout: r}
		b.Moments[Created] = &Moment{Time: t0}
		b.Moments[Terminating] = &Moment{Time: t0.Add(terminating)}
		return b
	}
	bare := func(pods ...*Backend) *Analysis {
		b := &Backend{IPs: []netip.Addr{netip.MustParseAddr("10.0.1.5")}, Alike: pods}
		own := &Moment{Time: t0.Add(time.Second)}
		b.Moments[Created] = own
		return &Analysis{Backends: []*Backend{b}, Opts: Options{Skew: skew}}
	}

	a := bare(pod("web-1", "web-rs1", time.Minute), pod("web-2", "web-rs1", time.Minute+skew))
	a.shareAlike()
	b := a.Backends[0]
	if b.ReplicaSet != "web-rs1" || b.Workload != "web" || b.Role != RoleOld || b.Rollout != r {
		t.Errorf("agreeing pods: ReplicaSet %q workload %q role %v rollout %p, want theirs", b.ReplicaSet, b.Workload, b.Role, b.Rollout)
	}
	if !b.At(Terminating).Equal(t0.Add(time.Minute)) {
		t.Errorf("terminations exactly the skew apart: %v, want the earliest", b.At(Terminating))
	}
	if !b.At(Created).Equal(t0.Add(time.Second)) {
		t.Errorf("the IP's own creation was replaced: %v", b.At(Created))
	}
	if !b.At(Ready).IsZero() {
		t.Errorf("a milestone no pod reached: %v", b.At(Ready))
	}

	a = bare(pod("web-1", "web-rs1", time.Minute), pod("web-2", "web-rs2", time.Minute+skew+time.Millisecond))
	a.shareAlike()
	b = a.Backends[0]
	if b.ReplicaSet != "" || b.Rollout != nil {
		t.Errorf("pods of two ReplicaSets gave %q", b.ReplicaSet)
	}
	if !b.At(Terminating).IsZero() {
		t.Errorf("terminations more than the skew apart gave %v", b.At(Terminating))
	}

	p2 := pod("web-2", "web-rs1", time.Minute)
	p2.Moments[Terminating] = nil
	a = bare(pod("web-1", "web-rs1", time.Minute), p2)
	a.shareAlike()
	if got := a.Backends[0].At(Terminating); !got.IsZero() {
		t.Errorf("a milestone one pod lacks gave %v", got)
	}

	// A backend with a pod takes nothing.
	named := &Backend{Pod: "web-3", Alike: []*Backend{pod("web-1", "web-rs1", time.Minute)}}
	a = &Analysis{Backends: []*Backend{named}, Opts: Options{Skew: skew}}
	a.shareAlike()
	if named.ReplicaSet != "" || !named.At(Terminating).IsZero() {
		t.Errorf("a pod took its alike IPs' facts: %q %v", named.ReplicaSet, named.At(Terminating))
	}
}

// TestGroupOutlivingItsLeaseIsBare checks that an IP whose failures of one
// second outlive its pod's lease within that second is a bare backend, as
// each failure checked alone made it: the group's earliest record falls in
// the lease, its latest after it. Failures wholly within the lease leave
// the IP to the pod.
func TestGroupOutlivingItsLeaseIsBare(t *testing.T) {
	ip := netip.MustParseAddr("10.0.0.1")
	for _, tc := range []struct {
		name string
		secs []float64
		bare bool
	}{
		{"the latest failure after the pod's end", []float64{10.2, 10.8}, true},
		{"every failure before it", []float64{10.2, 10.4}, false},
	} {
		// The pod began terminating at 0.5 s with a grace period of 7 s:
		// it held the IP until 7.5 s, which covers the records up to 10.5 s
		// with the clock skew tolerated (DefaultSkew, 3 s).
		c := NewCollector()
		c.Config(&sources.Config{Kind: "Pod", Name: "web-a", Namespace: "shop", Format: sources.FormatK8sObjects,
			Pod: &sources.PodStatus{}, PodSpec: &sources.PodSpec{TerminationGracePeriodSec: 7}})
		c.Lifecycle(&sources.Lifecycle{Time: at(0.5), Kind: sources.Killing, Namespace: "shop", Pod: "web-a", IP: ip, Format: sources.FormatK8sEvents, From: -1})
		for _, s := range tc.secs {
			c.Request(&sources.Request{Time: at(s), Status: 502, Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
				Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
		}
		d := Merge(c)
		if len(d.Failures) != 1 || d.Failures[0].N != len(tc.secs) {
			t.Fatalf("%s: %d groups, want one of %d", tc.name, len(d.Failures), len(tc.secs))
		}
		if a := Analyze(d, Options{}); (a.Backend(ip.String()) != nil) != tc.bare {
			t.Errorf("%s: bare backend %v, want %v", tc.name, a.Backend(ip.String()) != nil, tc.bare)
		}
	}
}

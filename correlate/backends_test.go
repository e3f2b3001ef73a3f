package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestServedAndLastSent checks what a backend's lane is drawn from on an
// IP two pods held in turn: each pod's responses within its own lease
// (the old pod's last is not the new one's), and the old pod's last
// request the load balancer still sent it, a refused one after its last
// response and its deregistration; a refusal once its grace period was
// over went to no pod and does not count.
func TestServedAndLastSent(t *testing.T) {
	c := NewCollector()
	ip := netip.MustParseAddr("10.0.20.143")
	other := netip.MustParseAddr("10.0.33.9")
	serve := func(addr netip.Addr, from, to float64) {
		for s := from; s <= to; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(addr, 8080), Format: sources.FormatALBAccess})
		}
	}
	refused := func(s float64) {
		c.Request(&sources.Request{Time: at(s), Status: 502, Failure: sources.FailureRefused, Generator: sources.GeneratedByLB,
			Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
	}
	serve(ip, 0, 100)
	serve(ip, 301, 400)
	serve(other, 0, 400)
	for s := 100.5; s <= 106; s += 0.5 {
		refused(s)
	}
	refused(135) // 35 s after Killing: past the default 30 s of termination
	ev := func(s float64, kind sources.LifecycleKind, pod string, addr netip.Addr) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "api", Pod: pod, IP: addr, Format: sources.FormatK8sEvents, From: -1, FromAPI: true})
	}
	ev(100, sources.Killing, "web-7c9f8d6b5d-olda1", ip)
	ev(102, sources.TargetDeregistering, "", ip)
	ev(298, sources.PodReady, "web-5f4d9c8b7a-newb2", ip)
	a := Analyze(Merge(c), Options{})
	old, fresh := a.Backend("api/web-7c9f8d6b5d-olda1"), a.Backend("api/web-5f4d9c8b7a-newb2")
	if old == nil || fresh == nil {
		t.Fatalf("backends %v %v", old, fresh)
	}
	secs := func(tm time.Time) float64 {
		if tm.IsZero() {
			return -1
		}
		return tm.Sub(t0).Seconds()
	}
	for _, x := range []struct {
		what      string
		got, want float64
	}{
		{"old pod's first response", secs(old.FirstServed), 0},
		{"old pod's last response", secs(old.LastServed), 100},
		{"old pod's last request", secs(old.LastSent), 106},
		{"new pod's first response", secs(fresh.FirstServed), 301},
		{"new pod's last response", secs(fresh.LastServed), 400},
		{"new pod's last request", secs(fresh.LastSent), 400},
	} {
		if x.got != x.want {
			t.Errorf("%s at %v s, want %v s", x.what, x.got, x.want)
		}
	}
	// The refusal at 135 s found the IP held by nobody the records know,
	// long after its last response: sent to a backend already gone.
	bare := a.Backend(ip.String())
	if bare == nil {
		t.Fatal("no backend for the IP between its holders")
	}
	if !bare.LastSent.IsZero() {
		t.Errorf("the IP between its holders received its last request at %v s, want none: it had gone", secs(bare.LastSent))
	}
}

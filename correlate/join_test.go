package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

var t0 = time.Date(2025, 11, 8, 17, 30, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// TestIPStretches pairs an IP's marks: one change told by the controller
// and the traffic is one mark (the controller's), and a start after a stop
// begins the stretch of the IP's next holder.
func TestIPStretches(t *testing.T) {
	reg := func(s float64) ipMark { return ipMark{at: at(s), start: true, strong: true, why: "registered"} }
	dereg := func(s float64) ipMark {
		return ipMark{at: at(s), strong: true, late: controllerLag, why: "deregistered"}
	}
	first := func(s float64) ipMark { return ipMark{at: at(s), start: true, why: "first served"} }
	last := func(s float64) ipMark { return ipMark{at: at(s), late: joinWindow, why: "last served"} }
	type stretch struct {
		start, stop       float64 // seconds; -1 for none
		startWhy, stopWhy string
	}
	cases := []struct {
		name  string
		marks []ipMark
		want  []stretch
	}{
		{"one holder", []ipMark{first(10), last(100)}, []stretch{{10, 100, "first served", "last served"}}},
		{"controller over traffic", []ipMark{last(104), dereg(100), first(12), reg(10)}, []stretch{{10, 100, "registered", "deregistered"}}},
		{"reused", []ipMark{dereg(100), last(103), reg(350), first(352)}, []stretch{{-1, 100, "", "deregistered"}, {350, -1, "registered", ""}}},
		{"reused, traffic only", []ipMark{last(100), first(350), last(500)}, []stretch{{-1, 100, "", "last served"}, {350, 500, "first served", "last served"}}},
		{"two starts a long way apart", []ipMark{first(10), first(200)}, []stretch{{10, -1, "first served", ""}, {200, -1, "first served", ""}}},
	}
	secs := func(tm time.Time) float64 {
		if tm.IsZero() {
			return -1
		}
		return tm.Sub(t0).Seconds()
	}
	for _, c := range cases {
		got := ipStretches(c.marks)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d stretches, want %d", c.name, len(got), len(c.want))
			continue
		}
		for i, w := range c.want {
			g := got[i]
			if secs(g.start) != w.start || secs(g.stop) != w.stop || g.startWhy != w.startWhy || g.stopWhy != w.stopWhy {
				t.Errorf("%s: stretch %d = %v %q – %v %q, want %v %q – %v %q", c.name, i,
					secs(g.start), g.startWhy, secs(g.stop), g.stopWhy, w.start, w.startWhy, w.stop, w.stopWhy)
			}
		}
	}
}

// reuseDataset is an IP held by two pods in turn, neither named with it:
// old-a serves from before the data, begins terminating at 100 s and is
// deregistered at 101 s; the CNI hands the IP to new-b, registered at 300
// s. Another pod's IP serves throughout.
func reuseDataset() *Dataset {
	c := NewCollector()
	ip := netip.MustParseAddr("10.0.20.143")
	other := netip.MustParseAddr("10.0.33.9")
	serve := func(addr netip.Addr, from, to float64) {
		for s := from; s <= to; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(addr, 8080), Format: sources.FormatALBAccess})
		}
	}
	serve(ip, 0, 100.5)
	serve(ip, 301, 400)
	serve(other, 0, 400)
	ev := func(s float64, kind sources.LifecycleKind, pod string, addr netip.Addr) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "api", Pod: pod, IP: addr, Format: sources.FormatK8sEvents, From: -1})
	}
	ev(100, sources.Killing, "web-7c9f8d6b5d-olda1", netip.Addr{})
	ev(101, sources.TargetDeregistering, "", ip)
	ev(290, sources.PodCreated, "web-5f4d9c8b7a-newb2", netip.Addr{})
	ev(298, sources.PodReady, "web-5f4d9c8b7a-newb2", netip.Addr{})
	ev(300, sources.TargetRegistering, "", ip)
	return Merge(c)
}

// TestJoinsFollowReusedIP checks that each holder of a reused IP is joined
// to its own stretch, the old pod from before the data began to the end of
// its grace period, and that the time between the holders belongs to
// neither.
func TestJoinsFollowReusedIP(t *testing.T) {
	a := Analyze(reuseDataset(), Options{})
	ip := netip.MustParseAddr("10.0.20.143")
	for _, c := range []struct {
		at   float64
		want string
	}{
		{5, "web-7c9f8d6b5d-olda1"},     // before its termination: from before the records
		{100.5, "web-7c9f8d6b5d-olda1"}, // terminating
		{200, ""},                       // past its grace period, before the next holder
		{350, "web-5f4d9c8b7a-newb2"},
	} {
		got := ""
		if l := a.Identities.At(ip, at(c.at)); l != nil {
			got = l.Backend.Pod
		}
		if got != c.want {
			t.Errorf("at %v s the IP is %q, want %q", c.at, got, c.want)
		}
	}
}

// TestPodKnownByItsEndHeldItsIPBefore checks that a pod whose records tell
// only of its end (a probe message naming its IP, then Killing) is the
// IP's holder from before the records began, so its earlier traffic is
// one backend with it, not a bare IP beside it.
func TestPodKnownByItsEndHeldItsIPBefore(t *testing.T) {
	c := NewCollector()
	ip := netip.MustParseAddr("10.244.1.7")
	for s := 0.0; s < 60; s++ {
		c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatIngressNginx})
	}
	c.Lifecycle(&sources.Lifecycle{Time: at(50), Kind: sources.Killing, Namespace: "shop", Pod: "web-abc12-x7k2q", IP: ip, Format: sources.FormatK8sEvents, From: -1})
	a := Analyze(Merge(c), Options{})
	if l := a.Identities.At(ip, at(1)); l == nil || l.Backend.Pod != "web-abc12-x7k2q" {
		t.Fatalf("at 1 s the IP is held by %v, want the pod", l)
	}
	bare := 0
	for _, b := range a.Backends {
		if b.Pod == "" {
			bare++
		}
	}
	if bare != 0 {
		t.Errorf("%d bare-IP backends beside the pod", bare)
	}
	// A pod whose records begin with its start holds the IP from then only.
	c2 := NewCollector()
	c2.Lifecycle(&sources.Lifecycle{Time: at(30), Kind: sources.PodReady, Namespace: "shop", Pod: "web-abc12-r9p0w", IP: ip, Format: sources.FormatK8sEvents, From: -1})
	for s := 0.0; s < 60; s++ {
		c2.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatIngressNginx})
	}
	a2 := Analyze(Merge(c2), Options{})
	if l := a2.Identities.At(ip, at(1)); l != nil {
		t.Errorf("at 1 s, before the pod's Ready at 30 s, the IP is held by %s", l.Backend.Pod)
	}
}

// TestAlikePodsStayAGroup checks three pods of one ReplicaSet that began
// terminating in the same second while three IPs were deregistered in one
// controller line: timing cannot tell which IP was whose, so none is
// joined, the six form one group, and each IP takes the ReplicaSet and the
// termination its pods agree on.
func TestAlikePodsStayAGroup(t *testing.T) {
	c := NewCollector()
	addrs := []netip.Addr{netip.MustParseAddr("10.0.22.191"), netip.MustParseAddr("10.0.27.184"), netip.MustParseAddr("10.0.16.9")}
	for s := 0.0; s < 120; s += 0.5 {
		for _, ip := range addrs {
			if s > 45.5 {
				break // the three stop answering with their pods
			}
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
		}
		c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(netip.MustParseAddr("10.0.33.1"), 8080), Format: sources.FormatALBAccess})
	}
	for _, pod := range []string{"api-5vbc2qzb8k-gwrff", "api-5vbc2qzb8k-qlp64", "api-5vbc2qzb8k-btnbc"} {
		c.Lifecycle(&sources.Lifecycle{Time: at(45), Kind: sources.Killing, Namespace: "api", Pod: pod, Format: sources.FormatK8sEvents, From: -1})
	}
	for _, ip := range addrs {
		c.Lifecycle(&sources.Lifecycle{Time: at(46), Kind: sources.TargetDeregistering, IP: ip, Format: sources.FormatAWSLBC, From: -1})
	}
	a := Analyze(Merge(c), Options{})
	if len(a.Identities.Alike) != 1 || len(a.Identities.Alike[0].Pods) != 3 || len(a.Identities.Alike[0].IPs) != 3 {
		t.Fatalf("alike groups %+v, want one of 3 pods and 3 IPs", a.Identities.Alike)
	}
	for _, ip := range addrs {
		b := a.Backend(ip.String())
		if b == nil || b.Pod != "" || len(b.Alike) != 3 {
			t.Fatalf("%s: backend %+v, want a bare IP alike 3 pods", ip, b)
		}
		if b.ReplicaSet != "api-5vbc2qzb8k" || !b.At(Terminating).Equal(at(45)) {
			t.Errorf("%s: ReplicaSet %q terminating %v, want the pods' api-5vbc2qzb8k and 45 s", ip, b.ReplicaSet, b.At(Terminating))
		}
	}
	// One pod alone would have been joined.
	if l := a.Identities.At(netip.MustParseAddr("10.0.22.191"), at(10)); l != nil {
		t.Errorf("10.0.22.191 joined to %s though two other pods fit it as well", l.Backend.Pod)
	}
}

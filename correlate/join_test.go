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

// servedUntil adds requests that ip answered every step seconds from 0 to
// stop.
func servedUntil(c *Collector, ip netip.Addr, stop, step float64) {
	for s := 0.0; s <= stop; s += step {
		c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
			Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatIngressNginx})
	}
}

// event adds a Kubernetes record about a pod.
func event(c *Collector, s float64, kind sources.LifecycleKind, pod, node string, ip netip.Addr) {
	c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Pod: pod, Node: node, IP: ip,
		Format: sources.FormatK8sEvents, From: -1, FromAPI: true})
}

// holder names the pod the analysis ties ip to at s seconds; "" for none.
func holder(a *Analysis, ip string, s float64) string {
	if l := a.Identities.At(netip.MustParseAddr(ip), at(s)); l != nil {
		return l.Backend.Pod
	}
	return ""
}

// TestJoinsExpectTheLoadBalancersLag: four old pods whose IPs each served
// 3.5 s past their termination (a preStop sleep behind a proxy that syncs
// every few seconds). Expecting no lag, the last two fit either IP about
// as well; the lag the best assignment shows tells them apart.
func TestJoinsExpectTheLoadBalancersLag(t *testing.T) {
	c := NewCollector()
	pods := []string{"web-5fbw5skb9k-aaaaa", "web-5fbw5skb9k-bbbbb", "web-5fbw5skb9k-ccccc", "web-5fbw5skb9k-ddddd"}
	ips := []string{"10.244.1.4", "10.244.2.9", "10.244.3.47", "10.244.1.198"}
	terminating := []float64{10, 20, 30, 34}
	for i := range pods {
		event(c, terminating[i], sources.Killing, pods[i], "", netip.Addr{})
		servedUntil(c, netip.MustParseAddr(ips[i]), terminating[i]+3.5, 0.25)
	}
	servedUntil(c, netip.MustParseAddr("10.244.1.23"), 60, 0.25) // a pod that stays, to the end of the data
	a := Analyze(Merge(c), Options{})
	for i := range pods {
		if got := holder(a, ips[i], terminating[i]); got != pods[i] {
			t.Errorf("%s at %g s is %q, want %s", ips[i], terminating[i], got, pods[i])
		}
	}
}

// TestClueLags pins minLagJoins: a lag rests on three matched pairs of one
// kind of clue, not on two.
func TestClueLags(t *testing.T) {
	stop := cluePair{clueTerminating, clueServed}
	pair := func(lag float64) joinEdge {
		return joinEdge{clues: stop, lag: time.Duration(lag * float64(time.Second))}
	}
	if lags := clueLags([]joinEdge{pair(3), pair(4)}); len(lags) != 0 {
		t.Errorf("two pairs set lags %v", lags)
	}
	if lags := clueLags([]joinEdge{pair(3), pair(9), pair(4)}); lags[stop] != 4*time.Second || len(lags) != 1 {
		t.Errorf("three pairs set lags %v, want their median 4 s", lags)
	}
}

// TestSureJoinsSettleTheirRivals: b fits y, but while b might take x (and
// a z) the alternative costs less than its margin, which y's spacing of 3
// s widens to 5 s; once a is surely x's, nothing is left for b but y.
func TestSureJoinsSettleTheirRivals(t *testing.T) {
	s := time.Second
	edges := []joinEdge{
		{pod: 0, ip: 0, cost: 1 * s},                   // a–x
		{pod: 0, ip: 2, cost: 4 * s},                   // a–z
		{pod: 1, ip: 0, cost: 2500 * time.Millisecond}, // b–x
		{pod: 1, ip: 1, cost: 1 * s, spacing: 3 * s},   // b–y
	}
	joins, doubtful := solveJoins(edges)
	if len(joins) != 2 || len(doubtful) != 0 {
		t.Fatalf("joins %+v, doubtful %+v; want a–x and b–y", joins, doubtful)
	}
	for _, j := range joins {
		if j.pod != j.ip {
			t.Errorf("joined pod %d to IP %d", j.pod, j.ip)
		}
	}
}

// TestSparseIPsAreNotSwapped: pods of a 16-replica rollout, the load
// balancer letting go of each about a second after its termination. Two of
// them began terminating at 56 and 63 s; their IPs answered every 3.6 and
// 2.3 s, and the first pod's IP last answered at 59.5 s, the second's at
// 52.3 s (silent for 11 s before its pod's termination). Timing fits them
// the other way round by 4.6 s, less than joinMargin and the two IPs'
// spacings in quadrature (6.2 s): neither is joined, and they stay a
// group; the others are. With requests every quarter of a second the same
// stops settle it: the margin grows with the IPs' spacing and no further.
func TestSparseIPsAreNotSwapped(t *testing.T) {
	pods := []string{"web-6dttfzs294-dx8cb", "web-6dttfzs294-wwbjm", "web-6dttfzs294-zwdsr", "web-6dttfzs294-7ndnl", "web-6dttfzs294-hfzqp", "web-6dttfzs294-rkwbx"}
	ips := []string{"10.52.0.136", "10.52.0.43", "10.52.0.112", "10.56.1.9", "10.60.1.150", "10.64.0.168"}
	terminating := []float64{56, 63, 71, 20, 30, 40}
	stops := []float64{59.5, 52.3, 72.4, 21.2, 31.1, 41.3}
	for _, c := range []struct {
		name  string
		steps []float64
		want  []string // each IP's holder at its pod's termination
	}{
		{"sparse", []float64{3.6, 2.3, 0.5, 0.5, 0.5, 0.5}, []string{"", "", pods[2], pods[3], pods[4], pods[5]}},
		{"dense", []float64{0.25, 0.25, 0.5, 0.5, 0.5, 0.5}, []string{pods[1], pods[0], pods[2], pods[3], pods[4], pods[5]}},
	} {
		col := NewCollector()
		for i := range pods {
			event(col, terminating[i], sources.Killing, pods[i], "", netip.Addr{})
			for s := stops[i]; s >= 0; s -= c.steps[i] {
				col.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
					Backend: netip.AddrPortFrom(netip.MustParseAddr(ips[i]), 8080), Format: sources.FormatIngressNginx})
			}
		}
		servedUntil(col, netip.MustParseAddr("10.52.0.126"), 120, 0.5) // a pod that stays
		a := Analyze(Merge(col), Options{})
		for i := range ips {
			if got := holder(a, ips[i], terminating[i]); got != c.want[i] {
				t.Errorf("%s: %s at %g s is %q, want %q", c.name, ips[i], terminating[i], got, c.want[i])
			}
		}
		if c.name == "sparse" && (len(a.Identities.Alike) != 1 || len(a.Identities.Alike[0].Pods) != 2) {
			t.Errorf("sparse: alike groups %+v, want the first two pods and their IPs", a.Identities.Alike)
		}
	}
}

// TestSilentIPStillFits pins silentSpacings: an IP answering every second
// on average may have last answered up to joinSkew and six of its
// spacings before its pod's termination, and not earlier.
func TestSilentIPStillFits(t *testing.T) {
	p := &pending{stop: at(100), stopClue: clueTerminating}
	for _, c := range []struct {
		before float64
		fits   bool
	}{{11.9, true}, {12.1, false}} {
		q := &pending{stop: at(100 - c.before), stopClue: clueServed, spacing: time.Second, stopLate: joinWindow}
		if _, ok := joinCost(p, q, nil); ok != c.fits {
			t.Errorf("an IP last served %g s before the termination: fits %v, want %v", c.before, ok, c.fits)
		}
	}
}

// TestJoinsStayInTheNodesRange: the node of pod aaaaa handed another pod
// 10.8.1.5, so aaaaa's IP is in 10.8.1.0/24 (nodeBlockBits4). It is not
// 10.8.0.9, though that one stopped closest to aaaaa's termination; and
// within the range the low bits say nothing: 10.8.1.200 stopped a second
// after the termination and is aaaaa's, though 10.8.1.7 shares more bits
// with 10.8.1.5.
func TestJoinsStayInTheNodesRange(t *testing.T) {
	for _, c := range []struct {
		name  string
		stops map[string]float64 // IP → last served, seconds
		want  string
	}{
		{"another node's range", map[string]float64{"10.8.0.9": 30.2, "10.8.1.200": 34}, "10.8.1.200"},
		{"low bits", map[string]float64{"10.8.1.7": 34, "10.8.1.200": 31}, "10.8.1.200"},
	} {
		col := NewCollector()
		event(col, 1, sources.PodScheduled, "web-5fbw5skb9k-aaaaa", "gke-pool-1-n1", netip.Addr{})
		event(col, 1, sources.PodScheduled, "web-5fbw5skb9k-zzzzz", "gke-pool-1-n1", netip.Addr{})
		event(col, 2, sources.ProbeFailed, "web-5fbw5skb9k-zzzzz", "", netip.MustParseAddr("10.8.1.5"))
		event(col, 30, sources.Killing, "web-5fbw5skb9k-aaaaa", "", netip.Addr{})
		for ip, stop := range c.stops {
			servedUntil(col, netip.MustParseAddr(ip), stop, 0.25)
		}
		servedUntil(col, netip.MustParseAddr("10.8.3.3"), 60, 0.25)
		a := Analyze(Merge(col), Options{})
		for ip := range c.stops {
			want := ""
			if ip == c.want {
				want = "web-5fbw5skb9k-aaaaa"
			}
			if got := holder(a, ip, 30); got != want {
				t.Errorf("%s: %s is %q, want %q", c.name, ip, got, want)
			}
		}
	}
}

// TestPodLeftBySwitchJoinsItsIP: a blue-green Rollout's old pod, known
// from its events alone, stops taking traffic when Argo Rollouts switches
// the active Service away from its hash (SwitchService at 30 s), not when
// it begins terminating scaleDownDelaySeconds later (60 s): the switch
// stops it for the join, so its IP is its own. A deregistration by one
// target group while the IP goes on serving (a canary Service's, at 6 s)
// tells nothing of its stop. Without the switch, the IP stopped 30 s before
// the pod began terminating: nothing ties them.
func TestPodLeftBySwitchJoinsItsIP(t *testing.T) {
	ip := netip.MustParseAddr("10.0.1.5")
	run := func(switched bool) *Analysis {
		c := NewCollector()
		for s := 0.0; s < 31; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
		}
		// The new pod's IP serves on, so the old one's stop is no edge
		// of the logs.
		for s := 0.0; s < 90; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(netip.MustParseAddr("10.0.2.7"), 8080), Format: sources.FormatALBAccess})
		}
		c.Lifecycle(&sources.Lifecycle{Time: at(6), Kind: sources.TargetDeregistering, IP: ip, Format: sources.FormatAWSLBC, From: -1})
		if switched {
			c.Lifecycle(&sources.Lifecycle{Time: at(30), Kind: sources.ServiceSwitched, Namespace: "shop", Group: "web-active", Previous: "56b5dc5bc", Status: "7fdb8fff6b", Object: "Rollout/web", Format: sources.FormatK8sEvents, From: -1})
		}
		c.Lifecycle(&sources.Lifecycle{Time: at(60), Kind: sources.Killing, Namespace: "shop", Pod: "web-56b5dc5bc-aaaaa", Format: sources.FormatK8sEvents, From: -1})
		return Analyze(Merge(c), Options{})
	}
	if l := run(true).Identities.At(ip, at(20)); l == nil || l.Backend.Pod != "web-56b5dc5bc-aaaaa" {
		t.Errorf("with the active switch at 30 s, the IP at 20 s is held by %v, want the old pod", l)
	}
	if l := run(false).Identities.At(ip, at(20)); l != nil && l.Backend.Pod == "web-56b5dc5bc-aaaaa" {
		t.Errorf("without a switch, the IP is joined to %s", l.Backend.Pod)
	}
}

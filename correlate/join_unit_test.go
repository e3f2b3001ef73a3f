package correlate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestJoinCostBounds pins how far apart a pod's step and an IP's may be, in
// the seconds the constants state: an IP may stop up to 6 s (joinSkew) plus
// silentSpacings (6) times its spacing before the pod's termination and up to its stopLate
// after; it may start up to 60 s (joinWindow) on either side of the pod's
// Ready.
func TestJoinCostBounds(t *testing.T) {
	sec := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	stop := func(d, spacing time.Duration) (time.Duration, bool) {
		p := &pending{stop: at(100), stopWhy: "began terminating"}
		q := &pending{stop: at(100).Add(d), stopWhy: "last served", spacing: spacing, stopLate: sec(60)}
		e, ok := joinCost(p, q, nil)
		return e.cost, ok
	}
	for _, tc := range []struct {
		d, spacing time.Duration
		ok         bool
	}{
		{sec(-6), 0, true}, {sec(-6.001), 0, false}, {sec(-3.5), 0, true},
		{sec(-12), sec(1), true}, {sec(-12.001), sec(1), false},
		{sec(60), 0, true}, {sec(60.001), 0, false},
	} {
		fit, ok := stop(tc.d, tc.spacing)
		if ok != tc.ok || ok && fit != absDuration(tc.d) {
			t.Errorf("an IP stopping %v after the pod (spacing %v): %v, %v; want %v", tc.d, tc.spacing, fit, ok, tc.ok)
		}
	}
	start := func(d time.Duration) bool {
		p := &pending{start: at(100), startWhy: "Ready"}
		q := &pending{start: at(100).Add(d), startWhy: "first served"}
		_, ok := joinCost(p, q, nil)
		return ok
	}
	for _, tc := range []struct {
		d  time.Duration
		ok bool
	}{{sec(-60), true}, {sec(-60.001), false}, {sec(60), true}, {sec(60.001), false}, {sec(-31), true}, {sec(31), true}} {
		if got := start(tc.d); got != tc.ok {
			t.Errorf("an IP starting %v after the pod's Ready: %v, want %v", tc.d, got, tc.ok)
		}
	}
	e, _ := joinCost(&pending{stop: at(1), stopWhy: "a"}, &pending{stop: at(1), stopWhy: "b", stopLate: sec(60)}, nil)
	if e.why != "a; b" {
		t.Errorf("why %q", e.why)
	}
	if _, ok := joinCost(&pending{start: at(1)}, &pending{stop: at(1)}, nil); ok {
		t.Error("a pod's start joined an IP's stop")
	}
}

// TestIPMarks pins what makes an IP's stretch: traffic that begins more
// than 5 s (logEdge) after the logs begin and ends more than 5 s before
// they end, and a controller's deregistration, which may come up to 10 s
// (controllerLag) after the pod's termination, against 60 s (joinWindow)
// for the last request a load balancer sent.
func TestIPMarks(t *testing.T) {
	c := NewCollector()
	serve := func(ip string, from, to float64) {
		for s := from; s <= to; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(netip.MustParseAddr(ip), 8080), Format: sources.FormatALBAccess})
		}
	}
	serve("10.0.0.9", 0, 300)
	serve("10.0.0.1", 5, 295)     // both within 5 s of the edges: no mark
	serve("10.0.0.2", 6, 294)     // both past them
	serve("10.0.0.3", 2.5, 297.5) // within them
	c.Lifecycle(&sources.Lifecycle{Time: at(100), Kind: sources.TargetDeregistering, IP: netip.MustParseAddr("10.0.0.4"), Format: sources.FormatAWSLBC, From: -1})
	d := Merge(c)
	var got []string
	for _, q := range pendingIPs(d, &Identities{byIP: map[netip.Addr][]*Lease{}}) {
		got = append(got, fmt.Sprintf("%s %v-%v late %v", q.ip, sinceT0(q.start), sinceT0(q.stop), q.stopLate))
	}
	want := fmt.Sprint([]string{"10.0.0.2 6s-4m54s late 1m0s", "10.0.0.4 --1m40s late 10s"})
	if fmt.Sprint(got) != want {
		t.Errorf("stretches %v, want %v", got, want)
	}
}

func sinceT0(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Sub(t0).String()
}

// TestJoinsBeyondTheBoundAreGreedy pins maxJoinComponent (64): a tangle of
// 64 pods is solved as one assignment, which joins a pod whose two
// candidates are 1 s apart when the other candidate is taken; one of 65 is
// joined greedily, which leaves such a pod alone.
func TestJoinsBeyondTheBoundAreGreedy(t *testing.T) {
	chain := func(n int) []joinEdge {
		var edges []joinEdge
		for i := 0; i < n; i++ {
			edges = append(edges, joinEdge{pod: i, ip: i, cost: 0, margin: 2 * time.Second})
			second := 10 * time.Second
			if i == 0 {
				second = time.Second
			}
			edges = append(edges, joinEdge{pod: i, ip: i + 1, cost: second, margin: 2 * time.Second})
		}
		return edges
	}
	joined0 := func(n int) bool {
		joins, _ := solveJoins(chain(n))
		for _, e := range joins {
			if e.pod == 0 {
				return e.ip == 0
			}
		}
		return false
	}
	if !joined0(64) {
		t.Error("in a tangle of 64 pods the assignment left pod 0 unjoined")
	}
	if joined0(65) {
		t.Error("in a tangle of 65 pods pod 0 was joined: not greedily")
	}
}

// TestNodeAddressesWeigh pins prefixBitCost (2 s a bit): a pod is joined to
// an IP 40 s from its Ready in its node's /26 rather than to one 2 s from it
// that shares no leading bit with the node's pods (26 bits × 2 s = 52 s
// more), and to one 2 s from it that shares 14 bits (24 s more) rather
// than to one 20 s from it in the /26.
func TestNodeAddressesWeigh(t *testing.T) {
	if got := nodeJoin("10.1.1.50", 140, "192.168.0.9", 102); got != "10.1.1.50" {
		t.Errorf("against an IP sharing no bit with the node: joined %q, want 10.1.1.50", got)
	}
	if got := nodeJoin("10.1.1.50", 120, "10.2.0.9", 102); got != "10.1.1.50" {
		t.Errorf("against an IP sharing 14 bits: joined %q, want 10.1.1.50", got)
	}
}

// nodeJoin runs a pod Ready at 100 s, with no IP, on a node whose sibling
// pod holds 10.1.1.20, beside two IPs that begin serving after it: near
// from nearStart and far from farStart. It returns the one joined to the
// pod, "" for neither.
func nodeJoin(near string, nearStart float64, far string, farStart float64) string {
	c := NewCollector()
	serve := func(ip string, from float64) {
		for s := from; s <= 300; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(netip.MustParseAddr(ip), 8080), Format: sources.FormatIngressNginx})
		}
	}
	serve("10.1.1.20", 0) // the sibling on the node
	serve(near, nearStart)
	serve(far, farStart)
	pod := func(name, ip string) {
		st := &sources.PodStatus{Node: "node-a"}
		if ip != "" {
			st.IP = netip.MustParseAddr(ip)
		}
		c.Config(&sources.Config{Kind: "Pod", Namespace: "shop", Name: name, Pod: st, Format: sources.FormatK8sObjects})
	}
	pod("web-sibling", "10.1.1.20")
	pod("web-new", "")
	c.Lifecycle(&sources.Lifecycle{Time: at(100), Kind: sources.PodReady, Namespace: "shop", Pod: "web-new", Format: sources.FormatK8sEvents, From: -1})
	a := Analyze(Merge(c), Options{})
	for _, ip := range []string{near, far} {
		if l := a.Identities.At(netip.MustParseAddr(ip), at(250)); l != nil && l.Backend.Pod == "web-new" {
			return ip
		}
	}
	return ""
}

// TestAssignIsOptimal compares the assignment with every assignment of
// small random matrices, forbidden pairs included.
func TestAssignIsOptimal(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rnd.IntN(4)
		m := n + rnd.IntN(3)
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, m)
			for j := range cost[i] {
				cost[i][j] = float64(rnd.IntN(20))
				if rnd.IntN(4) == 0 {
					cost[i][j] = math.Inf(1)
				}
			}
			cost[i][rnd.IntN(m)] = float64(20 + rnd.IntN(5)) // never all forbidden
		}
		want := bruteAssign(cost, 0, make([]bool, m))
		total, match := assign(cost)
		got := 0.0
		seen := map[int]bool{}
		for i, j := range match {
			if seen[j] {
				t.Fatalf("%v: column %d assigned twice in %v", cost, j, match)
			}
			seen[j] = true
			got += cost[i][j]
		}
		if got != want || (!math.IsInf(want, 1) && total != want) {
			t.Fatalf("%v: assign gave %v (%v, total %v), want %v", cost, match, got, total, want)
		}
	}
}

// bruteAssign is the least total cost of rows i… over the unused columns.
func bruteAssign(cost [][]float64, i int, used []bool) float64 {
	if i == len(cost) {
		return 0
	}
	best := math.Inf(1)
	for j := range used {
		if !used[j] {
			used[j] = true
			best = min(best, cost[i][j]+bruteAssign(cost, i+1, used))
			used[j] = false
		}
	}
	return best
}

// TestGreedyJoinMargin: a greedy join needs its pod's and its IP's best
// candidate to beat the second by the margin, and a gap of exactly the
// margin does.
func TestGreedyJoinMargin(t *testing.T) {
	margin := 2 * time.Second
	edges := []joinEdge{
		{pod: 0, ip: 0, cost: 0, margin: margin},
		{pod: 1, ip: 0, cost: margin, margin: margin},          // the IP's second best, exactly the margin behind
		{pod: 2, ip: 1, cost: time.Second, margin: margin},     // the pod's best …
		{pod: 2, ip: 2, cost: 2 * time.Second, margin: margin}, // … and its second, 1 s behind
	}
	got := greedyJoins(edges)
	if len(got) != 1 || got[0].pod != 0 || got[0].ip != 0 {
		t.Errorf("greedy joins %+v, want pod 0 to IP 0 alone", got)
	}
	// The pod's side: its second candidate exactly the margin behind.
	got = greedyJoins([]joinEdge{{pod: 0, ip: 0, cost: 0, margin: margin}, {pod: 0, ip: 1, cost: margin, margin: margin}})
	if len(got) != 1 || got[0].ip != 0 {
		t.Errorf("greedy joins %+v, want pod 0 to IP 0", got)
	}
	// Two candidates of one cost: neither.
	if got = greedyJoins([]joinEdge{{pod: 0, ip: 0, cost: margin, margin: margin}, {pod: 0, ip: 1, cost: margin, margin: margin}}); len(got) != 0 {
		t.Errorf("greedy joins %+v between two equal candidates", got)
	}
}

// TestSolveJoinsMargins: a join is kept when every other assignment costs
// at least the margin more (exactly the margin will do), and a pod whose
// only candidate costs more than staying unjoined stays so.
func TestSolveJoinsMargins(t *testing.T) {
	margin := 2 * time.Second
	joins, doubtful := solveJoins([]joinEdge{{pod: 0, ip: 0, cost: 0, margin: margin}, {pod: 0, ip: 1, cost: margin, margin: margin}})
	if len(joins) != 1 || joins[0].ip != 0 || len(doubtful) != 0 {
		t.Errorf("joins %+v doubtful %+v, want pod 0 to IP 0", joins, doubtful)
	}
	joins, doubtful = solveJoins([]joinEdge{{pod: 0, ip: 0, cost: 0, margin: margin}, {pod: 0, ip: 1, cost: margin - time.Millisecond, margin: margin}})
	if len(joins) != 0 || len(doubtful) != 1 {
		t.Errorf("joins %+v doubtful %+v, want the pair doubtful", joins, doubtful)
	}
	joins, doubtful = solveJoins([]joinEdge{{pod: 0, ip: 0, cost: 400 * time.Second, margin: margin}})
	if len(joins) != 0 || len(doubtful) != 0 {
		t.Errorf("joins %+v doubtful %+v, want pod 0 unjoined", joins, doubtful)
	}
}

// TestAlikeGroups: two doubtful pairs form a group when swapping their IPs
// costs less than the margin; exactly the margin keeps them apart.
func TestAlikeGroups(t *testing.T) {
	margin := 2 * time.Second
	pods := []*pending{{b: &Backend{Namespace: "shop", Pod: "web-b"}}, {b: &Backend{Namespace: "shop", Pod: "web-a"}}}
	ips := []*pending{{ip: netip.MustParseAddr("10.0.0.2")}, {ip: netip.MustParseAddr("10.0.0.1")}}
	groups := func(swap time.Duration) string {
		comp := []joinEdge{
			{pod: 0, ip: 0, margin: margin}, {pod: 1, ip: 1, margin: margin},
			{pod: 0, ip: 1, cost: swap, margin: margin}, {pod: 1, ip: 0, margin: margin},
		}
		var out []string
		for _, g := range alikeGroups(pods, ips, comp, comp[:2]) {
			out = append(out, fmt.Sprintln(g.Pods[0].Pod, g.Pods[1].Pod, g.IPs))
		}
		return fmt.Sprint(out)
	}
	if got := groups(margin - time.Millisecond); got != "[web-a web-b [10.0.0.1 10.0.0.2]\n]" {
		t.Errorf("a swap under the margin: groups %s", got)
	}
	if got := groups(margin); got != "[]" {
		t.Errorf("a swap of exactly the margin: groups %s", got)
	}
}

// TestIPStretchMarks: marks of one kind 60 s apart (joinWindow) tell of one
// change, the controller's winning over the traffic's; 60.001 s apart, of
// two.
func TestIPStretchMarks(t *testing.T) {
	mark := func(s float64, start, strong bool, why string) ipMark {
		return ipMark{at: at(s), start: start, strong: strong, why: why}
	}
	show := func(ms ...ipMark) string {
		var out []string
		for _, q := range ipStretches(ms) {
			out = append(out, fmt.Sprintf("%s:%s/%s:%s", sinceT0(q.start), q.startWhy, sinceT0(q.stop), q.stopWhy))
		}
		return fmt.Sprint(out)
	}
	for _, tc := range []struct {
		marks []ipMark
		want  string
	}{
		{[]ipMark{mark(0, true, false, "served"), mark(60, true, true, "registered")}, "[1m0s:registered/-:]"},
		{[]ipMark{mark(0, true, false, "served"), mark(60.001, true, false, "served again")}, "[0s:served/-: 1m0.001s:served again/-:]"},
		{[]ipMark{mark(0, true, false, "a"), mark(10, false, false, "last served"), mark(70, false, true, "deregistered")}, "[0s:a/1m10s:deregistered]"},
		{[]ipMark{mark(10, false, false, "x"), mark(70.001, false, false, "y")}, "[-:/10s:x -:/1m10.001s:y]"},
		{[]ipMark{mark(10, false, true, "deregistered"), mark(20, false, false, "last served")}, "[-:/10s:deregistered]"},
	} {
		if got := show(tc.marks...); got != tc.want {
			t.Errorf("stretches %s, want %s", got, tc.want)
		}
	}
}

// TestVPCNodes tells EKS node names, whose pods take any address of the
// subnet, from others.
func TestVPCNodes(t *testing.T) {
	for node, want := range map[string]bool{
		"ip-10-0-29-154.ap-northeast-2.compute.internal": true,
		"ip-10-0-29-154":              true,
		"ip-10-0-29.eu-west-1":        false,
		"gke-prod-pool-1-abcd":        false,
		"ip-fe80--1.compute.internal": false,
		"":                            false,
	} {
		if got := vpcNode(node); got != want {
			t.Errorf("vpcNode(%q) = %v, want %v", node, got, want)
		}
	}
}

// TestJoinSaysReady: a pod whose container start and Ready are both known
// is joined by its Ready, which the lease's clues name.
func TestJoinSaysReady(t *testing.T) {
	c := NewCollector()
	for s := 0.0; s <= 300; s += 0.5 {
		c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
			Backend: netip.AddrPortFrom(netip.MustParseAddr("10.0.0.9"), 8080), Format: sources.FormatALBAccess})
		if s >= 101 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(netip.MustParseAddr("10.0.0.1"), 8080), Format: sources.FormatALBAccess})
		}
	}
	ev := func(s float64, k sources.LifecycleKind) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: k, Namespace: "shop", Pod: "web-new", Format: sources.FormatK8sEvents, From: -1})
	}
	ev(90, sources.ContainerStarted)
	ev(100, sources.PodReady)
	a := Analyze(Merge(c), Options{})
	l := a.Identities.At(netip.MustParseAddr("10.0.0.1"), at(200))
	if l == nil || l.Backend.Pod != "web-new" || l.Join != "Ready at 17:31:40; first served at 17:31:41" {
		t.Fatalf("lease %+v, want web-new joined by its Ready", l)
	}
}

// TestCommonBits pins the leading bits two addresses share, counted bit by
// bit past the last equal byte, and none across families.
func TestCommonBits(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"10.0.0.1", "10.0.0.1", 32},
		{"10.0.0.1", "10.0.0.2", 30},
		{"10.0.0.0", "10.0.0.128", 24},
		{"10.0.0.0", "10.0.0.64", 25},
		{"10.1.1.20", "10.1.2.50", 22},
		{"10.1.1.20", "10.1.64.9", 17},
		{"10.0.0.1", "138.0.0.1", 0},
		{"fd00::1", "fd00::3", 126},
		{"10.0.0.1", "fd00::1", 0},
	} {
		if got := commonBits(netip.MustParseAddr(c.a), netip.MustParseAddr(c.b)); got != c.want {
			t.Errorf("commonBits(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestNearBitsUpToTheNodeBlock pins the node ranges' prefix lengths, /24
// for IPv4 and /64 for IPv6: bits shared past them count no more.
func TestNearBitsUpToTheNodeBlock(t *testing.T) {
	for _, c := range []struct {
		near, ip string
		want     int
	}{
		{"10.1.1.20", "10.1.1.21", 24},
		{"10.1.1.20", "10.1.2.50", 22},
		{"fd00:0:0:1::5", "fd00:0:0:1::9", 64},
		{"fd00:0:0:1::5", "fd00:0:0:2::9", 62},
		{"fd00::5", "fd00:0:0:0:8000::9", 64},
	} {
		p := &pending{near: []netip.Addr{netip.MustParseAddr(c.near)}}
		if got := nearBits(p, netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("nearBits(%s, %s) = %d, want %d", c.near, c.ip, got, c.want)
		}
	}
}

// TestPin checks that pin forbids every other column of the row and every
// other row of the column, and leaves the rest as it was.
func TestPin(t *testing.T) {
	inf := math.Inf(1)
	cost := [][]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	pin(cost, 1, 2)
	want := [][]float64{{1, 2, inf}, {inf, inf, 6}, {7, 8, inf}}
	for i := range want {
		if !slices.Equal(cost[i], want[i]) {
			t.Fatalf("pinned row 1 to column 2: %v, want %v", cost, want)
		}
	}
}

// TestNodePrefixBitsWeighAgainstTiming pins prefixBitCost (2 s a bit) from
// both sides when no candidate lies in the node's /24: against an IP
// serving from 2 s after the pod's Ready that shares 17 bits with the
// node's pods, one sharing 22 bits (5 bits, 10 s, nearer) is joined when
// it began 8 s after Ready, and not when it began 16 s after.
func TestNodePrefixBitsWeighAgainstTiming(t *testing.T) {
	if got := nodeJoin("10.1.2.50", 108, "10.1.64.9", 102); got != "10.1.2.50" {
		t.Errorf("22 bits 8 s after Ready against 17 bits 2 s after: joined %q, want 10.1.2.50", got)
	}
	if got := nodeJoin("10.1.2.50", 116, "10.1.64.9", 102); got != "10.1.64.9" {
		t.Errorf("22 bits 16 s after Ready against 17 bits 2 s after: joined %q, want 10.1.64.9", got)
	}
}

package correlate

import (
	"cmp"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Joining pods to IPs without a record that names both.
const (
	// prefixBitCost is what one bit of address in common with a pod's
	// node is worth against timing, relative to the pod's best candidate:
	// pods of one node share its pod CIDR (GKE, kubenet, flannel: a /24
	// each), while the timings of one rollout step differ by seconds. On
	// the AWS VPC CNI pods take any address of the subnet (see vpcNode).
	prefixBitCost = 2 * time.Second
	// joinSkew is how much earlier than a pod's termination its IP's stop
	// may come in the records: the cluster's clock may run a few seconds
	// ahead of the load balancer's (seen up to 5 s where nodes drift), and
	// events are stamped to the second.
	joinSkew = 6 * time.Second
	// controllerLag is how long after a pod begins terminating a
	// load-balancer controller deregisters its IP: the AWS Load Balancer
	// Controller reconciles on the EndpointSlice change within seconds.
	controllerLag = 10 * time.Second
	// logEdge is how close to the logs' first or last request a backend's
	// first or last response may be and still be only the edge of the
	// logs: a backend behind a load balancer with traffic answers every
	// few seconds.
	logEdge = 5 * time.Second
	// maxJoinComponent bounds the pods one assignment weighs at once; a
	// larger tangle of simultaneous deletions is joined greedily.
	maxJoinComponent = 64
	// nodeBlockBits4 and nodeBlockBits6 are the prefix lengths of a node's
	// pod range: kube-controller-manager's --node-cidr-mask-size-ipv4 and
	// -ipv6 defaults (24 and 64), GKE's /24 per node at 110 pods. Bits past
	// them tell the order in which the node handed out addresses, not the
	// node.
	nodeBlockBits4 = 24
	nodeBlockBits6 = 64
	// silentSpacings is how many of an IP's mean times between responses
	// its last response may precede the change that ended it: requests
	// arrive at random, and a backend answering every s seconds on
	// average stays silent for 6 s with probability e^-6 (0.25 %).
	silentSpacings = 6
	// minLagJoins is how many matched pairs of one kind of clue a lag
	// rests on (see clueLags): with fewer, one wrong pair would set it.
	minLagJoins = 3
)

// clue names the kind of record a pod's or an IP's start or stop comes
// from: the pod's Ready, container start or termination, the IP's
// registration or deregistration by a controller, its first or last
// response, or the failed request sent after its last response.
type clue uint8

// Clues.
const (
	clueReady clue = iota + 1
	clueStarted
	clueTerminating
	clueController
	clueServed
	clueFailed
)

// cluePair is the pod's clue and the IP's clue a join compares.
type cluePair [2]clue

// pending is a pod without an IP, or an IP without a pod, described by
// when it started and stopped taking traffic.
type pending struct {
	b  *Backend   // the pod (nil for an IP)
	ip netip.Addr // the IP (invalid for a pod)
	// start and stop are the pod's Ready and termination times, or the
	// IP's first and last traffic and controller steps.
	start, stop time.Time
	// startWhy and stopWhy name the records behind start and stop, and
	// startClue and stopClue their kinds.
	startWhy, stopWhy   string
	startClue, stopClue clue
	// near are addresses the pod's node is known to hand out: its other
	// pods' IPs (none on a VPC CNI node).
	near []netip.Addr
	// spacing is the IP's mean time between responses, or between the
	// failed requests that tell its stop when they came further apart:
	// how uncertain its first and last request are as the moment of a
	// change.
	spacing time.Duration
	// stopLate is how long after a pod's termination its IP's stop may
	// come: joinWindow for the last request the load balancer sent,
	// controllerLag for a deregistration the controller logged.
	stopLate time.Duration
}

// joinByTiming joins pods that no record ties to an IP with IPs that no
// record ties to a pod: a pod began terminating when an IP stopped serving
// (or was deregistered), or became Ready when an IP began serving (or was
// registered), and the IP lies in its node's address block. Events are
// lossy and deleted pods are gone from `kubectl get pods`, so the old pods
// of a rollout are often known by name only. Pods and IPs are matched as a
// whole (a minimum-cost assignment), and a join is made only when every
// other way of matching that pod costs joinMargin more. A joined lease
// lasts the pod's life as life tells it: from its creation (from before
// the records when they tell only of its end) to the end of its grace
// period, so an IP handed to another pod later is not taken for this one.
//
// The load balancer acts on a change some time after Kubernetes records
// it, and that lag is much the same for every pod behind it; the joins are
// therefore made twice: once expecting no lag, then expecting the lag the
// first pass's best assignment shows for each kind of clue (see clueLags).
func joinByTiming(d *Dataset, s *backendSet, id *Identities, life map[*Backend]podLife) {
	pods := pendingPods(d, s, id)
	if len(pods) == 0 {
		return
	}
	ips := pendingIPs(d, id)
	joins, matched, alike := matchTimings(pods, ips, nil)
	if lags := clueLags(matched); len(lags) > 0 {
		joins, _, alike = matchTimings(pods, ips, lags)
	}
	id.Alike = append(id.Alike, alike...)
	for _, e := range joins {
		p, q := pods[e.pod], ips[e.ip]
		lf := life[p.b]
		l := &Lease{IP: q.ip, Backend: p.b, From: lf.born, To: lf.end, Join: e.why, seen: q.start}
		if l.seen.IsZero() {
			l.seen = q.stop
		}
		id.byIP[q.ip] = append(id.byIP[q.ip], l)
	}
}

// matchTimings matches pods with IPs, expecting each kind of clue pair to
// lie lags apart: the joins every other assignment costs joinMargin more
// than, every pair the best assignment matched (sure or not), and the
// groups of pods and IPs it cannot tell apart.
func matchTimings(pods, ips []*pending, lags map[cluePair]time.Duration) (joins, matched []joinEdge, alike []AlikeGroup) {
	var edges []joinEdge
	for i, p := range pods {
		var mine []joinEdge
		best := -1
		for j, q := range ips {
			if e, ok := joinCost(p, q, lags); ok {
				e.pod, e.ip, e.spacing, e.margin = i, j, q.spacing, joinMargin+q.spacing
				mine = append(mine, e)
				best = max(best, nearBits(p, q.ip))
			}
		}
		for _, e := range mine {
			if b := nearBits(p, ips[e.ip].ip); b >= 0 {
				// A pod takes its IP from its node's range: while a
				// candidate lies in that range, one outside it is another
				// node's. Otherwise every bit a candidate shares with the
				// node less than the best one does makes it likelier
				// another node's.
				if block := nodeBlockBits(ips[e.ip].ip); best >= block && b < block {
					continue
				}
				e.cost += time.Duration(best-b) * prefixBitCost
			}
			edges = append(edges, e)
		}
	}
	for _, comp := range components(len(pods), edges) {
		js, doubtful := solveJoins(comp)
		joins = append(joins, js...)
		matched = append(append(matched, js...), doubtful...)
		alike = append(alike, alikeGroups(pods, ips, comp, doubtful)...)
	}
	return joins, matched, alike
}

// clueLags is, for each pair of clues that at least minLagJoins pairs of
// the best assignment compared, the median of how much later the IP's
// clue came than the pod's: the load balancer's own lag (its
// deregistration delay, an endpoint sync's interval, the preStop sleep
// its pods serve through). The median stands even when some of the pairs
// are wrong.
func clueLags(joins []joinEdge) map[cluePair]time.Duration {
	by := map[cluePair][]time.Duration{}
	for _, e := range joins {
		by[e.clues] = append(by[e.clues], e.lag)
	}
	lags := map[cluePair]time.Duration{}
	for k, ds := range by {
		if len(ds) < minLagJoins {
			continue
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		lags[k] = median(ds)
	}
	return lags
}

// joinEdge is one possible join: pod index, IP index, what it costs (the
// timing distance plus the address distance), and the clues: what they
// say, their kinds, and how much later the IP's came than the pod's.
type joinEdge struct {
	pod, ip int
	cost    time.Duration
	why     string
	clues   cluePair
	lag     time.Duration
	// spacing is the IP's mean time between responses (pending.spacing),
	// and margin how much better than any other assignment this join must
	// be when no other IP changes hands: joinMargin plus spacing.
	spacing, margin time.Duration
}

// joinCost says how well a pod p and an IP q fit (the edge's cost, lower
// is better): the distance between the pod's termination and the IP's
// stop (the stronger clue: the load balancer is told at once), else
// between its Ready and the IP's start, less the lag expected between such
// clues (none when lags has no entry). ok is false when the timings do not
// fit within joinWindow.
func joinCost(p, q *pending, lags map[cluePair]time.Duration) (joinEdge, bool) {
	var e joinEdge
	switch {
	case !p.stop.IsZero() && !q.stop.IsZero():
		// The load balancer stops sending at most joinWindow after the pod
		// began terminating, and not much before it (clock skew).
		d := q.stop.Sub(p.stop)
		if d < -joinSkew-silentSpacings*q.spacing || d > q.stopLate {
			return e, false
		}
		e.lag, e.why, e.clues = d, p.stopWhy+"; "+q.stopWhy, cluePair{p.stopClue, q.stopClue}
	case !p.start.IsZero() && !q.start.IsZero():
		d := q.start.Sub(p.start)
		if d < -joinWindow || d > joinWindow {
			return e, false
		}
		e.lag, e.why, e.clues = d, p.startWhy+"; "+q.startWhy, cluePair{p.startClue, q.startClue}
	default:
		return e, false
	}
	e.cost = absDuration(e.lag - lags[e.clues])
	return e, true
}

// nearBits is how many leading bits, up to the length of a node's pod
// range, an IP shares with the addresses the pod's node is known to hand
// out; -1 when nothing is known of the node.
func nearBits(p *pending, ip netip.Addr) int {
	if len(p.near) == 0 {
		return -1
	}
	block := nodeBlockBits(ip)
	bits := 0
	for _, a := range p.near {
		bits = max(bits, min(commonBits(a, ip), block))
	}
	return bits
}

// nodeBlockBits is the prefix length of a node's pod range for ip's family.
func nodeBlockBits(ip netip.Addr) int {
	if ip.Is6() && !ip.Is4In6() {
		return nodeBlockBits6
	}
	return nodeBlockBits4
}

// commonBits counts the leading bits two addresses of one family share.
func commonBits(a, b netip.Addr) int {
	if a.BitLen() != b.BitLen() {
		return 0
	}
	x, y := a.AsSlice(), b.AsSlice()
	n := 0
	for i := range x {
		d := x[i] ^ y[i]
		if d == 0 {
			n += 8
			continue
		}
		for d&0x80 == 0 {
			n++
			d <<= 1
		}
		break
	}
	return n
}

// components splits the pods linked by edges into independent groups.
func components(pods int, edges []joinEdge) [][]joinEdge {
	parent := make([]int, pods)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	byIP := map[int]int{} // IP → a pod it links
	for _, e := range edges {
		if other, ok := byIP[e.ip]; ok {
			parent[find(e.pod)] = find(other)
		} else {
			byIP[e.ip] = e.pod
		}
	}
	groups := map[int][]joinEdge{}
	var roots []int
	for _, e := range edges {
		r := find(e.pod)
		if groups[r] == nil {
			roots = append(roots, r)
		}
		groups[r] = append(groups[r], e)
	}
	sort.Ints(roots)
	out := make([][]joinEdge, 0, len(roots))
	for _, r := range roots {
		out = append(out, groups[r])
	}
	return out
}

// solveJoins chooses the joins of one component: the minimum-cost
// assignment of its pods to its IPs (a pod may stay unjoined), keeping only
// the joins that no other assignment comes within its margin of; doubtful
// are the pairs of the assignment that another came within it of, once
// the sure joins are settled. The margin is joinMargin plus the spacings
// of the IPs the other assignment gives another holder, added in
// quadrature: each IP's first and last response may miss its change by
// about its spacing, independently of the others', so an assignment that
// moves two sparse IPs is less certain than one that moves one.
func solveJoins(edges []joinEdge) (joins, doubtful []joinEdge) {
	podIdx, ipIdx := map[int]int{}, map[int]int{}
	var pods, ips []int
	for _, e := range edges {
		if _, ok := podIdx[e.pod]; !ok {
			podIdx[e.pod] = len(pods)
			pods = append(pods, e.pod)
		}
		if _, ok := ipIdx[e.ip]; !ok {
			ipIdx[e.ip] = len(ips)
			ips = append(ips, e.ip)
		}
	}
	if len(pods) > maxJoinComponent {
		return greedyJoins(edges), nil
	}
	n, m := len(pods), len(ips)
	// Columns: the IPs, then one "stays unjoined" column per pod.
	cost := make([][]float64, n)
	unjoined := (joinWindow + 128*prefixBitCost).Seconds()
	for i := range cost {
		cost[i] = make([]float64, m+n)
		for j := range cost[i] {
			cost[i][j] = math.Inf(1)
		}
		cost[i][m+i] = unjoined
	}
	edgeOf := map[[2]int]joinEdge{}
	spacing := make([]time.Duration, m)
	for _, e := range edges {
		i, j := podIdx[e.pod], ipIdx[e.ip]
		cost[i][j] = e.cost.Seconds()
		edgeOf[[2]int{i, j}] = e
		spacing[j] = e.spacing
	}
	// A sure join takes its pod and IP out of every other assignment, which
	// may leave a doubtful pair without its rival: weigh the rest again
	// until no join becomes sure.
	fixed := map[int]bool{}
	for {
		total, match := assign(cost)
		var sure []int
		doubtful = doubtful[:0]
		for i, j := range match {
			if j >= m || fixed[i] {
				continue
			}
			saved := cost[i][j]
			cost[i][j] = math.Inf(1)
			alt, altMatch := assign(cost)
			cost[i][j] = saved
			if e := edgeOf[[2]int{i, j}]; alt-total >= (joinMargin + moved(match, altMatch, spacing)).Seconds() {
				joins = append(joins, e)
				sure = append(sure, i)
			} else {
				doubtful = append(doubtful, e)
			}
		}
		if len(sure) == 0 || len(doubtful) == 0 {
			return joins, doubtful
		}
		for _, i := range sure {
			pin(cost, i, match[i])
			fixed[i] = true
		}
	}
}

// moved is the root of the summed squares of the spacings of the IPs (the
// first len(spacing) columns) that two assignments give different holders.
func moved(a, b []int, spacing []time.Duration) time.Duration {
	holder := func(match []int) map[int]int {
		h := map[int]int{}
		for i, j := range match {
			h[j] = i
		}
		return h
	}
	ha, hb := holder(a), holder(b)
	var sq float64
	for j, s := range spacing {
		ia, oka := ha[j]
		ib, okb := hb[j]
		if oka != okb || ia != ib {
			sq += s.Seconds() * s.Seconds()
		}
	}
	return time.Duration(math.Sqrt(sq) * float64(time.Second))
}

// pin keeps row i of an assignment at column j: no other column for i,
// no other row for j.
func pin(cost [][]float64, i, j int) {
	for k := range cost[i] {
		if k != j {
			cost[i][k] = math.Inf(1)
		}
	}
	for k := range cost {
		if k != i {
			cost[k][j] = math.Inf(1)
		}
	}
}

// alikeGroups gathers the doubtful pairs of an assignment into the groups
// timing cannot tell apart: two pairs belong together when swapping their
// IPs costs less than the margin of a swap (joinMargin plus both IPs'
// spacings in quadrature, see solveJoins), or a chain of such swaps links
// them. A lone doubtful pair is doubt, not a group.
func alikeGroups(pods, ips []*pending, comp, doubtful []joinEdge) []AlikeGroup {
	cost := map[[2]int]time.Duration{}
	for _, e := range comp {
		cost[[2]int{e.pod, e.ip}] = e.cost
	}
	swappable := func(a, b joinEdge) bool {
		ab, ok1 := cost[[2]int{a.pod, b.ip}]
		ba, ok2 := cost[[2]int{b.pod, a.ip}]
		return ok1 && ok2 && ab+ba-(a.cost+b.cost) < joinMargin+moved([]int{0, 1}, []int{1, 0}, []time.Duration{a.spacing, b.spacing})
	}
	parent := make([]int, len(doubtful))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for i := range doubtful {
		for k := i + 1; k < len(doubtful); k++ {
			if swappable(doubtful[i], doubtful[k]) {
				parent[find(k)] = find(i)
			}
		}
	}
	groups := map[int]*AlikeGroup{}
	var roots []int
	for i, e := range doubtful {
		r := find(i)
		g := groups[r]
		if g == nil {
			g = &AlikeGroup{}
			groups[r] = g
			roots = append(roots, r)
		}
		g.Pods = append(g.Pods, pods[e.pod].b)
		g.IPs = append(g.IPs, ips[e.ip].ip)
	}
	var out []AlikeGroup
	for _, r := range roots {
		g := groups[r]
		if len(g.Pods) < 2 {
			continue
		}
		slices.SortFunc(g.Pods, func(x, y *Backend) int { return strings.Compare(x.Key(), y.Key()) })
		slices.SortFunc(g.IPs, netip.Addr.Compare)
		out = append(out, *g)
	}
	return out
}

// greedyJoins joins, cheapest first, each pod and IP whose best edge beats
// its second best by joinMargin.
func greedyJoins(edges []joinEdge) []joinEdge {
	type bests struct{ first, second time.Duration }
	best := func(key func(joinEdge) int) map[int]*bests {
		m := map[int]*bests{}
		for _, e := range edges {
			b := m[key(e)]
			if b == nil {
				b = &bests{math.MaxInt64, math.MaxInt64}
				m[key(e)] = b
			}
			// The two least costs: the new second is the lesser of the
			// old second and whichever of the old first and this is more.
			b.first, b.second = min(b.first, e.cost), min(b.second, max(b.first, e.cost))
		}
		return m
	}
	byPod, byIP := best(func(e joinEdge) int { return e.pod }), best(func(e joinEdge) int { return e.ip })
	sorted := append([]joinEdge(nil), edges...)
	slices.SortStableFunc(sorted, func(x, y joinEdge) int { return cmp.Compare(x.cost, y.cost) })
	usedPod, usedIP := map[int]bool{}, map[int]bool{}
	var out []joinEdge
	for _, e := range sorted {
		bp, bq := byPod[e.pod], byIP[e.ip]
		if usedPod[e.pod] || usedIP[e.ip] || e.cost != bp.first || e.cost != bq.first ||
			bp.second-bp.first < e.margin || bq.second-bq.first < e.margin {
			continue
		}
		usedPod[e.pod], usedIP[e.ip] = true, true
		out = append(out, e)
	}
	return out
}

// assign solves the assignment problem for a cost matrix with at least as
// many columns as rows (the Hungarian method, O(n²m)): it returns the least
// total cost and each row's column. Infinite costs are forbidden pairs.
func assign(cost [][]float64) (float64, []int) {
	n := len(cost)
	if n == 0 {
		return 0, nil
	}
	m := len(cost[0])
	const big = 1e18
	c := func(i, j int) float64 {
		if math.IsInf(cost[i][j], 1) {
			return big
		}
		return cost[i][j]
	}
	u, v := make([]float64, n+1), make([]float64, m+1)
	p, way := make([]int, m+1), make([]int, m+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := make([]float64, m+1)
		used := make([]bool, m+1)
		for j := range minv {
			minv[j] = math.Inf(1)
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				if cur := c(i0-1, j-1) - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	match := make([]int, n)
	total := 0.0
	for j := 1; j <= m; j++ {
		if p[j] != 0 {
			match[p[j]-1] = j - 1
			total += c(p[j]-1, j-1)
		}
	}
	return total, match
}

// pendingPods describes every pod that no record ties to an IP by when it
// became Ready and began terminating, and the addresses near its node.
func pendingPods(d *Dataset, s *backendSet, id *Identities) []*pending {
	leased := map[*Backend]bool{}
	nodeOf := map[*Backend]string{}
	for _, c := range d.Configs {
		if c.Pod != nil && c.Pod.Node != "" {
			nodeOf[s.lookup(c.Namespace, c.Name)] = c.Pod.Node
		}
	}
	for i := range d.Lifecycle {
		if l := &d.Lifecycle[i]; l.Pod != "" && l.Node != "" {
			if b := s.lookup(l.Namespace, l.Pod); b != nil && nodeOf[b] == "" {
				nodeOf[b] = l.Node
			}
		}
	}
	nodeIPs := map[string][]netip.Addr{}
	for _, ls := range id.byIP {
		for _, l := range ls {
			leased[l.Backend] = true
			if n := nodeOf[l.Backend]; n != "" {
				nodeIPs[n] = append(nodeIPs[n], l.IP)
			}
		}
	}
	m := map[*Backend]*pending{}
	get := func(b *Backend) *pending {
		p := m[b]
		if p == nil {
			p = &pending{b: b}
			m[b] = p
		}
		return p
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if l.Pod == "" {
			continue
		}
		b := s.lookup(l.Namespace, l.Pod)
		if b == nil || leased[b] {
			continue
		}
		p := get(b)
		switch {
		case l.Kind == sources.PodReady || l.Kind == sources.ReadinessGate && l.Gate.Opened():
			if p.start.IsZero() || l.Time.Before(p.start) || p.startClue != clueReady {
				p.start, p.startWhy, p.startClue = l.Time, "Ready at "+Clock(l.Time), clueReady
			}
		case l.Kind == sources.ContainerStarted:
			// Kubernetes records no event for Ready: a pod known from
			// events alone starts when its container does.
			if p.start.IsZero() {
				p.start, p.startWhy, p.startClue = l.Time, "started at "+Clock(l.Time), clueStarted
			}
		case l.Kind == sources.Killing || l.Kind == sources.PodDeleted:
			if p.stop.IsZero() || l.Time.Before(p.stop) {
				p.stop, p.stopWhy, p.stopClue = l.Time, "began terminating at "+Clock(l.Time), clueTerminating
			}
		}
	}
	switchedAway(d, m)
	out := make([]*pending, 0, len(m))
	for b, p := range m {
		if p.start.IsZero() && p.stop.IsZero() {
			continue
		}
		if node := nodeOf[b]; !vpcNode(node) {
			p.near = nodeIPs[node]
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(x, y *pending) int { return strings.Compare(x.b.Key(), y.b.Key()) })
	return out
}

// servedThrough reports whether one run of the IP's traffic spans from
// before at to past at + lag without a pause.
func servedThrough(t *Traffic, at time.Time, lag time.Duration) bool {
	if t == nil {
		return false
	}
	for _, run := range t.Runs {
		if !run.From().After(at) && run.To().After(at.Add(lag)) {
			return true
		}
	}
	return false
}

// switchedAway stops, for the join, the pods a progressive rollout's
// Service switch left: the load balancer stops sending to them when the
// last Service that selected their pod-template hash is switched away
// from it (a blue-green active Service, a canary's stable one), not when
// they begin terminating, scaleDownDelaySeconds later. The latest switch
// away from a hash is the one that takes their traffic: an earlier one is
// a preview or canary Service that follows the new pods first.
func switchedAway(d *Dataset, m map[*Backend]*pending) {
	last := map[string]*sources.Lifecycle{} // namespace/hash → switch
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if l.Kind != sources.ServiceSwitched || l.Previous == "" {
			continue
		}
		k := l.Namespace + "/" + l.Previous
		if prev := last[k]; prev == nil || l.Time.After(prev.Time) {
			last[k] = l
		}
	}
	if len(last) == 0 {
		return
	}
	for b, p := range m {
		i := strings.LastIndexByte(b.ReplicaSet, '-')
		if i < 0 {
			continue
		}
		sw := last[b.Namespace+"/"+b.ReplicaSet[i+1:]]
		if sw == nil || !p.stop.IsZero() && !sw.Time.Before(p.stop) || !p.start.IsZero() && sw.Time.Before(p.start) {
			continue
		}
		p.stop, p.stopWhy, p.stopClue = sw.Time, fmt.Sprintf("left Service %s at %s", sw.Group, Clock(sw.Time)), clueTerminating
	}
}

// vpcNode reports whether a node is named as EKS names its nodes
// (ip-10-0-29-154.ap-northeast-2.compute.internal): its pods then take
// their IPs from the subnet through the AWS VPC CNI, not from a block of
// the node's, so their addresses say nothing about their node.
func vpcNode(node string) bool {
	rest, ok := strings.CutPrefix(node, "ip-")
	if !ok {
		return false
	}
	rest, _, _ = strings.Cut(rest, ".")
	a, err := netip.ParseAddr(strings.ReplaceAll(rest, "-", "."))
	return err == nil && a.Is4()
}

// ipMark is one change in an IP's traffic that no lease explains: it began
// (start) or stopped taking traffic, as a load-balancer controller logged
// it (strong) or as the traffic shows it.
type ipMark struct {
	at     time.Time
	start  bool
	strong bool
	why    string
	clue   clue
	// late is how long after a pod's termination a stop may come (see
	// pending.stopLate).
	late time.Duration
	// spacing is, for a stop told by failed requests, their mean time
	// apart since the last response.
	spacing time.Duration
}

// pendingIPs describes every stretch of a backend IP's life that no record
// ties to a pod by when it started and stopped taking traffic: the
// load-balancer controller's registration and deregistration when it
// logged them, else the first and last response of each run of traffic
// (and the last request sent to it after, which failed). An IP the CNI
// handed to another pod later has one stretch per pod: a start after a
// stop begins the next.
func pendingIPs(d *Dataset, id *Identities) []*pending {
	marks := map[netip.Addr][]ipMark{}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		if !l.IP.IsValid() || l.Pod != "" || id.At(l.IP, l.Time) != nil {
			continue
		}
		switch l.Kind {
		case sources.TargetRegistering, sources.TargetRegistered:
			marks[l.IP] = append(marks[l.IP], ipMark{at: l.Time, start: true, strong: true, clue: clueController, why: "registered with the load balancer at " + Clock(l.Time)})
		case sources.TargetDeregistering, sources.TargetDeregistered:
			if servedThrough(d.Traffic[l.IP], l.Time, controllerLag) {
				// Still served well after: another target group of the
				// load balancer holds the IP (a progressive rollout's
				// second Service let it go), not this stop.
				continue
			}
			marks[l.IP] = append(marks[l.IP], ipMark{at: l.Time, strong: true, late: controllerLag, clue: clueController, why: "deregistered from the load balancer at " + Clock(l.Time)})
		}
	}
	// When each IP was last sent a request that failed: the last attempt
	// of a retried request went out after the others had failed.
	// A group's records were sent between the times of its earliest and
	// its latest.
	type sent struct {
		first, last time.Time
		n           int
	}
	failed := map[netip.Addr][]sent{}
	for _, f := range d.Failures {
		if ip := f.Backend.Addr(); d.Traffic[ip] != nil {
			failed[ip] = append(failed[ip], sent{attemptTime(f, true, f.Failure), attemptTimeAt(f, f.Last(), true, f.Failure), f.N})
		}
	}
	first, last, _ := d.Span()
	dataStart, dataEnd := time.Unix(first, 0), time.Unix(last, 0)
	spacing := map[netip.Addr]time.Duration{}
	for ip, t := range d.Traffic {
		// A backend that answered every few seconds may have been sent its
		// last request that long before the change that ended it.
		if span := t.Runs.Last().Sub(t.Runs.First()); t.Served > 1 {
			spacing[ip] = span / time.Duration(t.Served-1)
		}
		for k, run := range t.Runs {
			// Serving from the logs' first moments or up to their last is
			// the logs' edge, not the backend's.
			if run.From().Sub(dataStart) > logEdge && id.At(ip, run.From()) == nil {
				marks[ip] = append(marks[ip], ipMark{at: run.From(), start: true, clue: clueServed, why: "first served at " + Clock(run.From())})
			}
			if dataEnd.Sub(run.To()) <= logEdge || id.At(ip, run.To()) != nil {
				continue
			}
			m := ipMark{at: run.To(), late: joinWindow, clue: clueServed, why: "last served at " + Clock(run.To())}
			// Requests that failed after the last served one, up to the
			// next run, were still sent to it.
			next := dataEnd
			if k+1 < len(t.Runs) {
				next = t.Runs[k+1].From()
			}
			n := 0
			for _, f := range failed[ip] {
				switch {
				case f.first.After(run.To()) && f.first.Before(next):
					n += f.n
				case f.last.After(run.To()) && f.last.Before(next):
					n++ // its latest at least
				}
				for _, at := range [2]time.Time{f.first, f.last} {
					if at.After(m.at) && at.Before(next) { // the latest such
						m.at, m.why, m.clue = at, "last sent a request at "+Clock(at), clueFailed
					}
				}
			}
			if n > 0 {
				// The failures after the last response are all the logs show
				// of what was sent to it then: when a proxy's retries hide
				// most of them, the last one may be seconds short of the
				// last request sent.
				m.spacing = m.at.Sub(run.To()) / time.Duration(n)
			}
			marks[ip] = append(marks[ip], m)
		}
	}
	var out []*pending
	for ip, ms := range marks {
		for _, q := range ipStretches(ms) {
			q.ip, q.spacing = ip, max(spacing[ip], q.spacing)
			out = append(out, q)
		}
	}
	slices.SortFunc(out, func(x, y *pending) int { return cmp.Or(x.ip.Compare(y.ip), stretchTime(x).Compare(stretchTime(y))) })
	return out
}

// ipStretches pairs an IP's marks into stretches of one holder each: a
// start, then the stop that follows. Marks of one kind within joinWindow
// of each other tell of one change: the controller's wins over the
// traffic's, the earlier over the later.
func ipStretches(ms []ipMark) []*pending {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].at.Before(ms[j].at) })
	var out []*pending
	cur := &pending{}
	var curStart, curStop *ipMark
	flush := func() {
		out = append(out, cur)
		cur, curStart, curStop = &pending{}, nil, nil
	}
	for i := range ms {
		m := &ms[i]
		if m.start {
			switch {
			case curStart != nil && m.at.Sub(curStart.at) <= joinWindow && curStop == nil:
				if m.strong && !curStart.strong {
					curStart = m
					cur.start, cur.startWhy, cur.startClue = m.at, m.why, m.clue
				}
				continue
			case curStart != nil || curStop != nil:
				flush()
			}
			curStart = m
			cur.start, cur.startWhy, cur.startClue = m.at, m.why, m.clue
			continue
		}
		if curStop != nil {
			if m.at.Sub(curStop.at) <= joinWindow {
				if m.strong && !curStop.strong {
					curStop = m
					cur.stop, cur.stopWhy, cur.stopLate, cur.stopClue, cur.spacing = m.at, m.why, m.late, m.clue, m.spacing
				}
				continue
			}
			flush()
		}
		curStop = m
		cur.stop, cur.stopWhy, cur.stopLate, cur.stopClue, cur.spacing = m.at, m.why, m.late, m.clue, m.spacing
	}
	if curStart != nil || curStop != nil {
		out = append(out, cur)
	}
	return out
}

// stretchTime orders an IP's stretches: by start, else by stop.
func stretchTime(q *pending) time.Time {
	if !q.start.IsZero() {
		return q.start
	}
	return q.stop
}

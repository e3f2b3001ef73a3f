package correlate

import (
	"fmt"
	"net/netip"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/readygap/readygap/sources"
)

// collectorRequests builds n requests one millisecond apart over 1,000
// backends, one in a hundred an LB-generated failure, as the ALB adapter
// hands them over.
func collectorRequests(n int) []sources.Request {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	out := make([]sources.Request, n)
	for i := range out {
		r := sources.Request{Time: start.Add(time.Duration(i) * time.Millisecond), Status: 200, Generator: sources.GeneratedByBackend,
			Backend: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, byte(12 + i%1000/250), byte(2 + i%250)}), 8080),
			Format:  sources.FormatALBAccess, LB: "app/web/1a2b", Method: "GET", Path: "/api/items"}
		if i%100 == 99 {
			r.Status, r.Generator, r.Failure, r.Backend = 503, sources.GeneratedByLB, sources.FailureNoBackend, netip.AddrPort{}
		}
		out[i] = r
	}
	return out
}

// TestCollectorReadsOnlyOutcomesOfSuccesses checks what the Collector
// promises as a sources.OutcomeHandler: requests that did not fail and made
// no attempts give the same Dataset with or without their Method, Path and
// Detail. Failures, application errors and retried requests keep theirs.
func TestCollectorReadsOnlyOutcomesOfSuccesses(t *testing.T) {
	var _ sources.OutcomeHandler = NewCollector()
	reqs := collectorRequests(3000)
	for i := range reqs {
		r := &reqs[i]
		r.Detail = fmt.Sprintf("detail %d", i%7)
		switch i % 10 {
		case 3:
			r.Status, r.Failure = 500, sources.FailureAppError
		case 5: // a retry that hid a refused connection
			r.Attempts = []sources.Attempt{{Backend: netip.MustParseAddrPort("10.0.9.9:8080"), Status: 502, Failure: sources.FailureRefused}, {Backend: r.Backend, Status: 200}}
		case 7: // an ALB redirect
			r.Status, r.Generator, r.Backend = 301, sources.GeneratedByLB, netip.AddrPort{}
		}
	}
	all, outcomes := NewCollector(), NewCollector()
	blanked := 0
	for i := range reqs {
		all.Request(&reqs[i])
		r := reqs[i]
		if r.Failure == sources.FailureNone && len(r.Attempts) == 0 {
			r.Method, r.Path, r.Detail = "", "", ""
			blanked++
		}
		outcomes.Request(&r)
	}
	if blanked < 2000 {
		t.Fatalf("%d requests blanked", blanked)
	}
	if a, b := Merge(all), Merge(outcomes); !reflect.DeepEqual(a, b) {
		t.Errorf("the Dataset depends on the Method, Path or Detail of successes:\n%+v\n%+v", a, b)
	}
}

// TestCollectorRequestDoesNotAllocate checks that once a backend and an
// hour have been seen, a successful request costs no allocation.
func TestCollectorRequestDoesNotAllocate(t *testing.T) {
	reqs := collectorRequests(2000)
	c := NewCollector()
	for i := range reqs {
		c.Request(&reqs[i])
	}
	ok := &reqs[0]
	if n := testing.AllocsPerRun(1000, func() { c.Request(ok) }); n != 0 {
		t.Errorf("%v allocations per successful request, want 0", n)
	}
}

// BenchmarkCollectorRequest measures the Collector on a realistic stream.
func BenchmarkCollectorRequest(b *testing.B) {
	reqs := collectorRequests(100_000)
	b.ReportAllocs()
	for b.Loop() {
		c := NewCollector()
		for i := range reqs {
			c.Request(&reqs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(reqs)), "ns/request")
}

// BenchmarkMerge measures folding four collectors of a busy hour.
func BenchmarkMerge(b *testing.B) {
	reqs := collectorRequests(400_000)
	cs := make([]*Collector, 4)
	for k := range cs {
		cs[k] = NewCollector()
		for i := k; i < len(reqs); i += len(cs) {
			cs[k].Request(&reqs[i])
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Merge(cs...)
	}
}

// TestKeptFailuresOwnTheirStrings checks that a kept failure does not
// change when the buffer its strings were read from is reused.
func TestKeptFailuresOwnTheirStrings(t *testing.T) {
	buf := []byte("app/web/1a2bGET/api/itemsrefused")
	alias := func(from, to int) string { return unsafe.String(&buf[from], to-from) } // as the adapters hand them over
	c := NewCollector()
	r := collectorRequests(100)[99] // a failure
	r.LB, r.Method, r.Path, r.Detail = alias(0, 12), alias(12, 15), alias(15, 25), alias(25, len(buf))
	c.Request(&r)
	r.Origin.Line++ // the group's latest record
	c.Request(&r)
	for i := range buf {
		buf[i] = 'x'
	}
	d := Merge(c)
	if len(d.Failures) != 1 || d.Failures[0].N != 2 || d.Failures[0].LatestRecord() == d.Failures[0].Record() {
		t.Fatalf("%d failure groups, want one of two records", len(d.Failures))
	}
	for _, f := range []*sources.Request{d.Failures[0].Record(), d.Failures[0].LatestRecord()} {
		if f.LB != "app/web/1a2b" || f.Method != "GET" || f.Path != "/api/items" || f.Detail != "refused" {
			t.Errorf("kept failure %+v", f)
		}
	}
}

// TestEqualTimesOrderedByContent feeds the same lifecycle records of one
// second in two orders, as an export newest first and one oldest first
// would, and requires one order after the merge: by kind, then by what the
// records name, whatever the files' line numbers.
func TestEqualTimesOrderedByContent(t *testing.T) {
	at := time.Date(2026, 3, 25, 0, 57, 1, 0, time.UTC)
	records := []sources.Lifecycle{
		{Time: at, Kind: sources.ScaledDown, Namespace: "shop", Object: "Deployment/my-app", Group: "my-app-s8cz5ghdfh", Count: 0, From: 1},
		{Time: at, Kind: sources.PodDeleted, Namespace: "shop", Pod: "my-app-s8cz5ghdfh-hdsdb", Reason: "SuccessfulDelete"},
		{Time: at, Kind: sources.Killing, Namespace: "shop", Pod: "my-app-s8cz5ghdfh-hdsdb", Reason: "Killing"},
		{Time: at, Kind: sources.Killing, Namespace: "shop", Pod: "my-app-s8cz5ghdfh-abcde", Reason: "Killing"},
		{Time: at.Add(-time.Second), Kind: sources.ProbeFailed, Namespace: "shop", Pod: "my-app-jb4fkz4gxl-bjgk2", Reason: "Readiness"},
	}
	merged := func(reverse bool) []string {
		c := NewCollector()
		for i := range records {
			r := records[i]
			if reverse {
				r = records[len(records)-1-i]
			}
			r.Origin = sources.Origin{File: "k8s-events.json", Line: 10 * (i + 1)}
			c.Lifecycle(&r)
		}
		var out []string
		for _, l := range merge([]*Collector{c}, map[netip.Addr]*Traffic{}, true).Lifecycle {
			out = append(out, l.Kind.String()+" "+l.Pod+l.Object)
		}
		return out
	}
	want := []string{"probe_failed my-app-jb4fkz4gxl-bjgk2", "killing my-app-s8cz5ghdfh-abcde", "killing my-app-s8cz5ghdfh-hdsdb",
		"pod_deleted my-app-s8cz5ghdfh-hdsdb", "scaled_down Deployment/my-app"}
	for _, reverse := range []bool{false, true} {
		if got := merged(reverse); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("reversed %v:\n%s\nwant\n%s", reverse, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestCollectorKeepsPodStatusWithoutConditions checks that a pod's
// conditions and container states, which its lifecycle records already
// tell, are not kept, and that the rest of its status is, without
// changing the adapter's value.
func TestCollectorKeepsPodStatusWithoutConditions(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	st := &sources.PodStatus{IP: netip.MustParseAddr("10.0.1.5"), Node: "node-a", Phase: "Running", ReplicaSet: "web-7d9f", Started: at, Deleted: at.Add(time.Minute),
		Conditions: []sources.PodCondition{{Type: "Ready", Status: "True", LastTransition: at}},
		Containers: []sources.ContainerStatus{{Name: "web", Ready: true, StartedAt: at}}}
	c := NewCollector()
	c.Config(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "web-7d9f-abcde", Pod: st})
	// An event of its namespace: a pod nothing mentions is set aside.
	c.Lifecycle(&sources.Lifecycle{Kind: sources.Killing, Namespace: "shop", Pod: "web-7d9f-abcde", Time: at, From: -1, Format: sources.FormatK8sEvents})
	kept := Merge(c).Configs[0].Pod
	if kept.Conditions != nil || kept.Containers != nil {
		t.Errorf("kept conditions %v and containers %v", kept.Conditions, kept.Containers)
	}
	if kept.IP != st.IP || kept.Node != st.Node || kept.Phase != st.Phase || kept.ReplicaSet != st.ReplicaSet || kept.Started != st.Started || kept.Deleted != st.Deleted {
		t.Errorf("kept %+v, want the status of %+v", kept, st)
	}
	if len(st.Conditions) != 1 || len(st.Containers) != 1 {
		t.Errorf("the adapter's status was changed: %+v", st)
	}
}

// mergedEvents fills a set of two collectors with n events in all and
// merges it.
func mergedEvents(n int) *Dataset {
	set := NewCollectors()
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for w := range 2 {
		c := set.New()
		for i := w; i < n; i += 2 {
			c.Lifecycle(&sources.Lifecycle{Time: start.Add(time.Duration(i) * time.Second), Kind: sources.PodReady,
				Namespace: "shop", Pod: "web", Format: sources.FormatK8sObjects, Origin: sources.Origin{File: "pods.json", Line: w}})
		}
	}
	return set.Merge()
}

// TestMergeSetsTheHeapGoalFromWhatItKeeps merges a set of collectors
// holding many events: the heap goal afterwards follows the merged events,
// not the moment they and the collectors' copies were both live (about
// twice as much).
func TestMergeSetsTheHeapGoalFromWhatItKeeps(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	d := mergedEvents(2 * mergeCollectBytes / int(unsafe.Sizeof(sources.Lifecycle{})))
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	kept := uint64(mergedEventBytes(d))
	// GOGC=100: the goal is twice the live heap, here what the test held
	// before and the merged events; half of them again is the margin.
	if limit := 2*(before.HeapAlloc+kept) + kept/2; after.NextGC > limit {
		t.Errorf("heap goal after merging %d events (%d MB) is %d MB, want at most %d MB",
			len(d.Lifecycle), kept>>20, after.NextGC>>20, limit>>20)
	}
	runtime.KeepAlive(d)
}

// servedAt is a response backend ip sent at second sec past runsT0.
func servedAt(ip netip.Addr, sec int) *sources.Request {
	return &sources.Request{Time: runsT0.Add(time.Duration(sec) * time.Second), Status: 200, Generator: sources.GeneratedByBackend,
		Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess}
}

// TestBackendCacheSharedSlot checks that backends whose addresses fall in
// one slot of the cache are each counted as themselves.
func TestBackendCacheSharedSlot(t *testing.T) {
	a := netip.AddrFrom4([4]byte{10, 0, 0, 1})
	var b netip.Addr
	for i := 2; ; i++ {
		b = netip.AddrFrom4([4]byte{10, 0, byte(i >> 8), byte(i)})
		if slotOf(b) == slotOf(a) {
			break
		}
	}
	c := NewCollector()
	for i := range 10 {
		c.Request(servedAt(a, i))
		if i%2 == 0 {
			c.Request(servedAt(b, i))
		}
	}
	d := Merge(c)
	if d.Traffic[a].Served != 10 || d.Traffic[b].Served != 5 {
		t.Errorf("served %d by %v and %d by %v, want 10 and 5", d.Traffic[a].Served, a, d.Traffic[b].Served, b)
	}
}

// TestCollectorsFoldAtFoldRuns: whether a Collector of a set keeps its
// traffic when an input ends (one run fewer than foldRuns) or hands it to
// the set (foldRuns), the merged traffic is the same. Which way each took
// is checked so that both are tested; where the bound lies is memory only
// (equivalent.txt).
func TestCollectorsFoldAtFoldRuns(t *testing.T) {
	for _, runs := range []int{foldRuns - 1, foldRuns} {
		set := NewCollectors()
		c := set.New()
		// One backend per run, each serving twice, one second apart.
		for i := range runs {
			ip := netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
			c.Request(servedAt(ip, 0))
			c.Request(servedAt(ip, 1))
		}
		c.Flush()
		folded := len(set.traffic) > 0
		if want := runs >= foldRuns; folded != want || (folded && len(c.traffic) != 0) {
			t.Errorf("%d runs: folded %v (%d in the set, %d left), want %v", runs, folded, len(set.traffic), len(c.traffic), want)
		}
		d := set.Merge()
		if len(d.Traffic) != runs {
			t.Fatalf("%d runs: %d backends merged", runs, len(d.Traffic))
		}
		for ip, tr := range d.Traffic {
			if tr.Served != 2 || len(tr.Runs) != 1 || !tr.Runs.Last().Equal(runsT0.Add(time.Second)) {
				t.Fatalf("%v: %+v", ip, tr)
			}
		}
	}
}

// TestFlushStartsBackendsAtTheSetsLevel checks that after folding, a
// Collector builds the runs of a backend at the level the set's runs
// reached, so that a backend serving every few minutes adds one run an
// input instead of one a response, and that the Dataset is the one a
// single Collector makes of the same records. Backends at level 0 are let
// go, and the set holds its runs packed between folds.
func TestFlushStartsBackendsAtTheSetsLevel(t *testing.T) {
	const backends, every = 400, 360 // 400 backends serving every 6 minutes
	ip := func(k int) netip.Addr { return netip.AddrFrom4([4]byte{10, 5, byte(k >> 8), byte(k)}) }
	set, whole := NewCollectors(), NewCollector()
	c := set.New()
	feed := func(from, to int) {
		for i := from; i < to; i++ {
			for k := range backends {
				c.Request(servedAt(ip(k), i*every))
				whole.Request(servedAt(ip(k), i*every))
			}
		}
		c.Flush()
	}
	// 200 isolated runs a backend: 80,000 runs, folded at level 0, so
	// the Collector lets its backends go.
	feed(0, 200)
	if len(c.traffic) != 0 || set.traffic[ip(0)].level != 0 {
		t.Fatalf("after the first fold: %d backends kept, the set at level %d", len(c.traffic), set.traffic[ip(0)].level)
	}
	// The set holds its 200 runs a backend packed, 7 bytes each.
	if st := set.traffic[ip(0)]; st.Runs != nil || len(st.packed) > 200*7+8 || len(unpackRuns(nil, st.packed)) != 200 {
		t.Errorf("the set's runs: %d whole, %d bytes packed", len(st.Runs), len(st.packed))
	}
	// 200 more: the set's pauses of 6 minutes join at level 4 (8
	// minutes), where 40 hours cover 300 cells, so it goes on to level 5;
	// the Collector keeps each backend there, with no runs.
	feed(200, 400)
	tr := c.traffic[ip(7)]
	if tr == nil {
		t.Fatalf("after the second fold: %d backends kept, not the one that served", len(c.traffic))
	}
	if len(c.traffic) != backends || tr.level != 5 || len(tr.Runs) != 0 || tr.Served != 0 {
		t.Fatalf("after the second fold: %d backends kept, level %d, %d runs, %d served; want %d at level 5 with nothing served",
			len(c.traffic), tr.level, len(tr.Runs), tr.Served, backends)
	}
	// The set's runs joined into one: it lets go of the room 200 took.
	if st := set.traffic[ip(7)]; len(unpackRuns(nil, st.packed)) != 1 || cap(st.packed) > 2*len(st.packed) {
		t.Errorf("the set's runs at level 5: %d in %d bytes with room for %d", len(unpackRuns(nil, st.packed)), len(st.packed), cap(st.packed))
	}
	// The next 100 responses of a backend make one run, not 100.
	for i := 400; i < 500; i++ {
		for k := range backends {
			c.Request(servedAt(ip(k), i*every))
			whole.Request(servedAt(ip(k), i*every))
		}
	}
	if tr.level != 5 || len(tr.Runs) != 1 || tr.Served != 100 {
		t.Errorf("after inheriting level 5: level %d, %d runs, %d served; want 5, 1, 100", tr.level, len(tr.Runs), tr.Served)
	}
	got, want := set.Merge(), Merge(whole)
	for k := range backends {
		g, w := got.Traffic[ip(k)], want.Traffic[ip(k)]
		if g.Served != w.Served || g.level != w.level || !slices.Equal(g.Runs, w.Runs) {
			t.Fatalf("backend %d: %d served, level %d, runs %v; one Collector: %d, %d, %v", k, g.Served, g.level, g.Runs, w.Served, w.level, w.Runs)
		}
	}
}

// TestCollectorRunsBounded checks that a backend serving once every few
// minutes for days, which lets a Collector's runs grow past the bound, ends
// in the Dataset with runs over at most maxServedCells cells spanning all it served,
// whether merged alone or through a set.
func TestCollectorRunsBounded(t *testing.T) {
	ip := netip.AddrFrom4([4]byte{10, 0, 0, 1})
	const n = 5000
	for _, merged := range []func(fill func(*Collector)) *Dataset{
		func(fill func(*Collector)) *Dataset { c := NewCollector(); fill(c); return Merge(c) },
		func(fill func(*Collector)) *Dataset { s := NewCollectors(); fill(s.New()); return s.Merge() },
	} {
		d := merged(func(c *Collector) {
			for i := range n {
				c.Request(servedAt(ip, i*180))
			}
		})
		runs := d.Traffic[ip].Runs
		if len(runs) > maxServedCells || runs.cells(d.Traffic[ip].level) > maxServedCells || !runs.First().Equal(runsT0) || !runs.Last().Equal(runsT0.Add((n-1)*180*time.Second)) {
			t.Errorf("%d runs from %v to %v", len(runs), runs.First(), runs.Last())
		}
	}
}

// TestKeptRecordSizes pins the sizes the field order of a kept failure and
// of its attempts was chosen for: a field added or moved that pads them
// shows here (the benchmark keeps 13,554 groups of failures, 100,638
// failures, from 4 GB of ALB logs).
func TestKeptRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(sources.Request{}); n != 256 {
		t.Errorf("sources.Request takes %d bytes, want 256", n)
	}
	if n := unsafe.Sizeof(Attempt{}); n != 88 {
		t.Errorf("Attempt takes %d bytes, want 88", n)
	}
	if n := unsafe.Sizeof(pendingGroup{}); n != 64 {
		t.Errorf("pendingGroup takes %d bytes, want 64", n)
	}
	if n := unsafe.Sizeof(Failure{}); n != 128 {
		t.Errorf("Failure takes %d bytes, want 128", n)
	}
}

// TestMergeCountsAndOrders checks what Merge makes of several collectors:
// records counted by format (and no format that sent none), each backend's
// traffic summed with its failures' bounds, and records of equal time and
// origin kept in the order they were emitted.
func TestMergeCountsAndOrders(t *testing.T) {
	ip := netip.MustParseAddr("10.0.1.5")
	ok := func(s float64, f sources.Format) *sources.Request {
		return &sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.AddrPortFrom(ip, 8080), Format: f}
	}
	fail := func(s float64) *sources.Request {
		return &sources.Request{Time: at(s), Status: 502, Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
			Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess}
	}
	c1, c2 := NewCollector(), NewCollector()
	for _, r := range []*sources.Request{ok(1, sources.FormatALBAccess), ok(2, sources.FormatALBAccess), ok(3, sources.FormatIngressNginx), ok(4, sources.FormatALBAccess), fail(5), fail(9)} {
		c1.Request(r)
	}
	c2.Request(ok(20, sources.FormatALBAccess)) // served only: its failure bounds are zero
	origin := sources.Origin{File: "events.json", Line: 7}
	for _, k := range []sources.LifecycleKind{sources.PodDeleted, sources.Killing} {
		c2.Lifecycle(&sources.Lifecycle{Time: at(30), Kind: k, Pod: "web-1", Format: sources.FormatK8sEvents, Origin: origin, From: -1})
	}
	d := Merge(c1, c2)
	if got := fmt.Sprint(d.Formats); got != fmt.Sprint(map[sources.Format]int{sources.FormatALBAccess: 6, sources.FormatIngressNginx: 1, sources.FormatK8sEvents: 2}) {
		t.Errorf("formats %s", got)
	}
	tr := d.Traffic[ip]
	if tr == nil || tr.Served != 5 || tr.Failed != 2 || !tr.FirstFailed.Equal(at(5)) || !tr.LastFailed.Equal(at(9)) {
		t.Errorf("traffic %+v, want 5 served, 2 failed from 5 s to 9 s", tr)
	}
	// Records of one time are ordered by kind, in the order a pod goes
	// through them (compareLifecycle), whatever order they were read in.
	if len(d.Lifecycle) != 2 || d.Lifecycle[0].Kind != sources.Killing || d.Lifecycle[1].Kind != sources.PodDeleted {
		t.Errorf("records of one time not in kind order: %v", d.Lifecycle)
	}
}

// TestEventChunks checks the layout of a Collector's events: chunks of
// eventChunkSize events, filled before the next begins, read back in order
// and let go. The size itself bounds memory only (equivalent.txt).
func TestEventChunks(t *testing.T) {
	var e eventChunks
	for i := 0; i < 2*eventChunkSize+1; i++ {
		e.add(sources.Lifecycle{Count: i})
	}
	if len(e.chunks) != 3 || len(e.chunks[0]) != eventChunkSize || len(e.chunks[1]) != eventChunkSize || len(e.chunks[2]) != 1 || e.n != 2*eventChunkSize+1 {
		t.Fatalf("%d chunks for %d events", len(e.chunks), e.n)
	}
	all := e.appendTo(nil, true)
	for i, l := range all {
		if l.Count != i {
			t.Fatalf("event %d is %d", i, l.Count)
		}
	}
	if e.chunks != nil || e.n != 0 {
		t.Error("release kept the chunks")
	}
}

// ones makes a group of each record, as a Collector does of records with
// nothing in common.
func ones(rs ...*sources.Request) []*Failure {
	out := make([]*Failure, len(rs))
	for i, r := range rs {
		out[i] = groupOf(r)
	}
	return out
}

// groupOf makes a group of the one record r, as Merge makes it of a record
// a Collector kept alone.
func groupOf(r *sources.Request) *Failure {
	c := NewCollector()
	c.keep(r)
	for id, g := range c.failures {
		return g.failure(id.sec)
	}
	return nil
}

// TestMergeKeepsOneLinesEqualRecordsInOrder checks that records of one
// line that compare equal (they differ only in what compareLifecycle does
// not weigh, here the count) keep the order the adapter emitted them in.
func TestMergeKeepsOneLinesEqualRecordsInOrder(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	c := NewCollector()
	for _, n := range []int{3, 1} {
		c.Lifecycle(&sources.Lifecycle{Time: start, Kind: sources.ScaledUp, Namespace: "shop", Group: "web-new", Count: n,
			Format: sources.FormatK8sEvents, Origin: sources.Origin{File: "events.json", Line: 7}})
	}
	d := Merge(c)
	if len(d.Lifecycle) != 2 || d.Lifecycle[0].Count != 3 || d.Lifecycle[1].Count != 1 {
		t.Errorf("merged %+v, want counts 3 then 1 as emitted", d.Lifecycle)
	}
}

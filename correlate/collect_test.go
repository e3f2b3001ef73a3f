package correlate

import (
	"net/netip"
	"runtime"
	"runtime/debug"
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
	c.Request(&r)
	for i := range buf {
		buf[i] = 'x'
	}
	d := Merge(c)
	if len(d.Failures) != 2 {
		t.Fatalf("%d failures", len(d.Failures))
	}
	for _, f := range d.Failures {
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
		for _, l := range merge([]*Collector{c}, true).Lifecycle {
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
// merges it; it returns the Dataset and how many collections Merge ran.
func mergedEvents(n int) (*Dataset, uint32) {
	set := NewCollectors()
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	for w := range 2 {
		c := set.New()
		for i := w; i < n; i += 2 {
			c.Lifecycle(&sources.Lifecycle{Time: start.Add(time.Duration(i) * time.Second), Kind: sources.PodReady,
				Namespace: "shop", Pod: "web", Format: sources.FormatK8sObjects, Origin: sources.Origin{File: "pods.json", Line: w}})
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	forced := ms.NumForcedGC
	d := set.Merge()
	runtime.ReadMemStats(&ms)
	return d, ms.NumForcedGC - forced
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
	d, _ := mergedEvents(2 * mergeCollectBytes / int(unsafe.Sizeof(sources.Lifecycle{})))
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

// TestMergeCollectsFromMergeCollectBytes pins mergeCollectBytes: one
// collection for events that take that much, none for one event fewer.
func TestMergeCollectsFromMergeCollectBytes(t *testing.T) {
	n := (mergeCollectBytes + int(unsafe.Sizeof(sources.Lifecycle{})) - 1) / int(unsafe.Sizeof(sources.Lifecycle{}))
	for _, tc := range []struct{ events, want int }{{n - 1, 0}, {n, 1}} {
		d, gcs := mergedEvents(tc.events)
		if len(d.Lifecycle) != tc.events || int(gcs) != tc.want {
			t.Errorf("%d events (%d bytes): %d merged, %d collections, want %d", tc.events, mergedEventBytes(d), len(d.Lifecycle), gcs, tc.want)
		}
	}
}

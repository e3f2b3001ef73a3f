package correlate

import (
	"net/netip"
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

// TestCollectorsFoldAtFoldRuns pins foldRuns from both sides: a Collector
// of a set holding one run fewer keeps its traffic when an input ends, one
// holding foldRuns hands it to the set; either way the merged traffic is
// the same.
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

// TestCollectorRunsBounded checks that a backend serving once every few
// minutes for days, which lets a Collector's runs grow past the bound, ends
// in the Dataset with at most maxRunsPerBackend runs spanning all it served,
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
		if len(runs) > maxRunsPerBackend || !runs.First().Equal(runsT0) || !runs.Last().Equal(runsT0.Add((n-1)*180*time.Second)) {
			t.Errorf("%d runs from %v to %v", len(runs), runs.First(), runs.Last())
		}
	}
}

// TestKeptRecordSizes pins the sizes the field order of a kept failure and
// of its attempts was chosen for: a field added or moved that pads them
// shows here (the benchmark keeps 100,000 failures from 4 GB of ALB logs).
func TestKeptRecordSizes(t *testing.T) {
	if n := unsafe.Sizeof(sources.Request{}); n != 240 {
		t.Errorf("sources.Request takes %d bytes, want 240", n)
	}
	if n := unsafe.Sizeof(Attempt{}); n != 64 {
		t.Errorf("Attempt takes %d bytes, want 64", n)
	}
}

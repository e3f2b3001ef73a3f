package correlate

import (
	"fmt"
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
	if len(d.Lifecycle) != 2 || d.Lifecycle[0].Kind != sources.PodDeleted || d.Lifecycle[1].Kind != sources.Killing {
		t.Errorf("records of one time and origin reordered: %v", d.Lifecycle)
	}
}

// TestEventChunks checks the layout of a Collector's events: chunks of
// eventChunkSize events (about 300 KB each, so that growing never copies
// more), filled before the next begins.
func TestEventChunks(t *testing.T) {
	if size := eventChunkSize * unsafe.Sizeof(sources.Lifecycle{}); size < 200<<10 || size > 450<<10 {
		t.Errorf("a chunk of events is %d KB, want about 300 KB", size>>10)
	}
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

package correlate

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

func storeRequest(sec int64, f sources.FailureKind, hidden bool) *sources.Request {
	r := &sources.Request{Time: time.Unix(sec, 250_000_000).UTC(), Status: 200, Generator: sources.GeneratedByBackend, Failure: f,
		Backend: netip.MustParseAddrPort("10.0.0.2:8080"), Format: sources.FormatALBAccess}
	switch {
	case f == sources.FailureAppError:
		r.Status = 500
	case f.LBGenerated():
		r.Status, r.Generator, r.Backend = 502, sources.GeneratedByLB, netip.AddrPort{}
	}
	if hidden {
		r.Attempts = []sources.Attempt{{Backend: netip.MustParseAddrPort("10.0.0.9:8080"), Status: 502, Failure: sources.FailureRefused}, {Backend: r.Backend, Status: r.Status}}
	}
	return r
}

// TestSecondStore checks the per-second counts a Dataset answers with, across
// two collectors, on both sides of an hour boundary and before 1970.
func TestSecondStore(t *testing.T) {
	const base = 1_700_000_000 // 22:13:20 UTC: an hour boundary falls at base+2800
	a, b := NewCollector(), NewCollector()
	for i := 0; i < 3; i++ {
		a.Request(storeRequest(base, sources.FailureNone, false))
	}
	b.Request(storeRequest(base, sources.FailureNoBackend, false))
	b.Request(storeRequest(base, sources.FailureAppError, false))
	a.Request(storeRequest(base+2799, sources.FailureNone, true))
	b.Request(storeRequest(base+2800, sources.FailureTimeout, false))
	a.Request(storeRequest(-5, sources.FailureNone, false))
	d := Merge(a, b)

	want := Counts{Total: 5, OK: 3, AppErrors: 1}
	want.LBFailed[sources.FailureNoBackend] = 1
	if got := d.At(base); got != want {
		t.Errorf("At(base) = %+v, want %+v", got, want)
	}
	if got := d.At(base + 1); got != (Counts{}) {
		t.Errorf("a second without requests: %+v", got)
	}
	if got := d.At(base + 2799); got.Total != 1 || got.OK != 1 || got.Hidden != 1 {
		t.Errorf("the hidden retry: %+v", got)
	}
	if got := d.At(base + 2800); got.Total != 1 || got.LBFailed[sources.FailureTimeout] != 1 || got.AppErrors != 0 {
		t.Errorf("after the hour boundary: %+v", got)
	}
	if got := d.At(-5); got.Total != 1 || got.OK != 1 {
		t.Errorf("before 1970: %+v", got)
	}
	if first, last, ok := d.Span(); !ok || first != -5 || last != base+2800 {
		t.Errorf("Span = %d, %d, %v", first, last, ok)
	}
	var visited []int64
	d.Each(base, base+2800, func(sec int64, c Counts) {
		visited = append(visited, sec)
		if c != d.At(sec) {
			t.Errorf("Each gives %+v for %d, At %+v", c, sec, d.At(sec))
		}
	})
	if len(visited) != 3 || visited[0] != base || visited[1] != base+2799 || visited[2] != base+2800 {
		t.Errorf("Each visited %v", visited)
	}
	visited = nil
	d.Each(base+1, base+2799, func(sec int64, _ Counts) { visited = append(visited, sec) })
	if len(visited) != 1 || visited[0] != base+2799 {
		t.Errorf("Each over an inner range visited %v", visited)
	}
	sum := d.Sum(-10, base+2799)
	if sum.Total != 7 || sum.OK != 5 || sum.AppErrors != 1 || sum.Hidden != 1 || sum.Failed() != 1 {
		t.Errorf("Sum = %+v", sum)
	}
	if _, _, ok := Merge().Span(); ok {
		t.Error("an empty Dataset has a span")
	}
}

// TestSecondStoreIsSizedByTrafficNotSpan checks that records years apart
// cost a chunk each, not the seconds between them.
func TestSecondStoreIsSizedByTrafficNotSpan(t *testing.T) {
	c := NewCollector()
	for _, ts := range []time.Time{
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 10, 12, 30, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
	} {
		c.Request(storeRequest(ts.Unix(), sources.FailureNone, false))
	}
	if n := len(c.seconds.chunks); n != 3 {
		t.Fatalf("%d chunks, want 3", n)
	}
	d := Merge(c)
	first, last, _ := d.Span()
	if first != time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix() || last != time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix() {
		t.Errorf("Span = %d, %d", first, last)
	}
	if s := d.Sum(first, last); s.Total != 4 {
		t.Errorf("Sum over the whole span = %+v", s)
	}
}

// TestRequestSpan checks that stray records far from the traffic do not
// stretch the rules' data span, and pins FarGap and farShare on both
// sides: a group a little less than FarGap away and one holding farShare
// of the records stay, one a little more than FarGap away or below
// farShare is left out.
func TestRequestSpan(t *testing.T) {
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC).Unix()
	span := func(extra ...int64) (int64, int64) {
		c := NewCollector()
		for i := int64(0); i < 200; i++ {
			c.Request(storeRequest(base+i*15, sources.FailureNone, false)) // 12:00 to 12:49:45
		}
		for _, sec := range extra {
			c.Request(storeRequest(sec, sources.FailureNone, false))
		}
		first, last, ok := requestSpan(Merge(c))
		if !ok {
			t.Fatal("no span")
		}
		return first.Unix(), last.Unix()
	}
	end := base + 199*15
	year1, year9999 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	if first, last := span(year1, year9999); first != base || last != end {
		t.Errorf("stray years: %d, %d; want %d, %d", first, last, base, end)
	}
	gap := int64(FarGap / time.Second)
	// The last second of the hour after FarGap of empty hours, and the
	// first second of the next one.
	near := (base/3600+1)*3600 + gap + 3600 - 1
	if _, last := span(near); last != near {
		t.Errorf("a record FarGap of empty hours away is left out: span ends %d, want %d", last, near)
	}
	if _, last := span(near + 1); last != end {
		t.Errorf("a record more than FarGap away stays: span ends %d, want %d", last, end)
	}
	far := end + 30*gap
	if _, last := span(far, far+1, far+2); last != far+2 { // 3 of 203 records: above farShare
		t.Errorf("a far group above farShare is left out: span ends %d", last)
	}
	if _, last := span(far, far+1); last != end { // 2 of 202: below farShare
		t.Errorf("a far group below farShare stays: span ends %d", last)
	}
}

// TestMergeLeavesCollectorsAlone checks that merging twice gives the same
// counts: Merge does not add into the collectors it reads.
func TestMergeLeavesCollectorsAlone(t *testing.T) {
	a, b := NewCollector(), NewCollector()
	a.Request(storeRequest(1000, sources.FailureNone, false))
	b.Request(storeRequest(1000, sources.FailureNoBackend, false))
	first := Merge(a, b).At(1000)
	if second := Merge(a, b).At(1000); second != first || first.Total != 2 {
		t.Errorf("first merge %+v, second %+v", first, second)
	}
}

// TestCollectorsShareTheirHours checks that the Collectors of a set count
// as independent ones do while each keeps only the hours it is filling.
func TestCollectorsShareTheirHours(t *testing.T) {
	const base = 1_700_000_000
	set := NewCollectors()
	var alone []*Collector
	for k := 0; k < 3; k++ {
		c, a := set.New(), NewCollector()
		alone = append(alone, a)
		for i := int64(0); i < 5*3600; i += 7 {
			f := sources.FailureNone
			if i%91 == 0 {
				f = sources.FailureNoBackend
			}
			r := storeRequest(base+i+int64(k), f, i%13 == 0)
			c.Request(r)
			a.Request(r)
		}
		if n := len(c.seconds.chunks); n > windowChunks {
			t.Errorf("collector %d keeps %d chunks, want at most %d", k, n, windowChunks)
		}
	}
	got, want := set.Merge(), Merge(alone...)
	if got.Sum(base-3600, base+6*3600) != want.Sum(base-3600, base+6*3600) {
		t.Errorf("sums differ: %+v vs %+v", got.Sum(base-3600, base+6*3600), want.Sum(base-3600, base+6*3600))
	}
	for _, sec := range []int64{base, base + 7, base + 3601, base + 5*3600 - 5} {
		if got.At(sec) != want.At(sec) {
			t.Errorf("At(%d) = %+v, want %+v", sec, got.At(sec), want.At(sec))
		}
	}
	if again := set.Merge(); again != got {
		t.Error("a second Merge of the set built another Dataset")
	}
}

// TestSecondCountsCarry pins the 16-bit counts of the per-second store
// from both sides: a second with 65,535 requests and one with 65,536 or
// more (carried), counted by one collector and by two merged, through the
// shared store of a set too.
func TestSecondCountsCarry(t *testing.T) {
	const base = 1_700_000_000
	ok := storeRequest(base, sources.FailureNone, false)
	appErr := storeRequest(base, sources.FailureAppError, false)
	for _, n := range []int{math.MaxUint16, math.MaxUint16 + 1, 3*math.MaxUint16 + 7} {
		one, a, b := NewCollector(), NewCollector(), NewCollector()
		set := NewCollectors()
		x, y := set.New(), set.New()
		for i := range n {
			r := ok
			if i%10 == 0 {
				r = appErr
			}
			one.Request(r)
			[]*Collector{a, b}[i%2].Request(r)
			[]*Collector{x, y}[i%2].Request(r)
		}
		fails := (n + 9) / 10
		for name, d := range map[string]*Dataset{"one": Merge(one), "two": Merge(a, b), "set": set.Merge()} {
			if got := d.At(base); got.Total != n || got.OK != n-fails || got.AppErrors != fails {
				t.Errorf("%d requests, %s: %+v", n, name, got)
			}
			if s := d.Sum(base-1, base+1); s.Total != n {
				t.Errorf("%d requests, %s: Sum %+v", n, name, s)
			}
			if first, last, _ := requestSpan(d); first.Unix() != base || last.Unix() != base {
				t.Errorf("%d requests, %s: requestSpan %v, %v", n, name, first, last)
			}
		}
	}
}

// TestSecondStoreTake checks that take counts as add does, seconds in both
// stores included, and empties the store it takes from: what it moves is
// no longer held by both.
func TestSecondStoreTake(t *testing.T) {
	const base = 1_700_000_000
	fill := func(s *secondStore, from int64) {
		for i := from; i < from+2*3600; i += 5 {
			sec := base + i
			ch, k := s.chunkAt(sec)
			ch.addTotal(k)
			if i%3 == 0 {
				ch.sparse(k).hidden++
			}
		}
	}
	added, taken, src := newSecondStore(), newSecondStore(), newSecondStore()
	for _, s := range []*secondStore{&added, &taken} {
		fill(s, 0)
	}
	fill(&src, 3600)
	added.add(&src)
	taken.take(&src)
	if len(src.chunks) != 0 {
		t.Errorf("take left %d chunks in the store taken from", len(src.chunks))
	}
	fill(&src, 0) // a store taken from still counts
	if c, k := src.chunkAt(base); c.totalAt(k) != 1 || c.rareAt(k) == nil {
		t.Error("a store taken from does not count again")
	}
	a, b := &Dataset{seconds: added.freeze()}, &Dataset{seconds: taken.freeze()}
	for _, sec := range []int64{base, base + 3600, base + 3605, base + 2*3600 + 5, base + 3*3600 - 5} {
		if a.At(sec) != b.At(sec) {
			t.Errorf("At(%d): taken %+v, added %+v", sec, b.At(sec), a.At(sec))
		}
	}
	if got := b.At(base + 3600); got.Total != 2 || got.Hidden != 2 {
		t.Errorf("a second both stores counted: %+v, want 2 requests, 2 hidden", got)
	}
}

// TestStoreWindow checks which hours a Collector of a set keeps: the two
// (windowChunks) it filled last, handing the older ones over, and none
// once merged.
func TestStoreWindow(t *testing.T) {
	const base = 1_700_000_000 / 3600 * 3600
	set := NewCollectors()
	c := set.New()
	for h := int64(0); h < 4; h++ {
		c.Request(storeRequest(base+h*3600, sources.FailureNone, false))
	}
	c.Request(storeRequest(base+3*3600+1, sources.FailureNone, false))
	var hours []int64
	for h := range c.seconds.chunks {
		hours = append(hours, h-base/3600)
	}
	slices.Sort(hours)
	if fmt.Sprint(hours) != "[2 3]" {
		t.Errorf("the collector keeps hours %v, want [2 3]", hours)
	}
	d := set.Merge()
	if len(c.seconds.chunks) != 0 {
		t.Errorf("after the merge the collector keeps %d hours", len(c.seconds.chunks))
	}
	if s := d.Sum(base, base+4*3600); s.Total != 5 {
		t.Errorf("merged total %d, want 5", s.Total)
	}
}

// TestSecondsLookups checks lookups at the edges: a second after the last
// one with a rare outcome, and a span of one second.
func TestSecondsLookups(t *testing.T) {
	c := NewCollector()
	c.Request(storeRequest(1000, sources.FailureNoBackend, false))
	c.Request(storeRequest(2000, sources.FailureNone, false))
	d := Merge(c)
	if got := d.At(2000); got.Total != 1 || got.OK != 1 || got.Failed() != 0 {
		t.Errorf("At(2000) = %+v", got)
	}
	n := 0
	d.Each(2000, 2000, func(sec int64, c Counts) { n++ })
	if n != 1 {
		t.Errorf("Each over one second called %d times", n)
	}
	d.Each(2001, 2000, func(int64, Counts) { n++ })
	if n != 1 {
		t.Error("Each over an empty span called back")
	}
}

// TestAddChunkCarriesAtTheUnit pins where adding two chunks carries: sums
// of exactly 65,536 requests and successes in one second are counted
// whole, as are sums one under and one over, whether the chunk added to
// is dense or packed.
func TestAddChunkCarriesAtTheUnit(t *testing.T) {
	for _, packed := range []bool{false, true} {
		for _, sum := range []int{65535, 65536, 65537} {
			a, b := newChunk(), newChunk()
			a.counts.total[7], a.counts.ok[7] = 32768, 32768
			b.counts.total[7], b.counts.ok[7] = uint16(sum-32768), uint16(sum-32768)
			if packed {
				a.pack()
			}
			a.addChunk(b)
			if a.totalAt(7) != sum || a.okAt(7) != sum || (a.counts == nil) != packed {
				t.Errorf("packed %v, %d + %d: %d requests, %d successes, dense %v; want %d each", packed, 32768, sum-32768, a.totalAt(7), a.okAt(7), a.counts != nil, sum)
			}
		}
	}
}

// TestChunkPacksExactly checks that packing an hour keeps every count:
// quiet and busy seconds, seconds with fewer successes than requests, and
// counts past 65,535; and that a packed hour adds to a dense one, and a
// dense one to a packed one, as two dense ones add.
func TestChunkPacksExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	fill := func(busy int) *chunk {
		c := newChunk()
		for range 5000 {
			i := rng.IntN(chunkSeconds)
			for range 1 + rng.IntN(busy) {
				c.addTotal(i)
				if rng.IntN(50) != 0 {
					c.addOK(i)
				}
			}
		}
		return c
	}
	same := func(name string, got, want *chunk) {
		t.Helper()
		for i := range chunkSeconds {
			if got.totalAt(i) != want.totalAt(i) || got.okAt(i) != want.okAt(i) || got.has(i) != want.has(i) {
				t.Fatalf("%s, second %d: %d requests, %d successes; want %d, %d", name, i, got.totalAt(i), got.okAt(i), want.totalAt(i), want.okAt(i))
			}
		}
	}
	widths := map[uint8]bool{}
	for _, busy := range []int{1, 3, 300} {
		a, b := fill(busy), fill(busy)
		a.carry(99, 0, 2) // 131,072 more requests and 65,536 more successes
		a.carry(99, 1, 1)
		bits := uint8(4)
		switch busiest := slices.Max(a.counts.total[:]); {
		case busiest > 255:
			bits = 16
		case busiest > 15:
			bits = 8
		}
		widths[bits] = true
		pa := a.packed()
		if pa.counts != nil || pa.bits != bits {
			t.Fatalf("busy %d: dense %v, %d bits a second, want %d", busy, pa.counts != nil, pa.bits, bits)
		}
		same(fmt.Sprintf("busy %d, packed", busy), pa, a)
		pa.unpack()
		same(fmt.Sprintf("busy %d, unpacked", busy), pa, a)

		want := a.packed()
		want.unpack()
		want.addChunk(b)
		toPacked := a.packed()
		toPacked.addChunk(b)
		same(fmt.Sprintf("busy %d, dense added to packed", busy), toPacked, want)
		toDense := a.packed()
		toDense.unpack()
		toDense.addChunk(b.packed())
		same(fmt.Sprintf("busy %d, packed added to dense", busy), toDense, want)
	}
	if len(widths) != 3 {
		t.Errorf("the hours packed in %v bits a second, want 4, 8 and 16", widths)
	}
}

// TestChunkPacksInAsFewBitsAsItNeeds pins the packed width from both
// sides of each step: an hour whose busiest second had 15 requests takes
// 4 bits a second, 16 and 255 a byte, 256 two bytes; all read back
// exactly, and so do the seconds beside them.
func TestChunkPacksInAsFewBitsAsItNeeds(t *testing.T) {
	for _, tc := range []struct {
		n    uint16
		bits uint8
	}{{15, 4}, {16, 8}, {255, 8}, {256, 16}} {
		for _, at := range []int{0, 1, 3598, 3599} {
			c := newChunk()
			c.counts.total[at], c.counts.ok[at] = tc.n, tc.n-1
			c.counts.total[1799], c.counts.ok[1799] = 1, 1
			c.pack()
			if c.bits != tc.bits || len(c.totals) != chunkSeconds*int(tc.bits)/8 {
				t.Errorf("%d requests in a second: %d bits, %d bytes; want %d bits", tc.n, c.bits, len(c.totals), tc.bits)
			}
			for i := range chunkSeconds {
				total, ok := 0, 0
				switch i {
				case at:
					total, ok = int(tc.n), int(tc.n)-1
				case 1799:
					total, ok = 1, 1
				}
				if c.totalAt(i) != total || c.okAt(i) != ok {
					t.Fatalf("%d requests at second %d: second %d read back %d, %d successes; want %d, %d", tc.n, at, i, c.totalAt(i), c.okAt(i), total, ok)
				}
			}
		}
	}
}

// TestChunkRareOutcomesInAnyOrder checks that a chunk's rare outcomes,
// added for seconds in any order, read back by second as added, keep
// their order, and add up when chunks are added, dense or packed; and
// that a packed chunk keeps no room to spare for them.
func TestChunkRareOutcomesInAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	fill := func() (*chunk, map[int]sparseCounts) {
		c, want := newChunk(), map[int]sparseCounts{}
		for range 3000 {
			i := rng.IntN(chunkSeconds)
			if rng.IntN(4) == 0 { // mostly in time order, now and then back
				i = max(int(c.lastRare())-rng.IntN(5), 0)
			}
			c.addTotal(i)
			w := want[i]
			if rng.IntN(3) == 0 {
				c.sparse(i).hidden++
				w.hidden++
			} else {
				k := sources.FailureNoBackend + sources.FailureKind(rng.IntN(6))
				c.sparse(i).lbFailed[k]++
				w.lbFailed[k]++
			}
			want[i] = w
		}
		return c, want
	}
	check := func(name string, c *chunk, want map[int]sparseCounts) {
		t.Helper()
		if !slices.IsSortedFunc(c.rare, func(a, b rareCounts) int { return cmp.Compare(a.i, b.i) }) || len(c.rare) != len(want) {
			t.Fatalf("%s: %d rare seconds, want %d in order", name, len(c.rare), len(want))
		}
		for i := range chunkSeconds {
			got := c.rareAt(i)
			if w, ok := want[i]; ok != (got != nil) || ok && *got != w {
				t.Fatalf("%s, second %d: %+v, want %+v", name, i, got, w)
			}
		}
	}
	a, wantA := fill()
	b, wantB := fill()
	check("dense", a, wantA)
	sum := map[int]sparseCounts{}
	for _, w := range []map[int]sparseCounts{wantA, wantB} {
		for i, x := range w {
			s := sum[i]
			s.add(&x)
			sum[i] = s
		}
	}
	pa := a.packed()
	check("packed", pa, wantA)
	pa.addChunk(b)
	check("dense added to packed", pa, sum)
	if cap(pa.rare) != len(pa.rare) {
		t.Errorf("a packed chunk keeps room for %d rare seconds, holding %d", cap(pa.rare), len(pa.rare))
	}
	a.addChunk(b.packed())
	check("packed added to dense", a, sum)
}

// lastRare is the second of the chunk's last rare outcome; 0 without one.
func (c *chunk) lastRare() uint16 {
	if len(c.rare) == 0 {
		return 0
	}
	return c.rare[len(c.rare)-1].i
}

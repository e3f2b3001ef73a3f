package correlate

import (
	"net/netip"
	"testing"
	"time"
	"unsafe"

	"github.com/readygap/readygap/sources"
)

// TestBackendCacheSlots checks that the backend cache has 4096 slots and
// that slotOf reaches them all: its size is 1<<backendSlotBits, and the
// 1,024 pods of four /24 node ranges land in more than 900 distinct slots
// (few share one), which a hash of fewer bits cannot give.
func TestBackendCacheSlots(t *testing.T) {
	var c backendCache
	if len(c.ips) != 4096 || len(c.traffic) != 4096 || 1<<backendSlotBits != 4096 {
		t.Fatalf("cache of %d/%d slots, %d hash bits; want 4096 slots, 12 bits", len(c.ips), len(c.traffic), backendSlotBits)
	}
	used := map[int]bool{}
	for i := range 1024 {
		k := slotOf(netip.AddrFrom4([4]byte{10, 4, byte(i >> 8), byte(i)}))
		if k < 0 || k >= 4096 {
			t.Fatalf("slot %d out of the cache", k)
		}
		used[k] = true
	}
	if len(used) <= 900 {
		t.Errorf("1,024 backends share %d slots, want more than 900", len(used))
	}
}

// TestFlushFoldsAtFoldRuns pins foldRuns (16,384) from both sides: a
// Collector of a set holding 16,383 runs keeps its traffic on Flush, one
// holding 16,384 folds it into the set's.
func TestFlushFoldsAtFoldRuns(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	folded := func(runs int) int {
		s := NewCollectors()
		c := s.New()
		for k := range runs {
			b, n := k/64, k%64 // 64 runs a backend, a minute apart
			c.Request(&sources.Request{Time: start.Add(time.Duration(n) * time.Minute), Status: 200,
				Generator: sources.GeneratedByBackend, Format: sources.FormatIngressNginx,
				Backend: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 4, byte(b >> 8), byte(b)}), 8080)})
		}
		c.Flush()
		return len(s.traffic)
	}
	if n := folded(16383); n != 0 {
		t.Errorf("16,383 runs: Flush folded %d backends, want none", n)
	}
	if n := folded(16384); n != 256 {
		t.Errorf("16,384 runs: Flush folded %d backends, want 256", n)
	}
}

// TestMergeCollectsAt32MiB pins mergeCollectBytes (32 MiB) from both
// sides: Merge forces a collection when the merged events take 32 MiB or
// more, and not just below.
func TestMergeCollectsAt32MiB(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	per := int(unsafe.Sizeof(sources.Lifecycle{}))
	forced := func(events int) bool {
		s := NewCollectors()
		c := s.New()
		for k := range events {
			c.Lifecycle(&sources.Lifecycle{Time: start.Add(time.Duration(k) * time.Millisecond), Kind: sources.PodReady,
				Namespace: "shop", Pod: "web-1", Format: sources.FormatK8sEvents})
		}
		d, forced := mergeCountingCollections(s)
		if len(d.Lifecycle) != events {
			t.Fatalf("merged %d events of %d", len(d.Lifecycle), events)
		}
		return forced > 0
	}
	below := (32 << 20) / per // the most events under 32 MiB
	if below*per == 32<<20 {
		below--
	}
	if forced(below) {
		t.Errorf("%d events (%d bytes, under 32 MiB): Merge forced a collection", below, below*per)
	}
	above := below + 1
	if !forced(above) {
		t.Errorf("%d events (%d bytes, 32 MiB or more): Merge forced no collection", above, above*per)
	}
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

// TestMergeCollectsAt1MiBOfGroups pins mergeCollectGroupBytes (1 MiB) from
// both sides: Merge forces a collection before making the failure groups
// when they take 1 MiB or more, and not just below.
func TestMergeCollectsAt1MiBOfGroups(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	forced := func(groups int) bool {
		s := NewCollectors()
		c := s.New()
		for k := range groups { // one group a second
			c.Request(&sources.Request{Time: start.Add(time.Duration(k) * time.Second), Status: 503,
				Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend, Format: sources.FormatALBAccess})
		}
		d, forced := mergeCountingCollections(s)
		if len(d.Failures) != groups {
			t.Fatalf("merged %d groups of %d", len(d.Failures), groups)
		}
		return forced > 0
	}
	below := (1<<20 - 1) / materializedBytes // the most groups under 1 MiB
	if forced(below) {
		t.Errorf("%d groups (%d bytes, under 1 MiB): Merge forced a collection", below, below*materializedBytes)
	}
	if above := below + 1; !forced(above) {
		t.Errorf("%d groups (%d bytes, 1 MiB or more): Merge forced no collection", above, above*materializedBytes)
	}
}

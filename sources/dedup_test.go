package sources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// TestDedupShardGrowsAtMaxLoad checks the first table's size and that a
// table doubles with the key that would fill it past
// dedupMaxLoadNum/dedupMaxLoadDen, not before.
func TestDedupShardGrowsAtMaxLoad(t *testing.T) {
	var s dedupShard
	full := dedupMinSlots * dedupMaxLoadNum / dedupMaxLoadDen
	for k := uint64(1); k <= uint64(full); k++ {
		if s.add(k << dedupShardBits) {
			t.Fatalf("new key %d found", k)
		}
		if len(s.slots) != dedupMinSlots {
			t.Fatalf("%d keys: %d slots, want %d", k, len(s.slots), dedupMinSlots)
		}
	}
	s.add(uint64(full+1) << dedupShardBits)
	if len(s.slots) != 2*dedupMinSlots || s.n != full+1 {
		t.Fatalf("%d keys: %d slots, want %d", s.n, len(s.slots), 2*dedupMinSlots)
	}
}

// TestDedupShardKeys adds keys that share their first slot, that wrap
// round the end of the table, and enough to grow it many times, and checks
// that each is found again and no other is.
func TestDedupShardKeys(t *testing.T) {
	var s dedupShard
	var keys []uint64
	// Keys whose slot bits are equal: one probe sequence for all.
	for i := range uint64(8) {
		keys = append(keys, (5+i*dedupMinSlots)<<dedupShardBits|3)
	}
	// Keys whose first slot is the table's last.
	for i := range uint64(4) {
		keys = append(keys, (dedupMinSlots-1+i*dedupMinSlots)<<dedupShardBits|7)
	}
	for i := range uint64(20000) {
		keys = append(keys, (i+1)*0x9e3779b97f4a7c15)
	}
	for _, k := range keys {
		if s.add(k) {
			t.Fatalf("new key %#x found", k)
		}
	}
	if s.n != len(keys) {
		t.Fatalf("%d keys kept, want %d", s.n, len(keys))
	}
	for _, k := range keys {
		if !s.add(k) {
			t.Fatalf("key %#x lost", k)
		}
	}
	for i := range uint64(1000) {
		if k := (i+1)*0x9e3779b97f4a7c15 + 1; !slices.Contains(keys, k) && s.add(k) {
			t.Fatalf("key %#x found but never added", k)
		}
	}
	// 0 marks a free slot: it is kept as 1.
	var z dedupShard
	if z.add(0) || !z.add(1) || !z.add(0) {
		t.Error("0 is not kept as 1")
	}
}

// TestReadDeduplicatesInParallel reads the same entries from two inputs at
// once, one an NDJSON file and the other a gcloud array in the reverse
// order, each on several workers: every entry must count once, and every
// other copy as a duplicate, whichever worker saw it first.
func TestReadDeduplicatesInParallel(t *testing.T) {
	const n = 3000
	entries := gcpBenchEntries(n)
	var nd, pretty bytes.Buffer
	pretty.WriteString("[\n")
	for i, e := range entries {
		nd.Write(e)
		nd.WriteByte('\n')
		var b bytes.Buffer
		if err := json.Indent(&b, entries[n-1-i], "  ", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteString("  ")
		pretty.Write(b.Bytes())
		if i < n-1 {
			pretty.WriteByte(',')
		}
		pretty.WriteByte('\n')
	}
	pretty.WriteString("]\n")
	dir := t.TempDir()
	a := writeFile(t, dir, "a.ndjson", nd.Bytes())
	b := writeFile(t, dir, "b.json", pretty.Bytes())
	res, h := readPaths(t, Options{Workers: 2}, a, b)
	records, dups := 0, 0
	for _, in := range res.Inputs {
		records += in.Records
		dups += in.Duplicates
		if in.Skipped != 0 {
			t.Errorf("%s: %d skipped", in.Name, in.Skipped)
		}
	}
	if records != n || dups != n || h.requests != n {
		t.Fatalf("%d records, %d duplicates, %d requests; want %d, %d, %d", records, dups, h.requests, n, n, n)
	}
}

// BenchmarkDedupSet measures a run's deduplication of 200,000 entries of
// one log, each seen once.
func BenchmarkDedupSet(b *testing.B) {
	ids := make([]string, 200000)
	for i := range ids {
		ids[i] = fmt.Sprintf("1x2k9abf%07d", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := newDedupSet()
		for _, id := range ids {
			if d.seen("projects/my-project/logs/requests", id) {
				b.Fatal("duplicate")
			}
		}
	}
}

package correlate

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var runsT0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func after(d time.Duration) time.Time { return runsT0.Add(d) }

// TestRunsSplitAtTheGap pins servedRunGap from both sides: a pause just
// under it keeps one run, a pause just over it starts another.
func TestRunsSplitAtTheGap(t *testing.T) {
	var tr Traffic
	tr.serve(after(0))
	tr.serve(after(servedRunGap - time.Millisecond))
	if len(tr.Runs) != 1 {
		t.Fatalf("a pause under the gap split the run: %v", tr.Runs)
	}
	tr.serve(after(2*servedRunGap + time.Millisecond))
	r := tr.Runs
	if len(r) != 2 {
		t.Fatalf("a pause over the gap did not split the run: %v", r)
	}
	if !r.Serving(after(servedRunGap/2)) || r.Serving(after(servedRunGap+servedRunGap/2)) {
		t.Errorf("Serving wrong: %v", r)
	}
	if got := r.FirstIn(after(servedRunGap), time.Time{}); !got.Equal(after(2*servedRunGap + time.Millisecond)) {
		t.Errorf("FirstIn = %v", got)
	}
	if got := r.LastIn(time.Time{}, after(servedRunGap+time.Second)); !got.Equal(after(servedRunGap - time.Millisecond)) {
		t.Errorf("LastIn = %v", got)
	}
}

// TestRunsOrderFree checks that the runs do not depend on the order records
// arrive in (parallel parsing, newest-first exports).
func TestRunsOrderFree(t *testing.T) {
	var times []time.Time
	for i := 0; i < 300; i++ {
		d := time.Duration(i) * time.Second
		if i >= 100 && i < 200 {
			continue // a 100 s pause: two runs
		}
		times = append(times, after(d))
	}
	want := serveAll(times...).Runs
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
		got := serveAll(times...).Runs
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("shuffled: %v, in order: %v", got, want)
		}
		var a, b Traffic
		for i, x := range times {
			if i%2 == 0 {
				a.serve(x)
			} else {
				b.serve(x)
			}
		}
		a.mergeRuns(&b)
		if len(a.Runs) != 2 || a.Runs[0] != want[0] || a.Runs[1] != want[1] {
			t.Fatalf("merged halves: %v, want %v", a.Runs, want)
		}
	}
}

// serveAll returns the traffic of a backend that served at times, in that
// order.
func serveAll(times ...time.Time) *Traffic {
	tr := &Traffic{}
	for _, x := range times {
		tr.serve(x)
	}
	return tr
}

// TestRunsBounded checks that a backend serving once every 3 minutes for
// ten days keeps runs that cover at most maxServedCells cells, spanning
// everything: at levels 0 to 2 (pauses of 30 s to 2 min) every response is
// a run of its own, at level 3 (4 min) one run covers 3,750 cells, and the
// first level whose cells it fits is 7 (64 min, 235 cells).
func TestRunsBounded(t *testing.T) {
	var tr Traffic
	for i := 0; i < 5000; i++ {
		tr.serve(after(time.Duration(i) * 3 * time.Minute))
	}
	r := tr.Runs
	if tr.level != 7 || len(r) != 1 || tr.cells > maxServedCells || tr.cells != r.cells(tr.level) {
		t.Fatalf("level %d, %d runs over %d cells", tr.level, len(r), tr.cells)
	}
	if !r.First().Equal(after(0)) || !r.Last().Equal(after(4999*3*time.Minute)) {
		t.Errorf("span %v–%v", r.First(), r.Last())
	}
}

// TestRunsHoldFarTimesApart checks that responses served at times an int64
// of nanoseconds cannot hold (a stray year-1 or year-9999 record) stay
// runs of their own, in order, beside the real traffic.
func TestRunsHoldFarTimesApart(t *testing.T) {
	far := []time.Time{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)}
	tr := serveAll(append([]time.Time{after(0), after(time.Second)}, far...)...)
	r := tr.Runs
	if len(r) != 3 || tr.level != 0 || tr.cells != 3 {
		t.Fatalf("%d runs, want 3: %v", len(r), r)
	}
	if !r[1].From().Equal(after(0)) || !r[1].To().Equal(after(time.Second)) {
		t.Errorf("the real run is %v–%v", r[1].From(), r[1].To())
	}
	if !r.First().Before(after(0)) || !r.Last().After(after(time.Second)) {
		t.Errorf("far runs %v and %v are not on each side", r.First(), r.Last())
	}
	if !r.Serving(after(500*time.Millisecond)) || r.Serving(after(time.Hour)) {
		t.Errorf("Serving wrong: %v", r)
	}
}

// TestRunsNewestFirst checks the runs of responses added newest first, as
// gcloud lists entries: the same runs as in time order, and a response
// that comes within the gap of the run before joins the two.
func TestRunsNewestFirst(t *testing.T) {
	var fwd, back Traffic
	for i := 0; i < 300; i++ {
		if i < 100 || i >= 200 {
			fwd.serve(after(time.Duration(i) * time.Second))
			back.serve(after(time.Duration(299-i) * time.Second))
		}
	}
	if len(back.Runs) != 2 || back.Runs[0] != fwd.Runs[0] || back.Runs[1] != fwd.Runs[1] || back.cells != fwd.cells {
		t.Fatalf("newest first: %v, in order: %v", back.Runs, fwd.Runs)
	}
	// 170 s and 140 s extend the second run back; 129 s is within the gap
	// of both runs and joins them.
	back.serve(after(170 * time.Second))
	back.serve(after(140 * time.Second))
	if len(back.Runs) != 2 || !back.Runs[1].From().Equal(after(140*time.Second)) {
		t.Fatalf("extended back: %v", back.Runs)
	}
	back.serve(after(129 * time.Second))
	if r := back.Runs; len(r) != 1 || !r[0].From().Equal(after(0)) || !r[0].To().Equal(after(299*time.Second)) {
		t.Errorf("bridged: %v", r)
	}
	if back.cells != back.Runs.cells(0) || back.cells != 10 {
		t.Errorf("%d cells counted, the runs cover %d", back.cells, back.Runs.cells(0))
	}
}

// TestRunsSameWhateverTheSplit checks that a backend's runs, their level
// and their cells do not depend on how its records were split between
// collectors, in which order each saw its part, or in which order the
// parts were folded together — also when the parts go up levels on their
// own, or start at a level up to the final one: records a few minutes
// apart over hours to days, with bursts.
func TestRunsSameWhateverTheSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	levels := map[uint8]bool{}
	for round := range 300 {
		var times []time.Time
		at := time.Duration(0)
		for range 50 + rng.IntN(1500) {
			switch rng.IntN(4) {
			case 0:
				at += time.Duration(rng.IntN(20)) * time.Second // a burst
			default:
				at += time.Duration(30+rng.IntN(1200*(1+round%4))) * time.Second
			}
			times = append(times, after(at))
		}
		want := serveAll(times...)
		levels[want.level] = true
		parts := make([]*Traffic, 1+rng.IntN(4))
		for i := range parts {
			// A Collector starts a backend at the level its set's runs
			// reached (see Flush): any level up to the final one.
			parts[i] = &Traffic{level: uint8(rng.IntN(int(want.level) + 1))}
		}
		rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
		for _, x := range times {
			parts[rng.IntN(len(parts))].serve(x)
		}
		rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		got := parts[0]
		for _, p := range parts[1:] {
			got.Served += p.Served
			got.mergeRuns(p)
		}
		if got.level != want.level || got.cells != want.cells || got.Served != want.Served || !slices.Equal(got.Runs, want.Runs) {
			t.Fatalf("round %d, %d parts: level %d, %d cells, %d runs; in order: level %d, %d cells, %d runs",
				round, len(parts), got.level, got.cells, len(got.Runs), want.level, want.cells, len(want.Runs))
		}
		if want.cells > maxServedCells || want.cells != want.Runs.cells(want.level) {
			t.Fatalf("round %d: %d cells counted, %d covered, at level %d", round, want.cells, want.Runs.cells(want.level), want.level)
		}
	}
	if len(levels) < 3 {
		t.Errorf("the rounds reached only levels %v", levels)
	}
}

// TestRunsMergeMatchesAdd checks that merging two lists of runs gives what
// adding the second's runs one by one gives.
func TestRunsMergeMatchesAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 200; round++ {
		var a, b Runs
		for range 20 + rng.IntN(20) {
			x := nanos(after(time.Duration(rng.IntN(3600)) * time.Second))
			if rng.IntN(2) == 0 {
				a.add(x, 0)
			} else {
				b.add(x, 0)
			}
		}
		want := append(Runs(nil), a...)
		for _, run := range b {
			want.addRun(run, 0)
		}
		got := append(Runs(nil), a...)
		got.merge(b, 0)
		if !slices.Equal(got, want) {
			t.Fatalf("Merge %v\nadding %v", got, want)
		}
	}
}

// TestRunsPackExactly checks that runs come back from packing as they
// were: in the past and the future, as far as the bounds runs hold, of no
// length and of centuries, and appended after others; and that runs six
// minutes apart take 7 bytes each.
func TestRunsPackExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for round := range 200 {
		var r Runs
		at := int64(math.MinInt64)
		if round%2 == 1 {
			at = -rng.Int64N(1 << 62)
		}
		for range rng.IntN(50) {
			from := satAdd(at, 1+rng.Int64N(1<<(1+rng.IntN(62))))
			to := satAdd(from, rng.Int64N(1<<(1+rng.IntN(62))))
			if from <= at || to < from {
				break
			}
			r = append(r, Run{from, to})
			at = to
		}
		if round == 0 {
			r = Runs{{math.MinInt64, math.MinInt64}, {0, 0}, {1, math.MaxInt64}}
		}
		if got := unpackRuns(nil, packRuns(nil, r)); !slices.Equal(got, r) {
			t.Fatalf("round %d: %v came back as %v", round, r, got)
		}
		before := Runs{{1, 2}}
		if got := unpackRuns(before, packRuns(nil, r)); !slices.Equal(got[1:], r) || got[0] != before[0] {
			t.Fatalf("round %d, appended: %v came back as %v", round, r, got)
		}
	}
	var sparse Runs
	for i := range 256 {
		x := nanos(after(time.Duration(i) * 6 * time.Minute))
		sparse = append(sparse, Run{x, x})
	}
	if n := len(packRuns(nil, sparse)); n > 256*7+8 {
		t.Errorf("256 runs 6 minutes apart packed in %d bytes, want 7 a run", n)
	}
}

// TestNanosClampBounds pins the Unix seconds nanos holds exactly, in
// literal numbers: -9223372035 and 9223372035 are the last seconds kept,
// one second past either is clamped, and seconds well inside the range
// (±5e9, half of it) are kept, not clamped.
func TestNanosClampBounds(t *testing.T) {
	for _, tc := range []struct {
		sec  int64
		want int64
	}{
		{-9223372036, math.MinInt64},
		{-9223372035, -9223372035000000000},
		{-5000000000, -5000000000000000000},
		{5000000000, 5000000000000000000},
		{9223372035, 9223372035000000000},
		{9223372036, math.MaxInt64},
	} {
		if got := nanos(time.Unix(tc.sec, 0)); got != tc.want {
			t.Errorf("nanos(Unix %d s) = %d, want %d", tc.sec, got, tc.want)
		}
	}
}

// TestRunsLetGoOfRoomWhenCoarsened checks that runs that go up a level
// give back the room the finer level took: a backend that served once a
// minute has a run of its own for each response at level 0 (pauses over
// 30 s), 257 of them at the bound; at level 1 (pauses of 60 s join) they
// are one run over as many cells, and at level 2 one over half as many,
// which must not keep room for hundreds.
func TestRunsLetGoOfRoomWhenCoarsened(t *testing.T) {
	var tr Traffic
	for i := range 260 {
		tr.serve(after(time.Duration(i) * time.Minute))
	}
	if len(tr.Runs) != 1 || tr.level != 2 || tr.cells != 130 || cap(tr.Runs) > 8 {
		t.Errorf("260 responses a minute apart: %d runs at level %d over %d cells with room for %d", len(tr.Runs), tr.level, tr.cells, cap(tr.Runs))
	}
}

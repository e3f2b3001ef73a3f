package correlate

import (
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
	var r Runs
	r.Add(after(0))
	r.Add(after(servedRunGap - time.Millisecond))
	if len(r) != 1 {
		t.Fatalf("a pause under the gap split the run: %v", r)
	}
	r.Add(after(2*servedRunGap + time.Millisecond))
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
	var want Runs
	for _, x := range times {
		want.Add(x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		rng.Shuffle(len(times), func(i, j int) { times[i], times[j] = times[j], times[i] })
		var got Runs
		for _, x := range times {
			got.Add(x)
		}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("shuffled: %v, in order: %v", got, want)
		}
		var a, b Runs
		for i, x := range times {
			if i%2 == 0 {
				a.Add(x)
			} else {
				b.Add(x)
			}
		}
		a.Merge(b)
		if len(a) != 2 || a[0] != want[0] || a[1] != want[1] {
			t.Fatalf("merged halves: %v, want %v", a, want)
		}
	}
}

// TestRunsBounded checks that a backend serving once every few minutes for
// days keeps at most maxRunsPerBackend runs, spanning everything.
func TestRunsBounded(t *testing.T) {
	var r Runs
	for i := 0; i < 5000; i++ {
		r.Add(after(time.Duration(i) * 3 * time.Minute))
	}
	if len(r) > maxRunsPerBackend {
		t.Fatalf("%d runs", len(r))
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
	var r Runs
	r.Add(after(0))
	r.Add(after(time.Second))
	for _, x := range far {
		r.Add(x)
	}
	if len(r) != 3 {
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
	var fwd, back Runs
	for i := 0; i < 300; i++ {
		if i < 100 || i >= 200 {
			fwd.Add(after(time.Duration(i) * time.Second))
			back.Add(after(time.Duration(299-i) * time.Second))
		}
	}
	if len(back) != 2 || back[0] != fwd[0] || back[1] != fwd[1] {
		t.Fatalf("newest first: %v, in order: %v", back, fwd)
	}
	// 170 s and 140 s extend the second run back; 129 s is within the gap
	// of both runs and joins them.
	back.Add(after(170 * time.Second))
	back.Add(after(140 * time.Second))
	if len(back) != 2 || !back[1].From().Equal(after(140*time.Second)) {
		t.Fatalf("extended back: %v", back)
	}
	back.Add(after(129 * time.Second))
	if len(back) != 1 || !back[0].From().Equal(after(0)) || !back[0].To().Equal(after(299*time.Second)) {
		t.Errorf("bridged: %v", back)
	}
}

// TestRunsBoundAllMatchesBound checks that bounding a long list of runs in
// one sort merges the same pauses as merging the two closest runs one
// merge at a time, ties included, on each side of boundOneByOne.
func TestRunsBoundAllMatchesBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []int{maxRunsPerBackend, maxRunsPerBackend + boundOneByOne, maxRunsPerBackend + boundOneByOne + 1}
	for range 200 {
		sizes = append(sizes, maxRunsPerBackend+rng.IntN(3*maxRunsPerBackend))
	}
	for _, n := range sizes {
		var runs Runs
		at := int64(0)
		for len(runs) < n {
			at += gapNanos + 1 + int64(rng.IntN(5))*int64(time.Second) // few distinct pauses: many ties
			from := at
			at += int64(rng.IntN(3)) * int64(time.Second)
			runs = append(runs, Run{from, at})
		}
		one, all := append(Runs(nil), runs...), append(Runs(nil), runs...)
		one.bound()
		all.boundAll()
		if len(all) != maxRunsPerBackend || !slices.Equal(one, all) {
			t.Fatalf("%d runs: one at a time %v\nall at once %v", len(runs), one, all)
		}
	}
}

// TestRunsMergeMatchesAdd checks that merging two lists of runs gives what
// adding the second's runs one by one gives, below the bound.
func TestRunsMergeMatchesAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for round := 0; round < 200; round++ {
		var a, b Runs
		for range 20 + rng.IntN(20) {
			x := after(time.Duration(rng.IntN(3600)) * time.Second)
			if rng.IntN(2) == 0 {
				a.Add(x)
			} else {
				b.Add(x)
			}
		}
		want := append(Runs(nil), a...)
		for _, run := range b {
			want.addRun(run)
		}
		got := append(Runs(nil), a...)
		got.Merge(b)
		if !slices.Equal(got, want) {
			t.Fatalf("Merge %v\nadding %v", got, want)
		}
	}
}

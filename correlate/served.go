package correlate

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"
)

// Run is a stretch of time in which a backend served responses without a
// pause longer than servedRunGap. Its bounds are held as Unix nanoseconds
// (16 bytes a run, not 48): a time outside what they can hold, 1678 to
// 2262 (a stray year-1 or year-9999 record), is held as the nearest one.
type Run struct {
	from, to int64
}

// From returns when the run began.
func (r Run) From() time.Time { return fromNanos(r.from) }

// To returns when the run ended: the last response served in it.
func (r Run) To() time.Time { return fromNanos(r.to) }

// Runs are a backend's runs in time order, disjoint and more than
// servedRunGap apart. Records arrive in any order; Add keeps the order.
type Runs []Run

// nanos returns t as Unix nanoseconds, clamped to what an int64 holds.
func nanos(t time.Time) int64 {
	switch sec := t.Unix(); {
	case sec < minNanosSecond:
		return math.MinInt64
	case sec > maxNanosSecond:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// minNanosSecond and maxNanosSecond bound the Unix seconds whose every
// instant an int64 of nanoseconds holds.
const (
	minNanosSecond = math.MinInt64/int64(time.Second) + 1
	maxNanosSecond = math.MaxInt64/int64(time.Second) - 1
)

// fromNanos turns Unix nanoseconds back into a UTC time.
func fromNanos(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// gapNanos is servedRunGap in the unit runs are held in.
const gapNanos = int64(servedRunGap)

// Add records a response served at t.
func (r *Runs) Add(t time.Time) { r.addNanos(nanos(t)) }

// addNanos records a response served at Unix nanosecond t.
func (r *Runs) addNanos(t int64) {
	// Logs mostly arrive in time order, or in reverse (gcloud lists the
	// newest entries first): extend the last run when that does.
	if n := len(*r); n > 0 {
		last := &(*r)[n-1]
		switch {
		case t >= last.from && t <= satAdd(last.to, gapNanos):
			last.to = max(last.to, t)
			return
		case t < last.from && t >= satAdd(last.from, -gapNanos) && (n == 1 || t > satAdd((*r)[n-2].to, gapNanos)):
			last.from = t
			return
		}
	}
	r.addRun(Run{t, t})
}

// addRun adds a run, joining it with every run it overlaps or comes within
// servedRunGap of.
func (r *Runs) addRun(x Run) {
	runs := *r
	i := sort.Search(len(runs), func(i int) bool { return satAdd(runs[i].to, gapNanos) >= x.from })
	j := i
	for ; j < len(runs) && satAdd(runs[j].from, -gapNanos) <= x.to; j++ {
		x.from, x.to = min(x.from, runs[j].from), max(x.to, runs[j].to)
	}
	*r = slices.Replace(runs, i, j, x)
	r.bound()
}

// satAdd returns a+d, held within the int64 range.
func satAdd(a, d int64) int64 {
	s := a + d
	switch {
	case d > 0 && s < a:
		return math.MaxInt64
	case d < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// bound merges the two closest runs while there are more than
// maxRunsPerBackend. A list that reached the bound gets a capacity of one
// run more, what adding a run before bounding needs, not the double that
// growing by appends leaves.
func (r *Runs) bound() {
	if len(*r) == maxRunsPerBackend+1 && cap(*r) > maxRunsPerBackend+1 {
		*r = append(make(Runs, 0, maxRunsPerBackend+1), *r...)
	}
	for len(*r) > maxRunsPerBackend {
		runs := *r
		best := 0
		for i := 1; i+1 < len(runs); i++ {
			if gapAfter(runs, i) < gapAfter(runs, best) {
				best = i
			}
		}
		runs[best].to = runs[best+1].to
		*r = slices.Delete(runs, best+1, best+2)
	}
}

// gapAfter returns the pause between runs[i] and the next run, as an
// unsigned number so that no pause overflows.
func gapAfter(runs Runs, i int) uint64 { return uint64(runs[i+1].from) - uint64(runs[i].to) }

// Merge adds the runs of o: both lists are merged in place from their
// ends, then walked once in time order joining what overlaps or comes
// within servedRunGap, and the result is bounded as Add bounds it.
func (r *Runs) Merge(o Runs) {
	if len(o) == 0 {
		return
	}
	n := len(*r)
	a := slices.Grow(*r, len(o))[:n+len(o)]
	for i, j, k := n-1, len(o)-1, len(a)-1; j >= 0; k-- {
		if i >= 0 && a[i].from > o[j].from {
			a[k], i = a[i], i-1
		} else {
			a[k], j = o[j], j-1
		}
	}
	w := 0
	for _, x := range a {
		if w > 0 && x.from <= satAdd(a[w-1].to, gapNanos) {
			a[w-1].to = max(a[w-1].to, x.to)
			continue
		}
		a[w] = x
		w++
	}
	*r = a[:w]
	r.boundAll()
}

// boundAll merges runs until at most maxRunsPerBackend are left, as bound
// does one at a time. A few runs too many are merged that way; more are
// merged with one sort: merging two runs leaves every other pause as it
// was, so repeatedly merging across the shortest pause (the first of equal
// ones) merges across the shortest len-maxRunsPerBackend pauses.
func (r *Runs) boundAll() {
	runs := *r
	excess := len(runs) - maxRunsPerBackend
	switch {
	case excess <= 0:
		return
	case excess <= boundOneByOne:
		r.bound()
		return
	}
	type pause struct {
		gap uint64
		at  int // the pause after runs[at]
	}
	pauses := make([]pause, len(runs)-1)
	for k := range pauses {
		pauses[k] = pause{gapAfter(runs, k), k}
	}
	slices.SortFunc(pauses, func(x, y pause) int {
		if x.gap != y.gap {
			return cmp.Compare(x.gap, y.gap)
		}
		return cmp.Compare(x.at, y.at)
	})
	across := make([]bool, len(runs)-1)
	for _, p := range pauses[:excess] {
		across[p.at] = true
	}
	out := runs[:1]
	for k := 1; k < len(runs); k++ {
		if across[k-1] {
			out[len(out)-1].to = runs[k].to
			continue
		}
		out = append(out, runs[k])
	}
	*r = out
}

// boundOneByOne is how many runs too many boundAll merges one merge at a
// time, each a scan of the pauses, before sorting them is cheaper: folding
// a Collector adds a few runs to each backend's.
const boundOneByOne = 8

// First returns the first time served; zero when never.
func (r Runs) First() time.Time {
	if len(r) == 0 {
		return time.Time{}
	}
	return r[0].From()
}

// Last returns the last time served; zero when never.
func (r Runs) Last() time.Time {
	if len(r) == 0 {
		return time.Time{}
	}
	return r[len(r)-1].To()
}

// FirstIn returns the first time served in [from, to] (zero bounds are
// open); zero when the backend served nothing then.
func (r Runs) FirstIn(from, to time.Time) time.Time {
	for _, run := range r {
		if !to.IsZero() && run.From().After(to) {
			break
		}
		if !from.IsZero() && run.To().Before(from) {
			continue
		}
		if !from.IsZero() && run.From().Before(from) {
			return from
		}
		return run.From()
	}
	return time.Time{}
}

// LastIn returns the last time served in [from, to] (zero bounds are open);
// zero when the backend served nothing then.
func (r Runs) LastIn(from, to time.Time) time.Time {
	for i := len(r) - 1; i >= 0; i-- {
		run := r[i]
		if !from.IsZero() && run.To().Before(from) {
			break
		}
		if !to.IsZero() && run.From().After(to) {
			continue
		}
		if !to.IsZero() && run.To().After(to) {
			return to
		}
		return run.To()
	}
	return time.Time{}
}

// Serving reports whether t falls inside a run: the backend served both at
// or before t and at or after it, less than servedRunGap apart.
func (r Runs) Serving(t time.Time) bool {
	i := sort.Search(len(r), func(i int) bool { return !r[i].To().Before(t) })
	return i < len(r) && !t.Before(r[i].From())
}

// stretch bounds the run of traffic t belongs to, for an IP no lease ties
// to a pod: from the start of the run at or before t to just before the
// next run. Runs are more than servedRunGap apart, and on an IP the CNI
// hands out again each may be another pod's, so what came before the run
// or after the next one says nothing of the backend at t. Zero bounds are
// open.
func (r Runs) stretch(t time.Time) (from, to time.Time) {
	i := sort.Search(len(r), func(i int) bool { return r[i].From().After(t) }) // the first run after t
	if i > 0 {
		from = r[i-1].From()
	}
	if i < len(r) && i > 0 {
		to = r[i].From().Add(-time.Nanosecond)
	}
	return from, to
}

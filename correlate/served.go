package correlate

import (
	"encoding/binary"
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
// servedRunGap apart (more at a coarser level, see maxServedCells).
// Records arrive in any order; the runs are kept in order.
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

// A backend's runs are built at a level: at level k a pause of up to
// servedRunGap<<k joins two runs, and time is cut into cells that wide,
// aligned on the Unix epoch. Level 0 gives the runs exactly. A backend
// whose runs cover more than maxServedCells cells goes to the next level
// until they cover no more: a backend that served now and then for days
// keeps a few hundred runs at most.
//
// The level is the lowest at which the runs of all the backend's records
// cover at most maxServedCells cells. Runs made from part of the records
// cover no more cells than runs made from all of them, at any level, so
// each part is built at that level or a lower one, and joining the parts
// at the higher level and going up from there reaches it too: the runs do
// not depend on how records were split between parse workers or in which
// order they came. (Merging the two closest runs past a fixed count did:
// which runs were closest depended on what each worker had seen, and a
// week of logs gave a different report from one run to the next.) The
// price is that a long input keeps only its backends' longer pauses: one
// near the width of the level reached may join in a day of logs and split
// in an hour of them.
const (
	// maxServedCells bounds the cells a backend's runs cover: 256 cells of
	// 30 s hold two hours of a backend serving without a pause at level 0,
	// so an hour or two of logs — an incident — keeps exact runs; a day of
	// it goes to level 4, where pauses under 8 minutes join. At most 256
	// runs of 16 bytes a backend.
	maxServedCells = 256
	// maxRunLevel is the coarsest level: cells of servedRunGap<<28, 255
	// years, so that all the times runs hold (1678 to 2262) fall in at most
	// four cells, fewer than maxServedCells.
	maxRunLevel = 28
)

// runGap is the pause joined at level, and the width of its cells.
func runGap(level uint8) int64 { return gapNanos << level }

// cellOf returns the cell of level holding Unix nanosecond t. A cell of
// level k is 2^k cells of level 0: dividing by the constant gapNanos and
// shifting costs a multiplication, where dividing by the width of the
// level showed in profiles of reading an ingress-nginx log (about 2% of
// the CPU, on every response served).
func cellOf(t int64, level uint8) int64 {
	c := t / gapNanos
	if t%gapNanos < 0 {
		c--
	}
	return c >> level
}

// cells returns how many cells of level the run covers.
func (r Run) cells(level uint8) int { return int(cellOf(r.to, level)-cellOf(r.from, level)) + 1 }

// cells returns how many cells of level the runs cover. Runs joined across
// the pauses of a level are more than a cell apart, so no two share one.
func (r Runs) cells(level uint8) int {
	n := 0
	for _, run := range r {
		n += run.cells(level)
	}
	return n
}

// serve records a response the backend served at t.
func (t *Traffic) serve(at time.Time) {
	t.Served++
	t.cells += t.Runs.add(nanos(at), t.level)
	if t.bound() {
		t.Runs = t.Runs.shrunk()
	}
}

// bound goes up a level while the runs cover more than maxServedCells
// cells, and reports whether it did.
func (t *Traffic) bound() bool {
	up := false
	for t.cells > maxServedCells && t.level < maxRunLevel {
		t.coarsen(t.level + 1)
		up = true
	}
	return up
}

// coarsen joins, in place, the runs across the pauses of level, a level
// above theirs.
func (t *Traffic) coarsen(level uint8) {
	t.Runs = t.Runs.rejoin(runGap(level))
	t.level = level
	t.cells = t.Runs.cells(level)
}

// shrunk returns r, or a copy of it without the room of more than twice
// as many runs: runs that went up a level let go of what the finer level
// took. Copying once after climbing several levels, not at each, spared
// 15 MB of copies on a week of ALB logs.
func (r Runs) shrunk() Runs {
	if cap(r) > 2*len(r) {
		return clipped(r)
	}
	return r
}

// mergeRuns adds the runs of o, at the higher of the two levels, and goes
// up from there as bound does. The runs keep their room: the caller lets
// go of it (see shrunk) if they are kept.
func (t *Traffic) mergeRuns(o *Traffic) {
	level := max(t.level, o.level)
	if t.level < level {
		t.coarsen(level)
	}
	runs := o.Runs
	if o.level < level {
		runs = slices.Clone(runs).rejoin(runGap(level))
	}
	t.Runs.merge(runs, level)
	t.cells = t.Runs.cells(level)
	t.bound()
}

// rejoin joins, in place, the runs that come within g of each other.
func (r Runs) rejoin(g int64) Runs {
	if len(r) == 0 {
		return r
	}
	out := r[:1]
	for _, x := range r[1:] {
		if last := &out[len(out)-1]; x.from <= satAdd(last.to, g) {
			last.to = max(last.to, x.to)
			continue
		}
		out = append(out, x)
	}
	return out
}

// add records a response served at Unix nanosecond t in runs of level,
// and returns how many more of its cells they cover.
func (r *Runs) add(t int64, level uint8) int {
	g := runGap(level)
	// Logs mostly arrive in time order, or in reverse (gcloud lists the
	// newest entries first): extend the last run when that does.
	if n := len(*r); n > 0 {
		last := &(*r)[n-1]
		switch {
		case t >= last.from && t <= satAdd(last.to, g):
			if t <= last.to {
				return 0
			}
			d := cellOf(t, level) - cellOf(last.to, level)
			last.to = t
			return int(d)
		case t < last.from && t >= satAdd(last.from, -g) && (n == 1 || t > satAdd((*r)[n-2].to, g)):
			d := cellOf(last.from, level) - cellOf(t, level)
			last.from = t
			return int(d)
		}
	}
	return r.addRun(Run{t, t}, level)
}

// addRun adds a run, joining it with every run it overlaps or comes within
// a pause of level of, and returns how many more of its cells the runs
// cover.
func (r *Runs) addRun(x Run, level uint8) int {
	g := runGap(level)
	runs := *r
	i := sort.Search(len(runs), func(i int) bool { return satAdd(runs[i].to, g) >= x.from })
	j, d := i, 0
	for ; j < len(runs) && satAdd(runs[j].from, -g) <= x.to; j++ {
		d -= runs[j].cells(level)
		x.from, x.to = min(x.from, runs[j].from), max(x.to, runs[j].to)
	}
	*r = slices.Replace(runs, i, j, x)
	return d + x.cells(level)
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

// merge adds the runs of o, both of level: both lists are merged in place
// from their ends, then walked once in time order joining what overlaps or
// comes within a pause of level.
func (r *Runs) merge(o Runs, level uint8) {
	if len(o) == 0 {
		return
	}
	n := len(*r)
	a := *r
	if cap(a) < n+len(o) {
		// Exactly the room needed: merged runs are kept (a Dataset's)
		// or packed (a set's, see Collectors.fold), and growing as append
		// does left up to half of them spare (1.7 MB of 4.9 on a week of
		// ALB logs).
		a = make(Runs, n, n+len(o))
		copy(a, *r)
	}
	a = a[:n+len(o)]
	for i, j, k := n-1, len(o)-1, len(a)-1; j >= 0; k-- {
		if i >= 0 && a[i].from > o[j].from {
			a[k], i = a[i], i-1
		} else {
			a[k], j = o[j], j-1
		}
	}
	*r = a.rejoin(runGap(level))
}

// packRuns appends runs r to dst packed: each run as the pause before it
// (the first, its start) and its length, in nanoseconds, as varints. Runs
// minutes apart take 7 bytes, not 16.
func packRuns(dst []byte, r Runs) []byte {
	prev := int64(0)
	for i, run := range r {
		if i == 0 {
			dst = binary.AppendVarint(dst, run.from)
		} else {
			dst = binary.AppendUvarint(dst, uint64(run.from)-uint64(prev))
		}
		dst = binary.AppendUvarint(dst, uint64(run.to)-uint64(run.from))
		prev = run.to
	}
	return dst
}

// unpackRuns appends the runs packRuns packed in b to dst.
func unpackRuns(dst Runs, b []byte) Runs {
	prev := int64(0)
	for first := true; len(b) > 0; first = false {
		var run Run
		if first {
			from, n := binary.Varint(b)
			run.from, b = from, b[n:]
		} else {
			pause, n := binary.Uvarint(b)
			run.from, b = int64(uint64(prev)+pause), b[n:]
		}
		length, n := binary.Uvarint(b)
		run.to, b = int64(uint64(run.from)+length), b[n:]
		dst = append(dst, run)
		prev = run.to
	}
	return dst
}

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

// pausedAt reports whether t falls in a pause between two runs no longer
// than pause.
func (r Runs) pausedAt(t time.Time, pause time.Duration) bool {
	i := sort.Search(len(r), func(i int) bool { return r[i].From().After(t) }) // the first run after t
	return i > 0 && i < len(r) && r[i].From().Sub(r[i-1].To()) <= pause
}

// ordinaryPause is the longest pause between two of the backend's
// responses that its own rate makes ordinary: ordinaryPauseFactor times
// its mean interval (its served span over its responses). A backend that
// served fewer than two responses has none.
func (t *Traffic) ordinaryPause() time.Duration {
	if t == nil || t.Served < 2 || len(t.Runs) == 0 {
		return 0
	}
	mean := t.Runs.Last().Sub(t.Runs.First()) / time.Duration(t.Served-1)
	return ordinaryPauseFactor * mean
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

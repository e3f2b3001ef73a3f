package pipeline

import (
	"fmt"
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// eachSecond calls fn for every second that had requests. It is the one
// place that reads the per-second store; nothing in the report allocates per
// second of span.
func eachSecond(a *correlate.Analysis, fn func(sec int64, c correlate.Counts)) {
	if first, last, ok := a.Span(); ok {
		a.Each(first, last, fn)
	}
}

// farGap is the gap in time that separates a stray record from the rest of
// the data: an incident bundle covers minutes to days without a day-long
// hole, so records beyond one come from a wrong clock or a corrupt time
// (year 1, year 9999) or from another bundle.
const farGap = 24 * time.Hour

// farShare is the share of timed records below which a group of records
// that farGap separates from the others is left off the axis; larger groups
// (two incidents a week apart in one bundle) are real data and widen it.
const farShare = 0.01

// dataAxis is the time axis the lanes and the series share, and what lay
// off it.
type dataAxis struct {
	// First and Last bound the records on the axis; ok is false when no
	// record has a time.
	First, Last time.Time
	ok          bool
	// OutsideRequests and OutsideEvents count the records left off the
	// axis; OutsideFirst and OutsideLast bound their times.
	OutsideRequests, OutsideEvents int
	OutsideFirst, OutsideLast      time.Time
	outside                        bool
}

// warning says what lay off the axis, or "" when nothing did.
func (x dataAxis) warning() string {
	n := x.OutsideRequests + x.OutsideEvents
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%d requests, %d events) lie more than %s from the rest of the data, at %s – %s UTC: they are counted but not drawn, and do not size the charts",
		words.Plural(n, "record"), x.OutsideRequests, x.OutsideEvents, words.RoundSpan(farGap),
		x.OutsideFirst.UTC().Format(time.DateTime), x.OutsideLast.UTC().Format(time.DateTime))
}

// hourGroup is what fell into one hour of the data: the records, and the
// times the first and last ones have (seen) and cover up to (last, the end
// of a request's second).
type hourGroup struct {
	requests, events  int
	first, seen, last time.Time
}

// newDataAxis finds the axis from the requests and the lifecycle events:
// hours with records are grouped where they lie less than farGap apart, and
// groups holding fewer than farShare of the records are left off (the
// largest group always stays). The times a snapshot of Kubernetes objects
// gives (creation, conditions, deletion) size it only when nothing else has
// a time: they date what happened to the objects whenever it did, an old
// pod's creation days before the logs began, and the lanes say which of
// their states began before the data. It looks at hours with data only,
// never at the span between them.
func newDataAxis(a *correlate.Analysis) dataAxis {
	hours, snapshot := map[int64]*hourGroup{}, map[int64]*hourGroup{}
	eachSecond(a, func(sec int64, c correlate.Counts) {
		if c.Total > 0 {
			g := hourOf(hours, time.Unix(sec, 0).UTC())
			g.requests += c.Total
			if end := time.Unix(sec+1, 0).UTC(); end.After(g.last) {
				g.last = end // the second's requests may come up to its end
			}
		}
	})
	for i := range a.Lifecycle {
		switch l := &a.Lifecycle[i]; {
		case l.Time.IsZero():
		case l.Format == sources.FormatK8sObjects:
			hourOf(snapshot, l.Time.UTC()).events++
		default:
			hourOf(hours, l.Time.UTC()).events++
		}
	}
	var x dataAxis
	if len(hours) == 0 {
		hours = snapshot
	}
	if len(hours) == 0 {
		return x
	}
	keys := make([]int64, 0, len(hours))
	total := 0
	for h, g := range hours {
		keys = append(keys, h)
		total += g.requests + g.events
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	// Cut the hours into groups at gaps of more than farGap.
	type group struct{ from, to, n int }
	var groups []group
	for i, h := range keys {
		n := hours[h].requests + hours[h].events
		if i > 0 && h-keys[i-1]-1 <= int64(farGap/time.Hour) {
			groups[len(groups)-1].to = i
			groups[len(groups)-1].n += n
			continue
		}
		groups = append(groups, group{from: i, to: i, n: n})
	}
	largest := 0
	for i, g := range groups {
		if g.n > groups[largest].n {
			largest = i
		}
	}
	for i, g := range groups {
		kept := i == largest || float64(g.n) >= farShare*float64(total)
		for _, h := range keys[g.from : g.to+1] {
			hg := hours[h]
			if kept {
				if !x.ok || hg.first.Before(x.First) {
					x.First = hg.first
				}
				if !x.ok || hg.last.After(x.Last) {
					x.Last = hg.last
				}
				x.ok = true
				continue
			}
			x.OutsideRequests += hg.requests
			x.OutsideEvents += hg.events
			if !x.outside || hg.first.Before(x.OutsideFirst) {
				x.OutsideFirst = hg.first
			}
			if !x.outside || hg.seen.After(x.OutsideLast) {
				x.OutsideLast = hg.seen
			}
			x.outside = true
		}
	}
	return x
}

// hourOf returns the group of hours that t falls into, with t counted in
// its bounds (not in its records).
func hourOf(hours map[int64]*hourGroup, t time.Time) *hourGroup {
	h := floorDiv(t.Unix(), 3600)
	g := hours[h]
	if g == nil {
		g = &hourGroup{first: t, seen: t, last: t}
		hours[h] = g
	}
	if t.Before(g.first) {
		g.first = t
	}
	if t.After(g.seen) {
		g.seen = t
	}
	if t.After(g.last) {
		g.last = t
	}
	return g
}

// floorDiv divides rounding towards minus infinity, so that seconds before
// 1970 fall into the right hour.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// clampTime limits t to [lo, hi].
func clampTime(t, lo, hi time.Time) time.Time {
	if t.Before(lo) {
		return lo
	}
	if t.After(hi) {
		return hi
	}
	return t
}

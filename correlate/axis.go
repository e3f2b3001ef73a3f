package correlate

import (
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// FarGap is the gap in time that separates a stray record from the rest of
// the data: an incident bundle covers minutes to days without a day-long
// hole, so records beyond one come from a wrong clock or a corrupt time
// (year 1, year 9999) or from another bundle.
const FarGap = 24 * time.Hour

// farShare is the share of timed records below which a group of records
// that FarGap separates from the others is left out; larger groups (two
// incidents a week apart in one bundle) are real data and widen the span.
const farShare = 0.01

// Axis is the span of the data with the records far from the rest left
// out (FarGap, farShare): the one rule by which the rules' data span
// (DataSpan) and the report's time axis leave stray records out.
type Axis struct {
	// First and Last bound the records on the axis, Last the end of the
	// last request's second; OK is false when no record has a time.
	First, Last time.Time
	OK          bool
	// OutsideRequests and OutsideEvents count the records left off the
	// axis; OutsideFirst and OutsideLast bound their times.
	OutsideRequests, OutsideEvents int
	OutsideFirst, OutsideLast      time.Time
	outside                        bool
}

// axisHour is what fell into one hour of the data: the records, and the
// times the first and last ones have (seen) and cover up to (last, the end
// of a request's second).
type axisHour struct {
	requests, events  int
	first, seen, last time.Time
}

// Axis finds the time axis of the requests and the lifecycle events:
// hours with records are grouped where they lie less than FarGap apart,
// and groups holding fewer than farShare of the records are left off (the
// largest group always stays). The times a snapshot of Kubernetes objects
// gives (creation, conditions, deletion) size it only when nothing else
// has a time: they date what happened to the objects whenever it did, an
// old pod's creation days before the logs began. It looks at hours with
// data only, never at the span between them.
func (a *Analysis) Axis() Axis {
	hours, snapshot := requestHours(a.Dataset), map[int64]*axisHour{}
	for i := range a.Lifecycle {
		switch l := &a.Lifecycle[i]; {
		case l.Time.IsZero():
		case l.Format == sources.FormatK8sObjects:
			axisHourOf(snapshot, l.Time.UTC()).events++
		default:
			axisHourOf(hours, l.Time.UTC()).events++
		}
	}
	if len(hours) == 0 {
		hours = snapshot
	}
	return trimFar(hours)
}

// requestSpan is the first and last second with requests, the requests
// far from the rest left out by the rule of Axis.
func requestSpan(d *Dataset) (first, last time.Time, ok bool) {
	x := trimFar(requestHours(d))
	return x.First, x.Last.Add(-time.Second), x.OK
}

// requestHours groups the seconds with requests by hour.
func requestHours(d *Dataset) map[int64]*axisHour {
	hours := map[int64]*axisHour{}
	if first, last, ok := d.Span(); ok {
		d.Each(first, last, func(sec int64, c Counts) {
			if c.Total > 0 {
				g := axisHourOf(hours, time.Unix(sec, 0).UTC())
				g.requests += c.Total
				if end := time.Unix(sec+1, 0).UTC(); end.After(g.last) {
					g.last = end // the second's requests may come up to its end
				}
			}
		})
	}
	return hours
}

// trimFar cuts the hours into groups at gaps of more than FarGap and
// keeps the largest group and those holding farShare of the records.
func trimFar(hours map[int64]*axisHour) Axis {
	var x Axis
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
	type group struct{ from, to, n int }
	var groups []group
	for i, h := range keys {
		n := hours[h].requests + hours[h].events
		if i > 0 && h-keys[i-1]-1 <= int64(FarGap/time.Hour) {
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
				if !x.OK || hg.first.Before(x.First) {
					x.First = hg.first
				}
				if !x.OK || hg.last.After(x.Last) {
					x.Last = hg.last
				}
				x.OK = true
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

// axisHourOf returns the hour that t falls into, with t counted in its
// bounds (not in its records).
func axisHourOf(hours map[int64]*axisHour, t time.Time) *axisHour {
	h := t.Unix() / 3600
	if t.Unix()%3600 < 0 {
		h-- // seconds before 1970 fall into the hour below
	}
	g := hours[h]
	if g == nil {
		g = &axisHour{first: t, seen: t, last: t}
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

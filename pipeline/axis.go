package pipeline

import (
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
)

// eachSecond calls fn for every second that had requests. It is the one
// place that reads the per-second store; nothing in the report allocates per
// second of span.
func eachSecond(a *correlate.Analysis, fn func(sec int64, c correlate.Counts)) {
	if first, last, ok := a.Span(); ok {
		a.Each(first, last, fn)
	}
}

// dataAxis is the time axis the lanes and the series share, and what lay
// off it: correlate's Axis, by the rule the rules' data span follows too.
type dataAxis struct{ correlate.Axis }

// newDataAxis finds the axis of the analysis.
func newDataAxis(a *correlate.Analysis) dataAxis { return dataAxis{a.Axis()} }

// warning says what lay off the axis, or "" when nothing did.
func (x dataAxis) warning() string {
	n := x.OutsideRequests + x.OutsideEvents
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%s (%d requests, %d events) lie more than %s from the rest of the data, at %s – %s UTC: they are counted but not drawn, and do not size the charts",
		words.Plural(n, "record"), x.OutsideRequests, x.OutsideEvents, words.RoundSpan(correlate.FarGap),
		x.OutsideFirst.UTC().Format(time.DateTime), x.OutsideLast.UTC().Format(time.DateTime))
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

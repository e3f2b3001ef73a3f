package pipeline

import (
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
)

// Bounds of the series, whatever the span of the data.
const (
	// maxSeriesPoints bounds the rows of the overview: more than any chart
	// draws (maxBars, a terminal's width), 36 KB of JSON.
	maxSeriesPoints = 1000
	// maxDetailPoints bounds the rows of all detail parts together: an
	// hour of incidents at one second.
	maxDetailPoints = 3600
	// detailContext is the time before and after an incident its detail
	// covers: the healthy traffic before the first failure and the recovery
	// after the last.
	detailContext = 2 * time.Minute
)

// seriesSteps are the steps a series may have, in seconds; beyond the last
// one steps are whole days.
var seriesSteps = []int64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// stepFor is the smallest step whose rows, starting at a multiple of it,
// cover [first, end) in at most points rows.
func stepFor(first, end, points int64) int64 {
	fits := func(s int64) bool { return (end-floorDiv(first, s)*s+s-1)/s <= points }
	for _, s := range seriesSteps {
		if fits(s) {
			return s
		}
	}
	const day = 86400
	s := ((end-first)/points/day + 1) * day
	for !fits(s) {
		s += day
	}
	return s
}

// newSeries builds the bounded series on axis x: the overview at the step
// that keeps it within maxSeriesPoints rows, and each incident with its
// context at the finest step that keeps all of them within
// maxDetailPoints. Requests off the axis are counted in Outside. It visits
// the seconds with requests once and allocates only the rows it returns.
func newSeries(a *correlate.Analysis, x dataAxis, incidents []report.Incident) *report.Series {
	if !x.OK {
		return nil
	}
	first, end := x.First.Unix(), x.Last.Unix() // the series covers [first, end)
	if x.Last.After(time.Unix(end, 0)) {
		end++
	}
	end = max(end, first+1)
	step := stepFor(first, end, maxSeriesPoints)
	start := floorDiv(first, step) * step
	s := &report.Series{Start: time.Unix(start, 0).UTC(), StepSeconds: int(step), Columns: report.SeriesColumns,
		Values: newRows((end - start + step - 1) / step), Detail: []report.SeriesPart{}}

	type part struct{ from, to int64 }
	var parts []part
	for _, in := range incidents {
		if in.End.Before(x.First) || in.Start.After(x.Last) {
			continue
		}
		from := clampTime(in.Start.Add(-detailContext), x.First, x.Last).Unix()
		to := clampTime(in.End.Add(detailContext), x.First, x.Last).Unix()
		parts = append(parts, part{from, to})
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].from < parts[j].from })
	var merged []part
	for _, p := range parts {
		if n := len(merged); n > 0 && p.from <= merged[n-1].to+1 {
			merged[n-1].to = max(merged[n-1].to, p.to)
			continue
		}
		merged = append(merged, p)
	}
	// The finest step finer than the overview's at which every part fits.
	for _, dstep := range seriesSteps {
		if dstep >= step || len(merged) == 0 {
			break
		}
		var rows int64
		for _, p := range merged {
			rows += (p.to-floorDiv(p.from, dstep)*dstep)/dstep + 1
		}
		if rows > maxDetailPoints {
			continue
		}
		for _, p := range merged {
			from := floorDiv(p.from, dstep) * dstep
			s.Detail = append(s.Detail, report.SeriesPart{Start: time.Unix(from, 0).UTC(), StepSeconds: int(dstep), Values: newRows((p.to-from)/dstep + 1)})
		}
		break
	}

	eachSecond(a, func(sec int64, c correlate.Counts) {
		if c.Total == 0 {
			return
		}
		if sec < first || sec >= end {
			s.Outside += c.Total
			return
		}
		addCounts(s.Values[(sec-start)/step], c)
		i := sort.Search(len(s.Detail), func(i int) bool { return s.Detail[i].Start.Unix() > sec }) - 1
		if i >= 0 {
			p := s.Detail[i]
			if r := (sec - p.Start.Unix()) / int64(p.StepSeconds); r < int64(len(p.Values)) {
				addCounts(p.Values[r], c)
			}
		}
	})
	return s
}

// newRows allocates n rows of the series columns.
func newRows(n int64) [][]int {
	rows := make([][]int, n)
	cells := make([]int, n*int64(len(report.SeriesColumns)))
	for i := range rows {
		rows[i] = cells[i*len(report.SeriesColumns) : (i+1)*len(report.SeriesColumns) : (i+1)*len(report.SeriesColumns)]
	}
	return rows
}

// addCounts adds one second's outcomes to a row.
func addCounts(row []int, c correlate.Counts) {
	f := c.LBFailed
	row[report.ColOK] += c.OK
	row[report.ColApp] += c.AppErrors
	row[report.ColNoBackend] += f[sources.FailureNoBackend]
	row[report.ColRefused] += f[sources.FailureRefused]
	row[report.ColUnreachable] += f[sources.FailureUnreachable]
	row[report.ColClosed] += f[sources.FailureClosed]
	row[report.ColTimeout] += f[sources.FailureTimeout]
	row[report.ColOther] += f[sources.FailureOther]
	row[report.ColHidden] += c.Hidden
}

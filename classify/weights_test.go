package classify

import (
	"slices"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// groupedSignal is a signal standing for n client-visible failures of one
// second, the earliest on line first and the latest on line first+n-1.
func groupedSignal(at time.Time, first, n int) *correlate.Signal {
	c := correlate.NewCollector()
	for i := range n {
		t := at
		if i == n-1 && n > 1 {
			t = at.Add(900 * time.Millisecond)
		}
		c.Request(&sources.Request{Time: t, Status: 503, Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend,
			Format: sources.FormatALBAccess, Origin: sources.Origin{File: "alb.log", Line: first + i}})
	}
	f := correlate.Merge(c).Failures[0]
	return &correlate.Signal{Group: f, Visible: true, Kind: sources.FailureNoBackend}
}

// signalOf is the signal of the one failure record r, made as the
// analysis makes it: kept by a Collector, merged, and shown by its group.
func signalOf(t *testing.T, r *sources.Request) *correlate.Signal {
	t.Helper()
	c := correlate.NewCollector()
	c.Request(r)
	fs := correlate.Merge(c).Failures
	if len(fs) != 1 {
		t.Fatalf("%d failure groups of one record %+v", len(fs), r)
	}
	return &correlate.Signal{Group: fs[0], Visible: true, Kind: r.Failure}
}

// failed is a client-visible 503 of no backend at t.
func failed(t time.Time) *sources.Request {
	return &sources.Request{Time: t, Status: 503, Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend}
}

// TestGroupedFailuresReachTheThresholds checks that a signal counts the
// failures it stands for: one signal of twelve failures is enough for a
// group of MinSignals and an incident of minUnknownFailures, not a note.
func TestGroupedFailuresReachTheThresholds(t *testing.T) {
	a := &correlate.Analysis{Opts: correlate.Options{MinSignals: correlate.DefaultMinSignals, MergeGap: correlate.DefaultMergeGap}}
	sigs := []*correlate.Signal{groupedSignal(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), 1, minUnknownFailures+2)}
	if gs := groupByRollout(a, sigs); len(gs) != 1 {
		t.Errorf("%d groups, want 1", len(gs))
	}
	if note, ok := belowThreshold(a, correlate.Summarize(sigs)); ok {
		t.Errorf("twelve failures make a note: %s", note)
	}
}

// TestFailureEvidenceCountsRecords checks that failure evidence steps over
// the records the signals stand for, not over the signals: the steps of
// ten records of which eight are one signal fall in that signal, and the
// last quoted is its latest record when the signals' last comes earlier.
func TestFailureEvidenceCountsRecords(t *testing.T) {
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	w := correlate.Summarize([]*correlate.Signal{groupedSignal(t0, 1, 1), groupedSignal(t0.Add(time.Second), 2, 8), groupedSignal(t0.Add(1500*time.Millisecond), 10, 1)})
	var got []int
	for _, e := range failureEvidence(w, nil) {
		got = append(got, e.Origin.Line)
	}
	// Steps of 3 over records 1..10: record 1, then the group (lines 2-9)
	// twice, at its earliest and its latest; line 9, at 1.9 s, is also the
	// last record.
	want := []int{1, 2, 9}
	if !slices.Equal(got, want) {
		t.Errorf("quoted lines %v, want %v", got, want)
	}
}

package enginetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources/live"
)

// bigQuerySource is the BigQuery source over the fixture's Log Analytics
// view, built as triage builds it.
func (f *gcpFixture) source() *live.BigQueryGCP {
	return &live.BigQueryGCP{Project: gcpProject, Tables: []string{f.la}, Endpoint: f.bq.Host}
}

// fetchBigQuery runs the source over the fixture's window into a new
// folder and returns its error and the bundle it wrote (nil when none).
func fetchBigQuery(t *testing.T, f *gcpFixture, ctx context.Context, b *live.BigQueryGCP) (bool, error, *reduced.Bundle) {
	t.Helper()
	dir := t.TempDir()
	rep, err := b.Fetch(ctx, live.Window{Since: f.since, Until: f.until}, dir, func(string, live.ProgressState) {})
	res, rerr := reduced.ReadFile(filepath.Join(dir, live.BigQueryReducedFile))
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		t.Fatalf("the bundle written does not read: %v", rerr)
	}
	return rep.Complete, err, res
}

// TestBigQueryFaults plays each way a job can go wrong and requires the
// source to name it, within its budget, write no bundle, and cancel a job
// it gave up on.
func TestBigQueryFaults(t *testing.T) {
	f := serveGCPFixture(t, "gke-neg-zone-move")
	for _, tc := range []struct {
		name, fault      string
		maxScan, dryRun  int64
		budget           time.Duration
		cancel           bool
		want             string
		cancelled, query bool
	}{
		{name: "fails", fault: faultFails, want: "failed: invalidQuery: the query failed in the fake", query: true},
		{name: "stalls", fault: faultStalls, budget: 3 * time.Second, want: "time budget of 3 s ran out", cancelled: true, query: true},
		{name: "cancelled", fault: faultStalls, cancel: true, want: "interrupted", cancelled: true, query: true},
		{name: "over scan limit at the dry run", maxScan: 1000, want: "above --max-scan"},
		{name: "over maximumBytesBilled", maxScan: 1 << 29, dryRun: 1 << 20, want: "exceeded limit for bytes billed: 536870912", query: true},
		{name: "truncated page", fault: faultTruncated, want: "the result pages were truncated", query: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.bq.Fault, f.bq.PageSize, f.bq.DryRunBytes = tc.fault, 20, tc.dryRun
			f.bq.mu.Lock()
			f.bq.calls = nil
			f.bq.mu.Unlock()
			b := f.source()
			b.MaxScan = tc.maxScan
			b.Timeouts = live.Timeouts{Source: tc.budget}
			ctx := faultContext(t, tc.cancel)
			complete, err, res := fetchBigQuery(t, f, ctx, b)
			checkFault(t, err, tc.want, res != nil, complete)
			calls := f.bq.Calls()
			if got := slices.Contains(calls, "jobs.cancel"); got != tc.cancelled {
				t.Errorf("jobs.cancel sent: %v; want %v (calls %v)", got, tc.cancelled, calls)
			}
			if got := slices.Contains(calls, "jobs.insert"); got != tc.query {
				t.Errorf("jobs.insert sent: %v; want %v (calls %v)", got, tc.query, calls)
			}
		})
	}
	f.bq.Fault, f.bq.DryRunBytes = "", 0
	complete, err, res := fetchBigQuery(t, f, context.Background(), f.source())
	if err != nil || !complete || res == nil || len(res.Groups) == 0 {
		t.Fatalf("after the faults, a clean run: complete %v, error %v", complete, err)
	}
}

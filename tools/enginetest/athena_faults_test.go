package enginetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live"
)

// fetchAthena runs the Athena source over the fixture's window into a new
// folder and returns its report, its error and the bundle it wrote (nil
// when none).
func fetchAthena(t *testing.T, f *albFixture, ctx context.Context, a *live.AthenaALB) (bundle.FetchReport, error, *reduced.Bundle) {
	t.Helper()
	dir := t.TempDir()
	rep, err := a.Fetch(ctx, live.Window{Since: f.since, Until: f.until}, dir, func(string, live.ProgressState) {})
	b, rerr := reduced.ReadFile(filepath.Join(dir, live.ReducedFile))
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		t.Fatalf("the bundle written does not read: %v", rerr)
	}
	return rep, err, b
}

// TestAthenaSourceReducesFixture requires the source's bundle to be the
// query's: objects listed, bytes scanned and cost, the query and its id,
// and the rows of a local reduction of the objects it names.
func TestAthenaSourceReducesFixture(t *testing.T) {
	f := serveALBFixture(t, "eks-alb-no-gate")
	f.athena.ScannedBytes = 123_456_789
	var lines []string
	a := f.source(t)
	a.Log = func(format string, args ...any) { lines = append(lines, format) }
	rep, err, b := fetchAthena(t, f, context.Background(), a)
	if err != nil || b == nil {
		t.Fatalf("fetch: %v (%+v)", err, rep)
	}
	if b.Engine != "athena" || b.QueryID == "" || b.BytesScanned != 123_456_789 || b.CostUSD != live.AthenaCost(123_456_789) ||
		!strings.Contains(b.Query, `"$path" IN (`) || len(b.Objects) == 0 {
		t.Errorf("bundle engine %q id %q scanned %d cost %v objects %d", b.Engine, b.QueryID, b.BytesScanned, b.CostUSD, len(b.Objects))
	}
	for _, o := range b.Objects {
		if strings.Contains(o, "health_check_log") || !strings.HasPrefix(o, "s3://"+albBucket+"/") {
			t.Errorf("object %s in the query", o)
		}
	}
	if len(b.Groups) == 0 || b.Groups[0].Earliest.Ref == "" || !strings.HasPrefix(b.Groups[0].Earliest.Object, "s3://") {
		t.Errorf("groups %+v: want records named by object and trace id", b.Groups[:min(1, len(b.Groups))])
	}
	if !rep.Complete {
		t.Errorf("report not complete: %+v", rep)
	}
}

// TestAthenaFaults plays each way a query can go wrong and requires the
// source to name it, within its deadline, leave no bundle, and stop a
// query it gave up on.
func TestAthenaFaults(t *testing.T) {
	for _, tc := range []struct {
		name, fault string
		maxScan     int64
		budget      time.Duration
		cancel      bool
		want        string
		stopped     bool
	}{
		{name: "fails", fault: faultFails, want: "failed: HIVE_BAD_DATA"},
		{name: "stalls", fault: faultStalls, budget: 3 * time.Second, want: "time budget of 3 s ran out", stopped: true},
		{name: "cancelled", fault: faultStalls, cancel: true, want: "interrupted", stopped: true},
		{name: "over scan limit", maxScan: 1000, want: "above --max-scan"},
		{name: "truncated page", fault: faultTruncated, want: "is not the reduction asked for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := serveALBFixture(t, "eks-alb-no-gate")
			f.athena.Fault = tc.fault
			f.athena.PageSize = 50
			a := f.source(t)
			a.MaxScan = tc.maxScan
			a.Timeouts = live.Timeouts{Source: tc.budget}
			ctx := faultContext(t, tc.cancel)
			rep, err, b := fetchAthena(t, f, ctx, a)
			checkFault(t, err, tc.want, b != nil, rep.Complete)
			calls := f.athena.Calls()
			if got := slices.Contains(calls, "StopQueryExecution"); got != tc.stopped {
				t.Errorf("StopQueryExecution sent: %v; want %v (calls %v)", got, tc.stopped, calls)
			}
			if tc.maxScan > 0 && len(calls) != 0 {
				t.Errorf("a query above --max-scan was sent: %v", calls)
			}
		})
	}
}

// faultContext is a fault case's context: cancelled 2 s in when cancel
// is set (the user's Ctrl-C while the query runs).
func faultContext(t *testing.T, cancel bool) context.Context {
	if !cancel {
		return context.Background()
	}
	ctx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	time.AfterFunc(2*time.Second, stop)
	return ctx
}

// checkFault requires an engine's fault to be named in its error (want),
// no bundle to have been written and the fetch not to say complete.
func checkFault(t *testing.T, err error, want string, wrote, complete bool) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v; want one saying %q", err, want)
	}
	if wrote {
		t.Error("a bundle was written from a query that did not succeed")
	}
	if complete {
		t.Error("the report says complete")
	}
}

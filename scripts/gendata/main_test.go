package main

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// verdicts generates one input of about sizeMB and returns the causes
// readygap names for it and the hidden failures of its windows.
func verdicts(t *testing.T, input string, sizeMB int64) (causes []string, hidden int) {
	t.Helper()
	dir := t.TempDir()
	if err := generate(dir, sizeMB<<20, 1, time.Hour, input); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var cs []*correlate.Collector
	_, err := sources.Read(context.Background(), []string{filepath.Join(dir, input)}, sources.Options{}, func(*sources.InputReport) sources.Handler {
		c := correlate.NewCollector()
		mu.Lock()
		cs = append(cs, c)
		mu.Unlock()
		return c
	})
	if err != nil {
		t.Fatal(err)
	}
	a := correlate.Analyze(correlate.Merge(cs...), correlate.Options{})
	for _, f := range classify.Classify(a).Findings {
		if !slices.Contains(causes, f.Cause) {
			causes = append(causes, f.Cause)
		}
		hidden += f.Window.Hidden
	}
	slices.Sort(causes)
	return causes, hidden
}

// TestSameTrafficSameVerdict checks that the benchmark's traffic mix gets
// the same causes at two sizes (how many incidents depends on how many
// rollouts the span holds), for every input, and that the retries the
// nginx input rescues are counted as hidden failures.
func TestSameTrafficSameVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads 80 MB")
	}
	for _, input := range []string{"alb", "gcp", "nginx", "envoy-json"} {
		small, smallHidden := verdicts(t, input, 4)
		large, largeHidden := verdicts(t, input, 16)
		if len(small) == 0 || !reflect.DeepEqual(small, large) {
			t.Errorf("%s: causes %v at 4 MB, %v at 16 MB", input, small, large)
		}
		if input == "nginx" && (smallHidden == 0 || largeHidden < 3*smallHidden) {
			t.Errorf("nginx: %d hidden failures at 4 MB, %d at 16 MB; want some, growing with the size", smallHidden, largeHidden)
		}
	}
}

package correlate

import (
	"math"
	"testing"
	"time"
)

// TestNanosClampBounds pins the Unix seconds nanos holds exactly, in
// literal numbers: -9223372035 and 9223372035 are the last seconds kept,
// one second past either is clamped, and seconds well inside the range
// (±5e9, half of it) are kept, not clamped.
func TestNanosClampBounds(t *testing.T) {
	for _, tc := range []struct {
		sec  int64
		want int64
	}{
		{-9223372036, math.MinInt64},
		{-9223372035, -9223372035000000000},
		{-5000000000, -5000000000000000000},
		{5000000000, 5000000000000000000},
		{9223372035, 9223372035000000000},
		{9223372036, math.MaxInt64},
	} {
		if got := nanos(time.Unix(tc.sec, 0)); got != tc.want {
			t.Errorf("nanos(Unix %d s) = %d, want %d", tc.sec, got, tc.want)
		}
	}
}

// TestRunsCapacityAtTheBound checks that a backend's runs, once at the
// bound of 64, take room for 65 (one more, what adding before bounding
// needs) rather than the double that appends leave.
func TestRunsCapacityAtTheBound(t *testing.T) {
	var r Runs
	for i := range 200 {
		r.Add(after(time.Duration(i) * time.Minute))
	}
	if len(r) != 64 || cap(r) != 65 {
		t.Errorf("200 runs bounded to %d with capacity %d, want 64 and 65", len(r), cap(r))
	}
}

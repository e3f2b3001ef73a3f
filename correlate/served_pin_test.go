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

// TestRunsLetGoOfRoomWhenCoarsened checks that runs that go up a level
// give back the room the finer level took: a backend that served once a
// minute has a run of its own for each response at level 0 (pauses over
// 30 s), 257 of them at the bound; at level 1 (pauses of 60 s join) they
// are one run over as many cells, and at level 2 one over half as many,
// which must not keep room for hundreds.
func TestRunsLetGoOfRoomWhenCoarsened(t *testing.T) {
	var tr Traffic
	for i := range 260 {
		tr.serve(after(time.Duration(i) * time.Minute))
	}
	if len(tr.Runs) != 1 || tr.level != 2 || tr.cells != 130 || cap(tr.Runs) > 8 {
		t.Errorf("260 responses a minute apart: %d runs at level %d over %d cells with room for %d", len(tr.Runs), tr.level, tr.cells, cap(tr.Runs))
	}
}

package classify

import (
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
)

// TestIsTrickle pins what spread means for closed connections, in the
// numbers the constants state: at least 8 of them (minKeepaliveFailures),
// over at least 5 min (minKeepaliveSpan), no minute (keepaliveBucket)
// holding more than half (maxKeepaliveBurst).
func TestIsTrickle(t *testing.T) {
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	at := func(secs ...float64) []*correlate.Signal {
		var out []*correlate.Signal
		for _, s := range secs {
			out = append(out, signalOf(t, failed(base.Add(time.Duration(s*float64(time.Second))))))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		sigs  []*correlate.Signal
		least int
		want  bool
	}{
		{"eight over five minutes", at(0, 40, 80, 120, 160, 200, 250, 300), 8, true},
		{"seven", at(0, 40, 80, 120, 160, 200, 300), 8, false},
		{"eight over a millisecond less", at(0, 40, 80, 120, 160, 200, 250, 299.999), 8, false},
		{"four when the objects confirm", at(0, 100, 200, 300), 4, true},
		{"four in one minute of eight", at(60, 61, 62, 63, 150, 200, 250, 360), 8, true},
		{"five in one minute of eight", at(60, 61, 62, 63, 64, 200, 250, 360), 8, false},
		// Two and three either side of a minute's start: no minute holds
		// five, but two minutes or one do.
		{"two then three across a minute", at(0, 50, 55, 70, 80, 90, 200, 360), 8, true},
		{"five in a minute's two halves", at(0, 62, 63, 95, 96, 97, 200, 360), 8, false},
	} {
		if got := isTrickle(tc.sigs, tc.least); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

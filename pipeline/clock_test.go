package pipeline

import (
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
)

// TestClockReport checks that the report says how sure the clock
// comparison is: an applied offset with its pairs' spread and the
// propagation lag it exceeded; a median within an Envoy gateway's lag
// moved nothing and is said to be the lag, in warnings and as a clock of
// offset zero with its median; clocks found to agree, or not compared, say
// nothing.
func TestClockReport(t *testing.T) {
	ms := time.Millisecond
	clocks, warn := clockReport(correlate.ClockOffset{Offset: 5400 * ms, Pairs: 3, Spread: 100 * ms, Lag: 2500 * ms})
	if len(clocks) != 1 || clocks[0].OffsetSeconds != 5.4 || clocks[0].MedianSeconds != 5.4 || clocks[0].SpreadSeconds != 0.1 || clocks[0].LagSeconds != 2.5 {
		t.Errorf("clocks %+v", clocks)
	}
	if len(warn) != 1 || !strings.Contains(warn[0], "-5.4 s off") || !strings.Contains(warn[0], "agreeing within 0.1 s, beyond the proxies' propagation lag of up to 2.5 s") {
		t.Errorf("warnings %q", warn)
	}
	clocks, warn = clockReport(correlate.ClockOffset{Pairs: 3, Residual: 1600 * ms, Spread: 200 * ms, Lag: 2500 * ms})
	if len(clocks) != 1 || clocks[0].OffsetSeconds != 0 || clocks[0].MedianSeconds != 1.6 || clocks[0].Pairs != 3 || clocks[0].SpreadSeconds != 0.2 || clocks[0].LagSeconds != 2.5 ||
		len(warn) != 1 || !strings.Contains(warn[0], "stop 1.6 s after") || !strings.Contains(warn[0], "no Kubernetes time was moved") {
		t.Errorf("within the lag: clocks %+v, warnings %q", clocks, warn)
	}
	for _, off := range []correlate.ClockOffset{{}, {Pairs: 3, Residual: 400 * ms, Lag: 2500 * ms}, {Pairs: 3, Residual: 1600 * ms}} {
		if clocks, warn := clockReport(off); len(clocks) != 0 || len(warn) != 0 {
			t.Errorf("%+v: clocks %+v, warnings %q; want nothing", off, clocks, warn)
		}
	}
}

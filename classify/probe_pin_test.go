package classify

import (
	"strings"
	"testing"
	"time"
)

// TestSettleFixFloor: minReadySeconds is the start-to-listen time plus
// 5 s (settleMargin), rounded up, and never below 10 s (minSettle).
func TestSettleFixFloor(t *testing.T) {
	for listen, want := range map[time.Duration]string{
		0:                       "minReadySeconds 10 ",
		2 * time.Second:         "minReadySeconds 10 ",
		5 * time.Second:         "minReadySeconds 10 ",
		5100 * time.Millisecond: "minReadySeconds 11 ",
		7 * time.Second:         "minReadySeconds 12 ",
	} {
		if got := settleFix(workload{Namespace: "shop", Name: "web"}, listen).Why; !strings.Contains(got, want) {
			t.Errorf("listening after %v: %q, want %q", listen, got, want)
		}
	}
}

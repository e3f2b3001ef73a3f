package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestServedThrough checks that the seconds a backend answered are kept per
// load balancer, across hours and across the collectors Merge joins, and
// that answers the load balancer gave itself, or another load balancer's,
// do not count.
func TestServedThrough(t *testing.T) {
	base := time.Date(2026, 3, 10, 12, 59, 59, 500_000_000, time.UTC)
	backend := netip.MustParseAddrPort("10.0.1.5:8080")
	served := func(c *Collector, lb string, at time.Time) {
		c.Request(&sources.Request{Time: at, LB: lb, Status: 200, Generator: sources.GeneratedByBackend, Backend: backend, Format: sources.FormatALBAccess})
	}
	c1, c2 := NewCollector(), NewCollector()
	served(c1, "alb-a", base)                    // 12:59:59, the last second of an hour
	served(c2, "alb-a", base.Add(2*time.Second)) // 13:00:01, in the next
	served(c2, "alb-b", base.Add(time.Second))
	c1.Request(&sources.Request{Time: base.Add(time.Second), LB: "alb-a", Status: 503, Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend, Format: sources.FormatALBAccess})
	d := Merge(c1, c2)
	sec := base.Unix()
	for _, tt := range []struct {
		lb   string
		sec  int64
		want bool
	}{
		{"alb-a", sec, true},
		{"alb-a", sec + 1, false}, // only its own 503, and alb-b's answer
		{"alb-a", sec + 2, true},
		{"alb-b", sec + 1, true},
		{"alb-b", sec, false},
		{"alb-c", sec, false},
	} {
		if got := d.ServedThrough(tt.lb, tt.sec); got != tt.want {
			t.Errorf("ServedThrough(%s, +%d s) = %v, want %v", tt.lb, tt.sec-sec, got, tt.want)
		}
	}
}

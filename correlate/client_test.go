package correlate

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestClientRuns pins clientRunGap on both sides, keeps client-side
// requests out of the load balancer's counts, and merges twice alike.
func TestClientRuns(t *testing.T) {
	base := time.Date(2026, 3, 14, 9, 41, 0, 0, time.UTC)
	c := NewCollector()
	req := func(at time.Duration, status int) {
		c.Request(&sources.Request{Time: base.Add(at), Status: status, ClientSide: true, Format: sources.FormatCurlLoop,
			Origin: sources.Origin{File: "curl.log", Line: int(at / time.Second)}})
	}
	req(0, 200)
	req(time.Second, 503)
	req(time.Second+clientRunGap, 0)       // exactly the gap: the same run
	req(2*time.Second+2*clientRunGap, 502) // a second more than the gap: a new run
	req(3*time.Second+2*clientRunGap, 200) // a success within the run counts as a request
	for range 2 {
		d := Merge(c)
		runs := d.ClientRuns()
		if len(runs) != 2 {
			t.Fatalf("%d runs %+v, want 2", len(runs), runs)
		}
		if r := runs[0]; r.Failed != 2 || r.Statuses[503] != 1 || r.Statuses[0] != 1 || !r.Start.Equal(base.Add(time.Second)) || r.First.Line != 1 {
			t.Errorf("first run %+v", r)
		}
		if r := runs[1]; r.Failed != 1 || r.Requests != 2 || r.Statuses[502] != 1 {
			t.Errorf("second run %+v", r)
		}
		if n, failed, _, _ := d.ClientTotals(); n != 5 || failed != 3 {
			t.Errorf("totals %d/%d, want 5/3", n, failed)
		}
		if _, _, ok := d.Span(); ok || len(d.Failures) != 0 {
			t.Errorf("client-side requests entered the load balancer's counts")
		}
	}
}

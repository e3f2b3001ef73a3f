package classify

import (
	"strings"
	"testing"
)

// TestClientFixtures reads a load test's log and a rollout's events through
// the whole pipeline: the client's 503 window is a note (never an
// incident: the client cannot tell who answered) that names the records
// around it, the mechanisms they fit and the export that decides; the
// control, the same rollout with no failure, says nothing.
func TestClientFixtures(t *testing.T) {
	a, findings := analyzeDir(t, "testdata/client/fortio-rollout")
	if len(findings) != 0 {
		t.Fatalf("%d incidents from client-side records", len(findings))
	}
	notes := Classify(a).Notes
	if len(notes) != 1 {
		t.Fatalf("notes %q, want one", notes)
	}
	for _, want := range []string{
		"The client saw 22 failed requests (21×503, 1× no response) between 09:41:00 and 09:41:04.999 UTC",
		"fortio.log:2",
		"they do not say whether the load balancer or the application answered",
		"began terminating at 09:40:59",
		"Consistent with a termination race",
		"or a registration lag",
		"export the load balancer's or proxy's request logs from 2026-03-14T09:39:00Z to 2026-03-14T09:43:04Z",
	} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("note %q lacks %q", notes[0], want)
		}
	}
	if n, failed, _, _ := a.ClientTotals(); n != 22 || failed != 22 {
		t.Errorf("client totals %d/%d, want 22/22", n, failed)
	}

	a, findings = analyzeDir(t, "testdata/client/fortio-rollout-control")
	if notes := Classify(a).Notes; len(findings) != 0 || len(notes) != 0 {
		t.Errorf("control: %d incidents, notes %q", len(findings), notes)
	}
}

package classify

import (
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestGoneBeforeReadyQuotesTheBudgetOfKnownReplicas checks that the
// summary of old pods gone before a new one was Ready quotes the
// rollout's budget when the Deployment states its replicas, and not when
// it states none.
func TestGoneBeforeReadyQuotesTheBudgetOfKnownReplicas(t *testing.T) {
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	w := &correlate.Window{Start: start, End: start.Add(10 * time.Second), Failed: 3}
	for _, c := range []struct {
		replicas int
		want     string
	}{{4, " (maxUnavailable 25% (1 of 4) with maxSurge 25%)"}, {0, ""}} {
		got := registrationLagSummary(w, sources.FamilyIngressNginx, "", variantGoneBeforeReady, healthCheck{}, workload{Known: true, Replicas: c.replicas}, true)
		if !strings.Contains(got, "before a new one was Ready"+c.want+", so") {
			t.Errorf("replicas %d: %q lacks %q", c.replicas, got, c.want)
		}
	}
}

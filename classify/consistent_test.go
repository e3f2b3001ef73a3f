package classify

import (
	"slices"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestConsistentWith pins which causes each failure kind is consistent
// with: a rule whose Claims changed shows here.
func TestConsistentWith(t *testing.T) {
	for _, tc := range []struct {
		kind sources.FailureKind
		want []string
	}{
		{sources.FailureNoBackend, []string{"registration_lag"}},
		{sources.FailureRefused, []string{"wrong_probe_port", "termination_race"}},
		{sources.FailureClosed, []string{"wrong_probe_port", "termination_race", "keepalive_timeout"}},
		{sources.FailureUnreachable, []string{"wrong_probe_port", "termination_race"}},
		{sources.FailureTimeout, []string{"wrong_probe_port", "termination_race"}},
		{sources.FailureAppError, nil},
		{sources.FailureNone, nil},
	} {
		c, r := ConsistentWith(tc.kind)
		var got []string
		for _, x := range c {
			got = append(got, x.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: consistent with %v, want %v", tc.kind, got, tc.want)
		}
		if len(c)+len(r) != len(Rules) {
			t.Errorf("%s: %d + %d causes, want %d", tc.kind, len(c), len(r), len(Rules))
		}
	}
}

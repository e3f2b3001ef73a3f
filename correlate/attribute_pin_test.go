package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestAttemptTimeRetriedFromTwo pins what makes a request retried: two
// attempts counted or listed, not one. The last attempt of a request with
// one attempt stays at the request's time; with two it moves to the end.
func TestAttemptTimeRetriedFromTwo(t *testing.T) {
	refused := sources.Attempt{Backend: netip.MustParseAddrPort("10.4.0.7:8080"), Failure: sources.FailureRefused}
	for _, c := range []struct {
		name     string
		req      sources.Request
		wantSecs float64
	}{
		{"one attempt counted", sources.Request{Duration: 5 * time.Second, AttemptCount: 1}, 10},
		{"two attempts counted", sources.Request{Duration: 5 * time.Second, AttemptCount: 2}, 15},
		{"one attempt listed", sources.Request{Duration: 5 * time.Second, Attempts: []sources.Attempt{refused}}, 10},
		{"two attempts listed", sources.Request{Duration: 5 * time.Second, Attempts: []sources.Attempt{refused, refused}}, 15},
		{"retried, a negative duration", sources.Request{Duration: -5 * time.Second, RetryLimit: true}, 10},
	} {
		r := c.req
		r.Time = at(10)
		if got := attemptTime(groupOf(&r), true, sources.FailureRefused); !got.Equal(at(c.wantSecs)) {
			t.Errorf("%s: %v s, want %g s", c.name, got.Sub(t0).Seconds(), c.wantSecs)
		}
	}
}

// TestCountAttempts pins countAttempts to what attribute lists: a record
// without attempts counts once when it names a backend, none otherwise;
// a record with attempts counts its LB-generated ones only.
func TestCountAttempts(t *testing.T) {
	b := netip.MustParseAddrPort("10.4.0.7:8080")
	rs := []*sources.Request{
		{Backend: b, Failure: sources.FailureRefused},
		{Failure: sources.FailureNoBackend},
		{Failure: sources.FailureRefused, Attempts: []sources.Attempt{
			{Backend: b, Failure: sources.FailureRefused},
			{Backend: b, Status: 500, Failure: sources.FailureAppError},
			{Backend: b, Failure: sources.FailureUnreachable},
		}},
	}
	if got := countAttempts(ones(rs...)); got != 3 {
		t.Errorf("countAttempts = %d, want 3", got)
	}
}

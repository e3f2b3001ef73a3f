package correlate

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestAttemptTime pins where an attempt is placed: the last attempt of a
// request the proxy retried at its end, less unreachableConnect when a
// vanished pod's IP failed it; any other attempt, and the attempts of a
// request not retried, at the request's time.
func TestAttemptTime(t *testing.T) {
	start := at(10)
	for _, c := range []struct {
		name     string
		req      sources.Request
		last     bool
		kind     sources.FailureKind
		wantSecs float64
	}{
		{"not retried", sources.Request{Duration: 5 * time.Second}, true, sources.FailureRefused, 10},
		{"retried, refused at the end", sources.Request{Duration: 6085 * time.Millisecond, RetryLimit: true}, true, sources.FailureRefused, 16.085},
		{"retried, an earlier attempt", sources.Request{Duration: 6085 * time.Millisecond, RetryLimit: true}, false, sources.FailureRefused, 10},
		{"retried, unreachable: the connect began 3 s before the end", sources.Request{Duration: 6085 * time.Millisecond, AttemptCount: 3}, true, sources.FailureUnreachable, 13.085},
		{"retried, unreachable, shorter than a connect", sources.Request{Duration: 2 * time.Second, RetryLimit: true}, true, sources.FailureUnreachable, 10},
		{"retried, timed out: when it began is not known", sources.Request{Duration: 20 * time.Second, RetryLimit: true}, true, sources.FailureTimeout, 10},
		{"retried, no duration logged", sources.Request{RetryLimit: true}, true, sources.FailureRefused, 10},
	} {
		r := c.req
		r.Time = start
		if got := attemptTime(&r, c.last, c.kind); !got.Equal(at(c.wantSecs)) {
			t.Errorf("%s: %v, want %g s", c.name, got.Sub(t0).Seconds(), c.wantSecs)
		}
	}
}

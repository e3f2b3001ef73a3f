package live

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/internal/words"
)

// Timeouts bound every network call a live source makes. A zero field
// takes its value from DefaultTimeouts.
type Timeouts struct {
	// Connect bounds opening a TCP connection.
	Connect time.Duration
	// Response bounds the wait from sending a request to the first byte of
	// its answer (for Cloud Logging: until the gRPC connection is ready).
	Response time.Duration
	// Idle bounds a pause in the middle of an answer: an answer that sends
	// nothing for this long is given up.
	Idle time.Duration
	// Source is the total budget of one source: when it runs out, what was
	// saved is kept and the rest is listed as not requested.
	Source time.Duration
}

// DefaultTimeouts are the timeouts triage uses unless told otherwise.
var DefaultTimeouts = Timeouts{
	// A TCP handshake to a cloud API takes well under a second; 5 s leaves
	// room for two lost SYNs (Linux retransmits after 1 s, then 2 s more).
	Connect: 5 * time.Second,
	// S3, CloudWatch Logs and the Kubernetes API start answering a list or
	// get within a second or two; Cloud Logging and CloudWatch Logs return a
	// short page with a continuation token rather than hold a slow query.
	Response: 10 * time.Second,
	// Twice Response: a body that stops for this long is stuck, not slow.
	Idle: 20 * time.Second,
	// A 30-minute incident window takes seconds to a minute or two to
	// fetch; 10 minutes is the most an incident can spare.
	Source: 10 * time.Minute,
}

// withDefaults fills the zero fields of t from DefaultTimeouts.
func (t Timeouts) withDefaults() Timeouts {
	if t.Connect <= 0 {
		t.Connect = DefaultTimeouts.Connect
	}
	if t.Response <= 0 {
		t.Response = DefaultTimeouts.Response
	}
	if t.Idle <= 0 {
		t.Idle = DefaultTimeouts.Idle
	}
	if t.Source <= 0 {
		t.Source = DefaultTimeouts.Source
	}
	return t
}

// TimeoutError says that an endpoint did not answer in time: no first byte
// within Timeouts.Response, or, when Stalled, no data for Timeouts.Idle in
// the middle of an answer.
type TimeoutError struct {
	// Endpoint is scheme://host:port of the server, without path or query.
	Endpoint string
	// After is the timeout that ran out.
	After time.Duration
	// Stalled is set when the answer had begun; Bytes were read before it stopped.
	Stalled bool
	Bytes   int64
}

// Error implements error.
func (e *TimeoutError) Error() string {
	if e.Stalled {
		return fmt.Sprintf("the answer from %s stalled: no data for %s after %s", e.Endpoint, humanDuration(e.After), words.Bytes(e.Bytes))
	}
	return fmt.Sprintf("no answer from %s in %s", e.Endpoint, humanDuration(e.After))
}

// Timeout marks the error as a timeout for net.Error-style checks.
func (e *TimeoutError) Timeout() bool { return true }

// RetryableError tells the AWS SDK's retryer not to retry: a server that
// did not answer in time is not asked again, so that a silent endpoint costs
// one timeout and not one per attempt.
func (e *TimeoutError) RetryableError() bool { return false }

// ConnectError says that no connection could be made to an endpoint:
// refused, unreachable, a name that does not resolve, a TLS failure.
type ConnectError struct {
	// Endpoint is scheme://host:port of the server.
	Endpoint string
	// Err is the dial or handshake error.
	Err error
}

// Error implements error.
func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot connect to %s: %s", e.Endpoint, connectCause(e.Err))
}

// Unwrap returns the dial error.
func (e *ConnectError) Unwrap() error { return e.Err }

// connectCause words a dial or TLS error without the addresses Go repeats in it.
func connectCause(err error) string {
	var dns *net.DNSError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	s := err.Error()
	switch {
	case errors.As(err, &dns):
		return "the name " + dns.Name + " does not resolve"
	case strings.Contains(s, "connection refused"):
		return "connection refused"
	case strings.Contains(s, "no route to host"), strings.Contains(s, "network is unreachable"):
		return "no route to host"
	case errors.As(err, &ua), errors.As(err, &hn), errors.As(err, &ci):
		return "TLS certificate not accepted: " + err.Error()
	case strings.Contains(s, "i/o timeout"):
		return "connect timed out"
	}
	return s
}

// isDialError reports whether err happened before a connection was made.
func isDialError(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	return (errors.As(err, &op) && op.Op == "dial") || errors.As(err, &dns) ||
		errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci)
}

// endpointOf returns scheme://host of u: never a path, query or user info.
func endpointOf(u *url.URL) string {
	if u == nil {
		return "the server"
	}
	return u.Scheme + "://" + u.Host
}

// deadlineTransport is an http.RoundTripper that gives every request a
// first-byte timeout and every answer an idle-read timeout, cancelling the
// request (and so its connection) when one runs out.
type deadlineTransport struct {
	next     http.RoundTripper
	connect  time.Duration
	response time.Duration
	idle     time.Duration
}

// newDeadlineTransport wraps next with t's Response and Idle timeouts;
// next bounds the TLS handshake by t.Connect.
func newDeadlineTransport(next http.RoundTripper, t Timeouts) *deadlineTransport {
	t = t.withDefaults()
	return &deadlineTransport{next: next, connect: t.Connect, response: t.Response, idle: t.Idle}
}

// RoundTrip implements http.RoundTripper.
func (d *deadlineTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	wd := &watchdog{cancel: cancel, endpoint: endpointOf(req.URL), response: d.response, idle: d.idle}
	wd.mu.Lock()
	wd.timer = time.AfterFunc(d.response, wd.fire)
	wd.mu.Unlock()
	resp, err := d.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		wd.stop()
		if te := wd.timedOut(); te != nil {
			return nil, te
		}
		cancel(nil)
		switch {
		case req.Context().Err() != nil:
		case isDialError(err):
			return nil, &ConnectError{Endpoint: wd.endpoint, Err: err}
		case strings.Contains(err.Error(), "TLS handshake timeout"):
			// net/http's own limit (set to the connect timeout) on a
			// server that accepted the connection and never answered the
			// TLS handshake.
			return nil, &TimeoutError{Endpoint: wd.endpoint, After: d.connect}
		}
		return nil, err
	}
	if te := wd.answered(); te != nil {
		resp.Body.Close()
		return nil, te
	}
	resp.Body = &watchedBody{rc: resp.Body, wd: wd}
	return resp, nil
}

// watchdog cancels one request when its answer is late or stalls.
type watchdog struct {
	mu       sync.Mutex
	timer    *time.Timer
	cancel   context.CancelCauseFunc
	endpoint string
	response time.Duration
	idle     time.Duration
	reading  bool  // the headers came; the idle timeout runs
	bytes    int64 // body bytes read so far
	fired    *TimeoutError
	stopped  bool
}

// fire runs when a timeout runs out.
func (w *watchdog) fire() {
	w.mu.Lock()
	if w.stopped || w.fired != nil {
		w.mu.Unlock()
		return
	}
	if w.reading {
		w.fired = &TimeoutError{Endpoint: w.endpoint, After: w.idle, Stalled: true, Bytes: w.bytes}
	} else {
		w.fired = &TimeoutError{Endpoint: w.endpoint, After: w.response}
	}
	te := w.fired
	w.mu.Unlock()
	w.cancel(te)
}

// answered switches from the first-byte timeout to the idle timeout. It
// returns the timeout error if the first one ran out meanwhile.
func (w *watchdog) answered() *TimeoutError {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fired != nil {
		return w.fired
	}
	w.reading = true
	w.timer.Reset(w.idle)
	return nil
}

// read records n bytes read and restarts the idle timeout.
func (w *watchdog) read(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bytes += int64(n)
	if w.fired == nil && !w.stopped {
		w.timer.Reset(w.idle)
	}
}

// stop disarms the watchdog.
func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	w.timer.Stop()
}

// timedOut returns the timeout that cancelled the request, or nil.
func (w *watchdog) timedOut() *TimeoutError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// watchedBody is a response body whose reads keep its watchdog quiet.
type watchedBody struct {
	rc io.ReadCloser
	wd *watchdog
}

// Read implements io.Reader; a read broken by a timeout returns the
// TimeoutError.
func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if n > 0 {
		b.wd.read(n)
	}
	if err != nil && err != io.EOF {
		if te := b.wd.timedOut(); te != nil {
			err = te
		}
	}
	return n, err
}

// Close implements io.Closer and releases the request's context.
func (b *watchedBody) Close() error {
	err := b.rc.Close()
	b.wd.stop()
	b.wd.cancel(nil)
	return err
}

// dialer returns a net.Dialer with t's connect timeout.
func dialer(t Timeouts) *net.Dialer {
	return &net.Dialer{Timeout: t.withDefaults().Connect, KeepAlive: tcpKeepAlive}
}

// tcpKeepAlive is the keep-alive period of live connections, Go's default.
const tcpKeepAlive = 15 * time.Second

// humanDuration renders a timeout for a person: "10 s", "300 ms", "1m30s".
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute && d%time.Second == 0:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

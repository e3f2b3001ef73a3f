package live

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// Credentials never leave their host. Every request a live source makes
// carries them (a bearer token or client certificate of the kubeconfig, an
// AWS signature and session token), and the layers that add them do so on
// every hop of a redirect: client-go's bearer round-tripper re-adds the
// token, the AWS SDK signs again, and net/http keeps the Authorization
// header for another port of the same host name. So a redirect is followed
// only to the same scheme, host and port: an answer redirecting anywhere
// else fails the call with a RedirectError that names both ends, and
// nothing is sent there. redirectGuard is the one place this is decided:
// it turns the redirecting answer into an error before the client can
// follow it, so it works anywhere in a client's chain of transports, above
// or below the layers that add credentials. Every HTTP client a source
// builds has it (kubeRestConfig, guardAWSClient, guardRedirects). Cloud
// Logging speaks gRPC, which follows no redirect: an HTTP status other than
// 200 fails the call.

// RedirectError says that a server answered with a redirect to another
// scheme, host or port, which readygap does not follow since the request
// carries credentials.
type RedirectError struct {
	// From and To are scheme://host:port of the server that redirected and
	// of the place it redirected to: never a path, query or user info.
	From, To string
	// Status is the redirect's HTTP status (302, 307, ...).
	Status int
}

// Error implements error.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirected the request to %s (%d %s): not followed, since the request carries credentials for %s only",
		e.From, e.To, e.Status, http.StatusText(e.Status), e.From)
}

// RetryableError tells the AWS SDK's retryer not to retry: the server
// redirects every attempt alike.
func (e *RedirectError) RetryableError() bool { return false }

// crossHostRedirect returns the RedirectError of a redirect from from to
// to, or nil when both have the same scheme, host and port (the default
// port of the scheme counts as given).
func crossHostRedirect(from, to *url.URL, status int) error {
	if from.Scheme == to.Scheme && hostPort(from) == hostPort(to) {
		return nil
	}
	return &RedirectError{From: endpointOf(from), To: endpointOf(to), Status: status}
}

// hostPort is u's host and port, the scheme's default port when u names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Hostname() + ":" + port
}

// redirectGuard is an http.RoundTripper that turns an answer redirecting
// to another scheme, host or port into a RedirectError, so that the client
// above it never follows it, whatever its own policy (client-go's and the
// AWS SDK's follow redirects) and whatever headers the layers above add.
type redirectGuard struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (g redirectGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || !redirectStatus(resp.StatusCode) {
		return resp, err
	}
	loc, lerr := req.URL.Parse(resp.Header.Get("Location"))
	if lerr != nil || resp.Header.Get("Location") == "" {
		return resp, nil // not followed by net/http either
	}
	if rerr := crossHostRedirect(req.URL, loc, resp.StatusCode); rerr != nil {
		resp.Body.Close()
		return nil, rerr
	}
	return resp, nil
}

// WrappedRoundTripper returns the guarded transport (client-go's
// utilnet.RoundTripperWrapper).
func (g redirectGuard) WrappedRoundTripper() http.RoundTripper { return g.next }

// redirectStatus reports whether net/http follows an answer with code.
func redirectStatus(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// guardRedirects returns a copy of c (nil: http.DefaultClient) whose
// transport is guarded by redirectGuard. Every HTTP client a live source
// builds for itself (an Athena or BigQuery client's) goes through it.
func guardRedirects(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	cc := *c
	if cc.Transport == nil {
		cc.Transport = http.DefaultTransport
	}
	cc.Transport = redirectGuard{next: cc.Transport}
	return &cc
}

// guardAWSClient returns the AWS SDK's HTTP client c with redirectGuard
// below it. The SDK's own client follows a 307 or 308 and drops only
// X-Amz-Security-Token on another host, keeping the signature; the client
// returned follows them only to the same origin, and no other redirect
// (awsRedirectPolicy, the SDK's). A BuildableClient (AWS_CA_BUNDLE and
// the timeouts of AWSHTTPClient are in its transport) becomes an
// http.Client on the same transport; a client that is not net/http's (a
// test's fake) is returned as it is.
func guardAWSClient(c aws.HTTPClient) aws.HTTPClient {
	switch c := c.(type) {
	case *awshttp.BuildableClient:
		return &http.Client{Transport: redirectGuard{next: c.GetTransport()}, Timeout: c.GetTimeout(), CheckRedirect: awsRedirectPolicy}
	case *http.Client:
		return guardRedirects(c)
	}
	return c
}

// awsRedirectPolicy follows only a 307 or 308, which keep the method and
// body, as the AWS SDK's client does; the rest reach the SDK as answers.
func awsRedirectPolicy(req *http.Request, via []*http.Request) error {
	if req.Response == nil || (req.Response.StatusCode != http.StatusTemporaryRedirect && req.Response.StatusCode != http.StatusPermanentRedirect) {
		return http.ErrUseLastResponse
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// maxRedirects is net/http's limit of redirects in a row.
const maxRedirects = 10

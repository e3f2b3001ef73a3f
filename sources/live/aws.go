package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// awsMaxAttempts is how many times an AWS call is made when the
// configuration does not say (AWS_MAX_ATTEMPTS, max_attempts): the SDK's
// default of 3 gives up on an S3 prefix that answers SlowDown three times
// in a row, which S3 does while it scales a prefix up.
const awsMaxAttempts = 5

// awsBackoff, when not nil, replaces the SDK's exponential backoff (tests
// make it short).
var awsBackoff retry.BackoffDelayer

// AWSHTTPClient returns the HTTP client to load an AWS configuration with
// (config.WithHTTPClient): connect and TLS handshake bounded by t.Connect,
// the wait for response headers by t.Response. It stays an
// *awshttp.BuildableClient, which AWS_CA_BUNDLE needs. WithAWSTimeouts
// then adds the idle-read timeout.
func AWSHTTPClient(t Timeouts) *awshttp.BuildableClient {
	t = t.withDefaults()
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = t.Connect }).
		WithTransportOptions(func(tr *http.Transport) {
			tr.TLSHandshakeTimeout = t.Connect
			tr.ResponseHeaderTimeout = t.Response + t.Connect
		}).
		// The idle timeout of WithAWSTimeouts replaces the SDK's read timeout.
		WithReadTimeout(0)
}

// WithAWSTimeouts makes every call of the service clients built from cfg
// (S3, CloudWatch Logs, and any other AWS API a source reads) give up on a
// server that does not answer within t.Response or stops sending for
// t.Idle, with a TimeoutError that names the endpoint, and refuse a
// redirect to another host with a RedirectError (guardAWSClient).
func WithAWSTimeouts(cfg *aws.Config, t Timeouts) {
	next := cfg.HTTPClient
	if next == nil {
		next = AWSHTTPClient(t)
	}
	next = guardAWSClient(next)
	cfg.HTTPClient = &awsDeadlineClient{rt: newDeadlineTransport(doerTransport{next}, t)}
}

// awsDeadlineClient is an aws.HTTPClient whose calls have deadlines.
type awsDeadlineClient struct{ rt *deadlineTransport }

// Do implements aws.HTTPClient.
func (c *awsDeadlineClient) Do(req *http.Request) (*http.Response, error) { return c.rt.RoundTrip(req) }

// doerTransport turns an aws.HTTPClient into an http.RoundTripper.
type doerTransport struct{ c aws.HTTPClient }

// RoundTrip implements http.RoundTripper.
func (d doerTransport) RoundTrip(req *http.Request) (*http.Response, error) { return d.c.Do(req) }

// NewS3Client builds an S3 client from cfg. When an endpoint is configured
// (AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3 or the shared config file) it
// addresses buckets by path, as S3-compatible stores expect.
func NewS3Client(cfg aws.Config) *s3.Client {
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if o.BaseEndpoint != nil {
			o.UsePathStyle = true
		}
		// gzip carries its own CRC, checked when the bundle is read.
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		o.DisableLogOutputChecksumValidationSkipped = true
		o.Retryer, o.RetryMaxAttempts = newAWSRetryer(o.RetryMaxAttempts), 0
	})
}

// NewCloudWatchClient builds a CloudWatch Logs client from cfg.
func NewCloudWatchClient(cfg aws.Config) *cloudwatchlogs.Client {
	return cloudwatchlogs.NewFromConfig(cfg, func(o *cloudwatchlogs.Options) {
		o.Retryer, o.RetryMaxAttempts = newAWSRetryer(o.RetryMaxAttempts), 0
	})
}

// newAWSRetryer is the SDK's standard retryer making maxAttempts attempts
// (awsMaxAttempts when 0), without the client-side retry quota (one
// throttled prefix must not use up the retries of every other object), and
// telling the call's retry hook about each retry.
func newAWSRetryer(maxAttempts int) aws.Retryer {
	if maxAttempts <= 0 {
		maxAttempts = awsMaxAttempts
	}
	std := retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = maxAttempts
		o.RateLimiter = ratelimit.None
		if awsBackoff != nil {
			o.Backoff = awsBackoff
		}
	})
	return &notifyingRetryer{RetryerV2: std}
}

// notifyingRetryer calls the retry hook in the context of a call before
// each retry.
type notifyingRetryer struct{ aws.RetryerV2 }

// GetRetryToken implements aws.Retryer.
func (r *notifyingRetryer) GetRetryToken(ctx context.Context, opErr error) (func(error) error, error) {
	if hook, ok := ctx.Value(retryHookKey{}).(func(string)); ok {
		hook(retryReason(opErr))
	}
	return r.RetryerV2.GetRetryToken(ctx, opErr)
}

// retryHookKey keys the retry hook in a context.
type retryHookKey struct{}

// withRetryHook returns ctx whose AWS calls call hook with the reason of
// each retry.
func withRetryHook(ctx context.Context, hook func(reason string)) context.Context {
	return context.WithValue(ctx, retryHookKey{}, hook)
}

// retryReason names an error for a progress line: the AWS error code, else
// the HTTP status, else "connection error".
func retryReason(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() != "" {
		return ae.ErrorCode()
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return fmt.Sprintf("HTTP %d", re.HTTPStatusCode())
	}
	return "connection error"
}

// awsError words an error of an AWS API call as a FetchError: a dead
// endpoint, missing or rejected credentials (these stop the source), a
// denied action (naming the IAM action and the resource), a missing bucket
// or log group. Other errors keep their text, redacted.
func awsError(source, action, resource string, err error) *FetchError {
	if fe := transportError(source, err); fe != nil {
		return fe
	}
	// The SDK resolves credentials before signing and reports a failure as
	// "get identity: get credentials: ..." without a type of its own.
	var se *v4.SigningError
	if errors.As(err, &se) || strings.Contains(err.Error(), "get identity: get credentials:") {
		return fetchErrorf(source, err, "no AWS credentials: set --profile or AWS_PROFILE, run `aws sso login`, or export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY").stopping()
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "AccessDenied", "AccessDeniedException", "Forbidden", "AllAccessDisabled":
			return fetchErrorf(source, err, "permission denied: the credentials need %s on %s", action, resource)
		case "NoSuchBucket":
			return fetchErrorf(source, err, "bucket not found: %s", resource).stopping()
		case "NoSuchKey":
			return fetchErrorf(source, err, "object deleted since it was listed: %s", resource)
		case "ResourceNotFoundException":
			return fetchErrorf(source, err, "not found: %s", resource)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "UnrecognizedClientException", "InvalidClientTokenId":
			return fetchErrorf(source, err, "credentials rejected (%s): check --profile and the keys in the environment", ae.ErrorCode()).stopping()
		case "ExpiredToken", "ExpiredTokenException", "TokenRefreshRequired":
			return fetchErrorf(source, err, "credentials expired: refresh them (`aws sso login`) and retry").stopping()
		}
		var re *awshttp.ResponseError
		if errors.As(err, &re) && retryableStatus(re.HTTPStatusCode()) {
			return fetchErrorf(source, err, "%s on %s failed after retries: %s (HTTP %d): %s", action, resource, ae.ErrorCode(), re.HTTPStatusCode(), ae.ErrorMessage())
		}
		return fetchErrorf(source, err, "%s on %s failed: %s: %s", action, resource, ae.ErrorCode(), ae.ErrorMessage())
	}
	var oe *smithy.OperationError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return fetchErrorf(source, err, "%s on %s failed: %v", action, resource, err)
}

// retryableStatus reports whether the SDK retries an HTTP status.
func retryableStatus(code int) bool {
	_, ok := retry.DefaultRetryableHTTPStatusCodes[code]
	return ok || code == http.StatusTooManyRequests
}

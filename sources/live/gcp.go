package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	logging "cloud.google.com/go/logging/apiv2"
	"cloud.google.com/go/logging/apiv2/loggingpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/readygap/readygap/sources/bundle"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
)

// SourceGCPLogging names the Cloud Logging source in reports and errors.
const SourceGCPLogging = "gcp-logging"

// gcpLoggingFile is where GCPLogging writes its entries in a bundle.
const gcpLoggingFile = "gcp/logging.json"

// gcpPageSize is the largest page ListLogEntries serves.
const gcpPageSize = 1000

// gcpBackoff paces the retries of a rate-limited or unavailable
// ListLogEntries call; Cloud Logging allows 60 reads a minute per project.
var gcpBackoff = gax.Backoff{Initial: time.Second, Max: 30 * time.Second, Multiplier: 2}

// gcpMaxAttempts bounds the calls made for one page.
const gcpMaxAttempts = 6

// GCPLogging fetches load-balancer request logs, Kubernetes events
// (logs/events) and health-check logs from Cloud Logging with the
// ListLogEntries API and writes them as `gcloud logging read --format=json`
// does.
type GCPLogging struct {
	// Project is the project whose logs are read.
	Project string
	// URLMap and BackendService narrow the request logs to one load
	// balancer (url_map_name) and one backend service (backend_service_name
	// on global, backend_target_name on regional load balancers).
	URLMap, BackendService string
	// Cluster and Namespace narrow the Kubernetes events.
	Cluster, Namespace string
	// NoRequests leaves the request logs out (another source, such as
	// BigQueryGCP, reduces them where they are kept).
	NoRequests bool
	// Endpoint overrides the API's host:port; on localhost it is plaintext
	// gRPC without credentials (a test server or an emulator).
	Endpoint string
	// Timeouts bound the connection, each call and the whole fetch.
	Timeouts Timeouts
}

// Filter returns the Cloud Logging filter Fetch sends for w: the request
// logs of the load balancer, the cluster's events and health-check
// transitions, inside w.
func (g *GCPLogging) Filter(w Window) string {
	req := []string{`resource.type=("http_load_balancer" OR "http_external_regional_lb_rule" OR "internal_http_lb_rule")`}
	if g.URLMap != "" {
		req = append(req, "resource.labels.url_map_name="+gcpQuote(g.URLMap))
	}
	if g.BackendService != "" {
		q := gcpQuote(g.BackendService)
		req = append(req, "(resource.labels.backend_service_name="+q+" OR resource.labels.backend_target_name="+q+")")
	}
	ev := []string{`log_id("events")`}
	if g.Cluster != "" {
		ev = append(ev, "resource.labels.cluster_name="+gcpQuote(g.Cluster))
	}
	if g.Namespace != "" {
		ev = append(ev, "jsonPayload.involvedObject.namespace="+gcpQuote(g.Namespace))
	}
	if g.NoRequests {
		return fmt.Sprintf("timestamp>=%q AND timestamp<%q AND ((%s) OR log_id(\"compute.googleapis.com/healthchecks\"))",
			w.Since.UTC().Format(time.RFC3339Nano), w.Until.UTC().Format(time.RFC3339Nano), strings.Join(ev, " AND "))
	}
	return fmt.Sprintf("timestamp>=%q AND timestamp<%q AND ((%s) OR (%s) OR log_id(\"compute.googleapis.com/healthchecks\"))",
		w.Since.UTC().Format(time.RFC3339Nano), w.Until.UTC().Format(time.RFC3339Nano),
		strings.Join(req, " AND "), strings.Join(ev, " AND "))
}

// gcpQuote quotes a value for the Logging query language.
func gcpQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// Plan returns the call Fetch makes for w.
func (g *GCPLogging) Plan(w Window) []string {
	return []string{fmt.Sprintf("ListLogEntries resourceNames=projects/%s orderBy=\"timestamp asc\" filter=%s", g.Project, g.Filter(w))}
}

// gcpDefaultEndpoint is the Cloud Logging API's gRPC endpoint.
const gcpDefaultEndpoint = "logging.googleapis.com:443"

// clientOptions returns the options that point the client at Endpoint and
// bound its calls: a connect timeout on the dial, and per call the
// interceptor of callDeadlines. Calls never wait for the connection to
// become ready (no WaitForReady): a refused endpoint fails the call at
// once.
func (g *GCPLogging) clientOptions(t Timeouts) []option.ClientOption {
	endpoint := g.endpoint()
	d := dialer(t)
	opts := []option.ClientOption{
		option.WithGRPCDialOption(grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", addr)
		})),
		// The connection attempt (TCP, TLS, HTTP/2 settings) may take as
		// long as a call waits for it, plus the dial.
		option.WithGRPCDialOption(grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.DefaultConfig, MinConnectTimeout: t.Response + t.Connect})),
		option.WithGRPCDialOption(grpc.WithChainUnaryInterceptor(callDeadlines(endpoint, t))),
	}
	if g.Endpoint == "" {
		return opts
	}
	opts = append(opts, option.WithEndpoint(g.Endpoint))
	host, _, err := net.SplitHostPort(g.Endpoint)
	if err != nil {
		host = g.Endpoint
	}
	if host == "localhost" || net.ParseIP(host).IsLoopback() {
		opts = append(opts, option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	}
	return opts
}

// endpoint is the host:port the client talks to.
func (g *GCPLogging) endpoint() string {
	if g.Endpoint != "" {
		return g.Endpoint
	}
	return gcpDefaultEndpoint
}

// callDeadlines bounds each gRPC call: the connection must be ready within
// t.Response (else a TimeoutError: the server accepted and never answered,
// or a dial that hangs), and the call's answer must come within t.Response
// plus t.Idle after that (a page is one message: its first byte is nearly
// its last).
func callDeadlines(endpoint string, t Timeouts) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if err := waitReady(ctx, cc, endpoint, t.Response); err != nil {
			return err
		}
		callTimeout := t.Response + t.Idle
		cctx, cancel := context.WithTimeoutCause(ctx, callTimeout, &TimeoutError{Endpoint: endpoint, After: callTimeout})
		defer cancel()
		deadline, _ := cctx.Deadline()
		err := invoker(cctx, method, req, reply, cc, opts...)
		if err == nil || ctx.Err() != nil {
			return err
		}
		// The server enforces the same deadline (grpc-timeout) and its
		// DEADLINE_EXCEEDED can arrive before cctx's own timer has fired:
		// past the deadline, it is this timeout either way, not a
		// server-side deadline worth a retry.
		if cctx.Err() != nil || (status.Code(err) == codes.DeadlineExceeded && !time.Now().Before(deadline)) {
			return &TimeoutError{Endpoint: endpoint, After: callTimeout}
		}
		return err
	}
}

// waitReady waits up to d for cc to be ready or to have failed to connect
// (then the call fails at once with the dial error).
func waitReady(ctx context.Context, cc *grpc.ClientConn, endpoint string, d time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		s := cc.GetState()
		switch s {
		case connectivity.Ready, connectivity.TransientFailure, connectivity.Shutdown:
			return nil
		case connectivity.Idle:
			cc.Connect()
		}
		if !cc.WaitForStateChange(wctx, s) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return &TimeoutError{Endpoint: endpoint, After: d}
		}
	}
}

// impactGCP is what missing Cloud Logging entries take from the analysis.
const impactGCP = "load-balancer requests, Kubernetes events and health checks from Cloud Logging are missing"

// Fetch pages through the entries of Filter(w), oldest first, backing off
// when rate limited, and streams them into dir/gcp/logging.json as a JSON
// array of LogEntry objects with the REST (camelCase) field names. When a
// page fails, the entries before it are kept and the item is partial.
func (g *GCPLogging) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	t := g.Timeouts.withDefaults()
	r := newRun(ctx, SourceGCPLogging, "page", dir, t, progress)
	r.rep.Queries = g.Plan(w)
	i := r.add(bundle.Item{Kind: "query", Name: r.rep.Queries[0], Status: bundle.ItemNotRequested, Impact: "no entries: " + impactGCP})
	c, err := logging.NewClient(r.ctx, g.clientOptions(t)...)
	if err != nil {
		why := r.fail(err, func(err error) *FetchError { return gcpError(g.Project, g.endpoint(), err) })
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return r.finish()
	}
	defer c.Close()
	req := &loggingpb.ListLogEntriesRequest{
		ResourceNames: []string{"projects/" + g.Project},
		Filter:        g.Filter(w),
		OrderBy:       "timestamp asc",
		PageSize:      gcpPageSize,
	}
	retry := gax.WithRetry(func() gax.Retryer {
		return &limitedRetryer{r: gax.OnCodes([]codes.Code{codes.ResourceExhausted, codes.Unavailable, codes.DeadlineExceeded, codes.Internal}, gcpBackoff),
			left: gcpMaxAttempts - 1, notify: func(why string) { r.retry("page", why) }}
	})
	f := newBundleFile(dir, gcpLoggingFile, "[", "\n]\n")
	mo := protojson.MarshalOptions{UseProtoNames: false}
	it := c.ListLogEntries(r.ctx, req, retry)
	n, pageStart, before := 0, 0, int64(0)
	var last time.Time
	var fetchErr error
	for {
		e, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			fetchErr = err
			break
		}
		b, err := mo.Marshal(e)
		if err != nil {
			continue // a message the server sent always marshals
		}
		if n > 0 {
			f.Write([]byte(","))
		}
		f.Write([]byte("\n"))
		f.Write(b)
		n++
		if ts := e.GetTimestamp(); ts != nil && ts.AsTime().After(last) {
			last = ts.AsTime()
		}
		if it.PageInfo().Remaining() == 0 {
			r.settle("page")
			r.saved(n-pageStart, f.n-before)
			pageStart, before = n, f.n
		}
	}
	r.settle("page")
	if err := f.Close(); err != nil && fetchErr == nil {
		fetchErr = err
	}
	file := ""
	if f.n > 0 {
		file = f.rel
	}
	if fetchErr == nil {
		r.update(i, func(it *bundle.Item) {
			it.Status, it.File, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, file, n, f.n, ""
		})
		rep, err := r.finish()
		if n == 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("no Cloud Logging entries in projects/%s for %s", g.Project, w))
		}
		return rep, err
	}
	why := r.fail(fetchErr, func(err error) *FetchError { return gcpError(g.Project, g.endpoint(), err) })
	r.update(i, func(it *bundle.Item) {
		it.Status, it.File, it.Records, it.Bytes, it.Reason = bundle.ItemFailed, file, n, f.n, why
		if n > 0 {
			it.Status = bundle.ItemPartial
			it.Impact = fmt.Sprintf("entries after %s are missing: %s after it", last.UTC().Format(time.RFC3339Nano), impactGCP)
		}
	})
	return r.finish()
}

// limitedRetryer stops a gax Retryer after a number of retries, never
// retries a call whose connection could not be made or that got no answer
// in time, and tells notify about each retry.
type limitedRetryer struct {
	r      gax.Retryer
	left   int
	notify func(reason string)
}

// Retry implements gax.Retryer.
func (l *limitedRetryer) Retry(err error) (time.Duration, bool) {
	if l.left <= 0 || gcpDialFailed(err) {
		return 0, false
	}
	d, ok := l.r.Retry(err)
	if ok {
		l.left--
		if l.notify != nil {
			l.notify(status.Code(err).String())
		}
	}
	return d, ok
}

// gcpDialFailed reports whether a gRPC error says that no connection could
// be made. grpc-go reports it as Unavailable with the dial error in the
// message only.
func gcpDialFailed(err error) bool {
	if status.Code(err) != codes.Unavailable {
		return false
	}
	msg := status.Convert(err).Message()
	for _, s := range []string{"Error while dialing", "connection refused", "produced zero addresses", "no such host", "authentication handshake failed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// gcpError words a Cloud Logging error as a FetchError.
func gcpError(project, endpoint string, err error) *FetchError {
	if fe := transportError(SourceGCPLogging, err); fe != nil {
		return fe
	}
	if strings.Contains(err.Error(), "could not find default credentials") {
		return fetchErrorf(SourceGCPLogging, err, "no Google credentials: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS").stopping()
	}
	st, ok := status.FromError(err)
	if !ok {
		return fetchErrorf(SourceGCPLogging, err, "%v", err)
	}
	if gcpDialFailed(err) {
		return fetchErrorf(SourceGCPLogging, err, "cannot connect to %s: %s", endpoint, gcpDialCause(st.Message())).stopping()
	}
	if code, ok := gcpRedirected(st.Message()); ok {
		return fetchErrorf(SourceGCPLogging, err, "%s redirected the call elsewhere (HTTP %s; gRPC does not say where): not followed, since the call carries credentials for %s only",
			endpoint, code, endpoint).stopping()
	}
	switch st.Code() {
	case codes.PermissionDenied:
		return fetchErrorf(SourceGCPLogging, err, "permission denied: the credentials need logging.logEntries.list on projects/%s (roles/logging.viewer)", project).stopping()
	case codes.Unauthenticated:
		return fetchErrorf(SourceGCPLogging, err, "credentials missing or rejected: run `gcloud auth application-default login`").stopping()
	case codes.NotFound:
		return fetchErrorf(SourceGCPLogging, err, "project %s not found", project).stopping()
	case codes.InvalidArgument:
		return fetchErrorf(SourceGCPLogging, err, "Cloud Logging rejected the query: %s", st.Message())
	case codes.ResourceExhausted:
		return fetchErrorf(SourceGCPLogging, err, "rate limited after %d attempts (read quota): retry later or narrow the window", gcpMaxAttempts)
	case codes.Unavailable, codes.Internal, codes.DeadlineExceeded:
		return fetchErrorf(SourceGCPLogging, err, "ListLogEntries failed after %d attempts: %s: %s", gcpMaxAttempts, st.Code(), st.Message())
	}
	return fetchErrorf(SourceGCPLogging, err, "ListLogEntries failed: %s: %s", st.Code(), st.Message())
}

// gcpRedirected reports whether grpc-go's message says the server
// answered with an HTTP redirect, which gRPC never follows, and its code
// ("302 (Found)").
func gcpRedirected(msg string) (string, bool) {
	const prefix = "unexpected HTTP status code received from server: "
	_, rest, ok := strings.Cut(msg, prefix)
	if !ok || len(rest) < 3 || rest[0] != '3' {
		return "", false
	}
	code, _, _ := strings.Cut(rest, ";")
	return code, true
}

// gcpDialCause shortens grpc-go's dial error message to its cause.
func gcpDialCause(msg string) string {
	switch {
	case strings.Contains(msg, "connection refused"):
		return "connection refused"
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "produced zero addresses"):
		return "the name does not resolve"
	case strings.Contains(msg, "i/o timeout"):
		return "connect timed out"
	}
	return msg
}

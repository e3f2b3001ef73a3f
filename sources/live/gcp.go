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
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
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
	// Endpoint overrides the API's host:port; on localhost it is plaintext
	// gRPC without credentials (a test server or an emulator).
	Endpoint string
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

// clientOptions returns the options that point the client at Endpoint.
func (g *GCPLogging) clientOptions() []option.ClientOption {
	if g.Endpoint == "" {
		return nil
	}
	opts := []option.ClientOption{option.WithEndpoint(g.Endpoint)}
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

// Fetch pages through the entries of Filter(w), oldest first, backing off
// when rate limited, and streams them into dir/gcp/logging.json as a JSON
// array of LogEntry objects with the REST (camelCase) field names.
func (g *GCPLogging) Fetch(ctx context.Context, w Window, dir string, progress Progress) (FetchReport, error) {
	rep := FetchReport{Source: SourceGCPLogging, Queries: g.Plan(w), Files: []string{}}
	c, err := logging.NewClient(ctx, g.clientOptions()...)
	if err != nil {
		return rep, gcpError(g.Project, err)
	}
	defer c.Close()
	req := &loggingpb.ListLogEntriesRequest{
		ResourceNames: []string{"projects/" + g.Project},
		Filter:        g.Filter(w),
		OrderBy:       "timestamp asc",
		PageSize:      gcpPageSize,
	}
	retry := gax.WithRetry(func() gax.Retryer {
		return &limitedRetryer{r: gax.OnCodes([]codes.Code{codes.ResourceExhausted, codes.Unavailable, codes.DeadlineExceeded, codes.Internal}, gcpBackoff), left: gcpMaxAttempts - 1}
	})
	f, err := createBundleFile(dir, gcpLoggingFile)
	if err != nil {
		return rep, err
	}
	f.WriteString("[")
	mo := protojson.MarshalOptions{UseProtoNames: false}
	it := c.ListLogEntries(ctx, req, retry)
	n := 0
	for {
		e, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			f.Remove()
			return rep, gcpError(g.Project, err)
		}
		b, err := mo.Marshal(e)
		if err != nil {
			f.Remove()
			return rep, fetchErrorf(SourceGCPLogging, err, "entry %s: %v", e.GetInsertId(), err)
		}
		if n > 0 {
			f.WriteString(",")
		}
		f.WriteString("\n")
		f.Write(b)
		n++
		if progress != nil && (n%gcpPageSize == 0 || it.PageInfo().Remaining() == 0) {
			progress(SourceGCPLogging, n, f.n)
		}
	}
	f.WriteString("\n]\n")
	if err := f.Close(); err != nil {
		return rep, err
	}
	rep.Records, rep.Bytes, rep.Files = n, f.n, []string{f.rel}
	if n == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no Cloud Logging entries in projects/%s for %s", g.Project, w))
	}
	return rep, nil
}

// limitedRetryer stops a gax Retryer after a number of retries.
type limitedRetryer struct {
	r    gax.Retryer
	left int
}

// Retry implements gax.Retryer.
func (l *limitedRetryer) Retry(err error) (time.Duration, bool) {
	if l.left <= 0 {
		return 0, false
	}
	l.left--
	return l.r.Retry(err)
}

// gcpError words a Cloud Logging error as a FetchError.
func gcpError(project string, err error) *FetchError {
	if strings.Contains(err.Error(), "could not find default credentials") {
		return fetchErrorf(SourceGCPLogging, err, "no Google credentials: run `gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS")
	}
	st, ok := status.FromError(err)
	if !ok {
		return fetchErrorf(SourceGCPLogging, err, "%v", err)
	}
	switch st.Code() {
	case codes.PermissionDenied:
		return fetchErrorf(SourceGCPLogging, err, "permission denied: the credentials need logging.logEntries.list on projects/%s (roles/logging.viewer)", project)
	case codes.Unauthenticated:
		return fetchErrorf(SourceGCPLogging, err, "credentials missing or rejected: run `gcloud auth application-default login`")
	case codes.NotFound:
		return fetchErrorf(SourceGCPLogging, err, "project %s not found", project)
	case codes.InvalidArgument:
		return fetchErrorf(SourceGCPLogging, err, "Cloud Logging rejected the query: %s", st.Message())
	case codes.ResourceExhausted:
		return fetchErrorf(SourceGCPLogging, err, "rate limited after %d attempts (read quota): retry later or narrow the window", gcpMaxAttempts)
	}
	return fetchErrorf(SourceGCPLogging, err, "ListLogEntries failed: %s: %s", st.Code(), st.Message())
}

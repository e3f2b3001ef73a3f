package live

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/logging/apiv2/loggingpb"
	"github.com/googleapis/gax-go/v2"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/live/livetest"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
)

// gcpTestEntries turns gcloud JSON entries into the LogEntry messages the
// API serves.
func gcpTestEntries(t *testing.T, docs ...string) []*loggingpb.LogEntry {
	t.Helper()
	var out []*loggingpb.LogEntry
	for _, d := range docs {
		e := &loggingpb.LogEntry{}
		if err := protojson.Unmarshal([]byte(d), e); err != nil {
			t.Fatalf("%v\n%s", err, d)
		}
		out = append(out, e)
	}
	return out
}

// fastGCPBackoff makes retries quick for the test's duration.
func fastGCPBackoff(t *testing.T) {
	old := gcpBackoff
	gcpBackoff = gax.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, Multiplier: 2}
	t.Cleanup(func() { gcpBackoff = old })
}

func TestGCPLoggingFetch(t *testing.T) {
	fastGCPBackoff(t)
	docs := []string{gcpRef14, gcpRef15, gcpRef16, gcpRef53Pulling, gcpRef53Endpoints, gcpExporterRestart}
	srv := livetest.NewLogging(t)
	srv.Entries = gcpTestEntries(t, docs...)
	srv.FailCode, srv.FailCount = codes.ResourceExhausted, 2
	dir := t.TempDir()
	g := &GCPLogging{Project: "my-project", URLMap: "k8s2-um-web", BackendService: `we"b`, Cluster: "prod-1", Namespace: "shop", Endpoint: srv.Addr}
	w := Window{Since: time.Date(2024, 5, 1, 11, 45, 0, 0, time.UTC), Until: time.Date(2024, 5, 1, 12, 15, 0, 0, time.UTC)}
	var last int
	rep, err := g.Fetch(context.Background(), w, dir, func(_ string, s ProgressState) { last = s.Records })
	if err != nil {
		t.Fatal(err)
	}
	wantFilter := `timestamp>="2024-05-01T11:45:00Z" AND timestamp<"2024-05-01T12:15:00Z" AND ((resource.type=("http_load_balancer" OR "http_external_regional_lb_rule" OR "internal_http_lb_rule") AND resource.labels.url_map_name="k8s2-um-web" AND (resource.labels.backend_service_name="we\"b" OR resource.labels.backend_target_name="we\"b")) OR (log_id("events") AND resource.labels.cluster_name="prod-1" AND jsonPayload.involvedObject.namespace="shop") OR log_id("compute.googleapis.com/healthchecks"))`
	reqs := srv.Requests()
	// Two rate-limited calls, then three pages of two entries.
	if len(reqs) != 5 {
		t.Fatalf("%d calls, want 5:\n%s", len(reqs), strings.Join(reqs, "\n"))
	}
	for i, tok := range []string{"", "", "", "2", "4"} {
		want := `resources=projects/my-project order="timestamp asc" pageSize=1000 token="` + tok + `" filter=` + wantFilter
		if reqs[i] != want {
			t.Fatalf("call %d:\n%s\nwant\n%s", i, reqs[i], want)
		}
	}
	if rep.Records != len(docs) || last != len(docs) || rep.Files[0] != "gcp/logging.json" {
		t.Fatalf("report %+v, progress %d", rep, last)
	}

	// The bundle file reads exactly as the gcloud JSON it came from.
	orig := filepath.Join(t.TempDir(), "orig.json")
	os.WriteFile(orig, []byte("["+strings.Join(docs, ",")+"]"), 0o644)
	read := func(path string) *collector {
		c := &collector{}
		res, err := sources.Read(context.Background(), []string{path}, sources.Options{}, func(*sources.InputReport) sources.Handler { return c })
		if err != nil || res.Inputs[0].Skipped != 0 || res.Inputs[0].Format != sources.FormatGCPLogging {
			t.Fatalf("%s: %v %+v %v", path, err, res.Inputs, res.Warnings)
		}
		for _, r := range c.requests {
			r.Origin = sources.Origin{}
		}
		for i := range c.lifecycle {
			c.lifecycle[i].Origin = sources.Origin{}
		}
		for _, x := range c.configs {
			x.Origin = sources.Origin{}
		}
		return c
	}
	got, want := read(filepath.Join(dir, "gcp/logging.json")), read(orig)
	if len(got.requests) != 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("bundle reads as\n%+v\nwant\n%+v", got, want)
	}
}

func TestGCPLoggingErrors(t *testing.T) {
	fastGCPBackoff(t)
	w := Window{Since: time.Unix(0, 0), Until: time.Unix(60, 0)}
	for _, tt := range []struct {
		code  codes.Code
		count int
		want  string
	}{
		{codes.PermissionDenied, 1, "gcp-logging: permission denied: the credentials need logging.logEntries.list on projects/p (roles/logging.viewer)"},
		{codes.ResourceExhausted, 100, "gcp-logging: rate limited after 6 attempts (read quota): retry later or narrow the window"},
		{codes.Unauthenticated, 1, "gcp-logging: credentials missing or rejected: run `gcloud auth application-default login`"},
	} {
		srv := livetest.NewLogging(t)
		srv.FailCode, srv.FailCount = tt.code, tt.count
		dir := t.TempDir()
		_, err := (&GCPLogging{Project: "p", Endpoint: srv.Addr}).Fetch(context.Background(), w, dir, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v", tt.code, err)
		}
		if _, serr := os.Stat(filepath.Join(dir, "gcp/logging.json")); serr == nil {
			t.Errorf("%s: a partial file was left", tt.code)
		}
	}
	srv := livetest.NewLogging(t)
	rep, err := (&GCPLogging{Project: "p", Endpoint: srv.Addr}).Fetch(context.Background(), w, t.TempDir(), nil)
	if err != nil || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "no Cloud Logging entries") {
		t.Fatalf("empty: %+v %v", rep, err)
	}
}

package enginetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
)

// gcpLASchema is the schema tables.get gives of the Log Analytics view,
// for the columns gcpLAColumns loads (JSON columns are JSON in BigQuery).
var gcpLASchema = []reduced.Field{
	{Name: "timestamp", Type: "TIMESTAMP"},
	{Name: "log_name", Type: "STRING"},
	{Name: "insert_id", Type: "STRING"},
	{Name: "resource", Type: "RECORD", Fields: []reduced.Field{{Name: "type", Type: "STRING"}, {Name: "labels", Type: "JSON"}}},
	{Name: "http_request", Type: "RECORD", Fields: []reduced.Field{{Name: "request_method", Type: "STRING"}, {Name: "request_url", Type: "STRING"},
		{Name: "status", Type: "INTEGER"}, {Name: "server_ip", Type: "STRING"}}},
	{Name: "json_payload", Type: "JSON"},
	{Name: "trace", Type: "STRING"},
}

// gcpFixture is a Google Cloud fixture served by a loopback BigQuery.
type gcpFixture struct {
	dir   string
	files []string // the fixture's Cloud Logging files
	bq    *bigQueryFake
	// la is the Log Analytics view, sink the sink's tables.
	la   string
	sink []string
	// others are the fixture's inputs without its load balancer requests:
	// events, objects, settings, as triage would read them raw.
	others       []string
	since, until time.Time
}

// isGCPRequest reports whether the adapter reads entry e as a load
// balancer request.
func isGCPRequest(e map[string]any) bool {
	res := obj(e, "resource")
	logName, _ := e["logName"].(string)
	if res == nil || e["httpRequest"] == nil || !slices.Contains(sources.GCPRequestResourceTypes, fmt.Sprint(res["type"])) {
		return false
	}
	for _, s := range sources.GCPNotRequestLogSuffixes {
		if strings.HasSuffix(logName, s) {
			return false
		}
	}
	return true
}

// serveGCPFixture loads the fixture's Cloud Logging entries into DuckDB
// behind a fake BigQuery, both as a Log Analytics view and as a sink's
// tables, and writes what is no request to files of its own.
func serveGCPFixture(t *testing.T, name string) *gcpFixture {
	t.Helper()
	f := &gcpFixture{dir: filepath.Join(root, "fixtures", name)}
	top, err := os.ReadDir(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for _, x := range top {
		p := filepath.Join(f.dir, x.Name())
		if strings.HasPrefix(x.Name(), ".") {
			continue
		}
		if !strings.HasSuffix(x.Name(), ".json") {
			f.others = append(f.others, p)
			continue
		}
		entries, _ := gcpEntries(t, p)
		var rest []map[string]any
		for _, e := range entries {
			if !isGCPRequest(e) {
				rest = append(rest, e)
			}
		}
		if len(rest) == len(entries) {
			f.others = append(f.others, p)
			continue
		}
		f.files = append(f.files, p)
		if len(rest) > 0 {
			b, err := json.Marshal(rest)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, x.Name())
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
			f.others = append(f.others, out)
		}
	}
	db, sinks, _ := gcpDuck(t, f.files)
	f.bq = newBigQueryFake(t, db)
	f.bq.PageSize = 200 // several pages on every fixture
	f.bq.Bytes = 1 << 30
	f.la = gcpProject + "." + gcpLADataset + "._AllLogs"
	f.bq.Schemas[gcpLADataset+"._AllLogs"] = gcpLASchema
	for _, s := range sinks {
		f.sink = append(f.sink, s)
		f.bq.Schemas[gcpSinkData+"."+s[strings.LastIndex(s, ".")+1:]] = gcpSinkSchema
	}
	b, err := reduced.Reduce(context.Background(), f.files, sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range b.Inputs {
		if !in.First.IsZero() && (f.since.IsZero() || in.First.Before(f.since)) {
			f.since = in.First
		}
		if in.Last.After(f.until) {
			f.until = in.Last
		}
	}
	f.since, f.until = f.since.Truncate(time.Minute).Add(-time.Minute), f.until.Truncate(time.Minute).Add(2*time.Minute)
	return f
}

// gcpEnv is the environment of a readygap run against the fake: no
// Google credentials (the loopback endpoint takes none), no kubeconfig.
func gcpEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "GOOGLE_APPLICATION_CREDENTIALS="+filepath.Join(home, "none"),
		"KUBECONFIG="+filepath.Join(home, "none"), "HOME="+home, "NO_COLOR=1")
}

// triageBigQuery runs `readygap triage --engine bigquery` over tables and
// returns the folder it saved, its stderr and its error.
func (f *gcpFixture) triage(t *testing.T, env []string, tables []string, extra ...string) (string, string, error) {
	t.Helper()
	save := filepath.Join(t.TempDir(), "bundle")
	args := []string{"triage", "--engine", "bigquery", "--bq-project", gcpProject, "--bigquery-endpoint", f.bq.Host,
		"--since", f.since.Format(time.RFC3339), "--until", f.until.Format(time.RFC3339), "--save", save, "-o", "json"}
	for _, tb := range tables {
		args = append(args, "--bq-table", tb)
	}
	cmd := exec.Command(readygap(t), append(args, extra...)...)
	cmd.Env = env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	return save, errOut.String(), err
}

// gcpFixtureNames are the Google Cloud load balancer fixtures.
func gcpFixtureNames(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "fixtures", "gke-*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Base(d))
	}
	if len(out) < 20 {
		t.Fatalf("%d Google Cloud fixtures; the catalog holds more", len(out))
	}
	return out
}

// TestTriageBigQuerySameVerdict drives `readygap triage --engine
// bigquery` against a loopback BigQuery (the real google.golang.org/api
// client, its endpoint set by --bigquery-endpoint) for every Google Cloud
// fixture, the fixtures taking turns at a Log Analytics view and a sink's
// tables, then analyzes what it saved with the fixture's events and
// objects, and requires the verdict of `analyze` on the raw files.
func TestTriageBigQuerySameVerdict(t *testing.T) {
	for i, name := range gcpFixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			f := serveGCPFixture(t, name)
			tables := []string{f.la}
			if i%2 == 1 {
				tables = f.sink
			}
			env := gcpEnv(t)
			save, stderr, err := f.triage(t, env, tables)
			if err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() == 1 || ee.ExitCode() == 2 {
					man, _ := os.ReadFile(filepath.Join(save, ".bundle.json"))
					t.Fatalf("triage: %v\n%s\n%s", err, stderr, man)
				}
			}
			if !strings.Contains(stderr, "bigquery-gcp-lb: job ") || !strings.Contains(stderr, "the dry run says") {
				t.Errorf("no progress of the job on stderr:\n%s", stderr)
			}
			calls := f.bq.Calls()
			if i := slices.Index(calls, "jobs.query"); i < 0 || i > slices.Index(calls, "jobs.insert") || !slices.Contains(calls, "jobs.getQueryResults") {
				t.Errorf("BigQuery calls %v: want tables.get, a dry run, the job, its results", calls)
			}
			b, err := reduced.ReadFile(filepath.Join(save, "bigquery-gcp-lb"+reduced.Suffix))
			if err != nil {
				t.Fatal(err)
			}
			if b.Engine != "bigquery" || b.QueryID == "" || b.BytesScanned != f.bq.Bytes || b.CostUSD <= 0 || !slices.Equal(b.Tables, tables) {
				t.Errorf("bundle engine %q job %q billed %d cost %v tables %v", b.Engine, b.QueryID, b.BytesScanned, b.CostUSD, b.Tables)
			}
			for _, g := range b.Groups {
				if !strings.HasPrefix(g.Earliest.Ref, "insertId=") || !slices.Contains(tables, g.Earliest.Object) {
					t.Errorf("group %+v: want records named by table and insertId", g)
					break
				}
			}
			want := analyzeVerdict(t, env, f.dir)
			got := analyzeVerdict(t, env, append([]string{save}, f.others...)...)
			if want != got {
				t.Errorf("triage --engine bigquery gives another verdict:\n%s", diff(want, got))
			}
		})
	}
}

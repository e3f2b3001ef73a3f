package enginetest

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
)

// gcpStandIns are the GoogleSQL functions the BigQuery query uses that
// DuckDB lacks or means otherwise, each a macro of BigQuery's meaning:
//   - JSON_VALUE(json, path): the scalar at path as a string without its
//     quotes, NULL for an object or array (DuckDB's json_value keeps the
//     quotes);
//   - UNIX_MICROS(timestamp): DuckDB's epoch_us;
//   - REGEXP_CONTAINS(s, re): DuckDB's regexp_matches (both RE2, both
//     match anywhere unless anchored).
var gcpStandIns = []string{
	`CREATE MACRO json_value(j, p) AS CASE WHEN json_type(j, p) IN ('OBJECT', 'ARRAY') THEN NULL ELSE json_extract_string(j, p) END`,
	`CREATE MACRO unix_micros(t) AS epoch_us(t)`,
	`CREATE MACRO regexp_contains(s, p) AS regexp_matches(s, p)`,
}

// The project and datasets the tests load tables into.
const (
	gcpProject   = "shop-prod"
	gcpLADataset = "lb_logs"   // a Log Analytics linked dataset
	gcpSinkData  = "lb_export" // a log sink's dataset
)

// gcpLAColumns are the columns of the Log Analytics view _AllLogs the
// query reads, in DuckDB's types (TIMESTAMP for BigQuery's, JSON for JSON,
// STRUCT for RECORD).
var gcpLAColumns = [][2]string{
	{"timestamp", "TIMESTAMP"},
	{"log_name", "VARCHAR"},
	{"insert_id", "VARCHAR"},
	{"resource", "STRUCT(type VARCHAR, labels JSON)"},
	{"http_request", "STRUCT(request_method VARCHAR, request_url VARCHAR, status BIGINT, server_ip VARCHAR)"},
	{"json_payload", "JSON"},
	{"trace", "VARCHAR"},
}

// gcpSinkSchema is the schema of a table a log sink writes for load
// balancer request logs (cloud.google.com/logging/docs/export/bigquery):
// LogEntry's names, and the payload with an @type in a column named after
// the type, its fields lower-cased.
var gcpSinkSchema = []reduced.Field{
	{Name: "timestamp", Type: "TIMESTAMP"},
	{Name: "logName", Type: "STRING"},
	{Name: "insertId", Type: "STRING"},
	{Name: "resource", Type: "RECORD", Fields: []reduced.Field{{Name: "type", Type: "STRING"}, {Name: "labels", Type: "RECORD", Fields: []reduced.Field{
		{Name: "backend_service_name", Type: "STRING"}, {Name: "backend_target_name", Type: "STRING"}, {Name: "url_map_name", Type: "STRING"},
		{Name: "forwarding_rule_name", Type: "STRING"}, {Name: "project_id", Type: "STRING"}}}}},
	{Name: "httpRequest", Type: "RECORD", Fields: []reduced.Field{{Name: "requestMethod", Type: "STRING"}, {Name: "requestUrl", Type: "STRING"},
		{Name: "status", Type: "INTEGER"}, {Name: "serverIp", Type: "STRING"}}},
	{Name: "jsonPayload", Type: "RECORD", Fields: []reduced.Field{{Name: "statusdetails", Type: "STRING"}, {Name: "proxystatus", Type: "STRING"}}},
	{Name: "jsonpayload_type_loadbalancerlogentry", Type: "RECORD", Fields: []reduced.Field{{Name: "statusdetails", Type: "STRING"}, {Name: "proxystatus", Type: "STRING"}}},
	{Name: "trace", Type: "STRING"},
}

// duckType is the DuckDB type of a schema field.
func duckType(f reduced.Field) string {
	switch f.Type {
	case "RECORD":
		var parts []string
		for _, s := range f.Fields {
			parts = append(parts, `"`+s.Name+`" `+duckType(s))
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")"
	case "INTEGER":
		return "BIGINT"
	case "TIMESTAMP":
		return "TIMESTAMP"
	}
	return "VARCHAR"
}

// gcpEntries reads the LogEntry objects of a file: a JSON array, one
// object, or one entry a line. What is not a JSON object is left out and
// counted in bad (the local reading skips it; no BigQuery table can hold
// it).
func gcpEntries(t *testing.T, name string) (out []map[string]any, bad int) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var one map[string]any
	if json.Unmarshal(data, &one) == nil {
		// An entries:list response holds its entries in "entries".
		if list, ok := one["entries"].([]any); ok {
			for _, e := range list {
				if m, ok := e.(map[string]any); ok {
					out = append(out, m)
				} else {
					bad++
				}
			}
			return out, bad
		}
		return []map[string]any{one}, 0
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		var arr []json.RawMessage
		if err := json.Unmarshal(trimmed, &arr); err != nil {
			t.Fatal(err)
		}
		for _, raw := range arr {
			var m map[string]any
			if json.Unmarshal(raw, &m) == nil {
				out = append(out, m)
			} else {
				bad++
			}
		}
		return out, bad
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		} else if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			bad++
		}
	}
	return out, bad
}

// str is m[key] when it is a string.
func str(m map[string]any, key string) any {
	if s, ok := m[key].(string); ok {
		return s
	}
	return nil
}

// obj is m[key] when it is an object.
func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

// gcpStored is an entry as BigQuery stores it: its time (timestamp, or
// receiveTimestamp, which Cloud Logging puts in timestamp when an entry
// has none), to the microsecond BigQuery keeps, and its status as an
// integer; not ok for an entry Cloud Logging would not have taken.
func gcpStored(e map[string]any) (ts string, status any, ok bool) {
	text, _ := e["timestamp"].(string)
	if _, has := e["timestamp"]; !has {
		text, _ = e["receiveTimestamp"].(string)
	}
	at, err := time.Parse(time.RFC3339Nano, text)
	if err != nil || at.IsZero() {
		return "", nil, false
	}
	if hr := obj(e, "httpRequest"); hr != nil && hr["status"] != nil {
		n, isNum := hr["status"].(float64)
		if !isNum || n != float64(int64(n)) {
			return "", nil, false
		}
		status = int64(n)
	}
	return at.UTC().Truncate(time.Microsecond).Format("2006-01-02 15:04:05.000000"), status, true
}

// sinkTableRE turns a log id into the name of the table a sink writes it to.
var sinkTableRE = regexp.MustCompile(`[^A-Za-z0-9_]`)

// sinkTable is the table a sink writes the log logName to.
func sinkTable(logName string) string {
	id := logName[strings.LastIndex(logName, "/logs/")+len("/logs/"):]
	if u, err := url.PathUnescape(id); err == nil {
		id = u
	}
	return sinkTableRE.ReplaceAllString(id, "_")
}

// gcpDuck loads the entries of files into DuckDB as BigQuery holds them:
// every entry in the Log Analytics view _AllLogs, and the load balancer
// request logs in the tables a sink writes them to, one a log. It returns
// the database, the sink's tables and how many elements or entries no
// table can hold (not JSON objects, no valid time, a status that is no
// integer).
func gcpDuck(t *testing.T, files []string) (*sql.DB, []string, int) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	dir := t.TempDir()
	la, err := os.Create(filepath.Join(dir, "all.json"))
	if err != nil {
		t.Fatal(err)
	}
	sinks := map[string]*os.File{}
	unstorable := 0
	for _, f := range files {
		entries, bad := gcpEntries(t, f)
		unstorable += bad
		for _, e := range entries {
			if _, ok := e["logName"].(string); !ok {
				unstorable++ // no LogEntry: skipped locally, never in Cloud Logging
				continue
			}
			ts, status, ok := gcpStored(e)
			if !ok {
				// Counted when the local reading reads it as a request
				// and skips it for its time or status.
				if res := obj(e, "resource"); res != nil && e["httpRequest"] != nil && slices.Contains(sources.GCPRequestResourceTypes, fmt.Sprint(res["type"])) {
					unstorable++
				}
				continue
			}
			hr := obj(e, "httpRequest")
			payload := obj(e, "jsonPayload")
			res := obj(e, "resource")
			row := map[string]any{"timestamp": ts, "log_name": str(e, "logName"), "insert_id": str(e, "insertId"), "trace": str(e, "trace"),
				"resource": nil, "http_request": nil, "json_payload": payload}
			if res != nil {
				row["resource"] = map[string]any{"type": str(res, "type"), "labels": obj(res, "labels")}
			}
			if hr != nil {
				row["http_request"] = map[string]any{"request_method": str(hr, "requestMethod"), "request_url": str(hr, "requestUrl"),
					"status": status, "server_ip": str(hr, "serverIp")}
			}
			writeJSONLine(t, la, row)
			logName, _ := e["logName"].(string)
			if hr == nil || res == nil || !slices.Contains(sources.GCPRequestResourceTypes, fmt.Sprint(res["type"])) || !strings.Contains(logName, "/logs/") {
				continue
			}
			sink := map[string]any{"timestamp": ts, "logName": logName, "insertId": str(e, "insertId"), "trace": str(e, "trace"),
				"resource":    map[string]any{"type": str(res, "type"), "labels": obj(res, "labels")},
				"httpRequest": map[string]any{"requestMethod": str(hr, "requestMethod"), "requestUrl": str(hr, "requestUrl"), "status": status, "serverIp": str(hr, "serverIp")}}
			if payload != nil {
				col := "jsonPayload"
				if _, typed := payload["@type"]; typed {
					col = "jsonpayload_type_loadbalancerlogentry"
				}
				sink[col] = map[string]any{"statusdetails": str(payload, "statusDetails"), "proxystatus": str(payload, "proxyStatus")}
			}
			name := sinkTable(logName)
			if sinks[name] == nil {
				if sinks[name], err = os.Create(filepath.Join(dir, name+".json")); err != nil {
					t.Fatal(err)
				}
			}
			writeJSONLine(t, sinks[name], sink)
		}
	}
	la.Close()
	stmts := append([]string{
		`ATTACH ':memory:' AS "` + gcpProject + `"`,
		`CREATE SCHEMA "` + gcpProject + `".` + gcpLADataset,
		`CREATE SCHEMA "` + gcpProject + `".` + gcpSinkData,
		`CREATE TABLE "` + gcpProject + `".` + gcpLADataset + `."_AllLogs" AS SELECT * FROM read_json('` + la.Name() + `', format = 'newline_delimited', columns = ` + duckColumns(gcpLAColumns) + `)`,
	}, gcpStandIns...)
	var tables []string
	var sinkCols [][2]string
	for _, f := range gcpSinkSchema {
		sinkCols = append(sinkCols, [2]string{f.Name, duckType(f)})
	}
	for _, name := range sortedNames(sinks) {
		sinks[name].Close()
		stmts = append(stmts, `CREATE TABLE "`+gcpProject+`".`+gcpSinkData+`."`+name+`" AS SELECT * FROM read_json('`+sinks[name].Name()+`', format = 'newline_delimited', columns = `+duckColumns(sinkCols)+`)`)
		tables = append(tables, gcpProject+"."+gcpSinkData+"."+name)
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	return db, tables, unstorable
}

func sortedNames[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// duckColumns renders read_json's columns argument.
func duckColumns(cols [][2]string) string {
	var parts []string
	for _, c := range cols {
		parts = append(parts, `"`+c[0]+`": '`+c[1]+`'`)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func writeJSONLine(t *testing.T, f *os.File, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// gcpInputs are the Google Cloud load balancer fixtures and the real Cloud
// Logging samples the sources tests read.
func gcpInputs(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	dirs, err := filepath.Glob(filepath.Join(root, "fixtures", "gke-*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "*.json"))
		// .expected.json is the fixture's verdict, no input.
		out[filepath.Base(d)] = slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(filepath.Base(f), ".") })
	}
	samples, _ := filepath.Glob(filepath.Join(root, "sources", "testdata", "samples", "gcp-logging", "*"))
	for _, s := range samples {
		if filepath.Base(s) != "NOTICE" {
			out["sample/"+filepath.Base(s)] = []string{s}
		}
	}
	if len(out) < 25 {
		t.Fatalf("found %d Google Cloud inputs; the catalog holds more", len(out))
	}
	return out
}

// gcpComparable strips what only one side can know (the file and line a
// local reading read a record at, the table and insertId the query names
// it by, entries passed over), and sums the inputs into one: a query reads
// tables, not the files they were loaded from.
func gcpComparable(b *reduced.Bundle) *reduced.Bundle {
	c := *b
	c.Groups = slices.Clone(b.Groups)
	for i := range c.Groups {
		for _, r := range []*reduced.Record{&c.Groups[i].Earliest, &c.Groups[i].Latest} {
			r.Line, r.Ref, r.Object = 0, "", ""
		}
	}
	sum := reduced.Input{Format: string(sources.FormatGCPLogging)}
	for _, in := range b.Inputs {
		sum.Records += in.Records
		sum.Skipped += in.Skipped
		sum.Duplicates += in.Duplicates
		if in.Records > 0 {
			if sum.First.IsZero() || in.First.Before(sum.First) {
				sum.First = in.First
			}
			if in.Last.After(sum.Last) {
				sum.Last = in.Last
			}
		}
	}
	c.Inputs = []reduced.Input{sum}
	c.Engine, c.Query, c.Window = "", "", nil
	return &c
}

// gcpBundleText renders b for comparison.
func gcpBundleText(t *testing.T, b *reduced.Bundle) string {
	t.Helper()
	var buf bytes.Buffer
	if err := gcpComparable(b).Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// gcpLocal is readygap's own reduction of files (readygap reduce).
func gcpLocal(t *testing.T, files []string, opts sources.Options) *reduced.Bundle {
	t.Helper()
	want, err := reduced.Reduce(context.Background(), files, opts)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestGCPQueryEqualsLocalReduction runs the BigQuery query on DuckDB over
// every Google Cloud load balancer fixture and real Cloud Logging sample,
// loaded both as a Log Analytics view and as a sink's tables, and requires
// readygap's own reduction of the same files: every second, cell and
// failure group, the records, duplicates and times, byte for byte (but for
// the file and line only a local reading knows and the table and insertId
// only the query names records by).
func TestGCPQueryEqualsLocalReduction(t *testing.T) {
	for name, files := range gcpInputs(t) {
		t.Run(name, func(t *testing.T) {
			want := gcpLocal(t, files, sources.Options{})
			db, sinkTables, unstorable := gcpDuck(t, files)
			// What no table can hold, the local reading skipped.
			want.Inputs[0].Skipped -= unstorable
			la := reduced.GCPQuery{Tables: []reduced.GCPTable{{Name: gcpProject + "." + gcpLADataset + "._AllLogs", Columns: reduced.LogAnalyticsColumns()}}}
			sink := reduced.GCPQuery{}
			for _, tb := range sinkTables {
				cols, err := reduced.SinkColumns(gcpSinkSchema)
				if err != nil {
					t.Fatal(err)
				}
				sink.Tables = append(sink.Tables, reduced.GCPTable{Name: tb, Columns: cols})
			}
			w := gcpBundleText(t, want)
			for _, q := range []struct {
				name string
				q    reduced.GCPQuery
			}{{"log analytics", la}, {"sink", sink}} {
				if len(q.q.Tables) == 0 {
					if want.Inputs != nil && len(want.Seconds) > 0 {
						t.Errorf("%s: no table, where the files hold requests", q.name)
					}
					continue
				}
				got, err := reduced.GCPRowsBundle(runQuery(t, db, q.q.SQL()))
				if err != nil {
					t.Fatalf("%s: %v", q.name, err)
				}
				if g := gcpBundleText(t, got); w != g {
					t.Errorf("%s: the query's reduction differs from readygap's:\n%s", q.name, diff(w, g))
				}
			}
		})
	}
}

package enginetest

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/readygap/readygap/reduced"
)

// bigQueryFake is a BigQuery REST server on loopback (the v2 API's paths
// and JSON) backed by DuckDB: tables.get gives each table's schema,
// jobs.query with dryRun validates the statement and gives
// totalBytesProcessed, jobs.insert starts a job that is RUNNING for its
// first polls of jobs.get and then DONE (or failed with errorResult, as
// BigQuery fails a job above maximumBytesBilled), jobs.getQueryResults
// pages the rows by PageSize with pageToken, every value a string or null
// as BigQuery sends them, and jobs.cancel cancels.
type bigQueryFake struct {
	URL  string
	Host string // host:port, for --bigquery-endpoint
	db   *sql.DB
	// Schemas are the tables' schemas by dataset.table.
	Schemas map[string][]reduced.Field
	// PageSize rows a result page.
	PageSize int
	// Bytes is what a dry run and a job say they process and bill;
	// DryRunBytes, when set, what the dry run says instead (an estimate
	// the job then exceeds).
	Bytes, DryRunBytes int64
	// Fault, when set, changes how jobs go (faultFails, faultStalls,
	// faultTruncated: the last page is left out).
	Fault string

	mu    sync.Mutex
	jobs  map[string]*bqJob
	calls []string
}

type bqJob struct {
	state, failure string
	polls          int
	limit          int64
	columns        []string
	rows           [][]*string
	cancelled      bool
}

// newBigQueryFake starts the fake over db; it stops when t ends.
func newBigQueryFake(t testing.TB, db *sql.DB) *bigQueryFake {
	f := &bigQueryFake{db: db, PageSize: 1000, Schemas: map[string][]reduced.Field{}, jobs: map[string]*bqJob{}}
	ts := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(ts.Close)
	f.URL = ts.URL
	f.Host = strings.TrimPrefix(ts.URL, "http://")
	return f
}

// Calls returns the methods called, in order.
func (f *bigQueryFake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *bigQueryFake) call(name string) {
	f.mu.Lock()
	f.calls = append(f.calls, name)
	f.mu.Unlock()
}

// bqError writes an error as the API does.
func bqError(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg,
		"errors": []any{map[string]any{"reason": reason, "message": msg}}}})
}

func bqWrite(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// schemaJSON renders fields as tables.get does.
func schemaJSON(fs []reduced.Field) []any {
	var out []any
	for _, f := range fs {
		m := map[string]any{"name": f.Name, "type": f.Type, "mode": "NULLABLE"}
		if len(f.Fields) > 0 {
			m["fields"] = schemaJSON(f.Fields)
		}
		out = append(out, m)
	}
	return out
}

func (f *bigQueryFake) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(strings.TrimPrefix(r.URL.Path, "/bigquery/v2/"), "/"), "/")
	switch {
	case r.Method == "GET" && len(parts) == 6 && parts[2] == "datasets" && parts[4] == "tables":
		f.call("tables.get")
		fs, ok := f.Schemas[parts[3]+"."+parts[5]]
		if !ok {
			bqError(w, 404, "notFound", "Not found: Table "+parts[1]+":"+parts[3]+"."+parts[5])
			return
		}
		bqWrite(w, map[string]any{"kind": "bigquery#table", "schema": map[string]any{"fields": schemaJSON(fs)}})
	case r.Method == "POST" && len(parts) == 3 && parts[2] == "queries":
		f.call("jobs.query")
		var req struct {
			Query  string `json:"query"`
			DryRun bool   `json:"dryRun"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.DryRun {
			bqError(w, 400, "invalid", "the fake runs jobs.query as a dry run only")
			return
		}
		if _, err := f.db.Exec("EXPLAIN " + req.Query); err != nil {
			bqError(w, 400, "invalidQuery", err.Error())
			return
		}
		bqWrite(w, map[string]any{"kind": "bigquery#queryResponse", "jobComplete": true, "totalBytesProcessed": strconv.FormatInt(cmp.Or(f.DryRunBytes, f.Bytes), 10)})
	case r.Method == "POST" && len(parts) == 3 && parts[2] == "jobs":
		f.call("jobs.insert")
		var job struct {
			JobReference  map[string]any `json:"jobReference"`
			Configuration struct {
				Query struct {
					Query              string `json:"query"`
					MaximumBytesBilled string `json:"maximumBytesBilled"`
				} `json:"query"`
			} `json:"configuration"`
		}
		if err := json.NewDecoder(r.Body).Decode(&job); err != nil {
			bqError(w, 400, "invalid", err.Error())
			return
		}
		id, _ := job.JobReference["jobId"].(string)
		limit, _ := strconv.ParseInt(job.Configuration.Query.MaximumBytesBilled, 10, 64)
		j := &bqJob{state: "RUNNING", limit: limit}
		switch {
		case f.Fault == faultFails:
			j.failure = "the query failed in the fake"
		case limit > 0 && f.Bytes > limit:
			j.failure = "Query exceeded limit for bytes billed: " + strconv.FormatInt(limit, 10)
		case f.Fault != faultStalls:
			rows, err := f.db.Query(job.Configuration.Query.Query)
			if err != nil {
				j.failure = err.Error()
				break
			}
			j.columns, j.rows, err = scanRows(rows)
			if err != nil {
				j.failure = err.Error()
			}
		}
		f.mu.Lock()
		f.jobs[id] = j
		f.mu.Unlock()
		bqWrite(w, map[string]any{"kind": "bigquery#job", "jobReference": job.JobReference, "status": map[string]any{"state": "RUNNING"}})
	case r.Method == "GET" && len(parts) == 4 && parts[2] == "jobs":
		f.call("jobs.get")
		f.mu.Lock()
		j := f.jobs[parts[3]]
		var status map[string]any
		if j != nil {
			j.polls++
			if j.polls > 1 && f.Fault != faultStalls && !j.cancelled {
				j.state = "DONE"
			}
			status = map[string]any{"state": j.state}
			if j.state == "DONE" && j.failure != "" {
				status["errorResult"] = map[string]any{"reason": "invalidQuery", "message": j.failure}
			}
		}
		f.mu.Unlock()
		if j == nil {
			bqError(w, 404, "notFound", "Not found: Job "+parts[3])
			return
		}
		bqWrite(w, map[string]any{"kind": "bigquery#job", "jobReference": map[string]any{"projectId": parts[1], "jobId": parts[3]}, "status": status,
			"statistics": map[string]any{"query": map[string]any{"totalBytesProcessed": strconv.FormatInt(f.Bytes, 10), "totalBytesBilled": strconv.FormatInt(f.Bytes, 10)}}})
	case r.Method == "POST" && len(parts) == 5 && parts[2] == "jobs" && parts[4] == "cancel":
		f.call("jobs.cancel")
		f.mu.Lock()
		if j := f.jobs[parts[3]]; j != nil {
			j.cancelled = true
		}
		f.mu.Unlock()
		bqWrite(w, map[string]any{"kind": "bigquery#jobCancelResponse"})
	case r.Method == "GET" && len(parts) == 4 && parts[2] == "queries":
		f.call("jobs.getQueryResults")
		f.mu.Lock()
		j := f.jobs[parts[3]]
		f.mu.Unlock()
		if j == nil || j.state != "DONE" || j.failure != "" {
			bqError(w, 400, "invalid", "no result for job "+parts[3])
			return
		}
		start, _ := strconv.Atoi(r.URL.Query().Get("pageToken"))
		size := f.PageSize
		if m, err := strconv.Atoi(r.URL.Query().Get("maxResults")); err == nil && m < size {
			size = m
		}
		end := min(start+size, len(j.rows))
		var out []any
		for _, row := range j.rows[start:end] {
			var cells []any
			for _, v := range row {
				if v == nil {
					cells = append(cells, map[string]any{"v": nil})
				} else {
					cells = append(cells, map[string]any{"v": *v})
				}
			}
			out = append(out, map[string]any{"f": cells})
		}
		var fields []any
		for _, c := range j.columns {
			fields = append(fields, map[string]any{"name": c, "type": "STRING"})
		}
		resp := map[string]any{"kind": "bigquery#getQueryResultsResponse", "jobComplete": true, "schema": map[string]any{"fields": fields},
			"totalRows": strconv.Itoa(len(j.rows)), "rows": out}
		if end < len(j.rows) && !(f.Fault == faultTruncated && end+size >= len(j.rows)) {
			resp["pageToken"] = strconv.Itoa(end)
		}
		bqWrite(w, resp)
	default:
		bqError(w, 404, "notFound", fmt.Sprintf("the fake has no %s %s", r.Method, r.URL.Path))
	}
}

// scanRows reads a DuckDB result as text, nil for NULL.
func scanRows(rows *sql.Rows) ([]string, [][]*string, error) {
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]*string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	return cols, out, rows.Err()
}

package enginetest

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// athenaFake is an Athena server on loopback speaking the AWS JSON 1.1
// protocol of StartQueryExecution, GetQueryExecution (a query is RUNNING
// for the first polls, then SUCCEEDED), GetQueryResults (pages of
// PageSize rows, the first row of the first page being the column names,
// as Athena sends them) and StopQueryExecution, running each query on a
// DuckDB database.
type athenaFake struct {
	URL string
	db  *sql.DB
	// PageSize rows a result page; Athena's most is 1,000.
	PageSize int
	// ScannedBytes is what a query reports as DataScannedInBytes.
	ScannedBytes int64
	// Fault, when set, changes how queries go (see the fault constants).
	Fault string

	mu      sync.Mutex
	queries map[string]*fakeQuery
	calls   []string
}

// The faults athenaFake can play.
const (
	faultFails     = "fails"     // the query ends FAILED
	faultStalls    = "stalls"    // the query stays RUNNING
	faultTruncated = "truncated" // the second page's rows lack values
)

type fakeQuery struct {
	sql    string
	state  string
	reason string
	polls  int
	// done is closed when the query has run (never for a stalled one); its
	// outcome is then in result, which becomes state after the first poll.
	done    chan struct{}
	result  fakeResult
	columns []string
	rows    [][]*string
}

// fakeResult is how a query ran: its end state and what it returned.
type fakeResult struct {
	state, reason string
	columns       []string
	rows          [][]*string
}

// newAthenaFake starts the fake over db; it stops when t ends.
func newAthenaFake(t testing.TB, db *sql.DB) *athenaFake {
	a := &athenaFake{db: db, PageSize: 1000, queries: map[string]*fakeQuery{}}
	ts := httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(ts.Close)
	a.URL = ts.URL
	return a
}

// Calls returns the operations called, in order.
func (a *athenaFake) Calls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

func (a *athenaFake) fail(w http.ResponseWriter, typ, msg string) {
	w.WriteHeader(400)
	json.NewEncoder(w).Encode(map[string]string{"__type": typ, "Message": msg})
}

func (a *athenaFake) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AmazonAthena.")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-amz-json-1.1") ||
		!strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		a.fail(w, "InvalidRequestException", "not a signed JSON 1.1 request")
		return
	}
	var in struct {
		QueryString      string
		QueryExecutionId string
		NextToken        string
		MaxResults       int
		CatalogName      string
		DatabaseName     string
		TableName        string
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		a.fail(w, "InvalidRequestException", err.Error())
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, op)
	q := a.queries[in.QueryExecutionId]
	if op == "GetTableMetadata" {
		a.tableMetadata(w, in.CatalogName, in.DatabaseName, in.TableName)
		return
	}
	if op != "StartQueryExecution" && q == nil {
		a.fail(w, "InvalidRequestException", "QueryExecution "+in.QueryExecutionId+" was not found")
		return
	}
	switch op {
	case "StartQueryExecution":
		id := fmt.Sprintf("fa1e%04d-0000-4000-8000-000000000000", len(a.queries)+1)
		q := &fakeQuery{sql: in.QueryString, state: "QUEUED", done: make(chan struct{})}
		a.queries[id] = q
		if a.Fault != faultStalls {
			// The query runs while the client polls, as Athena's do.
			go func() {
				res := a.run(q.sql)
				a.mu.Lock()
				q.result = res
				a.mu.Unlock()
				close(q.done)
			}()
		}
		json.NewEncoder(w).Encode(map[string]string{"QueryExecutionId": id})
	case "GetQueryExecution":
		q.polls++
		if q.state == "QUEUED" || q.state == "RUNNING" {
			q.state = "RUNNING"
			select {
			case <-q.done:
				if q.polls >= 2 { // RUNNING at the first poll at least
					q.state, q.reason, q.columns, q.rows = q.result.state, q.result.reason, q.result.columns, q.result.rows
				}
			default:
			}
		}
		status := map[string]any{"State": q.state}
		if q.reason != "" {
			status["StateChangeReason"] = q.reason
		}
		json.NewEncoder(w).Encode(map[string]any{"QueryExecution": map[string]any{"QueryExecutionId": in.QueryExecutionId,
			"Query": q.sql, "Status": status, "Statistics": map[string]any{"DataScannedInBytes": a.ScannedBytes}}})
	case "StopQueryExecution":
		if q.state == "QUEUED" || q.state == "RUNNING" {
			q.state = "CANCELLED"
		}
		w.Write([]byte("{}"))
	case "GetQueryResults":
		if q.state != "SUCCEEDED" {
			a.fail(w, "InvalidRequestException", "Query has not yet finished. Current state: "+q.state)
			return
		}
		size := a.PageSize
		if in.MaxResults > 0 && in.MaxResults < size {
			size = in.MaxResults
		}
		// Row 0 is the header; page tokens are offsets into the rows after it.
		all := append([][]*string{strs(q.columns)}, q.rows...)
		off, _ := strconv.Atoi(in.NextToken)
		end := min(off+size, len(all))
		var rows []map[string]any
		for k, row := range all[off:end] {
			data := []map[string]any{}
			for j, v := range row {
				if a.Fault == faultTruncated && off > 0 && k == 0 && j == len(row)-1 {
					break
				}
				if v == nil {
					data = append(data, map[string]any{})
				} else {
					data = append(data, map[string]any{"VarCharValue": *v})
				}
			}
			rows = append(rows, map[string]any{"Data": data})
		}
		cols := []map[string]any{}
		for _, c := range q.columns {
			cols = append(cols, map[string]any{"Name": c, "Label": c, "Type": "varchar"})
		}
		out := map[string]any{"ResultSet": map[string]any{"Rows": rows, "ResultSetMetadata": map[string]any{"ColumnInfo": cols}},
			"UpdateCount": 0}
		if end < len(all) {
			out["NextToken"] = strconv.Itoa(end)
		}
		json.NewEncoder(w).Encode(out)
	default:
		a.fail(w, "UnknownOperationException", op)
	}
}

// tableMetadata answers GetTableMetadata from DuckDB's catalog as Glue
// lists a table: its "day" column as the partition key, the "$path"
// pseudo-column not at all.
func (a *athenaFake) tableMetadata(w http.ResponseWriter, catalog, db, table string) {
	if catalog != "AwsDataCatalog" {
		a.fail(w, "MetadataException", "Catalog "+catalog+" was not found")
		return
	}
	rows, err := a.db.Query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position`, db, table)
	if err != nil {
		a.fail(w, "InternalServerException", err.Error())
		return
	}
	defer rows.Close()
	cols, parts := []map[string]string{}, []map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			a.fail(w, "InternalServerException", err.Error())
			return
		}
		switch name {
		case "$path":
		case "day":
			parts = append(parts, map[string]string{"Name": name, "Type": "string"})
		default:
			cols = append(cols, map[string]string{"Name": name, "Type": strings.ToLower(typ)})
		}
	}
	if len(cols) == 0 {
		a.fail(w, "MetadataException", "Table "+table+" not found in database "+db)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"TableMetadata": map[string]any{"Name": table, "Columns": cols,
		"PartitionKeys": parts, "TableType": "EXTERNAL_TABLE"}})
}

// strs turns names into values.
func strs(ss []string) []*string {
	out := make([]*string, len(ss))
	for i := range ss {
		out[i] = &ss[i]
	}
	return out
}

// run runs a query on the database: SUCCEEDED with its rows, or FAILED.
func (a *athenaFake) run(query string) fakeResult {
	if a.Fault == faultFails {
		return fakeResult{state: "FAILED", reason: "HIVE_BAD_DATA: Error parsing field value for field 0"}
	}
	rows, err := a.db.Query(query)
	if err != nil {
		return fakeResult{state: "FAILED", reason: err.Error()}
	}
	defer rows.Close()
	res := fakeResult{state: "SUCCEEDED"}
	res.columns, _ = rows.Columns()
	for rows.Next() {
		vals := make([]sql.NullString, len(res.columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return fakeResult{state: "FAILED", reason: err.Error()}
		}
		row := make([]*string, len(vals))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		res.rows = append(res.rows, row)
	}
	if err := rows.Err(); err != nil {
		return fakeResult{state: "FAILED", reason: err.Error()}
	}
	return res
}

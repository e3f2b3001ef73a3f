package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	bigquery "google.golang.org/api/bigquery/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"

	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources/bundle"
)

// SourceBigQueryGCP names the BigQuery source of Google Cloud load
// balancer request logs in reports and errors.
const SourceBigQueryGCP = "bigquery-gcp-lb"

// BigQueryReducedFile is the name the BigQuery source gives its reduced
// bundle in the triage bundle.
const BigQueryReducedFile = "bigquery-gcp-lb" + reduced.Suffix

// BigQuery's on-demand price, the list price of
// https://cloud.google.com/bigquery/pricing#on_demand_pricing: $6.25 per
// TiB processed, rounded up to the MB, at least 10 MB per table the query
// references. Discounts, editions and free tiers are not counted.
const (
	bigQueryUSDPerTiB    = 6.25
	bigQueryMinPerTable  = 10 << 20
	bigQueryBillingRound = 1 << 20
)

// BigQueryCost is the list price of a query that billed n bytes over
// tables tables.
func BigQueryCost(n int64, tables int) float64 {
	billed := max(n, int64(tables)*bigQueryMinPerTable)
	billed = (billed + bigQueryBillingRound - 1) / bigQueryBillingRound * bigQueryBillingRound
	return float64(billed) / (1 << 40) * bigQueryUSDPerTiB
}

// bigQueryPoll is how a job is polled: jobs.get first after 0.2 s, each
// wait half as long again up to 5 s; a query of an hour of logs takes
// seconds.
var bigQueryPoll = pollBackoff{First: 200 * time.Millisecond, Max: 5 * time.Second}

const (
	// bigQueryCancelTimeout bounds the jobs.cancel sent when the fetch is
	// cancelled: the caller's context is done by then.
	bigQueryCancelTimeout = 10 * time.Second
	// bigQueryPageRows is the most rows a result page asks for.
	bigQueryPageRows = 10_000
	// bigQueryMaxPages bounds the result pages read.
	bigQueryMaxPages = 10_000
)

// BigQueryGCP reduces Google Cloud load balancer request logs where they
// are kept: a Log Analytics linked dataset's view (_AllLogs or a log view)
// or the tables a log sink writes. It reads each table's schema
// (tables.get), dry-runs the query (the bytes it would bill), refuses above
// MaxScan, runs it with maximumBytesBilled set, polls the job, pages its
// result and writes the reduced bundle into the triage bundle.
type BigQueryGCP struct {
	// Project is the project the job runs (and is billed) in.
	Project string
	// Tables are project.dataset.table names; a sink's date-sharded tables
	// end in * (project.dataset.requests_*).
	Tables []string
	// Location is the dataset's location (US, EU, a region); "" lets
	// BigQuery find it.
	Location string
	// Endpoint overrides the API's host:port; on localhost it is plain HTTP
	// without credentials (a test server).
	Endpoint string
	// MaxScan is the most bytes the query may bill; 0 means DefaultMaxScan.
	MaxScan int64
	// Timeouts bound each call and the whole fetch.
	Timeouts Timeouts
	// Log, when set, receives progress lines (stderr).
	Log func(format string, args ...any)
}

// Plan returns what Fetch does for w.
func (b *BigQueryGCP) Plan(w Window) []string {
	return []string{fmt.Sprintf("bigquery: tables.get of %s, a dry run, then one query in project %s over %s", strings.Join(b.Tables, ", "), b.Project, w)}
}

func (b *BigQueryGCP) logf(format string, args ...any) {
	if b.Log != nil {
		b.Log(format, args...)
	}
}

// service builds the BigQuery client: the standard Google credentials
// chain (as the Cloud Logging source uses), calls bounded by Timeouts.
func (b *BigQueryGCP) service(ctx context.Context, t Timeouts) (*bigquery.Service, error) {
	base := newDeadlineTransport(&http.Transport{DialContext: dialer(t).DialContext, Proxy: http.ProxyFromEnvironment,
		TLSHandshakeTimeout: t.Response}, t)
	var opts []option.ClientOption
	if b.Endpoint != "" {
		host, _, err := net.SplitHostPort(b.Endpoint)
		if err != nil {
			host = b.Endpoint
		}
		scheme := "https://"
		if host == "localhost" || net.ParseIP(host).IsLoopback() {
			scheme = "http://"
			opts = append(opts, option.WithoutAuthentication())
		}
		opts = append(opts, option.WithEndpoint(scheme+b.Endpoint+"/bigquery/v2/"))
	}
	tr, err := htransport.NewTransport(ctx, base, append(opts, option.WithScopes(bigquery.BigqueryScope))...)
	if err != nil {
		return nil, err
	}
	return bigquery.NewService(ctx, append(opts, option.WithHTTPClient(&http.Client{Transport: tr}))...)
}

// impactBigQuery is what a failed query takes from the analysis.
const impactBigQuery = "the load balancer's requests are missing: no failure count or window can be given from them"

// BigQueryScanError is the error of a query whose dry run says it would
// bill more than the limit: it was never run.
type BigQueryScanError struct {
	Bytes, Limit int64
	Tables       int
}

// Error implements error.
func (e *BigQueryScanError) Error() string {
	return fmt.Sprintf("the dry run says the query would process %s, above --max-scan %s (about $%.2f at BigQuery's on-demand list price): narrow --since/--until or raise --max-scan",
		words.Bytes(e.Bytes), words.Bytes(e.Limit), BigQueryCost(e.Bytes, e.Tables))
}

// Fetch runs the reduction for w and writes the bundle into dir.
func (b *BigQueryGCP) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	t := b.Timeouts.withDefaults()
	r := newRun(ctx, SourceBigQueryGCP, "query", dir, t, progress)
	i := r.add(bundle.Item{Kind: "query", Name: "bigquery " + strings.Join(b.Tables, ", "), Status: bundle.ItemNotRequested, Impact: impactBigQuery})
	failed := func(err error, op string) (bundle.FetchReport, error) {
		why := r.fail(err, func(err error) *FetchError {
			var fe *FetchError
			if errors.As(err, &fe) {
				return fe
			}
			return bigQueryError(op, err)
		})
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return r.finish()
	}
	svc, err := b.service(r.ctx, t)
	if err != nil {
		return failed(err, "credentials")
	}
	q := reduced.GCPQuery{Since: w.Since, Until: w.Until}
	for _, name := range b.Tables {
		tb, err := b.table(r, svc, name, w)
		if err != nil {
			return failed(err, "tables.get "+name)
		}
		q.Tables = append(q.Tables, tb)
	}
	sql := q.SQL()
	r.mu.Lock()
	r.rep.Queries = append(r.rep.Queries, "bigquery: "+strings.Join(b.Tables, ", "))
	r.mu.Unlock()
	limit := b.MaxScan
	if limit <= 0 {
		limit = DefaultMaxScan
	}
	dry, err := svc.Jobs.Query(b.Project, &bigquery.QueryRequest{Query: sql, DryRun: true, UseLegacySql: googleapi.Bool(false), Location: b.Location}).Context(r.ctx).Do()
	if err != nil {
		return failed(err, "jobs.query (dry run)")
	}
	b.logf("%s: the dry run says %s to process (about $%.4f)", SourceBigQueryGCP, words.Bytes(dry.TotalBytesProcessed), BigQueryCost(dry.TotalBytesProcessed, len(b.Tables)))
	if dry.TotalBytesProcessed > limit {
		se := &BigQueryScanError{Bytes: dry.TotalBytesProcessed, Limit: limit, Tables: len(b.Tables)}
		fe := fetchErrorf(SourceBigQueryGCP, se, "%s", se.Error()).stopping()
		r.stop(fe)
		r.update(i, func(it *bundle.Item) { it.Reason = fe.Msg })
		return r.finish()
	}
	res, err := b.query(r, svc, sql, limit)
	if err != nil {
		return failed(err, "jobs.insert")
	}
	res.Engine, res.Query, res.Tables = "bigquery", sql, b.Tables
	if !w.Since.IsZero() || !w.Until.IsZero() {
		res.Window = &reduced.Window{Since: w.Since.UTC(), Until: w.Until.UTC()}
	}
	res.CostUSD = BigQueryCost(res.BytesScanned, len(b.Tables))
	f := newBundleFile(dir, BigQueryReducedFile, "", "")
	werr := res.Write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return failed(fetchErrorf(SourceBigQueryGCP, werr, "writing %s: %v", BigQueryReducedFile, werr).stopping(), "")
	}
	b.logf("%s: job %s billed %s ($%.4f): %d seconds, %d cells, %d failure groups", SourceBigQueryGCP, res.QueryID,
		words.Bytes(res.BytesScanned), res.CostUSD, len(res.Seconds), len(res.Cells), len(res.Groups))
	n := len(res.Seconds) + len(res.Cells) + len(res.Groups)
	r.update(i, func(it *bundle.Item) {
		it.Status, it.File, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, f.rel, n, f.n, ""
	})
	r.saved(n, f.n)
	return r.finish()
}

// bigQueryError words an API error.
func bigQueryError(op string, err error) *FetchError {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return fetchErrorf(SourceBigQueryGCP, err, "bigquery %s: HTTP %d: %s", op, ge.Code, ge.Message)
	}
	return fetchErrorf(SourceBigQueryGCP, err, "bigquery %s: %v", op, err)
}

// table reads the schema of one table and returns how the query reads it:
// a Log Analytics view (json_payload, http_request) or a sink's table. A
// date-sharded table's schema is that of the window's last day.
func (b *BigQueryGCP) table(r *run, svc *bigquery.Service, name string, w Window) (reduced.GCPTable, error) {
	project, dataset, table, err := reduced.SplitTable(name)
	if err != nil {
		return reduced.GCPTable{}, fetchErrorf(SourceBigQueryGCP, err, "%s: %v", name, err)
	}
	get := table
	if strings.HasSuffix(table, "*") {
		get = strings.TrimSuffix(table, "*") + w.Until.Add(-time.Microsecond).UTC().Format("20060102")
	}
	tb, err := svc.Tables.Get(project, dataset, get).Context(r.ctx).Do()
	if err != nil {
		return reduced.GCPTable{}, err
	}
	if tb.Schema == nil {
		return reduced.GCPTable{}, fetchErrorf(SourceBigQueryGCP, nil, "%s: tables.get gave no schema", name)
	}
	fields := schemaFields(tb.Schema.Fields)
	for _, f := range fields {
		if f.Name == "json_payload" || f.Name == "http_request" {
			return reduced.GCPTable{Name: name, Columns: reduced.LogAnalyticsColumns()}, nil
		}
	}
	cols, err := reduced.SinkColumns(fields)
	if err != nil {
		return reduced.GCPTable{}, fetchErrorf(SourceBigQueryGCP, err, "%s: %v", name, err)
	}
	return reduced.GCPTable{Name: name, Columns: cols}, nil
}

// schemaFields turns the API's schema into reduced's.
func schemaFields(fs []*bigquery.TableFieldSchema) []reduced.Field {
	out := make([]reduced.Field, 0, len(fs))
	for _, f := range fs {
		out = append(out, reduced.Field{Name: f.Name, Type: f.Type, Fields: schemaFields(f.Fields)})
	}
	return out
}

// jobID returns a fresh job id.
func jobID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "readygap_" + hex.EncodeToString(b[:])
}

// query runs sql as a job that may bill at most limit, waits for it and
// reads its result.
func (b *BigQueryGCP) query(r *run, svc *bigquery.Service, sql string, limit int64) (*reduced.Bundle, error) {
	job := &bigquery.Job{
		JobReference: &bigquery.JobReference{ProjectId: b.Project, JobId: jobID(), Location: b.Location},
		Configuration: &bigquery.JobConfiguration{Query: &bigquery.JobConfigurationQuery{Query: sql, UseLegacySql: googleapi.Bool(false),
			MaximumBytesBilled: limit, UseQueryCache: googleapi.Bool(true)}},
	}
	started, err := svc.Jobs.Insert(b.Project, job).Context(r.ctx).Do()
	if err != nil {
		return nil, err
	}
	ref := started.JobReference
	if ref == nil {
		ref = job.JobReference
	}
	b.logf("%s: job %s started", SourceBigQueryGCP, ref.JobId)
	done, err := b.wait(r, svc, ref)
	if err != nil {
		return nil, err
	}
	rows, err := b.results(r, svc, ref)
	if err != nil {
		return nil, err
	}
	res, err := reduced.GCPRowsBundle(rows)
	if err != nil {
		return nil, fetchErrorf(SourceBigQueryGCP, err, "job %s: its result is not the reduction asked for: %v", ref.JobId, err)
	}
	res.QueryID = ref.JobId
	if st := done.Statistics; st != nil && st.Query != nil {
		res.BytesScanned = st.Query.TotalBytesBilled
	}
	return res, nil
}

// wait polls the job until it is done. When the fetch is cancelled or its
// budget runs out, it cancels the job, so that it bills no more.
func (b *BigQueryGCP) wait(r *run, svc *bigquery.Service, ref *bigquery.JobReference) (*bigquery.Job, error) {
	var j *bigquery.Job
	err := poll(r, bigQueryPoll, SourceBigQueryGCP, "job "+ref.JobId, func() (bool, error) {
		var err error
		if j, err = svc.Jobs.Get(b.Project, ref.JobId).Location(ref.Location).Context(r.ctx).Do(); err != nil {
			return false, err
		}
		if j.Status == nil || j.Status.State != "DONE" {
			return false, nil
		}
		if e := j.Status.ErrorResult; e != nil {
			msg, _ := Redact(e.Message)
			return false, fetchErrorf(SourceBigQueryGCP, nil, "job %s failed: %s: %s", ref.JobId, e.Reason, msg)
		}
		return true, nil
	}, func() { b.cancel(svc, ref) })
	if err != nil {
		return nil, err
	}
	return j, nil
}

// cancel asks BigQuery to cancel the job, with a deadline of its own.
func (b *BigQueryGCP) cancel(svc *bigquery.Service, ref *bigquery.JobReference) {
	ctx, cancel := context.WithTimeout(context.Background(), bigQueryCancelTimeout)
	defer cancel()
	_, _ = svc.Jobs.Cancel(b.Project, ref.JobId).Location(ref.Location).Context(ctx).Do()
}

// results reads every page of the job's result, and checks that the pages
// held as many rows as the result says it has.
func (b *BigQueryGCP) results(r *run, svc *bigquery.Service, ref *bigquery.JobReference) (reduced.Rows, error) {
	var rows reduced.Rows
	token := ""
	for page := 0; ; page++ {
		if page == bigQueryMaxPages {
			return rows, fetchErrorf(SourceBigQueryGCP, nil, "job %s: more than %d result pages", ref.JobId, bigQueryMaxPages)
		}
		call := svc.Jobs.GetQueryResults(b.Project, ref.JobId).Location(ref.Location).MaxResults(bigQueryPageRows).Context(r.ctx)
		if token != "" {
			call = call.PageToken(token)
		}
		out, err := call.Do()
		if err != nil {
			return rows, err
		}
		if !out.JobComplete {
			return rows, fetchErrorf(SourceBigQueryGCP, nil, "job %s: results asked for before the job completed", ref.JobId)
		}
		if page == 0 {
			if out.Schema == nil {
				return rows, fetchErrorf(SourceBigQueryGCP, nil, "job %s: a result without a schema", ref.JobId)
			}
			for _, f := range out.Schema.Fields {
				rows.Columns = append(rows.Columns, f.Name)
			}
		}
		for _, row := range out.Rows {
			vals := make([]*string, len(row.F))
			for j, c := range row.F {
				switch v := c.V.(type) {
				case nil:
				case string:
					vals[j] = &v
				default:
					return rows, fetchErrorf(SourceBigQueryGCP, nil, "job %s: a result value of type %T", ref.JobId, c.V)
				}
			}
			rows.Values = append(rows.Values, vals)
		}
		b.logf("%s: job %s: %d of %d result rows read", SourceBigQueryGCP, ref.JobId, len(rows.Values), out.TotalRows)
		if out.PageToken == "" {
			if uint64(len(rows.Values)) != out.TotalRows {
				return rows, fetchErrorf(SourceBigQueryGCP, nil, "job %s: the result pages were truncated: %d rows read of %d", ref.JobId, len(rows.Values), out.TotalRows)
			}
			return rows, nil
		}
		token = out.PageToken
	}
}

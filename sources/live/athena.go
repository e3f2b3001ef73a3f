package live

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/athena"
	"github.com/aws/aws-sdk-go-v2/service/athena/types"

	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources/bundle"
)

// SourceAthenaALB names the Athena ALB source in reports and errors.
const SourceAthenaALB = "athena-alb"

// DefaultMaxScan is the most bytes a pushed-down query may scan unless
// --max-scan raises it: 50 GB, about an hour of a fleet writing 1 TB of
// ALB logs a day, $0.25 at Athena's price.
const DefaultMaxScan = 50_000_000_000

// Athena's on-demand price (aws.amazon.com/athena/pricing): $5 per TB
// scanned, each query billed at least 10 MB, rounded up to the megabyte.
const (
	athenaUSDPerTB   = 5.0
	athenaMinBilled  = 10_000_000
	athenaBillingInc = 1_000_000
)

// AthenaCost is the price of a query that scanned n bytes.
func AthenaCost(n int64) float64 {
	billed := max(n, athenaMinBilled)
	billed = (billed + athenaBillingInc - 1) / athenaBillingInc * athenaBillingInc
	return float64(billed) / 1e12 * athenaUSDPerTB
}

// athenaUnprunedRatio is how many times the listed objects' size the scan
// may be before readygap warns that "$path" did not prune: Athena counts
// the bytes it read of the gzip'd objects, the listing their size, so a
// pruned scan is at most about 1×; more means the engine read other
// objects of the days.
const athenaUnprunedRatio = 1.5

// athenaPoll is how a query is polled: the first look after 0.5 s, each
// wait half as long again up to 5 s (GetQueryExecution is throttled per
// account; a query of an hour of logs takes seconds to minutes).
var athenaPoll = pollBackoff{First: 500 * time.Millisecond, Max: 5 * time.Second}

// athenaStopTimeout bounds the StopQueryExecution sent when the fetch is
// cancelled: the caller's context is done by then.
const athenaStopTimeout = 10 * time.Second

// AthenaALB reduces ALB access logs where they are: it lists the window's
// objects in S3 (the estimate of the bytes to scan), runs one query over
// the table of raw lines (reduced.ALBTableDDL) restricted to those objects,
// reads the result pages and writes the reduced bundle into the triage
// bundle.
type AthenaALB struct {
	// Client is the Athena client (NewAthenaClient).
	Client *athena.Client
	// Logs lists the objects of the window (its Client and location).
	Logs *ALBLogs
	// Table is the table of raw lines, as the query names it
	// ("database"."table").
	Table string
	// WorkGroup is the Athena workgroup; "" for the default (primary).
	WorkGroup string
	// Output is the s3:// location for query results; "" when the
	// workgroup sets one.
	Output string
	// MaxScan is the most bytes the query may scan, by the listing's
	// estimate; 0 means DefaultMaxScan.
	MaxScan int64
	// Timeouts gives the source's budget; the per-call timeouts are the
	// client's (WithAWSTimeouts).
	Timeouts Timeouts
	// Log, when set, receives progress lines (stderr).
	Log func(format string, args ...any)
}

// NewAthenaClient builds an Athena client from cfg (AWS_ENDPOINT_URL_ATHENA
// and the shared config set its endpoint the standard way).
func NewAthenaClient(cfg aws.Config) *athena.Client {
	return athena.NewFromConfig(cfg, func(o *athena.Options) {
		o.Retryer, o.RetryMaxAttempts = newAWSRetryer(o.RetryMaxAttempts), 0
	})
}

// ReducedFile is the name the Athena source gives its reduced bundle in
// the triage bundle.
const ReducedFile = "athena-alb" + reduced.Suffix

// ScanLimitError is the error of a query whose estimated scan is above
// the limit: it was never sent.
type ScanLimitError struct {
	Estimate, Limit int64
	Objects         int
}

// Error implements error.
func (e *ScanLimitError) Error() string {
	return fmt.Sprintf("the window's %d ALB log objects hold %s, above --max-scan %s (about $%.2f at Athena's $5/TB): narrow --since/--until or raise --max-scan",
		e.Objects, words.Bytes(e.Estimate), words.Bytes(e.Limit), AthenaCost(e.Estimate))
}

// Plan returns the listings and the query Fetch makes for w.
func (a *AthenaALB) Plan(w Window) []string {
	out := a.Logs.Plan(w)
	q := reduced.ALBQuery{Table: a.Table, Days: albDays(w), Since: w.Since, Until: w.Until}
	return append(out, "athena: one query over "+a.Table+" for the days "+strings.Join(q.Days, ", ")+", restricted to the listed objects")
}

// albDays are the day partitions (yyyy/MM/dd) the listing reads.
func albDays(w Window) []string {
	var out []string
	for _, d := range albDates(w) {
		out = append(out, d.Format("2006/01/02"))
	}
	return out
}

// logf writes a progress line when a.Log is set.
func (a *AthenaALB) logf(format string, args ...any) {
	if a.Log != nil {
		a.Log(format, args...)
	}
}

// Fetch lists the window's objects, refuses when their size is above
// MaxScan, runs the query and writes the reduced bundle into dir.
func (a *AthenaALB) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	r := newRun(ctx, SourceAthenaALB, "query", dir, a.Timeouts, progress)
	objects, estimate, ok := a.listObjects(r, w)
	if !ok {
		return r.finish()
	}
	if len(objects) == 0 {
		r.note("no ALB log objects for %s under s3://%s/%s", w, a.Logs.Bucket, a.Logs.root())
		return r.finish()
	}
	limit := a.MaxScan
	if limit <= 0 {
		limit = DefaultMaxScan
	}
	a.logf("%s: %d objects, %s to scan (about $%.4f)", SourceAthenaALB, len(objects), words.Bytes(estimate), AthenaCost(estimate))
	r.mu.Lock()
	r.rep.Queries = append(r.rep.Queries, "athena: "+a.Table+" over "+fmt.Sprint(len(objects))+" objects")
	r.mu.Unlock()
	i := r.add(bundle.Item{Kind: "query", Name: "athena " + a.Table, Status: bundle.ItemNotRequested, Impact: impactAthena})
	if estimate > limit {
		se := &ScanLimitError{Estimate: estimate, Limit: limit, Objects: len(objects)}
		fe := fetchErrorf(SourceAthenaALB, se, "%s", se.Error()).stopping()
		r.stop(fe)
		r.update(i, func(it *bundle.Item) { it.Reason = fe.Msg })
		return r.finish()
	}
	layout, err := a.layout(r)
	if err != nil {
		fe := fetchErrorf(SourceAthenaALB, err, "%s: %v", a.Table, err).stopping()
		r.stop(fe)
		r.update(i, func(it *bundle.Item) { it.Reason = fe.Msg })
		return r.finish()
	}
	q := reduced.ALBQuery{Table: a.Table, Days: albDays(w), Objects: objects, Since: w.Since, Until: w.Until, Layout: layout}
	sql := q.SQL()
	b, err := a.query(r, sql)
	if err != nil {
		why := r.fail(err, func(err error) *FetchError {
			var fe *FetchError
			if errors.As(err, &fe) {
				return fe
			}
			return awsError(SourceAthenaALB, "athena:StartQueryExecution", "workgroup/"+a.workGroup(), err)
		})
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return r.finish()
	}
	b.Engine, b.Query, b.Objects = "athena", sql, objects
	if !w.Since.IsZero() || !w.Until.IsZero() {
		b.Window = &reduced.Window{Since: w.Since.UTC(), Until: w.Until.UTC()}
	}
	b.CostUSD = AthenaCost(b.BytesScanned)
	if layout.Documented {
		noteUnmatched(r, a.Table, b)
	}
	if float64(b.BytesScanned) > athenaUnprunedRatio*float64(estimate) {
		r.note("Athena scanned %s where the window's objects hold %s: the \"$path\" predicate did not prune objects, and the query paid for the whole days",
			words.Bytes(b.BytesScanned), words.Bytes(estimate))
	}
	f := newBundleFile(dir, ReducedFile, "", "")
	werr := b.Write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		fe := fetchErrorf(SourceAthenaALB, werr, "writing %s: %v", ReducedFile, werr).stopping()
		r.stop(fe)
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, fe.Msg })
		return r.finish()
	}
	a.logf("%s: query %s scanned %s ($%.4f): %d seconds, %d cells, %d failure groups", SourceAthenaALB, b.QueryID,
		words.Bytes(b.BytesScanned), b.CostUSD, len(b.Seconds), len(b.Cells), len(b.Groups))
	r.update(i, func(it *bundle.Item) {
		it.Status, it.File, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, f.rel, len(b.Seconds)+len(b.Cells)+len(b.Groups), f.n, ""
	})
	r.saved(len(b.Seconds)+len(b.Cells)+len(b.Groups), f.n)
	return r.finish()
}

// athenaCatalog is the data catalog Athena's tables are in unless one is
// named: the account's Glue Data Catalog.
const athenaCatalog = "AwsDataCatalog"

// layout reads the table's columns from the catalog and tells readygap's
// table of raw lines from AWS's documented one. When the catalog cannot be
// read (athena:GetTableMetadata and glue:GetTable are not granted), the
// table is taken for readygap's, and a note says so.
func (a *AthenaALB) layout(r *run) (reduced.ALBTable, error) {
	db, table, _ := strings.Cut(strings.Trim(a.Table, `"`), `"."`)
	out, err := a.Client.GetTableMetadata(r.ctx, &athena.GetTableMetadataInput{
		CatalogName: aws.String(athenaCatalog), DatabaseName: aws.String(db), TableName: aws.String(table)})
	if err != nil || out.TableMetadata == nil {
		why := "no metadata"
		if err != nil {
			why = awsError(SourceAthenaALB, "athena:GetTableMetadata", a.Table, err).Msg
		}
		r.note("the columns of %s could not be read (%s): the query takes it for readygap's table of raw lines", a.Table, why)
		return reduced.ALBTable{}, nil
	}
	names := func(cs []types.Column) []string {
		var out []string
		for _, c := range cs {
			out = append(out, aws.ToString(c.Name))
		}
		return out
	}
	layout, err := reduced.ALBTableOf(names(out.TableMetadata.Columns), names(out.TableMetadata.PartitionKeys))
	if err == nil && layout.Documented {
		a.logf("%s: %s is AWS's documented ALB table: lines its regex does not match count as skipped", SourceAthenaALB, a.Table)
		if layout.NoDays {
			r.note("%s has no day partition: the query restricts the objects by \"$path\" alone", a.Table)
		}
	}
	return layout, err
}

// noteUnmatched says how many rows of AWS's documented table were lines
// its regex did not match: RegexSerDe gives such a line as a row of
// NULLs, which the query counts as skipped.
func noteUnmatched(r *run, table string, b *reduced.Bundle) {
	var skipped, rows int
	for _, in := range b.Inputs {
		skipped += in.Skipped
		rows += in.Skipped + in.Records + in.Filtered
	}
	if skipped > 0 {
		r.note("%d of the %d rows of %s are lines its regex did not match, counted as skipped: ALB appends fields over time, and the regex of AWS's documented table must end in a catch-all such as ( .*)? to keep matching its lines",
			skipped, rows, table)
	}
}

// impactAthena is what a failed query takes from the analysis.
const impactAthena = "the load balancer's requests are missing: no failure count or window can be given from them"

// workGroup is the workgroup the query runs in.
func (a *AthenaALB) workGroup() string {
	if a.WorkGroup == "" {
		return "primary"
	}
	return a.WorkGroup
}

// listObjects lists the window's ALB access-log objects (no health-check or
// connection logs) as s3:// URLs, and their total size.
func (a *AthenaALB) listObjects(r *run, w Window) ([]string, int64, bool) {
	l := a.Logs
	regions := l.regionPrefixes(r)
	if regions == nil {
		return nil, 0, false
	}
	sizes := map[string]int64{}
	var objects []string
	var total int64
	for _, rp := range regions {
		for _, p := range datePrefixes(rp, w) {
			found, ok := l.listSizes(r, p, "", sizes)
			if !ok {
				return nil, 0, false
			}
			for _, k := range found {
				if albWanted(k, w) && !strings.Contains(k[strings.LastIndex(k, "/")+1:], "health_check_log") {
					objects = append(objects, "s3://"+l.Bucket+"/"+k)
					total += sizes[k]
				}
			}
		}
	}
	sort.Strings(objects)
	return objects, total, true
}

// query runs sql and reads its result into a bundle.
func (a *AthenaALB) query(r *run, sql string) (*reduced.Bundle, error) {
	in := &athena.StartQueryExecutionInput{QueryString: aws.String(sql)}
	if a.WorkGroup != "" {
		in.WorkGroup = aws.String(a.WorkGroup)
	}
	if a.Output != "" {
		in.ResultConfiguration = &types.ResultConfiguration{OutputLocation: aws.String(a.Output)}
	}
	start, err := a.Client.StartQueryExecution(r.ctx, in)
	if err != nil {
		return nil, err
	}
	id := aws.ToString(start.QueryExecutionId)
	a.logf("%s: query %s started", SourceAthenaALB, id)
	exec, err := a.wait(r, id)
	if err != nil {
		return nil, err
	}
	rows, err := a.results(r, id)
	if err != nil {
		return nil, err
	}
	b, err := reduced.ALBRowsBundle(rows)
	if err != nil {
		return nil, fetchErrorf(SourceAthenaALB, err, "query %s: its result is not the reduction asked for: %v", id, err)
	}
	b.QueryID = id
	if st := exec.Statistics; st != nil {
		b.BytesScanned = aws.ToInt64(st.DataScannedInBytes)
	}
	return b, nil
}

// wait polls the query until it ends. When the fetch is cancelled or its
// budget runs out, it stops the query, so that it scans no more.
func (a *AthenaALB) wait(r *run, id string) (*types.QueryExecution, error) {
	var qe *types.QueryExecution
	err := poll(r, athenaPoll, SourceAthenaALB, "query "+id, func() (bool, error) {
		out, err := a.Client.GetQueryExecution(r.ctx, &athena.GetQueryExecutionInput{QueryExecutionId: aws.String(id)})
		if err != nil {
			return false, err
		}
		qe = out.QueryExecution
		if qe == nil || qe.Status == nil {
			return false, nil
		}
		switch qe.Status.State {
		case types.QueryExecutionStateSucceeded:
			return true, nil
		case types.QueryExecutionStateFailed, types.QueryExecutionStateCancelled:
			why := aws.ToString(qe.Status.StateChangeReason)
			if e := qe.Status.AthenaError; e != nil && why == "" {
				why = aws.ToString(e.ErrorMessage)
			}
			msg, _ := Redact(why)
			return false, fetchErrorf(SourceAthenaALB, nil, "query %s %s: %s", id, strings.ToLower(string(qe.Status.State)), msg)
		}
		if st := qe.Statistics; st != nil {
			a.logf("%s: query %s %s, %s scanned", SourceAthenaALB, id, strings.ToLower(string(qe.Status.State)), words.Bytes(aws.ToInt64(st.DataScannedInBytes)))
		}
		return false, nil
	}, func() { a.stop(id) })
	if err != nil {
		return nil, err
	}
	return qe, nil
}

// stop asks Athena to stop query id, with a deadline of its own.
func (a *AthenaALB) stop(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), athenaStopTimeout)
	defer cancel()
	_, _ = a.Client.StopQueryExecution(ctx, &athena.StopQueryExecutionInput{QueryExecutionId: aws.String(id)})
}

// athenaMaxPages bounds the result pages read: 1,000 rows a page; an hour
// reduces to some thousands of rows, a week of a large fleet to a few
// million.
const athenaMaxPages = 100_000

// results reads every page of the query's result. The first row of the
// first page repeats the column names.
func (a *AthenaALB) results(r *run, id string) (reduced.Rows, error) {
	var rows reduced.Rows
	p := athena.NewGetQueryResultsPaginator(a.Client, &athena.GetQueryResultsInput{QueryExecutionId: aws.String(id)})
	for page := 0; p.HasMorePages(); page++ {
		if page == athenaMaxPages {
			return rows, fetchErrorf(SourceAthenaALB, nil, "query %s: more than %d result pages", id, athenaMaxPages)
		}
		out, err := p.NextPage(r.ctx)
		if err != nil {
			return rows, err
		}
		if out.ResultSet == nil {
			return rows, fetchErrorf(SourceAthenaALB, nil, "query %s: a result page without a result set", id)
		}
		if page == 0 {
			if md := out.ResultSet.ResultSetMetadata; md != nil {
				for _, c := range md.ColumnInfo {
					rows.Columns = append(rows.Columns, aws.ToString(c.Name))
				}
			}
		}
		for k, row := range out.ResultSet.Rows {
			if page == 0 && k == 0 {
				continue // the header
			}
			vals := make([]*string, len(row.Data))
			for j, d := range row.Data {
				vals[j] = d.VarCharValue
			}
			rows.Values = append(rows.Values, vals)
		}
		a.logf("%s: query %s: %d result rows read", SourceAthenaALB, id, len(rows.Values))
	}
	return rows, nil
}

// Exec runs one statement (the table's DDL) and waits for it to end.
func (a *AthenaALB) Exec(ctx context.Context, sql string) error {
	r := newRun(ctx, SourceAthenaALB, "query", "", a.Timeouts, nil)
	defer r.release()
	in := &athena.StartQueryExecutionInput{QueryString: aws.String(sql)}
	if a.WorkGroup != "" {
		in.WorkGroup = aws.String(a.WorkGroup)
	}
	if a.Output != "" {
		in.ResultConfiguration = &types.ResultConfiguration{OutputLocation: aws.String(a.Output)}
	}
	start, err := a.Client.StartQueryExecution(r.ctx, in)
	if err != nil {
		return awsError(SourceAthenaALB, "athena:StartQueryExecution", "workgroup/"+a.workGroup(), err)
	}
	_, err = a.wait(r, aws.ToString(start.QueryExecutionId))
	return err
}

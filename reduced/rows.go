package reduced

import (
	"fmt"
	"strconv"
)

// The grouping sets of the ALB query, as grouping(object, s_lb, c_ip,
// g_status) numbers them: a bit set for each column not grouped by.
const (
	gsetObject = 0b0111
	gsetSecond = 0b1011
	gsetCell   = 0b1101
	gsetGroup  = 0b1110
)

// albFormat is the format id of the ALB access log (sources.FormatALBAccess).
const albFormat = "alb-access"

// Rows are a query's result: the column names and, for each row, each
// column's value as text, nil for NULL (as Athena's GetQueryResults and a
// database/sql scan into sql.NullString give them).
type Rows struct {
	Columns []string
	Values  [][]*string
}

// ALBRowsBundle turns the result of ALBQuery.SQL into a bundle (Engine,
// Query and the rest are the caller's to set). A row of no grouping set,
// or whose numbers do not read, is an error: the result is not the query's.
func ALBRowsBundle(rows Rows) (*Bundle, error) {
	return rowsBundle(rows, albFormat, "trace", traceRef)
}

// rowsBundle reads the rows of a reduction query of records of format,
// whose earliest and latest records are named by the columns e_<refCol>
// and l_<refCol>, turned into a Record's Ref by ref. A "duplicates"
// column, when the result has one, counts an input's entries repeated.
func rowsBundle(rows Rows, format, refCol string, ref func(string) string) (*Bundle, error) {
	col := map[string]int{}
	for i, c := range rows.Columns {
		col[c] = i
	}
	for _, need := range []string{"gset", "object", "s_sec", "s_lb", "c_ip", "c_cell", "g_sec", "g_status", "g_generator", "g_kind",
		"g_backend", "g_lb", "g_detail", "n", "skipped", "records", "ok", "no_backend", "refused", "unreachable", "closed",
		"timeout", "other", "served", "first_ns", "last_ns", "e_object", "e_" + refCol, "e_method", "e_path", "l_object", "l_" + refCol, "l_method", "l_path"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("the result has no column %q", need)
		}
	}
	b := &Bundle{Schema: Schema, Inputs: []Input{}}
	for i, row := range rows.Values {
		if len(row) != len(rows.Columns) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i+1, len(row), len(rows.Columns))
		}
		r := albRow{row: row, col: col}
		gset := r.int("gset")
		switch {
		case gset == gsetObject:
			in := Input{Name: r.str("object"), Format: format, Records: r.int("records"), Skipped: r.int("skipped"), Filtered: r.optInt("filtered"),
				Duplicates: r.optInt("duplicates")}
			if !r.null("first_ns") {
				in.First, in.Last = fromNanos(r.int64("first_ns")), fromNanos(r.int64("last_ns"))
			}
			b.Inputs = append(b.Inputs, in)
		case gset == gsetSecond && !r.null("s_sec"):
			s := Second{Sec: r.int64("s_sec"), LB: r.str("s_lb"), Format: format, Total: r.int("records"), OK: r.int("ok"),
				NoBackend: r.int("no_backend"), Refused: r.int("refused"), Unreachable: r.int("unreachable"), Closed: r.int("closed"),
				Timeout: r.int("timeout"), Other: r.int("other"), Served: r.int("served")}
			b.Seconds = append(b.Seconds, s)
		case gset == gsetCell && !r.null("c_ip"):
			b.Cells = append(b.Cells, Cell{IP: r.str("c_ip"), Cell: r.int64("c_cell"), N: r.int("n"), First: r.int64("first_ns"), Last: r.int64("last_ns")})
		case gset == gsetGroup && !r.null("g_sec"):
			g := Group{Sec: r.int64("g_sec"), Status: r.int("g_status"), Generator: r.str("g_generator"), Kind: r.str("g_kind"),
				Backend: r.str("g_backend"), LB: r.str("g_lb"), Detail: r.str("g_detail"), Format: format,
				Duration: r.optInt64("g_duration"), LoggedAfter: r.optInt64("g_logged_after"), N: r.int("n"),
				Earliest: Record{Time: r.int64("first_ns"), Object: r.str("e_object"), Ref: ref(r.str("e_" + refCol)), Method: r.str("e_method"), Path: r.str("e_path")},
				Latest:   Record{Time: r.int64("last_ns"), Object: r.str("l_object"), Ref: ref(r.str("l_" + refCol)), Method: r.str("l_method"), Path: r.str("l_path")}}
			b.Groups = append(b.Groups, g)
		case gset == gsetSecond || gset == gsetCell || gset == gsetGroup:
			// The rows of no second, cell or group: lines not kept,
			// responses no backend sent, requests that did not fail.
		default:
			return nil, fmt.Errorf("row %d: grouping set %d is none of the query's", i+1, gset)
		}
		if r.err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, r.err)
		}
	}
	b.Sort()
	return b, b.Check()
}

// traceRef names a record by its ALB trace id; "" when it has none.
func traceRef(trace string) string {
	if trace == "" || trace == "-" {
		return ""
	}
	return "trace_id=" + trace
}

// albRow reads the values of one result row, keeping the first error.
type albRow struct {
	row []*string
	col map[string]int
	err error
}

func (r *albRow) null(c string) bool { return r.row[r.col[c]] == nil }

func (r *albRow) str(c string) string {
	if v := r.row[r.col[c]]; v != nil {
		return *v
	}
	return ""
}

func (r *albRow) int64(c string) int64 {
	v := r.row[r.col[c]]
	if v == nil {
		if r.err == nil {
			r.err = fmt.Errorf("column %s is NULL", c)
		}
		return 0
	}
	n, err := strconv.ParseInt(*v, 10, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("column %s: %w", c, err)
	}
	return n
}

func (r *albRow) int(c string) int { return int(r.int64(c)) }

// optInt64 reads column c, 0 when the result has no such column.
func (r *albRow) optInt64(c string) int64 {
	if _, ok := r.col[c]; !ok {
		return 0
	}
	return r.int64(c)
}

func (r *albRow) optInt(c string) int { return int(r.optInt64(c)) }

package reduced

import (
	"strings"
	"testing"
	"time"
)

// TestALBQueryText requires the query to name the window's days and
// objects (a quote in a name doubled, never closing the literal), leave
// out health-check logs, and bound the kept requests by the window in
// nanoseconds.
func TestALBQueryText(t *testing.T) {
	since := time.Date(2025, 11, 8, 17, 30, 0, 0, time.UTC)
	q := ALBQuery{Table: `"db"."t"`, Days: []string{"2025/11/08"}, Objects: []string{"s3://b/k1.log.gz", "s3://b/it's.log.gz"},
		Since: since, Until: since.Add(time.Hour)}.SQL()
	for _, want := range []string{
		`FROM "db"."t"`,
		"day IN ('2025/11/08')",
		`"$path" IN ('s3://b/k1.log.gz', 's3://b/it''s.log.gz')`,
		`"$path" NOT LIKE '%health_check_log%'`,
		"ns >= 1762623000000000000 AND ns < 1762626600000000000",
		"GROUP BY GROUPING SETS",
	} {
		if !strings.Contains(q, want) {
			t.Errorf("the query lacks %s", want)
		}
	}
	open := ALBQuery{Table: "t"}.SQL()
	if strings.Contains(open, "day IN") || strings.Contains(open, `"$path" IN`) {
		t.Error("a query without days or objects restricts them")
	}
}

// TestALBRowsBundleRefuses requires a result that is not the query's to be
// refused: a column missing, a row of no grouping set, a short row, a
// number that does not read.
func TestALBRowsBundleRefuses(t *testing.T) {
	cols := strings.Fields("gset object s_sec s_lb c_ip c_cell g_sec g_status g_generator g_kind g_backend g_lb g_detail g_duration g_logged_after n skipped filtered records ok no_backend refused unreachable closed timeout other served first_ns last_ns e_object e_trace e_method e_path l_object l_trace l_method l_path")
	row := func(gset string) []*string {
		r := make([]*string, len(cols))
		r[0] = &gset
		zero, obj := "0", "s3://b/k"
		for i := 15; i < 26; i++ {
			r[i] = &zero
		}
		r[1] = &obj
		return r
	}
	good := Rows{Columns: cols, Values: [][]*string{row("7")}}
	if b, err := ALBRowsBundle(good); err != nil || len(b.Inputs) != 1 || b.Inputs[0].Name != "s3://b/k" {
		t.Fatalf("a summary row: %v %+v", err, b)
	}
	bad := "x"
	cases := map[string]Rows{
		"missing column": {Columns: cols[1:], Values: nil},
		"no set":         {Columns: cols, Values: [][]*string{row("3")}},
		"short row":      {Columns: cols, Values: [][]*string{row("7")[:10]}},
		"bad number":     {Columns: cols, Values: [][]*string{func() []*string { r := row("7"); r[18] = &bad; return r }()}},
	}
	for name, rows := range cases {
		if _, err := ALBRowsBundle(rows); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestALBTableOf requires the layout to be told from the catalog's columns:
// readygap's table of raw lines (with its day partition), AWS's documented
// table with or without lambda_error_reason and the day partition, and a
// refusal naming what another table lacks.
func TestALBTableOf(t *testing.T) {
	doc := append([]string{"client_ip", "received_bytes"}, ALBDocumentedColumns...)
	if l, err := ALBTableOf([]string{"line"}, []string{"day"}); err != nil || l.Documented {
		t.Errorf("the table of raw lines: %+v, %v", l, err)
	}
	if _, err := ALBTableOf([]string{"line"}, nil); err == nil {
		t.Error("a table of raw lines without its day partition is accepted")
	}
	l, err := ALBTableOf(append(doc, "LAMBDA_ERROR_REASON"), []string{"Day"})
	if err != nil || !l.Documented || l.NoDays || !strings.Contains(ALBQuery{Table: "t", Layout: l}.SQL(), "lambda_error_reason AS error_reason") {
		t.Errorf("the documented table: %+v, %v", l, err)
	}
	l, err = ALBTableOf(doc, nil)
	q := ALBQuery{Table: "t", Layout: l, Days: []string{"2025/11/08"}}.SQL()
	if err != nil || !l.NoDays || strings.Contains(q, "day IN") || !strings.Contains(q, "'-' AS error_reason") {
		t.Errorf("the older documented table without partitions: %+v, %v", l, err)
	}
	if _, err := ALBTableOf(doc[:len(doc)-1], []string{"day"}); err == nil || !strings.Contains(err.Error(), "request_creation_time") {
		t.Errorf("a table lacking request_creation_time: %v", err)
	}
}

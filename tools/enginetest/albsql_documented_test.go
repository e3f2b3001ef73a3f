package enginetest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/readygap/readygap/reduced"
)

// albDocumentedRE is the RegexSerDe input.regex of AWS's documented ALB
// table (Athena User Guide, "Create the table for ALB access logs", the
// version with classification, classification_reason and conn_trace_id),
// with the SQL string's escapes undone. Hive matches it against the whole
// line.
const albDocumentedRE = `([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*):([0-9]*) ([^ ]*)[:-]([0-9]*) ([-.0-9]*) ([-.0-9]*) ([-.0-9]*) (|[-0-9]*) (-|[-0-9]*) ([-0-9]*) ([-0-9]*) "([^ ]*) (.*) (- |[^ ]*)" "([^"]*)" ([A-Z0-9-_]+) ([A-Za-z0-9.-]*) ([^ ]*) "([^"]*)" "([^"]*)" "([^"]*)" ([-.0-9]*) ([^ ]*) "([^"]*)" "([^"]*)" "([^ ]*)" "([^\s]+?)" "([^\s]+)" "([^ ]*)" "([^ ]*)" ?([^ ]*)?`

// albDocumentedCatchAll is the trailing catch-all some copies of the
// guide's regex end with, so that the fields ALB appends over the years
// do not turn every line into a row of NULLs.
const albDocumentedCatchAll = `(?: .*)?`

// albDocumentedTypes are the guide's DDL columns and types, in order.
var albDocumentedTypes = []struct{ name, typ string }{
	{"type", "VARCHAR"}, {"time", "VARCHAR"}, {"elb", "VARCHAR"}, {"client_ip", "VARCHAR"}, {"client_port", "INTEGER"},
	{"target_ip", "VARCHAR"}, {"target_port", "INTEGER"}, {"request_processing_time", "DOUBLE"},
	{"target_processing_time", "DOUBLE"}, {"response_processing_time", "DOUBLE"}, {"elb_status_code", "INTEGER"},
	{"target_status_code", "VARCHAR"}, {"received_bytes", "BIGINT"}, {"sent_bytes", "BIGINT"}, {"request_verb", "VARCHAR"},
	{"request_url", "VARCHAR"}, {"request_proto", "VARCHAR"}, {"user_agent", "VARCHAR"}, {"ssl_cipher", "VARCHAR"},
	{"ssl_protocol", "VARCHAR"}, {"target_group_arn", "VARCHAR"}, {"trace_id", "VARCHAR"}, {"domain_name", "VARCHAR"},
	{"chosen_cert_arn", "VARCHAR"}, {"matched_rule_priority", "VARCHAR"}, {"request_creation_time", "VARCHAR"},
	{"actions_executed", "VARCHAR"}, {"redirect_url", "VARCHAR"}, {"lambda_error_reason", "VARCHAR"},
	{"target_port_list", "VARCHAR"}, {"target_status_code_list", "VARCHAR"}, {"classification", "VARCHAR"},
	{"classification_reason", "VARCHAR"}, {"conn_trace_id", "VARCHAR"},
}

// albDocumentedTable is the table the tests give the documented layout,
// and albMatchedTable the table of raw lines holding the lines its regex
// matched.
const (
	albDocumentedTable = `"readygap"."alb_logs"`
	albMatchedTable    = `"readygap"."alb_matched"`
)

// documentedRow splits a line as Hive's RegexSerDe does: a row of NULLs
// when re does not match the whole line, else each group converted to
// its column's type, NULL where it does not convert.
func documentedRow(re *regexp.Regexp, line string) ([]driver.Value, bool) {
	row := make([]driver.Value, len(albDocumentedTypes))
	m := re.FindStringSubmatch(line)
	if m == nil {
		return row, false
	}
	for i, c := range albDocumentedTypes {
		v := m[i+1]
		switch c.typ {
		case "INTEGER":
			if n, err := strconv.ParseInt(v, 10, 32); err == nil {
				row[i] = int32(n)
			}
		case "BIGINT":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				row[i] = n
			}
		case "DOUBLE":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				row[i] = f
			}
		default:
			row[i] = v
		}
	}
	return row, true
}

// addDocumentedTable adds AWS's documented table to db, holding the rows
// of the raw table's lines as the documented regex (with the catch-all
// when catchAll) splits them, with a day partition column unless noDays.
// It returns how many lines of each object the regex did not match, and
// fills albMatchedTable, a table of raw lines, with those it matched.
func addDocumentedTable(t *testing.T, db *sql.DB, catchAll, noDays bool) map[string]int {
	t.Helper()
	pattern := albDocumentedRE
	if catchAll {
		pattern += albDocumentedCatchAll
	}
	re := regexp.MustCompile("^(?:" + pattern + ")$")
	var cols []string
	for _, c := range albDocumentedTypes {
		cols = append(cols, `"`+c.name+`" `+c.typ)
	}
	if !noDays {
		cols = append(cols, "day VARCHAR")
	}
	cols = append(cols, `"$path" VARCHAR`)
	for _, stmt := range []string{`CREATE TABLE ` + albDocumentedTable + ` (` + strings.Join(cols, ", ") + `)`,
		`CREATE TABLE ` + albMatchedTable + ` (line VARCHAR, day VARCHAR, "$path" VARCHAR)`} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	type line struct{ l, day, path string }
	var lines []line
	rows, err := db.Query(`SELECT line, day, "$path" FROM ` + albTable)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var l line
		if err := rows.Scan(&l.l, &l.day, &l.path); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	rows.Close()
	unmatched := map[string]int{}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "readygap", "alb_logs")
		if err != nil {
			return err
		}
		m, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "readygap", "alb_matched")
		if err != nil {
			return err
		}
		for _, l := range lines {
			row, ok := documentedRow(re, l.l)
			if !ok {
				unmatched[l.path]++
			} else if err := m.AppendRow(l.l, l.day, l.path); err != nil {
				return err
			}
			if !noDays {
				row = append(row, l.day)
			}
			if err := a.AppendRow(append(row, l.path)...); err != nil {
				return err
			}
		}
		if err := m.Close(); err != nil {
			return err
		}
		return a.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return unmatched
}

// TestALBDocumentedTableEqualsRawTable runs the query over AWS's
// documented table (its regex with the trailing catch-all) and over the
// table of raw lines holding the lines that regex matched, for every ALB
// fixture and real sample, and requires the same reduction; the raw
// table's equals readygap's own (TestALBQueryEqualsLocalReduction). Every
// line the documented regex did not match is counted as skipped: the
// documented table cannot tell a blank line or an older format from a
// line it should have read.
func TestALBDocumentedTableEqualsRawTable(t *testing.T) {
	matchedSome := 0
	for name, files := range albInputs(t) {
		t.Run(name, func(t *testing.T) {
			db := openDuck(t, files)
			addDocumentedTable(t, db, true, false)
			want, err := reduced.ALBRowsBundle(runQuery(t, db, reduced.ALBQuery{Table: albMatchedTable}.SQL()))
			if err != nil {
				t.Fatal(err)
			}
			layout, err := reduced.ALBTableOf(columnsOf(t, db), []string{"day"})
			if err != nil || !layout.Documented || layout.NoDays {
				t.Fatalf("the documented table reads as %+v, %v", layout, err)
			}
			got, err := reduced.ALBRowsBundle(runQuery(t, db, reduced.ALBQuery{Table: albDocumentedTable, Layout: layout}.SQL()))
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range got.Inputs {
				if rows := tableRows(t, db, in.Name); in.Skipped != rows-in.Records-in.Filtered {
					t.Errorf("%s: %d of %d rows skipped, %d records", in.Name, in.Skipped, rows, in.Records)
				}
			}
			if w, g := bundleText(t, readInputs(want)), bundleText(t, readInputs(got)); w != g {
				t.Errorf("the documented table's reduction differs from the raw table's:\n%s", diff(w, g))
			}
			if len(got.Seconds) > 0 {
				matchedSome++
			}
		})
	}
	if matchedSome < 20 {
		t.Errorf("the documented regex matched lines of %d inputs only: the test compares little", matchedSome)
	}
}

// readInputs returns b with only the inputs it read a record of, their
// skipped lines not counted: the two tables count other lines as skipped.
func readInputs(b *reduced.Bundle) *reduced.Bundle {
	c := *b
	c.Inputs = nil
	for _, in := range b.Inputs {
		if in.Records > 0 {
			in.Skipped = 0
			c.Inputs = append(c.Inputs, in)
		}
	}
	return &c
}

// tableRows counts the documented table's rows from object.
func tableRows(t *testing.T, db *sql.DB, object string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM `+albDocumentedTable+` WHERE "$path" = ?`, object).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestALBDocumentedTableAsPublished requires the guide's regex as
// published, which ends where ALB's fields ended in 2024, to count every
// line of a fixture that carries the fields ALB appended since as
// skipped, and keep no request: nothing was read, and the report must not
// say otherwise. Without the day partition, the query restricts objects
// by "$path" alone and still runs.
func TestALBDocumentedTableAsPublished(t *testing.T) {
	files := albObjects(t, filepath.Join(root, "fixtures", "eks-alb-no-gate"))
	db := openDuck(t, files)
	unmatched := addDocumentedTable(t, db, false, true)
	layout, err := reduced.ALBTableOf(columnsOf(t, db), nil)
	if err != nil || !layout.Documented || !layout.NoDays {
		t.Fatalf("the documented table without partitions reads as %+v, %v", layout, err)
	}
	q := reduced.ALBQuery{Table: albDocumentedTable, Layout: layout, Days: []string{"2025/11/08"}}
	got, err := reduced.ALBRowsBundle(runQuery(t, db, q.SQL()))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, in := range got.Inputs {
		total += in.Skipped
		if in.Records != 0 || in.Skipped != unmatched[in.Name] || in.Skipped == 0 {
			t.Errorf("%s: %d records, %d skipped; want 0 and %d", in.Name, in.Records, in.Skipped, unmatched[in.Name])
		}
	}
	if len(got.Seconds)+len(got.Groups) != 0 || total == 0 {
		t.Errorf("the published regex kept requests: %d seconds, %d groups, %d skipped", len(got.Seconds), len(got.Groups), total)
	}
}

// columnsOf lists the documented table's columns as the catalog does:
// neither the partition key nor the "$path" pseudo-column.
func columnsOf(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT column_name FROM information_schema.columns WHERE table_schema = 'readygap' AND table_name = 'alb_logs' AND column_name NOT IN ('day', '$path') ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

package enginetest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
)

// root is the readygap repository, two folders up.
var root = filepath.Join("..", "..")

// albTable is the table name the tests give the query.
const albTable = `"readygap"."alb_lines"`

// albDay reads the day folder (yyyy/mm/dd) of an ALB object's key.
var albDay = regexp.MustCompile(`/([0-9]{4}/[0-9]{2}/[0-9]{2})/[^/]*$`)

// albObjects returns the ALB access-log objects under dir (health-check
// logs left out, as the listing leaves them out).
func albObjects(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(p, "elasticloadbalancing") && !strings.Contains(filepath.Base(p), "health_check_log") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// standIns are the functions the query uses under Trino's names that
// DuckDB knows under others: regexp_like(s, p) is DuckDB's
// regexp_matches(s, p) (both match anywhere in s unless anchored).
var standIns = []string{
	`CREATE MACRO regexp_like(s, p) AS regexp_matches(s, p)`,
}

// openDuck returns a DuckDB database with the table of raw lines holding
// every line of files, as Athena's table of raw lines reads them: one row
// a line, split at "\n", gzip read through.
func openDuck(t *testing.T, files []string) *sql.DB {
	t.Helper()
	return newDuck(t, func(add func(line, day, path string) error) error {
		for _, f := range files {
			day := ""
			if m := albDay.FindStringSubmatch(filepath.ToSlash(f)); m != nil {
				day = m[1]
			}
			for _, line := range readLines(t, f) {
				if err := add(line, day, f); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// newDuck returns a DuckDB database with the stand-ins and the table of
// raw lines, filled by fill through add: one row per call.
func newDuck(t *testing.T, fill func(add func(line, day, path string) error) error) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, stmt := range append([]string{`CREATE SCHEMA readygap`, `CREATE TABLE ` + albTable + ` (line VARCHAR, day VARCHAR, "$path" VARCHAR)`}, standIns...) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		a, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "readygap", "alb_lines")
		if err != nil {
			return err
		}
		if err := fill(func(line, day, path string) error { return a.AppendRow(line, day, path) }); err != nil {
			return err
		}
		return a.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// readLines returns the lines of a file, gunzipped if it is gzip, split
// at "\n" as Hive's text reader splits them (a last line without "\n"
// counts; no empty line after a final "\n").
func readLines(t *testing.T, name string) []string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	sc.Split(scanLF)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// scanLF splits at "\n" only, keeping a "\r" for the query to trim.
func scanLF(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// runQuery runs q on db and returns its result as the engines' clients
// hand it over: text values, nil for NULL.
func runQuery(t *testing.T, db *sql.DB, q string) reduced.Rows {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("query: %v\n%s", err, q)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	out := reduced.Rows{Columns: cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v.Valid {
				s := v.String
				row[i] = &s
			}
		}
		out.Values = append(out.Values, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// comparable strips what only one side can know: the line a local
// reduction read a record at, the reference an engine names it by, and
// what the raw reading counts that no query sees (entries passed over).
func comparable(b *reduced.Bundle) *reduced.Bundle {
	c := *b
	c.Groups = slices.Clone(b.Groups)
	for i := range c.Groups {
		for _, r := range []*reduced.Record{&c.Groups[i].Earliest, &c.Groups[i].Latest} {
			r.Line, r.Ref = 0, ""
		}
	}
	c.Inputs = slices.Clone(b.Inputs)
	for i := range c.Inputs {
		c.Inputs[i].Passed = 0
	}
	slices.SortFunc(c.Inputs, func(a, b reduced.Input) int { return strings.Compare(a.Name, b.Name) })
	c.Engine, c.Query, c.Window = "", "", nil
	return &c
}

// bundleText renders b for comparison.
func bundleText(t *testing.T, b *reduced.Bundle) string {
	t.Helper()
	var buf bytes.Buffer
	if err := comparable(b).Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// albInputs are the ALB fixtures and the real ALB samples.
func albInputs(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	entries, err := os.ReadDir(filepath.Join(root, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// The 2-hour, 50-pod fixture takes minutes on DuckDB: -short
		// (the CI run) leaves it to the full run.
		if strings.HasPrefix(e.Name(), "eks-alb-") && !(testing.Short() && e.Name() == "eks-alb-large") {
			out[e.Name()] = albObjects(t, filepath.Join(root, "fixtures", e.Name()))
		}
	}
	out["formats"] = albObjects(t, filepath.Join(root, "fixtures", "formats"))
	samples, err := filepath.Glob(filepath.Join(root, "sources", "testdata", "samples", "alb-access", "*.log*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		out["sample/"+filepath.Base(s)] = []string{s}
	}
	if len(out) < 25 {
		t.Fatalf("found %d ALB inputs; the catalog holds more", len(out))
	}
	return out
}

// TestALBQueryEqualsLocalReduction runs the Athena query on DuckDB over
// every ALB fixture and real sample and requires readygap's own reduction
// of the same files: every second, cell and failure group, each input's
// counts and times, byte for byte (but for the line numbers only a local
// reading knows and the trace ids only the query names records by).
func TestALBQueryEqualsLocalReduction(t *testing.T) {
	for name, files := range albInputs(t) {
		t.Run(name, func(t *testing.T) {
			if len(files) == 0 {
				t.Fatal("no ALB object")
			}
			want, err := reduced.Reduce(context.Background(), files, sources.Options{})
			db := openDuck(t, files)
			got, qerr := reduced.ALBRowsBundle(runQuery(t, db, reduced.ALBQuery{Table: albTable}.SQL()))
			if qerr != nil {
				t.Fatal(qerr)
			}
			if errors.As(err, new(*sources.NothingReadError)) {
				// A file readygap reads as no ALB log at all: the query,
				// which cannot tell, counts each line as skipped.
				if len(got.Seconds)+len(got.Cells)+len(got.Groups) != 0 || len(got.Inputs) != 1 ||
					got.Inputs[0].Records != 0 || got.Inputs[0].Skipped != nonBlank(t, files[0]) {
					t.Errorf("the query kept rows of a file that is no ALB log: %+v", got.Inputs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w, g := bundleText(t, want), bundleText(t, got); w != g {
				t.Errorf("the query's reduction differs from readygap's:\n%s", diff(w, g))
			}
		})
	}
}

// nonBlank counts the lines of a file that are neither blank nor only
// spaces.
func nonBlank(t *testing.T, name string) int {
	n := 0
	for _, l := range readLines(t, name) {
		if strings.TrimRight(l, " \t\r") != "" {
			n++
		}
	}
	return n
}

// TestALBQueryWindow requires the query's window and pruning to keep what
// a local reading with the same window keeps.
func TestALBQueryWindow(t *testing.T) {
	files := albObjects(t, filepath.Join(root, "fixtures", "eks-alb-no-gate"))
	since := time.Date(2025, 11, 8, 17, 34, 20, 0, time.UTC)
	until := since.Add(20 * time.Second)
	want, err := reduced.Reduce(context.Background(), files, sources.Options{Since: since, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	q := reduced.ALBQuery{Table: albTable, Days: []string{"2025/11/08"}, Objects: files, Since: since, Until: until}
	got, err := reduced.ALBRowsBundle(runQuery(t, openDuck(t, files), q.SQL()))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Groups) == 0 {
		t.Fatal("no failure in the window: the test proves nothing")
	}
	if w, g := bundleText(t, want), bundleText(t, got); w != g {
		t.Errorf("the query's reduction differs from readygap's:\n%s", diff(w, g))
	}
}

// diff shows the lines of want and got that differ, a few of each.
func diff(want, got string) string {
	if d := os.Getenv("ENGINETEST_DUMP"); d != "" {
		_ = os.WriteFile(filepath.Join(d, "want"), []byte(want), 0o644)
		_ = os.WriteFile(filepath.Join(d, "got"), []byte(got), 0o644)
	}
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	seen := map[string]int{}
	for _, l := range g {
		seen[l]++
	}
	for _, l := range w {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		if len(out) < 8 {
			out = append(out, "- "+l)
		}
	}
	n := 0
	want2 := map[string]int{}
	for _, l := range w {
		want2[l]++
	}
	for _, l := range g {
		if want2[l] > 0 {
			want2[l]--
			continue
		}
		if n < 8 {
			out = append(out, "+ "+l)
			n++
		}
	}
	b, _ := json.Marshal(len(out))
	_ = b
	return strings.Join(out, "\n")
}

// TestALBQueryRequestStart requires the query to time requests as the Go
// adapter does (sources.albStartTime): at request_creation_time, to the
// nanosecond, unless it is `-`, not a time, after the time field or more
// than 4000 s before it; and to key the failure groups whose duration the
// analysis reads (a closed connection or other failure at a backend) by
// that duration and logged-after, as correlate.GroupTimes does.
func TestALBQueryRequestStart(t *testing.T) {
	const tmpl = `http %s app/k8s-demo/0123456789abcdef 192.0.2.7:40000 %s %s %d %s 0 0 "GET http://demo.example:80/p%d HTTP/1.1" "curl/8" - - arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/demo/0123456789abcdef "Root=1-00000000-%024d" "-" "-" 0 %s "forward" "-" "-" "%s" "%s" "-" "-"`
	type line struct {
		logged, created, target, times string
		status                         int
		targetStatus                   string
	}
	const closed, refused, ok = "0.001 -1 -1", "-1 -1 -1", "0.001 0.001 0.000"
	lines := []line{
		// A response whose start is in the second and cell before its line's.
		{"2026-03-10T12:00:00.000500Z", "2026-03-10T11:59:59.999900Z", "10.0.1.5:8080", ok, 200, "200"},
		// Closed connections: 2 ms and 3 ms long (two groups), then every
		// creation time that leaves the time field.
		{"2026-03-10T12:00:10.002000Z", "2026-03-10T12:00:10.000000Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T12:00:10.503000Z", "2026-03-10T12:00:10.500000Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T12:00:11.000000Z", "-", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T12:00:12.000000Z", "2026-03-10T12:00:12.000001Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T13:06:40.000000Z", "2026-03-10T12:00:00.000000Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T13:06:40.000001Z", "2026-03-10T12:00:00.000000Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T12:00:13.000000Z", "2026-02-30T12:00:12.000000Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T12:00:14.000000Z", "2026-03-10 12:00:13Z", "10.0.1.5:8080", closed, 502, "-"},
		{"2026-03-10T12:00:15.500000Z", "2026-03-10T12:00:15.123456789Z", "10.0.1.5:8080", closed, 502, "-"},
		// A failure of another kind at a backend: its duration is read.
		{"2026-03-10T12:00:16.004000Z", "2026-03-10T12:00:16.000000Z", "10.0.1.5:8080", closed, 500, "-"},
		// Failures whose duration is not read: a refused connect, a
		// timeout, no backend.
		{"2026-03-10T12:00:17.001000Z", "2026-03-10T12:00:17.000000Z", "10.0.1.6:8080", refused, 502, "-"},
		{"2026-03-10T12:01:20.000000Z", "2026-03-10T12:00:20.000000Z", "10.0.1.6:8080", "0.000 -1 -1", 504, "-"},
		{"2026-03-10T12:00:21.000300Z", "2026-03-10T12:00:21.000000Z", "-", "-1 -1 -1", 503, "-"},
	}
	dir := filepath.Join(t.TempDir(), "AWSLogs", "111122223333", "elasticloadbalancing", "us-east-1", "2026", "03", "10")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "111122223333_elasticloadbalancing_us-east-1_app.k8s-demo.0123456789abcdef_20260310T1310Z_10.0.0.1_start.log")
	var text strings.Builder
	for i, l := range lines {
		text.WriteString(fmt.Sprintf(tmpl, l.logged, l.target, l.times, l.status, l.targetStatus, i, i, l.created, l.target, l.targetStatus) + "\n")
	}
	if err := os.WriteFile(name, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := reduced.Reduce(context.Background(), []string{name}, sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The Go reduction is the reference; check that it says what the test
	// is about, so that agreeing on something else proves nothing.
	if len(want.Inputs) != 1 || want.Inputs[0].Records != len(lines) || want.Inputs[0].Skipped != 0 {
		t.Fatalf("the local reduction read %+v; want %d records", want.Inputs, len(lines))
	}
	start := time.Date(2026, 3, 10, 11, 59, 59, 999900000, time.UTC)
	if !want.Inputs[0].First.Equal(start) || want.Seconds[0].Sec != start.Unix() || len(want.Cells) == 0 || want.Cells[0].First != start.UnixNano() {
		t.Errorf("the first response is not timed at its creation time %v: %+v, %+v", start, want.Seconds[0], want.Cells)
	}
	durations := map[int64]int{}
	for _, g := range want.Groups {
		durations[g.Duration]++
		if g.Duration != g.LoggedAfter {
			t.Errorf("group %+v: duration %d, logged after %d; an ALB line is written when the response ends", g, g.Duration, g.LoggedAfter)
		}
	}
	for d, n := range map[int64]int{int64(2 * time.Millisecond): 1, int64(3 * time.Millisecond): 1, int64(4 * time.Millisecond): 1,
		int64(4000 * time.Second): 1, int64(376543211): 1} {
		if durations[d] != n {
			t.Errorf("%d failure groups of duration %d ns; want %d (groups by duration: %v)", durations[d], d, n, durations)
		}
	}
	got, err := reduced.ALBRowsBundle(runQuery(t, openDuck(t, []string{name}), reduced.ALBQuery{Table: albTable}.SQL()))
	if err != nil {
		t.Fatal(err)
	}
	if w, g := bundleText(t, want), bundleText(t, got); w != g {
		t.Errorf("the query's reduction differs from readygap's:\n%s", diff(w, g))
	}
}

package reduced

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// gcpFormat is the format id of Cloud Logging entries (sources.FormatGCPLogging).
const gcpFormat = string(sources.FormatGCPLogging)

// GCPTable is one BigQuery table or view of Google Cloud load balancer
// request logs the query reads, and the expressions that read the LogEntry
// fields the Go adapter reads from its columns.
type GCPTable struct {
	// Name is the table as given: project.dataset.table. A sink's
	// date-sharded tables end in * (requests_*), and the query then
	// names the days by _TABLE_SUFFIX.
	Name string
	// Columns reads the fields (LogAnalyticsColumns, SinkColumns).
	Columns GCPColumns
}

// GCPColumns are the SQL expressions, over one table's columns, of the
// LogEntry fields the adapter reads: logName, insertId, timestamp,
// resource.type, httpRequest (present or not), its status, serverIp,
// requestMethod and requestUrl, the resource labels that name the load
// balancer (sources.GCPLBLabels, in order), and jsonPayload's statusDetails
// and proxyStatus. A field the table has no column for is NULL.
type GCPColumns struct {
	LogName, InsertID, Timestamp, ResourceType string
	HTTPRequest, Status, ServerIP, Method, URL string
	Labels                                     []string
	StatusDetails, ProxyStatus                 string
}

// sqlNull is a NULL string, for a field a table has no column for.
const sqlNull = "CAST(NULL AS STRING)"

// ident quotes one part of a name for BigQuery (and DuckDB): backticks.
func ident(parts ...string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = "`" + p + "`"
	}
	return strings.Join(q, ".")
}

// LogAnalyticsColumns reads a Log Analytics view (_AllLogs or a log view
// of a linked dataset): snake_case columns, resource.labels and
// json_payload as JSON (the schema of cloud.google.com/logging/docs/analyze/query-and-view).
func LogAnalyticsColumns() GCPColumns {
	c := GCPColumns{
		LogName: ident("log_name"), InsertID: ident("insert_id"), Timestamp: ident("timestamp"),
		ResourceType: ident("resource", "type"), HTTPRequest: ident("http_request"),
		Status: ident("http_request", "status"), ServerIP: ident("http_request", "server_ip"),
		Method: ident("http_request", "request_method"), URL: ident("http_request", "request_url"),
		StatusDetails: "JSON_VALUE(" + ident("json_payload") + ", '$.statusDetails')",
		ProxyStatus:   "JSON_VALUE(" + ident("json_payload") + ", '$.proxyStatus')",
	}
	for _, l := range sources.GCPLBLabels() {
		c.Labels = append(c.Labels, "JSON_VALUE("+ident("resource", "labels")+", '$."+l+"')")
	}
	return c
}

// Field is one column of a table's schema as BigQuery's tables.get gives
// it: a name, a type, and the fields of a RECORD.
type Field struct {
	Name   string
	Type   string
	Fields []Field
}

// field finds the field named name, letter case aside (sinks keep
// LogEntry's names and lower-case payload fields).
func field(fs []Field, name string) *Field {
	for i := range fs {
		if strings.EqualFold(fs[i].Name, name) {
			return &fs[i]
		}
	}
	return nil
}

// path returns the quoted column path of names in fs, "" when absent.
func path(fs []Field, names ...string) string {
	var parts []string
	for _, n := range names {
		f := field(fs, n)
		if f == nil {
			return ""
		}
		parts = append(parts, f.Name)
		fs = f.Fields
	}
	return ident(parts...)
}

// SinkColumns reads a table a log sink writes (cloud.google.com/logging/docs/export/bigquery):
// LogEntry's names (logName, httpRequest.serverIp, resource.labels.<label>),
// payload fields lower-cased, and a payload with an @type in a column named
// after the type (jsonpayload_type_loadbalancerlogentry). The names are
// read from the table's schema, so a column the sink never created (a
// label no entry had) reads as NULL. It fails when the table lacks what
// every request entry has: timestamp, logName, resource.type,
// httpRequest.status.
func SinkColumns(schema []Field) (GCPColumns, error) {
	c := GCPColumns{
		LogName: path(schema, "logName"), InsertID: path(schema, "insertId"), Timestamp: path(schema, "timestamp"),
		ResourceType: path(schema, "resource", "type"), HTTPRequest: path(schema, "httpRequest"),
		Status: path(schema, "httpRequest", "status"), ServerIP: path(schema, "httpRequest", "serverIp"),
		Method: path(schema, "httpRequest", "requestMethod"), URL: path(schema, "httpRequest", "requestUrl"),
	}
	for name, v := range map[string]string{"timestamp": c.Timestamp, "logName": c.LogName, "resource.type": c.ResourceType, "httpRequest.status": c.Status} {
		if v == "" {
			return c, fmt.Errorf("the table has no column %s: it is not a table of load balancer request logs a sink wrote", name)
		}
	}
	for _, l := range sources.GCPLBLabels() {
		c.Labels = append(c.Labels, path(schema, "resource", "labels", l))
	}
	// jsonPayload, or the columns of typed payloads.
	var details, proxy []string
	for _, f := range schema {
		if lower := strings.ToLower(f.Name); lower != "jsonpayload" && !strings.HasPrefix(lower, "jsonpayload_") {
			continue
		}
		if p := path(schema, f.Name, "statusDetails"); p != "" {
			details = append(details, p)
		}
		if p := path(schema, f.Name, "proxyStatus"); p != "" {
			proxy = append(proxy, p)
		}
	}
	c.StatusDetails, c.ProxyStatus = coalesce(details), coalesce(proxy)
	return c, nil
}

// coalesce is the first non-NULL of exprs; NULL for none.
func coalesce(exprs []string) string {
	switch len(exprs) {
	case 0:
		return sqlNull
	case 1:
		return exprs[0]
	}
	return "COALESCE(" + strings.Join(exprs, ", ") + ")"
}

// orNull is expr, or NULL when the table has no such column.
func orNull(expr string) string { return cmpOr(expr, sqlNull) }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// GCPQuery is one BigQuery query that reduces the Google Cloud load
// balancer request logs of a window in one scan of the tables it names.
type GCPQuery struct {
	Tables []GCPTable
	// Since and Until bound the entries read, by their timestamp (BigQuery
	// keeps microseconds); zero leaves a side open. The bound prunes the
	// partitions of a table partitioned by timestamp, and the shards of a
	// date-sharded one.
	Since, Until time.Time
}

// The stand-ins of the query's regular expressions are RE2's, which both
// BigQuery and the test engine use; patterns avoid backslashes, whose
// meaning in a string literal differs between engines.
const (
	// gcpIPv4 is a dotted-decimal address as lex.ParseAddr reads it: each
	// field at most 255, without leading zeros.
	gcpOctet = `(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])`
	gcpIPv4  = gcpOctet + `[.]` + gcpOctet + `[.]` + gcpOctet + `[.]` + gcpOctet
	// gcpPort is a port as lex.Port reads it: no leading zero, at most 65535.
	gcpPort = `(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])`
)

// gcpIPv6 is an IPv6 address as netip.ParseAddr reads it (no zone): eight
// groups of one to four hex digits, or fewer around one "::", the last two
// groups possibly written as an IPv4 address. The rows' addresses are
// parsed again in Go (GCPRowsBundle), which writes them as netip does.
var gcpIPv6 = func() string {
	const h = `[0-9A-Fa-f]{1,4}`
	alts := []string{fmt.Sprintf(`(?:%s:){7}%s`, h, h), fmt.Sprintf(`(?:%s:){6}`, h) + gcpIPv4}
	for k := 0; k <= 7; k++ { // k groups before "::"
		left := ""
		if k > 0 {
			left = fmt.Sprintf(`%s(?::%s){%d}`, h, h, k-1)
		}
		right := ""
		if m := 7 - k; m > 0 {
			right = fmt.Sprintf(`(?:%s(?::%s){0,%d})?`, h, h, m-1)
		}
		alts = append(alts, left+"::"+right)
		if m := 5 - k; m >= 0 {
			alts = append(alts, left+"::"+fmt.Sprintf(`(?:%s:){0,%d}`, h, m)+gcpIPv4)
		}
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}()

// gcpParamRE matches the start of a Proxy-Status member up to the value of
// its first parameter named name, as gcpProxyStatusParam walks it: each
// parameter before it, with no '=' before its ';', or a quoted value and
// what follows it to its ';', or a token to its ';'.
func gcpParamRE(name string) string {
	skip := `(?:[ \t]*[^=;]*;|[ \t]*[^=;]*=[ \t]*"[^"]*"[^;]*;|[ \t]*[^=;]*=[ \t]*(?:[^"; \t][^;]*)?;)`
	return `^` + skip + `*?[ \t]*` + name + `[ \t]*=[ \t]*`
}

// gcpParamValue is the value at the start of x, the rest of a member after
// gcpParamRE: a quoted string without its quotes (to the end when it is
// not closed), or a token to the next ';', spaces and tabs trimmed.
func gcpParamValue(x string) string {
	r := strings.NewReplacer("$", x)
	return r.Replace(`CASE WHEN starts_with($, '"') THEN CASE WHEN strpos(substr($, 2), '"') > 0 THEN substr($, 2, strpos(substr($, 2), '"') - 1) ELSE substr($, 2) END
      ELSE rtrim(CASE WHEN strpos($, ';') > 0 THEN substr($, 1, strpos($, ';') - 1) ELSE $ END, ' ' || chr(9)) END`)
}

// bqString quotes s as a string literal both engines read alike: no
// quote or backslash in it (but the \t of a pattern, a tab to RE2 either
// way).
func bqString(s string) string {
	if strings.Contains(s, "'") || strings.Contains(strings.ReplaceAll(s, `\t`, ""), `\`) {
		panic("reduced: a literal with a quote or backslash: " + s)
	}
	return "'" + s + "'"
}

// bqTimestamp is the TIMESTAMP literal of t, to the microsecond, rounded up:
// entries at or after t (in nanoseconds) are those at or after it.
func bqTimestamp(t time.Time) string {
	us := (t.UnixNano() + 999) / 1000
	return "TIMESTAMP '" + time.UnixMicro(us).UTC().Format("2006-01-02 15:04:05.000000") + "+00'"
}

// ErrGCPTable is the error of a table name that is not project.dataset.table.
var ErrGCPTable = errors.New("give the table as project.dataset.table")

// SplitTable splits project.dataset.table; the project may hold dots (a
// domain-scoped project, example.com:project).
func SplitTable(name string) (project, dataset, table string, err error) {
	i := strings.LastIndex(name, ".")
	if i <= 0 {
		return "", "", "", ErrGCPTable
	}
	j := strings.LastIndex(name[:i], ".")
	project, dataset, table = name[:max(j, 0)], name[j+1:i], name[i+1:]
	if j <= 0 || dataset == "" || table == "" || strings.ContainsAny(name, "`'\" ;\\") || strings.Contains(table[:len(table)-1], "*") {
		return "", "", "", ErrGCPTable
	}
	return project, dataset, table, nil
}

// gcpKindSQL names a failure kind as the query's kind column does: the
// FailureKind's name.
func gcpKindSQL(k sources.FailureKind) string { return bqString(k.String()) }

// gcpOutcomeSQL returns the CASE expressions of the generator and the failure
// kind, as sources.gcpOutcome decides them from detail, status and
// whether a backend was picked (ip).
func gcpOutcomeSQL() (generator, kind string) {
	ok, app, other := gcpKindSQL(sources.FailureNone), gcpKindSQL(sources.FailureAppError), gcpKindSQL(sources.FailureOther)
	backend, lb, unknown := bqString(sources.GeneratedByBackend.String()), bqString(sources.GeneratedByLB.String()), bqString(sources.GeneratedUnknown.String())
	var g, k strings.Builder
	g.WriteString("CASE\n      WHEN detail = '' AND ip IS NOT NULL THEN " + backend + "\n      WHEN detail = '' THEN " + unknown + "\n")
	k.WriteString("CASE\n      WHEN detail = '' AND ip IS NOT NULL THEN CASE WHEN status >= 500 THEN " + app + " ELSE " + ok + " END\n" +
		"      WHEN detail = '' THEN CASE WHEN status >= 500 THEN " + other + " ELSE " + ok + " END\n")
	for _, o := range sources.GCPDetailOutcomes() {
		d := bqString(o.Detail)
		fmt.Fprintf(&g, "      WHEN detail = %s THEN %s\n", d, bqString(o.Generator.String()))
		if o.Failure == sources.FailureAppError {
			fmt.Fprintf(&k, "      WHEN detail = %s THEN CASE WHEN status >= 500 THEN %s ELSE %s END\n", d, app, ok)
		} else {
			fmt.Fprintf(&k, "      WHEN detail = %s THEN %s\n", d, gcpKindSQL(o.Failure))
		}
	}
	g.WriteString("      ELSE " + lb + " END")
	fmt.Fprintf(&k, "      WHEN starts_with(detail, %s) THEN %s\n      WHEN status >= 500 THEN %s ELSE %s END",
		bqString(sources.GCPClientDetailPrefix), ok, other, ok)
	return g.String(), k.String()
}

// SQL returns the statement. Its result has one row per summary of a
// table, second and load balancer, served cell and failure group, told
// apart by gset (see GCPRowsBundle). It is GoogleSQL, written with the
// functions the test engine (DuckDB) shares or stands in for with a macro
// of the same meaning (tools/enginetest): JSON_VALUE, UNIX_MICROS,
// REGEXP_CONTAINS; the rest (REGEXP_REPLACE, STRPOS, SUBSTR, STARTS_WITH,
// ENDS_WITH, RTRIM, CHR, LPAD, COUNTIF, MIN_BY, MAX_BY, ROW_NUMBER, GROUPING
// SETS) both know.
func (q GCPQuery) SQL() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	var types []string
	for _, t := range sources.GCPRequestResourceTypes {
		types = append(types, bqString(t))
	}
	p("WITH e AS (")
	for i, t := range q.Tables {
		c := t.Columns
		if i > 0 {
			p("  UNION ALL")
		}
		project, dataset, table, _ := SplitTable(t.Name)
		labels := make([]string, len(c.Labels))
		for j, l := range c.Labels {
			labels[j] = "NULLIF(" + orNull(l) + ", '')"
		}
		p("  SELECT %s AS object,", bqString(t.Name))
		p("    COALESCE(%s, '') AS log_name, COALESCE(%s, '') AS insert_id, %s AS ts,", orNull(c.LogName), orNull(c.InsertID), c.Timestamp)
		p("    %s IS NOT NULL AS has_req, COALESCE(%s, 0) AS status,", cmpOr(c.HTTPRequest, "NULL"), cmpOr(c.Status, "NULL"))
		p("    COALESCE(%s, '') AS sip, COALESCE(%s, '') AS method, COALESCE(%s, '') AS url,", orNull(c.ServerIP), orNull(c.Method), orNull(c.URL))
		p("    COALESCE(%s, '') AS lb,", strings.Join(append(labels, "''"), ", "))
		p("    COALESCE(%s, '') AS sd, COALESCE(%s, '') AS ps", c.StatusDetails, c.ProxyStatus)
		p("  FROM %s", ident(project, dataset, table))
		var where []string
		if !q.Since.IsZero() {
			where = append(where, c.Timestamp+" >= "+bqTimestamp(q.Since))
		}
		if !q.Until.IsZero() {
			where = append(where, c.Timestamp+" < "+bqTimestamp(q.Until))
		}
		if strings.HasSuffix(table, "*") && !q.Since.IsZero() && !q.Until.IsZero() {
			// Shards are named by the UTC day of their entries' timestamp.
			last := time.UnixMicro((q.Until.UnixNano()+999)/1000 - 1).UTC()
			where = append(where, "_TABLE_SUFFIX BETWEEN "+bqString(q.Since.UTC().Format("20060102"))+" AND "+bqString(last.Format("20060102")))
		}
		where = append(where, c.ResourceType+" IN ("+strings.Join(types, ", ")+")")
		p("  WHERE %s", strings.Join(where, "\n    AND "))
	}
	p("),")
	// What the adapter reads as a request: an httpRequest, in no log it
	// reads as something else.
	var notLogs []string
	for _, s := range sources.GCPNotRequestLogSuffixes {
		notLogs = append(notLogs, "NOT ends_with(log_name, "+bqString(s)+")")
	}
	p("a AS (")
	p("  SELECT *,")
	p("    regexp_contains(sip, %s) AS v4,", bqString("^"+gcpIPv4+"$"))
	p("    regexp_contains(sip, %s) AS v4p,", bqString("^"+gcpIPv4+":"+gcpPort+"$"))
	p("    regexp_contains(sip, %s) AS v6p,", bqString("^[[]"+gcpIPv6+"[]]:"+gcpPort+"$"))
	p("    regexp_contains(sip, %s) AS v6,", bqString("^"+gcpIPv6+"$"))
	p("    CASE WHEN regexp_contains(ps, %[1]s) THEN regexp_replace(ps, %[1]s, '') END AS ps_details,", bqString(gcpParamRE("details")))
	p("    CASE WHEN regexp_contains(ps, %[1]s) THEN regexp_replace(ps, %[1]s, '') END AS ps_error,", bqString(gcpParamRE("error")))
	p("    strpos(url, '://') > 0 AS absolute,")
	p("    CASE WHEN strpos(url, '://') > 0 THEN regexp_replace(substr(url, strpos(url, '://') + 3), '^[^/?#]*', '') ELSE url END AS u0")
	p("  FROM e")
	p("  WHERE has_req AND %s", strings.Join(notLogs, " AND "))
	p("),")
	// The checks of the adapter (a status of three digits at most, a
	// serverIp that is an address with or without a port), the backend,
	// the detail (statusDetails, else proxyStatus's details, else its
	// error) and the path.
	p("c AS (")
	p("  SELECT *,")
	p("    status BETWEEN 0 AND 999 AND (sip = '' OR v4 OR v4p OR v6p OR v6) AS valid,")
	// In lex.ParseAddrOptPort's order: with a port, then without.
	p("    CASE WHEN v4p THEN substr(sip, 1, strpos(sip, ':') - 1) WHEN v6p THEN lower(substr(sip, 2, strpos(sip, ']') - 2))")
	p("      WHEN v4 THEN sip WHEN v6 THEN lower(sip) END AS ip,")
	p("    CASE WHEN v4p THEN substr(sip, strpos(sip, ':') + 1) WHEN v6p THEN substr(sip, strpos(sip, ']') + 2) WHEN v4 OR v6 THEN '0' END AS port,")
	p("    CASE WHEN sd <> '' THEN sd WHEN ps = '' THEN ''")
	p("      ELSE COALESCE(NULLIF(%s, ''), %s, '') END AS detail,", gcpParamValue("ps_details"), gcpParamValue("ps_error"))
	p("    CASE WHEN strpos(u0, '#') > 0 THEN substr(u0, 1, strpos(u0, '#') - 1) ELSE u0 END AS u1")
	p("  FROM a")
	p("),")
	// Entries repeated under one logName and insertId count once, as the
	// local reader counts them (sources.Emitter.Duplicate).
	p("d AS (")
	p("  SELECT *,")
	p("    valid AND insert_id <> '' AND ROW_NUMBER() OVER (PARTITION BY log_name, insert_id, valid ORDER BY ts, object) > 1 AS dup,")
	p("    UNIX_MICROS(ts) AS us,")
	p("    CASE WHEN ip IS NULL THEN NULL WHEN strpos(ip, ':') > 0 THEN '[' || ip || ']:' || port ELSE ip || ':' || port END AS backend")
	p("  FROM c")
	p("),")
	gen, kind := gcpOutcomeSQL()
	p("o AS (")
	p("  SELECT *,")
	p("    valid AND NOT dup AS keep,")
	p("    us * 1000 AS ns,")
	p("    %s AS sec,", idiv64("us", "1000000"))
	p("    %s AS generator,", gen)
	p("    %s AS kind,", kind)
	p("    CASE WHEN absolute AND (u1 = '' OR starts_with(u1, '?')) THEN '/' || u1 ELSE u1 END AS path")
	p("  FROM d")
	p("),")
	failed := "keep AND kind NOT IN (" + gcpKindSQL(sources.FailureNone) + ", " + gcpKindSQL(sources.FailureAppError) + ")"
	p("r AS (")
	p("  SELECT *,")
	p("    lpad(CAST(ns AS STRING), 20, '0') || ' ' || object || ' ' || insert_id AS ord,")
	p("    CASE WHEN keep THEN sec END AS s_sec,")
	p("    CASE WHEN keep THEN lb END AS s_lb,")
	p("    CASE WHEN keep AND generator = 'backend' THEN ip END AS c_ip,")
	p("    CASE WHEN keep AND generator = 'backend' AND ip IS NOT NULL THEN %s END AS c_cell,", idiv64("sec", fmt.Sprint(CellSeconds)))
	p("    CASE WHEN %s THEN sec END AS g_sec,", failed)
	p("    CASE WHEN %s THEN status END AS g_status,", failed)
	p("    CASE WHEN %s THEN generator END AS g_generator,", failed)
	p("    CASE WHEN %s THEN kind END AS g_kind,", failed)
	p("    CASE WHEN %s THEN COALESCE(backend, '') END AS g_backend,", failed)
	p("    CASE WHEN %s THEN lb END AS g_lb,", failed)
	p("    CASE WHEN %s THEN detail END AS g_detail", failed)
	p("  FROM o")
	p(")")
	p("SELECT GROUPING(object) * 8 + GROUPING(s_lb) * 4 + GROUPING(c_ip) * 2 + GROUPING(g_status) AS gset,")
	p("  object, s_sec, s_lb, c_ip, c_cell, g_sec, g_status, g_generator, g_kind, g_backend, g_lb, g_detail,")
	p("  CAST(COUNT(*) AS INT64) AS n,")
	p("  CAST(COUNTIF(NOT valid) AS INT64) AS skipped,")
	p("  CAST(COUNTIF(dup) AS INT64) AS duplicates,")
	p("  CAST(COUNTIF(keep) AS INT64) AS records,")
	p("  CAST(COUNTIF(keep AND kind = %s) AS INT64) AS ok,", gcpKindSQL(sources.FailureNone))
	for k := sources.FailureNoBackend; k <= sources.FailureOther; k++ {
		p("  CAST(COUNTIF(keep AND kind = %s) AS INT64) AS %s,", gcpKindSQL(k), k.String())
	}
	p("  CAST(COUNTIF(keep AND generator = 'backend') AS INT64) AS served,")
	p("  MIN(CASE WHEN keep THEN ns END) AS first_ns,")
	p("  MAX(CASE WHEN keep THEN ns END) AS last_ns,")
	p("  MIN_BY(object, ord) AS e_object, MIN_BY(insert_id, ord) AS e_ref, MIN_BY(method, ord) AS e_method, MIN_BY(path, ord) AS e_path,")
	p("  MAX_BY(object, ord) AS l_object, MAX_BY(insert_id, ord) AS l_ref, MAX_BY(method, ord) AS l_method, MAX_BY(path, ord) AS l_path")
	p("FROM r")
	p("GROUP BY GROUPING SETS ((object), (s_sec, s_lb), (c_ip, c_cell), (g_sec, g_status, g_generator, g_kind, g_backend, g_lb, g_detail))")
	return b.String()
}

// idiv64 is the integer quotient of two non-negative integers in GoogleSQL,
// whose / gives a FLOAT64 (exact here: the operands are far below 2^53).
func idiv64(a, b string) string { return fmt.Sprintf("CAST(floor((%s) / (%s)) AS INT64)", a, b) }

// GCPRowsBundle turns the result of GCPQuery.SQL into a bundle (Engine,
// Query and the rest are the caller's to set): records are named by their
// table and insertId. IPv6 backends, which the query takes as written,
// are written as netip writes them, and the cells and groups that then
// fall together are merged. A row of no grouping set, or whose numbers or
// addresses do not read, is an error: the result is not the query's.
func GCPRowsBundle(rows Rows) (*Bundle, error) {
	b, err := rowsBundle(rows, gcpFormat, "ref", insertRef)
	if err != nil {
		return nil, err
	}
	changed := false
	for i := range b.Cells {
		a, err := netip.ParseAddr(b.Cells[i].IP)
		if err != nil {
			return nil, fmt.Errorf("cells: %w", err)
		}
		if s := a.String(); s != b.Cells[i].IP {
			b.Cells[i].IP, changed = s, true
		}
	}
	for i := range b.Groups {
		if b.Groups[i].Backend == "" {
			continue
		}
		ap, err := netip.ParseAddrPort(b.Groups[i].Backend)
		if err != nil {
			return nil, fmt.Errorf("groups: %w", err)
		}
		if s := ap.String(); s != b.Groups[i].Backend {
			b.Groups[i].Backend, changed = s, true
		}
	}
	if changed {
		b.mergeRows()
	}
	return b, b.Check()
}

// insertRef names a record by its entry's insertId; "" when it has none.
func insertRef(id string) string {
	if id == "" {
		return ""
	}
	return "insertId=" + id
}

// mergeRows merges the cells of one IP and cell, and the groups of one
// key, after their addresses were rewritten.
func (b *Bundle) mergeRows() {
	b.Sort()
	var cells []Cell
	for _, c := range b.Cells {
		if n := len(cells); n > 0 && cells[n-1].IP == c.IP && cells[n-1].Cell == c.Cell {
			m := &cells[n-1]
			m.N += c.N
			m.First, m.Last = min(m.First, c.First), max(m.Last, c.Last)
			continue
		}
		cells = append(cells, c)
	}
	var groups []Group
	for _, g := range b.Groups {
		if n := len(groups); n > 0 && sameGroupKey(groups[n-1], g) {
			m := &groups[n-1]
			m.N += g.N
			if compareRecords(g.Earliest, m.Earliest) < 0 {
				m.Earliest = g.Earliest
			}
			if compareRecords(g.Latest, m.Latest) > 0 {
				m.Latest = g.Latest
			}
			continue
		}
		groups = append(groups, g)
	}
	b.Cells, b.Groups = cells, groups
}

// sameGroupKey reports whether two groups share every key field.
func sameGroupKey(x, y Group) bool {
	x.N, y.N = 0, 0
	x.Earliest, y.Earliest, x.Latest, y.Latest = Record{}, Record{}, Record{}, Record{}
	return x == y
}

package reduced

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ALBTableDDL is the Athena statement that creates the table the ALB query
// reads: one string column holding each raw line of the access-log
// objects, partitioned by day with partition projection, so that no
// partition is ever added by hand and a query names the days it reads.
// Keeping the lines raw, and parsing them in the query (ALBQuery), keeps
// the table working when ALB appends fields, and lets the very same query
// run on a local engine in tests. %[1]s is the table (quoted with
// backticks: DDL is Hive's), %[2]s the s3://
// prefix ending in the region's folder. Days are projected from 2016, when
// ALB came out, to today.
const ALBTableDDL = `CREATE EXTERNAL TABLE IF NOT EXISTS %[1]s (
  line string
)
PARTITIONED BY (day string)
ROW FORMAT DELIMITED
  FIELDS TERMINATED BY '\001'
  LINES TERMINATED BY '\n'
STORED AS TEXTFILE
LOCATION '%[2]s/'
TBLPROPERTIES (
  'projection.enabled' = 'true',
  'projection.day.type' = 'date',
  'projection.day.format' = 'yyyy/MM/dd',
  'projection.day.range' = '2016/01/01,NOW',
  'projection.day.interval' = '1',
  'projection.day.interval.unit' = 'DAYS',
  'storage.location.template' = '%[2]s/${day}'
)`

// ALBDDL returns ALBTableDDL for table over the logs under prefix (the
// s3:// URL of .../AWSLogs/<account>/elasticloadbalancing/<region>).
func ALBDDL(table, prefix string) string {
	return fmt.Sprintf(ALBTableDDL, table, strings.TrimSuffix(prefix, "/"))
}

// ALBQuery is one Athena query that reduces the ALB access logs of a
// window in one scan of the objects it names.
type ALBQuery struct {
	// Table is the table of raw lines (ALBTableDDL), quoted as the engine
	// wants it ("db"."table").
	Table string
	// Days are the partitions (yyyy/MM/dd) the window's objects are in,
	// delivery lag included.
	Days []string
	// Objects are the s3:// URLs of the objects the listing kept for the
	// window (health-check logs left out); empty reads every access-log
	// object of the days.
	Objects []string
	// Since and Until bound the requests kept; zero leaves a side open.
	Since, Until time.Time
	// Layout is how Table holds the lines; the zero value is readygap's
	// table of raw lines.
	Layout ALBTable
}

// albFieldRE matches one field of an access-log line as the Go adapter
// splits it: a double-quoted field (its quotes kept, backslash escapes
// skipped) or a run of non-spaces not starting with a quote.
const albFieldRE = `(?:"(?:[^"\\]|\\.)*"|[^ "][^ ]*)`

// albLineRE matches a whole access-log line: the 25 fields readygap reads,
// separated by runs of spaces, then anything (later fields).
var albLineRE = "^" + strings.TrimSuffix(strings.Repeat(albFieldRE+" +", 25), " +") + "(?: .*)?$"

// albFieldsRE returns a pattern of n fields from the start of the text,
// capturing those listed, and, with rest, what follows them (the last
// group). Engines differ in how many groups regexp_extract reaches
// (DuckDB nine), so the fields are taken in two steps of fewer.
func albFieldsRE(n int, capture []int, rest bool) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(" +")
		}
		if slices.Contains(capture, i) {
			b.WriteString("(" + albFieldRE + ")")
		} else {
			b.WriteString(albFieldRE)
		}
	}
	if rest {
		b.WriteString(" +(.*)$")
	}
	return b.String()
}

// albHead and albTail split a line that matches albLineRE: the fields read
// of the first nine and what follows them, then those read of the next
// sixteen (10 to 25): target_status, request, trace_id,
// request_creation_time and error_reason.
var (
	albHeadFields = []int{1, 2, 3, 5, 6, 7, 8, 9}
	albHeadRE     = albFieldsRE(9, albHeadFields, true)
	albTailFields = []int{1, 4, 9, 13, 16} // fields 10, 13, 18, 22 and 25
	albTailRE     = albFieldsRE(16, albTailFields, false)
)

// albTimeRE matches the time field and captures its parts.
const albTimeRE = `^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?Z$`

// albTargetRE matches target:port, IPv4 or bracketed IPv6, capturing the
// address and the port.
const albTargetRE = `^(?:([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})|\[([0-9A-Fa-f:.]+)\]):([0-9]{1,5})$`

// albMaxRequestSpanNs is the Go adapter's albMaxRequestSpan, 4000 s (the
// longest connection idle timeout an ALB takes), in nanoseconds: a
// request_creation_time more than that before the time field is not the
// request's start.
const albMaxRequestSpanNs = 4000 * int64(time.Second)

// albTimeParts are the columns albTimeColumns names after the time
// field's parts, each behind a prefix.
var albTimeParts = []string{"y", "mo", "d", "h", "mi", "s"}

// albTimeColumns returns the select list that takes the time in column x
// apart as albParseTime reads it: <p>ok (it matches albTimeRE), the
// parts <p>y ... <p>s and <p>frac, the fraction's nine digits.
func albTimeColumns(x, p string) []string {
	out := []string{fmt.Sprintf("regexp_like(%s, %s) AS %sok", x, sqlString(albTimeRE), p)}
	for i, part := range albTimeParts {
		out = append(out, fmt.Sprintf("TRY_CAST(nullif(regexp_extract(%s, %s, %d), '') AS bigint) AS %s%s", x, sqlString(albTimeRE), i+1, p, part))
	}
	return append(out, fmt.Sprintf("rpad(substr(coalesce(nullif(regexp_extract(%s, %s, 7), ''), '.'), 2, 9), 9, '0') AS %sfrac", x, sqlString(albTimeRE), p))
}

// albTimeValid is the condition that the parts of albTimeColumns(_, p)
// are a time albParseTime takes: a real day of the civil calendar, from
// 1970 on.
func albTimeValid(p string) string {
	r := strings.NewReplacer("$", p)
	return r.Replace("$ok AND $mo BETWEEN 1 AND 12 AND $d >= 1 AND $d <= CASE WHEN $mo = 2 THEN CASE WHEN $y % 4 = 0 AND ($y % 100 <> 0 OR $y % 400 = 0) THEN 29 ELSE 28 END\n" +
		"        WHEN $mo IN (4, 6, 9, 11) THEN 30 ELSE 31 END\n" +
		"      AND $h < 24 AND $mi < 60 AND $s < 60 AND $y >= 1970")
}

// albUnixSeconds is the Unix second of the parts of albTimeColumns(_, p),
// by days_from_civil; ey is the column of the year counted from March
// (<p>y less one in January and February).
func albUnixSeconds(p, ey string) string {
	r := strings.NewReplacer("$", p)
	era := idiv(ey, "400")
	yoe := ey + " - " + era + " * 400"
	return fmt.Sprintf("(%s * 146097 + (%s) * 365 + %s - %s\n      + %s + %s - 1 - 719468) * 86400 + %s",
		era, yoe, idiv(yoe, "4"), idiv(yoe, "100"),
		idiv(r.Replace("153 * ($mo + CASE WHEN $mo > 2 THEN -3 ELSE 9 END) + 2"), "5"), p+"d",
		r.Replace("$h * 3600 + $mi * 60 + $s"))
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// sqlList renders a list of string literals.
func sqlList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = sqlString(s)
	}
	return strings.Join(q, ", ")
}

// unquote strips the quotes of a quoted field.
func unquote(x string) string {
	return fmt.Sprintf("CASE WHEN starts_with(%[1]s, '\"') THEN substr(%[1]s, 2, length(%[1]s) - 2) ELSE %[1]s END", x)
}

// idiv is the integer quotient of two non-negative integers, the same in
// Trino (whose / of integers truncates) and in engines whose / of integers
// gives a real.
func idiv(a, b string) string { return fmt.Sprintf("CAST(floor((%s) / (%s)) AS bigint)", a, b) }

// SQL returns the statement. Its result has one row per summary of an
// object, second and load balancer, served cell and failure group, told
// apart by gset (see ALBRowsBundle); its functions are common to Trino
// (Athena engine 3) and DuckDB: regexp_like, regexp_extract, starts_with,
// strpos, substr, lpad, rpad, count_if, min_by, max_by, GROUPING SETS.
func (q ALBQuery) SQL() string {
	var where []string
	if len(q.Days) > 0 && !q.Layout.NoDays {
		where = append(where, "day IN ("+sqlList(q.Days)+")")
	}
	if len(q.Objects) > 0 {
		where = append(where, `"$path" IN (`+sqlList(q.Objects)+")")
	}
	where = append(where, `"$path" NOT LIKE '%health_check_log%'`)
	since, until := "-9223372036854775807", "9223372036854775807"
	if !q.Since.IsZero() {
		since = fmt.Sprint(q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		until = fmt.Sprint(q.Until.UnixNano())
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	if q.Layout.Documented {
		documentedFields(p, q.Table, where, q.Layout)
	} else {
		rawFields(p, q.Table, where)
	}
	// The parts of the time field (t_), of request_creation_time (c_) and
	// of the target, checked as the adapter does.
	p("g AS (")
	p("  SELECT *,")
	for _, c := range append(albTimeColumns("tm", "t_"), albTimeColumns("created", "c_")...) {
		p("    %s,", c)
	}
	p("    regexp_like(target, %s) AS target_ok,", sqlString(albTargetRE))
	p("    coalesce(nullif(regexp_extract(target, %[1]s, 1), ''), lower(nullif(regexp_extract(target, %[1]s, 2), ''))) AS ip,", sqlString(albTargetRE))
	p("    TRY_CAST(nullif(regexp_extract(target, %s, 3), '') AS bigint) AS port,", sqlString(albTargetRE))
	p("    regexp_like(elb_status, '^[0-9]{3}$') AND elb_status >= '100' AS status_ok,")
	p("    target_status = '-' OR regexp_like(target_status, '^[0-9]{3}$') AND target_status >= '100' AS tstatus_ok")
	p("  FROM f")
	p("),")
	// Days since 1970 by the civil calendar (days_from_civil), and the checks.
	p("h AS (")
	p("  SELECT *,")
	p("    coalesce(split AND typ IN ('http', 'https', 'h2', 'grpcs', 'ws', 'wss') AND status_ok AND tstatus_ok")
	p("      AND %s", albTimeValid("t_"))
	p("      AND (target = '-' OR target_ok AND port <= 65535 AND (ip LIKE '%%:%%' OR")
	p("        TRY_CAST(split_part(ip, '.', 1) AS bigint) <= 255 AND TRY_CAST(split_part(ip, '.', 2) AS bigint) <= 255 AND")
	p("        TRY_CAST(split_part(ip, '.', 3) AS bigint) <= 255 AND TRY_CAST(split_part(ip, '.', 4) AS bigint) <= 255)), false) AS parsed,")
	p("    coalesce(%s, false) AS c_parsed,", albTimeValid("c_"))
	p("    t_y - CASE WHEN t_mo <= 2 THEN 1 ELSE 0 END AS t_ey,")
	p("    c_y - CASE WHEN c_mo <= 2 THEN 1 ELSE 0 END AS c_ey")
	p("  FROM g")
	p("),")
	p("t AS (")
	p("  SELECT *,")
	p("    CASE WHEN parsed THEN %s END AS t_sec,", albUnixSeconds("t_", "t_ey"))
	p("    CASE WHEN parsed AND c_parsed THEN %s END AS c_sec", albUnixSeconds("c_", "c_ey"))
	p("  FROM h")
	p("),")
	// The outcome, as albClassify and albLBFailure say.
	p("o AS (")
	p("  SELECT *,")
	p("    t_sec * 1000000000 + TRY_CAST(t_frac AS bigint) AS t_ns,")
	p("    c_sec * 1000000000 + TRY_CAST(c_frac AS bigint) AS c_ns,")
	p("    CASE WHEN target = '-' THEN NULL WHEN ip LIKE '%%:%%' THEN '[' || ip || ']:' || TRY_CAST(port AS varchar)")
	p("      ELSE TRY_CAST(TRY_CAST(split_part(ip, '.', 1) AS bigint) AS varchar) || '.' || TRY_CAST(TRY_CAST(split_part(ip, '.', 2) AS bigint) AS varchar) || '.' ||")
	p("        TRY_CAST(TRY_CAST(split_part(ip, '.', 3) AS bigint) AS varchar) || '.' || TRY_CAST(TRY_CAST(split_part(ip, '.', 4) AS bigint) AS varchar) || ':' || TRY_CAST(port AS varchar) END AS backend,")
	p("    CASE WHEN target_status <> '-' THEN 'backend' ELSE 'lb' END AS generator,")
	p("    CASE")
	p("      WHEN target_status <> '-' AND target_status >= '500' THEN 'app_error'")
	p("      WHEN target_status <> '-' OR elb_status < '500' OR elb_status > '599' THEN 'ok'")
	p("      WHEN elb_status = '504' THEN 'timeout'")
	p("      WHEN target = '-' AND elb_status IN ('502', '503') THEN 'no_backend'")
	p("      WHEN elb_status <> '502' OR target = '-' THEN 'other'")
	p("      WHEN rpt = '-1' AND tpt = '-1' AND rspt = '-1' THEN 'refused'")
	p("      WHEN NOT starts_with(rpt, '-') AND (rspt = '-1' OR tpt = '-1') THEN 'closed'")
	p("      ELSE 'other' END AS kind")
	p("  FROM t")
	p("),")
	// The request's start, as albStartTime says: request_creation_time,
	// unless it is not a time, is after the time field or more than
	// albMaxRequestSpan before it; its duration, the difference.
	p("v AS (")
	p("  SELECT *, coalesce(c_ns <= t_ns AND t_ns - c_ns <= %d, false) AS started", albMaxRequestSpanNs)
	p("  FROM o")
	p("),")
	p("w AS (")
	p("  SELECT *,")
	p("    CASE WHEN started THEN c_ns ELSE t_ns END AS ns,")
	p("    CASE WHEN started THEN c_sec ELSE t_sec END AS sec,")
	p("    CASE WHEN started THEN t_ns - c_ns ELSE 0 END AS dur")
	p("  FROM v")
	p("),")
	// What is kept: parsed, in the window.
	p("k AS (")
	p("  SELECT *,")
	p("    parsed AND ns >= %s AND ns < %s AS keep,", since, until)
	p("    CASE WHEN strpos(request, ' ') = 0 THEN CASE WHEN request = '-' THEN '' ELSE request END")
	p("      ELSE substr(request, 1, strpos(request, ' ') - 1) END AS method0,")
	p("    CASE WHEN strpos(request, ' ') = 0 THEN '' ELSE substr(request, strpos(request, ' ') + 1) END AS uri0")
	p("  FROM w")
	p("),")
	p("u AS (")
	p("  SELECT *,")
	p("    CASE WHEN method0 = '-' THEN '' ELSE method0 END AS method,")
	p("    CASE WHEN regexp_like(uri0, '^.* (HTTP/[^ ]*|-)$') THEN regexp_extract(uri0, '^(.*) (?:HTTP/[^ ]*|-)$', 1) ELSE uri0 END AS uri1")
	p("  FROM k")
	p("),")
	p("r AS (")
	p("  SELECT *,")
	p("    CASE WHEN uri1 = '-' THEN ''")
	p("      WHEN regexp_like(uri1, '^[^/]*://') THEN coalesce(nullif(regexp_extract(regexp_extract(uri1, '^[^/]*://(.*)$', 1), '[/?].*$', 0), ''), '/')")
	p("      ELSE uri1 END AS path,")
	p("    lpad(TRY_CAST(ns AS varchar), 20, '0') || ' ' || object || ' ' || trace AS ord,")
	p("    CASE WHEN keep THEN sec END AS s_sec,")
	p("    CASE WHEN keep THEN elb END AS s_lb,")
	p("    CASE WHEN keep AND generator = 'backend' AND target <> '-' THEN ip END AS c_ip,")
	p("    CASE WHEN keep AND generator = 'backend' AND target <> '-' THEN %s END AS c_cell,", idiv("sec", fmt.Sprint(CellSeconds)))
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN sec END AS g_sec,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN TRY_CAST(elb_status AS bigint) END AS g_status,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN generator END AS g_generator,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN kind END AS g_kind,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN coalesce(backend, '') END AS g_backend,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN elb END AS g_lb,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN CASE WHEN error_reason = '-' THEN '' ELSE error_reason END END AS g_detail,")
	// What grouping reads of the duration (correlate.GroupTimes): that of
	// a failure at a backend that closed the connection or failed
	// otherwise. The line is written when the response ends, so it is
	// logged its duration after its start.
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN CASE WHEN target <> '-' AND kind IN ('closed', 'other') THEN dur ELSE 0 END END AS g_duration,")
	p("    CASE WHEN keep AND kind NOT IN ('ok', 'app_error') THEN CASE WHEN target <> '-' AND kind IN ('closed', 'other') THEN dur ELSE 0 END END AS g_logged_after")
	p("  FROM u")
	p(")")
	p("SELECT grouping(object, s_lb, c_ip, g_status) AS gset,")
	p("  object, s_sec, s_lb, c_ip, c_cell, g_sec, g_status, g_generator, g_kind, g_backend, g_lb, g_detail, g_duration, g_logged_after,")
	p("  CAST(count(*) AS bigint) AS n,")
	p("  CAST(count_if(NOT parsed AND NOT blank) AS bigint) AS skipped,")
	p("  CAST(count_if(parsed AND NOT keep) AS bigint) AS filtered,")
	p("  CAST(count_if(keep) AS bigint) AS records,")
	p("  CAST(count_if(keep AND kind = 'ok') AS bigint) AS ok,")
	for _, kind := range []string{"no_backend", "refused", "unreachable", "closed", "timeout", "other"} {
		p("  CAST(count_if(keep AND kind = '%s') AS bigint) AS %s,", kind, kind)
	}
	p("  CAST(count_if(keep AND generator = 'backend') AS bigint) AS served,")
	p("  min(CASE WHEN keep THEN ns END) AS first_ns,")
	p("  max(CASE WHEN keep THEN ns END) AS last_ns,")
	p("  min_by(object, ord) AS e_object, min_by(trace, ord) AS e_trace, min_by(method, ord) AS e_method, min_by(path, ord) AS e_path,")
	p("  max_by(object, ord) AS l_object, max_by(trace, ord) AS l_trace, max_by(method, ord) AS l_method, max_by(path, ord) AS l_path")
	p("FROM r")
	p("GROUP BY GROUPING SETS ((object), (s_sec, s_lb), (c_ip, c_cell), (g_sec, g_status, g_generator, g_kind, g_backend, g_lb, g_detail, g_duration, g_logged_after))")
	return b.String()
}

// rawFields writes the query's first steps over readygap's table of raw
// lines: each line split into the fields the rest of the query reads, as
// the Go adapter splits it.
func rawFields(p func(string, ...any), table string, where []string) {
	p("WITH lines AS (")
	p(`  SELECT "$path" AS object, regexp_replace(line, '[ \t\r]+$', '') AS l`)
	p("  FROM %s", table)
	p("  WHERE %s", strings.Join(where, "\n    AND "))
	p("),")
	p("f0 AS (")
	p("  SELECT object, l, regexp_like(l, %s) AS split,", sqlString(albLineRE))
	head := []string{"typ", "tm", "elb", "target", "rpt", "tpt", "rspt", "elb_status"}
	for i, name := range head {
		p("    regexp_extract(l, %s, %d) AS %s_q,", sqlString(albHeadRE), i+1, name)
	}
	p("    regexp_extract(l, %s, %d) AS tail", sqlString(albHeadRE), len(head)+1)
	p("  FROM lines")
	p("),")
	p("f AS (")
	// Lines ALB writes that are no request: blank ones, the test object's.
	p("  SELECT object, l, split, l = '' OR starts_with(l, 'Enable AccessLog for ELB: ') AS blank,")
	for _, name := range head {
		p("    %s AS %s,", unquote(name+"_q"), name)
	}
	tail := []string{"target_status", "request", "trace", "created", "error_reason"}
	for i, name := range tail {
		sep := ","
		if i == len(tail)-1 {
			sep = ""
		}
		x := fmt.Sprintf("regexp_extract(tail, %s, %d)", sqlString(albTailRE), i+1)
		p("    %s AS %s%s", unquote(x), name, sep)
	}
	p("  FROM f0")
	p("),")
}

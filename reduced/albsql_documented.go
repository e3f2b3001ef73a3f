package reduced

import (
	"fmt"
	"slices"
	"strings"
)

// ALBTable says how the table an ALBQuery reads holds the access-log
// lines: readygap's table of raw lines (ALBTableDDL, the zero value), or
// the table AWS documents in the Athena User Guide ("Create the table for
// ALB access logs"), which splits each line into columns with a
// RegexSerDe. Users who already query their logs have the latter.
type ALBTable struct {
	// Documented is true for AWS's documented table: one column per field
	// (ALBDocumentedColumns), a row of NULLs for a line its regex does not
	// match.
	Documented bool
	// Columns are the documented table's columns as its metadata lists
	// them, lower case. The query reads error_reason from
	// lambda_error_reason only when the table has it: the guide's older
	// DDL ends at redirect_url.
	Columns []string
	// NoDays is true when the table has no "day" partition key (the
	// guide's table without partition projection): the query then
	// restricts the objects by "$path" alone.
	NoDays bool
}

// ALBDocumentedColumns are the columns of AWS's documented ALB table the
// query reads, each with the type the guide's DDL gives it. A table
// missing one of them (but lambda_error_reason) is not that table.
var ALBDocumentedColumns = []string{
	"type", "time", "elb", "target_ip", "target_port",
	"request_processing_time", "target_processing_time", "response_processing_time",
	"elb_status_code", "target_status_code", "request_verb", "request_url", "request_proto",
	"trace_id", "request_creation_time",
}

// albDocumentedErrorReason is the documented table's name of the
// error_reason field (the 25th), from the days it carried Lambda's errors
// only.
const albDocumentedErrorReason = "lambda_error_reason"

// ALBTableOf tells the layout of a table from its columns and partition
// keys as the catalog lists them: readygap's table of raw lines has the
// one column "line"; AWS's documented one every column of
// ALBDocumentedColumns. Any other table is refused, naming what it lacks.
func ALBTableOf(columns, partitions []string) (ALBTable, error) {
	lower := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = strings.ToLower(s)
		}
		return out
	}
	cols, parts := lower(columns), lower(partitions)
	noDays := !slices.Contains(parts, "day")
	if slices.Contains(cols, "line") {
		if noDays {
			return ALBTable{}, fmt.Errorf("the table of raw lines has no day partition: create it with the DDL --athena-ddl prints")
		}
		return ALBTable{}, nil
	}
	var missing []string
	for _, c := range ALBDocumentedColumns {
		if !slices.Contains(cols, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return ALBTable{}, fmt.Errorf("the table is neither readygap's table of raw lines (a column \"line\") nor AWS's documented ALB table (it lacks %s)", strings.Join(missing, ", "))
	}
	return ALBTable{Documented: true, Columns: cols, NoDays: noDays}, nil
}

// albDocumentedTime turns a processing time of the documented table (a
// double) into what the outcome reads of the raw field: "-1" for ALB's -1
// (it could not dispatch, or the target closed the connection), "-" for
// a value that did not read as a number, else "0" (any time taken).
func albDocumentedTime(col string) string {
	return fmt.Sprintf("CASE WHEN %[1]s IS NULL THEN '-' WHEN %[1]s = -1 THEN '-1' WHEN %[1]s < 0 THEN '-' ELSE '0' END", col)
}

// documentedFields writes the query's first step over AWS's documented
// table: the fields the rest of the query reads of a raw line, rebuilt
// from the columns. A line the table's regex did not match is a row of
// NULLs, counted as skipped (so is a blank line, which the raw table
// tells apart). The target's regex, ([^ ]*)[:-]([0-9]*), reads "-" as an
// empty address and no port.
func documentedFields(p func(string, ...any), table string, where []string, t ALBTable) {
	errorReason := "'-'"
	if slices.Contains(t.Columns, albDocumentedErrorReason) {
		errorReason = albDocumentedErrorReason
	}
	p("WITH f AS (")
	p(`  SELECT "$path" AS object, "type" IS NOT NULL AS split, false AS blank,`)
	p(`    "type" AS typ, "time" AS tm, elb,`)
	p("    CASE WHEN target_ip = '' AND target_port IS NULL THEN '-' ELSE target_ip || ':' || CAST(target_port AS varchar) END AS target,")
	p("    %s AS rpt,", albDocumentedTime("request_processing_time"))
	p("    %s AS tpt,", albDocumentedTime("target_processing_time"))
	p("    %s AS rspt,", albDocumentedTime("response_processing_time"))
	p("    CAST(elb_status_code AS varchar) AS elb_status, target_status_code AS target_status,")
	p("    request_verb || ' ' || request_url || ' ' || request_proto AS request,")
	p("    trace_id AS trace, request_creation_time AS created, %s AS error_reason", errorReason)
	p("  FROM %s", table)
	p("  WHERE %s", strings.Join(where, "\n    AND "))
	p("),")
}

package reduced

import (
	"strings"
	"testing"
	"time"
)

// TestSplitTable requires project.dataset.table, a domain-scoped project,
// and a trailing * only, and nothing that could leave the quotes.
func TestSplitTable(t *testing.T) {
	for _, tc := range []struct{ in, p, d, tb string }{
		{"shop-prod.lb_logs._AllLogs", "shop-prod", "lb_logs", "_AllLogs"},
		{"example.com:shop.export.requests_*", "example.com:shop", "export", "requests_*"},
	} {
		p, d, tb, err := SplitTable(tc.in)
		if err != nil || p != tc.p || d != tc.d || tb != tc.tb {
			t.Errorf("%s: %q %q %q %v", tc.in, p, d, tb, err)
		}
	}
	for _, bad := range []string{"d.t", "p..t", "p.d.", "p.d.t`x", "p.d.t'", "p.d.re*q", ".d.t", "p.d.t; drop"} {
		if _, _, _, err := SplitTable(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestGCPQueryWindow requires the window as TIMESTAMP literals rounded up
// to BigQuery's microsecond (an entry at or after since in nanoseconds is
// at or after the literal), and the shards of the days the window covers.
func TestGCPQueryWindow(t *testing.T) {
	since := time.Date(2026, 3, 24, 23, 59, 59, 1500, time.UTC)
	until := time.Date(2026, 3, 26, 0, 0, 0, 0, time.UTC)
	cols, err := SinkColumns([]Field{{Name: "timestamp"}, {Name: "logName"}, {Name: "resource", Fields: []Field{{Name: "type"}}},
		{Name: "httpRequest", Fields: []Field{{Name: "status"}}}})
	if err != nil {
		t.Fatal(err)
	}
	sql := GCPQuery{Tables: []GCPTable{{Name: "p.d.requests_*", Columns: cols}}, Since: since, Until: until}.SQL()
	for _, want := range []string{
		"`timestamp` >= TIMESTAMP '2026-03-24 23:59:59.000002+00'",
		"`timestamp` < TIMESTAMP '2026-03-26 00:00:00.000000+00'",
		"_TABLE_SUFFIX BETWEEN '20260324' AND '20260325'",
		"FROM `p`.`d`.`requests_*`",
		// A column the sink never made reads as NULL.
		"COALESCE(CAST(NULL AS STRING), '') AS sip",
	} {
		if !strings.Contains(sql, want) {
			t.Errorf("the query lacks %s", want)
		}
	}
}

// TestSinkColumnsNeedsARequestTable requires the columns every request
// entry has.
func TestSinkColumnsNeedsARequestTable(t *testing.T) {
	_, err := SinkColumns([]Field{{Name: "timestamp"}, {Name: "logName"}, {Name: "textPayload"}})
	if err == nil || !strings.Contains(err.Error(), "no column") {
		t.Errorf("error %v", err)
	}
	c, err := SinkColumns([]Field{{Name: "timestamp"}, {Name: "logName"}, {Name: "resource", Fields: []Field{{Name: "type"}}},
		{Name: "httpRequest", Fields: []Field{{Name: "status"}}},
		{Name: "jsonPayload", Fields: []Field{{Name: "statusdetails"}}},
		{Name: "jsonpayload_type_loadbalancerlogentry", Fields: []Field{{Name: "statusdetails"}, {Name: "proxystatus"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if c.StatusDetails != "COALESCE(`jsonPayload`.`statusdetails`, `jsonpayload_type_loadbalancerlogentry`.`statusdetails`)" ||
		c.ProxyStatus != "`jsonpayload_type_loadbalancerlogentry`.`proxystatus`" {
		t.Errorf("payload columns %q, %q", c.StatusDetails, c.ProxyStatus)
	}
}

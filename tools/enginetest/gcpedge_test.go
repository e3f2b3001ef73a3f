package enginetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
)

// gcpEdgeEntry is one request entry made for TestGCPQueryEdgeCases.
type gcpEdgeEntry struct {
	insertID, serverIP, url, details, proxyStatus, resourceType, logName string
	status                                                               any
}

// TestGCPQueryEdgeCases runs the BigQuery query over entries made to take
// each branch of the Go adapter — every proxyStatus form gcpProxyStatusParam
// walks, every serverIp form lex.ParseAddrOptPort takes or refuses, URLs
// without a path or with a fragment, statuses out of range, every outcome
// of gcpOutcome, duplicates valid and not — and requires readygap's own
// reduction of the same entries, in both table layouts.
func TestGCPQueryEdgeCases(t *testing.T) {
	const lb = "http_load_balancer"
	entries := []gcpEdgeEntry{
		{serverIP: "10.0.0.1:8080", details: "response_sent_by_backend", status: 200},
		{serverIP: "10.0.0.1", details: "response_sent_by_backend", status: 503},
		{serverIP: "10.0.0.2:80", proxyStatus: `error="destination_unavailable"; details="failed_to_pick_backend"`, status: 503},
		{serverIP: "10.0.0.2:80", proxyStatus: `error=connection_refused`, status: 502},
		{serverIP: "10.0.0.2:80", proxyStatus: ` details = "backend_timeout" ; error=x`, status: 504},
		{serverIP: "10.0.0.2:80", proxyStatus: `error="a; details=x"; details=connection_terminated`, status: 502},
		{serverIP: "10.0.0.2:80", proxyStatus: `flag; details="unterminated; error=y`, status: 502},
		{serverIP: "10.0.0.2:80", proxyStatus: "details=\t\"\"; error=connection_timeout \t", status: 502},
		{serverIP: "10.0.0.2:80", proxyStatus: `details=; error=`, status: 502},
		{serverIP: "10.0.0.2:80", proxyStatus: `xdetails=backend_timeout; details==odd`, status: 502},
		{serverIP: "10.0.0.2:80", proxyStatus: `details`, status: 503},
		{serverIP: "", details: "failed_to_pick_backend", status: 502},
		{serverIP: "", status: 500},
		{serverIP: "", status: 404},
		{serverIP: "10.0.0.3:8080", status: 502},
		{serverIP: "10.0.0.3:8080", details: "client_disconnected_before_any_response", status: 0},
		{serverIP: "10.0.0.3:8080", details: "something_new", status: 502},
		{serverIP: "10.0.0.3:8080", details: "something_new", status: 302},
		{serverIP: "10.0.0.3:8080", details: "response_from_cache", status: 200},
		{serverIP: "10.0.0.3:8080", details: "backend_connection_closed_before_data_sent_to_client", status: 502},
		{serverIP: "[2001:DB8:0:0::1]:8080", details: "failed_to_connect_to_backend", status: 502},
		{serverIP: "2001:db8::1", details: "response_sent_by_backend", status: 200},
		{serverIP: "2001:0db8::1", details: "response_sent_by_backend", status: 200},
		{serverIP: "010.0.0.1", details: "failed_to_pick_backend", status: 502},
		{serverIP: "10.0.0.1:65536", status: 200},
		{serverIP: "10.0.0.1:080", status: 200},
		{serverIP: "256.0.0.1", status: 200},
		{serverIP: "fe80::1%eth0", status: 200},
		{serverIP: "10.0.0.4:8080", status: 1000},
		{serverIP: "10.0.0.4:8080", status: -1},
		{serverIP: "10.0.0.4:8080", status: 200, url: "https://example.com"},
		{serverIP: "10.0.0.4:8080", status: 502, details: "backend_timeout", url: "https://example.com?q=1#frag"},
		{serverIP: "10.0.0.4:8080", status: 502, details: "backend_timeout", url: "/p/a?b#c"},
		{serverIP: "10.0.0.4:8080", status: 502, details: "backend_timeout", url: "https://example.com#only"},
		{serverIP: "10.0.0.4:8080", status: 502, details: "backend_timeout", url: "ftp://h/x://y"},
		// Duplicates: kept once; an invalid one counts as skipped each time,
		// an entry without insertId is never a duplicate.
		{insertID: "dup1", serverIP: "10.0.0.5:8080", details: "failed_to_pick_backend", status: 502},
		{insertID: "dup1", serverIP: "10.0.0.5:8080", details: "failed_to_pick_backend", status: 502},
		{insertID: "dup2", serverIP: "bad", status: 200},
		{insertID: "dup2", serverIP: "bad", status: 200},
		{insertID: "-", serverIP: "10.0.0.5:8080", status: 200},
		{insertID: "-", serverIP: "10.0.0.5:8080", status: 200},
		// Another log of the same resource types, and the logs the adapter
		// reads as something else.
		{serverIP: "10.0.0.6:8080", status: 503, details: "failed_to_pick_backend", resourceType: "internal_http_lb_rule",
			logName: "projects/p/logs/loadbalancing.googleapis.com%2Frequests"},
		{serverIP: "10.0.0.6:8080", status: 503, details: "failed_to_pick_backend", logName: "projects/p/logs/compute.googleapis.com%2Fhealthchecks"},
		{serverIP: "10.0.0.6:8080", status: 200, resourceType: "k8s_container"},
	}
	base := time.Date(2026, 3, 25, 1, 0, 0, 0, time.UTC)
	var arr []map[string]any
	for i, e := range entries {
		id := e.insertID
		switch id {
		case "":
			id = fmt.Sprintf("edge%02d", i)
		case "-":
			id = ""
		}
		hr := map[string]any{"requestMethod": "GET", "requestUrl": cmpOr(e.url, fmt.Sprintf("https://shop.example/p%d?x=1", i)), "status": e.status}
		if e.serverIP != "" {
			hr["serverIp"] = e.serverIP
		}
		payload := map[string]any{"@type": "type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry"}
		if e.details != "" {
			payload["statusDetails"] = e.details
		}
		if e.proxyStatus != "" {
			payload["proxyStatus"] = e.proxyStatus
		}
		m := map[string]any{"httpRequest": hr, "jsonPayload": payload,
			"logName":   cmpOr(e.logName, "projects/p/logs/requests"),
			"resource":  map[string]any{"type": cmpOr(e.resourceType, lb), "labels": map[string]any{"backend_service_name": "bs", "url_map_name": "um"}},
			"timestamp": base.Add(time.Duration(i) * 1500 * time.Millisecond).Add(time.Duration(i) * time.Microsecond).Format(time.RFC3339Nano)}
		if id != "" {
			m["insertId"] = id
		}
		if strings.HasPrefix(id, "dup") {
			m["timestamp"] = base.Add(time.Minute).Format(time.RFC3339Nano)
		}
		arr = append(arr, m)
	}
	name := filepath.Join(t.TempDir(), "edge.json")
	b, err := json.Marshal(arr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := gcpLocal(t, []string{name}, sources.Options{})
	// The local reduction is the reference; check that it reads what the
	// test is about, so that agreeing on something else proves nothing.
	in := want.Inputs[0]
	if in.Duplicates != 1 || in.Skipped != 9 || len(want.Groups) < 15 {
		t.Fatalf("the local reduction read %+v with %d groups; want 1 duplicate, 9 skips, the failures", in, len(want.Groups))
	}
	db, sinkTables, unstorable := gcpDuck(t, []string{name})
	want.Inputs[0].Skipped -= unstorable
	w := gcpBundleText(t, want)
	var sink []reduced.GCPTable
	for _, tb := range sinkTables {
		cols, err := reduced.SinkColumns(gcpSinkSchema)
		if err != nil {
			t.Fatal(err)
		}
		sink = append(sink, reduced.GCPTable{Name: tb, Columns: cols})
	}
	for _, q := range []reduced.GCPQuery{
		{Tables: []reduced.GCPTable{{Name: gcpProject + "." + gcpLADataset + "._AllLogs", Columns: reduced.LogAnalyticsColumns()}}},
		{Tables: sink},
	} {
		got, err := reduced.GCPRowsBundle(runQuery(t, db, q.SQL()))
		if err != nil {
			t.Fatal(err)
		}
		if g := gcpBundleText(t, got); w != g {
			t.Errorf("%s: the query's reduction differs from readygap's:\n%s", q.Tables[0].Name, diff(w, g))
		}
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestGCPQueryWindow requires the query's window to keep what a local
// reading with the same window keeps, its bounds to the microsecond.
func TestGCPQueryWindow(t *testing.T) {
	files := []string{filepath.Join(root, "fixtures", "gke-neg-zone-move", "lb-requests.json")}
	all := gcpLocal(t, files, sources.Options{})
	if len(all.Groups) < 2 {
		t.Fatal("no failures: the test proves nothing")
	}
	// From a failure's own microsecond (kept) to another's (left out).
	since, until := time.Unix(0, all.Groups[0].Earliest.Time).UTC(), time.Unix(0, all.Groups[len(all.Groups)-1].Latest.Time).UTC()
	want := gcpLocal(t, files, sources.Options{Since: since, Until: until})
	db, _, _ := gcpDuck(t, files)
	q := reduced.GCPQuery{Tables: []reduced.GCPTable{{Name: gcpProject + "." + gcpLADataset + "._AllLogs", Columns: reduced.LogAnalyticsColumns()}},
		Since: since, Until: until}
	got, err := reduced.GCPRowsBundle(runQuery(t, db, q.SQL()))
	if err != nil {
		t.Fatal(err)
	}
	if n := want.Inputs[0].Records; n == all.Inputs[0].Records || len(want.Groups) == 0 {
		t.Fatalf("the window keeps %d of %d requests and %d groups: the test proves nothing", n, all.Inputs[0].Records, len(want.Groups))
	}
	if w, g := gcpBundleText(t, want), gcpBundleText(t, got); w != g {
		t.Errorf("the query's reduction differs from readygap's:\n%s", diff(w, g))
	}
}

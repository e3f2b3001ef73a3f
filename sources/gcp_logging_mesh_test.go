package sources

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Cloud Service Mesh access-log entries, constructed from the fields
// istio/proxy extensions/stackdriver/log/logger.cc writes (the log names
// and labels GoogleCloudPlatform/khi queries): no public sample of a whole
// entry was found.

// gcpMeshClientUH is a gateway's (client side) entry: no healthy upstream.
const gcpMeshClientUH = `{
  "httpRequest": {
    "latency": "0.000412s",
    "protocol": "http",
    "remoteIp": "10.4.1.8",
    "requestMethod": "GET",
    "requestSize": "0",
    "requestUrl": "http://productpage.default.svc.cluster.local:9080/productpage?u=1",
    "responseSize": "19",
    "serverIp": "",
    "status": 503,
    "userAgent": "curl/8.5.0"
  },
  "insertId": "1x2y3z",
  "labels": {
    "destination_service_host": "productpage.default.svc.cluster.local",
    "destination_service_name": "productpage",
    "log_sampled": "false",
    "mesh_uid": "proj-123",
    "protocol": "http",
    "request_id": "55667739-e394-4814-91b2-2cdd90744892",
    "response_details": "no_healthy_upstream",
    "response_flag": "UH",
    "route_name": "default",
    "source_name": "istio-ingressgateway-5d8f7c9b6-abcde",
    "source_namespace": "istio-system",
    "upstream_cluster": "outbound|9080||productpage.default.svc.cluster.local"
  },
  "logName": "projects/my-project/logs/client-accesslog-stackdriver",
  "receiveTimestamp": "2024-05-01T12:00:02.345678901Z",
  "resource": {
    "labels": {"cluster_name": "c1", "location": "us-central1", "namespace_name": "istio-system", "pod_name": "istio-ingressgateway-5d8f7c9b6-abcde", "project_id": "my-project"},
    "type": "k8s_pod"
  },
  "severity": "ERROR",
  "timestamp": "2024-05-01T12:00:01.123456789Z"
}`

// gcpMeshServerUF is the destination's sidecar (server side) failing to
// reach its own application: the port is not listening yet.
const gcpMeshServerUF = `{
  "httpRequest": {
    "latency": "0.000211s",
    "requestMethod": "POST",
    "requestUrl": "http://productpage.default.svc.cluster.local:9080/api/orders",
    "serverIp": "10.4.0.5:9080",
    "status": 503
  },
  "insertId": "4a5b6c",
  "labels": {
    "response_details": "upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}",
    "response_flag": "UF",
    "upstream_cluster": "inbound|9080||",
    "upstream_host": "127.0.0.1:9080",
    "upstream_transport_failure_reason": "delayed_connect_error:_Connection_refused"
  },
  "logName": "projects/my-project/logs/server-accesslog-stackdriver",
  "resource": {"labels": {"container_name": "istio-proxy", "pod_name": "productpage-v1-6b746f74dc-9stvs"}, "type": "k8s_container"},
  "timestamp": "2024-05-01T12:00:03.000001Z"
}`

// gcpMeshClientOK is a request the backend answered after a retry (the
// labels do not say; Cloud Logging has no attempt count).
const gcpMeshClientOK = `{
  "httpRequest": {"requestMethod": "GET", "requestUrl": "http://reviews:9080/reviews/0", "serverIp": "10.4.2.7:9080", "status": 200},
  "insertId": "7d8e9f",
  "labels": {"response_details": "via_upstream", "response_flag": "-", "upstream_cluster": "outbound|9080||reviews.default.svc.cluster.local", "upstream_host": "10.4.2.7:9080"},
  "logName": "projects/my-project/logs/client-accesslog-stackdriver",
  "resource": {"type": "k8s_pod"},
  "timestamp": "2024-05-01T12:00:04.5Z"
}`

// gcpMeshTCP is a TCP connection log: no httpRequest, no request record.
const gcpMeshTCP = `{
  "insertId": "tcp1",
  "labels": {"connection_state": "CLOSE", "response_flag": "-", "total_sent_bytes": "100"},
  "logName": "projects/my-project/logs/server-accesslog-stackdriver",
  "resource": {"type": "k8s_container"},
  "textPayload": "productpage --> reviews",
  "timestamp": "2024-05-01T12:00:05Z"
}`

func TestGCPLoggingMeshEntries(t *testing.T) {
	for _, tc := range []struct {
		name, entry string
		want        envoyWant
	}{
		{"client UH", gcpMeshClientUH, envoyWant{time: time.Date(2024, 5, 1, 12, 0, 1, 123456789, time.UTC), status: 503,
			gen: GeneratedByLB, failure: FailureNoBackend, lb: "outbound|9080||productpage.default.svc.cluster.local",
			method: "GET", path: "/productpage?u=1", detail: "UH no_healthy_upstream", platform: PlatformIstio}},
		{"server UF to its own application", gcpMeshServerUF, envoyWant{time: envoyUs(2024, 5, 1, 12, 0, 3, 1), status: 503,
			gen: GeneratedByLB, failure: FailureRefused, backend: "10.4.0.5:9080", lb: "inbound|9080||", method: "POST", path: "/api/orders",
			platform: PlatformIstio, detail: "UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"}},
		{"client 200 via_upstream", gcpMeshClientOK, envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 500), status: 200,
			gen: GeneratedByBackend, failure: FailureNone, backend: "10.4.2.7:9080", lb: "outbound|9080||reviews.default.svc.cluster.local",
			method: "GET", path: "/reviews/0", detail: "via_upstream", platform: PlatformIstio}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !(gcpLogging{}).MatchJSON([]byte(tc.entry)) {
				t.Fatal("MatchJSON = false")
			}
			c, rep := runJSON(t, gcpLogging{}, "csm.json", tc.entry)
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("skipped=%d %v requests=%d", rep.Skipped, rep.SkipSamples(), len(c.requests))
			}
			r := c.requests[0]
			checkEnvoyRequest(t, r, FormatGCPLogging, tc.want)
			if r.Family != FamilyEnvoy || r.ProxyFamily() != FamilyEnvoy || FamilyOf(r.Format) != FamilyGCP {
				t.Errorf("family = %q, proxy family %q", r.Family, r.ProxyFamily())
			}
		})
	}
}

func TestGCPLoggingMeshNoRecord(t *testing.T) {
	c, rep := runJSON(t, gcpLogging{}, "csm.json", gcpMeshTCP)
	if rep.Skipped != 0 || len(c.requests)+len(c.lifecycle) != 0 {
		t.Fatalf("skipped=%d records=%d", rep.Skipped, len(c.requests)+len(c.lifecycle))
	}
	bad := strings.Replace(gcpMeshClientUH, `"response_flag": "UH"`, `"response_flag": "U H"`, 1)
	if _, rep := runJSON(t, gcpLogging{}, "csm.json", bad); rep.Skipped != 1 || !strings.Contains(rep.SkipSamples()[0], "response_flag") {
		t.Errorf("skips = %v", rep.SkipSamples())
	}
	// The same log ID under another resource is still a mesh log; other log
	// IDs under a container resource are not requests.
	other := strings.Replace(gcpMeshClientUH, "client-accesslog-stackdriver", "stdout", 1)
	if c, rep := runJSON(t, gcpLogging{}, "csm.json", other); rep.Skipped != 0 || len(c.requests) != 0 {
		t.Errorf("stdout entry: skipped=%d requests=%d", rep.Skipped, len(c.requests))
	}
}

func TestGCPLoggingMeshDeduplicates(t *testing.T) {
	c := &collector{}
	rep := &InputReport{Name: "csm.json"}
	em := newEmitter(c, &Options{}, rep, newDedupSet())
	for i := 0; i < 2; i++ {
		if err := (gcpLogging{}).ParseJSON([]byte(gcpMeshClientUH), Origin{File: "csm.json", Line: i + 1}, em); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.requests) != 1 || rep.Duplicates != 1 {
		t.Fatalf("requests=%d duplicates=%d", len(c.requests), rep.Duplicates)
	}
}

func FuzzGCPLoggingMesh(f *testing.F) {
	for _, e := range []string{gcpMeshClientUH, gcpMeshServerUF, gcpMeshClientOK, gcpMeshTCP} {
		f.Add([]byte(e))
	}
	f.Fuzz(func(t *testing.T, elem []byte) {
		c := &collector{}
		rep := &InputReport{}
		em := newEmitter(c, &Options{}, rep, newDedupSet())
		err := (gcpLogging{}).ParseJSON(elem, Origin{File: "f", Line: 1}, em)
		if err != nil && len(c.requests)+len(c.lifecycle) != 0 {
			t.Fatalf("error %v with records", err)
		}
		for _, r := range c.requests {
			if r.Time.IsZero() || r.Status < 0 || r.Status > 999 {
				t.Fatalf("bad request %+v", r)
			}
			if r.Family == FamilyEnvoy && r.Failure == FailureAppError && (r.Generator != GeneratedByBackend || r.Status < 500) {
				t.Fatalf("application error without a backend 5xx: %+v", r)
			}
		}
	})
}

// gcpMeshBenchEntries builds n compact Cloud Service Mesh entries, as a
// sink's NDJSON holds them: mostly 200s, some no-healthy-upstream 503s.
func gcpMeshBenchEntries(n int) [][]byte {
	entries := make([][]byte, n)
	for i := range entries {
		status, flag, details, host := 200, "-", "via_upstream", fmt.Sprintf("10.4.%d.%d:9080", i%7, 10+i%200)
		if i%101 == 0 {
			status, flag, details, host = 503, "UH", "no_healthy_upstream", ""
		}
		entries[i] = []byte(fmt.Sprintf(`{"httpRequest":{"latency":"0.00%ds","protocol":"http","remoteIp":"10.4.1.8","requestMethod":"GET",`+
			`"requestSize":"0","requestUrl":"http://productpage.default.svc.cluster.local:9080/productpage?i=%d","responseSize":"1683",`+
			`"serverIp":"%s","status":%d,"userAgent":"curl/8.5.0"},"insertId":"%016x","labels":{"destination_canonical_revision":"v1",`+
			`"destination_canonical_service":"productpage","destination_service_host":"productpage.default.svc.cluster.local",`+
			`"destination_service_name":"productpage","log_sampled":"false","mesh_uid":"proj-123","protocol":"http",`+
			`"request_id":"%08x-e394-4814-91b2-2cdd90744892","response_details":"%s","response_flag":"%s","route_name":"default",`+
			`"source_canonical_service":"istio-ingressgateway","source_name":"istio-ingressgateway-5d8f7c9b6-abcde",`+
			`"source_namespace":"istio-system","upstream_cluster":"outbound|9080||productpage.default.svc.cluster.local","upstream_host":"%s"},`+
			`"logName":"projects/my-project/logs/client-accesslog-stackdriver","receiveTimestamp":"2024-05-01T12:00:02.345678901Z",`+
			`"resource":{"labels":{"cluster_name":"c1","location":"us-central1","namespace_name":"istio-system",`+
			`"pod_name":"istio-ingressgateway-5d8f7c9b6-abcde","project_id":"my-project"},"type":"k8s_pod"},"severity":"INFO",`+
			`"timestamp":"2024-05-01T12:%02d:%02d.%06dZ"}`,
			i%10, i, host, status, i, i, details, flag, host, (i/60)%60, i%60, i%1000000))
	}
	return entries
}

func BenchmarkEnvoyGCPMeshParse(b *testing.B) {
	entries := gcpMeshBenchEntries(10000)
	total := 0
	for _, e := range entries {
		total += len(e) + 1
	}
	em := newEmitter(nginxDiscard{}, &Options{}, &InputReport{}, nil)
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for i, e := range entries {
			if err := (gcpLogging{}).ParseJSON(e, Origin{File: "bench", Line: i + 1}, em); err != nil {
				b.Fatal(err)
			}
		}
	}
}

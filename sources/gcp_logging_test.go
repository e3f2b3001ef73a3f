package sources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Entries quoted in the project reference notes on GCP logs (gcp.md), verbatim unless noted.

// gcpRef14 is §1.4: global ALB 502 failed_to_pick_backend (constructed).
var gcpRef14 = referenceDoc("gcp/ref14-502-failed-to-pick-backend.json")

// gcpRef15 is §1.5: global ALB 200 response_sent_by_backend (constructed).
var gcpRef15 = referenceDoc("gcp/ref15-200-by-backend.json")

// gcpRef16 is §1.6: the real regional 503 with failed_to_pick_backend in
// proxyStatus (the reference abbreviates the attack URL with "…", which is
// still valid JSON inside the string).
var gcpRef16 = referenceDoc("gcp/ref16-regional-503.json")

// gcpRef78 is §7.8: the real 2026 gcloud transcript, a JSON array of one entry
// without statusDetails.
const gcpRef78 = `[
  {
    "httpRequest": {
      "latency": "0.001566s",
      "protocol": "HTTP/1.1",
      "remoteIp": "185.177.72.30",
      "requestMethod": "GET",
      "requestSize": "372",
      "requestUrl": "http://34.49.183.243/api/upload",
      "responseSize": "144",
      "status": 404,
      "userAgent": "curl/8.7.1"
    },
    "insertId": "65iqthfbg1sec",
    "jsonPayload": {
      "@type": "type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry",
      "backendTargetProjectNumber": "projects/88462385724",
      "cacheDecision": [
        "RESPONSE_HAS_CONTENT_TYPE",
        "CACHE_MODE_USE_ORIGIN_HEADERS"
      ],
      "remoteIp": "185.177.72.30"
    },
    "logName": "projects/kd-ix-eur-dev-gke/logs/requests",
    "receiveTimestamp": "2026-02-20T05:48:22.006875971Z",
    "resource": {
      "labels": {
        "backend_service_name": "gkegw1-ta92-litellm-gw-serve404-80-j5wgjbklo38j",
        "forwarding_rule_name": "gkegw1-ta92-litellm-litellm-dev-gateway-0o2k11ifbdvb",
        "project_id": "kd-ix-eur-dev-gke",
        "target_proxy_name": "gkegw1-ta92-litellm-litellm-dev-gateway-emntgwn5vhqm",
        "url_map_name": "gkegw1-ta92-litellm-litellm-dev-gateway-emntgwn5vhqm",
        "zone": "global"
      },
      "type": "http_load_balancer"
    },
    "severity": "WARNING",
    "spanId": "35866a92d08a8c06",
    "timestamp": "2026-02-20T05:48:21.476986Z",
    "trace": "projects/kd-ix-eur-dev-gke/traces/a34d298903a1ac73cd69ae7aada97a92"
  }
]`

// gcpRef52 is §5.2: a NEG Attach event entry (constructed).
const gcpRef52 = `{
  "insertId": "1abcdefg2hijk3",
  "jsonPayload": {
    "apiVersion": "v1",
    "eventTime": null,
    "involvedObject": {
      "apiVersion": "v1",
      "kind": "Service",
      "name": "web",
      "namespace": "default",
      "resourceVersion": "123456",
      "uid": "6f1c2d3e-4a5b-4c6d-8e7f-901234567890"
    },
    "kind": "Event",
    "lastTimestamp": "2024-05-01T12:00:03Z",
    "message": "Attach 1 network endpoint(s) (NEG \"k8s1-1a2b3c4d-default-web-80-5e6f7a8b\" in zone \"us-central1-a\")",
    "metadata": {
      "creationTimestamp": "2024-05-01T12:00:03Z",
      "name": "web.17cb4a2f9d3e5a10",
      "namespace": "default",
      "resourceVersion": "123999",
      "uid": "0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a"
    },
    "reason": "Attach",
    "reportingComponent": "neg-controller",
    "reportingInstance": "",
    "source": {"component": "neg-controller"},
    "type": "Normal"
  },
  "logName": "projects/my-project/logs/events",
  "receiveTimestamp": "2024-05-01T12:00:09.123456789Z",
  "resource": {
    "labels": {"cluster_name": "prod-1", "location": "us-central1", "project_id": "my-project"},
    "type": "k8s_cluster"
  },
  "severity": "INFO",
  "timestamp": "2024-05-01T12:00:03Z"
}`

// gcpRef53Pulling and gcpRef53Endpoints are the two real §5.3 entries. The
// reference elides "managedFields": [ … ]; the elided items are removed here
// ("managedFields": []) so that the entries are valid JSON. Nothing else changed.
var gcpRef53Pulling = referenceDoc("gcp/ref53-event-pulling.json")

var gcpRef53Endpoints = referenceDoc("gcp/ref53-event-endpoints.json")

// gcpRef62Real is the real §6.2 instance-group health-check entry (gcpdiag).
const gcpRef62Real = `{
    "insertId": "13pdgcnc969",
    "jsonPayload": {
      "healthCheckProbeResult": {
        "healthState": "UNHEALTHY",
        "previousHealthState": "HEALTHY",
        "targetIp": "10.142.0.2",
        "ipAddress": "10.142.0.2",
        "probeCompletionTimestamp": "2024-08-13T09:20:21.631554663Z",
        "targetPort": 80,
        "probeRequest": "/",
        "probeSourceIp": "35.191.193.100",
        "probeResultText": "HTTP response: , Error: Timeout waiting for connect",
        "healthCheckProtocol": "HTTP",
        "responseLatency": "5.001402s",
        "detailedHealthState": "TIMEOUT",
        "previousDetailedHealthState": "HEALTHY"
      }
    },
    "resource": {
      "type": "gce_instance_group",
      "labels": {
        "instance_group_id": "3727997629940134718",
        "project_id": "gcpdiag-lb2-aaaa",
        "location": "us-east1-b",
        "instance_group_name": "lb-backend-example"
      }
    },
    "timestamp": "2024-08-13T09:20:22.199333012Z",
    "severity": "INFO",
    "logName": "projects/gcpdiag-lb2-aaaa/logs/compute.googleapis.com%2Fhealthchecks",
    "receiveTimestamp": "2024-08-13T09:20:22.666336211Z"
  }`

// gcpRef62NEG is the constructed §6.2 NEG health-check entry.
const gcpRef62NEG = `{
    "insertId": "1q2w3e4r5t6y",
    "jsonPayload": {
      "healthCheckProbeResult": {
        "detailedHealthState": "HEALTHY",
        "healthCheckProtocol": "HTTP",
        "healthState": "HEALTHY",
        "ipAddress": "10.52.1.23",
        "previousDetailedHealthState": "UNKNOWN",
        "previousHealthState": "UNHEALTHY",
        "probeCompletionTimestamp": "2024-05-01T12:00:18.402113554Z",
        "probeRequest": "/healthz",
        "probeResultText": "HTTP response: OK",
        "probeSourceIp": "35.191.10.12",
        "responseLatency": "0.003177s",
        "targetIp": "10.52.1.23",
        "targetPort": 8080
      }
    },
    "logName": "projects/my-project/logs/compute.googleapis.com%2Fhealthchecks",
    "receiveTimestamp": "2024-05-01T12:00:19.200000000Z",
    "resource": {
      "labels": {"network_endpoint_group_id": "4512345678901234567", "project_id": "my-project", "zone": "us-central1-a"},
      "type": "gce_network_endpoint_group"
    },
    "severity": "INFO",
    "timestamp": "2024-05-01T12:00:18.900000000Z"
  }`

// gcpExporterRestart is the §5 exporter restart marker as an entry. The
// reference quotes only its textPayload and severity; the envelope around
// them is constructed from the §5.2 shape.
var gcpExporterRestart = referenceDoc("gcp/exporter-restart.json")

// gcpElem is one JSON element of a test input and the line it starts on.
type gcpElem struct {
	data []byte
	line int
}

// gcpSplit cuts an input into elements the way the pipeline does: one JSON
// array, an {"entries": [...]} API response or a single object, and failing
// that one value per non-empty line (NDJSON).
func gcpSplit(t testing.TB, data []byte) []gcpElem {
	t.Helper()
	var whole json.RawMessage
	if err := json.Unmarshal(data, &whole); err != nil {
		return gcpSplitLines(data)
	}
	var items []json.RawMessage
	var envelope struct {
		Entries []json.RawMessage `json:"entries"`
	}
	switch {
	case json.Unmarshal(whole, &items) == nil:
	case json.Unmarshal(whole, &envelope) == nil && envelope.Entries != nil:
		items = envelope.Entries
	default:
		items = []json.RawMessage{whole}
	}
	elems := make([]gcpElem, len(items))
	for i, it := range items {
		elems[i] = gcpElem{data: it, line: 1}
	}
	return elems
}

func gcpSplitLines(data []byte) []gcpElem {
	var elems []gcpElem
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 {
			elems = append(elems, gcpElem{data: line, line: i + 1})
		}
	}
	return elems
}

// gcpRun feeds elements to the adapter as one input, with one deduplication
// set, skipping the elements whose ParseJSON fails.
func gcpRun(t testing.TB, name string, elems []gcpElem) (*collector, *InputReport) {
	t.Helper()
	c := &collector{}
	rep := &InputReport{Name: name, Format: FormatGCPLogging}
	em := newEmitter(c, &Options{}, rep, newDedupSet())
	for _, e := range elems {
		o := Origin{File: name, Line: e.line}
		if err := (gcpLogging{}).ParseJSON(e.data, o, em); err != nil {
			em.Skip(o, err.Error())
		}
	}
	return c, rep
}

// gcpWantRequest lists the Request fields a test asserts.
type gcpWantRequest struct {
	time      time.Time
	lb        string
	status    int
	generator Generator
	failure   FailureKind
	backend   netip.AddrPort
	method    string
	path      string
	detail    string
}

func checkGCPRequest(t *testing.T, got *Request, want gcpWantRequest) {
	t.Helper()
	if !got.Time.Equal(want.time) || got.Time.Location() != time.UTC {
		t.Errorf("Time = %v, want %v (UTC)", got.Time, want.time)
	}
	if got.LB != want.lb {
		t.Errorf("LB = %q, want %q", got.LB, want.lb)
	}
	if got.Status != want.status || got.Generator != want.generator || got.Failure != want.failure {
		t.Errorf("status/generator/failure = %d/%v/%v, want %d/%v/%v",
			got.Status, got.Generator, got.Failure, want.status, want.generator, want.failure)
	}
	if got.Backend != want.backend {
		t.Errorf("Backend = %v, want %v", got.Backend, want.backend)
	}
	if got.Method != want.method || got.Path != want.path {
		t.Errorf("request = %s %s, want %s %s", got.Method, got.Path, want.method, want.path)
	}
	if got.Detail != want.detail {
		t.Errorf("Detail = %q, want %q", got.Detail, want.detail)
	}
	if len(got.Attempts) != 0 || got.AttemptOnly {
		t.Errorf("Attempts = %v, AttemptOnly = %v; want none", got.Attempts, got.AttemptOnly)
	}
	if got.Format != FormatGCPLogging {
		t.Errorf("Format = %q", got.Format)
	}
}

func TestGCPLoggingRequestsFromReference(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  gcpWantRequest
	}{
		{"1.4 global 502 failed_to_pick_backend", gcpRef14, gcpWantRequest{
			time: time.Date(2024, 5, 1, 12, 0, 7, 123456000, time.UTC),
			lb:   "k8s1-1a2b3c4d-default-web-80-5e6f7a8b", status: 502,
			generator: GeneratedByLB, failure: FailureNoBackend,
			method: "GET", path: "/api/items?page=2", detail: "failed_to_pick_backend",
		}},
		{"1.5 global 200 response_sent_by_backend", gcpRef15, gcpWantRequest{
			time: time.Date(2024, 5, 1, 12, 0, 6, 401233000, time.UTC),
			lb:   "k8s1-1a2b3c4d-default-web-80-5e6f7a8b", status: 200,
			generator: GeneratedByBackend, failure: FailureNone,
			backend: netip.MustParseAddrPort("10.52.1.23:0"),
			method:  "GET", path: "/api/items?page=2", detail: "response_sent_by_backend",
		}},
		{"1.6 regional 503 proxyStatus", gcpRef16, gcpWantRequest{
			time: time.Date(2024, 8, 26, 15, 30, 27, 625770000, time.UTC),
			lb:   "backend-name", status: 503,
			generator: GeneratedByLB, failure: FailureNoBackend,
			method: "GET", path: "/cgi-bin/luci/;stok=/locale?form=country&…", detail: "failed_to_pick_backend",
		}},
		{"7.8 gcloud transcript 404 without statusDetails", gcpRef78, gcpWantRequest{
			time: time.Date(2026, 2, 20, 5, 48, 21, 476986000, time.UTC),
			lb:   "gkegw1-ta92-litellm-gw-serve404-80-j5wgjbklo38j", status: 404,
			generator: GeneratedUnknown, failure: FailureNone,
			method: "GET", path: "/api/upload",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := gcpRun(t, "lb.json", gcpSplit(t, []byte(tt.input)))
			if rep.Skipped != 0 || len(c.requests) != 1 || len(c.lifecycle) != 0 {
				t.Fatalf("requests=%d lifecycle=%d skipped=%d %v", len(c.requests), len(c.lifecycle), rep.Skipped, rep.SkipSamples())
			}
			checkGCPRequest(t, c.requests[0], tt.want)
			if c.requests[0].Origin != (Origin{File: "lb.json", Line: 1}) {
				t.Errorf("Origin = %v", c.requests[0].Origin)
			}
		})
	}
}

// TestGCPLoggingRequestVariants covers the entry shapes the reference
// describes without quoting an entry: ports and IPv6 in serverIp, an absent
// status, proxyStatus with only an error, the receiveTimestamp fallback, and
// internal ALB entries. Each is derived from a quoted entry by one edit.
func TestGCPLoggingRequestVariants(t *testing.T) {
	tests := []struct {
		name, input, old, new string
		check                 func(t *testing.T, r *Request)
	}{
		{"serverIp with port", gcpRef15, `"serverIp": "10.52.1.23"`, `"serverIp": "10.52.1.23:8080"`, func(t *testing.T, r *Request) {
			if r.Backend != netip.MustParseAddrPort("10.52.1.23:8080") {
				t.Errorf("Backend = %v", r.Backend)
			}
		}},
		{"serverIp IPv6 without port", gcpRef15, `"serverIp": "10.52.1.23"`, `"serverIp": "FE80::0202:B3FF:FE1E:8329"`, func(t *testing.T, r *Request) {
			if r.Backend != netip.MustParseAddrPort("[fe80::202:b3ff:fe1e:8329]:0") {
				t.Errorf("Backend = %v", r.Backend)
			}
		}},
		{"serverIp IPv6 with port", gcpRef15, `"serverIp": "10.52.1.23"`, `"serverIp": "[2001:db8::7]:443"`, func(t *testing.T, r *Request) {
			if r.Backend != netip.MustParseAddrPort("[2001:db8::7]:443") {
				t.Errorf("Backend = %v", r.Backend)
			}
		}},
		{"status absent", gcpRef14, `"status": 502,`, ``, func(t *testing.T, r *Request) {
			if r.Status != 0 || r.Generator != GeneratedByLB || r.Failure != FailureNoBackend {
				t.Errorf("status/generator/failure = %d/%v/%v", r.Status, r.Generator, r.Failure)
			}
		}},
		{"proxyStatus error only", gcpRef16, `; details=\"failed_to_pick_backend\"`, ``, func(t *testing.T, r *Request) {
			if r.Detail != "destination_unavailable" || r.Failure != FailureNoBackend {
				t.Errorf("detail/failure = %q/%v", r.Detail, r.Failure)
			}
		}},
		{"proxyStatus backend_connection_closed", gcpRef16, `error=\"destination_unavailable\"; details=\"failed_to_pick_backend\"`,
			`error=\"connection_terminated\"; details=\"backend_connection_closed\"`, func(t *testing.T, r *Request) {
				if r.Detail != "backend_connection_closed" || r.Generator != GeneratedByLB || r.Failure != FailureClosed {
					t.Errorf("detail/generator/failure = %q/%v/%v", r.Detail, r.Generator, r.Failure)
				}
			}},
		{"app 502", gcpRef15, `"status": 200`, `"status": 502`, func(t *testing.T, r *Request) {
			if r.Generator != GeneratedByBackend || r.Failure != FailureAppError {
				t.Errorf("generator/failure = %v/%v", r.Generator, r.Failure)
			}
		}},
		{"timestamp absent", gcpRef14, `"timestamp": "2024-05-01T12:00:07.123456Z",`, ``, func(t *testing.T, r *Request) {
			if want := time.Date(2024, 5, 1, 12, 0, 7, 812345678, time.UTC); !r.Time.Equal(want) {
				t.Errorf("Time = %v, want receiveTimestamp %v", r.Time, want)
			}
		}},
		{"timestamp with offset", gcpRef14, `"2024-05-01T12:00:07.123456Z"`, `"2024-05-01T14:00:07.123456+02:00"`, func(t *testing.T, r *Request) {
			if want := time.Date(2024, 5, 1, 12, 0, 7, 123456000, time.UTC); !r.Time.Equal(want) || r.Time.Location() != time.UTC {
				t.Errorf("Time = %v, want %v", r.Time, want)
			}
		}},
		{"internal ALB", gcpRef16, `"type": "http_external_regional_lb_rule"`, `"type": "internal_http_lb_rule"`, func(t *testing.T, r *Request) {
			if r.LB != "backend-name" || r.Status != 503 {
				t.Errorf("LB/status = %q/%d", r.LB, r.Status)
			}
		}},
		{"backend service label empty", gcpRef14, `"backend_service_name": "k8s1-1a2b3c4d-default-web-80-5e6f7a8b"`, `"backend_service_name": ""`, func(t *testing.T, r *Request) {
			if r.LB != "k8s2-um-abcd1234-default-web-ingress-wxyz5678" {
				t.Errorf("LB = %q, want the URL map", r.LB)
			}
		}},
		{"URL without path", gcpRef14, `https://shop.example.com/api/items?page=2`, `https://shop.example.com?page=2#top`, func(t *testing.T, r *Request) {
			if r.Path != "/?page=2" {
				t.Errorf("Path = %q", r.Path)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.input, tt.old) {
				t.Fatalf("edit %q not found in the reference entry", tt.old)
			}
			c, rep := runJSON(t, gcpLogging{}, "lb.json", strings.Replace(tt.input, tt.old, tt.new, 1))
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("requests=%d skipped=%d %v", len(c.requests), rep.Skipped, rep.SkipSamples())
			}
			tt.check(t, c.requests[0])
		})
	}
}

func TestGCPLoggingMalformed(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"not JSON", `testraw`, "invalid JSON"},
		{"truncated", gcpRef14[:300], "invalid JSON"},
		{"array", `[1, 2]`, "not a Cloud Logging entry"},
		{"CloudTrail record", `{"eventVersion": "1.02","eventTime": "2019-06-09T19:15:04Z","eventSource": "iam.amazonaws.com"}`, "not a Cloud Logging entry"},
		{"logName not a string", `{"logName": 7, "insertId": "x"}`, "not a Cloud Logging entry"},
		{"status is a string", strings.Replace(gcpRef14, `"status": 502`, `"status": "502"`, 1), "httpRequest.status is not an HTTP status number"},
		{"status out of range", strings.Replace(gcpRef14, `"status": 502`, `"status": 5020`, 1), "httpRequest.status is not an HTTP status number"},
		{"bad serverIp", strings.Replace(gcpRef15, `"10.52.1.23"`, `"10.52.1.256"`, 1), "httpRequest.serverIp is not an IP address"},
		{"bad timestamp", strings.Replace(gcpRef14, `"2024-05-01T12:00:07.123456Z"`, `"2024-05-01 12:00:07"`, 1), "LogEntry without a valid timestamp or receiveTimestamp"},
		{"no time at all", strings.NewReplacer(`"timestamp": "2024-05-01T12:00:07.123456Z",`, ``, `"receiveTimestamp": "2024-05-01T12:00:07.812345678Z",`, ``).Replace(gcpRef14), "LogEntry without a valid timestamp or receiveTimestamp"},
		{"httpRequest not an object", strings.Replace(gcpRef78[4:len(gcpRef78)-2], `"httpRequest": {`, `"httpRequest": 1, "x": {`, 1), "httpRequest is not an object"},
		{"bad targetIp", strings.Replace(gcpRef62NEG, `"targetIp": "10.52.1.23"`, `"targetIp": "pod-a"`, 1), "healthCheckProbeResult.targetIp is not an IP address"},
		{"bad targetPort", strings.Replace(gcpRef62NEG, `"targetPort": 8080`, `"targetPort": 80800`, 1), "healthCheckProbeResult.targetPort is not a port number"},
		{"event payload not an Event", strings.Replace(gcpRef52, `"reason": "Attach"`, `"reason": 5`, 1), "jsonPayload of a logs/events entry is not a Kubernetes Event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runJSON(t, gcpLogging{}, "x.json", tt.input)
			if len(c.requests)+len(c.lifecycle) != 0 {
				t.Errorf("emitted %d requests, %d lifecycle records", len(c.requests), len(c.lifecycle))
			}
			if want := []string{"x.json:1: " + tt.want}; rep.Skipped != 1 || !slices.Equal(rep.SkipSamples(), want) {
				t.Errorf("skipped %d %q, want %q", rep.Skipped, rep.SkipSamples(), want)
			}
		})
	}
}

// TestGCPLoggingOtherEntries checks LogEntries that are valid input without a record.
func TestGCPLoggingOtherEntries(t *testing.T) {
	tests := []struct{ name, input string }{
		{"Cloud Run request log", `{"httpRequest": {"status": 503, "serverIp": "2024:6048:3248:42::42"}, "insertId": "663760330006df7c63521728", "logName": "projects/gcp-project/logs/run.googleapis.com%2Frequests", "resource": {"type": "cloud_run_revision"}, "timestamp": "2024-05-05T10:32:19.440152Z"}`},
		{"LB resource without httpRequest", `{"insertId": "a", "logName": "projects/p/logs/requests", "resource": {"type": "http_load_balancer"}, "timestamp": "2024-05-05T10:32:19Z"}`},
		{"events log of a VM", strings.Replace(gcpRef52, `"type": "k8s_cluster"`, `"type": "gce_instance"`, 1)},
		{"other textPayload in events", strings.Replace(gcpExporterRestart, "Event exporter started watching", "Something else", 1)},
		{"health-check log without probe result", `{"insertId": "a", "jsonPayload": {}, "logName": "projects/p/logs/compute.googleapis.com%2Fhealthchecks", "timestamp": "2024-05-05T10:32:19Z"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runJSON(t, gcpLogging{}, "x.json", tt.input)
			if len(c.requests)+len(c.lifecycle) != 0 || rep.Skipped != 0 || rep.Records != 0 {
				t.Errorf("requests=%d lifecycle=%d skipped=%d %v", len(c.requests), len(c.lifecycle), rep.Skipped, rep.SkipSamples())
			}
		})
	}
}

func TestGCPLoggingEventsFromReference(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Lifecycle
	}{
		{"5.2 NEG Attach on a Service", gcpRef52, Lifecycle{
			Time: time.Date(2024, 5, 1, 12, 0, 3, 0, time.UTC), Namespace: "default",
			Object: "Service/web", Reason: "Attach", Source: "neg-controller", Count: 1,
			Message: `Attach 1 network endpoint(s) (NEG "k8s1-1a2b3c4d-default-web-80-5e6f7a8b" in zone "us-central1-a")`,
		}},
		{"5.3 kubelet Pulling on a Pod", gcpRef53Pulling, Lifecycle{
			Time: time.Date(2022, 6, 1, 14, 5, 30, 0, time.UTC), Namespace: "kube-system",
			Pod: "kube-dns-56494768b7-544n6", Object: "Pod/kube-dns-56494768b7-544n6",
			Reason: "Pulling", Source: "kubelet", Count: 1,
			Message: `Pulling image "gke.gcr.io/prometheus-to-sd:v0.11.3-gke.0"`,
		}},
		{"5.3 FailedToUpdateEndpoint on Endpoints", gcpRef53Endpoints, Lifecycle{
			Time: time.Date(2022, 6, 1, 14, 5, 33, 0, time.UTC), Namespace: "kube-system",
			Object: "Endpoints/kube-dns", Reason: "FailedToUpdateEndpoint", Source: "endpoint-controller", Count: 1,
			Message: `Failed to update endpoint kube-system/kube-dns: Operation cannot be fulfilled on endpoints "kube-dns": the object has been modified; please apply your changes to the latest version and try again`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runJSON(t, gcpLogging{}, "events.json", tt.input)
			if rep.Skipped != 0 || len(c.lifecycle) != 1 || len(c.requests) != 0 {
				t.Fatalf("lifecycle=%d requests=%d skipped=%d %v", len(c.lifecycle), len(c.requests), rep.Skipped, rep.SkipSamples())
			}
			// Kind, Group, Zone and IP of an event are decided by
			// emitKubeEvent (k8s_event.go) and tested with it; this
			// adapter owns the time, the occurrence count and the origin.
			got := c.lifecycle[0]
			if !got.Time.Equal(tt.want.Time) {
				t.Errorf("Time = %v, want %v", got.Time, tt.want.Time)
			}
			if got.Namespace != tt.want.Namespace || got.Pod != tt.want.Pod || got.Object != tt.want.Object {
				t.Errorf("ns/pod/object = %q/%q/%q, want %q/%q/%q", got.Namespace, got.Pod, got.Object, tt.want.Namespace, tt.want.Pod, tt.want.Object)
			}
			if got.Reason != tt.want.Reason || got.Source != tt.want.Source || got.Count != tt.want.Count {
				t.Errorf("reason/source/count = %q/%q/%d, want %q/%q/%d", got.Reason, got.Source, got.Count, tt.want.Reason, tt.want.Source, tt.want.Count)
			}
			if got.Message != tt.want.Message {
				t.Errorf("Message = %q, want %q", got.Message, tt.want.Message)
			}
			if got.Format != FormatGCPLogging || got.Origin != (Origin{File: "events.json", Line: 1}) {
				t.Errorf("format/origin = %q/%v", got.Format, got.Origin)
			}
		})
	}
}

// TestGCPLoggingEventTimeIsEntryTime checks that the entry timestamp (the
// occurrence) wins over the event's lastTimestamp.
func TestGCPLoggingEventTimeIsEntryTime(t *testing.T) {
	in := strings.Replace(gcpRef52, `"timestamp": "2024-05-01T12:00:03Z"`, `"timestamp": "2024-05-01T12:00:04.25Z"`, 1)
	c, _ := runJSON(t, gcpLogging{}, "events.json", in)
	if len(c.lifecycle) != 1 || !c.lifecycle[0].Time.Equal(time.Date(2024, 5, 1, 12, 0, 4, 250000000, time.UTC)) {
		t.Fatalf("lifecycle = %+v", c.lifecycle)
	}
}

func TestGCPLoggingExporterRestart(t *testing.T) {
	second := strings.NewReplacer(`"restart-1"`, `"restart-2"`, `11:58:00.5Z`, `11:30:00Z`).Replace(gcpExporterRestart)
	elems := []gcpElem{{[]byte(gcpExporterRestart), 1}, {[]byte(gcpRef52), 2}, {[]byte(second), 3}, {[]byte(gcpExporterRestart), 4}}
	c, rep := gcpRun(t, "events.json", elems)
	if rep.Skipped != 0 || rep.Duplicates != 1 || len(c.lifecycle) != 3 {
		t.Fatalf("lifecycle=%d skipped=%d duplicates=%d", len(c.lifecycle), rep.Skipped, rep.Duplicates)
	}
	lost := c.lifecycle[0]
	if lost.Kind != EventsLost || !lost.Time.Equal(time.Date(2024, 5, 1, 11, 58, 0, 500000000, time.UTC)) ||
		lost.Source != "event-exporter" || lost.Origin.Line != 1 {
		t.Errorf("first marker = %+v", lost)
	}
	if c.lifecycle[2].Kind != EventsLost || !c.lifecycle[2].Time.Equal(time.Date(2024, 5, 1, 11, 30, 0, 0, time.UTC)) {
		t.Errorf("second marker = %+v", c.lifecycle[2])
	}
	want := "Kubernetes events may be missing before 2024-05-01T11:58:00.5Z: the GKE event exporter restarted (events.json:1)"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("warnings = %q, want one: %q", rep.Warnings, want)
	}
}

func TestGCPLoggingHealthChecksFromReference(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Lifecycle
	}{
		{"6.2 real instance group", gcpRef62Real, Lifecycle{
			Time: time.Date(2024, 8, 13, 9, 20, 22, 199333012, time.UTC),
			IP:   netip.MustParseAddr("10.142.0.2"), Port: 80, Zone: "us-east1-b",
			Status: "UNHEALTHY", Reason: "TIMEOUT", Group: "lb-backend-example",
			Message: "HTTP response: , Error: Timeout waiting for connect",
		}},
		{"6.2 constructed NEG", gcpRef62NEG, Lifecycle{
			Time: time.Date(2024, 5, 1, 12, 0, 18, 900000000, time.UTC),
			IP:   netip.MustParseAddr("10.52.1.23"), Port: 8080, Zone: "us-central1-a",
			Status: "HEALTHY", Reason: "HEALTHY", Group: "4512345678901234567",
			Message: "HTTP response: OK",
		}},
		{"ipAddress when targetIp is absent", strings.Replace(gcpRef62Real, `"targetIp": "10.142.0.2",`, ``, 1), Lifecycle{
			Time: time.Date(2024, 8, 13, 9, 20, 22, 199333012, time.UTC),
			IP:   netip.MustParseAddr("10.142.0.2"), Port: 80, Zone: "us-east1-b",
			Status: "UNHEALTHY", Reason: "TIMEOUT", Group: "lb-backend-example",
			Message: "HTTP response: , Error: Timeout waiting for connect",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runJSON(t, gcpLogging{}, "hc.json", tt.input)
			if rep.Skipped != 0 || len(c.lifecycle) != 1 {
				t.Fatalf("lifecycle=%d skipped=%d %v", len(c.lifecycle), rep.Skipped, rep.SkipSamples())
			}
			checkGCPHealthCheck(t, c.lifecycle[0], tt.want)
		})
	}
}

func checkGCPHealthCheck(t *testing.T, got, want Lifecycle) {
	t.Helper()
	if got.Kind != HealthCheck || got.Source != "gcp-healthcheck" || got.Format != FormatGCPLogging {
		t.Errorf("kind/source/format = %v/%q/%q", got.Kind, got.Source, got.Format)
	}
	if !got.Time.Equal(want.Time) {
		t.Errorf("Time = %v, want %v", got.Time, want.Time)
	}
	if got.IP != want.IP || got.Port != want.Port || got.Zone != want.Zone || got.Group != want.Group {
		t.Errorf("ip/port/zone/group = %v/%d/%q/%q, want %v/%d/%q/%q",
			got.IP, got.Port, got.Zone, got.Group, want.IP, want.Port, want.Zone, want.Group)
	}
	if got.Status != want.Status || got.Reason != want.Reason || got.Message != want.Message {
		t.Errorf("status/reason/message = %q/%q/%q, want %q/%q/%q",
			got.Status, got.Reason, got.Message, want.Status, want.Reason, want.Message)
	}
}

func TestGCPLoggingDeduplicates(t *testing.T) {
	elems := []gcpElem{{[]byte(gcpRef14), 1}, {[]byte(gcpRef15), 2}, {[]byte(gcpRef14), 3}, {[]byte(gcpRef62NEG), 4}, {[]byte(gcpRef62NEG), 5}, {[]byte(gcpRef52), 6}, {[]byte(gcpRef52), 7}}
	c, rep := gcpRun(t, "dup.json", elems)
	if len(c.requests) != 2 || len(c.lifecycle) != 2 || rep.Duplicates != 3 || rep.Records != 4 {
		t.Errorf("requests=%d lifecycle=%d duplicates=%d records=%d", len(c.requests), len(c.lifecycle), rep.Duplicates, rep.Records)
	}
}

func TestGCPLoggingOutcome(t *testing.T) {
	tests := []struct {
		detail    string
		status    int
		hasDetail bool
		// backend is whether the entry named a serverIp.
		backend   bool
		generator Generator
		failure   FailureKind
	}{
		{"response_sent_by_backend", 200, true, false, GeneratedByBackend, FailureNone},
		{"response_sent_by_backend", 502, true, false, GeneratedByBackend, FailureAppError},
		{"response_from_cache", 200, true, false, GeneratedByBackend, FailureNone},
		{"response_from_cache_validated", 304, true, false, GeneratedByBackend, FailureNone},
		{"byte_range_caching", 206, true, false, GeneratedByBackend, FailureNone},
		{"failed_to_pick_backend", 503, true, false, GeneratedByLB, FailureNoBackend},
		{"failed_to_connect_to_backend", 502, true, false, GeneratedByLB, FailureRefused},
		{"backend_connection_closed_before_data_sent_to_client", 502, true, false, GeneratedByLB, FailureClosed},
		{"backend_connection_closed_after_partial_response_sent", 200, true, false, GeneratedByLB, FailureClosed},
		{"backend_timeout", 502, true, false, GeneratedByLB, FailureTimeout},
		{"client_disconnected_before_any_response", 0, true, false, GeneratedByLB, FailureNone},
		{"client_timed_out", 408, true, false, GeneratedByLB, FailureNone},
		{"client_disconnected_after_partial_response", 200, true, false, GeneratedByBackend, FailureNone},
		{"internal_error", 502, true, false, GeneratedByLB, FailureOther},
		{"backend_response_corrupted", 502, true, false, GeneratedByLB, FailureOther},
		{"denied_by_security_policy", 403, true, false, GeneratedByLB, FailureNone},
		{"", 502, false, false, GeneratedUnknown, FailureOther},
		{"", 404, false, false, GeneratedUnknown, FailureNone},
		// Regional and internal (Envoy-based) entries: no statusDetails, and
		// no proxyStatus unless the load balancer failed the request.
		{"", 200, false, true, GeneratedByBackend, FailureNone},
		{"", 503, false, true, GeneratedByBackend, FailureAppError},
		{"", 404, false, true, GeneratedByBackend, FailureNone},
		{"failed_to_pick_backend", 503, true, true, GeneratedByLB, FailureNoBackend},
		{"backend_connection_closed", 503, true, true, GeneratedByLB, FailureClosed},
		{"connection_refused", 503, true, true, GeneratedByLB, FailureRefused},
	}
	for _, tt := range tests {
		gen, failure := gcpOutcome(tt.detail, tt.status, tt.hasDetail, tt.backend)
		if gen != tt.generator || failure != tt.failure {
			t.Errorf("gcpOutcome(%q, %d, backend %v) = %v/%v, want %v/%v", tt.detail, tt.status, tt.backend, gen, failure, tt.generator, tt.failure)
		}
	}
}

func TestGCPLoggingProxyStatusParam(t *testing.T) {
	tests := []struct{ ps, name, want string }{
		{`error="destination_unavailable"; details="failed_to_pick_backend"`, "details", "failed_to_pick_backend"},
		{`error="destination_unavailable"; details="failed_to_pick_backend"`, "error", "destination_unavailable"},
		{`envoy; error=connection_refused`, "error", "connection_refused"},
		{`envoy; error=connection_refused ; details="a;b"`, "details", "a;b"},
		{`error="destination_unavailable"`, "details", ""},
		{`details="unterminated`, "details", "unterminated"},
		{``, "details", ""},
	}
	for _, tt := range tests {
		if got := string(gcpProxyStatusParam([]byte(tt.ps), tt.name)); got != tt.want {
			t.Errorf("gcpProxyStatusParam(%q, %q) = %q, want %q", tt.ps, tt.name, got, tt.want)
		}
	}
}

func TestGCPLoggingServerIP(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for no backend; "bad" for an error
	}{
		{"", ""},
		{"10.0.0.1", "10.0.0.1:0"},
		{"10.0.0.1:80", "10.0.0.1:80"},
		{"FE80::0202:B3FF:FE1E:8329", "[fe80::202:b3ff:fe1e:8329]:0"},
		{"[2001:db8::1]:443", "[2001:db8::1]:443"},
		{"::ffff:10.0.0.1", "[::ffff:10.0.0.1]:0"},
		{"10.0.0.256", "bad"},
		{"10.0.0.1:", "bad"},
		{"10.0.0.1:65536", "bad"},
		{"010.0.0.1", "bad"},
		{"10.0.0", "bad"},
		{"pod", "bad"},
	}
	for _, tt := range tests {
		got, ok := gcpParseServerIP([]byte(tt.in))
		switch {
		case tt.want == "bad":
			if ok {
				t.Errorf("gcpParseServerIP(%q) = %v, want an error", tt.in, got)
			}
		case tt.want == "":
			if !ok || got.IsValid() {
				t.Errorf("gcpParseServerIP(%q) = %v, %v; want no backend", tt.in, got, ok)
			}
		case !ok || got != netip.MustParseAddrPort(tt.want):
			t.Errorf("gcpParseServerIP(%q) = %v, %v; want %s", tt.in, got, ok, tt.want)
		}
	}
}

func TestGCPLoggingURLPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://shop.example.com/api/items?page=2", "/api/items?page=2"},
		{"https://35.227.246.6/", "/"},
		{"https://34.0.217.72/?curl=", "/?curl="},
		{"http://5.6.7.8:80/cgi-bin/luci/;stok=/locale?form=country", "/cgi-bin/luci/;stok=/locale?form=country"},
		{"https://example.com", "/"},
		{"https://example.com?q=1", "/?q=1"},
		{"https://example.com/a#frag", "/a"},
		{"/already/a/path?x", "/already/a/path?x"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := string(gcpURLPath([]byte(tt.in))); got != tt.want {
			t.Errorf("gcpURLPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGCPLoggingMatchJSON(t *testing.T) {
	a := gcpLogging{}
	match := map[string]string{
		"1.4 whole":                             gcpRef14,
		"1.6 whole":                             gcpRef16,
		"5.3 whole":                             gcpRef53Pulling,
		"6.2 whole":                             gcpRef62Real,
		"1.4 head cut before logName":           gcpRef14[:400],
		"5.2 head cut inside jsonPayload":       gcpRef52[:250],
		"6.2 head with logName and resource":    gcpRef62NEG[:len(gcpRef62NEG)-150],
		"5.3 head cut inside jsonPayload (ndj)": gcpRef53Pulling[:120],
	}
	for name, elem := range match {
		if !a.MatchJSON([]byte(elem)) {
			t.Errorf("MatchJSON(%s) = false", name)
		}
	}
	noMatch := map[string]string{
		"CloudTrail":         `{"eventVersion": "1.02","userIdentity": {"type": "IAMUser"},"eventTime": "2019-06-09T19:15:04Z"}`,
		"GuardDuty":          `{"version":"0","id":"19ab29f7","detail-type":"GuardDuty Finding","time":"2019-06-09T19:15:04Z"}`,
		"Kubernetes Event":   `{"apiVersion": "v1", "kind": "Event", "metadata": {"name": "web.1"}, "reason": "Attach", "lastTimestamp": "2024-05-01T12:00:03Z"}`,
		"ALB log line":       `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80`,
		"logName on its own": `{"logName": "projects/p/logs/x"}`,
	}
	for name, elem := range noMatch {
		if a.MatchJSON([]byte(elem)) {
			t.Errorf("MatchJSON(%s) = true", name)
		}
	}
}

// TestGCPLoggingConcurrent parses from several goroutines at once, as the
// pipeline does with one shared adapter; run it with -race.
func TestGCPLoggingConcurrent(t *testing.T) {
	inputs := []string{gcpRef14, gcpRef15, gcpRef16, gcpRef62NEG}
	var wg sync.WaitGroup
	results := make([]*collector, 8)
	for g := range results {
		wg.Go(func() {
			elems := make([]gcpElem, 0, 200)
			for i := range 200 {
				elems = append(elems, gcpElem{data: []byte(inputs[(i+g)%len(inputs)]), line: i + 1})
			}
			results[g], _ = gcpRun(t, "c.json", elems)
		})
	}
	wg.Wait()
	for g, c := range results {
		// Each input repeats 4 entries 50 times: deduplication keeps one of each.
		if len(c.requests) != 3 || len(c.lifecycle) != 1 {
			t.Fatalf("goroutine %d: requests=%d lifecycle=%d", g, len(c.requests), len(c.lifecycle))
		}
		for _, r := range c.requests {
			if r.LB == "" || r.Path == "" || r.Method != "GET" {
				t.Errorf("goroutine %d: %+v", g, r)
			}
		}
	}
}

// gcpSampleDir holds the real Cloud Logging exports (see its NOTICE).
const gcpSampleDir = "testdata/samples/gcp-logging"

func readGCPSample(t testing.TB, name string) []gcpElem {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(gcpSampleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return gcpSplit(t, data)
}

// TestGCPLoggingSamples checks the record, skipped and duplicate counts of
// every sample against PROVENANCE.md (whose counts are before
// deduplication) and the fields of one record per file.
func TestGCPLoggingSamples(t *testing.T) {
	tests := []struct {
		file                          string
		elems                         int
		requests, lifecycle           int
		skipped, duplicates, warnings int
		check                         func(t *testing.T, c *collector)
	}{
		{file: "GoogleCloudPlatform--gcpdiag--logging-entries-1.json", elems: 6, lifecycle: 6, check: checkGCPDiagSample},
		{file: "mozilla-services--foxsec-pipeline--httpreq_hardlimit1.txt", elems: 36, requests: 1, duplicates: 34, warnings: 1, check: checkFoxsecRequest},
		{file: "mozilla-services--foxsec-pipeline--parsermetrics_mixedinput.txt", elems: 11, requests: 1, skipped: 3, warnings: 1, check: checkFoxsecRequest},
		{file: "open-telemetry--opentelemetry-collector-contrib--global_external_application_load_balancer.json", elems: 1, requests: 1, check: func(t *testing.T, c *collector) {
			checkGCPRequest(t, c.requests[0], gcpWantRequest{
				time: time.Date(2025, 11, 20, 13, 35, 27, 558637000, time.UTC),
				lb:   "gcp-fixture-alb-backend-service", status: 200,
				generator: GeneratedByBackend, failure: FailureNone,
				backend: netip.MustParseAddrPort("10.20.0.4:0"),
				method:  "GET", path: "/", detail: "response_sent_by_backend",
			})
		}},
		{file: "open-telemetry--opentelemetry-collector-contrib--real_log.json", elems: 1, warnings: 1},
		{file: "open-telemetry--opentelemetry-collector-contrib--regional_external_application_load_balancer.json", elems: 1, requests: 1, check: func(t *testing.T, c *collector) {
			checkGCPRequest(t, c.requests[0], gcpWantRequest{
				time: time.Date(2025, 11, 20, 14, 18, 48, 230937000, time.UTC),
				lb:   "gcp-fixture-alb-backend-service", status: 200,
				generator: GeneratedByBackend, failure: FailureNone, // a serverIp and no proxyStatus: the backend answered
				backend: netip.MustParseAddrPort("10.20.0.4:80"),
				method:  "GET", path: "/?curl=",
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			elems := readGCPSample(t, tt.file)
			if len(elems) != tt.elems {
				t.Fatalf("split into %d elements, want %d", len(elems), tt.elems)
			}
			c, rep := gcpRun(t, tt.file, elems)
			if len(c.requests) != tt.requests || len(c.lifecycle) != tt.lifecycle || rep.Skipped != tt.skipped ||
				rep.Duplicates != tt.duplicates || len(rep.Warnings) != tt.warnings {
				t.Fatalf("requests=%d lifecycle=%d skipped=%d duplicates=%d warnings=%d; want %d/%d/%d/%d/%d (skips %q)",
					len(c.requests), len(c.lifecycle), rep.Skipped, rep.Duplicates, len(rep.Warnings),
					tt.requests, tt.lifecycle, tt.skipped, tt.duplicates, tt.warnings, rep.SkipSamples())
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

func checkFoxsecRequest(t *testing.T, c *collector) {
	checkGCPRequest(t, c.requests[0], gcpWantRequest{
		time: time.Unix(0, 0).UTC(), lb: "prod-send", status: 200,
		generator: GeneratedByBackend, failure: FailureNone,
		backend: netip.MustParseAddrPort("10.8.0.3:0"),
		method:  "GET", path: "/public/locales/en-US/send.js", detail: "response_sent_by_backend",
	})
	if c.requests[0].Origin.Line != 1 {
		t.Errorf("Origin = %v", c.requests[0].Origin)
	}
}

// checkGCPDiagSample checks the gcpdiag entries: newest first, as the API returned them.
func checkGCPDiagSample(t *testing.T, c *collector) {
	checkGCPHealthCheck(t, c.lifecycle[0], Lifecycle{
		Time: time.Date(2024, 8, 13, 9, 20, 22, 199333012, time.UTC),
		IP:   netip.MustParseAddr("10.142.0.2"), Port: 80, Zone: "us-east1-b",
		Status: "UNHEALTHY", Reason: "TIMEOUT", Group: "lb-backend-example",
		Message: "HTTP response: , Error: Timeout waiting for connect",
	})
	checkGCPHealthCheck(t, c.lifecycle[2], Lifecycle{
		Time: time.Date(2024, 8, 12, 11, 38, 23, 660085464, time.UTC),
		IP:   netip.MustParseAddr("10.142.0.3"), Port: 88, Zone: "us-east1-b",
		Status: "UNHEALTHY", Reason: "TIMEOUT", Group: "lb-backend-example",
		Message: "HTTP response: , Error: Timeout waiting for connect",
	})
	for i := 1; i < len(c.lifecycle); i++ {
		if !c.lifecycle[i].Time.Before(c.lifecycle[i-1].Time) {
			t.Errorf("entry %d (%v) is not older than entry %d", i, c.lifecycle[i].Time, i-1)
		}
	}
}

// FuzzGCPLogging checks that no element makes the adapter panic, that a
// rejected element emits nothing, that every record has a time and sane
// numbers, and that the scan and fastjson read it alike.
func FuzzGCPLogging(f *testing.F) {
	for _, s := range []string{gcpRef14, gcpRef15, gcpRef16, gcpRef52, gcpRef53Pulling, gcpRef53Endpoints,
		gcpRef62Real, gcpRef62NEG, gcpExporterRestart} {
		f.Add([]byte(s))
	}
	for _, e := range gcpSplit(f, []byte(gcpRef78)) {
		f.Add(e.data)
	}
	files, err := os.ReadDir(gcpSampleDir)
	if err != nil {
		f.Fatal(err)
	}
	for _, fi := range files {
		if fi.Name() == "NOTICE" {
			continue
		}
		for _, e := range readGCPSample(f, fi.Name()) {
			f.Add(e.data)
		}
	}
	f.Fuzz(func(t *testing.T, elem []byte) {
		a := gcpLogging{}
		a.MatchJSON(elem)
		c := &collector{}
		rep := &InputReport{}
		em := newEmitter(c, &Options{}, rep, newDedupSet())
		err := a.ParseJSON(elem, Origin{File: "fuzz", Line: 1}, em)
		n := len(c.requests) + len(c.lifecycle)
		if err != nil && n != 0 {
			t.Fatalf("error %v but %d records", err, n)
		}
		if n > 1 || rep.Records != n || rep.Skipped != 0 || rep.Duplicates != 0 {
			t.Fatalf("records=%d report=%+v", n, rep)
		}
		for _, r := range c.requests {
			if r.Time.IsZero() || r.Status < 0 || r.Status > 999 || r.Format != FormatGCPLogging {
				t.Fatalf("bad request %+v", r)
			}
			if (r.Failure.LBGenerated() && r.Generator == GeneratedByBackend) ||
				(r.Failure == FailureAppError && r.Generator != GeneratedByBackend) {
				t.Fatalf("failure %v from generator %v", r.Failure, r.Generator)
			}
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() || l.Port < 0 || l.Port > 65535 || l.Count < 0 || l.Format != FormatGCPLogging {
				t.Fatalf("bad lifecycle %+v", l)
			}
		}
		gcpReadBothWays(t, elem)
	})
}

// gcpDiscard is a Handler that only counts.
type gcpDiscard struct{ n int }

func (d *gcpDiscard) Request(*Request)     { d.n++ }
func (d *gcpDiscard) Lifecycle(*Lifecycle) { d.n++ }
func (d *gcpDiscard) Config(*Config)       { d.n++ }

// gcpBenchEntries builds n compact request entries of about 1 KB, as a GKE
// Ingress writes them: mostly 200 response_sent_by_backend from one of 20
// pods, and every 25th a 502 failed_to_pick_backend without serverIp.
func gcpBenchEntries(n int) [][]byte {
	const ok = `{"httpRequest":{"latency":"0.0%04ds","remoteIp":"203.0.113.%d","requestMethod":"GET","requestSize":"79","requestUrl":"https://shop.example.com/api/items/%d?page=2","responseSize":"1750","serverIp":"10.52.1.%d","status":200,"userAgent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36","referer":"https://shop.example.com/"},"insertId":"1x2k9abf%07d","jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","backendTargetProjectNumber":"projects/123456789012","cacheDecision":["RESPONSE_HAS_CONTENT_TYPE","CACHE_MODE_USE_ORIGIN_HEADERS"],"remoteIp":"203.0.113.%d","statusDetails":"response_sent_by_backend"},"logName":"projects/my-project/logs/requests","receiveTimestamp":"2024-05-01T12:%02d:%02d.812345678Z","resource":{"labels":{"backend_service_name":"k8s1-1a2b3c4d-default-web-80-5e6f7a8b","forwarding_rule_name":"k8s2-fs-abcd1234-default-web-ingress-wxyz5678","project_id":"my-project","target_proxy_name":"k8s2-ts-abcd1234-default-web-ingress-wxyz5678","url_map_name":"k8s2-um-abcd1234-default-web-ingress-wxyz5678","zone":"global"},"type":"http_load_balancer"},"severity":"INFO","spanId":"a1b2c3d4e5f6%04x","timestamp":"2024-05-01T12:%02d:%02d.%06dZ","trace":"projects/my-project/traces/0123456789abcdef0123456789ab%04x"}`
	const fail = `{"httpRequest":{"latency":"0.001034s","remoteIp":"203.0.113.%d","requestMethod":"POST","requestSize":"412","requestUrl":"https://shop.example.com/api/cart/%d","responseSize":"332","status":502,"userAgent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36","referer":"https://shop.example.com/"},"insertId":"1x2k9abf%07d","jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","backendTargetProjectNumber":"projects/123456789012","remoteIp":"203.0.113.%d","statusDetails":"failed_to_pick_backend"},"logName":"projects/my-project/logs/requests","receiveTimestamp":"2024-05-01T12:%02d:%02d.812345678Z","resource":{"labels":{"backend_service_name":"k8s1-1a2b3c4d-default-web-80-5e6f7a8b","forwarding_rule_name":"k8s2-fs-abcd1234-default-web-ingress-wxyz5678","project_id":"my-project","target_proxy_name":"k8s2-ts-abcd1234-default-web-ingress-wxyz5678","url_map_name":"k8s2-um-abcd1234-default-web-ingress-wxyz5678","zone":"global"},"type":"http_load_balancer"},"severity":"WARNING","spanId":"a1b2c3d4e5f6%04x","timestamp":"2024-05-01T12:%02d:%02d.%06dZ","trace":"projects/my-project/traces/0123456789abcdef0123456789ab%04x"}`
	entries := make([][]byte, n)
	for i := range entries {
		client, minute, sec, usec := 1+i%250, (i/60)%60, i%60, (i*7919)%1000000
		if i%25 == 24 {
			entries[i] = fmt.Appendf(nil, fail, client, i%100, i, client, minute, sec, i%0x10000, minute, sec, usec, i%0x10000)
			continue
		}
		entries[i] = fmt.Appendf(nil, ok, i%9000, client, i%100, 10+i%20, i, client, minute, sec, i%0x10000, minute, sec, usec, i%0x10000)
	}
	return entries
}

// BenchmarkGCPLoggingParse measures ParseJSON over 5,000 request entries
// (one input per iteration, with its own deduplication set).
func BenchmarkGCPLoggingParse(b *testing.B) {
	entries := gcpBenchEntries(5000)
	total := 0
	for _, e := range entries {
		total += len(e) + 1 // one newline per NDJSON line
	}
	a := gcpLogging{}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		h := &gcpDiscard{}
		em := newEmitter(h, &Options{}, &InputReport{}, newDedupSet())
		for i, e := range entries {
			if err := a.ParseJSON(e, Origin{File: "bench", Line: i + 1}, em); err != nil {
				b.Fatal(err)
			}
		}
		if h.n != len(entries) {
			b.Fatalf("%d records, want %d", h.n, len(entries))
		}
	}
}

// referenceDoc reads a reference document kept under testdata/reference, shared
// with the live fetchers' tests.
func referenceDoc(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "reference", name))
	if err != nil {
		panic(err)
	}
	return strings.TrimRight(string(b), "\n")
}

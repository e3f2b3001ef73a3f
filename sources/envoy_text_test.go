package sources

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

// envoyParse feeds one line to a line adapter with a wrapper stamp, as the
// pipeline would, and returns what it emitted.
func envoyParse(t testing.TB, a lineAdapter, line string, stamp time.Time) (*collector, *InputReport) {
	t.Helper()
	c := &collector{}
	rep := &InputReport{Name: "t.log", Format: a.Format()}
	em := newEmitter(c, &Options{}, rep, newDedupSet())
	ln := &Line{Origin: Origin{File: "t.log", Line: 1}, Stamp: stamp}
	if err := a.Parse([]byte(line), ln, em); err != nil {
		em.Skip(ln.Origin, err.Error())
	}
	return c, rep
}

// envoyMs is a UTC time with milliseconds; envoyUs with microseconds.
func envoyMs(y int, mo time.Month, d, h, mi, s, ms int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ms*int(time.Millisecond), time.UTC)
}

func envoyUs(y int, mo time.Month, d, h, mi, s, us int) time.Time {
	return time.Date(y, mo, d, h, mi, s, us*int(time.Microsecond), time.UTC)
}

// envoyWant is what a test expects of an Envoy Request.
type envoyWant struct {
	time     time.Time
	status   int
	gen      Generator
	failure  FailureKind
	backend  string
	lb       string
	method   string
	path     string
	detail   string
	platform Platform
	// count and limit are AttemptCount and RetryLimit.
	count int
	limit bool
	// tries are the Attempts, as backend/status/failure.
	tries []nginxWantAttempt
}

// checkEnvoyRequest compares every field of an Envoy Request.
func checkEnvoyRequest(t *testing.T, got *Request, format Format, w envoyWant) {
	t.Helper()
	if !got.Time.Equal(w.time) || got.Time.Location() != time.UTC {
		t.Errorf("time = %v, want %v UTC", got.Time, w.time)
	}
	if got.Status != w.status || got.Generator != w.gen || got.Failure != w.failure {
		t.Errorf("status/generator/failure = %d/%v/%v, want %d/%v/%v", got.Status, got.Generator, got.Failure, w.status, w.gen, w.failure)
	}
	if got.Backend != nginxAP(w.backend) {
		t.Errorf("backend = %v, want %q", got.Backend, w.backend)
	}
	if got.LB != w.lb || got.Method != w.method || got.Path != w.path {
		t.Errorf("lb/method/path = %q %q %q, want %q %q %q", got.LB, got.Method, got.Path, w.lb, w.method, w.path)
	}
	if got.Detail != w.detail {
		t.Errorf("detail = %q, want %q", got.Detail, w.detail)
	}
	if got.Platform != w.platform || got.AttemptCount != w.count || got.RetryLimit != w.limit {
		t.Errorf("platform/count/limit = %q/%d/%v, want %q/%d/%v", got.Platform, got.AttemptCount, got.RetryLimit, w.platform, w.count, w.limit)
	}
	if got.Format != format || got.AttemptOnly {
		t.Errorf("format/attemptOnly = %q/%v", got.Format, got.AttemptOnly)
	}
	if len(got.Attempts) != len(w.tries) {
		t.Fatalf("attempts = %+v, want %+v", got.Attempts, w.tries)
	}
	for i, a := range w.tries {
		g := got.Attempts[i]
		if g.Backend != nginxAP(a.backend) || g.Status != a.status || g.Failure != a.failure {
			t.Errorf("attempt %d = %v %d %v, want %q %d %v", i, g.Backend, g.Status, g.Failure, a.backend, a.status, a.failure)
		}
	}
	if n := len(got.Attempts); n > 0 && got.Attempts[n-1].Backend != got.Backend {
		t.Errorf("backend %v is not the last attempt's %v", got.Backend, got.Attempts[n-1].Backend)
	}
}

// The Istio outbound cluster most constructed lines below use.
const envoyOutbound = "outbound|8080||web.shop.svc.cluster.local"

// envoyTextCases cover every text variant: real lines (the sample files,
// issues) and lines constructed for each row of the failure-kind table of
// docs/envoy.md, in the formats of the sources it names.
var envoyTextCases = []struct {
	name string
	line string
	want envoyWant
}{
	// Real: istio.io access-log task (Apache-2.0; samples/envoy/NOTICE).
	{"istio.io outbound 418 via_upstream",
		`[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" "84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "10.44.1.27:80" outbound|8000||httpbin.foo.svc.cluster.local 10.44.1.23:37652 10.0.45.184:8000 10.44.1.23:46520 - default`,
		envoyWant{time: envoyMs(2020, 11, 25, 21, 26, 18, 409), status: 418, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.44.1.27:80", lb: "outbound|8000||httpbin.foo.svc.cluster.local", method: "GET", path: "/status/418",
			detail: "via_upstream", platform: PlatformIstio}},
	{"istio.io inbound 418 from 127.0.0.1: the pod's own address is the backend",
		`[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 3 1 "-" "curl/7.73.0-DEV" "84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "127.0.0.1:80" inbound|8000|| 127.0.0.1:41854 10.44.1.27:80 10.44.1.23:37652 outbound_.8000_._.httpbin.foo.svc.cluster.local default`,
		envoyWant{time: envoyMs(2020, 11, 25, 21, 26, 18, 409), status: 418, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.44.1.27:80", lb: "inbound|8000||", method: "GET", path: "/status/418", detail: "via_upstream", platform: PlatformIstio}},
	// Real: GoogleCloudPlatform/khi envoy_accesslog_test.go (Apache-2.0).
	{"khi 503 UF older Envoy: refused (111)",
		`[2026-08-17T04:59:08.906Z] "GET / HTTP/1.1" 503 UF upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_111} - "delayed_connect_error:_111" 0 152 0 - "-" "GoogleHC/1.0" "b8b3448c-05f3-4f65-aed2-9e63c89cc662" "10.4.0.5" "10.4.0.5:8080" inbound|8080|| - 10.4.0.5:8080 35.191.227.195:48158 - default`,
		envoyWant{time: envoyMs(2026, 8, 17, 4, 59, 8, 906), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.4.0.5:8080", lb: "inbound|8080||", method: "GET", path: "/",
			detail: "UF upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_111}", platform: PlatformIstio}},
	{"khi 503 UH,URX: no backend, retry limit, the earlier try's host kept as an attempt",
		`[2026-08-10T08:50:55.958Z] "GET /productpage HTTP/1.1" 503 UH,URX - - "-" 0 0 10 - "-" "curl/8.21.0" "55667739-e394-4814-91b2-2cdd90744892" "example.com" "10.4.0.5:80" outbound|80||foo.default.svc.cluster.local - - 10.4.1.8:59778 - default`,
		envoyWant{time: envoyMs(2026, 8, 10, 8, 50, 55, 958), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			lb: "outbound|80||foo.default.svc.cluster.local", method: "GET", path: "/productpage", detail: "UH,URX", platform: PlatformIstio, limit: true,
			tries: []nginxWantAttempt{{"10.4.0.5:80", 0, FailureOther}, {"", 503, FailureNoBackend}}}},
	{"khi 502 via_upstream: the application's",
		`[2026-08-10T08:50:55.958Z] "HEAD / HTTP/1.1" 502 - via_upstream - "-" 0 0 6 5 "-" "curl/8.21.0" "55667739-e394-4814-91b2-2cdd90744892" "136.68.163.124" "136.68.163.124:80" PassthroughCluster 10.4.1.8:33606 136.68.163.124:80 10.4.1.8:59778 - allow_any`,
		envoyWant{time: envoyMs(2026, 8, 10, 8, 50, 55, 958), status: 502, gen: GeneratedByBackend, failure: FailureAppError,
			backend: "136.68.163.124:80", lb: "PassthroughCluster", method: "HEAD", path: "/", detail: "via_upstream", platform: PlatformIstio}},
	{"khi 404 NR: the proxy's, not a failure",
		`[2026-08-10T08:50:55.958Z] "POST /invalid HTTP/1.1" 404 NR - - "-" 0 0 1 - "-" "curl/8.21.0" "55667739-e394-4814-91b2-2cdd90744892" "example.com" "-" - - - 10.4.1.8:59778 - -`,
		envoyWant{time: envoyMs(2026, 8, 10, 8, 50, 55, 958), status: 404, gen: GeneratedByLB, failure: FailureNone,
			method: "POST", path: "/invalid", detail: "NR", platform: PlatformIstio}},
	// Real: istio/istio#29109 (Istio 1.8, the 1.3-1.8 format; quoted in the issue).
	{"istio#29109 1.8 format 500 from the app on 127.0.0.1",
		`[2020-11-22T20:04:32.765Z] "GET /products HTTP/1.1" 500 - "-" "-" 0 122 11939 11933 "-" "PostmanRuntime/7.26.8" "66fa4542-266e-9364-8447-e7d63047b344" "172.17.0.2:30164" "127.0.0.1:8080" inbound|8080|http-8080|scrappers-service.default.svc.cluster.local 127.0.0.1:52034 172.18.0.10:8080 172.18.0.1:37035 - default`,
		envoyWant{time: envoyMs(2020, 11, 22, 20, 4, 32, 765), status: 500, gen: GeneratedByBackend, failure: FailureAppError,
			backend: "172.18.0.10:8080", lb: "inbound|8080|http-8080|scrappers-service.default.svc.cluster.local", method: "GET", path: "/products", platform: PlatformIstio}},
	// Real: Envoy's default format (Contour's docs, Envoy's docs).
	{"contour default format 200",
		`[2021-04-14T16:36:00.361Z] "GET /foo HTTP/1.1" 200 - 0 463 6 3 "-" "HTTPie/1.0.3" "837aa8dc-344f-4faa-b7d5-c9cce1028519" "localhost:8080" "127.0.0.1:8081"`,
		envoyWant{time: envoyMs(2021, 4, 14, 16, 36, 0, 361), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "127.0.0.1:8081", method: "GET", path: "/foo"}},
	{"envoy docs default format with tcp:// host",
		`[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"`,
		envoyWant{time: envoyMs(2016, 4, 15, 20, 17, 0, 310), status: 204, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.0.2.1:80", method: "POST", path: "/api/v1/locations"}},

	// Constructed, Istio 1.9+ format, current Envoy's `|` separators
	// (envoyproxy/envoy source/common/router/router.cc; reference note).
	{"constructed 503 UH no_healthy_upstream, host -",
		`[2024-05-01T12:00:01.123Z] "GET /api/items HTTP/1.1" 503 UH no_healthy_upstream - "-" 0 19 0 - "203.0.113.10" "curl/8.5.0" "0c2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f60" "shop.example.com" "-" ` + envoyOutbound + ` - 10.244.0.9:8080 203.0.113.10:51234 - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 1, 123), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			lb: envoyOutbound, method: "GET", path: "/api/items", detail: "UH no_healthy_upstream", platform: PlatformIstio}},
	{"constructed 503 UF current Envoy: Connection_refused",
		`[2024-05-01T12:00:02.001Z] "GET /api/items HTTP/1.1" 503 UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused} - "delayed_connect_error:_Connection_refused" 0 145 1 - "203.0.113.10" "curl/8.5.0" "1d2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f61" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` - 10.244.0.9:8080 203.0.113.10:51235 - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 2, 1), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "GET", path: "/api/items", platform: PlatformIstio,
			detail: "UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"}},
	{"constructed 503 UF: No_route_to_host, the pod's IP is gone",
		`[2024-05-01T12:00:03.500Z] "POST /api/orders HTTP/1.1" 503 UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_No_route_to_host} - "delayed_connect_error:_No_route_to_host" 312 145 3001 - "203.0.113.10" "curl/8.5.0" "2e2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f62" "shop.example.com" "10.244.1.18:8080" ` + envoyOutbound + ` - 10.244.0.9:8080 203.0.113.10:51236 - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 3, 500), status: 503, gen: GeneratedByLB, failure: FailureUnreachable,
			backend: "10.244.1.18:8080", lb: envoyOutbound, method: "POST", path: "/api/orders", platform: PlatformIstio,
			detail: "UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_No_route_to_host}"}},
	{"constructed 503 UF: older Envoy's errno 113",
		`[2024-05-01T12:00:03.501Z] "GET / HTTP/1.1" 503 UF upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_113} - "delayed_connect_error:_113" 0 145 3001 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.18:8080" ` + envoyOutbound + ` - - - - -`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 3, 501), status: 503, gen: GeneratedByLB, failure: FailureUnreachable,
			backend: "10.244.1.18:8080", lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio,
			detail: "UF upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_113}"}},
	{"constructed 503 UF,URX: connect timeout after retries",
		`[2024-05-01T12:00:04.000Z] "GET / HTTP/1.1" 503 UF,URX upstream_reset_before_response_started{connection_timeout} - "-" 0 91 30002 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.18:8080" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 0), status: 503, gen: GeneratedByLB, failure: FailureTimeout,
			backend: "10.244.1.18:8080", lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio, limit: true,
			detail: "UF,URX upstream_reset_before_response_started{connection_timeout}"}},
	{"constructed 503 URX,UF in the order set (current Envoy)",
		`[2024-05-01T12:00:04.100Z] "GET / HTTP/1.1" 503 URX,UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused} - "delayed_connect_error:_Connection_refused" 0 190 63 - "-" "curl/8.14.1" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 100), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio, limit: true,
			detail: "URX,UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"}},
	{"constructed 503 UC connection_termination",
		`[2024-05-01T12:00:05.250Z] "POST /api/orders HTTP/1.1" 503 UC upstream_reset_before_response_started{connection_termination} - "-" 312 95 12 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` 10.244.0.9:40000 10.244.0.9:8080 203.0.113.10:51237 - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 5, 250), status: 503, gen: GeneratedByLB, failure: FailureClosed,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "POST", path: "/api/orders", platform: PlatformIstio,
			detail: "UC upstream_reset_before_response_started{connection_termination}"}},
	{"constructed 503 UR remote_reset",
		`[2024-05-01T12:00:05.251Z] "POST /api/orders HTTP/2" 503 UR upstream_reset_before_response_started{remote_reset} - "-" 312 0 12 - "-" "grpc-go/1.60.0" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 5, 251), status: 503, gen: GeneratedByLB, failure: FailureClosed,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "POST", path: "/api/orders", platform: PlatformIstio,
			detail: "UR upstream_reset_before_response_started{remote_reset}"}},
	{"constructed 504 UT upstream_response_timeout",
		`[2024-05-01T12:00:06.000Z] "GET /slow HTTP/1.1" 504 UT upstream_response_timeout - "-" 0 24 15001 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` 10.244.0.9:40001 10.244.0.9:8080 203.0.113.10:51238 - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 6, 0), status: 504, gen: GeneratedByLB, failure: FailureTimeout,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "GET", path: "/slow", platform: PlatformIstio,
			detail: "UT upstream_response_timeout"}},
	{"constructed 503 via_upstream: the application's 503, even with URX",
		`[2024-05-01T12:00:07.000Z] "GET / HTTP/1.1" 503 URX via_upstream - "-" 0 19 3 2 "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 7, 0), status: 503, gen: GeneratedByBackend, failure: FailureAppError,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio, limit: true,
			detail: "URX via_upstream"}},
	{"constructed 0 DC: the client went away",
		`[2024-05-01T12:00:08.000Z] "GET /big HTTP/1.1" 0 DC downstream_remote_disconnect - "-" 0 0 950 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 8, 0), status: 0, gen: GeneratedByLB, failure: FailureNone,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "GET", path: "/big", platform: PlatformIstio,
			detail: "DC downstream_remote_disconnect"}},
	{"constructed 200 with a reset after the response started",
		`[2024-05-01T12:00:09.000Z] "GET /stream HTTP/1.1" 200 UC upstream_reset_after_response_started{connection_termination} - "-" 0 4096 20 5 "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 9, 0), status: 200, gen: GeneratedByBackend, failure: FailureClosed,
			backend: "10.244.1.17:8080", lb: envoyOutbound, method: "GET", path: "/stream", platform: PlatformIstio,
			detail: "UC upstream_reset_after_response_started{connection_termination}"}},
	{"constructed TLS handshake failure as transport failure reason",
		`[2024-05-01T12:00:10.000Z] "GET / HTTP/1.1" 503 UF upstream_reset_before_response_started{remote_connection_failure|TLS_error:_268435581:SSL_routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED} - "TLS_error:_268435581:SSL_routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED" 0 190 4 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8443" ` + envoyOutbound + ` - - - - default`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 10, 0), status: 503, gen: GeneratedByLB, failure: FailureOther,
			backend: "10.244.1.17:8443", lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio,
			detail: "UF upstream_reset_before_response_started{remote_connection_failure|TLS_error:_268435581:SSL_routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED}"}},
	// Constructed, Envoy's default format (no details): flags alone.
	{"constructed default format 503 UF: a refusal, the commonest cause",
		`[2024-05-01T12:00:11.000Z] "GET / HTTP/1.1" 503 UF 0 91 1 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 11, 0), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.244.1.17:8080", method: "GET", path: "/", detail: "UF"}},
	{"constructed default format 503 UH with long flag names",
		`[2024-05-01T12:00:11.001Z] "GET / HTTP/1.1" 503 NoHealthyUpstream 0 19 0 - "-" "curl/8.5.0" "-" "shop.example.com" "-"`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 11, 1), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			method: "GET", path: "/", detail: "NoHealthyUpstream"}},
	{"constructed default format 503 without flags: the backend's",
		`[2024-05-01T12:00:11.002Z] "GET / HTTP/1.1" 503 - 0 19 2 1 "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 11, 2), status: 503, gen: GeneratedByBackend, failure: FailureAppError,
			backend: "10.244.1.17:8080", method: "GET", path: "/"}},
	{"constructed default format 200 UC: cut after the backend's status",
		`[2024-05-01T12:00:11.003Z] "GET / HTTP/1.1" 200 UC 0 1024 20 2 "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 11, 3), status: 200, gen: GeneratedByBackend, failure: FailureClosed,
			backend: "10.244.1.17:8080", method: "GET", path: "/", detail: "UC"}},
	{"constructed default format IPv6 backend, Envoy Gateway cluster unknown here",
		`[2024-05-01T12:00:11.004Z] "GET / HTTP/1.1" 200 - 0 10 2 1 "-" "curl/8.5.0" "-" "shop.example.com" "[fd00::17]:8080"`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 11, 4), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "[fd00::17]:8080", method: "GET", path: "/"}},
}

func TestEnvoyTextLines(t *testing.T) {
	for _, tc := range envoyTextCases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := envoyParse(t, envoyText{}, tc.line, time.Time{})
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("skipped=%d %v requests=%d", rep.Skipped, rep.SkipSamples(), len(c.requests))
			}
			checkEnvoyRequest(t, c.requests[0], FormatEnvoyAccess, tc.want)
			if c.requests[0].ProxyFamily() != FamilyEnvoy || c.requests[0].Origin != (Origin{File: "t.log", Line: 1}) {
				t.Errorf("family %q origin %v", c.requests[0].ProxyFamily(), c.requests[0].Origin)
			}
			if !(envoyText{}).Match([]byte(tc.line)) {
				t.Errorf("Match = false")
			}
		})
	}
}

// TestEnvoyTextStampIsNotUsed checks that a wrapper stamp does not replace
// or sharpen START_TIME: Envoy flushes its access log every 10 s by default
// (1 s under Istio), so the stamp can be later than the request's start by
// more than a second.
func TestEnvoyTextStampIsNotUsed(t *testing.T) {
	stamp := time.Date(2024, 5, 1, 12, 0, 11, 999_999_000, time.UTC)
	c, _ := envoyParse(t, envoyText{}, envoyTextCases[len(envoyTextCases)-3].line, stamp)
	if len(c.requests) != 1 || !c.requests[0].Time.Equal(envoyMs(2024, 5, 1, 12, 0, 11, 2)) {
		t.Fatalf("requests = %+v", c.requests)
	}
}

// envoyNoRecordLines are valid lines of an Envoy or Istio container's
// output that are no access record.
var envoyNoRecordLines = []string{
	// Istio's pilot-agent and Envoy in Istio's layout (istio/istio#32975,
	// #29109), after the pipeline took their time off.
	"info\tEnvoy proxy is ready",
	// The same behind `kubectl logs --timestamps`: kubectl's stamp is
	// taken off, Istio's own time is left.
	"2026-02-11T01:12:45.000000Z\tinfo\tEnvoy proxy is ready",
	"warning\tenvoy config\tgRPC config for type.googleapis.com/envoy.config.listener.v3.Listener rejected",
	// Envoy's default application log layout (envoyproxy/envoy#37268).
	"[2024-11-20 19:16:34.839][1][debug][main] [source/server/server.cc:237] flushing stats",
	// An Istio sidecar's TCP proxy entry (istio/istio#29109): no HTTP outcome.
	`[2020-11-22T20:04:33.157Z] "- - -" 0 - "-" "-" 4841 9845236 16230 - "-" "-" "-" "-" "104.20.28.24:443" PassthroughCluster 172.18.0.10:49944 104.20.28.24:443 172.18.0.10:49942 - -`,
}

func TestEnvoyTextNoRecordLines(t *testing.T) {
	for _, line := range envoyNoRecordLines {
		c, rep := envoyParse(t, envoyText{}, line, envoyMs(2024, 1, 1, 0, 0, 0, 0))
		if rep.Skipped != 0 || len(c.requests) != 0 {
			t.Errorf("%.60s: skipped=%d %v requests=%d", line, rep.Skipped, rep.SkipSamples(), len(c.requests))
		}
	}
	for _, line := range envoyNoRecordLines[:4] {
		if (envoyText{}).Match([]byte(line)) {
			t.Errorf("%.60s: Match = true for the proxy's own log", line)
		}
	}
}

// envoyTextSkipped are lines that must be skipped with a reason.
var envoyTextSkipped = []struct{ name, line string }{
	{"khi plain text line (rejected there too)", "2026-08-10T08:50:55.958Z info starting server on port 8080"},
	{"cut in the middle", `[2024-05-01T12:00:11.000Z] "GET / HTTP/1.1" 503 UF 0 91 1 - "-" "curl/8.5.0"`},
	{"bad time", `[2024-02-30T12:00:11.000Z] "GET / HTTP/1.1" 503 UF 0 91 1 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`},
	{"bad status", `[2024-05-01T12:00:11.000Z] "GET / HTTP/1.1" 5003 UF 0 91 1 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`},
	{"bad flags", `[2024-05-01T12:00:11.000Z] "GET / HTTP/1.1" 503 uf 0 91 1 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`},
	{"trailing comma in flags", `[2024-05-01T12:00:11.000Z] "GET / HTTP/1.1" 503 UF, 0 91 1 - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`},
	{"bad duration", `[2024-05-01T12:00:11.000Z] "GET / HTTP/1.1" 503 UF 0 91 x - "-" "curl/8.5.0" "-" "shop.example.com" "10.244.1.17:8080"`},
	{"an nginx access line", nginxAccessCases[0].line},
	{"an ALB access line", `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`},
}

func TestEnvoyTextSkippedLines(t *testing.T) {
	for _, tc := range envoyTextSkipped {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := envoyParse(t, envoyText{}, tc.line, time.Time{})
			if rep.Skipped != 1 || len(c.requests) != 0 {
				t.Fatalf("skipped=%d requests=%d", rep.Skipped, len(c.requests))
			}
			if (envoyText{}).Match([]byte(tc.line)) {
				t.Errorf("Match = true")
			}
		})
	}
}

func TestEnvoyTextSamples(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/samples/envoy/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("khi", func(t *testing.T) {
		c, rep := runLines(t, envoyText{}, "khi.log", read("GoogleCloudPlatform--khi--envoy_accesslog_test.log"))
		// Six access lines; the seventh is the plain text line khi's test
		// rejects too.
		if rep.Records != 6 || rep.Skipped != 1 || !strings.HasPrefix(rep.SkipSamples()[0], "khi.log:7: ") {
			t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
		}
		kinds := make([]FailureKind, len(c.requests))
		for i, r := range c.requests {
			kinds[i] = r.Failure
		}
		want := []FailureKind{FailureAppError, FailureRefused, FailureNone, FailureNone, FailureRefused, FailureNoBackend}
		if fmt.Sprint(kinds) != fmt.Sprint(want) {
			t.Errorf("kinds = %v, want %v", kinds, want)
		}
	})
	for name, n := range map[string]int{
		"istio--istio.io--access-log.log":             2,
		"projectcontour--contour--access-logging.log": 1,
		"envoyproxy--envoy--usage.log":                1,
	} {
		t.Run(name, func(t *testing.T) {
			c, rep := runLines(t, envoyText{}, name, read(name))
			if rep.Records != n || rep.Skipped != 0 || len(c.requests) != n {
				t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
			}
		})
	}
}

// TestEnvoyTextRecordsAreIndependent checks that a Handler's clone of one
// record is not changed by the next line (the adapter recycles them).
func TestEnvoyTextRecordsAreIndependent(t *testing.T) {
	text := envoyTextCases[3].line + "\n" + envoyTextCases[0].line + "\n"
	c, _ := runLines(t, envoyText{}, "t.log", text)
	if len(c.requests) != 2 || len(c.requests[0].Attempts) != 2 || c.requests[0].Detail != "UH,URX" ||
		c.requests[0].Attempts[0].Backend != netip.MustParseAddrPort("10.4.0.5:80") {
		t.Fatalf("requests = %+v", c.requests)
	}
}

func FuzzEnvoyText(f *testing.F) {
	for _, tc := range envoyTextCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range envoyTextSkipped {
		f.Add([]byte(tc.line))
	}
	for _, line := range envoyNoRecordLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEnvoyFuzzLine(t, envoyText{}, line)
	})
}

// checkEnvoyFuzzLine checks the invariants of an Envoy line adapter on
// any input: no change to the input, at most one record, records only from
// lines Match accepts (or the proxy's own lines), sane values.
func checkEnvoyFuzzLine(t *testing.T, a lineAdapter, line []byte) {
	orig := bytes.Clone(line)
	c := &collector{}
	rep := &InputReport{}
	em := newEmitter(c, &Options{}, rep, nil)
	ln := &Line{Origin: Origin{File: "f", Line: 1}}
	matched := a.Match(line)
	err := a.Parse(line, ln, em)
	if !bytes.Equal(line, orig) {
		t.Fatal("input modified")
	}
	if err != nil && len(c.requests) != 0 {
		t.Fatalf("error %v with %d records", err, len(c.requests))
	}
	if len(c.requests) > 1 || rep.Records != len(c.requests) {
		t.Fatalf("records = %d, report %d", len(c.requests), rep.Records)
	}
	for _, r := range c.requests {
		if !matched {
			t.Fatalf("record from a line Match rejects")
		}
		if r.Time.IsZero() || r.Status < 0 || r.Status > 999 || r.Format != a.Format() || r.ProxyFamily() != FamilyEnvoy {
			t.Fatalf("bad request %+v", r)
		}
		if n := len(r.Attempts); n > 0 && r.Backend != r.Attempts[n-1].Backend {
			t.Fatalf("backend %v is not the last attempt's", r.Backend)
		}
		if r.Failure == FailureAppError && r.Generator != GeneratedByBackend {
			t.Fatalf("an application error the proxy generated: %+v", r)
		}
	}
}

// envoyTextBenchLines builds n realistic Istio gateway access lines: mostly
// 200s from the backend, some retried refusals, no-healthy-upstream 503s.
func envoyTextBenchLines(n int) [][]byte {
	lines := make([][]byte, n)
	for i := range lines {
		ip := fmt.Sprintf("10.244.%d.%d:8080", i%7, 10+i%200)
		head := fmt.Sprintf(`[2024-05-01T12:%02d:%02d.%03dZ] "GET /api/items/%d?page=%d HTTP/1.1"`, (i/60)%60, i%60, i%1000, i, i%9)
		tail := fmt.Sprintf(`"203.0.113.%d" "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0" "%08x-5b6c-7d8e-9f0a-1b2c3d4e5f60" "shop.example.com"`, i%250, i)
		var l string
		switch {
		case i%97 == 0:
			l = fmt.Sprintf(`%s 503 URX,UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused} - "delayed_connect_error:_Connection_refused" 0 190 3 - %s "%s" %s 10.244.0.9:40000 10.244.0.9:8080 203.0.113.10:51234 - default`, head, tail, ip, envoyOutbound)
		case i%101 == 0:
			l = fmt.Sprintf(`%s 503 UH no_healthy_upstream - "-" 0 19 0 - %s "-" %s - 10.244.0.9:8080 203.0.113.10:51234 - default`, head, tail, envoyOutbound)
		default:
			l = fmt.Sprintf(`%s 200 - via_upstream - "-" 0 %d 4 3 %s "%s" %s 10.244.0.9:40000 10.244.0.9:8080 203.0.113.10:51234 - default`, head, 1000+i%500, tail, ip, envoyOutbound)
		}
		lines[i] = []byte(l)
	}
	return lines
}

// benchmarkLines times a line adapter over lines.
func benchmarkLines(b *testing.B, a lineAdapter, lines [][]byte) {
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	em := newEmitter(nginxDiscard{}, &Options{}, &InputReport{}, nil)
	ln := &Line{Origin: Origin{File: "bench", Line: 1}}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			if err := a.Parse(l, ln, em); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

func BenchmarkEnvoyTextParse(b *testing.B) {
	benchmarkLines(b, envoyText{}, envoyTextBenchLines(10000))
}

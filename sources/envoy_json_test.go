package sources

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// envoyJSONCases cover every JSON variant: Envoy Gateway's typed values
// (v1.4+) and string values (up to v1.3), Istio's JSON encoding (string
// values in older Envoy, typed in current), Contour's json fields.
var envoyJSONCases = []struct {
	name string
	line string
	want envoyWant
}{
	// Real: Envoy Gateway's troubleshooting page (Apache-2.0; samples/envoy/NOTICE).
	{"envoy gateway docs 500 direct_response, typed, nulls",
		`{":authority":"www.example.com","bytes_received":0,"bytes_sent":0,"connection_termination_details":null,"downstream_local_address":"10.1.21.65:10080","downstream_remote_address":"192.168.65.4:45050","duration":0,"method":"GET","protocol":"HTTP/1.1","requested_server_name":null,"response_code":500,"response_code_details":"direct_response","response_flags":"-","route_name":"httproute/default/backend/rule/0/match/0/www_example_com","start_time":"2025-03-08T02:25:32.588Z","upstream_cluster":null,"upstream_host":null,"upstream_local_address":null,"upstream_transport_failure_reason":null,"user-agent":"curl/8.7.1","x-envoy-origin-path":"/get","x-envoy-upstream-service-time":null,"x-forwarded-for":"192.168.65.4","x-request-id":"54c4c2f9-d209-4aa0-8870-342bc6622d1a"}`,
		envoyWant{time: envoyMs(2025, 3, 8, 2, 25, 32, 588), status: 500, gen: GeneratedByLB, failure: FailureOther,
			lb: "httproute/default/backend/rule/0/match/0/www_example_com", method: "GET", path: "/get", detail: "direct_response",
			platform: PlatformEnvoyGateway}},
	// Real: envoyproxy/gateway#7811 (quoted in the issue).
	{"envoy gateway #7811 200 via_upstream",
		`{":authority":"www.example.com","bytes_received":0,"bytes_sent":466,"connection_termination_details":null,"downstream_local_address":"127.0.0.1:10080","downstream_remote_address":"127.0.0.1:50548","duration":7,"method":"GET","protocol":"HTTP/1.1","requested_server_name":null,"response_code":200,"response_code_details":"via_upstream","response_flags":"-","route_name":"httproute/default/backend/rule/0/match/0/www_example_com","start_time":"2025-12-24T10:30:50.941Z","upstream_cluster":"httproute/default/backend/rule/0","upstream_host":"10.244.0.7:3000","upstream_local_address":"10.244.0.8:40258","upstream_transport_failure_reason":null,"user-agent":"curl/7.87.0","x-envoy-origin-path":"/get","x-envoy-upstream-service-time":null,"x-forwarded-for":"10.244.0.8","x-request-id":"2ab6ffcd-7221-4630-9d6a-4c38d94ed3c6"}`,
		envoyWant{time: envoyMs(2025, 12, 24, 10, 30, 50, 941), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.244.0.7:3000", lb: "httproute/default/backend/rule/0", method: "GET", path: "/get", detail: "via_upstream",
			platform: PlatformEnvoyGateway}},
	// Real: istio/istio#19056 (Istio 1.4, string values; quoted in the issue).
	{"istio #19056 503 UAEX, string values",
		`{"bytes_sent":"31","upstream_cluster":"-","downstream_remote_address":"100.100.0.0:54652","authority":"loki.example.com","path":"/api/prom/push","protocol":"HTTP/1.1","upstream_service_time":"-","upstream_local_address":"-","duration":"0","downstream_local_address":"100.108.0.25:443","upstream_transport_failure_reason":"-","route_name":"-","response_code":"503","user_agent":"Go-http-client/1.1","response_flags":"UAEX","start_time":"2019-11-19T03:27:35.402Z","method":"POST","request_id":"639632b6-8795-45e9-8435-fb5b07aede5e","upstream_host":"-","x_forwarded_for":"100.100.0.0","requested_server_name":"loki.example.com","bytes_received":"0","istio_policy_status":"\"UNAVAILABLE:no healthy upstream\""}`,
		envoyWant{time: envoyMs(2019, 11, 19, 3, 27, 35, 402), status: 503, gen: GeneratedByLB, failure: FailureOther,
			method: "POST", path: "/api/prom/push", detail: "UAEX"}},
	// Constructed: Envoy Gateway up to v1.3 (every value a string, `-` for unset).
	{"constructed envoy gateway 1.3 503 UH, strings",
		`{"start_time":"2024-05-01T12:00:01.123Z","method":"GET","x-envoy-origin-path":"/api/items","protocol":"HTTP/1.1","response_code":"503","response_flags":"UH","response_code_details":"no_healthy_upstream","connection_termination_details":"-","upstream_transport_failure_reason":"-","bytes_received":"0","bytes_sent":"19","duration":"0","x-envoy-upstream-service-time":"-","x-forwarded-for":"203.0.113.10","user-agent":"curl/8.5.0","x-request-id":"0c2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f60",":authority":"shop.example.com","upstream_host":"-","upstream_cluster":"httproute/shop/web/rule/0","upstream_local_address":"-","downstream_local_address":"10.244.0.9:10080","downstream_remote_address":"203.0.113.10:51234","requested_server_name":"-","route_name":"httproute/shop/web/rule/0/match/0/shop_example_com"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 1, 123), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			lb: "httproute/shop/web/rule/0", method: "GET", path: "/api/items", detail: "UH no_healthy_upstream", platform: PlatformEnvoyGateway}},
	{"constructed envoy gateway 1.4 503 UF No_route_to_host, typed",
		`{":authority":"shop.example.com","bytes_received":0,"bytes_sent":145,"connection_termination_details":null,"downstream_local_address":"10.244.0.9:10080","downstream_remote_address":"203.0.113.10:51236","duration":3001,"method":"POST","protocol":"HTTP/1.1","requested_server_name":null,"response_code":503,"response_code_details":"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_No_route_to_host}","response_flags":"UF","route_name":"httproute/shop/web/rule/0/match/0/shop_example_com","start_time":"2024-05-01T12:00:03.500Z","upstream_cluster":"httproute/shop/web/rule/0","upstream_host":"10.244.1.18:8080","upstream_local_address":null,"upstream_transport_failure_reason":"delayed_connect_error:_No_route_to_host","user-agent":"curl/8.5.0","x-envoy-origin-path":"/api/orders","x-envoy-upstream-service-time":null,"x-forwarded-for":"203.0.113.10","x-request-id":"2e2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f62"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 3, 500), status: 503, gen: GeneratedByLB, failure: FailureUnreachable,
			backend: "10.244.1.18:8080", lb: "httproute/shop/web/rule/0", method: "POST", path: "/api/orders", platform: PlatformEnvoyGateway,
			detail: "UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_No_route_to_host}"}},
	// Constructed: Istio's accessLogEncoding JSON, typed, with the attempt
	// count a user added under its usual name: a request retries rescued.
	{"constructed istio 200 after 3 attempts",
		`{"authority":"shop.example.com","bytes_received":0,"bytes_sent":512,"connection_termination_details":null,"downstream_local_address":"10.244.0.9:8080","downstream_remote_address":"203.0.113.10:51234","duration":40,"method":"GET","path":"/api/items","protocol":"HTTP/1.1","request_id":"1d2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f61","requested_server_name":null,"response_code":200,"response_code_details":"via_upstream","response_flags":"-","route_name":"default","start_time":"2024-05-01T12:00:02.001Z","upstream_cluster":"outbound|8080||web.shop.svc.cluster.local","upstream_host":"10.244.2.31:8080","upstream_local_address":"10.244.0.9:40000","upstream_request_attempt_count":3,"upstream_service_time":"4","upstream_transport_failure_reason":null,"user_agent":"curl/8.5.0","x_forwarded_for":null}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 2, 1), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.244.2.31:8080", lb: envoyOutbound, method: "GET", path: "/api/items", detail: "via_upstream",
			platform: PlatformIstio, count: 3}},
	{"constructed istio 503 URX,UF with every host attempted",
		`{"start_time":"2024-05-01T12:00:04.100Z","method":"GET","path":"/","response_code":503,"response_flags":"URX,UF","response_code_details":"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}","upstream_transport_failure_reason":"delayed_connect_error:_Connection_refused","upstream_host":"10.244.1.19:8080","upstream_hosts_attempted":"10.244.1.17:8080,10.244.1.18:8080,10.244.1.19:8080","upstream_request_attempt_count":3,"upstream_cluster":"outbound|8080||web.shop.svc.cluster.local"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 100), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.244.1.19:8080", lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio, count: 3, limit: true,
			detail: "URX,UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}",
			tries:  []nginxWantAttempt{{"10.244.1.17:8080", 0, FailureOther}, {"10.244.1.18:8080", 0, FailureOther}, {"10.244.1.19:8080", 503, FailureRefused}}}},
	{"constructed istio 503 UH,URX after two hosts were tried",
		`{"start_time":"2024-05-01T12:00:04.200Z","method":"GET","path":"/","response_code":503,"response_flags":"UH,URX","response_code_details":"no_healthy_upstream","upstream_host":null,"upstream_hosts_attempted":"10.244.1.17:8080,10.244.1.18:8080","upstream_cluster":"outbound|8080||web.shop.svc.cluster.local"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 200), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			lb: envoyOutbound, method: "GET", path: "/", platform: PlatformIstio, limit: true, detail: "UH,URX no_healthy_upstream",
			tries: []nginxWantAttempt{{"10.244.1.17:8080", 0, FailureOther}, {"10.244.1.18:8080", 0, FailureOther}, {"", 503, FailureNoBackend}}}},
	{"constructed hosts attempted without the upstream host: the last one is the backend",
		`{"start_time":"2024-05-01T12:00:04.300Z","response_code":200,"response_flags":"-","response_code_details":"via_upstream","upstream_hosts_attempted":"10.244.1.17:8080, 10.244.2.31:8080"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 300), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.244.2.31:8080", detail: "via_upstream",
			tries: []nginxWantAttempt{{"10.244.1.17:8080", 0, FailureOther}, {"10.244.2.31:8080", 200, FailureNone}}}},
	{"constructed escaped keys (fuzzing found Match missed them)",
		`{"start_time":"2024-05-01T12:00:04.400Z","response\u005fcode":503,"response_flags":"UH"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 4, 400), status: 503, gen: GeneratedByLB, failure: FailureNoBackend, detail: "UH"}},
	// Constructed: Contour's default json fields, empty values omitted.
	{"constructed contour 503 UC, flags and host logged, no details",
		`{"@timestamp":"2024-05-01T12:00:05.250Z","authority":"shop.example.com","bytes_received":312,"bytes_sent":95,"downstream_local_address":"10.244.0.9:8080","downstream_remote_address":"203.0.113.10:51237","duration":12,"method":"POST","path":"/api/orders","protocol":"HTTP/1.1","request_id":"3f2f3e4a-5b6c-7d8e-9f0a-1b2c3d4e5f63","response_code":503,"response_flags":"UC","upstream_cluster":"shop/web/80/da39a3ee5e","upstream_host":"10.244.1.17:8080","user_agent":"curl/8.5.0"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 5, 250), status: 503, gen: GeneratedByLB, failure: FailureClosed,
			backend: "10.244.1.17:8080", lb: "shop/web/80/da39a3ee5e", method: "POST", path: "/api/orders", detail: "UC", platform: PlatformContour}},
	{"constructed contour 200, no response_flags key",
		`{"@timestamp":"2024-05-01T12:00:05.251Z","duration":2,"method":"GET","path":"/","response_code":200,"upstream_cluster":"shop/web/80/da39a3ee5e","upstream_host":"10.244.1.17:8080"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 5, 251), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.244.1.17:8080", lb: "shop/web/80/da39a3ee5e", method: "GET", path: "/", platform: PlatformContour}},
	{"constructed escaped path and kgateway cluster",
		`{"start_time":"2024-05-01T12:00:06.000Z","method":"GET","path":"/a\"b\u00e9","response_code":504,"response_flags":"UT","upstream_cluster":"kube-svc:httpbin-httpbin-8000_httpbin","upstream_host":"10.36.0.14:8080"}`,
		envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 6, 0), status: 504, gen: GeneratedByLB, failure: FailureTimeout,
			backend: "10.36.0.14:8080", lb: "kube-svc:httpbin-httpbin-8000_httpbin", method: "GET", path: "/a\"bé", detail: "UT", platform: PlatformKgateway}},
}

func TestEnvoyJSONLines(t *testing.T) {
	for _, tc := range envoyJSONCases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := envoyParse(t, envoyJSON{}, tc.line, time.Time{})
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("skipped=%d %v requests=%d", rep.Skipped, rep.SkipSamples(), len(c.requests))
			}
			checkEnvoyRequest(t, c.requests[0], FormatEnvoyJSON, tc.want)
			if !(envoyJSON{}).Match([]byte(tc.line)) {
				t.Errorf("Match = false")
			}
			if (envoyText{}).Match([]byte(tc.line)) {
				t.Errorf("the text adapter matches a JSON line")
			}
		})
	}
}

// envoyJSONSkipped are JSON lines that must be skipped with a reason.
var envoyJSONSkipped = []struct{ name, line string }{
	{"envoy gateway controller log", `{"level":"info","ts":"2024-05-01T12:00:00.000Z","logger":"gateway-api","msg":"reconciling"}`},
	{"broken JSON", `{"start_time":"2024-05-01T12:00:06.000Z","response_code":504`},
	{"status not a number", `{"start_time":"2024-05-01T12:00:06.000Z","response_code":"5x3","response_flags":"-"}`},
	{"status out of range", `{"start_time":"2024-05-01T12:00:06.000Z","response_code":5003,"response_flags":"-"}`},
	{"status an object", `{"start_time":"2024-05-01T12:00:06.000Z","response_code":{},"response_flags":"-"}`},
	{"bad time", `{"start_time":"2024-13-01T12:00:06.000Z","response_code":200,"response_flags":"-"}`},
	{"bad flags", `{"start_time":"2024-05-01T12:00:06.000Z","response_code":503,"response_flags":"U H"}`},
	{"no time and no wrapper stamp", `{"response_code":503,"response_flags":"UH"}`},
	{"a GCP log entry", `{"insertId":"1","logName":"projects/p/logs/requests","httpRequest":{"status":503},"timestamp":"2024-05-01T12:00:06Z"}`},
}

func TestEnvoyJSONSkippedLines(t *testing.T) {
	for _, tc := range envoyJSONSkipped {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := envoyParse(t, envoyJSON{}, tc.line, time.Time{})
			if rep.Skipped != 1 || len(c.requests) != 0 {
				t.Fatalf("skipped=%d requests=%d", rep.Skipped, len(c.requests))
			}
			if (envoyJSON{}).Match([]byte(tc.line)) {
				t.Errorf("Match = true")
			}
		})
	}
}

// TestEnvoyJSONWrapperStamp checks that a record without a time is timed by
// the wrapper stamp, which is all it has.
func TestEnvoyJSONWrapperStamp(t *testing.T) {
	stamp := envoyUs(2024, 5, 1, 12, 0, 0, 123456)
	c, rep := envoyParse(t, envoyJSON{}, `{"response_code":503,"response_flags":"UH"}`, stamp)
	if rep.Skipped != 0 || len(c.requests) != 1 || !c.requests[0].Time.Equal(stamp) || c.requests[0].Failure != FailureNoBackend {
		t.Fatalf("skipped=%d %v requests=%+v", rep.Skipped, rep.SkipSamples(), c.requests)
	}
	// The stamp is when the line was written: a request that took 2.5 s
	// (%DURATION%) started that much before it.
	c, _ = envoyParse(t, envoyJSON{}, `{"response_code":502,"response_flags":"UC","duration":2500}`, stamp)
	if len(c.requests) != 1 || !c.requests[0].Time.Equal(stamp.Add(-2500*time.Millisecond)) || !c.requests[0].Logged().Equal(stamp) {
		t.Fatalf("requests=%+v; want started 2.5 s before the stamp", c.requests)
	}
}

func TestEnvoyJSONOwnLogLines(t *testing.T) {
	c, rep := envoyParse(t, envoyJSON{}, "[2024-11-20 19:16:34.839][1][debug][main] [source/server/server.cc:237] flushing stats", time.Time{})
	if rep.Skipped != 0 || len(c.requests) != 0 {
		t.Fatalf("skipped=%d requests=%d", rep.Skipped, len(c.requests))
	}
}

func TestEnvoyJSONSamples(t *testing.T) {
	b, err := os.ReadFile("testdata/samples/envoy/envoyproxy--gateway--troubleshooting-configuration.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c, rep := runLines(t, envoyJSON{}, "eg.jsonl", string(b))
	if rep.Records != 1 || rep.Skipped != 0 || c.requests[0].Status != 500 || c.requests[0].Failure != FailureOther {
		t.Fatalf("records=%d skipped=%d %v %+v", rep.Records, rep.Skipped, rep.SkipSamples(), c.requests)
	}
}

func FuzzEnvoyJSON(f *testing.F) {
	for _, tc := range envoyJSONCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range envoyJSONSkipped {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEnvoyFuzzLine(t, envoyJSON{}, line)
	})
}

// checkEnvoyJSONScan checks that when the one-pass reader takes a line it
// accepts only what the JSON parser accepts and reads the same record and
// error from it, with the default keys and with a custom dictionary, each
// twice: with the key positions the lines before left, then with the
// line's own. It reports whether the default keys' reader took the line.
func checkEnvoyJSONScan(t *testing.T, line []byte) bool {
	t.Helper()
	took := false
	for i, keys := range []*envoyKeyMap{envoyJSONDefaults, envoyJSONScanCustom} {
		fast := &envoyJSONScanStates[i]
		for range 2 {
			fast.start(keys, time.UTC)
			if !fast.scan(line) {
				continue
			}
			took = took || i == 0
			var full envoyJSONState
			full.start(keys, time.UTC)
			if err := full.parse(line); err != nil {
				t.Fatalf("keys %d: scan reads a line the parser refuses (%v): %q", i, err, line)
			}
			if fast.err != full.err || !reflect.DeepEqual(fast.rec, full.rec) || !fast.emit.Equal(full.emit) {
				t.Fatalf("keys %d: scan read %+v %v, the parser %+v %v: %q", i, fast.rec, fast.err, full.rec, full.err, line)
			}
		}
	}
	return took
}

// envoyJSONScanStates are the readers checkEnvoyJSONScan keeps from line to
// line, one per dictionary, as a worker keeps its state.
var envoyJSONScanStates [2]envoyJSONState

// envoyJSONScanCustom is a custom dictionary for checkEnvoyJSONScan: other
// key names, an emit time and the attempt count.
var envoyJSONScanCustom = func() *envoyKeyMap {
	m, err := compileEnvoyKeyMap(map[string]any{
		"t": "%EMIT_TIME%", "code": "%RESPONSE_CODE%", "flags": "%RESPONSE_FLAGS%", "up": "%UPSTREAM_HOST%",
		"tries": "%UPSTREAM_REQUEST_ATTEMPT_COUNT%", "path": "%REQ(:PATH)%",
	})
	if err != nil {
		panic(err)
	}
	return m
}()

// envoyJSONScanHandOver are lines the one-pass reader must leave to the
// JSON parser; the parser reads some and refuses others.
var envoyJSONScanHandOver = []string{
	`{"start_time":"2024-05-01T12:00:04.400Z","response\u005fcode":503,"response_flags":"UH"}`,
	`{"start_time":"2024-05-01T12:00:06.000Z","path":"/a\"b","response_code":504}`,
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code":504,"extra":{"a":1}}`,
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code":504,"extra":[1,2]}`,
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code":504`,
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code":504}x`,
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code":nan}`,
	`{"start_time":"2024-05-01T12:00:06.000Z" "response_code":504}`,
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code":504,}`,
	`["start_time"]`,
	// After a line with "response_code" at the same position: the same
	// key not followed by a colon.
	`{"start_time":"2024-05-01T12:00:06.000Z","response_code"x:504}`,
}

// TestEnvoyJSONScanAgreesWithParse checks the one-pass reader against the
// JSON parser on every test line: it takes the flat lines Envoy writes
// (the benchmark's too), leaves the others to the parser, and reads what
// the parser reads.
func TestEnvoyJSONScanAgreesWithParse(t *testing.T) {
	for _, tc := range envoyJSONCases {
		// An escape in a key or a value read is the parser's; one in a
		// value skipped (istio#19056's istio_policy_status) is not.
		took := checkEnvoyJSONScan(t, []byte(tc.line))
		if escaped := strings.Contains(tc.name, "escaped"); took == escaped {
			t.Errorf("%s: scan took the line: %v", tc.name, took)
		}
	}
	for _, tc := range envoyJSONSkipped {
		checkEnvoyJSONScan(t, []byte(tc.line))
	}
	for _, l := range envoyJSONBenchLines(300) {
		if !checkEnvoyJSONScan(t, l) {
			t.Fatalf("scan left a benchmark line to the parser: %s", l)
		}
	}
	for _, l := range envoyJSONScanHandOver {
		if checkEnvoyJSONScan(t, []byte(l)) {
			t.Errorf("scan took %s", l)
		}
	}
	// Keys that differ from the ones remembered at their position by one
	// byte more or less: read as the keys they are.
	for _, l := range []string{
		`{"start_time":"2024-05-01T12:00:06.000Z","response_code":504}`,
		`{"start_time":"2024-05-01T12:00:06.000Z","response_codes":504}`,
		`{"start_time":"2024-05-01T12:00:06.000Z","response_cod":504}`,
	} {
		if !checkEnvoyJSONScan(t, []byte(l)) {
			t.Errorf("scan left %s to the parser", l)
		}
	}
	// Values the parser reads and scan must read alike: white space
	// everywhere, numbers for text operators, literals, an empty object.
	for _, l := range []string{
		" { \"start_time\" : \"2024-05-01T12:00:06.000Z\" ,\t\"response_code\" :\r\n504 , \"upstream_host\": 7, \"x\": true, \"y\": false, \"z\": null } ",
		`{"t":"2024-05-01T12:00:06.000Z","code":"503","flags":"UF","up":"10.0.0.1:80","tries":3,"path":"/"}`,
		`{"t":"2024-05-01T12:00:06.000Z","code":null,"tries":-1}`,
		`{"t":"2024-05-01T12:00:06.000Z","code":5.03e2}`,
		`{"t":"2024-05-01T12:00:06.000Z","code":+503}`,
		`{"t":"2024-05-01T12:00:06.000Z","code":99999999999999999999}`,
		`{"t":"2024-05-01T12:00:06.000Z","code":true}`,
		`{"x":"a\\\\","code":200,"t":"2024-05-01T12:00:06.000Z"}`,
		`{}`,
	} {
		var st envoyJSONState
		st.start(envoyJSONScanCustom, time.UTC)
		if !st.scan([]byte(l)) {
			t.Errorf("scan left %s to the parser", l)
		}
		checkEnvoyJSONScan(t, []byte(l))
	}
}

func FuzzEnvoyJSONScan(f *testing.F) {
	for _, tc := range envoyJSONCases {
		f.Add([]byte(tc.line))
	}
	for _, l := range envoyJSONScanHandOver {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkEnvoyJSONScan(t, line)
	})
}

// envoyJSONBenchLines builds n realistic Envoy Gateway (v1.4+) access
// lines: mostly 200s, some refusals, some no-healthy-upstream 503s.
func envoyJSONBenchLines(n int) [][]byte {
	lines := make([][]byte, n)
	for i := range lines {
		ip := fmt.Sprintf(`"10.244.%d.%d:8080"`, i%7, 10+i%200)
		status, flags, details, reason := "200", `"-"`, `"via_upstream"`, "null"
		switch {
		case i%97 == 0:
			status, flags = "503", `"UF"`
			details = `"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"`
			reason = `"delayed_connect_error:_Connection_refused"`
		case i%101 == 0:
			status, flags, details, ip = "503", `"UH"`, `"no_healthy_upstream"`, "null"
		}
		l := fmt.Sprintf(`{":authority":"shop.example.com","bytes_received":0,"bytes_sent":%d,"connection_termination_details":null,`+
			`"downstream_local_address":"10.244.0.9:10080","downstream_remote_address":"203.0.113.%d:5%04d","duration":4,"method":"GET",`+
			`"protocol":"HTTP/1.1","requested_server_name":null,"response_code":%s,"response_code_details":%s,"response_flags":%s,`+
			`"route_name":"httproute/shop/web/rule/0/match/0/shop_example_com","start_time":"2024-05-01T12:%02d:%02d.%03dZ",`+
			`"upstream_cluster":"httproute/shop/web/rule/0","upstream_host":%s,"upstream_local_address":"10.244.0.9:40000",`+
			`"upstream_transport_failure_reason":%s,"user-agent":"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",`+
			`"x-envoy-origin-path":"/api/items/%d?page=%d","x-envoy-upstream-service-time":"3","x-forwarded-for":"203.0.113.%d",`+
			`"x-request-id":"%08x-5b6c-7d8e-9f0a-1b2c3d4e5f60"}`,
			1000+i%500, i%250, i%10000, status, details, flags, (i/60)%60, i%60, i%1000, ip, reason, i, i%9, i%250, i)
		lines[i] = []byte(l)
	}
	return lines
}

func BenchmarkEnvoyJSONParse(b *testing.B) {
	lines := envoyJSONBenchLines(10000)
	if strings.Count(string(lines[0]), `"`) < 40 {
		b.Fatal("bench lines are not Envoy Gateway records")
	}
	benchmarkLines(b, envoyJSON{}, lines)
}

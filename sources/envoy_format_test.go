package sources

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// envoyCustomCases are custom formats users run, each with lines in it:
// the formats are real (their source is named), the lines real where the
// source shows one and constructed in the format otherwise.
var envoyCustomCases = []struct {
	name   string
	format string
	line   string
	want   envoyWant
	// readByDefault says a default format reads the line too (it starts
	// like one, or has the default JSON keys), if with less in it.
	readByDefault bool
}{
	{
		// envoyproxy/envoy#9242: START_TIME with its own layout (%z and %s),
		// key=value pairs, gRPC status 200 with UT. Format and line as
		// quoted in the issue; the status is HTTP 200 (gRPC puts its error in
		// trailers), so it is no failure readygap counts.
		name:   "envoy#9242 key=value with START_TIME(%d/%m/%YT%H:%M:%S%z %s)",
		format: `"[%START_TIME(%d/%m/%YT%H:%M:%S%z %s)%] method=%REQ(:METHOD)% authority=%REQ(:AUTHORITY)% txId=%RESP(TID)% request=%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% alpn=%PROTOCOL% response_flag=%RESPONSE_FLAGS% ssl_protocol=%DOWNSTREAM_TLS_VERSION% ssl_cipher=%DOWNSTREAM_TLS_CIPHER% status=%RESPONSE_CODE% status_details=%RESPONSE_CODE_DETAILS% request_size=%BYTES_RECEIVED% response_size=%BYTES_SENT% envoy_request_id=%REQ(X-REQUEST-ID)% user-agent=%REQ(USER-AGENT)% xFor=%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT% x-envoy-upstream-service-time=%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% total_time_ms=%DURATION% upstream=%UPSTREAM_HOST%\n"`,
		line:   `[05/12/2019T16:14:53+0000 1575562493] method=POST authority=localhost:443 txId=- request=/StudentService/get alpn=HTTP/2 response_flag=UT ssl_protocol=TLSv1.3 ssl_cipher=TLS_AES_128_GCM_SHA256 status=200 status_details=upstream_response_timeout request_size=84 response_size=0 envoy_request_id=52220e61-e045-4dc7-bdc3-c8b5e77dd2ee user-agent=grpc-go/1.24.0 xFor=49.207.48.241 x-envoy-upstream-service-time=- total_time_ms=15001 upstream=127.0.0.1:7000`,
		want: envoyWant{time: time.Date(2019, 12, 5, 16, 14, 53, 0, time.UTC), status: 200, gen: GeneratedByLB, failure: FailureNone,
			backend: "127.0.0.1:7000", method: "POST", path: "/StudentService/get", detail: "UT upstream_response_timeout"},
	},
	{
		// istio/istio#28731: Istio 1.2's format with a custom header, as a
		// values file gives it (quotes escaped); the line is constructed.
		name:   "istio#28731 custom header at the end",
		format: `[%START_TIME%] \"%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%\" %RESPONSE_CODE% %RESPONSE_FLAGS% \"%DYNAMIC_METADATA(istio.mixer:status)%\" \"%UPSTREAM_TRANSPORT_FAILURE_REASON%\" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% \"%REQ(X-FORWARDED-FOR)%\" \"%REQ(USER-AGENT)%\" \"%REQ(X-REQUEST-ID)%\" \"%REQ(:AUTHORITY)%\" \"%UPSTREAM_HOST%\" %UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% \"c:%REQ(custom-header)%\" \n`,
		line:   `[2020-11-10T10:00:00.250Z] "GET /orders HTTP/1.1" 503 UF "-" "-" 0 91 2 - "-" "curl/7.64.0" "8f2d7c5e-1b7a-4b2e-9a71-1f2e3d4c5b6a" "orders.shop:8080" "10.1.2.3:8080" outbound|8080||orders.shop.svc.cluster.local - 10.0.9.9:8080 10.1.0.5:40000 - "c:tenant-42"`,
		want: envoyWant{time: envoyMs(2020, 11, 10, 10, 0, 0, 250), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.1.2.3:8080", lb: "outbound|8080||orders.shop.svc.cluster.local", method: "GET", path: "/orders", detail: "UF", platform: PlatformIstio},
		readByDefault: true,
	},
	{
		// istio/istio#37773: a format that starts with a header and logs the
		// details but no flags; the line is constructed.
		name:   "istio#37773 leading custom header, details without flags",
		format: ` \"my_custom_header\": \"%REQ(MY_CUSTOM_HEADER)%\" [%START_TIME%] \"%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%\" %RESPONSE_CODE% %RESPONSE_CODE_DETAILS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% \"%REQ(X-FORWARDED-FOR)%\" \"%REQ(USER-AGENT)%\" \"%REQ(X-REQUEST-ID)%\" \"%REQ(:AUTHORITY)%\" \"%UPSTREAM_HOST%\" %UPSTREAM_CLUSTER% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% %ROUTE_NAME% \n`,
		line:   `"my_custom_header": "123456789" [2022-03-07T09:15:01.002Z] "GET /api HTTP/1.1" 503 no_healthy_upstream 0 19 0 - "-" "curl/7.79.1" "0b0c7b52-2d40-4e5e-8bd8-6ff1a1b1c111" "api.example.com" "-" outbound|80||api.default.svc.cluster.local - 10.0.0.7:80 10.0.0.8:51000 - default`,
		want: envoyWant{time: envoyMs(2022, 3, 7, 9, 15, 1, 2), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			lb: "outbound|80||api.default.svc.cluster.local", method: "GET", path: "/api", detail: "no_healthy_upstream", platform: PlatformIstio},
	},
	{
		// Envoy's own START_TIME examples (usage.rst): epoch with microseconds,
		// and the attempt count; the line is constructed.
		name:   "usage.rst START_TIME(%s.%6f) and UPSTREAM_REQUEST_ATTEMPT_COUNT",
		format: `%START_TIME(%s.%6f)% %RESPONSE_CODE% %RESPONSE_FLAGS% %UPSTREAM_REQUEST_ATTEMPT_COUNT% %UPSTREAM_HOST% %UPSTREAM_CLUSTER%`,
		line:   `1714564801.123456 200 - 2 10.244.2.31:8080 httproute/shop/web/rule/0`,
		want: envoyWant{time: envoyUs(2024, 5, 1, 12, 0, 1, 123456), status: 200, gen: GeneratedByBackend, failure: FailureNone,
			backend: "10.244.2.31:8080", lb: "httproute/shop/web/rule/0", platform: PlatformEnvoyGateway, count: 2},
	},
	{
		// A microsecond START_TIME in absl's %E6S; constructed.
		name:   "START_TIME(%Y-%m-%dT%H:%M:%E6SZ) and RESPONSE_FLAGS_LONG",
		format: `[%START_TIME(%Y-%m-%dT%H:%M:%E6SZ)%] %RESPONSE_CODE% %RESPONSE_FLAGS_LONG% "%UPSTREAM_HOST%"`,
		line:   `[2024-05-01T12:00:01.123456Z] 503 UpstreamConnectionTermination "10.244.1.17:8080"`,
		want: envoyWant{time: envoyUs(2024, 5, 1, 12, 0, 1, 123456), status: 503, gen: GeneratedByLB, failure: FailureClosed,
			backend: "10.244.1.17:8080", detail: "UpstreamConnectionTermination"},
	},
	{
		// Envoy Gateway up to v1.3: its default was this format string,
		// JSON-looking text (internal/xds/translator/accesslog.go before
		// 8f48f5199c), read as a dictionary; the line is constructed.
		name:   "envoy gateway 1.3 default as a dictionary",
		format: `{"start_time":"%START_TIME%","method":"%REQ(:METHOD)%","x-envoy-origin-path":"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%","protocol":"%PROTOCOL%","response_code":"%RESPONSE_CODE%","response_flags":"%RESPONSE_FLAGS%","response_code_details":"%RESPONSE_CODE_DETAILS%","connection_termination_details":"%CONNECTION_TERMINATION_DETAILS%","upstream_transport_failure_reason":"%UPSTREAM_TRANSPORT_FAILURE_REASON%","bytes_received":"%BYTES_RECEIVED%","bytes_sent":"%BYTES_SENT%","duration":"%DURATION%","x-envoy-upstream-service-time":"%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%","x-forwarded-for":"%REQ(X-FORWARDED-FOR)%","user-agent":"%REQ(USER-AGENT)%","x-request-id":"%REQ(X-REQUEST-ID)%",":authority":"%REQ(:AUTHORITY)%","upstream_host":"%UPSTREAM_HOST%","upstream_cluster":"%UPSTREAM_CLUSTER%","upstream_local_address":"%UPSTREAM_LOCAL_ADDRESS%","downstream_local_address":"%DOWNSTREAM_LOCAL_ADDRESS%","downstream_remote_address":"%DOWNSTREAM_REMOTE_ADDRESS%","requested_server_name":"%REQUESTED_SERVER_NAME%","route_name":"%ROUTE_NAME%"}\n`,
		line:   `{"start_time":"2024-05-01T12:00:05.250Z","method":"POST","x-envoy-origin-path":"/api/orders","protocol":"HTTP/1.1","response_code":"503","response_flags":"UC","response_code_details":"upstream_reset_before_response_started{connection_termination}","connection_termination_details":"-","upstream_transport_failure_reason":"-","bytes_received":"312","bytes_sent":"95","duration":"12","x-envoy-upstream-service-time":"-","x-forwarded-for":"203.0.113.10","user-agent":"curl/8.5.0","x-request-id":"3f2f3e4a",":authority":"shop.example.com","upstream_host":"10.244.1.17:8080","upstream_cluster":"httproute/shop/web/rule/0","upstream_local_address":"10.244.0.9:40000","downstream_local_address":"10.244.0.9:10080","downstream_remote_address":"203.0.113.10:51237","requested_server_name":"-","route_name":"httproute/shop/web/rule/0/match/0/shop_example_com"}`,
		want: envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 5, 250), status: 503, gen: GeneratedByLB, failure: FailureClosed,
			backend: "10.244.1.17:8080", lb: "httproute/shop/web/rule/0", method: "POST", path: "/api/orders", platform: PlatformEnvoyGateway,
			detail: "UC upstream_reset_before_response_started{connection_termination}"},
		readByDefault: true,
	},
	{
		// kgateway's documented HTTPListenerPolicy jsonFormat (kgateway.dev
		// docs/security/access-logging.md), with its own key names; the line
		// is constructed in the shape of the page's example output.
		name:   "kgateway jsonFormat with custom keys",
		format: `{"start_time":"%START_TIME%","method":"%REQ(X-ENVOY-ORIGINAL-METHOD?:METHOD)%","path":"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%","protocol":"%PROTOCOL%","response_code":"%RESPONSE_CODE%","response_flags":"%RESPONSE_FLAGS%","bytes_received":"%BYTES_RECEIVED%","bytes_sent":"%BYTES_SENT%","total_duration":"%DURATION%","resp_backend_service_time":"%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%","req_x_forwarded_for":"%REQ(X-FORWARDED-FOR)%","user_agent":"%REQ(USER-AGENT)%","request_id":"%REQ(X-REQUEST-ID)%","authority":"%REQ(:AUTHORITY)%","backendHost":"%UPSTREAM_HOST%","backendCluster":"%UPSTREAM_CLUSTER%"}`,
		line:   `{"authority":"www.example.com:8080","bytes_received":0,"bytes_sent":19,"method":"GET","path":"/status/200","protocol":"HTTP/1.1","req_x_forwarded_for":null,"request_id":"a6758866-0f26-4c95-95d9-4032c365c498","resp_backend_service_time":null,"response_code":503,"response_flags":"UH","start_time":"2024-08-19T20:57:57.511Z","total_duration":0,"backendCluster":"kube-svc:httpbin-httpbin-8000_httpbin","backendHost":null,"user_agent":"curl/7.77.0"}`,
		want: envoyWant{time: envoyMs(2024, 8, 19, 20, 57, 57, 511), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			lb: "kube-svc:httpbin-httpbin-8000_httpbin", method: "GET", path: "/status/200", detail: "UH", platform: PlatformKgateway},
		readByDefault: true,
	},
	{
		// A nested dictionary with a millisecond START_TIME layout (the shape
		// of several public configs); constructed.
		name:   "nested dictionary with START_TIME(%Y-%m-%dT%H:%M:%S.%3fZ)",
		format: `{"@timestamp":"%START_TIME(%Y-%m-%dT%H:%M:%S.%3fZ)%","request":{"method":"%REQ(:METHOD)%","path":"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%"},"response":{"code":"%RESPONSE_CODE%","flags":"%RESPONSE_FLAGS%","details":"%RESPONSE_CODE_DETAILS%"},"upstream":{"host":"%UPSTREAM_HOST%","cluster":"%UPSTREAM_CLUSTER%"}}`,
		line:   `{"@timestamp":"2024-05-01T12:00:02.001Z","request":{"method":"GET","path":"/"},"response":{"code":503,"flags":"UF","details":"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"},"upstream":{"host":"10.244.1.17:8080","cluster":"web"}}`,
		want: envoyWant{time: envoyMs(2024, 5, 1, 12, 0, 2, 1), status: 503, gen: GeneratedByLB, failure: FailureRefused,
			backend: "10.244.1.17:8080", lb: "web", method: "GET", path: "/",
			detail: "UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"},
	},
}

func TestEnvoyCustomFormats(t *testing.T) {
	for _, tc := range envoyCustomCases {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{EnvoyFormat: tc.format}
			if err := opts.prepare(); err != nil {
				t.Fatal(err)
			}
			var a lineAdapter
			for _, x := range opts.lineAdapterSet() {
				if x.Match([]byte(tc.line)) {
					if a != nil {
						t.Fatalf("two adapters match: %s and %s", a.Format(), x.Format())
					}
					a = x
				}
			}
			if a == nil {
				t.Fatal("no adapter matches the line")
			}
			c, rep := envoyParse(t, a, tc.line, time.Time{})
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("skipped=%d %v requests=%d", rep.Skipped, rep.SkipSamples(), len(c.requests))
			}
			checkEnvoyRequest(t, c.requests[0], a.Format(), tc.want)
			matched := false
			for _, x := range lineAdapters {
				matched = matched || x.Match([]byte(tc.line))
			}
			if matched != tc.readByDefault {
				t.Errorf("read without the format: %v, want %v", matched, tc.readByDefault)
			}
		})
	}
}

// TestEnvoyCustomFormatKeepsDefaults checks that with a custom format the
// default formats are still read.
func TestEnvoyCustomFormatKeepsDefaults(t *testing.T) {
	f, err := compileEnvoyFormat(envoyCustomCases[3].format)
	if err != nil {
		t.Fatal(err)
	}
	a := newEnvoyText(f)
	for _, tc := range envoyTextCases[:3] {
		if c, rep := envoyParse(t, a, tc.line, time.Time{}); len(c.requests) != 1 || rep.Skipped != 0 {
			t.Errorf("%s: requests=%d %v", tc.name, len(c.requests), rep.SkipSamples())
		}
	}
	_, rep := envoyParse(t, a, "not an envoy line", time.Time{})
	if s := rep.SkipSamples(); len(s) != 1 || !strings.Contains(s[0], "--envoy-format") {
		t.Errorf("skip = %v", s)
	}
}

func TestEnvoyFormatErrors(t *testing.T) {
	for _, tc := range []struct{ format, want string }{
		{"", "empty"},
		{`\n`, "empty"},
		{"just text", "no command operator"},
		{"[%START_TIME%] %RESPONSE_FLAGS%", "RESPONSE_CODE"},
		{"%RESPONSE_CODE%%RESPONSE_FLAGS%", "cannot be told apart"},
		{"%START_TIME(%Q)% %RESPONSE_CODE%", "unsupported START_TIME specifier %Q"},
		{"%START_TIME(%H:%M:%S)% %RESPONSE_CODE%", "without a full date"},
		{"%START_TIME(%E5X)% %RESPONSE_CODE%", "unsupported"},
		{"%START_TIME(%Y%)% %RESPONSE_CODE%", "ends in %"},
		{`{"status":"%RESPONSE_FLAGS%"}`, "RESPONSE_CODE"},
		{`{"t":"%START_TIME(%q)%","status":"%RESPONSE_CODE%"}`, "unsupported"},
	} {
		_, err := compileEnvoyCustom(tc.format)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.format, err, tc.want)
		}
	}
	// A JSON-looking format with unquoted operators is a format string.
	c, err := compileEnvoyCustom(`{"status":%RESPONSE_CODE%,"flags":"%RESPONSE_FLAGS%"}`)
	if err != nil || c.text == nil || c.json != nil {
		t.Fatalf("custom = %+v, %v", c, err)
	}
	// A % that starts no operator is text.
	f, err := compileEnvoyFormat("100% %RESPONSE_CODE% %UPSTREAM_HOST%")
	if err != nil || string(f.lits[0]) != "100% " || len(f.ops) != 2 {
		t.Fatalf("format = %+v, %v", f, err)
	}
}

// TestEnvoyTimeLayouts pins each START_TIME specifier on each side: the
// value it reads and one it refuses.
func TestEnvoyTimeLayouts(t *testing.T) {
	want := envoyUs(2024, 5, 1, 12, 0, 1, 123456)
	for _, tc := range []struct {
		spec, good, bad string
		want            time.Time
	}{
		{"", "2024-05-01T12:00:01.123Z", "2024-05-01 12:00:01.123Z", envoyMs(2024, 5, 1, 12, 0, 1, 123)},
		{"%Y-%m-%dT%H:%M:%E6SZ", "2024-05-01T12:00:01.123456Z", "2024-05-01T12:00:01.123Z", want},
		{"%Y-%m-%dT%H:%M:%E*S%Ez", "2024-05-01T14:00:01.123456+02:00", "2024-05-01T14:00:01.123456+0200", want},
		{"%F %T.%6f %z", "2024-05-01 05:00:01.123456 -0700", "2024-05-01 05:00:01.123456 -07:00", want},
		{"%s.%6f", "1714564801.123456", "1714564801.12345", want},
		{"%s", "1714564801", "x1714564801", envoyMs(2024, 5, 1, 12, 0, 1, 0)},
		{"%d/%b/%Y:%H:%M:%S %z", "01/May/2024:12:00:01 +0000", "01/Mai/2024:12:00:01 +0000", envoyMs(2024, 5, 1, 12, 0, 1, 0)},
		{"%a %e %b %y %H:%M:%S.%9f %Z", "Wed  1 May 24 12:00:01.123456000 UTC", "Wed  1 May 24 12:00:01.123456000 XYZ", want},
		{"%Y-%m-%dT%H:%M:%S%%", "2024-05-01T12:00:01%", "2024-05-01T12:00:01", envoyMs(2024, 5, 1, 12, 0, 1, 0)},
	} {
		l, err := compileEnvoyTime(tc.spec, false)
		if err != nil {
			t.Errorf("%q: %v", tc.spec, err)
			continue
		}
		if got, ok := l.parse([]byte(tc.good), time.UTC); !ok || !got.Equal(tc.want) {
			t.Errorf("%q: parse(%q) = %v %v, want %v", tc.spec, tc.good, got, ok, tc.want)
		}
		if got, ok := l.parse([]byte(tc.bad), time.UTC); ok {
			t.Errorf("%q: parse(%q) = %v, want a refusal", tc.spec, tc.bad, got)
		}
	}
}

// TestEnvoyTimeLocal checks that START_TIME_LOCAL without a zone is read
// in the run's zone, and START_TIME in UTC whatever the run's zone.
func TestEnvoyTimeLocal(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	local, err := compileEnvoyTime("%Y-%m-%d %H:%M:%S", true)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := local.parse([]byte("2024-05-01 21:00:01"), tokyo); !ok || !got.Equal(envoyMs(2024, 5, 1, 12, 0, 1, 0)) {
		t.Errorf("local = %v %v", got, ok)
	}
	utc, _ := compileEnvoyTime("%Y-%m-%d %H:%M:%S", false)
	if got, ok := utc.parse([]byte("2024-05-01 12:00:01"), tokyo); !ok || !got.Equal(envoyMs(2024, 5, 1, 12, 0, 1, 0)) {
		t.Errorf("utc = %v %v", got, ok)
	}
	def, _ := compileEnvoyTime("", true)
	if got, ok := def.parse([]byte("2024-05-01T21:00:01.123+0900"), tokyo); !ok || !got.Equal(envoyMs(2024, 5, 1, 12, 0, 1, 123)) {
		t.Errorf("default local = %v %v", got, ok)
	}
}

// TestEnvoyFormatOption reads a custom-format file through Read, and
// checks that a bad format fails the run before any input is read.
func TestEnvoyFormatOption(t *testing.T) {
	dir := t.TempDir()
	tc := envoyCustomCases[0]
	path := filepath.Join(dir, "envoy.log")
	// kubectl --timestamps in front, as users export it.
	if err := os.WriteFile(path, []byte("2019-12-05T16:15:08.000000001Z "+tc.line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	res, err := Read(context.Background(), []string{path}, Options{EnvoyFormat: tc.format}, func(*InputReport) Handler { return c })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || res.Inputs[0].Format != FormatEnvoyAccess || len(c.requests) != 1 || c.requests[0].Detail != "UT upstream_response_timeout" {
		t.Fatalf("inputs %+v warnings %v requests %+v", res.Inputs, res.Warnings, c.requests)
	}
	if _, err := Read(context.Background(), []string{path}, Options{}, func(*InputReport) Handler { return c }); err == nil {
		t.Errorf("the file is read without its format")
	}
	if _, err := Read(context.Background(), []string{path}, Options{EnvoyFormat: "%RESPONSE_FLAGS%"}, func(*InputReport) Handler { return c }); err == nil ||
		!strings.Contains(err.Error(), "Envoy access-log format") {
		t.Errorf("bad format: %v", err)
	}
}

func FuzzEnvoyFormat(f *testing.F) {
	for _, tc := range envoyCustomCases {
		f.Add(tc.format, []byte(tc.line))
	}
	f.Add(envoyDefaultFormat, []byte(envoyTextCases[7].line))
	f.Fuzz(func(t *testing.T, format string, line []byte) {
		c, err := compileEnvoyCustom(format)
		if err != nil {
			return
		}
		if c.text != nil {
			checkEnvoyFuzzLine(t, newEnvoyText(c.text), line)
		}
		if c.json != nil {
			checkEnvoyFuzzLine(t, envoyJSON{custom: c.json}, line)
		}
	})
}

// TestEnvoyTextTimeLayoutWithSpaces checks that a START_TIME layout that
// contains the literal after it is read by its layout, and that an unset
// start time falls back to the wrapper stamp.
func TestEnvoyTextTimeLayoutWithSpaces(t *testing.T) {
	f, err := compileEnvoyFormat(`%START_TIME(%F %T)% %RESPONSE_CODE% %RESPONSE_FLAGS% %UPSTREAM_HOST%`)
	if err != nil {
		t.Fatal(err)
	}
	a := newEnvoyText(f)
	c, rep := envoyParse(t, a, `2024-05-01 12:00:01 503 UH -`, time.Time{})
	if rep.Skipped != 0 || len(c.requests) != 1 || !c.requests[0].Time.Equal(envoyMs(2024, 5, 1, 12, 0, 1, 0)) || c.requests[0].Failure != FailureNoBackend {
		t.Fatalf("skipped=%d %v requests=%+v", rep.Skipped, rep.SkipSamples(), c.requests)
	}
	stamp := envoyUs(2024, 5, 1, 12, 0, 2, 5)
	c, rep = envoyParse(t, a, `- 200 - 10.0.0.1:80`, stamp)
	if rep.Skipped != 0 || len(c.requests) != 1 || !c.requests[0].Time.Equal(stamp) {
		t.Fatalf("skipped=%d %v requests=%+v", rep.Skipped, rep.SkipSamples(), c.requests)
	}
	if _, rep = envoyParse(t, a, `2024-05-01T12:00:01 200 - 10.0.0.1:80`, stamp); rep.Skipped != 1 {
		t.Errorf("a time not in the layout is read")
	}
}

// envoySampleFormat is the access format of renuka-fernando/examples'
// envoy/simple/envoy.yaml at commit 5920f09 (MIT; samples/envoy/NOTICE), as
// its YAML folded scalar gives it: Envoy's default with the response code
// details after the flags, so that neither default format reads its lines.
const envoySampleFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %RESPONSE_CODE_DETAILS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"\n`

// TestEnvoyCustomFormatSamples reads the real lines logged in that format,
// behind docker's timestamps, with --envoy-format: every outcome the page
// provoked, to the millisecond of START_TIME (not docker's later stamp).
// Without the format the file is not read.
func TestEnvoyCustomFormatSamples(t *testing.T) {
	const path = "testdata/samples/envoy/renuka-fernando--examples--envoy-simple.log"
	c := &collector{}
	res, err := Read(context.Background(), []string{path}, Options{EnvoyFormat: envoySampleFormat}, func(*InputReport) Handler { return c })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || res.Inputs[0].Format != FormatEnvoyAccess || res.Inputs[0].Skipped != 0 {
		t.Fatalf("inputs %+v", res.Inputs)
	}
	sort.Slice(c.requests, func(i, j int) bool { return c.requests[i].Origin.Line < c.requests[j].Origin.Line })
	want := []envoyWant{
		{time: envoyMs(2024, 7, 20, 7, 5, 54, 173), status: 504, gen: GeneratedByLB, failure: FailureTimeout, backend: "172.27.0.2:8080",
			method: "GET", path: "/gateway-timeout?delayMs=5000", detail: "UT response_timeout"},
		{time: envoyMs(2024, 7, 20, 7, 6, 24, 729), status: 503, gen: GeneratedByLB, failure: FailureNoBackend,
			method: "GET", path: "/no-healthy-upstream", detail: "UH no_healthy_upstream"},
		{time: envoyMs(2024, 7, 20, 7, 9, 48, 470), status: 503, gen: GeneratedByLB, failure: FailureRefused, backend: "172.28.0.2:801",
			method: "GET", path: "/upstream-connection-failure", detail: "UF upstream_reset_before_response_started{connection_failure,delayed_connect_error:_111}"},
		{time: envoyMs(2024, 7, 20, 7, 23, 58, 586), status: 200, gen: GeneratedByBackend, failure: FailureClosed, backend: "192.168.5.2:8080",
			method: "GET", path: "/upstream-connection-failure/after-response", detail: "UPE upstream_reset_after_response_started{protocol_error}"},
		{time: envoyMs(2024, 7, 20, 7, 32, 21, 519), status: 503, gen: GeneratedByLB, failure: FailureOther, backend: "172.31.0.3:8080",
			method: "GET", path: "/upstream-service-overflow?delayMs=5000", detail: "UO upstream_reset_before_response_started{overflow}"},
		{time: envoyMs(2024, 7, 20, 7, 32, 21, 516), status: 200, gen: GeneratedByBackend, failure: FailureNone, backend: "172.31.0.3:8080",
			method: "GET", path: "/upstream-service-overflow?delayMs=5000", detail: "via_upstream"},
		{time: envoyMs(2024, 7, 20, 7, 38, 15, 899), status: 503, gen: GeneratedByLB, failure: FailureOther,
			method: "GET", path: "/no-upstream-cluster", detail: "NC cluster_not_found"},
		{time: envoyMs(2024, 7, 20, 7, 45, 34, 828), status: 500, gen: GeneratedByBackend, failure: FailureAppError, backend: "192.168.48.2:8080",
			method: "GET", path: "/upstream-retry-exceeds?statusCode=500", detail: "URX via_upstream", limit: true},
		{time: envoyMs(2024, 7, 21, 8, 32, 59, 547), status: 101, gen: GeneratedByLB, failure: FailureNone, backend: "192.168.5.2:8080",
			method: "GET", path: "/ws", detail: "DC downstream_remote_disconnect"},
		// The backend's 101, then Envoy's idle timeout: a status below 500
		// with a flag and no via_upstream counts as the proxy's, no failure.
		{time: envoyMs(2024, 7, 21, 9, 11, 33, 481), status: 101, gen: GeneratedByLB, failure: FailureNone, backend: "192.168.5.2:8080",
			method: "GET", path: "/ws", detail: "SI stream_idle_timeout"},
	}
	if len(c.requests) != len(want) {
		t.Fatalf("%d requests, want %d", len(c.requests), len(want))
	}
	for i, w := range want {
		t.Run(w.path, func(t *testing.T) { checkEnvoyRequest(t, c.requests[i], FormatEnvoyAccess, w) })
	}
	if _, err := Read(context.Background(), []string{path}, Options{}, func(*InputReport) Handler { return &collector{} }); err == nil {
		t.Errorf("the file is read without its format")
	}
}

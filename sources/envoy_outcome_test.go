package sources

import (
	"fmt"
	"testing"
	"time"
)

// TestEnvoyOutcome pins the failure-kind table of docs/envoy.md, row by
// row, each with a neighbour that must come out differently.
func TestEnvoyOutcome(t *testing.T) {
	const host = "10.244.1.17:8080"
	for _, tc := range []struct {
		status                 int
		flags, details, reason string
		host                   string
		gen                    Generator
		kind                   FailureKind
	}{
		// Nothing routable.
		{503, "UH", "no_healthy_upstream", "", "", GeneratedByLB, FailureNoBackend},
		{503, "UH", "", "", "", GeneratedByLB, FailureNoBackend},
		{503, "", "no_healthy_upstream", "", "", GeneratedByLB, FailureNoBackend},
		// Refused: older and current Envoy, in the details or the reason only.
		{503, "UF", "upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_111}", "", host, GeneratedByLB, FailureRefused},
		{503, "UF", "upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}", "", host, GeneratedByLB, FailureRefused},
		{503, "UF", "", "delayed_connect_error:_Connection_refused", host, GeneratedByLB, FailureRefused},
		{503, "UF", "upstream_reset_before_response_started{connection_failure}", "delayed_connect_error:_111", host, GeneratedByLB, FailureRefused},
		{503, "UF", "", "", host, GeneratedByLB, FailureRefused},
		// The pod's IP gone.
		{503, "UF", "upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_No_route_to_host}", "", host, GeneratedByLB, FailureUnreachable},
		{503, "UF", "upstream_reset_before_response_started{remote_connection_failure|immediate_connect_error:_Network_is_unreachable|remote_address:[fd00::1]:80}", "", host, GeneratedByLB, FailureUnreachable},
		{503, "UF", "", "delayed_connect_error:_113", host, GeneratedByLB, FailureUnreachable},
		{503, "UF", "upstream_reset_before_response_started{remote_connection_failure}", "delayed_connect_error:_Host_is_unreachable", host, GeneratedByLB, FailureUnreachable},
		// Connect timeouts.
		{503, "UF", "upstream_reset_before_response_started{connection_timeout}", "", host, GeneratedByLB, FailureTimeout},
		{503, "UF", "", "delayed_connect_error:_110", host, GeneratedByLB, FailureTimeout},
		// Closed or reset mid-request.
		{503, "UC", "upstream_reset_before_response_started{connection_termination}", "", host, GeneratedByLB, FailureClosed},
		{503, "UC", "", "", host, GeneratedByLB, FailureClosed},
		{503, "UR", "upstream_reset_before_response_started{remote_reset}", "", host, GeneratedByLB, FailureClosed},
		{503, "UR", "upstream_reset_before_response_started{remote_refused_stream_reset}", "", host, GeneratedByLB, FailureClosed},
		{503, "UF", "", "delayed_connect_error:_Connection_reset_by_peer", host, GeneratedByLB, FailureClosed},
		{200, "UC", "upstream_reset_after_response_started{connection_termination}", "", host, GeneratedByBackend, FailureClosed},
		{200, "UR", "", "", host, GeneratedByBackend, FailureClosed},
		// Timeouts.
		{504, "UT", "upstream_response_timeout", "", host, GeneratedByLB, FailureTimeout},
		{504, "UT", "upstream_per_try_timeout", "", host, GeneratedByLB, FailureTimeout},
		{504, "UT", "", "", host, GeneratedByLB, FailureTimeout},
		{200, "UT", "upstream_response_timeout", "", host, GeneratedByLB, FailureNone},
		// The application's own 5xx, never an incident.
		{503, "", "via_upstream", "", host, GeneratedByBackend, FailureAppError},
		{503, "URX", "via_upstream", "", host, GeneratedByBackend, FailureAppError},
		{500, "", "", "", host, GeneratedByBackend, FailureAppError},
		{200, "", "via_upstream", "", host, GeneratedByBackend, FailureNone},
		// The client went away.
		{0, "DC", "downstream_remote_disconnect", "", host, GeneratedByLB, FailureNone},
		{0, "UF,DC", "", "", host, GeneratedByLB, FailureNone},
		{503, "DC", "", "", host, GeneratedByLB, FailureNone},
		// Other proxy-made statuses.
		{503, "UO", "", "", "", GeneratedByLB, FailureOther},
		{503, "NC", "cluster_not_found", "", "", GeneratedByLB, FailureOther},
		{500, "", "direct_response", "", "", GeneratedByLB, FailureOther},
		{503, "UF", "upstream_reset_before_response_started{remote_connection_failure|TLS_error:_CERTIFICATE_VERIFY_FAILED}", "", host, GeneratedByLB, FailureOther},
		{503, "LR", "upstream_reset_before_response_started{local_reset}", "", host, GeneratedByLB, FailureOther},
		{503, "UAEX", "ext_authz_error", "", "", GeneratedByLB, FailureOther},
		{503, "", "", "", "", GeneratedByLB, FailureOther},
		// Proxy-made, but not 5xx: not a failure.
		{404, "NR", "route_not_found", "", "", GeneratedByLB, FailureNone},
		{429, "RL", "request_rate_limited", "", "", GeneratedByLB, FailureNone},
		{200, "", "", "", "", GeneratedUnknown, FailureNone},
	} {
		rec := envoyRecord{status: tc.status, hasStatus: true, flags: envoyValue([]byte(tc.flags)),
			details: envoyValue([]byte(tc.details)), reason: envoyValue([]byte(tc.reason)), host: envoyValue([]byte(tc.host))}
		flags, err := parseEnvoyFlags(rec.flags)
		if err != nil {
			t.Fatal(err)
		}
		gen, kind := envoyOutcome(&rec, flags)
		if gen != tc.gen || kind != tc.kind {
			t.Errorf("%d %q %q %q host %q: %v/%v, want %v/%v", tc.status, tc.flags, tc.details, tc.reason, tc.host, gen, kind, tc.gen, tc.kind)
		}
	}
}

func TestEnvoyFlags(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want envoyFlags
		err  bool
	}{
		{"-", 0, false},
		{"UH", flagUH, false},
		{"UH,URX", flagUH | flagURX, false},
		{"URX,UF", flagUF | flagURX, false},
		{"NoHealthyUpstream,UpstreamRetryLimitExceeded", flagUH | flagURX, false},
		{"RL", flagOther, false},
		{"XCUSTOM", flagOther, false},
		{"UH,", 0, true},
		{",UH", 0, true},
		{"uh", 0, true},
		{"U H", 0, true},
		{"UH;URX", 0, true},
	} {
		got, err := parseEnvoyFlags([]byte(tc.in))
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%q: %b %v, want %b err=%v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestEnvoyPlatform(t *testing.T) {
	for cluster, want := range map[string]Platform{
		"outbound|8080||web.shop.svc.cluster.local": PlatformIstio,
		"inbound|8080||":                                  PlatformIstio,
		"PassthroughCluster":                              PlatformIstio,
		"httproute/default/backend/rule/0":                PlatformEnvoyGateway,
		"grpcroute/default/backend/rule/1":                PlatformEnvoyGateway,
		"default/kuard/80/da39a3ee5e":                     PlatformContour,
		"default/kuard/80/da39a3ee5":                      "",
		"default/kuard/http/da39a3ee5e":                   "",
		"default/kuard/80/DA39A3EE5E":                     "",
		"kube-svc:httpbin-httpbin-8000_httpbin":           PlatformKgateway,
		"default-httpbin-8000_gloo-system":                "",
		"my_service":                                      "",
		"":                                                "",
		"outbound_.8000_._.httpbin.foo.svc.cluster.local": "",
	} {
		if got := envoyPlatform([]byte(cluster)); got != want {
			t.Errorf("%q: %q, want %q", cluster, got, want)
		}
	}
}

// TestEnvoyDetailText checks the evidence text: what Envoy said, each part
// once.
func TestEnvoyDetailText(t *testing.T) {
	for _, tc := range []struct{ flags, details, reason, termination, want string }{
		{"UF", "upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}", "delayed_connect_error:_Connection_refused", "",
			"UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"},
		{"UF", "", "delayed_connect_error:_111", "", "UF delayed_connect_error:_111"},
		{"", "via_upstream", "", "", "via_upstream"},
		{"DC", "", "", "filter_chain_is_being_removed", "DC filter_chain_is_being_removed"},
		{"", "", "", "", ""},
	} {
		rec := envoyRecord{flags: envoyValue([]byte(tc.flags)), details: envoyValue([]byte(tc.details)),
			reason: envoyValue([]byte(tc.reason)), termination: envoyValue([]byte(tc.termination))}
		if got := string(envoyDetailText(nil, &rec)); got != tc.want {
			t.Errorf("%s: %q", fmt.Sprint(tc), got)
		}
	}
}

// TestEnvoyDuration checks that %DURATION% (milliseconds) is read as the
// request's Duration in every layout: Istio's text format, Envoy's default,
// typed and string JSON, and a custom format; unset is 0, and a value
// time.Duration cannot hold is dropped rather than wrapped.
func TestEnvoyDuration(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name   string
		format string // Options.EnvoyFormat; "" for the defaults
		line   string
		want   time.Duration
	}{
		{"istio text, retried", "",
			`[2026-02-11T06:20:34.788Z] "GET / HTTP/1.1" 503 URX,UF upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_No_route_to_host} - "delayed_connect_error:_No_route_to_host" 0 188 6085 - "203.0.113.101" "curl/8.5.0" "403511a7-b4e3-4251-b99c-951b02752301" "shop.example.com" "10.244.2.200:8080" outbound|80||web.shop.svc.cluster.local - 10.244.11.181:8080 203.0.113.101:1352 - web`,
			6085 * ms},
		{"envoy default text", "",
			`[2021-04-14T16:36:00.361Z] "GET /foo HTTP/1.1" 200 - 0 463 6 3 "-" "HTTPie/1.0.3" "837aa8dc-344f-4faa-b7d5-c9cce1028519" "localhost:8080" "127.0.0.1:8081"`,
			6 * ms},
		{"typed JSON", "",
			`{":authority":"www.example.com","bytes_received":0,"bytes_sent":466,"duration":7,"method":"GET","protocol":"HTTP/1.1","response_code":200,"response_code_details":"via_upstream","response_flags":"-","start_time":"2025-12-24T10:30:50.941Z","upstream_host":"10.244.0.7:3000"}`,
			7 * ms},
		{"string JSON", "",
			`{"start_time":"2024-05-01T12:00:06.000Z","response_code":"503","response_flags":"UF","duration":"3001","upstream_host":"10.244.1.18:8080"}`,
			3001 * ms},
		{"string JSON, unset", "",
			`{"start_time":"2024-05-01T12:00:06.000Z","response_code":"503","response_flags":"UH","duration":"-","upstream_host":"-"}`,
			0},
		{"typed JSON, beyond time.Duration", "",
			`{"start_time":"2024-05-01T12:00:06.000Z","response_code":503,"response_flags":"UF","duration":9223372036854775807,"upstream_host":"10.244.1.18:8080"}`,
			0},
		{"custom format (envoy#9242)", envoyCustomCases[0].format, envoyCustomCases[0].line, 15001 * ms},
	} {
		opts := Options{EnvoyFormat: c.format}
		if err := opts.prepare(); err != nil {
			t.Fatal(err)
		}
		var a lineAdapter
		for _, x := range opts.lineAdapterSet() {
			if a == nil && x.Match([]byte(c.line)) {
				a = x
			}
		}
		if a == nil {
			t.Fatalf("%s: no adapter matches", c.name)
		}
		got, rep := envoyParse(t, a, c.line, time.Time{})
		if rep.Skipped != 0 || len(got.requests) != 1 {
			t.Fatalf("%s: skipped=%d %v requests=%d", c.name, rep.Skipped, rep.SkipSamples(), len(got.requests))
		}
		if d := got.requests[0].Duration; d != c.want {
			t.Errorf("%s: duration %v, want %v", c.name, d, c.want)
		}
	}
}

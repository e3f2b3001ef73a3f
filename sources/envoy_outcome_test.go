package sources

import (
	"fmt"
	"testing"
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

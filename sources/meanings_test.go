package sources

import (
	"fmt"
	"strings"
	"testing"
)

// TestMeaningsAgreeWithAdapters checks every value the adapters tell apart:
// it has a meaning and a documentation link, LookupMeanings finds it, and
// the generator and failure it is explained with are what the adapter
// makes of a real line carrying it.
func TestMeaningsAgreeWithAdapters(t *testing.T) {
	all := Meanings()
	counts := map[string]int{}
	for _, m := range all {
		counts[m.Field]++
		if m.Means == "" || !strings.HasPrefix(m.Doc, "https://") || m.Family == "" {
			t.Errorf("%s %q: meaning %q, doc %q, family %q", m.Field, m.Value, m.Means, m.Doc, m.Family)
		}
		found := false
		for _, v := range append([]string{m.Value}, m.Aliases...) {
			for _, got := range LookupMeanings(v) {
				found = found || got.Field == m.Field && got.Value == m.Value
			}
		}
		if !found && m.Field != FieldEnvoyReset && m.Field != FieldEnvoyErrno && m.Field != FieldNginxErrno {
			t.Errorf("%s %q: LookupMeanings does not find it", m.Field, m.Value)
		}
		gen, kind, ok := adapterOutcome(t, m)
		if !ok {
			continue
		}
		if gen != m.Generator || kind != m.Failure {
			t.Errorf("%s %q: explained as %s/%s, the adapter reads %s/%s", m.Field, m.Value, m.Generator, m.Failure, gen, kind)
		}
	}
	// Every row of the adapters' tables is there.
	want := map[string]int{
		FieldEnvoyFlag: len(envoyFlagNames), FieldEnvoyDetail: len(envoyDetailKinds), FieldEnvoyReset: len(envoyResetKinds),
		FieldEnvoyErrno: len(envoyErrnoKinds), FieldNginxError: len(nginxMessages), FieldNginxErrno: len(nginxErrnos),
		FieldNginxPeer: 1,
	}
	for _, r := range gcpDetails {
		want[FieldGCPDetail] += len(r.details)
	}
	for f, n := range want {
		if counts[f] != n || n == 0 {
			t.Errorf("%s: %d meanings, the adapters know %d", f, counts[f], n)
		}
	}
}

// adapterOutcome reads a line (or entry) carrying m's value with its
// adapter and returns the outcome of the request it gives.
func adapterOutcome(t *testing.T, m Meaning) (Generator, FailureKind, bool) {
	t.Helper()
	var c *collector
	var rep *InputReport
	envoy := func(flags, details, reason string) {
		line := fmt.Sprintf(`[2024-01-02T03:04:05.000Z] "GET / HTTP/1.1" 503 %s %s - "%s" 0 0 1 - "-" "curl/8.5.0" "id" "web" "-" outbound|8080||web.shop.svc.cluster.local - 10.0.0.9:8080 10.0.0.1:1234 - default`,
			flags, details, reason)
		c, rep = runLines(t, envoyText{}, "meaning", line)
	}
	nginx := func(msg string) {
		line := `2024/01/02 03:04:06 [error] 31#31: *1234 ` + msg + `, client: 203.0.113.10, server: shop, request: "GET / HTTP/1.1", upstream: "http://10.244.1.17:8080/", host: "shop"`
		c, rep = runLines(t, ingressNginx{}, "meaning", line)
	}
	switch m.Field {
	case FieldEnvoyFlag:
		envoy(m.Value, "-", "-")
	case FieldEnvoyDetail:
		envoy("-", m.Value, "-")
	case FieldEnvoyReset:
		envoy("-", envoyResetBeforeResponse+"{"+m.Value+"}", "-")
	case FieldEnvoyErrno:
		envoy("UF", "-", "delayed_connect_error:_"+m.Value)
	case FieldGCPDetail:
		entry := `{"httpRequest":{"requestMethod":"GET","requestUrl":"https://shop.example.com/","status":503},"jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","statusDetails":"` +
			m.Value + `"},"logName":"projects/p/logs/requests","resource":{"type":"http_load_balancer"},"timestamp":"2024-05-01T12:00:00Z"}`
		c, rep = runJSON(t, gcpLogging{}, "meaning", entry)
	case FieldNginxError:
		nginx(m.Value + " while reading response header from upstream")
	case FieldNginxErrno:
		nginx("connect() failed (" + m.Value + ": x) while connecting to upstream")
	case FieldNginxPeer:
		line := `10.0.2.213 - - [07/Jun/2019:14:32:28 +0000] "GET / HTTP/1.1" 502 158 "-" "curl/8.5.0" 756 0.000 [shop-web-80] [] ` + m.Aliases[0] + ` 0 0.000 502 b1735cbec6aa0fd116ec81fb0e2e5ba5`
		c, rep = runLines(t, ingressNginx{}, "meaning", line)
	default:
		t.Fatalf("no line for %s", m.Field)
	}
	if len(c.requests) != 1 {
		t.Errorf("%s %q: %d requests, %d skipped %v", m.Field, m.Value, len(c.requests), rep.Skipped, rep.SkipSamples())
		return 0, 0, false
	}
	return c.requests[0].Generator, c.requests[0].Failure, true
}

func TestLookupMeanings(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string // values, in order
	}{
		{"UF,URX", []string{"UF", "URX"}},
		{"NoHealthyUpstream", []string{"UH"}},
		{"UAEX", []string{"UAEX"}},
		{"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}", []string{"remote_connection_failure", "connection_refused"}},
		{"upstream_reset_before_response_started{connection_failure,delayed_connect_error:_113}", []string{"connection_failure", "113"}},
		{`error="destination_unavailable"; details="failed_to_pick_backend"`, []string{"destination_unavailable", "failed_to_pick_backend"}},
		{"backend_connection_closed_before_data_sent_to_client", []string{"backend_connection_closed_before_data_sent_to_client"}},
		{"upstream prematurely closed connection while reading response header from upstream", []string{"upstream prematurely closed connection"}},
		{"connect() failed (111: Connection refused) while connecting to upstream", []string{"111"}},
		{"via_upstream", []string{"via_upstream"}},
		{"0.0.0.1:80", []string{"0.0.0.1"}},
		{"hello", nil},
		{"", nil},
	} {
		var got []string
		for _, m := range LookupMeanings(tc.in) {
			got = append(got, m.Value)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestReadLine(t *testing.T) {
	// An ALB line whose three times are -1: a connection the target refused
	// (AWS Knowledge Center on ALB 502s), pasted with typographic quotes.
	alb := `http 2024-01-02T03:04:05.123456Z app/my-alb/50dc6c495c0c9188 203.0.113.9:46532 10.0.1.17:8080 -1 -1 -1 502 - 34 366 “GET http://shop.example.com:80/ HTTP/1.1” "curl/8.5.0" - - arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/web/1a2b3c4d5e6f7a8b "Root=1-65934f45-1a2b3c4d5e6f7a8b9c0d1e2f" "-" "-" 0 2024-01-02T03:04:05.100000Z "forward" "-" "-" "10.0.1.17:8080" "-" "-" "-"`
	lo := ReadLine(alb)
	if lo.Format != FormatALBAccess || len(lo.Requests) != 1 || lo.Requests[0].Failure != FailureRefused || lo.Requests[0].Generator != GeneratedByLB {
		t.Errorf("ALB line: %+v", lo)
	}
	if lo := ReadLine("hello world"); lo.Format != "" {
		t.Errorf("prose read as %s", lo.Format)
	}
}

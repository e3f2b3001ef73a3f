package sources

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// nginxParseOne feeds one line to the ingress-nginx adapter with a wrapper
// stamp and a time zone for zone-less times, as the pipeline would.
func nginxParseOne(t testing.TB, line string, stamp time.Time, loc *time.Location) (*collector, *InputReport) {
	t.Helper()
	c := &collector{}
	rep := &InputReport{Name: "t.log", Format: FormatIngressNginx}
	em := newEmitter(c, &Options{TZ: loc}, rep, newDedupSet())
	ln := &Line{Origin: Origin{File: "t.log", Line: 1}, Stamp: stamp}
	if err := (ingressNginx{}).Parse([]byte(line), ln, em); err != nil {
		em.Skip(ln.Origin, err.Error())
	}
	return c, rep
}

// nginxAP parses an expected backend; "" is the zero AddrPort.
func nginxAP(s string) netip.AddrPort {
	if s == "" {
		return netip.AddrPort{}
	}
	return netip.MustParseAddrPort(s)
}

func nginxUTC(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

type nginxWantAttempt struct {
	backend string
	status  int
	failure FailureKind
}

type nginxWantRequest struct {
	time     time.Time
	status   int
	gen      Generator
	failure  FailureKind
	backend  string
	attempts []nginxWantAttempt
	method   string
	path     string
	lb       string
}

// checkNginxRequest compares every field of an access-line Request.
func checkNginxRequest(t *testing.T, got *Request, w nginxWantRequest) {
	t.Helper()
	if !got.Logged().Equal(w.time) || got.Time.Location() != time.UTC {
		t.Errorf("logged time = %v, want %v UTC", got.Logged(), w.time)
	}
	if got.Status != w.status || got.Generator != w.gen || got.Failure != w.failure {
		t.Errorf("status/generator/failure = %d/%v/%v, want %d/%v/%v",
			got.Status, got.Generator, got.Failure, w.status, w.gen, w.failure)
	}
	if got.Backend != nginxAP(w.backend) {
		t.Errorf("backend = %v, want %q", got.Backend, w.backend)
	}
	if got.Method != w.method || got.Path != w.path || got.LB != w.lb {
		t.Errorf("method/path/lb = %q %q %q, want %q %q %q", got.Method, got.Path, got.LB, w.method, w.path, w.lb)
	}
	if got.AttemptOnly || got.Format != FormatIngressNginx || got.Detail != "" {
		t.Errorf("attemptOnly=%v format=%q detail=%q", got.AttemptOnly, got.Format, got.Detail)
	}
	if len(got.Attempts) != len(w.attempts) {
		t.Fatalf("attempts = %+v, want %+v", got.Attempts, w.attempts)
	}
	for i, a := range w.attempts {
		g := got.Attempts[i]
		if g.Backend != nginxAP(a.backend) || g.Status != a.status || g.Failure != a.failure {
			t.Errorf("attempt %d = %v %d %v, want %q %d %v", i, g.Backend, g.Status, g.Failure, a.backend, a.status, a.failure)
		}
	}
}

// nginxAccessCases are every access line quoted in nginx-k8s.md §1.10 and §6.1.
var nginxAccessCases = []struct {
	name string
	line string
	want nginxWantRequest
}{
	{"1.10 200",
		`203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 200, GeneratedByBackend, FailureNone, "10.244.2.31:8080",
			[]nginxWantAttempt{{"10.244.2.31:8080", 200, FailureNone}}, "GET", "/api/items", "shop-web-80"}},
	{"1.10 200 after one refused attempt",
		`203.0.113.10 - - [02/Jan/2024:03:04:06 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.005 [shop-web-80] [] 10.244.1.17:8080, 10.244.2.31:8080 0, 512 0.000, 0.004 502, 200 1d2f3e4a5b6c7d8e9f0a1b2c3d4e5f61`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 6), 200, GeneratedByBackend, FailureNone, "10.244.2.31:8080",
			[]nginxWantAttempt{{"10.244.1.17:8080", 502, FailureOther}, {"10.244.2.31:8080", 200, FailureNone}}, "GET", "/api/items", "shop-web-80"}},
	{"1.10 502 all refused",
		`203.0.113.10 - - [02/Jan/2024:03:04:06 +0000] "GET /api/items HTTP/1.1" 502 150 "-" "curl/8.5.0" 87 0.002 [shop-web-80] [] 10.244.1.17:8080, 10.244.1.18:8080, 10.244.1.17:8080 0, 0, 0 0.001, 0.000, 0.001 502, 502, 502 2e2f3e4a5b6c7d8e9f0a1b2c3d4e5f62`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 6), 502, GeneratedByLB, FailureOther, "10.244.1.17:8080",
			[]nginxWantAttempt{{"10.244.1.17:8080", 502, FailureOther}, {"10.244.1.18:8080", 502, FailureOther}, {"10.244.1.17:8080", 502, FailureOther}},
			"GET", "/api/items", "shop-web-80"}},
	{"1.10 502 POST reset",
		`203.0.113.10 - - [02/Jan/2024:03:04:07 +0000] "POST /api/orders HTTP/1.1" 502 150 "-" "curl/8.5.0" 312 0.003 [shop-web-80] [] 10.244.1.17:8080 0 0.002 502 3f2f3e4a5b6c7d8e9f0a1b2c3d4e5f63`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 7), 502, GeneratedByLB, FailureOther, "10.244.1.17:8080",
			[]nginxWantAttempt{{"10.244.1.17:8080", 502, FailureOther}}, "POST", "/api/orders", "shop-web-80"}},
	{"1.10 503 no endpoints",
		`203.0.113.10 - - [02/Jan/2024:03:04:08 +0000] "GET /api/items HTTP/1.1" 503 190 "-" "curl/8.5.0" 87 0.000 [shop-web-80] [] - - - - 4a2f3e4a5b6c7d8e9f0a1b2c3d4e5f64`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 8), 503, GeneratedByLB, FailureNoBackend, "", nil, "GET", "/api/items", "shop-web-80"}},
	{"1.10 504 connect timeouts",
		`203.0.113.10 - - [02/Jan/2024:03:04:24 +0000] "GET /api/items HTTP/1.1" 504 160 "-" "curl/8.5.0" 87 15.004 [shop-web-80] [] 10.244.1.17:8080, 10.244.1.17:8080, 10.244.1.17:8080 0, 0, 0 5.001, 5.002, 5.001 504, 504, 504 5b2f3e4a5b6c7d8e9f0a1b2c3d4e5f65`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 24), 504, GeneratedByLB, FailureTimeout, "10.244.1.17:8080",
			[]nginxWantAttempt{{"10.244.1.17:8080", 504, FailureTimeout}, {"10.244.1.17:8080", 504, FailureTimeout}, {"10.244.1.17:8080", 504, FailureTimeout}},
			"GET", "/api/items", "shop-web-80"}},
	{"6.1 #12196 404 from the app",
		`192.168.49.1 - - [15/Oct/2024:13:09:02 +0000] "GET /esg-search HTTP/2.0" 404 682 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0" 24 0.016 [default-esgf-search-8080] [] 10.244.0.227:8080 682 0.015 404 0e443239dcc3e725ee285b338ed1fb45`,
		nginxWantRequest{nginxUTC(2024, 10, 15, 13, 9, 2), 404, GeneratedByBackend, FailureNone, "10.244.0.227:8080",
			[]nginxWantAttempt{{"10.244.0.227:8080", 404, FailureNone}}, "GET", "/esg-search", "default-esgf-search-8080"}},
	{"6.1 #12196 404 from the default backend",
		`192.168.49.1 - - [15/Oct/2024:13:09:09 +0000] "GET /search HTTP/2.0" 404 146 "-" "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0" 21 0.000 [upstream-default-backend] [] 127.0.0.1:8181 146 0.001 404 5dff821788ba8c35ea6667ad6f869807`,
		nginxWantRequest{nginxUTC(2024, 10, 15, 13, 9, 9), 404, GeneratedByBackend, FailureNone, "127.0.0.1:8181",
			[]nginxWantAttempt{{"127.0.0.1:8181", 404, FailureNone}}, "GET", "/search", "upstream-default-backend"}},
	{"6.1 #9443 504 after three connect timeouts",
		`108.162.227.25 - - [08/Mar/2023:16:02:45 +0000] "GET / HTTP/1.1" 504 562 "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36" 1100 14.998 [pc-dev-example-web-service-80] [] 192.168.215.1:80, 192.168.215.1:80, 192.168.215.1:80 0, 0, 0 5.000, 5.000, 5.000 504, 504, 504 a7c98d98ac870f64981a997cd2f373a1`,
		nginxWantRequest{nginxUTC(2023, 3, 8, 16, 2, 45), 504, GeneratedByLB, FailureTimeout, "192.168.215.1:80",
			[]nginxWantAttempt{{"192.168.215.1:80", 504, FailureTimeout}, {"192.168.215.1:80", 504, FailureTimeout}, {"192.168.215.1:80", 504, FailureTimeout}},
			"GET", "/", "pc-dev-example-web-service-80"}},
	{"6.1 #4168 pre-0.25 502 to the placeholder peer",
		`10.0.2.213 - [10.0.2.213] - - [07/Jun/2019:14:32:28 +0000] "GET /my-account HTTP/1.1" 502 158 "-" "Mozilla/5.0 (pc-x86_64-linux-gnu) Siege/4.0.4" 756 0.000 [default-xxx-api-bouncer-80] 0.0.0.1:80 0 0.000 502 b1735cbec6aa0fd116ec81fb0e2e5ba5`,
		// 0.0.0.1 is the placeholder server of ingress-nginx's upstream_balancer
		// (nginx.tmpl), used when the Lua balancer returns no peer: no endpoint.
		nginxWantRequest{nginxUTC(2019, 6, 7, 14, 32, 28), 502, GeneratedByLB, FailureNoBackend, "",
			nil, "GET", "/my-account", "default-xxx-api-bouncer-80"}},
	{"6.1 #4168 pre-0.25 200",
		`10.0.2.136 - [10.0.2.136] - - [07/Jun/2019:14:32:28 +0000] "GET /my-account HTTP/1.1" 200 834 "-" "Mozilla/5.0 (pc-x86_64-linux-gnu) Siege/4.0.4" 756 0.348 [default-xxx-api-bouncer-80] 172.20.150.78:80 1990 0.348 200 8720a560faff4c26d5d82f3735d907af`,
		nginxWantRequest{nginxUTC(2019, 6, 7, 14, 32, 28), 200, GeneratedByBackend, FailureNone, "172.20.150.78:80",
			[]nginxWantAttempt{{"172.20.150.78:80", 200, FailureNone}}, "GET", "/my-account", "default-xxx-api-bouncer-80"}},
	{"6.1 #4469 0.30 200",
		`111.220.96.19 - - [14/Jul/2020:06:04:14 +0000] "GET /hello HTTP/1.1" 200 11 "-" "Apache-HttpClient/4.5.3 (Java/1.8.0_211)" 347 12.797 [worker-80] [] 10.20.3.117:8080 11 12.797 200 5f540d869efb6a517e34363aba9e783b`,
		nginxWantRequest{nginxUTC(2020, 7, 14, 6, 4, 14), 200, GeneratedByBackend, FailureNone, "10.20.3.117:8080",
			[]nginxWantAttempt{{"10.20.3.117:8080", 200, FailureNone}}, "GET", "/hello", "worker-80"}},
	{"6.1 2016 contrib 503 with no upstream",
		`10.10.10.10 - [10.10.10.10, 10.10.10.10] - - [08/Sep/2016:11:17:26 +0000] "GET / HTTP/1.1" 503 615 "-" "agent here" 592 0.000 - - - -`,
		nginxWantRequest{nginxUTC(2016, 9, 8, 11, 17, 26), 503, GeneratedByLB, FailureNoBackend, "", nil, "GET", "/", ""}},
	{"6.1 2016 contrib 503 via the default server",
		`10.10.10.10 - [10.10.10.10] - - [08/Sep/2016:11:17:26 +0000] "GET / HTTP/2.0" 503 730 "-" "agent here" 18 0.001 127.0.0.1:8181 615 0.001 503`,
		nginxWantRequest{nginxUTC(2016, 9, 8, 11, 17, 26), 503, GeneratedByLB, FailureNoBackend, "127.0.0.1:8181",
			[]nginxWantAttempt{{"127.0.0.1:8181", 503, FailureAppError}}, "GET", "/", ""}},
	{"6.1 beats 400 with a garbage method and no upstream",
		`192.168.64.1 - - [07/Feb/2020:11:49:50 +0000] "PATCHp /products/42 HTTP/1.1" 400 163 "-" "-" 0 0.000 [] [] - - - - 4c7d2079340e68353c7d0dfff00b904b`,
		nginxWantRequest{nginxUTC(2020, 2, 7, 11, 49, 50), 400, GeneratedByLB, FailureNone, "", nil, "PATCHp", "/products/42", ""}},
	{"6.1 beats two answered attempts",
		`192.168.64.14 - - [07/Feb/2020:12:02:42 +0000] "GET /v2/some HTTP/1.1" 200 61 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.14; rv:72.0) Gecko/20100101 Firefox/72.0" 348 0.001 [default-web2-8080] [] 172.17.0.6:8080, 172.17.0.7:8080 61, 100 0.100, 0.004 200, 203 835136ae24486dbb4156dcbe21f5d402`,
		nginxWantRequest{nginxUTC(2020, 2, 7, 12, 2, 42), 200, GeneratedByBackend, FailureNone, "172.17.0.7:8080",
			[]nginxWantAttempt{{"172.17.0.6:8080", 200, FailureNone}, {"172.17.0.7:8080", 203, FailureNone}}, "GET", "/v2/some", "default-web2-8080"}},
	{"6.1 beats IPv6 502 twice",
		`2a02:cf40::4e36 - - [24/Aug/2022:18:05:41 +0000] "GET /favicon.ico HTTP/2.0" 502 552 "https://localhost:8080/" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/104.0.0.0 Safari/537.36" 27 0.000 [localhost-8080] [] [2a02:cf40::7]:5000, [2a02:cf40::4e36]:5000 0, 0 0.000, 0.000 502, 502 3db73c6c673c4256ade033a6ce08c2ab`,
		nginxWantRequest{nginxUTC(2022, 8, 24, 18, 5, 41), 502, GeneratedByLB, FailureOther, "[2a02:cf40::4e36]:5000",
			[]nginxWantAttempt{{"[2a02:cf40::7]:5000", 502, FailureOther}, {"[2a02:cf40::4e36]:5000", 502, FailureOther}},
			"GET", "/favicon.ico", "localhost-8080"}},
	{"6.1 beats unequal list lengths",
		`192.168.64.14 - - [07/Feb/2020:12:02:42 +0000] "GET /test/test.mp4 HTTP/1.1" 200 61 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.14; rv:72.0) Gecko/20100101 Firefox/72.0" 348 0.001 [default-web2-8080] [] 172.17.0.6:8080, 172.17.0.7:8080 - 0.100, - 200, - 835136ae24486dbb4156dcbe21f5d402`,
		nginxWantRequest{nginxUTC(2020, 2, 7, 12, 2, 42), 200, GeneratedByBackend, FailureNone, "172.17.0.7:8080",
			[]nginxWantAttempt{{"172.17.0.6:8080", 200, FailureNone}, {"172.17.0.7:8080", 0, FailureNone}}, "GET", "/test/test.mp4", "default-web2-8080"}},
	// Constructed: traps of §1.2-§1.6 that no quoted line shows.
	{"constructed internal redirect groups and a non-UTC offset",
		`203.0.113.10 - - [02/Jan/2024:04:04:05 +0100] "GET /x HTTP/1.1" 404 10 "-" "-" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 : 127.0.0.1:8181 0 : 10 0.004 : 0.001 503 : 404 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 404, GeneratedByBackend, FailureNone, "127.0.0.1:8181",
			[]nginxWantAttempt{{"10.244.2.31:8080", 503, FailureAppError}, {"127.0.0.1:8181", 404, FailureNone}}, "GET", "/x", "shop-web-80"}},
	{"constructed app 500 and a 499 attempt status",
		`203.0.113.10 - - [02/Jan/2024:03:04:05 -0130] "POST /pay HTTP/1.1" 500 21 "-" "-" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 21 0.004 500 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 4, 34, 5), 500, GeneratedByBackend, FailureAppError, "10.244.2.31:8080",
			[]nginxWantAttempt{{"10.244.2.31:8080", 500, FailureAppError}}, "POST", "/pay", "shop-web-80"}},
	{"constructed 499 client gave up",
		`203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /slow HTTP/1.1" 499 0 "-" "-" 87 9.004 [shop-web-80] [] 10.244.2.31:8080 0 9.004 - 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 499, GeneratedByLB, FailureNone, "10.244.2.31:8080",
			[]nginxWantAttempt{{"10.244.2.31:8080", 0, FailureNone}}, "GET", "/slow", "shop-web-80"}},
	{"constructed pre-0.25 format with an IPv6 upstream and no req_id",
		`10.0.2.213 - [10.0.2.213] - - [07/Jun/2019:14:32:28 +0000] "GET /a HTTP/1.1" 200 10 "-" "-" 756 0.010 [default-api-80] [fd00::17]:80 10 0.010 200`,
		nginxWantRequest{nginxUTC(2019, 6, 7, 14, 32, 28), 200, GeneratedByBackend, FailureNone, "[fd00::17]:80",
			[]nginxWantAttempt{{"[fd00::17]:80", 200, FailureNone}}, "GET", "/a", "default-api-80"}},
	{"constructed CRLF line ending",
		"203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] \"GET / HTTP/1.1\" 200 10 \"-\" \"-\" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 10 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60\r",
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 200, GeneratedByBackend, FailureNone, "10.244.2.31:8080",
			[]nginxWantAttempt{{"10.244.2.31:8080", 200, FailureNone}}, "GET", "/", "shop-web-80"}},
	{"constructed unix socket upstream and HTTP/0.9 request line",
		`203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /" 200 10 "-" "-" 87 0.004 [shop-web-80] [] unix:/run/app.sock 10 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 200, GeneratedByBackend, FailureNone, "",
			[]nginxWantAttempt{{"", 200, FailureNone}}, "GET", "/", "shop-web-80"}},
}

func TestIngressNginxAccessLines(t *testing.T) {
	for _, tc := range nginxAccessCases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxParseOne(t, tc.line, time.Time{}, nil)
			if rep.Skipped != 0 || len(c.requests) != 1 || len(c.lifecycle) != 0 {
				t.Fatalf("skipped=%d %v requests=%d lifecycle=%d", rep.Skipped, rep.SkipSamples(), len(c.requests), len(c.lifecycle))
			}
			checkNginxRequest(t, c.requests[0], tc.want)
			if c.requests[0].Origin != (Origin{File: "t.log", Line: 1}) {
				t.Errorf("origin = %v", c.requests[0].Origin)
			}
		})
	}
}

// nginxErrorCases are every upstream error-log line quoted in nginx-k8s.md
// §2.4, §6.1 and §6.2 (times are UTC: no --tz).
var nginxErrorCases = []struct {
	name    string
	line    string
	time    time.Time
	failure FailureKind
	backend string
	method  string
	path    string
	detail  string
}{
	{"2.4 refused",
		`2024/01/02 03:04:06 [error] 31#31: *1234 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 6), FailureRefused, "10.244.1.17:8080", "GET", "/api/items",
		"connect() failed (111: Connection refused) while connecting to upstream"},
	{"2.4 premature close",
		`2024/01/02 03:04:07 [error] 31#31: *1240 upstream prematurely closed connection while reading response header from upstream, client: 203.0.113.10, server: shop.example.com, request: "POST /api/orders HTTP/1.1", upstream: "http://10.244.1.17:8080/api/orders", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 7), FailureClosed, "10.244.1.17:8080", "POST", "/api/orders",
		"upstream prematurely closed connection while reading response header from upstream"},
	{"2.4 recv reset",
		`2024/01/02 03:04:07 [error] 32#32: *1251 recv() failed (104: Connection reset by peer) while reading response header from upstream, client: 203.0.113.10, server: shop.example.com, request: "POST /api/orders HTTP/1.1", upstream: "http://10.244.1.17:8080/api/orders", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 7), FailureClosed, "10.244.1.17:8080", "POST", "/api/orders",
		"recv() failed (104: Connection reset by peer) while reading response header from upstream"},
	{"2.4 connect timeout",
		`2024/01/02 03:04:19 [error] 31#31: *1262 upstream timed out (110: Operation timed out) while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 19), FailureTimeout, "10.244.1.17:8080", "GET", "/api/items",
		"upstream timed out (110: Operation timed out) while connecting to upstream"},
	{"6.1 #9443 first timeout",
		`2023/03/08 16:02:40 [error] 31#31: *569 upstream timed out (110: Operation timed out) while connecting to upstream, client: 108.162.227.25, server: dev-aws.example.com, request: "GET / HTTP/1.1", upstream: "http://192.168.215.1:80/", host: "dev-aws.example.com"`,
		nginxUTC(2023, 3, 8, 16, 2, 40), FailureTimeout, "192.168.215.1:80", "GET", "/",
		"upstream timed out (110: Operation timed out) while connecting to upstream"},
	{"6.1 #9443 second timeout",
		`2023/03/08 16:02:45 [error] 31#31: *569 upstream timed out (110: Operation timed out) while connecting to upstream, client: 108.162.227.25, server: dev-aws.example.com, request: "GET / HTTP/1.1", upstream: "http://192.168.215.1:80/", host: "dev-aws.example.com"`,
		nginxUTC(2023, 3, 8, 16, 2, 45), FailureTimeout, "192.168.215.1:80", "GET", "/",
		"upstream timed out (110: Operation timed out) while connecting to upstream"},
	{"6.1 #4168 crit synchronous connect failure",
		`2019/06/07 14:32:28 [crit] 330#330: *1946 connect() to 0.0.0.1:80 failed (22: Invalid argument) while connecting to upstream, client: 10.0.2.213, server: api.xxx.com, request: "GET /my-account HTTP/1.1", upstream: "http://0.0.0.1:80/my-account", host: "api.xxx.com"`,
		nginxUTC(2019, 6, 7, 14, 32, 28), FailureNoBackend, "", "GET", "/my-account",
		"connect() to 0.0.0.1:80 failed (22: Invalid argument) while connecting to upstream"},
	{"6.2 #7330 refused, stray trailing quote",
		`2021/07/08 19:44:28 [error] 43#43: *5131 connect() failed (111: Connection refused) while connecting to upstream, client: <CLIENT_IP>, server: <SERVER_NAME>, request: "POST /api/v1/create HTTP/1.1", upstream: "http://10.53.24.125:8080/api/v1/create", host: "SERVER_NAME""`,
		nginxUTC(2021, 7, 8, 19, 44, 28), FailureRefused, "10.53.24.125:8080", "POST", "/api/v1/create",
		"connect() failed (111: Connection refused) while connecting to upstream"},
	{"6.2 #5552 refused with referrer",
		`2020/05/13 13:07:18 [error] 22215#22215: *47807219 connect() failed (111: Connection refused) while connecting to upstream, client: 3.9.38.162, server: hostname.com, request: "GET /aiq/api/client/basic HTTP/1.1", upstream: "http://10.11.20.54:80/miq/api/client/basic", host: "hostname.com", referrer: "https://hostname.com/"`,
		nginxUTC(2020, 5, 13, 13, 7, 18), FailureRefused, "10.11.20.54:80", "GET", "/aiq/api/client/basic",
		"connect() failed (111: Connection refused) while connecting to upstream"},
	{"6.2 #759 113 glibc text, typographic quote",
		`2017/05/23 21:52:25 [error] 317#317: *288785 connect() failed (113: No route to host) while connecting to upstream, client: 127.0.0.1, server: aaa.bbb.com, request: "GET /favicon.ico HTTP/2.0", upstream: "http://10.2.3.30:3000/favicon.ico", host: "aaa.bbb.com", referrer: "https://aaa.bbb.com/“`,
		nginxUTC(2017, 5, 23, 21, 52, 25), FailureUnreachable, "10.2.3.30:3000", "GET", "/favicon.ico",
		"connect() failed (113: No route to host) while connecting to upstream"},
	{"6.2 #8079 113 musl text",
		`2021/12/28 06:17:41 [error] 3256#3256: *411627 connect() failed (113: Host is unreachable) while connecting to upstream, client: 10.*.*.207, server: _, request: "GET /demo HTTP/1.1", upstream: "http://10.42.0.16:80/demo", host: "10.*.*.207"`,
		nginxUTC(2021, 12, 28, 6, 17, 41), FailureUnreachable, "10.42.0.16:80", "GET", "/demo",
		"connect() failed (113: Host is unreachable) while connecting to upstream"},
	{"6.2 #10301 recv reset",
		`2023/08/11 15:59:08 [error] 7058#7058: *116182913 recv() failed (104: Connection reset by peer) while reading response header from upstream, client: 10.35.117.157, server: abc.com, request: "POST /contokenv2 HTTP/1.1", upstream: "http://10.45.61.13:5000/api/v", host: "abc.com"`,
		nginxUTC(2023, 8, 11, 15, 59, 8), FailureClosed, "10.45.61.13:5000", "POST", "/contokenv2",
		"recv() failed (104: Connection reset by peer) while reading response header from upstream"},
	{"6.2 #10301 premature close",
		`2023/08/11 15:58:45 [error] 7060#7060: *116192993 upstream prematurely closed connection while reading response header from upstream, client: 10.35.150.110, server: abc.com, request: "POST /con HTTP/1.1", upstream: "http://10.35.31.44:3001/api/v1", host: "abc.com"`,
		nginxUTC(2023, 8, 11, 15, 58, 45), FailureClosed, "10.35.31.44:3001", "POST", "/con",
		"upstream prematurely closed connection while reading response header from upstream"},
	{"6.2 #10301 premature close followed by viewer text",
		`2023/08/11 15:58:45 [error] 7060#7060: *116192993 upstream prematurely closed connection while reading response header from upstream, client: 10.35.150.110, server: abc.com, request: "POST /con HTTP/1.1", upstream: "http://10.35.31.44:3001/api/v1", host: "abc.com"Show context`,
		nginxUTC(2023, 8, 11, 15, 58, 45), FailureClosed, "10.35.31.44:3001", "POST", "/con",
		"upstream prematurely closed connection while reading response header from upstream"},
	{"6.2 #12285 premature close",
		`2024/11/03 06:09:29 [error] 184#184: *94 upstream prematurely closed connection while reading response header from upstream, client: 192.168.58.11, server: opensearch-dashboard.hi.local, request: "GET / HTTP/1.1", upstream: "http://10.244.3.84:5601/", host: "opensearch-dashboard.hi.local"`,
		nginxUTC(2024, 11, 3, 6, 9, 29), FailureClosed, "10.244.3.84:5601", "GET", "/",
		"upstream prematurely closed connection while reading response header from upstream"},
	{"6.2 #6273 reset during connect, gRPC",
		`2020/10/04 09:32:29 [error] 104#104: *1533 connect() failed (104: Connection reset by peer) while connecting to upstream, client: 172.17.17.17, server: service.test.com, request: "POST /helloworld.Greeter/SayHello HTTP/2.0", upstream: "grpc://10.42.207.51:50051", host: "service.test.com:443"`,
		nginxUTC(2020, 10, 4, 9, 32, 29), FailureClosed, "10.42.207.51:50051", "POST", "/helloworld.Greeter/SayHello",
		"connect() failed (104: Connection reset by peer) while connecting to upstream"},
	// Constructed from §2.2: the remaining errno meanings.
	{"constructed writev broken pipe",
		`2024/01/02 03:04:07 [error] 31#31: *1300 writev() failed (32: Broken pipe) while sending request to upstream, client: 203.0.113.10, server: shop.example.com, request: "POST /api/orders HTTP/1.1", upstream: "http://[fd00::17]:8080/api/orders", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 7), FailureClosed, "[fd00::17]:8080", "POST", "/api/orders",
		"writev() failed (32: Broken pipe) while sending request to upstream"},
	{"constructed synchronous connect refused",
		`2024/01/02 03:04:07 [error] 31#31: *1301 connect() to 10.244.1.17:8080 failed (111: Connection refused) while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 7), FailureRefused, "10.244.1.17:8080", "GET", "/api/items",
		"connect() to 10.244.1.17:8080 failed (111: Connection refused) while connecting to upstream"},
	{"constructed no live upstreams",
		`2024/01/02 03:04:07 [error] 31#31: *1302 no live upstreams while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://upstream_balancer/api/items", host: "shop.example.com"`,
		nginxUTC(2024, 1, 2, 3, 4, 7), FailureNoBackend, "", "GET", "/api/items",
		"no live upstreams while connecting to upstream"},
}

func TestIngressNginxErrorLines(t *testing.T) {
	for _, tc := range nginxErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxParseOne(t, tc.line, time.Time{}, nil)
			if rep.Skipped != 0 || len(c.requests) != 1 || len(c.lifecycle) != 0 {
				t.Fatalf("skipped=%d %v requests=%d lifecycle=%d", rep.Skipped, rep.SkipSamples(), len(c.requests), len(c.lifecycle))
			}
			r := c.requests[0]
			if !r.Time.Equal(tc.time) {
				t.Errorf("time = %v, want %v", r.Time, tc.time)
			}
			if !r.AttemptOnly || r.Failure != tc.failure || r.Generator != GeneratedByLB || r.Status != 0 {
				t.Errorf("attemptOnly/failure/generator/status = %v/%v/%v/%d, want true/%v/lb/0",
					r.AttemptOnly, r.Failure, r.Generator, r.Status, tc.failure)
			}
			if r.Backend != nginxAP(tc.backend) || r.Method != tc.method || r.Path != tc.path || r.Detail != tc.detail {
				t.Errorf("backend/method/path/detail = %v %q %q %q, want %q %q %q %q",
					r.Backend, r.Method, r.Path, r.Detail, tc.backend, tc.method, tc.path, tc.detail)
			}
			if r.LB != "" || len(r.Attempts) != 0 || r.Format != FormatIngressNginx {
				t.Errorf("lb=%q attempts=%v format=%q", r.LB, r.Attempts, r.Format)
			}
		})
	}
}

// TestIngressNginxErrorTimeZone checks that the zone-less error-log time is
// read in the --tz location.
func TestIngressNginxErrorTimeZone(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	c, _ := nginxParseOne(t, nginxErrorCases[0].line, time.Time{}, tokyo)
	if len(c.requests) != 1 {
		t.Fatalf("requests = %d", len(c.requests))
	}
	if want := nginxUTC(2024, 1, 1, 18, 4, 6); !c.requests[0].Time.Equal(want) {
		t.Errorf("time = %v, want %v", c.requests[0].Time.UTC(), want)
	}
}

// nginxKlogCases are every klog line quoted in nginx-k8s.md §2.4 and §6.3
// that carries a record, with a wrapper stamp giving each its year.
var nginxKlogCases = []struct {
	name   string
	line   string
	stamp  time.Time
	time   time.Time
	kind   LifecycleKind
	ns     string
	object string
	reason string
}{
	{"2.4 no endpoints",
		`W0102 03:04:08.123456       7 controller.go:1241] Service "shop/web" does not have any active Endpoint.`,
		nginxUTC(2024, 1, 2, 3, 4, 8), time.Date(2024, 1, 2, 3, 4, 8, 123456000, time.UTC), NoEndpoints, "shop", "Service/web", ""},
	{"6.3 #9932 first",
		`W0601 10:05:49.745387       7 controller.go:1152] Service "bmdev-ne-linker/bmdev-ne-linker-service" does not have any active Endpoint.`,
		nginxUTC(2023, 6, 1, 10, 5, 50), time.Date(2023, 6, 1, 10, 5, 49, 745387000, time.UTC), NoEndpoints, "bmdev-ne-linker", "Service/bmdev-ne-linker-service", ""},
	{"6.3 #9932 second",
		`W0601 10:05:53.079353       7 controller.go:1152] Service "bmdev-ne-linker/bmdev-ne-linker-service" does not have any active Endpoint.`,
		nginxUTC(2023, 6, 1, 10, 5, 53), time.Date(2023, 6, 1, 10, 5, 53, 79353000, time.UTC), NoEndpoints, "bmdev-ne-linker", "Service/bmdev-ne-linker-service", ""},
	{"6.3 #9932 third",
		`W0601 10:05:56.413340       7 controller.go:1152] Service "bmdev-ne-linker/bmdev-ne-linker-service" does not have any active Endpoint.`,
		nginxUTC(2023, 6, 1, 10, 5, 56), time.Date(2023, 6, 1, 10, 5, 56, 413340000, time.UTC), NoEndpoints, "bmdev-ne-linker", "Service/bmdev-ne-linker-service", ""},
	{"6.3 #8882 no endpoints",
		`W0728 13:49:49.824295       7 controller.go:1111] Service "scalability/scalability-http-transport" does not have any active Endpoint.`,
		nginxUTC(2022, 7, 28, 13, 49, 50), time.Date(2022, 7, 28, 13, 49, 49, 824295000, time.UTC), NoEndpoints, "scalability", "Service/scalability-http-transport", ""},
	{"6.3 #11145 SIGTERM (InfoS)",
		`I0321 07:57:56.690842       7 sigterm.go:36] "Received SIGTERM, shutting down"`,
		nginxUTC(2024, 3, 21, 7, 57, 57), time.Date(2024, 3, 21, 7, 57, 56, 690842000, time.UTC), LifecycleOther, "", "", "ControllerShutdown"},
	{"6.3 #11145 SIGTERM with the viewer prefix of the paste",
		"2024-03-21 07:57:56.690\tI0321 07:57:56.690842       7 sigterm.go:36] \"Received SIGTERM, shutting down\"",
		nginxUTC(2024, 3, 21, 7, 57, 57), time.Date(2024, 3, 21, 7, 57, 56, 690842000, time.UTC), LifecycleOther, "", "", "ControllerShutdown"},
	// Constructed from the format strings of §2.3.
	{"constructed default backend without period",
		`W0102 03:04:08.123456       7 controller.go:625] Service "ingress-nginx/default-http-backend" does not have any active Endpoint`,
		nginxUTC(2024, 1, 2, 3, 4, 8), time.Date(2024, 1, 2, 3, 4, 8, 123456000, time.UTC), NoEndpoints, "ingress-nginx", "Service/default-http-backend", ""},
	{"constructed TCP service",
		`W0102 03:04:08.123456       7 controller.go:575] Service "shop/db" does not have any active Endpoint for TCP port 5432`,
		nginxUTC(2024, 1, 2, 3, 4, 8), time.Date(2024, 1, 2, 3, 4, 8, 123456000, time.UTC), NoEndpoints, "shop", "Service/db", ""},
	{"constructed plain Infof SIGTERM, stamped on New Year's Day",
		`I1231 23:59:59.999999   12345 nginx.go:392] Received SIGTERM, shutting down`,
		nginxUTC(2025, 1, 1, 0, 0, 1), time.Date(2024, 12, 31, 23, 59, 59, 999999000, time.UTC), LifecycleOther, "", "", "ControllerShutdown"},
}

func TestIngressNginxKlogLines(t *testing.T) {
	for _, tc := range nginxKlogCases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxParseOne(t, tc.line, tc.stamp, nil)
			if rep.Skipped != 0 || len(c.requests) != 0 || len(c.lifecycle) != 1 {
				t.Fatalf("skipped=%d %v requests=%d lifecycle=%d", rep.Skipped, rep.SkipSamples(), len(c.requests), len(c.lifecycle))
			}
			l := c.lifecycle[0]
			if !l.Time.Equal(tc.time) {
				t.Errorf("time = %v, want %v", l.Time, tc.time)
			}
			if l.Kind != tc.kind || l.Namespace != tc.ns || l.Object != tc.object || l.Reason != tc.reason {
				t.Errorf("kind/ns/object/reason = %v %q %q %q, want %v %q %q %q",
					l.Kind, l.Namespace, l.Object, l.Reason, tc.kind, tc.ns, tc.object, tc.reason)
			}
			if l.Source != "ingress-nginx" || l.Format != FormatIngressNginx || l.Pod != "" || l.From != -1 || l.Message == "" {
				t.Errorf("source=%q format=%q pod=%q from=%d message=%q", l.Source, l.Format, l.Pod, l.From, l.Message)
			}
		})
	}
}

// TestIngressNginxKlogYearWithoutStamp checks the year rule for bare klog
// lines: this year, or last year when that would be more than a day ahead.
func TestIngressNginxKlogYearWithoutStamp(t *testing.T) {
	now := time.Now().UTC()
	for _, at := range []time.Time{now.Add(-time.Hour), now.Add(-300 * 24 * time.Hour), now.Add(12 * time.Hour)} {
		if at.Year() > now.Year() || (at.Month() == time.February && at.Day() == 29) {
			continue // a bare line cannot tell next year's or a leap day apart
		}
		line := fmt.Sprintf(`W%s.000000       7 controller.go:1241] Service "shop/web" does not have any active Endpoint.`,
			at.Format("0102 15:04:05"))
		c, _ := nginxParseOne(t, line, time.Time{}, nil)
		if len(c.lifecycle) != 1 {
			t.Fatalf("%s: lifecycle = %d", line, len(c.lifecycle))
		}
		want := at.Truncate(time.Second)
		if got := c.lifecycle[0].Time; !got.Equal(want) {
			t.Errorf("%s: time = %v, want %v", line, got, want)
		}
	}
}

// nginxNoRecordLines are valid lines quoted in §6.1-§6.3 (and the beats
// error.log kinds) that carry no record.
var nginxNoRecordLines = []string{
	`2019/06/07 14:32:28 [error] 330#330: *1946 [lua] balancer.lua:240: balance(): error while setting current upstream peer xxx-api.engine.svc.cluster.local:80: no host allowed while connecting to upstream, client: 10.0.2.213, server: api.xxx.com, request: "GET /my-account HTTP/1.1", host: "api.xxx.com"`,
	`I0601 10:02:01.318192       7 event.go:285] Event(v1.ObjectReference{Kind:"Pod", Namespace:"bmdev-ne-nginx", Name:"nginx-ingress-ingress-nginx-controller-6679b95c85-2zb6l", UID:"8aa24f23-825a-4c36-ac01-664c471cdec9", APIVersion:"v1", ResourceVersion:"13317", FieldPath:""}): type: 'Normal' reason: 'RELOAD' NGINX reload triggered due to a change in configuration`,
	`W0728 13:49:36.252884       7 controller.go:1016] Error obtaining Endpoints for Service "scalability/serve-ca-cert": no object matching key "scalability/serve-ca-cert" in local store`,
	// Constructed: non-failure messages that carry an upstream field.
	`2024/01/02 03:04:07 [info] 31#31: *1240 client prematurely closed connection while reading response header from upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"`,
	`2024/01/02 03:04:07 [warn] 31#31: *1240 an upstream response is buffered to a temporary file /tmp/proxy_temp/1/00/0000000001 while reading upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /big HTTP/1.1", upstream: "http://10.244.1.17:8080/big", host: "shop.example.com"`,
	`2024/01/02 03:04:05 [notice] 27#27: signal process started`,
}

func TestIngressNginxNoRecordLines(t *testing.T) {
	for _, line := range nginxNoRecordLines {
		c, rep := nginxParseOne(t, line, nginxUTC(2024, 1, 1, 0, 0, 0), nil)
		if rep.Skipped != 0 || len(c.requests) != 0 || len(c.lifecycle) != 0 {
			t.Errorf("%.60s: skipped=%d %v requests=%d lifecycle=%d", line, rep.Skipped, rep.SkipSamples(), len(c.requests), len(c.lifecycle))
		}
		if !(ingressNginx{}).Match([]byte(line)) {
			t.Errorf("%.60s: Match = false", line)
		}
	}
}

// nginxSkippedLines are lines quoted in §6.1-§6.3 that must be skipped with
// a reason rather than turned into a wrong record.
var nginxSkippedLines = []struct{ name, line string }{
	{"6.1 #6135 line cut before the request by its author",
		`"GET some/end/point HTTP/1.1" 502 157 "-" "PostmanRuntime/7.26.3" 1570 1.248 [default-my-service-80] [] 10.244.2.36:80, 10.244.2.36:80, 10.244.2.36:80 0, 0, 0 1.244, 0.004, 0.000 502, 502, 502 cc30e5d47f23e3a117181ff94479bc6f`},
	{"6.1 #7673 wrapped line, first half",
		`108.162.227.25 - - [08/Mar/2023:16:02:45 +0000] "GET / HTTP/1.1" 504 562 "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36" 1100 14.998 [pc-dev-example-web-service-80] [] 192.168.215.1:80, 192.168.215.1:80, 192.168.215.1:80 0, `},
	{"6.1 #7673 wrapped line, first half without the trailing space",
		`108.162.227.25 - - [08/Mar/2023:16:02:45 +0000] "GET / HTTP/1.1" 504 562 "-" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36" 1100 14.998 [pc-dev-example-web-service-80] [] 192.168.215.1:80, 192.168.215.1:80, 192.168.215.1:80 0,`},
	{"6.1 #7673 wrapped line, second half",
		`0, 0 5.000, 5.000, 5.000 504, 504, 504 a7c98d98ac870f64981a997cd2f373a1`},
	{"constructed wrap inside the status list",
		`203.0.113.10 - - [02/Jan/2024:03:04:06 +0000] "GET /api/items HTTP/1.1" 502 150 "-" "curl/8.5.0" 87 0.002 [shop-web-80] [] 10.244.1.17:8080, 10.244.1.18:8080 0, 0 0.001, 0.000 502, 50`},
	{"6.1 #7111 JSON access log (log-format-upstream JSON, cut by the author)",
		`{ "time": "2021-05-06T08:33:04+00:00", "remote_addr": "27.11.209.29", "x_forwarded_for": "27.11.209.29, 27.11.209.29", "remote_port": "", "remote_user":"", "bytes_sent": "0", "body_bytes_sent": "0", "status":499, "host": "usersites.sxldns.com", "port": "443", "protocol": "HTTP/1.1", "request_length": 384, "request_time": 12.131, "request_method": "GET", "scheme": "https", "x_forwarded_proto": "", "path": "/web.zip", "query": "", "request_uri": "/web.zip", "referrer": "", "user_agent":"python-requests/2.22.0", "upstream_status": "502, 502, 502, …`},
	{"6.1 #10852 JSON access log (camelCase keys, cut by the author)",
		`{"timestamp":"2024-01-15T06:15:26+00:00","requestID":"8fc9c6866b63fc5b0168c733c268d317","proxyUpstreamName":"default-keycloak-keycloakx-http-http","proxyAlternativeUpstreamName":"","upstreamStatus":"-","upstreamAddr":"10.244.1.51:8080","timeLocal":"15/Jan/2024:06:15:26 +0000","XForwaredFor":"","request":{"requestMethod":"GET","requestUrl":"keycloak.testing.com/","status":"499", …`},
	{"6.1 nginx/kubernetes-ingress#1140 log_format fragment",
		`    '"upstream_response_time": $upstream_response_time, '`},
	{"6.2 #10301 log-viewer timestamp on a line of its own",
		"2023-08-11 21:29:08\t"},
	{"beats error.log continuation line",
		`PHP message: PHP Warning:  Declaration of FEE_Field_Tags::wrap($content, $before, $sep, $after) should be compatible with FEE_Field_Terms::wrap($content, $taxonomy, $before, $sep, $after) in /var/www/xxx/web/wp-content/plugins/front-end-editor/php/fields/post.php on line 0`},
	{"constructed bad klog month", `W1302 03:04:08.123456       7 controller.go:1241] Service "shop/web" does not have any active Endpoint.`},
	{"constructed bad error-log level", `2024/01/02 03:04:05 [oops] 27#27: signal process started`},
	{"fuzz regression: year 1 is the zero time",
		`0 - [01/Jan/0001:00:00:00 +0000] "" 100 0 "" "" 0 0 000000000 00 00 100`},
	{"constructed bad access time", `203.0.113.10 - - [02/Foo/2024:03:04:05 +0000] "GET / HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`},
}

func TestIngressNginxSkippedLines(t *testing.T) {
	for _, tc := range nginxSkippedLines {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxParseOne(t, tc.line, time.Time{}, nil)
			if rep.Skipped != 1 || len(c.requests) != 0 || len(c.lifecycle) != 0 {
				t.Fatalf("skipped=%d requests=%d lifecycle=%d", rep.Skipped, len(c.requests), len(c.lifecycle))
			}
			if (ingressNginx{}).Match([]byte(tc.line)) {
				t.Errorf("Match = true")
			}
		})
	}
}

func TestIngressNginxMatch(t *testing.T) {
	for _, tc := range nginxAccessCases {
		if !(ingressNginx{}).Match([]byte(tc.line)) {
			t.Errorf("%s: Match = false", tc.name)
		}
	}
	for _, tc := range nginxErrorCases {
		if !(ingressNginx{}).Match([]byte(tc.line)) {
			t.Errorf("%s: Match = false", tc.name)
		}
	}
	for _, tc := range nginxKlogCases {
		if !(ingressNginx{}).Match([]byte(tc.line)) {
			t.Errorf("%s: Match = false", tc.name)
		}
	}
}

func TestIngressNginxSamples(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/samples/ingress-nginx/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t.Run("elastic--beats--test.log", func(t *testing.T) {
		c, rep := runLines(t, ingressNginx{}, "test.log", read("elastic--beats--test.log"))
		if rep.Records != 29 || rep.Skipped != 0 || len(c.requests) != 29 {
			t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
		}
		// Line 27: the second upstream address is invalid IPv6; the
		// attempt stays, with no backend.
		r27 := c.requests[26]
		if r27.Origin.Line != 27 || len(r27.Attempts) != 2 || r27.Attempts[1].Backend.IsValid() ||
			r27.Attempts[1].Status != 502 || r27.Backend.IsValid() || r27.Failure != FailureOther {
			t.Errorf("line 27 = %+v", r27)
		}
		// Line 28: a unix-socket upstream gives an attempt without backend.
		r28 := c.requests[27]
		if len(r28.Attempts) != 1 || r28.Attempts[0].Backend.IsValid() || r28.Generator != GeneratedByBackend {
			t.Errorf("line 28 = %+v", r28)
		}
		// Lines 5-6: invalid methods are kept.
		if c.requests[4].Method != "PATCHp" || c.requests[5].Method != "geti" {
			t.Errorf("methods = %q %q", c.requests[4].Method, c.requests[5].Method)
		}
		if got, want := rep.First, nginxUTC(2020, 2, 7, 11, 48, 51); !got.Equal(want) {
			t.Errorf("first = %v, want %v", got, want)
		}
	})
	t.Run("elastic--beats--error.log", func(t *testing.T) {
		// Lines 1-3 and 6 are valid error-log lines without an upstream
		// failure (open() failed, FastCGI stderr): no record. Lines 4-5
		// continue the multi-line FastCGI message of line 3; they are not
		// lines of any ingress-nginx kind and are skipped with a reason.
		c, rep := runLines(t, ingressNginx{}, "error.log", read("elastic--beats--error.log"))
		if rep.Records != 0 || rep.Skipped != 2 || len(c.requests)+len(c.lifecycle) != 0 {
			t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
		}
		if s := rep.SkipSamples(); !strings.HasPrefix(s[0], "error.log:4: ") || !strings.HasPrefix(s[1], "error.log:5: ") {
			t.Errorf("skips = %v", s)
		}
	})
}

// TestIngressNginxRecordsAreIndependent checks that a Handler's clone of
// one record is not changed by the next line (the adapter recycles them).
func TestIngressNginxRecordsAreIndependent(t *testing.T) {
	text := nginxAccessCases[2].line + "\n" + nginxAccessCases[0].line + "\n"
	c, _ := runLines(t, ingressNginx{}, "t.log", text)
	if len(c.requests) != 2 || len(c.requests[0].Attempts) != 3 || c.requests[0].Status != 502 ||
		c.requests[0].Attempts[0].Status != 502 {
		t.Fatalf("requests = %+v", c.requests)
	}
}

func FuzzIngressNginx(f *testing.F) {
	for _, tc := range nginxAccessCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range nginxErrorCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range nginxKlogCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range nginxSkippedLines {
		f.Add([]byte(tc.line))
	}
	for _, line := range nginxNoRecordLines {
		f.Add([]byte(line))
	}
	for _, tc := range nginxUsualOddLines {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		// A line the one-pass reader takes is one the full reader takes
		// to the same fields.
		var fast, full nginxAccessFields
		if nginxScanUsual(line, &fast) {
			if err := nginxScanAccess(line, &full); err != nil || !reflect.DeepEqual(fast, full) {
				t.Fatalf("one pass %+v\nfull %+v (%v)", fast, full, err)
			}
		}
		orig := bytes.Clone(line)
		c := &collector{}
		rep := &InputReport{}
		em := newEmitter(c, &Options{}, rep, nil)
		ln := &Line{Origin: Origin{File: "f", Line: 1}}
		matched := (ingressNginx{}).Match(line)
		err := (ingressNginx{}).Parse(line, ln, em)
		if !bytes.Equal(line, orig) {
			t.Fatal("input modified")
		}
		n := len(c.requests) + len(c.lifecycle)
		if err != nil && n != 0 {
			t.Fatalf("error %v with %d records", err, n)
		}
		if n > 1 || rep.Records != n {
			t.Fatalf("records = %d, report %d", n, rep.Records)
		}
		if n == 1 && !matched {
			t.Fatalf("record from a line Match rejects")
		}
		for _, r := range c.requests {
			if r.Time.IsZero() || r.Status < 0 || r.Status > 999 || r.Format != FormatIngressNginx {
				t.Fatalf("bad request %+v", r)
			}
			if len(r.Attempts) > 0 && r.Backend != r.Attempts[len(r.Attempts)-1].Backend {
				t.Fatalf("backend %v is not the last attempt's", r.Backend)
			}
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() || l.Source != "ingress-nginx" {
				t.Fatalf("bad lifecycle %+v", l)
			}
		}
	})
}

// nginxBenchLines builds n realistic current-format access lines: mostly
// single-attempt 200s, some retries, 502s and no-endpoint 503s.
func nginxBenchLines(n int) [][]byte {
	lines := make([][]byte, n)
	for i := range lines {
		ip := fmt.Sprintf("10.244.%d.%d:8080", i%7, 10+i%200)
		sec := i / nginxBenchPerSecond
		head := fmt.Sprintf(`203.0.113.%d - - [02/Jan/2024:03:%02d:%02d +0000] "GET /api/items/%d?page=%d HTTP/1.1"`,
			i%250, (sec/60)%60, sec%60, i, i%9)
		tail := `"https://shop.example.com/" "Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0" 512 0.004 [shop-web-80] []`
		var l string
		switch {
		case i%50 == 0:
			l = fmt.Sprintf(`%s 200 512 %s 10.244.9.9:8080, %s 0, 512 0.000, 0.004 502, 200 %032x`, head, tail, ip, i)
		case i%97 == 0:
			l = fmt.Sprintf(`%s 502 150 %s 10.244.9.9:8080, 10.244.9.8:8080, %s 0, 0, 0 0.001, 0.001, 0.001 502, 502, 502 %032x`, head, tail, ip, i)
		case i%101 == 0:
			l = fmt.Sprintf(`%s 503 190 %s - - - - %032x`, head, tail, i)
		default:
			l = fmt.Sprintf(`%s 200 %d %s %s 1532 0.004 200 %032x`, head, 1000+i%500, tail, ip, i)
		}
		lines[i] = []byte(l)
	}
	return lines
}

// nginxBenchPerSecond is how many lines of the benchmark share a second:
// about the rate of the generated benchmark log (a million requests over an
// hour, ~290 a second), so that the time cache sees what it sees there
// rather than a new second on every line.
const nginxBenchPerSecond = 290

// nginxDiscard is a Handler that drops everything.
type nginxDiscard struct{}

func (nginxDiscard) Request(*Request)     {}
func (nginxDiscard) Lifecycle(*Lifecycle) {}
func (nginxDiscard) Config(*Config)       {}

func BenchmarkIngressNginxParse(b *testing.B) {
	lines := nginxBenchLines(10000)
	total := 0
	for _, l := range lines {
		total += len(l) + 1
	}
	rep := &InputReport{}
	em := newEmitter(nginxDiscard{}, &Options{}, rep, nil)
	ln := &Line{Origin: Origin{File: "bench", Line: 1}}
	a := ingressNginx{}
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

// nginxUsualLine is a current-format access line of one attempt, the line
// nginxScanUsual reads in one pass; nginxUsualOddLines vary it.
const nginxUsualLine = `203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`

// nginxUsualOddLines are lines near nginxUsualLine, each with whether the
// one-pass reader takes it (usual) or leaves it to nginxScanAccess.
var nginxUsualOddLines = []struct {
	name  string
	usual bool
	line  string
}{
	{"the usual line", true, nginxUsualLine},
	{"escaped quotes in the user agent", true, strings.Replace(nginxUsualLine, `"curl/8.5.0"`, `"curl \x22x\x22 \x5C"`, 1)},
	{"a referer", true, strings.Replace(nginxUsualLine, `"-"`, `"https://shop.example.com/a?b=\x22c\x22"`, 1)},
	{"a referer starting with a dash", true, strings.Replace(nginxUsualLine, `"-"`, `"-x"`, 1)},
	{"an empty referer", true, strings.Replace(nginxUsualLine, `"-"`, `""`, 1)},
	{"an empty user agent", true, strings.Replace(nginxUsualLine, `"curl/8.5.0"`, `""`, 1)},
	{"a user agent of one dash", true, strings.Replace(nginxUsualLine, `"curl/8.5.0"`, `"-"`, 1)},
	{"a space in the request", true, strings.Replace(nginxUsualLine, `/api/items HTTP`, `/api/it ems HTTP`, 1)},
	{"an HTTP/0.9 request line", true, strings.Replace(nginxUsualLine, ` HTTP/1.1"`, `"`, 1)},
	{"an empty request line", true, strings.Replace(nginxUsualLine, `"GET /api/items HTTP/1.1"`, `""`, 1)},
	{"an alternative upstream", true, strings.Replace(nginxUsualLine, `[]`, `[shop-canary-80]`, 1)},
	{"an empty upstream name", true, strings.Replace(nginxUsualLine, `[shop-web-80]`, `[]`, 1)},
	{"an IPv6 upstream", true, strings.Replace(nginxUsualLine, `10.244.2.31:8080`, `[fd00::17]:8080`, 1)},
	{"a unix socket upstream", true, strings.Replace(nginxUsualLine, `10.244.2.31:8080`, `unix:/run/app.sock`, 1)},
	{"no upstream", true, strings.Replace(nginxUsualLine, `10.244.2.31:8080 512 0.004 200`, `- - - -`, 1)},
	{"a dash status", true, strings.Replace(nginxUsualLine, `0.004 200 0c2f`, `0.004 - 0c2f`, 1)},
	{"a 502 with no body", true, strings.Replace(nginxUsualLine, `8080 512 0.004 200`, `8080 0 0.002 502`, 1)},
	{"a negative zone offset", true, strings.Replace(nginxUsualLine, `+0000`, `-0130`, 1)},
	{"a carriage return", true, nginxUsualLine + "\r"},
	{"a space after the request id", true, nginxUsualLine + " "},
	{"a long request id", true, nginxUsualLine + "0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60"},
	{"a long upstream name", true, strings.Replace(nginxUsualLine, `shop-web-80`, `a-namespace-with-a-long-name-a-service-with-a-long-name-8080`, 1)},
	{"a quote before the client", false, `"` + nginxUsualLine},
	{"no dash after the client", false, strings.Replace(nginxUsualLine, ` - - [`, ` x - [`, 1)},
	{"a remote user", false, strings.Replace(nginxUsualLine, ` - - [`, ` - alice [`, 1)},
	{"a bracket before the time", false, strings.Replace(nginxUsualLine, ` - - [`, ` - - [x] [`, 1)},
	{"a bad time", false, strings.Replace(nginxUsualLine, `Jan`, `Foo`, 1)},
	{"a time closed by a parenthesis", false, strings.Replace(nginxUsualLine, `+0000]`, `+0000)`, 1)},
	{"a cut time", false, strings.Replace(nginxUsualLine, `:05 +0000]`, `:05]`, 1)},
	{"no space before the request", false, strings.Replace(nginxUsualLine, `+0000] "GET`, `+0000]"GET`, 1)},
	{"no space after the request", false, strings.Replace(nginxUsualLine, `HTTP/1.1" 200`, `HTTP/1.1"-200`, 1)},
	{"a status run into the bytes sent", false, strings.Replace(nginxUsualLine, `" 200 512`, `" 200x512`, 1)},
	{"two spaces before the status", false, strings.Replace(nginxUsualLine, `" 200 512`, `"  200 512`, 1)},
	{"a status below 100", false, strings.Replace(nginxUsualLine, `" 200 512`, `" 099 512`, 1)},
	{"bad bytes sent", false, strings.Replace(nginxUsualLine, `200 512 "`, `200 5x2 "`, 1)},
	{"a referer without its opening quote", false, strings.Replace(nginxUsualLine, `"-" "curl`, `a" "curl`, 1)},
	{"an unterminated referer", false, strings.Replace(nginxUsualLine, `"-" `, `"- `, 1)},
	{"no space after the user agent", false, strings.Replace(nginxUsualLine, `"curl/8.5.0" `, `"curl/8.5.0"`, 1)},
	{"a bad request time", false, strings.Replace(nginxUsualLine, ` 87 0.004 [`, ` 87 0.0.4 [`, 1)},
	{"a tab before the upstream name", false, strings.Replace(nginxUsualLine, ` 87 0.004 [`, ` 87 0.004	[`, 1)},
	{"no alternative upstream (0.24)", false, strings.Replace(nginxUsualLine, `[] `, ``, 1)},
	{"no upstream names (2016)", false, strings.Replace(nginxUsualLine, `[shop-web-80] [] `, ``, 1)},
	{"an IPv6 upstream without the alternative name (0.24)", false, strings.Replace(nginxUsualLine, `[] 10.244.2.31:8080`, `[fd00::17]:8080`, 1)},
	{"the real IP (0.25)", false, strings.Replace(nginxUsualLine, ` - - [`, ` - [203.0.113.10] - - [`, 1)},
	{"an upstream name without its opening bracket", false, strings.Replace(nginxUsualLine, `[shop-web-80]`, `shop-web-80]`, 1)},
	{"an unterminated upstream name", false, strings.Replace(nginxUsualLine, `[shop-web-80] [] 10`, `[shop-web-80 10`, 1)},
	{"a retried request", false, strings.Replace(nginxUsualLine, `10.244.2.31:8080 512 0.004 200`, `10.244.1.17:8080, 10.244.2.31:8080 0, 512 0.000, 0.004 502, 200`, 1)},
	{"more addresses than statuses", false, strings.Replace(nginxUsualLine, `10.244.2.31:8080 512 0.004 200`, `10.244.1.17:8080, 10.244.2.31:8080 0, 512 0.000, 0.004 200`, 1)},
	{"internal redirect groups", false, strings.Replace(nginxUsualLine, `10.244.2.31:8080 512 0.004 200`, `10.244.2.31:8080 : 127.0.0.1:8181 0 : 10 0.004 : 0.001 503 : 404`, 1)},
	{"internal redirect groups in the status list alone", false, strings.Replace(nginxUsualLine, `0.004 200 0c2f`, `0.004 503 : 404 0c2f`, 1)},
	{"an upstream list ending in a comma", false, strings.Replace(nginxUsualLine, `8080 512`, `8080, 512`, 1)},
	{"two spaces in the upstream lists", false, strings.Replace(nginxUsualLine, `8080 512`, `8080  512`, 1)},
	{"no request id", false, strings.TrimSuffix(nginxUsualLine, ` 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`)},
	{"a bad upstream status", false, strings.Replace(nginxUsualLine, `0.004 200 0c2f`, `0.004 20x 0c2f`, 1)},
	{"an upstream status over 999", false, strings.Replace(nginxUsualLine, `0.004 200 0c2f`, `0.004 2000 0c2f`, 1)},
}

// TestNginxScanUsualAgreesWithFullScan feeds the one-pass reader and the
// full one the same lines: the real and quoted lines of this file and of
// the samples, and nginxUsualOddLines. Wherever the one-pass reader takes a
// line, the full reader must take it too with the very same fields, and
// the single-attempt shortcut must give the attempts the list walk gives.
func TestNginxScanUsualAgreesWithFullScan(t *testing.T) {
	type tc struct {
		name  string
		usual int // 1 taken, 0 left to the full reader, -1 not stated
		line  string
	}
	var cases []tc
	for _, c := range nginxUsualOddLines {
		usual := 0
		if c.usual {
			usual = 1
		}
		cases = append(cases, tc{c.name, usual, c.line})
	}
	for n := range len(nginxUsualLine) {
		cases = append(cases, tc{fmt.Sprintf("the usual line cut to %d bytes", n), -1, nginxUsualLine[:n]})
	}
	for _, c := range nginxAccessCases {
		cases = append(cases, tc{c.name, -1, c.line})
	}
	for _, c := range nginxSkippedLines {
		cases = append(cases, tc{c.name, 0, c.line})
	}
	for _, name := range []string{"elastic--beats--test.log", "elastic--beats--error.log"} {
		b, err := os.ReadFile("testdata/samples/ingress-nginx/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			cases = append(cases, tc{fmt.Sprintf("%s:%d", name, i+1), -1, line})
		}
	}
	taken := 0
	for _, c := range cases {
		var fast, full nginxAccessFields
		fast.stamp, full.stamp = new(lex.Stamp), new(lex.Stamp)
		ok := nginxScanUsual([]byte(c.line), &fast)
		err := nginxScanAccess([]byte(c.line), &full)
		if c.usual >= 0 && ok != (c.usual == 1) {
			t.Errorf("%s: nginxScanUsual = %v, want %v", c.name, ok, c.usual == 1)
		}
		if err == nil && full.single {
			one := nginxAttempt(nil, full.addrs, full.lengths, full.statuses)
			walked := nginxAttempts(nil, full.addrs, full.lengths, full.statuses)
			if !reflect.DeepEqual(one, walked) {
				t.Errorf("%s: nginxAttempt = %+v, nginxAttempts = %+v", c.name, one, walked)
			}
		}
		if !ok {
			continue
		}
		taken++
		if err != nil {
			t.Errorf("%s: taken by nginxScanUsual, rejected by nginxScanAccess: %v", c.name, err)
			continue
		}
		fast.stamp, full.stamp = nil, nil
		if !reflect.DeepEqual(fast, full) {
			t.Errorf("%s:\n one pass %+v\n full     %+v", c.name, fast, full)
		}
	}
	if taken < len(nginxAccessCases)/2 {
		t.Errorf("nginxScanUsual took only %d of %d lines", taken, len(cases))
	}
}

func TestNginxSplitRequestLine(t *testing.T) {
	for _, c := range []struct{ req, method, path string }{
		{"GET /api/items HTTP/1.1", "GET", "/api/items"},
		{"POST /helloworld.Greeter/SayHello HTTP/2.0", "POST", "/helloworld.Greeter/SayHello"},
		{"GET /a b HTTP/1.1", "GET", "/a b"},
		{"GET /x  HTTP/1.1", "GET", "/x "},
		{"GET /x HTTP/10.0", "GET", "/x"},
		{"GET /x HTTP/1", "GET", "/x"},
		{"GET /x HTTP/ 11", "GET", "/x HTTP/ 11"},
		{"GET /x HTTP/1 1", "GET", "/x HTTP/1 1"},
		{"GET /x HTTP/1. ", "GET", "/x HTTP/1. "},
		{"GET /x HTTP/1.1 ", "GET", "/x HTTP/1.1 "},
		{"GET /xHTTP/1.1", "GET", "/xHTTP/1.1"},
		{"GET HTTP/1.1", "GET", "HTTP/1.1"},
		{"GET  HTTP/1.1", "GET", ""},
		{"GET /", "GET", "/"},
		{"PATCHp /products/42 HTTP/1.1", "PATCHp", "/products/42"},
		{"\\x16\\x03\\x01", "\\x16\\x03\\x01", ""},
		{"", "", ""},
	} {
		method, path := nginxSplitRequestLine(c.req)
		if method != c.method || path != c.path {
			t.Errorf("%q: %q %q, want %q %q", c.req, method, path, c.method, c.path)
		}
	}
}

func TestNginxIndex(t *testing.T) {
	for _, s := range []string{"", " ", "a", "abc def", "abcdefg ", "abcdefgh ", "abcdefghijklmnop q", "abcdefghijklmnopq", "\xa0\x20", "!!!!!!!!!!!!!!!! ", "\x21\x1f\x20"} {
		for _, c := range []byte{' ', ']'} {
			word := uint64(swarSpaces)
			if c == ']' {
				word = swarBrackets
				s = strings.ReplaceAll(s, " ", "]")
			}
			if got, want := nginxIndex([]byte(s), word), strings.IndexByte(s, c); got != want {
				t.Errorf("nginxIndex(%q, %q) = %d, want %d", s, c, got, want)
			}
		}
	}
}

// TestNginxStartTime checks that an access line is read back to when the
// request started: $time_local less $request_time, to the second that
// $time_local is written to (the whole seconds of the duration only, see
// startedBefore), exactly behind a finer wrapper stamp, and as logged
// when $request_time is `-` or zero. Logged keeps the line's own time.
func TestNginxStartTime(t *testing.T) {
	const head = `203.0.113.10 - - [10/Mar/2026:12:00:07 +0000] "POST /api/orders HTTP/1.1" 502 150 "-" "curl/8.5.0" 612 `
	const tail = ` [shop-web-80] [] 10.244.1.17:8080 0 4.205 502 1d2f3e4a5b6c7d8e9f0a1b2c3d4e5f61`
	logged := time.Date(2026, 3, 10, 12, 0, 7, 0, time.UTC)
	stamp := logged.Add(917 * time.Millisecond)
	cases := []struct {
		name, reqTime string
		stamp         time.Time
		start         time.Time
		dur           time.Duration
	}{
		{"slow POST cut after 4.205 s", "4.205", time.Time{}, logged.Add(-4 * time.Second), 4205 * time.Millisecond},
		{"a short request stays in its second", "0.005", time.Time{}, logged, 5 * time.Millisecond},
		{"behind a stamp, exactly", "4.205", stamp, stamp.Add(-4205 * time.Millisecond), 4205 * time.Millisecond},
		{"not logged", "-", time.Time{}, logged, 0},
		{"zero", "0.000", time.Time{}, logged, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxParseOne(t, head+tc.reqTime+tail, tc.stamp, nil)
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("skipped=%d %v requests=%d", rep.Skipped, rep.SkipSamples(), len(c.requests))
			}
			r := c.requests[0]
			want := logged
			if !tc.stamp.IsZero() {
				want = tc.stamp
			}
			if !r.Time.Equal(tc.start) || r.Duration != tc.dur || !r.Logged().Equal(want) {
				t.Errorf("Time %v, Duration %v, Logged %v; want %v, %v, %v", r.Time, r.Duration, r.Logged(), tc.start, tc.dur, want)
			}
		})
	}
	// A JSON template's $request_time, quoted or not, reads the same.
	for _, v := range []string{`"2.500"`, `2.5`} {
		line := `{"time":"2026-03-10T12:00:07.750+00:00","status":502,"request_time":` + v + `,"upstream_addr":"10.0.0.5:8080","upstream_status":"502"}`
		c, rep := nginxJSONParseOne(t, ingressNginxJSON{}, line, time.Time{})
		if rep.Skipped != 0 || len(c.requests) != 1 {
			t.Fatalf("%s: skipped=%d %v requests=%d", v, rep.Skipped, rep.SkipSamples(), len(c.requests))
		}
		if r := c.requests[0]; !r.Time.Equal(logged.Add(-1750*time.Millisecond)) || r.Duration != 2500*time.Millisecond {
			t.Errorf("JSON request_time %s: Time %v, Duration %v", v, r.Time, r.Duration)
		}
	}
}

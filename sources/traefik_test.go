package sources

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// traefikWant is what a rule reads of one Traefik access line.
type traefikWant struct {
	time      string
	status    int
	gen       Generator
	failure   FailureKind
	backend   string
	lb        string
	method    string
	path      string
	attempts  int
	duration  time.Duration
	detailHas string
}

// traefikCases are lines of testdata/samples/traefik (see its NOTICE).
var traefikCases = []struct {
	name, line string
	want       traefikWant
}{
	{"v1 served (beats sample)", `192.168.33.1 - - [02/Oct/2017:20:22:07 +0000] "GET /ui/favicons/favicon-16x16.png HTTP/1.1" 304 0 "http://example.com/login" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/61.0.3163.100 Safari/537.36" 262 "Host-host-1" "http://172.19.0.3:5601" 2ms`,
		traefikWant{time: "2017-10-02T20:22:07Z", status: 304, gen: GeneratedByBackend, backend: "172.19.0.3:5601", lb: "traefik", method: "GET", path: "/ui/favicons/favicon-16x16.png", duration: 2 * time.Millisecond}},
	{"v1 unquoted referer", `67.43.156.15 - - [28/Feb/2018:17:30:33 +0000] "GET /en/ HTTP/2.0" 200 2814 - "Mozilla/5.0 (iPhone; CPU iPhone OS 11_2_5 like Mac OS X) AppleWebKit/604.5.6 (KHTML, like Gecko) Version/11.0 Mobile/15D60 Safari/604.1" 13 "Host-host1-com-0" "http://172.19.0.6:14008" 247ms`,
		traefikWant{time: "2018-02-28T17:30:33Z", status: 200, gen: GeneratedByBackend, backend: "172.19.0.6:14008", lb: "traefik", method: "GET", path: "/en/", duration: 247 * time.Millisecond}},
	{"v1 backend not found", `::1 - - [29/Nov/2018:15:03:51 +0000] "GET / HTTP/1.1" 404 19 "-" "curl/7.62.0" 10 "backend not found" "/" 0ms`,
		traefikWant{time: "2018-11-29T15:03:51Z", status: 404, gen: GeneratedByLB, failure: FailureNoBackend, lb: "traefik", method: "GET", path: "/", detailHas: "no router"}},
	{"escaped quote in the user agent, local offset", `10.0.0.1 - Client [10/Nov/2009:14:00:00 -0900] "GET /foo http" 123 132 "referer" "a \" b" - "foo" "http://10.0.0.2/toto" 123000ms`,
		traefikWant{time: "2009-11-10T23:00:00Z", status: 123, gen: GeneratedByBackend, backend: "10.0.0.2:80", lb: "traefik", method: "GET", path: "/foo", duration: 123 * time.Second}},
	{"502 Traefik made", `10.42.0.1 - - [10/Mar/2026:12:00:01 +0000] "GET /api/items HTTP/1.1" 502 11 "-" "curl/8.5.0" 102 "shop-web-ingress-shop-example-com@kubernetes" "http://10.42.1.5:8080" 0ms`,
		traefikWant{time: "2026-03-10T12:00:01Z", status: 502, gen: GeneratedByLB, failure: FailureRefused, backend: "10.42.1.5:8080", lb: "traefik", method: "GET", path: "/api/items", detailHas: "refused, reset or closed"}},
	{"504 Traefik made", `10.42.0.1 - - [10/Mar/2026:12:00:02 +0000] "POST /api/orders HTTP/1.1" 504 15 "-" "curl/8.5.0" 103 "shop-web-ingress-shop-example-com@kubernetes" "http://10.42.1.6:8080" 30001ms`,
		traefikWant{time: "2026-03-10T12:00:02Z", status: 504, gen: GeneratedByLB, failure: FailureTimeout, backend: "10.42.1.6:8080", lb: "traefik", method: "POST", path: "/api/orders", duration: 30001 * time.Millisecond}},
	{"the app's own 502", `10.42.0.1 - - [10/Mar/2026:12:00:03 +0000] "GET /api/upstream HTTP/1.1" 502 87 "-" "curl/8.5.0" 104 "shop-web-ingress-shop-example-com@kubernetes" "http://10.42.1.6:8080" 12ms`,
		traefikWant{time: "2026-03-10T12:00:03Z", status: 502, gen: GeneratedByBackend, failure: FailureAppError, backend: "10.42.1.6:8080", lb: "traefik", method: "GET", path: "/api/upstream", duration: 12 * time.Millisecond}},
	{"404 without a router", `10.42.0.1 - - [10/Mar/2026:12:00:04 +0000] "GET /api/items HTTP/1.1" 404 19 "-" "curl/8.5.0" 105 "-" "-" 0ms`,
		traefikWant{time: "2026-03-10T12:00:04Z", status: 404, gen: GeneratedByLB, failure: FailureNoBackend, lb: "traefik", method: "GET", path: "/api/items", detailHas: "allowEmptyServices"}},
	{"503 no available server", `10.42.0.1 - - [10/Mar/2026:12:00:05 +0000] "GET /api/items HTTP/1.1" 503 20 "-" "curl/8.5.0" 106 "shop-web-ingress-shop-example-com@kubernetes" "-" 0ms`,
		traefikWant{time: "2026-03-10T12:00:05Z", status: 503, gen: GeneratedByLB, failure: FailureNoBackend, lb: "traefik", method: "GET", path: "/api/items", detailHas: "no available server"}},
	{"IPv6 server", `10.42.0.1 - - [10/Mar/2026:12:00:06 +0000] "GET /api/items HTTP/2.0" 200 512 "-" "curl/8.5.0" 107 "shop-web-shop@kubernetescrd" "http://[fd00:10:42::5]:8080" 2ms`,
		traefikWant{time: "2026-03-10T12:00:06Z", status: 200, gen: GeneratedByBackend, backend: "[fd00:10:42::5]:8080", lb: "traefik", method: "GET", path: "/api/items", duration: 2 * time.Millisecond}},
	{"json served", `{"ClientHost":"10.42.0.1","DownstreamContentSize":512,"DownstreamStatus":200,"Duration":3120000,"OriginStatus":200,"RequestHost":"Shop.example.com","RequestMethod":"GET","RequestPath":"/api/items","RetryAttempts":0,"RouterName":"r@kubernetes","ServiceAddr":"10.42.1.5:8080","ServiceURL":"http://10.42.1.5:8080","StartUTC":"2026-03-10T12:00:00.123456789Z","level":"info","msg":"","time":"2026-03-10T12:00:00Z"}`,
		traefikWant{time: "2026-03-10T12:00:00.123456789Z", status: 200, gen: GeneratedByBackend, backend: "10.42.1.5:8080", lb: "shop.example.com", method: "GET", path: "/api/items", duration: 3120 * time.Microsecond}},
	{"json 502 after retries", `{"DownstreamContentSize":11,"DownstreamStatus":502,"OriginStatus":502,"RequestHost":"shop.example.com","RequestMethod":"GET","RequestPath":"/api/items","RetryAttempts":2,"RouterName":"r@kubernetes","ServiceAddr":"10.42.1.5:8080","StartUTC":"2026-03-10T12:00:01.2Z"}`,
		traefikWant{time: "2026-03-10T12:00:01.2Z", status: 502, gen: GeneratedByLB, failure: FailureRefused, backend: "10.42.1.5:8080", lb: "shop.example.com", method: "GET", path: "/api/items", attempts: 3}},
	{"json 404 without a router", `{"DownstreamContentSize":19,"DownstreamStatus":404,"OriginStatus":0,"RequestHost":"shop.example.com","RequestMethod":"GET","RequestPath":"/api/items","StartLocal":"2026-03-10T13:00:04+01:00"}`,
		traefikWant{time: "2026-03-10T12:00:04Z", status: 404, gen: GeneratedByLB, failure: FailureNoBackend, lb: "shop.example.com", method: "GET", path: "/api/items"}},
}

func TestTraefikLines(t *testing.T) {
	for _, tc := range traefikCases {
		t.Run(tc.name, func(t *testing.T) {
			if !(traefikAccess{}).Match([]byte(tc.line)) {
				t.Error("Match = false")
			}
			c, rep := nginxJSONParseOne(t, traefikAccess{}, tc.line, time.Time{})
			if len(c.requests) != 1 || rep.Skipped != 0 {
				t.Fatalf("requests=%d skips=%v", len(c.requests), rep.SkipSamples())
			}
			r, w := c.requests[0], tc.want
			if got := r.Time.UTC().Format(time.RFC3339Nano); got != w.time {
				t.Errorf("time %s, want %s", got, w.time)
			}
			var backend netip.AddrPort
			if w.backend != "" {
				backend = netip.MustParseAddrPort(w.backend)
			}
			if r.Status != w.status || r.Generator != w.gen || r.Failure != w.failure || r.Backend != backend || r.LB != w.lb ||
				r.Method != w.method || r.Path != w.path || r.AttemptCount != w.attempts || r.Format != FormatTraefik {
				t.Errorf("got status=%d gen=%v failure=%v backend=%v lb=%q %s %s attempts=%d format=%s",
					r.Status, r.Generator, r.Failure, r.Backend, r.LB, r.Method, r.Path, r.AttemptCount, r.Format)
			}
			if w.duration != 0 && r.Duration != w.duration {
				t.Errorf("duration %v, want %v", r.Duration, w.duration)
			}
			if !strings.Contains(r.Detail, w.detailHas) {
				t.Errorf("detail %q lacks %q", r.Detail, w.detailHas)
			}
			if r.ProxyFamily() != FamilyTraefik {
				t.Errorf("family %s", r.ProxyFamily())
			}
		})
	}
}

// TestTraefikStatusColumn: up to v2.10.4 the `common` status column is the
// origin's status captured around the routers, from v2.10.5 the client's;
// for the lines readygap reads both are what the client saw, and `-`
// (nothing captured) is a counted skip, not a success.
func TestTraefikStatusColumn(t *testing.T) {
	old := `10.42.0.1 - - [10/Mar/2023:12:00:01 +0000] "GET /api/items HTTP/1.1" 502 11 "-" "curl/8.5.0" 102 "shop-web-ingress-shop-example-com@kubernetes" "http://10.42.1.5:8080" 0ms`
	c, rep := nginxJSONParseOne(t, traefikAccess{}, old, time.Time{})
	if len(c.requests) != 1 || c.requests[0].Failure != FailureRefused || rep.Skipped != 0 {
		t.Fatalf("requests=%d skips=%v", len(c.requests), rep.SkipSamples())
	}
	dash := `10.42.0.1 - - [10/Mar/2023:12:00:01 +0000] "GET /api/items HTTP/1.1" - - "-" "curl/8.5.0" 102 "r@kubernetes" "http://10.42.1.5:8080" 0ms`
	c, rep = nginxJSONParseOne(t, traefikAccess{}, dash, time.Time{})
	if len(c.requests) != 0 || rep.Skipped != 1 || !strings.Contains(rep.SkipSamples()[0], "without a status") {
		t.Fatalf("requests=%d skips=%v", len(c.requests), rep.SkipSamples())
	}
}

// TestTraefikOtherLines: Traefik's own log lines, a line without a time and
// other formats are not access lines; the own lines are counted saying so.
func TestTraefikOtherLines(t *testing.T) {
	for _, line := range []string{
		`{"level":"debug","error":"dial tcp 10.42.1.5:8080: connect: connection refused","time":"2026-03-10T12:00:01Z","message":"502 Bad Gateway"}`,
		`2026-03-10T12:00:04Z ERR Skipping service: no endpoints found ingress=web namespace=shop`,
		`time="2023-03-10T12:00:04Z" level=error msg="Skipping service: no endpoints found"`,
	} {
		if (traefikAccess{}).Match([]byte(line)) {
			t.Errorf("Match(%.60s) = true", line)
		}
		c, rep := nginxJSONParseOne(t, traefikAccess{}, line, time.Time{})
		if len(c.requests) != 0 || rep.Skipped != 1 || !strings.Contains(rep.SkipSamples()[0], "Traefik's own log line") {
			t.Errorf("%.50s: requests=%d skips=%v", line, len(c.requests), rep.SkipSamples())
		}
	}
	for _, line := range []string{
		`- - - [-] "- - -" - - "testReferer" "testUserAgent" - "-" "-" 0ms`,
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
		`203.0.113.9 - - [04/Mar/2026:10:15:06 +0000] "POST /api/v1/orders HTTP/1.1" 201 64 "-" "curl/8.5.0"`,
		`{"status":200,"time":"2026-03-10T12:00:00Z"}`,
	} {
		if (traefikAccess{}).Match([]byte(line)) {
			t.Errorf("Match(%.60s) = true", line)
		}
		if c, rep := nginxJSONParseOne(t, traefikAccess{}, line, time.Time{}); len(c.requests) != 0 || rep.Skipped != 1 {
			t.Errorf("%.50s: requests=%d skipped=%d", line, len(c.requests), rep.Skipped)
		}
	}
}

// TestTraefikSamples reads every sample file through the pipeline:
// detected as Traefik, every line a record or a counted skip.
func TestTraefikSamples(t *testing.T) {
	for _, c := range []struct {
		file             string
		records, skipped int
	}{
		{"elastic--beats--test.log", 6, 1},
		{"traefik--traefik--logger_test.log", 3, 1},
		{"common-v3.log", 7, 0},
		{"common-v2.log", 3, 0},
		{"json-v3.log", 4, 2},
	} {
		t.Run(c.file, func(t *testing.T) {
			res, _ := readPaths(t, Options{}, filepath.Join("testdata", "samples", "traefik", c.file))
			if len(res.Inputs) != 1 {
				t.Fatalf("inputs %+v", res.Inputs)
			}
			in := res.Inputs[0]
			if in.Format != FormatTraefik || in.Records != c.records || in.Skipped != c.skipped {
				t.Errorf("format=%s records=%d skipped=%d %v", in.Format, in.Records, in.Skipped, in.SkipSamples())
			}
		})
	}
}

// TestTraefikKubectlTimestamps: the lines of `kubectl logs --timestamps`
// of a Traefik pod give the bare lines' records.
func TestTraefikKubectlTimestamps(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "samples", "traefik", "common-v3.log"))
	if err != nil {
		t.Fatal(err)
	}
	var wrapped bytes.Buffer
	for i, l := range strings.Split(strings.TrimSuffix(string(src), "\n"), "\n") {
		wrapped.WriteString(time.Date(2026, 3, 10, 12, 0, i, 500, time.UTC).Format(time.RFC3339Nano) + " " + l + "\n")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "traefik.log")
	if err := os.WriteFile(path, wrapped.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var bare, got []*Request
	for _, c := range []struct {
		path string
		dst  *[]*Request
	}{{filepath.Join("testdata", "samples", "traefik", "common-v3.log"), &bare}, {path, &got}} {
		col := &collector{}
		if _, err := Read(context.Background(), []string{c.path}, Options{}, func(*InputReport) Handler { return col }); err != nil {
			t.Fatal(err)
		}
		*c.dst = col.requests
	}
	if len(got) != 7 || len(got) != len(bare) {
		t.Fatalf("wrapped %d requests, bare %d", len(got), len(bare))
	}
	for i := range got {
		if got[i].Status != bare[i].Status || got[i].Failure != bare[i].Failure || got[i].Backend != bare[i].Backend || !got[i].Time.Equal(bare[i].Time) {
			t.Errorf("line %d: wrapped %+v, bare %+v", i+1, got[i], bare[i])
		}
	}
}

func FuzzTraefik(f *testing.F) {
	for _, tc := range traefikCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		c := &collector{}
		rep := &InputReport{}
		em := newEmitter(c, &Options{}, rep, nil)
		matched := (traefikAccess{}).Match(line)
		err := (traefikAccess{}).Parse(line, &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if !bytes.Equal(line, orig) {
			t.Fatal("input modified")
		}
		if err != nil && len(c.requests) != 0 || len(c.requests) > 1 || rep.Records != len(c.requests) {
			t.Fatalf("error %v with %d records", err, len(c.requests))
		}
		if len(c.requests) == 1 && !matched {
			t.Fatal("record from a line Match rejects")
		}
		for _, r := range c.requests {
			if r.Time.IsZero() || r.Status < 100 || r.Status > 999 {
				t.Fatalf("bad request %+v", r)
			}
		}
	})
}

func BenchmarkTraefikParse(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "samples", "traefik", "common-v3.log"))
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(src, []byte("\n")), []byte("\n"))
	var many [][]byte
	for len(many) < 10000 {
		many = append(many, lines...)
	}
	benchmarkLines(b, traefikAccess{}, many)
}

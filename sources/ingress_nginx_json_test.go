package sources

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nginxJSONParseOne feeds one line to the JSON adapter a, as the pipeline would.
func nginxJSONParseOne(t testing.TB, a lineAdapter, line string, stamp time.Time) (*collector, *InputReport) {
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

// checkNginxJSONRequest is checkNginxRequest for a Request of format f.
func checkNginxJSONRequest(t *testing.T, got *Request, f Format, w nginxWantRequest) {
	t.Helper()
	if got.Format != f {
		t.Errorf("format = %q, want %q", got.Format, f)
	}
	r := got.Clone()
	r.Format = FormatIngressNginx
	checkNginxRequest(t, r, w)
}

// nginxJSONCases are JSON access lines in templates users run, read without
// a template: the two lines of envelopes.md §6.2 and constructed lines for
// the key names and value types of nginx-k8s.md §1.7.
var nginxJSONCases = []struct {
	name string
	line string
	want nginxWantRequest
}{
	{"6.2 retry absorbed by nginx",
		`{"time":"2026-03-04T10:15:03+00:00","remote_addr":"203.0.113.9","request_id":"4f0c1a7e9b2d4c3e8a1f6b5d7c9e0a21","host":"shop.example.com","method":"GET","uri":"/api/v1/items","status":200,"bytes_sent":812,"request_time":0.012,"upstream":"shop-api-8080","upstream_addr":"10.8.2.31:8080, 10.8.3.12:8080","upstream_status":"502, 200","upstream_response_time":"0.001, 0.010","user_agent":"curl/8.5.0"}`,
		nginxWantRequest{nginxUTC(2026, 3, 4, 10, 15, 3), 200, GeneratedByBackend, FailureNone, "10.8.3.12:8080",
			[]nginxWantAttempt{{"10.8.2.31:8080", 502, FailureOther}, {"10.8.3.12:8080", 200, FailureNone}}, "GET", "/api/v1/items", "shop-api-8080"}},
	{"6.2 no endpoint, empty upstream values",
		`{"time":"2026-03-04T10:15:04+00:00","remote_addr":"203.0.113.9","request_id":"9a8b7c6d5e4f30211f2e3d4c5b6a7980","host":"shop.example.com","method":"GET","uri":"/","status":503,"bytes_sent":592,"request_time":0.000,"upstream":"shop-api-8080","upstream_addr":"","upstream_status":"","upstream_response_time":"","user_agent":"Mozilla/5.0 (\"x\")"}`,
		nginxWantRequest{nginxUTC(2026, 3, 4, 10, 15, 4), 503, GeneratedByLB, FailureNoBackend, "", nil, "GET", "/", "shop-api-8080"}},
	{"constructed camelCase keys, string status, $request",
		`{"timestamp":"2024-01-15T06:15:26+00:00","requestID":"8fc9c6866b63fc5b0168c733c268d317","proxyUpstreamName":"default-keycloak-8080","upstreamStatus":"502","upstreamAddr":"10.244.1.51:8080","upstreamResponseLength":"0","request":"POST /login HTTP/1.1","status":"502"}`,
		nginxWantRequest{nginxUTC(2024, 1, 15, 6, 15, 26), 502, GeneratedByLB, FailureOther, "10.244.1.51:8080",
			[]nginxWantAttempt{{"10.244.1.51:8080", 502, FailureOther}}, "POST", "/login", "default-keycloak-8080"}},
	{"constructed $time_local in a key of its own, east of UTC",
		`{"time_local":"15/Jan/2024:07:15:26 +0100","status":200,"request_method":"GET","request_uri":"/a?b=1","proxy_upstream_name":"shop-web-80","upstream_addr":"10.0.0.5:8080","upstream_status":"200","upstream_response_length":"12"}`,
		nginxWantRequest{nginxUTC(2024, 1, 15, 6, 15, 26), 200, GeneratedByBackend, FailureNone, "10.0.0.5:8080",
			[]nginxWantAttempt{{"10.0.0.5:8080", 200, FailureNone}}, "GET", "/a?b=1", "shop-web-80"}},
	{"constructed $msec as a number, three connect timeouts",
		`{"msec":1704164645.123,"status":504,"upstream_server":"10.0.0.5:8080, 10.0.0.5:8080, 10.0.0.5:8080","upstream_status":"504, 504, 504","upstream_response_length":"0, 0, 0","upstream_name":"shop-web-80"}`,
		nginxWantRequest{time.Date(2024, 1, 2, 3, 4, 5, 123e6, time.UTC), 504, GeneratedByLB, FailureTimeout, "10.0.0.5:8080",
			[]nginxWantAttempt{{"10.0.0.5:8080", 504, FailureTimeout}, {"10.0.0.5:8080", 504, FailureTimeout}, {"10.0.0.5:8080", 504, FailureTimeout}}, "", "", "shop-web-80"}},
	{"constructed unquoted upstream_status of one attempt, an app 500 with a body",
		`{"@timestamp":"2024-01-02T03:04:05Z","status":500,"method":"PUT","path":"/x","upstream_addr":"[fd00::17]:80","upstream_status":500,"upstream_response_length":21}`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 500, GeneratedByBackend, FailureAppError, "[fd00::17]:80",
			[]nginxWantAttempt{{"[fd00::17]:80", 500, FailureAppError}}, "PUT", "/x", ""}},
	{"constructed an `upstream` key holding the address is not the upstream's name",
		`{"timestamp":"2026-08-20T11:05:02.503Z","request_id":"lab-000122","method":"GET","path":"/health","status":502,"upstream":"172.23.0.12:8080","upstream_status":"502","request_time":0.003,"client":"192.0.2.24"}`,
		nginxWantRequest{time.Date(2026, 8, 20, 11, 5, 2, 503e6, time.UTC), 502, GeneratedByLB, FailureOther, "172.23.0.12:8080",
			[]nginxWantAttempt{{"172.23.0.12:8080", 502, FailureOther}}, "GET", "/health", ""}},
	{"constructed an empty `upstream` key: nothing contacted, not a request refused before routing",
		`{"timestamp":"2026-08-20T11:05:03Z","method":"GET","path":"/health","status":503,"upstream":"","upstream_status":"","request_time":0.000}`,
		nginxWantRequest{nginxUTC(2026, 8, 20, 11, 5, 3), 503, GeneratedByLB, FailureNoBackend, "", nil, "GET", "/health", ""}},
	{"constructed null values, a 400 rejected before routing",
		`{"time_iso8601":"2024-01-02T03:04:05+00:00","status":400,"proxy_upstream_name":"","upstream_addr":null,"upstream_status":null,"request":"PATCHp /products/42 HTTP/1.1"}`,
		nginxWantRequest{nginxUTC(2024, 1, 2, 3, 4, 5), 400, GeneratedByLB, FailureNone, "", nil, "PATCHp", "/products/42", ""}},
}

func TestIngressNginxJSONLines(t *testing.T) {
	for _, tc := range nginxJSONCases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxJSONParseOne(t, ingressNginxJSON{}, tc.line, time.Time{})
			if rep.Skipped != 0 || len(c.requests) != 1 {
				t.Fatalf("skipped=%d %v requests=%d", rep.Skipped, rep.SkipSamples(), len(c.requests))
			}
			checkNginxJSONRequest(t, c.requests[0], FormatIngressNginxJSON, tc.want)
			if !(ingressNginxJSON{}).Match([]byte(tc.line)) {
				t.Error("Match = false")
			}
		})
	}
}

// TestIngressNginxJSONSameAsText reads the access lines of nginx-k8s.md
// §1.10 written in the default format and in JSON with the same values:
// the same Request.
func TestIngressNginxJSONSameAsText(t *testing.T) {
	for _, tc := range nginxAccessCases[:6] {
		var f nginxAccessFields
		if err := nginxScanAccess([]byte(tc.line), &f); err != nil {
			t.Fatal(err)
		}
		dash := func(b []byte) string {
			if nginxIsDash(b) {
				return ""
			}
			return string(b)
		}
		line := fmt.Sprintf(`{"time":%q,"status":%d,"request":%q,"proxy_upstream_name":%q,"upstream_addr":%q,"upstream_response_length":%q,"upstream_status":%q}`,
			f.time.Format(time.RFC3339), f.status, f.request, f.upstream, dash(f.addrs), dash(f.lengths), dash(f.statuses))
		c, rep := nginxJSONParseOne(t, ingressNginxJSON{}, line, time.Time{})
		if rep.Skipped != 0 || len(c.requests) != 1 {
			t.Fatalf("%s: skipped=%d %v", tc.name, rep.Skipped, rep.SkipSamples())
		}
		checkNginxJSONRequest(t, c.requests[0], FormatIngressNginxJSON, tc.want)
	}
}

// nginxJSONSkipped are JSON lines that must be skipped with the reason given.
var nginxJSONSkipped = []struct{ name, line, reason string }{
	{"docs example without upstream variables",
		`{"time": "2026-03-04T10:15:07+00:00", "remote_addr": "203.0.113.9", "bytes_sent": 612, "request_time": 0.004, "status": 200, "vhost": "shop.example.com", "path": "/", "request_length": 78, "method": "GET", "http_user_agent": "curl/8.5.0" }`,
		"without $upstream_addr or $upstream_status"},
	{"upstream_addr without upstream_status",
		`{"time":"2026-03-04T10:15:07+00:00","status":502,"upstream_addr":"10.0.0.5:8080"}`,
		"without $upstream_status: "},
	{"unquoted list: invalid JSON",
		`{"time":"2026-03-04T10:15:07+00:00","status":502,"upstream_addr":"10.0.0.5:8080","upstream_status":502, 502}`,
		"invalid JSON"},
	{"status not an HTTP status", `{"time":"2026-03-04T10:15:07+00:00","status":"abc","upstream_addr":"","upstream_status":""}`, "status that is not an HTTP status"},
	{"status zero", `{"time":"2026-03-04T10:15:07+00:00","status":0,"upstream_addr":"","upstream_status":""}`, "status that is not an HTTP status"},
	{"no status", `{"time":"2026-03-04T10:15:07+00:00","upstream_addr":"","upstream_status":""}`, "without a status"},
	{"bad time", `{"time":"2026-13-04T10:15:07+00:00","status":200,"upstream_addr":"","upstream_status":""}`, "a time its variable does not write"},
	{"bad upstream status list", `{"time":"2026-03-04T10:15:07+00:00","status":200,"upstream_addr":"a","upstream_status":"20x"}`, "bad $upstream_status"},
	{"no time and no wrapper time", `{"status":200,"upstream_addr":"10.0.0.5:8080","upstream_status":"200"}`, "without a time"},
	{"#10852 cut by its author", nginxSkippedLines[6].line, "invalid JSON"},
}

func TestIngressNginxJSONSkippedLines(t *testing.T) {
	for _, tc := range nginxJSONSkipped {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := nginxJSONParseOne(t, ingressNginxJSON{}, tc.line, time.Time{})
			if rep.Skipped != 1 || len(c.requests) != 0 {
				t.Fatalf("skipped=%d requests=%d", rep.Skipped, len(c.requests))
			}
			if s := rep.SkipSamples()[0]; !strings.Contains(s, tc.reason) {
				t.Errorf("reason %q does not say %q", s, tc.reason)
			}
		})
	}
	// A wrapper time dates a line without one.
	stamp := time.Date(2026, 3, 4, 10, 15, 7, 250e6, time.UTC)
	c, rep := nginxJSONParseOne(t, ingressNginxJSON{}, `{"status":200,"upstream_addr":"10.0.0.5:8080","upstream_status":"200"}`, stamp)
	if rep.Skipped != 0 || len(c.requests) != 1 || !c.requests[0].Time.Equal(stamp) {
		t.Errorf("with a wrapper time: skipped=%d %+v", rep.Skipped, c.requests)
	}
}

func TestIngressNginxJSONMatch(t *testing.T) {
	for _, line := range []string{
		`{"status":200,"time":"2026-03-04T10:15:07+00:00","service":"web"}`, // no key only nginx writes
		`{"start_time":"2024-01-02T03:04:05.000Z","method":"GET","response_code":503,"response_flags":"UH","upstream_host":"-"}`,
		`{"time":"2026-03-04T10:15:07+00:00","upstream_addr":"10.0.0.5:8080"}`, // no status
		`{"status":200,"upstream_addr":"10.0.0.5:8080","request_time":0.004}`,  // no time, no upstream_status
		nginxAccessCases[0].line,
		`not json`,
	} {
		if (ingressNginxJSON{}).Match([]byte(line)) {
			t.Errorf("Match(%.60s) = true", line)
		}
	}
	for _, tc := range nginxErrorCases[:2] {
		if !(ingressNginxJSON{}).Match([]byte(tc.line)) {
			t.Errorf("Match(%.60s) = false", tc.line)
		}
	}
	for _, tc := range nginxKlogCases[:2] {
		if !(ingressNginxJSON{}).Match([]byte(tc.line)) {
			t.Errorf("Match(%.60s) = false", tc.line)
		}
	}
}

func TestIngressNginxJSONSamples(t *testing.T) {
	path := filepath.Join("testdata", "samples", "ingress-nginx-json", "constructed--ingress-nginx--log-format-upstream.jsonl")
	res, c := readPaths(t, Options{}, path)
	if len(res.Inputs) != 1 {
		t.Fatalf("inputs = %+v, warnings %v", res.Inputs, res.Warnings)
	}
	in := res.Inputs[0]
	// Lines 1, 2, 4 are access lines, line 3 an upstream error, line 5 a
	// klog line; line 6 names the variables it lacks.
	if in.Format != FormatIngressNginxJSON || in.Records != 5 || in.Skipped != 1 || c.requests != 4 || c.lifecycle != 1 {
		t.Fatalf("format=%s records=%d skipped=%d requests=%d lifecycle=%d %v", in.Format, in.Records, in.Skipped, c.requests, c.lifecycle, in.SkipSamples())
	}
	if s := in.SkipSamples()[0]; !strings.Contains(s, ":6: ") || !strings.Contains(s, "add $upstream_addr and $upstream_status") {
		t.Errorf("skip = %q", s)
	}
}

// TestIngressNginxJSONLocalZone checks that the error-log lines among JSON
// access lines are read at the offset of the access lines' times.
func TestIngressNginxJSONLocalZone(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.log")
	text := `{"time":"2024-01-02T11:04:05+08:00","status":502,"upstream_addr":"10.0.0.5:8080","upstream_status":"502","upstream_response_length":"0"}` + "\n" +
		nginxErrorCases[0].line + "\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	res, err := Read(context.Background(), []string{path}, Options{Workers: 1}, func(*InputReport) Handler { return c })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || len(c.requests) != 2 {
		t.Fatalf("inputs %+v requests %d warnings %v", res.Inputs, len(c.requests), res.Warnings)
	}
	want := nginxErrorCases[0].time.Add(-8 * time.Hour)
	if got := c.requests[1].Time; !got.Equal(want) {
		t.Errorf("error-log time = %v, want %v (read at +08:00)", got, want)
	}
}

func FuzzIngressNginxJSON(f *testing.F) {
	for _, tc := range nginxJSONCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range nginxJSONSkipped {
		f.Add([]byte(tc.line))
	}
	custom, err := compileNginxCustom(nginxTemplate)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, a := range []ingressNginxJSON{{}, {custom: custom.json}} {
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
			n := len(c.requests) + len(c.lifecycle)
			if err != nil && n != 0 || n > 1 || rep.Records != n {
				t.Fatalf("error %v with %d records, report %d", err, n, rep.Records)
			}
			if len(c.requests) == 1 && !matched && !bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) {
				t.Fatalf("record from a line Match rejects")
			}
			for _, r := range c.requests {
				if r.Time.IsZero() || r.Status < 0 || r.Status > 999 {
					t.Fatalf("bad request %+v", r)
				}
				if len(r.Attempts) > 0 && r.Backend != r.Attempts[len(r.Attempts)-1].Backend {
					t.Fatalf("backend %v is not the last attempt's", r.Backend)
				}
			}
		}
	})
}

// nginxJSONBenchLines renders the benchmark's access lines (see
// nginxBenchLines) as the production template of envelopes.md §6.2 writes them.
func nginxJSONBenchLines(t testing.TB, n int) [][]byte {
	text := nginxBenchLines(n)
	out := make([][]byte, n)
	for i, l := range text {
		var f nginxAccessFields
		if err := nginxScanAccess(l, &f); err != nil {
			t.Fatal(err)
		}
		dash := func(b []byte) []byte {
			if nginxIsDash(b) {
				return nil
			}
			return b
		}
		method, path := nginxSplitRequestLine(string(f.request))
		out[i] = fmt.Appendf(nil, `{"time":"%s","remote_addr":"203.0.113.9","request_id":"%032x","host":"shop.example.com","method":"%s","uri":"%s","status":%d,"bytes_sent":812,"request_time":0.004,"upstream":"%s","upstream_addr":"%s","upstream_status":"%s","upstream_response_length":"%s","upstream_response_time":"0.004","user_agent":"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0"}`,
			f.time.Format("2006-01-02T15:04:05-07:00"), i, method, path, f.status, f.upstream, dash(f.addrs), dash(f.statuses), dash(f.lengths))
	}
	return out
}

func BenchmarkIngressNginxJSONParse(b *testing.B) {
	benchmarkLines(b, ingressNginxJSON{}, nginxJSONBenchLines(b, 10000))
}

// TestIngressNginxJSONWithoutTime reads JSON access lines without a time of
// their own: detected, dated by kubectl's stamps in front of them, and
// skipped saying what to add when nothing dates them.
func TestIngressNginxJSONWithoutTime(t *testing.T) {
	dir := t.TempDir()
	const line = `{"status":502,"request_time":0.001,"upstream_addr":"10.0.0.5:8080","upstream_status":"502","upstream_response_length":"0"}`
	bare := writeFile(t, dir, "bare.log", []byte(line+"\n"+line+"\n"))
	stamped := writeFile(t, dir, "stamped.log", []byte("2026-03-04T10:15:03.250Z "+line+"\n2026-03-04T10:15:04.500Z "+line+"\n"))
	res, c := readPaths(t, Options{}, bare, stamped)
	if len(res.Inputs) != 2 || c.requests != 2 {
		t.Fatalf("inputs %+v requests %d warnings %v", res.Inputs, c.requests, res.Warnings)
	}
	for i, want := range []struct{ records, skipped int }{{0, 2}, {2, 0}} {
		in := res.Inputs[i]
		if in.Format != FormatIngressNginxJSON || in.Records != want.records || in.Skipped != want.skipped {
			t.Errorf("%s: format=%s records=%d skipped=%d", in.Name, in.Format, in.Records, in.Skipped)
		}
	}
	if s := res.Inputs[0].SkipSamples(); len(s) == 0 || !strings.Contains(s[0], "add $time_iso8601 to the log format") {
		t.Errorf("skips = %q", s)
	}
	// The first request started $request_time (1 ms) before its stamp.
	if first := res.Inputs[1].First; !first.Equal(time.Date(2026, 3, 4, 10, 15, 3, 249e6, time.UTC)) {
		t.Errorf("first = %v", first)
	}
}

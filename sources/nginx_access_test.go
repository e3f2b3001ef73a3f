package sources

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nginxCombinedLines are `combined` and NGINX Inc `main` lines (the layouts
// in testdata/samples/nginx-access/NOTICE) with the reason each is skipped.
var nginxCombinedLines = []struct {
	name, line string
	want       error
}{
	{"NGINX Inc main, 502", `203.0.113.9 - - [04/Mar/2026:10:15:03 +0000] "GET /api/v1/items HTTP/1.1" 502 157 "-" "curl/8.5.0" "198.51.100.4"`, errNginxMainNoUpstream},
	{"NGINX Inc main, empty X-Forwarded-For", `203.0.113.9 - alice [04/Mar/2026:10:15:03 -0500] "GET / HTTP/2.0" 200 812 "https://shop.example.com/" "Mozilla/5.0 (X11; Linux x86_64)" "-"`, errNginxMainNoUpstream},
	{"combined", `203.0.113.9 - - [04/Mar/2026:10:15:06 +0000] "POST /api/v1/orders HTTP/1.1" 201 64 "-" "curl/8.5.0"`, errNginxCombinedNoUpstream},
	{"combined, IPv6 client, CRLF", "2001:db8::1 - - [04/Mar/2026:10:15:06 +0000] \"GET / HTTP/1.1\" 304 0 \"-\" \"-\"\r", errNginxCombinedNoUpstream},
}

func TestNginxAccessLines(t *testing.T) {
	for _, tc := range nginxCombinedLines {
		t.Run(tc.name, func(t *testing.T) {
			if !(nginxAccess{}).Match([]byte(tc.line)) {
				t.Error("Match = false")
			}
			if (ingressNginx{}).Match([]byte(tc.line)) {
				t.Error("ingress-nginx matches it too")
			}
			c, rep := nginxJSONParseOne(t, nginxAccess{}, tc.line, time.Time{})
			if len(c.requests) != 0 || rep.Skipped != 1 || !strings.HasSuffix(rep.SkipSamples()[0], tc.want.Error()) {
				t.Errorf("requests=%d skips=%v", len(c.requests), rep.SkipSamples())
			}
		})
	}
	// The lines of ingress-nginx's default format, or with a fourth quoted
	// field, are not these formats; error-log and klog lines are valid
	// lines without a record.
	for _, line := range []string{
		nginxAccessCases[0].line,
		`203.0.113.9 - - [04/Mar/2026:10:15:03 +0000] "GET / HTTP/1.1" 502 157 "-" "curl/8.5.0" "a" "b"`,
		`203.0.113.9 - - [04/Mar/2026:10:15:03 +0000] "GET / HTTP/1.1" 502 157 "-" "curl/8.5.0" 0.004`,
		`203.0.113.9 - - [04/Mar/2026:10:15:03 +0000] "GET / HTTP/1.1" 502 157 "-"`,
	} {
		if (nginxAccess{}).Match([]byte(line)) {
			t.Errorf("Match(%.70s) = true", line)
		}
	}
	for _, line := range []string{nginxErrorCases[0].line, nginxKlogCases[0].line} {
		c, rep := nginxJSONParseOne(t, nginxAccess{}, line, time.Time{})
		if !(nginxAccess{}).Match([]byte(line)) || len(c.requests) != 0 || rep.Skipped != 0 {
			t.Errorf("%.60s: requests=%d skipped=%d", line, len(c.requests), rep.Skipped)
		}
	}
}

// TestNginxAccessSamples reads the NGINX Inc controller's output: detected
// as what it is, not as ingress-nginx, every access line skipped with the
// variables to add, and nothing read as a request.
func TestNginxAccessSamples(t *testing.T) {
	path := filepath.Join("testdata", "samples", "nginx-access", "constructed--nginx--combined-and-main.log")
	res, c := readPaths(t, Options{}, path)
	if len(res.Inputs) != 1 {
		t.Fatalf("inputs %+v warnings %v", res.Inputs, res.Warnings)
	}
	in := res.Inputs[0]
	if in.Format != FormatNginxAccess || in.Records != 0 || in.Skipped != 3 || c.requests != 0 {
		t.Fatalf("format=%s records=%d skipped=%d requests=%d", in.Format, in.Records, in.Skipped, c.requests)
	}
	s := in.SkipSamples()
	if len(s) != 3 || !strings.Contains(s[0], ":1: NGINX Inc controller default access line") || !strings.Contains(s[2], ":5: nginx `combined` access line") ||
		!strings.Contains(s[2], "add ` $upstream_addr $upstream_status`") {
		t.Errorf("skips = %q", s)
	}
}

func FuzzNginxAccess(f *testing.F) {
	for _, tc := range nginxCombinedLines {
		f.Add([]byte(tc.line))
	}
	f.Add([]byte(nginxAccessCases[0].line))
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		c := &collector{}
		rep := &InputReport{}
		em := newEmitter(c, &Options{}, rep, nil)
		matched := (nginxAccess{}).Match(line)
		err := (nginxAccess{}).Parse(line, &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if !bytes.Equal(line, orig) {
			t.Fatal("input modified")
		}
		if len(c.requests)+len(c.lifecycle) != 0 {
			t.Fatal("a record from a format without an upstream")
		}
		if matched != (err == nil || err == errNginxCombinedNoUpstream || err == errNginxMainNoUpstream) {
			t.Fatalf("Match %v but Parse %v", matched, err)
		}
	})
}

func BenchmarkNginxAccessParse(b *testing.B) {
	lines := make([][]byte, 10000)
	total := 0
	for i := range lines {
		lines[i] = []byte(nginxCombinedLines[i%len(nginxCombinedLines)].line)
		total += len(lines[i]) + 1
	}
	em := newEmitter(nginxDiscard{}, &Options{}, &InputReport{}, nil)
	ln := &Line{Origin: Origin{File: "bench", Line: 1}}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, l := range lines {
			_ = (nginxAccess{}).Parse(l, ln, em)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/line")
}

package sources

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// nginxTemplate is a JSON log-format-upstream with keys of its own, an
// unquoted $status and an unquoted $upstream_status (which makes nginx
// write invalid JSON on a retry).
const nginxTemplate = `{"ts": "$time_iso8601", "client": "$remote_addr", "code": $status, "verb": "$request_method", "target": "$request_uri", "svc": "$proxy_upstream_name", "peer": "$upstream_addr", "peer_bytes": "$upstream_response_length", "peer_code": $upstream_status}`

func TestCompileNginxFormatErrors(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   string
	}{
		{"", "the format is empty"},
		{"   \n ", "the format is empty"},
		{"no variables here", "no $variable"},
		{`$remote_addr [$time_local] $upstream_addr $upstream_status`, "no $status"},
		{`$remote_addr [$time_local] "$request" $status $body_bytes_sent`, "the format has no $upstream_addr or $upstream_status: without them"},
		{`$remote_addr [$time_local] "$request" $status $upstream_addr`, "the format has no $upstream_status: without it"},
		{`$remote_addr [$time_local] "$request" $status $upstream_addr$upstream_status`, "$upstream_addr$upstream_status: two variables with nothing between them"},
		{`{"a": "x $status y"}`, "no key whose value is one variable"},
		{`{"t": "$time_iso8601", "s": $status, "a": "$upstream_addr"}`, "no $upstream_status"},
		// ingress-nginx's docs example: no upstream variables at all.
		{`{"time": "$time_iso8601", "remote_addr": "$proxy_protocol_addr", "x_forwarded_for": "$proxy_add_x_forwarded_for", "request_id": "$req_id", "remote_user": "$remote_user", "bytes_sent": $bytes_sent, "request_time": $request_time, "status": $status, "vhost": "$host", "request_proto": "$server_protocol", "path": "$uri", "request_query": "$args", "request_length": $request_length, "method": "$request_method", "http_referrer": "$http_referer", "http_user_agent": "$http_user_agent" }`,
			"no $upstream_addr or $upstream_status"},
	} {
		err := CheckNginxFormat(tc.format)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckNginxFormat(%.50q) = %v, want %q", tc.format, err, tc.want)
		}
	}
}

func TestCompileNginxFormat(t *testing.T) {
	// The README's examples, ingress-nginx's default format, a whole
	// directive and the NGINX Inc controller's multi-line log-format.
	for _, tc := range []struct {
		name, format string
		json         bool
		keys         int
	}{
		{"README text", `$remote_addr [$time_local] "$request" $status $upstream_addr $upstream_status $upstream_response_length`, false, 0},
		{"README JSON", `{"ts": "$time_iso8601", "code": $status, "peer": "$upstream_addr", "peer_code": "$upstream_status", "peer_bytes": "$upstream_response_length"}`, true, 5},
		{"ingress-nginx default", nginxUpstreamInfo, false, 0},
		{"template", nginxTemplate, true, 8},
		{"directive", `log_format upstreaminfo escape=json '{"t":"$time_iso8601",' '"s":$status,"a":"${upstream_addr}",' '"u":"$upstream_status"}';`, true, 4},
		{"NGINX Inc multi-line log-format, in YAML quotes", "'$remote_addr - $remote_user [$time_local] \"$request\" $status\n  $body_bytes_sent \"$http_referer\" \"$http_user_agent\"\n  $upstream_addr $upstream_status'", false, 0},
	} {
		c, err := compileNginxCustom(tc.format)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if tc.json != (c.json != nil) || tc.json && len(c.json.keys) != tc.keys {
			t.Errorf("%s: json=%v keys=%v", tc.name, c.json != nil, c.json)
		}
	}
	c, err := compileNginxCustom("'$remote_addr - $remote_user [$time_local] \"$request\" $status\n  $body_bytes_sent \"$http_referer\" \"$http_user_agent\"\n  $upstream_addr $upstream_status'")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c.text.lits[len(c.text.lits)-2]); got != " " {
		t.Errorf("multi-line format joined as %q between its last variables, want one space", got)
	}
	if got := string(c.text.lits[len(c.text.lits)-1]); got != "" {
		t.Errorf("quotes kept around the format: last literal %q", got)
	}
}

// nginxUpstreamInfo is ingress-nginx's default log-format-upstream
// (internal/ingress/controller/config/config.go).
const nginxUpstreamInfo = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id`

// TestNginxFormatReadsDefaultLikeDefault gives ingress-nginx's default
// format as --nginx-format and requires, for every access line of the
// current format, the Request the default reader gives.
func TestNginxFormatReadsDefaultLikeDefault(t *testing.T) {
	c, err := compileNginxCustom(nginxUpstreamInfo)
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, tc := range nginxAccessCases {
		var vals nginxValues
		var stamp lex.Stamp
		if err := c.text.scan([]byte(strings.TrimSuffix(tc.line, "\r")), &vals, &stamp); err != nil {
			t.Logf("%s: %v", tc.name, err)
			continue
		}
		read++
		want, _ := nginxParseOne(t, tc.line, time.Time{}, nil)
		got := &collector{}
		rep := &InputReport{}
		em := newEmitter(got, &Options{}, rep, nil)
		ln := &Line{Origin: Origin{File: "t.log", Line: 1}}
		if err := vals.emit(FormatIngressNginx, ln, em); err != nil || len(got.requests) != 1 {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got.requests[0], want.requests[0]) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got.requests[0], want.requests[0])
		}
	}
	// Every current-format case but the pre-0.25 and 2016 ones.
	if read < len(nginxAccessCases)-6 {
		t.Errorf("the default format read only %d of %d lines", read, len(nginxAccessCases))
	}
}

func TestNginxFormatScan(t *testing.T) {
	f, err := compileNginxFormat(`$time_iso8601 $status "$request" up=$upstream_addr st=$upstream_status len=$upstream_response_length ua="$http_user_agent" end`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, line string
		ok         bool
		addrs, sts string
		method     string
	}{
		{"retry lists with spaces", `2024-01-02T03:04:05+00:00 502 "GET /x HTTP/1.1" up=10.0.0.1:80, 10.0.0.2:80 st=502, 502 len=0, 0 ua="curl" end`, true, "10.0.0.1:80, 10.0.0.2:80", "502, 502", "GET"},
		{"internal redirect groups", `2024-01-02T03:04:05+00:00 404 "GET /x HTTP/1.1" up=10.0.0.1:80 : 127.0.0.1:8181 st=503 : 404 len=0 : 10 ua="curl" end`, true, "10.0.0.1:80 : 127.0.0.1:8181", "503 : 404", "GET"},
		{"escaped quote in a quoted value (escape=json)", `2024-01-02T03:04:05+00:00 200 "GET /x HTTP/1.1" up=10.0.0.1:80 st=200 len=5 ua="a \"b\" c" end`, true, "10.0.0.1:80", "200", "GET"},
		{"nothing contacted", `2024-01-02T03:04:05+00:00 503 "GET /x HTTP/1.1" up=- st=- len=- ua="-" end`, true, "-", "-", "GET"},
		{"missing literal", `2024-01-02T03:04:05+00:00 503 "GET /x HTTP/1.1" up=- st=- len=- ua="-"`, false, "", "", ""},
		{"bad status", `2024-01-02T03:04:05+00:00 5x3 "GET /x HTTP/1.1" up=- st=- len=- ua="-" end`, false, "", "", ""},
		{"bad upstream status", `2024-01-02T03:04:05+00:00 503 "GET /x HTTP/1.1" up=a st=5x len=- ua="-" end`, false, "", "", ""},
		{"bad time", `2024-01-02T03:04:05+25:00 503 "GET /x HTTP/1.1" up=a st=- len=- ua="-" end`, false, "", "", ""},
	} {
		var vals nginxValues
		err := f.scan([]byte(tc.line), &vals, nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v", tc.name, err)
			continue
		}
		if tc.ok && (string(vals.addrs) != tc.addrs || string(vals.statuses) != tc.sts || !strings.HasPrefix(string(vals.request), tc.method)) {
			t.Errorf("%s: addrs %q statuses %q request %q", tc.name, vals.addrs, vals.statuses, vals.request)
		}
	}
}

// TestNginxFormatTimes checks the three time variables and their zones.
func TestNginxFormatTimes(t *testing.T) {
	want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		v      nginxVar
		value  string
		t      time.Time
		offset time.Duration
	}{
		{nvTimeISO, "2024-01-02T11:04:05+08:00", want, 8 * time.Hour},
		{nvTimeISO, "2024-01-01T22:34:05-04:30", want, -4*time.Hour - 30*time.Minute},
		{nvTimeISO, "2024-01-02T03:04:05Z", want, 0},
		{nvTimeLocal, "02/Jan/2024:04:04:05 +0100", want, time.Hour},
		{nvMsec, "1704164645.123", want.Add(123 * time.Millisecond), 0},
		{nvMsec, "1704164645", want, 0},
	} {
		got, off, ok := nginxParseTime(tc.v, []byte(tc.value), nil)
		if !ok || !got.Equal(tc.t) || off != tc.offset {
			t.Errorf("%q: %v %v %v, want %v %v", tc.value, got, off, ok, tc.t, tc.offset)
		}
	}
	for _, bad := range []string{"1704164645.12x", "", ".5", "123456789012.1"} {
		if _, ok := nginxParseMsec([]byte(bad)); ok {
			t.Errorf("msec %q read", bad)
		}
	}
}

// TestNginxFormatOption reads inputs through the pipeline with a custom
// text format and a JSON template, and checks a bad option is refused.
func TestNginxFormatOption(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.log")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(text, []byte(
		`203.0.113.9 [04/Mar/2026:10:15:03 +0000] "GET /a HTTP/1.1" 502 10.8.2.31:8080, 10.8.3.12:8080 502, 502 0, 0`+"\n"+
			`203.0.113.9 [04/Mar/2026:10:15:04 +0000] "GET /a HTTP/1.1" 200 10.8.2.31:8080 200 12`+"\n"+
			nginxAccessCases[0].line+"\n"+
			nginxErrorCases[0].line+"\n"), 0o644))
	jsonl := filepath.Join(dir, "json.log")
	must(os.WriteFile(jsonl, []byte(
		`{"ts": "2026-03-04T10:15:03+00:00", "client": "203.0.113.9", "code": 502, "verb": "GET", "target": "/a", "svc": "shop-api-8080", "peer": "10.8.2.31:8080, 10.8.3.12:8080", "peer_bytes": "0, 0", "peer_code": 502, 502}`+"\n"+
			`{"ts": "2026-03-04T10:15:04+00:00", "client": "203.0.113.9", "code": 200, "verb": "GET", "target": "/a", "svc": "shop-api-8080", "peer": "10.8.2.31:8080", "peer_bytes": "12", "peer_code": 200}`+"\n"+
			`{"ts": "2026-03-04T10:15:05+00:00", "client": "203.0.113.9", "code": 503, "verb": "GET", "target": "/a", "svc": "shop-api-8080", "peer": "", "peer_bytes": "", "peer_code": }`+"\n"), 0o644))
	for _, tc := range []struct {
		path, format string
		want         Format
		attempts     []int
	}{
		{text, `$remote_addr [$time_local] "$request" $status $upstream_addr $upstream_status $upstream_response_length`, FormatIngressNginx, []int{2, 1, 1, 0}},
		{jsonl, nginxTemplate, FormatIngressNginxJSON, []int{2, 1, 0}},
	} {
		c := &collector{}
		res, err := Read(context.Background(), []string{tc.path}, Options{Workers: 1, NginxFormat: tc.format}, func(*InputReport) Handler { return c })
		must(err)
		if len(res.Inputs) != 1 || res.Inputs[0].Format != tc.want || res.Inputs[0].Skipped != 0 || len(c.requests) != len(tc.attempts) {
			t.Fatalf("%s: inputs %+v requests %d warnings %v", tc.path, res.Inputs, len(c.requests), res.Warnings)
		}
		for i, n := range tc.attempts {
			if len(c.requests[i].Attempts) != n {
				t.Errorf("%s: request %d has %d attempts, want %d", tc.path, i, len(c.requests[i].Attempts), n)
			}
		}
		if r := c.requests[0]; r.Status != 502 || r.Failure != FailureOther || r.Generator != GeneratedByLB || r.Method != "GET" || r.Path != "/a" {
			t.Errorf("%s: first request %+v", tc.path, r)
		}
		// Without the format the custom lines are not read.
		res, err = Read(context.Background(), []string{tc.path}, Options{Workers: 1}, func(*InputReport) Handler { return &collector{} })
		if err == nil && (len(res.Inputs) != 1 || res.Inputs[0].Skipped != 2) {
			t.Errorf("%s read without --nginx-format: %+v", tc.path, res.Inputs)
		}
	}
	_, err := Read(context.Background(), []string{text}, Options{NginxFormat: "$status"}, func(*InputReport) Handler { return &collector{} })
	var want errNginxFormatNoUpstream
	if !errors.As(err, &want) || !strings.HasPrefix(err.Error(), "nginx access-log format: ") {
		t.Errorf("bad format: %v", err)
	}
}

func FuzzNginxFormat(f *testing.F) {
	f.Add(nginxUpstreamInfo, nginxAccessCases[1].line)
	f.Add(nginxTemplate, `{"ts": "2026-03-04T10:15:03+00:00", "code": 502, "peer": "a, b", "peer_code": 502, 502}`)
	f.Add(`$time_local $status $upstream_addr $upstream_status`, `02/Jan/2024:03:04:05 +0000 502 a, b : c 502, 502 : 404`)
	f.Fuzz(func(t *testing.T, format, line string) {
		c, err := compileNginxCustom(format)
		if err != nil {
			return
		}
		b := []byte(line)
		orig := bytes.Clone(b)
		var a lineAdapter = ingressNginx{custom: c.text}
		if c.json != nil {
			a = ingressNginxJSON{custom: c.json}
		}
		coll := &collector{}
		rep := &InputReport{}
		em := newEmitter(coll, &Options{}, rep, nil)
		a.Match(b)
		err = a.Parse(b, &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if !bytes.Equal(b, orig) {
			t.Fatal("input modified")
		}
		if n := len(coll.requests) + len(coll.lifecycle); err != nil && n != 0 || n > 1 {
			t.Fatalf("error %v with %d records", err, n)
		}
		for _, r := range coll.requests {
			if r.Time.IsZero() || r.Status < 100 || r.Status > 999 {
				t.Fatalf("bad request %+v", r)
			}
		}
	})
}

func BenchmarkNginxFormatParse(b *testing.B) {
	c, err := compileNginxCustom(nginxUpstreamInfo)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkLines(b, ingressNginx{custom: c.text}, nginxBenchLines(10000))
}

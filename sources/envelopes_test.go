package sources

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readygap/readygap/internal/golden"
)

// envelopeSampleDir holds the envelope samples (see its NOTICE).
var envelopeSampleDir = filepath.Join("testdata", "samples", "envelopes")

// recordOrigins keeps the distinct origins of the records it is given,
// to tell how many lines or elements gave at least one.
type recordOrigins struct {
	mu       sync.Mutex
	origins  map[Origin]bool
	requests []*Request
}

func (h *recordOrigins) add(o Origin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.origins == nil {
		h.origins = map[Origin]bool{}
	}
	h.origins[o] = true
}

func (h *recordOrigins) Request(r *Request) {
	h.add(r.Origin)
	h.mu.Lock()
	h.requests = append(h.requests, r.Clone())
	h.mu.Unlock()
}
func (h *recordOrigins) Lifecycle(l *Lifecycle) { h.add(l.Origin) }
func (h *recordOrigins) Config(c *Config)       { h.add(c.Origin) }

// readAccounted reads path and returns its report, what it gave, and the
// lines or elements accounted for: those that gave a record, those
// skipped, duplicated or passed over.
func readAccounted(t *testing.T, path string) (*InputReport, *recordOrigins, int) {
	t.Helper()
	h := &recordOrigins{}
	res, err := Read(context.Background(), []string{path}, Options{MaxWarnings: 100}, func(*InputReport) Handler { return h })
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(res.Inputs) != 1 {
		t.Fatalf("%s: %d inputs", path, len(res.Inputs))
	}
	in := res.Inputs[0]
	return in, h, len(h.origins) + in.Skipped + in.Duplicates + in.Passed
}

// unitsOf counts the lines or JSON elements of an input as the pipeline
// cuts it: non-blank lines, the elements of JSON, the lines of a
// CloudWatch export's messages. ok is false for YAML, whose documents
// are cut another way, and for inputs in no known format.
func unitsOf(t *testing.T, path string) (units int, ok bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 1 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	p, err := detect(data, true, lineAdapters)
	if err != nil {
		return 0, false // an input in no known format: a warning of its own
	}
	countLines := func(text []byte) int {
		n := 0
		for _, l := range bytes.Split(text, []byte("\n")) {
			if !blank(bytes.TrimRight(l, "\r")) {
				n++
			}
		}
		return n
	}
	switch p.layout {
	case layoutLines:
		return countLines(data), true
	case layoutJoinedJSON:
		// JSON values spread over lines: counted by encoding/json with
		// every line break taken out.
		flat := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\n"), nil), []byte("\r"), nil)
		dec := json.NewDecoder(bytes.NewReader(flat))
		for {
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				return units, true
			}
			units++
		}
	case layoutYAML:
		return 0, false
	}
	s := newJSONSplitter(bytes.NewReader(data), 64<<10)
	for {
		elem, _, err := s.Next()
		if err == io.EOF {
			return units, true
		}
		if err == nil && p.layout == layoutCloudWatch {
			if msg, _, err := cloudWatchEvent(elem); err == nil {
				units += countLines(msg)
				continue
			}
		}
		units++
	}
}

// TestEveryLineAccounted checks, for every sample of every adapter and
// envelope, that each line or element read is a record, a skip, a
// duplicate or passed over: none vanishes.
func TestEveryLineAccounted(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "samples", "*", "*"))
	// The bundled examples: every format, ALB access and health-check
	// objects among them.
	filepath.WalkDir(filepath.Join("..", "fixtures", "formats"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	})
	// The proxy and controller logs of the recreated incidents.
	for _, pattern := range []string{"*/gateway-logs/*.log", "*/ingress-nginx-controller.log", "*/aws-load-balancer-controller.log"} {
		more, _ := filepath.Glob(filepath.Join("..", "fixtures", pattern))
		paths = append(paths, more...)
	}
	tested := 0
	for _, p := range paths {
		if filepath.Base(p) == "NOTICE" {
			continue
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			continue
		}
		t.Run(strings.TrimPrefix(p, "testdata/samples/"), func(t *testing.T) {
			units, ok := unitsOf(t, p)
			if !ok {
				t.Skip("YAML, or in no known format")
			}
			tested++
			in, _, accounted := readAccounted(t, p)
			if accounted != units {
				t.Errorf("%d lines or elements, %d accounted for (records from %d, %d skipped, %d duplicates, %d passed over)",
					units, accounted, accounted-in.Skipped-in.Duplicates-in.Passed, in.Skipped, in.Duplicates, in.Passed)
			}
		})
	}
	if tested < 30 {
		t.Errorf("only %d samples", tested)
	}
}

// TestEnvelopeSamples reads each envelope sample and checks its format,
// what it gives and that its envelope's time is used.
func TestEnvelopeSamples(t *testing.T) {
	tests := []struct {
		file           string
		format         Format
		requests       int
		skipped        int
		passed         int
		warnings       int
		firstLineStamp time.Time // the time of the request of the first nginx line (07/Feb/2020:11:48:51)
	}{
		{file: "kubectl-prefix.log", format: FormatIngressNginx, requests: 8, skipped: 1},
		{file: "kubectl-prefix-timestamps.log", format: FormatIngressNginx, requests: 8, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104817392, time.UTC)},
		{file: "stern.log", format: FormatIngressNginx, requests: 8},
		{file: "stern-all-namespaces-color-timestamps.log", format: FormatIngressNginx, requests: 8, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104817392, time.UTC)},
		{file: "stern-timestamps-short.log", format: FormatIngressNginx, requests: 8},
		{file: "stern-json-timestamps.jsonl", format: FormatIngressNginx, requests: 8, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104817392, time.UTC)},
		{file: "stern-extjson.jsonl", format: FormatIngressNginx, requests: 9},
		{file: "logcli-jsonl.jsonl", format: FormatIngressNginx, requests: 8, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104817392, time.UTC)},
		{file: "logcli-default.log", format: FormatIngressNginx, requests: 8},
		{file: "aws-logs-tail.log", format: FormatIngressNginx, requests: 8, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104817392, time.UTC)},
		{file: "aws-logs-tail-short.log", format: FormatIngressNginx, requests: 8},
		{file: "cloudwatch-console.tsv", format: FormatIngressNginx, requests: 8, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104000000, time.UTC)},
		// 8 ingress-nginx lines in textPayload, one Envoy Gateway line in
		// jsonPayload, an application's stderr line passed over.
		{file: "gcloud-k8s-container.json", format: FormatIngressNginx, requests: 9, passed: 1, warnings: 1, firstLineStamp: time.Date(2020, 2, 7, 11, 48, 51, 104817392, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in, h, _ := readAccounted(t, filepath.Join(envelopeSampleDir, tt.file))
			if in.Format != tt.format || len(h.requests) != tt.requests || in.Skipped != tt.skipped || in.Passed != tt.passed || len(in.Warnings) != tt.warnings {
				t.Fatalf("format %s, %d requests, %d skipped, %d passed, warnings %q; want %s, %d, %d, %d, %d warnings (skips %q)",
					in.Format, len(h.requests), in.Skipped, in.Passed, in.Warnings, tt.format, tt.requests, tt.skipped, tt.passed, tt.warnings, in.SkipSamples())
			}
			if tt.firstLineStamp.IsZero() {
				tt.firstLineStamp = time.Date(2020, 2, 7, 11, 48, 51, 0, time.UTC)
			}
			found := false
			for _, r := range h.requests {
				if r.Method == "POST" && r.Path == "/products" {
					found = true
					if !r.Logged().Equal(tt.firstLineStamp) {
						t.Errorf("POST /products logged at %s, want %s", r.Logged().Format(time.RFC3339Nano), tt.firstLineStamp.Format(time.RFC3339Nano))
					}
				}
			}
			if !found {
				t.Errorf("no POST /products among %d requests", len(h.requests))
			}
		})
	}
}

// TestGCPPayloadEnvoyGateway checks the Envoy Gateway JSON line read
// from a jsonPayload: its fields, its platform, and the entry it came from.
func TestGCPPayloadEnvoyGateway(t *testing.T) {
	_, h, _ := readAccounted(t, filepath.Join(envelopeSampleDir, "gcloud-k8s-container.json"))
	var eg *Request
	for _, r := range h.requests {
		if r.Format == FormatEnvoyJSON {
			eg = r
		}
	}
	if eg == nil {
		t.Fatal("no Envoy JSON request")
	}
	if eg.Status != 500 || eg.Platform != PlatformEnvoyGateway || !eg.Time.Equal(time.Date(2025, 3, 8, 2, 25, 32, 588000000, time.UTC)) {
		t.Errorf("got status %d platform %q at %s", eg.Status, eg.Platform, eg.Time.Format(time.RFC3339Nano))
	}
	if eg.Origin.Line < 2 {
		t.Errorf("origin %s, want the line its entry starts on", eg.Origin)
	}
}

// TestEnvelopeDetection checks which envelope detection picks for
// inputs in each, and that bare inputs get none.
func TestEnvelopeDetection(t *testing.T) {
	nginx := `192.168.64.1 - - [07/Feb/2020:11:48:51 +0000] "POST /products HTTP/1.1" 200 59 "-" "curl/7.54.0" 89 0.001 [default-web-8080] [] 172.17.0.5:8080 59 0.000 200 529a007902362a5f51385a5fa7049884`
	istio := `[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" "84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "10.44.1.27:80" outbound|8000||httpbin.foo.svc.cluster.local 10.44.1.23:37652 10.0.45.184:8000 10.44.1.23:46520 - default`
	tests := []struct {
		name, text string
		env        lineEnvelope
		format     Format
	}{
		{"bare nginx", nginx, nil, FormatIngressNginx},
		{"kubectl --timestamps", "2020-02-07T11:48:51.104817392Z " + nginx, nil, FormatIngressNginx},
		{"kubectl --prefix", "[pod/web-1/controller] " + nginx, kubectlPrefix{}, FormatIngressNginx},
		{"kubectl --prefix --timestamps, Istio", "[pod/istio-ingressgateway-6hlpm/istio-proxy] 2020-11-25T21:26:18.410Z " + istio, kubectlPrefix{}, FormatEnvoyAccess},
		{"stern", "web-1 controller " + nginx, sternEnvelope{names: 2}, FormatIngressNginx},
		{"stern, Istio", "istio-ingressgateway-6hlpm istio-proxy " + istio, sternEnvelope{names: 2}, FormatEnvoyAccess},
		{"stern, namespaces", "ingress-nginx web-1 controller " + nginx, sternEnvelope{names: 3}, FormatIngressNginx},
		{"logcli default", `2020-02-07T12:48:51+01:00 {pod="web-1"} ` + nginx, lokiDefault{}, FormatIngressNginx},
		{"logcli default, no labels left", `2020-02-07T12:48:51+01:00 {} ` + nginx, lokiDefault{}, FormatIngressNginx},
		{"logcli --no-labels", `2020-02-07T12:48:51+01:00 ` + nginx, nil, FormatIngressNginx},
		{"aws logs tail", "2020-02-07T11:48:51.104817+00:00 stream-1 " + nginx, awsLogsTail{}, FormatIngressNginx},
		{"aws logs tail --format short", "2020-02-07T11:48:51 " + nginx, awsLogsTailShort{}, FormatIngressNginx},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Repeat(tt.text+"\n", 3)
			p, err := detect([]byte(text), true, lineAdapters)
			if err != nil {
				t.Fatal(err)
			}
			if p.env != tt.env || p.format != tt.format {
				t.Errorf("envelope %T %v format %s, want %T %v %s", p.env, p.env, p.format, tt.env, tt.env, tt.format)
			}
		})
	}
}

// TestKubectlPrefix covers the prefix's edge cases.
func TestKubectlPrefix(t *testing.T) {
	tests := []struct {
		line, inner string
		ok          bool
	}{
		{"[pod/web-1/nginx] x y", "x y", true},
		{"[pod/web-1/nginx] ", "", true},
		{"[pod/web-1/nginx]", "", true},
		{"[pod/web-1.a/nginx] [2020-11-25T21:26:18.409Z] x", "[2020-11-25T21:26:18.409Z] x", true},
		{"[pod/web-1/nginx]x", "", false},
		{"[pod/web-1] x", "", false},
		{"[pod/Web/nginx] x", "", false},
		{"[pod//nginx] x", "", false},
		{"[pod/web/a/b] x", "", false},
		{"[deployment/web/nginx] x", "", false},
		{"error: container not found", "", false},
		{"[pod/web-1/nginx", "", false},
	}
	for _, tt := range tests {
		inner, stamp, _, ok := kubectlPrefix{}.Unwrap([]byte(tt.line), nil)
		if ok != tt.ok || ok && string(inner) != tt.inner || !stamp.IsZero() {
			t.Errorf("%q: %q %v %v, want %q %v", tt.line, inner, stamp, ok, tt.inner, tt.ok)
		}
	}
}

// TestStern covers stern's prefixes, colours and short times.
func TestStern(t *testing.T) {
	tests := []struct {
		names       int
		line, inner string
		ok          bool
	}{
		{2, "web-1 nginx x y", "x y", true},
		{2, "\x1b[96mweb-1\x1b[0m \x1b[36mnginx\x1b[0m x \x1b[31;1my\x1b[0;22m", "x y", true},
		{2, "web-1 nginx 03-04 10:15:02 x", "x", true},
		{2, "web-1 nginx 02-29 23:59:59 x", "x", true},
		{2, "web-1 nginx 13-04 10:15:02 x", "13-04 10:15:02 x", true},
		{2, "web-1 nginx 03-04 24:15:02 x", "03-04 24:15:02 x", true},
		{2, "web-1 nginx 2026-03-04T11:15:02.118204377+01:00 x", "2026-03-04T11:15:02.118204377+01:00 x", true},
		{3, "shop web-1 nginx x", "x", true},
		{2, "10.8.1.17 - - [04/Mar/2026:10:15:02 +0000] x", "", false},
		{2, "Web-1 nginx x", "", false},
		{2, "web-1", "", false},
		{2, "-web nginx x", "", false},
		{2, "web-1 nginx", "", false},
		{2, "\x1bXweb-1 nginx x", "", false},
	}
	for _, tt := range tests {
		inner, _, _, ok := sternEnvelope{names: tt.names}.Unwrap([]byte(tt.line), nil)
		if ok != tt.ok || ok && string(inner) != tt.inner {
			t.Errorf("%d %q: %q %v, want %q %v", tt.names, tt.line, inner, ok, tt.inner, tt.ok)
		}
	}
}

// TestLoki covers logcli's JSON lines and default output.
func TestLoki(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 15, 3, 4811902, time.UTC)
	tests := []struct {
		env         lineEnvelope
		line, inner string
		stamp       time.Time
		ok          bool
	}{
		{lokiJSONL{}, `{"labels":{"pod":"x"},"line":"a \"b\" \u0026 c\n","timestamp":"2026-03-04T11:15:03.004811902+01:00"}`, `a "b" & c`, at, true},
		{lokiJSONL{}, `{"line":"a","timestamp":"2026-03-04T10:15:03.004811902Z"}`, `a`, at, true},
		{lokiJSONL{}, `{"line":"a"}`, `a`, time.Time{}, true},
		{lokiJSONL{}, `{"line":"a","timestamp":"yesterday"}`, "", time.Time{}, false},
		{lokiJSONL{}, `{"line":7}`, "", time.Time{}, false},
		{lokiJSONL{}, `{"labels":"x","line":"a"}`, "", time.Time{}, false},
		{lokiJSONL{}, `{"log":"a"}`, "", time.Time{}, false},
		{lokiJSONL{}, `{"line":"a"`, "", time.Time{}, false},
		{lokiDefault{}, `2026-03-04T11:15:03.004811902+01:00 {container="c", pod="p"}   a b`, `a b`, at, true},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {pod="a}\" b"} a`, `a`, at, true},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {} a`, `a`, at, true},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {"log":"a"}`, "", time.Time{}, false},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {pod="a",x="b"} a`, "", time.Time{}, false},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {pod="a"}a`, "", time.Time{}, false},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {9pod="a"} a`, "", time.Time{}, false},
		{lokiDefault{}, `2026-03-04T10:15:03.004811902Z {pod="a} a`, "", time.Time{}, false},
	}
	for _, tt := range tests {
		inner, stamp, _, ok := tt.env.Unwrap([]byte(tt.line), nil)
		if ok != tt.ok || ok && (string(inner) != tt.inner || !stamp.Equal(tt.stamp)) {
			t.Errorf("%T %q: %q %v %v, want %q %v %v", tt.env, tt.line, inner, stamp, ok, tt.inner, tt.stamp, tt.ok)
		}
	}
}

// TestSternJSON covers stern's -o json and -o extjson.
func TestSternJSON(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 15, 2, 118204377, time.UTC)
	tests := []struct {
		line, inner string
		stamp       time.Time
		ok          bool
	}{
		{`{"message":"10.8.1.17 - - [04/Mar/2026:10:15:02 +0000] \"GET /?a=1\u0026b=2 HTTP/1.1\" 200","timestamp":"2026-03-04T11:15:02.118204377+01:00","nodeName":"n","namespace":"shop","podName":"web-1","containerName":"nginx","labels":{"app":"web"},"annotations":null}`,
			`10.8.1.17 - - [04/Mar/2026:10:15:02 +0000] "GET /?a=1&b=2 HTTP/1.1" 200`, at, true},
		{`{"message":"2026-03-04T10:15:02.118204377Z x","nodeName":"n","namespace":"shop","podName":"web-1","containerName":"nginx","labels":null,"annotations":null}`,
			`2026-03-04T10:15:02.118204377Z x`, time.Time{}, true},
		{`{"pod": "web-1", "container": "nginx", "message": {"status":502,"upstream_addr":"10.8.2.31:8080"}}`, `{"status":502,"upstream_addr":"10.8.2.31:8080"}`, time.Time{}, true},
		{`{"namespace": "shop", "pod": "web-1", "container": "nginx", "message": "a \u001b[31;1mb\u001b[0;22m c"}`, `a b c`, time.Time{}, true},
		{`{"message":"x","podName":"web-1"}`, "", time.Time{}, false},
		{`{"message":[7, 8],"pod":"web-1","container":"nginx"}`, "[7,8]", time.Time{}, true},
		{`{"message":"x","timestamp":"now","podName":"web-1","containerName":"nginx"}`, "", time.Time{}, false},
		{`{"log":"x","pod":"web-1","container":"nginx"}`, "", time.Time{}, false},
	}
	for _, tt := range tests {
		inner, stamp, _, ok := sternJSON{}.Unwrap([]byte(tt.line), nil)
		if ok != tt.ok || ok && (string(inner) != tt.inner || !stamp.Equal(tt.stamp)) {
			t.Errorf("%q: %q %v %v, want %q %v %v", tt.line, inner, stamp, ok, tt.inner, tt.stamp, tt.ok)
		}
	}
}

// TestAWSLogsTail covers aws logs tail's detailed output.
func TestAWSLogsTail(t *testing.T) {
	tests := []struct {
		line, inner string
		ok          bool
	}{
		{"2026-03-04T10:15:03.004000+00:00 host-application.var.log.containers.web_shop_nginx-1.log x y", "x y", true},
		{"2026-03-04T10:15:03.004000+00:00 10.8.1.17 - - [04/Mar/2026:10:15:03 +0000]", "- - [04/Mar/2026:10:15:03 +0000]", true},
		{"2026-03-04T10:15:03.004000+00:00 [2026-03-04T10:15:03.004Z] x", "", false},
		{"2026-03-04T10:15:03.004000+00:00 {\"log\":\"x\"}", "", false},
		{"2026-03-04T10:15:03.004000+00:00  x", "", false},
		{"2026-03-04T10:15:03.004000+00:00 stream", "", false},
		{"x 2026-03-04T10:15:03.004000+00:00 stream x", "", false},
	}
	for _, tt := range tests {
		inner, stamp, _, ok := awsLogsTail{}.Unwrap([]byte(tt.line), nil)
		if ok != tt.ok || ok && (string(inner) != tt.inner || !stamp.Equal(time.Date(2026, 3, 4, 10, 15, 3, 4000000, time.UTC))) {
			t.Errorf("%q: %q %v %v, want %q %v", tt.line, inner, stamp, ok, tt.inner, tt.ok)
		}
	}
}

// TestAWSLogsTailShort covers aws logs tail's short output.
func TestAWSLogsTailShort(t *testing.T) {
	tests := []struct {
		line, inner string
		ok          bool
	}{
		{"2026-03-04T10:15:03 x y", "x y", true},
		{"2026-03-04T10:15:03 ", "", true},
		{"2026-03-04T10:15:03Z x", "", false},
		{"2026-03-04T10:15:03.004 x", "", false},
		{"2026-02-30T10:15:03 x", "", false},
		{"2026-03-04T24:15:03 x", "", false},
		{"2026-03-04 10:15:03 x", "", false},
		{"2026-03-04T10:15:0x x", "", false},
	}
	for _, tt := range tests {
		inner, stamp, _, ok := awsLogsTailShort{}.Unwrap([]byte(tt.line), nil)
		if ok != tt.ok || ok && (string(inner) != tt.inner || !stamp.Equal(time.Date(2026, 3, 4, 10, 15, 3, 0, time.UTC))) {
			t.Errorf("%q: %q %v %v, want %q %v", tt.line, inner, stamp, ok, tt.inner, tt.ok)
		}
	}
}

// TestStripSGR covers colour sequences and stray escapes.
func TestStripSGR(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[96mweb\x1b[0m":      "web",
		"a\x1b[31;1mb\x1b[0;22mc": "abc",
		"\x1b[m":                  "",
		"\x1bX":                   "\x1bX",
		"\x1b[12":                 "\x1b[12",
		"\x1b[1;2H":               "\x1b[1;2H",
		"\x1b":                    "\x1b",
	} {
		if got := string(stripSGR(nil, []byte(in))); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestREADMEEnvelopeTable checks that the table of envelopes in
// docs/formats.md is the envelope table, row for row (go test ./sources
// -update rewrites it).
func TestREADMEEnvelopeTable(t *testing.T) {
	var rows []string
	for _, e := range Envelopes() {
		rows = append(rows, "| `"+string(e.ID)+"` | "+e.Description+" | "+e.HowToGet+" |")
	}
	golden.AssertTable(t, filepath.Join("..", "docs", "formats.md"), "| envelope | what it looks like | the command that produces it |", rows)
}

// TestEnvelopeTable checks that every envelope has one row and texts.
func TestEnvelopeTable(t *testing.T) {
	seen := map[Envelope]bool{}
	for _, e := range Envelopes() {
		if seen[e.ID] || e.Description == "" || e.HowToGet == "" {
			t.Errorf("bad row %+v", e)
		}
		seen[e.ID] = true
	}
	if len(lineEnvelopes) != 9 {
		t.Errorf("%d line envelopes, want 9", len(lineEnvelopes))
	}
}

// fuzzEnvelope checks that an envelope never panics, never changes its
// line, and, unless it re-encodes JSON (grows), gives an inner line no
// longer than the line it came from.
func fuzzEnvelope(f *testing.F, env lineEnvelope, grows bool, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		inner, _, _, ok := env.Unwrap(line, nil)
		if !bytes.Equal(line, orig) {
			t.Fatal("line modified")
		}
		if ok && !grows && len(inner) > len(line) {
			t.Fatalf("inner %q longer than %q", inner, line)
		}
		if !ok && inner != nil {
			t.Fatalf("not in the envelope, yet inner %q", inner)
		}
	})
}

func FuzzKubectlPrefix(f *testing.F) {
	fuzzEnvelope(f, kubectlPrefix{}, false, "[pod/web-1/nginx] x", "[pod/web-1/nginx] 2026-03-04T10:15:02.118204377Z x", "[pod/a/b]", "error: x")
}

func FuzzStern(f *testing.F) {
	fuzzEnvelope(f, sternEnvelope{names: 2}, false, "web-1 nginx x", "\x1b[96mweb-1\x1b[0m \x1b[36mnginx\x1b[0m x", "web-1 nginx 03-04 10:15:02 x")
}

func FuzzSternNamespaces(f *testing.F) {
	fuzzEnvelope(f, sternEnvelope{names: 3}, false, "shop web-1 nginx x", "\x1b[95mshop\x1b[0m \x1b[95mweb-1\x1b[0m \x1b[35mnginx\x1b[0m x")
}

func FuzzSternJSON(f *testing.F) {
	fuzzEnvelope(f, sternJSON{}, true, `{"message":"a \u0026 b","timestamp":"2026-03-04T11:15:02.118204377+01:00","nodeName":"n","namespace":"shop","podName":"web-1","containerName":"nginx","labels":null,"annotations":null}`,
		`{"pod": "\u001b[96mweb-1\u001b[0m", "container": "nginx", "message": {"status":502,"upstream_addr":"10.8.2.31:8080"}}`)
}

func FuzzLokiJSONL(f *testing.F) {
	fuzzEnvelope(f, lokiJSONL{}, false, `{"labels":{"pod":"x"},"line":"a \"b\" \u0026 c","timestamp":"2026-03-04T11:15:03.004811902+01:00"}`, `{"line":"\ud83d\ude00"}`)
}

func FuzzLokiDefault(f *testing.F) {
	fuzzEnvelope(f, lokiDefault{}, false, `2026-03-04T11:15:03+01:00 {container="c", pod="p"}   a b`, `2026-03-04T10:15:03Z {} a`, `2026-03-04T10:15:03Z {pod="a\"}"} a`)
}

func FuzzAWSLogsTail(f *testing.F) {
	fuzzEnvelope(f, awsLogsTail{}, false, "2026-03-04T10:15:03.004000+00:00 stream x", "2026-03-04T10:15:03+00:00 s {\"log\":\"x\"}")
}

func FuzzAWSLogsTailShort(f *testing.F) {
	fuzzEnvelope(f, awsLogsTailShort{}, false, "2026-03-04T10:15:03 x", "2026-03-04T10:15:03Z x")
}

// FuzzGCPPayload feeds Cloud Logging container entries to the adapter:
// it must never panic, and every entry is a record, a skip or passed over.
func FuzzGCPPayload(f *testing.F) {
	for _, s := range []string{
		`{"insertId":"a","logName":"projects/p/logs/stdout","resource":{"type":"k8s_container"},"textPayload":"192.168.64.1 - - [07/Feb/2020:11:48:51 +0000] \"POST /products HTTP/1.1\" 200 59 \"-\" \"curl/7.54.0\" 89 0.001 [default-web-8080] [] 172.17.0.5:8080 59 0.000 200 529a007902362a5f51385a5fa7049884\n","timestamp":"2020-02-07T11:48:51.1Z"}`,
		`{"insertId":"b","jsonPayload":{"start_time":"2025-03-08T02:25:32.588Z","response_code":503,"response_flags":"UH","upstream_cluster":"httproute/default/backend/rule/0"},"logName":"projects/p/logs/stdout","resource":{"type":"k8s_container"},"timestamp":"2025-03-08T02:25:32Z"}`,
		`{"logName":"projects/p/logs/stderr","resource":{"type":"k8s_container"},"textPayload":"Traceback","timestamp":"2025-03-08T02:25:32Z"}`,
		`{"logName":"projects/p/logs/x","protoPayload":{},"timestamp":"2025-03-08T02:25:32Z"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, elem []byte) {
		rep := &InputReport{}
		em := newEmitter(albDiscard{}, &Options{}, rep, newDedupSet())
		p := &part{em: em, rep: *rep}
		var last jsonAdapter = gcpLogging{}
		p.parseElement(elem, Origin{File: "f", Line: 1}, &last)
		if em.accounted != 1 && rep.Records == 0 {
			t.Fatalf("accounted %d times with no record", em.accounted)
		}
	})
}

// benchEnvelope reads lines in env through the pipeline's per-line path,
// reporting bytes and allocations per iteration.
func benchEnvelope(b *testing.B, env lineEnvelope, a lineAdapter, lines []string) {
	size := 0
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		raw[i] = []byte(l)
		size += len(l) + 1
	}
	rep := &InputReport{}
	p := &part{em: newEmitter(albDiscard{}, &Options{}, rep, nil), env: env}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for i, l := range raw {
			p.parseLine(a, l, Origin{File: "bench", Line: i + 1}, time.Time{})
		}
	}
	if rep.Skipped > 0 {
		b.Fatalf("%d skipped", rep.Skipped)
	}
}

// envelopeBenchLine is a current ingress-nginx access line.
const envelopeBenchLine = `2026-02-11T06:19:45.02831809Z 198.51.100.120 - - [11/Feb/2026:06:19:45 +0000] "POST /api/orders HTTP/1.1" 201 298 "-" "okhttp/4.12.0" 373 0.028 [shop-web-80] [] 10.244.1.147:8080 298 0.028 201 d1b5c1f70eb69979bb9b04b5ca250415`

func BenchmarkEnvelopeBare(b *testing.B) {
	benchEnvelope(b, nil, ingressNginx{}, []string{envelopeBenchLine})
}

func BenchmarkEnvelopeKubectlPrefix(b *testing.B) {
	benchEnvelope(b, kubectlPrefix{}, ingressNginx{}, []string{"[pod/ingress-nginx-controller-7b9c6d-4hmzt/controller] " + envelopeBenchLine})
}

func BenchmarkEnvelopeStern(b *testing.B) {
	benchEnvelope(b, sternEnvelope{names: 2}, ingressNginx{}, []string{"ingress-nginx-controller-7b9c6d-4hmzt controller " + envelopeBenchLine})
}

func BenchmarkEnvelopeSternColour(b *testing.B) {
	benchEnvelope(b, sternEnvelope{names: 2}, ingressNginx{}, []string{"\x1b[96mingress-nginx-controller-7b9c6d-4hmzt\x1b[0m \x1b[36mcontroller\x1b[0m " + envelopeBenchLine})
}

func BenchmarkEnvelopeLokiJSONL(b *testing.B) {
	line := `{"labels":{"container":"controller","pod":"ingress-nginx-controller-7b9c6d-4hmzt"},"line":"198.51.100.120 - - [11/Feb/2026:06:19:45 +0000] \"POST /api/orders HTTP/1.1\" 201 298 \"-\" \"okhttp/4.12.0\" 373 0.028 [shop-web-80] [] 10.244.1.147:8080 298 0.028 201 d1b5c1f70eb69979bb9b04b5ca250415","timestamp":"2026-02-11T06:19:45.02831809Z"}`
	benchEnvelope(b, lokiJSONL{}, ingressNginx{}, []string{line})
}

// BenchmarkGCPPayload reads GKE container entries holding ingress-nginx lines.
func BenchmarkGCPPayload(b *testing.B) {
	elem := `{"insertId":"k3x9q2f1a8b700","labels":{"compute.googleapis.com/resource_name":"gke-prod-pool-1-7xkq"},"logName":"projects/acme-prod/logs/stdout","receiveTimestamp":"2026-02-11T06:19:47.02831809Z","resource":{"labels":{"cluster_name":"prod","container_name":"controller","location":"europe-west1","namespace_name":"ingress-nginx","pod_name":"ingress-nginx-controller-7b9c6d-4hmzt","project_id":"acme-prod"},"type":"k8s_container"},"severity":"INFO","textPayload":"198.51.100.120 - - [11/Feb/2026:06:19:45 +0000] \"POST /api/orders HTTP/1.1\" 201 298 \"-\" \"okhttp/4.12.0\" 373 0.028 [shop-web-80] [] 10.244.1.147:8080 298 0.028 201 d1b5c1f70eb69979bb9b04b5ca250415\n","timestamp":"2026-02-11T06:19:45.02831809Z"}`
	benchJSON(b, gcpLogging{}, []string{elem})
}

package sources

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"
)

// pastedSampleDir holds lines as they arrive pasted (see its NOTICE).
var pastedSampleDir = filepath.Join("testdata", "samples", "pasted")

// TestPastedSamples reads each pasted sample: every line is a request, and
// the warning counts the lines repaired and names the damage.
func TestPastedSamples(t *testing.T) {
	tests := []struct {
		file     string
		format   Format
		requests int
		warning  string // "" when the lines are read as they are
	}{
		{"istio-typographic-quotes.log", FormatEnvoyAccess, 2, "(typographic quotes in 2 lines)"},
		{"envoy-doubled-spaces.log", FormatEnvoyAccess, 3, "(doubled spaces in 3 lines)"},
		{"viewer-table-pipes.log", FormatIngressNginx, 4, "(a table row in 4 lines)"},
		{"chat-nbsp-quotes.log", FormatEnvoyAccess, 2, "(non-breaking spaces in 2, typographic quotes in 2 lines)"},
		// A time and a pod name in front, tab-separated: the cells in
		// front are taken off as a viewer's time prefix is, without the
		// envelope.
		{"viewer-table-tabs.tsv", FormatIngressNginx, 4, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in, h, accounted := readAccounted(t, filepath.Join(pastedSampleDir, tt.file))
			if in.Format != tt.format || len(h.requests) != tt.requests || in.Skipped != 0 || accounted != tt.requests {
				t.Fatalf("format %s, %d requests, %d skipped, %d accounted; want %s, %d (skips %q)",
					in.Format, len(h.requests), in.Skipped, accounted, tt.format, tt.requests, in.SkipSamples())
			}
			var repaired []string
			for _, w := range in.Warnings {
				if strings.HasPrefix(w, "lines repaired before reading") {
					repaired = append(repaired, w)
				}
			}
			switch {
			case tt.warning == "" && len(repaired) > 0:
				t.Errorf("warnings %q, want none about repairs", repaired)
			case tt.warning != "" && (len(repaired) != 1 || !strings.Contains(repaired[0], tt.warning)):
				t.Errorf("warnings %q, want one with %q", in.Warnings, tt.warning)
			}
			for _, r := range h.requests {
				if r.Status == 0 || r.Method == "" || strings.ContainsAny(r.Path, " “”|\u00a0") {
					t.Errorf("request %+v kept the damage", r)
				}
			}
		})
	}
}

// TestRepairLine checks each damage alone, together, and the lines that
// show none: those are not in the envelope and come back unchanged.
func TestRepairLine(t *testing.T) {
	istio := `[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" "-" "httpbin:8000" "10.44.1.27:80" outbound|8000||httpbin.foo.svc.cluster.local 10.44.1.23:37652 10.0.45.184:8000 10.44.1.23:46520 - default`
	tests := []struct {
		name, in, want string
		done           []string // the damages' names
	}{
		{"clean Istio line: a bare | in a cluster name is no border", istio, istio, nil},
		{"clean ASCII", `a "b" c`, `a "b" c`, nil},
		{"typographic quotes", `“GET / HTTP/1.1” ‘x’`, `"GET / HTTP/1.1" 'x'`, []string{"typographic quotes"}},
		{"non-breaking spaces", "a\u00a0b", "a b", []string{"non-breaking spaces"}},
		{"doubled spaces, inside quotes too", `a  "b   c"   d`, `a "b c" d`, []string{"doubled spaces"}},
		{"pipe table row", `| 12:00 | {pod="p"} | the log line itself |`, "the log line itself", []string{"a table row"}},
		{"box-drawing border", `│ 12:00 │ the log line itself │`, "the log line itself", []string{"a table row"}},
		{"tab row", "12:00\tpod\tthe log line itself", "the log line itself", []string{"a table row"}},
		{"all at once", "| 12:00 | “GET  /\u00a0HTTP/1.1” 503 |", `"GET / HTTP/1.1" 503`, []string{"non-breaking spaces", "typographic quotes", "a table row", "doubled spaces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, done := repairLine([]byte(tt.in))
			var names []string
			for i, d := range lineDamages {
				if done&(1<<i) != 0 {
					names = append(names, d.name)
				}
			}
			if string(got) != tt.want || strings.Join(names, ",") != strings.Join(tt.done, ",") {
				t.Errorf("repairLine(%q) = %q %q, want %q %q", tt.in, got, names, tt.want, tt.done)
			}
			_, _, _, ok := pastedEnvelope{}.Unwrap([]byte(tt.in), nil)
			if ok != (len(tt.done) > 0) {
				t.Errorf("in the envelope: %v", ok)
			}
		})
	}
}

// TestPastedNotChosenForCleanInputs checks that inputs read as they are
// do not go through the pasted envelope: every other sample is read
// without its warning.
func TestPastedNotChosenForCleanInputs(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "samples", "*", "*"))
	n := 0
	for _, p := range paths {
		if filepath.Base(p) == "NOTICE" || filepath.Dir(p) == pastedSampleDir {
			continue
		}
		res, err := Read(context.Background(), []string{p}, Options{}, func(*InputReport) Handler { return &recordOrigins{} })
		if err != nil || len(res.Inputs) != 1 {
			continue // in no known format: nothing read, through no envelope
		}
		n++
		for _, w := range res.Inputs[0].Warnings {
			if strings.HasPrefix(w, "lines repaired before reading") {
				t.Errorf("%s: %q", p, w)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d samples", n)
	}
}

// FuzzRepairLine checks that any line is repaired without failing, that a
// repaired line shows none of the damages it was repaired of, and that a
// line the quick check passes over comes back as it was.
func FuzzRepairLine(f *testing.F) {
	for _, s := range []string{"| a | “b” |", "a\u00a0 b", "x\ty\tz", `"GET / HTTP/1.1" 200`, "│", "||", "\xff\xfe"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, done := repairLine(line)
		if !mayBeDamaged(line) && (done != 0 || !bytes.Equal(got, line)) {
			t.Fatalf("clean %q came back %q (%b)", line, got, done)
		}
		if done == 0 && !bytes.Equal(got, line) {
			t.Fatalf("%q changed to %q with no damage said", line, got)
		}
		if utf8.Valid(line) && done != 0 && (bytes.ContainsRune(got, '“') || bytes.ContainsRune(got, '\u00a0') || bytes.Contains(got, []byte("  "))) {
			t.Fatalf("%q repaired to %q", line, got)
		}
	})
}

// FuzzPasted checks the pasted envelope as every envelope is checked.
func FuzzPasted(f *testing.F) {
	fuzzEnvelope(f, pastedEnvelope{}, false, "| a | “b” |", "a\u00a0 b", "x\ty", `"GET / HTTP/1.1" 200`)
}

// TestHeadlessEnvoyOrderOnly checks that Envoy and Istio lines without
// their leading [%START_TIME%] are read in order, each marked order only,
// a step apart from the anchor, with the warning; behind a wrapper that
// carries a time, the same lines take it and are not order only.
func TestHeadlessEnvoyOrderOnly(t *testing.T) {
	readAt := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	path := filepath.Join(pastedSampleDir, "envoy-istio-no-start-time.log")
	h := &recordOrigins{}
	res, err := Read(context.Background(), []string{path}, Options{ReadAt: readAt}, func(*InputReport) Handler { return h })
	if err != nil || len(res.Inputs) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	in := res.Inputs[0]
	if in.Format != FormatEnvoyAccess || len(h.requests) != 3 || in.OrderOnly != 3 || in.Skipped != 0 {
		t.Fatalf("format %s, %d requests, %d order only, %d skipped (%q)", in.Format, len(h.requests), in.OrderOnly, in.Skipped, in.SkipSamples())
	}
	wantStatus := []int{204, 418, 418}
	for i, r := range h.requests {
		if !r.OrderOnly || !r.Time.Equal(readAt.Add(time.Duration(i+1)*orderOnlyStep)) || r.Status != wantStatus[i] {
			t.Errorf("request %d: %d at %s, order only %v", i, r.Status, r.Time.Format(time.RFC3339Nano), r.OrderOnly)
		}
	}
	if len(in.Warnings) != 1 || !strings.Contains(in.Warnings[0], "without their leading [%START_TIME%]") || !strings.Contains(in.Warnings[0], "2026-03-04T10:00:00Z") {
		t.Errorf("warnings %q", in.Warnings)
	}
	// --now anchors them instead of the time of reading.
	now := time.Date(2026, 3, 4, 9, 30, 0, 0, time.UTC)
	h = &recordOrigins{}
	if _, err := Read(context.Background(), []string{path}, Options{ReadAt: readAt, TableNow: now}, func(*InputReport) Handler { return h }); err != nil || len(h.requests) != 3 || !h.requests[0].Time.Equal(now.Add(orderOnlyStep)) {
		t.Errorf("with --now: %v, %d requests", err, len(h.requests))
	}
	// The control: behind kubectl --timestamps the kubelet's time is theirs.
	data, _ := os.ReadFile(path)
	var stamped []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		stamped = append(stamped, "2026-03-04T09:15:02.118204377Z "+l)
	}
	wrapped := filepath.Join(t.TempDir(), "stamped.log")
	if err := os.WriteFile(wrapped, []byte(strings.Join(stamped, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h = &recordOrigins{}
	res, err = Read(context.Background(), []string{wrapped}, Options{ReadAt: readAt}, func(*InputReport) Handler { return h })
	if err != nil || len(h.requests) != 3 || res.Inputs[0].OrderOnly != 0 || h.requests[0].OrderOnly || h.requests[0].Time.Year() != 2026 || h.requests[0].Time.Hour() != 9 {
		t.Errorf("stamped: %v, %d requests, %+v", err, len(h.requests), res.Inputs)
	}
}

// TestPrettyJSONAccessLine checks that a JSON access line pretty-printed
// over several lines is read as the one line it was, with the warning;
// the control, the same object on one line, is read without it.
func TestPrettyJSONAccessLine(t *testing.T) {
	for _, tc := range []struct {
		path    string
		warning bool
	}{
		{filepath.Join(pastedSampleDir, "envoy-gateway-pretty.json"), true},
		{filepath.Join(pastedSampleDir, "envoy-gateway-wrapped.log"), true},
		{filepath.Join("testdata", "samples", "envoy", "envoyproxy--gateway--troubleshooting-configuration.jsonl"), false},
	} {
		in, h, accounted := readAccounted(t, tc.path)
		if in.Format != FormatEnvoyJSON || len(h.requests) != 1 || accounted != 1 || h.requests[0].Status != 500 {
			t.Fatalf("%s: format %s, %d requests, %d accounted", tc.path, in.Format, len(h.requests), accounted)
		}
		warned := len(in.Warnings) == 1 && strings.Contains(in.Warnings[0], "pretty-printed or wrapped over several lines") && strings.HasSuffix(in.Warnings[0], "before reading: 1")
		if warned != tc.warning {
			t.Errorf("%s: warnings %q", tc.path, in.Warnings)
		}
	}
}

// TestJSONLineJoiner checks that breaks inside values go, even inside a
// string after a backslash, that breaks between values stay, and that
// each output line maps back to the input line it starts on.
func TestJSONLineJoiner(t *testing.T) {
	in := "{\"a\":\"x\\\n\"y\",\n \"b\": [1,\n2]}\n{\"c\":nu\nll}\n\n{\"d\":1}\n"
	j := newJSONLineJoiner(strings.NewReader(in))
	out, err := io.ReadAll(j)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":\"x\\\"y\", \"b\": [1,2]}\n{\"c\":null}\n\n{\"d\":1}\n"
	if string(out) != want {
		t.Errorf("joined %q, want %q", out, want)
	}
	for out, in := range map[int]int{1: 1, 2: 5, 3: 7, 4: 8} {
		if got := j.line(out); got != in {
			t.Errorf("output line %d from input line %d, want %d", out, got, in)
		}
	}
}

// FuzzJSONLineJoiner checks that the joiner never fails, drops only line
// breaks, and maps every output line to an input line at or after it.
func FuzzJSONLineJoiner(f *testing.F) {
	for _, s := range []string{"{\"a\":\n1}\n", "[\n{\"a\":\"b\\\n\"}\n]\n", "}}}\n{{{\n\"", "\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		j := newJSONLineJoiner(iotest.OneByteReader(bytes.NewReader(in)))
		out, err := io.ReadAll(j)
		if err != nil {
			t.Fatal(err)
		}
		strip := func(b []byte) []byte {
			return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\n"), nil), []byte("\r"), nil)
		}
		if !bytes.Equal(strip(out), strip(in)) {
			t.Fatalf("%q joined to %q", in, out)
		}
		for i := 1; i <= bytes.Count(out, []byte("\n"))+1; i++ {
			if l := j.line(i); l < i {
				t.Fatalf("output line %d from input line %d", i, l)
			}
		}
	})
}

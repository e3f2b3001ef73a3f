package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// runCLI runs the readygap command line with args and returns its outputs and exit code.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCmd(strings.NewReader(stdin), &out, &errOut)
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), exitCode(err)
}

func TestNewCmdAnalyze(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		want     analyzeOptions
		wantCode int
		wantErr  string
	}{
		{name: "defaults", args: "a.json", want: analyzeOptions{Paths: []string{"a.json"}, Output: outputText, TZ: "UTC"}},
		{name: "json and window", args: "-o json --since 2024-05-01T11:55:00Z --until 30m dir -", want: analyzeOptions{
			Paths: []string{"dir", "-"}, Output: outputJSON, Since: "2024-05-01T11:55:00Z", Until: "30m", TZ: "UTC"}},
		{name: "markdown alias", args: "--output md x", want: analyzeOptions{Paths: []string{"x"}, Output: outputMarkdown, TZ: "UTC"}},
		{name: "tz", args: "--tz Europe/Berlin x", want: analyzeOptions{Paths: []string{"x"}, Output: outputText, TZ: "Europe/Berlin"}},
		{name: "bad output", args: "-o yaml x", wantCode: exitUsage, wantErr: "must be one of text, json, markdown, html"},
		{name: "no paths", args: "", wantCode: exitError, wantErr: "requires at least 1 arg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *analyzeOptions
			cmd := newAnalyzeCmd(func(o *analyzeOptions) error { got = o; return nil })
			cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
			args := strings.Fields(tt.args)
			cmd.SetArgs(args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			err := cmd.Execute()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				if exitCode(err) != tt.wantCode {
					t.Fatalf("exit code = %d, want %d", exitCode(err), tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got.Paths, " ") != strings.Join(tt.want.Paths, " ") || got.Output != tt.want.Output ||
				got.Since != tt.want.Since || got.Until != tt.want.Until || got.TZ != tt.want.TZ {
				t.Fatalf("options = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestReadOptionsRejectsBadWindows(t *testing.T) {
	now := func() time.Time { return time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC) }
	for _, o := range []analyzeOptions{
		{Since: "yesterday", TZ: "UTC", Now: now},
		{Since: "2024-05-01T12:00:00Z", Until: "2024-05-01T11:00:00Z", TZ: "UTC", Now: now},
		{TZ: "Mars/Olympus", Now: now},
	} {
		if _, err := o.readOptions(); exitCode(err) != exitUsage {
			t.Errorf("%+v: err = %v (exit %d), want a usage error", o, err, exitCode(err))
		}
	}
	o := analyzeOptions{Since: "30m", Until: "2024-05-01 14:10", TZ: "Europe/Berlin", Now: now}
	ro, err := o.readOptions()
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 5, 1, 11, 30, 0, 0, time.UTC); !ro.Since.Equal(want) {
		t.Errorf("since = %v, want %v", ro.Since, want)
	}
	if want := time.Date(2024, 5, 1, 12, 10, 0, 0, time.UTC); !ro.Until.Equal(want) {
		t.Errorf("until = %v, want %v (14:10 in Berlin summer time)", ro.Until, want)
	}
}

// TestAnalyzeFormatsGolden reads one file of each format and compares the JSON
// inputs report with testdata/formats.golden.json (go test -update rewrites it).
func TestAnalyzeFormatsGolden(t *testing.T) {
	out, errOut, code := runCLI(t, "", "analyze", "-o", "json", filepath.Join("..", "..", "fixtures", "formats"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden := filepath.Join("testdata", "formats.golden.json")
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Fatalf("JSON differs from %s (run go test -update after checking):\n%s", golden, out)
	}
	for _, f := range []string{"gcp-logging", "alb-access", "alb-healthcheck", "aws-lbc", "ingress-nginx", "k8s-events", "k8s-objects"} {
		if !strings.Contains(out, `"format": "`+f+`"`) {
			t.Errorf("no input reported as %s", f)
		}
	}
}

// TestAnalyzeBadInputs checks that a truncated gzip and a garbage file are
// reported as warnings while the good inputs are still counted.
func TestAnalyzeBadInputs(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	line := `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"` + "\n"
	for i := 0; i < 2000; i++ {
		zw.Write([]byte(line))
	}
	zw.Close()
	half := gz.Bytes()[:gz.Len()/2]
	must(t, os.WriteFile(filepath.Join(dir, "cut.log.gz"), half, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "garbage.bin"), []byte("\x00\x01 this is not a log\nat all \x1b[31m\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "good.log"), []byte(line+line), 0o644))

	out, errOut, code := runCLI(t, "", "analyze", "-o", "json", dir)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep := decodeReport(t, out)
	byName := map[string]reportInput{}
	for _, in := range rep.Inputs {
		byName[filepath.Base(in.Name)] = in
	}
	if got := byName["good.log"].Records; got != 2 {
		t.Errorf("good.log records = %d, want 2", got)
	}
	if cut := byName["cut.log.gz"]; cut.Records == 0 || cut.Records >= 2000 || cut.Format != "alb-access" {
		t.Errorf("cut.log.gz = %+v, want some but not all of 2000 records as alb-access", cut)
	}
	if _, ok := byName["garbage.bin"]; ok {
		t.Errorf("garbage.bin reported as an input")
	}
	warnings := strings.Join(rep.Warnings, "\n")
	for _, want := range []string{"cut.log.gz: truncated or corrupt gzip", "garbage.bin: not in a format readygap reads", "readygap reads gcp-logging, alb-access"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
}

func TestAnalyzeNothingKnownFails(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello\nworld\n"), 0o644))
	_, errOut, code := runCLI(t, "", "analyze", filepath.Join(dir, "notes.txt"))
	if code != exitError {
		t.Fatalf("exit %d, want %d", code, exitError)
	}
	if !strings.Contains(errOut, "not in a format readygap reads") || !strings.Contains(errOut, "k8s-objects") {
		t.Fatalf("error does not list the formats: %s", errOut)
	}
}

func TestAnalyzeStdinAndWindow(t *testing.T) {
	logs, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "formats", "ingress-nginx-controller.log"))
	must(t, err)
	out, errOut, code := runCLI(t, string(logs), "analyze", "-o", "json", "--since", "2026-03-10T12:00:02Z", "--until", "2026-03-10T12:00:04Z", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rep := decodeReport(t, out)
	if len(rep.Inputs) != 1 {
		t.Fatalf("inputs = %+v", rep.Inputs)
	}
	in := rep.Inputs[0]
	// Four records fall in [12:00:02, 12:00:04): two error lines and two access lines.
	if in.Name != "<stdin>" || in.Format != "ingress-nginx" || in.Records != 4 || in.Filtered != 3 {
		t.Fatalf("stdin input = %+v, want 4 records kept and 3 filtered", in)
	}
}

func TestAnalyzeTextAndMarkdown(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "formats")
	out, _, code := runCLI(t, "", "analyze", dir)
	if code != exitOK || !strings.Contains(out, "alb-healthcheck") || strings.Contains(out, "\x1b") {
		t.Fatalf("text output (exit %d) lacks a format or has escape codes on a non-terminal:\n%s", code, out)
	}
	md, _, _ := runCLI(t, "", "analyze", "-o", "markdown", dir)
	if !strings.Contains(md, "| Input | Format | Records |") || !strings.Contains(md, "| k8s-events | 7 |") {
		t.Fatalf("markdown output:\n%s", md)
	}
}

func decodeReport(t *testing.T, out string) report {
	t.Helper()
	var rep report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if rep.Schema != schemaVersion {
		t.Fatalf("schema = %q", rep.Schema)
	}
	return rep
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestAnalyzeSeedGolden compares the JSON report of each seed incident with
// testdata/<fixture>.golden.json (go test -update rewrites them).
func TestAnalyzeSeedGolden(t *testing.T) {
	for _, name := range []string{"gke-neg-zone-move", "eks-alb-no-gate", "nginx-wrong-probe-port", "eks-alb-termination-race", "nginx-probe-fixed"} {
		t.Run(name, func(t *testing.T) {
			out, errOut, code := runCLI(t, "", "analyze", "-o", "json", filepath.Join("..", "..", "fixtures", name))
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				must(t, os.WriteFile(golden, []byte(out), 0o644))
			}
			want, err := os.ReadFile(golden)
			must(t, err)
			if out != string(want) {
				t.Fatalf("JSON differs from %s (run go test -update after checking the diff)", golden)
			}
		})
	}
}

func TestAnalyzeExitCode(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures")
	if _, _, code := runCLI(t, "", "analyze", "--exit-code", "-o", "json", filepath.Join(dir, "gke-neg-zone-move")); code != exitIncident {
		t.Errorf("an incident with --exit-code: exit %d, want %d", code, exitIncident)
	}
	if _, _, code := runCLI(t, "", "analyze", "--exit-code", "-o", "json", filepath.Join(dir, "gke-neg-zone-move-fixed")); code != exitOK {
		t.Errorf("the control with --exit-code: exit %d, want 0", code)
	}
	if _, _, code := runCLI(t, "", "analyze", "-o", "json", filepath.Join(dir, "gke-neg-zone-move")); code != exitOK {
		t.Errorf("an incident without --exit-code: exit %d, want 0", code)
	}
}

// TestTextLaneViewFitsAndMarkdownDrawsGantt checks the drawn rollout: the
// text lanes fit 100 columns and show the failures, and the Markdown section
// carries a Mermaid gantt chart with a critical bar for them.
func TestTextLaneViewFitsAndMarkdownDrawsGantt(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "nginx-wrong-probe-port")
	out, _, code := runCLI(t, "", "analyze", dir)
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	lanes := out[strings.Index(out, "Lanes "):]
	lanes = lanes[:strings.Index(lanes, "\nInputs")]
	rows := 0
	for _, line := range strings.Split(lanes, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("lane line of %d columns: %q", n, line)
		}
		if strings.Contains(line, "│") {
			rows++
		}
	}
	if rows < 5 || !strings.Contains(lanes, "!!!") || !strings.Contains(lanes, "▒") {
		t.Errorf("lane view lacks lanes, Ready stretches or failures:\n%s", lanes)
	}
	md, _, _ := runCLI(t, "", "analyze", "-o", "markdown", dir)
	for _, want := range []string{"### Incident 1 of 1: wrong readiness-probe port (high confidence)", "```mermaid\ngantt\n", "5xx :crit, ", "section web-d6d2r8xqqf-", "```yaml\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

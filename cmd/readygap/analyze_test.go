package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
	"github.com/spf13/cobra"
)

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
		{name: "defaults", args: "a.json", want: analyzeOptions{Paths: []string{"a.json"}, Output: report.Text, TZ: "UTC"}},
		{name: "json and window", args: "-o json --since 2024-05-01T11:55:00Z --until 30m dir -", want: analyzeOptions{
			Paths: []string{"dir", "-"}, Output: report.JSON, Since: "2024-05-01T11:55:00Z", Until: "30m", TZ: "UTC"}},
		{name: "markdown alias", args: "--output md x", want: analyzeOptions{Paths: []string{"x"}, Output: report.Markdown, TZ: "UTC"}},
		{name: "tz", args: "--tz Europe/Berlin x", want: analyzeOptions{Paths: []string{"x"}, Output: report.Text, TZ: "Europe/Berlin"}},
		{name: "now", args: "--now 2024-05-01T14:05:00+02:00 x", want: analyzeOptions{Paths: []string{"x"}, Output: report.Text, TZ: "UTC", TableNow: "2024-05-01T14:05:00+02:00"}},
		{name: "bad output", args: "-o yaml x", wantCode: exitUsage, wantErr: "must be one of text, json, markdown, html"},
		{name: "no paths", args: "", wantCode: exitUsage, wantErr: "analyze needs at least one PATH"},
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
				got.Since != tt.want.Since || got.Until != tt.want.Until || got.TZ != tt.want.TZ || got.TableNow != tt.want.TableNow {
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
		{TableNow: "16m ago", TZ: "UTC", Now: now},
		{TableNow: "2024-05-01 14:05", TZ: "UTC", Now: now},
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
	o = analyzeOptions{TableNow: "2024-05-01T14:05:00+02:00", TZ: "UTC", Now: now}
	if ro, err = o.readOptions(); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 5, 1, 12, 5, 0, 0, time.UTC); !ro.TableNow.Equal(want) || ro.TableNow.Location() != time.UTC || !ro.ReadAt.Equal(now()) {
		t.Errorf("--now = %v, read at %v; want %v and %v", ro.TableNow, ro.ReadAt, want, now())
	}
}

// An input in no known format gives a report that cannot judge, in every
// output format, with exit code 6: never an empty stdout, never "No
// incident".
func TestAnalyzeNothingKnownCannotJudge(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	must(t, os.WriteFile(notes, []byte("hello\nworld\n"), 0o644))
	for _, format := range []string{"text", "json", "markdown", "html"} {
		out, errOut, code := runCLI(t, "", "analyze", "-o", format, notes)
		if code != exitNotJudged {
			t.Fatalf("-o %s: exit %d, want %d\n%s", format, code, exitNotJudged, errOut)
		}
		if !strings.Contains(errOut, "cannot judge: no request log was read: 1 file not read ("+notes+": not in a format readygap reads)") {
			t.Errorf("-o %s: stderr does not say why: %s", format, errOut)
		}
		flat := strings.Join(strings.Fields(strings.ReplaceAll(out, "<wbr>", "")), " ")
		if strings.Contains(flat, "No incident") || !strings.Contains(flat, "Cannot judge") && format != "json" {
			t.Errorf("-o %s: the headline does not say it cannot judge:\n%s", format, out)
		}
		if format != "json" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(out))
		var rep report.Report
		must(t, dec.Decode(&rep))
		if dec.More() {
			t.Errorf("more than one JSON document:\n%s", out)
		}
		if rep.Schema != report.SchemaVersion || rep.Summary.Verdict != report.VerdictCannotJudge || len(rep.Unread) != 1 || rep.Unread[0].Name != notes ||
			rep.Unread[0].Reason != "not in a format readygap reads" || len(rep.Summary.Coverage) != 4 || rep.Summary.Coverage[0].Kind != "request_logs" {
			t.Errorf("json: %+v", rep)
		}
		if !strings.Contains(rep.Summary.CannotJudge, "not in a format readygap reads") {
			t.Errorf("json: cannot_judge %q", rep.Summary.CannotJudge)
		}
	}
	// The other way the inputs can fail: a path that does not exist is a
	// mistake to correct, exit 1.
	if _, errOut, code := runCLI(t, "", "analyze", "-o", "json", filepath.Join(dir, "missing")); code != exitError || !strings.Contains(errOut, "no such file") {
		t.Errorf("a missing path: exit %d, %s", code, errOut)
	}
}

// Only events and objects: cannot judge, exit 6, also with --exit-code;
// with the request log the verdict is "No incident" and exit 0.
func TestAnalyzeWithoutRequestLogCannotJudge(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "nginx-probe-fixed")
	out, errOut, code := runCLI(t, "", "analyze", "--exit-code", filepath.Join(dir, "events.json"), filepath.Join(dir, "objects.yaml"))
	if code != exitNotJudged || !strings.HasPrefix(out, "Cannot judge: no request log was read: the inputs read hold only events and objects") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "", "analyze", "--exit-code", dir)
	if code != exitOK || !strings.HasPrefix(out, "No incident:") {
		t.Fatalf("with the request log: exit %d:\n%s\n%s", code, out, errOut)
	}
}

func TestAnalyzeStdinAndWindow(t *testing.T) {
	logs, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "formats", "ingress-nginx-controller.log"))
	must(t, err)
	out, errOut, code := runCLI(t, string(logs), "analyze", "-o", "json", "--since", "2026-03-10T12:00:02Z", "--until", "2026-03-10T12:00:04Z", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep report.Report
	must(t, json.Unmarshal([]byte(out), &rep))
	if len(rep.Inputs) != 1 {
		t.Fatalf("inputs = %+v", rep.Inputs)
	}
	in := rep.Inputs[0]
	// Four records fall in [12:00:02, 12:00:04): two error lines and two access lines.
	if in.Name != "<stdin>" || in.Format != "ingress-nginx" || in.Records != 4 || in.Filtered != 3 {
		t.Fatalf("stdin input = %+v, want 4 records kept and 3 filtered", in)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
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
	// The empty window (4) comes before cannot judge (6), which comes
	// before an incident (3).
	if _, _, code := runCLI(t, "", "analyze", "--exit-code", "--since", "2030-01-01T00:00:00Z", filepath.Join(dir, "gke-neg-zone-move")); code != exitNoRecord {
		t.Errorf("an empty window: exit %d, want %d", code, exitNoRecord)
	}
	if _, _, code := runCLI(t, "", "analyze", "--exit-code", filepath.Join(dir, "gke-neg-zone-move", "k8s-events.json")); code != exitNotJudged {
		t.Errorf("events alone with --exit-code: exit %d, want %d", code, exitNotJudged)
	}
}

// TestAnalyzeNginxFormat reads a custom ingress-nginx format given with
// --nginx-format, and refuses one readygap cannot read as a usage error.
func TestAnalyzeNginxFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "controller.log")
	must(t, os.WriteFile(path, []byte(
		`203.0.113.9 [04/Mar/2026:10:15:03 +0000] "GET /a HTTP/1.1" 502 10.8.2.31:8080, 10.8.3.12:8080 502, 502 0, 0`+"\n"+
			`203.0.113.9 [04/Mar/2026:10:15:04 +0000] "GET /a HTTP/1.1" 200 10.8.2.31:8080 200 12`+"\n"), 0o644))
	const format = `$remote_addr [$time_local] "$request" $status $upstream_addr $upstream_status $upstream_response_length`
	out, errOut, code := runCLI(t, "", "analyze", "-o", "json", "--nginx-format", format, path)
	if code != exitOK || !strings.Contains(out, `"format": "ingress-nginx"`) || !strings.Contains(out, `"records": 2`) || !strings.Contains(out, `"skipped": 0`) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, tc := range []struct{ format, want string }{
		{`$remote_addr [$time_local] "$request" $status`, "--nginx-format: the format has no $upstream_addr or $upstream_status"},
		{`$status$upstream_addr $upstream_status`, "two variables with nothing between them"},
		{` `, "--nginx-format: the format is empty"},
	} {
		_, errOut, code := runCLI(t, "", "analyze", "--nginx-format", tc.format, path)
		if code != exitUsage || !strings.Contains(strings.Join(strings.Fields(errOut), " "), tc.want) {
			t.Errorf("--nginx-format %q: exit %d, want %d and %q:\n%s", tc.format, code, exitUsage, tc.want, errOut)
		}
	}
	// triage takes the same flag, checked before any source is asked.
	var got *triageOptions
	cmd := newTriageCmd(func(o *triageOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--nginx-format", format})
	if err := cmd.Execute(); err != nil || got.NginxFormat != format {
		t.Fatalf("%v %+v", err, got)
	}
	_, errOut, code = runCLI(t, "", "triage", "--nginx-format", "$status", "--proxy-logs", "deploy/x")
	if code != exitUsage || !strings.Contains(strings.Join(strings.Fields(errOut), " "), "--nginx-format: the format has no $upstream_addr") {
		t.Errorf("triage: exit %d\n%s", code, errOut)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/fang"
	"github.com/readygap/readygap/internal/safego"
	"github.com/readygap/readygap/report"
	"github.com/spf13/cobra"
)

func TestPrintErrorKeepsCaseAndEscapesControls(t *testing.T) {
	var b bytes.Buffer
	printError(&b, fang.Styles{}, usageError(errors.New("<stdin>: bad \x1b[31mname")))
	out := b.String()
	if strings.Contains(out, "\x1b[31m") || !strings.Contains(out, `<stdin>: bad \x1b[31mname`) || !strings.Contains(out, "Try --help") {
		t.Fatalf("error output %q", out)
	}
	// A message of several lines keeps its lines instead of showing \x0a.
	b.Reset()
	printError(&b, fang.Styles{}, errors.New("first line\n\tsecond \u202Eline"))
	out = b.String()
	if strings.Contains(out, `\x0a`) || strings.Contains(out, `\x09`) || !strings.Contains(out, "first line\n") ||
		!strings.Contains(out, `second \u{202e}line.`) {
		t.Fatalf("multi-line error output %q", out)
	}
}

// TestUsageErrorsExitTwo checks that every mistake in the command line
// exits 2 with a readable message, and a suggestion for a misspelt command.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"analyse x", `unknown command "analyse"; did you mean "analyze"?`},
		{"bogus", `unknown command "bogus"; the commands are analyze, check, completion, explain, mcp, reduce, render, triage, version`},
		{"analyze", "analyze needs at least one PATH"},
		{"analyze --bogus x", "unknown flag: --bogus"},
		{"analyze -o yaml x", "must be one of text, json, markdown, html"},
		{"analyze --since yesterday x", "--since: cannot read time"},
		{"analyze --envoy-format %START_TIME% x", "--envoy-format: the format has no %RESPONSE_CODE%"},
		{"triage --log-group g --envoy-format %START_TIME%", "--envoy-format: the format has no %RESPONSE_CODE%"},
		{"triage extra", `unknown command "extra" for "readygap triage"`},
		{"completion bash extra", `unknown command "extra"`},
	} {
		_, errOut, code := runCLI(t, "", strings.Fields(tt.args)...)
		if code != exitUsage || !strings.Contains(errOut, tt.want) {
			t.Errorf("readygap %s: exit %d, stderr %q; want exit %d and %q", tt.args, code, errOut, exitUsage, tt.want)
		}
	}
	if out, _, code := runCLI(t, ""); code != exitOK || !strings.Contains(out, "analyze") {
		t.Errorf("readygap without arguments: exit %d, want the help and 0:\n%s", code, out)
	}
}

// writeTo writes to m, which panics when m is nil.
func writeTo(m map[string]int) error {
	m["x"]++
	return nil
}

// TestPanicExitsOne checks that a panic in a command is an internal error
// with exit code 1 and a stack, never the runtime's exit code 2.
func TestPanicExitsOne(t *testing.T) {
	var out, errOut bytes.Buffer
	root := newRootCmd(strings.NewReader(""), &out, &errOut)
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var m map[string]int
		return writeTo(m) // a nil map: the kind of bug a panic is
	}})
	harden(root)
	root.SetArgs([]string{"boom"})
	err := root.Execute()
	if code := exitCode(err); code != exitError || err == nil || !strings.Contains(err.Error(), "internal error: assignment to entry in nil map") ||
		!strings.Contains(err.Error(), "main_test.go") {
		t.Fatalf("exit %d, error %v; want exit 1, the panic and its stack", code, err)
	}
}

// TestWindowWithoutRecordExitsFour checks that a window that leaves no
// record is not "No incident" with exit 0: it exits 4, with or without
// --exit-code, and says what time range the data has.
func TestWindowWithoutRecordExitsFour(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "gke-neg-zone-move")
	for _, args := range [][]string{
		{"analyze", "-o", "json", "--since", "2030-01-01T00:00:00Z", dir},
		{"analyze", "-o", "json", "--exit-code", "--until", "2020-01-01T00:00:00Z", dir},
	} {
		out, errOut, code := runCLI(t, "", args...)
		if code != exitNoRecord || !strings.Contains(errOut, "the data runs from 2026-03-25T00:56:30.000077Z to 2026-03-25T00:58:04.702764Z") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and the data's time range", args, code, errOut, exitNoRecord)
		}
		var rep report.Report
		must(t, json.Unmarshal([]byte(out), &rep))
		if rep.Window == nil || !rep.Window.Empty || len(rep.Summary.Caveats) == 0 || !strings.Contains(rep.Summary.Caveats[0], "holds no record") {
			t.Errorf("%v: window %+v, caveats %q", args, rep.Window, rep.Summary.Caveats)
		}
	}
	// A window that keeps records is no such case.
	if _, errOut, code := runCLI(t, "", "analyze", "-o", "json", "--since", "2026-03-25T00:57:00Z", dir); code != exitOK {
		t.Errorf("a window with records: exit %d: %s", code, errOut)
	}
	// Standard input is read once, and the range comes from that read.
	logs, err := os.ReadFile(filepath.Join(dir, "lb-requests.json"))
	must(t, err)
	if _, errOut, code := runCLI(t, string(logs), "analyze", "--since", "2030-01-01T00:00:00Z", "-"); code != exitNoRecord ||
		!strings.Contains(errOut, "the data runs from 2026-03-25T00:56:30.000077Z to 2026-03-25T00:58:04.702764Z") {
		t.Errorf("stdin: exit %d, stderr %q; want the data's time range", code, errOut)
	}
}

var reExitRow = regexp.MustCompile("(?m)^\\| (\\d+) \\| (.*) \\|$")

// TestExitCodesDocumented checks that the exit-code table of
// docs/exit-codes.md and
// `readygap help exit-codes` list exactly the codes of exitCodes.
func TestExitCodesDocumented(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "exit-codes.md"))
	must(t, err)
	s := string(readme)
	i := strings.Index(s, "## Exit codes")
	if i < 0 {
		t.Fatal("docs/exit-codes.md has no Exit codes section")
	}
	section := s[i:]
	if j := strings.Index(section[3:], "\n## "); j >= 0 {
		section = section[:j+3]
	}
	var got []string
	for _, m := range reExitRow.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1]+" "+m[2])
	}
	var want []string
	for _, c := range exitCodes {
		want = append(want, fmt.Sprintf("%d %s", c.Code, c.Meaning))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/exit-codes.md exit codes:\n%s\nwant (from exitCodes):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	out, _, code := runCLI(t, "", "help", "exit-codes")
	for _, c := range exitCodes {
		if !strings.Contains(out, fmt.Sprintf("%d  %s", c.Code, strings.ReplaceAll(c.Meaning, "`", ""))) || code != exitOK {
			t.Errorf("help exit-codes lacks code %d:\n%s", c.Code, out)
		}
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(p string) ([]byte, error) {
			if v, ok := m[p]; ok {
				return []byte(v), nil
			}
			return nil, os.ErrNotExist
		}
	}
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"v2 limit", map[string]string{"/sys/fs/cgroup/memory.max": "536870912\n"}, 536870912},
		{"v2 unlimited", map[string]string{"/sys/fs/cgroup/memory.max": "max\n"}, 0},
		{"v1 limit", map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "1073741824\n"}, 1 << 30},
		{"v1 unlimited", map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"no cgroup", nil, 0},
	} {
		got, ok := cgroupMemoryLimit(files(tt.files))
		if got != tt.want || ok != (tt.want > 0) {
			t.Errorf("%s: %d %v, want %d", tt.name, got, ok, tt.want)
		}
	}
}

// TestWorkerPanicExitsOne checks that a panic on a worker goroutine (the
// parsers run on several) is an internal error with exit code 1 and the
// worker's stack, never the runtime's exit code 2.
func TestWorkerPanicExitsOne(t *testing.T) {
	var out, errOut bytes.Buffer
	root := newRootCmd(strings.NewReader(""), &out, &errOut)
	root.AddCommand(&cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error {
		var g safego.Group
		g.Go(func() { _ = writeTo(nil) })
		g.Wait()
		return nil
	}})
	harden(root)
	root.SetArgs([]string{"boom"})
	err := root.Execute()
	if code := exitCode(err); code != exitError || err == nil || !strings.Contains(err.Error(), "internal error: assignment to entry in nil map") ||
		!strings.Contains(err.Error(), "readygap.writeTo(") {
		t.Fatalf("exit %d, error %v; want exit 1, the panic and the worker's stack", code, err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRender renders a saved analyze report and a saved check report,
// from a file and from standard input, and requires the output of the
// command that saved them, byte for byte; a format the report's kind has
// not is a usage error, and what is no report of a known schema an error.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, args ...string) string {
		t.Helper()
		out, errOut, code := runCLI(t, "", args...)
		if code != exitOK && code != exitRisk {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(out), 0o644))
		return p
	}
	fixture := filepath.Join("..", "..", "fixtures", "nginx-wrong-probe-port")
	manifest := filepath.Join("..", "..", "fixtures", "manifests", "nginx-wrong-probe-port", "broken.yaml")
	analyzed := save("report.json", "analyze", "-o", "json", fixture)
	checked := save("check.json", "check", "-o", "json", manifest)
	for _, tc := range []struct {
		saved  string
		direct []string
		format string
	}{
		{analyzed, []string{"analyze", fixture}, "text"},
		{analyzed, []string{"analyze", "-o", "markdown", fixture}, "md"},
		{analyzed, []string{"analyze", "-o", "html", fixture}, "html"},
		{analyzed, []string{"analyze", "-o", "json", fixture}, "json"},
		{checked, []string{"check", manifest}, "text"},
		{checked, []string{"check", "-o", "sarif", manifest}, "sarif"},
		{checked, []string{"check", "-o", "junit", manifest}, "junit"},
	} {
		want, _, _ := runCLI(t, "", tc.direct...)
		got, errOut, code := runCLI(t, "", "render", tc.saved, "-o", tc.format)
		if code != exitOK || got != want {
			t.Errorf("render %s -o %s: exit %d (%s), output equal to %v: %v", filepath.Base(tc.saved), tc.format, code, errOut, tc.direct, got == want)
		}
		body, err := os.ReadFile(tc.saved)
		must(t, err)
		if got, _, code := runCLI(t, string(body), "render", "-", "-o", tc.format); code != exitOK || got != want {
			t.Errorf("render - -o %s from standard input: exit %d, output equal: %v", tc.format, code, got == want)
		}
	}
	if _, errOut, code := runCLI(t, "", "render", checked, "-o", "html"); code != exitUsage || !strings.Contains(errOut, "sarif") {
		t.Errorf("a check report as HTML: exit %d, %s; want a usage error naming the check formats", code, errOut)
	}
	other := filepath.Join(dir, "other.json")
	must(t, os.WriteFile(other, []byte(`{"schema":"readygap/v9"}`), 0o644))
	for _, p := range []string{other, filepath.Join(dir, "missing.json"), manifest} {
		if _, errOut, code := runCLI(t, "", "render", p); code != exitError {
			t.Errorf("render %s: exit %d (%s), want %d", filepath.Base(p), code, errOut, exitError)
		}
	}
}

// Package golden compares test output with golden files under the Go
// `-update` convention: `go test ./... -update` rewrites the files, and a
// mismatch fails the test with a unified diff, never the whole output.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"
)

// Update is the -update flag: rewrite golden files instead of comparing.
var Update = flag.Bool("update", false, "rewrite the golden files instead of comparing with them")

// contextLines is how many unchanged lines a diff shows around each change.
const contextLines = 3

// Assert compares got with the golden file at path, or rewrites the file
// when -update is given.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := Diff(path, want, got); d != "" {
		t.Errorf("output differs from %s (run go test -update after checking the diff):\n%s", path, d)
	}
}

// Diff returns a unified diff from want (the golden file named name) to
// got, or "" when they are equal.
func Diff(name string, want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(want)), B: difflib.SplitLines(string(got)),
		FromFile: name, ToFile: "got", Context: contextLines,
	})
	if err != nil || d == "" {
		// Only line endings or a missing final newline differ.
		return "the files differ in white space at the ends of lines"
	}
	return d
}

// AssertTable compares the Markdown table of the document at path that
// starts with the line header with header, its separator and rows (one
// line each, without the newline), or rewrites that table in place when
// -update is given: tables generated from a registry stay equal to it.
func AssertTable(t testing.TB, path, header string, rows []string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, header)
	if start < 0 {
		t.Fatalf("%s has no table starting %q", path, header)
	}
	end := start
	for end < len(text) && strings.HasPrefix(text[end:], "|") {
		next := strings.IndexByte(text[end:], '\n')
		if next < 0 {
			end = len(text)
			break
		}
		end += next + 1
	}
	var want strings.Builder
	want.WriteString(header + "\n" + strings.Repeat("|---", strings.Count(header, "|")-1) + "|\n")
	for _, r := range rows {
		want.WriteString(r + "\n")
	}
	if *Update {
		if err := os.WriteFile(path, []byte(text[:start]+want.String()+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := Diff(path+" table", []byte(text[start:end]), []byte(want.String())); d != "" {
		t.Errorf("the table of %s starting %q is not what it is generated from (go test -run %s -update rewrites it):\n%s", path, header, t.Name(), d)
	}
}

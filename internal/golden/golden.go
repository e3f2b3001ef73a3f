// Package golden compares test output with golden files under the Go
// `-update` convention: `go test ./... -update` rewrites the files, and a
// mismatch fails the test with a unified diff, never the whole output.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
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

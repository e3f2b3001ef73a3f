package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/internal/golden"
)

// readmeExample is the command the README's first example shows the output
// of, and the fixture it runs on.
const (
	readmeExample        = "$ readygap analyze fixtures/gke-neg-zone-move"
	readmeExampleFixture = "gke-neg-zone-move"
	// readmeExampleHead is how many lines of the report's beginning the
	// example shows before its first elision.
	readmeExampleHead = 13
	// elision is the line that stands for output left out.
	elision = "\n…\n"
)

// TestREADMEExampleIsTheOutput checks that the README's example output is
// what `readygap analyze` prints on the fixture (at the width of a pipe):
// each stretch between lines of a lone "…" must appear, in order, in the real output.
// go test -update rewrites the example from the output: its first lines,
// then the lanes.
func TestREADMEExampleIsTheOutput(t *testing.T) {
	path := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(path)
	must(t, err)
	s := string(readme)
	start := strings.Index(s, readmeExample+"\n")
	if start < 0 {
		t.Fatalf("README has no example %q", readmeExample)
	}
	start += len(readmeExample) + 1
	end := strings.Index(s[start:], "```")
	if end < 0 {
		t.Fatal("the README's example block does not end")
	}
	end += start
	var buf bytes.Buffer
	must(t, WriteText(&buf, saved(t, readmeExampleFixture), DefaultTextWidth))
	out := buf.String()
	// The report names its inputs relative to the working directory: the
	// README's command runs from the repository's root.
	out = strings.ReplaceAll(out, "../fixtures/", "fixtures/")
	if *golden.Update {
		lines := strings.Split(out, "\n")
		block := strings.Join(lines[:min(readmeExampleHead, len(lines))], "\n") + elision
		if i := strings.Index(out, "\nLanes "); i >= 0 {
			lanes := out[i+1:]
			if j := strings.Index(lanes, "\n\n"); j >= 0 {
				lanes = lanes[:j+1]
			}
			block += lanes
		}
		must(t, os.WriteFile(path, []byte(s[:start]+block+s[end:]), 0o644))
		return
	}
	rest := out
	for _, part := range strings.Split(s[start:end], elision) {
		i := strings.Index(rest, part)
		if i < 0 {
			t.Fatalf("the README's example is not the output (go test ./report -run TestREADMEExampleIsTheOutput -update):\nREADME:\n%s\noutput:\n%s", part, out)
		}
		rest = rest[i+len(part):]
	}
}

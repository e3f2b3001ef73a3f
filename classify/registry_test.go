package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/internal/golden"
)

// TestREADMECauseTable checks that the README's table of causes is the
// rules' registry, row for row (go test ./classify -run TestREADMECauseTable
// -update rewrites it).
func TestREADMECauseTable(t *testing.T) {
	const header = "| cause | what happened | the signature it looks for |"
	path := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, header)
	if start < 0 {
		t.Fatalf("README.md has no table starting %q", header)
	}
	end := start
	for end < len(text) && strings.HasPrefix(text[end:], "|") {
		end += strings.IndexByte(text[end:], '\n') + 1
	}
	var want strings.Builder
	want.WriteString(header + "\n|---|---|---|\n")
	for _, r := range Rules {
		c := r.Cause()
		want.WriteString("| `" + c.ID + "` | " + c.Description + " | " + c.Signature + " |\n")
	}
	if *golden.Update {
		if err := os.WriteFile(path, []byte(text[:start]+want.String()+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := golden.Diff("README.md cause table", []byte(text[start:end]), []byte(want.String())); d != "" {
		t.Errorf("the README's cause table is not the registry (go test ./classify -run TestREADMECauseTable -update rewrites it):\n%s", d)
	}
}

// TestCauseRegistry checks that every cause has one id, a name and texts,
// and that unknown comes last.
func TestCauseRegistry(t *testing.T) {
	seen := map[string]bool{}
	all := Causes()
	for _, c := range all {
		if seen[c.ID] || c.ID == "" || c.Name == "" || c.Description == "" || c.Signature == "" {
			t.Errorf("bad cause %+v", c)
		}
		seen[c.ID] = true
		for _, v := range c.Variants {
			if v.ID == "" || v.Name == "" || c.VariantName(v.ID) != v.Name {
				t.Errorf("%s: bad variant %+v", c.ID, v)
			}
		}
		if got, ok := CauseByID(c.ID); !ok || got.ID != c.ID {
			t.Errorf("CauseByID(%s) = %v, %v", c.ID, got, ok)
		}
	}
	if all[len(all)-1].ID != "unknown" {
		t.Errorf("unknown is not last: %v", all[len(all)-1].ID)
	}
	if _, ok := CauseByID("no_such_cause"); ok {
		t.Error("an unknown id was found")
	}
}

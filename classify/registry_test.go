package classify

import (
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/internal/golden"
)

// TestREADMECauseTable checks that the README's table of causes is the
// rules' registry, row for row (go test ./classify -run TestREADMECauseTable
// -update rewrites it).
func TestREADMECauseTable(t *testing.T) {
	var rows []string
	for _, r := range Rules {
		c := r.Cause()
		rows = append(rows, "| `"+c.ID+"` | "+c.Description+" | "+c.Signature+" |")
	}
	golden.AssertTable(t, filepath.Join("..", "README.md"), "| cause | what happened | the signature it looks for |", rows)
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

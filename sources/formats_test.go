package sources

import (
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/internal/golden"
)

// TestREADMEFormatTable checks that the table of formats in docs/formats.md
// is the format table, row for row (go test ./sources -update rewrites it).
func TestREADMEFormatTable(t *testing.T) {
	var rows []string
	for _, f := range Formats() {
		rows = append(rows, "| `"+string(f.ID)+"` | "+f.Description+" | "+f.HowToGet+" |")
	}
	golden.AssertTable(t, filepath.Join("..", "docs", "formats.md"), "| format id | what it is | how you usually get it |", rows)
}

// TestFormatTable checks that every format has one row, a family and texts,
// and that detection tries the adapters in the table's order.
func TestFormatTable(t *testing.T) {
	seen := map[Format]bool{}
	for _, f := range Formats() {
		if seen[f.ID] || f.Family == "" || f.Description == "" || f.HowToGet == "" || adapterCount(f) != 1 {
			t.Errorf("bad row %+v", f)
		}
		seen[f.ID] = true
		if f.line != nil && f.line.Format() != f.ID || f.json != nil && f.json.Format() != f.ID || f.table != nil && f.table.Format() != f.ID {
			t.Errorf("%s: its adapter reports another format", f.ID)
		}
		if FamilyOf(f.ID) != f.Family {
			t.Errorf("FamilyOf(%s) = %s", f.ID, FamilyOf(f.ID))
		}
	}
	if lineAdapters[0].Format() != FormatALBAccess || jsonAdapters[0].Format() != FormatGCPLogging {
		t.Errorf("detection order is not the table's: %v %v", lineAdapters[0].Format(), jsonAdapters[0].Format())
	}
}

// adapterCount counts the adapters of a format's row: each has one.
func adapterCount(f FormatInfo) int {
	n := 0
	for _, set := range []bool{f.line != nil, f.json != nil, f.table != nil} {
		if set {
			n++
		}
	}
	return n
}

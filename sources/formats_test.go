package sources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/internal/golden"
)

// TestREADMEFormatTable checks that the table of formats in docs/formats.md
// is the format table, row for row (go test ./sources -update rewrites it).
func TestREADMEFormatTable(t *testing.T) {
	const header = "| format id | what it is | how you usually get it |"
	path := filepath.Join("..", "docs", "formats.md")
	readme, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, header)
	if start < 0 {
		t.Fatalf("docs/formats.md has no table starting %q", header)
	}
	end := start
	for end < len(text) && strings.HasPrefix(text[end:], "|") {
		end += strings.IndexByte(text[end:], '\n') + 1
	}
	var want strings.Builder
	want.WriteString(header + "\n|---|---|---|\n")
	for _, f := range Formats() {
		want.WriteString("| `" + string(f.ID) + "` | " + f.Description + " | " + f.HowToGet + " |\n")
	}
	if *golden.Update {
		if err := os.WriteFile(path, []byte(text[:start]+want.String()+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := golden.Diff("docs/formats.md format table", []byte(text[start:end]), []byte(want.String())); d != "" {
		t.Errorf("the format table of docs/formats.md is not the format table (go test ./sources -run TestREADMEFormatTable -update rewrites it):\n%s", d)
	}
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

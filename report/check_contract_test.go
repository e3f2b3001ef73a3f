package report

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestCheckJSONDocumented checks that the table of the check contract in
// docs/check.md has a row for every field of CheckReport, and none for a field
// that does not exist.
func TestCheckJSONDocumented(t *testing.T) {
	want := map[string]bool{}
	contractPaths(reflect.TypeOf(CheckReport{}), "", want)
	readme, err := os.ReadFile(filepath.Join("..", "docs", "check.md"))
	must(t, err)
	s := string(readme)
	i := strings.Index(s, "### Check JSON output")
	if i < 0 {
		t.Fatal("docs/check.md has no Check JSON output section")
	}
	section := s[i:]
	if j := strings.Index(section[4:], "\n#"); j >= 0 {
		section = section[:j+4]
	}
	documented := map[string]bool{}
	for _, m := range reContractRow.FindAllStringSubmatch(section, -1) {
		parent := ""
		for _, cell := range strings.Split(m[1], ", ") {
			p := strings.Trim(cell, "`")
			if strings.HasPrefix(p, ".") {
				p = parent + p
			} else if k := strings.LastIndex(p, "."); k >= 0 {
				parent = p[:k]
			} else {
				parent = ""
			}
			documented[strings.TrimSuffix(strings.TrimPrefix(p, "."), "[]")] = true
		}
	}
	var missing, extra []string
	for p := range want {
		if !documented[p] {
			missing = append(missing, p)
		}
	}
	for p := range documented {
		if !want[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing)+len(extra) > 0 {
		t.Errorf("docs/check.md's check JSON table: lacks %v; documents fields the contract lacks: %v", missing, extra)
	}
}

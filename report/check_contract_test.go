package report

import (
	"reflect"
	"testing"
)

// TestCheckJSONDocumented checks that the table of the check contract in
// docs/check.md has a row for every field of CheckReport, and none for a field
// that does not exist.
func TestCheckJSONDocumented(t *testing.T) {
	missing, extra := contractTableDiff(t, reflect.TypeOf(CheckReport{}), "check.md", "### Check JSON output", "\n#")
	if len(missing)+len(extra) > 0 {
		t.Errorf("docs/check.md's check JSON table: lacks %v; documents fields the contract lacks: %v", missing, extra)
	}
}

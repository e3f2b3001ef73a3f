package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// saved decodes testdata/reports/<name>.json: the JSON report of
// fixtures/<name> (or of a synthetic input), written by the pipeline's
// TestSavedReports. The renderers' tests draw from the contract alone, as
// readygap render does.
func saved(t testing.TB, name string) *Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reports", name+".json"))
	must(t, err)
	var rep Report
	must(t, json.Unmarshal(b, &rep))
	return &rep
}

// render writes rep in format f.
func render(t testing.TB, f Format, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// day0 is the date of the synthetic reports.
var day0 = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// lineDiff names the first line where a and b differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

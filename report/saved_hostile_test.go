package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// hostileName carries a right-to-left override, a control and markup.
const hostileName = "evil\u202ename\x1b[31m<script>"

// rawUnsafe returns the first unsafe rune out holds raw, or -1.
func rawUnsafe(out string) rune {
	for _, r := range out {
		if r != '\n' && r != '\t' && UnsafeRune(r) {
			return r
		}
	}
	return -1
}

// TestSavedNamesAreUntrusted draws reports whose names — a cause's and a
// variant's, a check's and its cause's — were edited into a saved JSON
// report: in every format they arrive sanitized, as the inputs' text does,
// since render draws what the file says.
func TestSavedNamesAreUntrusted(t *testing.T) {
	rep := saved(t, "nginx-wrong-probe-port")
	for i := range rep.Incidents {
		rep.Incidents[i].CauseName, rep.Incidents[i].VariantName, rep.Incidents[i].Variant = hostileName, hostileName, "v"
	}
	for _, f := range Formats {
		if f == JSON {
			continue // JSON escapes what it holds (escapeUnsafeJSON)
		}
		out := render(t, f, rep)
		if !strings.Contains(out, "evil") {
			t.Fatalf("%s: the cause's name is not drawn", f)
		}
		if r := rawUnsafe(out); r >= 0 {
			t.Errorf("%s: raw %U in the output", f, r)
		}
	}
	crep := &CheckReport{Schema: CheckSchemaVersion, Summary: CheckSummary{FailOn: "error"},
		Workloads: []ObjectRef{{Kind: "Deployment", Name: "web"}},
		Checks: []CheckRule{{Rule: hostileName + "/c", Cause: hostileName, CauseName: hostileName, CauseDescription: hostileName,
			Check: "c", Name: hostileName, Description: hostileName}}}
	for _, f := range CheckFormats {
		if f == CheckJSON {
			continue
		}
		var b bytes.Buffer
		must(t, WriteCheck(&b, f, crep))
		out := b.String()
		if f == CheckSARIF {
			// A code-scanning page decodes JSON's escapes: look at the
			// rules' texts as it shows them.
			var log SARIFLog
			must(t, json.Unmarshal(b.Bytes(), &log))
			r := log.Runs[0].Tool.Driver.Rules[0]
			out = strings.Join([]string{r.ID, r.Name, r.ShortDescription.Text, r.FullDescription.Text, r.Help.Text}, "\n")
		}
		if r := rawUnsafe(out); r >= 0 {
			t.Errorf("check %s: raw %U in the output", f, r)
		}
	}
}

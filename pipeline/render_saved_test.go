package pipeline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/report"
)

// TestRenderFromSavedJSON renders every fixture's report from its JSON, as
// readygap render does, and requires it to equal the direct rendering in
// every format, byte for byte: the contract carries all a renderer draws.
// Check reports of every manifest fixture are held to the same.
func TestRenderFromSavedJSON(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("..", "fixtures"))
	must(t, err)
	for _, d := range dirs {
		// Every folder but the manifests (checked below) and the simulator
		// that writes the fixtures.
		if !d.IsDir() || d.Name() == "manifests" || d.Name() == "sim" || d.Name() == "gen" {
			continue
		}
		t.Run(d.Name(), func(t *testing.T) {
			rep := analyze(t, fixture(d.Name()))
			var back report.Report
			must(t, json.Unmarshal([]byte(render(t, report.JSON, rep)), &back))
			for _, f := range report.Formats {
				if want, got := render(t, f, rep), render(t, f, &back); want != got {
					t.Errorf("%s from the saved JSON differs: %s", f, lineDiff(want, got))
				}
			}
		})
	}
	manifests, err := filepath.Glob(filepath.Join("..", "fixtures", "manifests", "*", "*.yaml"))
	must(t, err)
	if len(manifests) == 0 {
		t.Fatal("no manifest fixture")
	}
	for _, m := range manifests {
		rep, err := Check(t.Context(), []string{m}, CheckOptions{FailOn: classify.SeverityWarning})
		must(t, err)
		var b bytes.Buffer
		must(t, report.WriteCheck(&b, report.CheckJSON, rep))
		var back report.CheckReport
		must(t, json.Unmarshal(b.Bytes(), &back))
		for _, f := range report.CheckFormats {
			if want, got := renderCheck(t, f, rep), renderCheck(t, f, &back); want != got {
				t.Errorf("%s: check %s from the saved JSON differs: %s", m, f, lineDiff(want, got))
			}
		}
	}
}

package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
)

// earlyFixtures are fixtures of every kind of request log and cluster
// record, with a window for some, as triage reads them.
var earlyFixtures = []struct {
	name         string
	since, until time.Time
}{
	{name: "eks-alb-termination-race"},
	{name: "eks-alb-no-gate", since: time.Date(2025, 11, 8, 17, 34, 0, 0, time.UTC), until: time.Date(2025, 11, 8, 17, 37, 0, 0, time.UTC)},
	{name: "gke-neg-zone-move"},
	{name: "nginx-hpa-scale-in"},
	{name: "formats"},
}

// TestEarlyReadingSameReport reads part of each fixture's files early, in
// another order than the directory's and with one file added twice, then
// analyzes the directory with what was read early, and requires the report
// of an analysis that read every file itself, byte for byte. A file read
// early that the paths do not name is listed among the inputs, never lost.
func TestEarlyReadingSameReport(t *testing.T) {
	for _, fx := range earlyFixtures {
		t.Run(fx.name, func(t *testing.T) {
			dir := fixture(fx.name)
			opts := Options{}
			opts.Read.Since, opts.Read.Until = fx.since, fx.until
			want, err := Analyze(context.Background(), []string{dir}, opts)
			must(t, err)
			var files []string
			must(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
					files = append(files, p)
				}
				return err
			}))
			slices.Reverse(files)
			early, err := NewEarly(context.Background(), opts)
			must(t, err)
			for i, f := range files {
				if i%3 != 1 {
					early.Add(f)
				}
			}
			if len(files) > 0 {
				early.Add(files[0])
			}
			opts.Early = early
			got, err := Analyze(context.Background(), []string{dir}, opts)
			must(t, err)
			if w, g := render(t, report.JSON, want), render(t, report.JSON, got); w != g {
				t.Errorf("the report differs when files are read early:\n%s", lineDiff(w, g))
			}
		})
	}
	t.Run("a file the paths do not name", func(t *testing.T) {
		extra := filepath.Join(fixture("formats"), "ingress-nginx-controller.log")
		if _, err := os.Stat(extra); err != nil {
			t.Skip(err)
		}
		early, err := NewEarly(context.Background(), Options{})
		must(t, err)
		early.Add(extra)
		rep, err := Analyze(context.Background(), []string{fixture("eks-alb-termination-race")}, Options{Early: early})
		must(t, err)
		if !slices.ContainsFunc(rep.Inputs, func(in report.Input) bool { return in.Name == extra }) {
			t.Errorf("the file read early is not among the inputs")
		}
	})
}

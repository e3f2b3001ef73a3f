package pipeline

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/internal/golden"
	"github.com/readygap/readygap/report"
)

// fixture is the path of a folder under fixtures/.
func fixture(name string) string { return filepath.Join("..", "fixtures", name) }

// analyze runs the whole pipeline on paths as every command does.
func analyze(t testing.TB, paths ...string) *report.Report {
	t.Helper()
	rep, err := Analyze(context.Background(), paths, Options{})
	if err != nil {
		t.Fatalf("analyze %v: %v", paths, err)
	}
	return rep
}

// render writes rep in format f.
func render(t testing.TB, f report.Format, rep *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.Write(&b, f, rep); err != nil {
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

// TestAnalyzeFormatsGolden reads one file of each format and compares the JSON
// inputs report with testdata/formats.golden.json (go test -update rewrites it).
func TestAnalyzeFormatsGolden(t *testing.T) {
	out := render(t, report.JSON, analyze(t, fixture("formats")))
	golden.Assert(t, filepath.Join("testdata", "formats.golden.json"), []byte(out))
	for _, f := range []string{"gcp-logging", "alb-access", "alb-healthcheck", "aws-lbc", "ingress-nginx", "k8s-events", "k8s-objects"} {
		if !strings.Contains(out, `"format": "`+f+`"`) {
			t.Errorf("no input reported as %s", f)
		}
	}
}

// TestAnalyzeBadInputs checks that a truncated gzip and a garbage file are
// reported as warnings while the good inputs are still counted.
func TestAnalyzeBadInputs(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	line := `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"` + "\n"
	for i := 0; i < 2000; i++ {
		zw.Write([]byte(line))
	}
	zw.Close()
	half := gz.Bytes()[:gz.Len()/2]
	must(t, os.WriteFile(filepath.Join(dir, "cut.log.gz"), half, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "garbage.bin"), []byte("\x00\x01 this is not a log\nat all \x1b[31m\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "good.log"), []byte(line+line), 0o644))

	rep := analyze(t, dir)
	byName := map[string]report.Input{}
	for _, in := range rep.Inputs {
		byName[filepath.Base(in.Name)] = in
	}
	if got := byName["good.log"].Records; got != 2 {
		t.Errorf("good.log records = %d, want 2", got)
	}
	if cut := byName["cut.log.gz"]; cut.Records == 0 || cut.Records >= 2000 || cut.Format != "alb-access" {
		t.Errorf("cut.log.gz = %+v, want some but not all of 2000 records as alb-access", cut)
	}
	if _, ok := byName["garbage.bin"]; ok {
		t.Errorf("garbage.bin reported as an input")
	}
	warnings := strings.Join(rep.Warnings, "\n")
	for _, want := range []string{"cut.log.gz: truncated or corrupt gzip", "garbage.bin: not in a format readygap reads", "readygap reads gcp-logging, alb-access"} {
		if !strings.Contains(warnings, want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings)
		}
	}
}

func TestAnalyzeTextAndMarkdown(t *testing.T) {
	rep := analyze(t, fixture("formats"))
	out := render(t, report.Text, rep)
	if !strings.Contains(out, "alb-healthcheck") || strings.Contains(out, "\x1b") {
		t.Fatalf("text output lacks a format or has escape codes on a non-terminal:\n%s", out)
	}
	md := render(t, report.Markdown, rep)
	if !strings.Contains(md, "| Input | Format | Records |") || !strings.Contains(md, "| k8s-events | 7 |") {
		t.Fatalf("markdown output:\n%s", md)
	}
}

// savedReports are the fixtures whose JSON report is kept in
// report/testdata/reports/: the report package's tests draw them from
// there, as readygap render draws a saved report, without the pipeline.
var savedReports = []string{"gke-neg-zone-move", "eks-alb-no-gate", "nginx-wrong-probe-port", "eks-alb-termination-race", "nginx-probe-fixed", "eks-alb-large", "hostile-content"}

// TestSavedReports compares the JSON report of each of savedReports, and of
// the synthetic large rollout, with report/testdata/reports/<name>.json (go
// test -update rewrites them).
func TestSavedReports(t *testing.T) {
	for _, name := range savedReports {
		t.Run(name, func(t *testing.T) {
			out := render(t, report.JSON, analyze(t, fixture(name)))
			golden.Assert(t, filepath.Join("..", "report", "testdata", "reports", name+".json"), []byte(out))
		})
	}
	out := render(t, report.JSON, largeRollout(t))
	golden.Assert(t, filepath.Join("..", "report", "testdata", "reports", "large-rollout.json"), []byte(out))
}

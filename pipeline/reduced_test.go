package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/readygap/readygap/report"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
)

// reducibleFixtures are the fixtures whose request logs an engine can
// reduce: every ALB and Google Cloud load balancer fixture, and the
// hand-written file of each format.
func reducibleFixtures(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(fixture(""))
	must(t, err)
	var out []string
	for _, e := range entries {
		if n := e.Name(); e.IsDir() && (strings.HasPrefix(n, "eks-alb-") || strings.HasPrefix(n, "gke-")) {
			out = append(out, n)
		}
	}
	if len(out) < 40 {
		t.Fatalf("found %d ALB and Google LB fixtures; the catalog holds more", len(out))
	}
	return out
}

// splitRequestLogs reads dir and returns its request-log inputs, the rest,
// the inputs that mix requests with other records (a Cloud Logging export
// of both), and the number of requests.
func splitRequestLogs(t *testing.T, dir string) (requests, rest, mixed []string, n int) {
	t.Helper()
	res, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler { return discard{} })
	must(t, err)
	for _, in := range res.Inputs {
		k := in.Kinds[sources.KindRequestLog].Records
		n += k
		switch {
		case k == 0:
			rest = append(rest, in.Name)
		case k != in.Records:
			mixed = append(mixed, in.Name)
			requests = append(requests, in.Name)
		default:
			requests = append(requests, in.Name)
		}
	}
	for _, u := range res.Unread {
		rest = append(rest, u.Name)
	}
	if len(requests) == 0 {
		t.Fatalf("%s has no request log", dir)
	}
	return requests, rest, mixed, n
}

// reduceFixture writes into a new folder the reduced bundle of dir's
// request logs beside copies of its other files (of a Cloud Logging export
// that mixes requests with events, the other entries), and returns the
// folder, the bundle and the number of requests in dir.
func reduceFixture(t *testing.T, dir string) (string, *reduced.Bundle, int) {
	t.Helper()
	requests, rest, mixed, n := splitRequestLogs(t, dir)
	b, err := reduced.Reduce(context.Background(), requests, sources.Options{})
	must(t, err)
	out := t.TempDir()
	must(t, b.WriteFile(filepath.Join(out, "requests"+reduced.Suffix)))
	for _, name := range rest {
		rel, err := filepath.Rel(dir, name)
		must(t, err)
		data, err := os.ReadFile(name)
		must(t, err)
		dst := filepath.Join(out, rel)
		must(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		must(t, os.WriteFile(dst, data, 0o644))
	}
	for _, name := range mixed {
		data, err := os.ReadFile(name)
		must(t, err)
		var others []json.RawMessage
		for _, e := range jsonArray(t, data, 2) {
			if !bytes.Contains(e, []byte(`"httpRequest"`)) {
				others = append(others, e)
			}
		}
		must(t, os.WriteFile(filepath.Join(out, "others-"+filepath.Base(name)), writeArray(others), 0o644))
	}
	return out, b, n
}

// TestReducedBundleSameVerdict reduces the request logs of every ALB and
// Google LB fixture to a bundle and requires, from the bundle and the
// fixture's other files, the verdict of the raw files: every incident,
// cause, window, count, backend and fix, the requests and application
// errors counted, the rollouts.
func TestReducedBundleSameVerdict(t *testing.T) {
	for _, name := range reducibleFixtures(t) {
		t.Run(name, func(t *testing.T) {
			want := analyze(t, fixture(name))
			dir, b, wantRecords := reduceFixture(t, fixture(name))
			got := analyze(t, dir)
			if w, g := verdictOf(t, want), verdictOf(t, got); w != g {
				t.Errorf("verdict from the reduced bundle differs: %s", lineDiff(w, g))
			}
			records := 0
			for _, in := range got.Inputs {
				if strings.Contains(in.Name, reduced.Suffix+": ") {
					records += in.Records
				}
			}
			if records != wantRecords || records == 0 {
				t.Errorf("the bundle lists %d requests; the raw files %d", records, wantRecords)
			}
			if len(b.Seconds) == 0 || len(b.Cells) == 0 {
				t.Errorf("bundle of %d seconds and %d cells", len(b.Seconds), len(b.Cells))
			}
		})
	}
}

// TestReducedBundleRoundTrip requires a bundle read back to be the bundle
// written, byte for byte, and the same rows from the same files whatever
// the number of parse workers.
func TestReducedBundleRoundTrip(t *testing.T) {
	requests, _, _, _ := splitRequestLogs(t, fixture("eks-alb-no-gate"))
	one, err := reduced.Reduce(context.Background(), requests, sources.Options{Workers: 1})
	must(t, err)
	many, err := reduced.Reduce(context.Background(), requests, sources.Options{Workers: 4})
	must(t, err)
	var a, b, c bytes.Buffer
	must(t, one.Write(&a))
	must(t, many.Write(&b))
	if a.String() != b.String() {
		t.Fatalf("one worker and four reduce differently: %s", lineDiff(a.String(), b.String()))
	}
	back, err := reduced.Read(bytes.NewReader(a.Bytes()))
	must(t, err)
	must(t, back.Write(&c))
	if a.String() != c.String() {
		t.Fatalf("read back differs: %s", lineDiff(a.String(), c.String()))
	}
}

// TestReducedBundleRejected requires a bundle of another version, or with
// a row no log can give, to be listed as unread with the reason, never
// read in part: the verdict then cannot rest on it.
func TestReducedBundleRejected(t *testing.T) {
	requests, _, _, _ := splitRequestLogs(t, fixture("eks-alb-no-gate"))
	b, err := reduced.Reduce(context.Background(), requests, sources.Options{})
	must(t, err)
	var good bytes.Buffer
	must(t, b.Write(&good))
	for name, edit := range map[string]func(string) string{
		"schema":     func(s string) string { return strings.Replace(s, reduced.Schema, "readygap-reduced/v9", 1) },
		"ok > total": func(s string) string { return strings.Replace(s, `"ok":22,`, `"ok":23,`, 1) },
		"cell":       func(s string) string { return strings.Replace(s, `"cell":`, `"cell":1`, 1) },
		"kind":       func(s string) string { return strings.Replace(s, `"kind":"no_backend"`, `"kind":"app_error"`, 1) },
		"truncated":  func(s string) string { return s[:len(s)/2] },
		"unknown":    func(s string) string { return strings.Replace(s, `"engine"`, `"engin"`, 1) },
	} {
		t.Run(name, func(t *testing.T) {
			bad := edit(good.String())
			if bad == good.String() {
				t.Fatal("the edit changed nothing")
			}
			f := filepath.Join(t.TempDir(), "x"+reduced.Suffix)
			must(t, os.WriteFile(f, []byte(bad), 0o644))
			rep := analyze(t, f)
			if len(rep.Unread) != 1 || rep.Unread[0].Name != f || rep.Summary.Requests != 0 {
				t.Errorf("unread %+v, %d requests; want the bundle unread and no request", rep.Unread, rep.Summary.Requests)
			}
			if rep.Summary.Verdict != report.VerdictCannotJudge {
				t.Errorf("verdict %q on an unread bundle", rep.Summary.Verdict)
			}
		})
	}
}

// TestReducedBundleBesideRawLogsWarns requires a bundle read beside raw
// logs of its format to warn that they may count twice.
func TestReducedBundleBesideRawLogsWarns(t *testing.T) {
	requests, _, _, _ := splitRequestLogs(t, fixture("eks-alb-no-gate"))
	b, err := reduced.Reduce(context.Background(), requests, sources.Options{})
	must(t, err)
	f := filepath.Join(t.TempDir(), "x"+reduced.Suffix)
	must(t, b.WriteFile(f))
	rep := analyze(t, f, fixture("eks-alb-no-gate"))
	if !slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "count twice") }) {
		t.Errorf("no warning of double counting: %q", rep.Warnings)
	}
	if rep := analyze(t, f, fixture("eks-alb-no-gate")+"/events.json"); slices.ContainsFunc(rep.Warnings, func(w string) bool { return strings.Contains(w, "count twice") }) {
		t.Errorf("a warning of double counting beside events alone: %q", rep.Warnings)
	}
}

// discard is a sources.Handler that keeps nothing: the test reads only
// the inputs' reports.
type discard struct{}

func (discard) Request(*sources.Request)     {}
func (discard) Lifecycle(*sources.Lifecycle) {}
func (discard) Config(*sources.Config)       {}

package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
)

// These tests state what holds for any input rather than for one example:
// the same incident ten years later, in two files, in one, gzip'd, in
// another order, or exported twice, is the same verdict.

// tenYears is ten years' worth of whole days: moving by whole days keeps
// every wall clock, so stamps without a zone move the same in every zone.
const tenYears = 3652 * 24 * time.Hour

// invariantFixtures are fixtures that hold every family of formats between
// them: Cloud Logging, ALB objects and the controller's log, ingress-nginx
// in UTC and in a local zone, Istio's Envoy JSON behind kubectl stamps, events and
// objects in JSON and YAML, and one file of each format (klog, a CloudWatch
// export).
var invariantFixtures = []string{
	"gke-neg-zone-move", "eks-alb-no-gate", "nginx-wrong-probe-port", "nginx-local-time",
	"istio-wrong-probe-port", "formats",
}

// reportJSON analyzes dir and returns the JSON report with dir written as IN.
func reportJSON(t *testing.T, dir string) (string, *report.Report) {
	t.Helper()
	rep := analyze(t, dir)
	var b bytes.Buffer
	must(t, report.Write(&b, report.JSON, rep))
	return strings.ReplaceAll(b.String(), filepath.ToSlash(dir), "IN"), rep
}

// treeYears returns the years of every stamp in the files under dir.
func treeYears(t *testing.T, dir string) map[int]bool {
	t.Helper()
	return shiftTree(t, dir, t.TempDir(), 0).Years
}

// TestShiftedTimesSameReport moves every time in each fixture, in every
// file and ALB object name, ten years forward and ten years back, and
// requires the very same report with its times ten years away: every
// count, verdict, lane and series point. A stamp the shifter missed would
// leave a record ten years from the others, so the shifted files must hold
// no stamp of the original years, and every input's first and last record
// must have moved.
func TestShiftedTimesSameReport(t *testing.T) {
	for _, name := range invariantFixtures {
		base, baseRep := reportJSON(t, fixture(name))
		for _, d := range []time.Duration{tenYears, -tenYears} {
			t.Run(fmt.Sprintf("%s/%+dd", name, d/(24*time.Hour)), func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), name)
				st := shiftTree(t, fixture(name), dir, d)
				if len(st.Kinds) == 0 {
					t.Fatal("no stamp moved")
				}
				for y := range treeYears(t, dir) {
					if st.Years[y] {
						t.Errorf("a stamp of %d is left in the shifted files", y)
					}
				}
				got, rep := reportJSON(t, dir)
				for i, in := range rep.Inputs {
					was := baseRep.Inputs[i]
					if was.First.IsZero() { // objects with no time of their own
						continue
					}
					if in.Records != was.Records || !in.First.Equal(was.First.Add(d)) || !in.Last.Equal(was.Last.Add(d)) {
						t.Errorf("input %s: %d records from %v to %v; want %d from %v to %v", in.Name, in.Records, in.First, in.Last,
							was.Records, was.First.Add(d), was.Last.Add(d))
					}
				}
				back, _, err := shiftStamps([]byte(got), -d)
				must(t, err)
				if string(back) != base {
					t.Errorf("the report moved back by %v differs from the fixture's: %s", -d, lineDiff(base, string(back)))
				}
				if len(baseRep.Incidents) == 0 && name != "formats" {
					t.Errorf("the fixture has no incident to compare")
				}
			})
		}
	}
}

// verdict is what a reader acts on: the counts, the rollouts and each
// incident's cause, window, counts, backends and fixes, without where in
// which file each record was read.
type verdict struct {
	Incidents, FailedRequests, LoggedFailedRequests, HiddenFailures, Requests, AppErrors int
	Changes                                                                              []report.Change
	Rollouts                                                                             []report.Rollout
	Findings                                                                             []finding
}

// finding is an incident without its evidence and timeline, which name
// files and lines.
type finding struct {
	ID, Cause, Variant, Confidence, Rollout, Trigger, Cut string
	Start, End                                            time.Time
	FailedRequests, LoggedFailedRequests, HiddenFailures  int
	StatusCounts                                          map[string]int
	Backends                                              []report.Backend
	Remediation                                           []report.Remediation
}

// verdictOf returns rep's verdict as indented JSON.
func verdictOf(t testing.TB, rep *report.Report) string {
	t.Helper()
	s := rep.Summary
	v := verdict{Incidents: s.Incidents, FailedRequests: s.FailedRequests, LoggedFailedRequests: s.LoggedFailedRequests,
		HiddenFailures: s.HiddenFailures, Requests: s.Requests, AppErrors: s.AppErrors, Changes: s.Changes, Rollouts: rep.Rollouts}
	for _, in := range rep.Incidents {
		v.Findings = append(v.Findings, finding{ID: in.ID, Cause: in.Cause, Variant: in.Variant, Confidence: in.Confidence,
			Rollout: in.Rollout, Trigger: in.Trigger, Cut: in.Cut, Start: in.Start, End: in.End, FailedRequests: in.FailedRequests,
			LoggedFailedRequests: in.LoggedFailedRequests, HiddenFailures: in.HiddenFailures, StatusCounts: in.StatusCounts,
			Backends: in.Backends, Remediation: in.Remediation})
	}
	b, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	// A fix says where each setting was read (file:line): the file's
	// folder and compression are how the test stored it, its line is the
	// verdict's. A rollout step says where it was read the same way. A
	// measurement a fix is sized from names the record it rests on, whose
	// line moves when the test reorders, splits or joins the records: the
	// record's file stays.
	out := readAtStored.ReplaceAllString(string(b), "read at ${1}${2}")
	out = sourceStored.ReplaceAllString(out, `"source": "${1}${2}"`)
	return recordedAtStored.ReplaceAllString(out, "recorded at ${1}:LINE")
}

// sourceStored matches the file a rollout step names as its source, as
// readAtStored does.
var sourceStored = regexp.MustCompile(`"source": "(?:[^"]*/)?([^"/]*?)(?:\.gz)?(:\d+)"`)

// readAtStored matches a file a fix names as read: its folder, its name
// without a .gz suffix (kept), the suffix.
var readAtStored = regexp.MustCompile(`read at (?:[^ ,;)"]*/)?([^ ,;)"/]*?)(?:\.gz)?(:\d+)`)

// recordedAtStored matches a record a fix's measurement names: its folder,
// its file's name without a .gz suffix (kept), its line.
var recordedAtStored = regexp.MustCompile(`recorded at (?:[^ ,;)"]*/)?([^ ,;)"/:]*?)(?:\.gz)?:\d+`)

// sameVerdict analyzes dir and requires the verdict of the fixture name.
func sameVerdict(t *testing.T, name, dir string) *report.Report {
	t.Helper()
	want := analyze(t, fixture(name))
	if len(want.Incidents) == 0 {
		t.Fatalf("%s has no incident to compare", name)
	}
	got := analyze(t, dir)
	if w, g := verdictOf(t, want), verdictOf(t, got); w != g {
		t.Errorf("verdict differs from %s's: %s", name, lineDiff(w, g))
	}
	return got
}

// copyTree copies the files under src into dst, through edit when it is
// not nil: edit returns the files to write instead, by name relative to
// dst; nil to copy the file as it is.
func copyTree(t *testing.T, src, dst string, edit func(rel string, data []byte) map[string][]byte) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files := map[string][]byte{rel: data}
		if edit != nil {
			if out := edit(rel, data); out != nil {
				files = out
			}
		}
		for name, b := range files {
			p := filepath.Join(dst, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)
}

// jsonArray reads a JSON array's elements as they are written.
func jsonArray(t *testing.T, data []byte, least int) []json.RawMessage {
	t.Helper()
	var elems []json.RawMessage
	must(t, json.Unmarshal(data, &elems))
	if len(elems) < least {
		t.Fatalf("only %d elements, want at least %d", len(elems), least)
	}
	return elems
}

// writeArray writes elems as a JSON array, one element a line.
func writeArray(elems []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, e := range elems {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.Write(e)
	}
	b.WriteString("\n]\n")
	return b.Bytes()
}

// TestSplitInputSameVerdict splits a controller log at a line and a Cloud
// Logging export into two arrays, each into two files, and requires the
// verdict of the whole file.
func TestSplitInputSameVerdict(t *testing.T) {
	t.Run("ingress-nginx log", func(t *testing.T) {
		dir := t.TempDir()
		copyTree(t, fixture("nginx-wrong-probe-port"), dir, func(rel string, data []byte) map[string][]byte {
			if rel != "ingress-nginx-controller.log" {
				return nil
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			half := len(lines) / 2
			return map[string][]byte{"controller-1.log": bytes.Join(lines[:half], nil), "controller-2.log": bytes.Join(lines[half:], nil)}
		})
		if rep := sameVerdict(t, "nginx-wrong-probe-port", dir); len(rep.Inputs) != 4 {
			t.Errorf("%d inputs, want the two halves beside events and objects", len(rep.Inputs))
		}
	})
	t.Run("Cloud Logging export", func(t *testing.T) {
		dir := t.TempDir()
		copyTree(t, fixture("gke-neg-zone-move"), dir, func(rel string, data []byte) map[string][]byte {
			if rel != "lb-requests.json" {
				return nil
			}
			elems := jsonArray(t, data, 100)
			half := len(elems) / 3 // not in the middle, where the incident is
			return map[string][]byte{"lb-1.json": writeArray(elems[:half]), "lb-2.json": writeArray(elems[half:])}
		})
		sameVerdict(t, "gke-neg-zone-move", dir)
	})
}

// TestConcatenatedInputsSameVerdict puts every ALB log object of a fixture
// into one file, as one gzip stream of many members (`cat *.log.gz`) and
// as plain text (`zcat *.log.gz`), and requires the verdict of the objects.
func TestConcatenatedInputsSameVerdict(t *testing.T) {
	const name = "eks-alb-no-gate"
	for _, gz := range []bool{true, false} {
		t.Run(fmt.Sprintf("gzip %v", gz), func(t *testing.T) {
			dir := t.TempDir()
			var all []byte
			objects := 0
			copyTree(t, fixture(name), dir, func(rel string, data []byte) map[string][]byte {
				if !strings.HasSuffix(rel, ".log.gz") {
					return nil
				}
				objects++
				if !gz {
					var err error
					data, err = gunzip(data)
					must(t, err)
				}
				all = append(all, data...)
				return map[string][]byte{}
			})
			if objects < 2 {
				t.Fatalf("%d ALB objects", objects)
			}
			file := "alb.log"
			if gz {
				file += ".gz"
			}
			must(t, os.WriteFile(filepath.Join(dir, file), all, 0o644))
			rep := sameVerdict(t, name, dir)
			if !slices.ContainsFunc(rep.Inputs, func(in report.Input) bool { return filepath.Base(in.Name) == file && in.Format == "alb-access" }) {
				t.Errorf("no ALB input %s: %+v", file, rep.Inputs)
			}
		})
	}
}

// TestGzippedInputsSameVerdict gzips every file of two fixtures, as a user
// who compressed a support bundle would, and requires the same verdict.
func TestGzippedInputsSameVerdict(t *testing.T) {
	for _, name := range []string{"nginx-wrong-probe-port", "gke-neg-zone-move"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, fixture(name), dir, func(rel string, data []byte) map[string][]byte {
				if strings.HasPrefix(filepath.Base(rel), ".") {
					return nil
				}
				return map[string][]byte{rel + ".gz": gzipBytes(t, data)}
			})
			rep := sameVerdict(t, name, dir)
			for _, in := range rep.Inputs {
				if !strings.HasSuffix(in.Name, ".gz") || in.Records == 0 {
					t.Errorf("input %s: %d records", in.Name, in.Records)
				}
			}
		})
	}
}

// TestReversedArraySameVerdict reverses the entries of a Cloud Logging
// export (gcloud writes the newest first, the console the oldest) and an
// array of events, and requires the same verdict.
func TestReversedArraySameVerdict(t *testing.T) {
	dir := t.TempDir()
	reversed := 0
	copyTree(t, fixture("gke-neg-zone-move"), dir, func(rel string, data []byte) map[string][]byte {
		switch rel {
		case "lb-requests.json":
			elems := jsonArray(t, data, 100)
			slices.Reverse(elems)
			reversed++
			return map[string][]byte{rel: writeArray(elems)}
		case "k8s-events.json": // kubectl get events -o json's items
			items := jsonArray(t, data, 10)
			slices.Reverse(items)
			reversed++
			return map[string][]byte{rel: writeArray(items)}
		}
		return nil
	})
	if reversed != 2 {
		t.Fatalf("%d files reversed, want 2", reversed)
	}
	sameVerdict(t, "gke-neg-zone-move", dir)
}

// TestCloudLoggingExportTwiceSameCounts passes a Cloud Logging export
// twice, by name beside its folder and as a copy, as a user who exported
// twice or named a file and its folder does: each entry counts once, the
// file named twice is read once and a copy's entries are duplicates.
func TestCloudLoggingExportTwiceSameCounts(t *testing.T) {
	const name = "gke-neg-zone-move"
	export := filepath.Join(fixture(name), "lb-requests.json")
	want := verdictOf(t, analyze(t, fixture(name)))
	dir := t.TempDir()
	copyTree(t, fixture(name), dir, func(rel string, data []byte) map[string][]byte {
		if rel == "lb-requests.json" {
			return map[string][]byte{rel: data, "lb-requests (1).json": data}
		}
		return nil
	})
	for _, paths := range [][]string{{fixture(name), export}, {dir}} {
		rep := analyze(t, paths...)
		if got := verdictOf(t, rep); got != want {
			t.Errorf("%v: verdict differs: %s", paths, lineDiff(want, got))
		}
		dups := 0
		for _, in := range rep.Inputs {
			dups += in.Duplicates
		}
		readOnce := slices.Contains(rep.Warnings, export+": reached twice, read once")
		if len(paths) == 2 && !readOnce || len(paths) == 1 && dups == 0 {
			t.Errorf("%v: %d duplicates, warnings %q", paths, dups, rep.Warnings)
		}
	}
}

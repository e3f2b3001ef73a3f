package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
)

// The end-to-end fuzz target: bytes in three files, the whole analysis,
// every renderer. The adapters' own fuzz targets stop at the parsers, which
// never see a time span, a join or a rendering.
//
//	go test ./report -run '^$' -fuzz '^FuzzAnalyze$' -fuzztime 10m

const (
	// fuzzSeedBytes bounds a seed taken from a fixture file: a window of
	// whole lines from its middle, where the fixtures' rollouts are; the
	// fuzzer mutates small inputs faster.
	fuzzSeedBytes = 16 << 10
	// fuzzAllocBase and fuzzAllocPerByte bound what one analysis and its
	// four renderings may allocate: the seeds allocate at most 6.3 MB, and
	// at most 82 bytes per input byte; a time span or a count that sized
	// something would take gigabytes.
	fuzzAllocBase    = 32 << 20
	fuzzAllocPerByte = 256
)

// fuzzFixtureSeeds returns, for each fixture folder, its load-balancer or
// proxy log, its events and its objects, each cut to fuzzSeedBytes (ALB
// objects joined and decompressed first).
func fuzzFixtureSeeds(f *testing.F) [][3][]byte {
	f.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "fixtures", "*"))
	if err != nil {
		f.Fatal(err)
	}
	var seeds [][3][]byte
	for _, dir := range dirs {
		var lb, events, objects []byte
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if strings.HasSuffix(path, ".gz") {
				if data, err = gunzip(data); err != nil {
					return err
				}
			}
			switch name := d.Name(); {
			case strings.Contains(name, "event"):
				events = data
			case strings.HasSuffix(name, ".yaml") && name != "objects.yaml":
			case name == "objects.yaml":
				objects = data
			default:
				lb = append(lb, data...)
			}
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
		if lb != nil || events != nil {
			seeds = append(seeds, [3][]byte{middleLines(lb, fuzzSeedBytes), middleLines(events, fuzzSeedBytes), middleLines(objects, fuzzSeedBytes)})
		}
	}
	return seeds
}

// middleLines returns at most n bytes of whole lines from the middle of b.
func middleLines(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	from := (len(b) - n) / 2
	if i := bytes.IndexByte(b[from:], '\n'); i >= 0 {
		from += i + 1
	}
	to := min(from+n, len(b))
	if i := bytes.LastIndexByte(b[from:to], '\n'); i >= 0 {
		to = from + i + 1
	}
	return b[from:to]
}

// fuzzSampleSeeds returns every real sample file from other projects.
func fuzzSampleSeeds(f *testing.F) [][]byte {
	f.Helper()
	var seeds [][]byte
	for _, dir := range []string{filepath.Join("..", "sources", "testdata", "samples"), filepath.Join("..", "..", "shared", "reference", "samples")} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if os.IsNotExist(err) && path == dir {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() || d.Name() == "NOTICE" || strings.HasSuffix(d.Name(), ".md") {
				return err
			}
			data, err := os.ReadFile(path)
			if err == nil {
				seeds = append(seeds, data)
			}
			return err
		})
		if err != nil {
			f.Fatal(err)
		}
	}
	return seeds
}

// FuzzAnalyze writes three byte strings to three files (as a load-balancer
// log, events and objects would be), runs the whole analysis on them and
// renders the report in every format, and checks what holds for any input:
// no panic, allocation bounded by the input's size, JSON that decodes back,
// no unsafe character raw in any output, and one script, the report's own,
// in the HTML.
func FuzzAnalyze(f *testing.F) {
	for _, s := range fuzzFixtureSeeds(f) {
		f.Add(s[0], s[1], s[2])
	}
	for _, s := range fuzzSampleSeeds(f) {
		f.Add(s, []byte(nil), []byte(nil))
	}
	dir := f.TempDir()
	paths := []string{filepath.Join(dir, "lb.log"), filepath.Join(dir, "events.json"), filepath.Join(dir, "objects.yaml")}
	f.Fuzz(func(t *testing.T, lb, events, objects []byte) {
		for i, b := range [][]byte{lb, events, objects} {
			if err := os.WriteFile(paths[i], b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		rep, err := Analyze(context.Background(), paths, Options{})
		if err != nil {
			if rep != nil || err.Error() == "" {
				t.Fatalf("error %v with a report", err)
			}
			return
		}
		out := map[report.Format][]byte{}
		for _, format := range report.Formats {
			var b bytes.Buffer
			if err := report.Write(&b, format, rep); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			out[format] = b.Bytes()
		}
		runtime.ReadMemStats(&after)
		size := uint64(len(lb) + len(events) + len(objects))
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > fuzzAllocBase+fuzzAllocPerByte*size {
			t.Fatalf("%d MB allocated for %d bytes of input", alloc>>20, size)
		}
		var back report.Report
		if err := json.Unmarshal(out[report.JSON], &back); err != nil || back.Schema != report.SchemaVersion || len(back.Inputs) != len(rep.Inputs) {
			t.Fatalf("JSON does not decode back (%v):\n%.2000s", err, out[report.JSON])
		}
		for format, b := range out {
			for i, r := range string(b) {
				if r != '\n' && r != '\t' && report.UnsafeRune(r) || r == '\t' && format != report.HTML {
					t.Fatalf("%s holds %U raw at byte %d:\n%.2000s", format, r, i, b)
				}
			}
		}
		if n := bytes.Count(bytes.ToLower(out[report.HTML]), []byte("<script")); n != 1 {
			t.Fatalf("HTML holds %d scripts", n)
		}
		if !slices.ContainsFunc(rep.Inputs, func(in report.Input) bool { return in.Name == paths[0] }) && len(lb) > 0 && len(rep.Warnings) == 0 {
			t.Fatalf("the load-balancer file is neither an input nor a warning: %+v", rep.Inputs)
		}
	})
}

package pipeline

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// noteClock finds the clock times a note names (correlate.Clock's form).
var noteClock = regexp.MustCompile(`\b(\d{2}):(\d{2}):(\d{2})(?:\.(\d{3}))?\b`)

// noteFailedRequests finds the failed requests a note counts.
var noteFailedRequests = regexp.MustCompile(`\b(\d+) failed requests?\b`)

// TestNotesAgreeWithSummary checks, in every fixture, that the summary does
// not contradict the notes: a note that names a time sits on the summary's
// time axis, and a note never counts more failed requests than the summary
// says were read.
func TestNotesAgreeWithSummary(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "fixtures", "*"))
	if err != nil {
		t.Fatal(err)
	}
	type input struct {
		path string
		opts Options
	}
	var inputs []input
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() && filepath.Base(dir) != "manifests" {
			inputs = append(inputs, input{dir, Options{}})
		}
	}
	// A describe table of kubernetes/ingress-gce#1718, whose note is the
	// suspicion of registration lag.
	inputs = append(inputs, input{filepath.Join("..", "sources", "testdata", "samples", "kubectl-describe", "ingress-gce-1718-rows.txt"),
		Options{Read: sources.Options{TableNow: time.Date(2022, 5, 19, 10, 0, 0, 0, time.UTC)}}})
	checked := 0
	for _, in := range inputs {
		dir := in.path
		rep, err := Analyze(t.Context(), []string{dir}, in.opts)
		if err != nil {
			continue // a fixture of inputs that cannot be read at all
		}
		for _, n := range rep.Notes {
			checked++
			s := rep.Summary
			for _, m := range noteClock.FindAllStringSubmatch(n, -1) {
				if s.First.IsZero() || s.Last.IsZero() {
					t.Errorf("%s: a note names %s, the summary has no time axis: %s", dir, m[0], n)
					break
				}
				h, _ := strconv.Atoi(m[1])
				mi, _ := strconv.Atoi(m[2])
				sec, _ := strconv.Atoi(m[3])
				ms, _ := strconv.Atoi(m[4])
				clock := time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second + time.Duration(ms)*time.Millisecond
				ok := false
				for d := s.First.Truncate(24 * time.Hour); !d.After(s.Last); d = d.Add(24 * time.Hour) {
					at := d.Add(clock)
					if !at.Before(s.First.Add(-time.Second)) && !at.After(s.Last.Add(time.Second)) {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s: a note names %s, outside the summary's %s – %s: %s", dir, m[0], s.First, s.Last, n)
				}
			}
			for _, m := range noteFailedRequests.FindAllStringSubmatch(n, -1) {
				if c, _ := strconv.Atoi(m[1]); c > s.Requests {
					t.Errorf("%s: a note counts %d failed requests, the summary %d requests: %s", dir, c, s.Requests, n)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no fixture has a note: the test checks nothing")
	}
	t.Logf("%d notes checked", checked)
}

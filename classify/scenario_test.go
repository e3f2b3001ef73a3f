package classify

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/scenario"
)

// scenarioFile is a scenario file (internal/scenario describes the
// format) read for the rules: its records collected, its expectations
// kept.
type scenarioFile struct {
	*scenario.File
	records *correlate.Collector
}

// parseScenario reads the scenario file at path.
func parseScenario(path string) (*scenarioFile, error) {
	c := correlate.NewCollector()
	f, err := scenario.Parse(path, c)
	if err != nil {
		return nil, err
	}
	return &scenarioFile{File: f, records: c}, nil
}

// check compares the verdicts with the expectations.
func (s *scenarioFile) check(t *testing.T, res *Result) {
	t.Helper()
	verdicts := res.Findings
	next := 0
	last := func() *Finding {
		if next == 0 {
			t.Fatalf("%q follows no `expect incident`", s.Expects)
		}
		return verdicts[next-1]
	}
	for _, e := range s.Expects {
		words := strings.Fields(e)
		switch words[0] {
		case "backend":
			expectBackend(t, last(), scenario.KeyValues(words[1:]))
		case "fix":
			expectFix(t, last(), scenario.KeyValues(words[1:]))
		case "evidence", "no-evidence":
			want, found := strings.Join(words[1:], " "), false
			for _, ev := range last().Evidence {
				found = found || strings.Contains(ev.Note, want)
			}
			if found != (words[0] == "evidence") {
				t.Errorf("evidence of the last incident: %q found %v", want, found)
			}
		case "notes":
			if want, _ := strconv.Atoi(words[1]); len(res.Notes) != want {
				t.Errorf("%d notes %q, want %d", len(res.Notes), res.Notes, want)
			}
		case "note":
			if !strings.Contains(strings.Join(res.Notes, "\n"), strings.Join(words[1:], " ")) {
				t.Errorf("notes %q lack %q", res.Notes, strings.Join(words[1:], " "))
			}
		case "incidents":
			want, _ := strconv.Atoi(words[1])
			if len(verdicts) != want {
				for _, v := range verdicts {
					t.Logf("got %s (%s): %s", v.Cause, v.Confidence, v.Summary)
				}
				t.Fatalf("%d incidents, want %d", len(verdicts), want)
			}
		case "incident":
			if next >= len(verdicts) {
				t.Fatalf("expected incident %d, got only %d", next+1, len(verdicts))
			}
			s.checkIncident(t, next+1, verdicts[next], scenario.KeyValues(words[1:]))
			next++
		default:
			t.Fatalf("unknown expectation %q", e)
		}
	}
}

func (s *scenarioFile) checkIncident(t *testing.T, n int, v *Finding, kv map[string]string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Errorf("incident %d (%s, %s: %s): %s", n, v.Cause, v.Confidence, v.Summary, fmt.Sprintf(format, args...))
	}
	for key, want := range kv {
		switch key {
		case "cause":
			if v.Cause != want {
				fail("cause %s, want %s", v.Cause, want)
			}
		case "confidence":
			if string(v.Confidence) != want {
				fail("confidence %s, want %s", v.Confidence, want)
			}
		case "variant":
			if v.Variant != want {
				fail("variant %q, want %q", v.Variant, want)
			}
		case "failed", "hidden":
			got := v.Window.Failed
			if key == "hidden" {
				got = v.Window.Hidden
			}
			if w, _ := strconv.Atoi(want); got != w {
				fail("%s %d, want %d", key, got, w)
			}
		case "start", "end":
			at, err := s.At(want)
			if err != nil {
				t.Fatal(err)
			}
			got := v.Window.Start
			if key == "end" {
				got = v.Window.End
			}
			if d := got.Sub(at); d < -time.Second || d > time.Second {
				fail("%s %s, want %s ±1 s", key, got.Sub(s.Base), want)
			}
		case "note":
			if !strings.Contains(strings.Join(v.Notes, " "), want) {
				fail("notes %q lack %q", v.Notes, want)
			}
		case "trigger":
			if v.Trigger != want {
				fail("trigger %q, want %q", v.Trigger, want)
			}
		case "step":
			got := "none"
			if v.Step != nil {
				got = fmt.Sprintf("%s@%s", v.Step.Kind, v.Step.Time.Sub(s.Base))
			}
			if got != want {
				fail("step %s, want %s", got, want)
			}
		case "rollout":
			if got := map[bool]string{true: "yes", false: "no"}[v.Rollout != nil]; got != want {
				fail("rollout %s, want %s", got, want)
			}
		case "backends", "fixes", "estimated":
			got := map[string]int{"backends": len(v.Backends), "fixes": len(v.Remediation), "estimated": v.Estimated()}[key]
			if w, err := strconv.Atoi(want); err != nil || got != w {
				fail("%s %d, want %s", key, got, want)
			}
		default:
			t.Fatalf("unknown incident field %q", key)
		}
	}
}

// TestScenarios runs every testdata/*.test file.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.test"))
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test"), func(t *testing.T) {
			s, err := parseScenario(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Expects) == 0 {
				t.Fatal("a scenario must expect something")
			}
			a := correlate.Analyze(correlate.Merge(s.records), correlate.Options{})
			s.check(t, Classify(a))
		})
	}
}

// expectBackend finds the incident's backend by ip (else by pod) and checks
// the other fields given.
func expectBackend(t *testing.T, v *Finding, kv map[string]string) {
	t.Helper()
	var ref *BackendRef
	for i := range v.Backends {
		b := &v.Backends[i]
		if (kv["ip"] != "" && b.IP.String() == kv["ip"]) || (kv["ip"] == "" && b.Pod == kv["pod"]) {
			ref = b
			break
		}
	}
	if ref == nil {
		var have []string
		for _, b := range v.Backends {
			have = append(have, fmt.Sprintf("%s/%s/%s", b.IP, b.Pod, b.Role))
		}
		t.Errorf("%s incident: no backend %v among %v", v.Cause, kv, have)
		return
	}
	for key, want := range kv {
		var got string
		switch key {
		case "ip":
			continue
		case "pod":
			got = ref.Pod
		case "role":
			got = ref.Role.String()
		case "attempts":
			got = strconv.Itoa(ref.Attempts)
		case "requests":
			got = strconv.Itoa(ref.Requests)
		default:
			t.Fatalf("unknown backend field %q", key)
		}
		if got != want {
			t.Errorf("%s incident, backend %s/%s: %s %s, want %s", v.Cause, ref.IP, ref.Pod, key, got, want)
		}
	}
}

// expectFix requires a fix of the incident whose patch holds every
// PATH=VALUE given (and whose title holds the word given as title).
func expectFix(t *testing.T, v *Finding, kv map[string]string) {
	t.Helper()
	for _, f := range v.Remediation {
		leaves := map[string]string{}
		flattenPatch("", map[string]any(f.Patch), leaves)
		all := true
		for key, want := range kv {
			if key == "title" {
				all = all && strings.Contains(f.Title, want)
				continue
			}
			found := false
			for path, got := range leaves {
				if (path == key || strings.HasSuffix(path, "."+key)) && got == want {
					found = true
				}
			}
			all = all && found
		}
		if all {
			return
		}
	}
	for _, f := range v.Remediation {
		leaves := map[string]string{}
		flattenPatch("", map[string]any(f.Patch), leaves)
		t.Logf("fix %q: %v", f.Title, leaves)
	}
	t.Errorf("%s incident: no fix with %v", v.Cause, kv)
}

// flattenPatch writes every leaf of a patch as its dotted path and value.
func flattenPatch(prefix string, v any, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flattenPatch(join(k), x, out)
		}
	case Patch:
		flattenPatch(prefix, map[string]any(v), out)
	case []any:
		for i, x := range v {
			flattenPatch(join(strconv.Itoa(i)), x, out)
		}
	case []string:
		for i, x := range v {
			out[join(strconv.Itoa(i))] = x
		}
	default:
		out[prefix] = fmt.Sprint(v)
	}
}

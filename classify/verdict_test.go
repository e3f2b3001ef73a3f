package classify

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/golden"
	"github.com/readygap/readygap/sources"
)

// A verdict file is the whole classification of one input written out:
// every finding with its window, backends, evidence, fixes (their patches
// as dotted paths), notes and timeline, and the notes below the incident
// thresholds, times as offsets from the start of the data. Comparing it
// with a golden file pins everything a rule decides, not only the numbers
// a scenario names: a changed threshold or branch shows as a diff. After
// an intended change, `go test ./classify -run Verdict -update` rewrites
// the files; review the diff.

// TestScenarioVerdicts compares the verdict of each scenario file with
// testdata/<name>.verdict.
func TestScenarioVerdicts(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.test"))
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".test")
		t.Run(name, func(t *testing.T) {
			s, err := parseScenario(f)
			if err != nil {
				t.Fatal(err)
			}
			a := correlate.Analyze(correlate.Merge(s.records), correlate.Options{})
			golden.Assert(t, filepath.Join("testdata", name+".verdict"), []byte(dumpVerdict(s.Base, Classify(a))))
		})
	}
}

// TestFixtureVerdictFiles compares the verdict of every recreated incident
// with testdata/verdicts/<fixture>.verdict.
func TestFixtureVerdictFiles(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	if len(dirs) < 10 {
		t.Fatalf("found only %d fixtures with a .expected.json", len(dirs))
	}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			if testing.Short() && name == "eks-alb-large" {
				t.Skip("large fixture")
			}
			a, _ := analyzeDir(t, dir)
			first, _ := a.DataSpan()
			golden.Assert(t, filepath.Join("testdata", "verdicts", name+".verdict"), []byte(dumpVerdict(first, Classify(a))))
		})
	}
}

// dumpVerdict writes a classification as text, times relative to base.
func dumpVerdict(base time.Time, res *Result) string {
	var b strings.Builder
	p := func(indent int, format string, args ...any) {
		b.WriteString(strings.Repeat("  ", indent))
		fmt.Fprintf(&b, format, args...)
		b.WriteString("\n")
	}
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.Sub(base).String()
	}
	for i, f := range res.Findings {
		p(0, "incident %d cause=%s variant=%s confidence=%s score=%.3f trigger=%s", i+1, f.Cause, f.Variant, f.Confidence, f.Score, f.Trigger)
		p(1, "summary: %s", f.Summary)
		if w := f.Window; w != nil {
			p(1, "window %s..%s signals %s..%s failed=%d hidden=%d estimated=%d sample=%g active=%s bursts=%d",
				at(w.Start), at(w.End), at(w.SignalStart), at(w.SignalEnd), w.Failed, w.Hidden, f.Estimated(), f.SampleRate, w.Active, w.Bursts)
			p(1, "statuses %s kinds %s", counts(w.StatusCounts), counts(w.Kinds))
			ips := make([]*correlate.IPFailures, 0, len(w.ByIP))
			for _, x := range w.ByIP {
				ips = append(ips, x)
			}
			sort.Slice(ips, func(i, j int) bool { return ips[i].IP.Less(ips[j].IP) })
			for _, x := range ips {
				of := "-"
				if x.Of != nil {
					of = x.Of.Name()
				}
				p(1, "ip %s of=%s role=%s attempts=%d requests=%d %s..%s active=%s kinds %s states %s ports %s",
					x.IP, of, x.Role, x.Attempts, x.Requests, at(x.First), at(x.Last), x.Active, counts(x.Kinds), counts(x.States), counts(x.Ports))
			}
		}
		if r := f.Rollout; r != nil {
			olds := r.OldNames()
			newName := "-"
			if r.New != nil {
				newName = r.New.Name
			}
			p(1, "rollout %s %s/%s %s..%s new=%s old=%s how=%s", r.ID(), r.Namespace, r.Workload, at(r.Start), at(r.End), newName, strings.Join(olds, ","), r.How)
		}
		for _, ref := range f.Backends {
			p(1, "backend %s pod=%s role=%s attempts=%d requests=%d %s..%s why: %s", ref.IP, ref.Pod, ref.Role, ref.Attempts, ref.Requests, at(ref.Start), at(ref.End), ref.Why)
		}
		for _, e := range f.Evidence {
			origin := "fact"
			if e.Origin.File != "" {
				origin = fmt.Sprintf("line %d", e.Origin.Line)
			}
			p(1, "evidence %s %s: %s", at(e.Time), origin, strings.TrimSpace(e.Note+e.Fact))
		}
		for _, fix := range f.Remediation {
			p(1, "fix %s", fix.Title)
			p(2, "why: %s", fix.Why)
			leaves := map[string]string{}
			flattenPatch("", map[string]any(fix.Patch), leaves)
			keys := make([]string, 0, len(leaves))
			for k := range leaves {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				p(2, "%s = %s", k, leaves[k])
			}
		}
		for _, n := range f.Notes {
			p(1, "note: %s", n)
		}
		if r := f.Rate; r != nil {
			p(1, "rate per_hour=%g share=%g hours=%g backends=%d", r.PerHour, r.Share, r.Hours, r.Backends)
		}
		for _, x := range f.Timeouts {
			p(1, "timeout %s = %g s (%s)", x.What, x.Seconds, x.Source)
		}
		for _, e := range f.Timeline {
			what := ""
			switch {
			case e.Event != nil:
				who := e.Event.Pod
				if who == "" && e.Event.IP.IsValid() {
					who = e.Event.IP.String()
				}
				what = fmt.Sprintf("%s %s %s", e.Event.Kind, who, e.Event.Reason)
			case e.Request != nil:
				what = fmt.Sprintf("%d %s %s", e.Request.Status, e.Request.Failure, e.Request.Backend)
			}
			p(1, "timeline %s kind=%s count=%d %s", at(e.Time), e.Kind, e.Count, strings.Join(strings.Fields(what), " "))
		}
	}
	for _, n := range res.Notes {
		p(0, "note: %s", n)
	}
	if b.Len() == 0 {
		return "no incident, no note\n"
	}
	return b.String()
}

// counts writes a map of counts in key order.
func counts[K comparable](m map[K]int) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%v:%d", k, v))
	}
	sort.Strings(parts)
	return "[" + strings.Join(parts, " ") + "]"
}

// TestCheckVerdictFiles compares what the static checks find in every
// manifest of fixtures/manifests, and in the YAML objects of every
// recreated incident, with testdata/checks/<name>.check.
func TestCheckVerdictFiles(t *testing.T) {
	var inputs [][2]string // name, path
	manifests, _ := filepath.Glob(filepath.Join("..", "fixtures", "manifests", "*", "*"))
	for _, m := range manifests {
		inputs = append(inputs, [2]string{filepath.Base(filepath.Dir(m)) + "-" + strings.TrimSuffix(filepath.Base(m), filepath.Ext(m)), m})
	}
	objects, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "*.yaml"))
	for _, o := range objects {
		if strings.Contains(o, string(filepath.Separator)+"manifests"+string(filepath.Separator)) {
			continue
		}
		inputs = append(inputs, [2]string{filepath.Base(filepath.Dir(o)) + "-" + strings.TrimSuffix(filepath.Base(o), ".yaml"), o})
	}
	if len(inputs) < 20 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	// Inputs whose risks are those of an earlier one (the same objects in
	// a fixture and its LB-only copy, or none) share its file: a change
	// that tells them apart finds no file for the later one and fails.
	first := map[string]string{}
	for _, in := range inputs {
		t.Run(in[0], func(t *testing.T) {
			got := dumpRisks(Check(objectsOfPaths(t, in[1])))
			path := filepath.Join("testdata", "checks", in[0]+".check")
			if twin, ok := first[got]; ok {
				if _, err := os.Stat(path); err == nil {
					if *golden.Update {
						if err := os.Remove(path); err != nil {
							t.Fatal(err)
						}
						return
					}
					t.Errorf("%s repeats %s.check: remove it (go test -update does)", path, twin)
				}
				return
			}
			first[got] = in[0]
			golden.Assert(t, path, []byte(got))
		})
	}
}

// dumpRisks writes the risks the static checks found, in their order.
func dumpRisks(risks []*Risk) string {
	var b strings.Builder
	obj := func(c *sources.Config) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf("%s %s/%s (line %d)", c.Kind, c.Namespace, c.Name, c.Origin.Line)
	}
	for _, r := range risks {
		fmt.Fprintf(&b, "%s %s workload=%s object=%s via=%s\n", r.RuleID(), r.Severity, obj(r.Workload), obj(r.Object), obj(r.Via))
		fmt.Fprintf(&b, "  title: %s\n  reason: %s\n", r.Title, r.Reason)
		for _, fix := range r.Fixes {
			fmt.Fprintf(&b, "  fix %s\n    why: %s\n", fix.Title, fix.Why)
			leaves := map[string]string{}
			flattenPatch("", map[string]any(fix.Patch), leaves)
			keys := make([]string, 0, len(leaves))
			for k := range leaves {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, "    %s = %s\n", k, leaves[k])
			}
		}
	}
	if b.Len() == 0 {
		return "no risk\n"
	}
	return b.String()
}

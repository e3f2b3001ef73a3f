package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
)

const source = `package p

import "time"

// Tuning values.
const (
	gap     = 5 * time.Second
	window  = time.Minute
	share   = 0.6
	few     = 3
	many    = 64
	name    = "x"
	neg     = -2
)

type kind int

const (
	kindA kind = iota
	kindB
)

func (k *kind) over(d time.Duration, n int) bool {
	const local = 10
	if d < gap && n >= local {
		return n == 2 ||
			d > window
	}
	return (n <= few) != (d >= gap)
}
`

func TestFindMutants(t *testing.T) {
	ms, err := findMutants("p/p.go", []byte(source), false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Func+" "+m.String())
	}
	want := []string{
		"const p/p.go:7: gap = 5 * time.Second -> gap = (5 * time.Second) * 2",
		"const p/p.go:7: gap = 5 * time.Second -> gap = (5 * time.Second) / 2",
		"const p/p.go:8: window = time.Minute -> window = (time.Minute) * 2",
		"const p/p.go:8: window = time.Minute -> window = (time.Minute) / 2",
		"const p/p.go:9: share = 0.6 -> share = 0.6 * 2",
		"const p/p.go:9: share = 0.6 -> share = 0.6 / 2",
		"const p/p.go:10: few = 3 -> few = 4",
		"const p/p.go:10: few = 3 -> few = 2",
		"const p/p.go:11: many = 64 -> many = 64 * 2",
		"const p/p.go:11: many = 64 -> many = 64 / 2",
		"const p/p.go:13: neg = -2 -> neg = -1",
		"const p/p.go:13: neg = -2 -> neg = -3",
		"kind.over p/p.go:24: local = 10 -> local = 10 * 2",
		"kind.over p/p.go:24: local = 10 -> local = 10 / 2",
		"kind.over p/p.go:25: d < gap -> d <= gap",
		"kind.over p/p.go:25: n >= local -> n > local",
		"kind.over p/p.go:26: n == 2 -> n != 2",
		"kind.over p/p.go:27: d > window -> d >= window",
		"kind.over p/p.go:29: (n <= few) != (d >= gap) -> (n <= few) == (d >= gap)",
		"kind.over p/p.go:29: n <= few -> n < few",
		"kind.over p/p.go:29: d >= gap -> d > gap",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	logical, err := findMutants("p/p.go", []byte(source), true)
	if err != nil {
		t.Fatal(err)
	}
	var swaps []string
	for _, m := range logical {
		if m.Kind == "logical" {
			swaps = append(swaps, m.String())
		}
	}
	if len(swaps) != 2 || swaps[0] != "p/p.go:25: d < gap && n >= local -> d < gap || n >= local" {
		t.Errorf("logical mutants %q", swaps)
	}
}

func TestApplyKeepsLines(t *testing.T) {
	ms, err := findMutants("p/p.go", []byte(source), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		out := string(m.apply([]byte(source)))
		if strings.Count(out, "\n") != strings.Count(source, "\n") {
			t.Errorf("%s moves lines", m)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		if !strings.Contains(strings.Join(strings.Fields(out), " "), m.Mutated) {
			t.Errorf("%s: the mutated file lacks %q", m, m.Mutated)
		}
	}
}

func TestInstrument(t *testing.T) {
	ms, err := findMutants("p/p.go", []byte(source), false)
	if err != nil {
		t.Fatal(err)
	}
	var sites []mutant
	for i, m := range ms {
		if m.Kind == "compare" || m.Func == "const" {
			m.id = i
			sites = append(sites, m)
		}
	}
	out := string(instrument([]byte(source), sites))
	for _, want := range []string{
		"\tzzMutantOriggap     = 5 * time.Second\n",
		"\tzzMutantOrigfew     = 3\n",
		"var gap = zzMutantPick(0, 1, zzMutantOriggap, (zzMutantOriggap) * 2, (zzMutantOriggap) / 2)",
		"var few = zzMutantPick(6, 7, zzMutantOrigfew, 4, 2)",
		"var share = zzMutantPick(4, 5, zzMutantOrigshare, (zzMutantOrigshare) * 2, (zzMutantOrigshare) / 2)",
		"\tconst local = 10\n",
		"if zzMutantLSS(14, d, gap) && zzMutantGEQ(15, n, local) {",
		"return zzMutantFlip(16, n == 2) ||\n\t\t\tzzMutantGTR(17, d, window)",
		"return zzMutantFlip(18, (zzMutantLEQ(19, n, few)) != (zzMutantGEQ(20, d, gap)))",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("instrumented source lacks %q:\n%s", want, out)
		}
	}
	// Every line stays where it was; the variables come after the last.
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[24], "\tif zzMutantLSS(14, d, gap)") || lines[30] != "" || !strings.HasPrefix(lines[31], "var gap =") {
		t.Errorf("instrumenting moves lines:\n%s", out)
	}
	// The instrumented file and the helper type-check together: the
	// ordered comparisons' operands infer the helper's type parameter.
	fset := token.NewFileSet()
	var files []*ast.File
	for name, src := range map[string]string{"p.go": out, "zz.go": fmt.Sprintf(schemaHelper, "p")} {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("p", fset, files, nil); err != nil {
		t.Errorf("the instrumented package does not type-check: %v", err)
	}
}

// TestInstrumentOneOfAConstant: a run that selects one mutant of a
// constant (-run, -sample, or the other listed as equivalent) still
// instruments the constant, and the unselected one keeps its value.
func TestInstrumentOneOfAConstant(t *testing.T) {
	ms, err := findMutants("p/p.go", []byte(source), false)
	if err != nil {
		t.Fatal(err)
	}
	var sites []mutant
	for i, m := range ms {
		// The halved gap only, and the decremented few only.
		if m.Func == "const" && (m.Mutated == "gap = (5 * time.Second) / 2" || m.Mutated == "few = 2") {
			m.id = i + 1
			sites = append(sites, m)
		}
	}
	if len(sites) != 2 {
		t.Fatalf("selected %d mutants, want 2", len(sites))
	}
	out := string(instrument([]byte(source), sites))
	for _, want := range []string{
		"\tzzMutantOriggap     = 5 * time.Second\n",
		"var gap = zzMutantPick(2, -1, zzMutantOriggap, (zzMutantOriggap) / 2, zzMutantOriggap)",
		"var few = zzMutantPick(8, -1, zzMutantOrigfew, 2, zzMutantOrigfew)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("instrumented source lacks %q:\n%s", want, out)
		}
	}
}

func TestSchemaErrorLines(t *testing.T) {
	out := "# example.com/p\ncorrelate/join.go:12:7: in call to zzMutantLSS, T (type untyped float) does not match\n/abs/classify/x.go:3:1: other\n"
	got := schemaErrorLines(out)
	if len(got) != 2 || !got["join.go:12"] || !got["x.go:3"] {
		t.Errorf("error lines %v", got)
	}
}

func TestExclusions(t *testing.T) {
	ex, err := exclusions([]byte("# comment\n\ncorrelate/a.go f: a < b -> a <= b # equal values sort alike\n"))
	if err != nil || ex["correlate/a.go f: a < b -> a <= b"] != "equal values sort alike" || len(ex) != 1 {
		t.Errorf("exclusions %v, %v", ex, err)
	}
	if _, err := exclusions([]byte("correlate/a.go f: a < b -> a <= b\n")); err == nil {
		t.Error("an exclusion without a reason is accepted")
	}
}

func TestSample(t *testing.T) {
	ms := make([]mutant, 10)
	for i := range ms {
		ms[i].Line = i
	}
	got := sample(ms, 3)
	if len(got) != 3 || got[0].Line != 0 || got[1].Line != 3 || got[2].Line != 6 {
		t.Errorf("sample %v", got)
	}
	if len(sample(ms, 0)) != 10 || len(sample(ms, 20)) != 10 {
		t.Error("sample 0 or more than all must keep all")
	}
}

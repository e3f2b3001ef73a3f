package main

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A mutant does not need a build of its own: every comparison of a package
// is compiled once as a call that behaves as the original unless the
// environment variable schemaVar names its id, and every package-level
// constant becomes a variable that takes its original value or one of its
// two mutants' (a mutant schema). Then each mutant costs one run of the
// test binaries, not one compile and link of every package that imports
// the file. A constant some code needs as a constant (an array length,
// another constant's value, an untyped operand of another type) fails the
// build; the build is tried again without it, and its mutants get builds
// of their own.

// schemaVar is the environment variable that selects the active mutant.
const schemaVar = "MUTATE_ACTIVE"

// noMutant is an id no mutant has: it stands for a constant's mutant that
// was not selected, whose pick keeps the original value.
const noMutant = -1

// schemaPrefix begins the names the schema adds to a package; no
// identifier of the mutated packages begins so.
const schemaPrefix = "zzMutant"

// schemaHelper is the file added to each instrumented package. flip
// negates == and != when active; the ordered comparisons take both
// operands once, so that no operand with an effect runs twice.
const schemaHelper = `package %s

import (
	"cmp"
	"os"
	"strconv"
)

var zzMutantActive, _ = strconv.Atoi(os.Getenv("` + schemaVar + `"))

func zzMutantFlip(id int, v bool) bool { return v != (id == zzMutantActive) }

func zzMutantPick[T any](up, down int, v, x, y T) T {
	switch zzMutantActive {
	case up:
		return x
	case down:
		return y
	}
	return v
}

func zzMutantLSS[T cmp.Ordered](id int, a, b T) bool {
	if id == zzMutantActive {
		return a <= b
	}
	return a < b
}

func zzMutantLEQ[T cmp.Ordered](id int, a, b T) bool {
	if id == zzMutantActive {
		return a < b
	}
	return a <= b
}

func zzMutantGTR[T cmp.Ordered](id int, a, b T) bool {
	if id == zzMutantActive {
		return a >= b
	}
	return a > b
}

func zzMutantGEQ[T cmp.Ordered](id int, a, b T) bool {
	if id == zzMutantActive {
		return a > b
	}
	return a >= b
}
`

// instrument rewrites a file's source with each comparison mutant given
// as a call of the schema and each constant mutated renamed, with a
// variable of its name after the last line that picks its value; every line
// stays where it was (compile errors then name the comparison that does not
// fit, see schemaErrorLines).
func instrument(src []byte, all []mutant) []byte {
	var sites []mutant
	var vars []string
	// A constant's mutants, one or both of its two (a run may select one):
	// it is renamed once and picked once.
	var consts [][]mutant
	for _, m := range all {
		switch {
		case m.Kind == "compare":
			sites = append(sites, m)
		case m.Kind == "const":
			if n := len(consts); n > 0 && consts[n-1][0].nameAt == m.nameAt {
				consts[n-1] = append(consts[n-1], m)
				continue
			}
			consts = append(consts, []mutant{m})
		}
	}
	for _, ms := range consts {
		m := ms[0]
		orig := schemaPrefix + "Orig" + m.name
		ids := [2]int{noMutant, noMutant}
		vals := [2]string{orig, orig}
		for i, x := range ms[:min(len(ms), 2)] {
			ids[i], vals[i] = x.id, scaled(orig, x)
		}
		site := m
		site.xs, site.xe, site.ys, site.ye = m.nameAt, m.nameTo, m.nameTo, m.nameTo
		sites = append(sites, site)
		vars = append(vars, fmt.Sprintf("var %s = %sPick(%d, %d, %s, %s, %s)", m.name, schemaPrefix, ids[0], ids[1], orig, vals[0], vals[1]))
	}
	sort.Slice(sites, func(i, j int) bool {
		if sites[i].xs != sites[j].xs {
			return sites[i].xs < sites[j].xs
		}
		return sites[i].ye > sites[j].ye
	})
	// render writes src[from:to] with the sites inside it replaced;
	// a site's operands are rendered in turn, for nested comparisons.
	var render func(b *strings.Builder, from, to int)
	render = func(b *strings.Builder, from, to int) {
		pos := from
		for _, s := range sites {
			if s.xs < pos || s.ye > to {
				continue
			}
			b.Write(src[pos:s.xs])
			switch {
			case s.Kind == "const":
				b.WriteString(schemaPrefix + "Orig" + s.name)
			case s.op == token.EQL || s.op == token.NEQ:
				fmt.Fprintf(b, "%sFlip(%d, ", schemaPrefix, s.id)
				render(b, s.xs, s.xe)
				b.Write(src[s.xe:s.ys])
				render(b, s.ys, s.ye)
				b.WriteString(")")
			default:
				fmt.Fprintf(b, "%s%s(%d, ", schemaPrefix, opName(s.op), s.id)
				render(b, s.xs, s.xe)
				b.WriteString(", ")
				// The operator's line breaks stay, so that the lines after
				// it keep their numbers.
				b.WriteString(strings.Repeat("\n", strings.Count(string(src[s.xe:s.ys]), "\n")))
				render(b, s.ys, s.ye)
				b.WriteString(")")
			}
			pos = s.ye
		}
		b.Write(src[pos:to])
	}
	var b strings.Builder
	render(&b, 0, len(src))
	for _, v := range vars {
		b.WriteString("\n" + v + "\n")
	}
	return []byte(b.String())
}

// scaled is a constant's mutated value written from the renamed original.
func scaled(orig string, m mutant) string {
	if m.scale == "" {
		return m.repl
	}
	return "(" + orig + ")" + m.scale
}

// opName names an ordered comparison as the schema's functions do.
func opName(op token.Token) string {
	return map[token.Token]string{token.LSS: "LSS", token.LEQ: "LEQ", token.GTR: "GTR", token.GEQ: "GEQ"}[op]
}

// compileError matches a compiler message's position: file.go:line:col.
var compileError = regexp.MustCompile(`([^\s:]+\.go):(\d+):\d+: `)

// schemaErrorLines reads the positions of a failed build's errors, as
// "file.go:line" by the file's base name, to leave those comparisons out
// of the schema (an operand whose type only the original operator accepts,
// such as two untyped constants of different kinds).
func schemaErrorLines(out string) map[string]bool {
	lines := map[string]bool{}
	for _, m := range compileError.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		lines[fmt.Sprintf("%s:%d", baseName(m[1]), n)] = true
	}
	return lines
}

func baseName(path string) string {
	return path[strings.LastIndexAny(path, `/\`)+1:]
}

// maxSchemaBuilds bounds the builds spent leaving out comparisons the
// instrumented code cannot hold; each drops every one its errors name.
const maxSchemaBuilds = 20

// schema is the comparison mutants compiled into one set of test binaries.
type schema struct {
	// bin holds the test binaries, by testPkg.Bin.
	bin string
	// took is how long their tests take with no mutant active.
	took time.Duration
}

// buildSchema gives the comparison mutants among ms an id, instruments
// their files, builds every test package with them into dir and checks
// that with no mutant active the tests pass. A comparison the instrumented
// build rejects gets id 0 back, to be tested with a build of its own.
func buildSchema(c config, root, dir string, ms []mutant, files map[string][]byte, tests []testPkg) (*schema, error) {
	next := 1
	for i := range ms {
		// Only package-level constants can become variables.
		if ms[i].Kind == "compare" || ms[i].Kind == "const" && ms[i].Func == "const" {
			ms[i].id = next
			next++
		}
	}
	bin := filepath.Join(dir, "bin")
	for attempt := 1; ; attempt++ {
		overlay, err := writeSchema(root, dir, ms, files)
		if err != nil {
			return nil, err
		}
		failed := ""
		for _, t := range tests {
			args := []string{"test", "-c", "-vet=off", "-overlay", overlay, "-o", filepath.Join(bin, t.Bin), t.Path}
			if o, out := command(root, c.timeout+killGrace, nil, "go", args...); o != survived {
				failed = out
				break
			}
		}
		if failed == "" {
			break
		}
		bad := schemaErrorLines(failed)
		dropped := 0
		for i := range ms {
			m := &ms[i]
			if m.id > 0 && m.Kind == "const" && regexp.MustCompile(`\b`+m.name+`\b`).MatchString(failed) {
				m.id = 0 // a constant that code needs as one
				dropped++
			}
			for l := m.Line; m.Kind == "compare" && m.id > 0 && l <= m.lastLine; l++ {
				if bad[fmt.Sprintf("%s:%d", baseName(m.File), l)] {
					m.id = 0
					dropped++
				}
			}
		}
		if dropped == 0 || attempt == maxSchemaBuilds {
			return nil, fmt.Errorf("the instrumented packages do not build:\n%s", firstLines(failed, 10))
		}
	}
	r := runTests(c, bin, nil, nil, tests)
	if r.out != survived {
		return nil, fmt.Errorf("the instrumented packages fail their tests with no mutant active:\n%s", r.why)
	}
	return &schema{bin: bin, took: r.took}, nil
}

// writeSchema writes the instrumented files and each package's helper into
// dir and returns the overlay that puts them in place.
func writeSchema(root, dir string, ms []mutant, files map[string][]byte) (string, error) {
	sites := map[string][]mutant{}
	for _, m := range ms {
		if m.id > 0 {
			sites[m.File] = append(sites[m.File], m)
		}
	}
	replace := map[string]string{}
	n := 0
	write := func(src []byte) (string, error) {
		n++
		path := filepath.Join(dir, fmt.Sprintf("%d.go", n))
		return path, os.WriteFile(path, src, 0o644)
	}
	for file, ss := range sites {
		abs := filepath.Join(root, filepath.FromSlash(file))
		path, err := write(instrument(files[file], ss))
		if err != nil {
			return "", err
		}
		replace[abs] = path
		helper := filepath.Join(filepath.Dir(abs), "zz_mutant_schema.go")
		if _, ok := replace[helper]; ok {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, files[file], parser.PackageClauseOnly)
		if err != nil {
			return "", err
		}
		if replace[helper], err = write([]byte(fmt.Sprintf(schemaHelper, f.Name.Name))); err != nil {
			return "", err
		}
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

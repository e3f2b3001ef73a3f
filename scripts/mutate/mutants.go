package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// smallInt is the largest magnitude of an integer constant mutated by ±1
// rather than ×2 and ÷2: for 1, 2 and 3 a step of one is already a factor
// of two or less (1→0 and 2, 2→1 and 3, 3→2 and 4), and a finer step than
// ×2 (which would leave 2→3 and 3→4 untried).
const smallInt = 3

// descWidth is how much of an operand a mutant's description shows: enough
// to find the line, short enough to read the list.
const descWidth = 40

// mutant is one change to one file.
type mutant struct {
	// File is the path relative to the module root, with slashes.
	File string
	Line int
	// Func is the enclosing function ("Recv.Name" or "Name"), or "const"
	// for a package-level declaration: with the description it keys the
	// exclusion list, which survives edits that move lines.
	Func string
	// Original and Mutated describe the change for a reader.
	Original, Mutated string
	// Kind is "const", "compare" or "logical".
	Kind string

	start, end int    // byte offsets of the replaced span
	repl       string // what replaces it
	pkg        string // the import path of the file's package

	// A comparison's operator and the spans of its operands, for the
	// schema that compiles every comparison mutant into one binary; id
	// is its number there, 0 when it is tested by its own build.
	op             token.Token
	xs, xe, ys, ye int
	id             int
	// lastLine is the line the mutated expression ends on.
	lastLine int
	// A constant's name and where it is written, and how the mutant
	// changes its value: scale (" * 2", " / 2") applied to it, or, for a
	// small integer, repl alone.
	name           string
	nameAt, nameTo int
	scale          string
}

// Key identifies a mutant in the exclusion list.
func (m mutant) Key() string {
	return fmt.Sprintf("%s %s: %s -> %s", m.File, m.Func, m.Original, m.Mutated)
}

// String is how a mutant is reported.
func (m mutant) String() string {
	return fmt.Sprintf("%s:%d: %s -> %s", m.File, m.Line, m.Original, m.Mutated)
}

// apply returns src with the mutant's change made. Only the span changes,
// so every other line keeps its number.
func (m mutant) apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.repl))
	out = append(out, src[:m.start]...)
	out = append(out, m.repl...)
	return append(out, src[m.end:]...)
}

// swaps maps each mutated operator to its mutant.
var swaps = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
}

// logicalSwaps are the optional && ↔ || mutants.
var logicalSwaps = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}

// findMutants lists the mutants of one file: every numeric constant (×2
// and ÷2, or ±1 for small integers) and every comparison (< ↔ <=, > ↔ >=,
// == ↔ !=), and with logical && ↔ ||.
func findMutants(name string, src []byte, logical bool) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	tf := fset.File(f.Pos())
	off := func(p token.Pos) int { return tf.Offset(p) }
	text := func(n ast.Node) string { return string(src[off(n.Pos()):off(n.End())]) }
	var out []mutant
	add := func(fn string, n ast.Node, kind, orig, mut string, start, end int, repl string) {
		m := mutant{File: name, Line: tf.Line(n.Pos()), Func: fn, Kind: kind,
			Original: orig, Mutated: mut, start: start, end: end, repl: repl, lastLine: tf.Line(n.End())}
		if b, ok := n.(*ast.BinaryExpr); ok {
			m.op = b.Op
			m.xs, m.xe, m.ys, m.ye = off(b.X.Pos()), off(b.X.End()), off(b.Y.Pos()), off(b.Y.End())
		}
		out = append(out, m)
	}
	var walk func(fn string, n ast.Node)
	walk = func(fn string, root ast.Node) {
		ast.Inspect(root, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n == root {
					return true
				}
				if n.Body != nil {
					walk(funcName(n), n.Body)
				}
				return false
			case *ast.GenDecl:
				if n.Tok != token.CONST {
					return true
				}
				for _, spec := range n.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, v := range vs.Values {
						if !numeric(v) || i >= len(vs.Names) {
							continue
						}
						name := vs.Names[i].Name
						orig := name + " = " + oneLine(text(v))
						for _, m := range constMutants(v, text(v)) {
							add(fn, v, "const", orig, name+" = "+oneLine(m.repl), off(v.Pos()), off(v.End()), m.repl)
							c := &out[len(out)-1]
							c.name, c.nameAt, c.nameTo, c.scale = name, off(vs.Names[i].Pos()), off(vs.Names[i].End()), m.scale
						}
					}
				}
				return false
			case *ast.BinaryExpr:
				swap, ok := swaps[n.Op]
				kind := "compare"
				if !ok && logical {
					swap, ok = logicalSwaps[n.Op]
					kind = "logical"
				}
				if ok {
					left := oneLineTail(text(n.X))
					right := oneLine(string(src[off(n.OpPos)+len(n.Op.String()) : off(n.End())]))
					add(fn, n, kind, left+" "+n.Op.String()+" "+right, left+" "+swap.String()+" "+right,
						off(n.OpPos), off(n.OpPos)+len(n.Op.String()), swap.String())
				}
			}
			return true
		})
	}
	walk("const", f)
	return out, nil
}

// constMutant is one replacement of a constant's value: repl, which is the
// value scaled by scale, or a small integer's neighbour (scale "").
type constMutant struct{ repl, scale string }

// constMutants are the replacements of a constant's value expression.
func constMutants(v ast.Expr, src string) []constMutant {
	if n, ok := intLiteral(v); ok && n >= -smallInt && n <= smallInt {
		return []constMutant{{strconv.FormatInt(n+1, 10), ""}, {strconv.FormatInt(n-1, 10), ""}}
	}
	if lit, ok := v.(*ast.BasicLit); ok {
		src = lit.Value
	} else {
		src = "(" + src + ")"
	}
	return []constMutant{{src + " * 2", " * 2"}, {src + " / 2", " / 2"}}
}

// intLiteral returns the value of an integer literal, possibly negated.
func intLiteral(v ast.Expr) (int64, bool) {
	neg := int64(1)
	if u, ok := v.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, v = -1, u.X
	}
	lit, ok := v.(*ast.BasicLit)
	if !ok || lit.Kind != token.INT {
		return 0, false
	}
	n, err := strconv.ParseInt(lit.Value, 0, 64)
	return neg * n, err == nil
}

// timeUnits are the time package's duration constants.
var timeUnits = map[string]bool{"Nanosecond": true, "Microsecond": true, "Millisecond": true, "Second": true, "Minute": true, "Hour": true}

// numeric reports whether a constant's value is a number: it holds a
// numeric literal or a time unit, and no string, rune or iota.
func numeric(v ast.Expr) bool {
	num, other := false, false
	ast.Inspect(v, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			if n.Kind == token.INT || n.Kind == token.FLOAT {
				num = true
			} else {
				other = true
			}
		case *ast.Ident:
			if n.Name == "iota" {
				other = true
			}
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "time" && timeUnits[n.Sel.Name] {
				num = true
			}
		}
		return true
	})
	return num && !other
}

// funcName is "Recv.Name" for a method, "Name" for a function.
func funcName(f *ast.FuncDecl) string {
	if f.Recv == nil || len(f.Recv.List) == 0 {
		return f.Name.Name
	}
	t := f.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + f.Name.Name
	}
	return f.Name.Name
}

// oneLine collapses an expression's white space and keeps its head.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > descWidth {
		s = strings.ToValidUTF8(s[:descWidth-3], "") + "..."
	}
	return s
}

// oneLineTail collapses an expression's white space and keeps its tail,
// the part next to an operator that follows it.
func oneLineTail(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > descWidth {
		s = "..." + strings.ToValidUTF8(s[len(s)-descWidth+3:], "")
	}
	return s
}

// exclusions reads the equivalent-mutant list: one "KEY # reason" a line,
// where KEY is a mutant's Key; blank lines and lines starting with # are
// comments. A line without a reason is an error: every exclusion says why.
func exclusions(data []byte) (map[string]string, error) {
	ex := map[string]string{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(line))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		key, reason, ok := strings.Cut(s, " # ")
		if !ok || strings.TrimSpace(reason) == "" {
			return nil, fmt.Errorf("line %d: no reason after \" # \"", i+1)
		}
		ex[strings.TrimSpace(key)] = strings.TrimSpace(reason)
	}
	return ex, nil
}

package sources

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/valyala/fastjson"
)

// This file says, for an input in no format readygap reads, which format
// it comes closest to and why it was not taken. Each format knows its own
// near misses (the adapters' NearMiss methods, asked in the format table's
// order), on lines whose damage from being pasted (typographic quotes, a
// table's borders, non-breaking spaces) is undone first (pasted.go), as
// when such an input is read.

// nearScore says how close an input comes to a format.
type nearScore int

const (
	// nearNone: nothing like the format.
	nearNone nearScore = iota
	// nearShape: the shape of the format (JSON objects with a status, a
	// line with a quoted request) without what makes a record of it.
	nearShape
	// nearFields: the first line is a record of the format up to one field.
	nearFields
	// nearKnown: a known other rendering of the format's data (kubectl
	// describe, a kubectl table, gcloud's YAML), or a line of the format
	// once a known damage is undone (a cut time, typographic quotes).
	nearKnown
)

// nearSampleLines bounds the lines a near miss is looked for in.
const nearSampleLines = 10

// nearSample is the start of an input in no known format.
type nearSample struct {
	// lines are the first non-blank lines, wrappers taken off, trimmed.
	lines [][]byte
	// elem is the first JSON element when the input starts with one (it
	// may be cut short); nil otherwise.
	elem []byte
}

// first returns the first line, nil for none.
func (s *nearSample) first() []byte {
	if len(s.lines) == 0 {
		return nil
	}
	return s.lines[0]
}

// nearMisser is an adapter that knows how inputs that are almost in its
// format look.
type nearMisser interface {
	// NearMiss says how close the input s comes to the format and why it
	// was not taken: the first mismatch, in a few words a user acts on.
	NearMiss(s *nearSample) (nearScore, string)
}

// errUnknownFormat is returned for an input in no format readygap reads,
// with the format it comes closest to when one comes close.
type errUnknownFormat struct {
	// closest is that format, "" when none comes close; why says what
	// kept the input from being read as it, howTo how to export it right.
	closest Format
	why     string
	howTo   string
}

func (e errUnknownFormat) Error() string {
	if e.closest == "" {
		return "not in a format readygap reads"
	}
	return fmt.Sprintf("not in a format readygap reads; closest: %s, not taken: %s; export it as %s", e.closest, e.why, e.howTo)
}

// nearestFormat looks at the start of an input detection could not read
// and returns the error naming the closest format. lines are the line
// adapters detection tried (Options.lineAdapterSet).
func nearestFormat(head []byte, complete bool, lines []lineAdapter) errUnknownFormat {
	s := newNearSample(head, complete)
	best, bestScore, bestWhy := Format(""), nearNone, ""
	consider := func(f Format, score nearScore, why string) {
		if score > bestScore {
			best, bestScore, bestWhy = f, score, why
		}
	}
	// The formats judge the lines as they are and, when a pasted line's
	// damage could be undone (pasted.go), as repaired: a table's tabs are
	// its shape, a pasted line's are not.
	samples := []*nearSample{s}
	if r := s.repaired(); r != nil {
		samples = append(samples, r)
	}
	for _, s := range samples {
		for _, f := range formatTable {
			var a any = f.json
			switch {
			case f.line != nil:
				a = f.line
			case f.table != nil:
				a = f.table
			}
			if n, ok := a.(nearMisser); ok {
				score, why := n.NearMiss(s)
				consider(f.ID, score, why)
			}
		}
	}
	if best == "" {
		return errUnknownFormat{}
	}
	return errUnknownFormat{closest: best, why: bestWhy, howTo: formatInfo(best).HowToGet}
}

// newNearSample takes the first lines and JSON element of head.
func newNearSample(head []byte, complete bool) *nearSample {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	s := &nearSample{}
	var scratch []byte
	for _, l := range textSample(head, complete) {
		if len(s.lines) == nearSampleLines {
			break
		}
		var inner []byte
		inner, _, scratch = unwrapLine(l, scratch)
		if inner = bytes.TrimSpace(inner); len(inner) > 0 {
			s.lines = append(s.lines, bytes.Clone(inner))
		}
	}
	body := bytes.TrimLeft(head, " \t\r\n")
	if len(body) > 0 && (body[0] == '{' || body[0] == '[') {
		sp := newJSONSplitter(bytes.NewReader(body), 64<<10)
		elem, _, err := sp.Next()
		if err != nil {
			elem = sp.elem
		}
		s.elem = bytes.Clone(elem)
	}
	return s
}

// repaired returns s with the damage of pasted lines undone
// (repairLine), nil when no line shows any.
func (s *nearSample) repaired() *nearSample {
	r := &nearSample{elem: s.elem, lines: make([][]byte, 0, len(s.lines))}
	damaged := false
	for _, l := range s.lines {
		rl, done := repairLine(l)
		if rl = bytes.TrimSpace(rl); len(rl) > 0 {
			r.lines = append(r.lines, rl)
		}
		damaged = damaged || done != 0
	}
	if !damaged {
		return nil
	}
	return r
}

// jsonKeys returns the top-level keys of a JSON object, lower-cased and
// without `_`, `-` and `@` (see nginxJSONKey), and the object; for an
// element cut short, the keys found by their shape and nil.
func jsonKeys(elem []byte) (map[string]bool, *fastjson.Object) {
	keys := map[string]bool{}
	var p fastjson.Parser
	if v, err := p.ParseBytes(elem); err == nil {
		if o, err := v.Object(); err == nil {
			o.Visit(func(k []byte, _ *fastjson.Value) { keys[string(nginxJSONKey(k, nil))] = true })
			return keys, o
		}
		return keys, nil
	}
	for _, m := range jsonKeyShape.FindAllSubmatch(elem, -1) {
		keys[string(nginxJSONKey(m[1], nil))] = true
	}
	return keys, nil
}

// jsonKeyShape finds keys in JSON text.
var jsonKeyShape = regexp.MustCompile(`"([^"\\]{1,64})"\s*:`)

// jsonTimeKeys are time keys, normalised as by jsonKeys: any of them
// would give a JSON access line its time.
var jsonTimeKeys = []string{"time", "timestamp", "starttime", "ts", "datetime", "date", "timeiso8601", "timelocal",
	"msec", "timeiso", "timestr", "timemsec", "eventtime", "receivetimestamp"}

// hasAnyKey reports whether keys holds one of names.
func hasAnyKey(keys map[string]bool, names ...string) bool {
	for _, n := range names {
		if keys[n] {
			return true
		}
	}
	return false
}

// jsonElem returns the JSON object a sample starts with: its first
// element, or its first line when that is an object; nil otherwise.
func (s *nearSample) jsonElem() []byte {
	if s.elem != nil && len(s.elem) > 0 && s.elem[0] == '{' {
		return s.elem
	}
	if f := s.first(); len(f) > 0 && f[0] == '{' {
		return f
	}
	return nil
}

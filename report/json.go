package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// renderJSON writes the report as the versioned JSON contract. Text keeps
// every character the inputs held, but the ones a reader must never get raw
// (see unsafeRune) are written as \u escapes, which decode to the same text:
// encoding/json already escapes C0 controls and U+2028/U+2029, not DEL, C1
// controls or bidirectional overrides.
func renderJSON(w io.Writer, rep *Report) error { return writeIndentedJSON(w, rep) }

// writeIndentedJSON writes v as indented JSON with the unsafe runes
// escaped (see renderJSON), laid out as json.Indent lays it out with two
// spaces. The encoder's compact document is indented and escaped on its way
// to w (jsonIndenter, jsonEscaper): a report of 100 000 inputs is 20 MB of
// JSON, and an indented copy and an escaped one were most of the peak
// memory.
func writeIndentedJSON(w io.Writer, v any) error {
	esc := &jsonEscaper{w: w}
	buf := bufio.NewWriterSize(esc, jsonWriteBuffer)
	if err := json.NewEncoder(&jsonIndenter{w: buf}).Encode(v); err != nil {
		return err
	}
	if err := buf.Flush(); err != nil {
		return err
	}
	return esc.flush()
}

// jsonWriteBuffer is the size of the writes of the indented JSON.
const jsonWriteBuffer = 64 << 10

// jsonIndent is the indentation of one level of the JSON documents.
const jsonIndent = "  "

// jsonIndenter writes compact JSON to w indented as json.Indent(dst, src,
// "", jsonIndent) would: each element on its own line, a space after a
// colon, empty objects and arrays as {} and []. The compact document may
// come in any number of writes.
type jsonIndenter struct {
	w                            *bufio.Writer
	depth                        int
	inString, escaped, needsLine bool
}

// Write implements io.Writer.
func (d *jsonIndenter) Write(p []byte) (int, error) {
	for _, c := range p {
		if d.needsLine && c != '}' && c != ']' {
			d.needsLine = false
			d.depth++
			d.newline()
		}
		switch {
		case d.inString:
			switch {
			case d.escaped:
				d.escaped = false
			case c == '\\':
				d.escaped = true
			case c == '"':
				d.inString = false
			}
			d.w.WriteByte(c)
		case c == '"':
			d.inString = true
			d.w.WriteByte(c)
		case c == '{' || c == '[':
			d.needsLine = true // or the empty {} and []
			d.w.WriteByte(c)
		case c == ',':
			d.w.WriteByte(c)
			d.newline()
		case c == ':':
			d.w.WriteString(": ")
		case c == '}' || c == ']':
			if d.needsLine {
				d.needsLine = false
			} else {
				d.depth--
				d.newline()
			}
			d.w.WriteByte(c)
		default:
			d.w.WriteByte(c)
		}
	}
	return len(p), nil
}

// newline ends a line and indents the next one to the current depth.
func (d *jsonIndenter) newline() {
	d.w.WriteByte('\n')
	for range d.depth {
		d.w.WriteString(jsonIndent)
	}
}

// jsonEscaper writes encoded JSON to w with the unsafe runes escaped (see
// escapeUnsafeJSON); a rune that one write splits from the next is held
// back until the next.
type jsonEscaper struct {
	w    io.Writer
	held []byte
}

// Write implements io.Writer.
func (e *jsonEscaper) Write(p []byte) (int, error) {
	n := len(p)
	if len(e.held) > 0 {
		p = append(e.held, p...)
		e.held = nil
	}
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	e.held = append(e.held, p[cut:]...)
	if _, err := e.w.Write(escapeUnsafeJSON(p[:cut])); err != nil {
		return 0, err
	}
	return n, nil
}

// flush writes what Write held back: nothing after a whole document, which
// is valid UTF-8.
func (e *jsonEscaper) flush() error {
	if len(e.held) == 0 {
		return nil
	}
	_, err := e.w.Write(e.held)
	e.held = nil
	return err
}

// escapeUnsafeJSON rewrites the unsafe runes of an encoded JSON document as
// \uXXXX escapes: DEL and every unsafe rune past ASCII, which encoding/json
// writes raw (it escapes the C0 controls itself). Outside strings JSON holds
// only printable ASCII, so every such rune is inside a string, where the
// escape means the same character.
func escapeUnsafeJSON(doc []byte) []byte {
	first := -1
	for i := 0; i < len(doc); {
		r, size := utf8.DecodeRune(doc[i:])
		if jsonRaw(r) {
			first = i
			break
		}
		i += size
	}
	if first < 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+64)
	out = append(out, doc[:first]...)
	for i := first; i < len(doc); {
		r, size := utf8.DecodeRune(doc[i:])
		if jsonRaw(r) {
			out = appendJSONEscape(out, r)
		} else {
			out = append(out, doc[i:i+size]...)
		}
		i += size
	}
	return out
}

// appendJSONEscape appends r as a JSON \u escape: a character past U+FFFF
// (a tag character, a variation selector of the supplementary planes) as
// its UTF-16 surrogate pair, the only form JSON has for it (RFC 8259 §7).
func appendJSONEscape(out []byte, r rune) []byte {
	if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
		return fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

// jsonRaw says whether r is an unsafe rune that encoding/json writes raw:
// DEL, the C1 controls and the invisible characters (it escapes the C0
// controls and the line separators itself).
func jsonRaw(r rune) bool { return r >= 0x7f && UnsafeRune(r) }

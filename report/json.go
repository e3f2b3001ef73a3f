package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// renderJSON writes the report as the versioned JSON contract. Text keeps
// every character the inputs held, but the ones a reader must never get raw
// (see unsafeRune) are written as \u escapes, which decode to the same text:
// encoding/json already escapes C0 controls and U+2028/U+2029, not C1
// controls or bidirectional overrides.
func renderJSON(w io.Writer, rep *Report) error { return writeIndentedJSON(w, rep) }

// writeIndentedJSON writes v as indented JSON with the unsafe runes
// escaped (see renderJSON).
func writeIndentedJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeUnsafeJSON(buf.Bytes()))
	return err
}

// escapeUnsafeJSON rewrites the unsafe runes of an encoded JSON document as
// \uXXXX escapes. Outside strings JSON holds only ASCII, so every such rune
// is inside a string, where the escape means the same character.
func escapeUnsafeJSON(doc []byte) []byte {
	first := -1
	for i := 0; i < len(doc); {
		r, size := utf8.DecodeRune(doc[i:])
		if r >= 0x80 && unsafeRune(r) {
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
		if r >= 0x80 && unsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, doc[i:i+size]...)
		}
		i += size
	}
	return out
}

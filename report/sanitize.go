package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// UnsafeRune reports whether r must never reach a reader raw: control
// characters (C0, DEL and C1, including ESC, which starts terminal escape
// sequences), the line and paragraph separators, and every character
// Unicode draws as nothing or as a blank where it is not expected
// (invisibleRunes), among them the bidirectional controls, which reorder
// the text around them so that a log line reads as something else, and the
// zero-width and filler characters that make one pod name or path look
// like another.
func UnsafeRune(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7f
	}
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.In(r, invisibleRunes...)
}

// invisibleRunes are the characters that render as nothing, or as a blank
// a reader takes for nothing: Unicode's Default_Ignorable_Code_Point
// property (UAX #44) without its exceptions, which is
//   - category Cf, the format characters: the bidirectional controls
//     (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), the soft
//     hyphen U+00AD, the zero-width space, non-joiner and joiner
//     (U+200B–U+200D), the word joiner and invisible operators
//     (U+2060–U+2064), the byte order mark U+FEFF, the Mongolian vowel
//     separator U+180E and the tag characters (U+E0001, U+E0020–U+E007F);
//   - the variation selectors (U+180B–U+180F, U+FE00–U+FE0F,
//     U+E0100–U+E01EF), which change how the character before them is drawn;
//   - Other_Default_Ignorable_Code_Point: the Hangul fillers (U+115F, U+1160,
//     U+3164, U+FFA0), the combining grapheme joiner U+034F and the rest of
//     the tag block (U+E0000–U+E0FFF).
//
// Category Cf also holds visible marks (the Arabic number sign U+0600, the
// Egyptian hieroglyph format controls): they are shown escaped too, since a
// log line has no business holding them.
var invisibleRunes = []*unicode.RangeTable{unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point}

// Sanitize makes untrusted log text safe to print on a terminal, in
// Markdown or in HTML: unsafe characters (see unsafeRune) and invalid UTF-8
// are shown as \xNN or \u{NNNN} instead of being written raw.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || UnsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case UnsafeRune(r):
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// sanitizeLines sanitizes each line of a block of text, keeping the line breaks.
func sanitizeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Sanitize(l)
	}
	return strings.Join(lines, "\n")
}

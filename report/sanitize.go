package report

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// unsafeRune reports whether r must never reach a reader raw: control
// characters (C0, DEL and C1, including ESC, which starts terminal escape
// sequences), the line and paragraph separators, and the bidirectional
// controls (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069), which
// reorder the text around them so that a log line reads as something else.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Bidi_Control, r)
}

// Sanitize makes untrusted log text safe to print on a terminal, in
// Markdown or in HTML: unsafe characters (see unsafeRune) and invalid UTF-8
// are shown as \xNN or \u{NNNN} instead of being written raw.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
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
		case unsafeRune(r):
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

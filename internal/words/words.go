// Package words holds the few wording helpers that the rules, the report's
// builder and its renderers share, so that each is written once: a count
// with its noun, and the pods an IP may have been.
package words

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Plural renders n with a noun in singular or plural: "1 file", "3 files".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// MaxNamedAlike bounds the pods a text names when an IP may have been any
// of them (a backend's why, a lane's hover text): a few names read at a
// glance, the rest are counted (the JSON report lists every one).
const MaxNamedAlike = 3

// SomePods names the first MaxNamedAlike of the pods an IP may have been
// and counts the rest: "a, b, c and 22 other pods".
func SomePods(names []string) string {
	if len(names) <= MaxNamedAlike {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:MaxNamedAlike], ", ") + " and " + Plural(len(names)-MaxNamedAlike, "other pod")
}

// Percent renders a share as a percentage for people: "12 %", "0.42 %".
func Percent(f float64) string {
	if f*100 >= 10 {
		return fmt.Sprintf("%.0f %%", f*100)
	}
	return fmt.Sprintf("%.2g %%", f*100)
}

// Capitalized returns s with its first letter in upper case, for a label
// that begins a line or a list item ("the ALB's idle timeout" → "The
// ALB's idle timeout").
func Capitalized(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Or returns s, or alt when s is empty.
func Or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// SameDay reports whether a and b fall on one UTC day.
func SameDay(a, b time.Time) bool {
	return a.UTC().Format(time.DateOnly) == b.UTC().Format(time.DateOnly)
}

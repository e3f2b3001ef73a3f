// Package words holds the few wording helpers that the rules, the report's
// builder and its renderers share, so that each is written once: a count
// with its noun, and the pods an IP may have been.
package words

import (
	"fmt"
	"strings"
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

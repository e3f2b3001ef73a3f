// Package words holds the few wording helpers that the rules, the report's
// builder and its renderers share, so that each is written once: a count
// with its noun, and the pods an IP may have been.
package words

import (
	"fmt"
	"strconv"
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

// SameDay reports whether a and b fall on one UTC day.
func SameDay(a, b time.Time) bool {
	return a.UTC().Format(time.DateOnly) == b.UTC().Format(time.DateOnly)
}

// RoundSpan renders a duration for people: 37 s, 4.5 s, 12 min, 2 h 5 min.
func RoundSpan(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < 2*time.Minute:
		return strconv.Itoa(int(d.Round(time.Second).Seconds())) + " s"
	case d < 2*time.Hour:
		return strconv.Itoa(int(d.Round(time.Minute).Minutes())) + " min"
	case d < 72*time.Hour:
		d = d.Round(time.Minute)
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return strconv.Itoa(int(d.Round(24*time.Hour).Hours()/24)) + " days"
}

// FirstTime is the first non-zero time of ts.
func FirstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// MaxTime is the later of a and b.
func MaxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Bytes renders a size for people in binary units, labelled as such:
// "512 B", "2.0 KiB", "16.0 MiB", "1.5 GiB", "3.2 TiB".
func Bytes(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n) / (1 << 10)
	i := 0
	for f >= 1<<10 && i < len(units)-1 {
		f /= 1 << 10
		i++
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

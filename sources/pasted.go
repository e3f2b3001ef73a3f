package sources

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// This file undoes the damage a log line suffers when it is pasted rather
// than exported: into an issue, a chat, a wiki or a ticket, or copied out
// of a log viewer's table. The damages are the "pasted" envelope's: an
// input is read through it when more of its lines are read repaired than
// as they are, and the input's report says how many lines were repaired
// and how. Near-miss detection (nearmiss.go) looks at repaired lines too.

// damage is a set of the ways a line was changed on its way to a file, one
// bit per row of lineDamages.
type damage uint8

// lineDamage is a way a log line is changed on its way to a file.
type lineDamage struct {
	// name says what was repaired, in a few words (for the warning).
	name string
	// repair undoes the damage in line; ok is false when line shows none.
	repair func(line []byte) (repaired []byte, ok bool)
}

// typographicQuotes replaces the quotes word processors, chat tools and
// wikis put in place of ASCII ones.
var typographicQuotes = strings.NewReplacer("“", `"`, "”", `"`, "„", `"`, "‟", `"`, "″", `"`, "‘", "'", "’", "'")

// lineDamages are the damages the pasted envelope undoes, in the order it
// undoes them: the cell of a table row is taken once its quotes and spaces
// are plain.
var lineDamages = []lineDamage{
	{"non-breaking spaces",
		func(line []byte) ([]byte, bool) {
			r := bytes.ReplaceAll(line, []byte("\u00a0"), []byte(" "))
			return r, len(r) != len(line)
		}},
	{"typographic quotes",
		func(line []byte) ([]byte, bool) {
			r := typographicQuotes.Replace(string(line))
			return []byte(r), r != string(line)
		}},
	{"a table row",
		func(line []byte) ([]byte, bool) {
			if !viewerRow.Match(line) {
				return nil, false
			}
			// The log line is the widest cell.
			var widest []byte
			for _, c := range tableCells.Split(string(line), -1) {
				if c = strings.TrimSpace(c); len(c) > len(widest) {
					widest = []byte(c)
				}
			}
			return widest, len(widest) > 0
		}},
	{"doubled spaces",
		func(line []byte) ([]byte, bool) {
			if !bytes.Contains(line, []byte("  ")) {
				return nil, false
			}
			return collapseSpaces(line), true
		}},
}

// viewerRow matches a row of a viewer's table: a border at either end, a
// `|` or `│` between spaces, or a tab. A bare `|` inside a word (Istio's
// `outbound|8000||host`) is no border.
var viewerRow = regexp.MustCompile(`^\s*[|│]|[|│]\s*$|\s[|│]\s|\t`)

// tableCells splits a table row: `|` and `│` borders, tabs.
var tableCells = regexp.MustCompile(`(^|\s)[|│](\s|$)|\s*\t\s*|^\s*[|│]|[|│]\s*$`)

// collapseSpaces returns line with each run of spaces made one space. A
// space doubled inside a quoted field (a user agent's) is made one too:
// rarer than a paste's, and said in the warning.
func collapseSpaces(line []byte) []byte {
	out := make([]byte, 0, len(line))
	for i, c := range line {
		if c == ' ' && i > 0 && line[i-1] == ' ' {
			continue
		}
		out = append(out, c)
	}
	return out
}

// repairLine undoes every damage lineDamages finds in line, in order, and
// says which it found.
func repairLine(line []byte) ([]byte, damage) {
	if !mayBeDamaged(line) {
		return line, 0
	}
	var done damage
	for i, d := range lineDamages {
		if r, ok := d.repair(line); ok {
			line, done = r, done|1<<i
		}
	}
	return line, done
}

// mayBeDamaged answers at once for the lines of every input detection
// tries the envelope on: a line with no byte of a damage has none.
func mayBeDamaged(line []byte) bool {
	for i, c := range line {
		switch {
		case c >= utf8.RuneSelf, c == '|', c == '\t':
			return true
		case c == ' ' && i > 0 && line[i-1] == ' ':
			return true
		}
	}
	return false
}

// pastedEnvelope is the "pasted" envelope: the damages of lineDamages,
// undone. It carries no time.
type pastedEnvelope struct{}

// Unwrap implements lineEnvelope: a line with none of the damages is not
// in the envelope.
func (pastedEnvelope) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	r, done := repairLine(line)
	if done == 0 {
		return nil, time.Time{}, scratch, false
	}
	return r, time.Time{}, scratch, true
}

// repairCounts counts, per damage, the lines of an input it was undone in.
type repairCounts [8]int

// add counts the damages of one line.
func (c *repairCounts) add(d damage) {
	for i := range lineDamages {
		if d&(1<<i) != 0 {
			c[i]++
		}
	}
}

// warning says what was repaired in how many lines; "" for nothing.
func (c *repairCounts) warning() string {
	var parts []string
	for i, d := range lineDamages {
		if c[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s in %d", d.name, c[i]))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "lines repaired before reading, as pasted text loses the log's shape (" + strings.Join(parts, ", ") +
		" lines); export the log itself to read it as written"
}

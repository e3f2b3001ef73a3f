package sources

import (
	"bytes"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// sternEnvelope takes off what stern's default output template puts in
// front of each line: `{{.PodName}} {{.ContainerName}} `, with
// `{{.Namespace}} ` first when it follows several namespaces (stern
// cmd/cmd.go generateTemplate), names holds how many names there are. On
// a terminal, or with `--color always`, each name is wrapped in an SGR
// colour sequence and `--highlight` matches in the message are too: every
// `ESC [ ... m` sequence of the line is taken off. stern's own time
// (`--timestamps`, `--timestamps=default`) is an RFC 3339 time that
// unwrapLine takes off after this; `--timestamps=short` (`01-02 15:04:05`,
// no year and no zone) is taken off here and gives no time.
type sternEnvelope struct {
	names int
}

// Unwrap returns the message after the names.
func (s sternEnvelope) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	if len(line) == 0 || !isNameByte(line[0]) && line[0] != 0x1b {
		return nil, time.Time{}, scratch, false
	}
	if bytes.IndexByte(line, 0x1b) >= 0 {
		scratch = stripSGR(scratch[:0], line)
		line = scratch
	}
	rest := line
	for i := 0; i < s.names; i++ {
		sp := bytes.IndexByte(rest, ' ')
		if sp < 0 || !isName(rest[:sp]) {
			return nil, time.Time{}, scratch, false
		}
		rest = rest[sp+1:]
	}
	if sternShortTime(rest) {
		rest = rest[len(sternShortLayout)+1:]
	}
	return rest, time.Time{}, scratch, true
}

// sternShortLayout is the layout of `stern --timestamps=short`.
const sternShortLayout = "01-02 15:04:05"

// sternShortTime reports whether b starts with a short stern time and a space.
func sternShortTime(b []byte) bool {
	n := len(sternShortLayout)
	if len(b) <= n || b[n] != ' ' {
		return false
	}
	if b[2] != '-' || b[5] != ' ' || b[8] != ':' || b[11] != ':' {
		return false
	}
	ok := true
	month, day := lex.FixedDigits(b[0:2], &ok), lex.FixedDigits(b[3:5], &ok)
	hour, minute, second := lex.FixedDigits(b[6:8], &ok), lex.FixedDigits(b[9:11], &ok), lex.FixedDigits(b[12:14], &ok)
	// A leap year admits 02-29: the year is not written.
	return ok && lex.ValidDate(2024, month, day) && lex.ValidClock(hour, minute, second)
}

// stripSGR appends line to dst without its SGR sequences (`ESC [`, digits
// and semicolons, `m`): the colours of stern and of other terminal tools.
// An ESC that does not start such a sequence is kept.
func stripSGR(dst, line []byte) []byte {
	for {
		i := bytes.IndexByte(line, 0x1b)
		if i < 0 {
			return append(dst, line...)
		}
		dst = append(dst, line[:i]...)
		j := i + 1
		if j < len(line) && line[j] == '[' {
			j++
			for j < len(line) && (line[j] >= '0' && line[j] <= '9' || line[j] == ';') {
				j++
			}
			if j < len(line) && line[j] == 'm' {
				line = line[j+1:]
				continue
			}
		}
		dst = append(dst, line[i])
		line = line[i+1:]
	}
}

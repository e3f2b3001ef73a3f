package sources

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// kubectlEvents reads the table `kubectl get events` prints, in every
// column set since kubectl 1.8 (pkg/printers printEvent and its
// predecessors), and that of `kubectl events`:
//
//	LAST SEEN   TYPE      REASON      OBJECT                    MESSAGE
//	2m30s       Warning   Unhealthy   pod/web-7c9d8f6b5-x2k4q   Readiness probe failed: ...
//
// `-o wide` adds SUBOBJECT, SOURCE, and after MESSAGE the FIRST SEEN,
// COUNT and NAME columns; `-A` puts NAMESPACE first, `--output-watch-events`
// EVENT. Older servers printed `LAST SEEN  FIRST SEEN  COUNT  NAME  KIND ...`
// (≤ 1.11) or `... REASON  KIND  MESSAGE` (1.12–1.13). Cells before MESSAGE
// are cut at the header's column starts (checked, and cut at gaps of two
// spaces when a wider cell shifted the row); cells after it, which hold
// no spaces, from the right. A line that is no row is the rest of the
// previous one, wrapped by a terminal. Ages are anchored by --now, by the
// creation time an event's NAME carries (client-go names an event
// `<object>.<hex UnixNano>`) against its FIRST SEEN age, or read as order-only.
type kubectlEvents struct{}

// Format implements tableAdapter.
func (kubectlEvents) Format() Format { return FormatKubectlEvents }

// eventsHeader matches the header of a `kubectl get events` table.
var eventsHeader = regexp.MustCompile(`^(?:(?:EVENT|NAMESPACE)\s{2,})*(?:LAST SEEN|LASTSEEN)\s{2,}`)

// MatchTable implements tableAdapter: the first line is the header.
func (kubectlEvents) MatchTable(lines [][]byte) bool {
	for _, l := range lines {
		if t := strings.TrimSpace(string(l)); t != "" {
			return eventsHeader.MatchString(t)
		}
	}
	return false
}

// eventsColumns are the columns of one header, with where each starts.
type eventsColumns struct {
	names  []string
	starts []int
	// message is the index of MESSAGE; the columns after it hold no spaces.
	message int
}

// headerColumns reads a header line: its names (two-word names kept
// whole) and their starts.
func headerColumns(h string) (eventsColumns, bool) {
	var c eventsColumns
	for i := 0; i < len(h); {
		for i < len(h) && h[i] == ' ' {
			i++
		}
		if i == len(h) {
			break
		}
		j := gapIndex(h[i:], 2)
		end := len(h)
		if j >= 0 {
			end = i + j
		}
		c.names = append(c.names, h[i:end])
		c.starts = append(c.starts, i)
		i = end
	}
	c.message = -1
	for k, n := range c.names {
		if n == "MESSAGE" {
			c.message = k
		}
	}
	return c, c.message > 0
}

// eventsRow reads one row against the header's columns.
func (c *eventsColumns) row(text string) (tableRow, bool) {
	after := len(c.names) - c.message - 1
	// The columns after MESSAGE, from the right.
	rest := text
	tail := make([]string, after)
	for k := after - 1; k >= 0; k-- {
		rest = strings.TrimRight(rest, " ")
		i := strings.LastIndexByte(rest, ' ')
		if i < 0 {
			return tableRow{}, false
		}
		tail[k], rest = rest[i+1:], rest[:i]
	}
	rest = strings.TrimRight(rest, " ")
	cells, ok := c.byOffsets(rest)
	if !ok {
		if cells = splitCells(rest, 2, c.message+1); len(cells) != c.message+1 {
			return tableRow{}, false
		}
	}
	row := tableRow{count: 1}
	set := func(name, v string) bool {
		v = strings.TrimSpace(v)
		switch name {
		case "LAST SEEN", "LASTSEEN":
			a, ok := parseKubeSeries(v)
			if !ok {
				return false
			}
			row.age.last, row.age.count = a.last, a.count
			if a.count > 1 {
				row.age.first = a.first
			}
		case "FIRST SEEN", "FIRSTSEEN":
			a, ok := parseKubeAge(v)
			if !ok {
				return false
			}
			row.age.first = a
		case "COUNT":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return false
			}
			row.count = n
		case "TYPE":
			if !isEventType(v) {
				return false
			}
			row.typ = v
		case "REASON":
			if !eventReason(v) {
				return false
			}
			row.reason = v
		case "OBJECT":
			k, n, ok := strings.Cut(v, "/")
			if !ok {
				return false
			}
			row.kind, row.name = eventKind(k), n
		case "KIND":
			row.kind = eventKind(v)
		case "NAME":
			// Without OBJECT (≤ 1.11) NAME is the object's; with it,
			// the event's own (see addNameAnchor).
			if !c.has("OBJECT") {
				row.name = v
			}
		case "NAMESPACE":
			row.namespace = v
		case "SOURCE":
			row.source = v
		case "MESSAGE":
			row.message = containerPath.ReplaceAllString(v, "")
		}
		return true
	}
	for k := 0; k <= c.message; k++ {
		if !set(c.names[k], cells[k]) {
			return tableRow{}, false
		}
	}
	for k, v := range tail {
		if !set(c.names[c.message+1+k], v) {
			return tableRow{}, false
		}
	}
	if row.typ == "" || row.reason == "" {
		return tableRow{}, false
	}
	if row.age.count < row.count {
		row.age.count = row.count
	}
	return row, true
}

// byOffsets cuts the cells up to MESSAGE at the header's column starts;
// not ok when the row is not aligned with the header.
func (c *eventsColumns) byOffsets(s string) ([]string, bool) {
	cells := make([]string, c.message+1)
	for k := 0; k <= c.message; k++ {
		start := c.starts[k]
		if start > len(s) {
			return nil, false
		}
		if start > 0 && s[start-1] != ' ' {
			return nil, false
		}
		end := len(s)
		if k < c.message {
			end = min(c.starts[k+1], len(s))
			if end < len(s) && s[end-1] != ' ' {
				return nil, false
			}
		}
		cells[k] = strings.TrimSpace(s[start:end])
	}
	return cells, true
}

// has reports whether the header has a column.
func (c *eventsColumns) has(name string) bool {
	for _, n := range c.names {
		if n == name {
			return true
		}
	}
	return false
}

// eventNameTime reads the creation time client-go puts in an event's
// name: `<object>.<hex UnixNano>` (tools/record GenerateEventName).
func eventNameTime(name string) (time.Time, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || len(name)-i-1 < 15 || len(name)-i-1 > 16 {
		return time.Time{}, false
	}
	ns, err := strconv.ParseUint(name[i+1:], 16, 64)
	if err != nil || ns > 1<<62 {
		return time.Time{}, false
	}
	return time.Unix(0, int64(ns)).UTC(), true
}

// ParseTable implements tableAdapter.
func (kubectlEvents) ParseTable(lines []tableLine, t *tableRead) {
	var cols eventsColumns
	haveHeader := false
	var rows []*tableRow
	var inferred []tableAnchor
	var pending *tableLine // a line that read as no row, waiting for its continuation
	var last *tableRow     // the row a continuation line adds to
	for i := range lines {
		tl := &lines[i]
		text := strings.TrimRight(expandTabs(string(bytes.TrimRight(tl.text, " "))), " ")
		if eventsHeader.MatchString(strings.TrimSpace(text)) {
			if c, ok := headerColumns(text); ok {
				cols, haveHeader, last = c, true, nil
				if pending != nil {
					t.skip(pending.line, errNotRow.Error())
					pending = nil
				}
				t.passed()
				continue
			}
		}
		if !haveHeader {
			t.skip(tl.line, "a line before the table's header")
			continue
		}
		if pending != nil {
			// The previous line was cut by a terminal: read both as one.
			joined := strings.TrimRight(expandTabs(string(pending.text)), " ") + " " + strings.TrimSpace(text)
			if row, ok := cols.row(joined); ok {
				row.line = pending.line
				rows = append(rows, addNameAnchor(&row, joined, &cols, &inferred))
				last, pending = rows[len(rows)-1], nil
				t.passed()
				continue
			}
			t.skip(pending.line, errNotRow.Error())
			pending = nil
		}
		if row, ok := cols.row(text); ok {
			row.line = tl.line
			rows = append(rows, addNameAnchor(&row, text, &cols, &inferred))
			last = rows[len(rows)-1]
			continue
		}
		if last != nil && cols.message == len(cols.names)-1 && !rowShaped(text, cols.message+1) {
			// MESSAGE is the last column: a line that is no row goes on
			// with the message a terminal cut.
			last.message += " " + strings.TrimSpace(text)
			t.passed()
			continue
		}
		pending = tl
	}
	if pending != nil {
		t.skip(pending.line, errNotRow.Error())
	}
	if len(rows) == 0 {
		return
	}
	a := t.pickAnchor(inferred)
	t.warnAnchor(a)
	for _, r := range rows {
		t.emit(r, a, FormatKubectlEvents)
	}
}

// addNameAnchor adds the anchor a wide row's NAME and FIRST SEEN give:
// the event was created at the time its name carries, FIRST SEEN before
// the table was printed.
func addNameAnchor(row *tableRow, text string, cols *eventsColumns, inferred *[]tableAnchor) *tableRow {
	if !cols.has("NAME") || !cols.has("OBJECT") || !row.age.first.known || len(*inferred) > 0 {
		return row
	}
	f := strings.Fields(text)
	created, ok := eventNameTime(f[len(f)-1])
	if !ok {
		return row
	}
	lo, hi := row.age.first.lo, row.age.first.hi
	*inferred = append(*inferred, tableAnchor{
		at:  created.Add((lo + hi) / 2),
		err: (hi - lo) / 2,
		how: "inferred from the creation time in an event's NAME (" + created.Format(time.RFC3339) + ") and its FIRST SEEN age",
	})
	return row
}

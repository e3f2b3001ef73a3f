package sources

import (
	"bytes"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
	"github.com/valyala/fastjson"
)

// lokiJSONL takes off the JSON line `logcli query --output=jsonl` writes
// for each entry: Go's json.Marshal of a map, so keys sorted, `labels` (an
// object; absent with --no-labels), `line` (the line as Loki stored it)
// and `timestamp` (RFC 3339 with nanoseconds, trailing zeros dropped, in
// the zone of -z) (grafana/loki pkg/logcli/output/jsonl.go). The entry's
// time is the time readygap uses where the line has none of its own.
type lokiJSONL struct{}

// lokiLineKey is the key that holds the line.
var lokiLineKey = []byte(`"line"`)

// Unwrap returns the unescaped line, in scratch, and the entry's time.
func (lokiJSONL) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	if len(line) == 0 || line[0] != '{' || !bytes.Contains(line, lokiLineKey) {
		return nil, time.Time{}, scratch, false
	}
	p := wrapParsers.Get()
	defer wrapParsers.Put(p)
	v, err := p.ParseBytes(line)
	if err != nil {
		return nil, time.Time{}, scratch, false
	}
	lv := v.Get("line")
	if lv == nil || lv.Type() != fastjson.TypeString {
		return nil, time.Time{}, scratch, false
	}
	if l := v.Get("labels"); l != nil && l.Type() != fastjson.TypeObject {
		return nil, time.Time{}, scratch, false
	}
	var t time.Time
	if tb := v.GetStringBytes("timestamp"); tb != nil {
		ts, ok := lex.ParseRFC3339(tb)
		if !ok {
			return nil, time.Time{}, scratch, false
		}
		t = ts
	}
	scratch = append(scratch[:0], lv.GetStringBytes()...)
	return bytes.TrimRight(scratch, "\r\n"), t, scratch, true
}

// lokiDefault takes off what logcli's default output puts in front of a
// line: the entry's time (RFC 3339, whole seconds unless
// --output-timestamp-format says otherwise), a space, the stream's labels
// as Loki's LabelSet.String writes them (`{k="v", k2="v2"}`, values quoted
// by strconv.Quote; `{}` when every label is common to all streams) padded
// with spaces to the widest, a space and the line, trimmed
// (pkg/logcli/output/default.go). Without labels (--no-labels) the line is
// `TIME LINE`, which unwrapLine reads like a `kubectl logs --timestamps` line.
type lokiDefault struct{}

// Unwrap returns the line after the labels and the entry's time.
func (lokiDefault) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	if !wrapMayStart(line) {
		return nil, time.Time{}, scratch, false
	}
	rest, t, ok := wrapSplitStamp(line)
	if !ok || len(rest) < 2 || rest[0] != '{' {
		return nil, time.Time{}, scratch, false
	}
	end := lokiLabelsEnd(rest)
	if end < 0 {
		return nil, time.Time{}, scratch, false
	}
	rest = rest[end:]
	if len(rest) > 0 && rest[0] != ' ' {
		return nil, time.Time{}, scratch, false
	}
	return bytes.TrimLeft(rest, " "), t, scratch, true
}

// lokiLabelsEnd returns the index just after the label set at the start of
// b (`{}` or `{name="value", ...}`, names [a-zA-Z_][a-zA-Z0-9_]*, values Go
// quoted strings), or -1 when b does not start with one. A Fluent Bit
// record behind a time (`{"log":...`) is not a label set: its keys are quoted.
func lokiLabelsEnd(b []byte) int {
	i := 1
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		start := i
		for i < len(b) && (b[i] == '_' || b[i] >= 'a' && b[i] <= 'z' || b[i] >= 'A' && b[i] <= 'Z' || i > start && b[i] >= '0' && b[i] <= '9') {
			i++
		}
		if i == start || i+1 >= len(b) || b[i] != '=' || b[i+1] != '"' {
			return -1
		}
		end := headStringEnd(b, i+1)
		if end < 0 {
			return -1
		}
		i = end
		switch {
		case i < len(b) && b[i] == '}':
			return i + 1
		case i+1 < len(b) && b[i] == ',' && b[i+1] == ' ':
			i += 2
		default:
			return -1
		}
	}
}

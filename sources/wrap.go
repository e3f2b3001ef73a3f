package sources

import (
	"bytes"
	"errors"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
	"github.com/valyala/fastjson"
)

// wrapParsers parses the JSON wrappers around log lines (Fluent Bit records,
// CloudWatch events). Wrapped input is rare next to bare lines, so a pool is
// enough to keep it from allocating a parser per line.
var wrapParsers fastjson.ParserPool

// unwrapLine strips the wrappers that log shippers and viewers put around a
// log line and returns the line as its program wrote it. The layers, outer
// to inner, are:
//
//   - an RFC 3339 time followed by one space or tab: `kubectl logs
//     --timestamps`, a CloudWatch console or CLI text export, a log viewer
//     (`2024-02-12T17:48:48.974+00:00<TAB>`);
//   - a Fluent Bit, Container Insights or Docker json-file record: a JSON object
//     whose `log` key holds the line as a string (a trailing CR/LF of that
//     string is dropped) and whose `time` key, if any, gives the time;
//   - the CRI log prefix `<RFC3339Nano> (stdout|stderr) (F|P) `, either as the
//     whole line's prefix (a node's /var/log/containers file, possibly behind
//     a time prefix) or inside the `log` string (Fluent Bit without the CRI
//     parser).
//
// After a CRI prefix the rest is the program's own output and is not
// unwrapped further. stamp is the time of the innermost wrapper, in UTC; it
// is zero when the line came bare. A CRI partial line (tag P) is returned as
// it is: joining partial lines is left to the reader.
//
// inner aliases line, or scratchOut when a JSON wrapper had to be unescaped;
// scratchOut is scratch, possibly grown, for the caller to pass again. A line
// without a wrapper comes back as the very same slice, with no allocation:
// only lines starting with a digit or '{' are looked at further.
func unwrapLine(line, scratch []byte) (inner []byte, stamp time.Time, scratchOut []byte) {
	if !wrapMayStart(line) {
		return line, time.Time{}, scratch
	}
	inner = line
	if rest, t, ok := wrapSplitStamp(inner); ok {
		if content, ok := wrapSplitCRIStream(rest); ok {
			return content, t, scratch
		}
		inner, stamp = rest, t
		if content, t, ok := wrapSplitCRI(inner); ok {
			return content, t, scratch
		}
	}
	if log, t, out, ok := wrapFluentBitLog(inner, scratch); ok {
		inner, scratch = log, out
		if !t.IsZero() {
			stamp = t
		}
		if content, t, ok := wrapSplitCRI(inner); ok {
			inner, stamp = content, t
		}
	}
	return inner, stamp, scratch
}

// wrapMayStart reports whether line may carry a wrapper: every wrapper
// starts with a JSON object or an RFC 3339 time, whose four-digit year is
// followed by a dash (an access line's client address has no dash there).
func wrapMayStart(line []byte) bool {
	return len(line) > 0 && line[0] == '{' || len(line) > 4 && line[4] == '-' && line[0] >= '0' && line[0] <= '9'
}

// wrapSplitStamp splits an RFC 3339 time followed by one space or tab off
// the front of line.
func wrapSplitStamp(line []byte) (rest []byte, t time.Time, ok bool) {
	t, n, ok := lex.ScanRFC3339(line)
	if !ok || n >= len(line) || line[n] != ' ' && line[n] != '\t' {
		return nil, time.Time{}, false
	}
	return line[n+1:], t, true
}

// wrapSplitCRI splits a whole CRI prefix, `<time> <stream> <tag> `, off the
// front of line and returns the content and the time.
func wrapSplitCRI(line []byte) (content []byte, t time.Time, ok bool) {
	rest, t, ok := wrapSplitStamp(line)
	if !ok {
		return nil, time.Time{}, false
	}
	content, ok = wrapSplitCRIStream(rest)
	return content, t, ok
}

// wrapSplitCRIStream splits the stream and tag of a CRI log line, `stdout F `
// or `stderr P `, off rest (what follows the time). A line that ends right
// after the tag has empty content.
func wrapSplitCRIStream(rest []byte) (content []byte, ok bool) {
	if len(rest) < 8 || !bytes.HasPrefix(rest, []byte("stdout ")) && !bytes.HasPrefix(rest, []byte("stderr ")) {
		return nil, false
	}
	if tag := rest[7]; tag != 'F' && tag != 'P' {
		return nil, false
	}
	switch {
	case len(rest) == 8:
		return rest[8:], true
	case rest[8] == ' ':
		return rest[9:], true
	}
	return nil, false
}

// wrapFluentBitLog extracts the `log` string of a Fluent Bit, Container
// Insights or Docker json-file record into scratch, without its trailing
// CR/LF, and the record's `time`. ok is false when line is not a JSON object
// with a string `log` key (an AWS LB Controller line has `msg` instead).
func wrapFluentBitLog(line, scratch []byte) (log []byte, t time.Time, scratchOut []byte, ok bool) {
	if len(line) == 0 || line[0] != '{' || !wrapHasLogKey(line) {
		return nil, time.Time{}, scratch, false
	}
	p := wrapParsers.Get()
	defer wrapParsers.Put(p)
	v, err := p.ParseBytes(line)
	if err != nil {
		return nil, time.Time{}, scratch, false
	}
	lv := v.Get("log")
	if lv == nil || lv.Type() != fastjson.TypeString {
		return nil, time.Time{}, scratch, false
	}
	scratch = append(scratch[:0], lv.GetStringBytes()...)
	if tb := v.GetStringBytes("time"); tb != nil {
		if ts, n, ok := lex.ScanRFC3339(tb); ok && n == len(tb) {
			t = ts
		}
	}
	return bytes.TrimRight(scratch, "\r\n"), t, scratch, true
}

// wrapHasLogKey reports whether line holds `"log"`, as bytes.Contains
// would, searching for its g: a JSON line is full of quotes, each of which
// would start a comparison (an Envoy JSON access line has a hundred, and
// the search took a third of its reading).
func wrapHasLogKey(line []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(line[i:], 'g')
		if j < 0 {
			return false
		}
		j += i
		if j >= 3 && j+1 < len(line) && line[j+1] == '"' && line[j-1] == 'o' && line[j-2] == 'l' && line[j-3] == '"' {
			return true
		}
		i = j + 1
	}
}

// cloudWatchEvent reads one element of the `events` array of
// `aws logs filter-log-events --output json` (or get-log-events) and of the
// SDK's FilteredLogEvent marshalled as JSON (capitalised keys): the message,
// unescaped into a new slice, and the event time from `timestamp`
// (milliseconds since the epoch; zero when absent). The message is one log
// line for unwrapLine and a line adapter.
func cloudWatchEvent(elem []byte) (message []byte, stamp time.Time, err error) {
	p := wrapParsers.Get()
	defer wrapParsers.Put(p)
	v, err := p.ParseBytes(elem)
	if err != nil || v.Type() != fastjson.TypeObject {
		return nil, time.Time{}, errors.New("malformed CloudWatch event")
	}
	mv := wrapFirstKey(v, "message", "Message")
	if mv == nil || mv.Type() != fastjson.TypeString {
		return nil, time.Time{}, errors.New("CloudWatch event without message")
	}
	message = append([]byte(nil), mv.GetStringBytes()...)
	if tv := wrapFirstKey(v, "timestamp", "Timestamp"); tv != nil && tv.Type() != fastjson.TypeNull {
		ms, err := tv.Int64()
		if err != nil {
			return nil, time.Time{}, errors.New("bad CloudWatch event timestamp")
		}
		stamp = time.UnixMilli(ms).UTC()
	}
	return message, stamp, nil
}

// wrapFirstKey returns the value of the first of keys that v has.
func wrapFirstKey(v *fastjson.Value, keys ...string) *fastjson.Value {
	for _, k := range keys {
		if kv := v.Get(k); kv != nil {
			return kv
		}
	}
	return nil
}

// looksLikeCloudWatchExport reports whether head, the start of a document
// (possibly cut short), looks like a CloudWatch Logs export: a top-level
// object whose `events` (or `Events`) array starts with an object that has a
// message and a CloudWatch event key (logStreamName, eventId, or the
// ingestionTime that get-log-events output carries instead).
func looksLikeCloudWatchExport(head []byte) bool {
	i := headSkipSpace(head, 0)
	if i >= len(head) || head[i] != '{' {
		return false
	}
	var events []byte
	headObjectKeys(head[i:], func(key, value []byte) bool {
		if string(key) == "events" || string(key) == "Events" {
			events = value
			return false
		}
		return true
	})
	if len(events) == 0 || events[0] != '[' {
		return false
	}
	j := headSkipSpace(events, 1)
	if j >= len(events) || events[j] != '{' {
		return false
	}
	var message, eventKey bool
	headObjectKeys(events[j:], func(key, _ []byte) bool {
		switch string(key) {
		case "message", "Message":
			message = true
		case "logStreamName", "LogStreamName", "eventId", "EventId", "ingestionTime", "IngestionTime":
			eventKey = true
		}
		return !(message && eventKey)
	})
	return message && eventKey
}

// headObjectKeys calls visit for each key of the JSON object at the start of
// obj with the bytes from the key's value on, until visit returns false, the
// object ends or the text is cut short or malformed.
func headObjectKeys(obj []byte, visit func(key, value []byte) bool) {
	for i := 1; ; i++ {
		i = headSkipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		end := headStringEnd(obj, i)
		if end < 0 {
			return
		}
		key := obj[i+1 : end-1]
		i = headSkipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = headSkipSpace(obj, i+1)
		if i >= len(obj) || !visit(key, obj[i:]) {
			return
		}
		i = headSkipSpace(obj, headValueEnd(obj, i))
		if i >= len(obj) || obj[i] != ',' {
			return
		}
	}
}

// headSkipSpace returns the index of the first non-space byte of b at or
// after i (len(b) when there is none).
func headSkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// headStringEnd returns the index just after the JSON string starting at
// b[i] (a quote), or -1 when the string is cut short.
func headStringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// headValueEnd returns the index just after the JSON value starting at b[i],
// or len(b) when the value is cut short.
func headValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		if end := headStringEnd(b, i); end >= 0 {
			return end
		}
		return len(b)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := headStringEnd(b, i)
				if end < 0 {
					return len(b)
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return len(b)
}

// refineWithStamp sharpens a log time written to the second (nginx, the
// AWS Load Balancer Controller since v2.5) with the wrapper's stamp
// (kubectl --timestamps, CRI, CloudWatch) when the stamp falls inside that
// second; otherwise it returns t unchanged.
func refineWithStamp(t, stamp time.Time) time.Time {
	if stamp.IsZero() { // a bare line, the rule
		return t
	}
	if t.Nanosecond() == 0 && !stamp.Before(t) && stamp.Sub(t) < time.Second {
		return stamp.UTC()
	}
	return t
}

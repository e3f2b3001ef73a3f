package sources

import (
	"bytes"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
	"github.com/valyala/fastjson"
)

// sternJSON takes off stern's JSON outputs (stern cmd/cmd.go
// generateTemplate, stern/tail_utils.go):
//
//   - `-o json`: Go's json.Marshal of stern's Log, keys `message`,
//     `timestamp` (RFC 3339 with nanoseconds in --timezone; only in
//     releases after v1.34.0, which put `--timestamps`' time at the start
//     of `message` instead, where unwrapLine takes it off), `nodeName`,
//     `namespace`, `podName`, `containerName`, `labels`, `annotations`;
//   - `-o extjson`: `{"pod": "...", "container": "...", "message": ...}`
//     (with `"namespace"` first over several namespaces), the message
//     embedded as it is when it is JSON, else as a string; colour
//     sequences may sit inside the strings, and are taken off the message.
type sternJSON struct{}

// sternMessageKey is the key that holds the line.
var sternMessageKey = []byte(`"message"`)

// Unwrap returns the message, in scratch, and stern's time when it gives one.
func (sternJSON) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	if len(line) == 0 || line[0] != '{' || !bytes.Contains(line, sternMessageKey) {
		return nil, time.Time{}, scratch, false
	}
	p := wrapParsers.Get()
	defer wrapParsers.Put(p)
	v, err := p.ParseBytes(line)
	if err != nil {
		return nil, time.Time{}, scratch, false
	}
	if !(sternHasString(v, "podName") && sternHasString(v, "containerName")) &&
		!(sternHasString(v, "pod") && sternHasString(v, "container")) {
		return nil, time.Time{}, scratch, false
	}
	mv := v.Get("message")
	switch {
	case mv == nil:
		return nil, time.Time{}, scratch, false
	case mv.Type() == fastjson.TypeString:
		scratch = append(scratch[:0], mv.GetStringBytes()...)
	default: // extjson embeds any JSON message as it is
		scratch = mv.MarshalTo(scratch[:0])
	}
	var t time.Time
	if tb := v.GetStringBytes("timestamp"); tb != nil {
		ts, ok := lex.ParseRFC3339(tb)
		if !ok {
			return nil, time.Time{}, scratch, false
		}
		t = ts
	}
	inner := scratch
	if bytes.IndexByte(scratch, 0x1b) >= 0 {
		// stripSGR writes past the message while reading it: the copy
		// lands after it in the same buffer, or in a new one.
		n := len(scratch)
		scratch = stripSGR(scratch, scratch[:n])
		inner = scratch[n:]
	}
	return bytes.TrimRight(inner, "\r\n"), t, scratch, true
}

// sternHasString reports whether v has a string under key.
func sternHasString(v *fastjson.Value, key string) bool {
	kv := v.Get(key)
	return kv != nil && kv.Type() == fastjson.TypeString
}

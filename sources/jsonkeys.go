package sources

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// A Kubernetes object written as JSON may hold a key twice in one object,
// or a string that is not UTF-8: Go's JSON decoders, readygap's and
// kubectl's, read the last of equal keys and each invalid byte as U+FFFD
// without a word, while the API server's strict field validation (kubectl's
// default, --validate=strict) refuses a duplicate field. Either is warned
// of, naming the lines, as a YAML document's duplicate keys and invalid
// UTF-8 are (see convertYAML and yamlSplitter.take).

// jsonIssue is a duplicate key or an invalid UTF-8 string found in a JSON
// element; lines count from the element's first line (1).
type jsonIssue struct {
	// Key is the key written twice, First and Second the lines of its two
	// occurrences; empty for invalid UTF-8.
	Key           string
	First, Second int
	// Line and Column locate the first byte of invalid UTF-8 (the column
	// in bytes, from 1).
	Line, Column int
}

// jsonFrame is an object or array being scanned: an object's keys so far.
type jsonFrame struct {
	object bool
	keys   []jsonKey
}

// jsonKey is a key of an object, as written (quotes excluded), its line,
// and whether it holds an escape.
type jsonKey struct {
	raw     []byte
	line    int
	escaped bool
}

// jsonKeyScanner finds the issues of JSON elements; its frames are reused
// from element to element.
type jsonKeyScanner struct {
	frames []jsonFrame
}

// push starts an object or array.
func (sc *jsonKeyScanner) push(stack []jsonFrame, object bool) []jsonFrame {
	if len(stack) < cap(stack) {
		stack = stack[:len(stack)+1]
		top := &stack[len(stack)-1]
		top.object, top.keys = object, top.keys[:0]
		return stack
	}
	return append(stack, jsonFrame{object: object})
}

// issues calls f with every duplicate key of one object, and every
// string holding invalid UTF-8, in the JSON element elem, in the order
// they are written. It expects JSON the splitter cut (balanced brackets)
// and reads anything else without failing.
func (sc *jsonKeyScanner) issues(elem []byte, f func(jsonIssue)) {
	stack := sc.frames[:0]
	// Most elements are UTF-8 throughout: checked at once, their strings
	// need not be one by one.
	valid := utf8.Valid(elem)
	line, lineStart := 1, 0
	expectKey := false
	for i := 0; i < len(elem); i++ {
		switch elem[i] {
		case '\n':
			line, lineStart = line+1, i+1
		case '{':
			stack = sc.push(stack, true)
			expectKey = true
		case '[':
			stack = sc.push(stack, false)
			expectKey = false
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].object
		case '"':
			end, escaped := stringEnd(elem, i+1)
			s := elem[i+1 : end]
			if !valid {
				if bad := invalidUTF8At(s); bad >= 0 {
					f(jsonIssue{Line: line, Column: i + 1 + bad - lineStart + 1})
				}
			}
			if expectKey && len(stack) > 0 {
				top := &stack[len(stack)-1]
				key := jsonKey{raw: s, line: line, escaped: escaped}
				for _, k := range top.keys {
					if sameJSONKey(k, key) {
						f(jsonIssue{Key: jsonKeyText(s), First: k.line, Second: line})
						break
					}
				}
				top.keys = append(top.keys, key)
				expectKey = false
			}
			i = end // the closing quote
		}
	}
	sc.frames = stack[:0]
}

// stringEnd returns the index of the quote that closes the string whose
// first byte is at start, or len(b) when none does, and whether the string
// holds an escape.
func stringEnd(b []byte, start int) (int, bool) {
	escaped := false
	for i := start; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i, escaped
		case '\\':
			escaped = true
			i++ // the escaped byte
		}
	}
	return len(b), escaped
}

// invalidUTF8At returns the index of the first byte of s that is not
// UTF-8, or -1.
func invalidUTF8At(s []byte) int {
	if utf8.Valid(s) {
		return -1
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// sameJSONKey reports whether two keys are the same key: equal as
// written, or equal once their escapes are decoded.
func sameJSONKey(a, b jsonKey) bool {
	if !a.escaped && !b.escaped {
		return string(a.raw) == string(b.raw)
	}
	return jsonKeyText(a.raw) == jsonKeyText(b.raw)
}

// jsonKeyText is a key as written decoded, as encoding/json decodes it;
// the key as written when it does not decode.
func jsonKeyText(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	q := append(append([]byte{'"'}, raw...), '"')
	if json.Unmarshal(q, &s) != nil {
		return string(raw)
	}
	return s
}

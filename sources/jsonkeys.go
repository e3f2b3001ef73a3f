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

// jsonKey is a key of an object, as written (quotes excluded), and its line.
type jsonKey struct {
	raw  []byte
	line int
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
	defer func() { sc.frames = stack[:0] }()
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
			end := stringEnd(elem, i+1)
			s := elem[i+1 : end]
			if bad := invalidUTF8At(s); bad >= 0 {
				f(jsonIssue{Line: line, Column: i + 1 + bad - lineStart + 1})
			}
			if expectKey && len(stack) > 0 {
				top := &stack[len(stack)-1]
				for _, k := range top.keys {
					if sameJSONKey(k.raw, s) {
						f(jsonIssue{Key: jsonKeyText(s), First: k.line, Second: line})
						break
					}
				}
				top.keys = append(top.keys, jsonKey{raw: s, line: line})
				expectKey = false
			}
			i = end // the closing quote
		}
	}
}

// stringEnd returns the index of the quote that closes the string whose
// first byte is at start, or len(b) when none does.
func stringEnd(b []byte, start int) int {
	for i := start; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		q := i + j
		backslashes := 0
		for k := q - 1; k >= start && b[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q
		}
		i = q + 1
	}
	return len(b)
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

// sameJSONKey reports whether two keys, as written, are the same key:
// equal bytes, or equal once their escapes are decoded.
func sameJSONKey(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return false
	}
	return jsonKeyText(a) == jsonKeyText(b)
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

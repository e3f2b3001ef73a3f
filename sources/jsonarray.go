package sources

import (
	"bytes"
	"io"
)

// Two JSON layouts are read like lines, so that no byte is scanned by a
// single goroutine but for the line breaks: NDJSON (one element per line,
// as `gcloud logging read --format=json | jq -c '.[]'` or a sink writes it)
// and the layout below.
//
// A JSON array printed with two-space indentation, as gcloud, jq, Python's
// json.dumps(indent=2) and Go's MarshalIndent write it, has each element
// between a line `  {` and a line `  }` or `  },`: nested values are
// indented deeper, and a raw line break never occurs inside a string. Such
// an input is read like lines: the reader hands blocks of whole elements to
// the workers, which find the elements in them, so that no byte is scanned
// by a single goroutine but for the line breaks. The adapter's JSON parser
// still checks each element; any other shape goes through jsonSplitter.

// utf8BOM is the byte order mark some Windows tools start a UTF-8 file with.
var utf8BOM = []byte("\xef\xbb\xbf")

// prettyArrayStart is how such an array begins: its first element's line.
var prettyArrayStart = []byte("[\n  {\n")

// looksLikeNDJSON reports whether body, the start of an input, holds one
// top-level JSON object per line: its first object, not an envelope, ends
// on its first line and another starts on the next.
func looksLikeNDJSON(body []byte) bool {
	first, rest, ok := bytes.Cut(body, []byte("\n"))
	if !ok || !bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r"), []byte("{")) {
		return false
	}
	s := newJSONSplitter(bytes.NewReader(first), 64<<10)
	elem, _, err := s.Next()
	if err != nil || s.envelope || s.inArray || len(elem) == 0 {
		return false
	}
	_, _, err = s.Next()
	return err == io.EOF
}

// looksLikePrettyArray reports whether head, the very start of an input, is
// a two-space indented JSON array of objects.
func looksLikePrettyArray(head []byte) bool {
	return bytes.HasPrefix(bytes.ReplaceAll(head[:min(len(head), 16)], []byte("\r"), nil), prettyArrayStart)
}

// elementEnd returns the index just past the last line of data that closes
// a top-level element (`  }` or `  },`), or -1.
func elementEnd(data []byte) int {
	for end := len(data); end > 0; {
		i := bytes.LastIndex(data[:end], []byte("\n  }"))
		if i < 0 {
			return -1
		}
		if j, ok := closingLineEnd(data, i+1); ok {
			return j
		}
		end = i
	}
	return -1
}

// closingLineEnd reports whether the line at data[i:] is `  }` or `  },`
// (with an optional CR) ending in a line break, and returns the index after
// the break.
func closingLineEnd(data []byte, i int) (int, bool) {
	rest := data[i+3:]
	if len(rest) > 0 && rest[0] == ',' {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == '\r' {
		rest = rest[1:]
	}
	if len(rest) == 0 || rest[0] != '\n' {
		return 0, false
	}
	return len(data) - len(rest) + 1, true
}

// producePrettyArray cuts the input into blocks of whole elements.
func (in *inputReader) producePrettyArray(send func(*batch)) error {
	return in.produceJSONBlocks(elementEnd, []byte("[\n"), send)
}

// produceNDJSON cuts the input into blocks of whole lines.
func (in *inputReader) produceNDJSON(send func(*batch)) error {
	return in.produceJSONBlocks(func(data []byte) int {
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			return i + 1
		}
		return -1
	}, nil, send)
}

// produceJSONBlocks cuts the input into blocks read straight into each
// batch's buffer, each ending where cut says the last whole element of the
// data ends (-1: none does). An element longer than a block ends the fast
// path: the rest of the input, from that element on, goes through
// jsonSplitter, after reopen, what puts the splitter back inside the
// input's structure (the array the element is in).
func (in *inputReader) produceJSONBlocks(cut func([]byte) int, reopen []byte, send func(*batch)) error {
	line := 1
	var carry []byte
	for {
		if err := in.ctx.Err(); err != nil {
			return err
		}
		b := batches.get()
		buf := append(b.buf[:0], carry...)[:cap(b.buf)]
		filled := len(carry)
		var err error
		for filled < len(buf) && err == nil {
			var n int
			n, err = in.br.Read(buf[filled:])
			filled += n
		}
		data := buf[:filled]
		carry = carry[:0]
		if err == nil {
			end := cut(data)
			if end < 0 { // one element fills the whole block
				rest := io.Reader(io.MultiReader(bytes.NewReader(bytes.Clone(data)), in.br))
				offset := line - 1
				if line > 1 && len(reopen) > 0 {
					rest = io.MultiReader(bytes.NewReader(reopen), rest)
					offset -= bytes.Count(reopen, []byte{'\n'})
				}
				batches.put(b)
				return in.splitJSON(rest, jsonReadBuffer, func(_, l int) int { return offset + l }, send)
			}
			carry = append(carry, data[end:]...)
			data = data[:end]
		}
		b.buf, b.firstLine = data, line
		line += bytes.Count(data, []byte{'\n'})
		if len(data) > 0 {
			send(b)
		} else {
			batches.put(b)
		}
		if err != nil {
			return endOfInput(err)
		}
	}
}

// consumeNDJSON hands each line of a block, one JSON element, to the JSON
// adapters. A line cut short is what the adapter's parser refuses.
func (in *inputReader) consumeNDJSON(p *part, b *batch) {
	var last jsonAdapter
	data, line := b.buf, b.firstLine
	for len(data) > 0 {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if line == 1 {
			l = bytes.TrimPrefix(l, utf8BOM)
		}
		if l = bytes.TrimSpace(l); len(l) > 0 {
			p.parseJSONElement(l, Origin{in.name, line}, &last)
		}
		line++
	}
}

// consumePrettyArray finds the elements of a block and hands them to the
// JSON adapters. Lines outside elements other than the array's brackets
// are skipped.
func (in *inputReader) consumePrettyArray(p *part, b *batch) {
	var last jsonAdapter
	data, line := b.buf, b.firstLine
	start, startLine := -1, 0
	for pos := 0; pos < len(data); line++ {
		end := len(data)
		next := end
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		l := bytes.TrimRight(data[pos:end], "\r")
		switch {
		case start >= 0:
			if isClosingLine(l) {
				p.parseJSONElement(bytes.TrimSuffix(data[start+2:pos+len(l)], []byte(",")), Origin{in.name, startLine}, &last)
				start = -1
				break
			}
			// Skip to the next line that may close the element: nested
			// lines are indented deeper, so only a line starting "  }"
			// can, and most of an element's lines need not be cut.
			if next == end {
				break // the last line of the block
			}
			if nl := closingLineBefore(data, end); nl > end {
				line += bytes.Count(data[next:nl+1], []byte{'\n'})
				next = nl + 1
			}
		case len(l) == 3 && l[0] == ' ' && l[1] == ' ' && l[2] == '{':
			start, startLine = pos, line
		case len(bytes.TrimSpace(l)) == 0, string(l) == "[", string(l) == "]":
		default:
			// A whole element on one line, or something else the adapters judge.
			p.parseJSONElement(bytes.TrimSuffix(bytes.TrimSpace(l), []byte(",")), Origin{in.name, line}, &last)
		}
		pos = next
	}
	if start >= 0 {
		p.em.Skip(Origin{in.name, startLine}, "unexpected end of input inside an array")
	}
}

// closingLineBefore returns the position of the first newline at or after
// from that a line starting "  }" follows, or -1. It looks for the braces,
// a few to an element, rather than for the newlines, dozens to one.
func closingLineBefore(data []byte, from int) int {
	for pos := from + 3; pos < len(data); {
		k := bytes.IndexByte(data[pos:], '}')
		if k < 0 {
			return -1
		}
		if q := pos + k; data[q-3] == '\n' && data[q-2] == ' ' && data[q-1] == ' ' {
			return q - 3
		}
		pos += k + 1
	}
	return -1
}

// isClosingLine reports whether l is `  }` or `  },`.
func isClosingLine(l []byte) bool {
	return (len(l) == 3 || len(l) == 4 && l[3] == ',') && l[0] == ' ' && l[1] == ' ' && l[2] == '}'
}

package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxElementBytes bounds one JSON element (a log entry, a Kubernetes object).
// Longer elements are skipped so that memory stays bounded on hostile input.
const maxElementBytes = 64 << 20

// envelopeKeys are the keys of a top-level object whose array value holds the
// real elements: Kubernetes Lists (items), Cloud Logging API responses
// (entries) and CloudWatch Logs exports (events).
var envelopeKeys = []string{"items", "entries", "events"}

// errNotJSON reports a top-level line that is not JSON at all.
var errNotJSON = errors.New("not JSON")

// jsonSplitter cuts a stream of JSON into elements without decoding them: the
// values of a top-level array, the items of an envelope object (see
// envelopeKeys), or whole top-level objects one after another (a single
// object, concatenated objects, one object per line). It keeps only the current
// element in memory and knows the line each element starts on.
//
// After an error the splitter resumes at the next line, so one broken line of
// NDJSON costs one element.
type jsonSplitter struct {
	r    io.Reader
	buf  []byte
	pos  int
	end  int
	eof  bool
	rerr error // a read error other than io.EOF (e.g. a truncated gzip)

	line int // line number of buf[pos]

	elem    []byte // the element being returned
	scratch []byte // values skipped inside an envelope object

	// inArray is set while inside the array whose values are elements;
	// envelope is set when that array belongs to an envelope object whose
	// remaining keys must be skipped after the array ends.
	inArray  bool
	envelope bool
	// ndjson is set once the first top-level object started and ended on one
	// line; a newline inside a later top-level object is then an error.
	ndjson bool
	first  bool
}

func newJSONSplitter(r io.Reader, bufSize int) *jsonSplitter {
	return &jsonSplitter{r: r, buf: make([]byte, bufSize), line: 1, first: true}
}

// ReadErr returns the read error that ended the stream early, if any.
func (s *jsonSplitter) ReadErr() error { return s.rerr }

// fill makes at least one unread byte available; it reports false at the end
// of input.
func (s *jsonSplitter) fill() bool {
	if s.pos < s.end {
		return true
	}
	if s.eof {
		return false
	}
	s.pos, s.end = 0, 0
	for s.end == 0 {
		n, err := s.r.Read(s.buf)
		s.end = n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
			return n > 0
		}
	}
	return true
}

func (s *jsonSplitter) peek() (byte, bool) {
	if !s.fill() {
		return 0, false
	}
	return s.buf[s.pos], true
}

// skipSpace consumes white space, counting lines.
func (s *jsonSplitter) skipSpace() {
	for s.fill() {
		switch s.buf[s.pos] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.pos++
	}
}

// skipLine consumes the rest of the current line, for resynchronising after an error.
func (s *jsonSplitter) skipLine() {
	for s.fill() {
		c := s.buf[s.pos]
		s.pos++
		if c == '\n' {
			s.line++
			return
		}
	}
}

// resync drops all nesting state and continues at the next line.
func (s *jsonSplitter) resync() {
	s.inArray, s.envelope = false, false
	s.skipLine()
}

// Next returns the next element and the line it starts on. It returns io.EOF
// at the end of input. Any other error describes an unreadable element at the
// returned line; the caller counts it and calls Next again.
func (s *jsonSplitter) Next() ([]byte, int, error) {
	for {
		s.skipSpace()
		c, ok := s.peek()
		if !ok {
			if s.inArray {
				line := s.line
				s.inArray, s.envelope = false, false
				return nil, line, errors.New("unexpected end of input inside an array")
			}
			return nil, s.line, io.EOF
		}
		if s.inArray {
			switch c {
			case ']':
				s.pos++
				s.inArray = false
				if s.envelope {
					s.envelope = false
					if err := s.finishObject(); err != nil {
						line := s.line
						s.resync()
						return nil, line, err
					}
				}
				continue
			case ',':
				s.pos++
				continue
			}
			line := s.line
			s.elem = s.elem[:0]
			if err := s.copyValue(&s.elem, false); err != nil {
				s.resync()
				return nil, line, err
			}
			return s.elem, line, nil
		}
		switch c {
		case '[':
			s.pos++
			s.inArray = true
			s.first = false
			continue
		case '{':
			line := s.line
			elem, err := s.topObject()
			if err != nil {
				s.resync()
				return nil, line, err
			}
			if elem == nil { // an envelope: its array is now open
				continue
			}
			if s.first {
				s.ndjson = s.line == line
				s.first = false
			}
			return elem, line, nil
		case ',': // tolerate commas between concatenated values
			s.pos++
			continue
		}
		line := s.line
		s.skipLine()
		return nil, line, errNotJSON
	}
}

// topObject reads a top-level object. It returns the object, or nil when the
// object turned out to be an envelope whose element array is now open.
func (s *jsonSplitter) topObject() ([]byte, error) {
	s.elem = append(s.elem[:0], '{')
	s.pos++
	for {
		if err := s.spaceInObject(); err != nil {
			return nil, err
		}
		c, ok := s.peek()
		if !ok {
			return nil, io.ErrUnexpectedEOF
		}
		switch c {
		case '}':
			s.pos++
			s.elem = append(s.elem, '}')
			return s.elem, nil
		case ',':
			s.pos++
			s.elem = append(s.elem, ',')
			continue
		case '"':
		default:
			return nil, fmt.Errorf("unexpected %q where an object key belongs", c)
		}
		keyStart := len(s.elem)
		if err := s.copyValue(&s.elem, s.ndjson); err != nil {
			return nil, err
		}
		key := s.elem[keyStart:]
		if err := s.spaceInObject(); err != nil {
			return nil, err
		}
		if c, ok := s.peek(); !ok || c != ':' {
			return nil, errors.New("missing ':' after an object key")
		}
		s.pos++
		s.elem = append(s.elem, ':')
		if err := s.spaceInObject(); err != nil {
			return nil, err
		}
		if c, ok := s.peek(); ok && c == '[' && isEnvelopeKey(key) {
			s.pos++
			s.inArray, s.envelope = true, true
			s.first = false
			return nil, nil
		}
		if err := s.copyValue(&s.elem, s.ndjson); err != nil {
			return nil, err
		}
	}
}

// errCutLine reports an NDJSON line that ended inside its object.
var errCutLine = errors.New("JSON object cut short at the end of its line")

// spaceInObject skips white space inside a top-level object, keeping its
// line breaks in the element, so that each line of the element is a line
// of the input (see parseJSONElement); in NDJSON input a line break there
// means the line was cut short.
func (s *jsonSplitter) spaceInObject() error {
	if !s.ndjson {
		from := s.line
		s.skipSpace()
		for range s.line - from {
			s.elem = append(s.elem, '\n')
		}
		return nil
	}
	for s.fill() {
		switch s.buf[s.pos] {
		case '\n':
			return errCutLine // left unread: resync continues at the next line
		case ' ', '\t', '\r':
			s.pos++
		default:
			return nil
		}
	}
	return nil
}

// finishObject skips the keys that follow the element array of an envelope
// object, up to and including its closing brace.
func (s *jsonSplitter) finishObject() error {
	for {
		s.skipSpace()
		c, ok := s.peek()
		if !ok {
			return io.ErrUnexpectedEOF
		}
		switch c {
		case '}':
			s.pos++
			return nil
		case ',', ':':
			s.pos++
		default:
			s.scratch = s.scratch[:0]
			if err := s.copyValue(&s.scratch, false); err != nil {
				return err
			}
		}
	}
}

func isEnvelopeKey(quoted []byte) bool {
	if len(quoted) < 2 {
		return false
	}
	k := quoted[1 : len(quoted)-1]
	for _, e := range envelopeKeys {
		if string(k) == e {
			return true
		}
	}
	return false
}

// copyValue appends one JSON value (string, number, literal, object or array)
// to dst. It checks nesting and string boundaries only; the adapter validates
// the rest. With oneLine set, a line break inside the value is an error.
func (s *jsonSplitter) copyValue(dst *[]byte, oneLine bool) error {
	depth := 0
	inString := false
	// backslashes counts the backslashes that end the string text scanned so
	// far, so that an escape split across two reads is still seen.
	backslashes := 0
	startLine := s.line
	if c, ok := s.peek(); ok && !startsValue(c) {
		return fmt.Errorf("unexpected %q where a JSON value belongs", c)
	}
	for s.fill() {
		chunk := s.buf[s.pos:s.end]
		i := 0
		done := false
	scan:
		for i < len(chunk) {
			if inString {
				// Jump to the next quote; the bytes before it are string text.
				q := bytes.IndexByte(chunk[i:], '"')
				text := chunk[i:]
				if q >= 0 {
					text = chunk[i : i+q]
				}
				// A raw line break cannot be inside a JSON string. In NDJSON it
				// means the line was cut; elsewhere the adapter's parser rejects
				// the element, so only NDJSON pays for looking.
				if oneLine {
					if nl := bytes.IndexByte(text, '\n'); nl >= 0 {
						s.pos += i + nl
						*dst = append(*dst, chunk[:i+nl]...)
						return errors.New("line break inside a JSON string")
					}
				}
				backslashes = trailingBackslashes(text, backslashes)
				if q < 0 {
					i = len(chunk)
					break
				}
				i += q + 1
				if backslashes%2 == 1 { // an escaped quote
					backslashes = 0
					continue
				}
				backslashes = 0
				inString = false
				if depth == 0 {
					done = true
					break scan
				}
				continue
			}
			if depth > 0 {
				// Inside a container only quotes, brackets and line breaks matter.
				for i < len(chunk) && !containerSpecial[chunk[i]] {
					i++
				}
				if i == len(chunk) {
					break
				}
			}
			switch c := chunk[i]; c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 { // the end of a scalar value inside a container
					done = true
					break scan
				}
				depth--
				if depth == 0 {
					i++
					done = true
					break scan
				}
			case ',', ' ', '\t', '\r', ':':
				if depth == 0 {
					done = true
					break scan
				}
			case '\n':
				if depth == 0 {
					done = true
					break scan
				}
				if oneLine {
					*dst = append(*dst, chunk[:i]...)
					s.pos += i // left unread: resync continues at the next line
					return errCutLine
				}
				s.line++
			}
			i++
		}
		*dst = append(*dst, chunk[:i]...)
		s.pos += i
		if len(*dst) > maxElementBytes {
			return fmt.Errorf("JSON element larger than %d MiB", maxElementBytes>>20)
		}
		if done {
			return nil
		}
	}
	if depth == 0 && !inString && len(*dst) > 0 && startLine == s.line {
		return nil // a scalar at the very end of input
	}
	return io.ErrUnexpectedEOF
}

// containerSpecial marks the bytes that matter while scanning inside an
// object or array outside strings.
var containerSpecial = func() (t [256]bool) {
	for _, c := range []byte("\"{}[]\n") {
		t[c] = true
	}
	return t
}()

// startsValue reports whether c can begin a JSON value.
func startsValue(c byte) bool {
	switch {
	case c == '"' || c == '{' || c == '[' || c == '-':
	case c >= '0' && c <= '9':
	case c >= 'a' && c <= 'z': // true, false, null (and garbage the adapter rejects)
	default:
		return false
	}
	return true
}

// trailingBackslashes counts the backslashes at the end of text; when text
// is nothing but backslashes, those carried from before it count too.
func trailingBackslashes(text []byte, carried int) int {
	n := 0
	for n < len(text) && text[len(text)-1-n] == '\\' {
		n++
	}
	if n == len(text) {
		return carried + n
	}
	return n
}

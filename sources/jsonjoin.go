package sources

import "io"

// jsonLineJoiner reads JSON text with the line breaks inside its values
// taken out: a JSON access line a terminal or an issue wrapped over
// several lines (even inside a string or a literal) becomes the one line
// it was, and a pretty-printed object one line too. Breaks between
// top-level values are kept, so that each value is on a line of its own;
// starts maps those lines back to the input's.
type jsonLineJoiner struct {
	r     io.Reader
	depth int
	// inString and escape follow the string the text is in, if any.
	inString, escape bool
	// read counts the input's line breaks read; starts[i] is the input's
	// line (from 1) the output's line i+1 starts on.
	read   int
	starts []int
}

// newJSONLineJoiner returns a joiner reading r.
func newJSONLineJoiner(r io.Reader) *jsonLineJoiner {
	return &jsonLineJoiner{r: r, starts: []int{1}}
}

// Read implements io.Reader, filtering in place.
func (j *jsonLineJoiner) Read(p []byte) (int, error) {
	for {
		n, err := j.r.Read(p)
		out := 0
		for _, c := range p[:n] {
			brk := c == '\n' || c == '\r'
			if c == '\n' {
				j.read++
			}
			switch {
			case brk && (j.inString || j.depth > 0):
				continue // a break inside a value: wrapped or pretty-printed
			case j.inString:
				switch {
				case j.escape:
					j.escape = false
				case c == '\\':
					j.escape = true
				case c == '"':
					j.inString = false
				}
			case c == '"':
				j.inString = true
			case c == '{' || c == '[':
				j.depth++
			case (c == '}' || c == ']') && j.depth > 0:
				j.depth--
			}
			if c == '\n' {
				j.starts = append(j.starts, j.read+1)
			}
			p[out] = c
			out++
		}
		if out > 0 || err != nil || n == 0 {
			return out, err
		}
	}
}

// line returns the input's line the output's line starts on.
func (j *jsonLineJoiner) line(out int) int {
	if out >= 1 && out <= len(j.starts) {
		return j.starts[out-1]
	}
	return out
}

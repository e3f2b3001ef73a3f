package sources

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// YAML input is cut into chunks without being parsed: one chunk per
// document, except that the items of a List (a document with a top-level
// `items:` sequence, as `kubectl get -o yaml` writes it) and of a document
// that is a top-level sequence are one chunk each. Chunks are converted to
// JSON on the parsing workers, one at a time, with bounds on their size, on
// their lines and on what aliases may expand them to; a chunk past a bound
// is skipped with its line and the rest of the input is read.

const (
	// maxYAMLChunk bounds one YAML document or List item, and so one line.
	// The API server refuses objects over 1.5 MiB (etcd's request limit);
	// their YAML is at most a few times that.
	maxYAMLChunk = 16 << 20
	// maxYAMLExpansion bounds the JSON one chunk turns into: aliases can
	// repeat a node any number of times (a "billion laughs" bomb) and
	// Kubernetes objects never use them.
	maxYAMLExpansion = 2 * maxYAMLChunk
	// yamlJSONPerByte and yamlJSONSlack bound, below maxYAMLExpansion, the
	// JSON of a chunk by its own size: YAML without aliases gives under 4
	// bytes of JSON a byte (the densest, a flow mapping of two-letter keys
	// without values, `{ab,cd}` to `{"ab":null,"cd":null}`, gives 3.3),
	// and the slack leaves room for the anchors a person writes by hand
	// in a small manifest. A 1 KB alias bomb stops at about 1 MiB of JSON,
	// not 32.
	yamlJSONPerByte = 4
	yamlJSONSlack   = 1 << 20
	// maxYAMLDepth bounds nesting, aliases included, as go-yaml does.
	maxYAMLDepth = 10000
)

// yamlLimits are the bounds on one chunk; tests shrink them.
type yamlLimits struct {
	chunk, expansion, depth int
	// perByte and slack bound a chunk's JSON by its size: see yamlJSONPerByte.
	perByte, slack int
}

// budget is the most JSON a chunk of n bytes may turn into.
func (l yamlLimits) budget(n int) int { return min(l.expansion, l.perByte*n+l.slack) }

var defaultYAMLLimits = yamlLimits{chunk: maxYAMLChunk, expansion: maxYAMLExpansion, depth: maxYAMLDepth,
	perByte: yamlJSONPerByte, slack: yamlJSONSlack}

// yamlChunkKind tells how a chunk's text is to be read.
type yamlChunkKind uint8

const (
	// yamlDocument is a whole document; its JSON may hold several elements.
	yamlDocument yamlChunkKind = iota
	// yamlItem is one `- ...` entry of a sequence, to be read as that entry.
	yamlItem
)

// yamlSplitter cuts a YAML stream into chunks, reading it line by line.
type yamlSplitter struct {
	ctx    context.Context
	br     *bufio.Reader
	limits yamlLimits
	emit   func(text []byte, line int, kind yamlChunkKind)
	skip   func(line int, reason string)

	line  int    // number of the last line read
	chunk []byte // the chunk being gathered
	start int    // the line it starts on
	kind  yamlChunkKind
	state yamlState
	// indent is the column of the `-` of the items being cut, -1 until the
	// first item is seen.
	indent int
	long   []byte // a line longer than the read buffer, being gathered
}

type yamlState uint8

const (
	yamlInDocument   yamlState = iota // gathering a document
	yamlInItems                       // cutting the items of a sequence
	yamlAfterItems                    // past a List's items, until the next document
	yamlSkipping                      // past a bound, until the next document
	yamlSkippingItem                  // past a bound, until the next item
)

// run reads the whole input.
func (s *yamlSplitter) run() error {
	s.start, s.indent = 1, -1
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := s.readLine()
		if len(line) > 0 || tooLong {
			s.line++
			s.take(line, tooLong)
		}
		if err != nil {
			s.flush()
			return endOfInput(err)
		}
	}
}

// readLine returns the next line with its line break; tooLong reports a
// line past the chunk bound, which is dropped.
func (s *yamlSplitter) readLine() (line []byte, tooLong bool, err error) {
	line, err = s.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, false, err
	}
	s.long = append(s.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = s.br.ReadSlice('\n')
		if len(s.long)+len(line) > s.limits.chunk {
			tooLong = true
			continue
		}
		s.long = append(s.long, line...)
	}
	if tooLong {
		s.long = s.long[:0]
		return nil, true, err
	}
	return s.long, false, err
}

// take handles one line.
func (s *yamlSplitter) take(line []byte, tooLong bool) {
	if !tooLong && isDocumentMarker(line) {
		s.flush()
		s.state, s.indent, s.kind = yamlInDocument, -1, yamlDocument
		s.start = s.line + 1
		if rest := bytes.TrimSpace(line[3:]); bytes.HasPrefix(line, []byte("---")) && len(rest) > 0 && rest[0] != '#' {
			s.start = s.line
			s.chunk = append(append(s.chunk[:0], rest...), '\n')
		}
		return
	}
	if tooLong {
		s.overflow(fmt.Sprintf("YAML line longer than %d MiB", s.limits.chunk>>20))
		return
	}
	if (s.state == yamlInDocument || s.state == yamlInItems) && !utf8.Valid(line) {
		// go-yaml would stop at the byte, kubectl refuses the file: the
		// document is not read, from its first line.
		s.overflow(fmt.Sprintf("invalid UTF-8 on line %d: not read (kubectl refuses the file too)", s.line))
		return
	}
	switch s.state {
	case yamlSkipping, yamlAfterItems:
		return
	case yamlInDocument:
		if bytes.HasPrefix(line, []byte("items:")) && isBlank(line[len("items:"):]) {
			// A List: its items are the chunks, the rest is dropped.
			s.chunk, s.state, s.indent = s.chunk[:0], yamlInItems, -1
			return
		}
		if isSequenceEntry(line) && isBlank(s.chunk) {
			s.chunk, s.state, s.indent = s.chunk[:0], yamlInItems, 0
			s.startItem(line)
			return
		}
		if len(s.chunk) == 0 && isBlank(line) {
			s.start = s.line + 1
			return
		}
		s.add(line, fmt.Sprintf("YAML document larger than %d MiB", s.limits.chunk>>20))
	case yamlInItems, yamlSkippingItem:
		if isBlank(line) {
			if s.state == yamlInItems && len(s.chunk) > 0 {
				s.add(line, "")
			}
			return
		}
		depth := len(line) - len(bytes.TrimLeft(line, " "))
		if s.indent < 0 && isSequenceEntry(line[depth:]) {
			s.indent = depth
		}
		switch {
		case depth == s.indent && isSequenceEntry(line[depth:]):
			s.flush()
			s.startItem(line)
		case s.indent >= 0 && depth > s.indent:
			if s.state == yamlInItems {
				s.add(line, fmt.Sprintf("YAML List item larger than %d MiB", s.limits.chunk>>20))
			}
		default: // back at the List's own keys
			s.flush()
			s.state = yamlAfterItems
		}
	}
}

func (s *yamlSplitter) startItem(line []byte) {
	s.state, s.kind, s.start = yamlInItems, yamlItem, s.line
	s.chunk = append(s.chunk[:0], line...)
}

// add appends line to the chunk, or skips the chunk when that would pass
// the bound.
func (s *yamlSplitter) add(line []byte, reason string) {
	if len(s.chunk)+len(line) > s.limits.chunk {
		s.overflow(reason)
		return
	}
	if len(s.chunk) == 0 {
		s.start = s.line
	}
	s.chunk = append(s.chunk, line...)
}

// overflow skips the chunk being gathered: the rest of the document, or of
// the List item.
func (s *yamlSplitter) overflow(reason string) {
	start := s.start
	if len(s.chunk) == 0 {
		start = s.line
	}
	s.skip(start, reason)
	s.chunk = s.chunk[:0]
	if s.state == yamlInItems || s.state == yamlSkippingItem {
		s.state = yamlSkippingItem
	} else {
		s.state = yamlSkipping
	}
}

// flush hands over the chunk gathered so far.
func (s *yamlSplitter) flush() {
	if s.state != yamlSkipping && s.state != yamlSkippingItem && !isBlank(s.chunk) {
		s.emit(s.chunk, s.start, s.kind)
	}
	s.chunk = s.chunk[:0]
	if s.state == yamlSkippingItem {
		s.state = yamlInItems
	}
}

// isDocumentMarker reports whether line starts a document (`---`) or ends
// one (`...`).
func isDocumentMarker(line []byte) bool {
	if len(line) < 3 || !(bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\n' || line[3] == '\r'
}

// isSequenceEntry reports whether line (from its first non-space byte)
// starts a block sequence entry.
func isSequenceEntry(line []byte) bool {
	return len(line) > 0 && line[0] == '-' && (len(line) == 1 || line[1] == ' ' || line[1] == '\n' || line[1] == '\r')
}

// isBlank reports whether b holds only spaces, line breaks and comments.
func isBlank(b []byte) bool {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

var (
	errYAMLExpansion = errors.New("YAML aliases expand past the limit")
	errYAMLDepth     = errors.New("YAML nested too deeply")
	errYAMLKey       = errors.New("YAML mapping key is not a scalar")
)

// yamlToJSON converts one chunk to JSON, appending to dst. An empty
// document gives nothing.
func yamlToJSON(dst, text []byte, kind yamlChunkKind, limits yamlLimits) ([]byte, error) {
	return convertYAML(dst, text, kind, limits, nil)
}

// yamlDuplicate is a key written twice in one mapping: go-yaml keeps
// both, the JSON keeps the last, and kubectl refuses the document
// (sigs.k8s.io/yaml: "key already set in map").
type yamlDuplicate struct {
	Key string
	// First and Second are the lines of the two keys, counted from the
	// chunk's first line (1).
	First, Second int
}

// convertYAML is yamlToJSON, reporting each duplicate key to dup when it
// is not nil.
func convertYAML(dst, text []byte, kind yamlChunkKind, limits yamlLimits, dup func(yamlDuplicate)) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(text)).Decode(&doc); err != nil {
		if err == io.EOF {
			return dst, nil
		}
		return dst, fmt.Errorf("YAML: %w", err)
	}
	if len(doc.Content) == 0 {
		return dst, nil
	}
	root := doc.Content[0]
	if kind == yamlItem {
		if root.Kind != yaml.SequenceNode || len(root.Content) != 1 {
			return dst, errors.New("YAML: List item is not one sequence entry")
		}
		root = root.Content[0]
	}
	budget := limits.budget(len(text))
	c := yamlConverter{out: dst, limit: len(dst) + budget, maxDepth: limits.depth, dup: dup}
	if err := c.value(root, 0); err != nil {
		if errors.Is(err, errYAMLExpansion) {
			err = fmt.Errorf("YAML aliases expand past %d KiB of JSON (%d bytes of YAML)", budget>>10, len(text))
		}
		return dst, err
	}
	return c.out, nil
}

// yamlConverter writes a YAML node tree as JSON, as sigs.k8s.io/yaml would,
// following aliases within its budget.
type yamlConverter struct {
	out      []byte
	limit    int
	maxDepth int
	// dup, when not nil, hears of each key written twice in a mapping.
	dup func(yamlDuplicate)
}

func (c *yamlConverter) value(n *yaml.Node, depth int) error {
	if depth >= c.maxDepth {
		return errYAMLDepth
	}
	if len(c.out) > c.limit {
		return errYAMLExpansion
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			c.out = append(c.out, "null"...)
			return nil
		}
		return c.value(n.Content[0], depth+1)
	case yaml.AliasNode:
		return c.value(n.Alias, depth+1)
	case yaml.ScalarNode:
		c.out = appendScalar(c.out, n)
		return nil
	case yaml.SequenceNode:
		c.out = append(c.out, '[')
		for i, e := range n.Content {
			if i > 0 {
				c.out = append(c.out, ',')
			}
			if err := c.value(e, depth+1); err != nil {
				return err
			}
		}
		c.out = append(c.out, ']')
		return nil
	case yaml.MappingNode:
		if c.dup != nil {
			c.duplicates(n)
		}
		c.out = append(c.out, '{')
		first := true
		if err := c.pairs(n, depth, &first); err != nil {
			return err
		}
		c.out = append(c.out, '}')
		return nil
	}
	return fmt.Errorf("YAML: unknown node kind %d", n.Kind)
}

// pairs writes the key-value pairs of mapping n. Merge keys (`<<`) are
// written first, so that the mapping's own keys, written later, win when
// the JSON is decoded.
func (c *yamlConverter) pairs(n *yaml.Node, depth int, first *bool) error {
	if depth > c.maxDepth {
		return errYAMLDepth
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			if err := c.merge(n.Content[i+1], depth+1, first); err != nil {
				return err
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolveAlias(n.Content[i])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return errYAMLKey
		}
		if !*first {
			c.out = append(c.out, ',')
		}
		*first = false
		c.out = appendKey(c.out, k)
		c.out = append(c.out, ':')
		if err := c.value(n.Content[i+1], depth+1); err != nil {
			return err
		}
	}
	return nil
}

// duplicates reports the keys of mapping n written more than once, merge
// keys aside: those are meant to be overridden.
func (c *yamlConverter) duplicates(n *yaml.Node) {
	keys := len(n.Content) / 2
	if keys < 2 {
		return
	}
	var seen map[string]int // for large mappings; small ones are scanned
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolveAlias(n.Content[i])
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			continue
		}
		if keys <= yamlScanKeys {
			for j := 0; j < i; j += 2 {
				if p := resolveAlias(n.Content[j]); p.Kind == yaml.ScalarNode && p.Value == k.Value && p.ShortTag() == k.ShortTag() {
					c.dup(yamlDuplicate{Key: k.Value, First: n.Content[j].Line, Second: n.Content[i].Line})
					break
				}
			}
			continue
		}
		if seen == nil {
			seen = make(map[string]int, keys)
		}
		id := k.ShortTag() + "\x00" + k.Value
		if first, ok := seen[id]; ok {
			c.dup(yamlDuplicate{Key: k.Value, First: first, Second: n.Content[i].Line})
			continue
		}
		seen[id] = n.Content[i].Line
	}
}

// yamlScanKeys is the size up to which a mapping's keys are compared pair
// by pair for duplicates, cheaper than a map for the few keys most
// Kubernetes mappings have.
const yamlScanKeys = 16

// merge writes the pairs a merge key's value brings: a mapping, or a
// sequence of mappings.
func (c *yamlConverter) merge(v *yaml.Node, depth int, first *bool) error {
	if depth > c.maxDepth {
		return errYAMLDepth
	}
	v = resolveAlias(v)
	switch v.Kind {
	case yaml.MappingNode:
		return c.pairs(v, depth+1, first)
	case yaml.SequenceNode:
		for _, m := range v.Content {
			if err := c.merge(m, depth+1, first); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("YAML: merge key value is not a mapping")
}

// resolveAlias follows an alias to its node (a bounded chain: go-yaml
// refuses an alias to an undefined anchor).
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxYAMLDepth; i++ {
		n = n.Alias
	}
	return n
}

// yaml11Bools are the plain scalars YAML 1.1 reads as booleans and YAML 1.2
// (go-yaml v3) as strings. Kubernetes reads manifests as YAML 1.1
// (sigs.k8s.io/yaml), so readygap does too.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

// yaml11Bool reports the YAML 1.1 boolean an untagged plain scalar stands for.
func yaml11Bool(n *yaml.Node) (value, ok bool) {
	if n.Style != 0 || n.ShortTag() != "!!str" {
		return false, false
	}
	value, ok = yaml11Bools[n.Value]
	return value, ok
}

// appendScalar writes a scalar with the JSON type its resolved tag gives
// it: null, booleans and numbers as such, everything else (strings, times,
// binary, custom tags, infinities) as a string.
func appendScalar(out []byte, n *yaml.Node) []byte {
	v := n.Value
	switch n.ShortTag() {
	case "!!null":
		return append(out, "null"...)
	case "!!bool":
		if strings.EqualFold(v, "true") {
			return append(out, "true"...)
		}
		if strings.EqualFold(v, "false") {
			return append(out, "false"...)
		}
	case "!!int":
		plain := strings.ReplaceAll(v, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return strconv.AppendInt(out, i, 10)
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return strconv.AppendUint(out, u, 10)
		}
	case "!!float":
		if f, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return strconv.AppendFloat(out, f, 'g', -1, 64)
		}
	case "!!str":
		if b, ok := yaml11Bool(n); ok {
			return strconv.AppendBool(out, b)
		}
	}
	return appendJSONString(out, v)
}

// appendKey writes a mapping key as a JSON string: the text of the value it
// stands for (null, a YAML 1.1 boolean, a number as written).
func appendKey(out []byte, k *yaml.Node) []byte {
	switch k.ShortTag() {
	case "!!null":
		return appendJSONString(out, "null")
	case "!!bool":
		return appendJSONString(out, strings.ToLower(k.Value))
	case "!!str":
		if b, ok := yaml11Bool(k); ok {
			return appendJSONString(out, strconv.FormatBool(b))
		}
	}
	return appendJSONString(out, k.Value)
}

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b == '\n':
				dst = append(dst, '\\', 'n')
			case b == '\r':
				dst = append(dst, '\\', 'r')
			case b == '\t':
				dst = append(dst, '\\', 't')
			case b < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			default:
				dst = append(dst, b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\ufffd"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

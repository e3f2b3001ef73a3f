package sources

import (
	"bytes"
	"fmt"
	"io"
)

// layout is how an input's records are laid out, which decides how the
// pipeline cuts it before handing pieces to an adapter.
type layout uint8

const (
	// layoutLines: text lines, possibly wrapped (Fluent Bit JSON, CRI or
	// kubectl timestamp prefixes), each handed to one lineAdapter.
	layoutLines layout = iota + 1
	// layoutJSON: JSON values (arrays, envelopes, objects, NDJSON), each
	// element handed to the first jsonAdapter that matches it.
	layoutJSON
	// layoutYAML: YAML documents, converted to JSON and then read as layoutJSON.
	layoutYAML
	// layoutCloudWatch: an `aws logs filter-log-events` JSON export whose
	// events carry text lines.
	layoutCloudWatch
	// layoutPrettyArray and layoutNDJSON: layoutJSON in the two shapes that
	// can be cut by lines (see looksLikePrettyArray and looksLikeNDJSON).
	layoutPrettyArray
	layoutNDJSON
	// layoutTable: a kubectl text table, read whole by one tableAdapter.
	layoutTable
	// layoutJoinedJSON: JSON access lines pretty-printed or wrapped over
	// several lines (pasted), each object made one line again
	// (jsonLineJoiner) and handed to one lineAdapter.
	layoutJoinedJSON
)

// plan is what detection decided about one input.
type plan struct {
	layout layout
	// line is the adapter for layoutLines and layoutCloudWatch.
	line lineAdapter
	// table is the adapter for layoutTable.
	table tableAdapter
	// env is the envelope around each line for layoutLines, nil for bare
	// lines (see envelopes.go).
	env lineEnvelope
	// format is the detected format, reported until records say otherwise.
	format Format
}

// sampleLines bounds how many lines detection looks at.
const sampleLines = 50

// detect decides how to read an input from its first bytes. complete says
// whether head holds the whole input; lines are the line adapters to try
// (Options.lineAdapterSet).
func detect(head []byte, complete bool, lines []lineAdapter) (plan, error) {
	raw := head
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	body := bytes.TrimLeft(head, " \t\r\n")
	if len(body) == 0 {
		return plan{}, errEmpty
	}
	switch {
	case body[0] == '{' || body[0] == '[':
		if looksLikeCloudWatchExport(body) {
			sample := cloudWatchSample(body)
			if a, _ := voteLines(sample, lines, nil); a != nil {
				return plan{layout: layoutCloudWatch, line: a, format: a.Format()}, nil
			}
			return plan{}, nearestFormat(bytes.Join(sample, []byte("\n")), true, lines)
		}
		if complete && noJSONElement(body) {
			return plan{}, errNoElement
		}
		if a := matchJSONSample(body); a != nil {
			switch {
			case looksLikePrettyArray(raw):
				return plan{layout: layoutPrettyArray, format: a.Format()}, nil
			case looksLikeNDJSON(body):
				return plan{layout: layoutNDJSON, format: a.Format()}, nil
			}
			return plan{layout: layoutJSON, format: a.Format()}, nil
		}
		if a := matchJoinedJSON(body, complete, lines); a != nil {
			return plan{layout: layoutJoinedJSON, line: a, format: a.Format()}, nil
		}
	case looksLikeYAML(body):
		if f, ok := yamlFormat(body); ok {
			return plan{layout: layoutYAML, format: f}, nil
		}
	}
	if a := matchTable(textSample(head, complete)); a != nil {
		return plan{layout: layoutTable, table: a, format: a.Format()}, nil
	}
	if env, a := voteEnvelopes(textSample(head, complete), lines); a != nil {
		return plan{layout: layoutLines, line: a, env: env, format: a.Format()}, nil
	}
	return plan{}, nearestFormat(head, complete, lines)
}

// matchJoinedJSON returns the line adapter that reads the first JSON
// object of body made one line (jsonLineJoiner), when its first line
// alone is no line of that adapter: a JSON access line pretty-printed
// over several lines (pasted from a viewer or jq) or wrapped by a
// terminal or an issue; nil otherwise. JSON lines one per line are read
// as lines.
func matchJoinedJSON(body []byte, complete bool, lines []lineAdapter) lineAdapter {
	first := textSample(body, complete)
	sp := newJSONSplitter(newJSONLineJoiner(bytes.NewReader(body)), 64<<10)
	elem, _, err := sp.Next()
	if err != nil || len(elem) == 0 || elem[0] != '{' || len(first) == 0 {
		return nil
	}
	for _, a := range lines {
		if a.Match(elem) && !a.Match(bytes.TrimSpace(first[0])) {
			return a
		}
	}
	return nil
}

// matchTable returns the table adapter whose format the sample lines are
// in, wrappers taken off; nil for none.
func matchTable(sample [][]byte) tableAdapter {
	lines := make([][]byte, 0, len(sample))
	var scratch []byte
	for _, l := range sample {
		var inner []byte
		inner, _, scratch = unwrapLine(bytes.TrimRight(l, " \t\r"), scratch)
		lines = append(lines, bytes.Clone(inner))
	}
	for _, a := range tableAdapters {
		if a.MatchTable(lines) {
			return a
		}
	}
	return nil
}

// errEmpty is returned for an input with nothing but white space.
var errEmpty = fmt.Errorf("empty input")

// errNoElement is returned for a whole JSON input that holds no element: an
// empty array, or an envelope of one (a List with no items, `gcloud logging
// read` of a window without entries).
var errNoElement = fmt.Errorf("%w: a JSON document with no element", errEmpty)

// noJSONElement reports whether the JSON document body, whole, holds no
// element for an adapter.
func noJSONElement(body []byte) bool {
	_, _, err := newJSONSplitter(bytes.NewReader(body), 64<<10).Next()
	return err == io.EOF
}

// matchJSONSample returns the JSON adapter of the first element of body, which
// may be cut short.
func matchJSONSample(body []byte) jsonAdapter {
	s := newJSONSplitter(bytes.NewReader(body), 64<<10)
	for i := 0; i < sampleLines; i++ {
		elem, _, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			// The head may end inside the first element: match what there is.
			elem = s.elem
		}
		if a := jsonAdapterFor(elem); a != nil {
			return a
		}
		if err != nil && err != errNotJSON {
			break
		}
	}
	return nil
}

// jsonAdapterFor returns the first JSON adapter that matches elem.
func jsonAdapterFor(elem []byte) jsonAdapter {
	for _, a := range jsonAdapters {
		if a.MatchJSON(elem) {
			return a
		}
	}
	return nil
}

// textSample returns the first lines of head, dropping a last line that may be
// cut short unless head is the whole input.
func textSample(head []byte, complete bool) [][]byte {
	var lines [][]byte
	for len(head) > 0 && len(lines) < sampleLines {
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			if complete {
				lines = append(lines, head)
			}
			break
		}
		lines = append(lines, head[:i])
		head = head[i+1:]
	}
	return lines
}

// cloudWatchSample returns the messages of the first events of a CloudWatch export.
func cloudWatchSample(body []byte) [][]byte {
	s := newJSONSplitter(bytes.NewReader(body), 64<<10)
	var lines [][]byte
	for len(lines) < sampleLines {
		elem, _, err := s.Next()
		if err != nil {
			break
		}
		msg, _, err := cloudWatchEvent(elem)
		if err == nil {
			lines = append(lines, bytes.Clone(msg))
		}
	}
	return lines
}

// voteEnvelopes returns the envelope (nil for none) and the adapter that
// read the most sample lines: an envelope is chosen only when more lines
// are read through it than bare, and the first of the table on a tie.
func voteEnvelopes(lines [][]byte, adapters []lineAdapter) (lineEnvelope, lineAdapter) {
	a, best := voteLines(lines, adapters, nil)
	var env lineEnvelope
	for _, e := range lineEnvelopes {
		if ea, n := voteLines(lines, adapters, e); n > best {
			env, a, best = e, ea, n
		}
	}
	return env, a
}

// voteLines unwraps each sample line, taking env off first when it is in
// one, and returns the one of adapters that matches the most of them with
// that number, or nil when none matches any.
func voteLines(lines [][]byte, adapters []lineAdapter, env lineEnvelope) (lineAdapter, int) {
	votes := make([]int, len(adapters))
	var scratch, envScratch []byte
	for _, l := range lines {
		if env != nil {
			var inner []byte
			var ok bool
			if inner, _, envScratch, ok = env.Unwrap(l, envScratch); ok {
				l = inner
			}
		}
		var inner []byte
		inner, _, scratch = unwrapLine(l, scratch)
		inner = bytes.TrimSpace(inner)
		if len(inner) == 0 {
			continue
		}
		for i, a := range adapters {
			if a.Match(inner) {
				votes[i]++
			}
		}
	}
	best := -1
	for i, v := range votes {
		if v > 0 && (best < 0 || v > votes[best]) {
			best = i
		}
	}
	if best < 0 {
		return nil, 0
	}
	return adapters[best], votes[best]
}

// looksLikeYAML reports whether body starts like a Kubernetes YAML manifest.
func looksLikeYAML(body []byte) bool {
	for _, l := range textSample(body, true) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		for _, p := range []string{"---", "apiVersion:", "kind:", "items:", "metadata:"} {
			if bytes.HasPrefix(t, []byte(p)) {
				return true
			}
		}
		return false
	}
	return false
}

// yamlFormat guesses from the kinds a YAML head names whether it holds events
// or other objects. Each element is still matched on its own when read.
func yamlFormat(body []byte) (Format, bool) {
	sawKind := false
	for _, l := range textSample(body, true) {
		t := bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(l), []byte("- ")))
		k, ok := bytes.CutPrefix(t, []byte("kind:"))
		if !ok {
			continue
		}
		sawKind = true
		k = bytes.Trim(bytes.TrimSpace(k), `"'`)
		if string(k) == "Event" || string(k) == "EventList" {
			return FormatK8sEvents, true
		}
	}
	return FormatK8sObjects, sawKind
}

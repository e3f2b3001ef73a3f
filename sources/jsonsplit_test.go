package sources

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

type splitResult struct {
	elems []string
	lines []int
	errs  []int // lines of errors
}

func splitAll(t testing.TB, in string, bufSize int) splitResult {
	t.Helper()
	s := newJSONSplitter(strings.NewReader(in), bufSize)
	var res splitResult
	for i := 0; i < 10000; i++ {
		e, line, err := s.Next()
		if errors.Is(err, io.EOF) {
			return res
		}
		if err != nil {
			res.errs = append(res.errs, line)
			continue
		}
		res.elems = append(res.elems, string(e))
		res.lines = append(res.lines, line)
	}
	t.Fatalf("splitter did not terminate on %q", in)
	return res
}

func TestJSONSplitter(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		elems []string
		lines []int
		errs  []int
	}{
		{"gcloud array pretty", "[\n  {\n    \"a\": 1\n  },\n  {\n    \"b\": [1, 2]\n  }\n]\n",
			[]string{"{\n    \"a\": 1\n  }", "{\n    \"b\": [1, 2]\n  }"}, []int{2, 5}, nil},
		{"empty array", "[]\n", nil, nil, nil},
		{"ndjson", "{\"a\":1}\n{\"b\":\"x}\"}\n\n{\"c\":{\"d\":[]}}\n",
			[]string{`{"a":1}`, `{"b":"x}"}`, `{"c":{"d":[]}}`}, []int{1, 2, 4}, nil},
		// The line breaks between a top-level object's keys are kept: each
		// line of the element is the input's (see parseJSONElement).
		{"single object", "{\n \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\"}\n}",
			[]string{"{\n\"kind\":\"Pod\",\n\"metadata\":{\"name\": \"a\"}\n}"}, []int{1}, nil},
		{"k8s list envelope", "{\n\"apiVersion\": \"v1\",\n\"items\": [\n{\"kind\":\"Pod\"},\n{\"kind\":\"Service\"}\n],\n\"kind\": \"List\",\n\"metadata\": {\"resourceVersion\": \"\"}\n}\n",
			[]string{`{"kind":"Pod"}`, `{"kind":"Service"}`}, []int{4, 5}, nil},
		{"entries envelope with trailing token", `{"entries": [{"insertId": "a"}, {"insertId": "b"}], "nextPageToken": "x"}`,
			[]string{`{"insertId": "a"}`, `{"insertId": "b"}`}, []int{1, 1}, nil},
		{"items that are not an array", `{"items": 3, "kind": "X"}`, []string{`{"items":3,"kind":"X"}`}, []int{1}, nil},
		{"escaped quotes", `{"m":"a \"quoted\" \\ word"}`, []string{`{"m":"a \"quoted\" \\ word"}`}, []int{1}, nil},
		{"garbage line between ndjson", "{\"a\":1}\ntestraw\n{\"b\":2}\n",
			[]string{`{"a":1}`, `{"b":2}`}, []int{1, 3}, []int{2}},
		{"cut ndjson line", "{\"a\":1}\n{\"b\": {\"c\": 2\n{\"d\":3}\n",
			[]string{`{"a":1}`, `{"d":3}`}, []int{1, 3}, []int{2}},
		{"truncated array", "[{\"a\":1},{\"b\":", []string{`{"a":1}`}, []int{1}, []int{1}},
		{"bom-less leading spaces", "  \n\n {\"a\":1}", []string{`{"a":1}`}, []int{3}, nil},
	}
	for _, tt := range tests {
		for _, bufSize := range []int{1, 7, 4096} {
			got := splitAll(t, tt.in, bufSize)
			if strings.Join(got.elems, "|") != strings.Join(tt.elems, "|") {
				t.Errorf("%s (buf %d): elems\n got %q\nwant %q", tt.name, bufSize, got.elems, tt.elems)
			}
			if !equalInts(got.lines, tt.lines) {
				t.Errorf("%s (buf %d): lines %v, want %v", tt.name, bufSize, got.lines, tt.lines)
			}
			if !equalInts(got.errs, tt.errs) {
				t.Errorf("%s (buf %d): error lines %v, want %v", tt.name, bufSize, got.errs, tt.errs)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzJSONSplitter checks that the splitter always terminates, never panics,
// and that every element of a valid JSON array comes out valid.
func FuzzJSONSplitter(f *testing.F) {
	for _, s := range []string{`[{"a":1},{"b":[2]}]`, "{\"a\":1}\n{\"b\":2}", `{"items":[{"x":"y"}],"k":1}`, `{"a":"\"`, "[", "{\"entries\":[1,2,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		res := splitAll(t, in, 16)
		var arr []json.RawMessage
		if json.Unmarshal([]byte(in), &arr) == nil && strings.HasPrefix(strings.TrimSpace(in), "[") {
			if len(res.elems) != len(arr) || len(res.errs) != 0 {
				t.Fatalf("valid array of %d gave %d elements, %d errors", len(arr), len(res.elems), len(res.errs))
			}
			for _, e := range res.elems {
				if !json.Valid([]byte(e)) {
					t.Fatalf("element %q of a valid array is not valid JSON", e)
				}
			}
		}
	})
}

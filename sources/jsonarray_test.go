package sources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
)

// recordingHandler keeps a line per record: its origin and main fields.
type recordingHandler struct {
	mu   sync.Mutex
	recs []string
}

func (h *recordingHandler) Request(r *Request) {
	h.mu.Lock()
	h.recs = append(h.recs, fmt.Sprintf("%d %s %d %s %v %s", r.Origin.Line, r.Time, r.Status, r.Failure, r.Backend, r.Path))
	h.mu.Unlock()
}
func (h *recordingHandler) Lifecycle(l *Lifecycle) {
	h.mu.Lock()
	h.recs = append(h.recs, fmt.Sprintf("%d %s %s %v", l.Origin.Line, l.Time, l.Kind, l.IP))
	h.mu.Unlock()
}
func (h *recordingHandler) Config(*Config) {}

// readRecords reads one file and returns its records, sorted, and its
// report; slow reads it through jsonSplitter whatever its layout.
func readRecords(t *testing.T, path string, slow bool) ([]string, *InputReport) {
	t.Helper()
	defer func() { slowJSON = false }()
	slowJSON = slow
	h := &recordingHandler{}
	res, err := Read(t.Context(), []string{path}, Options{}, func(*InputReport) Handler { return h })
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(h.recs)
	return h.recs, res.Inputs[0]
}

// TestPrettyArrayMatchesTheSplitter checks the two-space indented array
// path against the general JSON splitter on the same elements: the same
// records at the same lines, for LF and CRLF input, an element larger than
// a read block, and a broken element.
func TestPrettyArrayMatchesTheSplitter(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", "gcp", "gcloud-logging-read.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !looksLikePrettyArray(fixture) {
		t.Fatal("the gcloud fixture is not seen as a pretty-printed array")
	}
	// The fixture's elements, each cut out with its line break.
	body := strings.TrimSuffix(strings.TrimPrefix(string(fixture), "[\n"), "\n]\n")
	elems := strings.Split(body, "\n  },\n")
	for i := range elems[:len(elems)-1] {
		elems[i] += "\n  }"
	}
	big := strings.Replace(elems[0], `"requestMethod": "GET"`, `"requestMethod": "GET", "padding": "`+strings.Repeat("p", readBufferSize+1000)+`"`, 1)
	broken := strings.Replace(elems[0], `"requestMethod": "GET"`, `"requestMethod": GET"`, 1)
	// build joins elements into an array, each with an insertId of its own so
	// that deduplication keeps them all.
	build := func(list []string) string {
		out := make([]string, len(list))
		for i, e := range list {
			out[i] = strings.Replace(e, `"insertId": "`, fmt.Sprintf(`"insertId": "%d-`, i), 1)
		}
		return "[\n" + strings.Join(out, ",\n") + "\n]\n"
	}
	many := func() []string {
		var out []string
		for len(strings.Join(out, "")) < 3*batchBytes {
			out = append(out, elems...)
		}
		return out
	}
	// oneLine prints an element's members on a single line between its
	// braces, the shortest element a closing line can follow.
	oneLine := func(e string) string {
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(strings.TrimSpace(e))); err != nil {
			t.Fatal(err)
		}
		// build makes each insertId unique where it finds `"insertId": "`.
		members := strings.Replace(b.String(), `"insertId":"`, `"insertId": "`, 1)
		return "  {\n    " + strings.TrimSuffix(strings.TrimPrefix(members, "{"), "}") + "\n  }"
	}
	var mixed []string
	for i, e := range many() {
		if i%3 == 0 {
			e = oneLine(e)
		}
		mixed = append(mixed, e)
	}
	cases := map[string]string{
		"fixture":                string(fixture),
		"one-line elements":      build(mixed),
		"one-line elements crlf": strings.ReplaceAll(build(mixed), "\n", "\r\n"),
		"several blocks":         build(many()),
		"crlf":                   strings.ReplaceAll(build(many()), "\n", "\r\n"),
		"big element":            build(append(append(append([]string{}, elems...), big), elems...)),
		"broken element":         build(append(append(append([]string{}, elems...), broken), elems...)),
	}
	dir := t.TempDir()
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, dir, "in.json", []byte(text))
			got, gotRep := readRecords(t, path, false)
			if name == "broken element" {
				// The splitter loses track of strings after the stray quote and
				// merges the next elements into it; cut by lines, only the
				// broken element is lost.
				if len(got) != 2*len(elems) || gotRep.Skipped != 1 {
					t.Errorf("%d records, %d skipped; want %d and the broken element", len(got), gotRep.Skipped, 2*len(elems))
				}
				return
			}
			want, wantRep := readRecords(t, path, true)
			if len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("%d records, want %d; first %q, want %q", len(got), len(want), first(got), first(want))
			}
			if gotRep.Skipped != wantRep.Skipped || gotRep.Records != wantRep.Records {
				t.Errorf("report %+v, want %+v", gotRep, wantRep)
			}
		})
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// TestNDJSONMatchesTheSplitter checks the one-element-per-line path against
// the general splitter: the same records at the same lines for LF, CRLF, a
// byte order mark and a line larger than a read block; a line cut short
// loses only itself.
func TestNDJSONMatchesTheSplitter(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "fixtures", "formats", "gcp", "gcloud-logging-read.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(fixture, &entries); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for len(strings.Join(lines, "")) < 3*batchBytes {
		for _, e := range entries {
			var b bytes.Buffer
			json.Compact(&b, e)
			lines = append(lines, strings.Replace(b.String(), `"insertId":"`, fmt.Sprintf(`"insertId":"%d-`, len(lines)), 1))
		}
	}
	big := strings.Replace(lines[0], `"requestMethod":"GET"`, `"requestMethod":"GET","padding":"`+strings.Repeat("p", readBufferSize+1000)+`"`, 1)
	withBig := append([]string{}, lines[:5]...)
	withBig = append(append(withBig, big), lines[5:]...)
	cases := map[string]string{
		"lines":    strings.Join(lines, "\n") + "\n",
		"crlf":     strings.Join(lines, "\r\n") + "\r\n",
		"bom":      "\xef\xbb\xbf" + strings.Join(lines, "\n"),
		"big line": strings.Join(withBig, "\n") + "\n",
	}
	dir := t.TempDir()
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			head := []byte(text[:min(len(text), headSize)])
			if p, err := detect(head, false, lineAdapters); err != nil || p.layout != layoutNDJSON {
				t.Fatalf("detected as %v, %v", p.layout, err)
			}
			path := writeFile(t, dir, "in.json", []byte(text))
			got, gotRep := readRecords(t, path, false)
			if name == "bom" {
				// The splitter takes the marked first line for garbage.
				if len(got) != len(lines) || gotRep.Skipped != 0 {
					t.Errorf("%d records, %d skipped; want %d and 0", len(got), gotRep.Skipped, len(lines))
				}
				return
			}
			want, wantRep := readRecords(t, path, true)
			if len(got) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("%d records, want %d; first %q, want %q", len(got), len(want), first(got), first(want))
			}
			if gotRep.Skipped != wantRep.Skipped || gotRep.Records != wantRep.Records {
				t.Errorf("report %+v, want %+v", gotRep, wantRep)
			}
		})
	}
	cut := strings.Join(lines[:3], "\n") + "\n" + lines[3][:len(lines[3])/2] + "\n" + strings.Join(lines[4:10], "\n") + "\n"
	got, rep := readRecords(t, writeFile(t, dir, "cut.json", []byte(cut)), false)
	if len(got) != 9 || rep.Skipped != 1 {
		t.Errorf("cut line: %d records, %d skipped; want 9 and 1", len(got), rep.Skipped)
	}
}

// TestClosingLineBefore checks the search for an element's closing line:
// braces deeper in, inside strings or right after the start do not count.
func TestClosingLineBefore(t *testing.T) {
	for _, tt := range []struct {
		data string
		want int
	}{
		{"\n    \"a\": {\n      \"b\": \"}\"\n    },\n  }\n", 33},
		{"\n  }\n", 0},
		{"\n    \"x\": \"  }\"\n  },\n", 15},
		{"\n    \"a\": 1\n", -1},
		{"\n    }\n   }\n", -1},
		{"\n}", -1},
	} {
		if got := closingLineBefore([]byte(tt.data), 0); got != tt.want {
			t.Errorf("closingLineBefore(%q) = %d, want %d", tt.data, got, tt.want)
		}
	}
}

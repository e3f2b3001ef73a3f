package sources

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestYAMLToJSONMatchesSigsYAML checks the converter against the library
// readygap used before (and kubectl uses): the same JSON values.
func TestYAMLToJSONMatchesSigsYAML(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  labels: {app: web, \"tier\": front}\nspec:\n  terminationGracePeriodSeconds: 30\n  containers:\n  - name: app\n    ports:\n    - containerPort: 8080\n      name: http\n    readinessProbe:\n      httpGet: {path: /healthz, port: http}\n",
		"a: 1\nb: -2\nc: 0x1F\nd: 1.5\ne: 1e3\nf: true\ng: False\nh: ~\ni: null\nj: 'quoted'\nk: \"esc\\t\\\"x\\\"\"\nl: 2024-01-02T03:04:05Z\nm: 12:30\nn: 0o17\no: \"\\u00e9\"\n",
		"s: |\n  line one\n  line two\nf: >\n  folded\n  text\n",
		"base: &base {a: 1, b: 2}\nderived:\n  <<: *base\n  b: 3\n",
		"list: &l [1, 2]\ncopy: *l\n",
		"1: one\ntrue: yes\n",
		"- a\n- b: c\n",
		"on: off\nY: n\nq: 'yes'\nt: !!str yes\n",
	} {
		want, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		got, err := yamlToJSON(nil, []byte(doc), yamlDocument, defaultYAMLLimits)
		if err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Errorf("%q: invalid JSON %s: %v", doc, got, err)
			continue
		}
		json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%q:\n got %s\nwant %s", doc, got, want)
		}
	}
}

// TestYAMLToJSONBounds checks the alias budget and the depth bound on each
// side of their limits.
func TestYAMLToJSONBounds(t *testing.T) {
	limits := yamlLimits{chunk: 1 << 20, expansion: 1 << 10, depth: 8, perByte: yamlJSONPerByte, slack: 1 << 20}
	// Ten aliases of a 90-byte string: about 950 bytes of JSON, then 1,900.
	long := strings.Repeat("x", 90)
	fits := "a: &a " + long + "\nb: [" + strings.Repeat("*a, ", 9) + "*a]\n"
	if _, err := yamlToJSON(nil, []byte(fits), yamlDocument, limits); err != nil {
		t.Errorf("under the budget: %v", err)
	}
	over := "a: &a " + long + "\nb: [" + strings.Repeat("*a, ", 19) + "*a]\n"
	if _, err := yamlToJSON(nil, []byte(over), yamlDocument, limits); err == nil || !strings.Contains(err.Error(), "aliases expand") {
		t.Errorf("over the budget: err = %v", err)
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	if _, err := yamlToJSON(nil, []byte(deep(8)), yamlDocument, limits); err != nil {
		t.Errorf("at the depth bound: %v", err)
	}
	if _, err := yamlToJSON(nil, []byte(deep(9)), yamlDocument, limits); err == nil {
		t.Error("past the depth bound: accepted")
	}
	// Infinities, which JSON cannot hold, stay strings.
	if got, err := yamlToJSON(nil, []byte("a: .inf\nb: -.Inf\n"), yamlDocument, limits); err != nil || string(got) != `{"a":".inf","b":"-.Inf"}` {
		t.Errorf("infinities: %s, %v", got, err)
	}
	// An anchor that contains an alias to itself must end, not recurse forever.
	if _, err := yamlToJSON(nil, []byte("a: &a [*a]\n"), yamlDocument, defaultYAMLLimits); err == nil {
		t.Error("a self-referencing anchor was converted")
	}
}

// TestYAMLJSONBudgetBySize pins the budget a chunk's own size gives, below
// the absolute one: yamlJSONPerByte on each side on the densest YAML
// without aliases, yamlJSONSlack on each side on a small text with
// aliases, and a 1 KB bomb stopped at about 1 MiB with the defaults.
func TestYAMLJSONBudgetBySize(t *testing.T) {
	var keys []string
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			keys = append(keys, string(a)+string(b))
		}
	}
	dense := "{" + strings.Join(keys, ",") + "}\n"
	for _, tt := range []struct {
		perByte int
		ok      bool
	}{{yamlJSONPerByte, true}, {yamlJSONPerByte - 1, false}} {
		limits := yamlLimits{chunk: 1 << 20, expansion: 1 << 20, depth: 100, perByte: tt.perByte}
		js, err := yamlToJSON(nil, []byte(dense), yamlDocument, limits)
		if (err == nil) != tt.ok {
			t.Errorf("%d bytes of JSON a byte for %d bytes of YAML (%d of JSON): err = %v", tt.perByte, len(dense), len(js), err)
		}
	}
	aliased := "a: &a " + strings.Repeat("x", 90) + "\nb: [" + strings.Repeat("*a, ", 29) + "*a]\n"
	js, err := yamlToJSON(nil, []byte(aliased), yamlDocument, yamlLimits{chunk: 1 << 20, expansion: 1 << 20, depth: 100, perByte: 1, slack: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	fits := len(js) - yamlJSONPerByte*len(aliased)
	for _, tt := range []struct {
		slack int
		ok    bool
	}{{fits, true}, {fits - 200, false}} {
		limits := yamlLimits{chunk: 1 << 20, expansion: 1 << 20, depth: 100, perByte: yamlJSONPerByte, slack: tt.slack}
		if _, err := yamlToJSON(nil, []byte(aliased), yamlDocument, limits); (err == nil) != tt.ok {
			t.Errorf("slack %d for %d bytes of JSON: err = %v", tt.slack, len(js), err)
		}
	}
	var bomb strings.Builder
	bomb.WriteString("a0: &a0 \"" + strings.Repeat("x", 60) + "\"\n")
	for i := 1; i < 14; i++ {
		fmt.Fprintf(&bomb, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9), ","))
	}
	if bomb.Len() > 1024 {
		t.Fatalf("the bomb is %d bytes", bomb.Len())
	}
	want := fmt.Sprintf("YAML aliases expand past %d KiB of JSON (%d bytes of YAML)", (yamlJSONPerByte*bomb.Len()+yamlJSONSlack)>>10, bomb.Len())
	if _, err := yamlToJSON(nil, []byte(bomb.String()), yamlDocument, defaultYAMLLimits); err == nil || err.Error() != want {
		t.Errorf("the bomb: %v, want %q", err, want)
	}
}

// splitYAML runs the splitter over text with limits and returns the chunks
// and skips it reported, as "line:kind:first line" and "line:reason".
func splitYAML(t *testing.T, text string, limits yamlLimits) (chunks, skips []string) {
	t.Helper()
	s := &yamlSplitter{ctx: context.Background(), br: bufio.NewReaderSize(strings.NewReader(text), 64), limits: limits,
		emit: func(b []byte, line int, kind yamlChunkKind) {
			first, _, _ := strings.Cut(string(b), "\n")
			chunks = append(chunks, fmt.Sprintf("%d:%d:%s", line, kind, first))
		},
		skip: func(line int, reason string) { skips = append(skips, fmt.Sprintf("%d:%s", line, reason)) },
	}
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	return chunks, skips
}

func TestYAMLSplitter(t *testing.T) {
	limits := yamlLimits{chunk: 200, expansion: 1 << 20, depth: 100}
	tests := []struct {
		name, text    string
		chunks, skips []string
	}{
		{"documents", "# head\n---\na: 1\n---\n\nb: 2\n...\n--- c: 3\n",
			[]string{"3:0:a: 1", "6:0:b: 2", "8:0:c: 3"}, nil},
		{"a List's items, its own keys dropped", "apiVersion: v1\nitems:\n- kind: Pod\n  x: 1\n# comment\n\n- kind: Service\nkind: List\nmetadata: {}\n---\nz: 1\n",
			[]string{"3:1:- kind: Pod", "7:1:- kind: Service", "11:0:z: 1"}, nil},
		{"indented items", "items:\n  - a: 1\n    b: 2\n  - c: 3\nkind: List\n",
			[]string{"2:1:  - a: 1", "4:1:  - c: 3"}, nil},
		{"a top-level sequence", "- a: 1\n- b: 2\n  c: 3\n",
			[]string{"1:1:- a: 1", "2:1:- b: 2"}, nil},
		{"an item past the bound", "items:\n- a: 1\n- b: " + strings.Repeat("y", 150) + "\n  c: " + strings.Repeat("z", 150) + "\n- d: 4\n",
			[]string{"2:1:- a: 1", "5:1:- d: 4"}, []string{"3:YAML List item larger than 0 MiB"}},
		{"a document past the bound", "a: " + strings.Repeat("y", 150) + "\nb: " + strings.Repeat("z", 150) + "\n---\nc: 1\n",
			[]string{"4:0:c: 1"}, []string{"1:YAML document larger than 0 MiB"}},
		{"a line past the bound", "a: 1\nb: " + strings.Repeat("y", 300) + "\nc: 2\n---\nd: 1\n",
			[]string{"5:0:d: 1"}, []string{"1:YAML line longer than 0 MiB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, skips := splitYAML(t, tt.text, limits)
			if !reflect.DeepEqual(chunks, tt.chunks) || !reflect.DeepEqual(skips, tt.skips) {
				t.Errorf("chunks %q, skips %q\nwant %q, %q", chunks, skips, tt.chunks, tt.skips)
			}
		})
	}
}

// TestYAMLAliasBombIsSkipped checks that a small gzip'd alias bomb in a
// folder becomes a warning while the other inputs are read as without it.
func TestYAMLAliasBombIsSkipped(t *testing.T) {
	// Each level repeats the one before ten times: 10^8 copies of a 1 KB string.
	var bomb strings.Builder
	bomb.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  l0: &l0 \"" + strings.Repeat("lol", 340) + "\"\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&bomb, "  l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	bomb.WriteString("---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: after-the-bomb\n")
	gz := gzipBytes(t, []byte(bomb.String()))
	if len(gz) > 2048 {
		t.Fatalf("the bomb is %d bytes gzip'd", len(gz))
	}
	dir := t.TempDir()
	for _, f := range []string{"objects.yaml", "events.json"} {
		writeFile(t, dir, f, []byte(readFixtureFormat(t, f)))
	}
	clean, hClean := readPaths(t, Options{}, dir)
	writeFile(t, dir, "bomb.yaml.gz", gz)
	res, h := readPaths(t, Options{}, dir)
	if h.requests != hClean.requests || h.lifecycle != hClean.lifecycle || h.config != hClean.config+1 {
		t.Errorf("records %d/%d/%d, want %d/%d/%d and the Namespace after the bomb",
			h.requests, h.lifecycle, h.config, hClean.requests, hClean.lifecycle, hClean.config+1)
	}
	if !hasWarning(res, "bomb.yaml.gz:1:", "aliases expand past") {
		t.Errorf("no alias warning in %q", res.Warnings)
	}
	if len(res.Warnings) != len(clean.Warnings)+1 {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// readFixtureFormat reads one of the hand-written format examples.
func readFixtureFormat(t *testing.T, name string) string {
	t.Helper()
	b, err := readFileUnder("../fixtures/formats", name)
	if err != nil {
		t.Skipf("fixture %s: %v", name, err)
	}
	return string(b)
}

// TestYAMLHugeLineAndListStream checks the real bounds: a line past 16 MiB
// is skipped with its line number, and a List larger than a chunk may be is
// read item by item.
func TestYAMLHugeLineAndListStream(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 36 MB")
	}
	dir := t.TempDir()
	huge := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: " + strings.Repeat("x", maxYAMLChunk+1) + "\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: after\n"
	p := writeFile(t, dir, "huge-line.yaml", []byte(huge))
	res, h := readPaths(t, Options{}, p)
	if h.config != 1 || !hasWarning(res, "huge-line.yaml:1:", "longer than 16 MiB") {
		t.Errorf("huge line: %d objects, warnings %q", h.config, res.Warnings)
	}
	var list bytes.Buffer
	list.WriteString("apiVersion: v1\nitems:\n")
	n := 0
	for list.Len() <= maxYAMLChunk+1<<20 {
		fmt.Fprintf(&list, "- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: ns-%d\n    annotations:\n      note: %s\n", n, strings.Repeat("n", 200))
		n++
	}
	list.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	p = writeFile(t, dir, "big-list.yaml", list.Bytes())
	res, h = readPaths(t, Options{}, p)
	if h.config != n || res.Inputs[0].Skipped != 0 {
		t.Errorf("big List: %d of %d objects, %d skipped", h.config, n, res.Inputs[0].Skipped)
	}
}

func readFileUnder(dir, name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(dir, name))
}

package sources

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestJSONKeyScannerIssues checks the duplicate keys and invalid UTF-8
// found in JSON elements: keys equal as written or once unescaped, in the
// same object only (not in a nested one, not in sibling objects of an
// array, not a value equal to a key), lines counted from the element's
// first, the column of the first invalid byte, and quotes inside strings.
func TestJSONKeyScannerIssues(t *testing.T) {
	tests := []struct {
		name, elem string
		want       []jsonIssue
	}{
		{"none", `{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}], "d": "a"}`, nil},
		{"same line", `{"a": 1, "a": 2}`, []jsonIssue{{Key: "a", First: 1, Second: 1}}},
		{"lines", "{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}", []jsonIssue{{Key: "a", First: 2, Second: 4}}},
		{"nested", "{\"m\": {\n\"x\": {\"k\": 1},\n\"x\": 2}}", []jsonIssue{{Key: "x", First: 2, Second: 3}}},
		{"in array element", `[{"k": 1, "k": 2}]`, []jsonIssue{{Key: "k", First: 1, Second: 1}}},
		{"escaped", `{"name": 1, "n\u0061me": 2}`, []jsonIssue{{Key: "name", First: 1, Second: 1}}},
		{"quote in key", `{"a\"b": 1, "a\"b": 2, "a\\": 3}`, []jsonIssue{{Key: `a"b`, First: 1, Second: 1}}},
		{"value is not a key", `{"a": "a", "b": ["a", "a"]}`, nil},
		{"three times", `{"a": 1, "a": 2, "a": 3}`, []jsonIssue{{Key: "a", First: 1, Second: 1}, {Key: "a", First: 1, Second: 1}}},
		{"invalid UTF-8", "{\n  \"name\": \"caf\xe9\"\n}", []jsonIssue{{Line: 2, Column: 15}}},
		{"invalid UTF-8 key", "{\"k\xff\": 1}", []jsonIssue{{Line: 1, Column: 4}}},
		{"valid UTF-8", `{"name": "café ✓"}`, nil},
		{"cut short", `{"a": 1, "a`, []jsonIssue{{Key: "a", First: 1, Second: 1}}},
	}
	var sc jsonKeyScanner
	for _, tt := range tests {
		var got []jsonIssue
		sc.issues([]byte(tt.elem), func(is jsonIssue) { got = append(got, is) })
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %+v; want %+v", tt.name, got, tt.want)
		}
	}
}

// TestJSONObjectsDuplicateKeysAndInvalidUTF8 reads Kubernetes objects
// written as JSON — an object pretty-printed, a List as kubectl prints
// it, one object a line — and requires a warning for each key written
// twice naming both lines of the input, and for each string that is not
// UTF-8 naming its line and byte, the objects read as Go's decoders read
// them (the last key wins); an access log's JSON is not scanned.
func TestJSONObjectsDuplicateKeysAndInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	ns := func(name, extra string) string {
		return fmt.Sprintf(`{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": %q%s}}`, name, extra)
	}
	pretty := "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Namespace\",\n  \"metadata\": {\n    \"name\": \"one\",\n    \"name\": \"two\"\n  }\n}\n"
	list := "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        " + ns("a", "") + ",\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Namespace\",\n            \"metadata\": {\"name\": \"caf\xe9\"},\n            \"kind\": \"Namespace\"\n        }\n    ],\n    \"kind\": \"List\"\n}\n"
	ndjson := ns("x", "") + "\n" + ns("y", `, "labels": {"k": "1", "k": "2"}`) + "\n"
	paths := []string{writeFile(t, dir, "pretty.json", []byte(pretty)), writeFile(t, dir, "list.json", []byte(list)), writeFile(t, dir, "objects.ndjson", []byte(ndjson))}
	res, h := readPaths(t, Options{}, paths...)
	if h.config != 5 {
		t.Errorf("%d objects read; want 5", h.config)
	}
	for _, w := range []string{
		`pretty.json: lines 5 and 6: duplicate key "name" in one object: readygap reads the last, kubectl refuses the object (strict field validation)`,
		`list.json: lines 7 and 9: duplicate key "kind" in one object`,
		`list.json: line 8, byte 38: invalid UTF-8 in a string: readygap reads each such byte as U+FFFD`,
		`objects.ndjson: line 2: duplicate key "k" in one object`,
	} {
		if !hasWarning(res, w) {
			t.Errorf("no warning %q in %q", w, res.Warnings)
		}
	}
	if len(res.Warnings) != 4 {
		t.Errorf("%d warnings; want 4: %q", len(res.Warnings), res.Warnings)
	}
	// The same keys twice in Envoy's JSON access log are the log's own.
	envoy := `{"start_time":"2026-03-10T12:00:00.000Z","method":"GET","path":"/","response_code":200,"response_flags":"-","upstream_host":"10.0.0.1:8080","upstream_cluster":"web","duration":1,"path":"/x"}` + "\n"
	res, _ = readPaths(t, Options{}, writeFile(t, dir, "envoy.json", []byte(envoy)))
	for _, w := range res.Warnings {
		if strings.Contains(w, "duplicate key") {
			t.Errorf("an access log's key warned of: %q", w)
		}
	}
}

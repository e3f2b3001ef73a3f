package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestJSONIndenterMatchesIndent writes documents with empty and nested
// objects and arrays, and strings holding every character the indenter
// reads (quotes, backslashes, braces, commas, colons), through
// writeIndentedJSON and, a byte at a time, through jsonIndenter, and
// requires json.MarshalIndent's layout byte for byte.
func TestJSONIndenterMatchesIndent(t *testing.T) {
	docs := []any{
		map[string]any{},
		[]any{},
		"plain",
		42.5,
		nil,
		map[string]any{"a": []any{}, "b": map[string]any{}, "c": []any{map[string]any{}, []any{[]any{}}, 1, true, nil}},
		map[string]any{`k{"[\\`: `v}]",:\"\\\\`, "x": []string{`\"`, `\\`, `{`, `,:`, `é😀<&>`}},
		saved(t, "nginx-wrong-probe-port"),
	}
	for i, doc := range docs {
		want, err := json.MarshalIndent(doc, "", jsonIndent)
		must(t, err)
		want = append(want, '\n')
		var got bytes.Buffer
		must(t, writeIndentedJSON(&got, doc))
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("doc %d: %s", i, lineDiff(string(want), got.String()))
		}
		compact, err := json.Marshal(doc)
		must(t, err)
		var b strings.Builder
		bw := bufio.NewWriter(&b)
		d := &jsonIndenter{w: bw}
		for j := range compact {
			d.Write(compact[j : j+1])
		}
		must(t, bw.Flush())
		if b.String()+"\n" != string(want) {
			t.Errorf("doc %d byte by byte: %s", i, lineDiff(string(want), b.String()+"\n"))
		}
	}
}

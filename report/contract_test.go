package report

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// contractPaths lists every field of the JSON contract as a path:
// "summary.changes[].incidents", with "[]" for the elements of a list.
func contractPaths(t reflect.Type, prefix string, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || t == reflect.TypeOf(time.Time{}) {
		return
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			contractPaths(f.Type, prefix, out)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		out[path] = true
		contractPaths(f.Type, path, out)
	}
}

var reContractRow = regexp.MustCompile("(?m)^\\| (`[^|]*`) \\|")

// TestREADMEDocumentsEveryField checks that the table of the JSON contract
// in docs/json.md has a row for every field of Report, and none for a field that
// does not exist. A row names one or more fields in its first cell: a full
// path, then more fields of the same parent as ".name".
func TestREADMEDocumentsEveryField(t *testing.T) {
	missing, extra := contractTableDiff(t, reflect.TypeOf(Report{}), "json.md", "## JSON output", "\n## ")
	if len(missing) > 0 {
		t.Errorf("docs/json.md's JSON table lacks %d fields:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	if len(extra) > 0 {
		t.Errorf("docs/json.md's JSON table documents fields the contract lacks:\n%s", strings.Join(extra, "\n"))
	}
}

// contractTableDiff compares the fields of typ with the rows of the table
// in docs/<doc> under heading (up to the next line starting with next):
// the fields no row names, and the names no field has, sorted.
func contractTableDiff(t *testing.T, typ reflect.Type, doc, heading, next string) (missing, extra []string) {
	t.Helper()
	want := map[string]bool{}
	contractPaths(typ, "", want)
	text, err := os.ReadFile(filepath.Join("..", "docs", doc))
	must(t, err)
	s := string(text)
	i := strings.Index(s, heading)
	if i < 0 {
		t.Fatalf("docs/%s has no %q section", doc, heading)
	}
	section := s[i:]
	if j := strings.Index(section[len(heading):], next); j >= 0 {
		section = section[:j+len(heading)]
	}
	documented := map[string]bool{}
	for _, m := range reContractRow.FindAllStringSubmatch(section, -1) {
		parent := ""
		for _, cell := range strings.Split(m[1], ", ") {
			p := strings.Trim(cell, "`")
			if strings.HasPrefix(p, ".") {
				p = parent + p
			} else if k := strings.LastIndex(p, "."); k >= 0 {
				parent = p[:k]
			} else {
				parent = ""
			}
			documented[strings.TrimSuffix(strings.TrimPrefix(p, "."), "[]")] = true // "incidents[]" is the list "incidents"
		}
	}
	for p := range want {
		if !documented[p] {
			missing = append(missing, p)
		}
	}
	for p := range documented {
		if !want[p] {
			extra = append(extra, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

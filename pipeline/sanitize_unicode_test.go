package pipeline

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/readygap/readygap/report"
)

// runesOf lists every code point of a Unicode table (the standard library's
// tables, so that a test covers the whole category, not a hand list).
func runesOf(t *unicode.RangeTable) []rune {
	var out []rune
	for _, r := range t.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			out = append(out, c)
		}
	}
	for _, r := range t.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			out = append(out, c)
		}
	}
	return out
}

// escapedForm is how Sanitize shows an unsafe rune.
func escapedForm(r rune) string {
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u{%04x}`, r)
}

// hiddenTables are the Unicode tables whose every character Sanitize must
// show escaped: the controls, the separators that break a line, the format
// characters (bidirectional controls, zero-width space and joiners, BOM,
// soft hyphen, tag characters, U+180E), the variation selectors and the
// other default-ignorable characters (Hangul fillers, the combining grapheme
// joiner, the rest of the tag block).
var hiddenTables = map[string]*unicode.RangeTable{
	"Cc": unicode.Cc, "Cf": unicode.Cf, "Zl": unicode.Zl, "Zp": unicode.Zp,
	"Variation_Selector":                 unicode.Variation_Selector,
	"Other_Default_Ignorable_Code_Point": unicode.Other_Default_Ignorable_Code_Point,
}

// hidden reports whether r is in one of hiddenTables.
func hidden(r rune) bool {
	for _, t := range hiddenTables {
		if unicode.Is(t, r) {
			return true
		}
	}
	return false
}

// TestSanitizeUnicodeCategories runs Sanitize over every character of every
// Unicode category: those of hiddenTables come out escaped, alone and
// between letters; every other character (letters, marks, digits,
// punctuation, symbols, spaces, private use) comes out as it went in.
func TestSanitizeUnicodeCategories(t *testing.T) {
	for name, table := range hiddenTables {
		n := 0
		for _, r := range runesOf(table) {
			n++
			if got, want := report.Sanitize("a"+string(r)+"b"), "a"+escapedForm(r)+"b"; got != want {
				t.Errorf("%s: Sanitize(a %U b) = %q, want %q", name, r, got, want)
			}
		}
		if n == 0 {
			t.Errorf("%s: no characters", name)
		}
	}
	for _, tc := range []struct {
		name string
		r    rune
	}{{"zero-width space", 0x200B}, {"zero-width non-joiner", 0x200C}, {"zero-width joiner", 0x200D}, {"BOM", 0xFEFF},
		{"soft hyphen", 0xAD}, {"tag A", 0xE0041}, {"cancel tag", 0xE007F}, {"language tag", 0xE0001}, {"unassigned tag", 0xE0000},
		{"Mongolian vowel separator", 0x180E}, {"Hangul filler", 0x3164}, {"Hangul choseong filler", 0x115F},
		{"Hangul jungseong filler", 0x1160}, {"halfwidth Hangul filler", 0xFFA0}, {"variation selector 16", 0xFE0F},
		{"variation selector 17", 0xE0100}, {"right-to-left override", 0x202E}, {"word joiner", 0x2060}} {
		if !hidden(tc.r) || !report.UnsafeRune(tc.r) {
			t.Errorf("%s %U is not among the characters Sanitize escapes", tc.name, tc.r)
		}
	}
	for name, table := range unicode.Categories {
		if name == "Cs" || len(name) == 1 { // surrogates are no runes of a string; one letter: the union of the others
			continue
		}
		for _, r := range runesOf(table) {
			if hidden(r) {
				continue
			}
			if s := "a" + string(r) + "b"; report.Sanitize(s) != s {
				t.Errorf("%s: Sanitize(a %U b) = %q, want it unchanged", name, r, report.Sanitize(s))
			}
		}
	}
}

// hiddenText holds every character of hiddenTables past ASCII but the
// line breaks, between letters.
func hiddenText() string {
	var b strings.Builder
	b.WriteString("pod-")
	for _, table := range []*unicode.RangeTable{unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point} {
		for _, r := range runesOf(table) {
			if r >= 0x80 {
				b.WriteRune(r)
			}
		}
	}
	b.WriteString("-end")
	return b.String()
}

// rawHidden returns the first character of hiddenTables in out but a line
// break or a tab, which the renderers write themselves; -1 when there is
// none.
func rawHidden(out string) rune {
	for _, r := range out {
		if r != '\n' && r != '\t' && hidden(r) {
			return r
		}
	}
	return -1
}

// TestEveryFormatShowsHiddenCharacters renders text holding every hidden
// character (hiddenText) in every output of analyze (text, Markdown, HTML,
// JSON) and of check (text, JSON, SARIF, JUnit): none reaches the output
// raw; the human formats show each escaped, and the JSON report decodes
// to the text the inputs held.
func TestEveryFormatShowsHiddenCharacters(t *testing.T) {
	text := hiddenText()
	visible := report.Sanitize(text)
	for _, must := range []string{`\u{202e}`, `\u{200b}`, `\u{feff}`, `\u{e0041}`, `\u{3164}`, `\u{fe0f}`, `\u{180e}`, `\u{00ad}`} {
		if !strings.Contains(visible, must) {
			t.Fatalf("Sanitize of the hidden text lacks %s", must)
		}
	}
	rep := &report.Report{Schema: report.SchemaVersion, Warnings: []string{text}}
	for _, f := range report.Formats {
		var b bytes.Buffer
		must(t, report.Write(&b, f, rep))
		out := b.String()
		if r := rawHidden(out); r >= 0 {
			t.Errorf("%s: raw %U in the output", f, r)
		}
		if f == report.JSON {
			var back report.Report
			must(t, json.Unmarshal(b.Bytes(), &back))
			if !slices.Equal(back.Warnings, []string{text}) {
				t.Errorf("JSON: the warning decodes to %+q, want the text read", back.Warnings)
			}
			continue
		}
		if !strings.Contains(out, `\u{202e}`) || !strings.Contains(out, `\u{e0041}`) {
			t.Errorf("%s: the hidden characters are not shown escaped:\n%.2000s", f, out)
		}
	}

	// check: a Deployment named with them, read from YAML as a user writes it.
	body, err := os.ReadFile(manifests("nginx-wrong-probe-port/broken.yaml"))
	must(t, err)
	var esc strings.Builder
	for _, r := range text {
		fmt.Fprintf(&esc, `\U%08x`, r)
	}
	evil := strings.ReplaceAll(string(body), "name: gateway-canary\n  namespace: gray\nspec:\n  replicas", "name: \""+esc.String()+"\"\n  namespace: gray\nspec:\n  replicas")
	if evil == string(body) {
		t.Fatal("the fixture no longer names gateway-canary")
	}
	p := filepath.Join(t.TempDir(), "evil.yaml")
	must(t, os.WriteFile(p, []byte(evil), 0o644))
	crep := check(t, p)
	if !slices.ContainsFunc(crep.Workloads, func(o report.ObjectRef) bool { return o.Name == text }) {
		t.Fatalf("the Deployment's name was not read whole: %+q", crep.Workloads)
	}
	for _, f := range report.CheckFormats {
		out := renderCheck(t, f, crep)
		if r := rawHidden(out); r >= 0 {
			t.Errorf("check %s: raw %U in the output", f, r)
		}
		switch f {
		case report.CheckJUnit:
			var got report.JUnitSuites
			must(t, xml.Unmarshal([]byte(out), &got))
			named := false
			for _, s := range got.Suites {
				for _, c := range s.Cases {
					if r := rawHidden(c.Name + c.File + c.SystemOut); r >= 0 || (c.Failure != nil && rawHidden(c.Failure.Message+c.Failure.Text) >= 0) {
						t.Errorf("check junit: a test case decodes to a raw %U: %+q", r, c.Name)
					}
					named = named || strings.Contains(c.Name, visible)
				}
			}
			if !named {
				t.Error("check junit: no test case names the Deployment escaped")
			}
		case report.CheckSARIF:
			var got report.SARIFLog
			must(t, json.Unmarshal([]byte(out), &got))
			for _, res := range got.Runs[0].Results {
				if r := rawHidden(res.Message.Text + res.Locations[0].LogicalLocations[0].FullyQualifiedName); r >= 0 {
					t.Errorf("check sarif: a result's text decodes to a raw %U", r)
				}
			}
		case report.CheckText:
			if !strings.Contains(out, `\u{202e}`) {
				t.Errorf("check text: the hidden characters are not shown escaped")
			}
		}
	}
}

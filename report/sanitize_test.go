package report

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text: GET /api/items", "plain text: GET /api/items"},
		{"ünïcödé ok", "ünïcödé ok"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bell\a and nul\x00", `bell\x07 and nul\x00`},
		{"tab\tand\nnewline\r", `tab\x09and\x0anewline\x0d`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
		{"c1 \u009b csi", `c1 \u{009b} csi`},
		{"line sep \u2028", `line sep \u{2028}`},
		// Every bidirectional control, which would reorder what follows.
		{"gpj.\u202Eexe", `gpj.\u{202e}exe`},
		{"\u202A\u202B\u202C\u202D", `\u{202a}\u{202b}\u{202c}\u{202d}`},
		{"\u2066a\u2067b\u2068c\u2069", `\u{2066}a\u{2067}b\u{2068}c\u{2069}`},
		{"\u200E\u200F\u061C", `\u{200e}\u{200f}\u{061c}`},
		// Letters of right-to-left scripts are text, not controls.
		{"שלום مرحبا", "שלום مرحبا"},
		// Invisible characters make one name look like another.
		{"zero\u200Bwidth", `zero\u{200b}width`},
		{"web\u200C\u200D\u2060\uFEFF\u00AD", `web\u{200c}\u{200d}\u{2060}\u{feff}\u{00ad}`},
		{"tag\U000E0041\U000E007F", `tag\u{e0041}\u{e007f}`},
		{"mvs\u180E hangul\u3164\u115F\uFFA0 vs\uFE0F\U000E0100", `mvs\u{180e} hangul\u{3164}\u{115f}\u{ffa0} vs\u{fe0f}\u{e0100}`},
		// Joined emoji lose their joiners and selectors, not their pictures.
		{"\u2764\uFE0F", `❤\u{fe0f}`},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("\x1b]52;c;ZXZpbA==\a")
	f.Add("\u202Eevil")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Sanitize(s) {
			if UnsafeRune(r) {
				t.Fatalf("Sanitize(%q) left rune %U", s, r)
			}
		}
	})
}

// TestJSONEscapesUnsafeRunes checks that the JSON report writes DEL, C1 and
// bidirectional controls as \u escapes and that they decode to the text the
// inputs held.
func TestJSONEscapesUnsafeRunes(t *testing.T) {
	text := "GET /\u202Egnp.exe \u0085 \u2066x\u2069 \x1b[31m \x7f ok é"
	rep := &Report{Schema: SchemaVersion, Warnings: []string{text}}
	var b bytes.Buffer
	must(t, renderJSON(&b, rep))
	out := b.String()
	for _, r := range out {
		if r != '\n' && UnsafeRune(r) {
			t.Fatalf("raw %U in JSON output: %s", r, out)
		}
	}
	for _, esc := range []string{`\u202e`, `\u0085`, `\u2066`, `\u2069`, `\u001b`, `\u007f`} {
		if !strings.Contains(out, esc) {
			t.Errorf("JSON lacks the escape %s: %s", esc, out)
		}
	}
	var back Report
	must(t, json.Unmarshal(b.Bytes(), &back))
	if len(back.Warnings) != 1 || back.Warnings[0] != text {
		t.Errorf("decoded %q, want %q", back.Warnings, text)
	}
}

// TestJSONEscaperSplitRunes writes a document with unsafe and safe
// multi-byte runes through jsonEscaper one byte at a time, and in two
// writes cut at every byte, and requires what escapeUnsafeJSON makes of
// the whole.
func TestJSONEscaperSplitRunes(t *testing.T) {
	doc := []byte("{\"a\": \"\u202egnp.exe é 😀 \u0085 \u2066x\u2069 end\"}\n")
	want := string(escapeUnsafeJSON(doc))
	if !strings.Contains(want, `\u202e`) || !strings.Contains(want, "😀") {
		t.Fatalf("escapeUnsafeJSON: %s", want)
	}
	var b strings.Builder
	e := &jsonEscaper{w: &b}
	for i := range doc {
		if n, err := e.Write(doc[i : i+1]); n != 1 || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	must(t, e.flush())
	if b.String() != want {
		t.Errorf("byte by byte: %q, want %q", b.String(), want)
	}
	for cut := range doc {
		b.Reset()
		e := &jsonEscaper{w: &b}
		e.Write(doc[:cut])
		e.Write(doc[cut:])
		must(t, e.flush())
		if b.String() != want {
			t.Errorf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
	// A document cut inside a rune keeps its bytes.
	b.Reset()
	e = &jsonEscaper{w: &b}
	e.Write([]byte("\"\xe2\x80"))
	must(t, e.flush())
	if b.String() != "\"\xe2\x80" {
		t.Errorf("a cut rune: %q", b.String())
	}
}

// hostileMarkdown are texts from logs that would become markup if pasted
// into Markdown as they are: links, images, raw HTML, autolinks of every
// kind GitHub makes, entities that produce characters, emphasis, code,
// table breakers and block starters.
var hostileMarkdown = []string{
	`GET /a?q=[click](https://evil.example/x) → 502`,
	`![img](https://evil.example/i.png)`,
	`<img src=x onerror=alert(1)> <script>alert(1)</script>`,
	`<https://evil.example/auto>`,
	`see https://evil.example/bare and HTTP://EVIL.example and ftp://x.example/`,
	`visit www.evil.example/path now`,
	`mail admin@evil.example please`,
	`&#x202E; &lt;b&gt; &amp;`,
	`*bold* _it_ **b** ~~s~~ ` + "`code`" + ` $x^2$`,
	`a | b | c`,
	`# heading`,
	`1. item`,
	`12) item`,
	`- bullet`,
	`+ plus`,
	`> quote`,
	`[ref]: https://evil.example/ref`,
	`[x][ref] and [ref]`,
	`back\slash \[ \<`,
	"GET /\u202Egnp.exe",
}

var (
	reMDTags = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>`)
	reMDKept = map[string]bool{"p": true, "ul": true, "li": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true}
)

// TestMarkdownEscapesUntrustedText renders hostile log text as paragraphs,
// list items and table cells with a CommonMark + GFM renderer (goldmark with
// GitHub's extensions, autolinks included) and checks that no link, image
// or HTML comes out and that the rendered text equals the sanitized input.
func TestMarkdownEscapesUntrustedText(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for _, s := range hostileMarkdown {
		for _, doc := range []struct{ name, src string }{
			{"paragraph", mdText(s) + "\n"},
			{"list item", "- " + mdText(s) + "\n"},
			{"table cell", "| a | b |\n|---|---|\n| " + mdCell(s) + " | x |\n"},
		} {
			var out bytes.Buffer
			must(t, md.Convert([]byte(doc.src), &out))
			got := out.String()
			for _, m := range reMDTags.FindAllStringSubmatch(got, -1) {
				if !reMDKept[m[2]] {
					t.Errorf("%s of %q became <%s%s>: %s", doc.name, s, m[1], m[2], got)
				}
			}
			text := strings.TrimSpace(html.UnescapeString(reMDTags.ReplaceAllString(got, "")))
			if doc.name == "table cell" {
				text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(text, "a\nb\n\n\n"), "\nx"))
			}
			if want := Sanitize(s); text != want {
				t.Errorf("%s of %q renders as %q, want %q (source %q)", doc.name, s, text, want, doc.src)
			}
		}
	}
	// Code spans keep file names whole; in a table cell a '|' is escaped.
	var out bytes.Buffer
	must(t, md.Convert([]byte("| a |\n|---|\n| "+mdCodeCell("x|`y`.log:3")+" |\n"), &out))
	if !strings.Contains(out.String(), "<code>x|'y'.log:3</code>") {
		t.Errorf("code span in a cell: %s", out.String())
	}
}

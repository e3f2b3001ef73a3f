package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/internal/golden"
)

// seedFixtures are the recreated seed incidents whose HTML structure is pinned
// by golden files, plus the largest fixture, whose long input zooms the axis.
var seedFixtures = []string{"gke-neg-zone-move", "eks-alb-no-gate", "nginx-wrong-probe-port", "eks-alb-termination-race", "eks-alb-large"}

// fixtureReport analyzes the fixture folder dir and returns its report.
func fixtureReport(tb testing.TB, dir string) *Report { return analyze(tb, dir) }

// TestRenderHTMLGolden renders each seed fixture as HTML and compares a
// structural summary (headings, lanes with their segments and markers, shaded
// windows, bars, tables) with testdata/NAME.html.golden; go test -update
// rewrites the files.
func TestRenderHTMLGolden(t *testing.T) {
	for _, name := range seedFixtures {
		t.Run(name, func(t *testing.T) {
			got := htmlStructure(t, render(t, HTML, analyze(t, fixture(name))))
			golden.Assert(t, filepath.Join("testdata", name+".html.golden"), []byte(got))
			if !strings.Contains(got, "windows: lanes=") || strings.Contains(got, "windows: lanes=0 ") {
				t.Errorf("no shaded incident window:\n%s", got)
			}
		})
	}
}

var (
	reH2        = regexp.MustCompile(`(?s)<h2>(.*?)</h2>`)
	reTag       = regexp.MustCompile(`<[^>]*>`)
	reLane      = regexp.MustCompile(`(?s)<g class="lane" data-name="([^"]*)">(.*?)</g>`)
	reRole      = regexp.MustCompile(`<text class="role"[^>]*>([^<]*)</text>`)
	reSegClass  = regexp.MustCompile(`class="seg ([a-z-]+)`)
	reMarkClass = regexp.MustCompile(`class="mk (m-[a-z]+)"`)
	reCaption   = regexp.MustCompile(`(?s)<figcaption>(.*?)</figcaption>`)
	reRow       = regexp.MustCompile(`<tr><td`)
	reFixTitle  = regexp.MustCompile(`<h3 class="fix">([^<]*)</h3>`)
	reInputName = regexp.MustCompile(`<tr><td class="txt">([^<]*)</td><td>([^<]*)</td>`)
)

// htmlStructure summarises a report page: the parts a reader relies on,
// without the coordinates and texts that change with every tweak.
func htmlStructure(t *testing.T, page string) string {
	t.Helper()
	var b strings.Builder
	text := func(s string) string { return html.UnescapeString(reTag.ReplaceAllString(s, "")) }
	for _, m := range reH2.FindAllStringSubmatch(page, -1) {
		fmt.Fprintf(&b, "h2: %s\n", text(m[1]))
	}
	lanes, series := chartOf(page, "lanes"), chartOf(page, "series")
	fmt.Fprintf(&b, "zoomed: %v\n", strings.Contains(page, `class="note zoom"`))
	laneMatches := reLane.FindAllStringSubmatch(lanes, -1)
	fmt.Fprintf(&b, "lanes: %d\n", len(laneMatches))
	for _, m := range laneMatches {
		role := "-"
		if r := reRole.FindStringSubmatch(m[2]); r != nil {
			role = r[1]
		}
		var segs, marks []string
		for _, s := range reSegClass.FindAllStringSubmatch(m[2], -1) {
			segs = append(segs, s[1])
		}
		for _, s := range reMarkClass.FindAllStringSubmatch(m[2], -1) {
			marks = append(marks, s[1])
		}
		fmt.Fprintf(&b, "  lane %s [%s] segs=%s markers=%s\n", html.UnescapeString(m[1]), role, strings.Join(segs, ","), strings.Join(marks, ","))
	}
	fmt.Fprintf(&b, "windows: lanes=%d series=%d\n", strings.Count(lanes, `<rect class="window"`), strings.Count(series, `<rect class="window"`))
	fmt.Fprintf(&b, "bars: %d\n", strings.Count(series, `<g class="bucket">`))
	for _, m := range reCaption.FindAllStringSubmatch(series, -1) {
		fmt.Fprintf(&b, "bars caption: %s\n", text(m[1]))
	}
	for _, sec := range strings.Split(page, `<section class="details"`)[1:] {
		sec = sec[:strings.Index(sec, "</section>")]
		ev, mo := tableOf(sec, "evidence"), tableOf(sec, "moments")
		fmt.Fprintf(&b, "details: evidence rows=%d moment rows=%d\n", len(reRow.FindAllString(ev, -1)), len(reRow.FindAllString(mo, -1)))
		for _, m := range reFixTitle.FindAllStringSubmatch(sec, -1) {
			fmt.Fprintf(&b, "  fix: %s\n", html.UnescapeString(m[1]))
		}
	}
	for _, m := range reInputName.FindAllStringSubmatch(tableOf(page, "inputs"), -1) {
		fmt.Fprintf(&b, "input: %s (%s)\n", html.UnescapeString(m[1]), m[2])
	}
	fmt.Fprintf(&b, "warnings: %d\n", strings.Count(listOf(page, "warnings"), "<li>"))
	fmt.Fprintf(&b, "scripts: %d, policy: %v\n", strings.Count(page, "<script"), strings.Contains(page, `http-equiv="Content-Security-Policy"`))
	return b.String()
}

// chartOf is the markup of the chart SVG with the given id.
func chartOf(page, id string) string {
	i := strings.Index(page, `<svg class="chart" id="`+id+`"`)
	if i < 0 {
		return ""
	}
	end := strings.Index(page[i:], "</figure>")
	return page[i : i+end]
}

// tableOf is the markup of the table with the given class.
func tableOf(page, class string) string {
	i := strings.Index(page, `<table class="`+class+`">`)
	if i < 0 {
		return ""
	}
	return page[i : i+strings.Index(page[i:], "</table>")]
}

// listOf is the markup of the list with the given class.
func listOf(page, class string) string {
	i := strings.Index(page, `<ul class="`+class+`">`)
	if i < 0 {
		return ""
	}
	return page[i : i+strings.Index(page[i:], "</ul>")]
}

// pageElements are the only elements a report page may contain; anything
// else (an <img>, a second <script>) came from log content.
var pageElements = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "script": true,
	"h1": true, "h2": true, "h3": true, "p": true, "b": true, "a": true, "span": true, "section": true,
	"dl": true, "dt": true, "dd": true, "ul": true, "li": true, "pre": true, "code": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "figure": true, "figcaption": true,
	"svg": true, "defs": true, "pattern": true, "g": true, "rect": true, "line": true, "path": true, "circle": true, "text": true,
}

var (
	reAnyTag   = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)`)
	reOpenTag  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<>]*")*)\s*/?>`)
	reTagStart = regexp.MustCompile(`<[a-zA-Z]`)
)

// TestRenderHTMLHostileContent renders fixtures/hostile-content — request
// paths, user agents, event messages and node names carrying <script>,
// quotes, </svg>, </title> and control characters, and pod names of 253
// characters — from a folder whose own name is hostile, and checks that all
// of it arrives as inert text.
func TestRenderHTMLHostileContent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "in<script>alert('dir')</script>\"\x1b[31m</title>")
	copyDir(t, filepath.Join("..", "fixtures", "hostile-content"), dir)

	// The hostile text must reach the report, or this test proves nothing.
	rep := fixtureReport(t, dir)
	var all strings.Builder
	enc := json.NewEncoder(&all)
	enc.SetEscapeHTML(false)
	must(t, enc.Encode(rep))
	decoded := all.String()
	for _, want := range []string{"<script>alert('path')</script>", `<script>alert(\"kill\")</script></svg></title>`, `\u001b`, "in<script>alert('dir')"} {
		if !strings.Contains(decoded, want) {
			t.Fatalf("hostile text %q did not reach the report", want)
		}
	}
	longest := 0
	for _, l := range rep.Lanes {
		longest = max(longest, len(l.Name))
	}
	if longest != 253 {
		t.Fatalf("longest pod name = %d characters, want 253", longest)
	}

	var buf bytes.Buffer
	must(t, renderHTML(&buf, rep))
	page := buf.String()

	// Only the page's own elements, each tag well formed with quoted attribute values.
	for _, m := range reAnyTag.FindAllStringSubmatch(page, -1) {
		if !pageElements[strings.ToLower(m[2])] {
			t.Errorf("element <%s%s> is not one the page makes: log content became markup", m[1], m[2])
		}
	}
	for _, loc := range reTagStart.FindAllStringIndex(page, -1) {
		tag := reOpenTag.FindString(page[loc[0]:])
		if tag == "" || !strings.HasPrefix(page[loc[0]:], tag) {
			end := min(loc[0]+200, len(page))
			t.Errorf("malformed tag or attribute at %d: %q", loc[0], page[loc[0]:end])
		}
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		t.Errorf("%d <script> elements, want only the page's own", n)
	}
	if !strings.Contains(page, "<script>"+htmlScript+"</script>") {
		t.Errorf("the page's script was altered")
	}
	for _, pair := range [][2]string{{"<svg", "</svg>"}, {"<title>", "</title>"}, {"<table", "</table>"}, {"<g ", "</g>"}} {
		if o, c := strings.Count(page, pair[0]), strings.Count(page, pair[1]); o != c {
			t.Errorf("%d %s but %d %s: content closed an element", o, pair[0], c, pair[1])
		}
	}
	for i, r := range page {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == '\u2028' || r == '\u2029' || r == '\uFFFD' {
			t.Fatalf("raw control character %U at %d: %q", r, i, page[max(i-60, 0):min(i+20, len(page))])
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(&#39;path&#39;)&lt;/script&gt;", // a request path in the evidence table
		"&lt;/svg&gt;&lt;/title&gt;",                         // an event message in a marker tooltip
		`\x1b[31m`,                                           // ESC shown, not sent
		"&lt;img src=x onerror=alert(1)&gt;",
		`data-name="web.xxxxxxxx`,
		"in&lt;script&gt;alert(&#39;dir&#39;)&lt;/script&gt;&#34;", // the folder's name, quote escaped
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped form %q", want)
		}
	}
	if !strings.Contains(page, "script-src 'sha256-") && !strings.Contains(page, "script-src &#39;sha256-") {
		t.Errorf("no Content-Security-Policy limiting scripts to the page's own")
	}
}

// copyDir copies the files of src (one level) into a new folder dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	must(t, os.MkdirAll(dst, 0o755))
	entries, err := os.ReadDir(src)
	must(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644))
	}
}

// TestHTMLChartsScale draws a synthetic rollout of 50 pods over a 2-hour
// input with a marker storm and checks the limits that keep it readable:
// at most maxBars bars, lanes of at least 14 px, capped markers, and an axis
// zoomed to the incidents ±5 minutes.
func TestHTMLChartsScale(t *testing.T) {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	rep := &Report{Series: &Series{Start: at(0), StepSeconds: 1, Columns: seriesColumns}}
	for i := 0; i < 7200; i++ {
		rep.Series.Values = append(rep.Series.Values, []int{100, 0, i % 7, 0, 0, 0, 0, 0, 1})
	}
	for i := 0; i < 50; i++ {
		l := Lane{Name: fmt.Sprintf("web-abc-%02d", i), ReplicaSet: "web-abc", Role: "new", Milestones: map[string]time.Time{
			"created": at(time.Hour + time.Duration(i)*10*time.Second), "ready": at(time.Hour + time.Duration(i)*10*time.Second + 5*time.Second)}}
		for k := 0; k < 300; k++ {
			l.Markers = append(l.Markers, Marker{Time: at(time.Hour + time.Duration(k)*time.Second), Kind: "probe_failed", Text: "Readiness probe failed"})
		}
		rep.Lanes = append(rep.Lanes, l)
	}
	rep.Incidents = []Incident{{Start: at(time.Hour + 2*time.Minute), End: at(time.Hour + 3*time.Minute), Cause: "registration_lag"}}
	c := newCharts(rep)
	if c.Zoom == "" {
		t.Fatalf("a 2-hour input with an incident is not zoomed")
	}
	if got, want := time.UnixMilli(c.T1).Sub(time.UnixMilli(c.T0)), 11*time.Minute; got != want {
		t.Errorf("zoomed span = %v, want %v (the incident ±5 minutes)", got, want)
	}
	if len(c.Bars) == 0 || len(c.Bars) > maxBars {
		t.Errorf("%d bars, want 1..%d", len(c.Bars), maxBars)
	}
	if len(c.Lanes) != 50 || laneHeight < 14 {
		t.Errorf("%d lanes of %d px, want 50 of at least 14 px", len(c.Lanes), laneHeight)
	}
	for _, l := range c.Lanes {
		if len(l.Markers) > maxGlyphs {
			t.Fatalf("lane %s has %d marker glyphs, want at most %d", l.Name, len(l.Markers), maxGlyphs)
		}
	}
	rep.Incidents = nil
	c = newCharts(rep)
	if c.Zoom != "" || len(c.Bars) > maxBars {
		t.Errorf("without incidents: zoom %q, %d bars; want the whole input in at most %d bars", c.Zoom, len(c.Bars), maxBars)
	}
	var buf bytes.Buffer
	must(t, renderHTML(&buf, rep))
	if n := strings.Count(buf.String(), `class="lane"`); n != 50 {
		t.Errorf("%d lanes drawn, want 50", n)
	}
}

// BenchmarkRenderHTMLLargest renders the largest fixture's report, built once.
func BenchmarkRenderHTMLLargest(b *testing.B) {
	rep := fixtureReport(b, filepath.Join("..", "fixtures", "eks-alb-large"))
	b.ReportAllocs()
	for b.Loop() {
		if err := renderHTML(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}

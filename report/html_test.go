package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/internal/golden"
	"github.com/readygap/readygap/internal/words"
)

// seedFixtures are the recreated seed incidents whose HTML structure is pinned
// by golden files, plus the largest fixture, whose long input zooms the axis.
var seedFixtures = []string{"gke-neg-zone-move", "eks-alb-no-gate", "nginx-wrong-probe-port", "eks-alb-termination-race", "eks-alb-large"}

// fixtureReport analyzes the fixture folder dir and returns its report.

// TestRenderHTMLGolden renders each seed fixture as HTML and compares a
// structural summary (headings, lanes with their segments and markers, shaded
// windows, bars, tables) with testdata/NAME.html.golden; go test -update
// rewrites the files.
func TestRenderHTMLGolden(t *testing.T) {
	for _, name := range seedFixtures {
		t.Run(name, func(t *testing.T) {
			got := htmlStructure(t, render(t, HTML, saved(t, name)))
			golden.Assert(t, filepath.Join("testdata", name+".html.golden"), []byte(got))
			if !strings.Contains(got, "windows: lanes=") || strings.Contains(got, "windows: lanes=0 ") {
				t.Errorf("no shaded incident window:\n%s", got)
			}
		})
	}
}

var (
	reH2        = regexp.MustCompile(`(?s)<h2[^>]*>(.*?)</h2>`)
	reTag       = regexp.MustCompile(`<[^>]*>`)
	reGroupRow  = regexp.MustCompile(`<text class="group-label"[^>]*>([^<]*)</text>`)
	reLane      = regexp.MustCompile(`(?s)<g class="lane" data-name="([^"]*)"><text class="lane-label"[^>]*>([^<]*)<title>(.*?)</g>`)
	reSegClass  = regexp.MustCompile(`class="st st-([a-z_]+) (c\d)"`)
	reMarkClass = regexp.MustCompile(`class="mk (m-[a-z]+)"`)
	reCaption   = regexp.MustCompile(`(?s)<p class="note">(Requests per.*?)</p>`)
	reRow       = regexp.MustCompile(`<tr><td`)
	reChange    = regexp.MustCompile(`<h3 id="change-\d+">([^<]*)<small>`)
	reFixLink   = regexp.MustCompile(`<a href="#(change-\d+)">`)
	reInputName = regexp.MustCompile(`<tr><td class="src">([^<]*)</td><td data-label="format">([^<]*)</td>`)
	reSummaryTD = regexp.MustCompile(`(?s)<td data-label="cause">(.*?)</td>`)
)

// htmlStructure summarises a report page: the parts a reader relies on,
// without the coordinates and texts that change with every tweak.
func htmlStructure(t *testing.T, page string) string {
	t.Helper()
	page = strings.ReplaceAll(page, "<wbr>", "")
	var b strings.Builder
	text := func(s string) string {
		return strings.Join(strings.Fields(html.UnescapeString(reTag.ReplaceAllString(s, ""))), " ")
	}
	for _, m := range reH2.FindAllStringSubmatch(page, -1) {
		fmt.Fprintf(&b, "h2: %s\n", text(m[1]))
	}
	summary := page[strings.Index(page, `<section class="summary`):]
	summary = summary[:strings.Index(summary, "</section>")]
	for _, m := range reSummaryTD.FindAllStringSubmatch(summary, -1) {
		fmt.Fprintf(&b, "summary cause: %s\n", text(m[1]))
	}
	fmt.Fprintf(&b, "summary changes: %d, caveats: %d\n", strings.Count(summary, "<li><a href=\"#change-"), strings.Count(listOf(summary, "caveats"), "<li>"))
	lanes, series := chartOf(page, "lanes"), chartOf(page, "series")
	for _, m := range reGroupRow.FindAllStringSubmatch(lanes, -1) {
		fmt.Fprintf(&b, "group: %s\n", html.UnescapeString(m[1]))
	}
	laneMatches := reLane.FindAllStringSubmatch(lanes, -1)
	fmt.Fprintf(&b, "lanes: %d\n", len(laneMatches))
	for _, m := range laneMatches {
		var segs, marks []string
		colour := ""
		for _, s := range reSegClass.FindAllStringSubmatch(m[3], -1) {
			segs = append(segs, s[1])
			colour = s[2]
		}
		for _, s := range reMarkClass.FindAllStringSubmatch(m[3], -1) {
			marks = append(marks, s[1])
		}
		fmt.Fprintf(&b, "  lane %s %q %s states=%s markers=%s\n", html.UnescapeString(m[1]), html.UnescapeString(m[2]), colour, strings.Join(segs, ","), strings.Join(marks, ","))
	}
	fmt.Fprintf(&b, "windows: lanes=%d series=%d\n", strings.Count(lanes, `<rect class="window"`), strings.Count(series, `<rect class="window"`))
	fmt.Fprintf(&b, "bars: %d\n", strings.Count(series, `<g class="bucket">`))
	for _, m := range reCaption.FindAllStringSubmatch(page, -1) {
		fmt.Fprintf(&b, "bars caption: %s\n", text(m[1]))
	}
	for _, sec := range strings.Split(page, `<section class="incident"`)[1:] {
		sec = sec[:strings.Index(sec, "</section>")]
		fmt.Fprintf(&b, "incident: moments=%d evidence=%d backends=%d",
			len(reRow.FindAllString(tableOf(sec, "moments stack"), -1)), len(reRow.FindAllString(tableOf(sec, "evidence stack"), -1)),
			len(reRow.FindAllString(tableOf(sec, "backends stack"), -1)))
		if more := foldedOf(sec); more != "" {
			fmt.Fprintf(&b, " more=%d", len(reRow.FindAllString(more, -1)))
		}
		var fixes []string
		for _, m := range reFixLink.FindAllStringSubmatch(sec, -1) {
			fixes = append(fixes, m[1])
		}
		fmt.Fprintf(&b, " fix=%s\n", strings.Join(fixes, ","))
	}
	for _, m := range reChange.FindAllStringSubmatch(page, -1) {
		fmt.Fprintf(&b, "change: %s\n", strings.TrimSpace(html.UnescapeString(m[1])))
	}
	for _, m := range reInputName.FindAllStringSubmatch(tableOf(page, "inputs stack"), -1) {
		fmt.Fprintf(&b, "input: %s (%s)\n", html.UnescapeString(m[1]), m[2])
	}
	fmt.Fprintf(&b, "warnings: %d\n", strings.Count(listOf(page, "warnings"), "<li>"))
	fmt.Fprintf(&b, "scripts: %d, policy: %v, media rules: %d\n", strings.Count(page, "<script"), strings.Contains(page, `http-equiv="Content-Security-Policy"`),
		strings.Count(page, "@media"))
	return b.String()
}

// chartOf is the markup of the chart SVG with the given id.
func chartOf(page, id string) string {
	i := strings.Index(page, `<svg class="chart" id="`+id+`"`)
	if i < 0 {
		return ""
	}
	end := strings.Index(page[i:], "</svg>")
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

// foldedOf is the markup of an incident's folded table of the backends
// its table leaves out; "" when it has none.
func foldedOf(section string) string {
	i := strings.Index(section, `<details class="more">`)
	if i < 0 {
		return ""
	}
	return section[i : i+strings.Index(section[i:], "</details>")]
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
	"h1": true, "h2": true, "h3": true, "p": true, "b": true, "a": true, "span": true, "section": true, "small": true, "div": true,
	"ul": true, "ol": true, "li": true, "pre": true, "code": true, "wbr": true, "details": true, "summary": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "figure": true, "figcaption": true,
	"svg": true, "defs": true, "pattern": true, "g": true, "rect": true, "line": true, "path": true, "circle": true, "text": true,
}

var (
	reAnyTag   = regexp.MustCompile(`<(/?)([a-zA-Z][a-zA-Z0-9-]*)`)
	reOpenTag  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<>]*")*)\s*/?>`)
	reTagStart = regexp.MustCompile(`<[a-zA-Z]`)
)

// TestRenderHTMLHostileContent renders the report of fixtures/hostile-content — request
// paths, user agents, event messages and node names carrying <script>,
// quotes, </svg>, </title> and control characters, and pod names of 253
// characters — from a folder whose own name is hostile, and checks that all
// of it arrives as inert text.
func TestRenderHTMLHostileContent(t *testing.T) {
	// The saved report read the fixture from its own folder: name it as
	// read from the hostile one.
	dir := "in<script>alert('dir')</script>\"\x1b[31m</title>"
	rep := saved(t, "hostile-content")
	for i := range rep.Inputs {
		rep.Inputs[i].Name = filepath.Join(dir, rep.Inputs[i].Name)
	}

	// The hostile text must reach the report, or this test proves nothing.
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
		if !strings.Contains(strings.ReplaceAll(page, "<wbr>", ""), want) {
			t.Errorf("page lacks the escaped form %q", want)
		}
	}
	if !strings.Contains(page, "script-src 'sha256-") && !strings.Contains(page, "script-src &#39;sha256-") {
		t.Errorf("no Content-Security-Policy limiting scripts to the page's own")
	}
}

// TestHTMLChartsScale draws a synthetic rollout of 50 pods over a 2-hour
// input with a marker storm and checks the limits that keep it readable:
// the whole span drawn, at most maxBars bars, at most maxHTMLLanes rows of
// at least 14 px on a phone, and capped markers.
func TestHTMLChartsScale(t *testing.T) {
	rep := saved(t, "large-rollout")
	for i := range rep.Lanes {
		for k := 0; k < 300; k++ {
			rep.Lanes[i].Markers = append(rep.Lanes[i].Markers, Marker{Time: rep.Summary.First.Add(time.Hour + time.Duration(k)*time.Second), Kind: "probe_failed", Text: "Readiness probe failed"})
		}
	}
	c := newCharts(rep)
	if got, want := time.UnixMilli(c.T1).Sub(time.UnixMilli(c.T0)), rep.Summary.Last.Sub(rep.Summary.First); got != want {
		t.Errorf("axis spans %v, want the data's %v", got, want)
	}
	if len(c.Bars) == 0 || len(c.Bars) > maxBars {
		t.Errorf("%d bars, want 1..%d", len(c.Bars), maxBars)
	}
	if len(c.Lanes) == 0 || len(c.Lanes) > maxHTMLLanes {
		t.Errorf("%d lane rows, want 1..%d", len(c.Lanes), maxHTMLLanes)
	}
	if phone := float64(laneHeight) * chartMinWidth / chartWidth; phone < minLanePixels {
		t.Errorf("lanes are %.1f px tall at the narrowest, want at least %d", phone, minLanePixels)
	}
	for _, l := range c.Lanes {
		if len(l.Markers) > maxGlyphs {
			t.Fatalf("lane %s has %d marker glyphs, want at most %d", l.Name, len(l.Markers), maxGlyphs)
		}
	}
	var buf bytes.Buffer
	must(t, renderHTML(&buf, rep))
	if n := strings.Count(buf.String(), `<g class="lane"`); n != len(c.Lanes) {
		t.Errorf("%d lanes drawn, want %d", n, len(c.Lanes))
	}
}

// BenchmarkRenderHTMLLargest renders the largest fixture's report, built once.
func BenchmarkRenderHTMLLargest(b *testing.B) {
	rep := saved(b, "eks-alb-large")
	b.ReportAllocs()
	for b.Loop() {
		if err := renderHTML(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRenderHTMLNeutralisesBidiControls checks that a right-to-left
// override in log text reaches the page as visible text, not as a control
// that reorders what follows it.
func TestRenderHTMLNeutralisesBidiControls(t *testing.T) {
	at := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	rep := &Report{Incidents: []Incident{{ID: "incident-1", Start: at, End: at.Add(time.Second), Cause: "unknown", Confidence: "low",
		Summary: "GET /\u202Egnp.exe", Evidence: []Evidence{{Time: at, Source: "a\u2066.log:1", Text: "user \u202Dagent\u2069"}},
		Timeline: []Moment{{Time: at, What: "x\u200Fy", Who: "pod\u202A"}}}}}
	var buf bytes.Buffer
	must(t, renderHTML(&buf, rep))
	page := buf.String()
	for _, r := range page {
		if UnsafeRune(r) && r != '\n' && r != '\t' {
			t.Fatalf("raw %U in the page", r)
		}
	}
	for _, want := range []string{`\u{202e}gnp.exe`, `a\u{2066}.log:1`, `\u{202d}agent\u{2069}`, `x\u{200f}y`, `pod\u{202a}`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestWindowLabelsApart checks the incident labels over the charts for an
// incident that lasts nearly the whole axis with three short ones within
// it, two of them at the same moment: each incident is named by exactly
// one label, a label sits over (or at the edge of) each window it names,
// and no two labels overlap.
func TestWindowLabelsApart(t *testing.T) {
	rep := boundsReport(3, 0)
	at := func(s int) time.Time { return rep.Summary.First.Add(time.Duration(s) * time.Second) }
	rep.Incidents = nil
	for i, span := range [][2]int{{1, 59}, {10, 12}, {40, 41}, {40, 42}} {
		rep.Incidents = append(rep.Incidents, Incident{ID: fmt.Sprintf("incident-%d", i+1), Cause: "termination_race", Confidence: "high",
			Start: at(span[0]), End: at(span[1]), FailedRequests: 1})
	}
	c := newCharts(rep)
	named := map[string]int{}
	var labels []svgWindow
	for _, w := range c.Windows {
		if w.Label != "" {
			labels = append(labels, w)
		}
	}
	sort.Slice(labels, func(i, j int) bool { return labels[i].Mid < labels[j].Mid })
	for k, l := range labels {
		half := labelWidth(l.Label) / 2
		for _, n := range strings.Split(strings.TrimPrefix(l.Label, "#"), ",") {
			named[n]++
			i, _ := strconv.Atoi(n)
			w := c.Windows[i-1]
			if l.Mid+half < w.X || l.Mid-half > w.X+w.W {
				t.Errorf("label %q at %.0f is away from incident %s's window %.0f–%.0f", l.Label, l.Mid, n, w.X, w.X+w.W)
			}
		}
		if k > 0 && labels[k-1].Mid+labelWidth(labels[k-1].Label)/2 > l.Mid-half {
			t.Errorf("labels %q and %q overlap", labels[k-1].Label, l.Label)
		}
	}
	for i := range rep.Incidents {
		if n := named[strconv.Itoa(i+1)]; n != 1 {
			t.Errorf("incident %d is named by %d labels (labels %+v)", i+1, n, labels)
		}
	}
	// wideWindow on each side: a window of wideWindow labels has its label
	// in the middle; a wider one at its start.
	lw := labelWidth("#1")
	if got := windowLabelAt(100, wideWindow*lw, "#1"); got != 100+wideWindow*lw/2 {
		t.Errorf("a window %v wide has its label at %v, want its middle", wideWindow*lw, got)
	}
	if got := windowLabelAt(100, wideWindow*lw+1, "#1"); got != 100+lw/2 {
		t.Errorf("a window %v wide has its label at %v, want its start", wideWindow*lw+1, got)
	}
}

// TestLegendNamesWhatIsDrawn checks the lanes' legend of each seed
// fixture: it names a lane state or marker shape if and only if the lanes
// draw it, and the incident window only with an incident.
func TestLegendNamesWhatIsDrawn(t *testing.T) {
	entries := map[string]string{"st-starting": "starting", "st-ready": "Ready for Kubernetes", "st-lb_healthy": "healthy for the LB",
		"st-terminating": "terminating", "m-attach": "registered / NEG attach", "m-detach": "deregistered / detach",
		"m-gate": "readiness gate", "m-fail": "probe failed", "m-stop": "killed / deleted"}
	for _, name := range append([]string{"nginx-probe-fixed"}, seedFixtures...) {
		page := render(t, HTML, saved(t, name))
		start := strings.Index(page, `<svg class="chart" id="lanes"`)
		end := strings.Index(page[start:], "</svg></div>") + start
		lanes := page[start:end]
		legend := page[end : end+strings.Index(page[end:], "</figcaption>")]
		for class, label := range entries {
			drawn := regexp.MustCompile(`<(rect|path) class="(st|mk) [^"]*\b` + class + `\b`).MatchString(lanes)
			if listed := strings.Contains(legend, "</svg>"+label+"</li>"); drawn != listed {
				t.Errorf("%s: %s drawn %v, in the legend %v", name, class, drawn, listed)
			}
		}
		incidents := strings.Contains(lanes, `<rect class="window"`)
		if listed := strings.Contains(legend, "</svg>incident</li>"); incidents != listed {
			t.Errorf("%s: incident windows drawn %v, in the legend %v", name, incidents, listed)
		}
	}
}

// TestHTMLBackendsTableIsBounded checks that the HTML backends table shows
// the rows text and Markdown show (tableBackends: maxTableBackends, then
// one more leaves the last out) and folds the rest into a table of their
// own, under a line that counts them.
func TestHTMLBackendsTableIsBounded(t *testing.T) {
	for _, n := range []int{MaxTableBackends, MaxTableBackends + 1, MaxTableBackends + 3} {
		in := Incident{ID: "incident-1", Start: day0, End: day0.Add(time.Minute), DurationSeconds: 60, Cause: "termination_race", Confidence: "high", FailedRequests: n}
		for i := 0; i < n; i++ {
			in.Backends = append(in.Backends, Backend{IP: fmt.Sprintf("10.0.0.%d", i+1), Pod: fmt.Sprintf("web-old1-p%04d", i), Role: "old", Failures: 1, FailedRequests: 1})
		}
		page := strings.ReplaceAll(render(t, HTML, &Report{Schema: SchemaVersion, Incidents: []Incident{in}, Summary: Summary{Incidents: 1, FailedRequests: n}}), "<wbr>", "")
		sec := page[strings.Index(page, `<section class="incident"`):]
		shown, more := len(reRow.FindAllString(tableOf(sec, "backends stack"), -1)), len(reRow.FindAllString(foldedOf(sec), -1))
		if shown != min(n, MaxTableBackends) || more != n-shown {
			t.Errorf("%d backends: %d shown, %d folded; want %d shown and the rest folded", n, shown, more, min(n, MaxTableBackends))
		}
		for i := 0; i < n; i++ {
			if pod := fmt.Sprintf("web-old1-p%04d", i); !strings.Contains(sec, pod) {
				t.Errorf("%d backends: %s is missing", n, pod)
			}
		}
		if want := fmt.Sprintf("<summary>and %d more", n-shown); (more > 0) != strings.Contains(sec, want) {
			t.Errorf("%d backends: folded line %q present %v, want %v", n, want, strings.Contains(sec, want), more > 0)
		}
	}
}

// TestHTMLLaneTitleBoundsCandidates checks that the hover text of a lane
// whose IP the records cannot tie to one pod names its candidates as a
// backend's why does (classify.SomePods): a few, the rest counted, however
// many there are; the JSON report keeps them all.
func TestHTMLLaneTitleBoundsCandidates(t *testing.T) {
	reTitle := regexp.MustCompile(`<text class="lane-label"[^>]*>[^<]*<title>([^<]*one of the pods[^<]*)</title>`)
	for _, n := range []int{2, 25} {
		var pods []string
		for i := 0; i < n; i++ {
			pods = append(pods, fmt.Sprintf("web-7c9f8d6b5d-p%04d", i))
		}
		rep := &Report{Schema: SchemaVersion, Summary: Summary{First: day0, Last: day0.Add(time.Minute)}}
		rep.Lanes = []Lane{{Name: "10.1.0.9", IP: "10.1.0.9", ReplicaSet: "web-7c9f8d6b5d", Role: "old", OneOf: pods,
			States: []LaneState{{State: StateLBHealthy, From: day0, To: day0.Add(30 * time.Second)}}}}
		m := reTitle.FindStringSubmatch(render(t, HTML, rep))
		if m == nil {
			t.Fatalf("%d candidates: no lane title names them", n)
		}
		title := html.UnescapeString(m[1])
		if want := words.SomePods(pods); !strings.Contains(title, "one of the pods "+want+" (") {
			t.Errorf("%d candidates: title %q, want them as %q", n, title, want)
		}
		if last := pods[n-1]; strings.Contains(title, last) != (words.SomePods(pods) == strings.Join(pods, ", ")) {
			t.Errorf("%d candidates: the last, %s, named %v in %q", n, last, strings.Contains(title, last), title)
		}
	}
}

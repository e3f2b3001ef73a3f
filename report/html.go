package report

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// htmlStyle is the page's only CSS; the Content-Security-Policy admits it by hash.
const htmlStyle = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a202c;margin:24px auto;max-width:1120px;padding:0 12px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px}h3{font-size:15px;margin:18px 0 6px}
.sub{color:#4a5568;margin:0 0 16px}
.verdict{border-left:5px solid #c53030;background:#fff5f5;padding:10px 14px;margin:12px 0}
.verdict.none{border-color:#2f855a;background:#f0fff4}
.verdict h2{margin:0 0 6px}.verdict dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}
.verdict dt{color:#4a5568}.verdict dd{margin:0;overflow-wrap:anywhere}
.conf-high{color:#c53030}.conf-medium{color:#b7791f}.conf-low{color:#4a5568}
table.incidents{margin:4px 0}table{border-collapse:collapse;width:100%;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid #e2e8f0;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f7fafc}td.num,th.num{text-align:right}
td.t,td.src{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}td.t{white-space:nowrap}td.src{overflow-wrap:anywhere;width:28%}
td.txt{overflow-wrap:anywhere}
pre{background:#f7fafc;border:1px solid #e2e8f0;padding:8px 10px;overflow-x:auto;font-size:12px}
.note{color:#4a5568;font-size:13px}.zoom{background:#fffff0;border:1px solid #ecc94b;padding:4px 8px}
figure{margin:8px 0 4px}figcaption{font-size:13px;color:#4a5568;margin:2px 0}
svg.chart{display:block;width:100%;max-width:1100px;height:auto;font:11px system-ui,sans-serif;background:#fff}
.lane-bg{fill:#fff}.lane-bg.odd-bg{fill:#f4f6f9}
.lane-label{fill:#1a202c}.role{fill:#4a5568;font-weight:600}
.grid line{stroke:#cbd5e0;stroke-width:.6}.grid text,.yaxis text{fill:#4a5568}
.window{fill:#e53e3e;fill-opacity:.13;stroke:#e53e3e;stroke-opacity:.5;stroke-width:.8}
.window-label{fill:#c53030;font-weight:700;text-anchor:middle}
.seg.starting{fill-opacity:.3}.seg.terminating{fill:url(#hatch);stroke-width:1}
.seg.lb-reg{fill:#fff;stroke:#2f855a;stroke-width:.8}.seg.lb-ok{fill:#2f855a;stroke:none}.seg.served{fill:#1a202c;stroke:none}
.c0{fill:#2b6cb0;stroke:#2b6cb0;background:#2b6cb0}.c1{fill:#319795;stroke:#319795;background:#319795}
.c2{fill:#6b46c1;stroke:#6b46c1;background:#6b46c1}.c3{fill:#dd6b20;stroke:#dd6b20;background:#dd6b20}
.c4{fill:#b83280;stroke:#b83280;background:#b83280}.c5{fill:#975a16;stroke:#975a16;background:#975a16}
.c6{fill:#718096;stroke:#718096;background:#718096}
.mk{stroke:#1a202c;stroke-width:.8}.m-attach{fill:#3182ce}.m-detach{fill:#ed8936}.m-gate{fill:#9f7aea}
.m-fail{fill:none;stroke:#e53e3e;stroke-width:2}.m-stop{fill:#2d3748}.m-info{fill:#cbd5e0}
.o-ok{fill:#9ae6b4;background:#9ae6b4}.o-hidden{fill:#ecc94b;background:#ecc94b}.o-app{fill:#805ad5;background:#805ad5}
.o-nobackend{fill:#e53e3e;background:#e53e3e}.o-refused{fill:#dd6b20;background:#dd6b20}
.o-unreachable{fill:#9c4221;background:#9c4221}.o-closed{fill:#d53f8c;background:#d53f8c}
.o-timeout{fill:#744210;background:#744210}.o-other{fill:#4a5568;background:#4a5568}
.cursor{stroke:#1a202c;stroke-width:.8;stroke-dasharray:3 2;visibility:hidden}
.cursor-label{fill:#1a202c;font-weight:600;visibility:hidden}.on{visibility:visible}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;margin:4px 0 10px;padding:0;list-style:none}
.legend li{display:flex;align-items:center;gap:5px;min-width:0;overflow-wrap:anywhere}.legend svg{flex:none}
.sw{display:inline-block;width:12px;height:10px}
`

// htmlScript moves a time cursor across both charts with the mouse; it is the
// page's only script, admitted by hash. Setting data-script lets a headless
// browser check that it ran.
const htmlScript = `
(function () {
  var charts = document.querySelectorAll("svg.chart");
  function place(x, label) {
    charts.forEach(function (c) {
      var line = c.querySelector(".cursor"), text = c.querySelector(".cursor-label");
      line.setAttribute("x1", x); line.setAttribute("x2", x);
      text.setAttribute("x", x + 4); text.textContent = label;
      line.classList.toggle("on", label !== ""); text.classList.toggle("on", label !== "");
    });
  }
  charts.forEach(function (svg) {
    svg.addEventListener("mousemove", function (e) {
      var r = svg.getBoundingClientRect(), d = svg.dataset;
      var x = (e.clientX - r.left) * svg.viewBox.baseVal.width / r.width;
      if (x < +d.x0 || x > +d.x1) { place(0, ""); return; }
      var t = +d.t0 + (x - d.x0) / (d.x1 - d.x0) * (d.t1 - d.t0);
      place(x, new Date(t).toISOString().slice(11, 23) + " UTC");
    });
    svg.addEventListener("mouseleave", function () { place(0, ""); });
  });
  document.documentElement.setAttribute("data-script", "ok");
})();
`

// htmlPolicy forbids every fetch and admits only the page's own style and
// script, so that a report opened from a mail attachment stays inert.
var htmlPolicy = "default-src 'none'; style-src '" + hashSource(htmlStyle) + "'; script-src '" + hashSource(htmlScript) +
	"'; img-src data:; base-uri 'none'; form-action 'none'"

// hashSource is the CSP hash source of an inline element's text.
func hashSource(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// reportPage is the self-contained HTML report; every value is escaped by html/template.
var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.Policy}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>readygap Report{{if .Incidents}}: {{(index .Incidents 0).Cause}}{{end}}</title>
<style>` + htmlStyle + `</style></head>
<body>
<h1>readygap report</h1>
<p class="sub">{{.Headline}}</p>
{{if gt .Count 2}}<section class="verdict"><h2>{{.Count}} incidents</h2>
<table class="incidents"><thead><tr><th>#</th><th>cause</th><th>confidence</th><th>window (UTC)</th><th class="num">failed</th><th>status counts</th><th>backends</th></tr></thead><tbody>
{{range .Incidents}}<tr><td><a href="#{{.ID}}">{{.N}}</a></td><td>{{.Cause}}{{if .Variant}} ({{.Variant}}){{end}}</td><td class="conf-{{.Confidence}}">{{.Confidence}}</td><td>{{.Window}}</td><td class="num">{{.Failed}}</td><td>{{.Statuses}}</td><td class="txt">{{range $i, $b := .Backends}}{{if $i}}; {{end}}{{$b}}{{end}}</td></tr>
{{end}}</tbody></table>
<p class="note">Each incident's summary, evidence and fix follow the timeline.</p></section>
{{else}}{{range .Incidents}}<section class="verdict">
<h2>Incident {{.N}}{{if gt $.Count 1}} of {{$.Count}}{{end}}: {{.Cause}}{{if .Variant}} ({{.Variant}}){{end}} — <span class="conf-{{.Confidence}}">{{.Confidence}} confidence</span></h2>
<p>{{.Summary}}</p>
<dl><dt>window</dt><dd>{{.Window}}</dd>
<dt>failed requests</dt><dd>{{.Failed}} made by the load balancer or proxy{{if .Hidden}}; {{.Hidden}} more hidden by retries{{end}}</dd>
<dt>status counts</dt><dd>{{.Statuses}}</dd>
{{if .Backends}}<dt>backends</dt><dd>{{range $i, $b := .Backends}}{{if $i}}; {{end}}{{$b}}{{end}}</dd>{{end}}
</dl>
</section>
{{else}}<section class="verdict none"><h2>No incident found</h2><p>No window where the load balancer or proxy itself answered with 5xx.</p></section>
{{end}}{{end}}
{{with .Charts}}<h2>Timeline</h2>
{{if .Zoom}}<p class="note zoom">{{.Zoom}}</p>{{end}}
<figure><svg class="chart" id="lanes" width="{{.Width}}" height="{{.LanesHeight}}" viewBox="0 0 {{.Width}} {{.LanesHeight}}" data-t0="{{.T0}}" data-t1="{{.T1}}" data-x0="{{.PlotLeft}}" data-x1="{{.PlotRight}}" role="img" aria-label="one lane per backend">
<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="4" height="4" fill="#edf2f7"/><line x1="0" y1="0" x2="0" y2="4" stroke="#4a5568" stroke-width="1.6"/></pattern></defs>
{{range .Lanes}}<rect class="lane-bg{{if .Odd}} odd-bg{{end}}" x="0" y="{{.Y}}" width="{{$.Charts.Width}}" height="20"/>{{end}}
<g class="grid">{{range .Ticks}}<line x1="{{.At}}" x2="{{.At}}" y1="16" y2="{{$.Charts.LanesHeight}}"/><text x="{{.At}}" y="12" text-anchor="middle">{{.Label}}</text>{{end}}</g>
{{range .Windows}}<rect class="window" x="{{.X}}" y="30" width="{{.W}}" height="{{$.Charts.LanesInner}}"><title>{{.Title}}</title></rect><text class="window-label" x="{{.Mid}}" y="27">{{.Label}}</text>{{end}}
{{range .Lanes}}<g class="lane" data-name="{{.Name}}"><text class="lane-label" x="16" y="{{.Y}}" dy="13">{{.Label}}<title>{{.Title}}</title></text><rect class="{{.Colour}}" x="4" y="{{.Y}}" width="8" height="20"/>{{if .Role}}<text class="role" x="244" y="{{.Y}}" dy="13" text-anchor="end">{{.Role}}</text>{{end}}
{{range .Segs}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Title}}</title></rect>{{end}}
{{range .Markers}}<path class="{{.Class}}" d="{{.Path}}"><title>{{.Title}}</title></path>{{end}}</g>
{{end}}<line class="cursor" x1="0" x2="0" y1="16" y2="{{.LanesHeight}}"/><text class="cursor-label" x="0" y="27"></text>
</svg>
<figcaption>Lanes: one per backend, coloured by ReplicaSet. Upper bar: Kubernetes (pale: starting, solid: Ready, hatched: terminating). Lower bar: load balancer (outline: registered, green: LB-healthy; black line: first to last request served). Red: incident windows. Times UTC, {{.Day}}. Hover for exact times.</figcaption></figure>
<ul class="legend"><li><svg width="22" height="12"><rect class="seg starting c0" x="1" y="1" width="20" height="10"/></svg>starting</li>
<li><svg width="22" height="12"><rect class="seg ready c0" x="1" y="1" width="20" height="10"/></svg>Kubernetes Ready</li>
<li><svg width="22" height="12"><rect class="seg terminating c0" x="1" y="1" width="20" height="10"/></svg>terminating</li>
<li><svg width="22" height="12"><rect class="seg lb-reg" x="1" y="4" width="20" height="4"/></svg>registered at the LB</li>
<li><svg width="22" height="12"><rect class="seg lb-ok" x="1" y="4" width="20" height="4"/></svg>LB-healthy</li>
<li><svg width="22" height="12"><rect class="seg served" x="1" y="5" width="20" height="2"/></svg>served requests</li>
<li><svg width="22" height="12"><rect class="window" x="1" y="0" width="20" height="12"/></svg>incident window</li></ul>
<ul class="legend">{{range .Replicas}}<li><span class="sw {{.Colour}}"></span>{{.Name}}{{if .Role}} ({{.Role}}){{end}}</li>{{end}}<li><span class="sw c6"></span>IP without pod</li>
<li><svg width="12" height="12"><path class="mk m-attach" d="M6,1L11,10L1,10Z"/></svg>NEG attach / target register</li>
<li><svg width="12" height="12"><path class="mk m-detach" d="M6,11L11,2L1,2Z"/></svg>NEG detach / target deregister</li>
<li><svg width="12" height="12"><path class="mk m-gate" d="M6,1L11,6L6,11L1,6Z"/></svg>readiness gate</li>
<li><svg width="12" height="12"><path class="mk m-fail" d="M2,2L10,10M10,2L2,10"/></svg>probe failed / not Ready</li>
<li><svg width="12" height="12"><path class="mk m-stop" d="M2,2H10V10H2Z"/></svg>killing / deleted</li>
<li><svg width="12" height="12"><circle class="mk m-info" cx="6" cy="6" r="3"/></svg>other pod event</li></ul>
<figure><svg class="chart" id="series" width="{{.Width}}" height="{{.BarsHeight}}" viewBox="0 0 {{.Width}} {{.BarsHeight}}" data-t0="{{.T0}}" data-t1="{{.T1}}" data-x0="{{.PlotLeft}}" data-x1="{{.PlotRight}}" role="img" aria-label="requests by outcome">
{{range .Windows}}<rect class="window" x="{{.X}}" y="12" width="{{.W}}" height="180"><title>{{.Title}}</title></rect><text class="window-label" x="{{.Mid}}" y="10">{{.Label}}</text>{{end}}
<g class="yaxis">{{range .YTicks}}<line x1="{{$.Charts.PlotLeft}}" x2="{{$.Charts.PlotRight}}" y1="{{.At}}" y2="{{.At}}" stroke="#e2e8f0"/><text x="{{$.Charts.PlotLeft}}" dx="-6" y="{{.At}}" dy="4" text-anchor="end">{{.Label}}</text>{{end}}</g>
{{range .Bars}}<g class="bucket"><title>{{.Title}}</title>{{range .Parts}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"/>{{end}}</g>{{end}}
<g class="grid">{{range .Ticks}}<line x1="{{.At}}" x2="{{.At}}" y1="{{$.Charts.BarsBase}}" y2="198"/><text x="{{.At}}" y="212" text-anchor="middle">{{.Label}}</text>{{end}}</g>
<line class="cursor" x1="0" x2="0" y1="12" y2="{{.BarsBase}}"/><text class="cursor-label" x="0" y="24"></text>
</svg>
<figcaption>{{.BarsNote}} Same time axis as the lanes.</figcaption></figure>
<ul class="legend">{{range .Outcomes}}<li><span class="sw {{.Class}}"></span>{{.Label}}</li>{{end}}</ul>
{{else}}<p class="note">Nothing in the inputs carries a time: no timeline to draw.</p>
{{end}}
{{range .Incidents}}<section class="details" id="{{.ID}}">
<h2>Incident {{.N}}: evidence and fix</h2>
{{if gt $.Count 2}}<p><b>{{.Cause}}</b>, {{.Confidence}} confidence, {{.Window}}: {{.Summary}}</p>{{end}}
{{if .Evidence}}<h3>Evidence</h3>
<table class="evidence"><thead><tr><th>time (UTC)</th><th>source</th><th>text</th></tr></thead><tbody>
{{range .Evidence}}<tr><td class="t">{{.Time}}</td><td class="src">{{.Source}}</td><td class="txt">{{.Text}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Fixes}}<h3>Fix</h3>
{{range .Fixes}}<h3 class="fix">{{.Title}}</h3><p>{{.Why}}</p>{{if .Patch}}<pre><code>{{.Patch}}</code></pre>{{end}}
{{end}}{{end}}
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Moments}}<h3>Key moments</h3>
<table class="moments"><thead><tr><th>time (UTC)</th><th>what</th><th>who</th><th>source</th></tr></thead><tbody>
{{range .Moments}}<tr><td class="t">{{.Time}}</td><td class="txt">{{.What}}</td><td class="txt">{{.Who}}{{if .Zone}} ({{.Zone}}){{end}}</td><td class="src">{{.Source}}</td></tr>
{{end}}</tbody></table>{{end}}
</section>
{{end}}
<h2>Inputs</h2>
<table class="inputs"><thead><tr><th>input</th><th>format</th><th class="num">records</th><th class="num">skipped</th><th>time range (UTC)</th></tr></thead><tbody>
{{range .Inputs}}<tr><td class="txt">{{.Name}}</td><td>{{.Format}}</td><td class="num">{{.Records}}</td><td class="num">{{.Skipped}}</td><td class="t">{{.Range}}</td></tr>
{{end}}</tbody></table>
{{if .Warnings}}<h2>Warnings</h2>
<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p class="note">Made by readygap from {{len .Inputs}} input{{if ne (len .Inputs) 1}}s{{end}}.</p>
<script>` + htmlScript + `</script>
</body></html>
`))

// htmlPage is what the report template draws: the report's text, cleaned of
// control characters, and the charts laid out in Go.
type htmlPage struct {
	Policy    string
	Headline  string
	Count     int
	Incidents []htmlIncident
	Charts    *svgCharts
	Inputs    []htmlInput
	Warnings  []string
}

// htmlIncident is one verdict with its details, ready to print.
type htmlIncident struct {
	N, Failed, Hidden              int
	ID, Cause, Variant, Confidence string
	Window, Statuses, Summary      string
	Backends, Notes                []string
	Evidence                       []htmlRow
	Fixes                          []Remediation
	Moments                        []htmlRow
}

// htmlRow is one evidence line or key moment, ready to print.
type htmlRow struct {
	Time, Source, Text, What, Who, Zone string
}

// htmlInput is one row of the inputs table.
type htmlInput struct {
	Name, Format, Range string
	Records, Skipped    int
}

// renderHTML writes the report as one self-contained HTML page.
func renderHTML(w io.Writer, rep *Report) error {
	return reportPage.Execute(w, newHTMLPage(rep))
}

// newHTMLPage turns the report into the page's view; all text from the
// inputs passes through sanitize here, and html/template escapes it.
func newHTMLPage(rep *Report) *htmlPage {
	p := &htmlPage{Policy: htmlPolicy, Count: len(rep.Incidents), Charts: newCharts(rep)}
	switch n := len(rep.Incidents); {
	case n == 0:
		p.Headline = "No incident found in " + plural(len(rep.Inputs), "input") + "."
	default:
		failed := 0
		for _, in := range rep.Incidents {
			failed += in.FailedRequests
		}
		p.Headline = fmt.Sprintf("%s, %s made by the load balancer or proxy, from %s.",
			plural(n, "incident"), plural(failed, "failed request"), plural(len(rep.Inputs), "input"))
	}
	for i, in := range rep.Incidents {
		p.Incidents = append(p.Incidents, newHTMLIncident(i+1, in))
	}
	for _, in := range rep.Inputs {
		r := ""
		if !in.First.IsZero() || !in.Last.IsZero() {
			r = rfc3339(in.First) + " – " + rfc3339(in.Last)
		}
		p.Inputs = append(p.Inputs, htmlInput{Name: Sanitize(in.Name), Format: Sanitize(in.Format), Range: r, Records: in.Records, Skipped: in.Skipped})
	}
	for _, w := range rep.Warnings {
		p.Warnings = append(p.Warnings, Sanitize(w))
	}
	return p
}

// newHTMLIncident prepares the n-th incident for the page.
func newHTMLIncident(n int, in Incident) htmlIncident {
	s, e := in.Start, in.End
	h := htmlIncident{N: n, ID: "incident-" + strconv.Itoa(n), Failed: in.FailedRequests, Hidden: in.HiddenFailures,
		Cause: Sanitize(in.Cause), Variant: Sanitize(in.Variant), Confidence: Sanitize(in.Confidence), Summary: Sanitize(in.Summary),
		Window: fmt.Sprintf("%s – %s UTC on %s (%s)", clock(s), clock(e), s.UTC().Format("2006-01-02"), roundSpan(time.Duration(in.DurationSeconds*float64(time.Second))))}
	codes := make([]string, 0, len(in.StatusCounts))
	for code := range in.StatusCounts {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	for i, code := range codes {
		codes[i] = fmt.Sprintf("%d × %s", in.StatusCounts[code], Sanitize(code))
	}
	h.Statuses = strings.Join(codes, ", ")
	if h.Statuses == "" {
		h.Statuses = "none"
	}
	for _, b := range in.Backends {
		who := strings.TrimSpace(Sanitize(b.Pod) + " " + Sanitize(b.IP))
		desc := fmt.Sprintf("%s (%s): %s", who, Sanitize(b.Role), plural(b.Failures, "failure"))
		if b.Why != "" {
			desc += ", " + Sanitize(b.Why)
		}
		h.Backends = append(h.Backends, desc)
	}
	for _, note := range in.Notes {
		h.Notes = append(h.Notes, Sanitize(note))
	}
	for _, e := range in.Evidence {
		h.Evidence = append(h.Evidence, htmlRow{Time: rfc3339(e.Time), Source: Sanitize(e.Source), Text: Sanitize(e.Text)})
	}
	for _, f := range in.Remediation {
		h.Fixes = append(h.Fixes, Remediation{Title: Sanitize(f.Title), Why: Sanitize(f.Why), Patch: sanitizeLines(f.Patch)})
	}
	for _, m := range in.Timeline {
		h.Moments = append(h.Moments, htmlRow{Time: rfc3339(m.Time), What: Sanitize(m.What), Who: Sanitize(m.Who), Zone: Sanitize(m.Zone), Source: Sanitize(m.Source)})
	}
	return h
}

package report

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/internal/words"
)

// htmlBaseStyle is the page's CSS without the palette: readable from a
// phone (390 px: one column, tables stacked, the charts scrolling in their
// own box, with a shade on the side there is more to scroll to) to a wide
// screen, and printable ("Save as PDF").
const htmlBaseStyle = `
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;margin:24px auto;max-width:1160px;padding:0 16px;overflow-wrap:break-word}
h1{font-size:22px;margin:0 0 2px}h2{font-size:19px;margin:30px 0 8px}h3{font-size:16px;margin:18px 0 6px}
small,.id{font-size:12px;color:#555;font-weight:400}
.sub{color:#555;margin:0 0 14px}
.summary{border-left:6px solid #D55E00;background:#fdf3ec;padding:12px 16px;margin:12px 0}
.summary.none{border-color:#009E73;background:#eef8f4}
.summary.unjudged{border-color:#E69F00;background:#fdf8ea}
.summary h2{margin:0 0 4px}.summary p{margin:4px 0}
.caveats{margin:8px 0;padding-left:20px;color:#6b3500}
.rollout{margin:10px 0 0;font-weight:600}
table{border-collapse:collapse;width:100%;margin:6px 0 12px;font-size:14px}
th,td{border-bottom:1px solid #e3e3e3;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f5f5f5;font-weight:600}
.summary th{background:#f8e6da}
.summary table.coverage{width:auto;margin:4px 0 8px}.summary .coverage th{background:none;font-weight:400;color:#555;white-space:nowrap}.summary .coverage tr.unread th{color:#6b3500;font-weight:600}
.num{text-align:right;white-space:nowrap}.nw{white-space:nowrap}
figure{margin:0}
.t{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;white-space:nowrap}
.src{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px}
.meta{margin:4px 0;padding:0;list-style:none}
pre{background:#f6f6f6;border:1px solid #e0e0e0;padding:8px 10px;font-size:13px;white-space:pre-wrap;overflow-wrap:anywhere}
.note{color:#555;font-size:13px}
.fix{font-weight:600}
.chart-wrap{position:relative}
.chart-box{overflow-x:auto;margin:4px 0;border:1px solid #eee}
.chart-wrap.more-left::before,.chart-wrap.more-right::after{content:"";position:absolute;top:0;bottom:0;width:28px;pointer-events:none;z-index:1}
.chart-wrap.more-left::before{left:0;background:linear-gradient(to right,rgba(0,0,0,.28),rgba(0,0,0,0))}
.chart-wrap.more-right::after{right:0;background:linear-gradient(to left,rgba(0,0,0,.28),rgba(0,0,0,0))}
.scroll-cue{font-size:13px;font-weight:600;margin:4px 0}
.tap-info{position:sticky;bottom:0;z-index:2;margin:0;padding:6px 8px;background:#fff;border:1px solid #bbb;font-size:13px}
svg.chart{display:block;width:100%;min-width:880px;height:auto;font:13px system-ui,sans-serif;background:#fff}
.lane-bg{fill:#fff}.lane-bg.odd{fill:#f3f3f3}
.lane-label{fill:#1a1a1a}.group-label{fill:#1a1a1a;font-weight:700}
.grid line{stroke:#c8c8c8;stroke-width:.6}.grid text,.yaxis text{fill:#444}
.window{fill:#000;fill-opacity:.07;stroke:#000;stroke-opacity:.45;stroke-width:.8;stroke-dasharray:4 2}
.window-label{fill:#1a1a1a;font-weight:700;text-anchor:middle}
.mk{stroke:#1a1a1a;stroke-width:1}.m-attach{fill:#fff}.m-detach{fill:#1a1a1a}.m-gate{fill:#fff}
.m-fail{fill:none;stroke:#1a1a1a;stroke-width:2.2}.m-stop{fill:#1a1a1a}.m-info{fill:#bbb}
.cursor{stroke:#1a1a1a;stroke-width:.8;stroke-dasharray:3 2;visibility:hidden}
.cursor-label{fill:#1a1a1a;font-weight:600;visibility:hidden}.on{visibility:visible}
.legend{display:flex;flex-wrap:wrap;gap:2px 16px;font-size:13px;margin:4px 0 14px;padding:0;list-style:none}
.legend li{display:flex;align-items:center;gap:5px;min-width:0}.legend svg{flex:none}
.sw{display:inline-block;width:14px;height:12px;border-radius:2px;flex:none}
details.more{margin:0 0 12px}details.more summary{cursor:pointer;color:#333;font-size:14px}
@media (max-width:640px){
body{margin:10px auto;padding:0 10px}
h1{font-size:20px}h2{font-size:18px}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{display:none}
table.stack tr{border-bottom:1px solid #ddd;padding:6px 0}
table.stack td{border:0;padding:1px 0}table.stack td.num{text-align:left}table.stack td:empty{display:none}
table.stack td[data-label]::before{content:attr(data-label) ": ";color:#555;font-size:12px;font-family:system-ui,sans-serif}
.t{white-space:normal}
}
@media print{
body{max-width:none;margin:0;padding:0;font-size:10.5pt}
.chart-box{overflow:visible;border:0}svg.chart{min-width:0}
.cursor,.cursor-label,.scroll-cue,.tap-info,.chart-wrap::before,.chart-wrap::after{display:none}
h2,h3{break-after:avoid}tr,pre,figure,.legend{break-inside:avoid}
.summary,.summary.none,.summary.unjudged{background:none}
a{color:inherit;text-decoration:none}
}
`

// htmlStyle is the page's only CSS; the Content-Security-Policy admits it by hash.
var htmlStyle = htmlBaseStyle + paletteCSS() + "\n"

// htmlScript is the page's only script, admitted by hash. It moves a time
// cursor across both charts with the mouse; a tap (or click) puts it there
// and writes the exact time, with what was tapped (a bar's counts, a lane
// state, a marker), in a line that stays at the bottom of the screen, since
// a touch screen shows no tooltip. A chart wider than its box (a phone)
// opens scrolled to the first incident, says it scrolls, and shades the
// sides there is more to see on. Setting data-script lets a headless browser
// check that it ran.
const htmlScript = `
(function () {
  var charts = document.querySelectorAll("svg.chart"), info = document.getElementById("tap-info");
  function place(x, label) {
    charts.forEach(function (c) {
      var line = c.querySelector(".cursor"), text = c.querySelector(".cursor-label");
      line.setAttribute("x1", x); line.setAttribute("x2", x);
      text.setAttribute("x", x + 4); text.textContent = label;
      line.classList.toggle("on", label !== ""); text.classList.toggle("on", label !== "");
    });
  }
  function at(svg, clientX) {
    var r = svg.getBoundingClientRect(), d = svg.dataset;
    var x = (clientX - r.left) * svg.viewBox.baseVal.width / r.width;
    if (x < +d.x0 || x > +d.x1) { return null; }
    var t = +d.t0 + (x - d.x0) / (d.x1 - d.x0) * (d.t1 - d.t0);
    return {x: x, label: new Date(t).toISOString().slice(11, 23) + " UTC"};
  }
  charts.forEach(function (svg) {
    svg.addEventListener("mousemove", function (e) {
      var p = at(svg, e.clientX);
      place(p ? p.x : 0, p ? p.label : "");
    });
    svg.addEventListener("mouseleave", function () { place(0, ""); });
    svg.addEventListener("click", function (e) {
      var p = at(svg, e.clientX), title = null, parts = [];
      for (var el = e.target; el && el !== svg && !title; el = el.parentNode) {
        title = el.querySelector(":scope > title");
      }
      if (p) { place(p.x, p.label); parts.push(p.label); }
      if (title) { parts.push(title.textContent); }
      if (parts.length) { info.textContent = parts.join(" · "); info.hidden = false; }
    });
  });
  var cue = document.getElementById("scroll-cue");
  document.querySelectorAll(".chart-box").forEach(function (box) {
    var wrap = box.parentNode, svg = box.querySelector("svg.chart"), first = svg.querySelector("rect.window");
    function shade() {
      wrap.classList.toggle("more-left", box.scrollLeft > 1);
      wrap.classList.toggle("more-right", box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
    }
    if (box.scrollWidth > box.clientWidth + 1) {
      cue.hidden = false;
      if (first) {
        var scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        box.scrollLeft = Math.max(0, first.x.baseVal.value * scale - 24);
      }
    }
    shade();
    box.addEventListener("scroll", shade, {passive: true});
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

// reportPage is the self-contained HTML report; every value is escaped by
// html/template. It reads top to bottom: the summary (counts, caveats, the
// incidents by rollout, the changes to make), the timeline charts, each
// incident's key moments, evidence and backends, the changes in full, the
// inputs.
var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.Policy}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>readygap report{{if .Incidents}}: {{(index .Incidents 0).Cause}}{{end}}</title>
<style>{{.Style}}</style></head>
<body>
<h1>readygap report</h1>
<p class="sub">{{.Sub}}</p>
<section class="summary{{if .CannotJudge}} unjudged{{else if not .Incidents}} none{{end}}" id="summary">
<h2>{{.Headline}}</h2>
<p>{{.Data}}</p>
{{if .Coverage}}<table class="coverage"><tbody>{{range .Coverage}}<tr{{if .Unread}} class="unread"{{end}}><th>{{.Kind}}</th><td>{{.What}}</td></tr>{{end}}</tbody></table>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Caveats}}<ul class="caveats">{{range .Caveats}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Groups}}{{if .Title}}<p class="rollout">{{.Title}}</p>{{end}}
<table class="incidents stack"><thead><tr><th>#</th><th>start (UTC)</th><th class="num">duration</th><th class="num">failed requests</th><th>cause</th><th class="nw">confidence</th></tr></thead><tbody>
{{range .Incidents}}<tr><td class="nw"><a href="#{{.ID}}">#{{.N}}</a></td><td class="t" data-label="start (UTC)">{{.Start}}</td><td class="num" data-label="duration">{{.Duration}}</td><td class="num" data-label="failed requests">{{.Failed}}</td><td data-label="cause">{{.Cause}}{{if .Variant}} — {{.Variant}}{{end}}{{if .Trigger}}, {{.Trigger}}{{end}}{{if .Cut}}; {{.Cut}}{{end}} <small class="id">{{.CauseID}}{{if .VariantID}} · {{.VariantID}}{{end}}</small></td><td data-label="confidence">{{.Confidence}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Changes}}<h3>Changes to make</h3>
<ol class="changes-list">{{range .Changes}}<li><a href="#{{.ID}}">{{.Title}}</a> <small>for {{.For}}</small></li>{{end}}</ol>{{end}}
</section>
{{with .Charts}}<h2 id="timeline">Timeline</h2>
<p class="note">From the first to the last record: {{.Span}}, {{.Day}} (UTC). Hover over or tap the charts for exact times.{{if .LanesNote}} {{.LanesNote}}.{{end}}</p>
<p class="scroll-cue" id="scroll-cue" hidden="">⇆ The charts are wider than the screen: {{if .Windows}}they open at the first incident; {{end}}swipe sideways for the rest.</p>
<figure>
<div class="chart-wrap"><div class="chart-box"><svg class="chart" id="lanes" width="{{.Width}}" height="{{.LanesHeight}}" viewBox="0 0 {{.Width}} {{.LanesHeight}}" data-t0="{{.T0}}" data-t1="{{.T1}}" data-x0="{{.PlotLeft}}" data-x1="{{.PlotRight}}" role="img" aria-label="one lane per backend, grouped by ReplicaSet">
<defs>{{range .Hatches}}<pattern id="hatch-{{.}}" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#fff"/><line class="{{.}} h{{slice . 1}}" x1="0" y1="0" x2="0" y2="5" stroke-width="2.4"/></pattern>{{end}}</defs>
{{range .Lanes}}<rect class="lane-bg{{if .Odd}} odd{{end}}" x="0" y="{{.Y}}" width="{{$.Charts.Width}}" height="24"/>{{end}}
<g class="grid">{{range .Ticks}}<line x1="{{.At}}" x2="{{.At}}" y1="16" y2="{{$.Charts.LanesHeight}}"/><text x="{{.At}}" y="12" text-anchor="middle">{{.Label}}</text>{{end}}</g>
{{range .Windows}}<rect class="window" x="{{.X}}" y="30" width="{{.W}}" height="{{$.Charts.LanesInner}}"><title>{{.Title}}</title></rect><text class="window-label" x="{{.Mid}}" y="28">{{.Label}}</text>{{end}}
{{range .Groups}}<text class="group-label" x="4" y="{{.Y}}" dy="15">{{.Title}}</text>{{end}}
{{range .Lanes}}<g class="lane" data-name="{{.Name}}"><text class="lane-label" x="16" y="{{.Y}}" dy="16">{{.Label}}<title>{{.Title}}</title></text>
{{range .Segs}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"><title>{{.Title}}</title></rect>{{end}}
{{range .Markers}}<path class="{{.Class}}" d="{{.Path}}"><title>{{.Title}}</title></path>{{end}}</g>
{{end}}<line class="cursor" x1="0" x2="0" y1="16" y2="{{.LanesHeight}}"/><text class="cursor-label" x="0" y="28"></text>
</svg></div></div>
<figcaption><ul class="legend">{{range .States}}<li><svg width="18" height="14"><rect class="st st-{{.State}} c0" x="1" y="1" width="16" height="12"/></svg>{{.Name}}</li>{{end}}
{{range .Replicas}}<li><span class="sw {{.Colour}}"></span>{{.Name}}{{if .Role}} ({{.Role}}){{end}}</li>{{end}}
{{if index .Drawn "m-attach"}}<li><svg width="14" height="14"><path class="mk m-attach" d="M7,1L13,12L1,12Z"/></svg>registered / NEG attach</li>{{end}}{{if index .Drawn "m-detach"}}<li><svg width="14" height="14"><path class="mk m-detach" d="M7,13L13,2L1,2Z"/></svg>deregistered / detach</li>{{end}}{{if index .Drawn "m-gate"}}<li><svg width="14" height="14"><path class="mk m-gate" d="M7,1L13,7L7,13L1,7Z"/></svg>readiness gate</li>{{end}}{{if index .Drawn "m-fail"}}<li><svg width="14" height="14"><path class="mk m-fail" d="M2,2L12,12M12,2L2,12"/></svg>probe failed</li>{{end}}{{if index .Drawn "m-stop"}}<li><svg width="14" height="14"><path class="mk m-stop" d="M2,2H12V12H2Z"/></svg>killed / deleted</li>{{end}}{{if .Windows}}<li><svg width="16" height="12"><rect class="window" x="0" y="0" width="16" height="12"/></svg>incident</li>{{end}}</ul></figcaption>
</figure>
<figure>
<div class="chart-wrap"><div class="chart-box"><svg class="chart" id="series" width="{{.Width}}" height="{{.BarsHeight}}" viewBox="0 0 {{.Width}} {{.BarsHeight}}" data-t0="{{.T0}}" data-t1="{{.T1}}" data-x0="{{.PlotLeft}}" data-x1="{{.PlotRight}}" role="img" aria-label="requests by outcome">
{{range .Windows}}<rect class="window" x="{{.X}}" y="12" width="{{.W}}" height="180"><title>{{.Title}}</title></rect><text class="window-label" x="{{.Mid}}" y="10">{{.Label}}</text>{{end}}
<g class="yaxis">{{range .YTicks}}<line x1="{{$.Charts.PlotLeft}}" x2="{{$.Charts.PlotRight}}" y1="{{.At}}" y2="{{.At}}" stroke="#e3e3e3"/><text x="{{$.Charts.PlotLeft}}" dx="-6" y="{{.At}}" dy="4" text-anchor="end">{{.Label}}</text>{{end}}</g>
{{range .Bars}}<g class="bucket"><title>{{.Title}}</title>{{range .Parts}}<rect class="{{.Class}}" x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}"/>{{end}}</g>{{end}}
<g class="grid">{{range .Ticks}}<line x1="{{.At}}" x2="{{.At}}" y1="{{$.Charts.BarsBase}}" y2="198"/><text x="{{.At}}" y="212" text-anchor="middle">{{.Label}}</text>{{end}}</g>
<line class="cursor" x1="0" x2="0" y1="12" y2="{{.BarsBase}}"/><text class="cursor-label" x="0" y="24"></text>
</svg></div></div>
<figcaption><p class="note">{{.BarsNote}} Same time axis as the lanes; the outcomes are the ones the verdicts count.</p>
<ul class="legend">{{range .Outcomes}}<li><span class="sw {{.Class}}"></span>{{.Label}}</li>{{end}}</ul></figcaption>
</figure>
<p class="tap-info" id="tap-info" aria-live="polite" hidden=""></p>
{{else}}<p class="note">Nothing in the inputs carries a time: no timeline to draw.</p>
{{end}}
{{range .Incidents}}<section class="incident" id="{{.ID}}">
<h2>Incident {{.N}} of {{$.Count}}: {{.Cause}}{{if .Variant}} — {{.Variant}}{{end}} <small class="id">{{.CauseID}}{{if .VariantID}} · {{.VariantID}}{{end}}</small></h2>
<ul class="meta"><li><b>{{.Window}}</b></li><li>{{.FailedText}}; {{.Confidence}} confidence{{if .Trigger}}; {{.Trigger}}{{end}}{{if .Cut}}; {{.Cut}}{{end}}</li>{{if .Rate}}<li>{{.Rate}}</li>{{end}}{{range .Timeouts}}<li>{{.}}</li>{{end}}</ul>
{{if .Summary}}<p>{{.Summary}}</p>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
{{if .Moments}}<h3>Key moments</h3>
<table class="moments stack"><thead><tr><th>time (UTC)</th><th>what</th><th>pod / IP / object</th><th>source</th></tr></thead><tbody>
{{range .Moments}}<tr><td class="t">{{.Time}}</td><td data-label="what">{{.What}}</td><td data-label="who">{{.Who}}{{if .Zone}} ({{.Zone}}){{end}}</td><td class="src" data-label="source">{{.Source}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Evidence}}<h3>Evidence</h3>
<table class="evidence stack"><thead><tr><th>time (UTC)</th><th>record</th><th>source</th></tr></thead><tbody>
{{range .Evidence}}<tr><td class="t">{{.Time}}</td><td data-label="record">{{.Text}}</td><td class="src" data-label="source">{{.Source}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Backends}}<h3>{{.BackendsHeading}}</h3>
{{template "backends" .Backends}}
{{if .MoreBackends}}<details class="more"><summary>{{.MoreBackendsText}}</summary>
{{template "backends" .MoreBackends}}</details>{{end}}
<p class="note">A failed request is one the client saw fail, counted on the backend of its last attempt; a failed attempt is one try of the proxy, which a retry elsewhere may have rescued.</p>{{end}}
{{if .Fixes}}<p class="fix">Fix: {{range $i, $f := .Fixes}}{{if $i}}, {{end}}<a href="#{{$f.ID}}">{{$f.N}}. {{$f.Title}}</a>{{end}}</p>{{end}}
</section>
{{end}}
{{if .Changes}}<section class="changes"><h2>Changes</h2>
{{range .Changes}}<h3 id="{{.ID}}">{{.N}}. {{.Title}} <small>for {{.For}}</small></h3><p>{{.Why}}</p>{{if .Patch}}<pre><code>{{.Patch}}</code></pre>{{end}}
{{end}}</section>{{end}}
<h2>Inputs</h2>
{{range .SourceRules}}<p class="note">{{.}}</p>{{end}}
<table class="inputs stack"><thead><tr><th>input</th><th>format</th><th class="num">records</th><th class="num">skipped</th><th>time range (UTC)</th></tr></thead><tbody>
{{range .Inputs}}<tr><td class="src">{{.Name}}</td><td data-label="format">{{.Format}}</td><td class="num" data-label="records">{{.Records}}</td><td class="num" data-label="skipped">{{.Skipped}}</td><td class="t" data-label="time range">{{.Range}}</td></tr>
{{end}}</tbody></table>
{{if .Warnings}}<h2>Warnings</h2>
<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
<p class="note">Made by readygap from {{len .Inputs}} input{{if ne (len .Inputs) 1}}s{{end}}.</p>
<script>{{.Script}}</script>
</body></html>
{{define "backends"}}<table class="backends stack"><thead><tr><th>role</th><th>pod</th><th>IP</th><th class="num">failed requests</th><th class="num">failed attempts</th><th>why</th></tr></thead><tbody>
{{range .}}<tr><td>{{.Role}}</td><td data-label="pod">{{.Pod}}</td><td data-label="IP">{{.IP}}</td><td class="num" data-label="failed requests">{{.Requests}}</td><td class="num" data-label="failed attempts">{{.Attempts}}</td><td data-label="why">{{.Why}}</td></tr>
{{end}}</tbody></table>{{end}}`))

// htmlPage is what the report template draws: the report's text, cleaned of
// control characters, and the charts laid out in Go.
type htmlPage struct {
	Policy   string
	Style    template.CSS
	Script   template.JS
	Sub      string
	Headline string
	// CannotJudge marks a report whose verdict is cannot_judge.
	CannotJudge bool
	Data        string
	Coverage    []htmlCoverage
	Notes       []template.HTML
	Caveats     []template.HTML
	Count       int
	Groups      []htmlGroup
	Incidents   []htmlIncident
	Changes     []htmlChange
	Charts      *svgCharts
	SourceRules []template.HTML
	Inputs      []htmlInput
	Warnings    []template.HTML
}

// htmlCoverage is one line of what the verdict rests on.
type htmlCoverage struct {
	Kind, What string
	// Unread marks the line of the inputs not read.
	Unread bool
}

// htmlGroup is the incidents of one rollout in the summary.
type htmlGroup struct {
	Title     string
	Incidents []htmlIncident
}

// htmlIncident is one verdict with its details, ready to print.
type htmlIncident struct {
	N                  int
	ID                 string
	Cause, CauseID     string
	Variant, VariantID string
	Confidence         string
	Trigger, Cut       string
	Start, Duration    string
	Window             string
	Failed             int
	FailedText         string
	Summary            template.HTML
	Rate               string
	Timeouts           []string
	Moments, Evidence  []htmlRow
	BackendsHeading    string
	// Backends are the rows the table shows (tableBackends); MoreBackends
	// the rest, in a folded table under MoreBackendsText.
	Backends, MoreBackends []htmlBackend
	MoreBackendsText       string
	Notes                  []template.HTML
	Fixes                  []htmlChange
}

// htmlRow is one evidence line or key moment, ready to print.
type htmlRow struct {
	Time, Zone              string
	Source, Text, What, Who template.HTML
}

// htmlBackend is one backend of an incident.
type htmlBackend struct {
	Role, IP           string
	Pod, Why           template.HTML
	Requests, Attempts string
}

// htmlChange is one change to make.
type htmlChange struct {
	N                int
	ID, Title, Patch string
	Why              template.HTML
	For              string
}

// htmlInput is one row of the inputs table.
type htmlInput struct {
	Name             template.HTML
	Format, Range    string
	Records, Skipped int
}

// renderHTML writes the report as one self-contained HTML page.
func renderHTML(w io.Writer, rep *Report) error {
	return reportPage.Execute(w, newHTMLPage(rep))
}

// newHTMLPage turns the report into the page's view; all text from the
// inputs passes through Sanitize here, and html/template escapes it.
func newHTMLPage(rep *Report) *htmlPage {
	s := rep.Summary
	names := newSourceNames(rep.Inputs)
	p := &htmlPage{Policy: htmlPolicy, Style: template.CSS(htmlStyle), Script: template.JS(htmlScript),
		Count: len(rep.Incidents), Charts: newCharts(rep), Data: dataText(rep)}
	p.Sub = "From " + words.Plural(len(rep.Inputs), "input") + "; times are UTC."
	verdict, rest := headline(rep)
	p.Headline = verdict + " " + Sanitize(strings.TrimSuffix(rest, "."))
	p.CannotJudge = s.Verdict == VerdictCannotJudge
	for _, c := range s.Coverage {
		kind, what := coverageLine(c)
		p.Coverage = append(p.Coverage, htmlCoverage{Kind: kind, What: what})
	}
	if u := unreadLine(rep); u != "" {
		p.Coverage = append(p.Coverage, htmlCoverage{Kind: "not read", What: Sanitize(u), Unread: true})
	}
	for _, n := range rep.Notes {
		p.Notes = append(p.Notes, breakable(Sanitize(n)))
	}
	for _, c := range s.Caveats {
		p.Caveats = append(p.Caveats, breakable(Sanitize(c)))
	}
	for i, c := range s.Changes {
		p.Changes = append(p.Changes, htmlChange{N: i + 1, ID: "change-" + strconv.Itoa(i+1), Title: Sanitize(c.Title), Why: breakable(Sanitize(c.Why)),
			Patch: sanitizeLines(strings.TrimRight(c.Patch, "\n")), For: incidentRefs(c.Incidents)})
	}
	for i, in := range rep.Incidents {
		p.Incidents = append(p.Incidents, newHTMLIncident(rep, i, in, names, p.Changes))
	}
	for _, g := range incidentsByRollout(rep) {
		hg := htmlGroup{Title: Sanitize(g.title)}
		for _, i := range g.incidents {
			hg.Incidents = append(hg.Incidents, p.Incidents[i])
		}
		p.Groups = append(p.Groups, hg)
	}
	if names.dir != "" {
		p.SourceRules = append(p.SourceRules, breakable("File names are relative to "+Sanitize(names.dir)+"."))
	}
	for _, a := range names.aliases {
		p.SourceRules = append(p.SourceRules, breakable(a.mark+" stands for "+Sanitize(a.prefix)+"."))
	}
	for _, in := range rep.Inputs {
		r := ""
		if !in.First.IsZero() {
			r = shortTime(in.First) + " – " + shortTime(in.Last)
		}
		p.Inputs = append(p.Inputs, htmlInput{Name: breakable(names.short(in.Name)), Format: Sanitize(in.Format), Range: r, Records: in.Records, Skipped: in.Skipped})
	}
	for _, w := range rep.Warnings {
		p.Warnings = append(p.Warnings, breakable(Sanitize(w)))
	}
	return p
}

// newHTMLIncident prepares the i-th incident for the page.
func newHTMLIncident(rep *Report, i int, in Incident, names *sourceNames, changes []htmlChange) htmlIncident {
	h := htmlIncident{N: i + 1, ID: "incident-" + strconv.Itoa(i+1), Failed: in.FailedRequests,
		Cause: causeName(in), CauseID: Sanitize(in.Cause), VariantID: Sanitize(in.Variant), Confidence: Sanitize(in.Confidence),
		Cut: Sanitize(in.Cut), Summary: breakable(Sanitize(in.Summary)), Start: clock(in.Start), Duration: durationText(in.DurationSeconds),
		FailedText:      failedText(in.FailedRequests, in.LoggedFailedRequests, in.HiddenFailures, statusText(in.StatusCounts)),
		BackendsHeading: backendsHeading(in.Backends),
		Window: fmt.Sprintf("%s – %s UTC on %s (%s)", clock(in.Start), clock(in.End), in.Start.UTC().Format("2006-01-02"),
			words.RoundSpan(time.Duration(in.DurationSeconds*float64(time.Second)))+activeText(&in))}
	if in.Variant != "" {
		h.Variant = variantName(in)
	}
	if in.Trigger != "" && in.Trigger != "rollout" && in.Trigger != "unknown" {
		h.Trigger = "triggered by " + strings.ReplaceAll(Sanitize(in.Trigger), "_", " ")
	}
	if in.Rate != nil {
		h.Rate = fmt.Sprintf("Spread over %.1f h: %.1f failed requests an hour, %s of requests, on %s.",
			in.Rate.Hours, in.Rate.PerHour, words.Percent(in.Rate.Share), words.Plural(in.Rate.Backends, "backend"))
	}
	for _, to := range in.Timeouts {
		h.Timeouts = append(h.Timeouts, fmt.Sprintf("%s: %s (%s)", words.Capitalized(Sanitize(to.What)), durationText(to.Seconds), Sanitize(to.Source)))
	}
	shown, rest := tableBackends(in.Backends)
	h.Backends, h.MoreBackends = newHTMLBackends(shown), newHTMLBackends(rest)
	if len(rest) > 0 {
		h.MoreBackendsText = restOfBackends(rest)
	}
	for _, note := range in.Notes {
		h.Notes = append(h.Notes, breakable(Sanitize(note)))
	}
	for _, e := range in.Evidence {
		src := names.short(e.Source)
		if src == "" {
			src = "(objects)"
		}
		row := htmlRow{Source: breakable(src), Text: breakable(Sanitize(e.Text))}
		if !e.Time.IsZero() {
			row.Time = clock(e.Time)
		}
		h.Evidence = append(h.Evidence, row)
	}
	for _, m := range in.Timeline {
		h.Moments = append(h.Moments, htmlRow{Time: clock(m.Time), What: breakable(Sanitize(m.What)), Who: breakable(Sanitize(m.Who)),
			Zone: Sanitize(m.Zone), Source: breakable(names.short(m.Source))})
	}
	for ci, c := range rep.Summary.Changes {
		for _, id := range c.Incidents {
			if id == in.ID {
				h.Fixes = append(h.Fixes, changes[ci])
			}
		}
	}
	return h
}

// newHTMLBackends prepares backends for a table.
func newHTMLBackends(bs []Backend) []htmlBackend {
	var out []htmlBackend
	for _, b := range bs {
		pod := Sanitize(b.Pod)
		if pod == "" {
			pod = "not known"
		}
		hb := htmlBackend{Role: Sanitize(b.Role), Pod: breakable(pod), IP: Sanitize(b.IP), Why: breakable(backendWhy(b)),
			Requests: strconv.Itoa(b.FailedRequests), Attempts: strconv.Itoa(b.Failures)}
		if hb.IP == "" {
			hb.IP = "not known"
		}
		out = append(out, hb)
	}
	return out
}

// breakMin is the length from which a word (text between spaces) gets
// break opportunities: identifiers shorter than it never break.
const breakMin = 40

// wordBreaks are the characters after which a long word may break: the
// separators of paths, names, addresses and queries.
const wordBreaks = "/.-_:=&?,;"

// breakable escapes sanitized text for HTML and lets the browser break a
// word of breakMin characters or more after each of its separators (and
// every breakMin characters of a run without one), so that a long file
// name, pod name or URL wraps where it reads well instead of stretching the
// page, while short words and identifiers stay whole.
func breakable(s string) template.HTML {
	var b strings.Builder
	for i, word := range strings.Split(s, " ") {
		if i > 0 {
			b.WriteByte(' ')
		}
		if len([]rune(word)) < breakMin {
			b.WriteString(template.HTMLEscapeString(word))
			continue
		}
		run := 0
		for _, r := range word {
			b.WriteString(template.HTMLEscapeString(string(r)))
			run++
			if strings.ContainsRune(wordBreaks, r) || run == breakMin {
				b.WriteString("<wbr>")
				run = 0
			}
		}
	}
	return template.HTML(b.String())
}

package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Geometry of the two charts of the HTML report. Both share one x mapping so
// that a moment sits at the same horizontal position in the swimlanes and in
// the request bars.
const (
	chartWidth   = 1100 // SVG width in px (viewBox units)
	plotLeft     = 250  // x where the time axis starts; lane labels sit left of it
	plotRight    = 1068 // x where the time axis ends; the rest holds the last tick's label
	axisHeight   = 26   // room for tick labels below the bars
	lanesTop     = 34   // room for tick and incident labels above the lanes
	laneHeight   = 20   // one backend's row (never below 14 px)
	barsHeight   = 180  // height of the stacked-bar plot
	maxBars      = 600  // the series is summed into at most this many buckets
	laneLabelMax = 28   // characters of a lane name shown; longer ones lose their middle
	markerMerge  = 4.0  // markers of one kind closer than this (px) are drawn as one
	maxGlyphs    = 40   // marker glyphs drawn on one lane at most
	tooltipLines = 6    // events listed in one merged marker's tooltip
	// longInput is the span beyond which the charts zoom to the incidents.
	longInput = 20 * time.Minute
	// zoomMargin is the time shown before the first and after the last incident when zoomed.
	zoomMargin = 5 * time.Minute
)

// px is a coordinate, printed with one decimal to keep the SVG small.
type px float64

// String implements fmt.Stringer for the template.
func (p px) String() string { return strconv.FormatFloat(float64(p), 'f', 1, 64) }

// svgCharts is everything the template needs to draw the swimlanes and the bars.
type svgCharts struct {
	Width       int
	PlotLeft    px
	PlotRight   px
	LanesHeight int
	// LanesInner is the height of the lanes below their labels.
	LanesInner int
	BarsHeight int
	// T0 and T1 bound the axis in Unix milliseconds, for the hover script.
	T0, T1 int64
	// Day is the UTC date (or dates) the axis covers.
	Day string
	// Zoom explains a zoomed axis; empty when the whole input is shown.
	Zoom     string
	Ticks    []svgTick
	Windows  []svgWindow
	Lanes    []svgLane
	Replicas []svgReplicaSet
	// Bars are the buckets of the outcome series; BarsNote says how they were summed.
	Bars     []svgBucket
	BarsNote string
	YTicks   []svgTick
	// BarsBase is the y of the bars' zero line.
	BarsBase px
	// Outcomes are the legend entries of the bar colours in stacking order.
	Outcomes []svgOutcome
}

// svgTick is one labelled axis position (x for time ticks, y for count ticks).
type svgTick struct {
	At    px
	Label string
}

// svgWindow is an incident's shaded span.
type svgWindow struct {
	X, W  px
	Mid   px
	Label string
	Title string
}

// svgLane is one backend's row.
type svgLane struct {
	Y       px
	Name    string // full name, for the tooltip and data attribute
	Label   string // name shortened to fit the gutter
	Title   string
	Role    string
	Colour  string // CSS class of the replica set's colour
	Odd     bool
	Segs    []svgRect
	Markers []svgMarker
}

// svgRect is a drawn span with its tooltip.
type svgRect struct {
	X, Y, W, H px
	Class      string
	Title      string
}

// svgMarker is one glyph (possibly several merged events) on a lane.
type svgMarker struct {
	Path  string
	Class string
	Title string
}

// svgBucket is one bar of the outcome series: stacked parts and a tooltip.
type svgBucket struct {
	Parts []svgRect
	Title string
}

// svgReplicaSet is a legend entry: a replica set, its colour and its role.
type svgReplicaSet struct {
	Name, Role, Colour string
}

// svgOutcome is a legend entry of the bars.
type svgOutcome struct {
	Class, Label string
}

// outcomeStyle gives each series column a CSS class and a legend label, in
// stacking order from the baseline up: the load balancer's failures first so
// that they stand on the axis, then app 5xx, hidden retries and ok.
var outcomeStyle = []struct{ column, class, label string }{
	{"no_backend", "o-nobackend", "no backend"},
	{"refused", "o-refused", "refused"},
	{"unreachable", "o-unreachable", "unreachable"},
	{"closed", "o-closed", "closed / reset"},
	{"timeout", "o-timeout", "timeout"},
	{"other", "o-other", "other LB/proxy error"},
	{"app_5xx", "o-app", "app 5xx (sent by the application)"},
	{"hidden", "o-hidden", "retried & hidden (a retry rescued a failed attempt; counted once)"},
	{"ok", "o-ok", "ok"},
}

// Positions of the ok and hidden columns in outcomeStyle.
const (
	outcomeHidden = 7
	outcomeOK     = 8
)

// markerClass groups lifecycle kinds into the marker shapes of the legend.
var markerClass = map[string]string{
	"neg_attach": "m-attach", "target_registering": "m-attach", "target_registered": "m-attach",
	"neg_detach": "m-detach", "target_deregistering": "m-detach", "target_deregistered": "m-detach",
	"readiness_gate": "m-gate",
	"probe_failed":   "m-fail", "pod_not_ready": "m-fail", "prestop_failed": "m-fail", "neg_operation_failed": "m-fail",
	"killing": "m-stop", "pod_deleted": "m-stop",
}

// axis maps times to x between plotLeft and plotRight.
type axis struct{ t0, t1 time.Time }

// x is the horizontal position of t, clamped to the plot.
func (a axis) x(t time.Time) px {
	span := a.t1.Sub(a.t0)
	if span <= 0 {
		return plotLeft
	}
	f := float64(t.Sub(a.t0)) / float64(span)
	f = min(max(f, 0), 1)
	return px(plotLeft + f*(plotRight-plotLeft))
}

// contains reports whether t lies on the axis.
func (a axis) contains(t time.Time) bool { return !t.Before(a.t0) && !t.After(a.t1) }

// clock renders t as UTC wall-clock time with milliseconds.
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// newCharts lays out the charts of rep, or returns nil when nothing has a time.
func newCharts(rep *Report) *svgCharts {
	full, ok := reportSpan(rep)
	if !ok {
		return nil
	}
	c := &svgCharts{Width: chartWidth, PlotLeft: plotLeft, PlotRight: plotRight}
	ax := full
	if span := full.t1.Sub(full.t0); span > longInput && len(rep.Incidents) > 0 {
		z := axis{(rep.Incidents[0].Start).Add(-zoomMargin), (rep.Incidents[0].End).Add(zoomMargin)}
		for _, in := range rep.Incidents[1:] {
			z.t0 = minTime(z.t0, (in.Start).Add(-zoomMargin))
			z.t1 = maxTime(z.t1, (in.End).Add(zoomMargin))
		}
		z.t0, z.t1 = maxTime(z.t0, full.t0), minTime(z.t1, full.t1)
		if z.t1.Sub(z.t0) < span {
			ax = z
			c.Zoom = fmt.Sprintf("The input spans %s (%s–%s UTC); the charts show the incidents ±5 minutes, %s–%s UTC.",
				roundSpan(span), full.t0.UTC().Format("15:04:05"), full.t1.UTC().Format("15:04:05"),
				ax.t0.UTC().Format("15:04:05"), ax.t1.UTC().Format("15:04:05"))
		}
	}
	c.T0, c.T1 = ax.t0.UnixMilli(), ax.t1.UnixMilli()
	c.Day = ax.t0.UTC().Format("2006-01-02")
	if d := ax.t1.UTC().Format("2006-01-02"); d != c.Day {
		c.Day += " – " + d
	}
	c.Ticks = timeTicks(ax)
	c.layoutLanes(rep, ax)
	c.layoutBars(rep, ax)
	for i, in := range rep.Incidents {
		s, e := (in.Start), (in.End)
		if e.Before(ax.t0) || s.After(ax.t1) {
			continue
		}
		x0, x1 := ax.x(s), ax.x(e)
		c.Windows = append(c.Windows, svgWindow{X: x0, W: max(x1-x0, 2), Mid: (x0 + x1) / 2, Label: "#" + strconv.Itoa(i+1),
			Title: fmt.Sprintf("Incident %d: %s, %s–%s UTC, %s", i+1, in.Cause, clock(s), clock(e), plural(in.FailedRequests, "failed request"))})
	}
	return c
}

// reportSpan is the time range everything in the report covers.
func reportSpan(rep *Report) (axis, bool) {
	var a axis
	add := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if a.t0.IsZero() || t.Before(a.t0) {
			a.t0 = t
		}
		if t.After(a.t1) {
			a.t1 = t
		}
	}
	if s := rep.Series; s != nil && len(s.Values) > 0 {
		add(s.Start)
		if t := (s.Start); !t.IsZero() {
			add(t.Add(time.Duration(len(s.Values)*s.StepSeconds) * time.Second))
		}
	}
	for _, l := range rep.Lanes {
		for _, t := range l.Milestones {
			add(t)
		}
		add(l.FirstServed)
		add(l.LastServed)
		for _, m := range l.Markers {
			add(m.Time)
		}
	}
	for _, in := range rep.Incidents {
		add(in.Start)
		add(in.End)
	}
	if a.t0.IsZero() {
		return a, false
	}
	if a.t1.Sub(a.t0) < 10*time.Second {
		a.t1 = a.t0.Add(10 * time.Second)
	}
	return a, true
}

// tickSteps are the candidate distances between time ticks.
var tickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour}

// timeTicks places about ten UTC ticks on whole multiples of a round step.
func timeTicks(ax axis) []svgTick {
	span := ax.t1.Sub(ax.t0)
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if span/s <= 10 {
			step = s
			break
		}
	}
	layout := "15:04:05"
	if step >= time.Minute {
		layout = "15:04"
	}
	var ticks []svgTick
	for t := ax.t0.Truncate(step); !t.After(ax.t1); t = t.Add(step) {
		if t.Before(ax.t0) {
			continue
		}
		ticks = append(ticks, svgTick{At: ax.x(t), Label: t.UTC().Format(layout)})
	}
	return ticks
}

// layoutLanes draws one row per backend: Kubernetes state as the main bar,
// the load balancer's view as a thinner bar below it, and events as markers.
func (c *svgCharts) layoutLanes(rep *Report, ax axis) {
	colours := replicaSetColours(rep.Lanes)
	for i, l := range rep.Lanes {
		y := px(lanesTop + i*laneHeight)
		lane := svgLane{Y: y, Name: Sanitize(l.Name), Label: shorten(Sanitize(l.Name), laneLabelMax), Role: l.Role, Odd: i%2 == 1, Colour: colours[l.ReplicaSet]}
		if lane.Role == "unknown" {
			lane.Role = ""
		}
		lane.Title = laneTitle(l)
		lane.Segs = laneSegments(l, ax, y, lane.Colour)
		lane.Markers = laneMarkers(l, ax, y)
		c.Lanes = append(c.Lanes, lane)
	}
	c.LanesHeight = lanesTop + len(rep.Lanes)*laneHeight + 6
	c.LanesInner = c.LanesHeight - lanesTop + 4
	seen := map[string]bool{}
	for _, l := range rep.Lanes {
		if l.ReplicaSet == "" || seen[l.ReplicaSet] {
			continue
		}
		seen[l.ReplicaSet] = true
		c.Replicas = append(c.Replicas, svgReplicaSet{Name: Sanitize(l.ReplicaSet), Role: replicaSetRole(rep.Lanes, l.ReplicaSet), Colour: colours[l.ReplicaSet]})
	}
}

// replicaSetColours gives replica sets with new pods cool colours (c0–c2) and
// the others warm ones (c3–c5); backends without a replica set are grey (c6).
func replicaSetColours(lanes []Lane) map[string]string {
	out := map[string]string{"": "c6"}
	cool, warm := 0, 0
	for _, l := range lanes {
		if _, ok := out[l.ReplicaSet]; ok {
			continue
		}
		if replicaSetRole(lanes, l.ReplicaSet) == "new" {
			out[l.ReplicaSet] = "c" + strconv.Itoa(cool%3)
			cool++
		} else {
			out[l.ReplicaSet] = "c" + strconv.Itoa(3+warm%3)
			warm++
		}
	}
	return out
}

// replicaSetRole is "new" or "old" when a pod of rs had that role, else "".
func replicaSetRole(lanes []Lane, rs string) string {
	role := ""
	for _, l := range lanes {
		if l.ReplicaSet != rs {
			continue
		}
		if l.Role == "new" {
			return "new"
		}
		if l.Role == "old" {
			role = "old"
		}
	}
	return role
}

// laneTitle is a lane's tooltip: name, IP, replica set, zone and role.
func laneTitle(l Lane) string {
	parts := []string{Sanitize(l.Name)}
	if l.IP != "" && l.IP != l.Name {
		parts = append(parts, "IP "+Sanitize(l.IP))
	}
	if l.ReplicaSet != "" {
		parts = append(parts, "ReplicaSet "+Sanitize(l.ReplicaSet))
	}
	if l.Zone != "" {
		parts = append(parts, "zone "+Sanitize(l.Zone))
	}
	if l.Role != "" && l.Role != "unknown" {
		parts = append(parts, l.Role+" backend")
	}
	return strings.Join(parts, ", ")
}

// laneSegments builds a lane's bars: starting, Ready and terminating from
// Kubernetes; registered, LB-healthy and served from the load balancer.
func laneSegments(l Lane, ax axis, y px, colour string) []svgRect {
	m := func(name string) time.Time { return (l.Milestones[name]) }
	created := firstTime(m("created"), m("scheduled"), m("started"))
	ready, term, del := m("ready"), m("terminating"), m("deleted")
	firstServed, lastServed := (l.FirstServed), (l.LastServed)
	var segs []svgRect
	add := func(from, to time.Time, top, h px, class, what string) {
		if from.IsZero() || to.Before(from) || to.Before(ax.t0) || from.After(ax.t1) {
			return
		}
		x0, x1 := ax.x(from), ax.x(to)
		segs = append(segs, svgRect{X: x0, Y: y + top, W: max(x1-x0, 1.5), H: h, Class: class + " " + colour,
			Title: fmt.Sprintf("%s: %s – %s UTC (%s)", what, clock(from), clock(to), roundSpan(to.Sub(from)))})
	}
	gone := firstTime(term, del, ax.t1)
	if !ready.IsZero() {
		add(created, ready, 3, 10, "seg starting", "starting (created → Ready)")
		add(ready, gone, 3, 10, "seg ready", "Kubernetes Ready")
	} else {
		add(created, gone, 3, 10, "seg starting", "running, Ready time not seen")
	}
	if !term.IsZero() {
		end := del
		if end.IsZero() {
			end = maxTime(term.Add(time.Second), maxTime(lastServed, m("lb_detached")))
		}
		add(term, end, 3, 10, "seg terminating", "terminating")
	}
	attached, healthy := m("lb_attached"), m("lb_healthy")
	lbEnd := firstTime(m("lb_detached"), term, del, ax.t1)
	switch {
	case attached.IsZero():
	case healthy.IsZero():
		add(attached, lbEnd, 14, 4, "seg lb-reg", "registered at the load balancer (its health checks are not in the inputs)")
	default:
		add(attached, healthy, 14, 4, "seg lb-reg", "registered at the load balancer, not yet healthy")
	}
	add(healthy, lbEnd, 14, 4, "seg lb-ok", "LB-healthy")
	if !firstServed.IsZero() {
		add(firstServed, lastServed, 18, 2, "seg served", "served requests (first to last response from this backend)")
	}
	return segs
}

// laneMarkers draws a lane's events; events of one kind closer than
// markerMerge pixels share a glyph whose tooltip lists them.
func laneMarkers(l Lane, ax axis, y px) []svgMarker {
	type glyph struct {
		x     px
		class string
		lines []string
		more  int
	}
	marks := append([]Marker(nil), l.Markers...)
	sort.SliceStable(marks, func(i, j int) bool { return (marks[i].Time).Before((marks[j].Time)) })
	var glyphs []*glyph
	last := map[string]*glyph{}
	hidden := 0
	for _, mk := range marks {
		t := (mk.Time)
		if t.IsZero() || !ax.contains(t) {
			continue
		}
		class := markerClass[mk.Kind]
		if class == "" {
			class = "m-info"
		}
		line := rfc3339(mk.Time) + "  " + Sanitize(mk.Text)
		if mk.Source != "" {
			line += "  (" + Sanitize(mk.Source) + ")"
		}
		x := ax.x(t)
		if g := last[class]; g != nil && x-g.x < markerMerge {
			if len(g.lines) < tooltipLines {
				g.lines = append(g.lines, line)
			} else {
				g.more++
			}
			continue
		}
		if len(glyphs) == maxGlyphs {
			hidden++
			continue
		}
		g := &glyph{x: x, class: class, lines: []string{line}}
		glyphs = append(glyphs, g)
		last[class] = g
	}
	out := make([]svgMarker, 0, len(glyphs))
	for i, g := range glyphs {
		title := strings.Join(g.lines, "\n")
		if g.more > 0 {
			title += fmt.Sprintf("\n… and %d more", g.more)
		}
		if hidden > 0 && i == len(glyphs)-1 {
			title += fmt.Sprintf("\n(%d later events on this lane not drawn)", hidden)
		}
		out = append(out, svgMarker{Path: markerPath(g.class, g.x, y+8), Class: "mk " + g.class, Title: title})
	}
	return out
}

// markerPath is the outline of a marker glyph centred on (x, y).
func markerPath(class string, x, y px) string {
	p := func(dx, dy px) string { return (x + dx).String() + "," + (y + dy).String() }
	switch class {
	case "m-attach":
		return "M" + p(0, -5) + "L" + p(5, 4) + "L" + p(-5, 4) + "Z"
	case "m-detach":
		return "M" + p(0, 5) + "L" + p(5, -4) + "L" + p(-5, -4) + "Z"
	case "m-gate":
		return "M" + p(0, -5) + "L" + p(5, 0) + "L" + p(0, 5) + "L" + p(-5, 0) + "Z"
	case "m-fail":
		return "M" + p(-4, -4) + "L" + p(4, 4) + "M" + p(4, -4) + "L" + p(-4, 4)
	case "m-stop":
		return "M" + p(-4, -4) + "H" + (x + 4).String() + "V" + (y + 4).String() + "H" + (x - 4).String() + "Z"
	}
	return "M" + p(-2.5, 0) + "A2.5,2.5 0 1,0 " + p(2.5, 0) + "A2.5,2.5 0 1,0 " + p(-2.5, 0) + "Z"
}

// bucketSteps are the candidate bucket widths of the bars, in seconds.
var bucketSteps = []int{1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600}

// layoutBars sums the per-second series into at most maxBars buckets and
// stacks each bucket's outcomes.
func (c *svgCharts) layoutBars(rep *Report, ax axis) {
	c.Outcomes = make([]svgOutcome, len(outcomeStyle))
	for i, o := range outcomeStyle {
		c.Outcomes[i] = svgOutcome{Class: o.class, Label: o.label}
	}
	top := px(12)
	c.BarsBase = top + barsHeight
	c.BarsHeight = int(c.BarsBase) + axisHeight
	s := rep.Series
	if s == nil || len(s.Values) == 0 {
		c.BarsNote = "No request logs: no outcome series to draw."
		return
	}
	col := map[string]int{}
	for i, name := range s.Columns {
		col[name] = i
	}
	step := max(s.StepSeconds, 1)
	start := (s.Start)
	from := max(int(ax.t0.Sub(start)/time.Second)/step, 0)
	to := min(int(ax.t1.Sub(start)/time.Second)/step+1, len(s.Values))
	if from >= to {
		c.BarsNote = "No requests in the time shown."
		return
	}
	per := bucketSteps[len(bucketSteps)-1]
	for _, b := range bucketSteps {
		if b%step == 0 && (to-from)*step/b <= maxBars {
			per = b
			break
		}
	}
	rows := per / step
	type bucket struct {
		t    time.Time
		sums []int
	}
	var buckets []bucket
	for i := from; i < to; i += rows {
		b := bucket{t: start.Add(time.Duration(i*step) * time.Second), sums: make([]int, len(outcomeStyle))}
		for j := i; j < min(i+rows, to); j++ {
			for k, o := range outcomeStyle {
				if ci, ok := col[o.column]; ok && ci < len(s.Values[j]) {
					b.sums[k] += s.Values[j][ci]
				}
			}
		}
		// Hidden requests are part of ok (or app 5xx): draw them once, as their own part.
		b.sums[outcomeHidden] = min(b.sums[outcomeHidden], b.sums[outcomeOK])
		b.sums[outcomeOK] -= b.sums[outcomeHidden]
		buckets = append(buckets, b)
	}
	peak := 1
	for _, b := range buckets {
		total := 0
		for _, n := range b.sums {
			total += n
		}
		peak = max(peak, total)
	}
	peak = niceCeil(peak)
	scale := float64(barsHeight) / float64(peak)
	width := time.Duration(per) * time.Second
	for _, b := range buckets {
		x0, x1 := ax.x(b.t), ax.x(b.t.Add(width))
		w := max(x1-x0-0.3, 0.7)
		yb := c.BarsBase
		var rects []svgRect
		var parts []string
		total := 0
		for k, n := range b.sums {
			if n == 0 {
				continue
			}
			total += n
			h := px(float64(n) * scale)
			yb -= h
			rects = append(rects, svgRect{X: x0, Y: yb, W: w, H: h, Class: "bar " + outcomeStyle[k].class})
			parts = append(parts, fmt.Sprintf("%s %d", strings.SplitN(outcomeStyle[k].label, " (", 2)[0], n))
		}
		if total > 0 {
			c.Bars = append(c.Bars, svgBucket{Parts: rects, Title: fmt.Sprintf("%s – %s UTC: %s — %s",
				clock(b.t), clock(b.t.Add(width)), plural(total, "request"), strings.Join(parts, ", "))})
		}
	}
	for _, v := range []int{0, peak / 2, peak} {
		c.YTicks = append(c.YTicks, svgTick{At: c.BarsBase - px(float64(v)*scale), Label: strconv.Itoa(v)})
	}
	c.BarsNote = fmt.Sprintf("Requests per %s, stacked by outcome; %s drawn.", roundSpan(width), plural(len(c.Bars), "bar"))
	if per == 1 {
		c.BarsNote = fmt.Sprintf("Requests per second, stacked by outcome; %s drawn.", plural(len(c.Bars), "bar"))
	}
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten.
func niceCeil(n int) int {
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

// roundSpan renders a duration for people: 37 s, 4.5 s, 12 min, 2 h 5 min.
func roundSpan(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	case d < 2*time.Minute:
		return strconv.Itoa(int(d.Round(time.Second).Seconds())) + " s"
	case d < 2*time.Hour:
		return strconv.Itoa(int(d.Round(time.Minute).Minutes())) + " min"
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
}

// shorten cuts s to n runes by replacing its middle with an ellipsis, keeping
// the end, where pod names carry their distinguishing hash.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// firstTime is the first non-zero time of ts.
func firstTime(ts ...time.Time) time.Time {
	for _, t := range ts {
		if !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

// minTime is the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// maxTime is the later of a and b.
func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

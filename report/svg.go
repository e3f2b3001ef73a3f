package report

import (
	"fmt"
	"html/template"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/internal/words"
)

// Geometry of the two charts of the HTML report, in viewBox units. Both
// share one x mapping so that a moment sits at the same horizontal position
// in the lanes and in the request bars. The page never draws the charts
// narrower than chartMinWidth CSS pixels (they scroll in their box instead),
// so a lane is at least laneHeight × chartMinWidth / chartWidth pixels tall.
const (
	chartWidth    = 1100 // SVG width
	chartMinWidth = 880  // CSS px: the narrowest the charts are drawn
	plotLeft      = 250  // x where the time axis starts; lane labels sit left of it
	plotRight     = 1068 // x where the time axis ends; the rest holds the last tick's label
	axisHeight    = 26   // room for tick labels below the bars
	lanesTop      = 34   // room for tick and incident labels above the lanes
	groupHeight   = 20   // a ReplicaSet's heading row
	laneHeight    = 24   // one backend's row: 19 CSS px at chartMinWidth
	barTop        = 4    // the state bar's offset in its row
	barHeight     = 16   // the state bar's height
	barsHeight    = 180  // height of the stacked-bar plot
	maxBars       = 600  // the series is summed into at most this many bars
	maxHTMLLanes  = 80   // rows of lanes drawn at most; alike lanes share one
	laneLabelMax  = 32   // characters of a lane label shown; longer ones lose their middle
	markerMerge   = 4.0  // markers of one kind closer than this are drawn as one
	maxGlyphs     = 40   // marker glyphs drawn on one lane at most
	tooltipLines  = 6    // events listed in one merged marker's tooltip
	minStateWidth = 3.0  // a state shorter than this (or of unknown end) is drawn this wide
)

// px is a coordinate, printed with one decimal to keep the SVG small.
type px float64

// String implements fmt.Stringer for the template.
func (p px) String() string { return strconv.FormatFloat(float64(p), 'f', 1, 64) }

// svgCharts is everything the template needs to draw the lanes and the bars.
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
	// Day is the UTC date (or dates) the axis covers; Span its length.
	Day, Span string
	Ticks     []svgTick
	Windows   []svgWindow
	Groups    []svgGroup
	Lanes     []svgLane
	Hatches   []string
	Replicas  []svgReplicaSet
	// LanesNote says how many lanes were collapsed or left out.
	LanesNote string
	// Drawn holds the classes of the states (st-…) and marker shapes (m-…)
	// the lanes draw, and States the states: the legend names only those.
	Drawn  map[string]bool
	States []stateLegend
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

// svgGroup is a ReplicaSet's heading row.
type svgGroup struct {
	Y     px
	Title string
}

// svgLane is one row: a backend, or several alike.
type svgLane struct {
	Y       px
	Name    string // full name, for the tooltip and data attribute
	Label   string // name shortened to fit the gutter
	Title   string
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

// svgReplicaSet is a legend entry: a ReplicaSet, its colour and its role.
type svgReplicaSet struct {
	Name         template.HTML
	Role, Colour string
}

// svgOutcome is a legend entry of the bars.
type svgOutcome struct {
	Class, Label string
}

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

// clock renders t as UTC wall-clock time with milliseconds, the one time
// format of the HTML report.
func clock(t time.Time) string { return t.UTC().Format("15:04:05.000") }

// newCharts lays out the charts of rep on its whole axis, from the data's
// first to its last record, or returns nil when nothing has a time.
func newCharts(rep *Report) *svgCharts {
	from, to, ok := laneViewSpan(rep)
	if !ok {
		return nil
	}
	if to.Sub(from) < 10*time.Second {
		to = from.Add(10 * time.Second)
	}
	ax := axis{from, to}
	c := &svgCharts{Width: chartWidth, PlotLeft: plotLeft, PlotRight: plotRight, Span: words.RoundSpan(to.Sub(from))}
	c.T0, c.T1 = ax.t0.UnixMilli(), ax.t1.UnixMilli()
	c.Day = ax.t0.UTC().Format("2006-01-02")
	if d := ax.t1.UTC().Format("2006-01-02"); d != c.Day {
		c.Day += " – " + d
	}
	c.Ticks = timeTicks(ax)
	c.layoutLanes(rep, ax)
	c.Drawn = map[string]bool{}
	for _, l := range c.Lanes {
		for _, r := range l.Segs {
			for _, class := range strings.Fields(r.Class) {
				c.Drawn[class] = true
			}
		}
		for _, m := range l.Markers {
			for _, class := range strings.Fields(m.Class) {
				c.Drawn[class] = true
			}
		}
	}
	states := map[string]bool{}
	for class := range c.Drawn {
		if state, ok := strings.CutPrefix(class, "st-"); ok {
			states[state] = true
		}
	}
	c.States = legendStates(states)
	c.layoutBars(rep, ax)
	for i, in := range rep.Incidents {
		s, e := in.Start, in.End
		if e.Before(ax.t0) || s.After(ax.t1) {
			continue
		}
		x0, x1 := ax.x(s), ax.x(e)
		w := svgWindow{X: x0, W: max(x1-x0, 2), Label: "#" + strconv.Itoa(i+1),
			Title: fmt.Sprintf("Incident %d: %s, %s–%s UTC, %s", i+1, causeName(in), clock(s), clock(e), words.Plural(in.FailedRequests, "failed request"))}
		w.Mid = windowLabelAt(w.X, w.W, w.Label)
		c.Windows = append(c.Windows, w)
	}
	// Labels too close to the previous one (from left to right) join it.
	order := make([]int, len(c.Windows))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return c.Windows[order[a]].Mid < c.Windows[order[b]].Mid })
	var prev *svgWindow
	for _, i := range order {
		w := &c.Windows[i]
		if prev != nil && w.Mid-labelWidth(w.Label)/2 < prev.Mid+labelWidth(prev.Label)/2 {
			prev.Label += "," + strings.TrimPrefix(w.Label, "#")
			w.Label = ""
			continue
		}
		prev = w
	}
	return c
}

// windowLabelAt is where the label of a window from x, w wide, is centred:
// over its middle, or at its start when the window is wide enough to hold
// the labels of the incidents within it (wideWindow).
func windowLabelAt(x, w px, label string) px {
	if w > wideWindow*labelWidth(label) {
		return x + labelWidth(label)/2
	}
	return x + w/2
}

// wideWindow is how many label widths a window spans for its label to sit
// at its start rather than its middle: an incident that lasts most of the
// axis leaves its middle to the shorter ones within it.
const wideWindow = 4

// labelCharWidth is the width of a character of a window label (bold
// 13 px), to keep labels from running into each other.
const labelCharWidth = 8

// labelWidth is the width of a window label.
func labelWidth(label string) px { return px(len(label)*labelCharWidth + labelCharWidth) }

// reportSpan is the time range everything in the report covers, for a
// report built without an axis.
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
		add(s.end())
	}
	for _, l := range rep.Lanes {
		for _, t := range l.Milestones {
			add(t)
		}
		add(l.FirstServed)
		add(l.LastServed)
	}
	for _, in := range rep.Incidents {
		add(in.Start)
		add(in.End)
	}
	return a, !a.t0.IsZero()
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
	if span/step > 10 {
		step = span / 10 // longer than days: ticks on the tenths
	}
	layout := "15:04:05"
	switch {
	case step >= 24*time.Hour:
		layout = "01-02 15:04"
	case step >= time.Minute:
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

// layoutLanes draws one row per backend (alike ones collapsed), grouped by
// ReplicaSet under a heading row: its states as one bar in the ReplicaSet's
// colour, pale when starting, solid once healthy for the load balancer,
// hatched while terminating, and its events as markers.
func (c *svgCharts) layoutLanes(rep *Report, ax axis) {
	quantum := ax.t1.Sub(ax.t0) / time.Duration(plotRight-plotLeft) * 2
	v := buildLaneView(rep, max(quantum, time.Millisecond), maxHTMLLanes)
	y := px(lanesTop)
	colours := groupColours(v)
	hatched := map[string]bool{}
	row := 0
	collapsed := 0
	if v != nil {
		for gi, g := range v.Groups {
			head, rest := groupTitle(g)
			c.Groups = append(c.Groups, svgGroup{Y: y, Title: head + rest})
			y += groupHeight
			colour := colourClass(colours[gi])
			c.Replicas = append(c.Replicas, svgReplicaSet{Name: breakable(strings.TrimSpace(head)), Role: g.Role, Colour: colour})
			for _, l := range g.Lanes {
				collapsed += len(l.Names) - 1
				label := laneLabel(l, g)
				lane := svgLane{Y: y, Name: Sanitize(l.Name), Label: shorten(label, laneLabelMax), Odd: row%2 == 1,
					Title: laneTitle(l, g)}
				lane.Segs = stateSegments(l.States, ax, y, colour)
				for _, s := range l.States {
					hatched[colour] = hatched[colour] || s.State == StateTerminating
				}
				lane.Markers = laneMarkers(l.Markers, ax, y)
				c.Lanes = append(c.Lanes, lane)
				y += laneHeight
				row++
			}
		}
	}
	for _, colour := range laneColourClasses {
		if cl := colourClass(colour); hatched[cl] || cl == "c0" { // c0's is the legend's
			c.Hatches = append(c.Hatches, cl)
		}
	}
	c.LanesHeight = int(y) + 6
	c.LanesInner = c.LanesHeight - lanesTop + 4
	var notes []string
	if collapsed > 0 {
		notes = append(notes, fmt.Sprintf("%s drawn in the row of one alike at this scale (“+N” in a label; hover over or tap it for the names)", words.Plural(collapsed, "backend")))
	}
	if v != nil && v.Omitted > 0 {
		notes = append(notes, fmt.Sprintf("%s not drawn (the JSON report lists every lane)", words.Plural(v.Omitted, "more backend")))
	}
	c.LanesNote = strings.Join(notes, "; ")
}

// groupColours gives each group of v its colour: by the role of its pods,
// the next colour of that role's list for each further group of the role.
func groupColours(v *laneView) []string {
	if v == nil {
		return nil
	}
	used := map[string]int{}
	out := make([]string, len(v.Groups))
	for i, g := range v.Groups {
		list := roleColours[g.Role]
		if list == nil {
			list = roleColours[""]
		}
		out[i] = list[used[g.Role]%len(list)]
		used[g.Role]++
	}
	return out
}

// laneTitle is a row's tooltip: names, IP, ReplicaSet and role; for an IP
// the records cannot tie to one pod, the pods it may have been, a few
// named and the rest counted as a backend's why does (words.SomePods).
func laneTitle(l viewLane, g laneGroup) string {
	var parts []string
	if len(l.Names) == 1 {
		parts = append(parts, Sanitize(l.Name))
		if l.IP != "" && l.IP != l.Name {
			parts = append(parts, "IP "+Sanitize(l.IP))
		}
	} else {
		named := make([]string, len(l.Names))
		for i := range named {
			named[i] = l.Names[i]
			if ip := l.IPs[i]; ip != "" && ip != l.Names[i] {
				named[i] += " (" + ip + ")"
			}
		}
		parts = append(parts, Sanitize(strings.Join(named, ", ")))
	}
	if len(l.OneOf) > 0 {
		parts = append(parts, "one of the pods "+Sanitize(words.SomePods(l.OneOf))+" (the records cannot tell which)")
	}
	if g.ReplicaSet != "" {
		parts = append(parts, "ReplicaSet "+Sanitize(g.ReplicaSet))
	}
	if l.Role != "" && l.Role != "unknown" {
		parts = append(parts, l.Role+" backend")
	}
	return strings.Join(parts, "; ")
}

// stateSegments draws a lane's states as one bar.
func stateSegments(states []LaneState, ax axis, y px, colour string) []svgRect {
	var segs []svgRect
	for _, s := range states {
		if s.To.Before(ax.t0) || s.From.After(ax.t1) {
			continue
		}
		x0, x1 := ax.x(s.From), ax.x(s.To)
		title := fmt.Sprintf("%s: %s – %s UTC (%s)", stateName(s.State), clock(s.From), clock(s.To), words.RoundSpan(s.To.Sub(s.From)))
		if s.To.Equal(s.From) {
			title = fmt.Sprintf("%s from %s UTC; its end is not in the data", stateName(s.State), clock(s.From))
		}
		if s.Inferred != "" {
			title += "; start inferred: " + Sanitize(s.Inferred)
		}
		segs = append(segs, svgRect{X: x0, Y: y + barTop, W: max(x1-x0, minStateWidth), H: barHeight, Class: "st st-" + s.State + " " + colour, Title: title})
	}
	return segs
}

// laneMarkers draws a lane's events; events of one kind closer than
// markerMerge units share a glyph whose tooltip lists them.
func laneMarkers(markers []Marker, ax axis, y px) []svgMarker {
	type glyph struct {
		x     px
		class string
		lines []string
		more  int
	}
	marks := append([]Marker(nil), markers...)
	sort.SliceStable(marks, func(i, j int) bool { return marks[i].Time.Before(marks[j].Time) })
	var glyphs []*glyph
	last := map[string]*glyph{}
	hidden := 0
	for _, mk := range marks {
		t := mk.Time
		if t.IsZero() || !ax.contains(t) {
			continue
		}
		class := markerClass[mk.Kind]
		if class == "" {
			class = "m-info"
		}
		line := clock(mk.Time) + "  " + Sanitize(mk.Text)
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
		out = append(out, svgMarker{Path: markerPath(g.class, g.x, y+barTop+barHeight/2), Class: "mk " + g.class, Title: title})
	}
	return out
}

// markerPath is the outline of a marker glyph centred on (x, y).
func markerPath(class string, x, y px) string {
	p := func(dx, dy px) string { return (x + dx).String() + "," + (y + dy).String() }
	switch class {
	case "m-attach":
		return "M" + p(0, -6) + "L" + p(6, 5) + "L" + p(-6, 5) + "Z"
	case "m-detach":
		return "M" + p(0, 6) + "L" + p(6, -5) + "L" + p(-6, -5) + "Z"
	case "m-gate":
		return "M" + p(0, -6) + "L" + p(6, 0) + "L" + p(0, 6) + "L" + p(-6, 0) + "Z"
	case "m-fail":
		return "M" + p(-5, -5) + "L" + p(5, 5) + "M" + p(5, -5) + "L" + p(-5, 5)
	case "m-stop":
		return "M" + p(-5, -5) + "H" + (x + 5).String() + "V" + (y + 5).String() + "H" + (x - 5).String() + "Z"
	}
	return "M" + p(-3, 0) + "A3,3 0 1,0 " + p(3, 0) + "A3,3 0 1,0 " + p(-3, 0) + "Z"
}

// layoutBars sums the series rows on the axis into at most maxBars buckets
// and stacks each bucket's outcomes.
func (c *svgCharts) layoutBars(rep *Report, ax axis) {
	for _, o := range outcomes {
		c.Outcomes = append(c.Outcomes, svgOutcome{Class: o.class, Label: o.label})
	}
	top := px(12)
	c.BarsBase = top + barsHeight
	c.BarsHeight = int(c.BarsBase) + axisHeight
	s := rep.Series
	if s == nil || len(s.Values) == 0 {
		c.BarsNote = "No request logs: no outcome series to draw."
		return
	}
	start, step, rows := s.rowsFor(ax.t0, ax.t1)
	stepDur := time.Duration(step) * time.Second
	from := max(int(ax.t0.Sub(start)/stepDur), 0)
	to := min(int(ax.t1.Sub(start)/stepDur)+1, len(rows))
	if from >= to {
		c.BarsNote = "No requests in the time shown."
		return
	}
	per := (to - from + maxBars - 1) / maxBars // rows per bar
	width := time.Duration(per) * stepDur
	type bucket struct {
		t    time.Time
		sums []int
	}
	var buckets []bucket
	peak := 1
	for i := from; i < to; i += per {
		b := bucket{t: start.Add(time.Duration(i) * stepDur), sums: make([]int, len(outcomes))}
		total := 0
		for j := i; j < min(i+per, to); j++ {
			for k, o := range outcomes {
				b.sums[k] += rows[j][o.column]
			}
		}
		// A rescued request is also counted as ok (or app 5xx): draw it once, as its own part.
		hid, ok := len(outcomes)-2, len(outcomes)-1
		b.sums[hid] = min(b.sums[hid], b.sums[ok])
		b.sums[ok] -= b.sums[hid]
		for _, n := range b.sums {
			total += n
		}
		peak = max(peak, total)
		buckets = append(buckets, b)
	}
	peak = niceCeil(peak)
	scale := float64(barsHeight) / float64(peak)
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
			rects = append(rects, svgRect{X: x0, Y: yb, W: w, H: h, Class: "bar " + outcomes[k].class})
			parts = append(parts, fmt.Sprintf("%s %d", outcomes[k].label, n))
		}
		if total > 0 {
			c.Bars = append(c.Bars, svgBucket{Parts: rects, Title: fmt.Sprintf("%s – %s UTC: %s — %s",
				clock(b.t), clock(b.t.Add(width)), words.Plural(total, "request"), strings.Join(parts, ", "))})
		}
	}
	for _, v := range []int{0, peak / 2, peak} {
		c.YTicks = append(c.YTicks, svgTick{At: c.BarsBase - px(float64(v)*scale), Label: strconv.Itoa(v)})
	}
	if width == time.Second {
		c.BarsNote = fmt.Sprintf("Requests per second, stacked by outcome; %s drawn.", words.Plural(len(c.Bars), "bar"))
	} else {
		c.BarsNote = fmt.Sprintf("Requests per %s, stacked by outcome; %s drawn.", words.RoundSpan(width), words.Plural(len(c.Bars), "bar"))
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

package report

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/readygap/readygap/internal/words"
)

// Text lanes.
const (
	// MaxTextLanes bounds the rows of the text lanes; alike lanes share one.
	MaxTextLanes = 24
	// textLabelMin and textLabelMax bound the label column; a longer label
	// gets a line of its own above its row.
	textLabelMin = 14
	textLabelMax = 34
	// maxAlikeNamed bounds the backends a row of alike lanes names, and the
	// pods an IP may have been one of: a dozen fill three lines at 80
	// columns; past them the row says how many, and the JSON names them.
	maxAlikeNamed = 12
)

// laneChars draw the states.
var laneChars = map[string]rune{StateStarting: '░', StateReady: '▒', StateLBHealthy: '█', StateTerminating: '╌'}

// Lanes of new and old pods in colours that stay apart for red-green
// colour blindness: blue and yellow.
var (
	newLaneStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("4"))
	oldLaneStyle = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
)

// lanes draws every backend on the report's axis, grouped by ReplicaSet.
func (t *textOut) lanes(rep *Report) {
	from, to, ok := laneViewSpan(rep)
	if !ok || len(rep.Lanes) == 0 {
		return
	}
	// The label column fits the labels of the lanes drawn, which depend on
	// the column's step: sized from every lane apart, then once more from
	// the rows drawn when their "+N" labels are wider.
	labelW := textLabelWidth(buildLaneView(rep, time.Nanosecond, MaxTextLanes))
	cols := t.width - labelW - 4 // a space, the label, a space and two bars
	step := max(to.Sub(from)/time.Duration(cols), time.Millisecond)
	v := buildLaneView(rep, step, MaxTextLanes)
	if v == nil || v.Rows == 0 {
		return
	}
	if w := textLabelWidth(v); w > labelW {
		labelW = w
		cols = t.width - labelW - 4
		step = max(to.Sub(from)/time.Duration(cols), time.Millisecond)
		v = buildLaneView(rep, step, MaxTextLanes)
	}
	layout := time.TimeOnly
	if !words.SameDay(from, to) {
		layout = time.DateTime
	}
	head := fmt.Sprintf(" %s → %s UTC, one column ≈ %s", from.UTC().Format(layout), to.UTC().Format(layout), stepText(step))
	if v.Quantum > step {
		head += fmt.Sprintf("; lanes within %s of each other are alike", stepText(v.Quantum))
	}
	// The rows first, to learn what they draw: the legend names that alone.
	rows := &textOut{width: t.width, names: t.names}
	drawn := map[string]bool{}
	shortened, alike, roles := false, false, map[string]bool{}
	for _, g := range v.Groups {
		head, rest := groupTitle(g)
		rows.para(headingStyle.Render(head), rest, "  ")
		style := func(s ...string) string { return strings.Join(s, "") }
		switch g.Role {
		case "new":
			style = newLaneStyle.Render
		case "old":
			style = oldLaneStyle.Render
		}
		roles[g.Role] = true
		for _, l := range g.Lanes {
			label := laneLabel(l, g)
			shortened = shortened || strings.HasPrefix(label, "…")
			alike = alike || len(l.Names) > 1
			if lipgloss.Width(label) > labelW {
				rows.line(" " + label)
				label = ""
			}
			rows.line(" " + padRight(label, labelW) + " │" + style(laneRow(l.States, from, step, cols, drawn)) + "│")
			if len(l.Names) > 1 {
				// The row's label has no room for IPs: the first one
				// leads the list of the others.
				first := ""
				if ip := l.IPs[0]; ip != "" && ip != l.Names[0] {
					first = Sanitize(ip) + " · "
				}
				head := "   " + first + "alike: "
				if len(l.Names)-1 > maxAlikeNamed {
					rows.dimLines(hanging(head, fmt.Sprintf("%d more %s, named in the JSON report", len(l.Names)-1, backendNoun(l.Names[1:], l.IPs[1:])), "          ", t.width))
				} else {
					// Each pod with its IP, never broken between them.
					names := make([]string, len(l.Names)-1)
					for k := range names {
						names[k] = Sanitize(l.named(k+1, g))
					}
					rows.dimLines(hangingItems(head, names, ",", "          ", t.width))
				}
			}
			if len(l.OneOf) > 0 {
				pods := fmt.Sprintf("one of %d pods of the ReplicaSet (the records cannot tell which)", len(l.OneOf))
				if len(l.OneOf) <= maxAlikeNamed {
					names := make([]string, len(l.OneOf))
					for k, p := range l.OneOf {
						names[k] = Sanitize(viewLane{Name: p}.label(g))
					}
					pods = "one of the pods " + strings.Join(names, ", ") + " (the records cannot tell which)"
				}
				rows.dimLines(hanging("   ", pods, "          ", t.width))
			}
		}
	}
	fails := make([]rune, cols)
	failed := false
	for i := range fails {
		fails[i] = ' '
		a := from.Add(time.Duration(i) * step)
		if failedIn(rep.Series, a, a.Add(step)) > 0 {
			fails[i], failed = '!', true
		}
	}
	rows.line(" " + padRight("LB/proxy 5xx", labelW) + " │" + causeStyle.Render(string(fails)) + "│")
	if marks := incidentMarks(rep, from, step, cols); marks != "" {
		rows.line(" " + padRight("incidents", labelW) + "  " + marks)
	}
	if v.Omitted > 0 {
		rows.line(dimStyle.Render(fmt.Sprintf("%s more not drawn (the JSON report lists every lane).", words.Plural(v.Omitted, "backend"))))
	}

	t.para(headingStyle.Render("Lanes")+" ", head, "  ")
	var states []string
	for _, s := range legendStates(drawn) {
		states = append(states, string(laneChars[s.State])+" "+s.Name)
	}
	if failed {
		states = append(states, "! LB/proxy 5xx")
	}
	t.items(states, "  ")
	var marks []string
	if shortened {
		marks = append(marks, "…-x7k2q: a pod of the ReplicaSet above")
	}
	if alike {
		marks = append(marks, "+N: N more pods alike")
	}
	if t.colour && roles["new"] && roles["old"] {
		marks = append(marks, "new pods blue, old yellow")
	}
	if len(marks) > 0 {
		t.items(marks, " · ")
	}
	t.b.WriteString(rows.b.String())
	t.blank()
}

// textLabelWidth is the width of the label column for the rows of v: the
// widest label, within textLabelMin and textLabelMax.
func textLabelWidth(v *laneView) int {
	w := textLabelMin
	if v == nil {
		return w
	}
	for _, g := range v.Groups {
		for _, l := range g.Lanes {
			w = max(w, min(lipgloss.Width(laneLabel(l, g)), textLabelMax))
		}
	}
	return w
}

// backendNoun names what a list of collapsed backends holds: pods, IPs,
// or both.
func backendNoun(names, ips []string) string {
	pods, bare := 0, 0
	for k, n := range names {
		if n == ips[k] {
			bare++
		} else {
			pods++
		}
	}
	switch {
	case bare == 0:
		return "pods"
	case pods == 0:
		return "IPs"
	}
	return "pods and IPs"
}

// items writes a legend faint: its items joined by sep, as many on a line
// as fit, never broken inside one.
func (t *textOut) items(items []string, sep string) {
	line := ""
	for _, it := range items {
		if line != "" && lipgloss.Width(line+sep+it) > t.width {
			t.line(dimStyle.Render(line))
			line = ""
		}
		if line != "" {
			line += sep
		}
		line += it
	}
	t.line(dimStyle.Render(line))
}

// dimLines writes s faint, line by line, so that no line is padded to the
// width of the longest.
func (t *textOut) dimLines(s string) {
	for _, line := range strings.Split(s, "\n") {
		t.line(dimStyle.Render(line))
	}
}

// laneLabel is a row's label: the pod (after its ReplicaSet's name) and IP.
func laneLabel(l viewLane, g laneGroup) string {
	label := Sanitize(l.label(g))
	if l.IP != "" && l.IP != l.Name && len(l.Names) == 1 {
		label += " " + l.IP
	}
	return label
}

// groupTitle names a group of lanes: the ReplicaSet's name, kept on one
// line with the word before it, and the rest.
func groupTitle(g laneGroup) (head, rest string) {
	n := 0
	for _, l := range g.Lanes {
		n += len(l.Names)
	}
	count := strconv.Itoa(n)
	if g.Role != "" {
		count += " " + g.Role
	}
	if g.ReplicaSet == "" {
		if g.Role == "" {
			count += " of unknown role"
		}
		return "Backends known only by IP ", "· " + count
	}
	noun := " pods"
	if n == 1 {
		noun = " pod"
	}
	return "ReplicaSet " + Sanitize(g.ReplicaSet) + " ", "· " + count + noun
}

// laneRow draws states in cols columns of step from from: each column shows
// the state at its middle; a state shorter than a column marks its column
// when no other state holds it. The states it draws are added to drawn.
func laneRow(states []LaneState, from time.Time, step time.Duration, cols int, drawn map[string]bool) string {
	row := make([]rune, cols)
	for i := range row {
		row[i] = ' '
		if s := stateAt(states, from.Add(time.Duration(i)*step+step/2)); s != "" {
			row[i] = laneChars[s]
			drawn[s] = true
		}
	}
	for _, s := range states {
		i := int(s.From.Sub(from) / step)
		if i >= 0 && i < cols && (s.To.Sub(s.From) < step) && row[i] == ' ' {
			row[i] = laneChars[s.State]
			drawn[s.State] = true
		}
	}
	return string(row)
}

// incidentMarks writes each incident's number under the column it starts
// in; incidents that would touch share one mark ("#1,2").
func incidentMarks(rep *Report, from time.Time, step time.Duration, cols int) string {
	type mark struct {
		col   int
		label string
	}
	var marks []mark
	for i, in := range rep.Incidents {
		c := int(in.Start.Sub(from) / step)
		if c < 0 || c >= cols {
			continue
		}
		if n := len(marks); n > 0 && c <= marks[n-1].col+len(marks[n-1].label) {
			marks[n-1].label += "," + strconv.Itoa(i+1)
			continue
		}
		marks = append(marks, mark{c, "#" + strconv.Itoa(i+1)})
	}
	var b strings.Builder
	for _, m := range marks {
		if pad := m.col - lipgloss.Width(b.String()); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		} else if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.label)
	}
	return b.String()
}

// stepText renders a column's duration.
func stepText(d time.Duration) string {
	if d < time.Minute {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + " s"
	}
	return words.RoundSpan(d)
}

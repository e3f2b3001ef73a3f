package report

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// laneSpan is one coloured stretch of a backend's life.
type laneSpan struct {
	From, To time.Time
	// State is what the backend was in between: starting, ready, lb-healthy or terminating.
	State string
}

// laneStates are the stretch states, in drawing order (later ones win).
var laneStates = []string{"starting", "ready", "lb-healthy", "terminating"}

// viewLane is a lane prepared for drawing.
type viewLane struct {
	Name, Role, IP string
	Spans          []laneSpan
}

// laneView is the lanes and the failure counts of one time range.
type laneView struct {
	From, To time.Time
	Lanes    []viewLane
	// Failed holds, per second from From, the client-visible LB-generated failures.
	Failed []int
}

// maxViewLanes bounds the lanes drawn in text and Markdown.
const maxViewLanes = 20

// buildLaneView picks the time range worth drawing (the incidents with some
// context, else everything) and the lanes active in it.
func buildLaneView(rep *Report) *laneView {
	if rep.Series == nil || len(rep.Series.Values) == 0 {
		return nil
	}
	start := rep.Series.Start
	v := &laneView{From: start, To: start.Add(time.Duration(len(rep.Series.Values)) * time.Second)}
	if len(rep.Incidents) > 0 {
		v.From, v.To = (rep.Incidents[0].Start), (rep.Incidents[0].End)
		for _, in := range rep.Incidents[1:] {
			if t := (in.Start); t.Before(v.From) {
				v.From = t
			}
			if t := (in.End); t.After(v.To) {
				v.To = t
			}
		}
		v.From, v.To = v.From.Add(-90*time.Second), v.To.Add(45*time.Second)
	}
	involved := map[string]bool{}
	for _, in := range rep.Incidents {
		for _, b := range in.Backends {
			involved[b.Pod] = true
			involved[b.IP] = true
		}
	}
	for _, l := range rep.Lanes {
		vl := viewLane{Name: l.Name, Role: l.Role, IP: l.IP, Spans: laneSpans(l)}
		if overlaps(vl.Spans, v.From, v.To) {
			v.Lanes = append(v.Lanes, vl)
		}
	}
	sort.SliceStable(v.Lanes, func(i, j int) bool {
		return involved[v.Lanes[i].Name] && !involved[v.Lanes[j].Name]
	})
	if len(v.Lanes) > maxViewLanes {
		v.Lanes = v.Lanes[:maxViewLanes]
	}
	sort.SliceStable(v.Lanes, func(i, j int) bool { return firstSpan(v.Lanes[i]).Before(firstSpan(v.Lanes[j])) })
	for s := v.From.Truncate(time.Second); s.Before(v.To); s = s.Add(time.Second) {
		i := int(s.Sub(start) / time.Second)
		n := 0
		if i >= 0 && i < len(rep.Series.Values) {
			row := rep.Series.Values[i]
			for c := 2; c < 8; c++ { // the LB-generated failure columns
				n += row[c]
			}
		}
		v.Failed = append(v.Failed, n)
	}
	return v
}

// laneSpans turns a lane's milestones into stretches of state.
func laneSpans(l Lane) []laneSpan {
	m := map[string]time.Time{}
	for k, v := range l.Milestones {
		m[k] = (v)
	}
	first := func(keys ...string) time.Time {
		for _, k := range keys {
			if t := m[k]; !t.IsZero() {
				return t
			}
		}
		return time.Time{}
	}
	begin := first("created", "scheduled", "started")
	if begin.IsZero() {
		begin = (l.FirstServed)
	}
	ready := first("ready")
	healthy := first("lb_healthy")
	term := first("terminating", "lb_detached")
	end := first("deleted")
	lastServed := (l.LastServed)
	if end.IsZero() {
		end = lastServed
	}
	if !term.IsZero() && end.Before(term) {
		end = term.Add(5 * time.Second)
	}
	stop := func(ts ...time.Time) time.Time { // the first non-zero of ts
		for _, t := range ts {
			if !t.IsZero() {
				return t
			}
		}
		return time.Time{}
	}
	var spans []laneSpan
	add := func(from, to time.Time, state string) {
		if !from.IsZero() && !to.IsZero() && to.After(from) {
			spans = append(spans, laneSpan{From: from, To: to, State: state})
		}
	}
	if healthy.IsZero() {
		healthy = (l.FirstServed) // it served, so the LB used it
	}
	if first("created", "scheduled", "started", "ready").IsZero() {
		// Known only to the load balancer: draw when it served.
		add(healthy, stop(term, lastServed), "lb-healthy")
		add(term, end, "terminating")
		return spans
	}
	add(begin, stop(ready, term, end), "starting")
	add(ready, stop(term, end), "ready")
	add(healthy, stop(term, end), "lb-healthy")
	add(term, end, "terminating")
	return spans
}

func overlaps(spans []laneSpan, from, to time.Time) bool {
	for _, s := range spans {
		if s.From.Before(to) && s.To.After(from) {
			return true
		}
	}
	return false
}

func firstSpan(l viewLane) time.Time {
	if len(l.Spans) == 0 {
		return time.Time{}
	}
	return l.Spans[0].From
}

// laneChars draw the states in text; a later state overrides an earlier one.
var laneChars = map[string]rune{"starting": '░', "ready": '▒', "lb-healthy": '█', "terminating": '╌'}

// laneColumns is the width of the drawing area; with the 26-column label it
// fits 100 columns.
const laneColumns = 72

// renderLanesText draws the lanes as text that fits 100 columns.
func renderLanesText(v *laneView) string {
	if v == nil || len(v.Lanes) == 0 {
		return ""
	}
	span := v.To.Sub(v.From)
	step := span / laneColumns
	if step <= 0 {
		step = time.Second
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s → %s UTC, one column ≈ %s\n", headingStyle.Render("Lanes"), v.From.UTC().Format("15:04:05"), v.To.UTC().Format("15:04:05"), step.Round(100*time.Millisecond))
	fmt.Fprintf(&b, "%s\n", dimStyle.Render("░ starting  ▒ Ready for Kubernetes  █ healthy for the LB  ╌ terminating  ! LB/proxy 5xx"))
	for _, l := range v.Lanes {
		row := make([]rune, laneColumns)
		for i := range row {
			row[i] = ' '
		}
		for _, state := range laneStates {
			for _, s := range l.Spans {
				if s.State != state {
					continue
				}
				for i := range row {
					at := v.From.Add(time.Duration(i)*step + step/2)
					if !at.Before(s.From) && at.Before(s.To) {
						row[i] = laneChars[state]
					}
				}
			}
		}
		label := fmt.Sprintf("%-21s %-4s", ellipsize(Sanitize(l.Name), 21), roleShort(l.Role))
		fmt.Fprintf(&b, "%s│%s│\n", label, string(row))
	}
	fails := make([]rune, laneColumns)
	for i := range fails {
		fails[i] = ' '
		from := int(time.Duration(i) * step / time.Second)
		to := int(time.Duration(i+1) * step / time.Second)
		for s := from; s <= to && s < len(v.Failed); s++ {
			if v.Failed[s] > 0 {
				fails[i] = '!'
			}
		}
	}
	fmt.Fprintf(&b, "%-26s│%s│\n", "LB/proxy 5xx", causeStyle.Render(string(fails)))
	return b.String()
}

func roleShort(role string) string {
	if role == "unknown" {
		return ""
	}
	return role
}

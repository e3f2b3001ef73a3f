package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// laneView is the lanes of a report prepared for one drawing: on the
// report's axis, grouped by ReplicaSet, with the lanes whose timelines look
// the same at the drawing's resolution collapsed into one row.
type laneView struct {
	From, To time.Time
	Groups   []laneGroup
	// Rows counts the rows the groups hold.
	Rows int
	// Omitted counts the backends not drawn: beyond the view's bound, and
	// those the report itself left out.
	Omitted int
	// Quantum is how close times must be for lanes to look alike: the
	// drawing's resolution, or coarser when that kept too many rows.
	Quantum time.Duration
}

// maxCoarsening bounds how many times buildLaneView doubles the resolution
// at which lanes look alike before it leaves rows out.
const maxCoarsening = 6

// laneGroup is the lanes of one ReplicaSet, or the backends known only by
// their IP.
type laneGroup struct {
	// ReplicaSet is empty for the group of bare IPs.
	ReplicaSet string
	// Role is the role its pods had ("new", "old"), or "".
	Role  string
	Lanes []viewLane
}

// viewLane is one row: a backend, or several whose timelines look the same.
type viewLane struct {
	Name, IP, Role string
	States         []LaneState
	Markers        []Marker
	// Names lists the backends collapsed into this row (Name first), and
	// IPs their IPs in the same order ("" for none).
	Names, IPs []string
	// OneOf lists the pods the row's IPs were among (Lane.OneOf), once.
	OneOf []string
	// Involved says that an incident names this backend; such lanes
	// collapse only with each other, and only when there are many of them
	// (see buildLaneView).
	Involved bool
}

// named is the i-th backend of the row: its name (after the ReplicaSet's,
// as label shortens it) and its IP when that is not its name.
func (l viewLane) named(i int, g laneGroup) string {
	one := viewLane{Name: l.Names[i]}
	s := one.label(g)
	if ip := l.IPs[i]; ip != "" && ip != l.Names[i] {
		s += " " + ip
	}
	return s
}

// label is the row's name in a group: the pod name without its
// ReplicaSet's prefix (stated in the group's heading), or the IP.
func (l viewLane) label(g laneGroup) string {
	name := l.Name
	if g.ReplicaSet != "" {
		if rest, ok := strings.CutPrefix(name, g.ReplicaSet); ok && rest != "" {
			name = "…" + rest
		}
	}
	if len(l.Names) > 1 {
		return fmt.Sprintf("%s +%d", name, len(l.Names)-1)
	}
	return name
}

// laneViewSpan is the axis of rep: the one the report was built on, or, for
// a report made without it, the span of everything its lanes and series hold.
func laneViewSpan(rep *Report) (from, to time.Time, ok bool) {
	if !rep.Summary.First.IsZero() && rep.Summary.Last.After(rep.Summary.First) {
		return rep.Summary.First, rep.Summary.Last, true
	}
	a, ok := reportSpan(rep)
	return a.t0, a.t1, ok
}

// buildLaneView prepares rep's lanes for a drawing whose smallest visible
// step is quantum and which holds at most maxRows rows: lanes with the same
// ReplicaSet, role and states (times within quantum) share a row; when that
// leaves more than maxRows rows, the quantum doubles (up to maxCoarsening
// times), and beyond that the lanes an incident names are kept first.
// Lanes an incident names share a row only with each other, and only when
// they are more than half of maxRows.
func buildLaneView(rep *Report, quantum time.Duration, maxRows int) *laneView {
	// The lanes an incident names keep a row each, unless they alone would
	// fill more than half the rows: then they share rows with each other.
	mergeInvolved := countInvolved(rep) > maxRows/2
	v := collapseLanes(rep, quantum, mergeInvolved)
	for i := 0; v != nil && v.Rows > maxRows && i < maxCoarsening; i++ {
		quantum *= 2
		v = collapseLanes(rep, quantum, mergeInvolved)
	}
	if v != nil && v.Rows > maxRows {
		v.bound(maxRows)
	}
	return v
}

// collapseLanes groups rep's lanes by ReplicaSet and collapses those alike
// at resolution quantum; lanes an incident names only when mergeInvolved.
func collapseLanes(rep *Report, quantum time.Duration, mergeInvolved bool) *laneView {
	from, to, ok := laneViewSpan(rep)
	if !ok {
		return nil
	}
	v := &laneView{From: from, To: to, Omitted: rep.LanesOmitted, Quantum: quantum}
	named := involvedBackends(rep)
	groups := map[string]*laneGroup{}
	var order []string
	for _, l := range rep.Lanes {
		states := l.States
		if len(states) == 0 {
			continue
		}
		// A ReplicaSet is one group; bare IPs are grouped by their role.
		key := "rs/" + l.ReplicaSet
		if l.ReplicaSet == "" {
			key = "ip/" + l.Role
		}
		g := groups[key]
		if g == nil {
			g = &laneGroup{ReplicaSet: l.ReplicaSet}
			if l.ReplicaSet == "" && l.Role != "unknown" {
				g.Role = l.Role
			}
			groups[key] = g
			order = append(order, key)
		}
		if l.ReplicaSet != "" && (l.Role == "new" || (l.Role == "old" && g.Role == "")) {
			g.Role = l.Role
		}
		vl := viewLane{Name: l.Name, IP: l.IP, Role: l.Role, States: states, Markers: l.Markers, Names: []string{l.Name}, IPs: []string{l.IP}, OneOf: l.OneOf,
			Involved: named[l.Name] || named[l.IP]}
		if !vl.Involved || mergeInvolved {
			if i := findAlike(g.Lanes, vl, quantum); i >= 0 {
				g.Lanes[i].Names = append(g.Lanes[i].Names, l.Name)
				g.Lanes[i].IPs = append(g.Lanes[i].IPs, l.IP)
				for _, p := range l.OneOf {
					if !slices.Contains(g.Lanes[i].OneOf, p) {
						g.Lanes[i].OneOf = append(g.Lanes[i].OneOf, p)
					}
				}
				continue
			}
		}
		g.Lanes = append(g.Lanes, vl)
	}
	for _, key := range order {
		g := groups[key]
		sort.SliceStable(g.Lanes, func(i, j int) bool { return g.Lanes[i].States[0].From.Before(g.Lanes[j].States[0].From) })
		v.Groups = append(v.Groups, *g)
	}
	// Groups in order of their first state; bare IPs with the group they
	// precede, as they served before the pods appeared.
	sort.SliceStable(v.Groups, func(i, j int) bool {
		return v.Groups[i].Lanes[0].States[0].From.Before(v.Groups[j].Lanes[0].States[0].From)
	})
	for _, g := range v.Groups {
		v.Rows += len(g.Lanes)
	}
	return v
}

// bound keeps at most n rows: those with involved backends first, then the
// earliest.
func (v *laneView) bound(n int) {
	kept := 0
	keep := map[*viewLane]bool{}
	for pass := 0; pass < 2; pass++ {
		for gi := range v.Groups {
			for li := range v.Groups[gi].Lanes {
				l := &v.Groups[gi].Lanes[li]
				if kept < n && !keep[l] && (pass == 1 || l.Involved) {
					keep[l] = true
					kept++
				}
			}
		}
	}
	var groups []laneGroup
	for gi := range v.Groups {
		g := v.Groups[gi]
		var lanes []viewLane
		for li := range g.Lanes {
			if keep[&v.Groups[gi].Lanes[li]] {
				lanes = append(lanes, g.Lanes[li])
			} else {
				v.Omitted += len(g.Lanes[li].Names)
			}
		}
		if len(lanes) > 0 {
			g.Lanes = lanes
			groups = append(groups, g)
		}
	}
	v.Groups, v.Rows = groups, kept
}

// findAlike returns the index of the lane in lanes that looks like l at
// resolution q, and that an incident names if and only if it names l; -1
// when none does.
func findAlike(lanes []viewLane, l viewLane, q time.Duration) int {
	for i, o := range lanes {
		if o.Involved != l.Involved || o.Role != l.Role || len(o.States) != len(l.States) {
			continue
		}
		same := true
		for k, s := range o.States {
			t := l.States[k]
			if s.State != t.State || !near(s.From, t.From, q) || !near(s.To, t.To, q) {
				same = false
				break
			}
		}
		if same {
			return i
		}
	}
	return -1
}

// near reports whether a and b lie within q of each other.
func near(a, b time.Time, q time.Duration) bool {
	d := a.Sub(b)
	return d < q && d > -q
}

// countInvolved counts the lanes whose backend an incident names.
func countInvolved(rep *Report) int {
	named := involvedBackends(rep)
	n := 0
	for _, l := range rep.Lanes {
		if named[l.Name] || named[l.IP] {
			n++
		}
	}
	return n
}

// involvedBackends are the pods and IPs the incidents name.
func involvedBackends(rep *Report) map[string]bool {
	named := map[string]bool{}
	for _, in := range rep.Incidents {
		for _, b := range in.Backends {
			if b.Pod != "" {
				named[b.Pod] = true
			}
			if b.IP != "" {
				named[b.IP] = true
			}
		}
	}
	return named
}

// stateAt returns the state a lane is in at t, or "".
func stateAt(states []LaneState, t time.Time) string {
	for _, s := range states {
		if !t.Before(s.From) && (t.Before(s.To) || s.To.Equal(s.From) && t.Sub(s.From) < time.Second) {
			return s.State
		}
	}
	return ""
}

// stateNames are the lane states for a reader, in the order pods pass them.
var stateNames = []struct{ state, name string }{
	{StateStarting, "starting"},
	{StateReady, "Ready for Kubernetes"},
	{StateLBHealthy, "healthy for the LB"},
	{StateTerminating, "terminating"},
}

// stateLegend is one entry of a legend of lane states.
type stateLegend struct{ State, Name string }

// legendStates are the lane states drawn holds, in the order pods pass
// them, with their names: every format's legend names the states its lanes
// draw, and only those.
func legendStates(drawn map[string]bool) []stateLegend {
	var out []stateLegend
	for _, s := range stateNames {
		if drawn[s.state] {
			out = append(out, stateLegend{s.state, s.name})
		}
	}
	return out
}

// stateName is a lane state for a reader.
func stateName(state string) string {
	for _, s := range stateNames {
		if s.state == state {
			return s.name
		}
	}
	return state
}

// failedIn sums the LB-generated failures of the series in [from, to).
func failedIn(s *Series, from, to time.Time) int {
	if s == nil {
		return 0
	}
	start, step, rows := s.rowsFor(from, to)
	d := time.Duration(step) * time.Second
	n := 0
	i := max(int(from.Sub(start)/d), 0)
	for ; i < len(rows); i++ {
		t := start.Add(time.Duration(i) * d)
		if !t.Before(to) {
			break
		}
		n += LBFailed(rows[i])
	}
	return n
}

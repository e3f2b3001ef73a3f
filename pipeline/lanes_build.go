package pipeline

import (
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
)

// maxMarkersPerLane bounds the events drawn on one lane: past sixty the
// markers of one lane overlap at any width a report is read at.
const maxMarkersPerLane = 60

// laneCandidate is a backend worth a lane, with what orders and bounds the
// lanes, before the lane itself is built.
type laneCandidate struct {
	b     *correlate.Backend
	start time.Time
	named bool
}

// newLanes returns one lane per backend that did anything worth drawing —
// every pod with its IP, every bare IP that served or failed — in order of
// appearance, at most maxLanes of them: those the incidents name first
// (see boundLanes); omitted says how many were left out. The lanes are
// built only for the backends kept, so a cluster of thousands of pods
// costs a candidate each, not a lane.
func newLanes(a *correlate.Analysis, incidents []report.Incident, x dataAxis) (lanes []report.Lane, omitted int) {
	named := map[string]bool{}
	for _, in := range incidents {
		for _, b := range in.Backends {
			named[b.Pod] = b.Pod != ""
			named[b.IP] = b.IP != ""
		}
	}
	var cands []laneCandidate
	for _, b := range a.Backends {
		if b.Pod != "" && len(b.IPs) == 0 && len(b.Alike) > 0 {
			continue // drawn as the IPs it may have held (Lane.OneOf)
		}
		first, served := servedSpan(a, b)
		if b.Pod == "" && !served && !hasMarker(b) {
			continue
		}
		c := laneCandidate{b: b, start: first, named: named[b.Pod] || (b.Pod == "" && len(b.IPs) > 0 && named[b.IPs[0].String()])}
		for _, m := range correlate.Milestones() {
			if t := b.At(m); !t.IsZero() && (c.start.IsZero() || t.Before(c.start)) {
				c.start = t
			}
		}
		for _, e := range b.Events {
			if e.Kind != sources.LifecycleOther {
				if c.start.IsZero() || e.Time.Before(c.start) {
					c.start = e.Time
				}
				break
			}
		}
		cands = append(cands, c)
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if !cands[i].start.Equal(cands[j].start) {
			return cands[i].start.Before(cands[j].start)
		}
		return cands[i].b.Name() < cands[j].b.Name()
	})
	kept, omitted := boundLanes(cands)
	for _, c := range kept {
		lanes = append(lanes, newLane(a, c.b, x))
	}
	if lanes == nil {
		lanes = []report.Lane{}
	}
	return lanes, omitted
}

// boundLanes keeps at most maxLanes candidates, those the incidents name
// first, in their order, and returns how many it left out.
func boundLanes(cands []laneCandidate) ([]laneCandidate, int) {
	if len(cands) <= maxLanes {
		return cands, 0
	}
	keep := make([]bool, len(cands))
	n := 0
	for pass := 0; pass < 2 && n < maxLanes; pass++ {
		for i, c := range cands {
			if n == maxLanes {
				break
			}
			if !keep[i] && (pass == 1 || c.named) {
				keep[i] = true
				n++
			}
		}
	}
	out := make([]laneCandidate, 0, maxLanes)
	for i, c := range cands {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out, len(cands) - len(out)
}

// servedSpan returns the first response of a backend while it held its
// IPs and whether its IPs served or failed at all.
func servedSpan(a *correlate.Analysis, b *correlate.Backend) (first time.Time, served bool) {
	for _, ip := range b.IPs {
		if t := a.Traffic[ip]; t != nil {
			served = served || t.Served > 0 || t.Failed > 0
		}
	}
	return b.FirstServed, served
}

// hasMarker reports whether a backend has an event a lane draws.
func hasMarker(b *correlate.Backend) bool {
	for _, e := range b.Events {
		if e.Kind != sources.LifecycleOther {
			return true
		}
	}
	return false
}

// newLane builds the lane of one backend: its milestones, its traffic, its
// events as markers, the pods it was one of, and its states on the axis x
// (none when there is no axis).
func newLane(a *correlate.Analysis, b *correlate.Backend, x dataAxis) report.Lane {
	l := report.Lane{Name: b.Name(), ReplicaSet: b.ReplicaSet, Zone: b.Zone, Role: b.Role.String(), Milestones: map[string]time.Time{}, Markers: []report.Marker{}, States: []report.LaneState{}}
	if x.OK {
		l.States = laneStates(b, x)
	}
	if len(b.IPs) > 0 {
		l.IP = b.IPs[0].String()
	}
	for _, m := range correlate.Milestones() {
		if t := b.At(m); !t.IsZero() {
			l.Milestones[m.String()] = t.UTC()
		}
	}
	if b.ReadyBy != nil {
		l.ReadyBy = b.ReadyBy.Time.UTC()
	}
	if b.Pod == "" {
		for _, p := range b.Alike {
			l.OneOf = append(l.OneOf, p.Pod)
		}
	}
	l.FirstServed, l.LastServed, l.LastSent = utc(b.FirstServed), utc(b.LastServed), utc(b.LastSent)
	for _, e := range b.Events {
		if len(l.Markers) == maxMarkersPerLane {
			break
		}
		if e.Kind == sources.LifecycleOther {
			continue
		}
		l.Markers = append(l.Markers, report.Marker{Time: utc(e.Time), Kind: e.Kind.String(), Text: describeEvent(e), Source: e.Origin.String()})
	}
	return l
}

package report

import (
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// maxMarkersPerLane bounds the events drawn on one lane: past sixty the
// markers of one lane overlap at any width a report is read at.
const maxMarkersPerLane = 60

// newLanes returns one lane per backend that did anything worth drawing, in
// order of appearance: every pod, with its IP, and every bare IP that
// served or failed.
func newLanes(a *correlate.Analysis) []Lane {
	var lanes []Lane
	for _, b := range a.Backends {
		if b.Pod != "" && len(b.IPs) == 0 && len(b.Alike) > 0 {
			continue // drawn as the IPs it may have held (Lane.OneOf)
		}
		l := Lane{Name: b.Name(), ReplicaSet: b.ReplicaSet, Zone: b.Zone, Role: b.Role.String(), Milestones: map[string]time.Time{}, Markers: []Marker{}}
		if len(b.IPs) > 0 {
			l.IP = b.IPs[0].String()
		}
		for _, m := range correlate.Milestones() {
			if t := b.At(m); !t.IsZero() {
				l.Milestones[m.String()] = t.UTC()
			}
		}
		if b.Pod == "" {
			for _, p := range b.Alike {
				l.OneOf = append(l.OneOf, p.Pod)
			}
		}
		served := false
		for _, ip := range b.IPs {
			t := a.Traffic[ip]
			if t == nil {
				continue
			}
			served = served || t.Served > 0 || t.Failed > 0
			if f := t.Runs.First(); !f.IsZero() && (l.FirstServed.IsZero() || f.Before(l.FirstServed)) {
				l.FirstServed = f.UTC()
			}
			if x := t.Runs.Last(); x.After(l.LastServed) {
				l.LastServed = x.UTC()
			}
		}
		for _, e := range b.Events {
			if len(l.Markers) == maxMarkersPerLane {
				break
			}
			if e.Kind == sources.LifecycleOther {
				continue
			}
			l.Markers = append(l.Markers, Marker{Time: utc(e.Time), Kind: e.Kind.String(), Text: describeEvent(e), Source: e.Origin.String()})
		}
		if b.Pod == "" && !served && len(l.Markers) == 0 {
			continue
		}
		lanes = append(lanes, l)
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		ti, tj := laneStart(lanes[i]), laneStart(lanes[j])
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return lanes[i].Name < lanes[j].Name
	})
	return lanes
}

// laneStart is the earliest time known of a lane, for ordering lanes.
func laneStart(l Lane) time.Time {
	var first time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, t := range l.Milestones {
		consider(t)
	}
	consider(l.FirstServed)
	if len(l.Markers) > 0 {
		consider(l.Markers[0].Time)
	}
	return first
}

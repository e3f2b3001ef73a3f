package correlate

import (
	"net/netip"
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// Lane is one backend's life on the shared time axis of a report: when
// Kubernetes and the load balancer each considered it usable, and the
// events in between.
type Lane struct {
	// Name is the pod name, or the IP for a backend known only from LB logs.
	Name       string
	IP         netip.Addr
	ReplicaSet string
	Zone       string
	// Role is the backend's side in the nearest incident; RoleUnknown without incidents.
	Role Role
	// Moments holds the milestones reached (zero times for those not seen).
	Moments [milestoneCount]time.Time
	// FirstServed and LastServed bound the responses it sent, from the LB logs.
	FirstServed, LastServed time.Time
	// Markers are the lifecycle events on the lane.
	Markers []Marker
}

// Milestone returns when the lane reached m; zero when unknown.
func (l *Lane) Milestone(m Milestone) time.Time { return l.Moments[m] }

// Marker is one event drawn on a lane.
type Marker struct {
	Time   time.Time
	Kind   sources.LifecycleKind
	Text   string
	Source string
}

// maxMarkersPerLane bounds the events drawn on one lane.
const maxMarkersPerLane = 60

// Lanes returns one lane per backend that did anything worth drawing, in
// order of appearance.
func (a *Analysis) Lanes() []*Lane {
	var lanes []*Lane
	seenIP := map[netip.Addr]bool{}
	for _, b := range a.Backends {
		l := &Lane{Name: b.Pod, ReplicaSet: b.ReplicaSet, Zone: b.Zone}
		if len(b.IPs) > 0 {
			l.IP = b.IPs[0]
		}
		if l.Name == "" {
			l.Name = l.IP.String()
		}
		for m := Milestone(0); m < milestoneCount; m++ {
			l.Moments[m] = b.At(m)
		}
		for _, ip := range b.IPs {
			seenIP[ip] = true
			a.addTraffic(l, ip)
		}
		for _, e := range b.Events {
			if len(l.Markers) == maxMarkersPerLane {
				break
			}
			if e.Kind == sources.LifecycleOther {
				continue
			}
			l.Markers = append(l.Markers, Marker{Time: e.Time, Kind: e.Kind, Text: DescribeEvent(e), Source: e.Origin.String()})
		}
		lanes = append(lanes, l)
	}
	for ip, t := range a.Traffic {
		if seenIP[ip] || (t.Served == 0 && t.Failed == 0) {
			continue
		}
		l := &Lane{Name: ip.String(), IP: ip}
		a.addTraffic(l, ip)
		lanes = append(lanes, l)
	}
	for _, l := range lanes {
		l.Role = a.nearestRole(l)
	}
	sort.SliceStable(lanes, func(i, j int) bool {
		ti, tj := l0(lanes[i]), l0(lanes[j])
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return lanes[i].Name < lanes[j].Name
	})
	return lanes
}

func (a *Analysis) addTraffic(l *Lane, ip netip.Addr) {
	t := a.Traffic[ip]
	if t == nil || t.Served == 0 {
		return
	}
	if l.FirstServed.IsZero() || t.FirstServed.Before(l.FirstServed) {
		l.FirstServed = t.FirstServed
	}
	if t.LastServed.After(l.LastServed) {
		l.LastServed = t.LastServed
	}
}

// l0 is the earliest time known of a lane, for ordering lanes.
func l0(l *Lane) time.Time {
	var first time.Time
	consider := func(t time.Time) {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	for _, t := range l.Moments {
		consider(t)
	}
	consider(l.FirstServed)
	if len(l.Markers) > 0 {
		consider(l.Markers[0].Time)
	}
	return first
}

// nearestRole is the lane's role in the incident closest to its life.
func (a *Analysis) nearestRole(l *Lane) Role {
	if !l.IP.IsValid() || len(a.Windows) == 0 {
		return RoleUnknown
	}
	at := l0(l)
	best := a.Windows[0]
	for _, w := range a.Windows[1:] {
		if absDuration(w.Start.Sub(at)) < absDuration(best.Start.Sub(at)) {
			best = w
		}
	}
	r, _ := a.RoleOf(l.IP, best)
	return r
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Point is one second of the outcome series.
type Point struct {
	Time time.Time
	Counts
}

// maxSeriesSeconds bounds the series: a day of seconds, about 10 MB.
const maxSeriesSeconds = 24 * 3600

// Series returns the per-second outcome counts from the first to the last
// second with requests of the busiest day (see BusiestSpan), seconds
// without requests included as zeros so that the series can be drawn on a
// time axis.
func (a *Analysis) Series() []Point {
	lo, hi, ok := a.BusiestSpan(maxSeriesSeconds)
	if !ok {
		return nil
	}
	out := make([]Point, 0, hi-lo+1)
	for s := lo; s <= hi; s++ {
		out = append(out, Point{Time: time.Unix(s, 0).UTC(), Counts: a.At(s)})
	}
	return out
}

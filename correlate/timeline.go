package correlate

import (
	"sort"
	"strconv"
	"time"

	"github.com/readygap/readygap/sources"
)

// EntryKind says what a timeline entry marks.
type EntryKind uint8

// Timeline entry kinds.
const (
	// EntryEvent is a lifecycle record (Event holds it).
	EntryEvent EntryKind = iota
	// EntryFirstFailure and EntryLastFailure are the first and last
	// client-visible failure (Request holds it; Count is the window's total
	// for the last).
	EntryFirstFailure
	EntryLastFailure
	// EntryFirstAttempt and EntryLastAttempt are the first and last failed
	// upstream attempt, when they lie outside the client-visible failures.
	EntryFirstAttempt
	EntryLastAttempt
	// EntryLastSuccess is the last second with successful requests before
	// the failures, EntryRecovered the first clean second after them.
	EntryLastSuccess
	EntryRecovered
)

// entryKindNames are the names of the entry kinds, by EntryKind.
var entryKindNames = [...]string{"event", "first_failure", "last_failure", "first_attempt", "last_attempt", "last_success", "recovered"}

// String names the kind: "event", "first_failure", ….
func (k EntryKind) String() string {
	if int(k) < len(entryKindNames) {
		return entryKindNames[k]
	}
	return "EntryKind(" + strconv.Itoa(int(k)) + ")"
}

// Entry is one key moment around an incident.
type Entry struct {
	Time time.Time
	Kind EntryKind
	// Event is the lifecycle record of an EntryEvent.
	Event *sources.Lifecycle
	// Request is the failed request of a first or last failure or attempt.
	Request *sources.Request
	// Count is the number of client-visible failures, for EntryLastFailure.
	Count int
}

// Timeline bounds.
const (
	// maxTimelineEvents bounds the lifecycle entries of one timeline: past
	// a screen of events a reader stops reading (the lanes show the rest).
	maxTimelineEvents = 30
	// timelineBefore and timelineAfter are how far the key moments reach
	// around the failures: a rollout step three minutes earlier can still
	// be the cause (a new pod's start), one a minute later the recovery.
	timelineBefore = 3 * time.Minute
	timelineAfter  = time.Minute
	// sameEventWithin folds records that say the same thing about the same
	// subject this close together: an event and a pod object both
	// reporting Ready, each to the second.
	sameEventWithin = 2 * time.Second
)

// Timeline lists the key moments around window w: rollout steps (a
// progressive-delivery controller's too: weights, Service switches,
// promotions, aborts), what
// Kubernetes and the load balancer did to the involved backends, and where
// the failures began and ended.
func (a *Analysis) Timeline(w *Window, involved []*Backend) []Entry {
	var out []Entry
	keep := map[*sources.Lifecycle]bool{}
	for _, b := range involved {
		for _, l := range b.Events {
			keep[l] = true
		}
	}
	type key struct {
		kind    sources.LifecycleKind
		subject string
		status  string
		reason  string
	}
	once := map[key]time.Time{}
	for _, l := range a.EventsBetween(w.SignalStart.Add(-timelineBefore), w.SignalEnd.Add(timelineAfter)) {
		switch l.Kind {
		case sources.ScaledUp, sources.ScaledDown, sources.NEGAttach, sources.NEGDetach, sources.NEGOperationFailed,
			sources.NoEndpoints, sources.EventsLost,
			sources.ServiceSwitched, sources.TrafficWeight, sources.RolloutStep, sources.RolloutCompleted, sources.RolloutAborted, sources.ProxyUpdated:
		case sources.PodReady, sources.PodNotReady, sources.ReadinessGate, sources.Killing, sources.PodDeleted,
			sources.TargetRegistering, sources.TargetDeregistering, sources.HealthCheck, sources.ProbeFailed, sources.PreStopFailed:
			if !keep[l] {
				continue
			}
		default:
			continue // creation, scheduling and container starts belong to the lanes
		}
		k := key{l.Kind, Subject(l), l.Status, l.Reason}
		if prev, ok := once[k]; ok && (l.Kind == sources.HealthCheck || l.Kind == sources.ProbeFailed || l.Time.Sub(prev) < sameEventWithin) {
			continue
		}
		once[k] = l.Time
		out = append(out, Entry{Time: l.Time, Kind: EntryEvent, Event: l})
		if len(out) == maxTimelineEvents {
			break
		}
	}
	out = append(out, a.trafficMarks(w)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// trafficMarks marks the last success before the window, the first and last
// failure (and attempts outside them), and the first clean second after it.
func (a *Analysis) trafficMarks(w *Window) []Entry {
	if len(w.Signals) == 0 {
		return nil
	}
	var out []Entry
	var first, last, latest *Signal
	for _, s := range w.Signals {
		if s.Visible {
			if first == nil {
				first = s
			}
			if last == nil || !s.LatestBefore(last) {
				last = s
			}
		}
		if latest == nil || !s.LatestBefore(latest) {
			latest = s
		}
	}
	if s := w.Signals[0]; first == nil || s.Time().Before(first.Time()) {
		out = append(out, Entry{Time: s.Time(), Kind: EntryFirstAttempt, Request: s.Record()})
	}
	if first != nil {
		out = append(out,
			Entry{Time: first.Time(), Kind: EntryFirstFailure, Request: first.Record()},
			Entry{Time: last.End(), Kind: EntryLastFailure, Request: last.LatestReq(), Count: w.Failed})
	}
	if last == nil || latest.End().After(last.End()) {
		out = append(out, Entry{Time: latest.End(), Kind: EntryLastAttempt, Request: latest.LatestReq()})
	}
	from, to := w.SignalStart.Unix(), w.SignalEnd.Unix()
	var before, after int64
	var served, recovered bool
	a.Each(from-int64(timelineBefore/time.Second), from-1, func(sec int64, c Counts) {
		if c.OK > 0 {
			before, served = sec, true
		}
	})
	a.Each(to+1, to+int64(timelineAfter/time.Second), func(sec int64, c Counts) {
		if !recovered && c.OK > 0 && c.Failed() == 0 && c.Hidden == 0 {
			after, recovered = sec, true
		}
	})
	if served {
		out = append(out, Entry{Time: time.Unix(before, 0).UTC(), Kind: EntryLastSuccess})
	}
	if recovered {
		out = append(out, Entry{Time: time.Unix(after, 0).UTC(), Kind: EntryRecovered})
	}
	return out
}

// Subject names what a lifecycle record is about: the pod, else the IP,
// else the object.
func Subject(l *sources.Lifecycle) string {
	switch {
	case l.Pod != "":
		return l.Pod
	case l.IP.IsValid():
		return l.IP.String()
	case l.Proxy != "":
		return l.Proxy
	}
	return l.Object
}

package pipeline

import (
	"sort"
	"time"

	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/report"
)

// maxLanes bounds the lanes of a report: a rollout of hundreds of pods is
// drawn whole, a cluster's thousands of backends over a day are not. The
// backends an incident names come first.
const maxLanes = 500

// readyByHow says how a Ready state drawn from Lane.ReadyBy was found.
const readyByHow = "Ready by then at the latest: the Deployment scaled the old pods down"

// laneStates turns a lane's milestones and traffic into consecutive states
// on the axis [first, last]. At any moment a backend is in the furthest
// state it has reached: terminating once it began terminating (or the load
// balancer deregistered it), else LB-healthy once the load balancer called
// it healthy (or it served its first request), else Ready once Kubernetes
// did (or, when no record says when, by when its Deployment's scaling
// says it must have been), else starting once it was created. It is gone
// after it was deleted; a terminating pod once it was deregistered and
// received its last request, served or failed (LastSent: the load
// balancer may send to it after its last success); a backend the request
// logs alone knew after its last response (nothing says what it was doing
// when it failed after that: those failures are the 5xx row's); a pod
// still there ends with the data.
func laneStates(l report.Lane, first, last time.Time) []report.LaneState {
	m := func(name string) time.Time { return l.Milestones[name] }
	begin := words.FirstTime(m("created"), m("scheduled"), m("started"))
	ready, readyHow := m("ready"), ""
	if ready.IsZero() && !l.ReadyBy.IsZero() {
		ready, readyHow = l.ReadyBy, readyByHow
	}
	healthy, healthyHow := m("lb_healthy"), ""
	if healthy.IsZero() && !l.FirstServed.IsZero() {
		healthy, healthyHow = l.FirstServed, "first served"
	}
	term, termHow := m("terminating"), ""
	if term.IsZero() && !m("lb_detached").IsZero() {
		term, termHow = m("lb_detached"), "deregistered from the load balancer"
	}
	lbOnly := begin.IsZero() && ready.IsZero() && l.IP != "" && l.Name == l.IP

	gone := m("deleted")
	switch {
	case !gone.IsZero():
	case !term.IsZero():
		gone = words.MaxTime(words.MaxTime(term, l.LastServed), words.MaxTime(l.LastSent, m("lb_detached")))
	case lbOnly && !l.LastServed.IsZero():
		gone = l.LastServed
	default:
		gone = last // still there when the data ends
	}

	type change struct {
		at    time.Time
		state string
		how   string
	}
	var changes []change
	add := func(t time.Time, state, how string) {
		if !t.IsZero() {
			changes = append(changes, change{t, state, how})
		}
	}
	add(begin, report.StateStarting, "")
	add(ready, report.StateReady, readyHow)
	add(healthy, report.StateLBHealthy, healthyHow)
	add(term, report.StateTerminating, termHow)
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at.Before(changes[j].at) })

	rank := map[string]int{report.StateStarting: 1, report.StateReady: 2, report.StateLBHealthy: 3, report.StateTerminating: 4}
	out := []report.LaneState{}
	reached := 0
	for i, c := range changes {
		if rank[c.state] <= reached {
			continue // an earlier state reported late: the backend is already past it
		}
		reached = rank[c.state]
		to := gone
		for _, next := range changes[i+1:] {
			if rank[next.state] > reached {
				to = next.at
				break
			}
		}
		if to.Before(c.at) {
			to = c.at
		}
		from := c.at
		if to.Before(first) || from.After(last) {
			continue
		}
		st := report.LaneState{State: c.state, From: clampTime(from, first, last), To: clampTime(to, first, last), Inferred: c.how}
		if from.Before(first) && st.Inferred == "" {
			st.Inferred = "before the data began"
		}
		out = append(out, st)
	}
	return out
}

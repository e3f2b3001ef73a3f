package correlate

import (
	"net/netip"
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// State is what a backend was doing at an instant, as the attribution of a
// failure needs it.
type State uint8

// Backend states.
const (
	// StateUnknown: nothing says.
	StateUnknown State = iota
	// StateStarting: the backend had not served yet in its current life:
	// created, starting, or Ready for Kubernetes before its serving port
	// answered or before the load balancer considered it healthy.
	StateStarting
	// StateServing: the backend was serving: it answered requests around
	// that instant and was not terminating.
	StateServing
	// StateTerminating: the backend had begun terminating (Killing,
	// deletion) and still existed.
	StateTerminating
	// StateGone: the backend had stopped serving for good, or its pod was gone.
	StateGone
)

var stateNames = [...]string{"unknown", "starting", "serving", "terminating", "gone"}

// String names the state.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Attempt is one failed try of the load balancer or proxy to reach a
// backend, with who the backend was and what it was doing then. The
// one-byte fields come last, together, so that no padding falls between
// them (an Attempt takes 88 bytes): every failure group has one or more.
type Attempt struct {
	Backend netip.AddrPort
	Status  int
	// Time is when the attempt was made, as closely as the record tells
	// (see attemptTime): the backend's state is read then.
	Time time.Time
	// Of is the backend that held the IP; nil when the attempt had no peer.
	Of *Backend
	// Rollout is the rollout that covers the attempt and in which the
	// backend took part; Role is the backend's side in it.
	Rollout *Rollout
	Kind    sources.FailureKind
	State   State
	Role    Role
}

// Signal is one failure the load balancer or proxy generated: a request it
// answered with an error itself, a request that a retry rescued after a
// failed attempt, or a proxy error-log line. A Signal of a Failure group
// stands for all its records (see Weight).
type Signal struct {
	// Group is the failure group the signal stands for: its time, its
	// records and how many they are are the signal's (see Time, Weight).
	Group *Failure
	// Kind is the failure kind of the client-visible outcome, or of the
	// failed attempt for hidden and attempt-only signals. An access line's
	// unspecific kind is sharpened by the error-log line of the same attempt.
	Kind sources.FailureKind
	// Visible marks a failure the client saw; Hidden a request whose failed
	// attempts a retry hid; AttemptOnly a proxy error-log line.
	Visible, Hidden, AttemptOnly bool
	// Attempts are the failed attempts, the decisive one last; empty when
	// no backend was chosen. Their times and states are those of the
	// earliest record.
	Attempts []Attempt
	// Rollout is the rollout that covers the signal: the one its backends
	// took part in, else the one in progress.
	Rollout *Rollout
}

// Last returns the decisive failed attempt: the last one; nil when none.
func (s *Signal) Last() *Attempt {
	if len(s.Attempts) == 0 {
		return nil
	}
	return &s.Attempts[len(s.Attempts)-1]
}

// Weight is how many failure records the signal stands for.
func (s *Signal) Weight() int { return s.Group.N }

// Time is when the signal's earliest record was logged.
func (s *Signal) Time() time.Time { return s.Group.Time }

// Record returns the record the signal shows: the group's earliest.
func (s *Signal) Record() *sources.Request { return s.Group.Record() }

// LatestReq returns the signal's latest record.
func (s *Signal) LatestReq() *sources.Request { return s.Group.LatestRecord() }

// End is the time of the signal's latest record.
func (s *Signal) End() time.Time { return s.Group.Last() }

// LatestBefore reports whether the signal's latest record comes before
// o's, by time and then origin.
func (s *Signal) LatestBefore(o *Signal) bool {
	return earlier(s.End(), s.Group.lastOrigin(), o.End(), o.Group.lastOrigin())
}

// endedWith reports whether the i-th failed attempt was the request's last
// attempt: the last failed one of a request that did not succeed. A
// request a retry rescued made its failed attempts before the one that
// answered, which may have taken seconds (a slow POST), so none of them
// is placed at the request's end.
func (s *Signal) endedWith(i int) bool { return i == len(s.Attempts)-1 && !s.Hidden }

// attemptSent is when the i-th attempt of the signal's latest record was
// sent: when it was made (attemptEnd), but for a connection closed under
// a request that was not retried, which was sent at the request's start.
func (s *Signal) attemptSent(i int) time.Time {
	if s.endedWith(i) && !retried(s.Group.groupKey) && s.Attempts[i].Kind == sources.FailureClosed {
		return s.End()
	}
	return s.attemptEnd(i)
}

// attemptEnd is when the i-th attempt of the signal's latest record was made.
func (s *Signal) attemptEnd(i int) time.Time {
	return attemptTimeAt(s.Group, s.End(), s.endedWith(i), s.Attempts[i].Kind)
}

// attribute turns every failure group into a Signal: which backends it
// failed at, who they were and what they were doing then.
func (a *Analysis) attribute() []*Signal {
	errLines := a.errorLines()
	out := make([]*Signal, 0, len(a.Failures))
	// The Signals and their attempts are allocated in two slabs: one
	// allocation each instead of one or two per failure.
	slab := make([]Signal, len(a.Failures))
	attempts := make([]Attempt, 0, countAttempts(a.Failures))
	for k, f := range a.Failures {
		s := &slab[k]
		*s = Signal{Group: f, Kind: f.Failure, AttemptOnly: f.AttemptOnly}
		from := len(attempts)
		switch {
		case f.AttemptOnly:
		case f.Failure.LBGenerated():
			s.Visible = true
		default:
			s.Hidden = true
		}
		if len(f.Attempts) == 0 {
			if f.Backend.IsValid() {
				attempts = append(attempts, Attempt{Backend: f.Backend, Kind: f.Failure, Status: f.Status})
			}
		} else {
			for _, at := range f.Attempts {
				if at.Failure.LBGenerated() {
					attempts = append(attempts, Attempt{Backend: at.Backend, Kind: at.Failure, Status: at.Status})
				}
			}
		}
		if len(attempts) > from {
			s.Attempts = attempts[from:len(attempts):len(attempts)]
		}
		for i := range s.Attempts {
			at := &s.Attempts[i]
			if at.Kind == sources.FailureOther && !f.AttemptOnly {
				// The error line is written when the attempt fails: a
				// refused connect at the request's start, a connection
				// closed under it when the access line is written, at
				// its end. A retried request's attempts fail along its
				// way: match them at the line's time.
				end := f.Time.Add(f.LoggedAfter)
				start := f.Time
				if retried(f.groupKey) {
					start = end
				}
				at.Kind = errLines.kindOf(at.Backend, start, end, at.Kind)
			}
			at.Time = attemptTime(f, s.endedWith(i), at.Kind)
			at.Of, at.State = a.StateAt(at.Backend.Addr(), at.Time)
			if at.Of != nil && at.Of.Rollout != nil {
				at.Rollout = a.rolloutOf(at.Of, at.Time)
				if at.Rollout != nil {
					at.Role = at.Rollout.RoleOf(at.Of)
				}
			}
		}
		if last := s.Last(); last != nil {
			if s.Kind == sources.FailureOther || s.Hidden {
				s.Kind = last.Kind
			}
			s.Rollout = last.Rollout
		}
		if s.Rollout == nil {
			s.Rollout = a.RolloutAt(f.Time)
		}
		out = append(out, s)
	}
	return out
}

// attemptTime is when an attempt of the earliest record of group f was
// made. A record stamps the request's arrival (its Time) and, where the
// format says, how long it took: a request the proxy retried made its last attempt
// only after the others had failed, which can be seconds later (each
// connect to a vanished pod waits out unreachableConnect), and that attempt
// failed at the request's end. The last attempt of a retried request is
// therefore placed at the end less the time its kind of failure takes
// (refused and closed connections fail at once); a timeout took a time the
// record does not state. A connection closed under a request that was
// not retried broke at the request's end too: a slow request in flight
// when its pod exited is read in the pod's state at the exit. Every other
// attempt is placed at the request's time, and so is a last attempt that
// would come before it (no duration logged).
func attemptTime(f *Failure, last bool, kind sources.FailureKind) time.Time {
	return attemptTimeAt(f, f.Time, last, kind)
}

// attemptTimeAt is attemptTime for the record of group f stamped t: the
// records of a group differ in nothing else attemptTime reads.
func attemptTimeAt(f *Failure, t time.Time, last bool, kind sources.FailureKind) time.Time {
	if !last || kind == sources.FailureTimeout {
		return t
	}
	if !retried(f.groupKey) {
		if kind == sources.FailureClosed {
			// A connection that closed under the request broke when
			// the request ended: a slow request in flight when the
			// pod exited failed at the exit, not when it was sent.
			return requestEnd(f, t)
		}
		return t
	}
	at := requestEnd(f, t)
	if kind == sources.FailureUnreachable {
		at = at.Add(-unreachableConnect)
	}
	if at.Before(t) {
		return t
	}
	return at
}

// requestEnd is when the request of group f stamped t ended: its start
// plus its duration, to the precision of t. A start known to the second
// (nginx's $time_local less the whole seconds of $request_time, see
// sources.Request.Time) gives an end known to the second, the second its
// line was written in: adding the fraction would move the end of nearly
// every short request into the second after its own.
func requestEnd(f *Failure, t time.Time) time.Time {
	end := t.Add(f.Duration)
	if t.Nanosecond() == 0 {
		end = end.Truncate(time.Second)
	}
	return end
}

// readsDuration reports whether attemptTime reads r's duration: the
// request was retried, or its backend may have closed the connection
// under it (a closed connection, or an access line's unspecific failure
// that its error-log line may name as one).
func readsDuration(r *sources.Request) bool {
	return retried(r) || r.Backend.IsValid() && (r.Failure == sources.FailureClosed || r.Failure == sources.FailureOther)
}

// retried reports whether the proxy says it tried r more than once.
func retried(r *sources.Request) bool {
	return r.RetryLimit || r.AttemptCount > 1 || len(r.Attempts) > 1
}

// countAttempts returns how many failed attempts attribute lists for fs.
func countAttempts(fs []*Failure) int {
	n := 0
	for _, r := range fs {
		if len(r.Attempts) == 0 {
			if r.Backend.IsValid() {
				n++
			}
			continue
		}
		for _, at := range r.Attempts {
			if at.Failure.LBGenerated() {
				n++
			}
		}
	}
	return n
}

// rolloutOf returns the rollout b took part in that covers t, if any.
func (a *Analysis) rolloutOf(b *Backend, t time.Time) *Rollout {
	var best *Rollout
	for _, r := range a.Rollouts {
		if r.Covers(t) && r.RoleOf(b) != RoleUnknown {
			best = r
		}
	}
	return best
}

// RolloutAt returns the rollout in progress at t: one whose steps span t
// if any (the latest such), else the latest that covers t with its lags;
// nil when none does.
func (a *Analysis) RolloutAt(t time.Time) *Rollout {
	var during, covering *Rollout
	for _, r := range a.Rollouts {
		if !t.Before(r.Start.Add(-rolloutLookback)) && !t.After(r.End) {
			during = r
		}
		if r.Covers(t) {
			covering = r
		}
	}
	if during != nil {
		return during
	}
	return covering
}

// StateAt says which backend held ip at t and what it was doing: starting
// (it had not served yet in its current life), serving, terminating, or
// gone. The pod's lifecycle (Backend.Lifecycle, which the report's lanes
// draw) decides where a record of its own says it began terminating (from
// that record less termSkew: what the clocks may still differ by); the
// load balancer's traffic decides the rest: on its IP
// during its lease, a backend that had not served before t is starting, one
// that served before and after (or began terminating only after t) is
// serving, one that served before and never after is gone (its Killing
// event may have been lost).
func (a *Analysis) StateAt(ip netip.Addr, t time.Time) (*Backend, State) {
	if !ip.IsValid() {
		return nil, StateUnknown
	}
	b := a.backendAt(ip, t)
	var from, to time.Time // the backend's life on this IP
	var runs Runs
	tr := a.Traffic[ip]
	if tr != nil {
		runs = tr.Runs
	}
	lease := a.Identities.At(ip, t)
	if lease != nil {
		from, to = lease.From, lease.To
	} else {
		from, to = runs.stretch(t)
	}
	terminatesLater := false // a record shows the pod began terminating after t
	// A bare IP one of several pods held, which all began terminating
	// together (see shareAlike), began terminating with them. The pod's
	// lifecycle says when (its terminating stage), where a record of its
	// own termination does: a deregistration alone (HowDeregistered) may
	// be a failed readiness probe the pod recovered from.
	if b != nil && (b.Pod != "" || len(b.Alike) > 0) {
		if r := b.reached(StageTerminating); !r.Time.IsZero() && r.How == "" {
			term := r.Time
			if !t.Before(term.Add(-a.termSkew())) {
				if t.Sub(term) > b.gracePeriod() {
					return b, StateGone
				}
				return b, StateTerminating
			}
			terminatesLater = true
		}
	}
	first, last := runs.FirstIn(from, to), runs.LastIn(from, to)
	pause := tr.ordinaryPause()
	switch {
	case first.IsZero() && b != nil && b.Pod != "":
		return b, StateStarting // a pod that never served in the data
	case first.IsZero():
		return b, StateUnknown // a bare IP that never served: nothing says
	case lease == nil && first.After(t) && first.Sub(a.firstRequest) <= pause:
		// A bare IP whose first response came sooner after the logs
		// began than its own rate's ordinary pause: the logs began
		// while it served.
		return b, StateServing
	case first.After(t) || (first.Equal(t) && t.Nanosecond() == 0):
		// Logs stamped to the second (nginx's $time_local) put a pod's
		// last refusals and its first response in one second: a failure
		// in the second the pod began serving came before it.
		return b, StateStarting
	case !last.Before(t) || runs.Serving(t), terminatesLater:
		// A pod that served before t and began terminating only after it
		// was still there, however long it then went without a request.
		return b, StateServing
	case lease == nil && runs.pausedAt(t, pause):
		// A bare IP that served before and after a pause its own rate
		// of requests makes ordinary: the backend of a large fleet,
		// which a load balancer sends a request every few seconds,
		// pauses past servedRunGap without going anywhere.
		return b, StateServing
	case a.lastRequest.Sub(last) > max(dataEdge, pause):
		// Silent until the logs end for longer than the data's edge and
		// than its own rate's ordinary pause.
		return b, StateGone
	case lease == nil && last.Equal(runs.Last()) && a.stops[ip].stopped():
		// A bare IP that failed every request it was sent after its last
		// response, until the logs end: it stopped answering, however
		// soon after that the logs end.
		return b, StateGone
	case lease == nil && a.lastRequest.Sub(last) <= pause:
		// A bare IP whose last response came sooner before the logs
		// ended than its own rate's ordinary pause: they ended while it
		// served.
		return b, StateServing
	}
	return b, StateUnknown
}

// gracePeriod is how long the pod may take to terminate: its
// terminationGracePeriodSeconds, or the Kubernetes default.
func (b *Backend) gracePeriod() time.Duration {
	if b.Spec != nil && b.Spec.TerminationGracePeriodSec > 0 {
		return time.Duration(b.Spec.TerminationGracePeriodSec) * time.Second
	}
	return DefaultGracePeriod
}

// backendAt returns the backend that held ip at t: the pod of its lease, or
// the bare IP's backend.
func (a *Analysis) backendAt(ip netip.Addr, t time.Time) *Backend {
	if lease := a.Identities.At(ip, t); lease != nil {
		return lease.Backend
	}
	return a.byKey[ip.String()]
}

// errorLines indexes the proxy error-log lines by backend and time, so that
// an access line's unspecific 502 takes the kind its error line names.
type errorLines map[netip.AddrPort][]*Failure

func (a *Analysis) errorLines() errorLines {
	m := errorLines{}
	for _, r := range a.Failures {
		if r.AttemptOnly && r.Backend.IsValid() && r.Failure != sources.FailureOther {
			m[r.Backend] = append(m[r.Backend], r)
		}
	}
	return m // a.Failures is in time order, and so is each list
}

// kindOf returns the kind of the error line nearest a request that started
// at start and whose access line was written at end, for backend, within
// errorLineMatch; def when there is none. A connect that failed (refused,
// unreachable) failed as the request went out, and its line is measured
// from start; any other failure from end: a slow request cut as its pod
// exited is not taken for the refusals logged around the exit. A group of
// lines is as near as the nearest of its times could be: none when the
// time falls between them.
func (m errorLines) kindOf(backend netip.AddrPort, start, end time.Time, def sources.FailureKind) sources.FailureKind {
	ls := m[backend]
	from := start.Add(-errorLineMatch - groupSpan)
	i := sort.Search(len(ls), func(i int) bool { return !ls[i].Time.Before(from) })
	best, bestD := def, errorLineMatch+1
	for ; i < len(ls) && !ls[i].Time.After(end.Add(errorLineMatch)); i++ {
		t := end
		if k := ls[i].Failure; k == sources.FailureRefused || k == sources.FailureUnreachable {
			t = start
		}
		d := absDuration(ls[i].Time.Sub(t))
		switch last := ls[i].Last(); {
		case !t.Before(ls[i].Time) && !t.After(last):
			d = 0
		case t.After(last):
			d = t.Sub(last)
		}
		if d < bestD {
			best, bestD = ls[i].Failure, d
		}
	}
	return best
}

// groupSpan bounds the times of the records of one Failure group: they
// are of one whole second.
const groupSpan = time.Second

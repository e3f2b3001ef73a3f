package correlate

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

	"github.com/readygap/readygap/sources"
)

// Window summarises a set of failure signals: one incident, or one
// backend's part of it. Every count counts the failure records the
// signals stand for (see Signal.Weight).
type Window struct {
	// Start and End are the times of the first and last client-visible
	// failure; when retries hid every failure, of the first and last signal.
	Start, End time.Time
	// SignalStart and SignalEnd bound every signal, hidden ones included.
	SignalStart, SignalEnd time.Time
	// Count counts every failure record, hidden ones and error-log lines
	// included.
	Count int
	// Failed counts client-visible failures; StatusCounts splits them by status.
	Failed       int
	StatusCounts map[int]int
	// Hidden counts requests whose failed attempts a retry hid.
	Hidden int
	// Kinds counts every signal by failure kind (error-log lines included).
	Kinds map[sources.FailureKind]int
	// ByIP groups the failed attempts by backend IP.
	ByIP map[netip.Addr]*IPFailures
	// Signals are the signals, in time order.
	Signals []*Signal
	// Active is how long clients were failing: the union of the window's
	// bursts (runs of client-visible failures, each within burstGap of
	// the one before), each from its first failure to its last; of every
	// signal when retries hid every failure. It is End - Start when the
	// failures never paused that long.
	Active time.Duration
	// Bursts counts those bursts.
	Bursts int
}

// IPFailures are the failed attempts at one backend IP within a window.
type IPFailures struct {
	IP netip.Addr
	// Of is the backend that held the IP; Role its side in the rollout.
	Of   *Backend
	Role Role
	// Attempts counts failed attempts (error-log lines of the same attempt
	// are not counted again); Requests the client-visible failures whose
	// last attempt went here.
	Attempts, Requests int
	Kinds              map[sources.FailureKind]int
	// First and Last bound the attempts' times (see Attempt.Time).
	First, Last time.Time
	// Active is how long the attempts here kept failing: the union of
	// their bursts, as Window.Active.
	Active time.Duration
	// burst is the open burst of the attempts while Summarize reads them.
	burst bursts
	// LastSent is when the load balancer last sent a failed request here:
	// Last, but for a request whose connection closed under it, which was
	// sent at its start and failed at its end.
	LastSent time.Time
	// States counts the backend's states at the failures.
	States map[State]int
	// Ports counts the backend ports the attempts went to.
	Ports map[int]int
}

// bursts accumulates the union of bursts of times given in order: runs of
// times each within burstGap of the run's latest.
type bursts struct {
	from, to time.Time
	total    time.Duration
	n        int
}

// add extends the open burst with a failure from t to end, or closes it
// and opens another when t comes more than burstGap after it.
func (b *bursts) add(t, end time.Time) {
	if b.n == 0 || t.Sub(b.to) > burstGap {
		b.total += b.to.Sub(b.from)
		b.from, b.to = t, end
		b.n++
		return
	}
	b.to = latest(b.to, end)
}

// sum returns the union of the bursts and how many there were.
func (b *bursts) sum() (time.Duration, int) { return b.total + b.to.Sub(b.from), b.n }

// Duration is how long the window lasted.
func (w *Window) Duration() time.Duration { return w.End.Sub(w.Start) }

// Share returns the share of the window's signals of a known kind that are
// of kind k.
func (w *Window) Share(k sources.FailureKind) float64 {
	total := 0
	for kind, n := range w.Kinds {
		if kind != sources.FailureOther {
			total += n
		}
	}
	if total == 0 {
		return 0
	}
	return float64(w.Kinds[k]) / float64(total)
}

// Summarize summarises signals, which must be in time order.
func Summarize(sigs []*Signal) *Window {
	w := &Window{StatusCounts: map[int]int{}, Kinds: map[sources.FailureKind]int{}, ByIP: map[netip.Addr]*IPFailures{}, Signals: sigs}
	if len(sigs) == 0 {
		return w
	}
	w.SignalStart = sigs[0].Time()
	var visible, all bursts
	for _, s := range sigs {
		n, end := s.Weight(), s.End()
		all.add(s.Time(), end)
		if s.Visible {
			visible.add(s.Time(), end)
		}
		w.Count += n
		w.Kinds[s.Kind] += n
		w.SignalEnd = latest(w.SignalEnd, end)
		switch {
		case s.Visible:
			w.Failed += n
			w.StatusCounts[s.Group.Status] += n
			if w.Start.IsZero() {
				w.Start = s.Time()
			}
			w.End = latest(w.End, end)
		case s.Hidden:
			w.Hidden += n
		}
		for i := range s.Attempts {
			at := &s.Attempts[i]
			f := w.ip(at)
			if !s.AttemptOnly {
				f.Attempts += n
			}
			if s.Visible && i == len(s.Attempts)-1 {
				f.Requests += n
			}
			f.Kinds[at.Kind] += n
			f.States[at.State] += n
			if p := int(at.Backend.Port()); p != 0 {
				f.Ports[p] += n
			}
			if f.First.IsZero() || at.Time.Before(f.First) {
				f.First = at.Time
			}
			f.Last = latest(f.Last, s.attemptEnd(i))
			f.LastSent = latest(f.LastSent, s.attemptSent(i))
			f.burst.add(at.Time, s.attemptEnd(i))
		}
	}
	w.Active, w.Bursts = visible.sum()
	if w.Failed == 0 {
		w.Start, w.End = w.SignalStart, w.SignalEnd
		w.Active, w.Bursts = all.sum()
	}
	for _, f := range w.ByIP {
		f.Active, _ = f.burst.sum()
	}
	return w
}

// Weight returns how many failure records signals stand for.
func Weight(sigs []*Signal) int {
	n := 0
	for _, s := range sigs {
		n += s.Weight()
	}
	return n
}

// ip returns the failures of the attempt's IP, creating them.
func (w *Window) ip(at *Attempt) *IPFailures {
	ip := at.Backend.Addr()
	f := w.ByIP[ip]
	if f == nil {
		f = &IPFailures{IP: ip, Of: at.Of, Role: at.Role, Kinds: map[sources.FailureKind]int{}, States: map[State]int{}, Ports: map[int]int{}}
		w.ByIP[ip] = f
	}
	return f
}

// FailingIPs returns the window's backend IPs, most attempts first.
func (w *Window) FailingIPs() []*IPFailures {
	out := make([]*IPFailures, 0, len(w.ByIP))
	for _, f := range w.ByIP {
		out = append(out, f)
	}
	slices.SortFunc(out, func(x, y *IPFailures) int { return cmp.Or(cmp.Compare(y.Attempts, x.Attempts), x.IP.Compare(y.IP)) })
	return out
}

// Split cuts time-ordered signals into runs that no gap longer than gap
// interrupts: a gap runs from the latest record of the signals before it
// to the next signal.
func Split(sigs []*Signal, gap time.Duration) [][]*Signal {
	if len(sigs) == 0 {
		return nil
	}
	var out [][]*Signal
	start := 0
	end := sigs[0].End()
	for i := 1; i <= len(sigs); i++ {
		if i == len(sigs) || sigs[i].Time().Sub(end) > gap {
			out = append(out, sigs[start:i])
			start = i
		}
		if i < len(sigs) {
			end = latest(end, sigs[i].End())
		}
	}
	return out
}

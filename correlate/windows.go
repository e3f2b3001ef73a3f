package correlate

import (
	"net/netip"
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// Window is one run of LB- or proxy-generated failures: a candidate incident.
type Window struct {
	// Start and End are the times of the first and last client-visible
	// failure; when retries hid every failure, of the first and last signal.
	Start, End time.Time
	// SignalStart and SignalEnd bound every failure signal, hidden ones included.
	SignalStart, SignalEnd time.Time
	// Failed counts client-visible failures the LB or proxy generated.
	Failed int
	// StatusCounts counts those failures by status code.
	StatusCounts map[int]int
	// Hidden counts requests whose failed attempts a retry hid from the client.
	Hidden int
	// Kinds counts every failure signal by kind: client-visible failures,
	// hidden failed attempts and proxy error-log lines.
	Kinds map[sources.FailureKind]int
	// ByIP groups the failure signals that name a backend.
	ByIP map[netip.Addr]*IPFailures
	// Signals are the failure records inside the window, in time order.
	Signals []*sources.Request
}

// IPFailures are the failure signals that name one backend IP.
type IPFailures struct {
	IP          netip.Addr
	Count       int
	Kinds       map[sources.FailureKind]int
	First, Last time.Time
	// Ports counts the backend ports the failed requests were sent to.
	Ports map[int]int
}

// Duration is how long the window lasted.
func (w *Window) Duration() time.Duration { return w.End.Sub(w.Start) }

// Share returns the share of the window's signals, other than those of
// unknown kind, that are of kind k.
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

// Options tune how windows are cut.
type Options struct {
	// MergeGap joins failure runs separated by less than this (default 5 s).
	MergeGap time.Duration
	// MinSignals is the fewest failure signals that make a window (default 3):
	// a lone keep-alive 502 is not an incident.
	MinSignals int
	// Skew is the clock difference tolerated between sources (default 3 s).
	Skew time.Duration
}

func (o Options) withDefaults() Options {
	if o.MergeGap == 0 {
		o.MergeGap = 5 * time.Second
	}
	if o.MinSignals == 0 {
		o.MinSignals = 3
	}
	if o.Skew == 0 {
		o.Skew = 3 * time.Second
	}
	return o
}

// findWindows cuts the failure signals into windows.
func findWindows(d *Dataset, o Options) []*Window {
	var ws []*Window
	var cur []*sources.Request
	flush := func() {
		if len(cur) >= o.MinSignals {
			ws = append(ws, newWindow(cur))
		}
		cur = nil
	}
	for _, f := range d.Failures {
		if len(cur) > 0 && f.Time.Sub(cur[len(cur)-1].Time) > o.MergeGap {
			flush()
		}
		cur = append(cur, f)
	}
	flush()
	return ws
}

// newWindow summarises the failure signals of one window.
func newWindow(sig []*sources.Request) *Window {
	w := &Window{
		SignalStart: sig[0].Time, SignalEnd: sig[len(sig)-1].Time,
		StatusCounts: map[int]int{}, Kinds: map[sources.FailureKind]int{}, ByIP: map[netip.Addr]*IPFailures{},
		Signals: sig,
	}
	for _, r := range sig {
		switch {
		case r.AttemptOnly:
			w.add(r.Backend, r.Failure, r.Time)
		case r.Failure.LBGenerated():
			w.Failed++
			w.StatusCounts[r.Status]++
			if w.Start.IsZero() {
				w.Start = r.Time
			}
			w.End = r.Time
			if len(r.Attempts) == 0 {
				w.add(r.Backend, r.Failure, r.Time)
			}
		default:
			w.Hidden++
		}
		for _, a := range r.Attempts {
			if a.Failure.LBGenerated() {
				w.add(a.Backend, a.Failure, r.Time)
			}
		}
	}
	if w.Failed == 0 {
		w.Start, w.End = w.SignalStart, w.SignalEnd
	}
	return w
}

// add counts one failure signal.
func (w *Window) add(backend netip.AddrPort, k sources.FailureKind, t time.Time) {
	w.Kinds[k]++
	if !backend.IsValid() {
		return
	}
	ip := backend.Addr()
	f := w.ByIP[ip]
	if f == nil {
		f = &IPFailures{IP: ip, Kinds: map[sources.FailureKind]int{}, Ports: map[int]int{}, First: t}
		w.ByIP[ip] = f
	}
	f.Count++
	f.Kinds[k]++
	if backend.Port() != 0 {
		f.Ports[int(backend.Port())]++
	}
	if t.Before(f.First) {
		f.First = t
	}
	if t.After(f.Last) {
		f.Last = t
	}
}

// FailingIPs returns the window's backend IPs ordered by failure count.
func (w *Window) FailingIPs() []*IPFailures {
	out := make([]*IPFailures, 0, len(w.ByIP))
	for _, f := range w.ByIP {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].IP.Less(out[j].IP)
	})
	return out
}

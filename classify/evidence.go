package classify

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// maxFailureEvidence bounds the failure records quoted per finding: four
// spread from the first to the last show the pattern; more are noise.
const maxFailureEvidence = 4

// logsEdge is how far from the logs' start a backend's first response (or
// from their end its last) must be for the traffic to tell that it joined
// (or left): nearer, it is only the logs starting or ending. Half a
// minute, as the correlation's own data edge: a backend behind a load
// balancer with traffic answers more often than that.
const logsEdge = 30 * time.Second

// requestEvidence quotes one failed request, at the time its line states.
func requestEvidence(r *sources.Request) Evidence {
	return Evidence{Time: r.Logged(), Origin: r.Origin, Request: r}
}

// eventEvidence quotes one lifecycle record with what it shows.
func eventEvidence(l *sources.Lifecycle, note string) Evidence {
	return Evidence{Time: l.Time, Origin: l.Origin, Event: l, Note: note}
}

// momentEvidence quotes the record of a backend's milestone.
func momentEvidence(m *correlate.Moment, note string) Evidence {
	if m.Event == nil {
		return Evidence{Time: m.Time, Fact: note}
	}
	return eventEvidence(m.Event, note)
}

// factEvidence states a fact read from objects' specs.
func factEvidence(format string, args ...any) Evidence {
	return Evidence{Fact: fmt.Sprintf(format, args...)}
}

// failureEvidence quotes a few failures of the window, spread from the
// first to the last of those keep accepts (all when keep is nil). A signal
// stands for several records: a step that falls among them quotes its
// earliest, or its latest when the step is its last record or the earliest
// is quoted already; a record is not quoted twice.
func failureEvidence(w *correlate.Window, keep func(*correlate.Signal) bool) []Evidence {
	// Count the accepted failures, then quote every step-th and the last in
	// a second pass: a window may hold a hundred thousand failures, which
	// need not be listed again to quote four.
	n := 0
	var latest *correlate.Signal
	for _, s := range w.Signals {
		if keep == nil || keep(s) {
			n += s.Weight()
			if latest == nil || !s.LatestBefore(latest) {
				latest = s
			}
		}
	}
	if n == 0 {
		return nil
	}
	var out []Evidence
	step := max(n/(maxFailureEvidence-1), 1)
	k, next := 0, 0 // failures passed; the next to quote
	for _, s := range w.Signals {
		if len(out) == maxFailureEvidence-1 {
			break
		}
		if keep != nil && !keep(s) {
			continue
		}
		k += s.Weight()
		for next < k && len(out) < maxFailureEvidence-1 {
			r := s.Record()
			if next == k-1 || len(out) > 0 && out[len(out)-1].Request == r {
				r = s.LatestReq()
			}
			if len(out) == 0 || out[len(out)-1].Request != r {
				out = append(out, requestEvidence(r))
			}
			next += step
		}
	}
	if last := latest.LatestReq(); out[len(out)-1].Request != last {
		out = append(out, requestEvidence(last))
	}
	return out
}

// backendRefs lists the backends the window's failures went to, each with
// its role, its attempts and requests, and how its role was decided.
func backendRefs(a *correlate.Analysis, w *correlate.Window) []BackendRef {
	var out []BackendRef
	for _, f := range w.FailingIPs() {
		ref := BackendRef{IP: f.IP, Of: f.Of, Role: f.Role, Attempts: f.Attempts, Requests: f.Requests, Start: f.First, End: f.Last, LastSent: f.LastSent, Active: f.Active}
		if f.Of != nil {
			ref.Pod = f.Of.Pod
			if ref.Role == correlate.RoleUnknown && f.Of.Rollout != nil {
				ref.Role = f.Of.Role
			}
		}
		if ref.Role == correlate.RoleUnknown && (f.States[correlate.StateTerminating] > 0 || f.States[correlate.StateGone] > 0) {
			// Outside a rollout, a backend on its way out is the old side
			// of whatever removed it (a drain, a scale-in).
			ref.Role = correlate.RoleOld
		}
		ref.Why = roleWhy(a, f.Of, ref.Role, f.IP)
		out = append(out, ref)
	}
	sortRefs(out)
	return out
}

// sortRefs orders backends: new, then old, then unknown; most attempts first.
func sortRefs(refs []BackendRef) {
	rank := map[correlate.Role]int{correlate.RoleNew: 0, correlate.RoleOld: 1, correlate.RoleUnknown: 2}
	slices.SortStableFunc(refs, func(x, y BackendRef) int {
		return cmp.Or(cmp.Compare(rank[x.Role], rank[y.Role]), cmp.Compare(y.Attempts, x.Attempts),
			strings.Compare(x.Pod+x.IP.String(), y.Pod+y.IP.String()))
	})
}

// roleWhy says how a backend's role was decided, from its own records (how
// its pod was joined to its IP is the lease's to tell).
func roleWhy(a *correlate.Analysis, b *correlate.Backend, role correlate.Role, ip netip.Addr) string {
	var parts []string
	if b != nil && b.Rollout != nil && b.ReplicaSet != "" {
		switch role {
		case correlate.RoleNew:
			parts = append(parts, fmt.Sprintf("of ReplicaSet %s, which %s brought", b.ReplicaSet, b.Rollout.ID()))
		case correlate.RoleOld:
			parts = append(parts, fmt.Sprintf("of ReplicaSet %s, which %s replaced", b.ReplicaSet, b.Rollout.ID()))
		}
	}
	if b != nil && b.Pod == "" && len(b.Alike) > 0 {
		names := make([]string, len(b.Alike))
		for i, p := range b.Alike {
			names[i] = p.Pod
		}
		parts = append(parts, fmt.Sprintf("one of %s, which changed in the same moment as other IPs: the records cannot tell which", words.SomePods(names)))
	}
	if b != nil {
		switch {
		case role == correlate.RoleNew && !b.At(correlate.Created).IsZero():
			parts = append(parts, "created at "+correlate.Clock(b.At(correlate.Created)))
		case role == correlate.RoleOld && !b.At(correlate.Terminating).IsZero():
			parts = append(parts, "terminating from "+correlate.Clock(b.At(correlate.Terminating)))
		}
	}
	if len(parts) == 0 && ip.IsValid() {
		if t := a.Traffic[ip]; t != nil && len(t.Runs) > 0 {
			first, last := a.DataSpan()
			switch {
			case role == correlate.RoleNew || t.Runs.First().Sub(first) > logsEdge:
				parts = append(parts, "first served at "+correlate.Clock(t.Runs.First())+", after the logs began")
			case role == correlate.RoleOld || last.Sub(t.Runs.Last()) > logsEdge:
				parts = append(parts, "served until "+correlate.Clock(t.Runs.Last())+" and never after")
			}
		}
	}
	return strings.Join(parts, "; ")
}

// share is n/total, 0 when total is 0.
func share(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

// seconds renders a duration in whole or tenth seconds.
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s >= 10 || s == float64(int(s)) {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// span renders a window's time range, and how long failing went on when
// it paused: "12:00:01–12:01:02 UTC, 14 s of failures in 2 bursts".
func span(w *correlate.Window) string {
	s := fmt.Sprintf("%s–%s UTC", correlate.Clock(w.Start), correlate.Clock(w.End))
	if w.Bursts > 1 && w.Active < w.Duration() {
		s += fmt.Sprintf(", %s of failures in %s", seconds(w.Active), words.Plural(w.Bursts, "burst"))
	}
	return s
}

// statusList renders status counts as "182×502, 3×503", by status code.
func statusList(counts map[int]int) string {
	codes := make([]int, 0, len(counts))
	for code, n := range counts {
		if n > 0 {
			codes = append(codes, code)
		}
	}
	sort.Ints(codes)
	parts := make([]string, len(codes))
	for i, code := range codes {
		parts[i] = fmt.Sprintf("%d×%d", counts[code], code)
	}
	return strings.Join(parts, ", ")
}

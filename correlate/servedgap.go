package correlate

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// servedGaps tells, below the second that ServedThrough resolves, whether
// any backend served between two instants, and where a load balancer's
// answers without a backend lie. A handover from the last old pod to the
// first new one leaves a gap of a second or so between their responses
// that the answers without a backend fill; stamped to the second, its
// first and last seconds both hold served responses, and ServedThrough
// alone cannot tell it from a trickle of such answers among served ones.
type servedGaps struct {
	// runs is the union of every backend's runs of served responses, in
	// time order (nanoseconds).
	runs []Run
	// noBackend holds, per load balancer, the spans of its answers given
	// without a backend (a group's earliest and latest record), in time
	// order of their start.
	noBackend map[string][]Run
}

// gaps builds the index once.
func (a *Analysis) gaps() *servedGaps {
	a.gapsOnce.Do(func() {
		g := &servedGaps{noBackend: map[string][]Run{}}
		for _, t := range a.Traffic {
			g.runs = append(g.runs, t.Runs...)
		}
		slices.SortFunc(g.runs, func(x, y Run) int { return cmp.Compare(x.from, y.from) })
		merged := g.runs[:0]
		for _, r := range g.runs {
			if n := len(merged); n > 0 && r.from <= merged[n-1].to {
				merged[n-1].to = max(merged[n-1].to, r.to)
				continue
			}
			merged = append(merged, r)
		}
		g.runs = slices.Clip(merged)
		for _, f := range a.Failures {
			if f.Failure == sources.FailureNoBackend && f.LB != "" {
				g.noBackend[f.LB] = append(g.noBackend[f.LB], Run{nanos(f.Time), nanos(f.Last())})
			}
		}
		for _, rs := range g.noBackend {
			slices.SortFunc(rs, func(x, y Run) int { return cmp.Compare(x.from, y.from) })
		}
		a.servedGaps = g
	})
	return a.servedGaps
}

// ServedBetween reports whether some backend served, or was in a run of
// served responses, strictly between from and to.
func (a *Analysis) ServedBetween(from, to time.Time) bool {
	lo, hi := nanos(from), nanos(to)
	runs := a.gaps().runs
	i := sort.Search(len(runs), func(i int) bool { return runs[i].to > lo }) // the first run ending after from
	return i < len(runs) && runs[i].from < hi
}

// NoBackendAround returns the ends of the answers lb gave without a
// backend just before from and the start of those just after to; zero
// where there are none.
func (a *Analysis) NoBackendAround(lb string, from, to time.Time) (prev, next time.Time) {
	rs := a.gaps().noBackend[lb]
	lo, hi := nanos(from), nanos(to)
	var p int64
	found := false
	for i := sort.Search(len(rs), func(i int) bool { return rs[i].from >= lo }) - 1; i >= 0; i-- {
		// Spans start in order but may end in any: the latest end of
		// those before from.
		if rs[i].to < lo && (!found || rs[i].to > p) {
			p, found = rs[i].to, true
		}
		if found && rs[i].from < p-int64(time.Second) {
			break // groups span a second at most: none earlier ends later
		}
	}
	if found {
		prev = fromNanos(p)
	}
	if j := sort.Search(len(rs), func(i int) bool { return rs[i].from > hi }); j < len(rs) {
		next = fromNanos(rs[j].from)
	}
	return prev, next
}

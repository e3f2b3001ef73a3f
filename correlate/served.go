package correlate

import (
	"slices"
	"sort"
	"time"
)

// Run is a stretch of time in which a backend served responses without a
// pause longer than servedRunGap.
type Run struct {
	From, To time.Time
}

// Runs are a backend's runs in time order, disjoint and more than
// servedRunGap apart. Records arrive in any order; Add keeps the order.
type Runs []Run

// Add records a response served at t.
func (r *Runs) Add(t time.Time) {
	// Logs mostly arrive in time order: extend the last run when that does.
	if n := len(*r); n > 0 {
		last := &(*r)[n-1]
		if !t.Before(last.From) && t.Sub(last.To) <= servedRunGap {
			if t.After(last.To) {
				last.To = t
			}
			return
		}
	}
	r.addRun(Run{t, t})
}

// addRun adds a run, joining it with every run it overlaps or comes within
// servedRunGap of.
func (r *Runs) addRun(x Run) {
	runs := *r
	i := sort.Search(len(runs), func(i int) bool { return !runs[i].To.Add(servedRunGap).Before(x.From) })
	j := i
	for ; j < len(runs) && !runs[j].From.Add(-servedRunGap).After(x.To); j++ {
		if runs[j].From.Before(x.From) {
			x.From = runs[j].From
		}
		if runs[j].To.After(x.To) {
			x.To = runs[j].To
		}
	}
	*r = slices.Replace(runs, i, j, x)
	r.bound()
}

// bound merges the two closest runs while there are more than maxRunsPerBackend.
func (r *Runs) bound() {
	for len(*r) > maxRunsPerBackend {
		runs := *r
		best := 0
		for i := 1; i+1 < len(runs); i++ {
			if runs[i+1].From.Sub(runs[i].To) < runs[best+1].From.Sub(runs[best].To) {
				best = i
			}
		}
		runs[best].To = runs[best+1].To
		*r = slices.Delete(runs, best+1, best+2)
	}
}

// Merge adds the runs of o.
func (r *Runs) Merge(o Runs) {
	for _, run := range o {
		r.addRun(run)
	}
}

// First returns the first time served; zero when never.
func (r Runs) First() time.Time {
	if len(r) == 0 {
		return time.Time{}
	}
	return r[0].From
}

// Last returns the last time served; zero when never.
func (r Runs) Last() time.Time {
	if len(r) == 0 {
		return time.Time{}
	}
	return r[len(r)-1].To
}

// FirstIn returns the first time served in [from, to] (zero bounds are
// open); zero when the backend served nothing then.
func (r Runs) FirstIn(from, to time.Time) time.Time {
	for _, run := range r {
		if !to.IsZero() && run.From.After(to) {
			break
		}
		if !from.IsZero() && run.To.Before(from) {
			continue
		}
		if !from.IsZero() && run.From.Before(from) {
			return from
		}
		return run.From
	}
	return time.Time{}
}

// LastIn returns the last time served in [from, to] (zero bounds are open);
// zero when the backend served nothing then.
func (r Runs) LastIn(from, to time.Time) time.Time {
	for i := len(r) - 1; i >= 0; i-- {
		run := r[i]
		if !from.IsZero() && run.To.Before(from) {
			break
		}
		if !to.IsZero() && run.From.After(to) {
			continue
		}
		if !to.IsZero() && run.To.After(to) {
			return to
		}
		return run.To
	}
	return time.Time{}
}

// Serving reports whether t falls inside a run: the backend served both at
// or before t and at or after it, less than servedRunGap apart.
func (r Runs) Serving(t time.Time) bool {
	i := sort.Search(len(r), func(i int) bool { return !r[i].To.Before(t) })
	return i < len(r) && !t.Before(r[i].From)
}

// stretch bounds the run of traffic t belongs to, for an IP no lease ties
// to a pod: from the start of the run at or before t to just before the
// next run. Runs are more than servedRunGap apart, and on an IP the CNI
// hands out again each may be another pod's, so what came before the run
// or after the next one says nothing of the backend at t. Zero bounds are
// open.
func (r Runs) stretch(t time.Time) (from, to time.Time) {
	i := sort.Search(len(r), func(i int) bool { return r[i].From.After(t) }) // the first run after t
	if i > 0 {
		from = r[i-1].From
	}
	if i < len(r) && i > 0 {
		to = r[i].From.Add(-time.Nanosecond)
	}
	return from, to
}

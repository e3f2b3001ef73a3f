package reduced

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Reducible reports whether records of the family reduce exactly: load
// balancers that log one attempt a request and no error log beside it.
func Reducible(f sources.Family) bool { return f == sources.FamilyALB || f == sources.FamilyGCP }

// reducer is a sources.Handler that reduces the requests it is handed. One
// serves one parse worker at a time; Reduce joins them.
type reducer struct {
	seconds map[secondKey]*Second
	cells   map[cellKey]*Cell
	groups  map[groupKey]*Group
	// refused counts the requests that cannot be reduced, by format.
	refused map[sources.Format]int
	// requests counts the requests reduced, by input name.
	requests map[string]*span
}

// span counts the requests of one input and bounds their times.
type span struct {
	n           int
	first, last int64
}

type secondKey struct {
	sec    int64
	lb     string
	format sources.Format
}

type cellKey struct {
	ip   netip.Addr
	cell int64
}

// groupKey is what the records of one group share.
type groupKey struct {
	sec       int64
	status    int
	generator sources.Generator
	kind      sources.FailureKind
	backend   netip.AddrPort
	lb        string
	detail    string
	family    sources.Family
	platform  sources.Platform
	format    sources.Format
	// duration and loggedAfter are what grouping reads of them
	// (correlate.GroupTimes).
	duration, loggedAfter time.Duration
}

func newReducer() *reducer {
	return &reducer{seconds: map[secondKey]*Second{}, cells: map[cellKey]*Cell{}, groups: map[groupKey]*Group{},
		refused: map[sources.Format]int{}, requests: map[string]*span{}}
}

// reducible reports whether r reduces: one attempt, a time of its own.
func reducible(r *sources.Request) bool {
	return Reducible(r.ProxyFamily()) && !r.AttemptOnly && !r.OrderOnly && !r.RetryLimit && len(r.Attempts) == 0 && r.AttemptCount <= 1
}

// floorDiv divides a by b (b > 0), rounding toward minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// Request implements sources.Handler.
func (x *reducer) Request(r *sources.Request) {
	if !reducible(r) {
		x.refused[r.Format]++
		return
	}
	ns := r.Time.UnixNano()
	sec := r.Time.Unix()
	sp := x.requests[r.Origin.File]
	if sp == nil {
		sp = &span{first: ns, last: ns}
		x.requests[strings.Clone(r.Origin.File)] = sp
	}
	sp.n++
	sp.first, sp.last = min(sp.first, ns), max(sp.last, ns)

	sk := secondKey{sec, r.LB, r.Format}
	s := x.seconds[sk]
	if s == nil {
		s = &Second{Sec: sec, LB: strings.Clone(r.LB), Format: string(r.Format)}
		x.seconds[secondKey{sec, s.LB, r.Format}] = s
	}
	s.Total++
	switch {
	case r.Failure.LBGenerated():
		*failedCount(s, r.Failure)++
		x.group(r, sec, ns)
	case r.Failure == sources.FailureAppError:
	default:
		s.OK++
	}
	if r.Generator == sources.GeneratedByBackend {
		s.Served++
		if r.Backend.IsValid() {
			ck := cellKey{r.Backend.Addr(), floorDiv(sec, CellSeconds)}
			c := x.cells[ck]
			if c == nil {
				c = &Cell{IP: ck.ip.String(), Cell: ck.cell, First: ns, Last: ns}
				x.cells[ck] = c
			}
			c.N++
			c.First, c.Last = min(c.First, ns), max(c.Last, ns)
		}
	}
}

// failedCount is the count of s of failure kind k, an LB-generated one.
func failedCount(s *Second, k sources.FailureKind) *int {
	switch k {
	case sources.FailureNoBackend:
		return &s.NoBackend
	case sources.FailureRefused:
		return &s.Refused
	case sources.FailureUnreachable:
		return &s.Unreachable
	case sources.FailureClosed:
		return &s.Closed
	case sources.FailureTimeout:
		return &s.Timeout
	}
	return &s.Other
}

// group adds failure r, at second sec and nanosecond ns, to its group.
func (x *reducer) group(r *sources.Request, sec, ns int64) {
	d, after := correlate.GroupTimes(r)
	k := groupKey{sec, r.Status, r.Generator, r.Failure, r.Backend, r.LB, r.Detail, r.Family, r.Platform, r.Format, d, after}
	rec := Record{Time: ns, Object: r.Origin.File, Line: r.Origin.Line, Method: r.Method, Path: r.Path}
	g := x.groups[k]
	if g == nil {
		rec.Object, rec.Method, rec.Path = strings.Clone(rec.Object), strings.Clone(rec.Method), strings.Clone(rec.Path)
		k.lb, k.detail = strings.Clone(k.lb), strings.Clone(k.detail)
		g = &Group{Sec: sec, Status: r.Status, Generator: r.Generator.String(), Kind: r.Failure.String(), LB: k.lb,
			Detail: k.detail, Family: string(r.Family), Platform: string(r.Platform), Format: string(r.Format), Duration: int64(d), LoggedAfter: int64(after), Earliest: rec, Latest: rec}
		if r.Backend.IsValid() {
			g.Backend = r.Backend.String()
		}
		x.groups[k] = g
	}
	g.N++
	if g.N == 1 {
		return
	}
	if compareRecords(rec, g.Earliest) < 0 {
		g.Earliest = cloneRecord(rec)
	}
	if compareRecords(rec, g.Latest) > 0 {
		g.Latest = cloneRecord(rec)
	}
}

// cloneRecord returns rec with strings of its own.
func cloneRecord(rec Record) Record {
	rec.Object, rec.Method, rec.Path = strings.Clone(rec.Object), strings.Clone(rec.Method), strings.Clone(rec.Path)
	return rec
}

// compareRecords orders records by time, then object, line and ref: the
// order in which the analysis picks a group's earliest and latest.
func compareRecords(a, b Record) int {
	return cmp.Or(cmp.Compare(a.Time, b.Time), strings.Compare(a.Object, b.Object), cmp.Compare(a.Line, b.Line), strings.Compare(a.Ref, b.Ref))
}

// Lifecycle implements sources.Handler: events are not part of the
// request stream.
func (x *reducer) Lifecycle(*sources.Lifecycle) {}

// Config implements sources.Handler: objects are not part of the request
// stream.
func (x *reducer) Config(*sources.Config) {}

// OnlyOutcomesOfSuccesses implements sources.OutcomeHandler: of a request
// that did not fail the reducer reads its outcome, backend and time.
func (x *reducer) OnlyOutcomesOfSuccesses() {}

var _ sources.OutcomeHandler = (*reducer)(nil)

// merge adds what o reduced.
func (x *reducer) merge(o *reducer) {
	for k, s := range o.seconds {
		m := x.seconds[k]
		if m == nil {
			x.seconds[k] = s
			continue
		}
		m.Total, m.OK, m.Served = m.Total+s.Total, m.OK+s.OK, m.Served+s.Served
		m.NoBackend, m.Refused, m.Unreachable = m.NoBackend+s.NoBackend, m.Refused+s.Refused, m.Unreachable+s.Unreachable
		m.Closed, m.Timeout, m.Other = m.Closed+s.Closed, m.Timeout+s.Timeout, m.Other+s.Other
	}
	for k, c := range o.cells {
		m := x.cells[k]
		if m == nil {
			x.cells[k] = c
			continue
		}
		m.N += c.N
		m.First, m.Last = min(m.First, c.First), max(m.Last, c.Last)
	}
	for k, g := range o.groups {
		m := x.groups[k]
		if m == nil {
			x.groups[k] = g
			continue
		}
		m.N += g.N
		if compareRecords(g.Earliest, m.Earliest) < 0 {
			m.Earliest = g.Earliest
		}
		if compareRecords(g.Latest, m.Latest) > 0 {
			m.Latest = g.Latest
		}
	}
	for f, n := range o.refused {
		x.refused[f] += n
	}
	for name, sp := range o.requests {
		m := x.requests[name]
		if m == nil {
			x.requests[name] = sp
			continue
		}
		m.n += sp.n
		m.first, m.last = min(m.first, sp.first), max(m.last, sp.last)
	}
}

// NotReducibleError is the error of Reduce when some requests cannot be
// reduced: their load balancer logs attempts, retries or error-log lines
// (ingress-nginx, nginx, Envoy), which only the raw files hold.
type NotReducibleError struct {
	// Requests counts them by format.
	Requests map[sources.Format]int
}

// Error implements error.
func (e *NotReducibleError) Error() string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(e.Requests)) {
		parts = append(parts, fmt.Sprintf("%d %s", e.Requests[f], f))
	}
	return "requests that log attempts or retries do not reduce (only ALB and Google Cloud load balancers do); analyze the raw files: " + strings.Join(parts, ", ")
}

// Reduce reads the request logs among paths (as `analyze` would, with
// opts) and returns their reduced bundle; events and objects among them
// are left out (they stay raw inputs). It fails when a path cannot be
// read or a request cannot be reduced (see NotReducibleError).
func Reduce(ctx context.Context, paths []string, opts sources.Options) (*Bundle, error) {
	var mu sync.Mutex
	var all []*reducer
	res, err := sources.Read(ctx, paths, opts, func(*sources.InputReport) sources.Handler {
		x := newReducer()
		mu.Lock()
		all = append(all, x)
		mu.Unlock()
		return x
	})
	if err != nil {
		return nil, err
	}
	x := newReducer()
	for _, o := range all {
		x.merge(o)
	}
	if len(x.refused) > 0 {
		return nil, &NotReducibleError{Requests: x.refused}
	}
	b := &Bundle{Schema: Schema, Engine: "local", Inputs: []Input{}}
	if !opts.Since.IsZero() || !opts.Until.IsZero() {
		b.Window = &Window{Since: opts.Since.UTC(), Until: opts.Until.UTC()}
	}
	for _, in := range res.Inputs {
		sp := x.requests[in.Name]
		switch {
		case sp == nil && in.Kinds[sources.KindRequestLog].Records > 0:
			return nil, errors.New(in.Name + ": its requests were not reduced")
		case sp == nil && !Reducible(sources.FamilyOf(in.Format)):
			continue // events, objects: they stay raw inputs
		case sp == nil:
			// A request log whose every request lay outside the window.
			b.Inputs = append(b.Inputs, Input{Name: in.Name, Format: string(in.Format), Skipped: in.Skipped,
				Filtered: in.Filtered, Duplicates: in.Duplicates, Passed: in.Passed})
			continue
		}
		b.Inputs = append(b.Inputs, Input{Name: in.Name, Format: string(in.Format), Records: sp.n, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates, Passed: in.Passed, First: fromNanos(sp.first), Last: fromNanos(sp.last)})
	}
	for _, s := range x.seconds {
		b.Seconds = append(b.Seconds, *s)
	}
	for _, c := range x.cells {
		b.Cells = append(b.Cells, *c)
	}
	for _, g := range x.groups {
		b.Groups = append(b.Groups, *g)
	}
	b.Sort()
	return b, nil
}

// Sort puts the rows in their order: seconds by second, load balancer and
// format; cells by cell and IP; groups by second and every key field.
// Two bundles of the same rows are then the same bytes.
func (b *Bundle) Sort() {
	if b.Seconds == nil {
		b.Seconds = []Second{}
	}
	if b.Cells == nil {
		b.Cells = []Cell{}
	}
	if b.Groups == nil {
		b.Groups = []Group{}
	}
	slices.SortFunc(b.Seconds, func(x, y Second) int {
		return cmp.Or(cmp.Compare(x.Sec, y.Sec), strings.Compare(x.LB, y.LB), strings.Compare(x.Format, y.Format))
	})
	slices.SortFunc(b.Cells, func(x, y Cell) int {
		return cmp.Or(cmp.Compare(x.Cell, y.Cell), strings.Compare(x.IP, y.IP))
	})
	slices.SortFunc(b.Groups, func(x, y Group) int {
		return cmp.Or(cmp.Compare(x.Sec, y.Sec), cmp.Compare(x.Status, y.Status), strings.Compare(x.Generator, y.Generator),
			strings.Compare(x.Kind, y.Kind), strings.Compare(x.Backend, y.Backend), strings.Compare(x.LB, y.LB),
			strings.Compare(x.Detail, y.Detail), strings.Compare(x.Family, y.Family), strings.Compare(x.Platform, y.Platform),
			strings.Compare(x.Format, y.Format), cmp.Compare(x.Duration, y.Duration), cmp.Compare(x.LoggedAfter, y.LoggedAfter))
	})
}

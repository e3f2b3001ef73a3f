package correlate

import (
	"maps"
	"slices"
	"time"

	"github.com/readygap/readygap/sources"
)

// This file keeps the client-side requests (sources.Request.ClientSide:
// load-test tools, curl loops) apart from the load balancers' logs: they
// say what users got, not which load balancer produced it or which backend
// it chose, so they never enter the per-second counts, the failure groups
// or the backends' traffic. They are counted per second here, and their
// failures gathered into runs (ClientRuns).

// clientRunGap is how far apart two failures the client saw may be and
// still belong to one run: a load test sends several requests a second,
// and a rollout's failures come in one burst; ten seconds without one is
// a new burst. A curl loop slower than one request in ten seconds sees a
// run per failure.
const clientRunGap = 10 * time.Second

// clientSecond counts the client-side requests of one second.
type clientSecond struct {
	total, failed int
	// statuses counts the failed ones by status (0: no response).
	statuses map[int]int
	// first is where the second's first failure was read.
	first sources.Origin
	// orderOnly counts requests whose time is only their order.
	orderOnly int
}

// clientFailed reports whether the client saw r fail: a 5xx status or no
// response at all. Who produced it (the load balancer or the application)
// the client cannot tell.
func clientFailed(r *sources.Request) bool { return r.Status == 0 || r.Status >= 500 }

// clientRequest counts one client-side request.
func (c *Collector) clientRequest(r *sources.Request) {
	if c.client == nil {
		c.client = map[int64]*clientSecond{}
	}
	sec := r.Time.Unix()
	s := c.client[sec]
	if s == nil {
		s = &clientSecond{}
		c.client[sec] = s
	}
	s.total++
	if r.OrderOnly {
		s.orderOnly++
	}
	if !clientFailed(r) {
		return
	}
	if s.statuses == nil {
		s.statuses = map[int]int{}
	}
	if s.failed == 0 || compareOrigins(r.Origin, s.first) < 0 {
		s.first = r.Origin
	}
	s.failed++
	s.statuses[r.Status]++
}

// mergeClient adds the client seconds of one collector into d's.
func mergeClient(dst, src map[int64]*clientSecond) map[int64]*clientSecond {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[int64]*clientSecond{}
	}
	for sec, s := range src {
		d := dst[sec]
		if d == nil {
			// A copy: a collector may be merged again (Merge).
			d = &clientSecond{first: s.first}
			dst[sec] = d
		}
		d.total += s.total
		d.orderOnly += s.orderOnly
		if s.failed > 0 && (d.failed == 0 || compareOrigins(s.first, d.first) < 0) {
			d.first = s.first
		}
		d.failed += s.failed
		if len(s.statuses) > 0 && d.statuses == nil {
			d.statuses = map[int]int{}
		}
		for st, n := range s.statuses {
			d.statuses[st] += n
		}
	}
	return dst
}

// ClientRun is a run of failures the client saw: from the first to the
// last, no two more than clientRunGap apart.
type ClientRun struct {
	// Start and End are the seconds of the first and last failure.
	Start, End time.Time
	// Failed counts the failures; Requests every client-side request in
	// those seconds (the tools that log failures only make it Failed).
	Failed, Requests int
	// Statuses counts the failures by status (0: no response).
	Statuses map[int]int
	// First is where the first failure was read.
	First sources.Origin
	// OrderOnly marks a run any of whose requests had no time of its own.
	OrderOnly bool
}

// ClientTotals sums the client-side requests: how many, how many failed,
// and the seconds they span; zero when there are none.
func (d *Dataset) ClientTotals() (requests, failed int, first, last time.Time) {
	for sec, s := range d.client {
		requests += s.total
		failed += s.failed
		t := time.Unix(sec, 0).UTC()
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	return requests, failed, first, last
}

// ClientRuns returns the runs of failures the client-side requests show,
// in time order.
func (d *Dataset) ClientRuns() []ClientRun {
	secs := slices.Sorted(maps.Keys(d.client))
	var runs []ClientRun
	for _, sec := range secs {
		s := d.client[sec]
		if s.failed == 0 {
			if n := len(runs); n > 0 && time.Unix(sec, 0).Sub(runs[n-1].End) <= clientRunGap {
				runs[n-1].Requests += s.total
			}
			continue
		}
		t := time.Unix(sec, 0).UTC()
		if n := len(runs); n == 0 || t.Sub(runs[n-1].End) > clientRunGap {
			runs = append(runs, ClientRun{Start: t, First: s.first, Statuses: map[int]int{}})
		}
		r := &runs[len(runs)-1]
		r.End = t
		r.Failed += s.failed
		r.Requests += s.total
		r.OrderOnly = r.OrderOnly || s.orderOnly > 0
		for st, n := range s.statuses {
			r.Statuses[st] += n
		}
	}
	return runs
}

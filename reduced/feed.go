package reduced

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// fromNanos turns Unix nanoseconds into a UTC time.
func fromNanos(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// kinds maps a failure kind's name back to the kind (LB-generated ones).
var kinds = func() map[string]sources.FailureKind {
	m := map[string]sources.FailureKind{}
	for k := sources.FailureNoBackend; k <= sources.FailureOther; k++ {
		m[k.String()] = k
	}
	return m
}()

// generators maps a generator's name back to the generator.
var generators = map[string]sources.Generator{
	sources.GeneratedUnknown.String():   sources.GeneratedUnknown,
	sources.GeneratedByLB.String():      sources.GeneratedByLB,
	sources.GeneratedByBackend.String(): sources.GeneratedByBackend,
}

// Check reports the first row that cannot be true of any request log: a
// count below zero, more successes and failures than requests, a cell's
// or group's times outside its second or cell, a negative duration,
// an unknown kind, an address that does not parse. A bundle that fails it
// is not read.
func (b *Bundle) Check() error {
	for i, s := range b.Seconds {
		sum := s.OK + s.NoBackend + s.Refused + s.Unreachable + s.Closed + s.Timeout + s.Other
		if s.Total <= 0 || s.OK < 0 || s.NoBackend < 0 || s.Refused < 0 || s.Unreachable < 0 || s.Closed < 0 || s.Timeout < 0 ||
			s.Other < 0 || s.Served < 0 || sum > s.Total || s.Served > s.Total {
			return fmt.Errorf("seconds[%d] (%d): counts that no log gives", i, s.Sec)
		}
	}
	for i, c := range b.Cells {
		if _, err := netip.ParseAddr(c.IP); err != nil {
			return fmt.Errorf("cells[%d]: %v", i, err)
		}
		lo, hi := c.Cell*CellSeconds*int64(time.Second), (c.Cell+1)*CellSeconds*int64(time.Second)
		if c.N <= 0 || c.First > c.Last || c.First < lo || c.Last >= hi {
			return fmt.Errorf("cells[%d] (%s, %d): %d responses from %d to %d ns, not in the cell", i, c.IP, c.Cell, c.N, c.First, c.Last)
		}
	}
	for i, g := range b.Groups {
		if _, ok := kinds[g.Kind]; !ok {
			return fmt.Errorf("groups[%d]: kind %q is not a failure the load balancer generated", i, g.Kind)
		}
		if g.Duration < 0 || g.LoggedAfter < 0 {
			return fmt.Errorf("groups[%d]: a negative duration or logged-after", i)
		}
		if _, ok := generators[g.Generator]; !ok {
			return fmt.Errorf("groups[%d]: generator %q", i, g.Generator)
		}
		if g.Backend != "" {
			if _, err := netip.ParseAddrPort(g.Backend); err != nil {
				return fmt.Errorf("groups[%d]: %v", i, err)
			}
		}
		lo, hi := g.Sec*int64(time.Second), (g.Sec+1)*int64(time.Second)
		e, l := g.Earliest.Time, g.Latest.Time
		if g.N <= 0 || e < lo || l >= hi || e > l || g.N == 1 && compareRecords(g.Earliest, g.Latest) != 0 {
			return fmt.Errorf("groups[%d] (second %d): %d failures from %d to %d ns, not in the second", i, g.Sec, g.N, e, l)
		}
	}
	return nil
}

// origin is where rec was read: its object and line, or, where the engine
// cannot know the line, its object and the record's reference within it.
func (rec Record) origin() sources.Origin {
	if rec.Line > 0 || rec.Ref == "" {
		return sources.Origin{File: rec.Object, Line: rec.Line}
	}
	return sources.Origin{File: rec.Object + " " + rec.Ref}
}

// Feed hands every row of b to c. b must have passed Check.
func (b *Bundle) Feed(c *correlate.Collector) {
	for _, s := range b.Seconds {
		rs := correlate.ReducedSecond{Sec: s.Sec, LB: s.LB, Format: sources.Format(s.Format), Total: s.Total, OK: s.OK, Served: s.Served}
		rs.Failed[sources.FailureNoBackend] = s.NoBackend
		rs.Failed[sources.FailureRefused] = s.Refused
		rs.Failed[sources.FailureUnreachable] = s.Unreachable
		rs.Failed[sources.FailureClosed] = s.Closed
		rs.Failed[sources.FailureTimeout] = s.Timeout
		rs.Failed[sources.FailureOther] = s.Other
		c.AddSecond(rs)
	}
	for _, x := range b.Cells {
		c.AddServedCell(correlate.ReducedCell{IP: netip.MustParseAddr(x.IP), N: x.N, First: fromNanos(x.First), Last: fromNanos(x.Last)})
	}
	for _, g := range b.Groups {
		key := sources.Request{Status: g.Status, Generator: generators[g.Generator], Failure: kinds[g.Kind], LB: g.LB, Detail: g.Detail,
			Family: sources.Family(g.Family), Platform: sources.Platform(g.Platform), Format: sources.Format(g.Format),
			Duration: time.Duration(g.Duration), LoggedAfter: time.Duration(g.LoggedAfter)}
		if g.Backend != "" {
			key.Backend = netip.MustParseAddrPort(g.Backend)
		}
		rec := func(r Record) correlate.ReducedRecord {
			return correlate.ReducedRecord{Time: fromNanos(r.Time), Origin: r.origin(), Method: r.Method, Path: r.Path}
		}
		c.AddFailureGroup(correlate.ReducedGroup{Key: key, N: g.N, Earliest: rec(g.Earliest), Latest: rec(g.Latest)})
	}
}

// InputReports are the inputs of b as the report lists inputs: named
// after the bundle file (name) and what was reduced into it.
func (b *Bundle) InputReports(name string) []*sources.InputReport {
	out := make([]*sources.InputReport, 0, len(b.Inputs))
	for _, in := range b.Inputs {
		r := &sources.InputReport{Name: name + ": " + in.Name, Format: sources.Format(in.Format), Records: in.Records,
			Skipped: in.Skipped, Filtered: in.Filtered, Duplicates: in.Duplicates, Passed: in.Passed,
			First: in.First.UTC(), Last: in.Last.UTC()}
		r.Kinds[sources.KindRequestLog] = sources.KindSpan{Records: in.Records, First: r.First, Last: r.Last}
		out = append(out, r)
	}
	return out
}

// HasFormat reports whether any input of b is of format f.
func (b *Bundle) HasFormat(f string) bool {
	for _, in := range b.Inputs {
		if in.Format == f {
			return true
		}
	}
	return false
}

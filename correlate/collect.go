// Package correlate joins the records of every input into what the rules
// need: an outcome series per second, who each backend IP was over time, one
// lifecycle timeline per pod, and the windows in which the load balancer or
// proxy itself produced errors.
package correlate

import (
	"net/netip"
	"sort"
	"time"

	"github.com/readygap/readygap/sources"
)

// Counts are the request outcomes of one second.
type Counts struct {
	// Total counts client-visible requests.
	Total int
	// OK counts requests answered without a 5xx.
	OK int
	// AppErrors counts 5xx the backend application sent itself.
	AppErrors int
	// LBFailed counts client-visible failures the LB or proxy generated, by kind.
	LBFailed [sources.FailureOther + 1]int
	// Hidden counts requests whose earlier upstream attempts failed but whose
	// retry hid that from the client.
	Hidden int
}

// Failed is the number of client-visible LB-generated failures.
func (c *Counts) Failed() int {
	n := 0
	for _, v := range c.LBFailed {
		n += v
	}
	return n
}

// Traffic is what the request logs say about one backend IP.
type Traffic struct {
	// Runs are the stretches of time in which the backend itself sent
	// responses; a pod IP reused by another pod shows as separate runs.
	Runs Runs
	// Served counts responses the backend sent; Failed counts LB-generated
	// failures (client-visible or hidden attempts) on requests sent to it.
	Served, Failed int
	// FirstFailed and LastFailed bound those failures.
	FirstFailed, LastFailed time.Time
}

// failed counts an LB-generated failure at t on a request sent to the backend.
func (t *Traffic) failed(at time.Time) {
	t.Failed++
	if t.FirstFailed.IsZero() || at.Before(t.FirstFailed) {
		t.FirstFailed = at
	}
	if at.After(t.LastFailed) {
		t.LastFailed = at
	}
}

// Collector gathers the records of one input. It implements sources.Handler
// and keeps only what analysis needs: every LB-generated failure (a small
// share of traffic), per-second counts and per-backend totals for the rest,
// and all lifecycle events and configuration facts.
type Collector struct {
	failures  []*sources.Request
	seconds   map[int64]*Counts
	traffic   map[netip.Addr]*Traffic
	lifecycle []sources.Lifecycle
	configs   []*sources.Config
	formats   map[sources.Format]int
	// lastSecond and lastCounts cache the second of the previous request:
	// logs mostly arrive in time order.
	lastSecond int64
	lastCounts *Counts
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{
		seconds: make(map[int64]*Counts),
		traffic: make(map[netip.Addr]*Traffic),
		formats: make(map[sources.Format]int),
	}
}

// Request implements sources.Handler.
func (c *Collector) Request(r *sources.Request) {
	c.formats[r.Format]++
	if r.AttemptOnly {
		if r.Failure.LBGenerated() {
			c.failures = append(c.failures, r.Clone())
		}
		return
	}
	n := c.second(r.Time)
	n.Total++
	hidden := false
	for i, a := range r.Attempts {
		last := i == len(r.Attempts)-1
		if a.Failure.LBGenerated() && a.Backend.IsValid() {
			c.backend(a.Backend.Addr()).failed(r.Time)
		}
		if !last && a.Failure.LBGenerated() && !r.Failure.LBGenerated() {
			hidden = true
		}
	}
	switch {
	case r.Failure.LBGenerated():
		n.LBFailed[r.Failure]++
		if len(r.Attempts) == 0 && r.Backend.IsValid() {
			c.backend(r.Backend.Addr()).failed(r.Time)
		}
		c.failures = append(c.failures, r.Clone())
	case r.Failure == sources.FailureAppError:
		n.AppErrors++
	default:
		n.OK++
	}
	if hidden {
		n.Hidden++
		if !r.Failure.LBGenerated() {
			c.failures = append(c.failures, r.Clone())
		}
	}
	if r.Generator == sources.GeneratedByBackend && r.Backend.IsValid() {
		t := c.backend(r.Backend.Addr())
		t.Served++
		t.Runs.Add(r.Time)
	}
}

// Lifecycle implements sources.Handler.
func (c *Collector) Lifecycle(l *sources.Lifecycle) {
	c.formats[l.Format]++
	c.lifecycle = append(c.lifecycle, *l)
}

// Config implements sources.Handler.
func (c *Collector) Config(x *sources.Config) {
	c.formats[x.Format]++
	cp := *x
	c.configs = append(c.configs, &cp)
}

func (c *Collector) second(t time.Time) *Counts {
	s := t.Unix()
	if c.lastCounts != nil && s == c.lastSecond {
		return c.lastCounts
	}
	n := c.seconds[s]
	if n == nil {
		n = &Counts{}
		c.seconds[s] = n
	}
	c.lastSecond, c.lastCounts = s, n
	return n
}

func (c *Collector) backend(ip netip.Addr) *Traffic {
	t := c.traffic[ip]
	if t == nil {
		t = &Traffic{}
		c.traffic[ip] = t
	}
	return t
}

// Dataset is the merged material of every input, each list in time order.
type Dataset struct {
	// Failures are the LB-generated failures: client-visible ones, requests
	// whose failed attempts a retry hid, and proxy error-log lines.
	Failures []*sources.Request
	// Seconds maps a Unix second to its outcome counts.
	Seconds map[int64]*Counts
	// Traffic maps a backend IP to what the request logs say about it.
	Traffic   map[netip.Addr]*Traffic
	Lifecycle []sources.Lifecycle
	Configs   []*sources.Config
	// Formats counts records by input format.
	Formats map[sources.Format]int
}

// Merge combines the collectors of every input into one Dataset.
func Merge(cs ...*Collector) *Dataset {
	d := &Dataset{Seconds: map[int64]*Counts{}, Traffic: map[netip.Addr]*Traffic{}, Formats: map[sources.Format]int{}}
	for _, c := range cs {
		d.Failures = append(d.Failures, c.failures...)
		d.Lifecycle = append(d.Lifecycle, c.lifecycle...)
		d.Configs = append(d.Configs, c.configs...)
		for f, n := range c.formats {
			d.Formats[f] += n
		}
		for s, n := range c.seconds {
			m := d.Seconds[s]
			if m == nil {
				m = &Counts{}
				d.Seconds[s] = m
			}
			m.Total += n.Total
			m.OK += n.OK
			m.AppErrors += n.AppErrors
			m.Hidden += n.Hidden
			for k, v := range n.LBFailed {
				m.LBFailed[k] += v
			}
		}
		for ip, t := range c.traffic {
			m := d.Traffic[ip]
			if m == nil {
				cp := *t
				cp.Runs = append(Runs(nil), t.Runs...)
				d.Traffic[ip] = &cp
				continue
			}
			m.Served += t.Served
			m.Runs.Merge(t.Runs)
			if t.Failed > 0 {
				m.failed(t.FirstFailed)
				m.failed(t.LastFailed)
				m.Failed += t.Failed - 2
			}
		}
	}
	// Inputs are parsed in parallel: order equal times by where they came from
	// so that every run reports the same evidence. Records of one element come
	// from one collector in emission order, which the stable sort keeps.
	sort.SliceStable(d.Failures, func(i, j int) bool {
		return earlier(d.Failures[i].Time, d.Failures[i].Origin, d.Failures[j].Time, d.Failures[j].Origin)
	})
	sort.SliceStable(d.Lifecycle, func(i, j int) bool {
		return earlier(d.Lifecycle[i].Time, d.Lifecycle[i].Origin, d.Lifecycle[j].Time, d.Lifecycle[j].Origin)
	})
	sort.SliceStable(d.Configs, func(i, j int) bool {
		a, b := d.Configs[i].Origin, d.Configs[j].Origin
		return a.File < b.File || (a.File == b.File && a.Line < b.Line)
	})
	return d
}

// earlier orders records by time, then by file and line.
func earlier(ta time.Time, oa sources.Origin, tb time.Time, ob sources.Origin) bool {
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if oa.File != ob.File {
		return oa.File < ob.File
	}
	return oa.Line < ob.Line
}

// HasKubernetes reports whether any input carried Kubernetes events or objects.
func (d *Dataset) HasKubernetes() bool {
	if len(d.Configs) > 0 {
		return true
	}
	for i := range d.Lifecycle {
		if d.Lifecycle[i].FromAPI {
			return true
		}
	}
	return false
}

// At returns the outcome counts of one Unix second (zero when none).
func (d *Dataset) At(sec int64) Counts {
	if c := d.Seconds[sec]; c != nil {
		return *c
	}
	return Counts{}
}

// Span returns the first and last second that had a request.
func (d *Dataset) Span() (first, last int64, ok bool) {
	for s := range d.Seconds {
		if !ok || s < first {
			first = s
		}
		if !ok || s > last {
			last = s
		}
		ok = true
	}
	return first, last, ok
}

// Each visits, in time order, the seconds in [from, to] that had requests.
func (d *Dataset) Each(from, to int64, fn func(sec int64, c Counts)) {
	secs := make([]int64, 0, len(d.Seconds))
	for s := range d.Seconds {
		if s >= from && s <= to {
			secs = append(secs, s)
		}
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	for _, s := range secs {
		fn(s, *d.Seconds[s])
	}
}

// Sum returns the totals over the seconds in [from, to].
func (d *Dataset) Sum(from, to int64) Counts {
	var sum Counts
	d.Each(from, to, func(_ int64, c Counts) { sum.add(&c) })
	return sum
}

// add adds o's counts.
func (c *Counts) add(o *Counts) {
	c.Total += o.Total
	c.OK += o.OK
	c.AppErrors += o.AppErrors
	c.Hidden += o.Hidden
	for k, v := range o.LBFailed {
		c.LBFailed[k] += v
	}
}

// Package correlate joins the records of every input into what the rules
// need: an outcome series per second, who each backend IP was over time, one
// lifecycle timeline per pod, and the windows in which the load balancer or
// proxy itself produced errors.
package correlate

import (
	"cmp"
	"net/netip"
	"slices"
	"sort"
	"strings"
	"sync"
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
	seconds   secondStore
	traffic   map[netip.Addr]*Traffic
	lifecycle eventChunks
	configs   []*sources.Config
	formats   map[sources.Format]int
	// strings holds the strings shared by the kept failures.
	strings map[string]string
	// lastFormat and run count the current run of records of one format
	// without a map lookup; formats has the runs before it.
	lastFormat sources.Format
	run        int
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{
		seconds: newSecondStore(),
		traffic: make(map[netip.Addr]*Traffic),
		formats: make(map[sources.Format]int),
	}
}

// Request implements sources.Handler.
func (c *Collector) Request(r *sources.Request) {
	c.count(r.Format)
	if r.AttemptOnly {
		if r.Failure.LBGenerated() {
			c.keep(r)
		}
		return
	}
	sec := r.Time.Unix()
	ch, i := c.seconds.chunkAt(sec)
	ch.total[i]++
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
		c.seconds.sparse(sec).lbFailed[r.Failure]++
		if len(r.Attempts) == 0 && r.Backend.IsValid() {
			c.backend(r.Backend.Addr()).failed(r.Time)
		}
		c.keep(r)
	case r.Failure == sources.FailureAppError:
		// Application errors are what remains of the total.
	default:
		ch.ok[i]++
	}
	if hidden {
		c.seconds.sparse(sec).hidden++
		if !r.Failure.LBGenerated() {
			c.keep(r)
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
	c.count(l.Format)
	cp := *l
	// Namespaces, nodes, zones, reasons, components, objects, messages and
	// file names repeat from event to event: keep one copy of each.
	cp.Namespace, cp.Zone, cp.Node, cp.Object = c.share(l.Namespace), c.share(l.Zone), c.share(l.Node), c.share(l.Object)
	cp.Reason, cp.Status, cp.Group, cp.Source = c.share(l.Reason), c.share(l.Status), c.share(l.Group), c.share(l.Source)
	cp.Message, cp.Origin.File = c.share(l.Message), c.share(l.Origin.File)
	c.lifecycle.add(cp)
}

// eventChunkSize is how many events one chunk of a Collector holds: a
// chunk is about 300 KB, so growing never copies more than that.
const eventChunkSize = 1024

// eventChunks holds events in fixed-size chunks: appending never copies
// what is held, and merging can let each chunk go once copied.
type eventChunks struct {
	chunks [][]sources.Lifecycle
	n      int
}

// add appends one event.
func (e *eventChunks) add(l sources.Lifecycle) {
	if k := len(e.chunks); k == 0 || len(e.chunks[k-1]) == eventChunkSize {
		e.chunks = append(e.chunks, make([]sources.Lifecycle, 0, eventChunkSize))
	}
	k := len(e.chunks) - 1
	e.chunks[k] = append(e.chunks[k], l)
	e.n++
}

// appendTo appends the events to dst; with release it lets each chunk go
// once copied.
func (e *eventChunks) appendTo(dst []sources.Lifecycle, release bool) []sources.Lifecycle {
	for i, ch := range e.chunks {
		dst = append(dst, ch...)
		if release {
			e.chunks[i] = nil
		}
	}
	if release {
		e.chunks, e.n = nil, 0
	}
	return dst
}

// Config implements sources.Handler.
func (c *Collector) Config(x *sources.Config) {
	c.count(x.Format)
	cp := *x
	c.configs = append(c.configs, &cp)
}

// maxInterned bounds the distinct strings a Collector shares among the
// failures and events it keeps; past it, each keeps its own.
const maxInterned = 4096

// keep keeps a copy of a failure. Its strings, which alias the input's
// buffer, are copied once per distinct value: LB names, methods, paths and
// LB error texts repeat from failure to failure.
func (c *Collector) keep(r *sources.Request) {
	cp := *r
	if r.Attempts != nil {
		cp.Attempts = append([]sources.Attempt(nil), r.Attempts...)
	}
	cp.LB, cp.Method, cp.Path, cp.Detail = c.intern(r.LB), c.intern(r.Method), c.intern(r.Path), c.intern(r.Detail)
	c.failures = append(c.failures, &cp)
}

// intern returns an owned copy of s, shared with earlier equal ones.
func (c *Collector) intern(s string) string { return c.shareCopy(s, true) }

// share returns s, or an earlier equal string so that s can be freed; s
// must be owned (not alias an input buffer).
func (c *Collector) share(s string) string { return c.shareCopy(s, false) }

// shareCopy returns an earlier string equal to s, else s (copied when
// clone is set, as a string aliasing the input must be), remembering it
// while fewer than maxInterned are.
func (c *Collector) shareCopy(s string, clone bool) string {
	if s == "" {
		return ""
	}
	if v, ok := c.strings[s]; ok {
		return v
	}
	v := s
	if clone {
		v = strings.Clone(s)
	}
	if len(c.strings) < maxInterned {
		if c.strings == nil {
			c.strings = make(map[string]string)
		}
		c.strings[v] = v
	}
	return v
}

// count counts one record of format f.
func (c *Collector) count(f sources.Format) {
	if f == c.lastFormat {
		c.run++
		return
	}
	c.flushFormat()
	c.lastFormat, c.run = f, 1
}

func (c *Collector) flushFormat() {
	if c.run > 0 {
		c.formats[c.lastFormat] += c.run
		c.run = 0
	}
}

func (c *Collector) backend(ip netip.Addr) *Traffic {
	t := c.traffic[ip]
	if t == nil {
		t = &Traffic{}
		c.traffic[ip] = t
	}
	return t
}

// Collectors makes the Collectors of one run, one per parse worker. They
// share one per-second store, so that its size follows the time span once
// rather than once per worker: each Collector keeps only the hours it is
// filling and hands the others over.
type Collectors struct {
	mu     sync.Mutex
	all    []*Collector
	shared *sharedChunks
	merged *Dataset
}

// NewCollectors returns an empty set.
func NewCollectors() *Collectors {
	return &Collectors{shared: &sharedChunks{store: newSecondStore()}}
}

// New returns a new Collector of the set. It is safe for concurrent use;
// each Collector is not.
func (s *Collectors) New() *Collector {
	c := NewCollector()
	c.seconds.shared = s.shared
	s.mu.Lock()
	s.all = append(s.all, c)
	s.mu.Unlock()
	return c
}

// Merge combines every Collector of the set into one Dataset. The first
// call builds it by taking the collectors' records over rather than copying
// them; later calls return the same Dataset.
func (s *Collectors) Merge() *Dataset {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.merged == nil {
		s.merged = merge(s.all, true)
		s.all = nil
	}
	return s.merged
}

// Dataset is the merged material of every input, each list in time order.
type Dataset struct {
	// Failures are the LB-generated failures: client-visible ones, requests
	// whose failed attempts a retry hid, and proxy error-log lines.
	Failures []*sources.Request
	// seconds holds the outcome counts of every second (see At, Span, Each
	// and Sum).
	seconds seconds
	// Traffic maps a backend IP to what the request logs say about it.
	Traffic   map[netip.Addr]*Traffic
	Lifecycle []sources.Lifecycle
	Configs   []*sources.Config
	// Formats counts records by input format.
	Formats map[sources.Format]int
}

// Merge combines the collectors of every input into one Dataset.
func Merge(cs ...*Collector) *Dataset { return merge(cs, false) }

// merge combines collectors; with release it lets each collector's events
// go chunk by chunk as they are copied, so that they are held about once,
// not twice, at the peak.
func merge(cs []*Collector, release bool) *Dataset {
	d := &Dataset{Traffic: map[netip.Addr]*Traffic{}, Formats: map[sources.Format]int{}}
	store := newSecondStore()
	// Collectors of a set hand their hours to its shared store: all of them
	// first, then each shared store is added once.
	shared := map[*sharedChunks]bool{}
	for _, c := range cs {
		if sh := c.seconds.shared; sh != nil {
			c.seconds.flush()
			shared[sh] = true
		}
	}
	for _, c := range cs {
		if sh := c.seconds.shared; shared[sh] {
			store.add(&sh.store)
			delete(shared, sh)
		}
	}
	// Sized once: growing by appends would leave up to as much again behind.
	var nf, nl, nc int
	for _, c := range cs {
		nf, nl, nc = nf+len(c.failures), nl+c.lifecycle.n, nc+len(c.configs)
	}
	d.Failures = make([]*sources.Request, 0, nf)
	d.Lifecycle = make([]sources.Lifecycle, 0, nl)
	d.Configs = make([]*sources.Config, 0, nc)
	for _, c := range cs {
		d.Failures = append(d.Failures, c.failures...)
		d.Lifecycle = c.lifecycle.appendTo(d.Lifecycle, release)
		d.Configs = append(d.Configs, c.configs...)
		if release {
			c.failures, c.configs = nil, nil
		}
		c.flushFormat()
		for f, n := range c.formats {
			d.Formats[f] += n
		}
		store.add(&c.seconds)
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
	d.seconds = store.freeze()
	// Inputs are parsed in parallel: order equal times by where they came from
	// so that every run reports the same evidence. Records of one element come
	// from one collector in emission order, which the stable sort keeps.
	slices.SortStableFunc(d.Failures, func(x, y *sources.Request) int { return compareRecords(x.Time, x.Origin, y.Time, y.Origin) })
	sort.SliceStable(d.Lifecycle, func(i, j int) bool {
		return earlier(d.Lifecycle[i].Time, d.Lifecycle[i].Origin, d.Lifecycle[j].Time, d.Lifecycle[j].Origin)
	})
	slices.SortStableFunc(d.Configs, func(x, y *sources.Config) int { return compareOrigins(x.Origin, y.Origin) })
	return d
}

// earlier orders records by time, then by file and line.
func earlier(ta time.Time, oa sources.Origin, tb time.Time, ob sources.Origin) bool {
	return compareRecords(ta, oa, tb, ob) < 0
}

// compareRecords orders records by time, then by file and line.
func compareRecords(ta time.Time, oa sources.Origin, tb time.Time, ob sources.Origin) int {
	return cmp.Or(ta.Compare(tb), compareOrigins(oa, ob))
}

// compareOrigins orders origins by file, then line.
func compareOrigins(a, b sources.Origin) int {
	return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
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

// Package correlate joins the records of every input into what the rules
// need: an outcome series per second, who each backend IP was over time, one
// lifecycle timeline per pod, and the windows in which the load balancer or
// proxy itself produced errors.
package correlate

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"net/netip"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

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
	// level is the level Runs are built at, and cells how many of its
	// cells they cover (see maxServedCells).
	level uint8
	cells int
	// packed holds Runs, packed (see packRuns), while a Collectors set
	// holds the Traffic between folds; Runs is then nil.
	packed []byte
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
// and keeps only what analysis needs: the LB-generated failures grouped by
// second and by all the analysis reads of them (see Failure), per-second
// counts and per-backend totals for the rest, and all lifecycle events and
// configuration facts (see Config).
type Collector struct {
	// failures holds the groups of failures kept, by key and second (see
	// pendingGroup), and keys the keys they share, by hash (see keyHash),
	// those of one hash together.
	failures map[groupID]*pendingGroup
	keys     map[uint64][]*sources.Request
	// lastKey is the key of the failure kept last: failures of one key
	// come in bursts, and comparing to it is cheaper than hashing.
	lastKey *sources.Request
	// owns holds the strings of the kept failures' own (see ownStrings)
	// shared among them.
	owns map[ownStrings]*ownStrings
	// kept counts the failure records kept, in the order they came: the
	// sequence of the next one (see Failure.seq).
	kept    int
	seconds secondStore
	// served holds the seconds each load balancer had a backend answer.
	served  lbServed
	traffic map[netip.Addr]*Traffic
	// recent caches the entries of traffic last looked up (see backend).
	recent *backendCache
	// runs counts the runs held in traffic, and set is the set the
	// Collector belongs to, if any: Flush folds traffic into the set's once
	// runs reaches foldRuns.
	runs      int
	set       *Collectors
	lifecycle eventChunks
	configs   []*sources.Config
	// quiet holds the pods read from objects until Merge knows whether
	// anything else mentions them (see quietPod).
	quiet   quietPods
	formats map[sources.Format]int
	// strings holds the strings shared by the kept failures.
	strings map[string]string
	// lastFormat and run count the current run of records of one format
	// without a map lookup; formats has the runs before it.
	lastFormat sources.Format
	run        int
	// client counts the client-side requests per second (client.go).
	client map[int64]*clientSecond
}

// NewCollector returns an empty Collector.
func NewCollector() *Collector {
	return &Collector{
		failures: make(map[groupID]*pendingGroup),
		keys:     make(map[uint64][]*sources.Request),
		seconds:  newSecondStore(),
		traffic:  make(map[netip.Addr]*Traffic),
		recent:   new(backendCache),
		formats:  make(map[sources.Format]int),
	}
}

// Request implements sources.Handler.
func (c *Collector) Request(r *sources.Request) {
	c.count(r.Format)
	if r.ClientSide {
		c.clientRequest(r)
		return
	}
	if r.AttemptOnly {
		if r.Failure.LBGenerated() {
			c.keep(r)
		}
		return
	}
	sec := r.Time.Unix()
	ch, i := c.seconds.chunkAt(sec)
	ch.addTotal(i)
	hidden := false
	for k, a := range r.Attempts {
		last := k == len(r.Attempts)-1
		if a.Failure.LBGenerated() && a.Backend.IsValid() {
			c.backend(a.Backend.Addr()).failed(r.Time)
		}
		if !last && a.Failure.LBGenerated() && !r.Failure.LBGenerated() {
			hidden = true
		}
	}
	switch {
	case r.Failure.LBGenerated():
		ch.sparse(i).lbFailed[r.Failure]++
		if len(r.Attempts) == 0 && r.Backend.IsValid() {
			c.backend(r.Backend.Addr()).failed(r.Time)
		}
		c.keep(r)
	case r.Failure == sources.FailureAppError:
		// Application errors are what remains of the total.
	default:
		ch.addOK(i)
	}
	if hidden {
		ch.sparse(i).hidden++
		if !r.Failure.LBGenerated() {
			c.keep(r)
		}
	}
	if r.Generator == sources.GeneratedByBackend && r.LB != "" {
		c.served.add(r.LB, sec)
	}
	if r.Generator == sources.GeneratedByBackend && r.Backend.IsValid() {
		t := c.backend(r.Backend.Addr())
		n := len(t.Runs)
		t.serve(r.Time)
		c.runs += len(t.Runs) - n
	}
}

// OnlyOutcomesOfSuccesses implements sources.OutcomeHandler: of a request
// that did not fail and made no attempts, Request counts the outcome and
// the backend that served it, and keeps nothing else.
func (c *Collector) OnlyOutcomesOfSuccesses() {}

// Lifecycle implements sources.Handler.
func (c *Collector) Lifecycle(l *sources.Lifecycle) {
	c.count(l.Format)
	if c.quiet.event(l) {
		return
	}
	cp := *l
	// Namespaces, nodes, zones, reasons, components, objects, messages and
	// file names repeat from event to event: keep one copy of each.
	cp.Namespace, cp.Zone, cp.Node, cp.Object = c.share(l.Namespace), c.share(l.Zone), c.share(l.Node), c.share(l.Object)
	cp.Reason, cp.Status, cp.Group, cp.Source = c.share(l.Reason), c.share(l.Status), c.share(l.Group), c.share(l.Source)
	cp.Message, cp.Origin.File, cp.Previous = c.share(l.Message), c.share(l.Origin.File), c.share(l.Previous)
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

// Config implements sources.Handler. Of a pod's status it keeps all but
// the conditions and container states, which the lifecycle records made
// from them tell the analysis: on a List of many pods they were a third of
// the memory kept. A pod is held compactly until Merge (see quietPod).
func (c *Collector) Config(x *sources.Config) {
	c.count(x.Format)
	if c.quiet.add(x, len(c.configs)) {
		return
	}
	cp := *x
	if x.Pod != nil {
		st := *x.Pod
		st.Conditions, st.Containers = nil, nil
		cp.Pod = &st
	}
	c.configs = append(c.configs, &cp)
}

// maxInterned bounds the distinct strings a Collector shares among the
// failures and events it keeps; past it, each keeps its own.
const maxInterned = 4096

// Failure is a group of LB-generated failure records that the analysis
// cannot tell apart: of one whole second, and equal in everything it reads
// of them (see sameGroup). They differ only in where they were read, their
// time within the second, and the method and path they show as evidence.
// A busy load balancer fails thousands of requests a second the same way
// during a rollout: kept one by one, they made memory grow with the input.
//
// A group shares its key with every group of the same key a Collector made
// (see pendingGroup): its fields are the key's, but for those the earliest
// record has of its own (Time, Origin, Method, Path), which are the
// group's. Record makes that record whole when it is quoted. A whole record
// per group took 340 bytes of the 400 a group cost after Merge; on a week
// of ALB logs (15,000 groups) that was the largest part of the heap at the
// end of the run.
type Failure struct {
	// groupKey holds what the group's records share; its Time, Origin,
	// Method and Path are not theirs, and the fields below shadow them.
	*groupKey
	// Time, Origin, Method and Path are the group's earliest record's, by
	// time and then origin: the one the group shows (whichever worker read
	// which file).
	Time         time.Time
	Origin       sources.Origin
	Method, Path string
	// rec is the earliest record made whole, once asked for (see Record).
	rec *sources.Request
	// latest is what the group's latest record, by time and then origin,
	// has of its own; nil while the earliest is the latest.
	latest *latestRecord
	// N is how many records the group stands for.
	N int
	// seq orders groups whose earliest records have equal times and
	// origins: one element of an input made them, all read by one
	// Collector, in this order.
	seq int
	// hash is the group's hash while Merge joins equal groups (see
	// joinGroups).
	hash uint64
}

// groupKey is a record as the key of a failure group: its own fields
// (Time, Origin, Method, Path) are zero but for the time zone, and its
// Duration is what grouping reads (see groupDuration): the records' own
// when the request was retried, else zero, as nothing reads it then.
// Embedded under this name, a Failure's key cannot be taken for one of its
// records.
type groupKey = sources.Request

// Record returns the group's earliest record, made whole once.
func (f *Failure) Record() *sources.Request {
	if f.rec == nil {
		r := *f.groupKey
		r.Time, r.Origin, r.Method, r.Path = f.Time, f.Origin, f.Method, f.Path
		f.rec = &r
	}
	return f.rec
}

// ownRecord is what a record of a group has of its own: the rest is the
// group's (see sameGroup), or not read (the duration of a request that was
// not retried).
type ownRecord struct {
	time         time.Time
	origin       sources.Origin
	method, path string
}

// latestRecord is what the latest record of a group has of its own. Kept
// whole, it doubled the memory of a group.
type latestRecord struct {
	ownRecord
	// req is the record made whole, once asked for (see LatestRecord).
	req *sources.Request
}

// groupID names a group while a Collector builds it: its key (see
// pendingGroup) and its second.
type groupID struct {
	key *sources.Request
	sec int64
}

// pendingGroup is a group of failures as a Collector builds it, made a
// Failure at Merge. The records of one key (all sameGroup compares but
// the second, and the time zone) repeat from second to second, and the
// key is kept once for all of them: a group holds only what its earliest
// and latest records have of their own, their second being the group's
// (see groupID). A whole Request per group, and a latestRecord, made the
// groups of a busy ALB (13,500 in an hour of 4.4 GB of logs) 430 bytes
// each, a third of the heap while reading; this is 64 bytes.
type pendingGroup struct {
	// key holds the group's fields but Time, Origin, Method and Path; its
	// Duration is the one grouping reads (see groupDuration), its Time the
	// zero time in the zone of the group's records.
	key *sources.Request
	// first and last are what the earliest and latest records have of
	// their own; last is unset while the earliest is the latest (see
	// hasLast).
	first, last pendingRecord
	// N and seq are the Failure's.
	N, seq int
	// firstNsec and lastNsec are the records' nanoseconds within the
	// group's second.
	firstNsec, lastNsec int32
}

// hasLast reports whether the group's latest record is not its earliest.
func (g *pendingGroup) hasLast() bool { return g.last.strs != nil }

// pendingRecord is what a record of a pending group has of its own, but
// its time: its strings and its line.
type pendingRecord struct {
	strs *ownStrings
	line int
}

// ownStrings are the strings a record of a group has of its own: the
// file it was read from, its method and its path.
type ownStrings struct {
	file, method, path string
}

// sameGroup reports whether the records of groups f and g belong to one
// group: of one second, with the same role (client-visible, hidden by a
// retry, error-log line), status, generator, kind, retry limit, attempt
// count, backend, attempts, load balancer, detail, family, platform and
// format, and the same duration if the request was retried (only then is
// it read, see attemptTime).
func sameGroup(f, g *Failure) bool {
	return f.Time.Unix() == g.Time.Unix() && sameKey(f.groupKey, g.groupKey)
}

// sameKey reports whether records a and b, of whatever seconds, are equal
// in all sameGroup compares but the second.
func sameKey(a, b *sources.Request) bool {
	return a.AttemptOnly == b.AttemptOnly && a.RetryLimit == b.RetryLimit &&
		a.Generator == b.Generator && a.Failure == b.Failure && a.Status == b.Status && a.AttemptCount == b.AttemptCount &&
		groupDuration(a) == groupDuration(b) && groupLoggedAfter(a) == groupLoggedAfter(b) && a.Backend == b.Backend && slices.Equal(a.Attempts, b.Attempts) &&
		a.LB == b.LB && a.Detail == b.Detail && a.Family == b.Family && a.Platform == b.Platform && a.Format == b.Format
}

// groupDuration is the duration of r as far as grouping reads it: zero
// unless its last attempt is placed by it (see readsDuration).
func groupDuration(r *sources.Request) time.Duration {
	if readsDuration(r) {
		return r.Duration
	}
	return 0
}

// groupLoggedAfter is how much after its start r's line was written, as
// far as grouping keeps it: as groupDuration. A group of other failures
// shows its evidence at its start, which differs from the line's time by
// the milliseconds a refused or unanswered request takes.
func groupLoggedAfter(r *sources.Request) time.Duration {
	if readsDuration(r) {
		return r.LoggedAfter
	}
	return 0
}

// GroupTimes returns what grouping reads of r's duration and of how long
// after its start its line was written (groupDuration, groupLoggedAfter):
// a reduced stream keys its failure groups by them, as Collector does.
func GroupTimes(r *sources.Request) (duration, loggedAfter time.Duration) {
	return groupDuration(r), groupLoggedAfter(r)
}

// groupSeed seeds the hashes of groups: one seed for the process, so that
// the hashes of every Collector agree when they are merged.
var groupSeed = maphash.MakeSeed()

// groupHash hashes what sameGroup compares: groups of one group hash
// alike.
func groupHash(f *Failure) uint64 { return hashRecord(f.groupKey, f.Time.Unix()) }

// keyHash hashes what sameKey compares: records of one key hash alike.
func keyHash(r *sources.Request) uint64 { return hashRecord(r, 0) }

// hashRecord hashes what sameKey compares of r, and sec.
func hashRecord(r *sources.Request, sec int64) uint64 {
	var h maphash.Hash
	h.SetSeed(groupSeed)
	var b [52]byte
	flags := uint64(r.Status)<<32 | uint64(r.Generator)<<24 | uint64(r.Failure)<<16
	if r.AttemptOnly {
		flags |= 1
	}
	if r.RetryLimit {
		flags |= 2
	}
	binary.LittleEndian.PutUint64(b[0:], uint64(sec))
	binary.LittleEndian.PutUint64(b[8:], flags)
	binary.LittleEndian.PutUint64(b[16:], uint64(r.AttemptCount))
	binary.LittleEndian.PutUint64(b[24:], uint64(groupDuration(r)))
	putAddrPort(b[32:], r.Backend)
	h.Write(b[:])
	for _, a := range r.Attempts {
		var ab [24]byte
		putAddrPort(ab[:], a.Backend)
		binary.LittleEndian.PutUint32(ab[20:], uint32(a.Status)<<8|uint32(a.Failure))
		h.Write(ab[:])
	}
	for _, s := range [...]string{r.LB, r.Detail, string(r.Family), string(r.Platform), string(r.Format)} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// putAddrPort writes ap into the first 20 bytes of b: the address as 16
// bytes, whether it is IPv4, and the port.
func putAddrPort(b []byte, ap netip.AddrPort) {
	ip := ap.Addr().As16()
	copy(b, ip[:])
	if ap.Addr().Is4() {
		b[16] = 1
	}
	binary.LittleEndian.PutUint16(b[18:], ap.Port())
}

// keep adds a failure to its group, or starts one. Its strings, which
// alias the input's buffer, are copied once per distinct value: LB names,
// methods, paths and LB error texts repeat from failure to failure.
func (c *Collector) keep(r *sources.Request) {
	c.kept++
	if c.lastKey == nil || !keyFits(c.lastKey, r) {
		c.lastKey = c.keyOf(r)
	}
	id := groupID{c.lastKey, r.Time.Unix()}
	if g := c.failures[id]; g != nil {
		g.add(id.sec, r, c.kept, c)
		return
	}
	c.failures[id] = &pendingGroup{key: c.lastKey, first: c.recordOf(r), firstNsec: int32(r.Time.Nanosecond()), N: 1, seq: c.kept}
}

// keyFits reports whether r is of key k: of its key, and of its time zone.
func keyFits(k, r *sources.Request) bool {
	return sameKey(k, r) && k.Time.Location() == r.Time.Location()
}

// keyOf returns the key of r's group (see pendingGroup), adding it on
// first sight.
func (c *Collector) keyOf(r *sources.Request) *sources.Request {
	h := keyHash(r)
	for _, k := range c.keys[h] {
		if keyFits(k, r) {
			return k
		}
	}
	k := new(sources.Request)
	*k = *r
	if r.Attempts != nil {
		k.Attempts = append([]sources.Attempt(nil), r.Attempts...)
	}
	k.Time, k.Origin, k.Method, k.Path, k.Duration = time.Time{}.In(r.Time.Location()), sources.Origin{}, "", "", groupDuration(r)
	k.LoggedAfter = groupLoggedAfter(r)
	k.LB, k.Detail = c.intern(r.LB), c.intern(r.Detail)
	c.keys[h] = append(c.keys[h], k)
	return k
}

// recordOf returns what r has of its own but its time, its strings owned
// and shared with earlier equal ones.
func (c *Collector) recordOf(r *sources.Request) pendingRecord {
	s := ownStrings{file: r.Origin.File, method: c.intern(r.Method), path: c.intern(r.Path)}
	if p := c.owns[s]; p != nil {
		return pendingRecord{strs: p, line: r.Origin.Line}
	}
	p := &s
	if len(c.owns) < maxInterned {
		if c.owns == nil {
			c.owns = make(map[ownStrings]*ownStrings)
		}
		c.owns[s] = p
	}
	return pendingRecord{strs: p, line: r.Origin.Line}
}

// timeAt is the time of a record of the group, of second sec, with nsec
// nanoseconds.
func (g *pendingGroup) timeAt(sec int64, nsec int32) time.Time {
	return time.Unix(sec, int64(nsec)).In(g.key.Time.Location())
}

// origin is where record p was read.
func (p pendingRecord) origin() sources.Origin {
	return sources.Origin{File: p.strs.file, Line: p.line}
}

// add counts r, the seq-th record kept, in the group of second sec: it
// becomes the group's earliest or latest record if it comes before or
// after them.
func (g *pendingGroup) add(sec int64, r *sources.Request, seq int, c *Collector) {
	g.N++
	switch {
	case earlier(r.Time, r.Origin, g.timeAt(sec, g.firstNsec), g.first.origin()):
		if !g.hasLast() {
			g.last, g.lastNsec = g.first, g.firstNsec
		}
		g.first, g.firstNsec, g.seq = c.recordOf(r), int32(r.Time.Nanosecond()), seq
	case !g.hasLast() && earlier(g.timeAt(sec, g.firstNsec), g.first.origin(), r.Time, r.Origin),
		g.hasLast() && earlier(g.timeAt(sec, g.lastNsec), g.last.origin(), r.Time, r.Origin):
		g.last, g.lastNsec = c.recordOf(r), int32(r.Time.Nanosecond())
	}
}

// failure makes the group of second sec a Failure.
func (g *pendingGroup) failure(sec int64) *Failure {
	f := &Failure{groupKey: g.key, Time: g.timeAt(sec, g.firstNsec), Origin: g.first.origin(),
		Method: g.first.strs.method, Path: g.first.strs.path, N: g.N, seq: g.seq}
	if g.hasLast() {
		f.latest = &latestRecord{ownRecord: ownRecord{time: g.timeAt(sec, g.lastNsec), origin: g.last.origin(), method: g.last.strs.method, path: g.last.strs.path}}
	}
	return f
}

// own returns what the group's earliest record has of its own.
func (f *Failure) own() latestRecord {
	return latestRecord{ownRecord: ownRecord{time: f.Time, origin: f.Origin, method: f.Method, path: f.Path}}
}

// joinGroups joins the equal groups of fs, made by different Collectors,
// in place, and returns what is left: sorted by second and by hash (see
// groupHash), equal groups fall side by side. A map of the groups by hash
// took 1.1 MB on the 15,000 groups of a week of ALB logs; this takes
// nothing more.
func joinGroups(fs []*Failure, hash func(*Failure) uint64) []*Failure {
	for _, f := range fs {
		f.hash = hash(f)
	}
	slices.SortFunc(fs, func(a, b *Failure) int {
		return cmp.Or(cmp.Compare(a.Time.Unix(), b.Time.Unix()), cmp.Compare(a.hash, b.hash))
	})
	out := fs[:0]
	for i := 0; i < len(fs); {
		j := i + 1
		for j < len(fs) && fs[j].hash == fs[i].hash && fs[j].Time.Unix() == fs[i].Time.Unix() {
			j++
		}
		// fs[i:j] share a second and a hash: join each into the first
		// equal one kept (hashes of different groups rarely collide).
		kept := len(out)
	next:
		for _, f := range fs[i:j] {
			for _, g := range out[kept:] {
				if sameGroup(g, f) {
					g.merge(f)
					continue next
				}
			}
			out = append(out, f)
		}
		i = j
	}
	clear(fs[len(out):])
	return out
}

// merge adds the records of group g, of the same key, to f.
func (f *Failure) merge(g *Failure) {
	f.N += g.N
	latest := f.latestOwn()
	if l := g.latestOwn(); earlier(latest.time, latest.origin, l.time, l.origin) {
		latest = l
	}
	if earlier(g.Time, g.Origin, f.Time, f.Origin) {
		f.Time, f.Origin, f.Method, f.Path, f.seq, f.rec = g.Time, g.Origin, g.Method, g.Path, g.seq, nil
	}
	f.latest = &latest
}

// latestOwn returns what the group's latest record has of its own.
func (f *Failure) latestOwn() latestRecord {
	if f.latest == nil {
		return f.own()
	}
	l := *f.latest
	l.req = nil
	return l
}

// Last is the time of the group's latest record.
func (f *Failure) Last() time.Time {
	if f.latest == nil {
		return f.Time
	}
	return f.latest.time
}

// lastOrigin is where the group's latest record was read.
func (f *Failure) lastOrigin() sources.Origin {
	if f.latest == nil {
		return f.Origin
	}
	return f.latest.origin
}

// LatestRecord returns the group's latest record: the earliest itself
// when the group holds one (or the two share time and origin), else a
// copy of it with the latest record's own time, origin, method and path,
// made once.
func (f *Failure) LatestRecord() *sources.Request {
	l := f.latest
	if l == nil || l.time.Equal(f.Time) && l.origin == f.Origin {
		return f.Record()
	}
	if l.req == nil {
		r := *f.groupKey
		r.Time, r.Origin, r.Method, r.Path = l.time, l.origin, l.method, l.path
		l.req = &r
	}
	return l.req
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

// backend returns the traffic of ip, adding it on first sight. Requests
// go round the backends in turn, so the one looked up last is rarely the
// next: a small cache indexed by the address answers before the map.
func (c *Collector) backend(ip netip.Addr) *Traffic {
	k := slotOf(ip)
	if t := c.recent.traffic[k]; t != nil && c.recent.ips[k] == ip {
		return t
	}
	t := c.traffic[ip]
	if t == nil {
		t = &Traffic{}
		c.traffic[ip] = t
	}
	c.recent.ips[k], c.recent.traffic[k] = ip, t
	return t
}

// backendSlots is the size of a Collector's cache of backends: a power of
// two, several times the thousand backends of a large service (the
// benchmark's), so that few of them share a slot.
const backendSlots = 4096

// backendCache is a direct-mapped cache of a Collector's traffic map.
type backendCache struct {
	ips     [backendSlots]netip.Addr
	traffic [backendSlots]*Traffic
}

// slotOf picks the cache slot of ip: a multiplicative hash of its bytes.
func slotOf(ip netip.Addr) int {
	var x uint64
	if ip.Is4() {
		b := ip.As4()
		x = uint64(binary.LittleEndian.Uint32(b[:]))
	} else {
		b := ip.As16()
		x = binary.LittleEndian.Uint64(b[:8]) ^ binary.LittleEndian.Uint64(b[8:])
	}
	return int((x * 0x9e3779b97f4a7c15) >> (64 - backendSlotBits))
}

// backendSlotBits is log2(backendSlots).
const backendSlotBits = 12

// foldRuns is how many runs a Collector of a set holds before Flush folds
// its traffic into the set's: 256 KB of runs (16 bytes each). A backend
// that serves steadily keeps one run or a few, so this is reached only
// behind hundreds of backends that serve now and then, and once the set's
// runs of those have gone up a level, a Collector starting them there
// (see Flush) reaches it rarely. On a week of ALB logs (1,000 backends
// each serving every 6 minutes) the peak RSS was 55 MB at 65,536 runs,
// 53 MB at 32,768 and 16,384, for the same CPU time; folding takes the
// set's lock and merges every backend's runs, so far below it costs more
// than it saves.
const foldRuns = 16384

// Flush implements sources.Flusher: called when an input is done, it folds
// the Collector's traffic into its set's once it holds foldRuns runs.
func (c *Collector) Flush() {
	if c.set == nil || c.runs < foldRuns {
		return
	}
	c.set.mu.Lock()
	c.set.fold(c.traffic)
	// Start each backend again at the level the set's runs reached, not at
	// level 0: the set's records are part of all of them, so its level is
	// at most the final one, and runs built from there join the same (see
	// maxServedCells). A backend serving once every few minutes for days
	// then adds one run an input, not one a response: on a week of ALB
	// logs each Collector otherwise filled up to foldRuns runs again, with
	// room for twice as many, between every two folds.
	for ip, t := range c.traffic {
		if level := c.set.traffic[ip].level; level > 0 {
			*t = Traffic{level: level}
		} else {
			delete(c.traffic, ip)
		}
	}
	c.set.mu.Unlock()
	*c.recent = backendCache{}
	c.runs = 0
}

// foldTraffic adds the traffic of from into into.
func foldTraffic(into, from map[netip.Addr]*Traffic) {
	for ip, t := range from {
		m := into[ip]
		if m == nil {
			cp := *t
			cp.Runs = append(Runs(nil), t.Runs...)
			into[ip] = &cp
			continue
		}
		m.add(t)
		m.Runs = m.Runs.shrunk()
	}
}

// add adds the traffic of o, at the same IP, to t.
func (t *Traffic) add(o *Traffic) {
	t.Served += o.Served
	t.mergeRuns(o)
	if o.Failed > 0 {
		t.failed(o.FirstFailed)
		t.failed(o.LastFailed)
		t.Failed += o.Failed - 2
	}
}

// fold adds the traffic of a Collector of the set to the set's, which
// holds its runs packed (see packRuns) between folds: a backend serving
// every few minutes has up to maxServedCells runs before they go up a
// level, and a thousand of them took 4 MB at 16 bytes a run in the first
// day of a week of ALB logs; packed, runs minutes apart take 7 bytes.
// The caller holds the set's lock.
func (s *Collectors) fold(from map[netip.Addr]*Traffic) {
	for ip, t := range from {
		m := s.traffic[ip]
		if m == nil {
			cp := *t
			cp.Runs, cp.packed = nil, s.pack(t.Runs, nil)
			s.traffic[ip] = &cp
			continue
		}
		m.Runs = unpackRuns(s.runs[:0], m.packed)
		m.add(t)
		m.packed = s.pack(m.Runs, m.packed)
		s.runs, m.Runs = m.Runs[:0], nil // the larger of the two, for the next
	}
}

// pack returns runs packed, in dst when it has room and not more than
// twice what they take, else in a new slice with a quarter more room than
// they take: runs that went up a level take a few bytes where hundreds
// were, and keeping their room held 1.8 MB of a week of ALB logs to the
// end; runs that grow by a Collector's at each fold took a new slice at
// each, 15 MB of them on that week.
func (s *Collectors) pack(runs Runs, dst []byte) []byte {
	s.buf = packRuns(s.buf[:0], runs)
	if cap(dst) < len(s.buf) || cap(dst) > 2*len(s.buf) {
		dst = make([]byte, len(s.buf), len(s.buf)+len(s.buf)/4)
	}
	dst = dst[:len(s.buf)]
	copy(dst, s.buf)
	return dst
}

// unpack makes the runs of every backend of the set whole again.
func (s *Collectors) unpack() {
	for _, t := range s.traffic {
		if t.packed != nil {
			s.runs = unpackRuns(s.runs[:0], t.packed)
			t.Runs, t.packed = slices.Clone(s.runs), nil
		}
	}
	s.runs, s.buf = nil, nil
}

// Collectors makes the Collectors of one run, one per parse worker. They
// share one per-second store, so that its size follows the time span once
// rather than once per worker: each Collector keeps only the hours it is
// filling and hands the others over.
type Collectors struct {
	mu     sync.Mutex
	all    []*Collector
	shared *sharedChunks
	// traffic is what the Collectors' Flush folded in, its runs packed.
	traffic map[netip.Addr]*Traffic
	// runs and buf are room fold reuses to unpack and pack runs in.
	runs   Runs
	buf    []byte
	merged *Dataset
}

// NewCollectors returns an empty set.
func NewCollectors() *Collectors {
	return &Collectors{shared: &sharedChunks{store: newSecondStore()}, traffic: map[netip.Addr]*Traffic{}}
}

// New returns a new Collector of the set. It is safe for concurrent use;
// each Collector is not.
func (s *Collectors) New() *Collector {
	c := NewCollector()
	c.seconds.shared = s.shared
	c.set = s
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
		// What reading left behind (buffers, batches of lines in flight)
		// is garbage now, but the heap may grow by half what was live
		// while reading before the garbage collector runs again: making
		// the failure groups on top of it set the peak. Collected first,
		// on an hour of 4.4 GB of ALB logs (13,500 groups) the peak heap
		// was 20 MB instead of 29 MB.
		if groups := pendingGroups(s.all); groups*materializedBytes >= mergeCollectGroupBytes {
			runtime.GC()
		}
		s.unpack()
		s.merged = merge(s.all, s.traffic, true)
		s.all, s.traffic = nil, nil
		// The Collectors' events are garbage now, but the garbage
		// collector last measured the heap while they and the merged copy
		// were both live (allocating the copy starts a cycle) and lets the
		// heap grow from there: on 100 000 pods the peak was 535 MB resident, 460
		// MB with this one collection, for the same CPU time.
		if mergedEventBytes(s.merged) >= mergeCollectBytes {
			runtime.GC()
		}
	}
	return s.merged
}

// pendingGroups counts the failure groups the collectors hold.
func pendingGroups(cs []*Collector) int {
	n := 0
	for _, c := range cs {
		n += len(c.failures)
	}
	return n
}

// materializedBytes is what Merge allocates to make a failure group a
// Failure: the Failure and its latest record.
const materializedBytes = int(unsafe.Sizeof(Failure{}) + unsafe.Sizeof(latestRecord{}))

// mergeCollectGroupBytes is the size of the failure groups to make from
// which Merge first runs a collection (see Merge): 1 MB, about 4,800
// groups. A collection of the heap that reading leaves (10 to 15 MB on
// the benchmark's ALB logs) takes a few milliseconds of CPU; below it the
// groups add too little for that to pay, and tests and fuzzing, which
// merge small inputs by the thousand, would only get slower.
const mergeCollectGroupBytes = 1 << 20

// mergeCollectBytes is the size of the merged events from which Merge
// runs a collection (see Merge): about 110 000 events, the status records
// of 25 000 pods. Below it the copies add a few tens of MB at most, and a
// collection on every small run (tests, fuzzing) would cost more than it
// gives back.
const mergeCollectBytes = 32 << 20

// mergedEventBytes is the memory the merged events of d take.
func mergedEventBytes(d *Dataset) int {
	return len(d.Lifecycle) * int(unsafe.Sizeof(sources.Lifecycle{}))
}

// Dataset is the merged material of every input, each list in time order.
type Dataset struct {
	// Failures are the LB-generated failures: client-visible ones, requests
	// whose failed attempts a retry hid, and proxy error-log lines, in
	// groups (see Failure) ordered by their earliest records.
	Failures []*Failure
	// seconds holds the outcome counts of every second (see At, Span, Each
	// and Sum).
	seconds seconds
	// lbServed holds the seconds each load balancer had a backend answer
	// (see ServedThrough).
	lbServed lbServed
	// Traffic maps a backend IP to what the request logs say about it.
	Traffic   map[netip.Addr]*Traffic
	Lifecycle []sources.Lifecycle
	Configs   []*sources.Config
	// Formats counts records by input format.
	Formats map[sources.Format]int
	// client holds the client-side requests per second (see ClientRuns).
	client map[int64]*clientSecond
	// SetAside counts the pods, read from objects, of the namespaces
	// nothing else in the inputs mentions, which the analysis does not
	// see (see quietPod).
	SetAside SetAside
}

// Merge combines the collectors of every input into one Dataset.
func Merge(cs ...*Collector) *Dataset { return merge(cs, map[netip.Addr]*Traffic{}, false) }

// merge combines collectors and the traffic already folded from them; with
// release it lets each collector's events go chunk by chunk as they are
// copied, and moves its per-second counts rather than copying them, so
// that they are held about once, not twice, at the peak.
func merge(cs []*Collector, traffic map[netip.Addr]*Traffic, release bool) *Dataset {
	d := &Dataset{Traffic: traffic, Formats: map[sources.Format]int{}}
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
			if release {
				store.take(&sh.store)
			} else {
				store.add(&sh.store)
			}
			delete(shared, sh)
		}
	}
	// The pods held compactly are made whole, or set aside, before the
	// rest is merged (see quietPod).
	plan := planQuiet(cs, traffic)
	d.SetAside = plan.aside
	// Sized once: growing by appends would leave up to as much again behind.
	nl, nc := plan.events, plan.pods
	for _, c := range cs {
		nl, nc = nl+c.lifecycle.n, nc+len(c.configs)
	}
	d.Lifecycle = make([]sources.Lifecycle, 0, nl)
	d.Configs = make([]*sources.Config, 0, nc)
	d.Failures = make([]*Failure, 0, pendingGroups(cs))
	for k, c := range cs {
		for id, g := range c.failures {
			d.Failures = append(d.Failures, g.failure(id.sec))
		}
		d.Lifecycle = c.lifecycle.appendTo(d.Lifecycle, release)
		d.Lifecycle = plan.appendEvents(d.Lifecycle, k, c)
		d.Configs = plan.appendConfigs(d.Configs, k, c)
		if release {
			c.failures, c.keys, c.lastKey, c.owns, c.configs, c.quiet = nil, nil, nil, nil, nil, quietPods{}
		}
		c.flushFormat()
		for f, n := range c.formats {
			d.Formats[f] += n
		}
		if release {
			store.take(&c.seconds)
		} else {
			store.add(&c.seconds)
		}
		foldTraffic(d.Traffic, c.traffic)
		d.client = mergeClient(d.client, c.client)
		d.lbServed.merge(&c.served)
		if release {
			c.served = lbServed{}
		}
	}
	d.Failures = joinGroups(d.Failures, groupHash)
	d.seconds = store.freeze()
	// Inputs are parsed in parallel: order equal times by where they came from
	// so that every run reports the same evidence. Records of one element come
	// from one collector, and their groups keep the order they were emitted in.
	slices.SortFunc(d.Failures, func(x, y *Failure) int {
		return cmp.Or(compareRecords(x.Time, x.Origin, y.Time, y.Origin), cmp.Compare(x.seq, y.seq))
	})
	sort.SliceStable(d.Lifecycle, func(i, j int) bool { return compareLifecycle(&d.Lifecycle[i], &d.Lifecycle[j]) < 0 })
	slices.SortStableFunc(d.Configs, func(x, y *sources.Config) int { return compareOrigins(x.Origin, y.Origin) })
	return d
}

// compareLifecycle orders lifecycle records by time, and the records of one
// moment by what they say before where they were read: by kind, in the
// order a pod goes through them, then by pod, object, group, reason,
// message and address. The same records in another order — an export
// newest first or oldest first, events split across files — then make the
// same report; by file and line alone, a Deployment's scaling read before
// the Killing of its pod at the same second changed which evidence, and
// which backends, an incident named.
func compareLifecycle(a, b *sources.Lifecycle) int {
	if c := a.Time.Compare(b.Time); c != 0 {
		return c
	}
	return cmp.Or(
		cmp.Compare(a.Kind, b.Kind),
		strings.Compare(a.Namespace, b.Namespace),
		strings.Compare(a.Pod, b.Pod),
		strings.Compare(a.Object, b.Object),
		strings.Compare(a.Group, b.Group),
		strings.Compare(a.Reason, b.Reason),
		strings.Compare(a.Status, b.Status),
		strings.Compare(a.Message, b.Message),
		a.IP.Compare(b.IP),
		cmp.Compare(a.Port, b.Port),
		strings.Compare(a.Origin.File, b.Origin.File),
		cmp.Compare(a.Origin.Line, b.Origin.Line),
	)
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

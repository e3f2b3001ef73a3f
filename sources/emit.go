package sources

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"sync"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// Emitter is what an adapter reports to while it reads one input: records,
// skipped lines and warnings. It applies the time window, keeps the input's
// statistics and forwards records to the input's Handler.
type Emitter struct {
	h      Handler
	opts   *Options
	report *InputReport
	dedup  *dedupSet
	// specs shares equal pod specs among the pods of the run; nil shares none.
	specs  *specTable
	warned map[string]bool
	// zone, when set, is the zone learned from the input's own zoned times
	// (see learnZone); it replaces the --tz guess. dated is the time of the
	// line it was learned from, for formats that write no year.
	zone  *time.Location
	dated time.Time
	// clock parses the RFC 3339 times of the worker's lines, a second's
	// date and clock once (see lex.Clock).
	clock lex.Clock
	// stamp remembers the worker's last time stamp that ends at the second
	// (see lex.Stamp).
	stamp lex.Stamp
	// nginx is the record of the worker's ingress-nginx access lines.
	nginx nginxAccessRecord
	// request is the Request an adapter may fill for each line and hand to
	// Request: a Handler keeps nothing of it past the call, so one per
	// worker serves every line without an allocation, and without the
	// sync.Pool round trip that cost about 1% of reading ALB logs.
	request Request
	// albRuns are the repeated runs of fields of the worker's last ALB
	// access line (see albSplitCommon).
	albRuns albRuns
	// outcomesOnly is set when the Handler is an OutcomeHandler: a
	// Request that did not fail needs no Method, Path or Detail.
	outcomesOnly bool
	// accounted counts what the adapter reported (records kept or
	// filtered, skips, duplicates), so that the pipeline can tell a line
	// that gave nothing and count it as passed over (see accountFor).
	accounted int
	// lines is Options.lineAdapterSet, for adapters that read the lines an
	// envelope holds (Cloud Logging payloads); nil until first needed.
	lines []lineAdapter
	// payload is the line adapter that read the last payload, tried first.
	payload lineAdapter
}

func newEmitter(h Handler, opts *Options, report *InputReport, dedup *dedupSet) *Emitter {
	if opts == nil {
		opts = &Options{}
	}
	e := &Emitter{h: h, opts: opts, report: report, dedup: dedup}
	if c, ok := h.(*formatCounter); ok {
		h = c.Handler
	}
	_, e.outcomesOnly = h.(OutcomeHandler)
	return e
}

// Location is the time zone for log times written without one: the zone
// of the input's own zoned times when it has some, else Options.TZ.
func (e *Emitter) Location() *time.Location {
	if e.zone != nil {
		return e.zone
	}
	return e.opts.location()
}

// orderOnlyStep is how far apart the order-only requests of consecutive
// lines are timed: a millisecond keeps their order through correlation
// and puts a pasted few lines within one second of each other.
const orderOnlyStep = time.Millisecond

// orderOnlyAnchor is the time order-only requests count from: --now when
// given, else the time of reading.
func (e *Emitter) orderOnlyAnchor() time.Time {
	if !e.opts.TableNow.IsZero() {
		return e.opts.TableNow.UTC().Truncate(time.Second)
	}
	return e.opts.ReadAt.UTC().Truncate(time.Second)
}

// OrderOnlyTime is the time of a request with no time of its own on line
// of its input: the anchor, a step per line later.
func (e *Emitter) OrderOnlyTime(line int) time.Time {
	return e.orderOnlyAnchor().Add(time.Duration(line) * orderOnlyStep)
}

// Request reports a request outcome.
func (e *Emitter) Request(r *Request) {
	kind := KindRequestLog
	if r.ClientSide {
		kind = KindClientLog
	}
	if !e.keep(r.Time, kind) {
		return
	}
	if r.OrderOnly {
		e.report.OrderOnly++
	}
	e.h.Request(r)
}

// Lifecycle reports a lifecycle event.
func (e *Emitter) Lifecycle(l *Lifecycle) {
	if !e.keep(l.Time, lifecycleKind(l)) {
		return
	}
	e.h.Lifecycle(l)
}

// Config reports a configuration fact. Facts have no time and are never filtered.
func (e *Emitter) Config(c *Config) {
	e.accounted++
	e.report.Records++
	e.report.Kinds[KindObject].Records++
	e.h.Config(c)
}

// keep applies the time window and updates the statistics, the input's
// and those of its records of kind k.
func (e *Emitter) keep(t time.Time, k RecordKind) bool {
	e.accounted++
	if (!e.opts.Since.IsZero() && t.Before(e.opts.Since)) || (!e.opts.Until.IsZero() && !t.Before(e.opts.Until)) {
		e.report.Filtered++
		e.report.FilteredFirst, e.report.FilteredLast = widen(e.report.FilteredFirst, e.report.FilteredLast, t, t)
		return false
	}
	e.report.Records++
	e.report.Kinds[k].add(t)
	e.report.First, e.report.Last = widen(e.report.First, e.report.Last, t, t)
	return true
}

// widen returns the range [first, last] widened to hold [from, to]; a zero
// from (a record without a time) leaves it as it is.
func widen(first, last, from, to time.Time) (time.Time, time.Time) {
	if from.IsZero() {
		return first, last
	}
	if first.IsZero() || from.Before(first) {
		first = from
	}
	if to.After(last) {
		last = to
	}
	return first, last
}

// Skip counts a malformed line or element at o and keeps the first few reasons
// as warnings.
func (e *Emitter) Skip(o Origin, reason string) {
	e.accounted++
	e.report.Skipped++
	if len(e.report.skipSamples) < e.maxWarnings() {
		e.report.skipSamples = append(e.report.skipSamples, skipSample{origin: o, reason: reason})
	}
}

// Warn records a warning about the input as a whole.
func (e *Emitter) Warn(format string, args ...any) {
	e.report.Warnings = append(e.report.Warnings, fmt.Sprintf(format, args...))
}

// WarnOnce records a warning about the input unless one with the same key
// was already recorded for it.
func (e *Emitter) WarnOnce(key, format string, args ...any) {
	if e.warned[key] {
		return
	}
	if e.warned == nil {
		e.warned = make(map[string]bool)
	}
	e.warned[key] = true
	e.Warn(format, args...)
}

// Duplicate reports whether the entry identified by (logName, insertID) was
// already seen in any input of this run. Cloud Logging sinks and overlapping
// exports repeat entries; each must count once. An empty insertID is never a
// duplicate.
func (e *Emitter) Duplicate(logName, insertID string) bool {
	if insertID == "" || e.dedup == nil {
		return false
	}
	if e.dedup.seen(logName, insertID) {
		e.accounted++
		e.report.Duplicates++
		return true
	}
	return false
}

// accountFor counts a line or element that the adapter read without
// error as passed over when it reported nothing since the count was
// before: no line vanishes from the input's report.
func (e *Emitter) accountFor(before int) {
	if e.accounted == before {
		e.accounted++
		e.report.Passed++
	}
}

// lineAdapterSet returns the line adapters detection tries (see
// Options.lineAdapterSet), made once per worker.
func (e *Emitter) lineAdapterSet() []lineAdapter {
	if e.lines == nil {
		e.lines = e.opts.lineAdapterSet()
	}
	return e.lines
}

func (e *Emitter) maxWarnings() int {
	if e.opts.MaxWarnings > 0 {
		return e.opts.MaxWarnings
	}
	return 5
}

// dedupSet remembers 64-bit hashes of (logName, insertId) across inputs, in
// dedupShards shards that each have their lock, so that the workers of
// inputs read in parallel seldom wait for one another. Its memory grows by
// 11 to 22 bytes per entry that carries an insertId (see dedupShard).
type dedupSet struct {
	seed   maphash.Seed
	shards [dedupShards]dedupShard
}

// dedupShards is the number of shards of a dedupSet: a power of two, many
// more than the workers that may want one at once.
const dedupShards = 64

// dedupShardBits is log2(dedupShards): the bits of a key that pick its shard.
const dedupShardBits = 6

func newDedupSet() *dedupSet { return &dedupSet{seed: maphash.MakeSeed()} }

func (d *dedupSet) seen(logName, insertID string) bool {
	// Two one-shot hashes, one of them turned, cost less than streaming
	// both strings through a maphash.Hash.
	k := maphash.String(d.seed, insertID) ^ bits.RotateLeft64(maphash.String(d.seed, logName), 32)
	s := &d.shards[k&(dedupShards-1)]
	s.Lock()
	defer s.Unlock()
	return s.add(k)
}

// dedupShard is one shard of a dedupSet: a set of 64-bit keys in an
// open-addressing table with linear probing, where 0 marks a free slot. A
// Go map of the same keys took 1.5 times as long and allocated 1.2 times
// as much (BenchmarkDedupSet). The table doubles before it would be more than
// dedupMaxLoadNum/dedupMaxLoadDen full, so that it holds 8 bytes per slot
// and 4/3 to 8/3 slots per key.
type dedupShard struct {
	sync.Mutex
	slots []uint64
	n     int
}

// dedupMinSlots is the size of a shard's first table, a power of two: small,
// as most runs keep few keys in a shard, and doubled from there.
const dedupMinSlots = 16

// dedupMaxLoadNum/dedupMaxLoadDen is the share of a table's slots in use
// beyond which it doubles: with linear probing, a new key looks at 8.5
// slots on average at 3/4 full (Knuth, TAOCP vol. 3, 6.4), all but a few in
// the cache line of the first.
const (
	dedupMaxLoadNum = 3
	dedupMaxLoadDen = 4
)

// add adds k and reports whether it was there already. The key 0, which
// marks a free slot, is kept as 1: one more collision among 2^64 hashes.
func (s *dedupShard) add(k uint64) bool {
	if k == 0 {
		k = 1
	}
	if (s.n+1)*dedupMaxLoadDen > len(s.slots)*dedupMaxLoadNum {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	// The low bits picked the shard: the slot comes from the others.
	for i := k >> dedupShardBits & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return true
		case 0:
			s.slots[i] = k
			s.n++
			return false
		}
	}
}

// grow doubles the table (or makes the first one) and moves the keys into it.
func (s *dedupShard) grow() {
	old := s.slots
	s.slots = make([]uint64, max(2*len(old), dedupMinSlots))
	mask := uint64(len(s.slots) - 1)
	for _, k := range old {
		if k == 0 {
			continue
		}
		i := k >> dedupShardBits & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = k
	}
}

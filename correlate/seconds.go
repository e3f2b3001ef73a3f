package correlate

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/readygap/readygap/sources"
)

// chunkSeconds is how many seconds one chunk of the per-second store covers:
// an hour, so that a chunk is small next to the traffic that fills it
// (14.4 KB while it fills, 1.8 KB to 7.2 KB once packed).
const chunkSeconds = 3600

// chunk holds the request and success counts of every second of one hour.
// The rest of a second's outcomes (LB-generated failures, hidden retries)
// is rare and kept sparse beside them (see rare); application errors are
// what remains.
//
// An hour is filled dense: two counts of 16 bits a second, 14.4 KB. A
// second busier than that (65,536 requests) carries the rest into carries.
// Once filled (handed to a run's shared store, or frozen into a Dataset)
// it is packed: one count a second, in as few bits as the hour's busiest
// second needs (4, 8 or 16), and beside it the few seconds whose successes
// fall short of their requests. A week of logs held dense took 2.4 MB of a
// peak heap of about 20 MB; packed, 0.3 MB (a few requests a second).
type chunk struct {
	// counts are the dense counts; nil once packed.
	counts *denseCounts
	// carries holds, by second, how many times its total and its
	// successes passed 65,535, in either form.
	carries map[uint16]*[2]uint32
	// totals holds the packed request count of each second, in bits bits
	// (little-endian, the lower half of a byte first).
	totals []byte
	bits   uint8
	// short lists, by second, the packed seconds whose success count (its
	// low 16 bits) differs from their request count's: every other second
	// served all its requests.
	short []shortSecond
	// rare holds, by second, the rare outcomes of the seconds that had
	// any, in either form. A map of them by Unix second took 72 bytes a
	// second, 0.65 MB of the 9,000 seconds with failures of a week of ALB
	// logs; this takes 40.
	rare []rareCounts
}

// denseCounts are a chunk's counts while it is filled.
type denseCounts struct {
	total, ok [chunkSeconds]uint16
}

// shortSecond is a packed second with fewer successes than requests.
type shortSecond struct {
	i, ok uint16
}

// newChunk returns an empty chunk, dense, to fill.
func newChunk() *chunk { return &chunk{counts: new(denseCounts)} }

// carryUnit is what one carry of a chunk's counts is worth.
const carryUnit = math.MaxUint16 + 1

// addTotal and addOK count a request and a success in second i of a dense
// chunk.
func (c *chunk) addTotal(i int) {
	if c.counts.total[i] == math.MaxUint16 {
		c.carry(i, 0, 1)
		c.counts.total[i] = 0
		return
	}
	c.counts.total[i]++
}

func (c *chunk) addOK(i int) {
	if c.counts.ok[i] == math.MaxUint16 {
		c.carry(i, 1, 1)
		c.counts.ok[i] = 0
		return
	}
	c.counts.ok[i]++
}

// carry adds n carries to count k (0: total, 1: successes) of second i.
func (c *chunk) carry(i, k int, n uint32) {
	if c.carries == nil {
		c.carries = map[uint16]*[2]uint32{}
	}
	h := c.carries[uint16(i)]
	if h == nil {
		h = new([2]uint32)
		c.carries[uint16(i)] = h
	}
	h[k] += n
}

// total16 and ok16 return the low 16 bits of the request and success
// counts of second i, in either form.
func (c *chunk) total16(i int) uint16 {
	switch {
	case c.counts != nil:
		return c.counts.total[i]
	case c.bits == 4:
		return uint16(c.totals[i/2]>>(4*(i&1))) & 0xF
	case c.bits == 8:
		return uint16(c.totals[i])
	}
	return uint16(c.totals[2*i]) | uint16(c.totals[2*i+1])<<8
}

func (c *chunk) ok16(i int) uint16 {
	if c.counts != nil {
		return c.counts.ok[i]
	}
	if j, found := slices.BinarySearchFunc(c.short, i, func(s shortSecond, i int) int { return cmp.Compare(int(s.i), i) }); found {
		return c.short[j].ok
	}
	return c.total16(i)
}

// totalAt and okAt return the request and success counts of second i.
func (c *chunk) totalAt(i int) int { return int(c.total16(i)) + c.carried(i, 0) }
func (c *chunk) okAt(i int) int    { return int(c.ok16(i)) + c.carried(i, 1) }

// carried returns what the carries of count k of second i are worth.
func (c *chunk) carried(i, k int) int {
	if c.carries == nil {
		return 0
	}
	if h := c.carries[uint16(i)]; h != nil {
		return int(h[k]) * carryUnit
	}
	return 0
}

// has reports whether second i had a request.
func (c *chunk) has(i int) bool { return c.total16(i) != 0 || c.carried(i, 0) != 0 }

// addChunk adds the counts of o, keeping c's form.
func (c *chunk) addChunk(o *chunk) {
	packed := c.counts == nil
	if packed {
		c.unpack()
	}
	for i := range chunkSeconds {
		t, k := uint32(c.counts.total[i])+uint32(o.total16(i)), uint32(c.counts.ok[i])+uint32(o.ok16(i))
		c.counts.total[i], c.counts.ok[i] = uint16(t), uint16(k)
		if t >= carryUnit {
			c.carry(i, 0, 1)
		}
		if k >= carryUnit {
			c.carry(i, 1, 1)
		}
	}
	for i, h := range o.carries {
		c.carry(int(i), 0, h[0])
		c.carry(int(i), 1, h[1])
	}
	for k := range o.rare {
		c.sparse(int(o.rare[k].i)).add(&o.rare[k].sparseCounts)
	}
	if packed {
		c.pack()
	}
}

// packed returns a packed copy of c that shares nothing with it.
func (c *chunk) packed() *chunk {
	cp := &chunk{}
	for i, h := range c.carries {
		cp.carry(int(i), 0, h[0])
		cp.carry(int(i), 1, h[1])
	}
	cp.rare = clipped(c.rare)
	if c.counts == nil {
		cp.totals, cp.bits, cp.short = clipped(c.totals), c.bits, clipped(c.short)
		return cp
	}
	cp.counts = c.counts
	cp.pack()
	return cp
}

// pack turns a dense chunk into its packed form.
func (c *chunk) pack() {
	d := c.counts
	busiest := uint16(0)
	c.short = nil
	for i := range d.total {
		busiest = max(busiest, d.total[i])
		if d.ok[i] != d.total[i] {
			c.short = append(c.short, shortSecond{uint16(i), d.ok[i]})
		}
	}
	if cap(c.short) > len(c.short) {
		c.short = clipped(c.short)
	}
	if cap(c.rare) > len(c.rare) {
		c.rare = clipped(c.rare)
	}
	switch {
	case busiest <= packedNibble:
		c.bits, c.totals = 4, make([]byte, chunkSeconds/2)
		for i, t := range d.total {
			c.totals[i/2] |= byte(t) << (4 * (i & 1))
		}
	case busiest <= math.MaxUint8:
		c.bits, c.totals = 8, make([]byte, chunkSeconds)
		for i, t := range d.total {
			c.totals[i] = byte(t)
		}
	default:
		c.bits, c.totals = 16, make([]byte, 2*chunkSeconds)
		for i, t := range d.total {
			c.totals[2*i], c.totals[2*i+1] = byte(t), byte(t>>8)
		}
	}
	c.counts = nil
}

// clipped returns a copy of s without room to spare; nil for nil.
func clipped[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	out := make(S, len(s))
	copy(out, s)
	return out
}

// packedNibble is the most requests a second of an hour packed in 4 bits
// a second can have.
const packedNibble = 1<<4 - 1

// unpack turns a packed chunk back into its dense form.
func (c *chunk) unpack() {
	d := new(denseCounts)
	for i := range chunkSeconds {
		d.total[i], d.ok[i] = c.total16(i), c.ok16(i)
	}
	c.counts, c.totals, c.bits, c.short = d, nil, 0, nil
}

// sparseCounts are the rare outcomes of one second: LB-generated failures by
// kind and requests whose failed attempts a retry hid.
type sparseCounts struct {
	lbFailed [sources.FailureOther + 1]uint32
	hidden   uint32
}

// rareCounts are the rare outcomes of second i of a chunk.
type rareCounts struct {
	i uint16
	sparseCounts
}

// add adds the rare outcomes of o.
func (r *sparseCounts) add(o *sparseCounts) {
	for k, v := range o.lbFailed {
		r.lbFailed[k] += v
	}
	r.hidden += o.hidden
}

// sparse returns the rare outcomes of second i, adding them on first use;
// the pointer holds until the next call. Failures mostly come in time
// order: a second at or after the last one is found or added at the end.
func (c *chunk) sparse(i int) *sparseCounts {
	n := len(c.rare)
	if n > 0 && int(c.rare[n-1].i) == i {
		return &c.rare[n-1].sparseCounts
	}
	j := n
	if n > 0 && int(c.rare[n-1].i) > i {
		var found bool
		if j, found = slices.BinarySearchFunc(c.rare, i, compareRare); found {
			return &c.rare[j].sparseCounts
		}
	}
	c.rare = slices.Insert(c.rare, j, rareCounts{i: uint16(i)})
	return &c.rare[j].sparseCounts
}

// compareRare orders rare outcomes by their second.
func compareRare(r rareCounts, i int) int { return cmp.Compare(int(r.i), i) }

// rareAt returns the rare outcomes of second i, or nil.
func (c *chunk) rareAt(i int) *sparseCounts {
	if j, found := slices.BinarySearchFunc(c.rare, i, compareRare); found {
		return &c.rare[j].sparseCounts
	}
	return nil
}

// secondStore counts request outcomes per Unix second, allocating hour
// chunks only for hours that had requests: its size follows the hours with
// traffic and the seconds with failures, never the number of requests, and
// a stray record years away costs one chunk.
type secondStore struct {
	chunks map[int64]*chunk
	// lastHour and lastChunk cache the chunk of the previous request: logs
	// mostly arrive in time order.
	lastHour  int64
	lastChunk *chunk
	// shared, when set, is where the chunks go: the store then keeps only
	// the windowChunks hours it is filling and adds the others there.
	shared *sharedChunks
}

// windowChunks is how many hour chunks a store with a shared store keeps:
// the hour being filled and the one before (an object ends in the next
// hour, parallel inputs interleave).
const windowChunks = 2

// sharedChunks is the hour chunks of the stores of one run, for their
// size to follow the span once, not once per parse worker.
type sharedChunks struct {
	mu    sync.Mutex
	store secondStore
}

func newSecondStore() secondStore {
	return secondStore{chunks: map[int64]*chunk{}}
}

// hourOf splits a Unix second into its chunk and the index in it, rounding
// down for seconds before 1970.
func hourOf(sec int64) (hour int64, i int) {
	hour = sec / chunkSeconds
	if sec%chunkSeconds < 0 {
		hour--
	}
	return hour, int(sec - hour*chunkSeconds)
}

// chunkAt returns the chunk holding sec, allocating it on first use.
func (s *secondStore) chunkAt(sec int64) (*chunk, int) {
	hour, i := hourOf(sec)
	if s.lastChunk != nil && hour == s.lastHour {
		return s.lastChunk, i
	}
	c := s.chunks[hour]
	if c == nil {
		c = s.evict()
		s.chunks[hour] = c
	}
	s.lastHour, s.lastChunk = hour, c
	return c, i
}

// evict returns a zeroed chunk for a new hour: a new one, or, for a store
// with a shared store and a full window, the chunk of an hour other than
// the last one, after adding it to the shared store.
func (s *secondStore) evict() *chunk {
	if s.shared == nil || len(s.chunks) < windowChunks {
		return newChunk()
	}
	for hour, c := range s.chunks {
		if c == s.lastChunk {
			continue
		}
		s.shared.add(hour, c)
		delete(s.chunks, hour)
		// The shared store took a copy of the rare outcomes: let go of
		// their room, which an hour of failures grows to tens of KB.
		*c.counts, c.carries, c.rare = denseCounts{}, nil, nil
		return c
	}
	return newChunk()
}

// add adds the counts of one hour to the shared store, which keeps them
// packed.
func (sh *sharedChunks) add(hour int64, c *chunk) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if dst := sh.store.chunks[hour]; dst != nil {
		dst.addChunk(c)
		return
	}
	sh.store.chunks[hour] = c.packed()
}

// flush adds every chunk of s to its shared store, which it must have, and
// drops them.
func (s *secondStore) flush() {
	for hour, c := range s.chunks {
		s.shared.add(hour, c)
		delete(s.chunks, hour)
	}
	s.lastChunk = nil
}

// add folds o into s; o stays usable.
func (s *secondStore) add(o *secondStore) { s.fold(o, false) }

// take folds o into s and empties o: its hours that s lacks move over
// instead of being copied, so that a week's store is not held twice while
// a run's stores are merged.
func (s *secondStore) take(o *secondStore) { s.fold(o, true) }

// fold adds the counts of o to s, moving what s lacks when move is set.
func (s *secondStore) fold(o *secondStore, move bool) {
	for hour, oc := range o.chunks {
		switch c := s.chunks[hour]; {
		case c != nil:
			c.addChunk(oc)
		case move:
			s.chunks[hour] = oc
		default:
			s.chunks[hour] = oc.packed()
		}
	}
	s.lastChunk = nil
	if move {
		shared := o.shared
		*o = newSecondStore()
		o.shared = shared
	}
}

// seconds is the read-only form of a secondStore that a Dataset keeps: the
// chunks in time order, for lookups by binary search and visits in order.
type seconds struct {
	hours  []int64
	chunks []*chunk
	// first and last are the first and last second with a request.
	first, last int64
	any         bool
}

// freeze turns a filled secondStore into seconds.
func (s *secondStore) freeze() seconds {
	var f seconds
	f.hours = make([]int64, 0, len(s.chunks))
	for h := range s.chunks {
		f.hours = append(f.hours, h)
	}
	slices.Sort(f.hours)
	f.chunks = make([]*chunk, len(f.hours))
	for i, h := range f.hours {
		f.chunks[i] = s.chunks[h]
	}
	for i, c := range f.chunks {
		if c.counts != nil {
			c.pack()
		}
		for j := range chunkSeconds {
			if !c.has(j) {
				continue
			}
			sec := f.hours[i]*chunkSeconds + int64(j)
			if !f.any {
				f.first, f.any = sec, true
			}
			f.last = sec
		}
	}
	return f
}

// counts assembles the Counts of second i of chunk c, with its rare outcomes r.
func counts(c *chunk, i int, r *sparseCounts) Counts {
	n := Counts{Total: c.totalAt(i), OK: c.okAt(i)}
	failed := 0
	if r != nil {
		for k, v := range r.lbFailed {
			n.LBFailed[k] = int(v)
			failed += int(v)
		}
		n.Hidden = int(r.hidden)
	}
	n.AppErrors = n.Total - n.OK - failed
	return n
}

// At returns the outcome counts of one Unix second (zero when it had no
// request).
func (d *Dataset) At(sec int64) Counts {
	f := &d.seconds
	hour, i := hourOf(sec)
	k, found := slices.BinarySearch(f.hours, hour)
	if !found || !f.chunks[k].has(i) {
		return Counts{}
	}
	return counts(f.chunks[k], i, f.chunks[k].rareAt(i))
}

// Span returns the first and last second that had a request; ok is false
// when no input held requests.
func (d *Dataset) Span() (first, last int64, ok bool) {
	return d.seconds.first, d.seconds.last, d.seconds.any
}

// Each calls fn, in time order, for every second in [from, to] that had
// requests.
func (d *Dataset) Each(from, to int64, fn func(sec int64, c Counts)) {
	f := &d.seconds
	if from > to || !f.any {
		return
	}
	fromHour, _ := hourOf(from)
	k, _ := slices.BinarySearch(f.hours, fromHour)
	for ; k < len(f.hours); k++ {
		base := f.hours[k] * chunkSeconds
		if base > to {
			return
		}
		c := f.chunks[k]
		lo, hi := int(max(from-base, 0)), int(min(to-base, chunkSeconds-1))
		r, _ := slices.BinarySearchFunc(c.rare, lo, compareRare)
		for i := lo; i <= hi; i++ {
			if !c.has(i) {
				continue
			}
			for r < len(c.rare) && int(c.rare[r].i) < i {
				r++
			}
			var rare *sparseCounts
			if r < len(c.rare) && int(c.rare[r].i) == i {
				rare = &c.rare[r].sparseCounts
			}
			fn(base+int64(i), counts(c, i, rare))
		}
	}
}

// Sum returns the outcome counts of every second in [from, to] added up.
func (d *Dataset) Sum(from, to int64) Counts {
	var s Counts
	d.Each(from, to, func(_ int64, c Counts) {
		s.Total += c.Total
		s.OK += c.OK
		s.AppErrors += c.AppErrors
		s.Hidden += c.Hidden
		for k, v := range c.LBFailed {
			s.LBFailed[k] += v
		}
	})
	return s
}

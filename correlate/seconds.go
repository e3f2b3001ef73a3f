package correlate

import (
	"cmp"
	"slices"
	"sort"
	"sync"

	"github.com/readygap/readygap/sources"
)

// chunkSeconds is how many seconds one chunk of the per-second store covers:
// an hour, so that a chunk (8 bytes a second, 28.8 KB) is small next to the
// traffic that fills it and a span of days costs a few MB.
const chunkSeconds = 3600

// chunk holds the request and success counts of every second of one hour.
// The rest of a second's outcomes (LB-generated failures, hidden retries)
// is rare and kept sparse beside it; application errors are what remains.
type chunk struct {
	total, ok [chunkSeconds]uint32
}

// sparseCounts are the rare outcomes of one second: LB-generated failures by
// kind and requests whose failed attempts a retry hid.
type sparseCounts struct {
	lbFailed [sources.FailureOther + 1]uint32
	hidden   uint32
}

// secondStore counts request outcomes per Unix second, allocating hour
// chunks only for hours that had requests: its size follows the hours with
// traffic and the seconds with failures, never the number of requests, and
// a stray record years away costs one chunk.
type secondStore struct {
	chunks map[int64]*chunk
	rare   map[int64]*sparseCounts
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
	return secondStore{chunks: map[int64]*chunk{}, rare: map[int64]*sparseCounts{}}
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
		return &chunk{}
	}
	for hour, c := range s.chunks {
		if c == s.lastChunk {
			continue
		}
		s.shared.add(hour, c)
		delete(s.chunks, hour)
		*c = chunk{}
		return c
	}
	return &chunk{}
}

// add adds the counts of one hour to the shared store.
func (sh *sharedChunks) add(hour int64, c *chunk) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.store.chunks[hour] == nil {
		cp := *c
		sh.store.chunks[hour] = &cp
		return
	}
	dst := sh.store.chunks[hour]
	for i := range dst.total {
		dst.total[i] += c.total[i]
		dst.ok[i] += c.ok[i]
	}
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

// sparse returns the rare outcomes of sec, allocating them on first use.
func (s *secondStore) sparse(sec int64) *sparseCounts {
	r := s.rare[sec]
	if r == nil {
		r = &sparseCounts{}
		s.rare[sec] = r
	}
	return r
}

// add folds o into s.
func (s *secondStore) add(o *secondStore) {
	for hour, oc := range o.chunks {
		c := s.chunks[hour]
		if c == nil {
			cp := *oc // o stays usable
			s.chunks[hour] = &cp
			continue
		}
		for i := range c.total {
			c.total[i] += oc.total[i]
			c.ok[i] += oc.ok[i]
		}
	}
	for sec, or := range o.rare {
		r := s.rare[sec]
		if r == nil {
			cp := *or
			s.rare[sec] = &cp
			continue
		}
		for k, v := range or.lbFailed {
			r.lbFailed[k] += v
		}
		r.hidden += or.hidden
	}
	s.lastChunk = nil
}

// seconds is the read-only form of a secondStore that a Dataset keeps: the
// chunks and the rare seconds in time order, for lookups by binary search
// and visits in order.
type seconds struct {
	hours  []int64
	chunks []*chunk
	rare   []rareSecond
	// first and last are the first and last second with a request.
	first, last int64
	any         bool
}

type rareSecond struct {
	sec int64
	sparseCounts
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
	f.rare = make([]rareSecond, 0, len(s.rare))
	for sec, r := range s.rare {
		f.rare = append(f.rare, rareSecond{sec, *r})
	}
	slices.SortFunc(f.rare, func(a, b rareSecond) int { return cmp.Compare(a.sec, b.sec) })
	for i, c := range f.chunks {
		for j, n := range c.total {
			if n == 0 {
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
	n := Counts{Total: int(c.total[i]), OK: int(c.ok[i])}
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

// rareAt returns the rare outcomes of sec, or nil.
func (f *seconds) rareAt(sec int64) *sparseCounts {
	i := sort.Search(len(f.rare), func(i int) bool { return f.rare[i].sec >= sec })
	if i < len(f.rare) && f.rare[i].sec == sec {
		return &f.rare[i].sparseCounts
	}
	return nil
}

// At returns the outcome counts of one Unix second (zero when it had no
// request).
func (d *Dataset) At(sec int64) Counts {
	f := &d.seconds
	hour, i := hourOf(sec)
	k, found := slices.BinarySearch(f.hours, hour)
	if !found || f.chunks[k].total[i] == 0 {
		return Counts{}
	}
	return counts(f.chunks[k], i, f.rareAt(sec))
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
	r := sort.Search(len(f.rare), func(i int) bool { return f.rare[i].sec >= from })
	for ; k < len(f.hours); k++ {
		base := f.hours[k] * chunkSeconds
		if base > to {
			return
		}
		c := f.chunks[k]
		lo, hi := int(max(from-base, 0)), int(min(to-base, chunkSeconds-1))
		for i := lo; i <= hi; i++ {
			if c.total[i] == 0 {
				continue
			}
			sec := base + int64(i)
			for r < len(f.rare) && f.rare[r].sec < sec {
				r++
			}
			var rare *sparseCounts
			if r < len(f.rare) && f.rare[r].sec == sec {
				rare = &f.rare[r].sparseCounts
			}
			fn(sec, counts(c, i, rare))
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

// BusiestSpan returns the first and last second with requests of the
// stretch of at most maxSeconds (whole hours) that holds the most requests;
// the whole Span when it is that short. A drawing of every second uses it so
// that a few records far from the rest (a year-1 or year-9999 time, a clock
// ten years off) never size it: they are one request against the traffic.
func (d *Dataset) BusiestSpan(maxSeconds int64) (first, last int64, ok bool) {
	f := &d.seconds
	if !f.any || f.last-f.first < maxSeconds {
		return f.first, f.last, f.any
	}
	hours := max(maxSeconds/chunkSeconds, 1)
	perHour := make([]int, len(f.hours))
	for i, c := range f.chunks {
		for _, n := range c.total {
			perHour[i] += int(n)
		}
	}
	// Slide a window of hours over the chunks (sorted by hour).
	best, bestStart, sum, lo := -1, 0, 0, 0
	for hi := range f.hours {
		sum += perHour[hi]
		for f.hours[hi]-f.hours[lo] >= hours {
			sum -= perHour[lo]
			lo++
		}
		if sum > best {
			best, bestStart = sum, lo
		}
	}
	from := f.hours[bestStart] * chunkSeconds
	to := from + hours*chunkSeconds - 1
	first, last = to, from
	d.Each(from, to, func(sec int64, _ Counts) {
		first, last = min(first, sec), max(last, sec)
	})
	return first, last, true
}

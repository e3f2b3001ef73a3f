package correlate

import "strings"

// lbServed records, per load balancer (or proxy upstream) name, the seconds
// in which a backend answered a request through it. It tells a load
// balancer that had no backend at all (nothing served through it in those
// seconds) from one that refused a few requests while its backends served
// the rest. A second is one bit: an hour of one load balancer is 450 bytes,
// a week 76 KB.
type lbServed struct {
	byLB map[string]*servedHours
	// last and lastLB cache the entry of the name looked up last: the
	// records of one log come through one load balancer.
	last   *servedHours
	lastLB string
}

// hourWords is how many 64-bit words hold the seconds of an hour.
const hourWords = (chunkSeconds + 63) / 64

// servedHours holds one bit per second, by hour (Unix seconds / 3600).
type servedHours map[int64]*[hourWords]uint64

// add records that a backend answered through lb in second sec.
func (s *lbServed) add(lb string, sec int64) {
	h := s.last
	if h == nil || lb != s.lastLB {
		if s.byLB == nil {
			s.byLB = map[string]*servedHours{}
		}
		if h = s.byLB[lb]; h == nil {
			lb = strings.Clone(lb) // the adapter's string aliases its buffer
			h = &servedHours{}
			s.byLB[lb] = h
		}
		s.last, s.lastLB = h, lb
	}
	hour, i := hourOf(sec)
	bits := (*h)[hour]
	if bits == nil {
		bits = new([hourWords]uint64)
		(*h)[hour] = bits
	}
	bits[i/64] |= 1 << (i % 64)
}

// merge adds what o recorded.
func (s *lbServed) merge(o *lbServed) {
	for lb, oh := range o.byLB {
		if s.byLB == nil {
			s.byLB = map[string]*servedHours{}
		}
		h := s.byLB[lb]
		if h == nil {
			h = &servedHours{}
			s.byLB[lb] = h
		}
		for hour, ob := range *oh {
			bits := (*h)[hour]
			if bits == nil {
				bits = new([hourWords]uint64)
				(*h)[hour] = bits
			}
			for k := range bits {
				bits[k] |= ob[k]
			}
		}
	}
}

// has reports whether a backend answered through lb in second sec.
func (s *lbServed) has(lb string, sec int64) bool {
	h := s.byLB[lb]
	if h == nil {
		return false
	}
	hour, i := hourOf(sec)
	bits := (*h)[hour]
	return bits != nil && bits[i/64]&(1<<(i%64)) != 0
}

// ServedThrough reports whether a backend answered a request through the
// load balancer or proxy upstream named lb (sources.Request.LB) in the
// Unix second sec.
func (d *Dataset) ServedThrough(lb string, sec int64) bool { return d.lbServed.has(lb, sec) }

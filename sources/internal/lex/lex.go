// Package lex holds the low-level field parsers every format adapter shares:
// decimal numbers, calendar dates, RFC 3339 times, and IP addresses with or
// without a port. Each parser is written once, reads []byte without
// allocating on the common path, and is strict: a value it accepts is a
// value the format's producer could have written.
package lex

import (
	"net/netip"
	"time"
)

// maxDigits bounds the digits Digits accepts, so that the value fits an int
// on every platform Go supports (10^18 < 2^63).
const maxDigits = 18

// Digits parses b, 1 to 18 ASCII digits and nothing else, as a
// non-negative integer.
func Digits(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > maxDigits {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// FixedDigits parses b as Digits does and clears *ok when b is not a
// number, so that the fields of a time stamp can be read in a row and
// checked once.
func FixedDigits(b []byte, ok *bool) int {
	n, good := Digits(b)
	if !good {
		*ok = false
	}
	return n
}

// Port parses a TCP or UDP port number: 1 to 5 digits, at most 65535,
// without a leading zero (a lone "0" is port 0).
func Port(b []byte) (uint16, bool) {
	if len(b) == 0 || len(b) > 5 || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	n, ok := Digits(b)
	if !ok || n > 65535 {
		return 0, false
	}
	return uint16(n), true
}

// IsDecimal reports whether b is a non-negative decimal number such as
// 0.004, 12 or 3.: digits, at most one dot, at least one digit.
func IsDecimal(b []byte) bool {
	digits, dot := 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// Seconds parses a decimal number of seconds such as 0.004 or 12.5 (as
// IsDecimal accepts it) into a Duration, keeping nanoseconds and dropping
// further digits. ok is false for anything else and for values past about
// 292 years.
func Seconds(b []byte) (time.Duration, bool) {
	if !IsDecimal(b) {
		return 0, false
	}
	var whole int64
	i := 0
	for ; i < len(b) && b[i] != '.'; i++ {
		if i == 10 { // 10^10 s is 317 years, past Duration's range
			return 0, false
		}
		whole = whole*10 + int64(b[i]-'0')
	}
	var nsec int64
	if i < len(b) {
		scale := int64(100_000_000)
		for _, c := range b[i+1:] {
			nsec += int64(c-'0') * scale
			scale /= 10
		}
	}
	return time.Duration(whole)*time.Second + time.Duration(nsec), true
}

// DaysIn returns the number of days of month (1 to 12) in year of the
// proleptic Gregorian calendar.
func DaysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ValidDate reports whether year-month-day is a calendar date (1 ≤ year ≤ 9999).
func ValidDate(year, month, day int) bool {
	return year >= 1 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= DaysIn(year, month)
}

// ValidClock reports whether hour:minute:second is a time of day; second 60
// is not (see ScanRFC3339 for leap seconds).
func ValidClock(hour, minute, second int) bool {
	return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59
}

// daysSinceEpoch counts the days from 1970-01-01 to a valid date (Howard
// Hinnant's days_from_civil): what time.Date computes, without its
// normalisation and zone lookup.
func daysSinceEpoch(year, month, day int) int64 {
	if month <= 2 {
		year--
	}
	era := year / 400 // year ≥ 0 here: ValidDate dates start at year 1
	yoe := year - era*400
	doy := (153*((month+9)%12)+2)/5 + day - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// UTC returns the time of a valid date and clock in UTC, shifted back by
// offset (the zone's offset east of UTC), without time.Date's cost.
func UTC(year, month, day, hour, minute, second, nsec int, offset time.Duration) time.Time {
	secs := daysSinceEpoch(year, month, day)*86400 + int64(hour*3600+minute*60+second)
	return time.Unix(secs, int64(nsec)).Add(-offset).UTC()
}

// lastNanosecond is what a leap second becomes: the last representable
// instant of the second before it.
const lastNanosecond = time.Second - 1

// Time returns, in UTC, the instant of a local date and clock written at
// offset east of UTC. It validates both: the date must exist (no
// 2024-02-31), and second 60 is accepted only where a leap second can be,
// at 23:59:60 UTC on the last day of a month, read as the last nanosecond
// of 23:59:59, which keeps records in order.
func Time(year, month, day, hour, minute, second, nsec int, offset time.Duration) (time.Time, bool) {
	leap := second == 60
	if leap {
		second = 59
	}
	if !ValidDate(year, month, day) || !ValidClock(hour, minute, second) || nsec < 0 || nsec >= int(time.Second) {
		return time.Time{}, false
	}
	t := UTC(year, month, day, hour, minute, second, nsec, offset)
	if leap {
		next := t.Truncate(time.Second).Add(time.Second) // the instant after the leap second
		if next.Hour() != 0 || next.Minute() != 0 || next.Second() != 0 || next.Day() != 1 {
			return time.Time{}, false
		}
		t = next.Add(-time.Second + lastNanosecond)
	}
	return t, true
}

// ScanRFC3339 reads an RFC 3339 date-time at the start of b:
// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±hh:mm)`, with `t` or `T`, any number of
// fraction digits (nanoseconds are kept, further digits dropped). It returns
// the time in UTC and the number of bytes read. Dates and leap seconds are
// checked as Time does. It does not allocate.
func ScanRFC3339(b []byte) (t time.Time, n int, ok bool) {
	if len(b) < len("2006-01-02T15:04:05Z") || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't') || b[13] != ':' || b[16] != ':' {
		return time.Time{}, 0, false
	}
	year, ok1 := Digits(b[0:4])
	month, ok2 := Digits(b[5:7])
	day, ok3 := Digits(b[8:10])
	hour, ok4 := Digits(b[11:13])
	minute, ok5 := Digits(b[14:16])
	sec, ok6 := Digits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return time.Time{}, 0, false
	}
	i, nsec := 19, 0
	if b[i] == '.' {
		var digits int
		if nsec, digits = Fraction(b[i+1:]); digits == 0 {
			return time.Time{}, 0, false
		}
		i += 1 + digits
	}
	offset, zn, ok := zone(b[i:])
	if !ok {
		return time.Time{}, 0, false
	}
	t, ok = Time(year, month, day, hour, minute, sec, nsec, offset)
	return t, i + zn, ok
}

// ParseRFC3339 parses b, which must be exactly one RFC 3339 date-time as
// ScanRFC3339 reads it.
func ParseRFC3339(b []byte) (time.Time, bool) {
	t, n, ok := ScanRFC3339(b)
	return t, ok && n == len(b)
}

// Fraction reads the digits at the start of b as a fraction of a second. It
// returns nanoseconds (digits past the ninth are dropped) and how many
// digits it read (0 when b does not start with a digit). The digits are
// read as a whole number, scaled once at the end: dividing a scale by ten
// at each digit took about 1.5 times as long on fractions like ALB's.
func Fraction(b []byte) (nsec, digits int) {
	for digits < len(b) && b[digits]-'0' <= 9 {
		if digits < len(fractionScale)-1 {
			nsec = nsec*10 + int(b[digits]-'0')
		}
		digits++
	}
	if digits < len(fractionScale)-1 {
		nsec *= fractionScale[digits]
	}
	return nsec, digits
}

// fractionScale[n] turns a fraction of n digits into nanoseconds.
var fractionScale = [...]int{1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 1e2, 1e1, 1}

// zone reads an RFC 3339 zone, Z or ±hh:mm, at the start of b.
func zone(b []byte) (offset time.Duration, n int, ok bool) {
	if len(b) > 0 && (b[0] == 'Z' || b[0] == 'z') {
		return 0, 1, true
	}
	if len(b) < 6 || (b[0] != '+' && b[0] != '-') || b[3] != ':' {
		return 0, 0, false
	}
	hh, ok1 := Digits(b[1:3])
	mm, ok2 := Digits(b[4:6])
	if !ok1 || !ok2 || hh > 23 || mm > 59 {
		return 0, 0, false
	}
	offset = time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute
	if b[0] == '-' {
		offset = -offset
	}
	return offset, 6, true
}

// ParseAddr parses an IPv4 address in dotted decimal (four fields of 1 to 3
// digits, each at most 255, without leading zeros: 010.0.0.1 is refused, as
// inet_pton and netip refuse it) or an IPv6 address (without brackets or
// zone). IPv4 is read without allocating.
func ParseAddr(b []byte) (netip.Addr, bool) {
	if a, ok := parseIPv4(b); ok {
		return a, true
	}
	for _, c := range b {
		if c == ':' {
			a, err := netip.ParseAddr(string(b))
			return a, err == nil && a.Is6() && a.Zone() == ""
		}
	}
	return netip.Addr{}, false
}

// parseIPv4 parses a dotted-decimal IPv4 address strictly.
func parseIPv4(b []byte) (netip.Addr, bool) {
	var ip [4]byte
	i := 0
	for k := range ip {
		start := i
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 3 {
			n = n*10 + int(b[i]-'0')
			i++
		}
		digits := i - start
		if digits == 0 || n > 255 || (digits > 1 && b[start] == '0') {
			return netip.Addr{}, false
		}
		ip[k] = byte(n)
		if k < 3 {
			if i >= len(b) || b[i] != '.' {
				return netip.Addr{}, false
			}
			i++
		}
	}
	if i != len(b) {
		return netip.Addr{}, false
	}
	return netip.AddrFrom4(ip), true
}

// ParseAddrPort parses `a.b.c.d:port` or `[ipv6]:port` strictly (see
// ParseAddr and Port).
func ParseAddrPort(b []byte) (netip.AddrPort, bool) {
	if ap, ok := parseIPv4Port(b); ok {
		return ap, true
	}
	if len(b) > 0 && b[0] == '[' {
		end := indexByte(b, ']')
		if end < 0 || end+1 >= len(b) || b[end+1] != ':' {
			return netip.AddrPort{}, false
		}
		a, ok := ParseAddr(b[1:end])
		if !ok || !a.Is6() {
			return netip.AddrPort{}, false
		}
		p, ok := Port(b[end+2:])
		return netip.AddrPortFrom(a, p), ok
	}
	colon := lastIndexByte(b, ':')
	if colon < 0 {
		return netip.AddrPort{}, false
	}
	a, ok := parseIPv4(b[:colon])
	if !ok {
		return netip.AddrPort{}, false
	}
	p, ok := Port(b[colon+1:])
	return netip.AddrPortFrom(a, p), ok
}

// parseIPv4Port reads `a.b.c.d:port` in one pass, the common case of
// ParseAddrPort: each field of 1 to 3 digits, at most 255 and without a
// leading zero, then a Port. It reports false for anything else, which
// ParseAddrPort then reads the general way.
func parseIPv4Port(b []byte) (netip.AddrPort, bool) {
	var ip [4]byte
	i := 0
	for k := range ip {
		if i >= len(b) || b[i]-'0' > 9 {
			return netip.AddrPort{}, false
		}
		n := uint(b[i] - '0')
		i++
		for digits := 1; i < len(b) && b[i]-'0' <= 9; digits++ {
			if digits == 3 || n == 0 {
				return netip.AddrPort{}, false
			}
			n = n*10 + uint(b[i]-'0')
			i++
		}
		if n > 255 {
			return netip.AddrPort{}, false
		}
		ip[k] = byte(n)
		sep := byte('.')
		if k == len(ip)-1 {
			sep = ':'
		}
		if i >= len(b) || b[i] != sep {
			return netip.AddrPort{}, false
		}
		i++
	}
	p, ok := Port(b[i:])
	if !ok {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(netip.AddrFrom4(ip), p), true
}

// ParseAddrOptPort parses an address with or without a port: `a.b.c.d`,
// `a.b.c.d:port`, a bare IPv6 address, or `[ipv6]:port`. Without a port the
// result's port is 0.
func ParseAddrOptPort(b []byte) (netip.AddrPort, bool) {
	if ap, ok := ParseAddrPort(b); ok {
		return ap, true
	}
	if a, ok := ParseAddr(b); ok {
		return netip.AddrPortFrom(a, 0), true
	}
	return netip.AddrPort{}, false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// clockPrefix is the length of the date and clock of an RFC 3339 time,
// "2006-01-02T15:04:05": what the lines of one second share.
const clockPrefix = len("2006-01-02T15:04:05")

// Clock remembers the Unix second of the last RFC 3339 time in UTC it
// parsed, so that the many lines of one second parse their date and clock
// once: the next time with the same 19 bytes only reads its fraction. A
// Clock serves one goroutine; its zero value is ready to use.
type Clock struct {
	prefix [clockPrefix]byte
	sec    int64
	valid  bool
}

// ParseRFC3339 parses b as ParseRFC3339 does, with the same result.
func (c *Clock) ParseRFC3339(b []byte) (time.Time, bool) {
	if c.valid && len(b) > clockPrefix && string(b[:clockPrefix]) == string(c.prefix[:]) {
		rest, nsec := b[clockPrefix:], 0
		if rest[0] == '.' {
			var digits int
			if nsec, digits = Fraction(rest[1:]); digits == 0 {
				return time.Time{}, false
			}
			rest = rest[1+digits:]
		}
		if len(rest) == 1 && (rest[0] == 'Z' || rest[0] == 'z') {
			return time.Unix(c.sec, int64(nsec)).UTC(), true
		}
	}
	t, ok := ParseRFC3339(b)
	// Only a UTC time whose second is not a leap second is remembered: its
	// prefix then names one Unix second.
	if ok && (b[len(b)-1] == 'Z' || b[len(b)-1] == 'z') && string(b[17:19]) != "60" {
		copy(c.prefix[:], b)
		c.sec, c.valid = t.Unix(), true
	}
	return t, ok
}

// maxStamp is the longest time stamp a Stamp remembers.
const maxStamp = 32

// Stamp remembers the last time stamp a worker parsed, with the instant and
// the zone offset it gave, for formats whose stamps end at the second
// (nginx's $time_local): the lines of one second repeat it byte for byte.
// Its zero value, and a nil *Stamp, remember nothing.
type Stamp struct {
	key    [maxStamp]byte
	n      int
	t      time.Time
	offset time.Duration
}

// Get returns what b was parsed to when it is the stamp last remembered.
func (s *Stamp) Get(b []byte) (t time.Time, offset time.Duration, ok bool) {
	if s == nil || s.n == 0 || len(b) != s.n || string(b) != string(s.key[:s.n]) {
		return time.Time{}, 0, false
	}
	return s.t, s.offset, true
}

// Put remembers that b parses to t at offset; a stamp longer than maxStamp
// is not remembered.
func (s *Stamp) Put(b []byte, t time.Time, offset time.Duration) {
	if s == nil || len(b) == 0 || len(b) > maxStamp {
		return
	}
	s.n = copy(s.key[:], b)
	s.t, s.offset = t, offset
}

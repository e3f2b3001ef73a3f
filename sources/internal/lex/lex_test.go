package lex

import (
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestDigits(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "7": 7, "0042": 42, "123456789012345678": 123456789012345678} {
		if got, ok := Digits([]byte(in)); !ok || got != want {
			t.Errorf("Digits(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5", "12a", " 1", "1234567890123456789"} {
		if got, ok := Digits([]byte(in)); ok {
			t.Errorf("Digits(%q) = %d, accepted", in, got)
		}
	}
}

func TestPort(t *testing.T) {
	for in, want := range map[string]uint16{"0": 0, "80": 80, "65535": 65535} {
		if got, ok := Port([]byte(in)); !ok || got != want {
			t.Errorf("Port(%q) = %d, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "65536", "080", "-1", "123456"} {
		if _, ok := Port([]byte(in)); ok {
			t.Errorf("Port(%q) accepted", in)
		}
	}
}

func TestSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"0": 0, "0.004": 4 * time.Millisecond, "12.5": 12500 * time.Millisecond,
		"3.": 3 * time.Second, ".5": 500 * time.Millisecond, "0.0000000019": 1} {
		if got, ok := Seconds([]byte(in)); !ok || got != want {
			t.Errorf("Seconds(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", ".", "-1", "1.2.3", "1e3", "12345678901"} {
		if _, ok := Seconds([]byte(in)); ok {
			t.Errorf("Seconds(%q) accepted", in)
		}
	}
}

func TestValidDate(t *testing.T) {
	for _, d := range [][3]int{{2024, 2, 29}, {2000, 2, 29}, {2023, 12, 31}, {1, 1, 1}, {9999, 12, 31}} {
		if !ValidDate(d[0], d[1], d[2]) {
			t.Errorf("%v refused", d)
		}
	}
	for _, d := range [][3]int{{2023, 2, 29}, {1900, 2, 29}, {2024, 2, 31}, {2024, 4, 31}, {2024, 13, 1}, {2024, 0, 1}, {2024, 1, 0}, {0, 1, 1}, {10000, 1, 1}} {
		if ValidDate(d[0], d[1], d[2]) {
			t.Errorf("%v accepted", d)
		}
	}
}

func TestScanRFC3339(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2024-05-01T12:00:00Z":                time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01t12:00:00z":                time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01T12:00:00.5Z":              time.Date(2024, 5, 1, 12, 0, 0, 500_000_000, time.UTC),
		"2024-05-01T12:00:00.123456789123Z":   time.Date(2024, 5, 1, 12, 0, 0, 123456789, time.UTC),
		"2024-05-01T14:30:00+02:30":           time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"2024-05-01T04:00:00-08:00":           time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC),
		"0001-01-01T00:00:01Z":                time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		"9999-12-31T23:59:59.999999999Z":      time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		"2016-12-31T23:59:60Z":                time.Date(2016, 12, 31, 23, 59, 59, 999999999, time.UTC),
		"2017-01-01T08:59:60+09:00":           time.Date(2016, 12, 31, 23, 59, 59, 999999999, time.UTC),
		"2024-02-29T00:00:00Z":                time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		"1970-01-01T00:00:00Z":                time.Unix(0, 0).UTC(),
		"1969-12-31T23:59:59.25Z":             time.Unix(-1, 250_000_000).UTC(),
		"2024-05-01T12:00:00.000000001+00:00": time.Date(2024, 5, 1, 12, 0, 0, 1, time.UTC),
	} {
		got, ok := ParseRFC3339([]byte(in))
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("%s: got %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{
		"2024-02-31T00:00:00Z", "2023-02-29T00:00:00Z", "2024-05-01T24:00:00Z", "2024-05-01T12:60:00Z",
		"2024-05-01T12:00:60Z", // a leap second only exists at 23:59:60 UTC at the end of a month
		"2016-12-30T23:59:60Z", "2024-05-01T12:00:00", "2024-05-01T12:00:00.Z", "2024-05-01 12:00:00Z",
		"2024-05-01T12:00:00+24:00", "2024-05-01T12:00:00+0200", "2024-5-01T12:00:00Z", "x024-05-01T12:00:00Z",
		"0000-01-01T00:00:00Z", "2024-05-01T12:00:00Zjunk",
	} {
		if got, ok := ParseRFC3339([]byte(in)); ok {
			t.Errorf("%s accepted as %v", in, got)
		}
	}
	if _, n, ok := ScanRFC3339([]byte("2024-05-01T12:00:00.25Z stdout F hello")); !ok || n != 23 {
		t.Errorf("scan prefix: n=%d ok=%v", n, ok)
	}
}

func TestParseAddr(t *testing.T) {
	for _, in := range []string{"10.0.0.1", "0.0.0.0", "255.255.255.255", "2001:db8::1", "::1", "fe80::202:b3ff:fe1e:8329"} {
		got, ok := ParseAddr([]byte(in))
		if !ok || got != netip.MustParseAddr(in) {
			t.Errorf("ParseAddr(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"010.0.0.1", "10.0.0.256", "10.0.0", "10.0.0.1.2", "10.0.0.1 ", "", "1.2.3.04", "fe80::1%eth0", "[::1]", "::ffff:1.2.3.04"} {
		if got, ok := ParseAddr([]byte(in)); ok {
			t.Errorf("ParseAddr(%q) accepted as %v", in, got)
		}
	}
}

func TestParseAddrPort(t *testing.T) {
	for _, in := range []string{"10.0.0.1:80", "10.0.0.1:0", "[2001:db8::1]:443", "[::1]:65535"} {
		got, ok := ParseAddrPort([]byte(in))
		if !ok || got != netip.MustParseAddrPort(in) {
			t.Errorf("ParseAddrPort(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"010.0.0.1:80", "10.0.0.1", "10.0.0.1:", "10.0.0.1:65536", "10.0.0.1:080", "2001:db8::1:443", "[2001:db8::1]", "[10.0.0.1]:80", "[2001:db8::1]443", "-"} {
		if got, ok := ParseAddrPort([]byte(in)); ok {
			t.Errorf("ParseAddrPort(%q) accepted as %v", in, got)
		}
	}
	for in, want := range map[string]string{"10.0.0.1": "10.0.0.1:0", "10.0.0.1:8080": "10.0.0.1:8080", "FE80::0202:B3FF:FE1E:8329": "[fe80::202:b3ff:fe1e:8329]:0", "[2001:db8::1]:443": "[2001:db8::1]:443"} {
		got, ok := ParseAddrOptPort([]byte(in))
		if !ok || got.String() != want {
			t.Errorf("ParseAddrOptPort(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
}

// FuzzScanRFC3339 checks the parser against the standard library: whatever
// it accepts (but leap seconds) time.Parse reads as the same instant, and
// it never reads past its input.
func FuzzScanRFC3339(f *testing.F) {
	for _, s := range []string{"2024-05-01T12:00:00Z", "2024-05-01T12:00:00.123+02:00", "2016-12-31T23:59:60Z", "2024-02-31T00:00:00Z", "9999-12-31T23:59:59.999999999-23:59"} {
		f.Add(s)
	}
	var clock Clock // carried from input to input, as a worker carries it from line to line
	f.Fuzz(func(t *testing.T, s string) {
		ct, cok := clock.ParseRFC3339([]byte(s))
		if pt, pok := ParseRFC3339([]byte(s)); cok != pok || !ct.Equal(pt) {
			t.Fatalf("%q: Clock says %v %v, ParseRFC3339 %v %v", s, ct, cok, pt, pok)
		}
		got, n, ok := ScanRFC3339([]byte(s))
		if !ok {
			return
		}
		if n > len(s) {
			t.Fatalf("read %d of %d bytes", n, len(s))
		}
		if s[17:19] == "60" {
			return
		}
		want, err := time.Parse(time.RFC3339Nano, s[:n])
		if err != nil {
			// The standard library refuses lower-case t/z and more than nine fraction digits.
			return
		}
		if !got.Equal(want) {
			t.Fatalf("%q: %v, time.Parse says %v", s[:n], got, want)
		}
	})
}

// FuzzParseAddrPort checks the address parsers against net/netip.
func FuzzParseAddrPort(f *testing.F) {
	for _, s := range []string{"10.0.0.1:80", "[2001:db8::1]:443", "010.0.0.1:80", "10.0.0.1", "::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ap, ok := ParseAddrPort([]byte(s)); ok {
			want, err := netip.ParseAddrPort(s)
			if err != nil || want != ap {
				t.Fatalf("%q: %v, netip says %v %v", s, ap, want, err)
			}
		}
		if a, ok := ParseAddr([]byte(s)); ok {
			want, err := netip.ParseAddr(s)
			if err != nil || want != a {
				t.Fatalf("%q: %v, netip says %v %v", s, a, want, err)
			}
		}
	})
}

// TestClockMatchesParseRFC3339 checks that a Clock answers as
// ParseRFC3339 does, whatever time it parsed before: the same second with
// other fractions, zones, leap seconds, and malformed rests.
func TestClockMatchesParseRFC3339(t *testing.T) {
	times := []string{
		"2026-03-10T12:00:00.004308Z", "2026-03-10T12:00:00Z", "2026-03-10T12:00:00.5Z", "2026-03-10T12:00:00.123456789123z",
		"2026-03-10T12:00:00.Z", "2026-03-10T12:00:00.1", "2026-03-10T12:00:00.1Zx", "2026-03-10T12:00:00+01:00",
		"2026-03-10T12:00:00.25-00:30", "2026-03-10T12:00:01.000001Z", "2026-03-10t12:00:00Z", "2016-12-31T23:59:60Z",
		"2016-12-31T23:59:60.5Z", "2026-03-10T23:59:60Z", "2026-02-30T12:00:00Z", "2026-03-10T12:00:00", "",
	}
	for _, prev := range times {
		for _, s := range times {
			var c Clock
			c.ParseRFC3339([]byte(prev))
			got, gotOK := c.ParseRFC3339([]byte(s))
			want, wantOK := ParseRFC3339([]byte(s))
			if gotOK != wantOK || !got.Equal(want) || got.Location() != want.Location() {
				t.Errorf("after %q, %q: %v %v, want %v %v", prev, s, got, gotOK, want, wantOK)
			}
		}
	}
}

// TestStamp checks that a Stamp answers only for the stamp it remembers,
// byte for byte, and that a nil one remembers nothing.
func TestStamp(t *testing.T) {
	var nilStamp *Stamp
	nilStamp.Put([]byte("10/Mar/2026:12:00:00 +0000"), time.Unix(1, 0), 0)
	if _, _, ok := nilStamp.Get([]byte("10/Mar/2026:12:00:00 +0000")); ok {
		t.Error("a nil Stamp answered")
	}
	var s Stamp
	if _, _, ok := s.Get(nil); ok {
		t.Error("an empty Stamp answered")
	}
	at := time.Date(2026, 3, 10, 11, 0, 0, 0, time.UTC)
	s.Put([]byte("10/Mar/2026:12:00:00 +0100"), at, time.Hour)
	if got, off, ok := s.Get([]byte("10/Mar/2026:12:00:00 +0100")); !ok || !got.Equal(at) || off != time.Hour {
		t.Errorf("Get = %v %v %v", got, off, ok)
	}
	for _, other := range []string{"10/Mar/2026:12:00:00 +0000", "10/Mar/2026:12:00:00 +010", "10/Mar/2026:12:00:00 +01000", ""} {
		if _, _, ok := s.Get([]byte(other)); ok {
			t.Errorf("%q answered for another stamp", other)
		}
	}
	s.Put([]byte(strings.Repeat("9", maxStamp+1)), at, 0)
	if _, _, ok := s.Get([]byte(strings.Repeat("9", maxStamp+1))); ok {
		t.Error("a stamp longer than maxStamp was remembered")
	}
}

// TestFraction checks Fraction against the rule written out digit by
// digit, on every digit string up to twelve long and after it a letter, a
// dot or nothing.
func TestFraction(t *testing.T) {
	want := func(b string) (nsec, digits int) {
		scale := 100_000_000
		for digits < len(b) && b[digits] >= '0' && b[digits] <= '9' {
			nsec += int(b[digits]-'0') * scale
			scale /= 10
			digits++
		}
		return nsec, digits
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 12; n++ {
		for range 200 {
			var b []byte
			for range n {
				b = append(b, byte('0'+rng.IntN(10)))
			}
			for _, tail := range []string{"", "Z", ".", "/", ":", " 1"} {
				s := string(b) + tail
				gn, gd := Fraction([]byte(s))
				wn, wd := want(s)
				if gn != wn || gd != wd {
					t.Fatalf("Fraction(%q) = %d, %d; want %d, %d", s, gn, gd, wn, wd)
				}
			}
		}
	}
}

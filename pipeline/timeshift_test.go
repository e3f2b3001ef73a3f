package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// This file moves every time the formats readygap reads write by a fixed
// duration, in place, byte for byte otherwise: the invariant tests shift a
// whole fixture ten years and expect the same verdict ten years later. A
// stamp it missed would leave two clocks in the data, so the tests check
// that no stamp of the original years remains.

// stampKind is one way the formats write a time: the pattern of the stamp
// (group 1 is what is rewritten) and how to move it.
type stampKind struct {
	name string
	re   *regexp.Regexp
	// maybe, when not nil, says quickly whether a line may hold the stamp:
	// the regexp package tries a pattern without a literal prefix at every
	// byte, and the tests move megabytes.
	maybe func(line []byte) bool
	// shift returns the stamp moved by d; ok is false for text that only
	// looks like a stamp (a 13th month), left as it is. year is the year of
	// the last dated stamp before it, for stamps written without one.
	shift func(m []string, d time.Duration, year int) (out string, t time.Time, ok bool)
}

// monthAbbr are the month names nginx's $time_local writes.
var monthAbbr = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// atoi reads digits a pattern already matched.
func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// validDate makes the time of the fields and says whether they named one
// (time.Date normalizes 31 February into March).
func validDate(y, mo, d, h, mi, s int, loc *time.Location) (time.Time, bool) {
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, loc)
	return t, t.Year() == y && int(t.Month()) == mo && t.Day() == d && t.Hour() == h && t.Minute() == mi && t.Second() == s
}

// offsetZone reads "+08:00", "-0700" or "" (UTC).
func offsetZone(s string) *time.Location {
	s = strings.ReplaceAll(s, ":", "")
	if len(s) != 5 {
		return time.UTC
	}
	secs := (atoi(s[1:3])*60 + atoi(s[3:5])) * 60
	if s[0] == '-' {
		secs = -secs
	}
	return time.FixedZone(s, secs)
}

// stampKinds are the stamps of every format, in the order they are tried at
// one position. Stamps without a zone (nginx's error log, klog) are moved as
// wall clocks, which is the same move in any zone without daylight saving.
var stampKinds = []stampKind{
	{
		// RFC 3339 and its space-separated form: JSON and YAML times, ALB,
		// kubectl --timestamps and CRI prefixes, Envoy, the controller's ts.
		name: "rfc3339",
		re:   regexp.MustCompile(`(?:^|[^0-9])((\d{4})-(\d{2})-(\d{2})([Tt ])(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})?)`),
		shift: func(m []string, d time.Duration, _ int) (string, time.Time, bool) {
			loc := offsetZone(strings.ToUpper(m[10]))
			t, ok := validDate(atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[6]), atoi(m[7]), atoi(m[8]), loc)
			u := t.Add(d).In(loc)
			return fmt.Sprintf("%04d-%02d-%02d%s%02d:%02d:%02d%s%s", u.Year(), u.Month(), u.Day(), m[5], u.Hour(), u.Minute(), u.Second(), m[9], m[10]), t, ok
		},
	},
	{
		// nginx $time_local: [10/Mar/2026:12:00:01 +0000].
		name: "nginx-time-local",
		re:   regexp.MustCompile(`(\[(\d{2})/([A-Z][a-z]{2})/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})\])`),
		shift: func(m []string, d time.Duration, _ int) (string, time.Time, bool) {
			mo := 0
			for i, a := range monthAbbr {
				if a == m[3] {
					mo = i + 1
				}
			}
			loc := offsetZone(m[8])
			t, ok := validDate(atoi(m[4]), mo, atoi(m[2]), atoi(m[5]), atoi(m[6]), atoi(m[7]), loc)
			u := t.Add(d).In(loc)
			return fmt.Sprintf("[%02d/%s/%04d:%02d:%02d:%02d %s]", u.Day(), monthAbbr[(int(u.Month())+11)%12], u.Year(), u.Hour(), u.Minute(), u.Second(), m[8]), t, ok && mo > 0
		},
	},
	{
		// nginx's error log: 2026/03/10 12:00:02, local time without a zone.
		name:  "nginx-error",
		re:    regexp.MustCompile(`(?:^|[^0-9/])((\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2}))`),
		maybe: func(line []byte) bool { return bytes.Contains(line, []byte(":")) && slashDate(line) },
		shift: func(m []string, d time.Duration, _ int) (string, time.Time, bool) {
			t, ok := validDate(atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5]), atoi(m[6]), atoi(m[7]), time.UTC)
			u := t.Add(d)
			return u.Format("2006/01/02 15:04:05"), t, ok
		},
	},
	{
		// klog's header, at the start of a line or after a wrapper's stamp:
		// I0310 12:00:02.117300, without a year.
		name:  "klog",
		maybe: func(line []byte) bool { return bytes.Contains(line, []byte("] ")) },
		re:    regexp.MustCompile(`(?m)(?:^|Z |[0-9] [FP] )([IWEF](\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{6}) )`),
		shift: func(m []string, d time.Duration, year int) (string, time.Time, bool) {
			t, ok := validDate(year, atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5]), atoi(m[6]), time.UTC)
			u := t.Add(d)
			return fmt.Sprintf("%s%02d%02d %02d:%02d:%02d.%s ", m[1][:1], u.Month(), u.Day(), u.Hour(), u.Minute(), u.Second(), m[7]), t, ok && year > 0
		},
	},
	{
		// CloudWatch Logs exports: milliseconds since 1970.
		name: "epoch-ms",
		maybe: func(line []byte) bool {
			return bytes.Contains(line, []byte(`"timestamp"`)) || bytes.Contains(line, []byte(`"ingestionTime"`))
		},
		re: regexp.MustCompile(`"(?:timestamp|ingestionTime)": ?((\d{13}))\b`),
		shift: func(m []string, d time.Duration, _ int) (string, time.Time, bool) {
			t := time.UnixMilli(int64(atoi(m[2]))).UTC()
			return strconv.FormatInt(t.Add(d).UnixMilli(), 10), t, true
		},
	},
	{
		// An ALB log object's date folder: elasticloadbalancing/REGION/2026/03/10/,
		// moved as midnight of that day (the tests move whole days).
		name: "alb-folder",
		re:   regexp.MustCompile(`elasticloadbalancing/[a-z0-9-]+/((\d{4})/(\d{2})/(\d{2}))/`),
		shift: func(m []string, d time.Duration, _ int) (string, time.Time, bool) {
			t, ok := validDate(atoi(m[2]), atoi(m[3]), atoi(m[4]), 0, 0, 0, time.UTC)
			return t.Add(d).Format("2006/01/02"), t, ok
		},
	},
	{
		// An ALB log object's end time in its name: _20260310T1205Z_.
		name: "alb-name",
		re:   regexp.MustCompile(`_((\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})Z)_`),
		shift: func(m []string, d time.Duration, _ int) (string, time.Time, bool) {
			t, ok := validDate(atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5]), atoi(m[6]), 0, time.UTC)
			return t.Add(d).Format("20060102T1504Z"), t, ok
		},
	},
}

// slashDate says whether b holds "/dd/" with digits, as a date written
// 2006/01/02 does.
func slashDate(b []byte) bool {
	for i := bytes.IndexByte(b, '/'); i >= 0 && i+3 < len(b); {
		if b[i+3] == '/' && '0' <= b[i+1] && b[i+1] <= '9' && '0' <= b[i+2] && b[i+2] <= '9' {
			return true
		}
		j := bytes.IndexByte(b[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// shiftStats says what shiftStamps moved.
type shiftStats struct {
	// Kinds counts the stamps moved by kind.
	Kinds map[string]int
	// Years are the years of the stamps before the move.
	Years map[int]bool
}

// shiftStamps returns b with every stamp of stampKinds moved by d, a whole
// number of seconds, and what it moved. A stamp without a year takes the
// year of the last dated stamp before it; one with none before it is an
// error, as is a duration with a fraction of a second (the fractions are
// kept as written).
func shiftStamps(b []byte, d time.Duration) ([]byte, shiftStats, error) {
	st := shiftStats{Kinds: map[string]int{}, Years: map[int]bool{}}
	if d%time.Second != 0 {
		return nil, st, fmt.Errorf("shift %v is not whole seconds", d)
	}
	type match struct {
		kind int
		loc  []int
	}
	var out bytes.Buffer
	year := 0
	// Line by line: no stamp spans lines, and the regexp package matches
	// short texts much faster than long ones.
	for line := range bytes.Lines(b) {
		var all []match
		for k, kind := range stampKinds {
			if kind.maybe != nil && !kind.maybe(line) {
				continue
			}
			for _, loc := range kind.re.FindAllSubmatchIndex(line, -1) {
				all = append(all, match{k, loc})
			}
		}
		// In the order of the stamps (group 1), kinds in their order at one
		// position; a stamp inside one already moved is none.
		slices.SortStableFunc(all, func(a, b match) int { return a.loc[2] - b.loc[2] })
		pos := 0
		for _, mt := range all {
			loc := mt.loc
			if loc[2] < pos {
				continue
			}
			m := make([]string, len(loc)/2)
			for i := range m {
				if loc[2*i] >= 0 {
					m[i] = string(line[loc[2*i]:loc[2*i+1]])
				}
			}
			kind := stampKinds[mt.kind]
			if kind.name == "klog" && year == 0 {
				return nil, st, fmt.Errorf("klog stamp %q without a dated stamp before it", m[1])
			}
			s, t, ok := kind.shift(m, d, year)
			if !ok {
				continue
			}
			out.Write(line[pos:loc[2]])
			out.WriteString(s)
			pos = loc[3]
			st.Kinds[kind.name]++
			st.Years[t.Year()] = true
			if kind.name != "klog" && kind.name != "epoch-ms" {
				year = t.Year()
			}
		}
		out.Write(line[pos:])
	}
	return out.Bytes(), st, nil
}

// shiftTree copies the files under src to dst with every stamp moved by d,
// in their names too (an ALB object's key holds its date); gzip'd files are
// rewritten gzip'd. It returns what it moved, over all files.
func shiftTree(t *testing.T, src, dst string, d time.Duration) shiftStats {
	t.Helper()
	all := shiftStats{Kinds: map[string]int{}, Years: map[int]bool{}}
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		name, _, err := shiftStamps([]byte(filepath.ToSlash(rel)), d)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		gz := strings.HasSuffix(path, ".gz")
		if gz {
			if data, err = gunzip(data); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		data, st, err := shiftStamps(data, d)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for k, n := range st.Kinds {
			all.Kinds[k] += n
		}
		for y := range st.Years {
			all.Years[y] = true
		}
		if gz {
			data = gzipBytes(t, data)
		}
		out := filepath.Join(dst, filepath.FromSlash(string(name)))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// gunzip reads a whole gzip stream, every member of it.
func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// gzipBytes compresses b as one gzip member.
func gzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestShiftStamps pins the shifter on one stamp of each kind, as the
// formats write them, moved forward by a day and a half and back by ten
// years' worth of days.
func TestShiftStamps(t *testing.T) {
	const day = 24 * time.Hour
	for _, tt := range []struct {
		name, in, want string
		d              time.Duration
		kinds          string // kind=count, sorted by kind
	}{
		{"RFC 3339 in JSON, the fraction kept", `{"timestamp":"2026-03-10T23:59:58.123456789Z","receiveTimestamp":"2026-03-10T12:00:00Z"}`,
			`{"timestamp":"2026-03-12T11:59:58.123456789Z","receiveTimestamp":"2026-03-12T00:00:00Z"}`, 36 * time.Hour, "rfc3339=2"},
		{"an offset and a space kept", `ts: "2026-02-28 22:00:00+08:00" at 2026-02-28T22:00:00-07:00`,
			`ts: "2026-03-02 10:00:00+08:00" at 2026-03-02T10:00:00-07:00`, 36 * time.Hour, "rfc3339=2"},
		{"ALB access line", `https 2025-11-08T17:33:05.083000Z app/x 1.2.3.4:1 10.0.0.1:80 0.001 0.004 0.000 200 200 300 1834 "GET https://a:443/ HTTP/1.1" "-" - - arn "Root=1-690f7ed1-5" "-" "-" 1 2025-11-08T17:33:05.079000Z "forward"`,
			`https 2015-11-09T17:33:05.083000Z app/x 1.2.3.4:1 10.0.0.1:80 0.001 0.004 0.000 200 200 300 1834 "GET https://a:443/ HTTP/1.1" "-" - - arn "Root=1-690f7ed1-5" "-" "-" 1 2015-11-09T17:33:05.079000Z "forward"`, -3652 * day, "rfc3339=2"},
		{"kubectl stamp, nginx access line", `2026-02-11T06:19:45.02831809Z 198.51.100.120 - - [11/Feb/2026:14:19:45 +0800] "POST / HTTP/1.1" 201`,
			`2016-02-12T06:19:45.02831809Z 198.51.100.120 - - [12/Feb/2016:14:19:45 +0800] "POST / HTTP/1.1" 201`, -3652 * day, "nginx-time-local=1 rfc3339=1"},
		{"nginx error line", `2026-02-11T06:20:22.632470068Z 2026/02/11 14:20:22 [error] 31#31: *88553 connect() failed`,
			`2016-02-12T06:20:22.632470068Z 2016/02/12 14:20:22 [error] 31#31: *88553 connect() failed`, -3652 * day, "nginx-error=1 rfc3339=1"},
		{"klog after a stamp and at a line start, the year from the stamp", "2024-12-31T23:59:59.5Z W1231 23:59:59.500000       7 controller.go:1] x\nI0101 00:00:01.000000       7 a.go:1] y\n",
			"2025-01-01T00:00:01.5Z W0101 00:00:01.500000       7 controller.go:1] x\nI0101 00:00:03.000000       7 a.go:1] y\n", 2 * time.Second, "klog=2 rfc3339=1"},
		{"klog in a leap year", "2024-03-01T00:00:00Z I0301 00:00:00.000000 1 a.go:1] x\n",
			"2024-02-29T00:00:00Z I0229 00:00:00.000000 1 a.go:1] x\n", -day, "klog=1 rfc3339=1"},
		{"CloudWatch export", `{"timestamp": 1773144002130, "message": "{\"time\":\"2026-03-10T12:00:02.130000Z\"}", "ingestionTime":1773144003000}`,
			`{"timestamp": 1773230402130, "message": "{\"time\":\"2026-03-11T12:00:02.130000Z\"}", "ingestionTime":1773230403000}`, day, "epoch-ms=2 rfc3339=1"},
		{"ALB object key", "alb/AWSLogs/1/elasticloadbalancing/ap-northeast-2/2025/11/08/1_elasticloadbalancing_ap-northeast-2_app.x.y_20251108T2355Z_10.0.17.40_da1e6lea.log.gz",
			"alb/AWSLogs/1/elasticloadbalancing/ap-northeast-2/2025/11/09/1_elasticloadbalancing_ap-northeast-2_app.x.y_20251109T2355Z_10.0.17.40_da1e6lea.log.gz", day, "alb-folder=1 alb-name=1"},
		{"not stamps: a 13th month, digits before, a date alone", `2026-13-01T00:00:00Z 12026-01-01T00:00:00Z 2026-01-01 uid-20260101T0000Z`,
			`2026-13-01T00:00:00Z 12026-01-01T00:00:00Z 2026-01-01 uid-20260101T0000Z`, day, ""},
	} {
		got, st, err := shiftStamps([]byte(tt.in), tt.d)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var kinds []string
		for _, k := range stampKinds {
			if n := st.Kinds[k.name]; n > 0 {
				kinds = append(kinds, fmt.Sprintf("%s=%d", k.name, n))
			}
		}
		slices.Sort(kinds)
		if string(got) != tt.want || strings.Join(kinds, " ") != tt.kinds {
			t.Errorf("%s:\n got %s (%s)\nwant %s (%s)", tt.name, got, strings.Join(kinds, " "), tt.want, tt.kinds)
		}
	}
	if _, _, err := shiftStamps([]byte("I0101 00:00:01.000000 7 a.go:1] y\n"), time.Hour); err == nil {
		t.Error("a klog stamp with no year to take was shifted")
	}
	if _, _, err := shiftStamps([]byte("x"), time.Millisecond); err == nil {
		t.Error("a shift of a fraction of a second was accepted")
	}
}

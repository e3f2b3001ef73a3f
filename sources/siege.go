package sources

import (
	"bytes"
	"errors"
	"strings"

	"github.com/readygap/readygap/sources/internal/lex"
)

// siege reads the verbose output of the load-testing tool siege (JoeDog/siege,
// src/browser.c __display_result), one line per request:
//
//	HTTP/1.1 503     0.01 secs:     197 bytes ==> GET  /
//	[Sat, 2026-03-14 09:41:00] HTTP/1.1 503     0.01 secs:     197 bytes ==> GET  /
//	   3) HTTP/1.1 200   0.02 secs:     612 bytes ==> GET  /
//	HTTP/1.1,503,  0.01,    197,/,1,2026-03-14 09:41:00
//
// `[%a, %F %T] ` in front is siege's `timestamp = true` (siegerc), the last
// CSV field (`--csv`) the time of the request; both are local time without
// a zone, read in --tz. A line without either is read in order only. The
// `(C)` after a status marks a cached response; `N) ` or `N,` in front is
// `--display-id`. Its error lines (`[error] socket: unable to connect
// sock.c:282: Connection refused`, `[alert] ...`) are requests that got no
// response, in order only. Each is a client-side Request.
type siege struct{}

// siegeProtocol starts every request line's protocol field.
var siegeProtocol = []byte("HTTP/")

// siegeChrome starts the lines siege prints around the requests, which
// carry no record: its banner, the summary after the run.
var siegeChrome = [][]byte{
	[]byte("** "), []byte("The server is now under siege"), []byte("Lifting the server siege"),
	[]byte("Transactions:"), []byte("Availability:"), []byte("Elapsed time:"), []byte("Data transferred:"),
	[]byte("Response time:"), []byte("Transaction rate:"), []byte("Throughput:"), []byte("Concurrency:"),
	[]byte("Successful transactions:"), []byte("Failed transactions:"), []byte("Longest transaction:"),
	[]byte("Shortest transaction:"), []byte("{"), []byte("}"), []byte(`"`),
}

// Format returns FormatSiege.
func (siege) Format() Format { return FormatSiege }

// Match reports whether line is one of siege's request lines or error lines.
func (siege) Match(line []byte) bool {
	if _, _, ok := siegeError(line); ok {
		return true
	}
	_, _, _, _, err := siegeSplit(line)
	return err == nil
}

// errSiegeLine is the reason a line of none of siege's shapes is skipped.
var errSiegeLine = errors.New("not a siege request line (`HTTP/1.1 503  0.01 secs: ...` or --csv)")

// siegeNotice starts siege's own notices: `[error] socket: ...` and
// `[alert] socket: ...` are about a request that got no response; the
// others (`[info]`, `[warning]`, other errors) carry no record.
var siegeNotice = [][]byte{[]byte("[error] "), []byte("[alert] "), []byte("[info] "), []byte("[warning] ")}

// siegeError recognises a notice: its text and whether it is about a
// request that got no response (a socket error).
func siegeError(line []byte) (text string, request, ok bool) {
	for i, p := range siegeNotice {
		if rest, found := bytes.CutPrefix(line, p); found {
			return string(rest), i < 2 && bytes.HasPrefix(rest, []byte("socket")), true
		}
	}
	return "", false, false
}

// siegeSplit reads a request line: its local time (clock fields, zero
// when none), its status and its method and URL.
func siegeSplit(line []byte) (c klogClock, year int, status int, target string, err error) {
	line = bytes.TrimLeft(line, " ")
	if len(line) == 0 {
		return c, 0, 0, "", errSiegeLine
	}
	if bytes.HasPrefix(line, []byte("[")) {
		// `[Sat, 2026-03-14 09:41:00] `
		end := bytes.IndexByte(line, ']')
		if end < 0 {
			return c, 0, 0, "", errSiegeLine
		}
		stamp := line[1:end]
		if i := bytes.IndexByte(stamp, ' '); i < 0 {
			return c, 0, 0, "", errSiegeLine
		} else if year, c, err = siegeDateTime(stamp[i+1:]); err != nil {
			return c, 0, 0, "", err
		}
		line = bytes.TrimLeft(line[end+1:], " ")
	}
	// --display-id: `   3) ` or `3,`.
	if i := bytes.IndexAny(line, "),"); i > 0 {
		if _, ok := lex.Digits(bytes.TrimSpace(line[:i])); ok {
			line = bytes.TrimLeft(line[i+1:], " ")
		}
	}
	if !bytes.HasPrefix(line, siegeProtocol) {
		return c, 0, 0, "", errSiegeLine
	}
	if bytes.Contains(line, []byte(",")) && !bytes.Contains(line, []byte(" secs: ")) {
		return siegeCSV(line, c, year)
	}
	// `HTTP/1.1 503(C)  0.01 secs:     197 bytes ==> GET  /`
	fields := bytes.Fields(line)
	if len(fields) < 2 {
		return c, 0, 0, "", errSiegeLine
	}
	code := bytes.TrimSuffix(fields[1], []byte("(C)"))
	if status, err = siegeStatus(code); err != nil {
		return c, 0, 0, "", err
	}
	if !bytes.Contains(line, []byte(" secs: ")) {
		return c, 0, 0, "", errSiegeLine
	}
	if _, after, ok := bytes.Cut(line, []byte("==> ")); ok {
		target = string(bytes.Join(bytes.Fields(after), []byte(" ")))
	}
	return c, year, status, target, nil
}

// siegeCSV reads `HTTP/1.1,503,  0.01,    197,/,1,2026-03-14 09:41:00`.
func siegeCSV(line []byte, c klogClock, year int) (klogClock, int, int, string, error) {
	fields := bytes.Split(line, []byte(","))
	if len(fields) < 5 {
		return c, 0, 0, "", errSiegeLine
	}
	status, err := siegeStatus(bytes.TrimSpace(fields[1]))
	if err != nil {
		return c, 0, 0, "", err
	}
	if last := bytes.TrimSpace(fields[len(fields)-1]); len(fields) >= 7 && !bytes.Equal(last, []byte("n/a")) {
		if year, c, err = siegeDateTime(last); err != nil {
			return c, 0, 0, "", err
		}
	}
	return c, year, status, string(bytes.TrimSpace(fields[4])), nil
}

// siegeStatus reads a three-digit status code.
func siegeStatus(b []byte) (int, error) {
	n, ok := lex.Digits(b)
	if !ok || len(b) != 3 || n < 100 || n > 599 {
		return 0, errSiegeLine
	}
	return n, nil
}

// siegeDateTime reads `2026-03-14 09:41:00`.
func siegeDateTime(b []byte) (int, klogClock, error) {
	var c klogClock
	if len(b) != len("2006-01-02 15:04:05") || b[4] != '-' || b[7] != '-' || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return 0, c, errors.New("siege time not `YYYY-MM-DD hh:mm:ss`")
	}
	ok := true
	year := lex.FixedDigits(b[0:4], &ok)
	c.month = lex.FixedDigits(b[5:7], &ok)
	c.day = lex.FixedDigits(b[8:10], &ok)
	c.hour = lex.FixedDigits(b[11:13], &ok)
	c.minute = lex.FixedDigits(b[14:16], &ok)
	c.sec = lex.FixedDigits(b[17:19], &ok)
	if !ok || !lex.ValidDate(year, c.month, c.day) || !lex.ValidClock(c.hour, c.minute, c.sec) {
		return 0, c, errors.New("siege time out of range")
	}
	return year, c, nil
}

// Parse reads one line into a client-side Request.
func (siege) Parse(line []byte, ln *Line, out *Emitter) error {
	r := &out.request
	*r = Request{LB: curlLB, ClientSide: true, Format: FormatSiege, Origin: ln.Origin}
	var year int
	var c klogClock
	if text, request, ok := siegeError(line); ok {
		if !request {
			return nil
		}
		r.Detail = text
	} else {
		var err error
		var target string
		if c, year, r.Status, target, err = siegeSplit(line); err != nil {
			for _, p := range siegeChrome {
				if bytes.HasPrefix(bytes.TrimSpace(line), p) {
					return nil
				}
			}
			return err
		}
		r.Path = target
		if m, p, ok := strings.Cut(target, " "); ok {
			r.Method, r.Path = m, p
		}
	}
	switch {
	case year != 0:
		r.Time = localClock(year, c.month, c.day, c.hour, c.minute, c.sec, 0, ln.Stamp, out.Location())
	case !ln.Stamp.IsZero():
		r.Time = ln.Stamp
	default:
		r.Time, r.OrderOnly = out.OrderOnlyTime(ln.Origin.Line), true
	}
	out.Request(r)
	return nil
}

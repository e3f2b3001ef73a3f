package sources

import (
	"bytes"
	"errors"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// curlLoop reads what a shell loop of curl prints, one line per request:
// the status code curl's `-w '%{http_code}'` writes (`000` when no
// response came), optionally after a time and before more numbers curl
// writes (`%{time_total}`, `%{size_download}`):
//
//	2026-03-14T09:41:00.512Z 503 0.004
//	1773481260.512 503 0.004
//	503 0.004
//
// as printed by, for example,
//
//	while true; do echo "$(date -u +%FT%T.%3NZ) $(curl -s -o /dev/null -w '%{http_code} %{time_total}' URL)"; sleep 0.2; done
//
// The time is an RFC 3339 time (which the pipeline takes off each line
// as a wrapper's and hands over as the Line's Stamp) or epoch seconds
// (`date +%s.%N`); a line without one is read in order only, like a pasted
// access line. Each line is a client-side Request: the status the client
// got, no backend and no generator known.
type curlLoop struct{}

// curlNoResponse is the code curl's %{http_code} writes when no response
// came (connection refused, timed out, reset).
const curlNoResponse = "000"

// curlLB is the LB of every client-side request: the client's view.
const curlLB = "client"

// Format returns FormatCurlLoop.
func (curlLoop) Format() Format { return FormatCurlLoop }

// Match reports whether line is [epoch seconds] status [numbers...]:
// every field a decimal number, one of them a status code.
func (curlLoop) Match(line []byte) bool {
	_, _, _, err := curlSplit(line)
	return err == nil
}

// errCurlLine is the reason a line not in the accepted shape is skipped.
var errCurlLine = errors.New("not `[time] STATUS [numbers]` as a curl loop prints it")

// curlSplit splits a line into its epoch time (zero when none), its
// status and whether the status was curl's 000.
func curlSplit(line []byte) (t time.Time, status int, none bool, err error) {
	fields := bytes.Fields(line)
	if len(fields) == 0 {
		return time.Time{}, 0, false, errCurlLine
	}
	for _, f := range fields {
		if !lex.IsDecimal(f) {
			return time.Time{}, 0, false, errCurlLine
		}
	}
	code := fields[0]
	if len(code) != 3 && len(fields) > 1 {
		d, ok := lex.Seconds(fields[0])
		if !ok || code[0] == '.' || d < time.Duration(curlEpochFloor)*time.Second {
			return time.Time{}, 0, false, errCurlLine
		}
		t, code = time.Unix(0, int64(d)).UTC(), fields[1]
	}
	if len(code) != 3 {
		return time.Time{}, 0, false, errCurlLine
	}
	if string(code) == curlNoResponse {
		return t, 0, true, nil
	}
	n, ok := lex.Digits(code)
	if !ok || n < 100 || n > 599 {
		return time.Time{}, 0, false, errCurlLine
	}
	return t, n, false, nil
}

// curlEpochFloor is the least epoch time read as one (2001-09-09, ten
// digits): a smaller number first on a line is no `date +%s`.
const curlEpochFloor = 1_000_000_000

// Parse reads one line into a client-side Request.
func (curlLoop) Parse(line []byte, ln *Line, out *Emitter) error {
	t, status, none, err := curlSplit(line)
	if err != nil {
		return err
	}
	r := &out.request
	*r = Request{Status: status, LB: curlLB, ClientSide: true, Format: FormatCurlLoop, Origin: ln.Origin}
	if none {
		r.Detail = "no response (curl wrote 000)"
	}
	switch {
	case !t.IsZero():
		r.Time = t
	case !ln.Stamp.IsZero():
		r.Time = ln.Stamp
	default:
		r.Time, r.OrderOnly = out.OrderOnlyTime(ln.Origin.Line), true
	}
	out.Request(r)
	return nil
}

package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// fortio reads the log of the load-testing tool fortio (fortio/fortio):
//
// JSON lines since 1.55 (fortio.org/log, the default when the
// output is not a terminal), where each request that failed is one line
// (fhttp/http_client.go, `-log-errors`, on by default):
//
//	{"ts":1773481260.512034,"level":"warn","r":43,"file":"http_client.go","line":1159,"msg":"Non ok http code","code":503,"status":"HTTP/1.1 503","thread":7,"run":0}
//	{"ts":1773481260.612034,"level":"err","r":41,"file":"http_client.go","line":962,"msg":"Unable to connect","dest":"10.0.0.1:80","err":"dial tcp 10.0.0.1:80: connect: connection refused","numfd":9,"thread":5,"run":0}
//
// Each gives a client-side Request (the status the client got; 0 when it
// got none); its other lines carry no record. Requests that did not fail
// are not logged one by one.
//
// Its JSON result is another format (fortio_result.go).
type fortio struct{}

// fortioLine holds the keys of a log line that readygap uses.
type fortioLine struct {
	TS     json.RawMessage `json:"ts"`
	Msg    string          `json:"msg"`
	Code   *int            `json:"code"`
	Status string          `json:"status"`
	Err    string          `json:"err"`
}

// The messages of failed requests in fortio's log.
const (
	fortioNonOK      = "Non ok http code"
	fortioNoConnect  = "Unable to connect"
	fortioReadFailed = "Unable to read response"
)

// Format returns FormatFortio.
func (fortio) Format() Format { return FormatFortio }

// Match reports whether line is a fortio.org/log JSON line: it starts with
// the `ts` key (written first) and has `level` and `msg`.
func (fortio) Match(line []byte) bool {
	return bytes.HasPrefix(line, []byte(`{"ts":`)) && bytes.Contains(line, []byte(`"level":`)) &&
		bytes.Contains(line, []byte(`"msg":`))
}

// Parse reads one log line; a failed request gives a client-side Request.
func (fortio) Parse(line []byte, ln *Line, out *Emitter) error {
	var e fortioLine
	if err := json.Unmarshal(line, &e); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return errors.New("not a JSON object")
		}
	}
	d, ok := lex.Seconds(e.TS)
	if !ok || len(e.TS) == 0 || e.TS[0] == '.' {
		return errors.New("fortio log line without its `ts` (epoch seconds)")
	}
	r := &out.request
	*r = Request{Time: time.Unix(0, int64(d)).UTC(), LB: curlLB, ClientSide: true, Format: FormatFortio, Origin: ln.Origin}
	switch e.Msg {
	case fortioNonOK:
		if e.Code == nil || *e.Code < 100 || *e.Code > 599 {
			return errors.New("fortio `Non ok http code` line without a status code")
		}
		r.Status, r.Detail = *e.Code, e.Status
	case fortioNoConnect, fortioReadFailed:
		r.Detail = e.Msg
		if e.Err != "" {
			r.Detail += ": " + e.Err
		}
	default:
		return nil
	}
	out.Request(r)
	return nil
}

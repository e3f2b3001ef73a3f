package sources

import (
	"bytes"
	"errors"
	"net/netip"

	"github.com/readygap/readygap/sources/internal/lex"
)

// This file reads the nginx error-log lines of ingress-nginx output:
//
//	2024/01/02 03:04:06 [error] 31#31: *1234 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"
//
// A line about a failed upstream attempt becomes a Request with AttemptOnly
// set; every other error-log line is valid but carries no record.

// Reasons for skipping an error-log line.
var (
	errNginxErrorTime   = errors.New("nginx error-log line with a bad time")
	errNginxErrorLevel  = errors.New("nginx error-log line without a [level]")
	errNginxErrorPrefix = errors.New("nginx error-log line without a pid#tid: prefix")
)

// nginxErrorShaped reports whether line starts like an nginx error-log line
// (`2024/`), which no access or klog line does.
func nginxErrorShaped(line []byte) bool {
	return len(line) > 5 && line[4] == '/' &&
		line[0] >= '0' && line[0] <= '9' && line[1] >= '0' && line[1] <= '9' &&
		line[2] >= '0' && line[2] <= '9' && line[3] >= '0' && line[3] <= '9'
}

// nginxErrorHeader is the fixed part of an error-log line.
type nginxErrorHeader struct {
	year, month, day, hour, minute, sec int
	level                               []byte
}

// nginxErrorSplit checks `YYYY/MM/DD hh:mm:ss [level] pid#tid: ` and returns
// it with the rest of the line: `*conn message, client: ...` or a message.
func nginxErrorSplit(line []byte) (h nginxErrorHeader, rest []byte, err error) {
	const stamp = len("2024/01/02 03:04:05")
	if len(line) < stamp+3 || line[7] != '/' || line[10] != ' ' || line[13] != ':' || line[16] != ':' {
		return h, nil, errNginxErrorTime
	}
	ok := true
	h.year = lex.FixedDigits(line[0:4], &ok)
	h.month = lex.FixedDigits(line[5:7], &ok)
	h.day = lex.FixedDigits(line[8:10], &ok)
	h.hour = lex.FixedDigits(line[11:13], &ok)
	h.minute = lex.FixedDigits(line[14:16], &ok)
	h.sec = lex.FixedDigits(line[17:19], &ok)
	if !ok || h.year < 1970 || !lex.ValidDate(h.year, h.month, h.day) || !lex.ValidClock(h.hour, h.minute, h.sec) {
		return h, nil, errNginxErrorTime
	}
	rest = line[stamp:]
	if len(rest) < 3 || rest[0] != ' ' || rest[1] != '[' {
		return h, nil, errNginxErrorLevel
	}
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return h, nil, errNginxErrorLevel
	}
	h.level, rest = rest[2:end], rest[end+1:]
	if !nginxKnownLevel(h.level) {
		return h, nil, errNginxErrorLevel
	}
	rest, err = nginxSkipPidTid(rest)
	return h, rest, err
}

// nginxSkipPidTid skips ` pid#tid: `.
func nginxSkipPidTid(b []byte) ([]byte, error) {
	if len(b) == 0 || b[0] != ' ' {
		return nil, errNginxErrorPrefix
	}
	colon := bytes.Index(b, []byte(": "))
	if colon < 0 {
		return nil, errNginxErrorPrefix
	}
	pid, tid, ok := bytes.Cut(b[1:colon], []byte("#"))
	if _, okPid := lex.Digits(pid); !ok || !okPid {
		return nil, errNginxErrorPrefix
	}
	if _, okTid := lex.Digits(tid); !okTid {
		return nil, errNginxErrorPrefix
	}
	return b[colon+2:], nil
}

// nginxKnownLevel reports whether b is one of nginx's log levels.
func nginxKnownLevel(b []byte) bool {
	switch string(b) {
	case "emerg", "alert", "crit", "error", "warn", "notice", "info", "debug":
		return true
	}
	return false
}

// nginxFailureLevel reports whether a level is one nginx uses for failed
// upstream attempts (warn and below are informational: "an upstream
// response is buffered", "upstream server temporarily disabled").
func nginxFailureLevel(b []byte) bool {
	switch string(b) {
	case "emerg", "alert", "crit", "error":
		return true
	}
	return false
}

// nginxErrorParse parses one error-log line and reports a Request for a
// failed upstream attempt.
func nginxErrorParse(line []byte, ln *Line, out *Emitter) error {
	h, rest, err := nginxErrorSplit(line)
	if err != nil {
		return err
	}
	if !nginxFailureLevel(h.level) {
		return nil
	}
	msg, ctx := nginxErrorMessage(rest)
	upstream, hasUpstream := nginxErrorField(ctx, `, upstream: "`)
	if !nginxUpstreamFailure(msg, hasUpstream) {
		return nil
	}
	failure, backend := nginxErrorFailure(msg), nginxAddrPort(nginxUpstreamPeer(upstream))
	if backend.Addr() == nginxPlaceholder {
		// ingress-nginx's placeholder server: the balancer had no endpoint.
		failure, backend = FailureNoBackend, netip.AddrPort{}
	}
	request, _ := nginxErrorField(ctx, `, request: "`)
	r := Request{
		Time: refineWithStamp(localClock(h.year, h.month, h.day, h.hour, h.minute, h.sec, 0, ln.Stamp, out.Location()), ln.Stamp),
		// The proxy saw the failure; it is not a client-visible status.
		Generator:   GeneratedByLB,
		Failure:     failure,
		Backend:     backend,
		Detail:      string(msg),
		AttemptOnly: true,
		Format:      FormatIngressNginx,
		Origin:      ln.Origin,
	}
	r.Method, r.Path = nginxSplitRequestLine(string(request))
	out.Request(&r)
	return nil
}

// nginxErrorMessage drops the `*connection ` number and splits the message
// from its `, client: ...` context.
func nginxErrorMessage(b []byte) (msg, ctx []byte) {
	if len(b) > 1 && b[0] == '*' {
		if sp := bytes.IndexByte(b, ' '); sp > 1 {
			if _, ok := lex.Digits(b[1:sp]); ok {
				b = b[sp+1:]
			}
		}
	}
	if i := bytes.Index(b, []byte(", client: ")); i >= 0 {
		return b[:i], b[i:]
	}
	return b, nil
}

// nginxErrorField returns the quoted value of a context field such as
// `, upstream: "`. A value whose closing quote is missing (a cut or
// hand-edited line) runs to the end of the line.
func nginxErrorField(ctx []byte, key string) ([]byte, bool) {
	i := bytes.Index(ctx, []byte(key))
	if i < 0 {
		return nil, false
	}
	v := ctx[i+len(key):]
	if end := bytes.IndexByte(v, '"'); end >= 0 {
		v = v[:end]
	}
	return v, true
}

// nginxUpstreamFailure reports whether an error message is about a failed
// upstream attempt: one nginx logged with an upstream, or "no live
// upstreams". Client aborts and Lua messages are not.
func nginxUpstreamFailure(msg []byte, hasUpstream bool) bool {
	switch {
	case bytes.HasPrefix(msg, []byte("no live upstreams")):
		return true
	case bytes.HasPrefix(msg, []byte("client ")), bytes.HasPrefix(msg, []byte("[lua]")):
		return false
	}
	return hasUpstream
}

// nginxMessages are the failed-attempt messages nginx words without an
// errno (ngx_http_upstream.c, ngx_event_connect.c), by their start.
var nginxMessages = []struct {
	prefix string
	kind   FailureKind
	means  string
}{
	{"no live upstreams", FailureNoBackend, "every server of the upstream was marked down (or it had none): the proxy had no endpoint to send the request to"},
	{"upstream prematurely closed connection", FailureClosed, "the upstream closed the connection before sending a whole response header: a keep-alive connection it closed as nginx reused it, or a backend that stopped"},
	{"upstream timed out", FailureTimeout, "the upstream did not answer within proxy_connect_timeout or proxy_read_timeout (60 s by default)"},
}

// nginxErrnos are the errno values (Linux) that name the failure of an
// upstream attempt, with their meaning.
var nginxErrnos = map[int]struct {
	kind  FailureKind
	means string
}{
	111: {FailureRefused, "connection refused (ECONNREFUSED): nothing listened on the upstream's port"},
	113: {FailureUnreachable, "no route to host (EHOSTUNREACH): the upstream's address is gone"},
	112: {FailureUnreachable, "host is down (EHOSTDOWN)"},
	101: {FailureUnreachable, "network unreachable (ENETUNREACH)"},
	104: {FailureClosed, "connection reset by peer (ECONNRESET): the upstream reset the connection"},
	32:  {FailureClosed, "broken pipe (EPIPE): the upstream closed the connection as nginx wrote to it"},
	110: {FailureTimeout, "connecting timed out (ETIMEDOUT)"},
}

// nginxErrorDoc documents the messages: nginx's upstream module, whose
// source words them.
const nginxErrorDoc = "https://github.com/nginx/nginx/blob/master/src/http/ngx_http_upstream.c"

// nginxErrorFailure classifies a failed-attempt message. The errno number
// decides, never its text, which differs between musl and glibc.
func nginxErrorFailure(msg []byte) FailureKind {
	errno, ok := nginxErrno(msg)
	for _, m := range nginxMessages {
		// A timeout with an errno (110) is the errno's.
		if bytes.HasPrefix(msg, []byte(m.prefix)) && (!ok || m.kind != FailureTimeout) {
			return m.kind
		}
	}
	if !ok {
		return FailureOther
	}
	if e, known := nginxErrnos[errno]; known {
		return e.kind
	}
	return FailureOther
}

// nginxErrno finds the ` (NNN: text)` errno suffix of a message.
func nginxErrno(msg []byte) (int, bool) {
	for i := 0; ; {
		j := bytes.IndexByte(msg[i:], '(')
		if j < 0 {
			return 0, false
		}
		i += j + 1
		colon := bytes.IndexByte(msg[i:], ':')
		if colon > 0 && colon <= 4 {
			if n, ok := lex.Digits(msg[i : i+colon]); ok {
				return n, true
			}
		}
	}
}

// nginxUpstreamPeer returns the peer of an `upstream:` value:
// `http://10.244.1.17:8080/api/items` gives `10.244.1.17:8080`; `grpc://`
// and `https://` work alike.
func nginxUpstreamPeer(v []byte) []byte {
	if i := bytes.Index(v, []byte("://")); i >= 0 {
		v = v[i+3:]
	}
	if i := bytes.IndexByte(v, '/'); i >= 0 {
		v = v[:i]
	}
	return v
}

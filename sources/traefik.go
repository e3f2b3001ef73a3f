package sources

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
	"github.com/valyala/fastjson"
)

// FormatTraefik is Traefik's access log, `common` (both generations) or
// `json`.
const FormatTraefik Format = "traefik"

// FamilyTraefik is the Traefik proxy (k3s's default ingress controller):
// Ingresses of class traefik and its IngressRoutes.
const FamilyTraefik Family = "traefik"

// traefikAccess reads Traefik's access log (v2 and v3) in its two
// formats that name the upstream, one line per request:
//
//   - `common`, the default (pkg/middlewares/accesslog/logger_formatters.go):
//     `ClientHost - ClientUsername [02/Jan/2006:15:04:05 -0700] "Method Path
//     Protocol" STATUS SIZE "Referer" "User-Agent" RequestCount "Router"
//     "ServiceURL" Nms`. The status column changed meaning in v2.10.5
//     (traefik/traefik b966215e, "Move origin fields capture to service
//     level"): before, it is OriginStatus and OriginContentSize, captured
//     around the entry point's routers, so it holds Traefik's own 404s
//     and 502s too; from then on DownstreamStatus and
//     DownstreamContentSize, what the client got. Either way it is the
//     status the client saw unless nothing was captured (`-`).
//   - `json`: one object per line with the fields of logdata.go
//     (StartUTC, DownstreamStatus, DownstreamContentSize, RouterName,
//     ServiceName, ServiceURL, ServiceAddr, RequestHost, RetryAttempts,
//     OriginDuration, Duration, ...).
//
// The `genericCLF` format names no router and no upstream: its lines are
// nginx `combined` lines, which nginx-access reads and skips saying so.
// Traefik's access log gives no failure reason (the reason is only in its
// debug log), so a 502 Traefik made is a refusal, a reset or an idle
// connection the backend closed alike (traefikFailure).
type traefikAccess struct{}

// Format returns FormatTraefik.
func (traefikAccess) Format() Format { return FormatTraefik }

// Traefik's own answers, from its source: the router's not-found handler
// answers 404 "404 page not found\n" (Go's http.NotFound) when no router
// matches, which is what a Kubernetes Service without endpoints leaves
// unless allowEmptyServices is set (the provider drops its router,
// traefik/traefik#9242); with it, an empty load balancer answers 503 "no
// available server" (pkg/server/service/loadbalancer/wrr). The proxy's
// error handler (pkg/proxy/httputil/proxy.go ErrorHandlerWithContext)
// writes http.StatusText of the status it computed: 502 "Bad Gateway" for
// EOF, a refused or reset connection, 504 "Gateway Timeout" for a timeout.
const (
	traefikBadGatewayBody     = len("Bad Gateway")
	traefikGatewayTimeoutBody = len("Gateway Timeout")
	// traefikLB names the proxy when a line names no host (CLF).
	traefikLB = "traefik"
	// traefikV1NoBackend is the frontend Traefik v1 logged for a request
	// no frontend matched (`404 19 ... "backend not found" "/" 0ms`,
	// elastic/beats filebeat/module/traefik/access/test/test.log).
	traefikV1NoBackend = "backend not found"
)

// Reasons for skipping a line.
var (
	errTraefikNotAccess = errors.New("not a Traefik access line (`common` or `json`)")
	errTraefikTime      = errors.New("Traefik access line: bad time")
	errTraefikNoStatus  = errors.New("Traefik access line without a status (`-`): Traefik captured no response for it")
	errTraefikOwnLog    = errors.New("Traefik's own log line, not an access line (failure reasons are logged at debug level only)")
)

// Match reports whether line is a Traefik access line in either format.
func (traefikAccess) Match(line []byte) bool {
	if len(line) > 0 && line[0] == '{' {
		return bytes.Contains(line, []byte(`"DownstreamStatus"`)) &&
			(bytes.Contains(line, []byte(`"StartUTC"`)) || bytes.Contains(line, []byte(`"StartLocal"`)))
	}
	var f traefikFields
	return traefikScanCLF(line, &f) == nil
}

// Parse reads one access line.
func (traefikAccess) Parse(line []byte, ln *Line, out *Emitter) error {
	var f traefikFields
	var err error
	if len(line) > 0 && line[0] == '{' {
		err = traefikScanJSON(line, &f)
	} else {
		err = traefikScanCLF(line, &f)
	}
	if err != nil {
		if traefikOwnLine(line) {
			return errTraefikOwnLog
		}
		return err
	}
	if f.status == 0 {
		return errTraefikNoStatus
	}
	r := Request{Time: f.time, Status: f.status, Method: f.method, Path: f.path, Duration: f.duration,
		Format: FormatTraefik, Origin: ln.Origin, LB: traefikLB, Backend: f.backend}
	if f.host != "" {
		r.LB = f.host
	}
	if f.retries > 0 {
		r.AttemptCount = f.retries + 1
	}
	traefikFailure(&r, &f)
	out.Request(&r)
	return nil
}

// traefikFields are the fields of one access line readygap reads.
type traefikFields struct {
	time          time.Time
	status, size  int
	sizeKnown     bool
	method, path  string
	router, host  string
	backend       netip.AddrPort
	backendLogged bool
	retries       int
	duration      time.Duration
}

// traefikFailure decides who made the status and how the request went.
func traefikFailure(r *Request, f *traefikFields) {
	switch {
	case f.router == "" && f.status == 404:
		r.Generator, r.Failure = GeneratedByLB, FailureNoBackend
		r.Detail = "404 from Traefik: no router (a Service without endpoints loses it unless allowEmptyServices)"
	case !f.backendLogged && f.status == 503:
		r.Generator, r.Failure = GeneratedByLB, FailureNoBackend
		r.Detail = "503 from Traefik: no available server behind router " + f.router
	case f.backendLogged && f.status == 502 && (!f.sizeKnown || f.size == traefikBadGatewayBody):
		r.Generator, r.Failure = GeneratedByLB, FailureRefused
		r.Detail = "502 Bad Gateway from Traefik: the connection was refused, reset or closed (Traefik's access log does not say which)"
	case f.backendLogged && f.status == 504 && (!f.sizeKnown || f.size == traefikGatewayTimeoutBody):
		r.Generator, r.Failure = GeneratedByLB, FailureTimeout
		r.Detail = "504 Gateway Timeout from Traefik"
	case f.backendLogged && f.status >= 500:
		r.Generator, r.Failure = GeneratedByBackend, FailureAppError
	case f.backendLogged:
		r.Generator = GeneratedByBackend
	default:
		r.Generator = GeneratedByLB
	}
}

// traefikScanCLF reads a `common` line from both ends: the client, time,
// request, status and size from the left; the duration, service URL,
// router and request count from the right. The referer and user agent
// between them, which older versions wrote without escaping quotes, are
// not read.
func traefikScanCLF(line []byte, f *traefikFields) error {
	line = bytes.TrimRight(line, "\r\n")
	open := bytes.Index(line, []byte(" ["))
	if open < 0 || !bytes.Contains(line[:open], []byte(" - ")) {
		return errTraefikNotAccess
	}
	closeAt := bytes.Index(line[open:], []byte(`] "`))
	if closeAt < 0 {
		return errTraefikNotAccess
	}
	stamp := line[open+2 : open+closeAt]
	rest := line[open+closeAt+3:]
	// Right side: `N "router" "url" Dms`.
	right, dur, ok := traefikCutLastField(line)
	if !ok || !bytes.HasSuffix(dur, []byte("ms")) {
		return errTraefikNotAccess
	}
	ms, ok := lex.Digits(dur[:len(dur)-2])
	if !ok {
		return errTraefikNotAccess
	}
	right, svcURL, ok := traefikCutQuoted(right)
	if !ok {
		return errTraefikNotAccess
	}
	right, router, ok := traefikCutQuoted(right)
	if !ok {
		return errTraefikNotAccess
	}
	right, count, ok := traefikCutLastField(right)
	if !ok || !(traefikDash(count) || lex.IsDecimal(count)) || len(right) < open+closeAt+3 {
		return errTraefikNotAccess
	}
	// Left side: `Method Path Protocol" STATUS SIZE "`.
	end := traefikRequestEnd(rest)
	if end < 0 {
		return errTraefikNotAccess
	}
	request := rest[:end]
	fields := bytes.Fields(rest[end+2:])
	if len(fields) < 2 {
		return errTraefikNotAccess
	}
	t, _, ok := nginxParseTimeLocal(stamp)
	if !ok {
		return errTraefikTime
	}
	f.time = t
	if !traefikDash(fields[0]) {
		n, ok := lex.Digits(fields[0])
		if !ok || n < 100 || n > 999 {
			return errTraefikNotAccess
		}
		f.status = n
	}
	if n, ok := lex.Digits(fields[1]); ok {
		f.size, f.sizeKnown = n, true
	}
	f.method, f.path = traefikSplitRequest(string(request))
	f.duration = time.Duration(ms) * time.Millisecond
	if !traefikDash(router) && string(router) != traefikV1NoBackend {
		f.router = string(router)
	}
	if !traefikDash(svcURL) {
		f.backend, f.backendLogged = traefikServiceAddr(string(svcURL))
	}
	return nil
}

// traefikSplitRequest splits `Method Path Protocol` (Traefik writes the
// three fields as the request had them, `-` for none).
func traefikSplitRequest(req string) (method, path string) {
	fs := strings.Fields(req)
	switch {
	case len(fs) >= 3:
		method, path = fs[0], strings.Join(fs[1:len(fs)-1], " ")
	case len(fs) == 2:
		method, path = fs[0], fs[1]
	case len(fs) == 1:
		method = fs[0]
	}
	if method == "-" {
		method = ""
	}
	if path == "-" {
		path = ""
	}
	return method, path
}

// traefikRequestEnd finds the quote that closes the request line: the
// first `" ` followed by a status (or `-`), a space and a size (or `-`).
func traefikRequestEnd(b []byte) int {
	for from := 0; ; {
		i := bytes.Index(b[from:], []byte(`" `))
		if i < 0 {
			return -1
		}
		i += from
		fs := bytes.Fields(b[i+2:])
		if len(fs) >= 2 && (traefikDash(fs[0]) || lex.IsDecimal(fs[0])) && (traefikDash(fs[1]) || lex.IsDecimal(fs[1])) {
			return i
		}
		from = i + 1
	}
}

// traefikCutLastField cuts the last space-separated field off b.
func traefikCutLastField(b []byte) (rest, field []byte, ok bool) {
	b = bytes.TrimRight(b, " ")
	i := bytes.LastIndexByte(b, ' ')
	if i < 0 {
		return nil, nil, false
	}
	return b[:i], b[i+1:], len(b) > i+1
}

// traefikCutQuoted cuts the last field off b: `"value"` (its value) or `-`.
func traefikCutQuoted(b []byte) (rest, value []byte, ok bool) {
	b = bytes.TrimRight(b, " ")
	if bytes.HasSuffix(b, []byte(" -")) {
		return b[:len(b)-2], []byte("-"), true
	}
	if len(b) < 2 || b[len(b)-1] != '"' {
		return nil, nil, false
	}
	i := bytes.LastIndexByte(b[:len(b)-1], '"')
	if i < 1 || b[i-1] != ' ' {
		return nil, nil, false
	}
	return b[:i-1], b[i+1 : len(b)-1], true
}

// traefikDash reports whether a field is `-`, Traefik's empty value.
func traefikDash(b []byte) bool { return len(b) == 1 && b[0] == '-' }

// traefikServiceAddr reads the pod's address from a server URL
// (`http://10.0.0.2:8080`, a path after it is allowed); the scheme's
// port when the URL has none. ok is false for a URL without an IP
// (ExternalName, a name).
func traefikServiceAddr(u string) (netip.AddrPort, bool) {
	scheme, rest, found := strings.Cut(u, "://")
	if !found {
		rest, scheme = u, "http"
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if rest == "" {
		return netip.AddrPort{}, false // a path, no server (Traefik v1's `"/"`)
	}
	if ap, ok := lex.ParseAddrPort([]byte(rest)); ok {
		return ap, true
	}
	if a, ok := lex.ParseAddr([]byte(strings.Trim(rest, "[]"))); ok {
		port := uint16(80)
		if scheme == "https" {
			port = 443
		}
		return netip.AddrPortFrom(a, port), true
	}
	return netip.AddrPort{}, true // a server named, not by IP: logged all the same
}

// traefikScanJSON reads a `json` line.
func traefikScanJSON(line []byte, f *traefikFields) error {
	var p fastjson.Parser
	v, err := p.ParseBytes(line)
	if err != nil || v.Type() != fastjson.TypeObject {
		return errTraefikNotAccess
	}
	status := v.Get("DownstreamStatus")
	if status == nil {
		return errTraefikNotAccess
	}
	n, err := status.Int()
	if err != nil || n < 0 || n > 999 {
		return errTraefikNotAccess
	}
	f.status = n
	stamp := v.GetStringBytes("StartUTC")
	if stamp == nil {
		stamp = v.GetStringBytes("StartLocal")
	}
	t, ok := lex.ParseRFC3339(stamp)
	if !ok {
		return errTraefikTime
	}
	f.time = t
	if s := v.Get("DownstreamContentSize"); s != nil {
		if n, err := s.Int(); err == nil {
			f.size, f.sizeKnown = n, true
		}
	}
	f.method = string(v.GetStringBytes("RequestMethod"))
	f.path = string(v.GetStringBytes("RequestPath"))
	f.router = string(v.GetStringBytes("RouterName"))
	if h := v.GetStringBytes("RequestHost"); len(h) > 0 {
		f.host = strings.ToLower(string(h))
	}
	if a := v.GetStringBytes("ServiceAddr"); len(a) > 0 {
		f.backend, f.backendLogged = traefikServiceAddr(string(a))
	} else if u := v.GetStringBytes("ServiceURL"); len(u) > 0 {
		f.backend, f.backendLogged = traefikServiceAddr(string(u))
	}
	if d := v.Get("Duration"); d != nil {
		if ns, err := d.Int64(); err == nil && ns >= 0 {
			f.duration = time.Duration(ns)
		}
	}
	if r := v.Get("RetryAttempts"); r != nil {
		if n, err := r.Int(); err == nil && n > 0 {
			f.retries = n
		}
	}
	return nil
}

// traefikOwnLine reports whether line is one of Traefik's own log lines:
// v3's default text (zerolog, `2024-01-02T03:04:05Z INF message`), v2's
// (logrus, `time="..." level=debug msg="..."`), or JSON with a level
// (`{"level":"debug",...}`).
func traefikOwnLine(line []byte) bool {
	if len(line) > 0 && line[0] == '{' {
		return bytes.Contains(line, []byte(`"level":`))
	}
	if bytes.HasPrefix(line, []byte(`time="`)) && bytes.Contains(line, []byte(" level=")) {
		return true
	}
	_, n, ok := lex.ScanRFC3339(line)
	if !ok || len(line) < n+5 || line[n] != ' ' {
		return false
	}
	switch string(line[n+1 : n+4]) {
	case "TRC", "DBG", "INF", "WRN", "ERR", "FTL", "PNC":
		return true
	}
	return false
}

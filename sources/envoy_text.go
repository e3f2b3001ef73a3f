package sources

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// envoyText reads Envoy access logs written by a format string: Envoy's
// default format (plain Envoy, Contour, kgateway, Envoy Gateway's text
// option), Istio's default (1.9 and later, and the 1.3-1.8 format before
// it), and the format given with Options.EnvoyFormat. The proxy's own log
// lines interleaved with them in `kubectl logs` (Envoy's
// `[date][thread][level][logger]` lines, Istio's pilot-agent lines) are
// valid lines without a record.
type envoyText struct {
	// formats are the formats lines are tried against: the format of
	// Options.EnvoyFormat, then the defaults (newEnvoyText); nil for the
	// defaults alone.
	formats []*envoyFormat
}

// newEnvoyText returns the adapter that reads custom before the defaults.
func newEnvoyText(custom *envoyFormat) envoyText {
	return envoyText{formats: append([]*envoyFormat{custom}, envoyTextDefaults...)}
}

// The default format strings, verbatim from their sources (see docs/envoy.md).
const (
	// envoyDefaultFormat is Envoy's (usage.rst, "Default Format String"),
	// also Contour's DefaultAccessLogType "envoy" and Envoy Gateway's
	// EnvoyTextLogFormat.
	envoyDefaultFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
		`%RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
		`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"\n`
	// istioDefaultFormat is Istio's EnvoyTextLogFormat since 1.9
	// (istio/istio pilot/pkg/model/telemetry_logging.go; %UPSTREAM_CLUSTER%
	// before %UPSTREAM_CLUSTER_RAW%, which writes the same text).
	istioDefaultFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% ` +
		`%PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% ` +
		`%RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% ` +
		`"%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% ` +
		`%DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" ` +
		`"%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" ` +
		`%UPSTREAM_CLUSTER_RAW% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% ` +
		`%DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% %ROUTE_NAME%\n`
	// istioMixerFormat is Istio's default from 1.3 to 1.8
	// (EnvoyTextLogFormat13), with the Mixer status where 1.9 put the
	// response code details.
	istioMixerFormat = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" ` +
		`%RESPONSE_CODE% %RESPONSE_FLAGS% "%DYNAMIC_METADATA(istio.mixer:status)%" ` +
		`"%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% %DURATION% ` +
		`%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER% ` +
		`%UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_REMOTE_ADDRESS% ` +
		`%REQUESTED_SERVER_NAME% %ROUTE_NAME%\n`
)

// envoyTextDefaults are the default formats in the order lines are tried
// against them: the longer Istio formats first, as Envoy's default is a
// prefix of their shape up to the response flags.
var envoyTextDefaults = []*envoyFormat{
	mustCompileEnvoyFormat(istioDefaultFormat, PlatformIstio),
	mustCompileEnvoyFormat(istioMixerFormat, PlatformIstio),
	mustCompileEnvoyFormat(envoyDefaultFormat, ""),
	mustCompileHeadless(istioDefaultFormat, PlatformIstio),
	mustCompileHeadless(istioMixerFormat, PlatformIstio),
	mustCompileHeadless(envoyDefaultFormat, ""),
}

// envoyStartTime is the leading time of the default formats, which a
// pasted line loses first.
const envoyStartTime = "[%START_TIME%] "

// mustCompileHeadless compiles a default format without its leading
// [%START_TIME%]: the line as pasted into an issue or a chat. Its lines
// are read in order, their time only ordering them (Request.OrderOnly).
func mustCompileHeadless(text string, p Platform) *envoyFormat {
	f := mustCompileEnvoyFormat(strings.TrimPrefix(text, envoyStartTime), p)
	f.headless = true
	return f
}

// Format returns FormatEnvoyAccess.
func (envoyText) Format() Format { return FormatEnvoyAccess }

// Match reports whether line is an access line in one of the formats.
func (a envoyText) Match(line []byte) bool {
	var rec envoyRecord
	line = envoyTrimLine(line)
	for _, f := range a.list() {
		if f.scan(line, &rec, time.UTC) == nil {
			return true
		}
	}
	return false
}

// list returns the formats lines are tried against, in order.
func (a envoyText) list() []*envoyFormat {
	if a.formats == nil {
		return envoyTextDefaults
	}
	return a.formats
}

// Reasons for skipping a text line.
var (
	errEnvoyTextUnknown = errors.New("not an Envoy access line in Envoy's or Istio's default format (give a custom format with --envoy-format)")
	errEnvoyTextCustom  = errors.New("an Envoy access line in neither the --envoy-format format nor a default one")
	errEnvoyNoTime      = errors.New("Envoy access line without %START_TIME% and without a wrapper time")
)

// envoyTextStates recycles the per-call working memory across lines and
// inputs: the adapter is shared by inputs read in parallel.
var envoyTextStates = sync.Pool{New: func() any { return new(envoyTextState) }}

// envoyTextState is the working memory of one Parse call.
type envoyTextState struct {
	rec envoyRecord
	buf envoyRequestBuffer
	// last is the format the last line was in, tried first: the lines of
	// one input are almost always in one format.
	last *envoyFormat
}

// Parse reports the Request of one access line.
func (a envoyText) Parse(line []byte, ln *Line, out *Emitter) error {
	line = envoyTrimLine(line)
	if envoyOwnLogLine(line) {
		return nil
	}
	st := envoyTextStates.Get().(*envoyTextState)
	defer envoyTextStates.Put(st)
	formats := a.list()
	matched := st.last != nil && slices.Contains(formats, st.last) && st.last.scan(line, &st.rec, out.Location()) == nil
	for _, f := range formats {
		if matched {
			break
		}
		if f != st.last && f.scan(line, &st.rec, out.Location()) == nil {
			matched, st.last = true, f
		}
	}
	if !matched {
		if a.formats != nil {
			return errEnvoyTextCustom
		}
		return errEnvoyTextUnknown
	}
	if st.last.headless && ln.Stamp.IsZero() {
		return emitOrderOnly(&st.rec, &st.buf, ln, out)
	}
	return emitEnvoyRecord(&st.rec, &st.buf, FormatEnvoyAccess, ln, out)
}

// emitOrderOnly reports the Request of a line whose [%START_TIME%] was cut
// off and that no wrapper timed: at the input's order-only time for its
// line, with a warning saying so.
func emitOrderOnly(rec *envoyRecord, buf *envoyRequestBuffer, ln *Line, out *Emitter) error {
	rec.time = out.OrderOnlyTime(ln.Origin.Line)
	out.WarnOnce("envoy-headless", "Envoy access lines without their leading [%%START_TIME%%] (cut off when pasted) were read in "+
		"their order only: each is timed %s after %s per line, a time that lines up with no other input; "+
		"export the log with its times (`kubectl logs --timestamps`) to place them", orderOnlyStep, out.orderOnlyAnchor().Format(time.RFC3339))
	if envoyTCP(rec) {
		return nil
	}
	flags, err := parseEnvoyFlags(rec.flags)
	if err != nil {
		return err
	}
	r := buf.build(rec, flags, FormatEnvoyAccess, ln.Origin)
	r.OrderOnly = true
	out.Request(r)
	return nil
}

// emitEnvoyRecord reports the Request of a line's record, timed by the
// wrapper stamp when the format logs no time.
func emitEnvoyRecord(rec *envoyRecord, buf *envoyRequestBuffer, format Format, ln *Line, out *Emitter) error {
	if rec.time.IsZero() {
		if ln.Stamp.IsZero() {
			return errEnvoyNoTime
		}
		rec.time, rec.timedAtEnd = ln.Stamp, true
	}
	if envoyTCP(rec) {
		return nil
	}
	flags, err := parseEnvoyFlags(rec.flags)
	if err != nil {
		return err
	}
	out.Request(buf.build(rec, flags, format, ln.Origin))
	return nil
}

// envoyTrimLine drops the white space (and a CRLF file's carriage return)
// around a line; formats are compiled the same way.
func envoyTrimLine(line []byte) []byte { return bytes.TrimSpace(line) }

// istioLogLevels are the levels Istio's own log lines (pilot-agent, and
// Envoy's log in Istio's layout) carry after their time:
// `2021-05-20T06:23:53.681056Z<TAB>info<TAB>Envoy proxy is ready`. The
// pipeline takes the time off as a wrapper stamp, so the line starts with
// the level; behind `kubectl logs --timestamps` it takes kubectl's stamp
// off and the line still starts with Istio's time.
var istioLogLevels = [][]byte{
	[]byte("debug\t"), []byte("info\t"), []byte("warn\t"), []byte("warning\t"),
	[]byte("error\t"), []byte("critical\t"), []byte("fatal\t"),
}

// envoyOwnLogLine reports whether line is the proxy's own log rather than
// an access line: Istio's layout (see istioLogLevels) or Envoy's default
// application log layout `[2024-07-20 07:05:54.173][1][info][main] ...`.
func envoyOwnLogLine(line []byte) bool {
	if _, n, ok := lex.ScanRFC3339(line); ok && n < len(line) && line[n] == '\t' {
		line = line[n+1:]
	}
	for _, l := range istioLogLevels {
		if bytes.HasPrefix(line, l) {
			return true
		}
	}
	const stamp = len("[2024-07-20 07:05:54.173]")
	return len(line) > stamp && line[0] == '[' && line[5] == '-' && line[8] == '-' && line[11] == ' ' &&
		line[stamp-1] == ']' && line[stamp] == '['
}

// Reasons for a line not being in a format (kept short: Parse replaces
// them with errEnvoyTextUnknown, and Match only needs to know).
var (
	errEnvoyScanLiteral = errors.New("literal text of the format missing")
	errEnvoyScanValue   = errors.New("value not what its command operator writes")
)

// scan matches line against format f and fills rec with the values it
// uses. The value of an operator runs up to the first occurrence of the
// literal after it (the last one, to the literal that ends the line); Envoy
// does not escape values in text logs, so a value containing that literal
// cannot be told apart in any case.
func (f *envoyFormat) scan(line []byte, rec *envoyRecord, loc *time.Location) error {
	*rec = envoyRecord{platform: f.platform}
	rest, ok := bytes.CutPrefix(line, f.lits[0])
	if !ok {
		return errEnvoyScanLiteral
	}
	var emit time.Time
	n := len(f.ops)
	for i := range f.ops {
		next := f.lits[i+1]
		c := &f.ops[i]
		if c.time != nil && i < n-1 {
			t, after, err := envoyScanTime(c, rest, next, loc)
			if err != nil {
				return err
			}
			if c.op == opStartTime {
				rec.time = t
			} else {
				emit = t
			}
			rest = after
			continue
		}
		var value []byte
		switch {
		case i == n-1:
			if value, ok = bytes.CutSuffix(rest, next); !ok {
				return errEnvoyScanLiteral
			}
		case len(next) == 1:
			j := bytes.IndexByte(rest, next[0])
			if j < 0 {
				return errEnvoyScanLiteral
			}
			value, rest = rest[:j], rest[j+1:]
		default:
			j := bytes.Index(rest, next)
			if j < 0 {
				return errEnvoyScanLiteral
			}
			value, rest = rest[:j], rest[j+len(next):]
		}
		t, err := rec.set(c, value, loc)
		if err != nil {
			return err
		}
		if c.op == opEmitTime {
			emit = t
		}
	}
	if !rec.hasStatus {
		return errEnvoyScanValue
	}
	if rec.time.IsZero() {
		rec.time, rec.timedAtEnd = emit, !emit.IsZero()
	}
	return nil
}

// envoyScanTime reads the value of time operator c at the start of rest,
// followed by the literal next, and returns the time (zero when unset) and
// what follows the literal. A time is read by its layout rather than up to
// the literal, which the layout may contain.
func envoyScanTime(c *envoyCommand, rest, next []byte, loc *time.Location) (time.Time, []byte, error) {
	if t, n, ok := c.time.scan(rest, loc); ok {
		if after, ok := bytes.CutPrefix(rest[n:], next); ok {
			return t, after, nil
		}
	}
	for _, unset := range [...][]byte{nil, []byte("-")} {
		if after, ok := bytes.CutPrefix(rest, unset); ok {
			if after, ok = bytes.CutPrefix(after, next); ok {
				return time.Time{}, after, nil
			}
		}
	}
	return time.Time{}, nil, errEnvoyScanValue
}

// set stores the value of one command operator in rec, checking it is
// what the operator writes. It returns the time an %EMIT_TIME% value reads.
func (rec *envoyRecord) set(c *envoyCommand, value []byte, loc *time.Location) (time.Time, error) {
	unset := envoyUnset(value)
	switch c.op {
	case opStartTime, opEmitTime:
		if unset {
			return time.Time{}, nil
		}
		t, ok := c.time.parse(value, loc)
		if !ok {
			return time.Time{}, errEnvoyScanValue
		}
		if c.op == opStartTime {
			rec.time = t
		}
		return t, nil
	case opStatus:
		rec.hasStatus = true
		if unset {
			return time.Time{}, nil
		}
		n, ok := lex.Digits(value)
		if !ok || len(value) > 3 {
			return time.Time{}, errEnvoyScanValue
		}
		rec.status = n
	case opFlags:
		if _, err := parseEnvoyFlags(value); err != nil {
			return time.Time{}, err
		}
		rec.flags = envoyValue(value)
	case opDetails, opTermination:
		if bytes.ContainsAny(value, " \"") {
			return time.Time{}, errEnvoyScanValue
		}
		if c.op == opDetails {
			rec.details = envoyValue(value)
		} else {
			rec.termination = envoyValue(value)
		}
	case opNumber, opAttemptCount, opDuration:
		if unset {
			return time.Time{}, nil
		}
		n, ok := lex.Digits(value)
		if !ok {
			return time.Time{}, errEnvoyScanValue
		}
		switch c.op {
		case opAttemptCount:
			rec.attemptCount = n
		case opDuration:
			rec.durationMS = n
		}
	default:
		rec.setText(c.op, envoyValue(value))
	}
	return time.Time{}, nil
}

// setText stores the value of an operator whose text readygap keeps as written.
func (rec *envoyRecord) setText(op envoyOp, value []byte) {
	switch op {
	case opMethod:
		rec.method = value
	case opPath:
		rec.path = value
	case opReason:
		rec.reason = value
	case opHost:
		if rec.host == nil {
			rec.host = value
		}
	case opHostsAttempted:
		rec.hostsAttempted = value
	case opCluster:
		rec.cluster = value
	case opRoute:
		rec.route = value
	case opDownstreamLocal:
		rec.downstreamLocal = value
	}
}

// envoyRequestShape is what any Envoy text access line shows: a quoted
// request line, then the response code and the response flags.
var envoyRequestShape = regexp.MustCompile(`"[A-Z]+ \S+ HTTP/[0-9.]+" \d{3} (-|[A-Z]{2,4}(,[A-Z]{2,4})*) `)

// NearMiss recognises the shape of an Envoy access line in a format of
// its own. (A default line whose leading [%START_TIME%] was cut off is
// read, order only: see mustCompileHeadless.)
func (a envoyText) NearMiss(s *nearSample) (nearScore, string) {
	line := s.first()
	if len(line) == 0 {
		return nearNone, ""
	}
	if envoyRequestShape.Match(line) {
		return nearShape, "an Envoy-like access line (a quoted request, a status, response flags) in neither Envoy's nor Istio's default format: give its format with --envoy-format"
	}
	return nearNone, ""
}

package sources

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"net/netip"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// albAccess reads AWS Application Load Balancer access logs as ALB writes
// them to S3 (one request per line, space-separated fields, some of them
// double-quoted). It turns each line into a Request and tells ALB-generated
// errors (no target, connect refused, target closed, timeout) from
// responses the target itself sent.
//
// The line layout grew from 25 fields (up to error_reason) to 34 and more
// over the years; only the first 25 are read and any later ones are ignored,
// as AWS asks parsers to do.
type albAccess struct{}

// Positions (0-based) of the access-log fields readygap uses.
const (
	albFieldType = iota
	albFieldTime
	albFieldELB
	albFieldClient
	albFieldTarget
	albFieldRequestTime
	albFieldTargetTime
	albFieldResponseTime
	albFieldELBStatus
	albFieldTargetStatus
	albFieldReceivedBytes
	albFieldSentBytes
	albFieldRequest
	albFieldRequestCreationTime = 21
	albFieldErrorReason         = 24
	// albAccessMinFields is the field count of the oldest layout (up to error_reason).
	albAccessMinFields = 25
)

// albControlPrefix starts the line ELB writes to the ELBAccessLogTestFile
// object when access logging is enabled. It is not a request.
var albControlPrefix = []byte("Enable AccessLog for ELB: ")

var (
	errALBUnterminatedQuote = errors.New("unterminated quoted field")
	errALBBadTime           = errors.New("bad time: want ISO 8601 UTC like 2018-07-02T22:23:00.186641Z")
	errALBBadELBStatus      = errors.New("bad elb_status_code")
	errALBBadTargetStatus   = errors.New("bad target_status_code")
	errALBBadTarget         = errors.New("bad target:port")
)

// Format reports FormatALBAccess.
func (albAccess) Format() Format { return FormatALBAccess }

// Match reports whether line is an ALB access-log entry (a known request
// type, an ISO 8601 UTC time and at least 25 fields) or the control line of
// an ELBAccessLogTestFile.
func (albAccess) Match(line []byte) bool {
	if bytes.HasPrefix(line, albControlPrefix) {
		return true
	}
	var f [albAccessMinFields][]byte
	n, err := albSplitFields(line, f[:])
	if err != nil || n < albAccessMinFields || !albIsAccessType(f[albFieldType]) {
		return false
	}
	_, ok := albParseTime(f[albFieldTime], nil)
	return ok
}

// Parse turns one access-log line into a Request. The control line of an
// ELBAccessLogTestFile and blank lines carry no record.
func (albAccess) Parse(line []byte, ln *Line, out *Emitter) error {
	line = albTrimEnd(line)
	if len(line) == 0 || bytes.HasPrefix(line, albControlPrefix) {
		return nil
	}
	var f [albAccessMinFields][]byte
	n, err := albAccessMinFields, error(nil)
	if albSlowSplit || !albSplitCommon(line, &f, &out.albRuns) {
		n, err = albSplitFields(line, f[:])
	}
	if err != nil {
		return err
	}
	if !albIsAccessType(f[albFieldType]) {
		return fmt.Errorf("unknown ALB request type %q", albShorten(f[albFieldType]))
	}
	if n < albAccessMinFields {
		return fmt.Errorf("ALB access line has %d fields, want at least %d", n, albAccessMinFields)
	}
	r := &out.request
	if err := albFillRequest(r, &f, ln.Origin, &out.clock, out.outcomesOnly); err != nil {
		return err
	}
	out.Request(r)
	return nil
}

// albFillRequest sets every field of r from the split fields of one line,
// reading its time through clock. With outcomesOnly, a request that did
// not fail gets no Method, Path or Detail (see OutcomeHandler): cutting
// the request line was a fifth of the time of filling a Request.
func albFillRequest(r *Request, f *[albAccessMinFields][]byte, o Origin, clock *lex.Clock, outcomesOnly bool) error {
	t, ok := albParseTime(f[albFieldTime], clock)
	if !ok {
		return errALBBadTime
	}
	status, ok := albParseStatus(f[albFieldELBStatus])
	if !ok {
		return errALBBadELBStatus
	}
	targetStatus := 0
	if !albIsDash(f[albFieldTargetStatus]) {
		if targetStatus, ok = albParseStatus(f[albFieldTargetStatus]); !ok {
			return errALBBadTargetStatus
		}
	}
	var backend netip.AddrPort
	if !albIsDash(f[albFieldTarget]) {
		if backend, ok = lex.ParseAddrPort(f[albFieldTarget]); !ok {
			return errALBBadTarget
		}
	}
	*r = Request{
		Time:    t,
		LB:      inputString(f[albFieldELB]),
		Status:  status,
		Backend: backend,
		Format:  FormatALBAccess,
		Origin:  o,
	}
	albStartTime(r, f[albFieldRequestCreationTime], clock)
	r.Generator, r.Failure = albClassify(status, targetStatus, backend.IsValid(), f)
	if outcomesOnly && r.Failure == FailureNone {
		return nil
	}
	method, uri := albSplitRequestLine(f[albFieldRequest])
	r.Method, r.Path = inputString(method), inputString(albURIPath(uri))
	if !albIsDash(f[albFieldErrorReason]) {
		r.Detail = inputString(f[albFieldErrorReason])
	}
	return nil
}

// albStartTime moves r, timed by the line's time field (when the load
// balancer sent the response's last byte), to request_creation_time
// ("the time when the load balancer received the request from the
// client", Elastic Load Balancing user guide, Access log entries) and
// sets its Duration to the difference. A creation time that is `-`,
// malformed, after the time field or more than albMaxRequestSpan before
// it leaves r as logged: the time field is then the best the line says.
func albStartTime(r *Request, created []byte, clock *lex.Clock) {
	if albIsDash(created) {
		return
	}
	start, ok := albParseTime(created, clock)
	if !ok || start.After(r.Time) || r.Time.Sub(start) > albMaxRequestSpan {
		return
	}
	r.Duration = r.Time.Sub(start)
	r.LoggedAfter, r.Time = r.Duration, start
}

// albMaxRequestSpan bounds how long before its time field a request can
// have arrived: the longest connection idle timeout an ALB takes, 4000 s
// ("Connection idle timeout", Application Load Balancers user guide),
// as a request that sends or receives nothing longer is closed.
const albMaxRequestSpan = 4000 * time.Second

// albClassify says who produced the status and how the request failed.
// targetStatus is 0 when the target sent no response ("-").
func albClassify(status, targetStatus int, hasTarget bool, f *[albAccessMinFields][]byte) (Generator, FailureKind) {
	if targetStatus != 0 {
		if targetStatus >= 500 {
			return GeneratedByBackend, FailureAppError
		}
		return GeneratedByBackend, FailureNone
	}
	if status < 500 || status > 599 {
		// Redirects, fixed responses, WAF blocks, 460 client closed.
		return GeneratedByLB, FailureNone
	}
	return GeneratedByLB, albLBFailure(status, hasTarget, f)
}

// albLBFailure names the failure behind a 5xx the ALB produced itself.
func albLBFailure(status int, hasTarget bool, f *[albAccessMinFields][]byte) FailureKind {
	switch {
	case status == 504:
		return FailureTimeout
	case !hasTarget && (status == 503 || status == 502):
		// 503: no registered target; 502: only initial or draining targets left.
		return FailureNoBackend
	case status != 502 || !hasTarget:
		return FailureOther
	}
	requestTime, targetTime, responseTime := f[albFieldRequestTime], f[albFieldTargetTime], f[albFieldResponseTime]
	switch {
	case albIsMinusOne(requestTime) && albIsMinusOne(targetTime) && albIsMinusOne(responseTime):
		// A TCP RST on connect: "the request_processing_time,
		// target_processing_time and response_processing_time fields ...
		// are -1" (AWS Knowledge Center, troubleshooting ALB 502 errors).
		return FailureRefused
	case !albIsNegative(requestTime) && (albIsMinusOne(responseTime) || albIsMinusOne(targetTime)):
		// The request went out and no response came back: "the target
		// closed the connection with a TCP RST or a TCP FIN while the load
		// balancer had an outstanding request", whose Knowledge Center
		// example is `0.001 4.205 -1 502 -`; keep-alive races in the wild
		// log `0.003 0.000 -1 502 -` (kartikk221/hyper-express#179).
		return FailureClosed
	}
	return FailureOther
}

// albSplitFields splits an ALB log line into its leading fields, storing at
// most len(dst) of them, and returns how many it stored. Fields are separated
// by runs of spaces. A field that starts with a double quote runs to the next
// quote that is not escaped by a backslash and is followed by a space or the
// end of the line; the quotes are stripped. The rest of the line after
// len(dst) fields is not looked at.
func albSplitFields(line []byte, dst [][]byte) (int, error) {
	n := 0
	for n < len(dst) {
		for len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		if len(line) == 0 {
			break
		}
		var field []byte
		if line[0] == '"' {
			end := albClosingQuote(line)
			if end < 0 {
				return n, errALBUnterminatedQuote
			}
			field, line = line[1:end], line[end+1:]
		} else if sp := bytes.IndexByte(line, ' '); sp >= 0 {
			field, line = line[:sp], line[sp:]
		} else {
			field, line = line, nil
		}
		dst[n] = field
		n++
	}
	return n, nil
}

// albSlowSplit, set by tests, splits every line with albSplitFields alone,
// to compare the records of the common layout's fast path with it.
var albSlowSplit bool

// albShape is how a field of the common layout is written.
type albShape uint8

const (
	// albQuoted fields are written between double quotes.
	albQuoted albShape = 1 << iota
	// albShort fields are most often shorter than eight bytes (see
	// albNextByte); a longer one is only slower, not misread.
	albShort
)

// albCommonLayout is how ALB writes the first 25 fields of nearly every
// line, in the order of the access-log entry reference ("Access log
// entries", Elastic Load Balancing user guide): type, time, elb,
// client:port, target:port, the three processing times, elb and target
// status codes, received and sent bytes, "request", "user_agent",
// ssl_cipher, ssl_protocol, target_group_arn, "trace_id", "domain_name",
// "chosen_cert_arn", matched_rule_priority, request_creation_time,
// "actions_executed", "redirect_url", "error_reason".
var albCommonLayout = [albAccessMinFields]albShape{
	albShort, 0, 0, 0, 0,
	albShort, albShort, albShort, albShort, albShort, albShort, albShort,
	albQuoted, albQuoted, 0, albShort, 0,
	albQuoted, albQuoted, albQuoted, albShort, 0,
	albQuoted | albShort, albQuoted | albShort, albQuoted | albShort,
}

// albSplitCommon splits a line written in albCommonLayout with one space
// between fields, as albSplitFields would, and reports whether it could.
// Knowing which fields are quoted and which are short, it makes no
// decision per field that the line does not confirm at once; anything
// else (a field quoted where none is expected or the other way round, runs
// of spaces, a closing quote after a backslash or not followed by a space,
// fewer fields) makes it give up, and albSplitFields reads the line.
// Splitting was two thirds of the time of parsing a line.
//
// runs, when not nil, holds the albRepeatedRuns of the last line split:
// a run written alike on this line is taken as it was split there.
func albSplitCommon(line []byte, dst *[albAccessMinFields][]byte, runs *albRuns) bool {
	i, n, ok := 0, 0, false
	for k, r := range albRepeatedRuns {
		if i, ok = albSplitRange(line, i, dst, n, r.from); !ok {
			return false
		}
		n = r.to
		if runs != nil {
			if j, same := runs[k].match(line, i, dst[r.from:r.to]); same {
				i = j
				continue
			}
		}
		start := i
		if i, ok = albSplitRange(line, i, dst, r.from, r.to); !ok {
			return false
		}
		if runs != nil {
			runs[k].remember(line, start, i, dst[r.from:r.to])
		}
	}
	i, ok = albSplitRange(line, i, dst, n, albAccessMinFields)
	return ok
}

// albSplitRange splits the fields from to to of albCommonLayout (see
// albSplitCommon) from line[i:], and returns where the next field starts.
func albSplitRange(line []byte, i int, dst *[albAccessMinFields][]byte, from, to int) (int, bool) {
	for n := from; n < to; {
		shape := albCommonLayout[n]
		if shape&albQuoted == 0 {
			// A run of unquoted fields is split a word at a time.
			k := n + 1
			for k < to && albCommonLayout[k]&albQuoted == 0 {
				k++
			}
			var ok bool
			if i, ok = albSplitWords(line, i, dst[n:k]); !ok {
				return 0, false
			}
			n = k
			continue
		}
		if i >= len(line) || line[i] != '"' {
			return 0, false
		}
		q := albNextByte(line, i+1, '"', shape&albShort != 0)
		// An unescaped quote is followed by a space or the end; a
		// backslash before it may escape it: let albSplitFields count.
		if q == len(line) || line[q-1] == '\\' {
			return 0, false
		}
		dst[n], i = line[i+1:q], q+1
		if i < len(line) {
			if line[i] != ' ' {
				return 0, false
			}
			i++
		}
		n++
	}
	return i, true
}

// albRepeatedRuns are the runs of fields, from and up to to, that ALB
// writes alike on most lines of a load balancer: ssl_cipher to
// target_group_arn, domain_name to matched_rule_priority, and
// actions_executed to error_reason. Comparing a run with the last line's
// costs less than splitting its 100 to 150 bytes again.
var albRepeatedRuns = [...]struct{ from, to int }{{14, 17}, {18, 21}, {22, 25}}

// albRuns holds one albRun for each of albRepeatedRuns.
type albRuns [len(albRepeatedRuns)]albRun

// albRun is a run of fields as written on the last line split: its text
// from the first field to the end of the last (a copy: lines are reused),
// and where each field lies in it.
type albRun struct {
	text   []byte
	fields [3]struct{ off, len int }
}

// albMaxRunText bounds the text an albRun keeps; a longer run is split
// on every line. On the ALB objects of the ingest benchmark the runs are
// 138, 105 and 17 bytes long; 512 holds the longest domain_name (253
// bytes, the DNS limit) with a certificate ARN, and leaves out a rare long
// redirect_url.
const albMaxRunText = 512

// match reports whether line[i:] starts with the run's text followed by a
// space or the end of the line. The text holds whole fields that were
// split before: the same bytes split into the same fields, which it sets
// in dst. It returns where the next field starts.
func (r *albRun) match(line []byte, i int, dst [][]byte) (int, bool) {
	j := i + len(r.text)
	if len(r.text) == 0 || j > len(line) || !bytes.Equal(line[i:j], r.text) {
		return 0, false
	}
	if j < len(line) {
		if line[j] != ' ' {
			return 0, false
		}
		j++
	}
	for k := range dst {
		f := r.fields[k]
		dst[k] = line[i+f.off : i+f.off+f.len]
	}
	return j, true
}

// remember keeps the run of fields dst split from line[start:next], next
// being where the field after them starts.
func (r *albRun) remember(line []byte, start, next int, dst [][]byte) {
	end := next
	if line[end-1] == ' ' { // a field never ends with a space: the separator
		end--
	}
	if end-start > albMaxRunText {
		r.text = r.text[:0]
		return
	}
	r.text = append(r.text[:0], line[start:end]...)
	for k, f := range dst {
		// f is a slice of line: its offset is what its capacity lacks.
		r.fields[k].off, r.fields[k].len = cap(line)-cap(f)-start, len(f)
	}
}

// albSplitWords splits len(dst) unquoted fields from line[i:], each
// followed by one space, as albSplitFields would, and returns where the
// next field starts. It reports false for an empty field (a run of
// spaces), a field that starts with a quote, or a line that ends first.
// Spaces are looked for eight bytes at a time across fields: a call of
// albNextByte per field cost more than the scan of the fields' bytes.
func albSplitWords(line []byte, i int, dst [][]byte) (int, bool) {
	n, start := 0, i
	for ; i+8 <= len(line); i += 8 {
		for sp := swarZeros(binary.LittleEndian.Uint64(line[i:]) ^ swarSpaces); sp != 0; sp &= sp - 1 {
			end := i + bits.TrailingZeros64(sp)>>3
			if end == start || line[start] == '"' {
				return 0, false
			}
			dst[n], start = line[start:end], end+1
			if n++; n == len(dst) {
				return start, true
			}
		}
	}
	for ; i < len(line); i++ {
		if line[i] != ' ' {
			continue
		}
		if i == start || line[start] == '"' {
			return 0, false
		}
		dst[n], start = line[start:i], i+1
		if n++; n == len(dst) {
			return start, true
		}
	}
	return 0, false
}

// albNextByte returns the index of the first c in line at or after from,
// or len(line) when there is none. For a short field the first eight bytes
// are looked at as one word: a call of bytes.IndexByte costs more than a
// field like "200", "0.000" or "-".
func albNextByte(line []byte, from int, c byte, short bool) int {
	if short && from+8 <= len(line) {
		if z := swarZeros(binary.LittleEndian.Uint64(line[from:]) ^ (swarOnes * uint64(c))); z != 0 {
			return from + bits.TrailingZeros64(z)>>3
		}
		from += 8
	}
	if i := bytes.IndexByte(line[from:], c); i >= 0 {
		return from + i
	}
	return len(line)
}

// albTrimEnd drops the spaces, tabs and carriage return at the end of line.
func albTrimEnd(line []byte) []byte {
	for len(line) > 0 {
		switch line[len(line)-1] {
		case ' ', '\t', '\r':
			line = line[:len(line)-1]
		default:
			return line
		}
	}
	return line
}

// albClosingQuote returns the index of the quote that closes the quoted
// field starting at line[0], or -1 when there is none.
func albClosingQuote(line []byte) int {
	for i := 1; i < len(line); {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			return -1
		}
		i += q
		if !albEscaped(line, i) && (i+1 == len(line) || line[i+1] == ' ') {
			return i
		}
		i++
	}
	return -1
}

// albEscaped reports whether line[i] is preceded by an odd number of backslashes.
func albEscaped(line []byte, i int) bool {
	n := 0
	for j := i - 1; j > 0 && line[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// albIsAccessType reports whether b is a request type ALB writes in access logs.
func albIsAccessType(b []byte) bool {
	switch string(b) {
	case "http", "https", "h2", "grpcs", "ws", "wss":
		return true
	}
	return false
}

// albIsDash, albIsMinusOne and albIsNegative recognise the values ALB writes
// for "none" (-) and "not measured" (-1).
func albIsDash(b []byte) bool     { return len(b) == 1 && b[0] == '-' }
func albIsMinusOne(b []byte) bool { return len(b) == 2 && b[0] == '-' && b[1] == '1' }
func albIsNegative(b []byte) bool { return len(b) > 0 && b[0] == '-' }

// albParseStatus parses a three-digit HTTP status code.
func albParseStatus(b []byte) (int, bool) {
	if len(b) != 3 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, v >= 100
}

// albParseTime parses an ISO 8601 UTC time of the form
// 2006-01-02T15:04:05[.fraction]Z from 1970 on (earlier years are garbage,
// and year 1 would be the zero time), through clock when it is not nil.
func albParseTime(b []byte, clock *lex.Clock) (time.Time, bool) {
	if len(b) < len("2006-01-02T15:04:05Z") || b[10] != 'T' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	var t time.Time
	var ok bool
	if clock != nil {
		t, ok = clock.ParseRFC3339(b)
	} else {
		t, ok = lex.ParseRFC3339(b)
	}
	return t, ok && t.Unix() >= 0
}

// albSplitRequestLine splits the request field ("GET https://host:443/p
// HTTP/1.1") into method and URI. The URI may itself contain spaces. A
// malformed request ("- - -") gives neither.
func albSplitRequestLine(req []byte) (method, uri []byte) {
	sp := albNextByte(req, 0, ' ', true) // the method is short
	if sp == len(req) {
		if albIsDash(req) {
			return nil, nil
		}
		return req, nil
	}
	method, uri = req[:sp], req[sp+1:]
	if last := bytes.LastIndexByte(uri, ' '); last >= 0 {
		if proto := uri[last+1:]; bytes.HasPrefix(proto, []byte("HTTP/")) || albIsDash(proto) {
			uri = uri[:last]
		}
	}
	if albIsDash(method) {
		method = nil
	}
	if albIsDash(uri) {
		uri = nil
	}
	return method, uri
}

// albURIPath returns the path and query of an absolute URI
// (https://host:443/a?b gives /a?b); other URIs are returned as they are.
// ALB writes https:// or http:// before nearly every URI: those are cut
// without looking for "://".
func albURIPath(uri []byte) []byte {
	rest, ok := bytes.CutPrefix(uri, albHTTPSScheme)
	if !ok {
		rest, ok = bytes.CutPrefix(uri, albHTTPScheme)
	}
	if !ok {
		sep := bytes.Index(uri, []byte("://"))
		if sep < 0 || bytes.IndexByte(uri[:sep], '/') >= 0 {
			return uri
		}
		rest = uri[sep+3:]
	}
	// The host and port end at the first slash or question mark, looked
	// for a word at a time.
	i := 0
	for ; i+8 <= len(rest); i += 8 {
		w := binary.LittleEndian.Uint64(rest[i:])
		if z := swarZeros(w^(swarOnes*'/')) | swarZeros(w^(swarOnes*'?')); z != 0 {
			return rest[i+bits.TrailingZeros64(z)>>3:]
		}
	}
	for ; i < len(rest); i++ {
		if rest[i] == '/' || rest[i] == '?' {
			return rest[i:]
		}
	}
	return albRootPath
}

// albHTTPSScheme and albHTTPScheme start the URIs of HTTPS and HTTP requests.
var albHTTPSScheme, albHTTPScheme = []byte("https://"), []byte("http://")

var albRootPath = []byte("/")

// albShorten cuts b for use in an error message.
func albShorten(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// NearMiss recognises a line that starts as an ALB access line (a request
// type and an RFC 3339 time) and says which field is missing or wrong.
func (albAccess) NearMiss(s *nearSample) (nearScore, string) {
	line := s.first()
	var f [albAccessMinFields][]byte
	n, err := albSplitFields(line, f[:])
	if n < 2 || !albIsAccessType(f[albFieldType]) {
		return nearNone, ""
	}
	if _, ok := albParseTime(f[albFieldTime], nil); !ok {
		return nearNone, ""
	}
	switch {
	case err != nil:
		return nearFields, "an ALB access line that does not split into fields: " + err.Error()
	case n >= albAccessMinFields:
		return nearShape, "an ALB access line readygap could not read"
	}
	return nearFields, fmt.Sprintf("an ALB access line with %d fields where ALB writes at least %d (a cut or re-formatted line)", n, albAccessMinFields)
}

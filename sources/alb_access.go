package sources

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
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
	albFieldErrorReason = 24
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
	_, ok := albParseTime(f[albFieldTime])
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
	n, err := albSplitFields(line, f[:])
	if err != nil {
		return err
	}
	if !albIsAccessType(f[albFieldType]) {
		return fmt.Errorf("unknown ALB request type %q", albShorten(f[albFieldType]))
	}
	if n < albAccessMinFields {
		return fmt.Errorf("ALB access line has %d fields, want at least %d", n, albAccessMinFields)
	}
	r := albRequestPool.Get().(*Request)
	defer albRequestPool.Put(r)
	if err := albFillRequest(r, &f, ln.Origin); err != nil {
		return err
	}
	out.Request(r)
	return nil
}

// albRequestPool recycles the Request handed to the Emitter, which keeps a
// pointer only for the duration of the call.
var albRequestPool = sync.Pool{New: func() any { return new(Request) }}

// albFillRequest sets every field of r from the split fields of one line.
func albFillRequest(r *Request, f *[albAccessMinFields][]byte, o Origin) error {
	t, ok := albParseTime(f[albFieldTime])
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
		if backend, ok = albParseAddrPort(f[albFieldTarget]); !ok {
			return errALBBadTarget
		}
	}
	method, uri := albSplitRequestLine(f[albFieldRequest])
	*r = Request{
		Time:    t,
		LB:      albStrings.get(f[albFieldELB]),
		Status:  status,
		Backend: backend,
		Method:  albMethod(method),
		Path:    albStrings.get(albURIPath(uri)),
		Format:  FormatALBAccess,
		Origin:  o,
	}
	if !albIsDash(f[albFieldErrorReason]) {
		r.Detail = albStrings.get(f[albFieldErrorReason])
	}
	r.Generator, r.Failure = albClassify(status, targetStatus, backend.IsValid(), f)
	return nil
}

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
	requestTime, targetTime := f[albFieldRequestTime], f[albFieldTargetTime]
	switch {
	case albIsMinusOne(requestTime) && albIsMinusOne(targetTime) && albIsMinusOne(f[albFieldResponseTime]):
		return FailureRefused
	case !albIsNegative(requestTime) && albIsMinusOne(targetTime):
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
// 2006-01-02T15:04:05[.fraction]Z, with 1 to 9 fraction digits, from 1970 on
// (earlier years are garbage, and year 1 would be the zero time).
func albParseTime(b []byte) (time.Time, bool) {
	if len(b) < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[len(b)-1] != 'Z' {
		return time.Time{}, false
	}
	year, ok1 := albDigits(b[0:4])
	month, ok2 := albDigits(b[5:7])
	day, ok3 := albDigits(b[8:10])
	hour, ok4 := albDigits(b[11:13])
	minute, ok5 := albDigits(b[14:16])
	sec, ok6 := albDigits(b[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) ||
		year < 1970 || !albValidDate(year, month, day) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec, ok := albFraction(b[19 : len(b)-1])
	if !ok {
		return time.Time{}, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// albFraction parses "" or ".ddd" (1 to 9 digits) into nanoseconds.
func albFraction(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if b[0] != '.' || len(b) < 2 || len(b) > 10 {
		return 0, false
	}
	v, ok := albDigits(b[1:])
	for i := len(b) - 1; i < 9; i++ {
		v *= 10
	}
	return v, ok
}

// albDigits parses a run of ASCII digits.
func albDigits(b []byte) (int, bool) {
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, len(b) > 0
}

// albValidDate reports whether year-month-day is a calendar date.
func albValidDate(year, month, day int) bool {
	if month < 1 || month > 12 || day < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// albParseAddrPort parses ip:port, with the common IPv4 form read without
// allocating and bracketed IPv6 ([2001:db8::1]:80) through netip.
func albParseAddrPort(b []byte) (netip.AddrPort, bool) {
	if ap, ok := albParseIPv4Port(b); ok {
		return ap, true
	}
	if len(b) == 0 || b[0] != '[' {
		return netip.AddrPort{}, false
	}
	ap, err := netip.ParseAddrPort(string(b))
	return ap, err == nil
}

// albParseIPv4Port parses a.b.c.d:port.
func albParseIPv4Port(b []byte) (netip.AddrPort, bool) {
	var ip [4]byte
	for i := range ip {
		end := 0
		for end < len(b) && end < 4 && b[end] >= '0' && b[end] <= '9' {
			end++
		}
		sep := byte('.')
		if i == 3 {
			sep = ':'
		}
		v, ok := albDigits(b[:end])
		if !ok || v > 255 || end > 3 || (end > 1 && b[0] == '0') || end == len(b) || b[end] != sep {
			return netip.AddrPort{}, false
		}
		ip[i] = byte(v)
		b = b[end+1:]
	}
	port, ok := albDigits(b)
	if !ok || len(b) > 5 || port > 65535 {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(netip.AddrFrom4(ip), uint16(port)), true
}

// albSplitRequestLine splits the request field ("GET https://host:443/p
// HTTP/1.1") into method and URI. The URI may itself contain spaces. A
// malformed request ("- - -") gives neither.
func albSplitRequestLine(req []byte) (method, uri []byte) {
	sp := bytes.IndexByte(req, ' ')
	if sp < 0 {
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
func albURIPath(uri []byte) []byte {
	sep := bytes.Index(uri, []byte("://"))
	if sep < 0 || bytes.IndexByte(uri[:sep], '/') >= 0 {
		return uri
	}
	rest := uri[sep+3:]
	if i := bytes.IndexAny(rest, "/?"); i >= 0 {
		return rest[i:]
	}
	return albRootPath
}

var albRootPath = []byte("/")

// albMethod returns the method as a string, without allocating for the
// standard methods.
func albMethod(b []byte) string {
	switch string(b) {
	case "GET":
		return "GET"
	case "POST":
		return "POST"
	case "PUT":
		return "PUT"
	case "HEAD":
		return "HEAD"
	case "DELETE":
		return "DELETE"
	case "PATCH":
		return "PATCH"
	case "OPTIONS":
		return "OPTIONS"
	case "CONNECT":
		return "CONNECT"
	case "TRACE":
		return "TRACE"
	}
	return albStrings.get(b)
}

// albShorten cuts b for use in an error message.
func albShorten(b []byte) []byte {
	if len(b) > 32 {
		return b[:32]
	}
	return b
}

// albStrings interns the load balancer names, paths and error reasons of
// access-log lines.
var albStrings = newALBStringCache()

// albStringCacheSlots is the number of strings albStringCache keeps; a
// power of two.
const albStringCacheSlots = 1 << 12

// albStringCacheMaxLen is the longest value albStringCache keeps.
const albStringCacheMaxLen = 256

// albStringCache turns byte slices into strings, returning the same string
// without allocating when the value was seen recently. It is a direct-mapped
// cache: each value hashes to one slot and a new value replaces the old one,
// so memory stays bounded whatever the input. It is safe for concurrent use.
type albStringCache struct {
	seed  maphash.Seed
	slots [albStringCacheSlots]atomic.Pointer[string]
}

func newALBStringCache() *albStringCache {
	return &albStringCache{seed: maphash.MakeSeed()}
}

// get returns string(b), reusing a cached copy when there is one.
func (c *albStringCache) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > albStringCacheMaxLen {
		return string(b)
	}
	slot := &c.slots[maphash.Bytes(c.seed, b)&(albStringCacheSlots-1)]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}

package sources

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"net/netip"
	"regexp"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// ingressNginx reads what `kubectl logs` prints for an ingress-nginx
// controller pod: nginx access lines in the default `upstreaminfo` format
// (and its pre-0.26 variants), nginx error-log lines and the controller's own
// klog lines, all interleaved in one stream. Parse tells the three apart by
// the shape of the line; the access lines are in this file, the others in
// nginx_error.go and klog.go. With Options.NginxFormat, access lines in
// that log-format-upstream are read too, before the default ones.
type ingressNginx struct {
	// custom is the log_format of Options.NginxFormat; nil without one.
	custom *nginxFormat
}

// Format returns FormatIngressNginx.
func (ingressNginx) Format() Format { return FormatIngressNginx }

// Match reports whether line is an ingress-nginx access line, an nginx
// error-log line or a klog line.
func (a ingressNginx) Match(line []byte) bool {
	line = nginxUnwrap(line)
	if nginxOtherLineMatch(line) {
		return true
	}
	if a.custom != nil {
		var vals nginxValues
		var stamp lex.Stamp
		if a.custom.scan(line, &vals, &stamp) == nil {
			return true
		}
	}
	var f nginxAccessFields
	return nginxScanAccess(line, &f) == nil
}

// nginxOtherLineMatch reports whether line is a valid nginx error-log line
// or klog line, which controllers print among their access lines.
func nginxOtherLineMatch(line []byte) bool {
	switch {
	case klogShaped(line):
		_, _, err := klogSplitHeader(line)
		return err == nil
	case nginxErrorShaped(line):
		_, _, err := nginxErrorSplit(line)
		return err == nil
	}
	return false
}

// Parse reports the record of one line: a Request for an access line or an
// upstream error, a Lifecycle for the klog lines that matter. Other valid
// lines carry no record.
func (a ingressNginx) Parse(line []byte, ln *Line, out *Emitter) error {
	line = nginxUnwrap(line)
	switch {
	case klogShaped(line):
		return klogParse(line, ln, out)
	case nginxErrorShaped(line):
		return nginxErrorParse(line, ln, out)
	}
	if a.custom == nil {
		return nginxAccessParse(line, ln, out)
	}
	var vals nginxValues
	err := a.custom.scan(line, &vals, &out.stamp)
	if err == nil {
		return vals.emit(FormatIngressNginx, ln, out)
	}
	if nginxAccessParse(line, ln, out) == nil {
		return nil
	}
	return err
}

// ZoneOffset returns the zone of an access line's $time_local: error-log
// and klog lines of the same controller are written at the same offset but
// without it (see zoneLearner).
func (a ingressNginx) ZoneOffset(line []byte) (time.Duration, time.Time, bool) {
	line = nginxUnwrap(line)
	if klogShaped(line) || nginxErrorShaped(line) {
		return 0, time.Time{}, false
	}
	if a.custom != nil {
		var vals nginxValues
		if a.custom.scan(line, &vals, nil) == nil && vals.zoned {
			return vals.offset, vals.time, true
		}
	}
	var f nginxAccessFields
	if nginxScanAccess(line, &f) != nil {
		return 0, time.Time{}, false
	}
	return f.offset, f.time, true
}

// nginxUnwrap drops a CRLF file's carriage return and a log viewer's stamp.
func nginxUnwrap(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return nginxTrimViewerStamp(line)
}

// nginxTrimViewerStamp drops the `2023-08-11 21:29:08\t` or
// `2024-03-21 07:57:56.690\t` prefix (no zone) that log viewers put in front
// of each line when it is copied out of them (issues #10301, #11145). No
// line of the three ingress-nginx kinds starts with `dddd-`, so the check is
// cheap and safe.
func nginxTrimViewerStamp(line []byte) []byte {
	if len(line) < 20 || line[4] != '-' || line[7] != '-' || line[10] != ' ' || line[13] != ':' {
		return line
	}
	for i := 0; i < len(line) && i < 40; i++ {
		switch c := line[i]; {
		case c == '\t':
			return line[i+1:]
		case (c < '0' || c > '9') && c != '-' && c != ':' && c != '.' && c != ' ':
			return line
		}
	}
	return line
}

// Reasons for skipping an access line.
var (
	errNginxNoClient   = errors.New("not an ingress-nginx line: no `client - ` prefix")
	errNginxNoTime     = errors.New("ingress-nginx access line without a [time_local] field")
	errNginxNoRequest  = errors.New("ingress-nginx access line without a quoted request line")
	errNginxStatus     = errors.New("ingress-nginx access line with a bad status")
	errNginxQuoted     = errors.New("ingress-nginx access line with a bad referer or user-agent field (a custom log-format-upstream, or another controller's format? give it with --nginx-format)")
	errNginxNumbers    = errors.New("ingress-nginx access line with a bad request_length or request_time (a custom log-format-upstream, or another controller's format? give it with --nginx-format)")
	errNginxUpstreams  = errors.New("ingress-nginx access line without the four upstream fields (wrapped or cut line?)")
	errNginxUpStatus   = errors.New("ingress-nginx access line with a bad upstream_status list")
	errNginxUpName     = errors.New("ingress-nginx access line with an unterminated [proxy_upstream_name]")
	errNginxTimeLayout = errors.New("ingress-nginx access line with a bad [time_local]")
)

// nginxAccessFields are the parts of an access line readygap uses, as slices
// of the line.
type nginxAccessFields struct {
	// stamp, when set, remembers the last $time_local parsed (see lex.Stamp).
	stamp   *lex.Stamp
	time    time.Time
	offset  time.Duration // the zone of $time_local
	request []byte        // the request line between the quotes
	status  int
	// requestTime is $request_time, the seconds since the request's
	// first byte; `-` or empty when not logged.
	requestTime []byte
	// upstream is [$proxy_upstream_name]; hasUpstream is false for the
	// pre-2018 formats that do not log it.
	upstream    []byte
	hasUpstream bool
	// The four upstream lists: $upstream_addr, $upstream_response_length,
	// $upstream_response_time (unused) and $upstream_status.
	addrs, lengths, statuses []byte
	// single says each list holds one entry: one attempt, or `-` for none.
	single bool
}

// nginxAccessRecord is a Request with room for a few attempts. A value on
// the stack would escape (the Emitter hands it to a Handler interface), so
// each Emitter, which serves one worker, keeps one that its access lines
// reuse, and its strings alias the line: an access line costs no
// allocation. Handlers keep nothing after the call (they Clone).
type nginxAccessRecord struct {
	req      Request
	attempts [4]Attempt
}

// nginxAccessParse parses one access line and reports its Request.
func nginxAccessParse(line []byte, ln *Line, out *Emitter) error {
	f := nginxAccessFields{stamp: &out.stamp}
	if !nginxScanUsual(line, &f) {
		if err := nginxScanAccess(line, &f); err != nil {
			return err
		}
	}
	rec := &out.nginx
	r := &rec.req
	*r = Request{Time: refineWithStamp(f.time, ln.Stamp), Status: f.status, Format: FormatIngressNginx, Origin: ln.Origin}
	nginxStartTime(r, f.requestTime)
	r.Method, r.Path, r.LB = nginxRequestStrings(f.request, f.upstream)
	if f.single {
		r.Attempts = nginxAttempt(rec.attempts[:0], f.addrs, f.lengths, f.statuses)
	} else {
		r.Attempts = nginxAttempts(rec.attempts[:0], f.addrs, f.lengths, f.statuses)
	}
	nginxClassifyAccess(r, f.hasUpstream && len(f.upstream) == 0)
	out.Request(r)
	return nil
}

// nginxStartTime moves r, timed when nginx wrote the line ($time_local is
// taken "at the end of request processing"), back by $request_time, "the
// time elapsed since the first bytes were read from the client" (nginx
// ngx_http_log_module), to the precision of its time (see startedBefore),
// and sets its Duration. A `-` or missing value leaves r as logged.
func nginxStartTime(r *Request, requestTime []byte) {
	d, ok := lex.Seconds(requestTime)
	if !ok || d <= 0 {
		return
	}
	logged := r.Time
	r.Duration, r.Time = d, startedBefore(logged, d)
	r.LoggedAfter = logged.Sub(r.Time)
}

// nginxUsualHead is what follows $remote_addr on the usual access line:
// an empty $remote_user and the `[` of $time_local.
const nginxUsualHead = " - - ["

// nginxTimeLocalWidth is the width of `[$time_local]`, which nginx always
// writes as `[02/Jan/2024:03:04:05 +0000]`.
const nginxTimeLocalWidth = len("[02/Jan/2024:03:04:05 +0000]")

// nginxScanUsual reads, in one pass, the access line nearly every request
// writes: the current format (0.26+, with $req_id) with no $remote_user and
// upstream lists of one entry each (one attempt, or `-` for none). It fills
// f as nginxScanAccess would and reports true; for any other line, or one
// it would reject, it reports false and nginxScanAccess reads the line.
// Each field is checked with the same helpers as there.
func nginxScanUsual(line []byte, f *nginxAccessFields) bool {
	const width = nginxTimeLocalWidth
	sp := nginxIndex(line, swarSpaces)
	if sp <= 0 || line[0] == '"' || len(line) < sp+len(nginxUsualHead) ||
		string(line[sp:sp+len(nginxUsualHead)]) != nginxUsualHead {
		return false
	}
	b := line[sp+len(nginxUsualHead)-1:] // from the `[` of $time_local
	if len(b) < width || b[width-1] != ']' {
		return false
	}
	stamp := b[1 : width-1] // its layout is checked by parsing it
	t, offset, ok := f.stamp.Get(stamp)
	if !ok {
		if t, offset, ok = nginxParseTimeLocal(stamp); !ok {
			return false
		}
		f.stamp.Put(stamp, t, offset)
	}
	b = b[width:]
	// ` "$request" $status $body_bytes_sent `
	if len(b) < 2 || b[0] != ' ' || b[1] != '"' {
		return false
	}
	end := bytes.IndexByte(b[2:], '"')
	if end < 0 {
		return false
	}
	request := b[2 : 2+end]
	b = b[2+end+1:]
	if len(b) < 5 || b[0] != ' ' || b[4] != ' ' {
		return false
	}
	status, ok := lex.Digits(b[1:4])
	if !ok || status < 100 {
		return false
	}
	b = b[5:]
	i := nginxIndex(b, swarSpaces)
	if i < 0 {
		return false
	}
	if _, ok := lex.Digits(b[:i]); !ok {
		return false
	}
	b = b[i+1:]
	// `"$http_referer" "$http_user_agent" `
	for range 2 {
		if len(b) < 2 || b[0] != '"' {
			return false
		}
		end := 1
		if b[1] != '-' || len(b) < 3 || b[2] != '"' { // not the usual `"-"`
			if end = bytes.IndexByte(b[1:], '"'); end < 0 {
				return false
			}
		}
		if len(b) < end+3 || b[end+2] != ' ' {
			return false
		}
		b = b[end+3:]
	}
	// `$request_length $request_time `
	i = nginxIndex(b, swarSpaces)
	if i < 0 {
		return false
	}
	if _, ok := lex.Digits(b[:i]); !ok {
		return false
	}
	b = b[i+1:]
	if i = nginxIndex(b, swarSpaces); i < 0 || !nginxIsDecimal(b[:i]) {
		return false
	}
	f.requestTime = b[:i]
	b = b[i+1:]
	// `[$proxy_upstream_name] [$proxy_alternative_upstream_name] `, each
	// as nginxCutBracketed reads it when a space follows.
	var name []byte
	for k := range 2 {
		if len(b) == 0 || b[0] != '[' {
			return false
		}
		if i = nginxIndex(b, swarBrackets); i < 0 || i+1 >= len(b) || b[i+1] != ' ' {
			return false
		}
		if k == 0 {
			name = b[1:i]
		}
		b = b[i+2:]
	}
	// The four lists of one entry each, each as nginxCutUpstreamField
	// cuts it when it holds no space, then $req_id.
	var lists [4][]byte
	for k := range lists {
		i = nginxIndex(b, swarSpaces)
		if i <= 0 || b[i-1] == ',' || i+2 < len(b) && b[i+1] == ':' && b[i+2] == ' ' {
			return false
		}
		lists[k], b = b[:i], b[i+1:]
	}
	if len(b) == 0 || b[0] == ' ' || !nginxValidStatus(lists[3]) {
		return false
	}
	f.time, f.offset, f.request, f.status = t, offset, request, status
	f.upstream, f.hasUpstream = name, true
	f.addrs, f.lengths, f.statuses, f.single = lists[0], lists[1], lists[3], true
	return true
}

// nginxIndex returns the index of the first byte of b equal to the byte
// that word repeats (see swarSpaces), or -1. It tests eight bytes at a time
// (swarZero) and is inlined: the fields of an access line are a few to a
// few dozen bytes, and bytes.IndexByte in its place took 4% more
// instructions per line.
func nginxIndex(b []byte, word uint64) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if m := swarZero(binary.LittleEndian.Uint64(b[i:]) ^ word); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for c := byte(word); i < len(b); i++ {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// nginxScanAccess splits an access line in any of these formats:
//
//	current (0.26+): $remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id
//	0.25:            the same with `- [$the_real_ip] - $remote_user` after $remote_addr
//	up to 0.24:      the 0.25 format without [$proxy_alternative_upstream_name]
//	before 2018-04:  the 0.24 format without $req_id
//	2016 contrib:    no [$proxy_upstream_name] at all
func nginxScanAccess(line []byte, f *nginxAccessFields) error {
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || line[0] == '"' || len(line) < sp+3 || line[sp+1] != '-' || line[sp+2] != ' ' {
		return errNginxNoClient
	}
	rest, err := nginxScanTime(line[sp+3:], f)
	if err != nil {
		return err
	}
	if rest, err = nginxScanRequest(rest, f); err != nil {
		return err
	}
	if rest, err = nginxScanClientFields(rest, f); err != nil {
		return err
	}
	return nginxScanUpstreams(rest, f)
}

// nginxScanTime finds `[$time_local] ` after the remote user (which may be
// preceded by the old `[$the_real_ip] - `) and returns what follows it.
func nginxScanTime(b []byte, f *nginxAccessFields) ([]byte, error) {
	const width = nginxTimeLocalWidth
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '[')
		if j < 0 {
			return nil, errNginxNoTime
		}
		i += j
		if (i == 0 || b[i-1] == ' ') && len(b) >= i+width && b[i+width-1] == ']' && b[i+3] == '/' {
			stamp := b[i+1 : i+width-1]
			t, offset, ok := f.stamp.Get(stamp)
			if !ok {
				if t, offset, ok = nginxParseTimeLocal(stamp); !ok {
					return nil, errNginxTimeLayout
				}
				f.stamp.Put(stamp, t, offset)
			}
			f.time, f.offset = t, offset
			return b[i+width:], nil
		}
		i++
	}
}

// nginxParseTimeLocal parses `02/Jan/2024:03:04:05 +0000` and returns it in
// UTC with its offset. The clock is the system's local time, which never
// shows a leap second except at its UTC place (lex.Time checks that).
func nginxParseTimeLocal(b []byte) (time.Time, time.Duration, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' ||
		b[20] != ' ' || (b[21] != '+' && b[21] != '-') {
		return time.Time{}, 0, false
	}
	ok := true
	day := lex.FixedDigits(b[0:2], &ok)
	month := nginxMonth(b[3:6])
	year := lex.FixedDigits(b[7:11], &ok)
	hour := lex.FixedDigits(b[12:14], &ok)
	minute := lex.FixedDigits(b[15:17], &ok)
	sec := lex.FixedDigits(b[18:20], &ok)
	offH := lex.FixedDigits(b[22:24], &ok)
	offM := lex.FixedDigits(b[24:26], &ok)
	if !ok || month == 0 || year < 1970 || offH > 23 || offM > 59 {
		return time.Time{}, 0, false
	}
	offset := time.Duration(offH)*time.Hour + time.Duration(offM)*time.Minute
	if b[21] == '-' {
		offset = -offset
	}
	t, ok := lex.Time(year, int(month), day, hour, minute, sec, 0, offset)
	return t, offset, ok
}

// nginxMonth returns the month of an English abbreviation, 0 if unknown.
// It switches on the three bytes as one number: a string switch costs a
// memory comparison per case.
func nginxMonth(b []byte) time.Month {
	if len(b) != 3 {
		return 0
	}
	switch uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]) {
	case 'J'<<16 | 'a'<<8 | 'n':
		return time.January
	case 'F'<<16 | 'e'<<8 | 'b':
		return time.February
	case 'M'<<16 | 'a'<<8 | 'r':
		return time.March
	case 'A'<<16 | 'p'<<8 | 'r':
		return time.April
	case 'M'<<16 | 'a'<<8 | 'y':
		return time.May
	case 'J'<<16 | 'u'<<8 | 'n':
		return time.June
	case 'J'<<16 | 'u'<<8 | 'l':
		return time.July
	case 'A'<<16 | 'u'<<8 | 'g':
		return time.August
	case 'S'<<16 | 'e'<<8 | 'p':
		return time.September
	case 'O'<<16 | 'c'<<8 | 't':
		return time.October
	case 'N'<<16 | 'o'<<8 | 'v':
		return time.November
	case 'D'<<16 | 'e'<<8 | 'c':
		return time.December
	}
	return 0
}

// nginxScanRequest reads ` "$request" $status $body_bytes_sent `. nginx
// escapes `"` inside the request as \x22, so the next quote closes it.
func nginxScanRequest(b []byte, f *nginxAccessFields) ([]byte, error) {
	if len(b) < 2 || b[0] != ' ' || b[1] != '"' {
		return nil, errNginxNoRequest
	}
	end := bytes.IndexByte(b[2:], '"')
	if end < 0 {
		return nil, errNginxNoRequest
	}
	f.request = b[2 : 2+end]
	b = b[2+end+1:]
	if len(b) < 5 || b[0] != ' ' || b[4] != ' ' {
		return nil, errNginxStatus
	}
	status, ok := lex.Digits(b[1:4])
	if !ok || status < 100 {
		return nil, errNginxStatus
	}
	f.status = status
	bytesSent, rest := nginxCutSpace(b[5:])
	if _, ok := lex.Digits(bytesSent); !ok {
		return nil, errNginxStatus
	}
	return rest, nil
}

// nginxScanClientFields skips `"$http_referer" "$http_user_agent"
// $request_length $request_time ` and returns what follows.
func nginxScanClientFields(b []byte, f *nginxAccessFields) ([]byte, error) {
	for range 2 {
		if len(b) < 2 || b[0] != '"' {
			return nil, errNginxQuoted
		}
		end := bytes.IndexByte(b[1:], '"')
		if end < 0 || len(b) < end+3 || b[end+2] != ' ' {
			return nil, errNginxQuoted
		}
		b = b[end+3:]
	}
	length, b := nginxCutSpace(b)
	reqTime, b := nginxCutSpace(b)
	if _, ok := lex.Digits(length); !ok || !nginxIsDecimal(reqTime) || len(b) == 0 {
		return nil, errNginxNumbers
	}
	f.requestTime = reqTime
	return b, nil
}

// nginxScanUpstreams reads the tail of the line: `[name] [alt] ` (either or
// both may be missing in old formats), the four upstream lists and $req_id.
// The formats with the alternative-upstream field always end in $req_id;
// requiring it, and lists that do not end in a comma, turns the first half
// of a line wrapped inside the lists (issue #7673) into an error rather than
// a record with attempts missing.
func nginxScanUpstreams(b []byte, f *nginxAccessFields) error {
	name, b, hasName, err := nginxCutBracketed(b)
	if err != nil {
		return err
	}
	hasAlt := false
	if hasName {
		f.upstream, f.hasUpstream = name, true
		if _, b, hasAlt, err = nginxCutBracketed(b); err != nil {
			return err
		}
	}
	var lists [4][]byte
	single := true
	for i := range lists {
		var one bool
		lists[i], b, one = nginxCutUpstreamField(b)
		if len(lists[i]) == 0 || lists[i][len(lists[i])-1] == ',' {
			return errNginxUpstreams
		}
		single = single && one
	}
	if hasAlt && (len(b) == 0 || b[0] == ' ') {
		return errNginxUpstreams
	}
	if !nginxValidStatusList(lists[3]) {
		return errNginxUpStatus
	}
	f.addrs, f.lengths, f.statuses, f.single = lists[0], lists[1], lists[3], single
	return nil
}

// nginxCutBracketed cuts a `[name] ` field off b. A `[` that opens an IPv6
// upstream address (`[fd00::1]:8080`) is not a name: ok is false then.
func nginxCutBracketed(b []byte) (name, rest []byte, ok bool, err error) {
	if len(b) == 0 || b[0] != '[' {
		return nil, b, false, nil
	}
	end := bytes.IndexByte(b, ']')
	if end < 0 {
		return nil, nil, false, errNginxUpName
	}
	switch {
	case end+1 == len(b):
		return b[1:end], nil, true, nil
	case b[end+1] == ' ':
		return b[1:end], b[end+2:], true, nil
	}
	return nil, b, false, nil
}

// nginxCutUpstreamField cuts the first field of the upstream lists off b.
// The lists hold spaces only right after a comma (`a, b`) and around the
// colon nginx writes between internal-redirect groups (`a : b`), so one
// says the field holds a single entry when it holds no space. Fields are
// short: a plain loop beats bytes.IndexByte here.
func nginxCutUpstreamField(b []byte) (field, rest []byte, one bool) {
	one = true
	for i := 0; i < len(b); i++ {
		if b[i] != ' ' {
			continue
		}
		switch {
		case i > 0 && b[i-1] == ',':
		case i+2 < len(b) && b[i+1] == ':' && b[i+2] == ' ':
			i += 2
		default:
			return b[:i], b[i+1:], one
		}
		one = false
	}
	return b, nil, one
}

// nginxValidStatusList reports whether b is a list of status codes and `-`.
func nginxValidStatusList(b []byte) bool {
	l := nginxList(b)
	for {
		e, ok := l.next()
		if !ok {
			return true
		}
		if !nginxValidStatus(e) {
			return false
		}
	}
}

// nginxValidStatus reports whether b is one entry of an $upstream_status
// list: a status code or `-`.
func nginxValidStatus(b []byte) bool {
	if nginxIsDash(b) {
		return true
	}
	n, ok := lex.Digits(b)
	return ok && n >= 100 && n <= 999
}

// nginxList iterates the entries of an nginx upstream list variable, which
// separates attempts with ", " and internal-redirect groups with " : ".
type nginxList []byte

// next returns the next entry; ok is false when the list is exhausted.
func (l *nginxList) next() (entry []byte, ok bool) {
	b := *l
	if len(b) == 0 {
		return nil, false
	}
	for i := 0; i+1 < len(b); i++ {
		switch c := b[i]; {
		case c == ',' && b[i+1] == ' ':
			*l = b[i+2:]
			return b[:i], true
		case c == ' ' && b[i+1] == ':' && i+2 < len(b) && b[i+2] == ' ':
			*l = b[i+3:]
			return b[:i], true
		}
	}
	*l = nil
	return b, true
}

// nginxAttempts zips the upstream lists into attempts, appended to dst. The
// address list decides the number of attempts; a missing length or status
// counts as `-`.
func nginxAttempts(dst []Attempt, addrs, lengths, statuses []byte) []Attempt {
	if nginxIsDash(addrs) {
		return dst
	}
	al, ll, sl := nginxList(addrs), nginxList(lengths), nginxList(statuses)
	for {
		addr, ok := al.next()
		if !ok {
			return dst
		}
		length, _ := ll.next()
		status, _ := sl.next()
		dst = append(dst, nginxNewAttempt(addr, length, status))
	}
}

// nginxAttempt is nginxAttempts for lists of one entry each, which it reads
// without iterating them: addr is one address or `-` (no attempt).
func nginxAttempt(dst []Attempt, addr, length, status []byte) []Attempt {
	if nginxIsDash(addr) {
		return dst
	}
	return append(dst, nginxNewAttempt(addr, length, status))
}

// nginxNewAttempt is the attempt of one entry of the upstream lists. The
// placeholder server of ingress-nginx's upstream_balancer (nginx.tmpl:
// `server 0.0.0.1; # placeholder`), which nginx falls back to when the Lua
// balancer returns no peer, is no backend: an attempt at it is the proxy
// having no endpoint, with no backend address.
func nginxNewAttempt(addr, length, status []byte) Attempt {
	a := Attempt{Backend: nginxAddrPort(addr), Status: nginxStatus(status)}
	if a.Backend.Addr() == nginxPlaceholder {
		return Attempt{Status: a.Status, Failure: FailureNoBackend}
	}
	a.Failure = nginxAttemptFailure(a.Status, length)
	return a
}

// nginxPlaceholder is the address of ingress-nginx's placeholder upstream
// server (see nginxNewAttempt), documented in nginxTemplateDoc.
var nginxPlaceholder = netip.AddrFrom4([4]byte{0, 0, 0, 1})

// nginxTemplateDoc is ingress-nginx's nginx.conf template, which declares
// the placeholder server.
const nginxTemplateDoc = "https://github.com/kubernetes/ingress-nginx/blob/main/rootfs/etc/nginx/template/nginx.tmpl"

// nginxAttemptFailure classifies one attempt. nginx records 502 for every
// attempt that got no usable response (connect error, reset, premature
// close, bad header) and 504 for a timeout, with a response length of 0; the
// error log names the precise kind. A 5xx with a body came from the app.
func nginxAttemptFailure(status int, length []byte) FailureKind {
	switch {
	case status < 500:
		return FailureNone
	case nginxEmptyLength(length) && status == 502:
		return FailureOther
	case nginxEmptyLength(length) && status == 504:
		return FailureTimeout
	}
	return FailureAppError
}

// nginxEmptyLength reports whether an $upstream_response_length entry says
// no response was read: 0, `-` or missing.
func nginxEmptyLength(b []byte) bool {
	n, ok := lex.Digits(b)
	return !ok || n == 0
}

// nginxClassifyAccess sets Generator, Failure and Backend of an access-line
// Request from its status and attempts. rejected says the line has an
// empty `[]` upstream name: the request was refused before routing.
func nginxClassifyAccess(r *Request, rejected bool) {
	r.Generator, r.Failure = GeneratedByLB, FailureNone
	if n := len(r.Attempts); n > 0 && r.Attempts[n-1].Failure == FailureNoBackend && !r.Attempts[n-1].Backend.IsValid() {
		// The placeholder server: the balancer had no endpoint. It is
		// no attempt at a backend.
		r.Attempts = r.Attempts[:n-1]
		if len(r.Attempts) == 0 {
			if r.Status >= 500 {
				r.Failure = FailureNoBackend
			}
			return
		}
	}
	if len(r.Attempts) == 0 {
		switch {
		case r.Status == 503 && !rejected:
			// The Lua balancer has no endpoint for the upstream and answers
			// 503 in the rewrite phase without contacting anyone.
			r.Failure = FailureNoBackend
		case r.Status >= 500:
			r.Failure = FailureOther
		}
		return
	}
	last := r.Attempts[len(r.Attempts)-1]
	r.Backend = last.Backend
	switch {
	case r.Status < 500:
		if nginxAnyAnswered(r.Attempts) {
			r.Generator = GeneratedByBackend
		}
	case r.Status == 503 && last.Backend == nginxDefaultServer:
		// Controllers before the Lua balancer (0.9 era) sent requests for
		// a Service without endpoints to the internal default server.
		r.Failure = FailureNoBackend
	case last.Status == r.Status && last.Failure == FailureAppError:
		r.Generator, r.Failure = GeneratedByBackend, FailureAppError
	case last.Failure.LBGenerated():
		r.Failure = last.Failure
	default:
		r.Failure = FailureOther
	}
}

// nginxDefaultServer is the controller's internal default server. Today it
// answers 404 for unmatched hosts; before the Lua balancer it answered 503
// for Services without endpoints.
var nginxDefaultServer = netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), 8181)

// nginxAnyAnswered reports whether an upstream sent a response to any attempt.
func nginxAnyAnswered(attempts []Attempt) bool {
	for _, a := range attempts {
		if a.Status > 0 && !a.Failure.LBGenerated() {
			return true
		}
	}
	return false
}

// nginxRequestStrings returns the method and path of a request line and the
// upstream name, as strings aliasing the line (see inputString).
func nginxRequestStrings(request, upstream []byte) (method, path, lb string) {
	method, path = nginxSplitRequestLine(inputString(request))
	return method, path, inputString(upstream)
}

// nginxSplitRequestLine splits `GET /x HTTP/1.1` into method and URI. A
// request line without a protocol (HTTP/0.9) has the URI last; one without a
// space is all method. Garbage methods are kept as they are.
func nginxSplitRequestLine(req string) (method, path string) {
	sp := strings.IndexByte(req, ' ')
	if sp < 0 {
		return req, ""
	}
	method, path = req[:sp], req[sp+1:]
	// The usual ` HTTP/1.1` or ` HTTP/2.0` ends path without a search.
	if n := len(path) - len(" HTTP/1.1"); n >= 0 && path[n:n+len(" HTTP/")] == " HTTP/" {
		if v := path[n+len(" HTTP/"):]; v[0] != ' ' && v[1] != ' ' && v[2] != ' ' {
			return method, path[:n]
		}
	}
	if last := strings.LastIndexByte(path, ' '); last >= 0 && strings.HasPrefix(path[last+1:], "HTTP/") {
		path = path[:last]
	}
	return method, path
}

// nginxAddrPort parses an upstream address: `ip:port` or `[ipv6]:port`.
// Unix sockets, host names and invalid addresses give the zero AddrPort.
func nginxAddrPort(b []byte) netip.AddrPort {
	ap, _ := lex.ParseAddrPort(b)
	return ap
}

// nginxStatus parses a status entry; `-` and anything else invalid give 0.
func nginxStatus(b []byte) int {
	n, ok := lex.Digits(b)
	if !ok || n > 999 {
		return 0
	}
	return n
}

// nginxCutSpace cuts b at its first space. It is used on short numeric
// fields, where a plain loop beats bytes.IndexByte.
func nginxCutSpace(b []byte) (before, after []byte) {
	for i, c := range b {
		if c == ' ' {
			return b[:i], b[i+1:]
		}
	}
	return b, nil
}

// nginxIsDecimal reports whether b is a number like `0.004` or `-`.
func nginxIsDecimal(b []byte) bool { return nginxIsDash(b) || lex.IsDecimal(b) }

// nginxIsDash reports whether b is nginx's `-` for a missing value.
func nginxIsDash(b []byte) bool { return len(b) == 1 && b[0] == '-' }

// nginxLineShape is what any nginx access line with $time_local and
// $request in brackets and quotes shows.
var nginxLineShape = regexp.MustCompile(`\[\d{2}/[A-Z][a-z]{2}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}\] .*"[A-Z]+ \S+( HTTP/[0-9.]+)?"`)

// NearMiss recognises an access line that starts as ingress-nginx's do
// (`$remote_addr - $remote_user [$time_local] "$request" ...`) and names
// the first field that is not what the default format writes there.
func (a ingressNginx) NearMiss(s *nearSample) (nearScore, string) {
	line := nginxUnwrap(s.first())
	var f nginxAccessFields
	switch err := nginxScanAccess(line, &f); err {
	case nil, errNginxNoClient, errNginxNoTime:
		if nginxLineShape.Match(line) {
			return nearShape, "an nginx access line ([$time_local] and a quoted $request) in a format of its own: give its log_format with --nginx-format"
		}
		return nearNone, ""
	case errNginxQuoted, errNginxNumbers:
		return nearFields, err.Error()
	default:
		return nearFields, err.Error() + ": a custom log-format-upstream? give it with --nginx-format"
	}
}

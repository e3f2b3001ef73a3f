package sources

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// This file compiles nginx access-log formats (nginx
// src/http/modules/ngx_http_log_module.c; ingress-nginx's
// `log-format-upstream`, the NGINX Inc controller's `log-format`): a
// log_format string becomes a sequence of literals and variables that
// lines are matched against; a JSON template (`{"status": $status, ...}`
// with `escape=json`) becomes a map from keys to variables. Only the
// variables readygap uses are interpreted; every other one is a field whose
// value is skipped.

// nginxVar is what an nginx variable means to readygap.
type nginxVar uint8

const (
	// nvSkip: a variable readygap does not use (any value).
	nvSkip nginxVar = iota
	// nvTimeISO: $time_iso8601, `2024-01-02T03:04:05+00:00`.
	nvTimeISO
	// nvTimeLocal: $time_local, `02/Jan/2024:03:04:05 +0000`.
	nvTimeLocal
	// nvMsec: $msec, `1704164645.123` (seconds since 1970).
	nvMsec
	nvStatus
	// nvRequest: $request, `GET /x HTTP/1.1`.
	nvRequest
	nvMethod
	// nvURI: $request_uri or $uri.
	nvURI
	nvUpAddr
	nvUpStatus
	nvUpLength
	// nvUpName: ingress-nginx's $proxy_upstream_name.
	nvUpName
	// nvRequestTime: $request_time, seconds with a milliseconds
	// resolution since the request's first byte (see nginxStartTime).
	nvRequestTime
	// nvUpNameOrAddr: a JSON key named `upstream`, which templates use for
	// $proxy_upstream_name (envelopes.md §6.2) and sometimes for
	// $upstream_addr: read as the name unless it holds an address.
	// nginxJSONState.set decides which.
	nvUpNameOrAddr
)

// nginxVariables maps the variables readygap reads to their meaning (nginx
// docs, "Alphabetical index of variables"; ingress-nginx docs,
// log-format.md).
var nginxVariables = map[string]nginxVar{
	"time_iso8601":             nvTimeISO,
	"time_local":               nvTimeLocal,
	"msec":                     nvMsec,
	"status":                   nvStatus,
	"request":                  nvRequest,
	"request_method":           nvMethod,
	"request_uri":              nvURI,
	"uri":                      nvURI,
	"upstream_addr":            nvUpAddr,
	"upstream_status":          nvUpStatus,
	"upstream_response_length": nvUpLength,
	"proxy_upstream_name":      nvUpName,
	"request_time":             nvRequestTime,
}

// isTime reports whether v is one of the time variables.
func (v nginxVar) isTime() bool { return v == nvTimeISO || v == nvTimeLocal || v == nvMsec }

// isList reports whether v is an upstream list (one entry per attempt,
// separated by `, ` and ` : `), whose value holds spaces.
func (v nginxVar) isList() bool { return v == nvUpAddr || v == nvUpStatus || v == nvUpLength }

// Reasons for refusing a --nginx-format.
var (
	errNginxFormatEmpty      = errors.New("the format is empty")
	errNginxFormatNoVars     = errors.New("the format has no $variable")
	errNginxFormatNoStatus   = errors.New("the format has no $status, which readygap needs")
	errNginxFormatAdjacent   = errors.New("two variables with nothing between them cannot be told apart")
	errNginxFormatNoJSONKeys = errors.New("the JSON template has no key whose value is one variable readygap reads")
)

// errNginxFormatNoUpstream names what a format lacks to tell a 502 nginx
// made from one the application sent.
type errNginxFormatNoUpstream struct{ missing []string }

func (e errNginxFormatNoUpstream) Error() string {
	it := "it"
	if len(e.missing) > 1 {
		it = "them"
	}
	return fmt.Sprintf("the format has no %s: without %s readygap cannot tell a 502 or 503 nginx made from one the application sent, nor which pod it went to; add %s to the log format", strings.Join(e.missing, " or "), it, strings.Join(e.missing, " and "))
}

// nginxVarRef is one variable of a format.
type nginxVarRef struct {
	v nginxVar
	// name is the variable as written, for messages.
	name string
	// list marks the $upstream_* variables: one entry per attempt,
	// separated by `, ` and ` : `, so their values hold spaces.
	list bool
}

// nginxFormat is a compiled log_format string: lits[0] vars[0] lits[1]
// vars[1] ... vars[n-1] lits[n]. Only the first and the last literal may be
// empty.
type nginxFormat struct {
	lits [][]byte
	vars []nginxVarRef
}

// nginxCustom is the --nginx-format option compiled: a log_format string
// for the text adapter, or a JSON template for the JSON adapter.
type nginxCustom struct {
	text *nginxFormat
	json *nginxKeyMap
}

// nginxKeyMap is a compiled JSON template: the top-level keys whose value
// is exactly one variable readygap reads.
type nginxKeyMap struct {
	keys map[string]nginxVar
	// text is the template read as a log_format string, for the lines
	// nginx wrote as invalid JSON (an unquoted $upstream_status holding
	// `502, 200` or `-`); nil when the template does not compile so.
	text *nginxFormat
}

// CheckNginxFormat reports what is wrong with an nginx access-log format
// given on the command line (--nginx-format), nil when readygap can read
// lines written in it.
func CheckNginxFormat(text string) error {
	_, err := compileNginxCustom(text)
	return err
}

// compileNginxCustom compiles a user's nginx format: the value of
// ingress-nginx's `log-format-upstream` or the NGINX Inc controller's
// `log-format` key, or a whole `log_format NAME [escape=...] '...' ...;`
// directive. A value that starts with `{` is a JSON template.
func compileNginxCustom(text string) (*nginxCustom, error) {
	s := nginxFormatText(text)
	if s == "" {
		return nil, errNginxFormatEmpty
	}
	if s[0] == '{' {
		m, err := compileNginxKeyMap(s)
		if err != nil {
			return nil, err
		}
		return &nginxCustom{json: m}, nil
	}
	f, err := compileNginxFormat(s)
	if err != nil {
		return nil, err
	}
	return &nginxCustom{text: f}, nil
}

// nginxDirective matches the head of a log_format directive: its name and
// an optional escape parameter.
var nginxDirective = regexp.MustCompile(`^log_format\s+\S+\s+(?:escape=\S+\s+)?`)

// nginxQuoted matches one quoted part of a directive.
var nginxQuoted = regexp.MustCompile(`'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"`)

// nginxFormatText returns the format a user's text holds: a directive's
// quoted parts joined, or the text with its lines joined by one space (as
// the NGINX Inc controller joins a multi-line `log-format`), without the
// quotes a copy out of YAML may keep around it.
func nginxFormatText(text string) string {
	s := strings.TrimSpace(text)
	if head := nginxDirective.FindString(s); head != "" {
		var b strings.Builder
		for _, m := range nginxQuoted.FindAllStringSubmatch(strings.TrimSuffix(s[len(head):], ";"), -1) {
			b.WriteString(m[1] + m[2])
		}
		return strings.TrimSpace(b.String())
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	s = strings.Join(lines, " ")
	if len(s) > 1 && s[0] == '\'' && s[len(s)-1] == '\'' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// scanNginxVar reads the variable starting at s[i] ('$'): `$name` or
// `${name}`, name made of letters, digits and underscores. ok is false when
// s[i:] does not start one; the `$` is then a literal.
func scanNginxVar(s string, i int) (name string, end int, ok bool) {
	j := i + 1
	braced := j < len(s) && s[j] == '{'
	if braced {
		j++
	}
	k := j
	for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9' || s[k] == '_') {
		k++
	}
	if k == j {
		return "", 0, false
	}
	name = s[j:k]
	if braced {
		if k >= len(s) || s[k] != '}' {
			return "", 0, false
		}
		k++
	}
	return name, k, true
}

// compileNginxFormat compiles a log_format string, checking that it holds
// what readygap needs: $status and the upstream's address and status.
func compileNginxFormat(s string) (*nginxFormat, error) {
	f := &nginxFormat{}
	var lit []byte
	for i := 0; i < len(s); {
		if s[i] == '$' {
			if name, end, ok := scanNginxVar(s, i); ok {
				ref := nginxVarRef{v: nginxVariables[name], name: s[i:end], list: strings.HasPrefix(name, "upstream_")}
				if len(f.vars) > 0 && len(lit) == 0 {
					return nil, fmt.Errorf("%s%s: %w", f.vars[len(f.vars)-1].name, ref.name, errNginxFormatAdjacent)
				}
				f.lits = append(f.lits, lit)
				f.vars = append(f.vars, ref)
				lit, i = nil, end
				continue
			}
		}
		lit = append(lit, s[i])
		i++
	}
	f.lits = append(f.lits, lit)
	if len(f.vars) == 0 {
		return nil, errNginxFormatNoVars
	}
	have := map[nginxVar]bool{}
	for _, r := range f.vars {
		have[r.v] = true
	}
	return f, nginxFormatNeeds(have)
}

// nginxFormatNeeds says what a format with the variables have lacks.
func nginxFormatNeeds(have map[nginxVar]bool) error {
	if !have[nvStatus] {
		return errNginxFormatNoStatus
	}
	var missing []string
	if !have[nvUpAddr] {
		missing = append(missing, "$upstream_addr")
	}
	if !have[nvUpStatus] {
		missing = append(missing, "$upstream_status")
	}
	if len(missing) > 0 {
		return errNginxFormatNoUpstream{missing}
	}
	return nil
}

// nginxTemplatePair matches one `"key": value` pair of a JSON template
// whose value is one variable, quoted or not.
var nginxTemplatePair = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\s*:\s*("?)\$\{?([A-Za-z0-9_]+)\}?("?)\s*[,}]`)

// compileNginxKeyMap compiles a JSON template. The template is not JSON
// itself (unquoted variables), so its pairs are found by their shape;
// values that mix variables and text are skipped, as readygap cannot take
// them apart.
func compileNginxKeyMap(s string) (*nginxKeyMap, error) {
	m := &nginxKeyMap{keys: map[string]nginxVar{}}
	have := map[nginxVar]bool{}
	for _, p := range nginxTemplatePair.FindAllStringSubmatch(s, -1) {
		v, ok := nginxVariables[p[3]]
		if !ok || p[2] != p[4] {
			continue
		}
		m.keys[p[1]] = v
		have[v] = true
	}
	if len(m.keys) == 0 {
		return nil, errNginxFormatNoJSONKeys
	}
	if err := nginxFormatNeeds(have); err != nil {
		return nil, err
	}
	// The template as text reads lines nginx made invalid JSON; a template
	// that does not compile so is read as JSON only.
	if f, err := compileNginxFormat(s); err == nil {
		m.text = f
	}
	return m, nil
}

// nginxValues are the values of one access line readygap uses, as slices
// of the line (or of the JSON parser's memory).
type nginxValues struct {
	time time.Time
	// offset is the zone the time was written in; zoned says it had one.
	offset                   time.Duration
	zoned                    bool
	status                   int
	request, method, uri     []byte
	addrs, statuses, lengths []byte
	// name is $proxy_upstream_name; hasName says the format logs it.
	name    []byte
	hasName bool
	// requestTime is $request_time; nil when not logged.
	requestTime []byte
}

// Reasons for skipping a line in a custom or JSON format.
var (
	errNginxFormatLine   = errors.New("an nginx access line not in the --nginx-format format")
	errNginxValueTime    = errors.New("nginx access line with a time its variable does not write")
	errNginxValueStatus  = errors.New("nginx access line with a $status that is not an HTTP status")
	errNginxValueUpState = errors.New("nginx access line with a bad $upstream_status list")
	errNginxValueNoTime  = errors.New("nginx access line without a time and without a wrapper time: add $time_iso8601 to the log format, or keep the time kubectl logs --timestamps puts in front")
)

// set stores the value of variable v, checking that it is what v writes.
// `-` (default escaping) and an empty value (escape=json) mean not set.
func (vals *nginxValues) set(v nginxVar, b []byte, stamp *lex.Stamp) error {
	unset := len(b) == 0 || nginxIsDash(b)
	switch v {
	case nvTimeISO, nvTimeLocal, nvMsec:
		if unset {
			return nil
		}
		t, off, ok := nginxParseTime(v, b, stamp)
		if !ok {
			return errNginxValueTime
		}
		vals.time, vals.offset, vals.zoned = t, off, v != nvMsec
	case nvStatus:
		n, ok := lex.Digits(b)
		if !ok || n < 100 || n > 999 {
			return errNginxValueStatus
		}
		vals.status = n
	case nvRequest:
		vals.request = b
	case nvMethod:
		vals.method = b
	case nvURI:
		if vals.uri == nil {
			vals.uri = b
		}
	case nvUpAddr:
		vals.addrs = b
	case nvUpStatus:
		if !unset && !nginxValidStatusList(b) {
			return errNginxValueUpState
		}
		vals.statuses = b
	case nvUpLength:
		vals.lengths = b
	case nvUpName:
		vals.name, vals.hasName = b, true
	case nvRequestTime:
		vals.requestTime = b
	}
	return nil
}

// nginxParseTime reads the value of a time variable and the offset of the
// zone it was written in.
func nginxParseTime(v nginxVar, b []byte, stamp *lex.Stamp) (time.Time, time.Duration, bool) {
	switch v {
	case nvTimeISO:
		t, n, ok := lex.ScanRFC3339(b)
		if !ok || n != len(b) {
			return time.Time{}, 0, false
		}
		return t, nginxISOOffset(b), true
	case nvTimeLocal:
		if t, off, ok := stamp.Get(b); ok {
			return t, off, true
		}
		t, off, ok := nginxParseTimeLocal(b)
		if ok {
			stamp.Put(b, t, off)
		}
		return t, off, ok
	case nvMsec:
		t, ok := nginxParseMsec(b)
		return t, 0, ok
	}
	return time.Time{}, 0, false
}

// nginxISOOffset returns the offset an RFC 3339 time ends with: `Z` or
// ±hh:mm, which lex.ScanRFC3339 has checked.
func nginxISOOffset(b []byte) time.Duration {
	n := len(b)
	if n < 6 || b[n-6] != '+' && b[n-6] != '-' {
		return 0
	}
	h, _ := lex.Digits(b[n-5 : n-3])
	m, _ := lex.Digits(b[n-2:])
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
	if b[n-6] == '-' {
		d = -d
	}
	return d
}

// nginxParseMsec reads $msec: seconds since 1970 with a dot and three digits.
func nginxParseMsec(b []byte) (time.Time, bool) {
	sec, frac, _ := bytes.Cut(b, []byte("."))
	if len(sec) == 0 || len(sec) > maxEpochDigits {
		return time.Time{}, false
	}
	s, ok := lex.Digits(sec)
	if !ok {
		return time.Time{}, false
	}
	nsec, digits := lex.Fraction(frac)
	if digits != len(frac) {
		return time.Time{}, false
	}
	return time.Unix(int64(s), int64(nsec)).UTC(), true
}

// emit reports the Request of a line's values as the ingress-nginx adapter
// does for its default format: the same attempts, generator and failure.
func (vals *nginxValues) emit(format Format, ln *Line, out *Emitter) error {
	t := refineWithStamp(vals.time, ln.Stamp)
	if t.IsZero() {
		t = ln.Stamp.UTC()
	}
	if t.IsZero() {
		return errNginxValueNoTime
	}
	rec := &out.nginx
	r := &rec.req
	*r = Request{Time: t, Status: vals.status, Format: format, Origin: ln.Origin}
	nginxStartTime(r, vals.requestTime)
	if len(vals.request) > 0 {
		r.Method, r.Path = nginxSplitRequestLine(inputString(vals.request))
	} else {
		r.Method, r.Path = inputString(vals.method), inputString(vals.uri)
	}
	r.LB = inputString(vals.name)
	r.Attempts = nginxAttempts(rec.attempts[:0], vals.addrs, vals.lengths, vals.statuses)
	nginxClassifyAccess(r, vals.hasName && len(vals.name) == 0)
	out.Request(r)
	return nil
}

// scan matches line against format f and fills vals. The value of a
// variable runs up to the first occurrence of the literal after it (the
// last one, to the literal that ends the line), with two exceptions: an
// upstream list's value goes on past the spaces of its `, ` and ` : `
// separators, and a value between quotes goes on past a quote escaped
// with a backslash (escape=json).
func (f *nginxFormat) scan(line []byte, vals *nginxValues, stamp *lex.Stamp) error {
	*vals = nginxValues{}
	rest, ok := bytes.CutPrefix(line, f.lits[0])
	if !ok {
		return errNginxFormatLine
	}
	n := len(f.vars)
	for i, ref := range f.vars {
		next := f.lits[i+1]
		var value []byte
		switch {
		case ref.v.isTime() && i < n-1:
			value, rest, ok = nginxCutTime(ref.v, rest, next)
		case i == n-1:
			value, ok = bytes.CutSuffix(rest, next)
		default:
			quoted := len(f.lits[i]) > 0 && f.lits[i][len(f.lits[i])-1] == '"' && next[0] == '"'
			value, rest, ok = nginxCutValue(rest, next, ref.list, quoted)
		}
		if !ok {
			return errNginxFormatLine
		}
		if ref.v == nvUpName {
			vals.hasName = true
		}
		if err := vals.set(ref.v, value, stamp); err != nil {
			return err
		}
	}
	if vals.status == 0 {
		return errNginxValueStatus
	}
	return nil
}

// nginxCutTime cuts the value of a time variable, whose width its layout
// decides ($time_local holds a space), off rest, and the literal after it.
func nginxCutTime(v nginxVar, rest, next []byte) (value, after []byte, ok bool) {
	width := 0
	switch v {
	case nvTimeLocal:
		width = len("02/Jan/2024:03:04:05 +0000")
	case nvTimeISO:
		width = len("2024-01-02T03:04:05+00:00")
	}
	if width > 0 && len(rest) >= width {
		if after, ok := bytes.CutPrefix(rest[width:], next); ok {
			return rest[:width], after, true
		}
	}
	return nginxCutValue(rest, next, false, false)
}

// nginxCutValue cuts a value off rest up to the literal next, and the
// literal. list skips the spaces of an upstream list's separators; quoted
// skips quotes escaped with a backslash.
func nginxCutValue(rest, next []byte, list, quoted bool) (value, after []byte, ok bool) {
	for from := 0; from <= len(rest); {
		j := bytes.Index(rest[from:], next)
		if j < 0 {
			return nil, nil, false
		}
		j += from
		switch {
		case quoted && nginxEscaped(rest, j):
		case list && next[0] == ' ' && (j > 0 && rest[j-1] == ',' ||
			j+2 < len(rest) && rest[j+1] == ':' && rest[j+2] == ' ' ||
			j > 1 && rest[j-1] == ':' && rest[j-2] == ' '):
		default:
			return rest[:j], rest[j+len(next):], true
		}
		from = j + 1
	}
	return nil, nil, false
}

// nginxEscaped reports whether rest[j] follows an odd number of backslashes.
func nginxEscaped(rest []byte, j int) bool {
	n := 0
	for k := j - 1; k >= 0 && rest[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// This file compiles Envoy access-log formats (envoyproxy/envoy
// docs/root/configuration/observability/access_log/usage.rst): a format
// string becomes a sequence of literals and command operators that
// envoy_text.go matches lines against; a JSON format dictionary becomes a
// map from keys to operators that envoy_json.go reads lines with. Only the
// operators readygap uses are interpreted; every other operator is a field
// whose value is skipped.

// envoyOp is what a command operator means to readygap.
type envoyOp uint8

const (
	// opSkip: a field readygap does not use (any value).
	opSkip envoyOp = iota
	// opStartTime: %START_TIME%, %START_TIME(fmt)%, %START_TIME_LOCAL%.
	opStartTime
	// opEmitTime: %EMIT_TIME%, used when there is no start time.
	opEmitTime
	opMethod
	opPath
	opStatus
	opFlags
	opDetails
	opTermination
	opReason
	// opHost: %UPSTREAM_HOST% or %UPSTREAM_REMOTE_ADDRESS%, whichever comes first.
	opHost
	opHostsAttempted
	opCluster
	opRoute
	opAttemptCount
	// opDuration: %DURATION%, the milliseconds from the request's first
	// byte to the response's last.
	opDuration
	opDownstreamLocal
	// opNumber: a number readygap does not use but checks (durations, byte counts).
	opNumber
)

// envoyOperators maps the command operators readygap uses (or checks) to
// their meaning. REQ and REQ_WITHOUT_QUERY depend on their header argument
// (see envoyHeaderOp).
var envoyOperators = map[string]envoyOp{
	"START_TIME":                        opStartTime,
	"START_TIME_LOCAL":                  opStartTime,
	"EMIT_TIME":                         opEmitTime,
	"EMIT_TIME_LOCAL":                   opEmitTime,
	"RESPONSE_CODE":                     opStatus,
	"RESPONSE_FLAGS":                    opFlags,
	"RESPONSE_FLAGS_LONG":               opFlags,
	"RESPONSE_CODE_DETAILS":             opDetails,
	"CONNECTION_TERMINATION_DETAILS":    opTermination,
	"UPSTREAM_TRANSPORT_FAILURE_REASON": opReason,
	"UPSTREAM_HOST":                     opHost,
	"UPSTREAM_REMOTE_ADDRESS":           opHost,
	"UPSTREAM_HOSTS_ATTEMPTED":          opHostsAttempted,
	"UPSTREAM_CLUSTER":                  opCluster,
	"UPSTREAM_CLUSTER_RAW":              opCluster,
	"ROUTE_NAME":                        opRoute,
	"UPSTREAM_REQUEST_ATTEMPT_COUNT":    opAttemptCount,
	"DOWNSTREAM_LOCAL_ADDRESS":          opDownstreamLocal,
	"DURATION":                          opDuration,
	"REQUEST_DURATION":                  opNumber,
	"REQUEST_TX_DURATION":               opNumber,
	"RESPONSE_DURATION":                 opNumber,
	"RESPONSE_TX_DURATION":              opNumber,
	"BYTES_RECEIVED":                    opNumber,
	"BYTES_SENT":                        opNumber,
}

// envoyHeaderOp returns what %REQ(X?Y)% (or %REQ_WITHOUT_QUERY(X?Y)%)
// means: the method for :METHOD or X-ENVOY-ORIGINAL-METHOD, the path for
// :PATH or X-ENVOY-ORIGINAL-PATH, nothing readygap uses otherwise.
func envoyHeaderOp(args string) envoyOp {
	for _, h := range strings.Split(args, "?") {
		switch strings.ToUpper(strings.TrimSpace(h)) {
		case ":METHOD", "X-ENVOY-ORIGINAL-METHOD":
			return opMethod
		case ":PATH", "X-ENVOY-ORIGINAL-PATH":
			return opPath
		}
	}
	return opSkip
}

// envoyCommand is one command operator of a format.
type envoyCommand struct {
	op envoyOp
	// time is the layout of a time operator; nil otherwise.
	time *envoyTimeLayout
	// text is the operator as written, for messages.
	text string
}

// scanEnvoyCommand reads the command operator starting at s[i] ('%') as
// Envoy's parser does: `%NAME%`, `%NAME(args)%` or `%NAME(args):N%`, NAME
// made of capitals, digits and underscores, args without `)`. ok is false
// when s[i:] does not start one; the `%` is then a literal.
func scanEnvoyCommand(s string, i int) (name, args string, end int, ok bool) {
	j := i + 1
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
		j++
	}
	if j == i+1 || j >= len(s) {
		return "", "", 0, false
	}
	name = s[i+1 : j]
	if s[j] == '(' {
		k := strings.IndexByte(s[j:], ')')
		if k < 0 {
			return "", "", 0, false
		}
		args, j = s[j+1:j+k], j+k+1
	}
	if j < len(s) && s[j] == ':' {
		k := j + 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k == j+1 {
			return "", "", 0, false
		}
		j = k
	}
	if j >= len(s) || s[j] != '%' {
		return "", "", 0, false
	}
	return name, args, j + 1, true
}

// newEnvoyCommand interprets one command operator.
func newEnvoyCommand(name, args, text string) (envoyCommand, error) {
	c := envoyCommand{text: text}
	switch name {
	case "REQ", "REQ_WITHOUT_QUERY":
		c.op = envoyHeaderOp(args)
		return c, nil
	}
	c.op = envoyOperators[name]
	if c.op == opStartTime || c.op == opEmitTime {
		l, err := compileEnvoyTime(args, strings.HasSuffix(name, "_LOCAL"))
		if err != nil {
			return c, fmt.Errorf("%s: %w", text, err)
		}
		c.time = l
	}
	return c, nil
}

// envoyFormat is a compiled format string: lits[0] ops[0] lits[1] ops[1]
// ... ops[n-1] lits[n]. Only the first and the last literal may be empty:
// two operators with nothing between them cannot be told apart in a line.
type envoyFormat struct {
	lits [][]byte
	ops  []envoyCommand
	// platform is what the format alone says about the product.
	platform Platform
	// headless marks a default format whose leading [%START_TIME%] was
	// cut off (mustCompileHeadless).
	headless bool
}

// Reasons for refusing a format.
var (
	errEnvoyFormatNoStatus   = errors.New("the format has no %RESPONSE_CODE%, which readygap needs")
	errEnvoyFormatEmpty      = errors.New("the format is empty")
	errEnvoyFormatAdjacent   = errors.New("two command operators with nothing between them cannot be told apart")
	errEnvoyFormatNoCommands = errors.New("the format has no command operator")
)

// compileEnvoyFormat compiles a format string. A final newline (written
// out, or as the two characters `\n` of a YAML or JSON string) and white
// space around the format are dropped, as the pipeline drops them from
// lines. A format copied out of a quoted YAML or JSON string is taken as
// its content: `\"` is read as `"`, and quotes around the whole string
// (recognised by the `\n"` it ends with) are dropped.
func compileEnvoyFormat(text string) (*envoyFormat, error) {
	s := strings.TrimSpace(text)
	if len(s) > 3 && s[0] == '"' && strings.HasSuffix(s, `\n"`) {
		s = s[1 : len(s)-1]
	}
	for strings.HasSuffix(s, `\n`) {
		s = strings.TrimSpace(strings.TrimSuffix(s, `\n`))
	}
	s = strings.ReplaceAll(s, `\"`, `"`)
	if s == "" {
		return nil, errEnvoyFormatEmpty
	}
	f := &envoyFormat{}
	var lit []byte
	hasStatus := false
	for i := 0; i < len(s); {
		if s[i] == '%' {
			if name, args, end, ok := scanEnvoyCommand(s, i); ok {
				c, err := newEnvoyCommand(name, args, s[i:end])
				if err != nil {
					return nil, err
				}
				if len(f.ops) > 0 && len(lit) == 0 {
					return nil, fmt.Errorf("%s%s: %w", f.ops[len(f.ops)-1].text, c.text, errEnvoyFormatAdjacent)
				}
				hasStatus = hasStatus || c.op == opStatus
				f.lits = append(f.lits, lit)
				f.ops = append(f.ops, c)
				lit, i = nil, end
				continue
			}
		}
		lit = append(lit, s[i])
		i++
	}
	f.lits = append(f.lits, lit)
	switch {
	case len(f.ops) == 0:
		return nil, errEnvoyFormatNoCommands
	case !hasStatus:
		return nil, errEnvoyFormatNoStatus
	}
	return f, nil
}

// mustCompileEnvoyFormat compiles a built-in format.
func mustCompileEnvoyFormat(text string, p Platform) *envoyFormat {
	f, err := compileEnvoyFormat(text)
	if err != nil {
		panic("built-in Envoy format: " + err.Error())
	}
	f.platform = p
	return f
}

// envoyTimeLayout is a compiled START_TIME (or EMIT_TIME) format.
type envoyTimeLayout struct {
	// rfc3339 marks the default format, `%Y-%m-%dT%H:%M:%E3SZ`, read as RFC 3339.
	rfc3339 bool
	items   []envoyTimeItem
	// local marks the _LOCAL operators: a time without a zone is in the
	// zone of the run's time-zone option (Options.TZ).
	local bool
}

// envoyTimeItem is one part of a time layout.
type envoyTimeItem struct {
	kind timeKind
	lit  byte // for timeLit
	// digits is the fraction's digits for timeFraction and timeSecondsFraction
	// (0: any number), the field's width for the numeric kinds.
	digits int
}

// timeKind is what one part of a time layout reads.
type timeKind uint8

const (
	timeLit timeKind = iota
	timeYear
	timeYear2
	timeMonth
	timeMonthName
	timeDay
	timeDaySpace
	timeHour
	timeMinute
	timeSecond
	// timeSecondsFraction: %E<n>S or %E*S, seconds with a fraction.
	timeSecondsFraction
	// timeFraction: %f (nine digits) or %<n>f, a fraction without its dot.
	timeFraction
	// timeEpoch: %s, seconds since 1970.
	timeEpoch
	// timeZone: %z (±hhmm); timeZoneColon: %Ez or %:z (±hh:mm).
	timeZone
	timeZoneColon
	// timeZoneName: %Z, a zone abbreviation.
	timeZoneName
	// timeWeekday: %a or %A, an English weekday name (checked, not used).
	timeWeekday
)

// maxEpochDigits bounds %s: 11 digits reach the year 5138.
const maxEpochDigits = 11

// compileEnvoyTime compiles the argument of a time operator. Envoy formats
// START_TIME with strftime plus absl's %E<n>S/%E*S/%Ez and its own %s and
// %<n>f (usage.rst, START_TIME); the specifiers below are those. An empty
// argument is the default format.
func compileEnvoyTime(spec string, local bool) (*envoyTimeLayout, error) {
	l := &envoyTimeLayout{local: local}
	if spec == "" {
		l.rfc3339 = true
		return l, nil
	}
	var have struct{ epoch, year, month, day, hour, minute bool }
	add := func(k timeKind, digits int) { l.items = append(l.items, envoyTimeItem{kind: k, digits: digits}) }
	for i := 0; i < len(spec); i++ {
		if spec[i] != '%' {
			l.items = append(l.items, envoyTimeItem{kind: timeLit, lit: spec[i]})
			continue
		}
		if i+1 >= len(spec) {
			return nil, errors.New("START_TIME format ends in %")
		}
		i++
		switch c := spec[i]; c {
		case 'Y':
			add(timeYear, 4)
			have.year = true
		case 'y':
			add(timeYear2, 2)
			have.year = true
		case 'm':
			add(timeMonth, 2)
			have.month = true
		case 'b', 'h':
			add(timeMonthName, 3)
			have.month = true
		case 'd':
			add(timeDay, 2)
			have.day = true
		case 'e':
			add(timeDaySpace, 2)
			have.day = true
		case 'H':
			add(timeHour, 2)
			have.hour = true
		case 'M':
			add(timeMinute, 2)
			have.minute = true
		case 'S':
			add(timeSecond, 2)
		case 'T':
			add(timeHour, 2)
			l.items = append(l.items, envoyTimeItem{kind: timeLit, lit: ':'})
			add(timeMinute, 2)
			l.items = append(l.items, envoyTimeItem{kind: timeLit, lit: ':'})
			add(timeSecond, 2)
			have.hour, have.minute = true, true
		case 'F':
			add(timeYear, 4)
			l.items = append(l.items, envoyTimeItem{kind: timeLit, lit: '-'})
			add(timeMonth, 2)
			l.items = append(l.items, envoyTimeItem{kind: timeLit, lit: '-'})
			add(timeDay, 2)
			have.year, have.month, have.day = true, true, true
		case 's':
			add(timeEpoch, 0)
			have.epoch = true
		case 'f':
			add(timeFraction, 9)
		case 'z':
			add(timeZone, 0)
		case 'Z':
			add(timeZoneName, 0)
		case 'a', 'A':
			add(timeWeekday, 0)
		case '%':
			l.items = append(l.items, envoyTimeItem{kind: timeLit, lit: '%'})
		case ':':
			if i+1 < len(spec) && spec[i+1] == 'z' {
				i++
				add(timeZoneColon, 0)
				continue
			}
			return nil, errors.New("unsupported START_TIME specifier %:")
		case 'E':
			switch {
			case i+1 < len(spec) && spec[i+1] == 'z':
				i++
				add(timeZoneColon, 0)
			case i+2 < len(spec) && spec[i+1] == '*' && spec[i+2] == 'S':
				i += 2
				add(timeSecondsFraction, 0)
			case i+2 < len(spec) && spec[i+1] >= '0' && spec[i+1] <= '9' && spec[i+2] == 'S':
				add(timeSecondsFraction, int(spec[i+1]-'0'))
				i += 2
			default:
				return nil, fmt.Errorf("unsupported START_TIME specifier %%E%s", spec[i+1:min(i+3, len(spec))])
			}
		default:
			if c >= '1' && c <= '9' && i+1 < len(spec) && spec[i+1] == 'f' {
				add(timeFraction, int(c-'0'))
				i++
				continue
			}
			return nil, fmt.Errorf("unsupported START_TIME specifier %%%c", c)
		}
	}
	if !have.epoch && !(have.year && have.month && have.day && have.hour && have.minute) {
		return nil, errors.New("START_TIME format without a full date and time or %s")
	}
	return l, nil
}

// monthAbbrevs are the English month abbreviations %b writes.
var monthAbbrevs = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parse reads a time written in layout l, all of b. loc is the zone of
// times without one for the _LOCAL operators (START_TIME is always UTC).
// It reports false for anything the layout does not describe exactly.
func (l *envoyTimeLayout) parse(b []byte, loc *time.Location) (time.Time, bool) {
	t, n, ok := l.scan(b, loc)
	return t, ok && n == len(b)
}

// scan reads a time written in layout l at the start of b, as parse does,
// and returns how many bytes it took: a layout may contain the text that
// follows it in a format (`%START_TIME(%F %T)% %RESPONSE_CODE%`).
func (l *envoyTimeLayout) scan(b []byte, loc *time.Location) (time.Time, int, bool) {
	if l.rfc3339 {
		if t, n, ok := lex.ScanRFC3339(b); ok {
			return t, n, true
		}
		if l.local {
			// START_TIME_LOCAL's default writes the zone as ±hhmm.
			return envoyDefaultLocal.scan(b, loc)
		}
		return time.Time{}, 0, false
	}
	start := len(b)
	var (
		year, month, day, hour, minute, second, nsec int
		epoch                                        int64
		hasEpoch, hasZone                            bool
		offset                                       time.Duration
	)
	fixed := func(n int) (int, bool) {
		if len(b) < n {
			return 0, false
		}
		v, ok := lex.Digits(b[:n])
		b = b[n:]
		return v, ok
	}
	for _, it := range l.items {
		var ok bool
		switch it.kind {
		case timeLit:
			ok = len(b) > 0 && b[0] == it.lit
			if ok {
				b = b[1:]
			}
		case timeYear:
			year, ok = fixed(4)
		case timeYear2:
			year, ok = fixed(2)
			year += 2000
		case timeMonth:
			month, ok = fixed(2)
		case timeMonthName:
			if len(b) >= 3 {
				for m, name := range monthAbbrevs {
					if string(b[:3]) == name {
						month, ok, b = m+1, true, b[3:]
						break
					}
				}
			}
		case timeDay:
			day, ok = fixed(2)
		case timeDaySpace:
			if len(b) >= 2 && b[0] == ' ' {
				b = b[1:]
				day, ok = fixed(1)
			} else {
				day, ok = fixed(2)
			}
		case timeHour:
			hour, ok = fixed(2)
		case timeMinute:
			minute, ok = fixed(2)
		case timeSecond:
			second, ok = fixed(2)
		case timeSecondsFraction:
			if second, ok = fixed(2); ok && len(b) > 0 && b[0] == '.' {
				var digits int
				nsec, digits = lex.Fraction(b[1:])
				ok = digits > 0 && (it.digits == 0 || digits == it.digits)
				b = b[1+digits:]
			} else if ok && it.digits > 0 {
				ok = false // %E3S always writes three digits
			}
		case timeFraction:
			var digits int
			nsec, digits = lex.Fraction(b)
			ok = digits == it.digits
			b = b[digits:]
		case timeEpoch:
			n := 0
			for n < len(b) && n < maxEpochDigits && b[n] >= '0' && b[n] <= '9' {
				n++
			}
			var v int
			v, ok = lex.Digits(b[:n])
			epoch, hasEpoch, b = int64(v), true, b[n:]
		case timeZone, timeZoneColon:
			offset, ok = envoyZoneOffset(&b, it.kind == timeZoneColon)
			hasZone = true
		case timeZoneName:
			n := 0
			for n < len(b) && (b[n] >= 'A' && b[n] <= 'Z') {
				n++
			}
			switch string(b[:n]) {
			case "UTC", "GMT", "Z":
				ok, hasZone = true, true
			default:
				ok = n > 0 && l.local // a local zone's name: the run's zone says the rest
			}
			b = b[n:]
		case timeWeekday:
			n := 0
			for n < len(b) && (b[n] >= 'A' && b[n] <= 'Z' || b[n] >= 'a' && b[n] <= 'z') {
				n++
			}
			ok, b = n >= 3, b[n:]
		}
		if !ok {
			return time.Time{}, 0, false
		}
	}
	n := start - len(b)
	if hasEpoch {
		return time.Unix(epoch, int64(nsec)).UTC(), n, true
	}
	if l.local && !hasZone && loc != nil && loc != time.UTC {
		if !lex.ValidDate(year, month, day) || !lex.ValidClock(hour, minute, second) {
			return time.Time{}, 0, false
		}
		return time.Date(year, time.Month(month), day, hour, minute, second, nsec, loc).UTC(), n, true
	}
	t, ok := lex.Time(year, month, day, hour, minute, second, nsec, offset)
	return t, n, ok
}

// envoyZoneOffset reads ±hhmm (or ±hh:mm when colon) from the front of *b.
func envoyZoneOffset(b *[]byte, colon bool) (time.Duration, bool) {
	s := *b
	n := 5
	if colon {
		n = 6
	}
	if len(s) < n || s[0] != '+' && s[0] != '-' || colon && s[3] != ':' {
		return 0, false
	}
	hh, ok1 := lex.Digits(s[1:3])
	mm, ok2 := lex.Digits(s[n-2 : n])
	if !ok1 || !ok2 || hh > 23 || mm > 59 {
		return 0, false
	}
	d := time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute
	if s[0] == '-' {
		d = -d
	}
	*b = s[n:]
	return d, true
}

// envoyDefaultLocal reads what START_TIME_LOCAL writes by default when it
// is not RFC 3339: the default layout with a numeric zone.
var envoyDefaultLocal = func() *envoyTimeLayout {
	l, err := compileEnvoyTime("%Y-%m-%dT%H:%M:%E3S%z", true)
	if err != nil {
		panic(err)
	}
	return l
}()

// envoyJSONKey is what one key of a JSON format dictionary holds.
type envoyJSONKey struct {
	envoyCommand
	// path is the key, or the keys down to it in a nested dictionary.
	path []string
	// platform is the product whose default dictionary alone has this key.
	platform Platform
}

// envoyKeyMap is a compiled JSON format dictionary.
type envoyKeyMap struct {
	// top maps the top-level keys to their operators.
	top map[string]*envoyJSONKey
	// nested lists the keys inside nested dictionaries.
	nested []envoyJSONKey
	// statusKey is the top-level key of %RESPONSE_CODE%, which a line must
	// have to be a record of this dictionary ("" when it is nested).
	statusKey string
	platform  Platform
}

// compileEnvoyKeyMap compiles a JSON format dictionary (json_format,
// typed_json_format, Istio's accessLogFormat with JSON encoding): every
// string value that is exactly one command operator becomes a key readygap
// reads; values that mix operators and text are skipped, as Envoy then
// writes them as strings readygap cannot take apart.
func compileEnvoyKeyMap(dict map[string]any) (*envoyKeyMap, error) {
	m := &envoyKeyMap{top: map[string]*envoyJSONKey{}}
	hasStatus := false
	var walk func(prefix []string, d map[string]any) error
	walk = func(prefix []string, d map[string]any) error {
		keys := make([]string, 0, len(d))
		for k := range d {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := append(append([]string(nil), prefix...), k)
			switch v := d[k].(type) {
			case map[string]any:
				if err := walk(path, v); err != nil {
					return err
				}
			case string:
				name, args, end, ok := scanEnvoyCommand(v, 0)
				if !strings.HasPrefix(v, "%") || !ok || end != len(v) {
					continue
				}
				c, err := newEnvoyCommand(name, args, v)
				if err != nil {
					return fmt.Errorf("key %q: %w", strings.Join(path, "."), err)
				}
				if c.op == opSkip {
					continue
				}
				key := envoyJSONKey{envoyCommand: c, path: path}
				if c.op == opStatus {
					hasStatus = true
					if len(path) == 1 {
						m.statusKey = k
					}
				}
				if len(path) == 1 {
					m.top[k] = &key
				} else {
					m.nested = append(m.nested, key)
				}
			}
		}
		return nil
	}
	if err := walk(nil, dict); err != nil {
		return nil, err
	}
	if !hasStatus {
		return nil, errEnvoyFormatNoStatus
	}
	return m, nil
}

// envoyCustom is the --envoy-format option compiled: a format string for
// the text adapter or a JSON dictionary for the JSON adapter.
type envoyCustom struct {
	text *envoyFormat
	json *envoyKeyMap
}

// compileEnvoyCustom compiles a user's Envoy format: a JSON object whose
// values are strings is a format dictionary, anything else a format string
// (an object with unquoted operators, such as `{"status":%RESPONSE_CODE%}`,
// is a format string that writes JSON-like text).
func compileEnvoyCustom(text string) (*envoyCustom, error) {
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var dict map[string]any
		if json.Unmarshal(bytes.TrimSuffix(trimmed, []byte(`\n`)), &dict) == nil {
			m, err := compileEnvoyKeyMap(dict)
			if err != nil {
				return nil, err
			}
			return &envoyCustom{json: m}, nil
		}
	}
	f, err := compileEnvoyFormat(text)
	if err != nil {
		return nil, err
	}
	return &envoyCustom{text: f}, nil
}

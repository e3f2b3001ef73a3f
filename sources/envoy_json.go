package sources

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strconv"
	"sync"
	"time"

	"github.com/valyala/fastjson"
)

// envoyJSON reads Envoy access logs written as one JSON object per line:
// Istio with accessLogEncoding JSON, Envoy Gateway's default (string values
// and `-` up to v1.3, typed values and null from v1.4), Contour's json
// format, and any dictionary given with Options.EnvoyFormat. Values may be
// strings or numbers; `-`, null and missing keys mean unset. Envoy's own
// text log lines interleaved with them are valid lines without a record.
type envoyJSON struct {
	// custom is the dictionary of Options.EnvoyFormat, used instead of the
	// default keys; nil without one.
	custom *envoyKeyMap
}

// envoyJSONDefaultKeys maps the keys of the default dictionaries to their
// operators: Istio's EnvoyJSONLogFormatIstio (istio/istio
// pilot/pkg/model/telemetry_logging.go), Envoy Gateway's EnvoyJSONLogFields
// (envoyproxy/gateway internal/xds/translator/accesslog.go) and Contour's
// jsonFields (projectcontour/contour apis/projectcontour/v1alpha1/accesslog.go),
// which agree where they overlap; upstream_request_attempt_count and
// upstream_hosts_attempted are the names users give those operators.
var envoyJSONDefaultKeys = map[string]any{
	"start_time":                        "%START_TIME%",
	"@timestamp":                        "%START_TIME%",
	"method":                            "%REQ(:METHOD)%",
	"path":                              "%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%",
	"x-envoy-origin-path":               "%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%",
	"response_code":                     "%RESPONSE_CODE%",
	"response_flags":                    "%RESPONSE_FLAGS%",
	"response_code_details":             "%RESPONSE_CODE_DETAILS%",
	"connection_termination_details":    "%CONNECTION_TERMINATION_DETAILS%",
	"upstream_transport_failure_reason": "%UPSTREAM_TRANSPORT_FAILURE_REASON%",
	"upstream_host":                     "%UPSTREAM_HOST%",
	"upstream_cluster":                  "%UPSTREAM_CLUSTER%",
	"route_name":                        "%ROUTE_NAME%",
	"upstream_request_attempt_count":    "%UPSTREAM_REQUEST_ATTEMPT_COUNT%",
	"duration":                          "%DURATION%",
	"upstream_hosts_attempted":          "%UPSTREAM_HOSTS_ATTEMPTED%",
	"downstream_local_address":          "%DOWNSTREAM_LOCAL_ADDRESS%",
}

// envoyJSONPlatformKeys are default keys only one product's dictionary has.
var envoyJSONPlatformKeys = map[string]Platform{
	"x-envoy-origin-path": PlatformEnvoyGateway,
	"@timestamp":          PlatformContour,
}

// envoyJSONDefaults is envoyJSONDefaultKeys compiled, with the keys of
// envoyJSONPlatformKeys naming their product.
var envoyJSONDefaults = func() *envoyKeyMap {
	m, err := compileEnvoyKeyMap(envoyJSONDefaultKeys)
	if err != nil {
		panic("default Envoy JSON keys: " + err.Error())
	}
	for k, p := range envoyJSONPlatformKeys {
		m.top[k].platform = p
	}
	return m
}()

// Format returns FormatEnvoyJSON.
func (envoyJSON) Format() Format { return FormatEnvoyJSON }

// keys returns the dictionary lines are read with.
func (a envoyJSON) keys() *envoyKeyMap {
	if a.custom != nil {
		return a.custom
	}
	return envoyJSONDefaults
}

// Match reports whether line is a JSON object with the dictionary's status
// key and, for the default keys, a start time: an Envoy access-log record.
func (a envoyJSON) Match(line []byte) bool {
	line = envoyTrimLine(line)
	m := a.keys()
	if len(line) == 0 || line[0] != '{' || m.statusKey != "" && !envoyHasKey(line, m.statusKey) && bytes.IndexByte(line, '\\') < 0 {
		return false // no status key, not even an escaped one
	}
	st := envoyJSONStates.Get().(*envoyJSONState)
	defer envoyJSONStates.Put(st)
	if st.read(line, m, time.UTC) != nil {
		return false
	}
	return a.custom != nil || !st.rec.time.IsZero()
}

// envoyHasKey reports whether line holds the quoted key; a cheap first test.
func envoyHasKey(line []byte, key string) bool {
	i := bytes.Index(line, []byte(key))
	return i > 0 && line[i-1] == '"' && i+len(key) < len(line) && line[i+len(key)] == '"'
}

// Reasons for skipping a JSON line.
var (
	errEnvoyJSONInvalid  = errors.New("invalid JSON where an Envoy JSON access-log line was expected")
	errEnvoyJSONNoStatus = errors.New("JSON line without a response code: not an Envoy access-log record")
	errEnvoyJSONStatus   = errors.New("Envoy JSON access line with a response code that is not an HTTP status")
	errEnvoyJSONValue    = errors.New("Envoy JSON access line with a value its command operator does not write")
)

// envoyJSONStates recycles the per-call working memory, fastjson parsers
// included (they are not safe for concurrent use).
var envoyJSONStates = sync.Pool{New: func() any { return new(envoyJSONState) }}

// envoyJSONState is the working memory of one call.
type envoyJSONState struct {
	p    fastjson.Parser
	rec  envoyRecord
	buf  envoyRequestBuffer
	emit time.Time
	// keys, loc and err are the arguments and result of visit.
	keys *envoyKeyMap
	loc  *time.Location
	err  error
	// slots remembers what the key at each position of the last lines was:
	// Envoy writes the keys of a dictionary in the same order on every
	// line, so comparing a key with the one seen at its position is
	// cheaper than looking it up. slotKeys is the dictionary they belong
	// to, pos the position of the next key.
	slots    []envoyKeySlot
	slotKeys *envoyKeyMap
	pos      int
	// num holds the text of a number the JSON parser read.
	num []byte
}

// envoyKeySlot is a key seen at one position and what it means (nil: a
// key readygap does not read).
type envoyKeySlot struct {
	key string
	k   *envoyJSONKey
	// plain says the key holds no quote or backslash: scan can then
	// compare it with a line's bytes as they are.
	plain bool
}

// maxEnvoyKeySlots bounds the positions remembered, so that a line with
// very many keys costs no more memory than a realistic one; Envoy
// Gateway's default has 24 keys.
const maxEnvoyKeySlots = 64

// Parse reports the Request of one JSON access line.
func (a envoyJSON) Parse(line []byte, ln *Line, out *Emitter) error {
	if len(line) == 0 || line[0] != '{' {
		// The JSON parser takes white space itself; only other lines need trimming.
		if line = envoyTrimLine(line); envoyOwnLogLine(line) {
			return nil
		}
	}
	st := envoyJSONStates.Get().(*envoyJSONState)
	defer envoyJSONStates.Put(st)
	if err := st.read(line, a.keys(), out.Location()); err != nil {
		return err
	}
	return emitEnvoyRecord(&st.rec, &st.buf, FormatEnvoyJSON, ln, out)
}

// read parses line and fills st.rec through the dictionary keys: a flat
// object, as Envoy writes one, by scan; anything else (nested dictionaries,
// escaped keys or values, malformed lines) by the full parser, which gives
// the same record and names what is wrong.
func (st *envoyJSONState) read(line []byte, keys *envoyKeyMap, loc *time.Location) error {
	if st.slotKeys != keys {
		st.slots, st.slotKeys = st.slots[:0], keys
	}
	st.start(keys, loc)
	if len(keys.nested) > 0 || !st.scan(line) {
		st.start(keys, loc)
		if err := st.parse(line); err != nil {
			return err
		}
	}
	if st.err != nil {
		return st.err
	}
	if !st.rec.hasStatus {
		return errEnvoyJSONNoStatus
	}
	if st.rec.time.IsZero() {
		st.rec.time, st.rec.timedAtEnd = st.emit, !st.emit.IsZero()
	}
	return nil
}

// start clears the record and the position for a new line.
func (st *envoyJSONState) start(keys *envoyKeyMap, loc *time.Location) {
	st.rec, st.emit = envoyRecord{platform: keys.platform}, time.Time{}
	st.keys, st.loc, st.err, st.pos = keys, loc, nil, 0
}

// parse reads line with the JSON parser, top-level keys and nested ones.
func (st *envoyJSONState) parse(line []byte) error {
	v, err := st.p.ParseBytes(line)
	if err != nil {
		return errEnvoyJSONInvalid
	}
	obj, err := v.Object()
	if err != nil {
		return errEnvoyJSONInvalid
	}
	obj.Visit(st.visit)
	for i := range st.keys.nested {
		k := &st.keys.nested[i]
		if val := v.Get(k.path...); val != nil && st.err == nil {
			st.err = st.set(&k.envoyCommand, val)
		}
	}
	return nil
}

// scan reads line when it is one flat JSON object without escapes in its
// keys or in the values readygap reads, as Envoy writes its access lines,
// in one pass and without building a tree: the values read alias line, the
// others are stepped over. It accepts exactly what the JSON parser accepts
// (fastjson: strings end at an unescaped quote, numbers are runs of
// digits, signs, points and exponents) and reports false for anything
// else, nested objects and arrays included, for parse to decide.
func (st *envoyJSONState) scan(s []byte) bool {
	i := envoyJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	i = envoyJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return envoyJSONSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return false
		}
		end, k, same := st.slotKey(s, i+1)
		if !same {
			var escaped, ok bool
			if end, escaped, ok = envoyJSONString(s, i+1); !ok || escaped {
				return false
			}
			k = st.lookup(s[i+1 : end])
		}
		if i = envoyJSONSpace(s, end+1); i >= len(s) || s[i] != ':' {
			return false
		}
		if i = envoyJSONSpace(s, i+1); i >= len(s) {
			return false
		}
		read := k != nil && st.err == nil
		if read && k.platform != "" {
			st.rec.platform = k.platform
		}
		switch c := s[i]; {
		case c == '"':
			end, escaped, ok := envoyJSONString(s, i+1)
			if !ok || escaped && read {
				return false
			}
			if read {
				st.err = st.setString(&k.envoyCommand, s[i+1:end])
			}
			i = end + 1
		case c == 'n' || c == 't' || c == 'f':
			lit := envoyJSONLiteral(s[i:])
			if lit == 0 {
				return false
			}
			if read {
				st.err = st.setOther(&k.envoyCommand, c == 'n')
			}
			i += lit
		default:
			n := envoyJSONNumber(s[i:])
			if n == 0 {
				return false
			}
			if read {
				st.err = st.setNumber(&k.envoyCommand, s[i:i+n])
			}
			i += n
		}
		if i = envoyJSONSpace(s, i); i >= len(s) {
			return false
		}
		switch s[i] {
		case ',':
			i = envoyJSONSpace(s, i+1)
		case '}':
			return envoyJSONSpace(s, i+1) == len(s)
		default:
			return false
		}
	}
}

// envoyJSONSpace returns the index of the first byte at or after i that is
// not JSON white space.
func envoyJSONSpace(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// envoyJSONString finds the end of the JSON string whose text starts at
// s[i], after its opening quote: the index of the closing quote (the first
// quote after an even run of backslashes) and whether the text holds a
// backslash; ok is false when the string is not closed.
func envoyJSONString(s []byte, i int) (end int, escaped, ok bool) {
	// Eight bytes at a time for the first quote or backslash (the values
	// are short: one search for each byte would cost more), then byte by
	// byte from the word that holds one.
	from := i
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		if m := swarZero(w^swarQuotes) | swarZero(w^swarBackslashes); m != 0 {
			i += bits.TrailingZeros64(m) / 8
			break
		}
	}
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			return i, false, true
		case '\\':
			goto escapes
		}
	}
	return 0, false, false
escapes:
	for {
		n := bytes.IndexByte(s[i:], '"')
		if n < 0 {
			return 0, true, false
		}
		q := i + n
		b := q
		for b > from && s[b-1] == '\\' {
			b--
		}
		if (q-b)%2 == 0 {
			return q, true, true
		}
		i = q + 1
	}
}

// envoyJSONLiteral returns the length of the literal null, true or false
// s starts with; 0 for none.
func envoyJSONLiteral(s []byte) int {
	for _, lit := range []string{"null", "true", "false"} {
		if len(s) >= len(lit) && string(s[:len(lit)]) == lit {
			return len(lit)
		}
	}
	return 0
}

// envoyJSONNumber returns the length of the number s starts with, read as
// the JSON parser does: a run of digits, signs, points and exponent marks,
// more than a sign; 0 for none.
func envoyJSONNumber(s []byte) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			n++
			continue
		}
		break
	}
	if n == 1 && (s[0] == '-' || s[0] == '+') {
		return 0 // a lone sign: the parser refuses it
	}
	return n
}

// envoyJSONInt reads a JSON number as an integer the way the JSON parser's
// Int does: an optional minus and digits, within int64.
func envoyJSONInt(raw []byte) (int, bool) {
	if len(raw) == 0 || raw[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(inputString(raw), 10, 64)
	return int(n), err == nil
}

// visit reads one top-level key of the object.
func (st *envoyJSONState) visit(key []byte, val *fastjson.Value) {
	k := st.lookup(key)
	if k == nil || st.err != nil {
		return
	}
	if k.platform != "" {
		st.rec.platform = k.platform
	}
	st.err = st.set(&k.envoyCommand, val)
}

// lookup returns what key, the next key of the line, means: from the
// slot of its position when the last line had the same key there.
func (st *envoyJSONState) lookup(key []byte) *envoyJSONKey {
	i := st.pos
	st.pos++
	if i < len(st.slots) && st.slots[i].key == string(key) {
		return st.slots[i].k
	}
	k := st.keys.top[string(key)]
	slot := envoyKeySlot{key: string(key), k: k, plain: !bytes.ContainsAny(key, `"\\`)}
	switch {
	case i < len(st.slots):
		st.slots[i] = slot
	case i == len(st.slots) && i < maxEnvoyKeySlots:
		st.slots = append(st.slots, slot)
	}
	return k
}

// slotKey reports whether s[i:], just after a key's opening quote, is the
// key the last lines had at this position and its closing quote: then it
// returns the index of that quote and what the key means, and moves to
// the next position. It spares scan the search for the quote.
func (st *envoyJSONState) slotKey(s []byte, i int) (end int, k *envoyJSONKey, ok bool) {
	if st.pos >= len(st.slots) {
		return 0, nil, false
	}
	sl := &st.slots[st.pos]
	end = i + len(sl.key)
	if !sl.plain || end >= len(s) || s[end] != '"' || string(s[i:end]) != sl.key {
		return 0, nil, false
	}
	st.pos++
	return end, sl.k, true
}

// set stores one value the JSON parser read.
func (st *envoyJSONState) set(c *envoyCommand, val *fastjson.Value) error {
	switch val.Type() {
	case fastjson.TypeString:
		b, _ := val.StringBytes()
		return st.setString(c, b)
	case fastjson.TypeNumber:
		st.num = val.MarshalTo(st.num[:0])
		return st.setNumber(c, st.num)
	}
	return st.setOther(c, val.Type() == fastjson.TypeNull)
}

// setString stores a string value as the text adapter reads it.
func (st *envoyJSONState) setString(c *envoyCommand, b []byte) error {
	t, err := st.rec.set(c, b, st.loc)
	if err != nil {
		if c.op == opStatus {
			return errEnvoyJSONStatus
		}
		return errEnvoyJSONValue
	}
	if c.op == opEmitTime {
		st.emit = t
	}
	return nil
}

// setNumber stores a number value (its text, raw) for the numeric
// operators; other operators ignore numbers.
func (st *envoyJSONState) setNumber(c *envoyCommand, raw []byte) error {
	rec := &st.rec
	switch c.op {
	case opStatus:
		n, ok := envoyJSONInt(raw)
		if !ok || n < 0 || n > 999 {
			return errEnvoyJSONStatus
		}
		rec.status, rec.hasStatus = n, true
	case opAttemptCount, opDuration:
		n, ok := envoyJSONInt(raw)
		if !ok || n < 0 {
			return errEnvoyJSONValue
		}
		if c.op == opDuration {
			rec.durationMS = n
		} else {
			rec.attemptCount = n
		}
	}
	return nil
}

// setOther stores null (unset) or another value that is neither string
// nor number, which only the status operator refuses.
func (st *envoyJSONState) setOther(c *envoyCommand, null bool) error {
	switch {
	case c.op != opStatus:
	case null:
		st.rec.hasStatus = true
	default:
		return errEnvoyJSONStatus
	}
	return nil
}

// NearMiss recognises an Envoy JSON access line without a time key, and
// one written with a dictionary of its own.
func (a envoyJSON) NearMiss(s *nearSample) (nearScore, string) {
	elem := s.jsonElem()
	if elem == nil {
		return nearNone, ""
	}
	keys, _ := jsonKeys(elem)
	if !hasAnyKey(keys, "responsecode", "responseflags", "flags", "upstreamhost", "upstreamcluster", "responsecodedetails", "xenvoyoriginpath") {
		return nearNone, ""
	}
	if !hasAnyKey(keys, jsonTimeKeys...) {
		return nearFields, "a JSON object with no time key: the access-log dictionary has no %START_TIME% (add \"start_time\": \"%START_TIME%\", or keep the time kubectl logs --timestamps puts in front)"
	}
	return nearShape, "an Envoy JSON access line with keys other than the default dictionaries': give its dictionary with --envoy-format"
}

package sources

import (
	"bytes"
	"errors"
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
}

// envoyKeySlot is a key seen at one position and what it means (nil: a
// key readygap does not read).
type envoyKeySlot struct {
	key string
	k   *envoyJSONKey
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

// read parses line and fills st.rec through the dictionary keys.
func (st *envoyJSONState) read(line []byte, keys *envoyKeyMap, loc *time.Location) error {
	st.rec, st.emit = envoyRecord{platform: keys.platform}, time.Time{}
	v, err := st.p.ParseBytes(line)
	if err != nil {
		return errEnvoyJSONInvalid
	}
	obj, err := v.Object()
	if err != nil {
		return errEnvoyJSONInvalid
	}
	st.keys, st.loc, st.err, st.pos = keys, loc, nil, 0
	if st.slotKeys != keys {
		st.slots, st.slotKeys = st.slots[:0], keys
	}
	obj.Visit(st.visit)
	for i := range keys.nested {
		k := &keys.nested[i]
		if val := v.Get(k.path...); val != nil && st.err == nil {
			st.err = st.set(&k.envoyCommand, val)
		}
	}
	if st.err != nil {
		return st.err
	}
	if !st.rec.hasStatus {
		return errEnvoyJSONNoStatus
	}
	if st.rec.time.IsZero() {
		st.rec.time = st.emit
	}
	return nil
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
	switch {
	case i < len(st.slots):
		st.slots[i] = envoyKeySlot{key: string(key), k: k}
	case i == len(st.slots) && i < maxEnvoyKeySlots:
		st.slots = append(st.slots, envoyKeySlot{key: string(key), k: k})
	}
	return k
}

// set stores one value: a string as the text adapter reads it, a number
// for the numeric operators, null as unset.
func (st *envoyJSONState) set(c *envoyCommand, val *fastjson.Value) error {
	rec := &st.rec
	switch val.Type() {
	case fastjson.TypeString:
		b, _ := val.StringBytes()
		t, err := rec.set(c, b, st.loc)
		if err != nil {
			if c.op == opStatus {
				return errEnvoyJSONStatus
			}
			return errEnvoyJSONValue
		}
		if c.op == opEmitTime {
			st.emit = t
		}
	case fastjson.TypeNumber:
		n, err := val.Int()
		switch c.op {
		case opStatus:
			if err != nil || n < 0 || n > 999 {
				return errEnvoyJSONStatus
			}
			rec.status, rec.hasStatus = n, true
		case opAttemptCount:
			if err != nil || n < 0 {
				return errEnvoyJSONValue
			}
			rec.attemptCount = n
		}
	case fastjson.TypeNull:
		if c.op == opStatus {
			rec.hasStatus = true
		}
	default:
		if c.op == opStatus {
			return errEnvoyJSONStatus
		}
	}
	return nil
}

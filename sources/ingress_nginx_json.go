package sources

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fastjson"
)

// ingressNginxJSON reads ingress-nginx controller output whose access lines
// are JSON objects: a `log-format-upstream` JSON template with
// `log-format-escape-json: "true"`, one object per line. Without
// Options.NginxFormat the keys are recognised by name: the documented
// ingress-nginx variables (`status`, `upstream_addr`, `upstream_status`,
// `time_iso8601`, ...) and the names users give them in the wild (`time`,
// `@timestamp`, `upstreamAddr`, `upstream_server`, ...; nginx-k8s.md §1.7);
// with it, the template says which key holds which variable. The nginx
// error-log and klog lines printed among them are read as ingress_nginx.go
// reads them.
type ingressNginxJSON struct {
	// custom is the JSON template of Options.NginxFormat; nil without one.
	custom *nginxKeyMap
}

// Format returns FormatIngressNginxJSON.
func (ingressNginxJSON) Format() Format { return FormatIngressNginxJSON }

// nginxJSONAliases maps key names, lower-cased and without `_`, `-` and
// `@`, to the variable they hold when no template is given: each
// variable's own name, and the names seen in published templates.
var nginxJSONAliases = map[string]nginxVar{
	"time":                   nvTimeISO,
	"timestamp":              nvTimeISO,
	"timeiso8601":            nvTimeISO,
	"timeiso":                nvTimeISO,
	"timestr":                nvTimeISO,
	"timelocal":              nvTimeISO,
	"msec":                   nvTimeISO,
	"timemsec":               nvTimeISO,
	"status":                 nvStatus,
	"request":                nvRequest,
	"method":                 nvMethod,
	"requestmethod":          nvMethod,
	"httprequestmethod":      nvMethod,
	"uri":                    nvURI,
	"path":                   nvURI,
	"requesturi":             nvURI,
	"httprequesturi":         nvURI,
	"upstreamaddr":           nvUpAddr,
	"upstreamaddress":        nvUpAddr,
	"upstreamserver":         nvUpAddr,
	"upstreamstatus":         nvUpStatus,
	"upstreamresponselength": nvUpLength,
	"proxyupstreamname":      nvUpName,
	"upstreamname":           nvUpName,
	"upstream":               nvUpNameOrAddr,
	"requesttime":            nvRequestTime,
}

// nginxJSONOwnKeys are keys, normalised as for nginxJSONAliases, that only
// an nginx access log has: one of them tells an nginx JSON line from any
// other JSON with a status and a time.
var nginxJSONOwnKeys = map[string]bool{
	"upstreamaddr": true, "upstreamstatus": true, "upstreamserver": true, "upstreamresponsetime": true,
	"proxyupstreamname": true, "requesttime": true, "requestlength": true, "bodybytessent": true,
	"bytessent": true, "remoteaddr": true, "httpuseragent": true, "reqid": true, "timeiso8601": true,
	"timelocal": true, "msec": true,
}

// nginxJSONKeyInfo is what a normalised key says without a template.
type nginxJSONKeyInfo struct {
	v nginxVar
	// alias says the key names a variable readygap reads (v); own says
	// only an nginx access log has it.
	alias, own bool
}

// nginxJSONKeys merges nginxJSONAliases and nginxJSONOwnKeys, so that a
// line's key is looked up once.
var nginxJSONKeys = func() map[string]nginxJSONKeyInfo {
	m := map[string]nginxJSONKeyInfo{}
	for k, v := range nginxJSONAliases {
		m[k] = nginxJSONKeyInfo{v: v, alias: true}
	}
	for k := range nginxJSONOwnKeys {
		info := m[k]
		info.own = true
		m[k] = info
	}
	return m
}()

// nginxJSONKey normalises a key for nginxJSONAliases.
func nginxJSONKey(k []byte, buf []byte) []byte {
	buf = buf[:0]
	for _, c := range k {
		switch {
		case c == '_' || c == '-' || c == '@':
		case c >= 'A' && c <= 'Z':
			buf = append(buf, c+'a'-'A')
		default:
			buf = append(buf, c)
		}
	}
	return buf
}

// Reasons for skipping a JSON line.
var (
	errNginxJSONInvalid  = errors.New("invalid JSON where an ingress-nginx JSON access line was expected")
	errNginxJSONNoStatus = errors.New("JSON line without a status: not an ingress-nginx access line")
	errNginxJSONStatus   = errors.New("ingress-nginx JSON access line with a status that is not an HTTP status")
)

// errNginxJSONNoUpstream names the variables a JSON access line lacks.
type errNginxJSONNoUpstream struct{ missing []string }

func (e errNginxJSONNoUpstream) Error() string {
	return fmt.Sprintf("nginx JSON access line without %s: readygap cannot tell a 502 or 503 nginx made from one the application sent; add %s to log-format-upstream (and give the template with --nginx-format if its keys have other names)",
		strings.Join(e.missing, " or "), strings.Join(e.missing, " and "))
}

// nginxJSONStates recycles the per-call working memory, fastjson parsers
// included (they are not safe for concurrent use).
var nginxJSONStates = sync.Pool{New: func() any { return new(nginxJSONState) }}

// nginxJSONState is the working memory of one call.
type nginxJSONState struct {
	p    fastjson.Parser
	vals nginxValues
	key  []byte
	// num holds the text of the numbers of list variables (an unquoted
	// $upstream_status of one attempt is a JSON number), one per variable.
	num [3][]byte
	// reqTime holds the text of an unquoted $request_time.
	reqTime []byte
	// seen says which variables the line has a key for.
	seen [nvUpNameOrAddr + 1]bool
	// own says the line has a key only nginx writes.
	own bool
	err error
	// slots remembers the key seen at each position of the last lines and
	// what it says: nginx writes a template's keys in the same order on
	// every line, so comparing a key with the one at its position saves
	// normalising and looking it up. pos is the position of the next key.
	slots []nginxKeySlot
	pos   int
}

// nginxKeySlot is a key seen at one position and what it says.
type nginxKeySlot struct {
	key  string
	info nginxJSONKeyInfo
}

// maxNginxKeySlots bounds the positions remembered, so that a line with
// very many keys costs no more memory than a realistic one.
const maxNginxKeySlots = 64

// lookup returns what key, the next key of the line, says without a template.
func (st *nginxJSONState) lookup(key []byte) nginxJSONKeyInfo {
	i := st.pos
	st.pos++
	if i < len(st.slots) && st.slots[i].key == string(key) {
		return st.slots[i].info
	}
	st.key = nginxJSONKey(key, st.key)
	info := nginxJSONKeys[string(st.key)]
	switch {
	case i < len(st.slots):
		st.slots[i] = nginxKeySlot{string(key), info}
	case i == len(st.slots) && i < maxNginxKeySlots:
		st.slots = append(st.slots, nginxKeySlot{string(key), info})
	}
	return info
}

// Match reports whether line is a JSON access line of the template, or
// without one an object with a status, a key only nginx writes and a time
// or the upstream keys; or an nginx error-log or klog line.
func (a ingressNginxJSON) Match(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nginxOtherLineMatch(nginxUnwrap(line))
	}
	st := nginxJSONStates.Get().(*nginxJSONState)
	defer nginxJSONStates.Put(st)
	if err := st.read(line, a.custom); err != nil {
		if err == errNginxJSONInvalid && a.custom != nil && a.custom.text != nil {
			return a.custom.text.scan(line, &st.vals, nil) == nil
		}
		return false
	}
	if a.custom != nil {
		return true
	}
	// A line without a time of its own is one when it has the upstream
	// keys: behind an envelope that gives the time (Cloud Logging lifts a
	// `time` key out of a jsonPayload), or skipped saying what to add.
	return st.own && (!st.vals.time.IsZero() || st.seen[nvUpAddr] && st.seen[nvUpStatus])
}

// Parse reports the Request of one JSON access line, or reads an error-log
// or klog line.
func (a ingressNginxJSON) Parse(line []byte, ln *Line, out *Emitter) error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return (ingressNginx{}).Parse(line, ln, out)
	}
	st := nginxJSONStates.Get().(*nginxJSONState)
	defer nginxJSONStates.Put(st)
	if err := st.read(trimmed, a.custom); err != nil {
		if err == errNginxJSONInvalid && a.custom != nil && a.custom.text != nil {
			return a.parseText(trimmed, ln, out)
		}
		return err
	}
	var missing []string
	if !st.seen[nvUpAddr] {
		missing = append(missing, "$upstream_addr")
	}
	if !st.seen[nvUpStatus] {
		missing = append(missing, "$upstream_status")
	}
	if len(missing) > 0 {
		return errNginxJSONNoUpstream{missing}
	}
	return st.vals.emit(FormatIngressNginxJSON, ln, out)
}

// ZoneOffset returns the zone of a JSON access line's time: error-log and
// klog lines of the same controller are written at the same offset but
// without it (see zoneLearner).
func (a ingressNginxJSON) ZoneOffset(line []byte) (time.Duration, time.Time, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return 0, time.Time{}, false
	}
	st := nginxJSONStates.Get().(*nginxJSONState)
	defer nginxJSONStates.Put(st)
	if st.read(line, a.custom) != nil || !st.vals.zoned {
		return 0, time.Time{}, false
	}
	return st.vals.offset, st.vals.time, true
}

// parseText reads a line that is not valid JSON with the template read as
// a log_format string: nginx writes invalid JSON when an unquoted upstream
// variable holds a list or `-`.
func (a ingressNginxJSON) parseText(line []byte, ln *Line, out *Emitter) error {
	var vals nginxValues
	if err := a.custom.text.scan(line, &vals, &out.stamp); err != nil {
		return errNginxJSONInvalid
	}
	return vals.emit(FormatIngressNginxJSON, ln, out)
}

// read parses line and fills st.vals through the template's keys, or the
// aliases without one. Nested objects are not looked into.
func (st *nginxJSONState) read(line []byte, custom *nginxKeyMap) error {
	v, err := st.p.ParseBytes(line)
	if err != nil {
		return errNginxJSONInvalid
	}
	o, err := v.Object()
	if err != nil {
		return errNginxJSONInvalid
	}
	st.vals, st.seen, st.own, st.err, st.pos = nginxValues{}, [nvUpNameOrAddr + 1]bool{}, false, nil, 0
	o.Visit(func(key []byte, val *fastjson.Value) {
		if st.err != nil {
			return
		}
		var nv nginxVar
		if custom != nil {
			var ok bool
			if nv, ok = custom.keys[string(key)]; !ok {
				return
			}
		} else {
			info := st.lookup(key)
			st.own = st.own || info.own
			if !info.alias {
				return
			}
			nv = info.v
		}
		st.err = st.set(nv, val, custom == nil)
	})
	if st.err != nil {
		return st.err
	}
	if !st.seen[nvStatus] {
		return errNginxJSONNoStatus
	}
	return nil
}

// set stores one value. byShape reads a time by what it looks like rather
// than by its variable (the aliases do not know which time variable a key
// holds).
func (st *nginxJSONState) set(nv nginxVar, val *fastjson.Value, byShape bool) error {
	var b []byte
	switch val.Type() {
	case fastjson.TypeString:
		b = val.GetStringBytes()
	case fastjson.TypeNumber:
		switch {
		case nv == nvStatus:
			n, err := val.Int()
			if err != nil || n < 100 || n > 999 {
				return errNginxJSONStatus
			}
			st.vals.status, st.seen[nvStatus] = n, true
			return nil
		case nv.isTime():
			f, err := val.Float64()
			if err != nil || f <= 0 || f >= 1e11 {
				return errNginxValueTime
			}
			sec := int64(f)
			st.vals.time, st.seen[nv] = time.Unix(sec, int64((f-float64(sec))*1e3+0.5)*int64(time.Millisecond)).UTC(), true
			return nil
		case nv.isList():
			i := int(nv - nvUpAddr)
			st.num[i] = val.MarshalTo(st.num[i][:0])
			b = st.num[i]
		case nv == nvRequestTime:
			st.reqTime = val.MarshalTo(st.reqTime[:0])
			b = st.reqTime
		default:
			return nil
		}
	case fastjson.TypeNull:
	default:
		return nil // an object or array is no variable's value
	}
	if nv == nvUpNameOrAddr {
		switch {
		case len(b) == 0 || nginxIsDash(b):
			// Nothing contacted, or no name: either way no attempt.
			st.seen[nvUpAddr] = true
			return nil
		case bytes.IndexByte(b, ':') >= 0:
			nv = nvUpAddr
		default:
			nv = nvUpName
		}
	}
	st.seen[nv] = true
	if nv.isTime() && byShape {
		nv = nginxTimeShape(b)
	}
	if nv == nvStatus && len(b) == 0 {
		return errNginxJSONStatus
	}
	if err := st.vals.set(nv, b, nil); err != nil {
		if err == errNginxValueStatus {
			return errNginxJSONStatus
		}
		return err
	}
	return nil
}

// nginxTimeShape names the time variable that writes b: $time_local
// (`02/Jan/...`), $msec (digits and a dot) or $time_iso8601.
func nginxTimeShape(b []byte) nginxVar {
	switch {
	case len(b) > 3 && b[2] == '/':
		return nvTimeLocal
	case len(b) > 0 && bytes.IndexByte(b, '-') < 0 && b[0] >= '0' && b[0] <= '9':
		return nvMsec
	}
	return nvTimeISO
}

// NearMiss recognises an nginx JSON access line without a time (and
// without the upstream keys, which would make it one) or status key, and
// one written with a template whose keys it does not know.
func (a ingressNginxJSON) NearMiss(s *nearSample) (nearScore, string) {
	elem := s.jsonElem()
	if elem == nil {
		return nearNone, ""
	}
	keys, _ := jsonKeys(elem)
	own := false
	for k := range keys {
		own = own || nginxJSONOwnKeys[k]
	}
	status := hasAnyKey(keys, "status", "statuscode", "code", "httpstatus")
	timed := hasAnyKey(keys, jsonTimeKeys...)
	const noTime = "a JSON object with no time key: add \"time\": \"$time_iso8601\" to log-format-upstream (or keep the time kubectl logs --timestamps puts in front), and give the template with --nginx-format if its keys have names of their own"
	switch {
	case own && !timed:
		return nearFields, noTime
	case status && !timed:
		return nearShape, noTime
	case own && !keys["status"]:
		return nearFields, "an nginx JSON access line without a \"status\" key: give the log-format-upstream template with --nginx-format"
	case own:
		return nearShape, "an nginx JSON access line in a template readygap does not know: give the log-format-upstream template with --nginx-format"
	}
	return nearNone, ""
}

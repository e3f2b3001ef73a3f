package sources

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	"github.com/valyala/fastjson"
)

// Most elements of a Cloud Logging export are load balancer request
// entries, of which the adapter reads a dozen values; building fastjson's
// tree of all of an entry's values cost more than the rest of the work
// together. gcpScan reads a LogEntry in one pass instead, keeps the values
// the adapter reads and skips the others without building anything.
//
// It only vouches for what it fully understands: it accepts a subset of the
// JSON fastjson accepts and reads from it what fastjson's tree gives, and
// gives up on anything else, which fastjson then reads as before:
//   - JSON fastjson would refuse, or accept differently (NaN, Inf, a lone
//     '-', nesting deeper than fastjson.MaxDepth);
//   - a backslash in a key of an object it reads, or in a value it keeps:
//     fastjson unescapes them;
//   - a key it reads twice in one object: fastjson's Get takes the first;
//   - a value it reads of another type than the expected one (a status that
//     is not 1 to 3 digits, a string that is null, an object that is a
//     string...).

// gcpScan is what the scan of one LogEntry read. The slices point into the
// element.
type gcpScan struct {
	logName                    []byte
	timestamp, receiveTime     []byte
	resourceType               []byte
	labels                     [len(gcpLBLabels)][]byte
	hasHTTPRequest             bool
	statusDetails, proxyStatus []byte
	// req holds the request fields read as they are (insertId, status,
	// serverIp, requestMethod, requestUrl); requestFields adds the others.
	req gcpRequestFields
	// seen has the bit of each value read (gcpSeen*), to give up on a
	// repeated key.
	seen uint32
}

// gcpObject says which object of a LogEntry the scan is in.
type gcpObject uint8

const (
	gcpInEntry gcpObject = iota
	gcpInResource
	gcpInLabels
	gcpInHTTPRequest
	gcpInPayload
)

// One bit per value gcpScan reads, for gcpScan.seen.
const (
	gcpSeenLogName uint32 = 1 << iota
	gcpSeenInsertID
	gcpSeenTimestamp
	gcpSeenReceiveTime
	gcpSeenResource
	gcpSeenHTTPRequest
	gcpSeenPayload
	gcpSeenType
	gcpSeenLabels
	gcpSeenStatus
	gcpSeenServerIP
	gcpSeenMethod
	gcpSeenURL
	gcpSeenStatusDetails
	gcpSeenProxyStatus
	// gcpSeenLabel is the bit of gcpLBLabels[0]; the others follow it.
	gcpSeenLabel
)

// scan reads elem, one JSON value. It reports false when it cannot vouch
// for what it read, or elem has no logName: then the element must go
// through fastjson.
func (s *gcpScan) scan(elem []byte) bool {
	*s = gcpScan{}
	i := gcpSkipWS(elem, 0)
	if i >= len(elem) || elem[i] != '{' {
		return false
	}
	// fastjson counts the top-level value as depth 1.
	i = s.object(elem, i, 1, gcpInEntry)
	return i >= 0 && gcpSkipWS(elem, i) == len(elem) && len(s.logName) > 0
}

// requestFields returns what the scan read as the fields of a request entry.
func (s *gcpScan) requestFields() *gcpRequestFields {
	f := &s.req
	f.time = s.timestamp
	f.detail = gcpDetail(s.statusDetails, s.proxyStatus)
	if s.seen&gcpSeenTimestamp == 0 {
		f.time = s.receiveTime
	}
	for _, l := range s.labels {
		if len(l) > 0 {
			f.lb = l
			break
		}
	}
	return f
}

// object reads the object that starts at b[i], at depth as fastjson counts
// it, and returns the index after it, or -1 to give up.
func (s *gcpScan) object(b []byte, i, depth int, in gcpObject) int {
	i = gcpSkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return -1
		}
		k := i + 1
		if i = gcpStringStop(b, k); i >= len(b) || b[i] != '"' {
			return -1
		}
		key := b[k:i]
		i = gcpSkipWS(b, i+1)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		if i = s.member(b, gcpSkipWS(b, i+1), depth+1, in, key); i < 0 {
			return -1
		}
		var closed bool
		if i, closed = gcpNextMember(b, i, '}'); closed {
			return i
		}
	}
}

// gcpNextMember reads what follows a member or element that ends before
// b[i] in a container closing with end: at a comma it returns the start of
// the next one; at end, the index after the container and closed; at
// anything else -1 and closed, to give up.
func gcpNextMember(b []byte, i int, end byte) (next int, closed bool) {
	if i = gcpSkipWS(b, i); i >= len(b) {
		return -1, true
	}
	switch b[i] {
	case ',':
		return gcpSkipWS(b, i+1), false
	case end:
		return i + 1, true
	}
	return -1, true
}

// member reads or skips the value of key in object in, at b[i] and depth.
func (s *gcpScan) member(b []byte, i, depth int, in gcpObject, key []byte) int {
	switch in {
	case gcpInEntry:
		switch string(key) {
		case "logName":
			return s.str(b, i, gcpSeenLogName, &s.logName)
		case "insertId":
			return s.str(b, i, gcpSeenInsertID, &s.req.insertID)
		case "timestamp":
			return s.str(b, i, gcpSeenTimestamp, &s.timestamp)
		case "receiveTimestamp":
			return s.str(b, i, gcpSeenReceiveTime, &s.receiveTime)
		case "resource":
			return s.nested(b, i, depth, gcpSeenResource, gcpInResource)
		case "httpRequest":
			s.hasHTTPRequest = true
			return s.nested(b, i, depth, gcpSeenHTTPRequest, gcpInHTTPRequest)
		case "jsonPayload":
			return s.nested(b, i, depth, gcpSeenPayload, gcpInPayload)
		}
	case gcpInResource:
		switch string(key) {
		case "type":
			return s.str(b, i, gcpSeenType, &s.resourceType)
		case "labels":
			return s.nested(b, i, depth, gcpSeenLabels, gcpInLabels)
		}
	case gcpInLabels:
		for n, l := range gcpLBLabels {
			if string(key) == l {
				return s.str(b, i, gcpSeenLabel<<n, &s.labels[n])
			}
		}
	case gcpInHTTPRequest:
		switch string(key) {
		case "status":
			return s.statusCode(b, i)
		case "serverIp":
			return s.str(b, i, gcpSeenServerIP, &s.req.serverIP)
		case "requestMethod":
			return s.str(b, i, gcpSeenMethod, &s.req.method)
		case "requestUrl":
			return s.str(b, i, gcpSeenURL, &s.req.url)
		}
	case gcpInPayload:
		switch string(key) {
		case "statusDetails":
			return s.str(b, i, gcpSeenStatusDetails, &s.statusDetails)
		case "proxyStatus":
			return s.str(b, i, gcpSeenProxyStatus, &s.proxyStatus)
		}
	}
	return gcpSkipValue(b, i, depth)
}

// see marks the value of bit read, and reports false when it was already.
func (s *gcpScan) see(bit uint32) bool {
	if s.seen&bit != 0 {
		return false
	}
	s.seen |= bit
	return true
}

// nested reads the object at b[i] as object in.
func (s *gcpScan) nested(b []byte, i, depth int, bit uint32, in gcpObject) int {
	if !s.see(bit) || depth > fastjson.MaxDepth || i >= len(b) || b[i] != '{' {
		return -1
	}
	return s.object(b, i, depth, in)
}

// str reads the string at b[i], without escapes, into *dst.
func (s *gcpScan) str(b []byte, i int, bit uint32, dst *[]byte) int {
	if !s.see(bit) || i >= len(b) || b[i] != '"' {
		return -1
	}
	j := gcpStringStop(b, i+1)
	if j >= len(b) || b[j] != '"' {
		return -1
	}
	*dst = b[i+1 : j]
	return j + 1
}

// gcpMaxStatusDigits is the most digits of a status the scan reads: an
// HTTP status has 3, and gcpStatus refuses more than 999. A longer number
// (leading zeros, or not a status) is left to fastjson and gcpStatus.
const gcpMaxStatusDigits = 3

// statusCode reads httpRequest.status at b[i]: 1 to gcpMaxStatusDigits
// digits (a fraction, an exponent or a sign after them is no ',' or '}',
// on which object gives up).
func (s *gcpScan) statusCode(b []byte, i int) int {
	if !s.see(gcpSeenStatus) {
		return -1
	}
	n, j := 0, i
	for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
		n = n*10 + int(b[j]-'0')
	}
	if digits := j - i; digits == 0 || digits > gcpMaxStatusDigits {
		return -1
	}
	s.req.status = n
	return j
}

// gcpSkipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func gcpSkipWS(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	return gcpSkipWSRun(b, i)
}

// gcpSkipWSRun is gcpSkipWS past its first byte: the indentation of a
// pretty-printed element, a line break and runs of spaces, 8 at a time.
func gcpSkipWSRun(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ':
			if i+8 > len(b) {
				i++
				continue
			}
			if x := binary.LittleEndian.Uint64(b[i:]) ^ swarSpaces; x != 0 {
				i += bits.TrailingZeros64(x) / 8
			} else {
				i += 8
			}
		case '\n', '\t', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// gcpStringStop returns the index of the first quote or backslash at or
// after i, or len(b): the end of a string that has no escape. It reads
// eight bytes at a time (see envoyJSONString).
func gcpStringStop(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if t := swarZero(x^swarQuotes) | swarZero(x^swarBackslashes); t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return i
}

// gcpSkipValue skips the value at b[i], at depth as fastjson counts it,
// and returns the index after it, or -1 to give up.
func gcpSkipValue(b []byte, i, depth int) int {
	if depth > fastjson.MaxDepth || i >= len(b) {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return gcpSkipString(b, i+1)
	case c == '{':
		return gcpSkipContainer(b, i, depth, '}')
	case c == '[':
		return gcpSkipContainer(b, i, depth, ']')
	case c == 't':
		return gcpSkipLiteral(b, i, "true")
	case c == 'f':
		return gcpSkipLiteral(b, i, "false")
	case c == 'n':
		return gcpSkipLiteral(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		// fastjson takes any run of number bytes as a number, but reads a
		// lone sign as the start of Inf or NaN.
		j := i + 1
		for j < len(b) && gcpNumberByte(b[j]) {
			j++
		}
		if j == i+1 && c == '-' {
			return -1
		}
		return j
	}
	return -1
}

// gcpNumberByte reports whether c is one of the bytes fastjson takes as part of a number.
func gcpNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'
}

// gcpSkipLiteral skips lit at b[i].
func gcpSkipLiteral(b []byte, i int, lit string) int {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// gcpSkipString skips the rest of a string (or key) whose first byte is at
// b[i] and returns the index after its closing quote: the first quote not
// escaped by an odd number of backslashes, as fastjson finds it.
func gcpSkipString(b []byte, i int) int {
	for {
		n := bytes.IndexByte(b[i:], '"')
		if n < 0 {
			return -1
		}
		q := i + n
		k := q
		for b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// gcpSkipContainer skips the object or array at b[i], which closes with
// end, and returns the index after it, or -1 to give up.
func gcpSkipContainer(b []byte, i, depth int, end byte) int {
	i = gcpSkipWS(b, i+1)
	if i < len(b) && b[i] == end {
		return i + 1
	}
	for {
		if end == '}' {
			if i >= len(b) || b[i] != '"' {
				return -1
			}
			if i = gcpSkipString(b, i+1); i < 0 {
				return -1
			}
			if i = gcpSkipWS(b, i); i >= len(b) || b[i] != ':' {
				return -1
			}
			i = gcpSkipWS(b, i+1)
		}
		if i = gcpSkipValue(b, i, depth+1); i < 0 {
			return -1
		}
		var closed bool
		if i, closed = gcpNextMember(b, i, end); closed {
			return i
		}
	}
}

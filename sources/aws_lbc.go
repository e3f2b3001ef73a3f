package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// awsLBC reads AWS Load Balancer Controller logs: controller-runtime zap JSON
// lines, one per line, `{"level":..,"ts":..,"msg":..,...}`. It reports when
// the controller registered pod (ip) and node (instance) targets in a target
// group and when it deregistered them, one Lifecycle per target, and keeps
// error lines about targets for the timeline. Other controller lines are
// valid but carry no record.
//
// Times: `ts` is a float of epoch seconds (v2.0 to v2.4) or an RFC 3339 string
// of second precision (v2.5+). Both are truncated to the microsecond; the
// float is read from its decimal text, so 1676814406.2301478 becomes
// 13:46:46.230147 exactly. A whole-second time is refined with the wrapper's
// stamp (CRI or Fluent Bit time, see unwrapLine) when the stamp falls within
// that second, so lines of one second keep their order.
type awsLBC struct{}

// lbcSource is the Source of every record of this format.
const lbcSource = "aws-load-balancer-controller"

// lbcTargetKinds maps the exact messages of the TargetGroupBinding targets
// manager to lifecycle kinds. The frontend-NLB manager's lower-case
// `deregistered targets` is about ALB targets, not pods, and is left out.
var lbcTargetKinds = map[string]LifecycleKind{
	"registering targets":   TargetRegistering,
	"registered targets":    TargetRegistered,
	"deRegistering targets": TargetDeregistering,
	"deRegistered targets":  TargetDeregistered,
}

// lbcLine holds the keys of a controller line that readygap uses; the
// others are ignored.
type lbcLine struct {
	Level string          `json:"level"`
	TS    json.RawMessage `json:"ts"`
	Msg   *string         `json:"msg"`
	ARN   string          `json:"arn"`
	// Targets is an array of ELBv2 TargetDescriptions, or a single one in the
	// frontend-NLB manager's `registering targets`.
	Targets json.RawMessage `json:"targets"`
	Error   json.RawMessage `json:"error"`
}

// lbcTarget is an ELBv2 TargetDescription as aws-sdk-go v1 and v2 encode it
// (key order differs; QuicServerId and other new keys are ignored).
type lbcTarget struct {
	ID               string  `json:"Id"`
	Port             int     `json:"Port"`
	AvailabilityZone *string `json:"AvailabilityZone"`
}

// Format returns FormatAWSLBC.
func (awsLBC) Format() Format { return FormatAWSLBC }

// Match reports whether line is a zap JSON line: an object that starts with
// the `level` key (zap writes it first) and has `ts` and `msg`.
func (awsLBC) Match(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	return bytes.HasPrefix(line, []byte(`{"level":`)) &&
		bytes.Contains(line, []byte(`"ts":`)) && bytes.Contains(line, []byte(`"msg":`))
}

// Parse reads one controller line. Registration lines give one Lifecycle per
// target; a `registered targets` or `deRegistered targets` line of v2.0 to
// v2.12 names no target and gives one Lifecycle with the target group only
// (later stages pair it with the preceding line of the same ARN). Error lines
// whose error mentions targets give a LifecycleOther with Reason
// ControllerError.
func (awsLBC) Parse(line []byte, ln *Line, out *Emitter) error {
	var e lbcLine
	if err := json.Unmarshal(line, &e); err != nil {
		// A key of an unexpected type leaves its field empty; only broken
		// JSON makes the line malformed.
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return errors.New("not a JSON object")
		}
	}
	if e.Msg == nil {
		return errors.New("no msg")
	}
	t, ok := lbcTime(e.TS, ln.Stamp)
	if !ok {
		return errors.New("bad ts")
	}
	if kind, ok := lbcTargetKinds[*e.Msg]; ok {
		return lbcEmitTargets(&e, kind, t, ln, out)
	}
	if e.Level == "error" {
		lbcEmitError(&e, t, ln, out)
	}
	return nil
}

// lbcTime reads `ts`, epoch seconds or an RFC 3339 string, truncated to the
// microsecond. A whole-second time is replaced by stamp when stamp falls
// within that second. The zero time (year 1) is not a log time.
func lbcTime(ts json.RawMessage, stamp time.Time) (time.Time, bool) {
	var t time.Time
	if len(ts) > 1 && ts[0] == '"' && ts[len(ts)-1] == '"' {
		s := ts[1 : len(ts)-1]
		var ok bool
		if t, ok = lex.ParseRFC3339(s); !ok {
			return time.Time{}, false
		}
	} else {
		var ok bool
		if t, ok = lbcEpochSeconds(ts); !ok {
			return time.Time{}, false
		}
	}
	t = refineWithStamp(t, stamp).Truncate(time.Microsecond)
	return t, !t.IsZero()
}

// lbcEpochSeconds reads zap's epoch time, decimal seconds such as
// 1676814406.2301478, from its text rather than through a float64, so the
// result is the written value truncated to the microsecond.
func lbcEpochSeconds(b []byte) (time.Time, bool) {
	d, ok := lex.Seconds(b)
	if !ok || b[0] == '.' || b[len(b)-1] == '.' { // zap writes digits on both sides
		return time.Time{}, false
	}
	return time.Unix(0, int64(d)).UTC().Truncate(time.Microsecond), true
}

// lbcEmitTargets reports one Lifecycle of kind per pod or node target of a
// registration line, or one for the target group alone when the line names
// no target. Targets that are neither an IP nor an instance (the ALB ARN
// that the frontend-NLB manager registers) are not about pods and give no
// record.
func lbcEmitTargets(e *lbcLine, kind LifecycleKind, t time.Time, ln *Line, out *Emitter) error {
	targets, err := lbcDecodeTargets(e.Targets)
	if err != nil {
		return err
	}
	l := Lifecycle{
		Time: t, Kind: kind, Group: e.ARN, From: -1, Source: lbcSource,
		Message: *e.Msg, Format: FormatAWSLBC, Origin: ln.Origin,
	}
	if len(targets) == 0 {
		out.Lifecycle(&l)
		return nil
	}
	for _, tg := range targets {
		if lbcDescribeTarget(&l, tg) {
			out.Lifecycle(&l)
		}
	}
	return nil
}

// lbcDecodeTargets decodes `targets`: an array, a single object, or nothing.
func lbcDecodeTargets(raw json.RawMessage) ([]lbcTarget, error) {
	raw = bytes.TrimSpace(raw)
	var targets []lbcTarget
	var err error
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case raw[0] == '{':
		targets = make([]lbcTarget, 1)
		err = json.Unmarshal(raw, &targets[0])
	default:
		err = json.Unmarshal(raw, &targets)
	}
	if err != nil {
		return nil, errors.New("bad targets")
	}
	for _, tg := range targets {
		if tg.Port < 0 || tg.Port > 65535 {
			return nil, errors.New("bad target port")
		}
	}
	return targets, nil
}

// lbcDescribeTarget fills l with one target: IP, port and zone for an ip
// target, Object Instance/i-... (no IP) for an instance target. Count is 1.
// It reports false for a target that is neither.
func lbcDescribeTarget(l *Lifecycle, tg lbcTarget) bool {
	l.IP, l.Object, l.Zone, l.Port, l.Count = netip.Addr{}, "", "", tg.Port, 1
	if tg.AvailabilityZone != nil {
		l.Zone = *tg.AvailabilityZone
	}
	if ip, ok := lex.ParseAddr([]byte(tg.ID)); ok {
		l.IP = ip.Unmap()
		return true
	}
	if strings.HasPrefix(tg.ID, "i-") {
		l.Object = "Instance/" + tg.ID
		return true
	}
	return false
}

// lbcEmitError reports an error line whose `error` mentions targets as a
// LifecycleOther with Reason ControllerError and Message `msg: error`.
func lbcEmitError(e *lbcLine, t time.Time, ln *Line, out *Emitter) {
	text := lbcErrorText(e.Error)
	if !strings.Contains(strings.ToLower(text), "target") {
		return
	}
	l := Lifecycle{
		Time: t, Kind: LifecycleOther, Reason: "ControllerError", Group: e.ARN, From: -1,
		Source: lbcSource, Message: *e.Msg + ": " + text, Format: FormatAWSLBC, Origin: ln.Origin,
	}
	out.Lifecycle(&l)
}

// lbcErrorText returns the `error` value: the string, or the JSON text of
// any other value.
func lbcErrorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

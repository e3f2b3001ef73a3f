package sources

import (
	"bytes"
	"errors"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// This file reads the ingress-nginx controller's own klog lines:
//
//	W0102 03:04:08.123456       7 controller.go:1241] Service "shop/web" does not have any active Endpoint.
//
// The header is `Lmmdd hh:mm:ss.uuuuuu pid file:line] `, in the process's
// local time, with no year and no zone.

// Reasons for skipping a klog line.
var (
	errKlogTime   = errors.New("klog line with a bad time")
	errKlogHeader = errors.New("klog line without `pid file:line] `")
)

// klogShaped reports whether line starts like a klog header (`W0102 `).
func klogShaped(line []byte) bool {
	if len(line) < 6 || line[5] != ' ' {
		return false
	}
	switch line[0] {
	case 'I', 'W', 'E', 'F':
	default:
		return false
	}
	_, ok := lex.Digits(line[1:5])
	return ok
}

// klogAnyLeapYear is a leap year, to check a yearless klog date against.
const klogAnyLeapYear = 2000

// klogClock is the time of a klog header, without a year.
type klogClock struct {
	month, day, hour, minute, sec, micro int
}

// klogSplitHeader checks the header and returns its time and the message.
func klogSplitHeader(line []byte) (c klogClock, msg []byte, err error) {
	const stamp = len("I0102 03:04:05.123456")
	if len(line) < stamp+1 || line[8] != ':' || line[11] != ':' || line[14] != '.' {
		return c, nil, errKlogTime
	}
	ok := true
	c.month = lex.FixedDigits(line[1:3], &ok)
	c.day = lex.FixedDigits(line[3:5], &ok)
	c.hour = lex.FixedDigits(line[6:8], &ok)
	c.minute = lex.FixedDigits(line[9:11], &ok)
	c.sec = lex.FixedDigits(line[12:14], &ok)
	c.micro = lex.FixedDigits(line[15:21], &ok)
	// klog writes no year: any day a leap year has is a possible day.
	if !ok || !lex.ValidDate(klogAnyLeapYear, c.month, c.day) || !lex.ValidClock(c.hour, c.minute, c.sec) {
		return c, nil, errKlogTime
	}
	msg, err = klogSkipPidFile(line[stamp:])
	return c, msg, err
}

// klogSkipPidFile skips ` <pid padded to 7> file:line] ` and returns the message.
func klogSkipPidFile(b []byte) ([]byte, error) {
	rest := bytes.TrimLeft(b, " ")
	if len(rest) == len(b) {
		return nil, errKlogHeader
	}
	pid, rest := nginxCutSpace(rest)
	if _, ok := lex.Digits(pid); !ok {
		return nil, errKlogHeader
	}
	end := bytes.IndexByte(rest, ']')
	if end < 0 {
		return nil, errKlogHeader
	}
	colon := bytes.LastIndexByte(rest[:end], ':')
	if colon <= 0 {
		return nil, errKlogHeader
	}
	if _, ok := lex.Digits(rest[colon+1 : end]); !ok {
		return nil, errKlogHeader
	}
	return bytes.TrimPrefix(rest[end+1:], []byte(" ")), nil
}

// Messages of the controller that readygap keeps.
var (
	klogServicePrefix = []byte(`Service "`)
	klogNoEndpoint    = []byte(`" does not have any active Endpoint`)
	klogSIGTERM       = []byte(`Received SIGTERM, shutting down`)
)

// klogParse parses one klog line and reports a Lifecycle for a Service
// without endpoints, for the controller shutting down, or for a new
// configuration applied (see ingress_nginx_reconfig.go).
func klogParse(line []byte, ln *Line, out *Emitter) error {
	c, msg, err := klogSplitHeader(line)
	if err != nil {
		return err
	}
	l := Lifecycle{From: -1, Source: "ingress-nginx", Format: FormatIngressNginx, Origin: ln.Origin}
	switch {
	case klogServiceWithoutEndpoints(msg, &l):
		l.Kind = NoEndpoints
	case klogIsShutdown(msg):
		l.Kind, l.Reason = LifecycleOther, "ControllerShutdown"
	case nginxReconfigured(msg, &l):
	default:
		return nil
	}
	l.Time = klogTime(c, ln.Stamp, out.dated, out.Location())
	l.Message = string(msg)
	out.Lifecycle(&l)
	return nil
}

// klogServiceWithoutEndpoints recognises the three forms of
// `Service %q does not have any active Endpoint` (with a period, without
// one, and `for %v port %v` for TCP/UDP services) and sets l's namespace
// and object from the quoted `ns/name`.
func klogServiceWithoutEndpoints(msg []byte, l *Lifecycle) bool {
	rest, ok := bytes.CutPrefix(msg, klogServicePrefix)
	if !ok {
		return false
	}
	end := bytes.Index(rest, klogNoEndpoint)
	if end <= 0 {
		return false
	}
	ns, name, found := bytes.Cut(rest[:end], []byte("/"))
	if !found {
		ns, name = nil, rest[:end]
	}
	l.Namespace, l.Object = string(ns), "Service/"+string(name)
	return true
}

// klogIsShutdown recognises "Received SIGTERM, shutting down", plain (Infof)
// or quoted (InfoS).
func klogIsShutdown(msg []byte) bool {
	return bytes.HasPrefix(bytes.TrimPrefix(msg, []byte(`"`)), klogSIGTERM)
}

// klogTime dates a klog clock. klog writes no year: it comes from the
// nearest exact time known, near: the stamp a wrapper (kubectl
// --timestamps, the CRI prefix) put in front of the line, else a dated line
// at the start of the same input (an access line). The neighbouring year is
// taken when the clock is more than half a year away from it (a line
// written on 31 December and stamped on 1 January). With neither, the
// adapter keeps no state to learn the year from other lines (adapters are
// shared by concurrent inputs), so it is the current year, or the year
// before when that would put the line more than a day in the future. The
// clock is local time of the controller, read as localClock does.
func klogTime(c klogClock, stamp, near time.Time, loc *time.Location) time.Time {
	if !stamp.IsZero() {
		near = stamp
	}
	ref := near
	if ref.IsZero() {
		ref = time.Now()
	}
	ref = ref.In(loc)
	at := func(year int) time.Time {
		return localClock(year, c.month, c.day, c.hour, c.minute, c.sec, c.micro*1000, stamp, loc)
	}
	t := at(ref.Year())
	const halfYear = 183 * 24 * time.Hour
	switch {
	case near.IsZero() && t.Sub(ref) > 24*time.Hour:
		return at(ref.Year() - 1)
	case !near.IsZero() && t.Sub(ref) > halfYear:
		return at(ref.Year() - 1)
	case !near.IsZero() && ref.Sub(t) > halfYear:
		return at(ref.Year() + 1)
	}
	return t
}

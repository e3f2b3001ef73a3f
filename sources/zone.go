package sources

import (
	"fmt"
	"time"
)

// maxZoneOffset is the largest offset from UTC a time zone uses (UTC+14,
// the Line Islands; UTC-12 at the other end).
const maxZoneOffset = 14 * time.Hour

// zoneStep divides every UTC offset in use (India +05:30, Nepal +05:45,
// Chatham Islands +12:45).
const zoneStep = 15 * time.Minute

// localClock returns, in UTC, the instant of a clock written without a zone.
// A stamp on the same line (kubectl --timestamps, the CRI prefix) is an exact
// instant of the same moment, so the clock is read at the offset, a whole
// quarter hour within ±14 h, that puts it nearest the stamp: the --tz zone,
// loc, is only a guess and never overrides an exact time. Without a stamp,
// or when none such offset exists, the clock is read in loc.
func localClock(year, month, day, hour, minute, sec, nsec int, stamp time.Time, loc *time.Location) time.Time {
	if !stamp.IsZero() {
		asUTC := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
		if off := asUTC.Sub(stamp).Round(zoneStep); off >= -maxZoneOffset && off <= maxZoneOffset {
			return asUTC.Add(-off)
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, loc).UTC()
}

// zoneLearner is a lineAdapter whose format mixes lines with a zone and
// lines without one from the same clock (ingress-nginx: access lines with
// +0800, error-log and klog lines without).
type zoneLearner interface {
	// ZoneOffset returns the UTC offset and the time of a zoned time in
	// line, an unwrapped line of the format.
	ZoneOffset(line []byte) (offset time.Duration, at time.Time, ok bool)
}

// learnZone looks at the sample lines detection read (the start of the
// input, so that the answer does not depend on how the input is later cut
// among workers) for the zone of the first zoned time. It returns that zone
// for the input's zone-less lines with the time it was read from, and a
// warning when it reads them otherwise than loc would.
func learnZone(z zoneLearner, sample [][]byte, loc *time.Location) (zone *time.Location, dated time.Time, warning string) {
	var scratch []byte
	for _, raw := range sample {
		line, _, s := unwrapLine(raw, scratch)
		scratch = s
		off, at, ok := z.ZoneOffset(line)
		if !ok {
			continue
		}
		name := zoneName(off)
		zone = time.FixedZone(name, int(off/time.Second))
		if _, guess := at.In(loc).Zone(); time.Duration(guess)*time.Second != off {
			warning = fmt.Sprintf("times written without a zone (nginx error log, klog) read at %s, the offset of this input's access-log times, not in %s", name, loc)
		}
		return zone, at, warning
	}
	return nil, time.Time{}, ""
}

// zoneName names a fixed offset as UTC+08:00.
func zoneName(off time.Duration) string {
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("UTC%c%02d:%02d", sign, int(off/time.Hour), int(off%time.Hour/time.Minute))
}

package sources

import (
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// ALBLogInterval is how much time one ALB log object covers: ELB publishes a
// file per load balancer node every 5 minutes, named by the interval's end.
const ALBLogInterval = 5 * time.Minute

// ALBDeliverySlack widens an object's interval on both sides: which of a
// request's times files it is not documented, and entries near the interval
// edges may land in the neighbouring object.
const ALBDeliverySlack = 2 * time.Minute

// ALBObjectMayOverlap reports whether the ALB log object called name may
// hold records in [since, until): it is false only when the name says the
// object's interval (widened by ALBDeliverySlack) ends before since or starts
// at or after until. A zero since or
// until leaves that side open; a name that is not an ALB object name may
// always overlap.
func ALBObjectMayOverlap(name string, since, until time.Time) bool {
	end, ok := ALBObjectEnd(name)
	if !ok {
		return true
	}
	if !since.IsZero() && end.Add(ALBDeliverySlack).Before(since) {
		return false
	}
	return until.IsZero() || end.Add(-ALBLogInterval-ALBDeliverySlack).Before(until)
}

// ALBObjectEnd reads the end of the logging interval from the name of an ALB
// log object as ELB writes it to S3:
//
//	<acct>_elasticloadbalancing_<region>_app.<lb-id>_<end-time>_<ip>_<random>.log.gz
//
// optionally prefixed by health_check_log_ or conn_log_ (or with a dot
// instead of the underscore) and by directories. end-time is YYYYMMDDTHHMMZ
// in UTC; the object holds requests from ALBLogInterval before it up to it.
// ok is false when name is not such an object name.
func ALBObjectEnd(name string) (end time.Time, ok bool) {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	parts := strings.Split(base, "_")
	for i, p := range parts {
		// <acct>_elasticloadbalancing_<region>_<lb-id>_<end-time>_...
		if p == "elasticloadbalancing" && i > 0 && i+3 < len(parts) {
			return albParseEndTime(parts[i+3])
		}
	}
	return time.Time{}, false
}

// albParseEndTime parses an S3 object end time such as 20140215T2340Z.
func albParseEndTime(s string) (time.Time, bool) {
	if len(s) != len("20140215T2340Z") || s[8] != 'T' || s[13] != 'Z' {
		return time.Time{}, false
	}
	b := []byte(s)
	year, ok1 := lex.Digits(b[0:4])
	month, ok2 := lex.Digits(b[4:6])
	day, ok3 := lex.Digits(b[6:8])
	hour, ok4 := lex.Digits(b[9:11])
	minute, ok5 := lex.Digits(b[11:13])
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return time.Time{}, false
	}
	return lex.Time(year, month, day, hour, minute, 0, 0, 0)
}

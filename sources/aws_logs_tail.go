package sources

import (
	"bytes"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// awsLogsTail takes off what `aws logs tail` (AWS CLI v2, its default
// `--format detailed`) puts in front of each event's message: the event
// time in ISO 8601 with microseconds and offset, a space, the log stream's
// name, a space (awscli/customizations/logs/tail.py). The stream name of a
// Container Insights group holds the pod's name; the message is the Fluent
// Bit record, which unwrapLine takes off after this.
type awsLogsTail struct{}

// Unwrap returns the message and the event time.
func (awsLogsTail) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	if !wrapMayStart(line) {
		return nil, time.Time{}, scratch, false
	}
	rest, t, ok := wrapSplitStamp(line)
	if !ok {
		return nil, time.Time{}, scratch, false
	}
	sp := bytes.IndexByte(rest, ' ')
	// A stream name is 1 to 512 characters, neither ':' nor '*'
	// (CloudWatch Logs CreateLogStream); a quote or a brace, which start
	// JSON, are not taken for one either.
	if sp <= 0 || sp > awsLogStreamMaxLen || bytes.ContainsAny(rest[:sp], `:*"{`) {
		return nil, time.Time{}, scratch, false
	}
	return rest[sp+1:], t, scratch, true
}

// awsLogStreamMaxLen is the longest log stream name CloudWatch Logs takes
// (CreateLogStream, logStreamName: 1 to 512 characters).
const awsLogStreamMaxLen = 512

// awsLogsTailShort takes off what `aws logs tail --format short` puts in
// front of each event's message: the event time as `%Y-%m-%dT%H:%M:%S`,
// in UTC with neither fraction nor zone, and a space (tail.py).
type awsLogsTailShort struct{}

// awsShortLayout is the time layout of `aws logs tail --format short`.
const awsShortLayout = "2006-01-02T15:04:05"

// Unwrap returns the message and the event time, to the second.
func (awsLogsTailShort) Unwrap(line, scratch []byte) ([]byte, time.Time, []byte, bool) {
	n := len(awsShortLayout)
	if !wrapMayStart(line) || len(line) <= n || line[n] != ' ' || line[10] != 'T' || line[13] != ':' || line[16] != ':' || line[7] != '-' {
		return nil, time.Time{}, scratch, false
	}
	ok := true
	year, month, day := lex.FixedDigits(line[0:4], &ok), lex.FixedDigits(line[5:7], &ok), lex.FixedDigits(line[8:10], &ok)
	hour, minute, second := lex.FixedDigits(line[11:13], &ok), lex.FixedDigits(line[14:16], &ok), lex.FixedDigits(line[17:19], &ok)
	if !ok {
		return nil, time.Time{}, scratch, false
	}
	t, ok := lex.Time(year, month, day, hour, minute, second, 0, 0)
	if !ok {
		return nil, time.Time{}, scratch, false
	}
	return line[n+1:], t, scratch, true
}

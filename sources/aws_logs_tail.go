package sources

import (
	"bytes"
	"time"
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

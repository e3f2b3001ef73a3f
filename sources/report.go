package sources

import (
	"fmt"
	"time"
)

// InputReport describes one input after reading: what format it was in, how
// many records it gave and what could not be read.
type InputReport struct {
	Name   string
	Format Format
	// Records counts records kept (inside the time window).
	Records int
	// Skipped counts lines or elements that did not parse.
	Skipped int
	// Filtered counts records outside the time window.
	Filtered int
	// Duplicates counts entries already seen in this or another input.
	Duplicates int
	// Passed counts lines or elements read as valid that carry nothing
	// readygap uses (a proxy's own log lines, a LogEntry of an application's
	// that is not an access line). With Records, Skipped, Filtered and
	// Duplicates it accounts for every non-blank line or element read.
	Passed int
	// OrderOnly counts the requests kept whose time only orders them
	// (Request.OrderOnly): a verdict cannot rest on when they happened.
	OrderOnly int
	// First and Last are the earliest and latest record times kept.
	First, Last time.Time
	// FilteredFirst and FilteredLast are the earliest and latest times of
	// the records the time window left out: with First and Last, the time
	// range of the whole input, found in the one read.
	FilteredFirst, FilteredLast time.Time
	// Kinds counts the records kept by the kind of source they come from
	// (request log, event, object, controller log, health check), with the
	// time each kind covers: what a verdict rests on.
	Kinds [NumRecordKinds]KindSpan
	// Warnings about the input as a whole (truncated gzip, lost events...).
	Warnings []string
	// Incomplete says why the read stopped before the input's end (a
	// truncated gzip stream, bad UTF-16, a failed read); "" when it was
	// read to the end. It is one of Warnings too.
	Incomplete string

	skipSamples []skipSample
}

// skipSample is one skipped line or element kept for the warnings.
type skipSample struct {
	origin Origin
	reason string
}

// SkipSamples returns the first few skipped lines as "file:line: reason".
func (r *InputReport) SkipSamples() []string {
	out := make([]string, len(r.skipSamples))
	for i, s := range r.skipSamples {
		out[i] = fmt.Sprintf("%s: %s", s.origin, s.reason)
	}
	return out
}

// RecordKind is the kind of source a record comes from, as a verdict states
// its coverage: only request logs can show that users got no error.
type RecordKind uint8

// The kinds of source, in the order reports list them.
const (
	// KindRequestLog: a load balancer's or proxy's request log.
	KindRequestLog RecordKind = iota
	// KindEvent: a Kubernetes event (from the API or Cloud Logging).
	KindEvent
	// KindObject: a Kubernetes object, its status or its settings.
	KindObject
	// KindControllerLog: a controller's own log line (the AWS Load
	// Balancer Controller, ingress-nginx's controller and nginx errors).
	KindControllerLog
	// KindHealthCheck: a load balancer's health-check log.
	KindHealthCheck
	// KindClientLog: requests as a client saw them (a load-test tool, a
	// curl loop): what users got, not what the load balancer did.
	KindClientLog
	// NumRecordKinds is the number of kinds.
	NumRecordKinds
)

var recordKindNames = [NumRecordKinds]string{"request_logs", "events", "objects", "controller_logs", "health_checks", "client_logs"}

// String names the kind as the JSON contract does: request_logs, events,
// objects, controller_logs, health_checks, client_logs.
func (k RecordKind) String() string {
	if k < NumRecordKinds {
		return recordKindNames[k]
	}
	return "unknown"
}

// KindSpan is how many records of one kind an input gave and the time they
// cover (zero when none had a time).
type KindSpan struct {
	Records     int
	First, Last time.Time
}

// add counts one record at t (zero for a record without a time).
func (s *KindSpan) add(t time.Time) {
	s.Records++
	if t.IsZero() {
		return
	}
	if s.First.IsZero() || t.Before(s.First) {
		s.First = t
	}
	if t.After(s.Last) {
		s.Last = t
	}
}

// merge adds o's records and widens s's times to o's.
func (s *KindSpan) merge(o KindSpan) {
	s.Records += o.Records
	if !o.First.IsZero() && (s.First.IsZero() || o.First.Before(s.First)) {
		s.First = o.First
	}
	if o.Last.After(s.Last) {
		s.Last = o.Last
	}
}

// lifecycleKind is the kind of source of a lifecycle record: an object's
// status, an event from the API, a health check, or else a controller's log.
func lifecycleKind(l *Lifecycle) RecordKind {
	switch {
	case l.Format == FormatK8sObjects:
		return KindObject
	case l.FromAPI:
		return KindEvent
	case l.Kind == HealthCheck:
		return KindHealthCheck
	}
	return KindControllerLog
}

// Unread is an input that gave no record at all: it could not be opened or
// decompressed, or it is in no format readygap reads. Reason says why, as
// the reading or the format detection words it.
type Unread struct {
	Name   string
	Reason string
	// Empty marks an input that holds no data at all (nothing but white
	// space, a JSON array or List with no element): it cannot hide what
	// the analysis missed.
	Empty bool
	// Err is the error that stopped the read (see IsUnknownFormat,
	// IsNotText); Warning is the line Result.Warnings holds for it.
	Err     error
	Warning string
}

// Skip is one skipped line or element: where, and why.
type Skip struct {
	Origin Origin
	Reason string
}

// Skips returns the first skipped lines or elements (as many as
// Options.MaxWarnings keeps), in the order of their lines.
func (r *InputReport) Skips() []Skip {
	out := make([]Skip, len(r.skipSamples))
	for i, s := range r.skipSamples {
		out[i] = Skip{Origin: s.origin, Reason: s.reason}
	}
	return out
}

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
	// First and Last are the earliest and latest record times kept.
	First, Last time.Time
	// Warnings about the input as a whole (truncated gzip, lost events...).
	Warnings []string

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

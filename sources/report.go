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
	// First and Last are the earliest and latest record times kept.
	First, Last time.Time
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

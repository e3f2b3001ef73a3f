package sources

import "time"

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

	skipSamples []string
}

// SkipSamples returns the first few skipped lines as "file:line: reason".
func (r *InputReport) SkipSamples() []string { return r.skipSamples }

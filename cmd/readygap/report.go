package main

import (
	"time"

	"github.com/readygap/readygap/sources"
)

// schemaVersion names the JSON contract; renaming a field is a breaking change.
const schemaVersion = "readygap/v1"

// report is what every renderer draws from; its JSON form is the contract
// documented in the README.
type report struct {
	Schema   string        `json:"schema"`
	Inputs   []reportInput `json:"inputs"`
	Warnings []string      `json:"warnings"`
	// PrunedObjects counts ALB log objects skipped by the end time in their name.
	PrunedObjects int `json:"pruned_objects,omitempty"`
}

// reportInput describes one input read.
type reportInput struct {
	Name       string `json:"name"`
	Format     string `json:"format"`
	Records    int    `json:"records"`
	Skipped    int    `json:"skipped"`
	Filtered   int    `json:"filtered,omitempty"`
	Duplicates int    `json:"duplicates,omitempty"`
	First      string `json:"first,omitempty"`
	Last       string `json:"last,omitempty"`
}

// newReport builds the report of a read.
func newReport(res *sources.Result) *report {
	rep := &report{Schema: schemaVersion, Inputs: []reportInput{}, Warnings: []string{}, PrunedObjects: res.Pruned}
	for _, in := range res.Inputs {
		rep.Inputs = append(rep.Inputs, reportInput{
			Name: in.Name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped,
			Filtered: in.Filtered, Duplicates: in.Duplicates,
			First: formatTime(in.First), Last: formatTime(in.Last),
		})
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	return rep
}

// formatTime renders a record time as UTC RFC 3339 with the precision the
// input had; the zero time renders empty.
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

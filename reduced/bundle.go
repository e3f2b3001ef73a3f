// Package reduced is the reduced request stream: what the analysis keeps of
// a load balancer's request log (per-second counts, the responses each
// backend sent by 30-second cell, the failure groups with their earliest
// and latest records, and a summary of what was read), as rows a query
// engine computes where the logs are (Athena, BigQuery) or readygap
// computes from raw files (Reduce), in a versioned file (Bundle) that
// `readygap analyze` reads like any other input.
//
// The rows are exact: the verdict from a bundle equals the verdict from the
// raw files it was reduced from. Only load balancers that log one attempt a
// request (AWS ALB, Google Cloud's Application Load Balancers) reduce this
// way; requests with per-attempt fields are refused.
package reduced

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// Schema names the bundle format and its version. A change that a reader
// of an earlier version would misread takes a new version.
const Schema = "readygap-reduced/v1"

// Suffix ends the name of every bundle file: `analyze` reads the files so
// named (given, or found in a directory given) as bundles, and the format
// detection never sees them.
const Suffix = sources.ReducedSuffix

// CellSeconds is the width of a served cell, aligned on the Unix epoch:
// correlate's servedRunGap, the longest pause within a backend's run of
// responses. Two responses of one cell are less than that apart, so the
// runs rebuilt from the cells' first and last responses are exact.
const CellSeconds = 30

// Bundle is one reduced request stream and where it came from.
type Bundle struct {
	// Schema is the Schema constant.
	Schema string `json:"schema"`
	// Engine names where the reduction ran: "local" (readygap reduce),
	// "athena" or "bigquery".
	Engine string `json:"engine"`
	// Query is the statement the engine ran; empty for a local reduction.
	Query string `json:"query,omitempty"`
	// QueryID is the engine's id of the query (Athena's
	// QueryExecutionId, BigQuery's job id).
	QueryID string `json:"query_id,omitempty"`
	// Window is the time window the rows were kept in; nil when none.
	Window *Window `json:"window,omitempty"`
	// Objects lists the S3 objects the query read, Tables the tables.
	Objects []string `json:"objects,omitempty"`
	Tables  []string `json:"tables,omitempty"`
	// BytesScanned is what the engine billed for the query; CostUSD its
	// price at the engine's on-demand rate (see docs/fleet-scale.md).
	BytesScanned int64   `json:"bytes_scanned,omitempty"`
	CostUSD      float64 `json:"cost_usd,omitempty"`
	// Inputs are what was read, one per raw input (a local reduction) or
	// per engine query.
	Inputs []Input `json:"inputs"`
	// Seconds, Cells and Groups are the rows, each list in its order (see
	// Sort).
	Seconds []Second `json:"seconds"`
	Cells   []Cell   `json:"cells"`
	Groups  []Group  `json:"groups"`
}

// Window is a half-open time window [Since, Until); a zero side is open.
type Window struct {
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
}

// Input is the summary of one input reduced: what a report lists of it.
type Input struct {
	// Name is the input's name (a file, an s3:// object or prefix, a
	// table).
	Name string `json:"name"`
	// Format is the records' format id (alb-access, gcp-logging).
	Format string `json:"format"`
	// Records counts the requests kept; Skipped the lines that did not
	// parse; Filtered the requests outside the window; Duplicates the
	// entries already seen; Passed the valid entries that carry nothing
	// readygap reads (sources.InputReport).
	Records    int `json:"records"`
	Skipped    int `json:"skipped"`
	Filtered   int `json:"filtered,omitempty"`
	Duplicates int `json:"duplicates,omitempty"`
	Passed     int `json:"passed,omitempty"`
	// First and Last are the earliest and latest request kept.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// Second is one second of one load balancer's requests.
type Second struct {
	// Sec is the Unix second (floored).
	Sec int64 `json:"sec"`
	// LB names the load balancer as the format's adapter does.
	LB     string `json:"lb"`
	Format string `json:"format"`
	// Total counts the requests; OK those answered without a 5xx.
	Total int `json:"total"`
	OK    int `json:"ok"`
	// The failures the load balancer generated, by kind.
	NoBackend   int `json:"no_backend,omitempty"`
	Refused     int `json:"refused,omitempty"`
	Unreachable int `json:"unreachable,omitempty"`
	Closed      int `json:"closed,omitempty"`
	Timeout     int `json:"timeout,omitempty"`
	Other       int `json:"other,omitempty"`
	// Served counts the responses a backend sent.
	Served int `json:"served"`
}

// Cell is what one backend IP sent in one cell of CellSeconds.
type Cell struct {
	// IP is the backend's address, without a port.
	IP string `json:"ip"`
	// Cell is the Unix second of the cell's start divided by CellSeconds.
	Cell int64 `json:"cell"`
	// N counts the responses; First and Last are the first and last, in
	// Unix nanoseconds.
	N     int   `json:"n"`
	First int64 `json:"first_ns"`
	Last  int64 `json:"last_ns"`
}

// Group is one group of failures the load balancer generated: of one second
// and equal in everything the analysis reads of them.
type Group struct {
	// Sec is the Unix second.
	Sec int64 `json:"sec"`
	// Status is the status the client saw (0 when none was sent);
	// Generator who made it (lb, backend, unknown); Kind the failure kind
	// (no_backend, refused, unreachable, closed, timeout, other).
	Status    int    `json:"status"`
	Generator string `json:"generator"`
	Kind      string `json:"kind"`
	// Backend is the ip:port the request was sent to; "" for none.
	Backend string `json:"backend,omitempty"`
	// LB, Detail, Family, Platform and Format are the records'.
	LB       string `json:"lb"`
	Detail   string `json:"detail,omitempty"`
	Family   string `json:"family,omitempty"`
	Platform string `json:"platform,omitempty"`
	Format   string `json:"format"`
	// Duration and LoggedAfter are the records' duration and how long
	// after their start their lines were written, in nanoseconds, where
	// the analysis reads them (correlate.GroupTimes: a failure at a
	// backend that closed the connection or failed otherwise); zero, and
	// left out, elsewhere. Added within v1: a bundle without them reads
	// as before.
	Duration    int64 `json:"duration_ns,omitempty"`
	LoggedAfter int64 `json:"logged_after_ns,omitempty"`
	// N counts the failures; Earliest and Latest are the first and last
	// by time, then object, then line.
	N        int    `json:"n"`
	Earliest Record `json:"earliest"`
	Latest   Record `json:"latest"`
}

// Record is what one record of a group has of its own.
type Record struct {
	// Time is the record's time in Unix nanoseconds, exact.
	Time int64 `json:"time_ns"`
	// Object is the file or object the record was read from; Line its
	// line, 0 where an engine cannot know it, and Ref then names the
	// record within the object (the ALB trace_id, the entry's insertId).
	Object string `json:"object"`
	Line   int    `json:"line,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
}

// Write writes b as JSON: the fields that describe the bundle indented,
// then each row on a line of its own, so that a diff of two bundles shows
// the rows that differ.
func (b *Bundle) Write(w io.Writer) error {
	head := struct {
		*Bundle
		Seconds *struct{} `json:"seconds,omitempty"`
		Cells   *struct{} `json:"cells,omitempty"`
		Groups  *struct{} `json:"groups,omitempty"`
	}{Bundle: b}
	h, err := json.MarshalIndent(head, "", " ")
	if err != nil {
		return err
	}
	buf := bytes.NewBuffer(h[:len(h)-2]) // without the closing "\n}"
	if err := writeRows(buf, "seconds", b.Seconds); err != nil {
		return err
	}
	if err := writeRows(buf, "cells", b.Cells); err != nil {
		return err
	}
	if err := writeRows(buf, "groups", b.Groups); err != nil {
		return err
	}
	buf.WriteString("\n}\n")
	_, err = w.Write(buf.Bytes())
	return err
}

// writeRows appends the list of rows named name to buf, a row a line.
func writeRows[T any](buf *bytes.Buffer, name string, rows []T) error {
	fmt.Fprintf(buf, ",\n %q: [", name)
	for i, r := range rows {
		j, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n  ")
		buf.Write(j)
	}
	if len(rows) > 0 {
		buf.WriteString("\n ")
	}
	buf.WriteByte(']')
	return nil
}

// WriteFile writes b to the file name, which must end in Suffix.
func (b *Bundle) WriteFile(name string) error {
	if !IsBundleName(name) {
		return fmt.Errorf("%s: a reduced bundle's name ends in %s", name, Suffix)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := b.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// IsBundleName reports whether a file of this name is read as a bundle.
func IsBundleName(name string) bool { return sources.IsReducedBundle(name) }

// maxBundleBytes bounds the size of a bundle read whole: an hour reduces
// to about 3,600 seconds, the failure groups and 120 cells a backend, well
// under a megabyte; a week of a thousand backends, some tens of MB.
const maxBundleBytes = 1 << 30

// ErrSchema is the error of a file whose schema is not this version's.
var ErrSchema = errors.New("not a " + Schema + " bundle")

// Read reads a bundle and checks it (see Check).
func Read(r io.Reader) (*Bundle, error) {
	dec := json.NewDecoder(io.LimitReader(r, maxBundleBytes))
	dec.DisallowUnknownFields()
	var b Bundle
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if b.Schema != Schema {
		return nil, fmt.Errorf("%w: schema %q", ErrSchema, b.Schema)
	}
	if err := b.Check(); err != nil {
		return nil, err
	}
	return &b, nil
}

// ReadFile reads the bundle in the file name.
func ReadFile(name string) (*Bundle, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// String renders the window as [since, until), "whole input" when nil.
func (w *Window) String() string {
	if w == nil {
		return "no window"
	}
	side := func(t time.Time) string {
		if t.IsZero() {
			return "open"
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	return "[" + side(w.Since) + ", " + side(w.Until) + ")"
}

// Describe says in one line where the request stream of the bundle in the
// file name was reduced and what the query cost.
func (b *Bundle) Describe(name string) string {
	if b.Engine == "local" {
		return name + ": request stream reduced by readygap reduce from the raw files"
	}
	s := fmt.Sprintf("%s: request stream reduced by %s", name, b.Engine)
	if b.QueryID != "" {
		s += " (query " + b.QueryID + ")"
	}
	return s + fmt.Sprintf(": %s scanned, $%.4f; evidence names the object and the record's reference, as no line number exists", words.Bytes(b.BytesScanned), b.CostUSD)
}

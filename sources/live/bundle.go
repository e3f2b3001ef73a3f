// Package live fetches an incident window straight from where the data lives
// — Cloud Logging, S3 (ALB access logs), CloudWatch Logs and the Kubernetes
// API — and writes it into a bundle directory in the formats users export
// (`gcloud logging read --format=json`, the ALB objects as stored, `aws logs
// filter-log-events --output json`, `kubectl get -o json`), so that the
// offline analysis reads a bundle exactly as it reads exported files.
//
// Every call has deadlines (Timeouts), one failed object or page never
// stops the others, and the bundle's manifest names every item asked for,
// what came back and, for each gap, why and what it takes from the
// analysis (ManifestWarnings). Server error text is redacted before it is
// printed or saved, and container env values, last-applied-configuration
// annotations and Secret data never reach a bundle.
package live

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// BundleSchema names the layout of a bundle directory and of its manifest.
const BundleSchema = "readygap-bundle/v1"

// ManifestName is the name of a bundle's manifest file. It is JSON in no
// format that sources.Read knows, so analyzing a bundle skips it with a warning;
// sources.Read skips hidden files, hence the leading dot.
const ManifestName = ".bundle.json"

// Window is the time range a live fetch asks for: [Since, Until), in UTC.
type Window struct {
	Since, Until time.Time
}

// String renders the window for progress lines and manifests.
func (w Window) String() string {
	return w.Since.UTC().Format(time.RFC3339) + " to " + w.Until.UTC().Format(time.RFC3339)
}

// ItemStatus says how much of one item came back.
type ItemStatus string

// The statuses of an Item.
const (
	// ItemComplete: everything asked for was saved.
	ItemComplete ItemStatus = "complete"
	// ItemPartial: some of it was saved, then the fetch broke off.
	ItemPartial ItemStatus = "partial"
	// ItemFailed: it was asked for and nothing was saved.
	ItemFailed ItemStatus = "failed"
	// ItemNotRequested: it was never asked for, because the source had
	// already stopped (a dead endpoint, the budget, an interrupt).
	ItemNotRequested ItemStatus = "not-requested"
)

// Item is one thing a source asked for: an S3 object or listing, a log
// group, a Cloud Logging query, a Kubernetes list.
type Item struct {
	// Kind is what the item is: object, listing, log group, query, list, get.
	Kind string `json:"kind"`
	// Name is the item as a user would retype it: an s3:// URL, a log group
	// name, a kubectl command.
	Name string `json:"name"`
	// Status says how much came back.
	Status ItemStatus `json:"status"`
	// File is where its data went, relative to the bundle directory.
	File string `json:"file,omitempty"`
	// Records counts the entries, events or objects saved (an S3 object
	// counts as one; its lines are read later), Bytes the bytes written.
	Records int   `json:"records"`
	Bytes   int64 `json:"bytes"`
	// Reason says, for an item not complete, why: one redacted line.
	Reason string `json:"reason,omitempty"`
	// Impact says, for an item not complete, what its absence takes from
	// the analysis.
	Impact string `json:"impact,omitempty"`
	// Optional marks an item whose failure does not fail the source.
	Optional bool `json:"optional,omitempty"`
}

// FetchReport describes what one live source wrote into a bundle. It never
// holds credentials, tokens or signed URLs: only what was asked for and how
// much came back.
type FetchReport struct {
	// Source names the live source: gcp-logging, s3-alb, cloudwatch-logs, kubernetes.
	Source string `json:"source"`
	// Queries lists the filters, prefixes and listings sent, as a user would
	// retype them (a Cloud Logging filter, an s3:// prefix, a log group and
	// its filter pattern, a Kubernetes list).
	Queries []string `json:"queries"`
	// Items lists every object or query asked for, or that would have been
	// asked for had the source not stopped, and what came back of each.
	Items []Item `json:"items"`
	// Files lists the files written, relative to the bundle directory.
	Files []string `json:"files"`
	// Records counts the log entries, events or objects saved; for S3 it
	// counts the objects saved whole, whose lines are read later.
	Records int `json:"records"`
	// Bytes counts the bytes written.
	Bytes int64 `json:"bytes"`
	// Complete is true when every item that is not optional is complete.
	Complete bool `json:"complete"`
	// Error is the source's one-line error, when it failed in part or whole.
	Error string `json:"error,omitempty"`
	// Notes are one-line remarks: a window with no data, an optional resource
	// that is not installed in the cluster.
	Notes []string `json:"notes,omitempty"`
	// Redacted counts what was removed before saving or printing, by kind:
	// credentials in error text, container env values,
	// last-applied-configuration annotations, Secret data.
	Redacted map[string]int `json:"redacted,omitempty"`
}

// SkippedSource is a source that was not configured for the fetch.
type SkippedSource struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// Manifest is the content of a bundle's ManifestName file: what was fetched
// and for which window.
type Manifest struct {
	Schema  string    `json:"schema"`
	Created time.Time `json:"created"`
	Since   time.Time `json:"since"`
	Until   time.Time `json:"until"`
	// Interrupted is true when the fetch was stopped (Ctrl-C) before every
	// source finished.
	Interrupted bool          `json:"interrupted,omitempty"`
	Sources     []FetchReport `json:"sources"`
	// Skipped lists the sources not configured, and why.
	Skipped []SkippedSource `json:"skipped,omitempty"`
	// Errors lists the one-line errors of sources that failed.
	Errors []string `json:"errors,omitempty"`
}

// WriteManifest writes m into the bundle directory dir.
func WriteManifest(dir string, m *Manifest) error {
	m.Schema = BundleSchema
	sort.Slice(m.Sources, func(i, j int) bool { return m.Sources[i].Source < m.Sources[j].Source })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644)
}

// ReadManifest reads the manifest of the bundle directory dir. It returns
// an error that matches fs.ErrNotExist when dir holds none.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	if m.Schema != BundleSchema {
		return nil, fmt.Errorf("%s: schema %q, want %q", filepath.Join(dir, ManifestName), m.Schema, BundleSchema)
	}
	return m, nil
}

// ManifestWarnings returns, for the bundle directory dir, one warning per
// gap its manifest records, in a stable order: a source not configured, an
// interrupted fetch, and per source each group of items not complete with
// the same reason, saying what is missing, why, and how that limits the
// verdict, e.g.
//
//	s3-alb: 1 of 3 objects not saved (permission denied: the credentials need s3:GetObject on arn:aws:s3:::logs/AWSLogs/*): the load balancer's requests in them are missing, so failure counts may be low and the incident window cut short
//
// It returns no warnings and no error when dir has no manifest (a
// directory of exported files rather than a bundle). The report layer
// adds these to the report's warnings when it analyzes a bundle.
func ManifestWarnings(dir string) ([]string, error) {
	m, err := ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	if m.Interrupted {
		out = append(out, "the fetch was interrupted: the bundle holds only what was saved before, so every count is a lower bound")
	}
	for _, s := range m.Skipped {
		out = append(out, fmt.Sprintf("%s: not fetched (%s)", s.Source, s.Reason))
	}
	for _, rep := range m.Sources {
		out = append(out, sourceWarnings(rep)...)
	}
	return out, nil
}

// sourceWarnings words the gaps of one source, one warning per reason.
func sourceWarnings(rep FetchReport) []string {
	type group struct {
		kind, verb, reason, impact, name string
		n                                int
	}
	var groups []*group
	total := map[string]int{}
	for _, it := range rep.Items {
		total[it.Kind]++
		if it.Status == ItemComplete {
			continue
		}
		verb := "not saved"
		if it.Status == ItemPartial {
			verb = "cut short"
		}
		var g *group
		for _, x := range groups {
			if x.kind == it.Kind && x.verb == verb && x.reason == it.Reason && x.impact == it.Impact {
				g = x
			}
		}
		if g == nil {
			g = &group{kind: it.Kind, verb: verb, reason: it.Reason, impact: it.Impact, name: it.Name}
			groups = append(groups, g)
		}
		g.n++
	}
	var out []string
	for _, g := range groups {
		what := g.name
		if total[g.kind] > 1 {
			what = fmt.Sprintf("%d of %d %s", g.n, total[g.kind], plural(g.kind, total[g.kind]))
			if g.n == 1 {
				what += " (" + g.name + ")"
			}
		}
		s := fmt.Sprintf("%s: %s %s", rep.Source, what, g.verb)
		if g.reason != "" {
			s += " (" + g.reason + ")"
		}
		if g.impact != "" {
			s += ": " + g.impact
		}
		out = append(out, s)
	}
	return out
}

// plural returns the plural of a kind noun when n is not 1.
func plural(kind string, n int) string {
	switch {
	case n == 1:
		return kind
	case strings.HasSuffix(kind, "y"):
		return strings.TrimSuffix(kind, "y") + "ies"
	}
	return kind + "s"
}

// ProgressState is the running state of one source.
type ProgressState struct {
	// Records and Bytes count only what was saved.
	Records int
	Bytes   int64
	// Retrying says what waits for a retry, e.g. "retrying 3 objects
	// (SlowDown)"; empty when nothing does.
	Retrying string
}

// Progress receives the running state of one source while it fetches.
// Calls are never concurrent, but may come from different goroutines.
type Progress func(source string, s ProgressState)

// FetchError is an error a user can act on, worded as one redacted line
// that names the source and, for a denied request, the permission that is
// missing.
type FetchError struct {
	Source string
	Msg    string
	Err    error
	// stops is set when the error means that further calls of the source
	// cannot work either: a dead endpoint, missing or rejected credentials.
	stops bool
}

// Error implements error.
func (e *FetchError) Error() string { return e.Source + ": " + e.Msg }

// Unwrap returns the underlying error.
func (e *FetchError) Unwrap() error { return e.Err }

// fetchErrorf builds a FetchError; the message is made one line and
// redacted, since it may quote a server.
func fetchErrorf(source string, err error, format string, args ...any) *FetchError {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
	msg, _ = Redact(msg)
	return &FetchError{Source: source, Msg: msg, Err: err}
}

// stopping marks e as an error that stops its source.
func (e *FetchError) stopping() *FetchError {
	e.stops = true
	return e
}

// transportError words an error that happened before any service answered
// (a timeout, a refused connection) as a FetchError that stops the source,
// or returns nil.
func transportError(source string, err error) *FetchError {
	var te *TimeoutError
	if errors.As(err, &te) {
		fe := fetchErrorf(source, err, "%s", te.Error())
		if !te.Stalled {
			fe.stopping()
		}
		return fe
	}
	var ce *ConnectError
	if errors.As(err, &ce) {
		return fetchErrorf(source, err, "%s", ce.Error()).stopping()
	}
	return nil
}

// bundleFile is a file being written into a bundle: buffered, counting
// bytes, and created only when something is written to it, so that a
// bundle never holds an empty file.
type bundleFile struct {
	dir, rel string
	// head is written first when the file is created, tail when it is
	// closed, if it was created (a JSON document's opening and closing).
	head, tail string
	f          *os.File
	w          *bufio.Writer
	n          int64
	err        error
}

// bundleFileBuffer is the write buffer of a bundle file.
const bundleFileBuffer = 256 << 10

// newBundleFile prepares rel (slash-separated) under dir.
func newBundleFile(dir, rel, head, tail string) *bundleFile {
	return &bundleFile{dir: dir, rel: rel, head: head, tail: tail}
}

// open creates the file with its parents and writes the head.
func (b *bundleFile) open() error {
	if b.f != nil || b.err != nil {
		return b.err
	}
	path := filepath.Join(b.dir, filepath.FromSlash(b.rel))
	if b.err = os.MkdirAll(filepath.Dir(path), 0o755); b.err != nil {
		return b.err
	}
	if b.f, b.err = os.Create(path); b.err != nil {
		return b.err
	}
	b.w = bufio.NewWriterSize(b.f, bundleFileBuffer)
	_, err := b.write([]byte(b.head))
	return err
}

// write writes p to the open file, counting bytes.
func (b *bundleFile) write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.w.Write(p)
	b.n += int64(n)
	b.err = err
	return n, err
}

// Write implements io.Writer, creating the file on the first write.
func (b *bundleFile) Write(p []byte) (int, error) {
	if err := b.open(); err != nil {
		return 0, err
	}
	return b.write(p)
}

// Close writes the tail, flushes and closes the file, if it was created.
func (b *bundleFile) Close() error {
	if b.f == nil {
		return b.err
	}
	b.write([]byte(b.tail))
	ferr := b.w.Flush()
	if err := b.f.Close(); ferr == nil {
		ferr = err
	}
	if b.err == nil {
		b.err = ferr
	}
	b.f = nil
	return b.err
}

// Remove closes and deletes the file.
func (b *bundleFile) Remove() {
	if b.f != nil {
		b.f.Close()
		os.Remove(b.f.Name())
		b.f = nil
	}
}

// Package bundle is the layout of a triage bundle: a directory of fetched
// files in the formats users export, and the manifest that says what was
// asked for, what came back and what is missing. The live fetchers write
// bundles; the report reads a bundle's manifest to warn about what it lacks.
package bundle

import (
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
	// ItemGone: it no longer exists where it was kept, so it could not be
	// asked for: the logs of a pod deleted during the window, of a
	// container's instances the kubelet no longer keeps.
	ItemGone ItemStatus = "gone"
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
	// ServerVersion is the Kubernetes API server's version as its /version
	// endpoint gives it (gitVersion, such as v1.29.3-gke.1200); kubernetes
	// source only, "" when not read.
	ServerVersion string `json:"server_version,omitempty"`
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

// The states of a bundle (Manifest.State).
const (
	// StateInProgress: the fetch is writing the bundle. A manifest left in
	// this state means the fetch never finished (it was killed, or the
	// machine stopped): any file may be cut short or missing.
	StateInProgress = "in-progress"
	// StateComplete: the fetch finished writing the bundle, and the
	// manifest says what came back (an interrupted fetch also ends so, with
	// Interrupted set).
	StateComplete = "complete"
)

// Manifest is the content of a bundle's ManifestName file: what was fetched
// and for which window.
type Manifest struct {
	Schema string `json:"schema"`
	// State is StateInProgress from before the fetch writes anything until
	// it has written everything, then StateComplete. Bundles written before
	// the field existed have none; their manifest was written at the end.
	State   string    `json:"state,omitempty"`
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

// WriteManifest writes m into the bundle directory dir, atomically: into a
// hidden temporary file of dir, synced, then renamed over the manifest, so
// that a reader (or a fetch killed at any moment) finds either the previous
// manifest or this one whole.
func WriteManifest(dir string, m *Manifest) error {
	m.Schema = BundleSchema
	sort.Slice(m.Sources, func(i, j int) bool { return m.Sources[i].Source < m.Sources[j].Source })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ManifestName+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, ManifestName))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Incomplete says, for the directory dir, why it is a bundle whose fetch
// never finished writing it; "" for a complete bundle and for a directory
// that is no bundle (it has no manifest). A manifest that cannot be read
// leaves the bundle's state unknown, which counts as incomplete.
func Incomplete(dir string) string {
	m, err := ReadManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ""
	case err != nil:
		return fmt.Sprintf("the bundle %s has an unreadable manifest (%v), so whether its fetch finished is not known", dir, err)
	case m.State == StateInProgress:
		return fmt.Sprintf("the bundle %s is incomplete: the fetch that began writing it at %s never finished (it was killed or the machine stopped), so any of its files may be cut short or missing; fetch the window again", dir, m.Created.UTC().Format(time.RFC3339))
	}
	return ""
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
		switch it.Status {
		case ItemPartial:
			verb = "cut short"
		case ItemGone:
			verb = "gone"
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
			what = fmt.Sprintf("%d of %d %s", g.n, total[g.kind], Plural(g.kind, total[g.kind]))
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

// Plural names kind for a count of n: "object", "objects", "entries".
func Plural(kind string, n int) string {
	switch {
	case n == 1:
		return kind
	case strings.HasSuffix(kind, "y"):
		return strings.TrimSuffix(kind, "y") + "ies"
	}
	return kind + "s"
}

// Package classify turns a correlated failure window into a verdict: which
// mechanism made the load balancer or proxy answer 5xx, how sure we are, the
// records that prove it, and the manifest change that prevents it. Each
// mechanism is one rule in its own file; rules know mechanisms, not formats.
package classify

import (
	"net/netip"
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
)

// Confidence says how much of the expected evidence was found.
type Confidence string

// Confidence levels.
const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// Evidence is one record that supports a verdict.
type Evidence struct {
	Time time.Time
	// Source is the file:line of the record.
	Source string
	Text   string
}

// Fix is one manifest change that prevents the incident.
type Fix struct {
	Title string
	// Why ties the change to what was observed, with the numbers.
	Why string
	// Patch is the change, as YAML (or a command where the change is not a manifest).
	Patch string
}

// BackendRef names a backend involved in an incident.
type BackendRef struct {
	IP   netip.Addr
	Pod  string
	Role correlate.Role
	// Failures counts the failure signals that named this backend.
	Failures int
	// Why says how its role was decided.
	Why string
}

// Finding is what one rule concludes about a window.
type Finding struct {
	Cause      string
	Confidence Confidence
	// Score ranks findings of different rules for the same window, 0 to 1.
	Score float64
	// Variant names the flavour of the mechanism (e.g. the GKE NEG readiness
	// gate opened without a health check).
	Variant     string
	Summary     string
	Backends    []BackendRef
	Evidence    []Evidence
	Remediation []Fix
}

// Verdict is the explanation of one incident window.
type Verdict struct {
	Window *correlate.Window
	Finding
	// Timeline lists the key moments around the window.
	Timeline []correlate.Entry
	// Notes are caveats about the data (lost events, LB logs only).
	Notes []string
}

// grade scores a finding from how much of the window fits the mechanism
// (fit, 0 to 1) and how many independent records corroborate it, and sets
// its confidence: high with two corroborations, medium with one or when the
// signature alone is clear (fit at least clearFit), low otherwise.
func (f *Finding) grade(fit float64, corroborated int, clearFit float64) {
	f.Score = 0.45 + 0.3*fit + 0.05*float64(min(corroborated, 4))
	switch {
	case corroborated >= 2:
		f.Confidence = High
	case corroborated == 1 || fit >= clearFit:
		f.Confidence = Medium
	default:
		f.Confidence = Low
	}
}

// Rule explains windows caused by one mechanism.
type Rule interface {
	// Cause describes the cause the rule names.
	Cause() Cause
	// Evaluate returns the rule's finding for w, or nil when the window does
	// not look like its mechanism.
	Evaluate(a *correlate.Analysis, w *correlate.Window) *Finding
}

// Rules lists every rule, in the order they are tried.
var Rules = []Rule{registrationLag{}, wrongProbePort{}, terminationRace{}}

// minScore is the score below which a window is reported as unknown: a wrong
// confident verdict at 3 a.m. is worse than none.
const minScore = 0.5

// Classify explains every window of the analysis.
func Classify(a *correlate.Analysis) []*Verdict {
	var out []*Verdict
	for _, w := range a.Windows {
		out = append(out, classifyWindow(a, w))
	}
	return out
}

func classifyWindow(a *correlate.Analysis, w *correlate.Window) *Verdict {
	var best *Finding
	for _, r := range Rules {
		f := r.Evaluate(a, w)
		if f != nil && (best == nil || f.Score > best.Score) {
			best = f
		}
	}
	if best == nil || best.Score < minScore {
		best = unknownFinding(a, w)
	}
	v := &Verdict{Window: w, Finding: *best}
	v.Timeline = a.Timeline(w, involvedBackends(a, w, v.Backends))
	v.Notes = notes(a, w)
	sort.SliceStable(v.Evidence, func(i, j int) bool { return v.Evidence[i].Time.Before(v.Evidence[j].Time) })
	return v
}

// involvedBackends returns the backends a verdict names.
func involvedBackends(a *correlate.Analysis, w *correlate.Window, refs []BackendRef) []*correlate.Backend {
	var out []*correlate.Backend
	seen := map[*correlate.Backend]bool{}
	for _, r := range refs {
		b := a.BackendOf(r.IP, w.Start)
		if b == nil && r.Pod != "" {
			for _, x := range a.Backends {
				if x.Pod == r.Pod {
					b = x
				}
			}
		}
		if b != nil && !seen[b] {
			seen[b] = true
			out = append(out, b)
		}
	}
	return out
}

// Package classify names the mechanism behind the failures the load
// balancer or proxy generated: each rule, in its own file, claims the
// failures that are symptoms of its mechanism and explains them — one
// finding per rollout (or per stretch of time) with how sure it is, the
// records that prove it and the manifest change that prevents it. Rules
// know mechanisms, not formats; failures no rule explains are reported as
// unknown, or as a note when they are too few to matter.
package classify

import (
	"net/netip"
	"sort"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Confidence says how much of the expected evidence was found.
type Confidence string

// Confidence levels.
const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

// Evidence is one record, or one fact from an object, that supports a
// finding. The report words records; rules add what they mean.
type Evidence struct {
	Time time.Time
	// Origin is where the record is (file:line); zero for a fact from objects.
	Origin sources.Origin
	// Event or Request is the record; both are nil for a Fact.
	Event   *sources.Lifecycle
	Request *sources.Request
	// Note is what the record shows for the mechanism.
	Note string
	// Fact is a statement from objects' specs when there is no record.
	Fact string
}

// Fix is one change that prevents the incident.
type Fix struct {
	Title string
	// Why ties the change to what was observed, with the numbers.
	Why string
	// Patch is the change as the object to apply (a strategic-merge patch
	// of a Kubernetes object); nil when the change is not a manifest.
	Patch Patch
	// AtMost says that the numbers of Patch are the most that fix the
	// incident (a timeout to lower), not the least, as they are for every
	// other fix (a sleep, grace period or budget to raise); see Covers.
	AtMost bool
	// Template says that Patch is not ready to apply: it shows the change
	// to make by hand, in an object or container no input names (a
	// placeholder such as <serving container> stands for it) or where the
	// change needs a judgement the objects cannot make. Patches with a
	// placeholder are templates whatever the rule says (see finishFixes).
	Template bool
}

// Patch is a Kubernetes object as nested maps, for sigs.k8s.io/yaml.
type Patch map[string]any

// BackendRef names a backend involved in a finding, with its own part of it.
type BackendRef struct {
	IP  netip.Addr
	Pod string
	// Of is the backend; nil for an IP no record ties to anything.
	Of   *correlate.Backend
	Role correlate.Role
	// Attempts counts failed attempts at the backend; Requests the
	// client-visible failures whose last attempt went there.
	Attempts, Requests int
	// Start and End bound its failures (zero for a backend named by events only).
	Start, End time.Time
	// LastSent is when the load balancer last sent it a failed request
	// (see correlate.IPFailures.LastSent).
	LastSent time.Time
	// Active is how long its failures went on: the union of their bursts
	// (see correlate.IPFailures.Active).
	Active time.Duration
	// Why says how its role was decided.
	Why string
}

// Finding is what a rule concludes about one group of failures.
type Finding struct {
	// Cause is the cause's id; Variant the flavour of the mechanism.
	Cause   string
	Variant string
	// Confidence and Score say how well the evidence fits; Score ranks, 0 to 1.
	Confidence Confidence
	Score      float64
	// Window summarises the failures the finding explains.
	Window *correlate.Window
	// Rollout is the rollout they happened in; nil when none.
	Rollout *correlate.Rollout
	// Trigger says what deleted the pods of a termination race.
	Trigger string
	// Step is the progressive-delivery controller's record of the rollout
	// step the failures followed (a Service switch, a weight change, a
	// scale-down, an abort); nil when none.
	Step *sources.Lifecycle
	// Summary is the one sentence a human reads first.
	Summary     string
	Backends    []BackendRef
	Evidence    []Evidence
	Remediation []Fix
	// Timeline lists the key moments around the failures.
	Timeline []correlate.Entry
	// Notes are caveats about the data (lost events, LB logs only, sampling).
	Notes []string
	// SampleRate is the share of requests the load balancer logged, when
	// an object says it samples (0 < rate < 1); 0 otherwise.
	SampleRate float64
	// Rate describes a finding spread over time rather than a burst.
	Rate *Rate
	// Timeouts are the timeouts the finding rests on.
	Timeouts []Timeout
	// explicit is set when the mechanism's own evidence names the pods (an
	// event that deleted them, a readiness gate opened without a health
	// check, a readiness probe on another port than the traffic's): then
	// fewer client-visible failures than Opts.MinSignals still make an
	// incident (see smallFinding).
	explicit bool
}

// Estimated is the number of client-visible failures the logged ones stand
// for: scaled by the sample rate when the logs are sampled.
func (f *Finding) Estimated() int {
	if f.SampleRate > 0 {
		return int(float64(f.Window.Failed)/f.SampleRate + 0.5)
	}
	return f.Window.Failed
}

// Rule explains the failures of one mechanism.
type Rule interface {
	// Cause describes the cause the rule names.
	Cause() Cause
	// Claims reports whether a failure is a symptom of the rule's
	// mechanism, from its kind and what the backend it failed at was doing.
	Claims(a *correlate.Analysis, s *correlate.Signal) bool
	// Explain turns the claimed failures into findings. Failures it leaves
	// out of every finding are explained by no rule.
	Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding
	// Check finds, before a deploy, the settings in the objects that let
	// the mechanism fail requests: the same knowledge as Explain, with the
	// same numbers, from specs alone.
	Check(objs *Objects) []*Risk
}

// Rules lists every rule in the order they claim failures: a failure goes
// to the first rule that claims it. The progressive-delivery rules come
// first: they claim only failures that follow a step of an Argo Rollout or
// a Flagger Canary, which they explain more exactly than the rules of a
// rolling update; an abort (which also moves weights) before the rest.
var Rules = []Rule{rolloutAbortGone{}, rolloutScaleDownRace{}, rolloutWeightNoTarget{}, rolloutSwitchLag{},
	registrationLag{}, wrongProbePort{}, terminationRace{}, keepaliveTimeout{}}

// Result is the classification of one analysis.
type Result struct {
	// Findings are the incidents, in time order.
	Findings []*Finding
	// Notes are observations below the incident thresholds.
	Notes []string
}

// Classify explains every failure of the analysis.
func Classify(a *correlate.Analysis) *Result {
	claimed := make([][]*correlate.Signal, len(Rules))
	var rest []*correlate.Signal
	for _, s := range a.Signals {
		taken := false
		for i, r := range Rules {
			if r.Claims(a, s) {
				claimed[i] = append(claimed[i], s)
				taken = true
				break
			}
		}
		if !taken {
			rest = append(rest, s)
		}
	}
	res := &Result{}
	var small []string // notes of rules' findings with too few failures
	for i, r := range Rules {
		findings := r.Explain(a, claimed[i])
		n := 0
		for _, f := range findings {
			if f.Score >= minScore {
				n += len(f.Window.Signals)
			}
		}
		explained := make(map[*correlate.Signal]bool, n) // sized once: it may hold every failure
		for _, f := range findings {
			if f.Score < minScore {
				continue
			}
			for _, s := range f.Window.Signals {
				explained[s] = true
			}
			if smallFinding(a, f) {
				small = append(small, smallNote(a, f, r.Cause()))
				continue
			}
			res.Findings = append(res.Findings, f)
		}
		for _, s := range claimed[i] {
			if !explained[s] {
				rest = append(rest, s)
			}
		}
	}
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Time().Before(rest[j].Time()) })
	var below []*correlate.Window
	var kinds []noteKind
	var around []*correlate.Signal
	n := 0
	for _, s := range rest {
		if noBackendServedAround(a, s) {
			around = append(around, s)
		} else {
			rest[n] = s
			n++
		}
	}
	rest = rest[:n]
	for _, sigs := range correlate.Split(around, a.Opts.MergeGap) {
		below, kinds = append(below, correlate.Summarize(sigs)), append(kinds, noteServedAround)
	}
	for _, sigs := range correlate.Split(rest, a.Opts.MergeGap) {
		w := correlate.Summarize(sigs)
		if kind, ok := noteKindOf(a, w); ok {
			below, kinds = append(below, w), append(kinds, kind)
			continue
		}
		res.Findings = append(res.Findings, unknownFinding(a, w))
	}
	res.Notes = append(small, belowNotes(kinds, below)...)
	res.Notes = append(res.Notes, suspicions(a)...)
	res.Notes = append(res.Notes, clientNotes(a)...)
	for _, f := range res.Findings {
		finish(a, f)
	}
	sort.SliceStable(res.Findings, func(i, j int) bool { return res.Findings[i].Window.Start.Before(res.Findings[j].Window.Start) })
	return res
}

// minScore is the score below which a rule's finding is dropped and its
// failures are reported as unknown: a wrong confident verdict at 3 a.m. is
// worse than none.
const minScore = 0.5

// finish adds what every finding carries: its timeline, caveats about the
// data, the sample rate, and its evidence in time order.
func finish(a *correlate.Analysis, f *Finding) {
	f.Timeline = a.Timeline(f.Window, involvedBackends(f.Backends))
	if platformOf(f.Window).samplesLogs() {
		rate, note := logSampleRate(objectsOf(a), findWorkload(a, f.Rollout, f.Backends))
		if rate > 0 && rate < 1 {
			f.SampleRate = rate
		}
		if note != "" {
			f.Notes = append(f.Notes, note)
		}
	}
	f.Notes = append(f.Notes, notes(a, f)...)
	finishFixes(f.Remediation)
	sort.SliceStable(f.Evidence, func(i, j int) bool { return f.Evidence[i].Time.Before(f.Evidence[j].Time) })
}

// involvedBackends returns the backends a finding names.
func involvedBackends(refs []BackendRef) []*correlate.Backend {
	var out []*correlate.Backend
	seen := map[*correlate.Backend]bool{}
	for _, r := range refs {
		if r.Of != nil && !seen[r.Of] {
			seen[r.Of] = true
			out = append(out, r.Of)
		}
	}
	return out
}

// grade scores a finding from how much of its failures fit the mechanism
// (fit, 0 to 1) and how many independent records corroborate it, and sets
// its confidence: high with two corroborations, medium with one or when the
// signature alone is clear (fit at least clearFit), low otherwise.
func (f *Finding) grade(fit float64, corroborated int, clearFit float64) {
	f.Score = scoreBase + scoreFit*fit + scorePerCorroboration*float64(min(corroborated, maxCorroborations))
	switch {
	case corroborated >= highCorroborations:
		f.Confidence = High
	case corroborated >= 1 || fit >= clearFit:
		f.Confidence = Medium
	default:
		f.Confidence = Low
	}
}

// Grading weights. A finding whose failures all fit scores 0.75 before any
// corroboration, one that half fits 0.6: both above minScore, while a third
// fitting without corroboration (0.55) still is, and nothing fitting (0.45)
// is not.
const (
	scoreBase             = 0.45
	scoreFit              = 0.3
	scorePerCorroboration = 0.05
	maxCorroborations     = 4
	// highCorroborations is how many independent records make a finding
	// certain: the logs' signature plus two Kubernetes facts.
	highCorroborations = 2
)

// Package report is readygap's versioned JSON contract and the renderers
// that draw it: Report (schema readygap/v1, documented in docs/json.md) for
// analyze and triage, written as text, Markdown, HTML or JSON by Write;
// CheckReport (readygap-check/v1, docs/check.md) for check, written as
// text, JSON, SARIF or JUnit by WriteCheck. One registry of output formats
// serves both and their --output flags.
//
// A report carries everything its renderers draw — the causes' and
// checks' names, the lanes' states, the outcome series — so that a report
// decoded from its JSON is drawn byte for byte as the command drew it
// (readygap render). The package imports none of sources, correlate or
// classify: package pipeline builds reports from an analysis. Text from
// the inputs is untrusted in every format (Sanitize).
package report

import "time"

// SchemaVersion names the JSON contract; renaming a field is a breaking change.
const SchemaVersion = "readygap/v1"

// Report is what every renderer draws from; its JSON form is the contract
// documented in docs/json.md. Times are UTC; zero times are left out of JSON.
type Report struct {
	Schema string `json:"schema"`
	// Summary is what a reader needs first: how many incidents, how many
	// failed requests, and the changes to make, once each.
	Summary Summary `json:"summary"`
	Inputs  []Input `json:"inputs"`
	// Unread lists the inputs found that gave nothing (unreadable, or in
	// no known format), each with the reason.
	Unread   []Unread `json:"unread"`
	Warnings []string `json:"warnings"`
	// Window is the --since/--until window the inputs were read with; nil
	// when none was given.
	Window *Window `json:"window,omitempty"`
	// Clocks lists the clock offsets found between sources and applied,
	// and the comparisons whose median the proxies' propagation lag
	// explained (offset zero, nothing moved).
	Clocks []Clock `json:"clocks,omitempty"`
	// Rollouts lists the rollouts found, which incidents refer to by id.
	Rollouts  []Rollout  `json:"rollouts"`
	Incidents []Incident `json:"incidents"`
	// Notes are observations below the incident threshold: a few LB 5xx
	// without a mechanism, failures that retries hid entirely.
	Notes []string `json:"notes,omitempty"`
	// Lanes is every backend's life on the shared time axis, at most
	// maxLanes of them: those an incident names first.
	Lanes []Lane `json:"lanes"`
	// LanesOmitted counts the backends beyond maxLanes left out of Lanes.
	LanesOmitted int `json:"lanes_omitted,omitempty"`
	// Series is the outcome series on the same axis, bounded in points.
	Series *Series `json:"series,omitempty"`
	// PrunedObjects counts ALB log objects skipped by the end time in their name.
	PrunedObjects int `json:"pruned_objects,omitempty"`
}

// Input describes one input read.
type Input struct {
	Name       string    `json:"name"`
	Format     string    `json:"format"`
	Records    int       `json:"records"`
	Skipped    int       `json:"skipped"`
	Filtered   int       `json:"filtered,omitempty"`
	Duplicates int       `json:"duplicates,omitempty"`
	First      time.Time `json:"first,omitzero"`
	Last       time.Time `json:"last,omitzero"`
}

// Unread is an input that gave nothing, and why.
type Unread struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
	// Empty marks an input that holds no data at all (white space, a JSON
	// array or List with no element).
	Empty bool `json:"empty,omitempty"`
}

// Coverage is what one kind of source gave the verdict: the inputs that
// held records of that kind, the records, and the time they cover.
type Coverage struct {
	// Kind is request_logs, events, objects, controller_logs or
	// health_checks.
	Kind string `json:"kind"`
	// Name is the kind for a reader: "request logs".
	Name    string    `json:"name"`
	Files   int       `json:"files"`
	Records int       `json:"records"`
	First   time.Time `json:"first,omitzero"`
	Last    time.Time `json:"last,omitzero"`
}

// Window is the time window the inputs were read with.
type Window struct {
	// Since and Until bound the records kept: [Since, Until); either may be
	// open (zero, left out).
	Since time.Time `json:"since,omitzero"`
	Until time.Time `json:"until,omitzero"`
	// Empty says that no record with a time fell inside the window.
	Empty bool `json:"empty"`
	// DataFirst and DataLast bound the times of every record, inside the
	// window or not (ALB objects skipped by their name count by the
	// interval it gives); set only when Empty, and left out when no record
	// has a time.
	DataFirst time.Time `json:"data_first,omitzero"`
	DataLast  time.Time `json:"data_last,omitzero"`
}

// The verdicts of a report (Summary.Verdict).
const (
	// VerdictIncident: the analysis found at least one incident.
	VerdictIncident = "incident"
	// VerdictNoIncident: a request log was read, it covers every rollout
	// the other sources show, and the load balancer generated no run of
	// errors in it.
	VerdictNoIncident = "no_incident"
	// VerdictCannotJudge: what was read cannot tell (no request log, a
	// request log that misses the rollout, an incomplete bundle);
	// Summary.CannotJudge says why. Incidents found are still listed.
	VerdictCannotJudge = "cannot_judge"
)

// Summary is the report at a glance.
type Summary struct {
	// Verdict is incident, no_incident (a request log was read and covers
	// every rollout the other sources show) or cannot_judge (CannotJudge
	// says why; incidents found are still listed).
	Verdict     string `json:"verdict"`
	CannotJudge string `json:"cannot_judge,omitempty"`
	// Coverage is what the verdict rests on, one entry per kind of source:
	// request_logs, events, objects and controller_logs always, then the
	// other kinds read.
	Coverage  []Coverage `json:"coverage"`
	Incidents int        `json:"incidents"`
	// FailedRequests, LoggedFailedRequests and HiddenFailures add up the incidents'.
	FailedRequests       int `json:"failed_requests"`
	LoggedFailedRequests int `json:"logged_failed_requests"`
	HiddenFailures       int `json:"hidden_failures"`
	// Requests counts every client-visible request read; AppErrors the 5xx
	// the backends sent themselves (never an incident).
	Requests  int `json:"requests"`
	AppErrors int `json:"app_errors"`
	// Changes are the fixes of every incident, each stated once, with the
	// incidents it prevents.
	Changes []Change `json:"changes"`
	// Caveats are what changes how to read the verdicts, for the top of
	// every report: clock offsets applied, sampled request logs, incidents
	// the window cuts, an empty window, records far from the rest.
	Caveats []string `json:"caveats"`
	// First and Last bound the time axis every lane and the series share:
	// the data's first and last record, records far from the rest left out.
	First time.Time `json:"first,omitzero"`
	Last  time.Time `json:"last,omitzero"`
}

// Change is one fix to apply, and the incidents it prevents.
type Change struct {
	Remediation
	Incidents []string `json:"incidents"`
}

// Clock is a comparison of the load balancer's clock with another
// source's, from paired observations: an offset found and applied to that
// source's times, or (OffsetSeconds zero) a lateness the load balancer's
// propagation lag explains, which moved nothing.
type Clock struct {
	// Source names the records compared, and shifted when OffsetSeconds
	// is not zero (e.g. "kubernetes").
	Source string `json:"source"`
	// OffsetSeconds was added to those records' times.
	OffsetSeconds float64 `json:"offset_seconds"`
	// MedianSeconds is how much later than those records the load
	// balancer saw what they record (the pairs' median, before any shift):
	// the offset when one was applied, the lateness the lag was taken for
	// when none was.
	MedianSeconds float64 `json:"median_seconds"`
	// Pairs counts the observations the estimate rests on; How names them.
	Pairs int    `json:"pairs"`
	How   string `json:"how"`
	// SpreadSeconds is how closely the pairs agree (their median absolute
	// deviation); LagSeconds the proxies' propagation lag they were read
	// against, which an offset had to exceed (omitted when none).
	SpreadSeconds float64 `json:"spread_seconds"`
	LagSeconds    float64 `json:"lag_seconds,omitempty"`
}

// Rollout is one rollout of a workload: the ReplicaSets it replaced and the
// one it brought, and when.
type Rollout struct {
	ID string `json:"id"`
	// Workload is Kind/name (Deployment/web, Rollout/web for an Argo
	// Rollout, Canary/web for a Flagger canary); Namespace its namespace.
	Workload       string    `json:"workload"`
	Namespace      string    `json:"namespace,omitempty"`
	OldReplicaSets []string  `json:"old_replica_sets"`
	NewReplicaSet  string    `json:"new_replica_set,omitempty"`
	Revision       string    `json:"revision,omitempty"`
	Start          time.Time `json:"start"`
	End            time.Time `json:"end"`
	// How says what the rollout was found from: scaling events, ReplicaSet
	// objects, pod names, or the load balancer's traffic alone.
	How string `json:"how"`
	// Steps are what a progressive-delivery controller (Argo Rollouts,
	// Flagger) recorded of the rollout: canary weights, Service switches,
	// steps, promotion, abort; omitted for a Deployment's rollout.
	Steps []Moment `json:"steps,omitempty"`
}

// Incident is one mechanism at work in one rollout (or one node drain, one
// scale-in, one stretch of time), with its verdict.
type Incident struct {
	// ID names the incident in the report (incident-1, ...).
	ID              string    `json:"id"`
	Start           time.Time `json:"start"`
	End             time.Time `json:"end"`
	DurationSeconds float64   `json:"duration_seconds"`
	// ActiveSeconds is how long clients were failing: the union of the
	// incident's bursts of failures (Bursts of them), each from its first
	// failure to its last. It equals DurationSeconds, the span from the
	// first failure to the last, unless failing paused.
	ActiveSeconds float64 `json:"active_seconds"`
	Bursts        int     `json:"bursts"`
	Cause         string  `json:"cause"`
	Variant       string  `json:"variant,omitempty"`
	// CauseName and VariantName are the cause's and the variant's names for
	// a reader, from the rules' registry: a renderer draws them from the
	// report alone.
	CauseName   string `json:"cause_name"`
	VariantName string `json:"variant_name,omitempty"`
	Confidence  string `json:"confidence"`
	// Rollout is the id of the rollout the incident belongs to, if any.
	Rollout string `json:"rollout,omitempty"`
	// Trigger says what deleted the pods of a termination race: rollout,
	// node_drain, scale_in or unknown.
	Trigger string `json:"trigger,omitempty"`
	// Step is the step of a progressive-delivery rollout (Argo Rollouts,
	// Flagger) the failures followed: the controller's record of a
	// Service switch, a canary weight, a scale-down or an abort.
	Step *Moment `json:"step,omitempty"`
	// Cut says when --since/--until cut the incident: "starts before
	// --since", "ends after --until".
	Cut string `json:"cut,omitempty"`
	// FailedRequests counts client-visible 5xx the LB or proxy generated;
	// with sampled request logs it is the estimate, and
	// LoggedFailedRequests what the logs hold.
	FailedRequests       int     `json:"failed_requests"`
	LoggedFailedRequests int     `json:"logged_failed_requests"`
	SampleRate           float64 `json:"sample_rate,omitempty"`
	// HiddenFailures counts requests a proxy retry rescued after a failed attempt.
	HiddenFailures int            `json:"hidden_failures"`
	StatusCounts   map[string]int `json:"status_counts"`
	Summary        string         `json:"summary"`
	Backends       []Backend      `json:"backends"`
	Evidence       []Evidence     `json:"evidence"`
	Remediation    []Remediation  `json:"remediation"`
	Timeline       []Moment       `json:"timeline"`
	Notes          []string       `json:"notes,omitempty"`
	// Rate describes a finding spread over time (keep-alive races) rather
	// than a burst.
	Rate *Rate `json:"rate,omitempty"`
	// Timeouts lists the timeouts the finding rests on, as read from objects
	// or platform defaults.
	Timeouts []Timeout `json:"timeouts,omitempty"`
}

// Rate is how often a spread-out failure happened.
type Rate struct {
	PerHour float64 `json:"per_hour"`
	// Share is the failed share of all requests in the period.
	Share float64 `json:"share"`
	// Backends counts the backends affected.
	Backends int `json:"backends"`
	// Hours is the period observed.
	Hours float64 `json:"hours"`
}

// Timeout is one timeout setting a finding depends on.
type Timeout struct {
	// What names the setting: the LB's idle timeout, the app's keep-alive.
	What    string  `json:"what"`
	Seconds float64 `json:"seconds"`
	// Source says where it was read (object and field, or "default").
	Source string `json:"source"`
}

// Backend names a backend involved in an incident, with its own part of it.
type Backend struct {
	IP         string `json:"ip,omitempty"`
	Pod        string `json:"pod,omitempty"`
	ReplicaSet string `json:"replica_set,omitempty"`
	Role       string `json:"role"`
	// Failures counts failed upstream attempts sent to this backend (a
	// request retried elsewhere counts here and not in FailedRequests).
	Failures int `json:"failures"`
	// FailedRequests counts the client-visible failures whose last attempt
	// went to this backend.
	FailedRequests int `json:"failed_requests"`
	// Start and End bound this backend's failures; ActiveSeconds, set
	// only where it is shorter than that span, is how long they went on:
	// the union of this backend's bursts.
	Start         time.Time `json:"start,omitzero"`
	End           time.Time `json:"end,omitzero"`
	ActiveSeconds float64   `json:"active_seconds,omitempty"`
	Why           string    `json:"why,omitempty"`
	// Joined says how the pod was tied to the IP when no object said so.
	Joined string `json:"joined,omitempty"`
}

// Evidence is one record that supports a verdict.
type Evidence struct {
	Time   time.Time `json:"time,omitzero"`
	Source string    `json:"source,omitempty"`
	Text   string    `json:"text"`
}

// Remediation is one manifest change that prevents the incident.
type Remediation struct {
	Title string `json:"title"`
	Why   string `json:"why"`
	Patch string `json:"patch"`
}

// Moment is one line of an incident's timeline.
type Moment struct {
	Time   time.Time `json:"time"`
	What   string    `json:"what"`
	Who    string    `json:"who,omitempty"`
	Zone   string    `json:"zone,omitempty"`
	Source string    `json:"source,omitempty"`
}

// Lane is one backend's life: milestones by name (created, scheduled,
// started, ready, lb_attached, lb_healthy, terminating, lb_detached,
// deleted), when it served traffic, its events, and the states drawn from
// them.
type Lane struct {
	Name       string               `json:"name"`
	IP         string               `json:"ip,omitempty"`
	ReplicaSet string               `json:"replica_set,omitempty"`
	Zone       string               `json:"zone,omitempty"`
	Role       string               `json:"role"`
	Milestones map[string]time.Time `json:"milestones"`
	// FirstServed and LastServed bound its responses while it held its IP.
	FirstServed time.Time `json:"first_served,omitzero"`
	LastServed  time.Time `json:"last_served,omitzero"`
	// LastSent is the last request the load balancer or proxy sent it,
	// answered or failed, while it had not gone: a terminating pod is
	// drawn terminating until then.
	LastSent time.Time `json:"last_sent,omitzero"`
	Markers  []Marker  `json:"markers"`
	// OneOf lists, for an IP the records cannot tie to one pod, the pods
	// that changed at the same moment as it and that it was one of; those
	// pods have no lane of their own.
	OneOf []string `json:"one_of,omitempty"`
	// ReadyBy is, for a new pod no record shows Ready, the latest time it
	// can have become Ready: its Deployment scaled the old pods down, which
	// the controller does only once enough new pods are available.
	ReadyBy time.Time `json:"ready_by,omitzero"`
	// States are the backend's consecutive states on the report's axis, in
	// time order (see LaneState); after the last one it is gone, unless the
	// last one ends with the data.
	States []LaneState `json:"states"`
}

// The lane states, in the order a pod passes them.
const (
	// StateStarting: created, not yet Ready for Kubernetes.
	StateStarting = "starting"
	// StateReady: Ready for Kubernetes, not (yet) healthy for the LB.
	StateReady = "ready"
	// StateLBHealthy: healthy for the load balancer, serving.
	StateLBHealthy = "lb_healthy"
	// StateTerminating: terminating, or deregistered from the LB.
	StateTerminating = "terminating"
)

// LaneState is one stretch of a lane in one state.
type LaneState struct {
	State string    `json:"state"`
	From  time.Time `json:"from"`
	// To is when the next state began, the backend was gone, or the data
	// ends; To equals From when the end is not known.
	To time.Time `json:"to"`
	// Inferred says how From was found when no record states it (e.g.
	// "first served"); empty when a record does.
	Inferred string `json:"inferred,omitempty"`
}

// Marker is one event on a lane.
type Marker struct {
	Time   time.Time `json:"time"`
	Kind   string    `json:"kind"`
	Text   string    `json:"text"`
	Source string    `json:"source,omitempty"`
}

// Series is the outcome series of the whole axis, bounded in points: Values[i]
// holds, one count per column, the requests of [Start+i*Step, Start+(i+1)*Step).
// Step grows with the span so that Values never holds more than
// maxSeriesPoints rows; Detail repeats each incident and its context at a
// finer step.
type Series struct {
	Start       time.Time `json:"start"`
	StepSeconds int       `json:"step_seconds"`
	Columns     []string  `json:"columns"`
	Values      [][]int   `json:"values"`
	// Detail holds the incidents with their context at one second (or the
	// finest step that keeps all of them within maxDetailPoints rows), in
	// time order, never overlapping; empty when Values is as fine.
	Detail []SeriesPart `json:"detail"`
	// Outside counts the requests far from the rest of the data, in no row.
	Outside int `json:"outside,omitempty"`
}

// SeriesPart is a stretch of the series at its own step, with the columns
// of the Series.
type SeriesPart struct {
	Start       time.Time `json:"start"`
	StepSeconds int       `json:"step_seconds"`
	Values      [][]int   `json:"values"`
}

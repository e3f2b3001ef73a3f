package report

import (
	"fmt"
)

// CheckSchemaVersion names the JSON contract of `readygap check`; renaming
// a field is a breaking change.
const CheckSchemaVersion = "readygap-check/v1"

// CheckReport is what `readygap check` finds in manifests or a cluster's
// objects, before a deploy: every renderer draws from it, and its JSON
// form is the contract documented in docs/check.md.
type CheckReport struct {
	Schema  string       `json:"schema"`
	Summary CheckSummary `json:"summary"`
	// Source names where the objects came from when not from files (a
	// live cluster's context and namespace); omitted for files.
	Source string  `json:"source,omitempty"`
	Inputs []Input `json:"inputs"`
	// Context names the inputs read for their objects only (--neighbors):
	// findings and what was not judged are reported for the others.
	Context  []string `json:"context,omitempty"`
	Warnings []string `json:"warnings"`
	// NotJudged is what the check could not judge: inputs and documents
	// it could not read, workloads and routes whose Service, Ingress or
	// Gateway is not among the inputs.
	NotJudged []CheckNotJudged `json:"not_judged"`
	// Workloads are the Deployments and StatefulSets checked, in the order
	// read.
	Workloads []ObjectRef `json:"workloads"`
	// Findings are the risks found, ordered by file and line, then rule.
	Findings []CheckFinding `json:"findings"`
	// Checks are every static check run, in the rules' order, with what a
	// renderer says about them (SARIF's rules, JUnit's suites).
	Checks []CheckRule `json:"checks"`
}

// CheckRule describes one static check and the cause it guards against.
type CheckRule struct {
	// Rule is "<cause>/<check>", as findings name it.
	Rule             string `json:"rule"`
	Cause            string `json:"cause"`
	CauseName        string `json:"cause_name"`
	CauseDescription string `json:"cause_description"`
	Check            string `json:"check"`
	// Name says in a few words what the check finds; Description what it
	// compares, with which numbers.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Kinds are the workload kinds the check judges ("Deployment",
	// "StatefulSet", "Rollout"): on a workload of another kind it is no
	// passed test. A report saved without them judged every kind.
	Kinds []string `json:"kinds"`
}

// CheckSummary is the check at a glance.
type CheckSummary struct {
	// Objects counts the objects read that the checks know; Workloads the
	// Deployments and StatefulSets among them.
	Objects   int `json:"objects"`
	Workloads int `json:"workloads"`
	// AtRisk counts the workloads with at least one finding.
	AtRisk   int `json:"at_risk"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Unreadable counts the inputs and documents not read; NotJudged the
	// workloads and routes not judged for want of an object.
	Unreadable int `json:"unreadable"`
	NotJudged  int `json:"not_judged"`
	// FailOn is the severity from which the command fails: error, warning
	// or none.
	FailOn string `json:"fail_on"`
	// Failed says whether a finding, or something not judged, is at or
	// above FailOn.
	Failed bool `json:"failed"`
}

// CheckNotJudged is one thing the check could not judge.
type CheckNotJudged struct {
	// Kind is "unreadable" (an input or a document that was not read) or
	// "missing" (a workload or route whose Service, Ingress or Gateway is
	// not among the inputs).
	Kind string `json:"kind"`
	// Severity is error for what was not read, warning for what is
	// missing: as a finding's, it counts for --fail-on.
	Severity string `json:"severity"`
	// Reason says what was not judged and why.
	Reason string `json:"reason"`
	// File and Line say where: the input, and the line of the document
	// when one document was not read (0 for the whole input).
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Object is the workload or route not judged (kind missing).
	Object *ObjectRef `json:"object,omitempty"`
	// Missing names the objects not among the inputs (kind missing).
	Missing []string `json:"missing,omitempty"`
	// Count is how many documents the entry stands for, when more than
	// one: those not read past the ones listed each with its line.
	Count int `json:"count,omitempty"`
	// Fails says whether Severity is at or above the summary's fail_on.
	Fails bool `json:"fails"`
}

// The kinds of CheckNotJudged.
const (
	NotJudgedUnreadable = "unreadable"
	NotJudgedMissing    = "missing"
)

// Location is the place's file:line, the file alone for a whole input.
func (n CheckNotJudged) Location() string {
	if n.Line > 0 {
		return fmt.Sprintf("%s:%d", n.File, n.Line)
	}
	return n.File
}

// CheckFinding is one risk: a mechanism that will fail requests, with the
// numbers and the change that prevents it.
type CheckFinding struct {
	// Rule is "<cause>/<check>"; Cause and Check are its parts.
	Rule     string `json:"rule"`
	Cause    string `json:"cause"`
	Check    string `json:"check"`
	Severity string `json:"severity"`
	// Fails says whether Severity is at or above the summary's fail_on.
	Fails bool `json:"fails"`
	// Title says the risk in one line; Reason explains it with the numbers.
	Title  string `json:"title"`
	Reason string `json:"reason"`
	// Workload is the Deployment at risk.
	Workload ObjectRef `json:"workload"`
	// Object is where the finding points: what its first fix changes when
	// that was read (a Namespace, a Service), else the workload.
	Object ObjectRef `json:"object"`
	// Via is what sends the load balancer's traffic to the workload (an
	// Ingress, an HTTPRoute...); omitted for a risk of the workload alone.
	Via *ObjectRef `json:"via,omitempty"`
	// Fixes are the changes that remove the risk, the first the one to make.
	Fixes []Remediation `json:"fixes"`
	// Prediction is the expected failure window at the next rollout, with
	// the settings read and then with the fixes; omitted for the checks
	// that have no model of it.
	Prediction *CheckPrediction `json:"prediction,omitempty"`
}

// CheckPrediction is a risk's expected failure window, from a model of the
// mechanism held to readygap's rollout simulator.
type CheckPrediction struct {
	// Status is the status clients get.
	Status int `json:"status"`
	// Windows are the expected windows: the first with the settings read,
	// each next one with a fix applied, as its settings say.
	Windows []PredictedWindow `json:"windows"`
	// Per says what one window covers when it is not the whole rollout:
	// "old pod" for a termination race (each old pod's share of the
	// requests fails that long); omitted for the rollout.
	Per string `json:"per,omitempty"`
	// Summary says them in one line; Basis says the model and where each
	// of its numbers comes from (read or assumed).
	Summary string `json:"summary"`
	Basis   string `json:"basis"`
}

// PredictedWindow is the expected failure window with some settings.
type PredictedWindow struct {
	// Settings names the settings; Seconds is the window, 0 for none.
	Settings string `json:"settings"`
	Seconds  int    `json:"seconds"`
	// Recurring says the failures come at a rate, at any time, rather than
	// in a window (Seconds is then 0): an idle keep-alive race.
	Recurring bool `json:"recurring,omitempty"`
}

// ObjectRef names a Kubernetes object and where it was read.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// File and Line say where the object starts (Line is 1-based);
	// omitted for objects of a live cluster.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Location is the object's file:line; "" when it came from a cluster.
func (o ObjectRef) Location() string {
	if o.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", o.File, o.Line)
}

// String names the object for a reader: "Deployment shop/web".
func (o ObjectRef) String() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

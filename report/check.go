package report

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/sources"
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
	// each next one with one more fix applied.
	Windows []PredictedWindow `json:"windows"`
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
}

// checkPrediction renders a risk's prediction; nil for none.
func checkPrediction(p *classify.Prediction) *CheckPrediction {
	if p == nil {
		return nil
	}
	out := &CheckPrediction{Status: p.Status, Windows: []PredictedWindow{}, Summary: p.String(), Basis: p.Basis}
	for _, w := range p.Windows {
		out.Windows = append(out.Windows, PredictedWindow{Settings: w.Settings, Seconds: int(w.Window.Round(time.Second) / time.Second)})
	}
	return out
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

// CheckOptions are what a check needs besides the names of its inputs.
type CheckOptions struct {
	// Read tunes how inputs are read (standard input).
	Read sources.Options
	// Source, when set, names where the inputs came from (a cluster's
	// context and namespace, fetched into files): the findings then name
	// objects without file and line.
	Source string
	// FailOn is the severity from which the check fails; "" or "none"
	// never.
	FailOn classify.Severity
	// Context are more inputs read for their objects alone, as the
	// neighbours of the inputs checked: a finding is reported when it
	// names an object of the inputs in paths, and a context input that
	// cannot be read is a warning.
	Context []string
	// KubeVersion is the cluster's Kubernetes version as given
	// (--kube-version); zero when unknown.
	KubeVersion sources.KubeVersion
}

// checkMaxUnread is how many unread documents of one input a check lists,
// each with its line (the count covers them all).
const checkMaxUnread = 100

// Check reads every input named in paths (files, directories, "-" for
// standard input) and returns the risks the rules' static checks find in
// the Kubernetes objects they hold: the one way from manifests to
// findings, sources → classify → report, that the command and the tests
// use. It fails only when a path does not exist or the read is cancelled:
// inputs in no known format are warnings.
func Check(ctx context.Context, paths []string, opts CheckOptions) (*CheckReport, error) {
	var mu sync.Mutex
	var keepers []*configKeeper
	if opts.Read.MaxWarnings == 0 {
		opts.Read.MaxWarnings = checkMaxUnread
	}
	res, err := sources.Read(ctx, append(slices.Clip(paths), opts.Context...), opts.Read, func(*sources.InputReport) sources.Handler {
		k := &configKeeper{}
		mu.Lock()
		keepers = append(keepers, k)
		mu.Unlock()
		return k
	})
	switch {
	case res == nil:
		return nil, err // a path that does not exist, a cancelled read
	case err != nil && len(res.Warnings) == 0:
		// No input at all (an empty folder).
		res.Warnings = append(res.Warnings, err.Error())
	}
	// Inputs in no known format are warnings only: a hook hands check
	// every YAML file of a commit (workflows, values), which is no error.
	var configs []*sources.Config
	for _, k := range keepers {
		configs = append(configs, k.configs...)
	}
	// Inputs are parsed in parallel: order the objects by where they were
	// read, so that every run reports the same.
	sort.SliceStable(configs, func(i, j int) bool {
		a, b := configs[i].Origin, configs[j].Origin
		return a.File < b.File || (a.File == b.File && a.Line < b.Line)
	})
	objs := classify.NewObjects(configs)
	objs.KubeVersion = opts.KubeVersion
	risks := classify.Check(objs)
	return newCheckReport(res, objs, risks, classify.Coverage(objs), opts), nil
}

// configKeeper is a sources.Handler that keeps the configuration facts and
// nothing else: a check reads objects' specs, not logs.
type configKeeper struct{ configs []*sources.Config }

func (*configKeeper) Request(*sources.Request)     {}
func (*configKeeper) Lifecycle(*sources.Lifecycle) {}
func (k *configKeeper) Config(c *sources.Config) {
	cp := *c
	k.configs = append(k.configs, &cp)
}

// OnlyOutcomesOfSuccesses implements sources.OutcomeHandler: a
// configKeeper reads nothing of a request.
func (*configKeeper) OnlyOutcomesOfSuccesses() {}

var _ sources.OutcomeHandler = (*configKeeper)(nil)

// newCheckReport builds the report of a check from what was read and found.
func newCheckReport(res *sources.Result, objs *classify.Objects, risks []*classify.Risk, gaps []*classify.NotJudged, opts CheckOptions) *CheckReport {
	configs := objs.All()
	rep := &CheckReport{Schema: CheckSchemaVersion, Source: opts.Source, Inputs: []Input{}, Warnings: []string{}, Workloads: []ObjectRef{},
		Findings: []CheckFinding{}, NotJudged: []CheckNotJudged{}}
	rep.Summary.FailOn = string(opts.FailOn)
	if rep.Summary.FailOn == "" {
		rep.Summary.FailOn = "none"
	}
	neighbour := map[string]bool{}
	for _, p := range opts.Context {
		neighbour[p] = true
	}
	// Warnings that become entries of NotJudged, or that a context input
	// in no known format gives, are not repeated among the warnings.
	dropped := map[string]bool{}
	unknown := false // an input checked, not a neighbour, in no known format
	for _, f := range res.Unread {
		unknown = unknown || (!neighbour[f.Name] && sources.IsUnknownFormat(f.Err))
		switch {
		case neighbour[f.Name]:
			// A neighbour may be anything; one that cannot be read stays
			// a warning: the inputs checked were judged without it.
			dropped[f.Warning] = sources.IsUnknownFormat(f.Err)
		case sources.IsUnknownFormat(f.Err) && !(sources.IsNotText(f.Err) && manifestName(f.Name)):
			// Not a manifest: a hook hands check every YAML file.
		default:
			// Not text though named like a manifest, or not readable.
			dropped[f.Warning] = true
			rep.NotJudged = append(rep.NotJudged, CheckNotJudged{Kind: NotJudgedUnreadable, Severity: string(classify.SeverityError), File: f.Name,
				Reason: fmt.Sprintf("%s: %v: nothing in it was judged", f.Name, f.Err)})
		}
	}
	if !unknown {
		dropped[sources.FormatsHelp()] = true
	}
	for _, in := range res.Inputs {
		name := in.Name
		if opts.Source != "" {
			name = opts.Source
		}
		rep.Inputs = append(rep.Inputs, Input{Name: name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped})
		if neighbour[in.Name] {
			rep.Context = append(rep.Context, name)
		}
		if in.Format != sources.FormatK8sObjects && in.Records > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s records, not Kubernetes objects: check reads manifests and objects only (analyze reads logs)", name, in.Format))
			continue
		}
		if in.Format != sources.FormatK8sObjects {
			continue
		}
		if !neighbour[in.Name] {
			rep.NotJudged = append(rep.NotJudged, unreadOf(in, name, dropped)...)
		}
	}
	for _, w := range res.Warnings {
		if !dropped[w] {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	rep.Summary.Objects = len(configs)
	// With neighbours read as context, what names an object of an input
	// checked is reported: a workload, and whatever finding or gap names
	// it, when it or an object linked to it was read from such an input.
	checked := func(refs ...*sources.Config) bool {
		if len(neighbour) == 0 {
			return true
		}
		for _, c := range refs {
			if c == nil {
				continue
			}
			for _, r := range append([]*sources.Config{c}, objs.Related(c)...) {
				if !neighbour[r.Origin.File] {
					return true
				}
			}
		}
		return false
	}
	for _, c := range configs {
		if (c.Kind == "Deployment" || c.Kind == "StatefulSet" || c.Kind == "Rollout" && c.Rollout != nil) && checked(c) {
			rep.Workloads = append(rep.Workloads, objectRef(c, opts.Source))
		}
	}
	for _, c := range configs {
		where := objectRef(c, opts.Source)
		loc := ""
		if l := where.Location(); l != "" {
			loc = " (" + l + ")"
		}
		if why, ok := unjudgedKinds[c.Kind]; ok && c.Workload == nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s%s not checked: %s; check judges Deployments, StatefulSets and Argo Rollouts only", where, loc, why))
		} else if why := classify.NotApplied(c.Kind); why != "" && c.Workload != nil && checked(c) {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s%s checked in part: not for %s", where, loc, why))
		}
	}
	for _, g := range gaps {
		if !checked(g.Object) {
			continue
		}
		ref := objectRef(g.Object, opts.Source)
		rep.NotJudged = append(rep.NotJudged, CheckNotJudged{Kind: NotJudgedMissing, Severity: string(classify.SeverityWarning),
			File: ref.File, Line: ref.Line, Object: &ref, Missing: g.Missing, Reason: g.Reason})
	}
	for _, n := range rep.NotJudged {
		if n.Kind == NotJudgedUnreadable {
			rep.Summary.Unreadable += max(n.Count, 1)
		} else {
			rep.Summary.NotJudged++
		}
		if opts.FailOn.Rank() > 0 && classify.Severity(n.Severity).Rank() >= opts.FailOn.Rank() {
			rep.Summary.Failed = true
		}
	}
	rep.Summary.Workloads = len(rep.Workloads)
	if rep.Summary.Workloads == 0 {
		rep.Warnings = append(rep.Warnings, "no Deployment or StatefulSet among the objects read: the checks look at them and what sends them traffic")
	}
	atRisk := map[string]bool{}
	for _, r := range risks {
		if !checked(r.Workload, r.Object, r.Via) {
			continue
		}
		f := CheckFinding{
			Rule: r.RuleID(), Cause: r.Cause, Check: r.Check, Severity: string(r.Severity),
			Title: r.Title, Reason: r.Reason,
			Workload: objectRef(r.Workload, opts.Source), Object: objectRef(r.Object, opts.Source), Fixes: []Remediation{},
			Prediction: checkPrediction(r.Prediction),
		}
		if r.Via != nil {
			via := objectRef(r.Via, opts.Source)
			f.Via = &via
		}
		for _, x := range r.Fixes {
			why := x.Why
			if opts.Source != "" {
				// Objects fetched from a cluster into files: name the
				// cluster, not the files.
				why = readAtFile.ReplaceAllString(why, "read from "+opts.Source)
			}
			f.Fixes = append(f.Fixes, Remediation{Title: x.Title, Why: why, Patch: patchYAML(x.Patch)})
		}
		switch r.Severity {
		case classify.SeverityError:
			rep.Summary.Errors++
		case classify.SeverityWarning:
			rep.Summary.Warnings++
		}
		if opts.FailOn.Rank() > 0 && r.Severity.Rank() >= opts.FailOn.Rank() {
			rep.Summary.Failed = true
		}
		atRisk[f.Workload.String()] = true
		rep.Findings = append(rep.Findings, f)
	}
	rep.Summary.AtRisk = len(atRisk)
	return rep
}

// unjudgedKinds are the workload kinds check reads by name but does not
// judge, with what differs from a Deployment's rollout.
var unjudgedKinds = map[string]string{
	"DaemonSet": "a DaemonSet runs one pod per node and rolls them node by node",
}

// readAtFile matches where a fix says a setting was read: "read at
// file:line".
var readAtFile = regexp.MustCompile(`read at [^ ,;)]+:\d+`)

// unreadOf lists the documents of a manifest input that were not read, and
// the rest of it when its read stopped early. The warnings they replace
// are marked in dropped.
func unreadOf(in *sources.InputReport, name string, dropped map[string]bool) []CheckNotJudged {
	var out []CheckNotJudged
	add := func(line int, reason, warning string) {
		dropped[warning] = true
		out = append(out, CheckNotJudged{Kind: NotJudgedUnreadable, Severity: string(classify.SeverityError), File: name, Line: line, Reason: reason})
	}
	samples := in.SkipSamples()
	for i, sk := range in.Skips() {
		add(sk.Origin.Line, fmt.Sprintf("%s:%d: a document was not read: %s", name, sk.Origin.Line, sk.Reason), samples[i])
	}
	if more := in.Skipped - len(samples); more > 0 {
		add(0, fmt.Sprintf("%s: %d more documents were not read", name, more), fmt.Sprintf("%s: %d more lines skipped", in.Name, more))
		out[len(out)-1].Count = more
	}
	if in.Incomplete != "" {
		add(0, fmt.Sprintf("%s: %s: what follows was not judged", name, in.Incomplete), in.Name+": "+in.Incomplete)
	}
	if name != in.Name { // a live source: no file to point at
		for i := range out {
			out[i].File, out[i].Line = "", 0
		}
	}
	return out
}

// manifestName reports whether an input's name says it holds manifests:
// standard input, or a .yaml, .yml or .json file.
func manifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return name == "<stdin>"
}

// objectRef names an object; without file and line when it came from a
// live source.
func objectRef(c *sources.Config, source string) ObjectRef {
	ref := ObjectRef{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}
	if source == "" && c.Origin.File != "" {
		ref.File, ref.Line = c.Origin.File, c.Origin.Line
	}
	return ref
}

// CheckFormat is how a check report is written; it is the value of
// `readygap check --output`.
type CheckFormat string

// The check report formats.
const (
	CheckText  CheckFormat = "text"
	CheckJSON  CheckFormat = "json"
	CheckSARIF CheckFormat = "sarif"
	CheckJUnit CheckFormat = "junit"
)

// checkFormats lists the check formats, in the order help texts name them.
var checkFormats = []CheckFormat{CheckText, CheckJSON, CheckSARIF, CheckJUnit}

// CheckFormatNames lists the values `check --output` accepts.
func CheckFormatNames() []string {
	names := make([]string, len(checkFormats))
	for i, f := range checkFormats {
		names[i] = string(f)
	}
	return names
}

// String implements pflag.Value.
func (f *CheckFormat) String() string { return string(*f) }

// Set implements pflag.Value.
func (f *CheckFormat) Set(v string) error {
	for _, x := range checkFormats {
		if string(x) == strings.ToLower(v) {
			*f = x
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(CheckFormatNames(), ", "))
}

// Type implements pflag.Value.
func (f *CheckFormat) Type() string { return "format" }

// WriteCheck writes rep to w in format f.
func WriteCheck(w io.Writer, f CheckFormat, rep *CheckReport) error {
	switch f {
	case CheckJSON:
		return writeIndentedJSON(w, rep)
	case CheckSARIF:
		return renderSARIF(w, rep)
	case CheckJUnit:
		return renderJUnit(w, rep)
	}
	return renderCheckText(w, rep, textWidthOf(w))
}

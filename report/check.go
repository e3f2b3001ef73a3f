package report

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

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
	Source   string   `json:"source,omitempty"`
	Inputs   []Input  `json:"inputs"`
	Warnings []string `json:"warnings"`
	// Workloads are the Deployments checked, in the order read.
	Workloads []ObjectRef `json:"workloads"`
	// Findings are the risks found, ordered by file and line, then rule.
	Findings []CheckFinding `json:"findings"`
}

// CheckSummary is the check at a glance.
type CheckSummary struct {
	// Objects counts the objects read that the checks know; Workloads the
	// Deployments among them.
	Objects   int `json:"objects"`
	Workloads int `json:"workloads"`
	// AtRisk counts the workloads with at least one finding.
	AtRisk   int `json:"at_risk"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// FailOn is the severity from which the command fails: error, warning
	// or none.
	FailOn string `json:"fail_on"`
	// Failed says whether a finding is at or above FailOn.
	Failed bool `json:"failed"`
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
}

// Check reads every input named in paths (files, directories, "-" for
// standard input) and returns the risks the rules' static checks find in
// the Kubernetes objects they hold: the one way from manifests to
// findings, sources → classify → report, that the command and the tests
// use. It fails only when a path does not exist or the read is cancelled:
// inputs in no known format are warnings.
func Check(ctx context.Context, paths []string, opts CheckOptions) (*CheckReport, error) {
	var mu sync.Mutex
	var keepers []*configKeeper
	res, err := sources.Read(ctx, paths, opts.Read, func(*sources.InputReport) sources.Handler {
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
	risks := classify.Check(classify.NewObjects(configs))
	return newCheckReport(res, configs, risks, opts), nil
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
func newCheckReport(res *sources.Result, configs []*sources.Config, risks []*classify.Risk, opts CheckOptions) *CheckReport {
	rep := &CheckReport{Schema: CheckSchemaVersion, Source: opts.Source, Inputs: []Input{}, Warnings: []string{}, Workloads: []ObjectRef{}, Findings: []CheckFinding{}}
	rep.Summary.FailOn = string(opts.FailOn)
	if rep.Summary.FailOn == "" {
		rep.Summary.FailOn = "none"
	}
	for _, in := range res.Inputs {
		name := in.Name
		if opts.Source != "" {
			name = opts.Source
		}
		rep.Inputs = append(rep.Inputs, Input{Name: name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped})
		if in.Format != sources.FormatK8sObjects && in.Records > 0 {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("%s: %s records, not Kubernetes objects: check reads manifests and objects only (analyze reads logs)", name, in.Format))
		}
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	rep.Summary.Objects = len(configs)
	for _, c := range configs {
		if c.Kind == "Deployment" {
			rep.Workloads = append(rep.Workloads, objectRef(c, opts.Source))
		}
	}
	rep.Summary.Workloads = len(rep.Workloads)
	if rep.Summary.Workloads == 0 {
		rep.Warnings = append(rep.Warnings, "no Deployment among the objects read: the checks look at Deployments and what sends them traffic")
	}
	atRisk := map[string]bool{}
	for _, r := range risks {
		f := CheckFinding{
			Rule: r.RuleID(), Cause: r.Cause, Check: r.Check, Severity: string(r.Severity),
			Title: r.Title, Reason: r.Reason,
			Workload: objectRef(r.Workload, opts.Source), Object: objectRef(r.Object, opts.Source), Fixes: []Remediation{},
		}
		if r.Via != nil {
			via := objectRef(r.Via, opts.Source)
			f.Via = &via
		}
		for _, x := range r.Fixes {
			f.Fixes = append(f.Fixes, Remediation{Title: x.Title, Why: x.Why, Patch: patchYAML(x.Patch)})
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

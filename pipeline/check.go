package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
)

// checkPrediction renders a risk's prediction; nil for none.
func checkPrediction(p *classify.Prediction) *report.CheckPrediction {
	if p == nil {
		return nil
	}
	out := &report.CheckPrediction{Status: p.Status, Windows: []report.PredictedWindow{}, Per: p.Per, Summary: p.String(), Basis: p.Basis}
	for _, w := range p.Windows {
		out.Windows = append(out.Windows, report.PredictedWindow{Settings: w.Settings, Seconds: int(w.Window.Round(time.Second) / time.Second), Recurring: w.Recurring})
	}
	return out
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
func Check(ctx context.Context, paths []string, opts CheckOptions) (*report.CheckReport, error) {
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
func newCheckReport(res *sources.Result, objs *classify.Objects, risks []*classify.Risk, gaps []*classify.NotJudged, opts CheckOptions) *report.CheckReport {
	configs := objs.All()
	rep := &report.CheckReport{Schema: report.CheckSchemaVersion, Source: opts.Source, Inputs: []report.Input{}, Warnings: []string{}, Workloads: []report.ObjectRef{},
		Findings: []report.CheckFinding{}, NotJudged: []report.CheckNotJudged{}, Checks: []report.CheckRule{}}
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
			rep.NotJudged = append(rep.NotJudged, report.CheckNotJudged{Kind: report.NotJudgedUnreadable, Severity: string(classify.SeverityError), File: f.Name,
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
		rep.Inputs = append(rep.Inputs, report.Input{Name: name, Format: string(in.Format), Records: in.Records, Skipped: in.Skipped})
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
		rep.NotJudged = append(rep.NotJudged, report.CheckNotJudged{Kind: report.NotJudgedMissing, Severity: string(classify.SeverityWarning),
			File: ref.File, Line: ref.Line, Object: &ref, Missing: g.Missing, Reason: g.Reason})
	}
	for i, n := range rep.NotJudged {
		if n.Kind == report.NotJudgedUnreadable {
			rep.Summary.Unreadable += max(n.Count, 1)
		} else {
			rep.Summary.NotJudged++
		}
		if opts.FailOn.Rank() > 0 && classify.Severity(n.Severity).Rank() >= opts.FailOn.Rank() {
			rep.NotJudged[i].Fails = true
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
		f := report.CheckFinding{
			Rule: r.RuleID(), Cause: r.Cause, Check: r.Check, Severity: string(r.Severity),
			Title: r.Title, Reason: r.Reason,
			Workload: objectRef(r.Workload, opts.Source), Object: objectRef(r.Object, opts.Source), Fixes: []report.Remediation{},
			Prediction: checkPrediction(r.Prediction),
		}
		if p := f.Prediction; p != nil && opts.Source != "" {
			p.Basis = readAtFile.ReplaceAllString(p.Basis, "read from "+opts.Source)
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
			f.Fixes = append(f.Fixes, report.Remediation{Title: x.Title, Why: why, Patch: patchYAML(x.Patch)})
		}
		switch r.Severity {
		case classify.SeverityError:
			rep.Summary.Errors++
		case classify.SeverityWarning:
			rep.Summary.Warnings++
		}
		if opts.FailOn.Rank() > 0 && r.Severity.Rank() >= opts.FailOn.Rank() {
			f.Fails = true
			rep.Summary.Failed = true
		}
		atRisk[f.Workload.String()] = true
		rep.Findings = append(rep.Findings, f)
	}
	rep.Summary.AtRisk = len(atRisk)
	for _, rc := range classify.StaticChecks() {
		rep.Checks = append(rep.Checks, report.CheckRule{Rule: rc.RuleID, Cause: rc.Cause.ID, CauseName: rc.Cause.Name, CauseDescription: rc.Cause.Description,
			Check: rc.Check.ID, Name: rc.Check.Name, Description: rc.Check.Description, Kinds: judgedKinds(rc.Cause.ID)})
	}
	return rep
}

// workloadKinds are the workload kinds check judges.
var workloadKinds = []string{"Deployment", "StatefulSet", "Rollout"}

// judgedKinds lists the workload kinds the checks of cause judge.
func judgedKinds(cause string) []string {
	kinds := []string{}
	for _, k := range workloadKinds {
		if classify.Judges(cause, k) {
			kinds = append(kinds, k)
		}
	}
	return kinds
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
func unreadOf(in *sources.InputReport, name string, dropped map[string]bool) []report.CheckNotJudged {
	var out []report.CheckNotJudged
	add := func(line int, reason, warning string) {
		dropped[warning] = true
		out = append(out, report.CheckNotJudged{Kind: report.NotJudgedUnreadable, Severity: string(classify.SeverityError), File: name, Line: line, Reason: reason})
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
func objectRef(c *sources.Config, source string) report.ObjectRef {
	ref := report.ObjectRef{Kind: c.Kind, Namespace: c.Namespace, Name: c.Name}
	if source == "" && c.Origin.File != "" {
		ref.File, ref.Line = c.Origin.File, c.Origin.Line
	}
	return ref
}

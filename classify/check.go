package classify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/readygap/readygap/sources"
)

// Severity says how sure a static check is that a risk will bite.
type Severity string

// Severities, the worst first.
const (
	// SeverityError: the objects say the mechanism will fail requests at
	// the next rollout (or at any time, for keep-alive).
	SeverityError Severity = "error"
	// SeverityWarning: it may, depending on what the objects read do not
	// say (a Namespace not among the inputs, the app's drain time).
	SeverityWarning Severity = "warning"
)

// Rank orders severities: 2 for an error, 1 for a warning, 0 otherwise.
func (s Severity) Rank() int {
	switch s {
	case SeverityError:
		return 2
	case SeverityWarning:
		return 1
	}
	return 0
}

// StaticCheck describes one static check of a rule: what the check table
// of docs/check.md, the SARIF rules and the help text say about it.
type StaticCheck struct {
	// ID names the check within its cause (kebab-case); the rule id the
	// outputs use is "<cause>/<id>".
	ID string
	// Name says in a few words what it finds.
	Name string
	// Description says what it compares, with which numbers.
	Description string
}

// Risk is what a static check finds in the objects: a mechanism that will
// fail requests, the numbers that say so and the change that prevents it.
type Risk struct {
	// Cause and Check name the rule and its check.
	Cause, Check string
	Severity     Severity
	// Workload is the Deployment at risk.
	Workload *sources.Config
	// Object is where the risk shows and what its first fix changes when it
	// was read (a Namespace, a Service); else the workload.
	Object *sources.Config
	// Via is the object that sends the load balancer's or proxy's traffic
	// to the workload (Ingress, TargetGroupBinding, HTTPRoute, the Service
	// of a standalone NEG); nil for a risk of the workload alone.
	Via *sources.Config
	// Title says the risk in one line; Reason explains it with the numbers.
	Title, Reason string
	// Fixes are the changes that remove it, the first being the one to make.
	Fixes []Fix
	// Prediction is the expected failure window now and with the fixes;
	// nil for the checks that have no model of it.
	Prediction *Prediction
}

// RuleID is the risk's rule as the outputs name it: "<cause>/<check>".
func (r *Risk) RuleID() string { return r.Cause + "/" + r.Check }

// RuleCheck is one static check with the cause it belongs to.
type RuleCheck struct {
	// RuleID is "<cause>/<check>", as the outputs name it.
	RuleID string
	Cause  Cause
	Check  StaticCheck
}

// StaticChecks lists every static check, in registry order.
func StaticChecks() []RuleCheck {
	var out []RuleCheck
	for _, r := range Rules {
		c := r.Cause()
		for _, sc := range c.Checks {
			out = append(out, RuleCheck{RuleID: c.ID + "/" + sc.ID, Cause: c, Check: sc})
		}
	}
	return out
}

// Check runs every rule's static check on the objects and returns the
// risks found, each once, ordered by where they point (file and line),
// then by rule.
func Check(objs *Objects) []*Risk {
	var out []*Risk
	seen := map[string]bool{}
	order := map[string]int{}
	for i, sc := range StaticChecks() {
		order[sc.RuleID] = i
	}
	for _, r := range Rules {
		for _, risk := range r.Check(objs) {
			if risk.Workload != nil && notAppliedTo[risk.Workload.Kind][risk.Cause] != "" {
				continue
			}
			key := risk.RuleID() + "\x00" + objectKey(risk.Workload) + "\x00" + risk.Reason
			if seen[key] {
				continue
			}
			seen[key] = true
			risk.Title = upperFirst(risk.Title)
			finishFixes(risk.Fixes)
			out = append(out, risk)
		}
	}
	slices.SortStableFunc(out, func(x, y *Risk) int {
		a, b := x.Object.Origin, y.Object.Origin
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(order[x.RuleID()], order[y.RuleID()]))
	})
	return out
}

// objectKey names an object as Kind/namespace/name.
func objectKey(c *sources.Config) string {
	if c == nil {
		return ""
	}
	return c.Kind + "/" + c.Namespace + "/" + c.Name
}

// objectName names an object for a reader: "Deployment shop/web".
func objectName(c *sources.Config) string {
	if c.Namespace == "" {
		return c.Kind + " " + c.Name
	}
	return fmt.Sprintf("%s %s/%s", c.Kind, c.Namespace, c.Name)
}

// newRisk starts a risk of check for the target's workload, pointing at it.
func newRisk(cause Cause, check string, sev Severity, t *target) *Risk {
	return &Risk{Cause: cause.ID, Check: check, Severity: sev, Workload: t.Config, Object: t.Config}
}

package classify

import (
	"cmp"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// objectPatch builds a patch of one Kubernetes object: apiVersion, kind,
// metadata (name and namespace when known, plus extra metadata) and spec.
func objectPatch(apiVersion, kind, namespace, name string, metadata, spec map[string]any) Patch {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	for k, v := range metadata {
		meta[k] = v
	}
	p := Patch{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	if spec != nil {
		p["spec"] = spec
	}
	return p
}

// deploymentPatch is a patch of the workload's spec, of its own kind (a
// Deployment unless the workload read says otherwise): a strategic merge
// patch of a Deployment or StatefulSet, a JSON merge patch of an Argo
// Rollout, whose spec.template is a Deployment's.
func deploymentPatch(wl workload, spec map[string]any) Patch {
	kind := cmp.Or(wl.Kind, "Deployment")
	return objectPatch(workloadAPIVersion(kind), kind, wl.Namespace, wl.Name, nil, spec)
}

// argoRolloutAPIVersion is the apiVersion of an Argo Rollout
// (argoproj.io/v1alpha1, its CRD's only served version).
const argoRolloutAPIVersion = "argoproj.io/v1alpha1"

// workloadAPIVersion is the apiVersion of a workload kind.
func workloadAPIVersion(kind string) string {
	if kind == correlate.KindArgoRollout {
		return argoRolloutAPIVersion
	}
	return "apps/v1"
}

// workloadName names the workload for a reader: "Deployment shop/web".
func workloadName(wl workload) string {
	if wl.Namespace == "" {
		return cmp.Or(wl.Kind, "Deployment") + " " + wl.Name
	}
	return fmt.Sprintf("%s %s/%s", cmp.Or(wl.Kind, "Deployment"), wl.Namespace, wl.Name)
}

// containerPatch patches one container of the workload's pod template
// (strategic merge matches containers by name).
func containerPatch(wl workload, container string, fields map[string]any) Patch {
	c := map[string]any{"name": container}
	for k, v := range fields {
		c[k] = v
	}
	return deploymentPatch(wl, templateSpec(map[string]any{"containers": []any{c}}))
}

// templateSpec wraps a pod spec in a Deployment's template.
func templateSpec(podSpec map[string]any) map[string]any {
	return map[string]any{"template": map[string]any{"spec": podSpec}}
}

// proxySidecars are containers that meshes, database connectors and
// agents inject beside the application: a pod spec may list one first
// (Istio does with holdApplicationUntilProxyStarts), but none serves the
// application's traffic, so a fix never lands on one by default.
var proxySidecars = map[string]bool{
	"istio-proxy": true, "linkerd-proxy": true, "cloud-sql-proxy": true, "cloudsql-proxy": true,
	"envoy": true, "envoy-sidecar": true, "vault-agent": true, "datadog-agent": true,
	"oauth2-proxy": true, "fluent-bit": true, "otel-collector": true, "cloud-sql-proxy-sidecar": true,
}

// trafficContainer finds the container that serves a workload's traffic:
// the one whose port a Service selecting its pods sends to (targetPort by
// number, or by name as the EndpointSlice controller resolves it); else,
// without such a Service, its only regular container, or the only one that
// is not a known proxy sidecar. why says how it was found, for the fix's
// text; name is "" when the template is unknown or several containers may
// serve.
func trafficContainer(services []*sources.Config, wl workload) (name, why string) {
	if wl.Template == nil {
		return "", ""
	}
	for _, svc := range services {
		if svc.Service == nil || svc.Namespace != wl.Namespace || len(svc.Service.Selector) == 0 || !subset(svc.Service.Selector, wl.TemplateLabels) {
			continue
		}
		for _, p := range svc.Service.Ports {
			if c := containerServing(wl.Template, p); c != "" {
				return c, fmt.Sprintf("container %s serves port %s of %s (%s)", c, cmp.Or(p.TargetPort, fmt.Sprint(p.Port)), objectName(svc), readAt(svc.Origin))
			}
		}
	}
	var regular, apps []string
	for _, c := range wl.Template.Containers {
		if c.Sidecar {
			continue
		}
		regular = append(regular, c.Name)
		if !proxySidecars[c.Name] {
			apps = append(apps, c.Name)
		}
	}
	switch {
	case len(regular) == 1:
		return regular[0], fmt.Sprintf("container %s is the only container of the template (%s)", regular[0], readAt(wl.Origin))
	case len(apps) == 1:
		return apps[0], fmt.Sprintf("assumed: container %s serves the traffic, as no Service read names its port and the others are proxies (%s)", apps[0], strings.Join(without(regular, apps[0]), ", "))
	}
	return "", ""
}

// containerServing returns the container a Service port sends to: the one
// declaring the target port's number, or its name (regular containers
// first, then sidecars); "" when none does.
func containerServing(spec *sources.PodSpec, p sources.ServicePort) string {
	proto := cmp.Or(p.Protocol, "TCP")
	for _, c := range spec.Containers {
		for _, cp := range c.Ports {
			if cmp.Or(cp.Protocol, "TCP") != proto {
				continue
			}
			if (p.TargetPortNumber != 0 && cp.Number == p.TargetPortNumber) || (p.TargetPortNumber == 0 && p.TargetPort != "" && cp.Name == p.TargetPort) {
				return c.Name
			}
		}
	}
	return ""
}

// without returns ss without s.
func without(ss []string, s string) []string {
	var out []string
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// readAt says where a setting was read: "read at file:line", or "assumed
// default: not in the inputs" when no object read states it (zero origin).
func readAt(o sources.Origin) string {
	if o.File == "" {
		return assumedDefault
	}
	return "read at " + o.String()
}

// assumedDefault marks a setting no input states: the fix took the
// platform's or the API's default.
const assumedDefault = "assumed default: not in the inputs"

// mainContainer names the serving container of a workload (see
// trafficContainer); a placeholder, which makes the fix a template, when
// no object read says which container serves.
func mainContainer(wl workload) string {
	return cmp.Or(wl.Serving, placeholderName("serving container"))
}

// servingNote says which container a container patch changes and how it
// was found, for the fix's text.
func servingNote(wl workload) string {
	if wl.Serving == "" {
		return fmt.Sprintf(" The objects read do not say which container of %s serves the traffic: put its name in place of %s.", workloadName(wl), placeholderName("serving container"))
	}
	return " Patched: " + wl.ServingWhy + "."
}

// builtinGroups are the API groups whose kinds the API server merges with
// a strategic merge patch (kubectl patch's default, --type strategic):
// lists of containers, ports and env merge by their key. Every other
// group is a custom resource, which takes a JSON merge patch (--type
// merge, RFC 7386) that replaces every list it names whole.
var builtinGroups = map[string]bool{"": true, "apps": true, "policy": true, "autoscaling": true, "networking.k8s.io": true, "batch": true}

// Builtin reports whether the patch is of a built-in kind, applied as a
// strategic merge patch; false for a custom resource's merge patch.
func (p Patch) Builtin() bool {
	v, _ := p["apiVersion"].(string)
	g := ""
	if i := strings.LastIndexByte(v, '/'); i >= 0 {
		g = v[:i]
	}
	return builtinGroups[g]
}

// hasPlaceholder reports whether a patch value holds a placeholder name
// (placeholderName: "<namespace>", "<serving container>").
func hasPlaceholder(v any) bool {
	switch x := v.(type) {
	case Patch:
		return hasPlaceholder(map[string]any(x))
	case map[string]any:
		for k, e := range x {
			if hasPlaceholder(k) || hasPlaceholder(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasPlaceholder(e) {
				return true
			}
		}
	case string:
		return strings.HasPrefix(x, "<") && strings.HasSuffix(x, ">")
	}
	return false
}

// finishFixes marks every fix with a placeholder as a template and says in
// each fix's Why how to apply its patch: the merge kubectl uses for the
// kind, or by hand for a template. Every finding and risk goes through it.
func finishFixes(fixes []Fix) {
	for i := range fixes {
		f := &fixes[i]
		if f.Patch == nil {
			continue
		}
		if hasPlaceholder(f.Patch) || mergedContainers(f.Patch) {
			f.Template = true
		}
		f.Why = strings.TrimSpace(f.Why) + " " + applyNote(*f)
	}
}

// mergedContainers reports whether a custom resource's patch names the
// containers of its pod template (an Argo Rollout's): a JSON merge patch
// would replace the whole list with the entries it names, which carry only
// the changed fields, so it is shown as a template.
func mergedContainers(p Patch) bool {
	if p.Builtin() {
		return false
	}
	spec, _ := p["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	_, ok := pod["containers"]
	return ok
}

// applyNote says how a fix's patch is applied.
func applyNote(f Fix) string {
	if f.Template && f.Patch != nil && mergedContainers(f.Patch) && !hasPlaceholder(f.Patch) {
		kind, _ := f.Patch["kind"].(string)
		return fmt.Sprintf("Template, not ready to apply: a %s is a custom resource, which takes a JSON merge patch, and that would replace its whole containers list with this one partial entry; write the change into the container in the %s's manifest by hand (or with kubectl patch --type json at /spec/template/spec/containers/<index>).", kind, kind)
	}
	if f.Template {
		return "Template, not ready to apply: write the change into the manifest by hand, filling in each <placeholder>."
	}
	kind, _ := f.Patch["kind"].(string)
	target := strings.ToLower(kind)
	if meta, ok := f.Patch["metadata"].(map[string]any); ok {
		if name, ok := meta["name"].(string); ok {
			target += " " + name
		}
		if ns, ok := meta["namespace"].(string); ok {
			target += " -n " + ns
		}
	}
	if f.Patch.Builtin() {
		how := "a strategic merge patch"
		if spec, _ := f.Patch["spec"].(map[string]any); spec["template"] != nil {
			how += ": containers merge by name"
		}
		return fmt.Sprintf("Apply: kubectl patch %s --type strategic --patch-file FILE (%s).", target, how)
	}
	return fmt.Sprintf("Apply: kubectl patch %s --type merge --patch-file FILE (a JSON merge patch: each list it names replaces the object's whole).", target)
}

// with returns the patch with one more top-level field (data for a ConfigMap).
func (p Patch) with(key string, value any) Patch {
	p[key] = value
	return p
}

// Covers reports whether applying f also makes the change g makes, so that
// one change fixes the incidents of both: their patches set the same fields
// of the same object to the same values, but for numbers (numbers inside
// strings too, as in an annotation "deregistration_delay.timeout_seconds=34"
// or an argument "65"), where f's are at least g's — or at most, for fixes
// whose numbers are the most that fix their incident (AtMost). A rule sizes
// a fix from what it measured, so the fix sized for the worst of several
// incidents fixes them all. Fixes without a patch cover only their equal.
func (f Fix) Covers(g Fix) bool {
	if f.Patch == nil || g.Patch == nil {
		return f.Patch == nil && g.Patch == nil && f.Title == g.Title && f.Why == g.Why
	}
	if f.AtMost != g.AtMost {
		return false
	}
	cmp := func(a, b float64) bool { return a >= b }
	if f.AtMost {
		cmp = func(a, b float64) bool { return a <= b }
	}
	return covers(map[string]any(f.Patch), map[string]any(g.Patch), cmp)
}

// covers compares one value of two patches for Covers; cmp compares two
// numbers at the same place.
func covers(a, b any, cmp func(a, b float64) bool) bool {
	switch x := a.(type) {
	case Patch:
		return covers(map[string]any(x), b, cmp)
	case map[string]any:
		y, ok := b.(map[string]any)
		if p, isPatch := b.(Patch); isPatch {
			y, ok = map[string]any(p), true
		}
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !covers(v, w, cmp) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !covers(x[i], y[i], cmp) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && stringCovers(x, y, cmp)
	}
	if m, ok := number(a); ok {
		n, ok := number(b)
		return ok && cmp(m, n)
	}
	return reflect.DeepEqual(a, b)
}

// number returns a patch value as a number, for the integer and float
// types rules write.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// stringCovers compares two strings of the same shape: the same text
// between their runs of digits, and each number of a against b's by cmp.
func stringCovers(a, b string, cmp func(a, b float64) bool) bool {
	for a != "" || b != "" {
		da, ra := digitRun(a)
		db, rb := digitRun(b)
		if (da == "") != (db == "") {
			return false
		}
		if da != "" {
			m, _ := strconv.ParseFloat(da, 64)
			n, _ := strconv.ParseFloat(db, 64)
			if !cmp(m, n) {
				return false
			}
			a, b = ra, rb
			continue
		}
		if a == "" || b == "" || a[0] != b[0] {
			return false
		}
		a, b = a[1:], b[1:]
	}
	return true
}

// digitRun splits s into its leading run of ASCII digits and the rest.
func digitRun(s string) (run, rest string) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i], s[i:]
}

package classify

import (
	"reflect"
	"strconv"
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

// deploymentPatch is a strategic-merge patch of the workload's Deployment spec.
func deploymentPatch(wl workload, spec map[string]any) Patch {
	return objectPatch("apps/v1", "Deployment", wl.Namespace, wl.Name, nil, spec)
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

// mainContainer names the serving container of a template: the first
// regular container; a placeholder when the template is unknown.
func mainContainer(wl workload) string {
	if wl.Template != nil {
		for _, c := range wl.Template.Containers {
			if !c.Sidecar {
				return c.Name
			}
		}
	}
	return placeholderName("container")
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

package classify

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

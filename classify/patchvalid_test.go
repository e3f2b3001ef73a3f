package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// This file proves the fixes valid by construction: every patch a rule
// emits, after an incident and before a deploy, on the fixtures and on
// variants that look like real clusters (testdata/variants: a sidecar
// listed first, a native sidecar, existing exec and httpGet hooks, a gRPC
// probe, named ports, Recreate, a StatefulSet, an HPA and a PDB beside the
// workload, CRDs with lists), is decoded strictly into its Kubernetes type,
// applied to the object as read the way kubectl patch applies it
// (strategic merge for built-in kinds, JSON merge patch for custom
// resources), and the result checked against the API server's rules and
// the providers' documented ranges.

// typedKinds are the Go types of the built-in kinds fixes patch.
var typedKinds = map[string]func() any{
	"Deployment":              func() any { return &appsv1.Deployment{} },
	"StatefulSet":             func() any { return &appsv1.StatefulSet{} },
	"Namespace":               func() any { return &corev1.Namespace{} },
	"Node":                    func() any { return &corev1.Node{} },
	"Service":                 func() any { return &corev1.Service{} },
	"ConfigMap":               func() any { return &corev1.ConfigMap{} },
	"Ingress":                 func() any { return &networkingv1.Ingress{} },
	"PodDisruptionBudget":     func() any { return &policyv1.PodDisruptionBudget{} },
	"HorizontalPodAutoscaler": func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
}

// workloadKinds are the kinds a pod template lives in: a patch of one of
// them must name the kind the object has.
var workloadKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "Rollout", "ReplicaSet"}

// Ranges the providers document for the numbers fixes set.
const (
	// ALB load-balancer attribute idle_timeout.timeout_seconds: 1-4000 s.
	albIdleMin, albIdleMax = 1, 4000
	// Target group deregistration_delay.timeout_seconds: 0-3600 s.
	albDeregMin, albDeregMax = 0, 3600
	// ALB health check interval 5-300 s, healthy/unhealthy thresholds 2-10.
	albIntervalMin, albIntervalMax   = 5, 300
	albThresholdMin, albThresholdMax = 2, 10
	// GKE BackendConfig: checkIntervalSec 1-300, thresholds 1-10,
	// drainingTimeoutSec 0-3600 (Cloud Load Balancing health checks and
	// connection draining).
	gkeIntervalMin, gkeIntervalMax   = 1, 300
	gkeThresholdMin, gkeThresholdMax = 1, 10
	gkeDrainMin, gkeDrainMax         = 0, 3600
)

// objectKey names a raw object: kind/namespace/name.
func rawKey(kind, ns, name string) string { return kind + "/" + ns + "/" + name }

// patchKey is the rawKey of the object a patch changes.
func patchKey(p Patch) string {
	kind, _ := p["kind"].(string)
	meta, _ := p["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	return rawKey(kind, ns, name)
}

// rawObjects reads the Kubernetes objects of the files under paths as
// written (YAML streams, JSON objects and Lists), by rawKey; files that
// hold no object (request logs) are skipped.
func rawObjects(t testing.TB, paths ...string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	var add func(obj map[string]any)
	add = func(obj map[string]any) {
		if items, ok := obj["items"].([]any); ok && strings.HasSuffix(fmt.Sprint(obj["kind"]), "List") {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					add(m)
				}
			}
			return
		}
		kind, _ := obj["kind"].(string)
		meta, _ := obj["metadata"].(map[string]any)
		if kind == "" || meta == nil {
			return
		}
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		out[rawKey(kind, ns, name)] = obj
	}
	for _, root := range paths {
		err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			ext := filepath.Ext(p)
			if (ext != ".yaml" && ext != ".yml" && ext != ".json") || info.Size() > 4<<20 {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for {
				var obj map[string]any
				if err := dec.Decode(&obj); err != nil {
					return nil // the end, or a log or an array: no more objects
				}
				if obj != nil {
					add(obj)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// strictDecode decodes JSON into v, failing on a field v does not have.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// patchProblems applies a fix's patch to the object as read (raw, by
// rawKey) and returns what the API server, the providers or a reader at
// 3 a.m. would object to; nil when it is valid. A template is not applied:
// it must say it is one.
func patchProblems(fix Fix, raw map[string]map[string]any) []string {
	if fix.Patch == nil {
		return nil
	}
	if fix.Template {
		if !strings.Contains(fix.Why, "Template, not ready to apply") {
			return []string{"a template that does not say so"}
		}
		return nil
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if hasPlaceholder(fix.Patch) {
		fail("a placeholder in a patch presented as ready")
	}
	kind, _ := fix.Patch["kind"].(string)
	meta, _ := fix.Patch["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	orig := raw[patchKey(fix.Patch)]
	if orig == nil {
		for _, k := range workloadKinds {
			if k != kind && raw[rawKey(k, ns, name)] != nil && slicesContains(workloadKinds, kind) {
				fail("patches %s %s/%s, which is a %s", kind, ns, name, k)
			}
		}
		orig = map[string]any{"apiVersion": fix.Patch["apiVersion"], "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}}
	}
	patchJSON, err := json.Marshal(map[string]any(fix.Patch))
	if err != nil {
		return append(problems, "patch: "+err.Error())
	}
	origJSON, err := json.Marshal(orig)
	if err != nil {
		return append(problems, "object: "+err.Error())
	}
	if !fix.Patch.Builtin() {
		merged, err := jsonpatch.MergePatch(origJSON, patchJSON)
		if err != nil {
			return append(problems, "merge patch: "+err.Error())
		}
		var m map[string]any
		if err := json.Unmarshal(merged, &m); err != nil {
			return append(problems, "merged: "+err.Error())
		}
		if kind == correlate.KindArgoRollout {
			problems = append(problems, rolloutProblems(patchJSON, merged, orig["spec"] != nil)...)
		}
		return append(problems, customProblems(kind, orig, m)...)
	}
	newTyped := typedKinds[kind]
	if newTyped == nil {
		return append(problems, "no Go type for built-in kind "+kind)
	}
	if err := strictDecode(patchJSON, newTyped()); err != nil {
		fail("the patch does not decode into %s: %v", kind, err)
	}
	merged, err := strategicpatch.StrategicMergePatch(origJSON, patchJSON, newTyped())
	if err != nil {
		return append(problems, "strategic merge: "+err.Error())
	}
	obj := newTyped()
	if err := strictDecode(merged, obj); err != nil {
		return append(problems, fmt.Sprintf("the result does not decode into %s: %v", kind, err))
	}
	origObj := newTyped()
	_ = json.Unmarshal(origJSON, origObj)
	return append(problems, builtinProblems(obj, origObj, raw[patchKey(fix.Patch)] != nil)...)
}

// slicesContains reports whether ss holds s.
func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// builtinProblems checks a built-in object after the patch against the
// API server's validation and the providers' ranges; read says whether the
// object was read (so that its containers are known).
func builtinProblems(obj, orig any, read bool) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	switch o := obj.(type) {
	case *appsv1.Deployment:
		problems = append(problems, podSpecProblems(&o.Spec.Template.Spec, read)...)
		deadline := int32(defaultProgressDeadline)
		if o.Spec.ProgressDeadlineSeconds != nil {
			deadline = *o.Spec.ProgressDeadlineSeconds
		}
		if o.Spec.MinReadySeconds >= deadline {
			fail("minReadySeconds %d is not below progressDeadlineSeconds %d", o.Spec.MinReadySeconds, deadline)
		}
		if o.Spec.Strategy.Type == appsv1.RecreateDeploymentStrategyType && o.Spec.Strategy.RollingUpdate != nil {
			fail("rollingUpdate under the Recreate strategy")
		}
		if ru := o.Spec.Strategy.RollingUpdate; ru != nil && ru.MaxSurge != nil && ru.MaxUnavailable != nil &&
			ru.MaxSurge.String() == "0" && ru.MaxUnavailable.String() == "0" {
			fail("maxSurge and maxUnavailable both 0")
		}
		if was := orig.(*appsv1.Deployment); read {
			problems = append(problems, annotationKeysKept(was.Spec.Template.Annotations, o.Spec.Template.Annotations)...)
		}
	case *policyv1.PodDisruptionBudget:
		if o.Spec.MinAvailable != nil {
			fail("a minAvailable budget, which blocks every eviction with one replica or an autoscaler below it")
		}
		if o.Spec.MaxUnavailable == nil || o.Spec.MaxUnavailable.IntValue() < 1 && o.Spec.MaxUnavailable.String() != "100%" {
			fail("maxUnavailable %v lets no eviction through", o.Spec.MaxUnavailable)
		}
		if o.Spec.Selector == nil || len(o.Spec.Selector.MatchLabels) == 0 {
			fail("no selector")
		}
	case *autoscalingv2.HorizontalPodAutoscaler:
		if b := o.Spec.Behavior; b != nil && b.ScaleDown != nil {
			for _, p := range b.ScaleDown.Policies {
				if p.Value <= 0 || p.PeriodSeconds <= 0 || p.PeriodSeconds > 1800 {
					fail("scale-down policy %+v out of range", p)
				}
			}
		}
	case *networkingv1.Ingress:
		problems = append(problems, albAnnotationProblems(o.Annotations)...)
	case *corev1.Service:
		problems = append(problems, albAnnotationProblems(o.Annotations)...)
	case *corev1.ConfigMap:
		if v, ok := o.Data["upstream-keepalive-timeout"]; ok {
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				fail("upstream-keepalive-timeout %q is not a positive number of seconds", v)
			}
		}
	}
	return problems
}

// podSpecProblems checks a pod template: every container a patch names
// exists (a strategic merge adds an unknown name as a new container,
// without an image), one handler per hook and probe, a gRPC probe on a
// port number, a sleep shorter than the grace period.
func podSpecProblems(spec *corev1.PodSpec, read bool) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	grace := int64(30)
	if spec.TerminationGracePeriodSeconds != nil {
		grace = *spec.TerminationGracePeriodSeconds
	}
	all := append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...)
	for _, c := range all {
		if read && c.Image == "" {
			fail("container %s is not in the object: the patch adds it without an image", c.Name)
		}
		if l := c.Lifecycle; l != nil {
			for what, h := range map[string]*corev1.LifecycleHandler{"preStop": l.PreStop, "postStart": l.PostStart} {
				if h == nil {
					continue
				}
				n := 0
				for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.TCPSocket != nil, h.Sleep != nil} {
					if set {
						n++
					}
				}
				if n != 1 {
					fail("container %s: %s has %d handlers", c.Name, what, n)
				}
				if h.Sleep != nil && h.Sleep.Seconds >= grace {
					fail("container %s: %s sleeps %d s, not less than the %d s grace period", c.Name, what, h.Sleep.Seconds, grace)
				}
			}
		}
		for what, p := range map[string]*corev1.Probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe, "startupProbe": c.StartupProbe} {
			if p == nil {
				continue
			}
			n := 0
			for _, set := range []bool{p.Exec != nil, p.HTTPGet != nil, p.TCPSocket != nil, p.GRPC != nil} {
				if set {
					n++
				}
			}
			if n != 1 {
				fail("container %s: %s has %d handlers", c.Name, what, n)
			}
			if p.GRPC != nil && (p.GRPC.Port < 1 || p.GRPC.Port > 65535) {
				fail("container %s: %s gRPC port %d", c.Name, what, p.GRPC.Port)
			}
		}
	}
	return problems
}

// annotationKeysKept checks that the proxy.istio.io/config annotation
// keeps every key it had.
func annotationKeysKept(was, now map[string]string) []string {
	a, ok := was[istioProxyConfigAnnotation]
	if !ok {
		return nil
	}
	var before, after map[string]any
	if yaml.Unmarshal([]byte(a), &before) != nil {
		return nil
	}
	if err := yaml.Unmarshal([]byte(now[istioProxyConfigAnnotation]), &after); err != nil {
		return []string{"proxy.istio.io/config no longer parses: " + err.Error()}
	}
	var problems []string
	for k := range before {
		if _, ok := after[k]; !ok {
			problems = append(problems, "proxy.istio.io/config lost "+k)
		}
	}
	return problems
}

// albAnnotationProblems checks the ALB annotations' numbers against the
// ranges AWS documents.
func albAnnotationProblems(a map[string]string) []string {
	var problems []string
	check := func(what, v string, lo, hi int) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi {
			problems = append(problems, fmt.Sprintf("%s %q outside %d-%d", what, v, lo, hi))
		}
	}
	for _, attr := range strings.Split(a[annotationALBTargetGroupAttributes], ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(attr), "="); ok && k == sources.ALBDeregistrationDelayAttribute {
			check(k, v, albDeregMin, albDeregMax)
		}
	}
	for _, attr := range strings.Split(a[annotationALBAttributes], ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(attr), "="); ok && k == sources.ALBIdleTimeoutAttribute {
			check(k, v, albIdleMin, albIdleMax)
		}
	}
	if v, ok := a["alb.ingress.kubernetes.io/healthcheck-interval-seconds"]; ok {
		check("healthcheck-interval-seconds", v, albIntervalMin, albIntervalMax)
	}
	for _, k := range []string{"alb.ingress.kubernetes.io/healthy-threshold-count", "alb.ingress.kubernetes.io/unhealthy-threshold-count"} {
		if v, ok := a[k]; ok {
			check(k, v, albThresholdMin, albThresholdMax)
		}
	}
	return problems
}

// customProblems checks a custom resource after a JSON merge patch: no
// list of the object lost entries (a merge patch replaces a list whole),
// every route still sends somewhere, numbers within their ranges.
func customProblems(kind string, orig, merged map[string]any) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	problems = append(problems, listsKept("", orig, merged)...)
	spec, _ := merged["spec"].(map[string]any)
	num := func(m map[string]any, k string) (int, bool) {
		f, ok := m[k].(float64)
		return int(f), ok
	}
	switch kind {
	case "VirtualService":
		for i, r := range asList(spec["http"]) {
			route, _ := r.(map[string]any)
			if len(asList(route["route"])) == 0 && route["redirect"] == nil && route["directResponse"] == nil && route["delegate"] == nil {
				fail("http[%d] sends nowhere", i)
			}
		}
	case "HTTPProxy":
		for i, r := range asList(spec["routes"]) {
			route, _ := r.(map[string]any)
			if len(asList(route["services"])) == 0 && route["requestRedirectPolicy"] == nil && route["directResponsePolicy"] == nil {
				fail("routes[%d] has no services", i)
			}
		}
	case "BackendConfig":
		if hc, ok := spec["healthCheck"].(map[string]any); ok {
			if n, ok := num(hc, "checkIntervalSec"); ok && (n < gkeIntervalMin || n > gkeIntervalMax) {
				fail("checkIntervalSec %d outside %d-%d", n, gkeIntervalMin, gkeIntervalMax)
			}
			if n, ok := num(hc, "timeoutSec"); ok {
				if iv, ok := num(hc, "checkIntervalSec"); ok && n > iv {
					fail("timeoutSec %d above checkIntervalSec %d", n, iv)
				}
			}
			for _, k := range []string{"healthyThreshold", "unhealthyThreshold"} {
				if n, ok := num(hc, k); ok && (n < gkeThresholdMin || n > gkeThresholdMax) {
					fail("%s %d outside %d-%d", k, n, gkeThresholdMin, gkeThresholdMax)
				}
			}
		}
		if cd, ok := spec["connectionDraining"].(map[string]any); ok {
			if n, ok := num(cd, "drainingTimeoutSec"); ok && (n < gkeDrainMin || n > gkeDrainMax) {
				fail("drainingTimeoutSec %d outside %d-%d", n, gkeDrainMin, gkeDrainMax)
			}
		}
	case ingressClassParamsKind:
		for _, a := range asList(spec["loadBalancerAttributes"]) {
			attr, _ := a.(map[string]any)
			if attr["key"] == sources.ALBIdleTimeoutAttribute {
				n, err := strconv.Atoi(fmt.Sprint(attr["value"]))
				if err != nil || n < albIdleMin || n > albIdleMax {
					fail("idle timeout %v outside %d-%d", attr["value"], albIdleMin, albIdleMax)
				}
			}
		}
	}
	return problems
}

// argoRolloutSpec is the part of an Argo Rollout's spec that fixes write,
// with the fields and types argo-rollouts documents (RolloutSpec in
// pkg/apis/rollouts/v1alpha1/types.go): the pod template is a
// Deployment's, minReadySeconds and progressDeadlineSeconds (default 600)
// as a Deployment's; under spec.strategy, canary and blueGreen with the
// fields the rollout_* fixes set. A Rollout has no spec.strategy.type nor
// rollingUpdate, so a patch that sets one fails to decode.
type argoRolloutSpec struct {
	Replicas                *int32                 `json:"replicas,omitempty"`
	MinReadySeconds         int32                  `json:"minReadySeconds,omitempty"`
	ProgressDeadlineSeconds *int32                 `json:"progressDeadlineSeconds,omitempty"`
	Template                corev1.PodTemplateSpec `json:"template"`
	Strategy                struct {
		Canary *struct {
			MaxSurge                   *intstr.IntOrString `json:"maxSurge,omitempty"`
			MaxUnavailable             *intstr.IntOrString `json:"maxUnavailable,omitempty"`
			ScaleDownDelaySeconds      *int32              `json:"scaleDownDelaySeconds,omitempty"`
			AbortScaleDownDelaySeconds *int32              `json:"abortScaleDownDelaySeconds,omitempty"`
			DynamicStableScale         *bool               `json:"dynamicStableScale,omitempty"`
			PingPong                   *struct {
				PingService string `json:"pingService"`
				PongService string `json:"pongService"`
			} `json:"pingPong,omitempty"`
			TrafficRouting map[string]json.RawMessage   `json:"trafficRouting,omitempty"`
			Steps          []map[string]json.RawMessage `json:"steps,omitempty"`
		} `json:"canary,omitempty"`
		BlueGreen *struct {
			ScaleDownDelaySeconds      *int32 `json:"scaleDownDelaySeconds,omitempty"`
			AbortScaleDownDelaySeconds *int32 `json:"abortScaleDownDelaySeconds,omitempty"`
		} `json:"blueGreen,omitempty"`
	} `json:"strategy"`
}

// argoRolloutPatch is an Argo Rollout patch as fixes write it.
type argoRolloutPatch struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       argoRolloutSpec   `json:"spec"`
}

// rolloutProblems checks an Argo Rollout patch: it decodes strictly into
// the fields a Rollout has (argoRolloutPatch), names the Rollout's
// apiVersion, and the Rollout after it keeps minReadySeconds below
// progressDeadlineSeconds and a valid pod template (podSpecProblems, its
// containers known when the Rollout was read).
func rolloutProblems(patchJSON, merged []byte, read bool) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	var p argoRolloutPatch
	if err := strictDecode(patchJSON, &p); err != nil {
		fail("the patch does not decode into a Rollout: %v", err)
	}
	if p.APIVersion != argoRolloutAPIVersion {
		fail("apiVersion %q, not %s", p.APIVersion, argoRolloutAPIVersion)
	}
	var r argoRolloutPatch
	if err := json.Unmarshal(merged, &r); err != nil {
		return append(problems, "the result does not decode into a Rollout: "+err.Error())
	}
	deadline := int32(defaultProgressDeadline)
	if r.Spec.ProgressDeadlineSeconds != nil {
		deadline = *r.Spec.ProgressDeadlineSeconds
	}
	if r.Spec.MinReadySeconds >= deadline {
		fail("minReadySeconds %d is not below progressDeadlineSeconds %d", r.Spec.MinReadySeconds, deadline)
	}
	if c := r.Spec.Strategy.Canary; c != nil && c.MaxSurge != nil && c.MaxUnavailable != nil && c.MaxSurge.String() == "0" && c.MaxUnavailable.String() == "0" {
		fail("canary maxSurge and maxUnavailable both 0")
	}
	return append(problems, podSpecProblems(&r.Spec.Template.Spec, read)...)
}

// asList returns v as a list; nil when it is not one.
func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// listsKept reports every list of orig that has fewer entries in merged:
// what a merge patch of a custom resource loses when it names a list with
// only the entries it changes.
func listsKept(path string, orig, merged any) []string {
	var problems []string
	switch o := orig.(type) {
	case map[string]any:
		m, _ := merged.(map[string]any)
		for k, v := range o {
			problems = append(problems, listsKept(path+"."+k, v, m[k])...)
		}
	case []any:
		m, _ := merged.([]any)
		if len(m) < len(o) {
			problems = append(problems, fmt.Sprintf("%s: %d entries became %d", path, len(o), len(m)))
		}
	}
	return problems
}

// variantFixes returns every fix readygap proposes for the objects of a
// variant: the static checks', and the retry, drain, scale-in,
// termination, probe and registration-lag fixes of an incident on each of
// its workloads — the targets check judges, and the Argo Rollouts, whose
// incidents analyze patches on the Rollout.
func variantFixes(t testing.TB, objs *Objects) []Fix {
	var fixes []Fix
	for _, r := range Check(objs) {
		fixes = append(fixes, r.Fixes...)
	}
	var wls []workload
	for _, tg := range objs.targetsOf() {
		wls = append(wls, tg.wl)
	}
	for _, c := range objs.ConfigsOf(correlate.KindArgoRollout) {
		wl := workloadOf(c).withServing(objs.ConfigsOf("Service")).withAutoscaler(objs.ConfigsOf("HorizontalPodAutoscaler"))
		wl.Kube = objs.KubeVersion
		wls = append(wls, wl)
	}
	for _, wl := range wls {
		var extra []Fix
		for _, p := range []sources.Platform{sources.PlatformIstio, sources.PlatformContour, sources.PlatformEnvoyGateway} {
			if f, ok := envoyRetryFix(objs, p, wl); ok {
				extra = append(extra, f)
			}
		}
		extra = append(extra, triggerFixes(nil, wl, correlate.Trigger{Kind: correlate.TriggerNodeDrain, Node: "ip-10-0-1-5"}, 12*time.Second, sources.FamilyALB)...)
		extra = append(extra, triggerFixes(nil, wl, correlate.Trigger{Kind: correlate.TriggerScaleIn}, 12*time.Second, sources.FamilyALB)...)
		extra = append(extra, terminationFixes(objs, wl, wl.Template, 12*time.Second, 0, 30, sources.FamilyEnvoy, sources.PlatformIstio)...)
		extra = append(extra, wrongProbePortFixes(wl, nil, "", 0, "", 20*time.Second)...)
		hc := workloadHealthCheck(objs, wl, sources.FamilyALB)
		plan := planMinReady(sources.FamilyALB, hc, wl)
		extra = append(extra, minReadyFix(plan.Basis, hc, plan.MinReady, wl, 40*time.Second))
		extra = append(extra, zoneSpreadFix(wl, []string{"us-east-1a", "us-east-1b", "us-east-1c"}, 0)...)
		extra = append(extra, rolloutStrategyFix(wl)...)
		finishFixes(extra)
		fixes = append(fixes, extra...)
	}
	return fixes
}

// TestEveryPatchAppliesCleanly is the proof of "valid by construction":
// every patch of every fixture's findings and static checks, of the
// manifests' static checks, and of the variants is decoded strictly,
// applied to the object as read with kubectl's merge, and checked.
func TestEveryPatchAppliesCleanly(t *testing.T) {
	count, templates, read := 0, 0, 0
	seen := map[string]bool{}
	check := func(where string, fixes []Fix, raw map[string]map[string]any) {
		for _, fix := range fixes {
			if fix.Patch == nil {
				continue
			}
			key := where + "\x00" + patchText(t, fix.Patch)
			if seen[key] {
				continue
			}
			seen[key] = true
			count++
			if fix.Template {
				templates++
			}
			if raw[patchKey(fix.Patch)] != nil {
				read++
			}
			for _, p := range patchProblems(fix, raw) {
				t.Errorf("%s: %q: %s\n%s", where, fix.Title, p, patchText(t, fix.Patch))
			}
		}
	}
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*"))
	sort.Strings(dirs)
	for _, dir := range dirs {
		switch filepath.Base(dir) {
		case "sim", "gen", "manifests":
			continue
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		a, findings := analyzeDir(t, dir)
		raw := rawObjects(t, dir)
		for _, f := range findings {
			check(filepath.Base(dir), f.Remediation, raw)
		}
		for _, r := range Check(NewObjects(a.Configs)) {
			check(filepath.Base(dir)+" (check)", r.Fixes, raw)
		}
	}
	manifests, _ := filepath.Glob(filepath.Join("..", "fixtures", "manifests", "*", "*"))
	variants, _ := filepath.Glob(filepath.Join("testdata", "variants", "*.yaml"))
	for _, p := range manifests {
		for _, r := range Check(objectsOfPaths(t, p)) {
			check(p, r.Fixes, rawObjects(t, p))
		}
	}
	for _, p := range variants {
		check(p, variantFixes(t, objectsOfPaths(t, p)), rawObjects(t, p))
		// Before Kubernetes 1.30 the preStop fixes are exec sleeps, and
		// must apply as cleanly; a sleep handler there is a defect.
		old := objectsOfPaths(t, p)
		old.KubeVersion = sources.KubeVersion{Major: 1, Minor: 29}
		fixes := variantFixes(t, old)
		check(p+" (1.29)", fixes, rawObjects(t, p))
		for _, fix := range fixes {
			if fix.Patch != nil && strings.Contains(patchJSON(t, fix.Patch), `"sleep":{"seconds"`) {
				t.Errorf("%s (1.29): %q uses the sleep handler, which 1.29 lacks", p, fix.Title)
			}
		}
	}
	if count < 100 || len(variants) < 4 {
		t.Errorf("%d patches from %d variants: the fixtures and variants were not all read", count, len(variants))
	}
	t.Logf("%d distinct patches checked: %d applied to the object as read, %d templates shown as such", count, read, templates)
}

// TestPatchValidatorCatches checks the check itself: each defect the
// issue found in emitted patches, written as a patch of the variants'
// objects, is caught; the same patch written right passes.
func TestPatchValidatorCatches(t *testing.T) {
	raw := rawObjects(t, filepath.Join("testdata", "variants"))
	web := workload{Namespace: "shop", Name: "web"}
	api := workload{Namespace: "shop", Name: "api"}
	container := func(wl workload, name string, fields map[string]any) Fix {
		return Fix{Patch: containerPatch(wl, name, fields)}
	}
	preStop := func(h map[string]any) map[string]any {
		return map[string]any{"lifecycle": map[string]any{"preStop": h}}
	}
	sleep := map[string]any{"sleep": map[string]any{"seconds": 15}}
	ingress := func(attr string) Fix {
		return Fix{Patch: objectPatch("networking.k8s.io/v1", "Ingress", "shop", "web", map[string]any{"annotations": map[string]any{annotationALBAttributes: attr}}, nil)}
	}
	proxy := func(routes ...any) Fix {
		return Fix{Patch: objectPatch("projectcontour.io/v1", "HTTPProxy", "shop", "shop", nil, map[string]any{"routes": routes})}
	}
	route := func(svc string) map[string]any {
		return map[string]any{"services": []any{map[string]any{"name": svc, "port": 80}}, "retryPolicy": contourRetry(nil)}
	}
	for _, c := range []struct {
		name string
		fix  Fix
		bad  bool
	}{
		{"a sleep beside the existing exec preStop", container(api, "api", preStop(sleep)), true},
		{"the exec preStop replaced", container(api, "api", preStop(map[string]any{"exec": map[string]any{"command": []any{"sh", "-c", "sleep 15 && kill -QUIT 1"}}})), false},
		{"a sleep on a container the object lacks", container(web, "web", preStop(sleep)), true},
		{"a sleep on the serving container", container(web, "app", preStop(sleep)), false},
		{"a tcpSocket beside the gRPC probe", container(api, "api", map[string]any{"readinessProbe": map[string]any{"tcpSocket": map[string]any{"port": 50051}}}), true},
		{"the gRPC probe on the serving port", container(api, "api", map[string]any{"readinessProbe": map[string]any{"grpc": map[string]any{"port": 50051}}}), false},
		{"minReadySeconds above the deadline", Fix{Patch: deploymentPatch(web, map[string]any{"minReadySeconds": 610})}, true},
		{"minReadySeconds with the deadline raised", Fix{Patch: deploymentPatch(web, map[string]any{"minReadySeconds": 610, "progressDeadlineSeconds": 670})}, false},
		{"rollingUpdate under Recreate", Fix{Patch: deploymentPatch(web, map[string]any{"strategy": map[string]any{"rollingUpdate": map[string]any{"maxUnavailable": 0}}})}, true},
		{"rollingUpdate with its type", Fix{Patch: deploymentPatch(web, map[string]any{"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 0}}})}, false},
		{"a Deployment patch of a StatefulSet", Fix{Patch: objectPatch("apps/v1", "Deployment", "shop", "db-api", nil, map[string]any{"minReadySeconds": 20})}, true},
		{"the StatefulSet patched as one", Fix{Patch: objectPatch("apps/v1", "StatefulSet", "shop", "db-api", nil, map[string]any{"minReadySeconds": 20})}, false},
		{"a placeholder presented as ready", Fix{Patch: objectPatch("v1", "Namespace", "", placeholderName("namespace"), map[string]any{"labels": map[string]any{"a": "b"}}, nil)}, true},
		{"the same, a template", Fix{Patch: objectPatch("v1", "Namespace", "", placeholderName("namespace"), nil, nil), Template: true, Why: applyNote(Fix{Template: true})}, false},
		{"a blocking minAvailable budget", Fix{Patch: objectPatch("policy/v1", "PodDisruptionBudget", "shop", "web", nil, map[string]any{"minAvailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}})}, true},
		{"a maxUnavailable budget", Fix{Patch: objectPatch("policy/v1", "PodDisruptionBudget", "shop", "web", nil, map[string]any{"maxUnavailable": 1, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}})}, false},
		{"the Istio annotation overwritten", Fix{Patch: deploymentPatch(api, map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": map[string]any{
			istioProxyConfigAnnotation: "terminationDrainDuration: 20s\n"}}}})}, true},
		{"the Istio annotation carried whole", Fix{Patch: deploymentPatch(api, map[string]any{"template": map[string]any{"metadata": map[string]any{"annotations": map[string]any{
			istioProxyConfigAnnotation: withProxyConfig("holdApplicationUntilProxyStarts: true\nproxyMetadata:\n  ISTIO_META_DNS_CAPTURE: \"true\"\n", "terminationDrainDuration", "20s")}}}})}, false},
		{"an HTTPProxy's routes cut to one", proxy(route("shop")), true},
		{"a route without services", proxy(map[string]any{"retryPolicy": contourRetry(nil)}, route("shop")), true},
		{"every route carried", proxy(route("static"), route("shop")), false},
		{"an ALB idle timeout of 4999 s", ingress("idle_timeout.timeout_seconds=4999"), true},
		{"an ALB idle timeout of 4000 s", ingress("idle_timeout.timeout_seconds=4000"), false},
		{"an unknown field", container(web, "app", map[string]any{"preStopSleep": 15}), true},
	} {
		got := patchProblems(c.fix, raw)
		if (len(got) > 0) != c.bad {
			t.Errorf("%s: problems %q, want bad=%v", c.name, got, c.bad)
		}
	}
}

// TestVariantsPatchTheServingContainer checks what the variants' fixes
// change: the container the Service sends to, not the proxy listed first;
// an existing hook replaced, its graceful stop kept; an HTTP hook shown as
// a template; a gRPC probe kept gRPC; the Istio annotation's other keys
// kept; Node.js's keep-alive in milliseconds; Recreate turned into
// RollingUpdate with its type, and said so; the deadline raised beside a
// minReadySeconds above it; the replicas of a workload an autoscaler
// scales set in the autoscaler, not in spec.replicas.
func TestVariantsPatchTheServingContainer(t *testing.T) {
	var all []Fix
	for _, v := range []string{"sidecar-first", "istio-hooks", "contour-native", "node-alb", "gke-hpa", "statefulset"} {
		all = append(all, variantFixes(t, objectsOfPaths(t, filepath.Join("testdata", "variants", v+".yaml")))...)
	}
	text := func(title, kind, name string) (string, Fix) {
		for _, f := range all {
			if f.Patch != nil && strings.HasPrefix(f.Title, title) && f.Patch["kind"] == kind && f.Patch["metadata"].(map[string]any)["name"] == name {
				return patchText(t, f.Patch), f
			}
		}
		t.Errorf("no fix %q of %s %s", title, kind, name)
		return "", Fix{}
	}
	for _, c := range []struct {
		title, kind, name string
		want, not         []string
		template          bool
	}{
		{"Delay SIGTERM", "Deployment", "web", []string{"name: app", "seconds: 15"}, []string{"cloud-sql-proxy"}, false},
		{"Keep idle connections open", "Deployment", "web", []string{"name: app", "--keep-alive", "- \"65\""}, []string{"cloud-sql-proxy", "--port=5432"}, false},
		{"Keep old pods", "Deployment", "web", []string{"minReadySeconds: 610", "progressDeadlineSeconds: 670"}, nil, false},
		{"Delay SIGTERM", "Deployment", "api", []string{"name: api", "- sleep 10 && kill -QUIT 1"}, []string{"istio-proxy", "sleep:"}, false},
		{"Probe the port that serves", "Deployment", "api", []string{"grpc:", "port: 50051"}, []string{"tcpSocket"}, false},
		{"Keep the Istio sidecar up", "Deployment", "api", []string{"holdApplicationUntilProxyStarts: true", "ISTIO_META_DNS_CAPTURE", "terminationDrainDuration"}, nil, false},
		{"Let Istio retry", "VirtualService", "api", []string{"name: reports", "host: reports", "name: main", "attempts:"}, nil, false},
		{"Let Contour retry", "HTTPProxy", "shop", []string{"name: static", "name: shop", "retryPolicy", "response: 15s"}, nil, false},
		{"Delay SIGTERM", "Deployment", "shop", []string{"name: shop", "httpGet: null", "sleep:"}, []string{"log-shipper"}, true},
		{"Keep idle connections open 4005 s", "Deployment", "web", []string{"KEEP_ALIVE_TIMEOUT", "\"4005000\""}, nil, false},
		{"Let a drain evict one pod at a time", "PodDisruptionBudget", "web", []string{"maxUnavailable: 1", "app: web", "tier: front"}, []string{"minAvailable"}, false},
		{"Spread the pods over the zones", "Deployment", "my-app", []string{"topologySpreadConstraints", "app: my-app"}, []string{"replicas"}, false},
		{"Delay SIGTERM", "StatefulSet", "db-api", []string{"name: db-api", "seconds: 15"}, nil, false},
		{"Probe the port that serves", "StatefulSet", "db-api", []string{"name: db-api", "port: http"}, []string{"9090"}, false},
		{"Let each new pod settle", "StatefulSet", "db-api", []string{"minReadySeconds: 25"}, []string{"maxSurge", "strategy"}, false},
		{"Let the autoscaler run at least 3 replicas", "HorizontalPodAutoscaler", "my-app-scaler", []string{"minReplicas: 3", "maxReplicas: 3"}, nil, false},
	} {
		got, fix := text(c.title, c.kind, c.name)
		if got == "" {
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s of %s %s lacks %q:\n%s", c.title, c.kind, c.name, w, got)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s of %s %s has %q:\n%s", c.title, c.kind, c.name, n, got)
			}
		}
		if fix.Template != c.template {
			t.Errorf("%s of %s %s: template %v, want %v", c.title, c.kind, c.name, fix.Template, c.template)
		}
	}
	if _, f := text("Roll out one pod at a time", "Deployment", "web"); !strings.Contains(f.Why, "Recreate strategy") || !strings.Contains(patchText(t, f.Patch), "type: RollingUpdate") {
		t.Errorf("the Recreate Deployment's strategy fix: %s\n%s", f.Why, patchText(t, f.Patch))
	}
	// The proxy's own preStop sleep does not keep the app serving.
	if risks := risksOf(Check(objectsOfPaths(t, filepath.Join("testdata", "variants", "sidecar-first.yaml"))), "termination_race/prestop", "web"); len(risks) != 1 {
		t.Errorf("%d preStop risks for the app behind a sleeping proxy, want 1", len(risks))
	}
	// The StatefulSet is judged and patched as one, never with the
	// Deployment's strategy, maxSurge or progressDeadlineSeconds.
	statefulSet := 0
	for _, f := range all {
		if f.Patch == nil || f.Patch["metadata"].(map[string]any)["name"] != "db-api" || !slices.Contains(workloadKinds, f.Patch["kind"].(string)) {
			continue
		}
		statefulSet++
		text := patchText(t, f.Patch)
		if f.Patch["kind"] != "StatefulSet" || strings.Contains(text, "maxSurge") || strings.Contains(text, "strategy") || strings.Contains(text, "progressDeadlineSeconds") {
			t.Errorf("a fix patches the StatefulSet as something else: %s\n%s", f.Title, text)
		}
		if strings.Contains(f.Why, "kubectl patch") && !strings.Contains(f.Why, "kubectl patch statefulset db-api") {
			t.Errorf("%s: the command does not name the StatefulSet: %s", f.Title, f.Why)
		}
	}
	if statefulSet == 0 {
		t.Error("no fix for the StatefulSet: check does not judge it")
	}
}

// patchJSON is a patch as compact JSON.
func patchJSON(t testing.TB, p Patch) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

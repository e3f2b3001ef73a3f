package classify

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Platform defaults, used when no object states the setting.
const (
	// gkeDefaultInterval and gkeDefaultHealthy are the health check GKE
	// Ingress creates for NEG backends without a BackendConfig: every 15 s,
	// healthy after one success (GKE Ingress docs, "Health checks").
	gkeDefaultInterval = 15
	gkeDefaultHealthy  = 1
	// albDefaultInterval and albDefaultHealthy are the AWS Load Balancer
	// Controller's target-group defaults: healthcheck-interval-seconds 15,
	// healthy-threshold-count 2 (its annotations reference).
	albDefaultInterval = 15
	albDefaultHealthy  = 2
	// defaultMaxUnavailable is a Deployment's rollingUpdate.maxUnavailable
	// when unset (the Kubernetes API default).
	defaultMaxUnavailable = correlate.DefaultRollingUpdate
	// defaultProgressDeadline is a Deployment's progressDeadlineSeconds
	// when unset (the Kubernetes API default); the API rejects a
	// minReadySeconds not below it.
	defaultProgressDeadline = 600
	// progressMargin is how much longer than minReadySeconds a fix makes
	// progressDeadlineSeconds when it must raise it: a minute for the new
	// pod to start and pass its probes before the clock would run out.
	progressMargin = 60
)

// progressDeadline is the workload's progressDeadlineSeconds (a
// Deployment's or an Argo Rollout's, both defaulting to 600 s), and where
// it comes from.
func (wl workload) progressDeadline() (int, string) {
	switch {
	case wl.ProgressDeadline != nil:
		return *wl.ProgressDeadline, readAt(wl.Origin)
	case wl.Known:
		return defaultProgressDeadline, "the API default: the spec read at " + wl.Origin.String() + " does not set it"
	}
	return defaultProgressDeadline, assumedDefault
}

// minReadySource says where the workload's minReadySeconds comes from.
func (wl workload) minReadySource() string {
	if wl.Known {
		return readAt(wl.Origin)
	}
	return assumedDefault
}

// withMinReady adds minReadySeconds to a workload spec patch, and, when
// it would not be below progressDeadlineSeconds (which the API rejects),
// progressDeadlineSeconds raised above it; the note says so ("" when not).
func withMinReady(wl workload, spec map[string]any, minReady int) (map[string]any, string) {
	spec["minReadySeconds"] = minReady
	if wl.Kind == "StatefulSet" {
		// A StatefulSet has no progressDeadlineSeconds to stay below.
		return spec, ""
	}
	deadline, from := wl.progressDeadline()
	if minReady < deadline {
		return spec, ""
	}
	spec["progressDeadlineSeconds"] = minReady + progressMargin
	return spec, fmt.Sprintf(" progressDeadlineSeconds (%d s, %s) must stay above minReadySeconds, or the API rejects the change: raise it to %d s; a faster health check, which needs a shorter minReadySeconds, is the better change where it can be made.",
		deadline, from, minReady+progressMargin)
}

// strategyNote says what a patch that sets a RollingUpdate strategy
// changes of a Recreate Deployment; "" for any other.
func strategyNote(wl workload) string {
	if wl.Strategy != "Recreate" {
		return ""
	}
	return fmt.Sprintf(" The Deployment uses the Recreate strategy (%s): this changes it to RollingUpdate, so old and new pods run side by side during a rollout; keep Recreate only if they must not (a ReadWriteOnce volume, a schema migration), and accept the gap it leaves.", readAt(wl.Origin))
}

// workload is what is known about the Deployment behind a rollout.
type workload struct {
	Namespace, Name string
	// Replicas is spec.replicas; 0 when unknown.
	Replicas        int
	MinReadySeconds int
	MaxSurge        string
	MaxUnavailable  string
	// Template is the pod template; nil when unknown.
	Template *sources.PodSpec
	// Known is true when a Deployment object was read.
	Known bool
	// Kind is the workload's kind (Deployment when unset); Origin where
	// its object was read (zero when not read).
	Kind   string
	Origin sources.Origin
	// Strategy is spec.strategy.type as written ("" when unset).
	Strategy string
	// TemplateLabels are the pod template's labels; Selector is
	// spec.selector.matchLabels (nil when unknown).
	TemplateLabels, Selector map[string]string
	// ProgressDeadline is spec.progressDeadlineSeconds; nil when unset or
	// unknown (the API default, defaultProgressDeadline, applies).
	ProgressDeadline *int
	// Serving is the container that serves the traffic and ServingWhy how
	// it was found (trafficContainer); "" when unknown.
	Serving, ServingWhy string
	// Autoscaler is the HorizontalPodAutoscaler that scales the workload;
	// nil when none was read. It, not spec.replicas, sets the replicas.
	Autoscaler *sources.Config
	// Kube is the cluster's Kubernetes version; zero when unknown.
	Kube sources.KubeVersion
}

// placeholderName stands for an object whose name no record gives; fixes
// keep it visible so that a reader fills it in.
func placeholderName(kind string) string { return "<" + strings.ToLower(kind) + ">" }

// replicaSetOwners are the kinds that own the ReplicaSets a rollout's
// pods belong to, in the order a workload's name is looked up among the
// objects read; a StatefulSet owns its pods itself (statefulSetOfPods).
var replicaSetOwners = []string{"Deployment", correlate.KindArgoRollout}

// findWorkload finds the workload behind a finding: its rollout's
// workload (a Deployment, or the Argo Rollout correlate names), else the
// StatefulSet that owns the failing pods (by their ownerReferences, or
// their names NAME-ORDINAL), else the one Deployment object read, else the
// one whose pods failed. A workload not read keeps the kind its records
// give (a Rollout's events, a pod's StatefulSet owner), else a
// Deployment's, and its name from the records, else a placeholder.
func findWorkload(a *correlate.Analysis, r *correlate.Rollout, refs []BackendRef) workload {
	ns, name, kind := "", "", ""
	if r != nil {
		ns, name = r.Namespace, r.Workload
		if r.Kind == correlate.KindArgoRollout {
			kind = r.Kind
		}
	}
	if name == "" {
		for _, ref := range refs {
			if ref.Of != nil && ref.Of.Workload != "" {
				ns, name = ref.Of.Namespace, ref.Of.Workload
				break
			}
		}
	}
	if name == "" {
		c, owner := statefulSetOfPods(a, refs)
		switch {
		case c != nil:
			return knownWorkload(a, c)
		case owner.Name != "":
			// A pod read names its StatefulSet, which was not read.
			return workload{Namespace: owner.Namespace, Name: owner.Name, Kind: "StatefulSet", Kube: a.Opts.KubeVersion}
		}
	}
	for _, k := range replicaSetOwners {
		if kind != "" && k != kind {
			continue
		}
		objs := a.ConfigsOf(k)
		for _, c := range objs {
			if (c.Name == name && (ns == "" || c.Namespace == ns)) || (name == "" && k == "Deployment" && len(objs) == 1) {
				return knownWorkload(a, c)
			}
		}
	}
	if name == "" {
		name = placeholderName(cmp.Or(kind, "Deployment"))
	}
	return workload{Namespace: ns, Name: name, Kind: kind, Kube: a.Opts.KubeVersion}
}

// knownWorkload is what the workload object c read says, with its serving
// container, autoscaler and the cluster's version.
func knownWorkload(a *correlate.Analysis, c *sources.Config) workload {
	wl := workloadOf(c).withServing(a.ConfigsOf("Service")).withAutoscaler(a.ConfigsOf("HorizontalPodAutoscaler"))
	wl.Kube = a.Opts.KubeVersion
	return wl
}

// statefulSetOfPods returns the StatefulSet read that owns the failing
// pods: the owner a pod object read names, else the one whose name and an
// ordinal make a pod's name (the StatefulSet controller names its pods
// NAME-ORDINAL); nil when none does. owner is the StatefulSet a pod read
// names as its owner, whether or not that StatefulSet was read (zero
// when no pod read names one).
func statefulSetOfPods(a *correlate.Analysis, refs []BackendRef) (c *sources.Config, owner workload) {
	owners := map[string]string{}
	for _, p := range a.ConfigsOf("Pod") {
		if p.Pod != nil && p.Pod.StatefulSet != "" {
			owners[p.Namespace+"/"+p.Name] = p.Pod.StatefulSet
		}
	}
	sets := a.ConfigsOf("StatefulSet")
	for _, ref := range refs {
		if ref.Of == nil || ref.Of.Pod == "" {
			continue
		}
		name := owners[ref.Of.Namespace+"/"+ref.Of.Pod]
		if name != "" && owner.Name == "" {
			owner = workload{Namespace: ref.Of.Namespace, Name: name}
		}
		if name == "" {
			name = statefulSetName(ref.Of.Pod)
		}
		for _, c := range sets {
			if c.Name == name && (ref.Of.Namespace == "" || c.Namespace == ref.Of.Namespace) {
				return c, owner
			}
		}
	}
	return nil, owner
}

// statefulSetName is the StatefulSet a pod's name NAME-ORDINAL makes; ""
// when the name does not end in a dash and an ordinal.
func statefulSetName(pod string) string {
	i := strings.LastIndexByte(pod, '-')
	if i <= 0 || i == len(pod)-1 {
		return ""
	}
	for _, ch := range pod[i+1:] {
		if ch < '0' || ch > '9' {
			return ""
		}
	}
	return pod[:i]
}

// workloadOf is what a Deployment object says about its rollouts.
func workloadOf(c *sources.Config) workload {
	wl := workload{Namespace: c.Namespace, Name: c.Name, Known: true, Kind: c.Kind, Origin: c.Origin}
	if c.Workload != nil {
		wl.Strategy, wl.TemplateLabels, wl.Selector = c.Workload.Strategy, c.Workload.TemplateLabels, c.Workload.Selector
		wl.ProgressDeadline = c.Workload.ProgressDeadlineSec
		if c.Workload.Replicas != nil {
			wl.Replicas = *c.Workload.Replicas
		}
		wl.MinReadySeconds = c.Workload.MinReadySeconds
		wl.MaxSurge, wl.MaxUnavailable = c.Workload.MaxSurge, c.Workload.MaxUnavailable
		wl.Template = c.Workload.Template
	}
	return wl
}

// withServing returns the workload with its serving container found among
// the Services (trafficContainer).
func (wl workload) withServing(services []*sources.Config) workload {
	wl.Serving, wl.ServingWhy = trafficContainer(services, wl)
	return wl
}

// withAutoscaler returns the workload with the HorizontalPodAutoscaler
// among objs that scales it.
func (wl workload) withAutoscaler(objs []*sources.Config) workload {
	for _, c := range objs {
		if a := c.Autoscaler; a != nil && c.Namespace == wl.Namespace && a.TargetName == wl.Name && a.TargetKind == cmp.Or(wl.Kind, "Deployment") {
			wl.Autoscaler = c
			return wl
		}
	}
	return wl
}

// servingFromPod returns the workload with its serving container found in
// the spec of a pod read (its only container, or its only one that is not
// a known proxy), when the workload's own objects did not say.
func (wl workload) servingFromPod(spec *sources.PodSpec) workload {
	if wl.Serving != "" || spec == nil {
		return wl
	}
	var regular, apps []string
	for _, c := range spec.Containers {
		if !c.Sidecar {
			regular = append(regular, c.Name)
			if !proxySidecars[c.Name] {
				apps = append(apps, c.Name)
			}
		}
	}
	switch {
	case len(regular) == 1:
		wl.Serving, wl.ServingWhy = regular[0], fmt.Sprintf("container %s is the only container of the pods read", regular[0])
	case len(apps) == 1:
		wl.Serving, wl.ServingWhy = apps[0], fmt.Sprintf("assumed: container %s serves the traffic, as no Service read names its port and the pods' other containers are proxies", apps[0])
	}
	return wl
}

// healthCheck is the load balancer's health-check timing as an object
// states it or the platform defaults it.
type healthCheck struct {
	IntervalSec, HealthyThreshold int
	// JitterSec is the longest wait before a new backend's first check
	// (Envoy's initial jitter); 0 elsewhere.
	JitterSec int
	// Object is the object the numbers came from (Kind, namespace, name);
	// Kind is "" when they are the platform's defaults, "none" when the
	// proxy runs no active check. For ALB annotations it is the object of
	// highest precedence that set one.
	Kind, Namespace, Name string
	// Also names the other object whose annotations set a number ("Ingress
	// shop/web"), when the Service's annotations left it to the Ingress's;
	// "" otherwise.
	Also string
	// BackendConfig is, behind Google's load balancer, the BackendConfig
	// the path's Service names, where a faster check is set; zero elsewhere
	// or when none is named.
	BackendConfig backendConfigRef
	// policy is the Envoy Gateway BackendTrafficPolicy the numbers came
	// from; nil elsewhere.
	policy *sources.Config
	// none says, for Kind "none", how the proxy starts sending to a new
	// endpoint without a check; "" for Envoy's control plane.
	none string
}

// Time is how long a new backend needs at the least to pass the health check.
func (h healthCheck) Time() time.Duration {
	return time.Duration(h.JitterSec+h.IntervalSec*h.HealthyThreshold) * time.Second
}

// Source says where the numbers came from, for a reader.
func (h healthCheck) Source() string {
	switch {
	case h.Kind == "none" && h.none != "":
		return "no active health check: " + h.none
	case h.Kind == "none":
		return "no active health check: Envoy sends to an endpoint as soon as the control plane hands it over"
	case h.Kind == "TargetGroupBinding":
		return fmt.Sprintf("AWS's defaults for a target group made outside Kubernetes, as TargetGroupBinding %s/%s binds (%d s × %d)", h.Namespace, h.Name, h.IntervalSec, h.HealthyThreshold)
	case h.Kind == "BackendConfig" || h.Kind == "BackendTrafficPolicy":
		return fmt.Sprintf("%s %s/%s", h.Kind, h.Namespace, h.Name)
	case h.Kind != "" && h.Also != "":
		return fmt.Sprintf("the %s %s/%s and %s annotations", h.Kind, h.Namespace, h.Name, h.Also)
	case h.Kind != "":
		return fmt.Sprintf("the %s %s/%s annotations", h.Kind, h.Namespace, h.Name)
	}
	return fmt.Sprintf("the platform defaults (%d s × %d; %s)", h.IntervalSec, h.HealthyThreshold, assumedDefault)
}

// workloadHealthCheck is the health check the load balancer or proxy of
// the family runs on the workload's new backends: resolved for each path
// the objects link to the workload (pathHealthCheck) or, when they link
// none, for each path they hold to any Service, the slowest of them, so
// that a fix sized on it covers every path; without any path, what the
// objects of the family state alone (loneHealthCheck). After an incident
// the rules read it here and before a deploy the static checks read
// pathHealthCheck, so that both size their fixes on the same numbers.
func workloadHealthCheck(objs *Objects, wl workload, family sources.Family) healthCheck {
	paths := familyFronts(workloadFronts(objs, wl), family)
	if len(paths) == 0 {
		paths = familyFronts(objs.paths(), family)
	}
	if len(paths) == 0 {
		return loneHealthCheck(objs, family)
	}
	var out healthCheck
	for i, f := range paths {
		if h := pathHealthCheck(f); i == 0 || h.Time() > out.Time() {
			out = h
		}
	}
	return out
}

// familyFronts returns the fronts of one family, in order.
func familyFronts(fronts []front, family sources.Family) []front {
	var out []front
	for _, f := range fronts {
		if f.Family == family {
			out = append(out, f)
		}
	}
	return out
}

// pathHealthCheck is the health check the load balancer or proxy of one
// path runs on new backends, as its controller settles it:
//
//   - ALB: each number from the Service's annotation, else the Ingress's,
//     else the controller's default, number by number (the controller
//     merges the two objects' annotations with the Service's first,
//     docs/guide/ingress/annotations.md: "Annotations applied to Service
//     have higher priority over annotations applied to Ingress"); a target
//     group made outside the cluster, which a TargetGroupBinding of its own
//     binds, has AWS's defaults;
//   - Google's load balancer: the BackendConfig the Service names for the
//     path's port (pathBackendConfig), else GKE's defaults;
//   - Envoy Gateway: the BackendTrafficPolicy that applies to the route
//     (envoyPolicyFor); Kind "none" without an active check.
//
// Other families get GKE's defaults, as no object of theirs says more.
// Each platform answers for its own (platform.pathHealthCheck).
func pathHealthCheck(f front) healthCheck { return f.platform().pathHealthCheck(f) }

// albHealthCheckOf settles an ALB path's health check (see pathHealthCheck).
func albHealthCheckOf(f front) healthCheck {
	if f.Via != nil && f.Via.Kind == "TargetGroupBinding" && !albMadeBinding(f.Via) {
		return healthCheck{IntervalSec: awsTargetGroupInterval, HealthyThreshold: awsTargetGroupHealthy, Kind: f.Via.Kind, Namespace: f.Via.Namespace, Name: f.Via.Name}
	}
	var holders []*sources.Config // in the controller's precedence
	if f.Service != nil {
		holders = append(holders, f.Service)
	}
	if f.Via != nil && f.Via.Kind == "Ingress" {
		holders = append(holders, f.Via)
	}
	return albAnnotationsHealthCheck(holders)
}

// albAnnotationsHealthCheck is the health check the ALB annotations of
// holders set, each number from the first holder that sets it, over the
// controller's defaults.
func albAnnotationsHealthCheck(holders []*sources.Config) healthCheck {
	h := healthCheck{IntervalSec: albDefaultInterval, HealthyThreshold: albDefaultHealthy}
	used := map[*sources.Config]bool{}
	take := func(dst *int, pick func(*sources.LBHealthCheck) *int) {
		for _, c := range holders {
			if c.HealthCheck != nil && pick(c.HealthCheck) != nil {
				*dst, used[c] = *pick(c.HealthCheck), true
				return
			}
		}
	}
	take(&h.IntervalSec, func(hc *sources.LBHealthCheck) *int { return hc.IntervalSec })
	take(&h.HealthyThreshold, func(hc *sources.LBHealthCheck) *int { return hc.HealthyThreshold })
	for _, c := range holders {
		switch {
		case !used[c]:
		case h.Kind == "":
			h.Kind, h.Namespace, h.Name = c.Kind, c.Namespace, c.Name
		default:
			h.Also = c.Kind + " " + c.Namespace + "/" + c.Name
		}
	}
	return h
}

// albMadeBinding reports whether the AWS Load Balancer Controller made a
// TargetGroupBinding for an Ingress: it labels those with the Ingress's
// stack (pkg/deploy/tracking/provider.go), and their target groups take
// the Ingress's and Service's annotations.
func albMadeBinding(tgb *sources.Config) bool {
	return hasKeyPrefix(tgb.Labels, albStackLabelPrefix)
}

// gkeHealthCheckOf is the health check Google's load balancer runs for a
// path whose Service names bc: the BackendConfig's spec.healthCheck, over
// GKE's defaults.
func gkeHealthCheckOf(bc backendConfigRef) healthCheck {
	h := healthCheck{IntervalSec: gkeDefaultInterval, HealthyThreshold: gkeDefaultHealthy, BackendConfig: bc}
	c := bc.Config
	if c == nil || c.HealthCheck == nil || (c.HealthCheck.IntervalSec == nil && c.HealthCheck.HealthyThreshold == nil) {
		return h
	}
	if c.HealthCheck.IntervalSec != nil {
		h.IntervalSec = *c.HealthCheck.IntervalSec
	}
	if c.HealthCheck.HealthyThreshold != nil {
		h.HealthyThreshold = *c.HealthCheck.HealthyThreshold
	}
	h.Kind, h.Namespace, h.Name = c.Kind, c.Namespace, c.Name
	return h
}

// loneHealthCheck is the health check of the family when the objects hold
// no path to a Service: the slowest that an object of the family states
// taken alone (an Ingress's or Service's ALB annotations, a
// BackendConfig), else the platform's defaults; for Envoy Gateway, the
// first BackendTrafficPolicy (platform.loneHealthCheck).
func loneHealthCheck(objs *Objects, family sources.Family) healthCheck {
	return platformFor(family).loneHealthCheck(objs)
}

// backendConfigsHealthCheck is the slowest health check a BackendConfig
// read states, else GKE's defaults. A BackendConfig among several is
// nobody's in particular: its numbers count, but a fix does not patch it.
func backendConfigsHealthCheck(objs *Objects) healthCheck {
	var candidates []healthCheck
	bcs := objs.ConfigsOf("BackendConfig")
	for _, c := range bcs {
		h := gkeHealthCheckOf(backendConfigRef{Namespace: c.Namespace, Name: c.Name, Config: c})
		if len(bcs) > 1 {
			h.BackendConfig = backendConfigRef{}
		}
		candidates = append(candidates, h)
	}
	if len(candidates) == 0 {
		return gkeHealthCheckOf(backendConfigRef{})
	}
	return slowestHealthCheck(candidates)
}

// slowestHealthCheck returns the candidate that takes longest to pass a
// new backend, the first of those tied.
func slowestHealthCheck(candidates []healthCheck) healthCheck {
	out := candidates[0]
	for _, h := range candidates[1:] {
		if h.Time() > out.Time() {
			out = h
		}
	}
	return out
}

// backendConfigRef names a BackendConfig of a path from Google's load
// balancer: the one its Service's cloud.google.com/backend-config
// annotation names, which exists in the cluster whether or not it was
// read. Config is the object when it was read, nil otherwise; Name is ""
// when no BackendConfig is named.
type backendConfigRef struct {
	Namespace, Name string
	Config          *sources.Config
}

// known reports whether a BackendConfig is named.
func (r backendConfigRef) known() bool { return r.Name != "" }

// patchTarget returns the namespace and name a fix patches: the named
// BackendConfig, else the workload's namespace and a placeholder.
func (r backendConfigRef) patchTarget(wl workload) (string, string) {
	if !r.known() {
		return wl.Namespace, placeholderName("BackendConfig")
	}
	return r.Namespace, r.Name
}

// pathBackendConfig is the BackendConfig of one path from Google's load
// balancer: the one read for its Service and port (see backendConfigFor),
// else the one the Service's annotation names for the port
// (backendConfigName) though it was not read; zero when none is named.
func pathBackendConfig(f front) backendConfigRef {
	if f.Objects != nil {
		if bcs := f.Objects.ConfigsOf("BackendConfig"); len(bcs) > 0 {
			return backendConfigRef{Namespace: bcs[0].Namespace, Name: bcs[0].Name, Config: bcs[0]}
		}
	}
	if f.Service != nil && f.Service.Service != nil {
		if n := backendConfigName(f.Service, f.Port); n != "" {
			return backendConfigRef{Namespace: f.Service.Namespace, Name: n}
		}
	}
	return backendConfigRef{}
}

// backendConfigOfPaths is the BackendConfig of the paths from Google's
// load balancer among fronts: the first that was read, else the first
// named; zero when none is named. After an incident (backendConfigOf) and
// before a deploy the fixes patch the object it names.
func backendConfigOfPaths(fronts []front) backendConfigRef {
	var named backendConfigRef
	for _, f := range gcpFronts(fronts) {
		ref := pathBackendConfig(f)
		if ref.Config != nil {
			return ref
		}
		if !named.known() {
			named = ref
		}
	}
	return named
}

// backendConfigOf returns the BackendConfig of the paths from Google's
// load balancer to the workload (backendConfigOfPaths). Objects that do
// not link the workload to a Service leave only a BackendConfig read alone
// surely its; zero when none is known.
func backendConfigOf(objs *Objects, wl workload) backendConfigRef {
	if fronts := gcpFronts(workloadFronts(objs, wl)); len(fronts) > 0 {
		return backendConfigOfPaths(fronts)
	}
	if bcs := objs.ConfigsOf("BackendConfig"); len(bcs) == 1 {
		return backendConfigRef{Namespace: bcs[0].Namespace, Name: bcs[0].Name, Config: bcs[0]}
	}
	return backendConfigRef{}
}

// ceilSeconds rounds a duration up to whole seconds.
func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
	"github.com/valyala/fastjson"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// k8sObjects reads Kubernetes objects (kubectl get -o json/yaml, API lists,
// support bundles): Pods, Deployments, ReplicaSets, Services, Namespaces,
// EndpointSlices, Ingresses, IngressClasses, HorizontalPodAutoscalers, the BackendConfig,
// TargetGroupBinding and IngressClassParams CRDs,
// and the objects of Envoy-based gateways (k8s_objects_mesh.go). Each
// object becomes one Config fact; a Pod's status also yields Lifecycle
// records (created, scheduled, ready, readiness gates, container starts,
// termination). Argo Rollouts and Flagger Canaries are read in
// k8s_objects_rollout.go. Objects of other kinds are ignored.
type k8sObjects struct{}

// Format reports FormatK8sObjects.
func (k8sObjects) Format() Format { return FormatK8sObjects }

// MatchJSON accepts an element with apiVersion, kind and metadata that is
// neither an Event nor a Cloud Logging entry.
func (k8sObjects) MatchJSON(elem []byte) bool {
	return bytes.Contains(elem, []byte(`"apiVersion"`)) &&
		bytes.Contains(elem, []byte(`"kind"`)) &&
		bytes.Contains(elem, []byte(`"metadata"`)) &&
		!bytes.Contains(elem, []byte(`"logName"`)) &&
		!bytes.Contains(elem, []byte(`"involvedObject"`)) &&
		!hasKindEvent(elem)
}

// ParseJSON decodes one object and reports its facts. The object is parsed
// once with fastjson: its kind is read from that tree, and so is a Pod
// (see treeDecoders); the other kinds are decoded with encoding/json.
func (k8sObjects) ParseJSON(elem []byte, o Origin, out *Emitter) error {
	st := k8sStates.Get().(*k8sState)
	defer k8sStates.Put(st)
	v, err := st.p.ParseBytes(elem)
	if err != nil || v.GetObject() == nil {
		return errors.New("invalid JSON object")
	}
	tm, err := typeMeta(v, st)
	switch {
	case err != nil:
		return errors.New("invalid JSON object")
	case tm.Kind == "" || tm.APIVersion == "":
		return errors.New("not a Kubernetes object: no apiVersion or kind")
	case tm.Kind == "Event":
		return errors.New("an Event, not an object") // the k8s-events adapter reads it
	}
	key := objectKey{group(tm.APIVersion), tm.Kind}
	c := Config{Kind: tm.Kind, Format: FormatK8sObjects, Origin: o}
	if decode := treeDecoders[key]; decode != nil {
		err = decode(v, st, &c, out)
	} else if decode := objectDecoders[key]; decode != nil {
		err = decode(elem, &c, out)
	} else {
		return nil // a kind the rules do not need
	}
	if err != nil {
		return errors.New(tm.Kind + ": " + shortError(err))
	}
	return nil
}

// typeMetaFields are the JSON names of metav1.TypeMeta's fields.
var typeMetaFields = []string{"apiVersion", "kind"}

// typeMeta reads an object's apiVersion and kind as encoding/json would
// decode them into metav1.TypeMeta.
func typeMeta(v *fastjson.Value, st *k8sState) (metav1.TypeMeta, error) {
	var tm metav1.TypeMeta
	d := podDecoder{st: st}
	d.fields(v, "", "v1.TypeMeta", typeMetaFields, func(name string, v *fastjson.Value) {
		switch name {
		case "apiVersion":
			d.str(v, name, &tm.APIVersion)
		case "kind":
			d.str(v, name, &tm.Kind)
		}
	})
	return tm, d.err
}

// objectKey identifies a kind by API group ("" for core) and kind.
type objectKey struct{ group, kind string }

// treeDecoders decode one object of a kind from its fastjson tree into c
// and emit what it holds: the kinds a cluster has by the thousand.
var treeDecoders = map[objectKey]func(v *fastjson.Value, st *k8sState, c *Config, out *Emitter) error{
	{"", "Pod"}: decodePod,
}

// objectDecoders decode one object of a kind with encoding/json into c and
// emit what it holds.
var objectDecoders = map[objectKey]func(elem []byte, c *Config, out *Emitter) error{
	{"", "Service"}:                            decodeService,
	{"", "Namespace"}:                          decodeNamespace,
	{"apps", "Deployment"}:                     decodeDeployment,
	{"apps", "ReplicaSet"}:                     decodeReplicaSet,
	{"discovery.k8s.io", "EndpointSlice"}:      decodeEndpointSlice,
	{"networking.k8s.io", "Ingress"}:           decodeIngress,
	{"networking.k8s.io", "IngressClass"}:      decodeIngressClass,
	{"cloud.google.com", "BackendConfig"}:      decodeBackendConfig,
	{"elbv2.k8s.aws", "TargetGroupBinding"}:    decodeTargetGroupBinding,
	{"elbv2.k8s.aws", "IngressClassParams"}:    decodeIngressClassParams,
	{"", "ConfigMap"}:                          decodeConfigMap,
	{"autoscaling", "HorizontalPodAutoscaler"}: decodeAutoscaler,
	{"apps", "StatefulSet"}:                    decodeStatefulSet,
	// Workload kinds the rules do not judge: read by name only, so that
	// check names them instead of passing over them in silence.
	{"apps", "DaemonSet"}: decodeNameOnly,
	// Progressive delivery (k8s_objects_rollout.go).
	{"argoproj.io", "Rollout"}: decodeRollout,
	{"flagger.app", "Canary"}:  decodeFlaggerCanary,
	// Envoy-based gateways and meshes (k8s_objects_mesh.go).
	{"gateway.networking.k8s.io", "Gateway"}:          decodeGateway,
	{"gateway.networking.k8s.io", "HTTPRoute"}:        decodeHTTPRoute,
	{"gateway.envoyproxy.io", "BackendTrafficPolicy"}: decodeBackendTrafficPolicy,
	{"networking.istio.io", "DestinationRule"}:        decodeDestinationRule,
	{"networking.istio.io", "VirtualService"}:         decodeVirtualService,
	{"projectcontour.io", "HTTPProxy"}:                decodeHTTPProxy,
	// Traefik, v3's group and v2's (k8s_objects_traefik.go).
	{"traefik.io", "IngressRoute"}:              decodeIngressRoute,
	{"traefik.containo.us", "IngressRoute"}:     decodeIngressRoute,
	{"traefik.io", "Middleware"}:                decodeTraefikMiddleware,
	{"traefik.containo.us", "Middleware"}:       decodeTraefikMiddleware,
	{"traefik.io", "ServersTransport"}:          decodeServersTransport,
	{"traefik.containo.us", "ServersTransport"}: decodeServersTransport,
}

// group returns the API group of an apiVersion ("apps/v1" → "apps", "v1" → "").
func group(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// shortError trims a decoding error to a short reason.
func shortError(err error) string {
	s := strings.TrimPrefix(err.Error(), "json: ")
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// objectTime returns an object time in UTC (metav1.Time decodes to local time).
func objectTime(t metav1.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// setMeta copies the object metadata every fact carries.
func setMeta(c *Config, m *metav1.ObjectMeta) {
	c.Namespace = m.Namespace
	c.Name = m.Name
	c.Created = objectTime(m.CreationTimestamp)
	c.Labels = m.Labels
}

// decodePod reads a Pod from its tree (see podDecoder).
func decodePod(v *fastjson.Value, st *k8sState, c *Config, out *Emitter) error {
	var p corev1.Pod
	d := podDecoder{st: st}
	d.pod(v, &p)
	if d.err != nil {
		return d.err
	}
	reportPod(&p, c, st, out)
	return nil
}

// reportPod reports a pod's facts and the lifecycle its status tells, made
// in st's record. The pods of one template have equal specs and labels:
// they share one of each (see specTable), looked up by a key written in
// st's buffer.
func reportPod(p *corev1.Pod, c *Config, st *k8sState, out *Emitter) {
	setMeta(c, &p.ObjectMeta)
	c.Labels = out.specs.shareLabels(c.Labels, &st.key)
	spec := podSpecFacts(&p.Spec)
	spec.Istio = istioSidecarFacts(p.Annotations, &p.Spec)
	c.PodSpec = out.specs.share(spec, &st.key)
	c.Pod = podStatusFacts(p)
	out.Config(c)
	emitPodLifecycle(c, &st.lifecycle, out)
}

func decodeDeployment(elem []byte, c *Config, out *Emitter) error {
	var d appsv1.Deployment
	if err := json.Unmarshal(elem, &d); err != nil {
		return err
	}
	setMeta(c, &d.ObjectMeta)
	w := workloadFacts(&d.ObjectMeta, d.Spec.Replicas, d.Spec.MinReadySeconds, d.Spec.Selector, &d.Spec.Template)
	w.Strategy = string(d.Spec.Strategy.Type)
	if d.Spec.ProgressDeadlineSeconds != nil {
		n := int(*d.Spec.ProgressDeadlineSeconds)
		w.ProgressDeadlineSec = &n
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		w.MaxSurge = intOrStringText(ru.MaxSurge)
		w.MaxUnavailable = intOrStringText(ru.MaxUnavailable)
	}
	c.Workload = w
	out.Config(c)
	return nil
}

// decodeStatefulSet reads a StatefulSet as a workload: its pod template,
// replicas and minReadySeconds, and spec.updateStrategy.type as its
// strategy (RollingUpdate or OnDelete). It has no maxSurge and no
// progressDeadlineSeconds, so those stay unset.
func decodeStatefulSet(elem []byte, c *Config, out *Emitter) error {
	var ss appsv1.StatefulSet
	if err := json.Unmarshal(elem, &ss); err != nil {
		return err
	}
	setMeta(c, &ss.ObjectMeta)
	w := workloadFacts(&ss.ObjectMeta, ss.Spec.Replicas, ss.Spec.MinReadySeconds, ss.Spec.Selector, &ss.Spec.Template)
	w.Strategy = string(ss.Spec.UpdateStrategy.Type)
	c.Workload = w
	out.Config(c)
	return nil
}

// decodeNameOnly reads an object's metadata only: a kind whose spec no
// rule reads, emitted so that what was read is said (Workload stays nil).
func decodeNameOnly(elem []byte, c *Config, out *Emitter) error {
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(elem, &obj); err != nil {
		return err
	}
	setMeta(c, &obj.Metadata)
	out.Config(c)
	return nil
}

func decodeReplicaSet(elem []byte, c *Config, out *Emitter) error {
	var rs appsv1.ReplicaSet
	if err := json.Unmarshal(elem, &rs); err != nil {
		return err
	}
	setMeta(c, &rs.ObjectMeta)
	w := workloadFacts(&rs.ObjectMeta, rs.Spec.Replicas, rs.Spec.MinReadySeconds, rs.Spec.Selector, &rs.Spec.Template)
	w.Deployment = ownerName(rs.OwnerReferences, "Deployment")
	w.PodTemplateHash = rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	if w.PodTemplateHash == "" {
		w.PodTemplateHash = w.Selector[appsv1.DefaultDeploymentUniqueLabelKey]
	}
	if w.Deployment == "" {
		// A ReplicaSet of an Argo Rollout: owned by the Rollout, labelled
		// with its own hash label and revision annotation.
		if w.Rollout = ownerName(rs.OwnerReferences, "Rollout"); w.Rollout != "" {
			w.PodTemplateHash = rs.Labels[RolloutLabelPodTemplateHash]
			w.Revision = rs.Annotations["rollout.argoproj.io/revision"]
		}
	}
	c.Workload = w
	out.Config(c)
	return nil
}

// workloadFacts collects what Deployments and ReplicaSets share.
func workloadFacts(m *metav1.ObjectMeta, replicas *int32, minReady int32, sel *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec) *Workload {
	w := &Workload{
		MinReadySeconds: int(minReady),
		Revision:        m.Annotations["deployment.kubernetes.io/revision"],
		TemplateLabels:  tmpl.Labels,
		Template:        podSpecFacts(&tmpl.Spec),
	}
	w.Template.Istio = istioSidecarFacts(tmpl.Annotations, &tmpl.Spec)
	if replicas != nil {
		n := int(*replicas)
		w.Replicas = &n
	}
	if sel != nil {
		w.Selector = sel.MatchLabels
	}
	return w
}

// intOrStringText renders an IntOrString as written; "" when nil.
func intOrStringText(v *intstr.IntOrString) string {
	if v == nil {
		return ""
	}
	return v.String()
}

// ownerName returns the name of the first owner of the given kind.
func ownerName(refs []metav1.OwnerReference, kind string) string {
	for _, r := range refs {
		if r.Kind == kind {
			return r.Name
		}
	}
	return ""
}

// podSpecFacts extracts containers, probes, preStop hooks, readiness gates
// and the termination grace period.
func podSpecFacts(s *corev1.PodSpec) *PodSpec {
	ps := &PodSpec{TerminationGracePeriodSec: 30, TerminationGraceDefaulted: true}
	if g := s.TerminationGracePeriodSeconds; g != nil {
		ps.TerminationGracePeriodSec = int(*g)
		ps.TerminationGraceDefaulted = false
	}
	for _, g := range s.ReadinessGates {
		ps.ReadinessGates = append(ps.ReadinessGates, string(g.ConditionType))
	}
	for _, t := range s.TopologySpreadConstraints {
		when := string(t.WhenUnsatisfiable)
		if when == "" {
			when = string(corev1.DoNotSchedule)
		}
		ps.TopologySpread = append(ps.TopologySpread, TopologySpread{Key: t.TopologyKey, MaxSkew: int(t.MaxSkew), WhenUnsatisfiable: when})
	}
	for i := range s.Containers {
		ps.Containers = append(ps.Containers, containerFacts(&s.Containers[i], false))
	}
	for i := range s.InitContainers {
		ic := &s.InitContainers[i]
		if ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			ps.Containers = append(ps.Containers, containerFacts(ic, true))
		}
	}
	return ps
}

func containerFacts(c *corev1.Container, sidecar bool) Container {
	f := Container{
		Name:      c.Name,
		Sidecar:   sidecar,
		Readiness: probeFacts(c.ReadinessProbe, c),
		Liveness:  probeFacts(c.LivenessProbe, c),
		Startup:   probeFacts(c.StartupProbe, c),
	}
	for _, p := range c.Ports {
		f.Ports = append(f.Ports, ContainerPort{Name: p.Name, Number: int(p.ContainerPort), Protocol: string(p.Protocol)})
	}
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		f.PreStop = preStopFacts(c.Lifecycle.PreStop)
	}
	f.KeepAlive = keepAliveFacts(c)
	f.Traefik = traefikProviderFacts(c)
	return f
}

// probeFacts describes a probe with its port resolved in container c and the
// API defaults applied to unset timings; nil when p is nil.
func probeFacts(p *corev1.Probe, c *corev1.Container) *Probe {
	if p == nil {
		return nil
	}
	f := &Probe{
		InitialDelaySec:  int(p.InitialDelaySeconds),
		PeriodSec:        orDefault(p.PeriodSeconds, 10),
		TimeoutSec:       orDefault(p.TimeoutSeconds, 1),
		SuccessThreshold: orDefault(p.SuccessThreshold, 1),
		FailureThreshold: orDefault(p.FailureThreshold, 3),
	}
	switch h := &p.ProbeHandler; {
	case h.HTTPGet != nil:
		f.Handler = "httpGet"
		f.Port, f.PortName = containerPortNumber(h.HTTPGet.Port, c)
		f.Path, f.Scheme = h.HTTPGet.Path, string(h.HTTPGet.Scheme)
	case h.TCPSocket != nil:
		f.Handler = "tcpSocket"
		f.Port, f.PortName = containerPortNumber(h.TCPSocket.Port, c)
	case h.GRPC != nil:
		f.Handler = "grpc"
		f.Port = int(h.GRPC.Port)
	case h.Exec != nil:
		f.Handler = "exec"
		f.Command = strings.Join(h.Exec.Command, " ")
	}
	return f
}

func orDefault(v int32, def int) int {
	if v == 0 {
		return def
	}
	return int(v)
}

// containerPortNumber resolves a probe port as the kubelet does: a name is
// looked up among container c's own ports, then read as a number. It returns
// the number (0 when unresolved) and the name as written ("" for numbers).
func containerPortNumber(p intstr.IntOrString, c *corev1.Container) (int, string) {
	if p.Type == intstr.Int {
		return int(p.IntVal), ""
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return int(cp.ContainerPort), p.StrVal
		}
	}
	if n, err := strconv.Atoi(p.StrVal); err == nil && n > 0 && n < 65536 {
		return n, p.StrVal
	}
	return 0, p.StrVal
}

// preStopFacts describes a preStop hook and recognises sleeps.
func preStopFacts(h *corev1.LifecycleHandler) *PreStop {
	switch {
	case h.Sleep != nil:
		n := int(h.Sleep.Seconds)
		return &PreStop{Handler: "sleep", Description: "sleep " + strconv.Itoa(n), SleepSec: &n}
	case h.Exec != nil:
		return &PreStop{Handler: "exec", Command: h.Exec.Command, Description: "exec: " + strings.Join(h.Exec.Command, " "), SleepSec: execSleep(h.Exec.Command)}
	case h.HTTPGet != nil:
		return &PreStop{Handler: "httpGet", Description: "httpGet :" + h.HTTPGet.Port.String() + h.HTTPGet.Path}
	case h.TCPSocket != nil:
		return &PreStop{Handler: "tcpSocket", Description: "tcpSocket :" + h.TCPSocket.Port.String()}
	}
	return &PreStop{}
}

// execSleep returns the seconds an exec preStop sleeps when the command is
// `sleep N` (any path) or a shell `-c` script whose first command is one.
func execSleep(cmd []string) *int {
	if len(cmd) == 0 {
		return nil
	}
	switch path.Base(cmd[0]) {
	case "sleep":
		if len(cmd) == 2 {
			return sleepArg(cmd[1])
		}
	case "sh", "bash", "ash", "dash", "zsh":
		if len(cmd) >= 3 && cmd[1] == "-c" {
			return scriptSleep(cmd[2])
		}
	}
	return nil
}

// scriptSleep recognises a script whose first line starts with `sleep N` (or
// /bin/sleep N) followed by nothing, a comment, or `;`, `&&` or `||` and
// more commands. A piped or backgrounded sleep does not delay anything.
func scriptSleep(script string) *int {
	line, _, _ := strings.Cut(strings.TrimSpace(script), "\n")
	fields := strings.Fields(line)
	if len(fields) < 2 || path.Base(fields[0]) != "sleep" {
		return nil
	}
	arg, rest := fields[1], strings.Join(fields[2:], " ")
	if i := strings.IndexAny(arg, ";&|#"); i >= 0 {
		arg, rest = arg[:i], arg[i:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	for _, next := range []string{";", "&&", "||", "#"} {
		if strings.HasPrefix(rest, next) {
			return sleepArg(arg)
		}
	}
	if rest == "" {
		return sleepArg(arg)
	}
	return nil
}

// sleepArg parses a sleep duration: whole seconds with an optional s, m or h suffix.
func sleepArg(s string) *int {
	mult := 1
	switch {
	case strings.HasSuffix(s, "s"):
		s = s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		s, mult = s[:len(s)-1], 60
	case strings.HasSuffix(s, "h"):
		s, mult = s[:len(s)-1], 3600
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<20 {
		return nil
	}
	n *= mult
	return &n
}

// podStatusFacts extracts a pod's identity, placement and status.
func podStatusFacts(p *corev1.Pod) *PodStatus {
	st := &PodStatus{
		Node:            p.Spec.NodeName,
		Phase:           string(p.Status.Phase),
		ReplicaSet:      ownerName(p.OwnerReferences, "ReplicaSet"),
		StatefulSet:     ownerName(p.OwnerReferences, "StatefulSet"),
		PodTemplateHash: p.Labels[appsv1.DefaultDeploymentUniqueLabelKey],
	}
	st.IP, _ = lex.ParseAddr([]byte(p.Status.PodIP))
	if p.Status.StartTime != nil {
		st.Started = objectTime(*p.Status.StartTime)
	}
	if p.DeletionTimestamp != nil {
		st.Deleted = objectTime(*p.DeletionTimestamp)
	}
	if g := p.DeletionGracePeriodSeconds; g != nil {
		n := int(*g)
		st.DeletionGracePeriodSec = &n
	}
	// Sized once: grown by appends, they left as much again behind per pod.
	if n := len(p.Status.Conditions); n > 0 {
		st.Conditions = make([]PodCondition, 0, n)
	}
	if n := len(p.Status.ContainerStatuses) + len(p.Status.InitContainerStatuses); n > 0 {
		st.Containers = make([]ContainerStatus, 0, n)
	}
	for _, pc := range p.Status.Conditions {
		st.Conditions = append(st.Conditions, PodCondition{
			Type: string(pc.Type), Status: string(pc.Status), Reason: pc.Reason,
			Message: pc.Message, LastTransition: objectTime(pc.LastTransitionTime),
		})
	}
	for _, cs := range p.Status.ContainerStatuses {
		st.Containers = append(st.Containers, containerStatusFacts(&cs))
	}
	for _, cs := range p.Status.InitContainerStatuses {
		if cs.State.Running != nil {
			st.Containers = append(st.Containers, containerStatusFacts(&cs))
		}
	}
	return st
}

func containerStatusFacts(cs *corev1.ContainerStatus) ContainerStatus {
	f := ContainerStatus{Name: cs.Name, Ready: cs.Ready, RestartCount: int(cs.RestartCount)}
	if r := cs.State.Running; r != nil {
		f.StartedAt = objectTime(r.StartedAt)
	}
	return f
}

// emitPodLifecycle reports what a pod's status says happened to it, each at
// the time the status gives: PodCreated (creationTimestamp), PodScheduled
// (PodScheduled True), PodReady/PodNotReady (the Ready condition),
// ReadinessGate (a readiness-gate condition; Group is its type),
// ContainerStarted (state.running.startedAt; Group is the container) and
// PodDeleted at the start of termination (deletionTimestamp minus the grace
// period). Conditions without a lastTransitionTime give no record. Each
// record is made in l, which Handlers may not keep.
func emitPodLifecycle(c *Config, l *Lifecycle, out *Emitter) {
	st := c.Pod
	object := "Pod/" + c.Name // one copy for all the pod's records
	emit := func(at time.Time, kind LifecycleKind, fill func(*Lifecycle)) {
		if at.IsZero() {
			return
		}
		*l = Lifecycle{
			Time: at, Kind: kind, Namespace: c.Namespace, Pod: c.Name, IP: st.IP, Node: st.Node,
			Object: object, From: -1, FromAPI: true, Format: FormatK8sObjects, Origin: c.Origin,
		}
		if fill != nil {
			fill(l)
		}
		out.Lifecycle(l)
	}
	emit(c.Created, PodCreated, nil)
	for _, pc := range st.Conditions {
		kind, ok := conditionKind(pc, c.PodSpec)
		if !ok {
			continue
		}
		emit(pc.LastTransition, kind, func(l *Lifecycle) {
			l.Status, l.Reason, l.Message = pc.Status, pc.Reason, pc.Message
			if kind == ReadinessGate {
				l.Group = pc.Type
				l.Gate = gateState(pc.Type, pc.Status, pc.Reason)
			}
		})
	}
	for _, cs := range st.Containers {
		emit(cs.StartedAt, ContainerStarted, func(l *Lifecycle) { l.Group = cs.Name })
	}
	emit(st.TerminationStarted(c.PodSpec), PodDeleted, func(l *Lifecycle) { l.Reason = "Terminating" })
}

// conditionKind maps a pod condition to a lifecycle kind; ok is false for
// conditions that are not reported.
func conditionKind(pc PodCondition, spec *PodSpec) (kind LifecycleKind, ok bool) {
	switch pc.Type {
	case string(corev1.PodScheduled):
		return PodScheduled, pc.Status == string(corev1.ConditionTrue)
	case string(corev1.PodReady):
		if pc.Status == string(corev1.ConditionTrue) {
			return PodReady, true
		}
		return PodNotReady, true
	}
	if isReadinessGate(pc.Type, spec) {
		return ReadinessGate, true
	}
	return LifecycleOther, false
}

// isReadinessGate reports whether a condition type is one of the pod's
// readiness gates, or a custom (domain-qualified) type as gates use.
func isReadinessGate(t string, spec *PodSpec) bool {
	if strings.Contains(t, "/") {
		return true
	}
	for _, g := range spec.ReadinessGates {
		if g == t {
			return true
		}
	}
	return false
}

// horizontalPodAutoscaler is the part of an autoscaling/v1 or v2
// HorizontalPodAutoscaler readygap keeps: both versions name the target
// and the replica bounds alike.
type horizontalPodAutoscaler struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		ScaleTargetRef struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicas *int `json:"minReplicas"`
		MaxReplicas int  `json:"maxReplicas"`
	} `json:"spec"`
}

func decodeAutoscaler(elem []byte, c *Config, out *Emitter) error {
	var h horizontalPodAutoscaler
	if err := json.Unmarshal(elem, &h); err != nil {
		return err
	}
	setMeta(c, &h.Metadata)
	c.Autoscaler = &Autoscaler{TargetKind: h.Spec.ScaleTargetRef.Kind, TargetName: h.Spec.ScaleTargetRef.Name,
		MinReplicas: h.Spec.MinReplicas, MaxReplicas: h.Spec.MaxReplicas}
	out.Config(c)
	return nil
}

func decodeNamespace(elem []byte, c *Config, out *Emitter) error {
	var ns corev1.Namespace
	if err := json.Unmarshal(elem, &ns); err != nil {
		return err
	}
	setMeta(c, &ns.ObjectMeta)
	out.Config(c)
	return nil
}

func decodeService(elem []byte, c *Config, out *Emitter) error {
	var s corev1.Service
	if err := json.Unmarshal(elem, &s); err != nil {
		return err
	}
	setMeta(c, &s.ObjectMeta)
	f := &Service{
		Type:                     string(s.Spec.Type),
		Selector:                 s.Spec.Selector,
		PublishNotReadyAddresses: s.Spec.PublishNotReadyAddresses,
		Annotations:              keepAnnotations(s.Annotations, serviceAnnotationPrefixes),
	}
	for _, p := range s.Spec.Ports {
		f.Ports = append(f.Ports, servicePortFacts(&p))
	}
	negAnnotations(f, s.Annotations)
	c.Service = f
	c.HealthCheck = albAnnotationHealthCheck(s.Annotations, "Service annotations", false)
	out.Config(c)
	return nil
}

func servicePortFacts(p *corev1.ServicePort) ServicePort {
	f := ServicePort{Name: p.Name, Protocol: string(p.Protocol), Port: int(p.Port), NodePort: int(p.NodePort)}
	switch {
	case p.TargetPort.Type == intstr.String:
		f.TargetPort = p.TargetPort.StrVal
	case p.TargetPort.IntVal == 0:
		f.TargetPortNumber = f.Port
	default:
		f.TargetPort = strconv.Itoa(int(p.TargetPort.IntVal))
		f.TargetPortNumber = int(p.TargetPort.IntVal)
	}
	return f
}

var (
	serviceAnnotationPrefixes = []string{"cloud.google.com/", "beta.cloud.google.com/", "service.kubernetes.io/",
		"service.beta.kubernetes.io/", "alb.ingress.kubernetes.io/", "networking.gke.io/"}
	ingressAnnotationPrefixes = []string{"alb.ingress.kubernetes.io/", "nginx.ingress.kubernetes.io/",
		"kubernetes.io/ingress.", "ingress.gcp.kubernetes.io/", "networking.gke.io/", "cloud.google.com/"}
)

// keepAnnotations returns the annotations whose keys start with one of prefixes; nil when none.
func keepAnnotations(a map[string]string, prefixes []string) map[string]string {
	var kept map[string]string
	for k, v := range a {
		for _, p := range prefixes {
			if strings.HasPrefix(k, p) {
				if kept == nil {
					kept = make(map[string]string)
				}
				kept[k] = v
				break
			}
		}
	}
	return kept
}

// negAnnotations reads the GKE NEG and BackendConfig annotations of a Service.
// Values that are not valid JSON leave the parsed fields empty.
func negAnnotations(f *Service, a map[string]string) {
	f.NEG = a["cloud.google.com/neg"]
	var neg struct {
		Ingress      bool                       `json:"ingress"`
		ExposedPorts map[string]json.RawMessage `json:"exposed_ports"`
	}
	if json.Unmarshal([]byte(f.NEG), &neg) == nil {
		f.NEGIngress = neg.Ingress
		for port := range neg.ExposedPorts {
			if n, err := strconv.Atoi(port); err == nil && n > 0 && n < 65536 {
				f.NEGExposedPorts = append(f.NEGExposedPorts, n)
			}
		}
		slices.Sort(f.NEGExposedPorts)
	}
	var status struct {
		NEGs  map[string]string `json:"network_endpoint_groups"`
		Zones []string          `json:"zones"`
	}
	if json.Unmarshal([]byte(a["cloud.google.com/neg-status"]), &status) == nil {
		f.NEGs, f.NEGZones = status.NEGs, status.Zones
	}
	bc := a["cloud.google.com/backend-config"]
	if bc == "" {
		bc = a["beta.cloud.google.com/backend-config"]
	}
	var backends struct {
		Default string            `json:"default"`
		Ports   map[string]string `json:"ports"`
	}
	if json.Unmarshal([]byte(bc), &backends) != nil {
		return
	}
	for port, name := range backends.Ports {
		if f.BackendConfigs == nil {
			f.BackendConfigs = make(map[string]string)
		}
		f.BackendConfigs[port] = name
	}
	if backends.Default != "" {
		if f.BackendConfigs == nil {
			f.BackendConfigs = make(map[string]string)
		}
		f.BackendConfigs["default"] = backends.Default
	}
}

// ALBIdleTimeoutAttribute is the ALB load-balancer attribute of the idle
// timeout.
const ALBIdleTimeoutAttribute = "idle_timeout.timeout_seconds"

// ALBDeregistrationDelayAttribute is the target-group attribute of the
// deregistration delay: how long a target the load balancer stopped
// sending to keeps its in-flight requests.
const ALBDeregistrationDelayAttribute = "deregistration_delay.timeout_seconds"

// albAnnotationHealthCheck reads the AWS Load Balancer Controller health-check,
// target-type and target-group-attribute annotations, and for an Ingress
// (lbAttributes) the load-balancer-attributes one, which the controller
// reads on Ingresses only; nil when none is set.
func albAnnotationHealthCheck(a map[string]string, source string, lbAttributes bool) *LBHealthCheck {
	const p = "alb.ingress.kubernetes.io/"
	hc := &LBHealthCheck{
		Source:             source,
		IntervalSec:        atoiPtr(a[p+"healthcheck-interval-seconds"]),
		TimeoutSec:         atoiPtr(a[p+"healthcheck-timeout-seconds"]),
		HealthyThreshold:   atoiPtr(a[p+"healthy-threshold-count"]),
		UnhealthyThreshold: atoiPtr(a[p+"unhealthy-threshold-count"]),
		Port:               a[p+"healthcheck-port"],
		Protocol:           a[p+"healthcheck-protocol"],
		Path:               a[p+"healthcheck-path"],
		SuccessCodes:       a[p+"success-codes"],
		TargetType:         a[p+"target-type"],
	}
	if hc.Port != "" {
		hc.PortNumber, _ = strconv.Atoi(hc.Port)
	}
	for _, attr := range strings.Split(a[p+"target-group-attributes"], ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(attr), "="); ok && k == ALBDeregistrationDelayAttribute {
			hc.DeregistrationDelaySec = atoiPtr(strings.TrimSpace(v))
		}
	}
	for _, attr := range strings.Split(a[p+"load-balancer-attributes"], ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(attr), "="); ok && lbAttributes && k == ALBIdleTimeoutAttribute {
			hc.IdleTimeoutSec = atoiPtr(strings.TrimSpace(v))
		}
	}
	if *hc == (LBHealthCheck{Source: source}) {
		return nil
	}
	return hc
}

// atoiPtr parses a whole number; nil when s is not one.
func atoiPtr(s string) *int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return &n
}

func decodeConfigMap(elem []byte, c *Config, out *Emitter) error {
	var cm corev1.ConfigMap
	if err := json.Unmarshal(elem, &cm); err != nil {
		return err
	}
	// Only an ingress-nginx controller's ConfigMap and Istio's mesh
	// ConfigMap say anything readygap reads; others (and their data) are
	// left alone.
	mesh, err := istioMeshOf(&cm)
	if err != nil {
		return err
	}
	c.Proxy, c.IstioMesh = proxySettingsOf(&cm), mesh
	if c.Proxy == nil && c.IstioMesh == nil {
		return nil
	}
	setMeta(c, &cm.ObjectMeta)
	out.Config(c)
	return nil
}

func decodeIngress(elem []byte, c *Config, out *Emitter) error {
	var ing networkingv1.Ingress
	if err := json.Unmarshal(elem, &ing); err != nil {
		return err
	}
	setMeta(c, &ing.ObjectMeta)
	f := &Ingress{Annotations: keepAnnotations(ing.Annotations, ingressAnnotationPrefixes)}
	if ing.Spec.IngressClassName != nil {
		f.Class, f.ClassName = *ing.Spec.IngressClassName, *ing.Spec.IngressClassName
	} else {
		f.Class = ing.Annotations["kubernetes.io/ingress.class"]
	}
	if b := ing.Spec.DefaultBackend; b != nil && b.Service != nil {
		f.Backends = append(f.Backends, ingressBackend("", "", b.Service))
	}
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service != nil {
				f.Backends = append(f.Backends, ingressBackend(r.Host, p.Path, p.Backend.Service))
			}
		}
	}
	c.Ingress = f
	c.HealthCheck = albAnnotationHealthCheck(ing.Annotations, "Ingress annotations", true)
	out.Config(c)
	return nil
}

// annotationDefaultIngressClass marks the IngressClass that Ingresses
// created without a class get.
const annotationDefaultIngressClass = "ingressclass.kubernetes.io/is-default-class"

func decodeIngressClass(elem []byte, c *Config, out *Emitter) error {
	var ic networkingv1.IngressClass
	if err := json.Unmarshal(elem, &ic); err != nil {
		return err
	}
	setMeta(c, &ic.ObjectMeta)
	f := &IngressClass{Controller: ic.Spec.Controller, Default: ic.Annotations[annotationDefaultIngressClass] == "true"}
	if p := ic.Spec.Parameters; p != nil {
		f.Parameters = &ObjectRef{Kind: p.Kind, Name: p.Name}
		if p.APIGroup != nil {
			f.Parameters.Group = *p.APIGroup
		}
		if p.Namespace != nil && p.Scope != nil && *p.Scope == networkingv1.IngressClassParametersReferenceScopeNamespace {
			f.Parameters.Namespace = *p.Namespace
		}
	}
	c.IngressClass = f
	out.Config(c)
	return nil
}

// ingressClassParams is the part of an AWS Load Balancer Controller
// IngressClassParams (elbv2.k8s.aws/v1beta1) that shapes the load balancer
// of every Ingress of its classes.
type ingressClassParams struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		Group *struct {
			Name string `json:"name"`
		} `json:"group"`
		LoadBalancerAttributes []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"loadBalancerAttributes"`
	} `json:"spec"`
}

func decodeIngressClassParams(elem []byte, c *Config, out *Emitter) error {
	var p ingressClassParams
	if err := json.Unmarshal(elem, &p); err != nil {
		return err
	}
	setMeta(c, &p.Metadata)
	f := &IngressClassParams{}
	if p.Spec.Group != nil {
		f.Group = p.Spec.Group.Name
	}
	for _, a := range p.Spec.LoadBalancerAttributes {
		f.LoadBalancerAttributes = append(f.LoadBalancerAttributes, Attribute{Key: a.Key, Value: a.Value})
	}
	c.IngressClassParams = f
	out.Config(c)
	return nil
}

func ingressBackend(host, path string, s *networkingv1.IngressServiceBackend) IngressBackend {
	return IngressBackend{Host: host, Path: path, Service: s.Name, PortName: s.Port.Name, PortNumber: int(s.Port.Number)}
}

func decodeEndpointSlice(elem []byte, c *Config, out *Emitter) error {
	var es discoveryv1.EndpointSlice
	if err := json.Unmarshal(elem, &es); err != nil {
		return err
	}
	setMeta(c, &es.ObjectMeta)
	f := &EndpointSlice{Service: es.Labels[discoveryv1.LabelServiceName], AddressType: string(es.AddressType)}
	for _, p := range es.Ports {
		var ep EndpointPort
		if p.Name != nil {
			ep.Name = *p.Name
		}
		if p.Protocol != nil {
			ep.Protocol = string(*p.Protocol)
		}
		if p.Port != nil {
			ep.Port = int(*p.Port)
		}
		f.Ports = append(f.Ports, ep)
	}
	for i := range es.Endpoints {
		f.Endpoints = append(f.Endpoints, endpointFacts(&es.Endpoints[i]))
	}
	c.EndpointSlice = f
	out.Config(c)
	return nil
}

func endpointFacts(e *discoveryv1.Endpoint) Endpoint {
	f := Endpoint{
		Ready: e.Conditions.Ready, Serving: e.Conditions.Serving, Terminating: e.Conditions.Terminating,
	}
	for _, a := range e.Addresses {
		if ip, ok := lex.ParseAddr([]byte(a)); ok {
			f.Addresses = append(f.Addresses, ip)
		}
	}
	if e.TargetRef != nil && e.TargetRef.Kind == "Pod" {
		f.Pod = e.TargetRef.Name
	}
	if e.NodeName != nil {
		f.Node = *e.NodeName
	}
	if e.Zone != nil {
		f.Zone = *e.Zone
	}
	return f
}

// backendConfig is the part of a GKE BackendConfig (cloud.google.com/v1 or
// v1beta1) that sets health checks and connection draining.
type backendConfig struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		HealthCheck *struct {
			CheckIntervalSec   *int64  `json:"checkIntervalSec"`
			TimeoutSec         *int64  `json:"timeoutSec"`
			HealthyThreshold   *int64  `json:"healthyThreshold"`
			UnhealthyThreshold *int64  `json:"unhealthyThreshold"`
			Type               *string `json:"type"`
			Port               *int64  `json:"port"`
			RequestPath        *string `json:"requestPath"`
		} `json:"healthCheck"`
		Logging *struct {
			Enable     *bool    `json:"enable"`
			SampleRate *float64 `json:"sampleRate"`
		} `json:"logging"`
		ConnectionDraining *struct {
			DrainingTimeoutSec int64 `json:"drainingTimeoutSec"`
		} `json:"connectionDraining"`
	} `json:"spec"`
}

func decodeBackendConfig(elem []byte, c *Config, out *Emitter) error {
	var bc backendConfig
	if err := json.Unmarshal(elem, &bc); err != nil {
		return err
	}
	setMeta(c, &bc.Metadata)
	hc := &LBHealthCheck{Source: "BackendConfig"}
	if h := bc.Spec.HealthCheck; h != nil {
		hc.IntervalSec = intPtr(h.CheckIntervalSec)
		hc.TimeoutSec = intPtr(h.TimeoutSec)
		hc.HealthyThreshold = intPtr(h.HealthyThreshold)
		hc.UnhealthyThreshold = intPtr(h.UnhealthyThreshold)
		if h.Type != nil {
			hc.Protocol = *h.Type
		}
		if h.Port != nil {
			hc.PortNumber = int(*h.Port)
			hc.Port = strconv.Itoa(hc.PortNumber)
		}
		if h.RequestPath != nil {
			hc.Path = *h.RequestPath
		}
	}
	if d := bc.Spec.ConnectionDraining; d != nil {
		n := int(d.DrainingTimeoutSec)
		hc.DrainingTimeoutSec = &n
	}
	if l := bc.Spec.Logging; l != nil && l.SampleRate != nil && *l.SampleRate >= 0 && *l.SampleRate <= 1 {
		hc.LogSampleRate = l.SampleRate
	}
	if bc.Spec.HealthCheck != nil || bc.Spec.ConnectionDraining != nil || hc.LogSampleRate != nil {
		c.HealthCheck = hc
	}
	out.Config(c)
	return nil
}

func intPtr(v *int64) *int {
	if v == nil {
		return nil
	}
	n := int(*v)
	return &n
}

// targetGroupBinding is the part of an AWS Load Balancer Controller
// TargetGroupBinding (elbv2.k8s.aws/v1beta1) that links a Service port to a target group.
type targetGroupBinding struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		ServiceRef struct {
			Name string              `json:"name"`
			Port *intstr.IntOrString `json:"port"`
		} `json:"serviceRef"`
		TargetGroupARN  string `json:"targetGroupARN"`
		TargetGroupName string `json:"targetGroupName"`
		TargetType      string `json:"targetType"`
	} `json:"spec"`
}

func decodeTargetGroupBinding(elem []byte, c *Config, out *Emitter) error {
	var tgb targetGroupBinding
	if err := json.Unmarshal(elem, &tgb); err != nil {
		return err
	}
	setMeta(c, &tgb.Metadata)
	c.TargetGroupBinding = &TargetGroupBinding{
		Service:         tgb.Spec.ServiceRef.Name,
		ServicePort:     intOrStringText(tgb.Spec.ServiceRef.Port),
		TargetGroupARN:  tgb.Spec.TargetGroupARN,
		TargetGroupName: tgb.Spec.TargetGroupName,
		TargetType:      tgb.Spec.TargetType,
		ReadinessGate:   albTargetHealthGatePrefix + tgb.Metadata.Name,
	}
	out.Config(c)
	return nil
}

// kubectlGetHeader matches the header of a `kubectl get` table of the
// objects readygap reads.
var kubectlGetHeader = regexp.MustCompile(`^(NAMESPACE\s{2,})?NAME\s{2,}(READY|STATUS|TYPE|UP-TO-DATE|DESIRED|ADDRESSTYPE|CLASS|ENDPOINTS|CONTROLLER|AGE)\b`)

// NearMiss recognises `kubectl describe` text and `kubectl get` tables,
// which leave out what readygap reads (probes, ports, owners, times).
func (k8sObjects) NearMiss(s *nearSample) (nearScore, string) {
	first := s.first()
	switch {
	case bytes.HasPrefix(first, []byte("Name:")):
		return nearKnown, "`kubectl describe` text, not the objects: it leaves out what readygap reads (owners, probe ports, times)"
	case kubectlGetHeader.Match(first):
		return nearKnown, "a `kubectl get` table, not the objects: it leaves out what readygap reads (owners, probe ports, times)"
	}
	return nearNone, ""
}

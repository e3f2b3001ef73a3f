package sources

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/readygap/readygap/sources/internal/lex"
	corev1 "k8s.io/api/core/v1"
)

// emitKubeEvent turns one Kubernetes event (core/v1 shape; events.k8s.io/v1
// events are converted to it first) into a Lifecycle record. It is shared by
// the k8s-events adapter and by Cloud Logging's logs/events entries. A
// non-zero at overrides the event's own times (Cloud Logging's entry
// timestamp is the occurrence time); otherwise kubeEventTime decides.
//
// Count is the event's occurrence count (an aggregated event stands for
// Count occurrences up to its time) unless the interpretation gives it
// another meaning: endpoints of a NEG operation, replicas after scaling.
func emitKubeEvent(ev *corev1.Event, at time.Time, o Origin, format Format, out *Emitter) {
	l := newKubeEventLifecycle(ev, at, o, format)
	out.Lifecycle(&l)
}

// newKubeEventLifecycle is the Lifecycle record of one event (see
// emitKubeEvent), for readers that add to it before emitting it.
func newKubeEventLifecycle(ev *corev1.Event, at time.Time, o Origin, format Format) Lifecycle {
	if at.IsZero() {
		at = kubeEventTime(ev)
	}
	l := Lifecycle{
		Time:      at.UTC(),
		Kind:      LifecycleOther,
		Namespace: ev.InvolvedObject.Namespace,
		Object:    kubeObjectRef(ev.InvolvedObject.Kind, ev.InvolvedObject.Name),
		Reason:    ev.Reason,
		Node:      kubeEventNode(ev),
		Source:    ev.Source.Component,
		Message:   ev.Message,
		Count:     kubeEventCount(ev),
		From:      -1,
		FromAPI:   true,
		Format:    format,
		Origin:    o,
	}
	if l.Namespace == "" {
		l.Namespace = ev.Namespace
	}
	if l.Source == "" {
		l.Source = ev.ReportingController
	}
	if ev.InvolvedObject.Kind == "Pod" {
		l.Pod = ev.InvolvedObject.Name
	}
	interpretKubeEvent(&l, ev.Reason, strings.TrimPrefix(ev.Message, combinedPrefix))
	return l
}

// combinedPrefix starts the message of an event that client-go's aggregator
// merged from more than 10 similar events (same reason, other messages)
// within 10 minutes. The rest of the message is the last one merged.
const combinedPrefix = "(combined from similar events): "

// kubeEventTime returns when ev last occurred: the latest of
// series.lastObservedTime, eventTime, lastTimestamp and firstTimestamp, and
// metadata.creationTimestamp only when none of those is set.
//
// The legacy recorder (kubelet, controller-manager) sets firstTimestamp and
// lastTimestamp to the second and leaves eventTime null; the events.k8s.io
// recorder (scheduler) sets eventTime to the microsecond at the first
// occurrence, series.lastObservedTime at the last, and leaves the legacy
// stamps null. Taking the latest of them gives the last occurrence in both
// cases, which is also the time Cloud Logging stamps on each event update, and
// keeps eventTime's microseconds when lastTimestamp is the same second cut
// short. An event with Count > 1 stands for occurrences from its
// firstTimestamp (or eventTime) up to this time.
func kubeEventTime(ev *corev1.Event) time.Time {
	var t time.Time
	if ev.Series != nil {
		t = ev.Series.LastObservedTime.Time
	}
	for _, c := range [...]time.Time{ev.EventTime.Time, ev.LastTimestamp.Time, ev.FirstTimestamp.Time} {
		if c.After(t) {
			t = c
		}
	}
	if t.IsZero() {
		t = ev.CreationTimestamp.Time
	}
	return t
}

// kubeEventCount is how many times ev occurred: series.count for
// events.k8s.io series, else count; never negative.
func kubeEventCount(ev *corev1.Event) int {
	n := ev.Count
	if ev.Series != nil && ev.Series.Count > 0 {
		n = ev.Series.Count
	}
	return max(int(n), 0)
}

// kubeEventNode is the node that reported ev: source.host, or the reporting
// instance of a kubelet event (the kubelet reports as its node name).
func kubeEventNode(ev *corev1.Event) string {
	if ev.Source.Host != "" {
		return ev.Source.Host
	}
	if ev.ReportingController == "kubelet" {
		return ev.ReportingInstance
	}
	return ""
}

// kubeObjectRef renders an object as Kind/name, or "" when it has no name.
func kubeObjectRef(kind, name string) string {
	if name == "" {
		return ""
	}
	return kind + "/" + name
}

// Event reasons readygap interprets.
const (
	reasonNEGAttach       = "Attach"
	reasonNEGDetach       = "Detach"
	reasonNEGAttachFailed = "AttachFailed"
	reasonNEGDetachFailed = "DetachFailed"
	reasonNEGCreate       = "Create"
	reasonNEGDelete       = "Delete"

	reasonNEGReady              = "LoadBalancerNegReady"
	reasonNEGWithoutHealthCheck = "LoadBalancerNegWithoutHealthCheck"
	reasonNEGTimeout            = "LoadBalancerNegTimeout"
	reasonNEGNotReady           = "LoadBalancerNegNotReady"

	reasonScheduled         = "Scheduled"
	reasonStarted           = "Started"
	reasonUnhealthy         = "Unhealthy"
	reasonKilling           = "Killing"
	reasonFailedPreStopHook = "FailedPreStopHook"
	reasonSuccessfulCreate  = "SuccessfulCreate"
	reasonSuccessfulDelete  = "SuccessfulDelete"
	reasonScalingReplicaSet = "ScalingReplicaSet"
)

// negReadinessGate is the condition type of GKE's NEG readiness gate.
const negReadinessGate = NEGReadinessGate

// interpretKubeEvent sets l's kind and the fields the reason's message carries.
// msg is the message without the combined-events prefix. Reasons readygap does
// not interpret, and messages that do not have the documented shape, leave l
// as LifecycleOther with its reason.
func interpretKubeEvent(l *Lifecycle, reason, msg string) {
	switch reason {
	case reasonNEGAttach, reasonNEGDetach:
		interpretNEGOperation(l, msg)
	case reasonNEGAttachFailed, reasonNEGDetachFailed:
		interpretNEGFailure(l, msg)
	case reasonNEGCreate, reasonNEGDelete:
		interpretNEGLifecycle(l, msg)
	case reasonNEGReady, reasonNEGWithoutHealthCheck, reasonNEGTimeout, reasonNEGNotReady:
		interpretReadinessGate(l, reason, msg)
	case reasonScheduled:
		interpretScheduled(l, msg)
	case reasonStarted:
		if strings.HasPrefix(msg, "Started container ") {
			l.Kind = ContainerStarted
		}
	case reasonUnhealthy:
		interpretProbeFailure(l, msg)
	case reasonKilling:
		// "Stopping container x" or the caller's wording, such as
		// "Container x failed liveness probe, will be restarted".
		l.Kind = Killing
	case reasonFailedPreStopHook:
		l.Kind = PreStopFailed
	case reasonSuccessfulCreate:
		interpretPodControl(l, msg, "Created pod: ", PodCreated)
	case reasonSuccessfulDelete:
		interpretPodControl(l, msg, "Deleted pod: ", PodDeleted)
	case reasonScalingReplicaSet:
		if !interpretArgoScaling(l, msg) {
			interpretScaling(l, msg)
		}
	default:
		if !interpretRolloutEvent(l, reason, msg) {
			interpretDisruption(l, reason, msg)
		}
	}
}

// NEG controller messages (ingress-gce pkg/neg/syncers). Names are NEG
// names and zones as Go %q prints them; neither ever holds a quote.
var (
	// negOperationRe is the Attach/Detach message since 2018.
	negOperationRe = regexp.MustCompile(`^(?:Attach|Detach) (\d+) network endpoint\(s\) \(NEG "([^"]+)" in zone "([^"]+)"\)$`)
	// negOperationOldRe is the Attach/Detach message before 2018-02-26.
	negOperationOldRe = regexp.MustCompile(`^(?:Attach|Detach) (\d+) network endpoints to NEG "([^"]+)" in "([^"]+)"\.$`)
	// negFailureRe is the AttachFailed/DetachFailed message; the GCE error follows.
	negFailureRe = regexp.MustCompile(`(?s)^Failed to (?:Attach|Detach) (\d+) network endpoint\(s\) \(NEG "([^"]+)" in zone "([^"]+)"\): (.*)$`)
	// negIPAddressRe finds the endpoint a GCE "Invalid value" error names.
	negIPAddressRe = regexp.MustCompile(`'resource\.ipAddress': '([^']+)'`)
	// negLifecycleRe is the Create/Delete message ("Created NEG %q for %s in %q.").
	negLifecycleRe = regexp.MustCompile(`^(?:Created|Deleted) NEG "([^"]+)" for .* in "([^"]+)"\.$`)
)

// interpretNEGOperation reads an Attach or Detach event on a Service:
// Group is the NEG, Count the endpoints of that one call, Zone the NEG's zone.
func interpretNEGOperation(l *Lifecycle, msg string) {
	m := negOperationRe.FindStringSubmatch(msg)
	if m == nil {
		m = negOperationOldRe.FindStringSubmatch(msg)
	}
	if m == nil || !setNEG(l, m[1], m[2], m[3]) {
		return
	}
	l.Kind = NEGAttach
	if l.Reason == reasonNEGDetach {
		l.Kind = NEGDetach
	}
}

// interpretNEGFailure reads an AttachFailed or DetachFailed event, and the
// endpoint IP when the GCE error names one.
func interpretNEGFailure(l *Lifecycle, msg string) {
	m := negFailureRe.FindStringSubmatch(msg)
	if m == nil || !setNEG(l, m[1], m[2], m[3]) {
		return
	}
	l.Kind = NEGOperationFailed
	if ip := negIPAddressRe.FindStringSubmatch(m[4]); ip != nil {
		if a, ok := lex.ParseAddr([]byte(ip[1])); ok {
			l.IP = a
		}
	}
}

// interpretNEGLifecycle reads the NEG and zone of a Create or Delete event;
// the kind stays LifecycleOther.
func interpretNEGLifecycle(l *Lifecycle, msg string) {
	if m := negLifecycleRe.FindStringSubmatch(msg); m != nil {
		l.Group = m[1]
		l.Zone = gcpZone(m[2])
	}
}

// setNEG fills the NEG fields of a NEG operation; it reports false when the
// endpoint count does not fit an int.
func setNEG(l *Lifecycle, count, neg, zone string) bool {
	n, err := strconv.Atoi(count)
	if err != nil {
		return false
	}
	l.Count = n
	l.Group = neg
	l.Zone = gcpZone(zone)
	return true
}

// gcpZone removes whitespace from a zone name. GCP zone names never hold any;
// published copies of events wrap them ("us-central1-    a", ingress-gce#1463).
func gcpZone(z string) string {
	if strings.IndexFunc(z, unicode.IsSpace) < 0 {
		return z
	}
	return strings.Join(strings.Fields(z), "")
}

// negKeyRe reads the NEG key (Key{"neg", zone: "z"} printed with %q, so the
// inner quotes are \" in the message) that the readiness reflector's Ready
// and WithoutHealthCheck messages start with. The rest of the message is left
// loose: its wording differs between GKE builds ("Backend ?Service").
var negKeyRe = regexp.MustCompile(`^Pod (?:has become Healthy in|is in) NEG "Key\{\\"([^\\"]+)\\", zone: \\"([^\\"]+)\\"\}"`)

// interpretReadinessGate reads an event of GKE's neg-readiness-reflector on a
// Pod: the reason and message of the condition it set. Ready, WithoutHealthCheck
// and Timeout set the condition True; NotReady leaves its status empty. Zone is
// the NEG's zone when the message names one.
func interpretReadinessGate(l *Lifecycle, reason, msg string) {
	l.Kind = ReadinessGate
	l.Group = negReadinessGate
	if reason != reasonNEGNotReady {
		l.Status = string(corev1.ConditionTrue)
	}
	l.Gate = gateState(l.Group, l.Status, reason)
	if m := negKeyRe.FindStringSubmatch(msg); m != nil {
		l.Zone = m[2]
	}
}

// gateState says what a readiness-gate condition of type group, with the
// given status and reason, tells about the load balancer. GKE's NEG gate
// says why it opened in its reason; the AWS Load Balancer Controller's
// target-health gates open only when the target is healthy.
func gateState(group, status, reason string) GateState {
	open := status == string(corev1.ConditionTrue)
	switch {
	case group == negReadinessGate || strings.HasPrefix(reason, "LoadBalancerNeg"):
		switch reason {
		case reasonNEGReady:
			return GateLBHealthy
		case reasonNEGWithoutHealthCheck:
			return GateWithoutHealthCheck
		case reasonNEGTimeout:
			return GateTimeout
		case reasonNEGNotReady:
			return GateWaiting
		}
		if !open {
			return GateWaiting
		}
	case strings.HasPrefix(group, albTargetHealthGatePrefix):
		if open {
			return GateLBHealthy
		}
		return GateWaiting
	}
	return GateOther
}

// albTargetHealthGatePrefix starts the condition type of the AWS Load
// Balancer Controller's readiness gates: target-health.elbv2.k8s.aws/<binding>.
const albTargetHealthGatePrefix = "target-health.elbv2.k8s.aws/"

// scheduledRe is the scheduler's binding message.
var scheduledRe = regexp.MustCompile(`^Successfully assigned ([^/\s]+)/(\S+) to (\S+)$`)

// interpretScheduled reads the node a pod was bound to.
func interpretScheduled(l *Lifecycle, msg string) {
	m := scheduledRe.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	l.Kind = PodScheduled
	if l.Namespace == "" {
		l.Namespace = m[1]
	}
	if l.Pod == "" {
		l.Pod = m[2]
	}
	l.Node = m[3]
}

// interpretProbeFailure reads a kubelet "Unhealthy" event: "<Type> probe
// failed: <output>" or "<Type> probe errored...". Reason becomes the probe
// type and IP/Port the address probed, when the output names it.
func interpretProbeFailure(l *Lifecycle, msg string) {
	probe, rest, ok := strings.Cut(msg, " probe ")
	if !ok || !(probe == "Readiness" || probe == "Liveness" || probe == "Startup") {
		return
	}
	if !strings.HasPrefix(rest, "failed") && !strings.HasPrefix(rest, "errored") {
		return
	}
	l.Kind = ProbeFailed
	l.Reason = probe
	if ap, ok := probeTarget(rest); ok {
		l.IP = ap.Addr()
		l.Port = int(ap.Port())
	}
}

// probeTarget finds the address a probe output names: the URL of an HTTP(S)
// probe, quoted (Go >= 1.14) or not, else the "dial tcp ip:port" of a TCP
// probe or connect error. A URL without a port yields the IP with port 0.
func probeTarget(out string) (netip.AddrPort, bool) {
	if _, u, ok := strings.Cut(out, "://"); ok {
		host := u[:probeTokenEnd(u, `/"?# `)]
		if ap, ok := lex.ParseAddrOptPort([]byte(host)); ok {
			return ap, true
		}
	}
	if _, d, ok := strings.Cut(out, "dial tcp "); ok {
		addr := strings.TrimSuffix(d[:probeTokenEnd(d, " ")], ":")
		if ap, ok := lex.ParseAddrPort([]byte(addr)); ok {
			return ap, true
		}
	}
	return netip.AddrPort{}, false
}

// probeTokenEnd is the index of the first byte of s that is in stops, or len(s).
func probeTokenEnd(s, stops string) int {
	if i := strings.IndexAny(s, stops); i >= 0 {
		return i
	}
	return len(s)
}

// interpretPodControl reads the pod a controller created or deleted
// ("Created pod: x", "Deleted pod: x", from ReplicaSets, Jobs and DaemonSets).
func interpretPodControl(l *Lifecycle, msg, prefix string, kind LifecycleKind) {
	pod, ok := strings.CutPrefix(msg, prefix)
	if !ok || pod == "" {
		return
	}
	l.Kind = kind
	l.Pod = pod
}

// scalingRe accepts every ScalingReplicaSet wording: "to N" (legacy and new
// ReplicaSets), "to N from M" (k8s PR #101142) and "from M to N" (PR #125118).
var scalingRe = regexp.MustCompile(`^Scaled (up|down) replica set (\S+) (?:from (\d+) to (\d+)|to (\d+)(?: from (\d+))?)$`)

// interpretScaling reads a Deployment's ScalingReplicaSet event: Group is the
// ReplicaSet, Count its new size, From its old size or -1.
func interpretScaling(l *Lifecycle, msg string) {
	m := scalingRe.FindStringSubmatch(msg)
	if m == nil {
		return
	}
	to, from := m[4], m[3]
	if to == "" {
		to, from = m[5], m[6]
	}
	n, err := strconv.Atoi(to)
	if err != nil {
		return
	}
	prev := -1
	if from != "" {
		if prev, err = strconv.Atoi(from); err != nil {
			return
		}
	}
	l.Kind = ScaledUp
	if m[1] == "down" {
		l.Kind = ScaledDown
	}
	l.Group = m[2]
	l.Count = n
	l.From = prev
}

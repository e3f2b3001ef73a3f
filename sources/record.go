// Package sources reads load-balancer logs, proxy logs, Kubernetes events and
// Kubernetes objects in the formats users already have on disk, and turns them
// into one small normalized record model: request outcomes, backend lifecycle
// events and configuration facts. Later stages (correlate, classify) use these
// records without knowing any input format.
package sources

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Format is the stable identifier of an input format, as reported in the
// `inputs` section of the JSON output.
type Format string

// The formats readygap reads. A CloudWatch Logs export, a Fluent Bit or
// Container Insights wrapper and a `kubectl logs --timestamps` prefix report the
// format of the lines they wrap.
const (
	FormatGCPLogging     Format = "gcp-logging"
	FormatALBAccess      Format = "alb-access"
	FormatALBHealthCheck Format = "alb-healthcheck"
	FormatAWSLBC         Format = "aws-lbc"
	FormatIngressNginx   Format = "ingress-nginx"
	FormatK8sEvents      Format = "k8s-events"
	FormatK8sObjects     Format = "k8s-objects"
	FormatEnvoyAccess    Format = "envoy-access"
	FormatEnvoyJSON      Format = "envoy-json"
	// FormatIngressNginxJSON is ingress-nginx with a JSON log-format-upstream.
	FormatIngressNginxJSON Format = "ingress-nginx-json"
	// FormatNginxAccess is plain nginx `combined` and the NGINX Inc
	// controller's default `main` access lines.
	FormatNginxAccess Format = "nginx-access"
	// FormatKubectlDescribe is the Events table of `kubectl describe`.
	FormatKubectlDescribe Format = "kubectl-describe"
	// FormatKubectlEvents is the table `kubectl get events` and
	// `kubectl events` print.
	FormatKubectlEvents Format = "kubectl-events"
	// FormatArgoRollouts is the Argo Rollouts controller's log.
	FormatArgoRollouts Format = "argo-rollouts"
	// FormatIstiod is the log of Istio's control plane, read for its
	// pushes of endpoints to the proxies.
	FormatIstiod Format = "istiod"
	// FormatFortio is the load-testing tool fortio's log: JSON lines,
	// one per failed request.
	FormatFortio Format = "fortio"
	// FormatFortioResult is fortio's JSON result: counts only.
	FormatFortioResult Format = "fortio-result"
	// FormatSiege is the load-testing tool siege's verbose output.
	FormatSiege Format = "siege"
	// FormatCurlLoop is a shell loop of curl printing a time and the
	// status code of each request.
	FormatCurlLoop Format = "curl-loop"
)

// Origin says where a record came from: the input name and the 1-based line
// on which the record (or the JSON element holding it) starts.
type Origin struct {
	File string
	Line int
}

// String renders the origin as file:line, or the file alone for a record
// with no line (one a query engine reduced, named by its object and its
// reference within it).
func (o Origin) String() string {
	if o.Line == 0 {
		return o.File
	}
	return fmt.Sprintf("%s:%d", o.File, o.Line)
}

// Generator says who produced the status code the client saw.
type Generator uint8

// Generators of a client-visible status.
const (
	GeneratedUnknown Generator = iota
	// GeneratedByLB means the load balancer or proxy produced the status itself
	// (no backend, connect failure, backend closed, timeout...).
	GeneratedByLB
	// GeneratedByBackend means the backend application sent the status.
	GeneratedByBackend
)

// String names the generator as used in JSON output.
func (g Generator) String() string {
	switch g {
	case GeneratedByLB:
		return "lb"
	case GeneratedByBackend:
		return "backend"
	}
	return "unknown"
}

// FailureKind classifies how a request (or one upstream attempt) went.
type FailureKind uint8

// Failure kinds, from the point of view of the load balancer or proxy.
const (
	// FailureNone: the backend answered with a non-5xx status, or the LB served it
	// itself without error (redirect, fixed response, cache).
	FailureNone FailureKind = iota
	// FailureAppError: the backend itself answered with a 5xx.
	FailureAppError
	// FailureNoBackend: the LB had no usable backend to send the request to.
	FailureNoBackend
	// FailureRefused: the connection to the chosen backend was refused (RST on connect).
	FailureRefused
	// FailureUnreachable: the chosen backend's address did not exist any more
	// (host unreachable / no route).
	FailureUnreachable
	// FailureClosed: the backend closed or reset the connection before a response.
	FailureClosed
	// FailureTimeout: connecting to or waiting for the backend timed out.
	FailureTimeout
	// FailureOther: any other LB-generated error (malformed response, TLS, internal).
	FailureOther
)

var failureNames = [...]string{"ok", "app_error", "no_backend", "refused", "unreachable", "closed", "timeout", "other"}

// String names the failure kind as used in JSON output.
func (f FailureKind) String() string {
	if int(f) < len(failureNames) {
		return failureNames[f]
	}
	return "other"
}

// LBGenerated reports whether the kind is a failure the LB or proxy produced
// (as opposed to success or an application error).
func (f FailureKind) LBGenerated() bool { return f >= FailureNoBackend }

// Attempt is one try of a proxy to reach a backend for a request.
type Attempt struct {
	Backend netip.AddrPort // the upstream address; zero when the attempt had no peer
	Status  int            // the attempt's status (0 when none was recorded, "-")
	Failure FailureKind
}

// Request is one request outcome as a load balancer or proxy logged it.
// The small fields sit together, so that no padding falls between them (a
// Request takes 256 bytes): the failure groups of one key share one.
//
// Adapters reuse the value they pass to a Handler, and its strings may alias
// the input's read buffer (see inputString): a Handler that keeps a Request,
// or any of its strings, must Clone it.
type Request struct {
	// Time is when the request started: when the load balancer or proxy
	// received it. Formats that log when the response was written and how
	// long the request took (nginx $time_local and $request_time, the ALB
	// time and request_creation_time, Envoy's %EMIT_TIME% or a wrapper's
	// stamp with %DURATION%) are read back to the start, so that a slow
	// request is placed where the backend's state decided it; the time
	// the line states is Logged.
	Time time.Time
	// LoggedAfter is how much later than Time the line's own time is: 0
	// when the format logs the start. See Logged.
	LoggedAfter time.Duration
	// LB names the load balancer or proxy: the ALB id (app/name/id), the GCP
	// backend service or URL map, the ingress-nginx upstream (ns-svc-port),
	// the Envoy upstream cluster (or, without one, the route name).
	LB string
	// Status is the status code the client saw; 0 when none was sent.
	Status    int
	Generator Generator
	Failure   FailureKind
	// AttemptOnly marks a proxy error-log line about one failed upstream
	// attempt. It is evidence of a failure kind and backend, not a
	// client-visible outcome, and must not be counted as a request.
	AttemptOnly bool
	// RetryLimit says the proxy stopped because its retry limit was reached
	// (Envoy's URX response flag): every attempt it was allowed failed.
	RetryLimit bool
	// OrderOnly marks a time that only orders the request among its
	// input's: a pasted access line whose own time was cut off, timed
	// from the input's anchor (see Emitter.OrderOnlyTime).
	OrderOnly bool
	// ClientSide marks a request as a client saw it (a load-test tool, a
	// curl loop): Status is what the client got, 0 when it got no
	// response; no load balancer, backend or generator is known. It is
	// the users' view of a window, never a load balancer's log.
	ClientSide bool
	// Backend is the address the request was finally sent to; zero when no
	// backend was chosen. Its port is 0 when the log does not give one.
	Backend netip.AddrPort
	// Attempts lists every upstream attempt in order when the proxy retries
	// and logs each one (ingress-nginx, Envoy's %UPSTREAM_HOSTS_ATTEMPTED%).
	// It is empty when the log records a single target only.
	Attempts []Attempt
	Method   string
	Path     string
	// Detail is the LB's own wording of the outcome: GCP statusDetails or
	// proxyStatus details, the nginx error text, the ALB error_reason, the
	// Envoy response flags and response code details.
	Detail string
	// AttemptCount is how many upstream attempts the proxy says it made
	// (Envoy %UPSTREAM_REQUEST_ATTEMPT_COUNT%); 0 when the log does not say.
	// Envoy logs no per-attempt backend by default, so a count above 1 on a
	// request that did not fail is a request a retry rescued even when
	// Attempts is empty.
	AttemptCount int
	// Duration is how long the proxy took from the request's first byte to
	// the response's last (Envoy %DURATION%, nginx $request_time, the ALB
	// time less request_creation_time); 0 when the log does not say.
	// A request retried after connect timeouts ends seconds after Time,
	// and its last attempt was made up to then.
	Duration time.Duration
	// Family is the load-balancer family of the proxy that logged the
	// request when it differs from its format's: Cloud Service Mesh (Istio)
	// access-log entries in a gcp-logging export are FamilyEnvoy. Empty means
	// FamilyOf(Format); use ProxyFamily.
	Family Family
	// Platform names the product around the proxy when the record shows it
	// (see Platform); "" when it does not.
	Platform Platform
	Format   Format
	Origin   Origin
}

// Logged returns the time the record's line states: its start (Time) or,
// for formats that log when the response was written, that time.
func (r *Request) Logged() time.Time { return r.Time.Add(r.LoggedAfter) }

// startedBefore returns the start of a request whose line states logged
// and a duration d: logged less d, to the precision of logged. A time
// written to the second (nginx's $time_local without a finer wrapper
// stamp) is of a response written within that second; the whole seconds
// of d are taken off it and the fraction is not, as the start is then
// known to the second only, and taking it off would move nearly every
// short request into the second before its own. A duration that is not
// positive gives logged.
func startedBefore(logged time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return logged
	}
	if logged.Nanosecond() == 0 {
		d = d.Truncate(time.Second)
	}
	return logged.Add(-d)
}

// ProxyFamily returns the load-balancer family of the proxy that logged r:
// its Family override, or its format's family.
func (r *Request) ProxyFamily() Family {
	if r.Family != "" {
		return r.Family
	}
	return FamilyOf(r.Format)
}

// Clone returns a copy of r that shares nothing with it: the Attempts slice
// and the strings are copied (the strings into one allocation).
func (r *Request) Clone() *Request {
	c := *r
	if r.Attempts != nil {
		c.Attempts = append([]Attempt(nil), r.Attempts...)
	}
	var b strings.Builder
	b.Grow(len(r.LB) + len(r.Method) + len(r.Path) + len(r.Detail))
	b.WriteString(r.LB)
	b.WriteString(r.Method)
	b.WriteString(r.Path)
	b.WriteString(r.Detail)
	all := b.String()
	c.LB, all = all[:len(r.LB)], all[len(r.LB):]
	c.Method, all = all[:len(r.Method)], all[len(r.Method):]
	c.Path, c.Detail = all[:len(r.Path)], all[len(r.Path):]
	return &c
}

// LifecycleKind is what happened to a backend (or to the workload around it).
type LifecycleKind uint8

// Lifecycle kinds, roughly in the order a pod goes through them.
const (
	// LifecycleOther is an event readygap keeps for the timeline but does not interpret.
	LifecycleOther LifecycleKind = iota
	// PodCreated: a ReplicaSet created the pod (SuccessfulCreate) or the pod object was created.
	PodCreated
	// PodScheduled: the scheduler bound the pod to a node.
	PodScheduled
	// ContainerStarted: the kubelet started a container.
	ContainerStarted
	// ProbeFailed: a readiness, liveness or startup probe failed; Reason holds the probe type.
	ProbeFailed
	// PodReady: the pod's Ready condition became True.
	PodReady
	// PodNotReady: the pod's Ready condition became False.
	PodNotReady
	// ReadinessGate: a readiness-gate condition changed; Group is the condition
	// type, Status its status, Reason its reason, Gate what that means.
	ReadinessGate
	// NEGAttach: GKE attached endpoints to a NEG; Group is the NEG, Count the endpoints.
	NEGAttach
	// NEGDetach: GKE detached endpoints from a NEG.
	NEGDetach
	// NEGOperationFailed: a NEG attach or detach failed.
	NEGOperationFailed
	// TargetRegistering: the AWS LB Controller started registering a target.
	TargetRegistering
	// TargetRegistered: the registration call returned.
	TargetRegistered
	// TargetDeregistering: the AWS LB Controller started deregistering a target.
	TargetDeregistering
	// TargetDeregistered: the deregistration call returned.
	TargetDeregistered
	// HealthCheck: an LB health check result or state change; Health holds
	// the verdict, Reason the LB's reason code.
	HealthCheck
	// Killing: the kubelet began stopping a container (before preStop runs).
	Killing
	// PreStopFailed: the preStop hook failed.
	PreStopFailed
	// PodDeleted: the pod was deleted (SuccessfulDelete, deletionTimestamp).
	PodDeleted
	// ScaledUp: a Deployment scaled a ReplicaSet up; Group is the ReplicaSet,
	// Count the new size, From the old size (-1 when unknown).
	ScaledUp
	// ScaledDown: a Deployment scaled a ReplicaSet down.
	ScaledDown
	// NoEndpoints: the proxy reported a Service without any ready endpoint.
	NoEndpoints
	// EventsLost: the source says events may be missing before this time.
	EventsLost
	// NodeDraining: a node was cordoned or marked for removal (kubectl
	// drain, cluster-autoscaler scale-down, Karpenter disruption, a spot
	// interruption); Node is the node, Source the component, Reason why.
	NodeDraining
	// PodEvicted: a component other than a rollout evicted the pod (an
	// autoscaler's scale-down, Karpenter, the taint manager, the kubelet).
	PodEvicted
	// Rescaled: a HorizontalPodAutoscaler set a new size; Object is the
	// autoscaler, Count the new size.
	Rescaled
	// ServiceSwitched: a progressive-delivery controller (Argo Rollouts)
	// moved a Service's selector to another ReplicaSet; Object is the
	// Rollout, Group the Service, Status the pod-template hash it now
	// selects and Previous the one it selected ("" when none).
	ServiceSwitched
	// TrafficWeight: a progressive-delivery controller set the share of
	// traffic sent to the canary; Object is the Rollout or Canary, Count
	// the new canary weight in percent, From the previous one (-1 when
	// unknown).
	TrafficWeight
	// RolloutStep: a progressive-delivery controller completed a step,
	// paused, resumed, ran an analysis or verified a target group; Object
	// is the Rollout or Canary, Reason the event reason, Status the step
	// as the controller words it (setWeight: 20, pause: 30s), Count the
	// step's 1-based index when the message gives one (else, as for every
	// record, the occurrence count).
	RolloutStep
	// RolloutCompleted: a progressive-delivery controller promoted the new
	// revision to stable and finished the update.
	RolloutCompleted
	// RolloutAborted: a progressive-delivery controller aborted the
	// update and sent traffic back to the stable revision.
	RolloutAborted
	// ProxyUpdated: a proxy learned a new set of endpoints from its control
	// plane at Time (istiod pushed endpoints to an Envoy, ingress-nginx
	// posted its backends to its Lua balancer). Proxy names the proxy when
	// the line does (empty: every proxy the control plane serves, or the
	// one whose log it is); Namespace and Object name the Service when the
	// line does; Reason says which push; Count is the endpoints or
	// resources sent, 0 when the line does not say.
	ProxyUpdated
)

// LastLifecycleKind is the last lifecycle kind, for loops over them all.
const LastLifecycleKind = ProxyUpdated

var lifecycleNames = [...]string{
	"other", "pod_created", "pod_scheduled", "container_started", "probe_failed",
	"pod_ready", "pod_not_ready", "readiness_gate", "neg_attach", "neg_detach",
	"neg_operation_failed", "target_registering", "target_registered",
	"target_deregistering", "target_deregistered", "health_check", "killing",
	"prestop_failed", "pod_deleted", "scaled_up", "scaled_down", "no_endpoints",
	"events_lost", "node_draining", "pod_evicted", "rescaled",
	"service_switched", "traffic_weight", "rollout_step", "rollout_completed",
	"rollout_aborted", "proxy_updated",
}

// String names the lifecycle kind as used in JSON output.
func (k LifecycleKind) String() string {
	if int(k) < len(lifecycleNames) {
		return lifecycleNames[k]
	}
	return "other"
}

// Lifecycle is one thing that happened to a backend, a pod or the workload
// around it, as an event, a controller log line or an object's status said.
//
// Adapters reuse the value they pass to a Handler: a Handler that keeps a
// Lifecycle must copy it.
type Lifecycle struct {
	Time time.Time
	// TimeError is how far Time may be from when it happened: an event
	// read from a kubectl table, whose age is printed rounded and relative
	// to when the table was printed, happened within Time ± TimeError.
	// Zero for a time as recorded.
	TimeError time.Duration
	// OrderOnly marks a time that only orders the record among its
	// input's: a kubectl table's age with no reference time to count back
	// from (no --now, no absolute time in the table).
	OrderOnly bool
	Kind      LifecycleKind
	// Namespace and Pod name the pod, when known.
	Namespace string
	Pod       string
	// IP and Port name the backend address, when known.
	IP   netip.Addr
	Port int
	Zone string
	Node string
	// Object is the involved object as Kind/name (Service/web, Deployment/web).
	Object string
	// Proxy names the proxy a ProxyUpdated record is about, as its control
	// plane names it (istiod: `<pod>.<namespace>`); empty otherwise.
	Proxy string
	// Reason is the event reason, readiness-gate reason, probe type or health-check reason code.
	Reason string
	// Status is a condition status (True/False/"") or, for a health check,
	// the load balancer's own word for the result (PASS, HEALTHY...), kept
	// for display; Health and Gate hold what it means.
	Status string
	// Health is the load balancer's verdict of a HealthCheck record.
	Health Health
	// Gate is what a ReadinessGate record says about the load balancer.
	Gate GateState
	// Group names what the event is about beyond the pod: NEG name, target
	// group ARN, readiness-gate condition type, ReplicaSet name.
	Group string
	// Count is the number of endpoints or targets, the replica count after
	// scaling, or the event's occurrence count; 0 when not applicable.
	Count int
	// From is the replica count before scaling, or the canary weight
	// before a TrafficWeight change; -1 when unknown.
	From int
	// Previous is what a ServiceSwitched record's Service selected
	// before: the old pod-template hash ("" when none).
	Previous string
	// Source is the component that reported it (kubelet, neg-controller, ...).
	Source string
	// FromAPI marks a record read from the Kubernetes API (an Event or an
	// object's status), stamped by the cluster's clocks rather than the
	// load balancer's.
	FromAPI bool
	Message string
	Format  Format
	Origin  Origin
}

// Health is a backend's state as the load balancer's own health checking
// sees it, whatever words the load balancer uses for it.
type Health uint8

// Health states.
const (
	// HealthUnknown: the record does not say.
	HealthUnknown Health = iota
	// HealthInitial: registered but not yet checked healthy (ALB "initial").
	HealthInitial
	// HealthHealthy: the load balancer may send requests to the backend
	// (ALB PASS, GCP HEALTHY).
	HealthHealthy
	// HealthUnhealthy: checks fail (ALB FAIL, GCP UNHEALTHY or TIMEOUT).
	HealthUnhealthy
	// HealthDraining: the backend is being removed and gets no new requests
	// (ALB draining, GCP DRAINING).
	HealthDraining
)

var healthNames = [...]string{"unknown", "initial", "healthy", "unhealthy", "draining"}

// String names the health state as used in JSON output.
func (h Health) String() string {
	if int(h) < len(healthNames) {
		return healthNames[h]
	}
	return "unknown"
}

// GateState is what a readiness-gate condition says about the load
// balancer's view of a pod, whatever the controller that sets it.
type GateState uint8

// Readiness-gate states.
const (
	// GateOther: a gate readygap does not interpret.
	GateOther GateState = iota
	// GateWaiting: the gate is closed; the load balancer has not reported the
	// pod healthy yet (GKE LoadBalancerNegNotReady, ALB target not healthy).
	GateWaiting
	// GateLBHealthy: the gate opened because the load balancer saw the pod
	// healthy (GKE LoadBalancerNegReady, ALB target-health gate True).
	GateLBHealthy
	// GateWithoutHealthCheck: the gate opened although no load-balancer
	// health check covers the pod yet (GKE LoadBalancerNegWithoutHealthCheck,
	// typical of the first pod in a new zone; kubernetes/ingress-gce#1718).
	GateWithoutHealthCheck
	// GateTimeout: the gate opened after waiting too long for the load
	// balancer (GKE LoadBalancerNegTimeout).
	GateTimeout
)

var gateNames = [...]string{"other", "waiting", "lb_healthy", "without_health_check", "timeout"}

// String names the gate state as used in JSON output and scenario files.
func (g GateState) String() string {
	if int(g) < len(gateNames) {
		return gateNames[g]
	}
	return "other"
}

// Opened reports whether the gate let the pod become Ready.
func (g GateState) Opened() bool { return g >= GateLBHealthy }

// ClusterClock reports whether the record was stamped by the cluster's
// clocks (the Kubernetes API, a controller running in the cluster) rather
// than the load balancer's.
func (l *Lifecycle) ClusterClock() bool { return l.FromAPI || formatInfo(l.Format).ClusterClock }

// Handler receives the records of one input. The pipeline calls a Handler from
// one goroutine at a time; values passed in are reused after the call returns.
type Handler interface {
	Request(*Request)
	Lifecycle(*Lifecycle)
	Config(*Config)
}

// OutcomeHandler is implemented by a Handler that reads only the outcome
// of a request that did not fail: of a Request whose Failure is
// FailureNone and that has no Attempts, it uses Time, LB, Status,
// Generator, Failure, Backend, Format and Origin, never Method, Path or
// Detail. An adapter may leave those three empty on such a Request when
// filling them costs time; the ALB access-log adapter does.
type OutcomeHandler interface {
	Handler
	// OnlyOutcomesOfSuccesses marks the Handler; it does nothing.
	OnlyOutcomesOfSuccesses()
}

// Flusher is implemented by a Handler that folds what it gathered into
// something shared from time to time: Read calls Flush when an input the
// Handler served is done, before the Handler serves another.
type Flusher interface {
	Flush()
}

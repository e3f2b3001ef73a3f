package sources

import (
	"net/netip"
	"strings"
	"time"
)

// Config is one configuration fact read from a Kubernetes object: what the
// rules need to know about probes, ports, rollout strategy, load-balancer
// health checks and draining. Exactly the fact structs that apply to Kind are
// set; the others are nil. Facts hold only what the object says: controller
// and cloud defaults (health-check intervals, deregistration delay) are the
// rules' business, except where a field notes a Kubernetes API default.
type Config struct {
	// Kind is the object kind (Pod, Deployment, ReplicaSet, Service, Ingress,
	// IngressClass, IngressClassParams, BackendConfig, TargetGroupBinding,
	// EndpointSlice, Namespace, ConfigMap, HorizontalPodAutoscaler,
	// Rollout, Canary).
	Kind      string
	Namespace string
	Name      string
	Format    Format
	Origin    Origin
	// Created is metadata.creationTimestamp (second resolution); zero when absent.
	Created time.Time
	// Labels are the object's labels; for a Namespace they hold
	// LabelALBReadinessGateInject.
	Labels map[string]string

	// Workload is set for Deployments, ReplicaSets, StatefulSets and Argo
	// Rollouts.
	Workload *Workload
	// PodSpec is set for Pods (their spec; a workload's template is in Workload.Template).
	PodSpec *PodSpec
	// Pod is set for Pods (their status and deletion facts).
	Pod *PodStatus
	// Service is set for Services.
	Service *Service
	// HealthCheck is set for a BackendConfig with spec.healthCheck or
	// spec.connectionDraining, and for an Ingress or Service carrying ALB
	// health-check or target-group annotations.
	HealthCheck *LBHealthCheck
	// Ingress is set for Ingresses.
	Ingress *Ingress
	// IngressClass is set for IngressClasses.
	IngressClass *IngressClass
	// IngressClassParams is set for the AWS Load Balancer Controller's
	// IngressClassParams.
	IngressClassParams *IngressClassParams
	// TargetGroupBinding is set for TargetGroupBindings.
	TargetGroupBinding *TargetGroupBinding
	// EndpointSlice is set for EndpointSlices.
	EndpointSlice *EndpointSlice
	// Proxy is set for an ingress-nginx controller's ConfigMap.
	Proxy *ProxySettings

	// Gateway is set for Gateway API Gateways.
	Gateway *Gateway
	// HTTPRoute is set for Gateway API HTTPRoutes.
	HTTPRoute *HTTPRoute
	// BackendTrafficPolicy is set for Envoy Gateway BackendTrafficPolicies.
	BackendTrafficPolicy *BackendTrafficPolicy
	// DestinationRule is set for Istio DestinationRules.
	DestinationRule *DestinationRule
	// VirtualService is set for Istio VirtualServices.
	VirtualService *VirtualService
	// HTTPProxy is set for Contour HTTPProxies.
	HTTPProxy *HTTPProxy
	// IngressRoute, TraefikMiddleware and ServersTransport are set for
	// Traefik's objects of those kinds.
	IngressRoute      *IngressRoute
	TraefikMiddleware *TraefikMiddleware
	ServersTransport  *ServersTransport
	// Autoscaler is set for HorizontalPodAutoscalers.
	Autoscaler *Autoscaler
	// Rollout is set for Argo Rollouts (beside Workload, their pod
	// template and replicas).
	Rollout *Rollout
	// Canary is set for Flagger Canaries.
	Canary *FlaggerCanary
	// IstioMesh is set for Istio's mesh ConfigMap (`istio` or
	// `istio-<revision>` with a `mesh` key): its meshConfig.defaultConfig,
	// which applies to every sidecar the pod annotation does not override.
	IstioMesh *IstioProxyConfig
}

// LabelALBReadinessGateInject is the Namespace label that makes the AWS Load
// Balancer Controller inject target-health readiness gates into new pods
// (value "enabled").
const LabelALBReadinessGateInject = "elbv2.k8s.aws/pod-readiness-gate-inject"

// ALBReadinessGateInjected reports whether c is a Namespace labelled for ALB
// readiness-gate injection.
func (c *Config) ALBReadinessGateInjected() bool {
	return c.Kind == "Namespace" && c.Labels[LabelALBReadinessGateInject] == "enabled"
}

// Autoscaler holds what a HorizontalPodAutoscaler says about the workload
// it scales: its replica count is the autoscaler's, not spec.replicas.
type Autoscaler struct {
	// TargetKind and TargetName are spec.scaleTargetRef's.
	TargetKind, TargetName string
	// MinReplicas is spec.minReplicas; nil when unset (the API defaults it
	// to 1). MaxReplicas is spec.maxReplicas.
	MinReplicas *int
	MaxReplicas int
}

// Workload holds the rollout facts of a Deployment or ReplicaSet.
type Workload struct {
	// Replicas is spec.replicas; nil when unset (the API defaults it to 1).
	Replicas *int
	// MinReadySeconds is spec.minReadySeconds in seconds (0 when unset).
	MinReadySeconds int
	// ProgressDeadlineSec is a Deployment's spec.progressDeadlineSeconds;
	// nil when unset (the API defaults it to 600).
	ProgressDeadlineSec *int
	// Strategy is the Deployment strategy type (RollingUpdate, Recreate); "" when
	// unset (RollingUpdate) and for ReplicaSets.
	Strategy string
	// MaxSurge and MaxUnavailable are as written ("25%", "1", "0"); "" when unset
	// (both default to 25%).
	MaxSurge, MaxUnavailable string
	// Selector is spec.selector.matchLabels (matchExpressions are not kept).
	Selector map[string]string
	// Deployment is the owner Deployment of a ReplicaSet; "" otherwise.
	Deployment string
	// Rollout is the owner Argo Rollout of a ReplicaSet; "" otherwise.
	Rollout string
	// PodTemplateHash is a ReplicaSet's pod-template-hash label.
	PodTemplateHash string
	// Revision is the deployment.kubernetes.io/revision annotation.
	Revision string
	// TemplateLabels are the labels of the pod template.
	TemplateLabels map[string]string
	// Template holds the pod template's facts.
	Template *PodSpec
}

// PodSpec holds the facts of a pod spec or pod template that decide when a
// pod may receive traffic and how it stops.
type PodSpec struct {
	// Containers lists the regular containers, then restartable init (sidecar) containers.
	Containers []Container
	// ReadinessGates are the spec.readinessGates condition types.
	ReadinessGates []string
	// TerminationGracePeriodSec is spec.terminationGracePeriodSeconds in seconds,
	// 30 when unset.
	TerminationGracePeriodSec int
	// TerminationGraceDefaulted is true when the spec did not set the grace period.
	TerminationGraceDefaulted bool
	// Istio holds the Istio sidecar settings of the pod or template; nil
	// when it has neither an istio-proxy container nor an Istio annotation.
	Istio *IstioSidecar
	// TopologySpread are spec.topologySpreadConstraints.
	TopologySpread []TopologySpread
}

// TopologySpread is one entry of a pod spec's topologySpreadConstraints.
type TopologySpread struct {
	// Key is topologyKey (topology.kubernetes.io/zone spreads over zones).
	Key     string
	MaxSkew int
	// WhenUnsatisfiable is DoNotSchedule (the API default) or ScheduleAnyway.
	WhenUnsatisfiable string
}

// LabelZone is the well-known node label of a node's zone.
const LabelZone = "topology.kubernetes.io/zone"

// SpreadsOverZones reports whether the spec asks the scheduler to spread
// its pods over zones (a topologySpreadConstraint on LabelZone).
func (s *PodSpec) SpreadsOverZones() bool {
	for _, t := range s.TopologySpread {
		if t.Key == LabelZone {
			return true
		}
	}
	return false
}

// HasALBTargetHealthGate reports whether the spec carries a readiness gate
// of the AWS Load Balancer Controller (target-health.elbv2.k8s.aws/...).
func (s *PodSpec) HasALBTargetHealthGate() bool {
	for _, g := range s.ReadinessGates {
		if strings.HasPrefix(g, albTargetHealthGatePrefix) {
			return true
		}
	}
	return false
}

// NEGReadinessGate is the readiness-gate condition GKE injects into pods
// behind a NEG that an Ingress or Gateway uses.
const NEGReadinessGate = "cloud.google.com/load-balancer-neg-ready"

// HasNEGReadinessGate reports whether the spec carries GKE's NEG readiness gate.
func (s *PodSpec) HasNEGReadinessGate() bool {
	for _, g := range s.ReadinessGates {
		if g == NEGReadinessGate {
			return true
		}
	}
	return false
}

// ResolvePort resolves a Service targetPort name to a container port number
// as the EndpointSlice controller does: the first port with that name and
// protocol ("" means TCP) among the regular containers, then the sidecars.
// It returns 0 when no container declares it.
func (s *PodSpec) ResolvePort(name, protocol string) int {
	if protocol == "" {
		protocol = "TCP"
	}
	for _, c := range s.Containers {
		for _, p := range c.Ports {
			proto := p.Protocol
			if proto == "" {
				proto = "TCP"
			}
			if p.Name == name && proto == protocol {
				return p.Number
			}
		}
	}
	return 0
}

// Container holds one container's ports, probes and preStop hook.
type Container struct {
	Name string
	// Sidecar is true for a restartable init container (restartPolicy Always).
	Sidecar bool
	Ports   []ContainerPort
	// Readiness, Liveness and Startup are the probes; nil when not set.
	Readiness, Liveness, Startup *Probe
	// PreStop is the preStop hook; nil when not set.
	PreStop *PreStop
	// KeepAlive is the HTTP keep-alive timeout its command line or
	// environment sets; nil when neither says.
	KeepAlive *KeepAlive
	// Traefik is what the flags of a container running Traefik say of
	// its providers; nil for any other container.
	Traefik *TraefikProvider
}

// ContainerPort is one declared container port.
type ContainerPort struct {
	Name string
	// Number is containerPort.
	Number int
	// Protocol is TCP, UDP or SCTP ("" when unset, meaning TCP).
	Protocol string
}

// Probe is a readiness, liveness or startup probe.
type Probe struct {
	// Handler is httpGet, tcpSocket, grpc or exec.
	Handler string
	// Port is the probed port number, resolved from a named port of the same
	// container as the kubelet does; 0 for exec or when a name does not resolve.
	Port int
	// PortName is the port as written when it was a name; "" for numbers.
	PortName string
	// Path and Scheme are the httpGet path and scheme.
	Path, Scheme string
	// Command is the exec command joined with spaces.
	Command string
	// InitialDelaySec, PeriodSec and TimeoutSec are in seconds; SuccessThreshold
	// and FailureThreshold count probes. Unset values take the API defaults
	// (0, 10, 1, 1, 3).
	InitialDelaySec, PeriodSec, TimeoutSec int
	SuccessThreshold, FailureThreshold     int
}

// PreStop is a container's preStop hook.
type PreStop struct {
	// Handler is sleep, exec, httpGet or tcpSocket; "" for none of them.
	Handler string
	// Command is the exec command as written; nil for other handlers.
	Command []string
	// Description renders the hook: "sleep 15", "exec: sh -c sleep 15",
	// "httpGet :8080/shutdown", "tcpSocket :8080".
	Description string
	// SleepSec is how long the hook sleeps, in seconds, when it is a sleep
	// action or an exec of `sleep N` (directly or as the first command of
	// `sh -c`); nil otherwise.
	SleepSec *int
}

// PodStatus holds a pod's identity, placement and status.
type PodStatus struct {
	// IP is status.podIP; invalid when the pod has none.
	IP netip.Addr
	// Node is spec.nodeName.
	Node string
	// Phase is status.phase (Pending, Running, Succeeded, Failed, Unknown).
	Phase string
	// ReplicaSet is the owner ReplicaSet; PodTemplateHash its pod-template-hash label.
	ReplicaSet, PodTemplateHash string
	// StatefulSet is the owner StatefulSet; "" for a pod of any other owner.
	StatefulSet string
	// Started is status.startTime; zero when absent.
	Started time.Time
	// Deleted is metadata.deletionTimestamp: the time the kubelet may kill the
	// pod, i.e. the start of termination plus the grace period; zero when the
	// pod is not terminating.
	Deleted time.Time
	// DeletionGracePeriodSec is metadata.deletionGracePeriodSeconds in seconds; nil when unset.
	DeletionGracePeriodSec *int
	Conditions             []PodCondition
	Containers             []ContainerStatus
}

// TerminationStarted is when termination began: Deleted minus the deletion
// grace period (the spec's grace period when the object does not say). It is
// zero when the pod is not terminating.
func (p *PodStatus) TerminationStarted(spec *PodSpec) time.Time {
	if p.Deleted.IsZero() {
		return time.Time{}
	}
	grace := 30
	switch {
	case p.DeletionGracePeriodSec != nil:
		grace = *p.DeletionGracePeriodSec
	case spec != nil:
		grace = spec.TerminationGracePeriodSec
	}
	return p.Deleted.Add(-time.Duration(grace) * time.Second)
}

// PodCondition is one entry of status.conditions. Readiness-gate conditions
// keep their custom type; GKE's NEG gate has an empty Status while waiting.
type PodCondition struct {
	Type, Status, Reason, Message string
	// LastTransition is lastTransitionTime (second resolution); zero when absent.
	LastTransition time.Time
}

// ContainerStatus is one entry of status.containerStatuses (or of the init
// container statuses for sidecars).
type ContainerStatus struct {
	Name         string
	Ready        bool
	RestartCount int
	// StartedAt is state.running.startedAt; zero when the container is not running.
	StartedAt time.Time
}

// Service holds the facts of a Service that map its ports to pods and to load balancers.
type Service struct {
	// Type is spec.type (ClusterIP, NodePort, LoadBalancer, ...).
	Type     string
	Selector map[string]string
	Ports    []ServicePort
	// PublishNotReadyAddresses forces endpoints ready.
	PublishNotReadyAddresses bool
	// NEG is the cloud.google.com/neg annotation as written (JSON); NEGIngress is
	// true when it enables NEGs for Ingress ({"ingress": true}).
	NEG        string
	NEGIngress bool
	// NEGExposedPorts are the Service ports the cloud.google.com/neg
	// annotation exposes as standalone NEGs (its exposed_ports keys), in
	// order; GKE gives pods behind standalone NEGs no readiness gate.
	NEGExposedPorts []int
	// NEGs maps a service port (as a decimal string) to its NEG name, and
	// NEGZones lists the zones, from the cloud.google.com/neg-status annotation.
	NEGs     map[string]string
	NEGZones []string
	// BackendConfigs maps a service port name or number to a BackendConfig name,
	// from the (beta.)cloud.google.com/backend-config annotation; the key
	// "default" applies to every port.
	BackendConfigs map[string]string
	// Annotations keeps the annotations that matter to load balancing
	// (cloud.google.com/*, service.kubernetes.io/*, service.beta.kubernetes.io/*,
	// alb.ingress.kubernetes.io/*, networking.gke.io/*).
	Annotations map[string]string
}

// ServicePort is one entry of a Service's spec.ports.
type ServicePort struct {
	Name, Protocol string
	// Port is the Service port number.
	Port int
	// TargetPort is targetPort as written (a number or a container port name);
	// "" when omitted.
	TargetPort string
	// TargetPortNumber is the target port when it is a number, or Port when
	// omitted; 0 when it is a name (resolve it against the pods' container ports).
	TargetPortNumber int
	// NodePort is the node port; 0 when none.
	NodePort int
}

// LBHealthCheck holds the load-balancer health-check and draining settings an
// object states. Unset fields are nil or "": defaults are not filled in.
type LBHealthCheck struct {
	// Source says where the settings were written: "BackendConfig",
	// "Ingress annotations" or "Service annotations".
	Source string
	// IntervalSec and TimeoutSec are in seconds; the thresholds count checks.
	IntervalSec, TimeoutSec              *int
	HealthyThreshold, UnhealthyThreshold *int
	// Port is the health-check port as written (a number, "traffic-port" or a
	// port name); PortNumber is it when numeric, 0 otherwise.
	Port       string
	PortNumber int
	// Protocol is the health-check protocol or type (HTTP, HTTPS, HTTP2, TCP).
	Protocol string
	Path     string
	// SuccessCodes is the ALB success-codes matcher as written.
	SuccessCodes string
	// IdleTimeoutSec is the ALB load-balancer attribute
	// idle_timeout.timeout_seconds, in seconds, from an Ingress's
	// load-balancer-attributes annotation (the controller reads it on
	// Ingresses only; IngressClassParams set it too).
	IdleTimeoutSec *int
	// DeregistrationDelaySec is the ALB target-group attribute
	// deregistration_delay.timeout_seconds, in seconds.
	DeregistrationDelaySec *int
	// DrainingTimeoutSec is GKE connectionDraining.drainingTimeoutSec, in seconds.
	DrainingTimeoutSec *int
	// TargetType is the ALB target type (ip, instance).
	TargetType string
	// LogSampleRate is the share of requests the load balancer logs
	// (BackendConfig spec.logging.sampleRate, 0 to 1); nil when not stated.
	LogSampleRate *float64
}

// Ingress holds an Ingress's class, relevant annotations and backends.
type Ingress struct {
	// Class is spec.ingressClassName, or the kubernetes.io/ingress.class annotation.
	Class string
	// ClassName is spec.ingressClassName alone, the name of an IngressClass
	// object; "" when unset.
	ClassName string
	// Annotations keeps alb.ingress.kubernetes.io/*, nginx.ingress.kubernetes.io/*,
	// kubernetes.io/ingress.*, ingress.gcp.kubernetes.io/*, networking.gke.io/*
	// and cloud.google.com/* annotations.
	Annotations map[string]string
	// Backends lists the default backend first, then each rule path's backend.
	Backends []IngressBackend
}

// IngressBackend is one Service backend of an Ingress.
type IngressBackend struct {
	// Host and Path are the rule's host and path; "" for the default backend.
	Host, Path string
	// Service is the backend Service name.
	Service string
	// PortName and PortNumber are the Service port as written (one of them is set).
	PortName   string
	PortNumber int
}

// IngressClass holds an IngressClass (networking.k8s.io, cluster-scoped):
// the controller that implements the Ingresses of the class and the object
// that configures it.
type IngressClass struct {
	// Controller is spec.controller: ingress.k8s.aws/alb for the AWS Load
	// Balancer Controller, k8s.io/ingress-nginx for ingress-nginx.
	Controller string
	// Default is true when the ingressclass.kubernetes.io/is-default-class
	// annotation is "true": an Ingress created without a class gets this one.
	Default bool
	// Parameters is spec.parameters (Group is its apiGroup, Namespace is
	// set when its scope is Namespace); nil when unset.
	Parameters *ObjectRef
}

// ALBIngressController is the IngressClass controller name of the AWS Load
// Balancer Controller.
const ALBIngressController = "ingress.k8s.aws/alb"

// IngressClassParams holds an AWS Load Balancer Controller
// IngressClassParams (elbv2.k8s.aws, cluster-scoped): settings the
// controller applies to every Ingress of the IngressClasses whose
// parameters name it.
type IngressClassParams struct {
	// Group is spec.group.name: every Ingress of the class is in that
	// IngressGroup, one ALB; "" when unset.
	Group string
	// LoadBalancerAttributes are spec.loadBalancerAttributes, in order.
	LoadBalancerAttributes []Attribute
}

// Attribute is one key and value of a load balancer's attributes.
type Attribute struct{ Key, Value string }

// IdleTimeoutSec returns the idle_timeout.timeout_seconds attribute in
// seconds; nil when absent or not a whole number.
func (p *IngressClassParams) IdleTimeoutSec() *int {
	for _, a := range p.LoadBalancerAttributes {
		if a.Key == ALBIdleTimeoutAttribute {
			return atoiPtr(a.Value)
		}
	}
	return nil
}

// TargetGroupBinding holds an AWS Load Balancer Controller TargetGroupBinding.
type TargetGroupBinding struct {
	// Service and ServicePort name the bound Service port (as written: number or name).
	Service, ServicePort string
	// TargetGroupARN is spec.targetGroupARN; TargetGroupName is spec.targetGroupName.
	TargetGroupARN, TargetGroupName string
	// TargetType is ip or instance ("" when unset).
	TargetType string
	// ReadinessGate is the pod condition type the controller sets for targets
	// of this binding: target-health.elbv2.k8s.aws/<binding name>.
	ReadinessGate string
}

// EndpointSlice holds a discovery.k8s.io/v1 EndpointSlice.
type EndpointSlice struct {
	// Service is the kubernetes.io/service-name label.
	Service string
	// AddressType is IPv4, IPv6 or FQDN.
	AddressType string
	Ports       []EndpointPort
	Endpoints   []Endpoint
}

// EndpointPort is one port of an EndpointSlice.
type EndpointPort struct {
	Name, Protocol string
	// Port is the port number; 0 when unset (all ports).
	Port int
}

// Endpoint is one endpoint of an EndpointSlice. Its conditions keep nil as
// written; use IsReady, IsServing and IsTerminating for the API semantics.
type Endpoint struct {
	// Addresses are the endpoint's IP addresses (FQDN addresses are dropped).
	Addresses                   []netip.Addr
	Ready, Serving, Terminating *bool
	// Pod is the targetRef name when it refers to a Pod.
	Pod  string
	Node string
	Zone string
}

// IsReady applies the API semantics: nil means ready.
func (e *Endpoint) IsReady() bool { return e.Ready == nil || *e.Ready }

// IsServing applies the API semantics: nil means serving.
func (e *Endpoint) IsServing() bool { return e.Serving == nil || *e.Serving }

// IsTerminating applies the API semantics: nil means not terminating.
func (e *Endpoint) IsTerminating() bool { return e.Terminating != nil && *e.Terminating }

// PreStopSleep returns the longest preStop sleep of the spec's containers,
// in seconds; 0 when none sleeps.
func (s *PodSpec) PreStopSleep() int {
	longest := 0
	for _, c := range s.Containers {
		if c.PreStop != nil && c.PreStop.SleepSec != nil && *c.PreStop.SleepSec > longest {
			longest = *c.PreStop.SleepSec
		}
	}
	return longest
}

// The facts below describe Envoy-based gateways and meshes: Gateway API
// objects, Envoy Gateway, Istio and Contour policies, and the Istio sidecar
// settings that decide how a pod stops. Like every fact they hold only
// what the object says: unset fields are nil, "" or empty, and the
// products' defaults (Envoy Gateway's 2 retries once a retry policy
// exists, Istio's 5 s terminationDrainDuration) are the rules' business.
// Durations are parsed from the Go-style strings these APIs use ("5s",
// "1m30s", "250ms"); nil when absent or unreadable.

// Gateway holds a Gateway API Gateway (gateway.networking.k8s.io).
type Gateway struct {
	// Class is spec.gatewayClassName.
	Class     string
	Listeners []GatewayListener
	// Addresses are status.addresses[].value: where the gateway is reached.
	Addresses []string
}

// GatewayListener is one entry of a Gateway's spec.listeners.
type GatewayListener struct {
	Name, Protocol, Hostname string
	Port                     int
}

// HTTPRoute holds a Gateway API HTTPRoute.
type HTTPRoute struct {
	// Parents are spec.parentRefs: the Gateways the route attaches to.
	Parents   []ObjectRef
	Hostnames []string
	Rules     []HTTPRouteRule
}

// ObjectRef names another object as a reference writes it: Group and Kind
// as written ("" where the API defaults them), Namespace "" for the
// referring object's own, Section the sectionName of a parent or target
// (a listener or a Service port name).
type ObjectRef struct {
	Group, Kind, Namespace, Name, Section string
	// Port is a parentRef's port; 0 when unset.
	Port int
}

// HTTPRouteRule is one entry of an HTTPRoute's spec.rules.
type HTTPRouteRule struct {
	// Index is the rule's position in spec.rules. Envoy Gateway names the
	// rule's cluster httproute/<namespace>/<route>/rule/<Index>, the
	// upstream cluster its access log shows.
	Index int
	// Name is the rule's name; "" when unset.
	Name     string
	Backends []RouteBackend
	// Retry is the rule's retry (GEP-1731); nil when unset.
	Retry *RouteRetry
	// RequestTimeout and BackendRequestTimeout are timeouts.request and
	// timeouts.backendRequest.
	RequestTimeout, BackendRequestTimeout *time.Duration
}

// RouteBackend is one backend of a route: a Gateway API backendRef, an
// Istio route destination, a Contour route service.
type RouteBackend struct {
	// Group and Kind are as written; both "" means a Service (the API default).
	Group, Kind string
	// Namespace is "" for the route's own.
	Namespace string
	// Name is the Service name (an Istio destination host, as written).
	Name string
	// Subset is an Istio destination subset; "" otherwise.
	Subset string
	// Port is the Service port number; 0 when unset.
	Port int
	// Weight is the backend's weight; nil when unset (Gateway API and Istio
	// then share traffic as if every weight were equal).
	Weight *int
}

// RouteRetry is a Gateway API HTTPRoute rule's retry.
type RouteRetry struct {
	// Attempts is the maximum number of retries; nil when unset.
	Attempts *int
	// Codes are the statuses that are retried.
	Codes   []int
	Backoff *time.Duration
}

// BackendTrafficPolicy holds the parts of an Envoy Gateway
// BackendTrafficPolicy (gateway.envoyproxy.io) that decide which backends
// Envoy sends to and whether it tries again.
type BackendTrafficPolicy struct {
	// Targets are spec.targetRef and spec.targetRefs.
	Targets []ObjectRef
	// ActiveHealthCheck is spec.healthCheck.active; nil when unset.
	ActiveHealthCheck *ActiveHealthCheck
	// PassiveHealthCheck is spec.healthCheck.passive; nil when unset.
	PassiveHealthCheck *OutlierDetection
	// PanicThreshold is spec.healthCheck.panicThreshold in percent: below
	// that share of healthy hosts Envoy sends to all of them; nil when unset
	// (Envoy's 50), 0 disables panic mode.
	PanicThreshold *int
	// Retry is spec.retry; nil when unset (Envoy Gateway then does not retry).
	Retry *ProxyRetry
}

// ActiveHealthCheck is a proxy's own health checking of backends (Envoy
// Gateway active health checks, Contour healthCheckPolicy).
type ActiveHealthCheck struct {
	// Type is HTTP, TCP or GRPC ("" when the object does not say).
	Type string
	Path string
	// Port is the port checked instead of the backend's; 0 when unset.
	Port              int
	Interval, Timeout *time.Duration
	// InitialJitter bounds the random wait before a new host's first check
	// (Envoy Gateway's initialJitter); nil when unset.
	InitialJitter                        *time.Duration
	HealthyThreshold, UnhealthyThreshold *int
}

// OutlierDetection is passive health checking: backends ejected for a
// while after consecutive failures (Envoy Gateway passive health checks,
// Istio DestinationRule outlierDetection).
type OutlierDetection struct {
	Consecutive5xxErrors, ConsecutiveGatewayErrors, ConsecutiveLocalOriginFailures *int
	Interval, BaseEjectionTime                                                     *time.Duration
	MaxEjectionPercent                                                             *int
	// MinHealthPercent is Istio's minHealthPercent; nil elsewhere.
	MinHealthPercent               *int
	SplitExternalLocalOriginErrors *bool
}

// ProxyRetry is a proxy's retry policy: Envoy Gateway's retry, an Istio
// VirtualService route's retries, a Contour route's retryPolicy.
type ProxyRetry struct {
	// Retries is the number of retries as written (Envoy Gateway
	// numRetries, Istio attempts, Contour count); nil when unset. Istio's 0
	// and Contour's -1 turn retries off; Contour's 0 means Envoy's 1.
	Retries *int
	// On lists the retry conditions as written (Envoy Gateway triggers,
	// Istio retryOn split at commas, Contour retryOn).
	On []string
	// StatusCodes are the retried statuses (Envoy Gateway httpStatusCodes,
	// Contour retriableStatusCodes).
	StatusCodes   []int
	PerTryTimeout *time.Duration
}

// DestinationRule holds an Istio DestinationRule (networking.istio.io).
type DestinationRule struct {
	// Host is spec.host as written.
	Host string
	// OutlierDetection is spec.trafficPolicy.outlierDetection; nil when unset.
	OutlierDetection *OutlierDetection
	Subsets          []DestinationSubset
}

// DestinationSubset is one entry of a DestinationRule's spec.subsets.
type DestinationSubset struct {
	Name   string
	Labels map[string]string
	// OutlierDetection is the subset's own trafficPolicy.outlierDetection; nil when unset.
	OutlierDetection *OutlierDetection
}

// VirtualService holds an Istio VirtualService.
type VirtualService struct {
	Hosts, Gateways []string
	// Routes are spec.http.
	Routes []VirtualServiceRoute
}

// VirtualServiceRoute is one entry of a VirtualService's spec.http.
type VirtualServiceRoute struct {
	Name string
	// Destinations are route[].destination with their weights.
	Destinations []RouteBackend
	// Retries is the route's retries; nil when unset, which in Istio means
	// its default policy (2 retries on connect-failure,refused-stream,
	// unavailable,cancelled,retriable-status-codes with 503).
	Retries *ProxyRetry
	Timeout *time.Duration
	// Raw is the route as written, every field of it, so that a fix can
	// carry the whole list of routes (a merge patch replaces a list).
	Raw map[string]any
}

// HTTPProxy holds a Contour HTTPProxy (projectcontour.io).
type HTTPProxy struct {
	// FQDN is spec.virtualhost.fqdn; "" for an included proxy.
	FQDN   string
	Routes []HTTPProxyRoute
}

// HTTPProxyRoute is one entry of an HTTPProxy's spec.routes.
type HTTPProxyRoute struct {
	// Prefix is the first prefix condition; "" when none.
	Prefix   string
	Services []RouteBackend
	// HealthCheck is healthCheckPolicy; nil when unset.
	HealthCheck *ActiveHealthCheck
	// Retry is retryPolicy; nil when unset.
	Retry *ProxyRetry
	// ResponseTimeout is timeoutPolicy.response.
	ResponseTimeout *time.Duration
	// Raw is the route as written, every field of it, so that a fix can
	// carry the whole list of routes (a merge patch replaces a list).
	Raw map[string]any
}

// IstioSidecar holds what a pod or pod template says about its Istio
// sidecar: whether it has one, whether it is a native sidecar, and the
// proxy settings that decide how it starts and drains.
type IstioSidecar struct {
	// Container is true when the spec has an istio-proxy container (an
	// injected pod); templates usually do not, as injection happens when
	// the pod is created.
	Container bool
	// Native is true when istio-proxy is a restartable init container
	// (a Kubernetes native sidecar): it stops after the application.
	Native bool
	// Inject and NativeSidecar are the sidecar.istio.io/inject and
	// sidecar.istio.io/nativeSidecar annotations as written.
	Inject, NativeSidecar string
	// Annotation is the proxy.istio.io/config annotation; nil without it.
	Annotation *IstioProxyConfig
	// AnnotationText is that annotation as written, every key of it, so
	// that a fix changes one key and keeps the others; "" without it.
	AnnotationText string
	// Injected is what the istio-proxy container's environment says (the
	// PROXY_CONFIG the injector wrote, and the proxy metadata variables);
	// nil without the container.
	Injected *IstioProxyConfig
}

// IstioProxyConfig holds the ProxyConfig fields that decide how the
// sidecar drains, from the proxy.istio.io/config annotation, the mesh
// config's defaultConfig, or the injected container's environment.
type IstioProxyConfig struct {
	// TerminationDrainDuration is how long the proxy keeps serving after
	// SIGTERM (Istio's default, when unset, is 5 s).
	TerminationDrainDuration *time.Duration
	DrainDuration            *time.Duration
	// HoldApplicationUntilProxyStarts delays the application until the proxy is ready.
	HoldApplicationUntilProxyStarts *bool
	// ExitOnZeroActiveConnections and MinimumDrainDuration are the
	// EXIT_ON_ZERO_ACTIVE_CONNECTIONS and MINIMUM_DRAIN_DURATION proxy
	// metadata: drain until the connections are gone instead of for a
	// fixed time.
	ExitOnZeroActiveConnections *bool
	MinimumDrainDuration        *time.Duration
}

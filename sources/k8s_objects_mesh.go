package sources

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// This file decodes the objects of Envoy-based gateways and meshes into
// Config facts: Gateway API Gateways and HTTPRoutes, Envoy Gateway
// BackendTrafficPolicies, Istio DestinationRules, VirtualServices and mesh
// ConfigMap, Contour HTTPProxies, and the Istio sidecar settings of pods
// and templates. Each decoder reads only the fields it keeps, with the
// field names of the product's API (docs/envoy.md names the sources).

// duration parses a duration as these APIs write it ("5s", "1m30s",
// "250ms"); nil when s is nil, empty or not a duration.
func duration(s *string) *time.Duration {
	if s == nil {
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(*s))
	if err != nil {
		return nil
	}
	return &d
}

// secondsDuration turns a count of seconds into a duration; nil stays nil.
func secondsDuration(n *int) *time.Duration {
	if n == nil {
		return nil
	}
	d := time.Duration(*n) * time.Second
	return &d
}

// deref returns *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// gwRef is a Gateway API reference (parentRef, backendRef, policy targetRef).
type gwRef struct {
	Group       *string `json:"group"`
	Kind        *string `json:"kind"`
	Namespace   *string `json:"namespace"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName"`
	Port        *int    `json:"port"`
	Weight      *int    `json:"weight"`
}

func (r *gwRef) objectRef() ObjectRef {
	ref := ObjectRef{Group: deref(r.Group), Kind: deref(r.Kind), Namespace: deref(r.Namespace), Name: r.Name, Section: deref(r.SectionName)}
	if r.Port != nil {
		ref.Port = *r.Port
	}
	return ref
}

func (r *gwRef) backend() RouteBackend {
	b := RouteBackend{Group: deref(r.Group), Kind: deref(r.Kind), Namespace: deref(r.Namespace), Name: r.Name, Weight: r.Weight}
	if r.Port != nil {
		b.Port = *r.Port
	}
	return b
}

// gateway is the part of a Gateway (gateway.networking.k8s.io v1, v1beta1) readygap keeps.
type gateway struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		GatewayClassName string `json:"gatewayClassName"`
		Listeners        []struct {
			Name     string  `json:"name"`
			Hostname *string `json:"hostname"`
			Port     int     `json:"port"`
			Protocol string  `json:"protocol"`
		} `json:"listeners"`
	} `json:"spec"`
	Status struct {
		Addresses []struct {
			Value string `json:"value"`
		} `json:"addresses"`
	} `json:"status"`
}

func decodeGateway(elem []byte, c *Config, out *Emitter) error {
	var g gateway
	if err := json.Unmarshal(elem, &g); err != nil {
		return err
	}
	setMeta(c, &g.Metadata)
	f := &Gateway{Class: g.Spec.GatewayClassName}
	for _, l := range g.Spec.Listeners {
		f.Listeners = append(f.Listeners, GatewayListener{Name: l.Name, Protocol: l.Protocol, Hostname: deref(l.Hostname), Port: l.Port})
	}
	for _, a := range g.Status.Addresses {
		f.Addresses = append(f.Addresses, a.Value)
	}
	c.Gateway = f
	out.Config(c)
	return nil
}

// httpRoute is the part of an HTTPRoute readygap keeps.
type httpRoute struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		ParentRefs []gwRef  `json:"parentRefs"`
		Hostnames  []string `json:"hostnames"`
		Rules      []struct {
			Name        *string `json:"name"`
			BackendRefs []gwRef `json:"backendRefs"`
			Retry       *struct {
				Codes    []int   `json:"codes"`
				Attempts *int    `json:"attempts"`
				Backoff  *string `json:"backoff"`
			} `json:"retry"`
			Timeouts *struct {
				Request        *string `json:"request"`
				BackendRequest *string `json:"backendRequest"`
			} `json:"timeouts"`
		} `json:"rules"`
	} `json:"spec"`
}

func decodeHTTPRoute(elem []byte, c *Config, out *Emitter) error {
	var r httpRoute
	if err := json.Unmarshal(elem, &r); err != nil {
		return err
	}
	setMeta(c, &r.Metadata)
	f := &HTTPRoute{Hostnames: r.Spec.Hostnames}
	for i := range r.Spec.ParentRefs {
		f.Parents = append(f.Parents, r.Spec.ParentRefs[i].objectRef())
	}
	for i, rule := range r.Spec.Rules {
		fr := HTTPRouteRule{Index: i, Name: deref(rule.Name)}
		for j := range rule.BackendRefs {
			fr.Backends = append(fr.Backends, rule.BackendRefs[j].backend())
		}
		if rt := rule.Retry; rt != nil {
			fr.Retry = &RouteRetry{Attempts: rt.Attempts, Codes: rt.Codes, Backoff: duration(rt.Backoff)}
		}
		if t := rule.Timeouts; t != nil {
			fr.RequestTimeout, fr.BackendRequestTimeout = duration(t.Request), duration(t.BackendRequest)
		}
		f.Rules = append(f.Rules, fr)
	}
	c.HTTPRoute = f
	out.Config(c)
	return nil
}

// backendTrafficPolicy is the part of an Envoy Gateway
// BackendTrafficPolicy (gateway.envoyproxy.io/v1alpha1) readygap keeps:
// api/v1alpha1/backendtrafficpolicy_types.go, healthcheck_types.go and
// retry_types.go of envoyproxy/gateway.
type backendTrafficPolicy struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		TargetRef   *gwRef  `json:"targetRef"`
		TargetRefs  []gwRef `json:"targetRefs"`
		HealthCheck *struct {
			PanicThreshold *int `json:"panicThreshold"`
			Active         *struct {
				Type               string  `json:"type"`
				Timeout            *string `json:"timeout"`
				Interval           *string `json:"interval"`
				InitialJitter      *string `json:"initialJitter"`
				UnhealthyThreshold *int    `json:"unhealthyThreshold"`
				HealthyThreshold   *int    `json:"healthyThreshold"`
				HTTP               *struct {
					Path string `json:"path"`
				} `json:"http"`
				Overrides *struct {
					Port int `json:"port"`
				} `json:"overrides"`
			} `json:"active"`
			Passive *struct {
				SplitExternalLocalOriginErrors *bool   `json:"splitExternalLocalOriginErrors"`
				Interval                       *string `json:"interval"`
				ConsecutiveLocalOriginFailures *int    `json:"consecutiveLocalOriginFailures"`
				ConsecutiveGatewayErrors       *int    `json:"consecutiveGatewayErrors"`
				Consecutive5xxErrors           *int    `json:"consecutive5XxErrors"`
				BaseEjectionTime               *string `json:"baseEjectionTime"`
				MaxEjectionPercent             *int    `json:"maxEjectionPercent"`
			} `json:"passive"`
		} `json:"healthCheck"`
		Retry *struct {
			NumRetries *int `json:"numRetries"`
			RetryOn    *struct {
				Triggers        []string `json:"triggers"`
				HTTPStatusCodes []int    `json:"httpStatusCodes"`
			} `json:"retryOn"`
			PerRetry *struct {
				Timeout *string `json:"timeout"`
			} `json:"perRetry"`
		} `json:"retry"`
	} `json:"spec"`
}

func decodeBackendTrafficPolicy(elem []byte, c *Config, out *Emitter) error {
	var p backendTrafficPolicy
	if err := json.Unmarshal(elem, &p); err != nil {
		return err
	}
	setMeta(c, &p.Metadata)
	f := &BackendTrafficPolicy{}
	if p.Spec.TargetRef != nil {
		f.Targets = append(f.Targets, p.Spec.TargetRef.objectRef())
	}
	for i := range p.Spec.TargetRefs {
		f.Targets = append(f.Targets, p.Spec.TargetRefs[i].objectRef())
	}
	if hc := p.Spec.HealthCheck; hc != nil {
		f.PanicThreshold = hc.PanicThreshold
		if a := hc.Active; a != nil {
			ah := &ActiveHealthCheck{Type: a.Type, Interval: duration(a.Interval), Timeout: duration(a.Timeout),
				InitialJitter: duration(a.InitialJitter), HealthyThreshold: a.HealthyThreshold, UnhealthyThreshold: a.UnhealthyThreshold}
			if a.HTTP != nil {
				ah.Path = a.HTTP.Path
			}
			if a.Overrides != nil {
				ah.Port = a.Overrides.Port
			}
			f.ActiveHealthCheck = ah
		}
		if ps := hc.Passive; ps != nil {
			f.PassiveHealthCheck = &OutlierDetection{
				Consecutive5xxErrors: ps.Consecutive5xxErrors, ConsecutiveGatewayErrors: ps.ConsecutiveGatewayErrors,
				ConsecutiveLocalOriginFailures: ps.ConsecutiveLocalOriginFailures,
				Interval:                       duration(ps.Interval), BaseEjectionTime: duration(ps.BaseEjectionTime),
				MaxEjectionPercent: ps.MaxEjectionPercent, SplitExternalLocalOriginErrors: ps.SplitExternalLocalOriginErrors,
			}
		}
	}
	if rt := p.Spec.Retry; rt != nil {
		pr := &ProxyRetry{Retries: rt.NumRetries}
		if rt.RetryOn != nil {
			pr.On, pr.StatusCodes = rt.RetryOn.Triggers, rt.RetryOn.HTTPStatusCodes
		}
		if rt.PerRetry != nil {
			pr.PerTryTimeout = duration(rt.PerRetry.Timeout)
		}
		f.Retry = pr
	}
	c.BackendTrafficPolicy = f
	out.Config(c)
	return nil
}

// istioOutlier is an Istio OutlierDetection (networking.istio.io
// DestinationRule, trafficPolicy.outlierDetection).
type istioOutlier struct {
	Consecutive5xxErrors           *int    `json:"consecutive5xxErrors"`
	ConsecutiveGatewayErrors       *int    `json:"consecutiveGatewayErrors"`
	ConsecutiveLocalOriginFailures *int    `json:"consecutiveLocalOriginFailures"`
	Interval                       *string `json:"interval"`
	BaseEjectionTime               *string `json:"baseEjectionTime"`
	MaxEjectionPercent             *int    `json:"maxEjectionPercent"`
	MinHealthPercent               *int    `json:"minHealthPercent"`
	SplitExternalLocalOriginErrors *bool   `json:"splitExternalLocalOriginErrors"`
}

func (o *istioOutlier) facts() *OutlierDetection {
	if o == nil {
		return nil
	}
	return &OutlierDetection{
		Consecutive5xxErrors: o.Consecutive5xxErrors, ConsecutiveGatewayErrors: o.ConsecutiveGatewayErrors,
		ConsecutiveLocalOriginFailures: o.ConsecutiveLocalOriginFailures,
		Interval:                       duration(o.Interval), BaseEjectionTime: duration(o.BaseEjectionTime),
		MaxEjectionPercent: o.MaxEjectionPercent, MinHealthPercent: o.MinHealthPercent,
		SplitExternalLocalOriginErrors: o.SplitExternalLocalOriginErrors,
	}
}

// istioTrafficPolicy is the part of an Istio TrafficPolicy readygap keeps.
type istioTrafficPolicy struct {
	OutlierDetection *istioOutlier `json:"outlierDetection"`
}

func (t *istioTrafficPolicy) outlier() *OutlierDetection {
	if t == nil {
		return nil
	}
	return t.OutlierDetection.facts()
}

// destinationRule is the part of an Istio DestinationRule readygap keeps.
type destinationRule struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		Host          string              `json:"host"`
		TrafficPolicy *istioTrafficPolicy `json:"trafficPolicy"`
		Subsets       []struct {
			Name          string              `json:"name"`
			Labels        map[string]string   `json:"labels"`
			TrafficPolicy *istioTrafficPolicy `json:"trafficPolicy"`
		} `json:"subsets"`
	} `json:"spec"`
}

func decodeDestinationRule(elem []byte, c *Config, out *Emitter) error {
	var d destinationRule
	if err := json.Unmarshal(elem, &d); err != nil {
		return err
	}
	setMeta(c, &d.Metadata)
	f := &DestinationRule{Host: d.Spec.Host, OutlierDetection: d.Spec.TrafficPolicy.outlier()}
	for _, s := range d.Spec.Subsets {
		f.Subsets = append(f.Subsets, DestinationSubset{Name: s.Name, Labels: s.Labels, OutlierDetection: s.TrafficPolicy.outlier()})
	}
	c.DestinationRule = f
	out.Config(c)
	return nil
}

// virtualService is the part of an Istio VirtualService readygap keeps.
type virtualService struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		Hosts    []string `json:"hosts"`
		Gateways []string `json:"gateways"`
		HTTP     []struct {
			Raw   map[string]any `json:"-"`
			Name  string         `json:"name"`
			Route []struct {
				Destination struct {
					Host   string `json:"host"`
					Subset string `json:"subset"`
					Port   *struct {
						Number int `json:"number"`
					} `json:"port"`
				} `json:"destination"`
				Weight *int `json:"weight"`
			} `json:"route"`
			Retries *struct {
				Attempts      *int    `json:"attempts"`
				PerTryTimeout *string `json:"perTryTimeout"`
				RetryOn       *string `json:"retryOn"`
			} `json:"retries"`
			Timeout *string `json:"timeout"`
		} `json:"http"`
	} `json:"spec"`
}

func decodeVirtualService(elem []byte, c *Config, out *Emitter) error {
	var v virtualService
	if err := json.Unmarshal(elem, &v); err != nil {
		return err
	}
	setMeta(c, &v.Metadata)
	var raw struct {
		Spec struct {
			HTTP []map[string]any `json:"http"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(elem, &raw) // the typed decode above has read it already
	f := &VirtualService{Hosts: v.Spec.Hosts, Gateways: v.Spec.Gateways}
	for i, h := range v.Spec.HTTP {
		r := VirtualServiceRoute{Name: h.Name, Timeout: duration(h.Timeout)}
		if i < len(raw.Spec.HTTP) {
			r.Raw = raw.Spec.HTTP[i]
		}
		for _, d := range h.Route {
			b := RouteBackend{Name: d.Destination.Host, Subset: d.Destination.Subset, Weight: d.Weight}
			if d.Destination.Port != nil {
				b.Port = d.Destination.Port.Number
			}
			r.Destinations = append(r.Destinations, b)
		}
		if rt := h.Retries; rt != nil {
			pr := &ProxyRetry{Retries: rt.Attempts, PerTryTimeout: duration(rt.PerTryTimeout)}
			for _, on := range strings.Split(deref(rt.RetryOn), ",") {
				if on = strings.TrimSpace(on); on != "" {
					pr.On = append(pr.On, on)
				}
			}
			r.Retries = pr
		}
		f.Routes = append(f.Routes, r)
	}
	c.VirtualService = f
	out.Config(c)
	return nil
}

// httpProxy is the part of a Contour HTTPProxy (projectcontour.io/v1,
// apis/projectcontour/v1/httpproxy.go) readygap keeps.
type httpProxy struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		VirtualHost *struct {
			FQDN string `json:"fqdn"`
		} `json:"virtualhost"`
		Routes []struct {
			Raw        map[string]any `json:"-"`
			Conditions []struct {
				Prefix string `json:"prefix"`
			} `json:"conditions"`
			Services []struct {
				Name   string `json:"name"`
				Port   int    `json:"port"`
				Weight *int   `json:"weight"`
			} `json:"services"`
			HealthCheckPolicy *struct {
				Path                    string `json:"path"`
				IntervalSeconds         *int   `json:"intervalSeconds"`
				TimeoutSeconds          *int   `json:"timeoutSeconds"`
				UnhealthyThresholdCount *int   `json:"unhealthyThresholdCount"`
				HealthyThresholdCount   *int   `json:"healthyThresholdCount"`
			} `json:"healthCheckPolicy"`
			RetryPolicy *struct {
				Count                *int     `json:"count"`
				PerTryTimeout        *string  `json:"perTryTimeout"`
				RetryOn              []string `json:"retryOn"`
				RetriableStatusCodes []int    `json:"retriableStatusCodes"`
			} `json:"retryPolicy"`
			TimeoutPolicy *struct {
				Response *string `json:"response"`
			} `json:"timeoutPolicy"`
		} `json:"routes"`
	} `json:"spec"`
}

func decodeHTTPProxy(elem []byte, c *Config, out *Emitter) error {
	var p httpProxy
	if err := json.Unmarshal(elem, &p); err != nil {
		return err
	}
	setMeta(c, &p.Metadata)
	var raw struct {
		Spec struct {
			Routes []map[string]any `json:"routes"`
		} `json:"spec"`
	}
	_ = json.Unmarshal(elem, &raw) // the typed decode above has read it already
	f := &HTTPProxy{}
	if p.Spec.VirtualHost != nil {
		f.FQDN = p.Spec.VirtualHost.FQDN
	}
	for i, r := range p.Spec.Routes {
		fr := HTTPProxyRoute{}
		if i < len(raw.Spec.Routes) {
			fr.Raw = raw.Spec.Routes[i]
		}
		for _, cond := range r.Conditions {
			if cond.Prefix != "" {
				fr.Prefix = cond.Prefix
				break
			}
		}
		for _, s := range r.Services {
			fr.Services = append(fr.Services, RouteBackend{Name: s.Name, Port: s.Port, Weight: s.Weight})
		}
		if hc := r.HealthCheckPolicy; hc != nil {
			fr.HealthCheck = &ActiveHealthCheck{Type: "HTTP", Path: hc.Path,
				Interval: secondsDuration(hc.IntervalSeconds), Timeout: secondsDuration(hc.TimeoutSeconds),
				HealthyThreshold: hc.HealthyThresholdCount, UnhealthyThreshold: hc.UnhealthyThresholdCount}
		}
		if rp := r.RetryPolicy; rp != nil {
			fr.Retry = &ProxyRetry{Retries: rp.Count, On: rp.RetryOn, StatusCodes: rp.RetriableStatusCodes, PerTryTimeout: duration(rp.PerTryTimeout)}
		}
		if tp := r.TimeoutPolicy; tp != nil {
			fr.ResponseTimeout = duration(tp.Response)
		}
		f.Routes = append(f.Routes, fr)
	}
	c.HTTPProxy = f
	out.Config(c)
	return nil
}

// istioMeshConfigMap names Istio's mesh ConfigMap (and, with a suffix, a
// revision's): `istio`, `istio-<revision>`.
const istioMeshConfigMap = "istio"

// istioMeshOf reads Istio's mesh ConfigMap (`istio` or `istio-<revision>`
// with a `mesh` key): its meshConfig.defaultConfig; nil when cm is not one.
func istioMeshOf(cm *corev1.ConfigMap) (*IstioProxyConfig, error) {
	mesh, ok := cm.Data["mesh"]
	if !ok || cm.Name != istioMeshConfigMap && !strings.HasPrefix(cm.Name, istioMeshConfigMap+"-") {
		return nil, nil
	}
	var doc struct {
		DefaultConfig *istioProxyConfigDoc `json:"defaultConfig"`
	}
	if err := yaml.Unmarshal([]byte(mesh), &doc); err != nil {
		return nil, err
	}
	if f := doc.DefaultConfig.facts(); f != nil {
		return f, nil
	}
	return &IstioProxyConfig{}, nil
}

// istioProxyConfigDoc is the part of an Istio ProxyConfig readygap keeps,
// as the proxy.istio.io/config annotation, meshConfig.defaultConfig and the
// injector's PROXY_CONFIG write it (YAML or JSON).
type istioProxyConfigDoc struct {
	TerminationDrainDuration        *string           `json:"terminationDrainDuration"`
	DrainDuration                   *string           `json:"drainDuration"`
	HoldApplicationUntilProxyStarts *bool             `json:"holdApplicationUntilProxyStarts"`
	ProxyMetadata                   map[string]string `json:"proxyMetadata"`
}

// The proxy metadata (environment of istio-proxy) that changes how it drains.
const (
	istioExitOnZeroActive     = "EXIT_ON_ZERO_ACTIVE_CONNECTIONS"
	istioMinimumDrainDuration = "MINIMUM_DRAIN_DURATION"
	// istioTerminationDrainEnv is how injection templates before ProxyConfig
	// carried terminationDrainDuration, in whole seconds.
	istioTerminationDrainEnv = "TERMINATION_DRAIN_DURATION_SECONDS"
	// istioProxyConfigEnv holds the ProxyConfig the injector merged, as JSON.
	istioProxyConfigEnv = "PROXY_CONFIG"
	istioProxyContainer = "istio-proxy"
)

func (d *istioProxyConfigDoc) facts() *IstioProxyConfig {
	if d == nil {
		return nil
	}
	f := &IstioProxyConfig{
		TerminationDrainDuration:        duration(d.TerminationDrainDuration),
		DrainDuration:                   duration(d.DrainDuration),
		HoldApplicationUntilProxyStarts: d.HoldApplicationUntilProxyStarts,
	}
	f.setMetadata(d.ProxyMetadata)
	return f
}

// setMetadata reads the drain settings among proxy metadata or environment variables.
func (f *IstioProxyConfig) setMetadata(env map[string]string) {
	if v, ok := env[istioExitOnZeroActive]; ok {
		if b, err := strconv.ParseBool(v); err == nil {
			f.ExitOnZeroActiveConnections = &b
		}
	}
	if v, ok := env[istioMinimumDrainDuration]; ok {
		f.MinimumDrainDuration = duration(&v)
	}
	if v, ok := env[istioTerminationDrainEnv]; ok && f.TerminationDrainDuration == nil {
		if n, err := strconv.Atoi(v); err == nil {
			f.TerminationDrainDuration = secondsDuration(&n)
		}
	}
}

// The pod annotations that set up Istio's sidecar.
const (
	istioInjectAnnotation        = "sidecar.istio.io/inject"
	istioNativeSidecarAnnotation = "sidecar.istio.io/nativeSidecar"
	istioProxyConfigAnnotation   = "proxy.istio.io/config"
)

// istioPodAnnotations are the annotations istioSidecarFacts reads: the
// only ones of a pod that the objects adapter decodes.
var istioPodAnnotations = []string{istioInjectAnnotation, istioNativeSidecarAnnotation, istioProxyConfigAnnotation}

// istioSidecarFacts reads the Istio sidecar settings of a pod or template
// from its annotations and containers; nil when it shows no sign of Istio.
func istioSidecarFacts(annotations map[string]string, spec *corev1.PodSpec) *IstioSidecar {
	f := &IstioSidecar{Inject: annotations[istioInjectAnnotation], NativeSidecar: annotations[istioNativeSidecarAnnotation]}
	if a, ok := annotations[istioProxyConfigAnnotation]; ok {
		f.AnnotationText = a
		var doc istioProxyConfigDoc
		if yaml.Unmarshal([]byte(a), &doc) == nil {
			f.Annotation = doc.facts()
		}
	}
	var proxy *corev1.Container
	for i := range spec.Containers {
		if spec.Containers[i].Name == istioProxyContainer {
			proxy = &spec.Containers[i]
		}
	}
	for i := range spec.InitContainers {
		ic := &spec.InitContainers[i]
		if ic.Name == istioProxyContainer && ic.RestartPolicy != nil && *ic.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			proxy, f.Native = ic, true
		}
	}
	if proxy != nil {
		f.Container = true
		f.Injected = istioContainerConfig(proxy)
	}
	if !f.Container && f.Inject == "" && f.NativeSidecar == "" && f.Annotation == nil {
		return nil
	}
	return f
}

// istioContainerConfig reads the drain settings from the environment the
// injector gave istio-proxy.
func istioContainerConfig(c *corev1.Container) *IstioProxyConfig {
	env := map[string]string{}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			env[e.Name] = e.Value
		}
	}
	f := &IstioProxyConfig{}
	if pc, ok := env[istioProxyConfigEnv]; ok {
		var doc istioProxyConfigDoc
		if yaml.Unmarshal([]byte(pc), &doc) == nil {
			f = doc.facts()
		}
	}
	f.setMetadata(env)
	return f
}

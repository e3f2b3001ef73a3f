package classify

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/readygap/readygap/sources"
)

// target is one workload a static check looks at: a Deployment, what else
// the objects say about it, and every path traffic takes to it.
type target struct {
	// Config is the Deployment.
	Config *sources.Config
	wl     workload
	// Replicas is spec.replicas, or the API default of 1.
	Replicas int
	// Namespace is the workload's Namespace object; nil when not read.
	Namespace *sources.Config
	// Pods are its pods, when the objects hold them (a live cluster).
	Pods []*sources.Config
	// Services are the Services that select its pods.
	Services []*sources.Config
	// Fronts are the load balancers and proxies that send it traffic.
	Fronts []front
}

// front is one path from a load balancer or proxy to a workload's pods.
type front struct {
	Family sources.Family
	// Platform names the Envoy-based product; "" elsewhere.
	Platform sources.Platform
	// Via is the object that routes the traffic: an Ingress, a
	// TargetGroupBinding, an HTTPRoute, a VirtualService, an HTTPProxy, or
	// the Service itself for a standalone NEG.
	Via     *sources.Config
	Service *sources.Config
	// Port is the Service port the traffic uses; nil when any may be.
	Port *sources.ServicePort
	// TargetType is the ALB target type (ip or instance), "" when unknown
	// or not ALB.
	TargetType string
	// Standalone is true for a standalone NEG, which gets no readiness gate.
	Standalone bool
	// Objects are the objects that configure this path, in the order the
	// helpers should prefer them: the Service (whose ALB annotations
	// override the Ingress's), the routing object, its BackendConfig,
	// policies and gateways, the proxy's ConfigMaps.
	Objects *Objects
}

// Platform defaults for paths whose settings live outside Kubernetes.
const (
	// albDefaultTargetType is the AWS Load Balancer Controller's target
	// type when no annotation sets one (its --default-target-type flag).
	albDefaultTargetType = "instance"
	// awsTargetGroupInterval and awsTargetGroupHealthy are the AWS API's
	// health-check defaults for a target group created outside the
	// controller, as a TargetGroupBinding's usually is: every 30 s,
	// healthy after 5 passes (ELBv2 CreateTargetGroup reference).
	awsTargetGroupInterval = 30
	awsTargetGroupHealthy  = 5
)

// targets returns the workloads of the view with the paths to them,
// linked once.
func (o *Objects) targetsOf() []*target {
	o.targetsOnce.Do(func() { o.targets = linkTargets(o) })
	return o.targets
}

// paths returns every path the objects hold from a load balancer or proxy
// to a Service, whether or not a workload read selects it, linked once:
// what a finding reads when the objects do not link its workload.
func (o *Objects) paths() []front {
	o.everyOnce.Do(func() {
		x := o.indexOf()
		for _, svc := range x.byKind["Service"] {
			if svc.Service != nil {
				o.every = append(o.every, frontsOf(svc, x)...)
			}
		}
	})
	return o.every
}

// linkTargets ties each Deployment to its Namespace, pods, Services and
// the load balancers and proxies in front of them, through the index: each
// Service is matched against the Deployments that carry one of its
// selector's labels, each Deployment against the pods that carry one of
// its selector's.
func linkTargets(objs *Objects) []*target {
	x := objs.indexOf()
	var out []*target
	of := map[*sources.Config]*target{}
	refs := refTemplates(x)
	for _, d := range judgedWorkloads(x) {
		wl := workloadOf(d)
		if ref := refs[d]; ref != nil {
			// The pod template is the referenced Deployment's, and so is
			// every patch of it.
			wl = workloadOf(ref)
		}
		if d.Workload == nil || wl.Template == nil {
			continue
		}
		t := &target{Config: d, wl: wl, Replicas: 1, Namespace: x.namespaces[d.Namespace]}
		t.wl.Kube = objs.KubeVersion
		if d.Workload.Replicas != nil {
			t.Replicas = *d.Workload.Replicas
		}
		sel := d.Workload.Selector
		if len(sel) == 0 {
			sel = wl.Selector
		}
		if len(sel) > 0 {
			t.Pods = selected(x.podsByLabel, d.Namespace, sel, func(p *sources.Config) map[string]string { return p.Labels })
		}
		of[d] = t
		if ref := refs[d]; ref != nil {
			of[ref] = t
		}
		out = append(out, t)
	}
	for _, svc := range x.byKind["Service"] {
		if svc.Service == nil || len(svc.Service.Selector) == 0 {
			continue
		}
		// Argo Rollouts adds its pod-template hash to the selectors of
		// the Services it manages; the template has no such label.
		sel := svc.Service.Selector
		if _, ok := sel[sources.RolloutLabelPodTemplateHash]; ok {
			sel = maps.Clone(sel)
			delete(sel, sources.RolloutLabelPodTemplateHash)
			if len(sel) == 0 {
				continue
			}
		}
		for _, d := range selected(x.deploymentsByLabel, svc.Namespace, sel, func(d *sources.Config) map[string]string { return d.Workload.TemplateLabels }) {
			if t := of[d]; t != nil {
				t.Services = append(t.Services, svc)
			}
		}
	}
	for _, t := range out {
		for _, svc := range t.Services {
			t.Fronts = append(t.Fronts, frontsOf(svc, x)...)
		}
		t.wl = t.wl.withServing(t.Services).withAutoscaler(x.byKind["HorizontalPodAutoscaler"])
	}
	return out
}

// subset reports whether every label of sel is in labels.
func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// frontsOf finds the paths that send traffic to a Service: the Ingresses
// naming it, then each platform's own routing objects in the registry's
// order (platforms): TargetGroupBindings, HTTPRoutes, VirtualServices,
// HTTPProxies, its own NEGs.
func frontsOf(svc *sources.Config, x *objectIndex) []front {
	out := ingressFronts(svc, x)
	for _, p := range platforms {
		out = p.ownFronts(svc, x, out)
	}
	return out
}

// ingressFronts are the paths of the Ingresses naming the Service, each
// of the platform its class or annotations say (ingressFamily), with the
// objects that platform reads beside the Service and the Ingress.
func ingressFronts(svc *sources.Config, x *objectIndex) []front {
	var out []front
	s := svc.Service
	for _, ing := range x.ingresses[svc.Namespace+"/"+svc.Name] {
		if ing.Namespace != svc.Namespace || ing.Ingress == nil {
			continue
		}
		for _, b := range ing.Ingress.Backends {
			if b.Service != svc.Name {
				continue
			}
			f := front{Family: ingressFamily(ing, s, ingressClassOf(x.byKind["IngressClass"], ing)), Via: ing, Service: svc, Port: servicePort(s, b.PortName, b.PortNumber)}
			objs := append([]*sources.Config{svc, ing}, f.platform().ingressObjects(&f, x)...)
			f.Objects = NewObjects(objs)
			out = appendFront(out, f)
		}
	}
	return out
}

// hasFamily reports whether a front of the family is among fronts.
func hasFamily(fronts []front, f sources.Family) bool {
	for _, x := range fronts {
		if x.Family == f {
			return true
		}
	}
	return false
}

// appendFront adds f unless a front by the same object to the same port is
// already there (an Ingress naming a Service on several paths).
func appendFront(fronts []front, f front) []front {
	for _, g := range fronts {
		if g.Via == f.Via && g.Port == f.Port {
			return fronts
		}
	}
	return append(fronts, f)
}

// routeFront is the path an HTTPRoute gives a Service: through the
// Gateways it attaches to, whose class names the product, with the
// Envoy Gateway policies that target the route, its Gateways or the
// Service.
func routeFront(route, svc *sources.Config, port *sources.ServicePort, x *objectIndex) front {
	f := front{Via: route, Service: svc, Port: port}
	objs := []*sources.Config{svc, route}
	var gateways []string
	for _, p := range route.HTTPRoute.Parents {
		if p.Kind != "" && p.Kind != "Gateway" {
			continue
		}
		ns := cmp.Or(p.Namespace, route.Namespace)
		gateways = append(gateways, ns+"/"+p.Name)
		for _, g := range x.gateways[ns+"/"+p.Name] {
			objs = append(objs, g)
			if fam, plat := gatewayClassFamily(g.Gateway.Class); fam != "" && f.Family == "" {
				f.Family, f.Platform = fam, plat
			}
		}
	}
	keys := []string{"HTTPRoute/" + route.Namespace + "/" + route.Name, "Service/" + svc.Namespace + "/" + svc.Name}
	for _, g := range gateways {
		keys = append(keys, "Gateway/"+g)
	}
	for _, pol := range x.policiesOf(keys) {
		if !policyTargets(pol, route, svc, gateways) {
			continue
		}
		objs = append(objs, pol)
		if f.Family == "" {
			f.Family, f.Platform = sources.FamilyEnvoy, sources.PlatformEnvoyGateway
		}
	}
	f.Objects = NewObjects(objs)
	return f
}

// policyTargets reports whether a BackendTrafficPolicy applies to the
// route: it targets the route, one of its Gateways, or the Service.
func policyTargets(pol, route, svc *sources.Config, gateways []string) bool {
	for _, t := range pol.BackendTrafficPolicy.Targets {
		ns := cmp.Or(t.Namespace, pol.Namespace)
		switch t.Kind {
		case "HTTPRoute":
			if ns == route.Namespace && t.Name == route.Name {
				return true
			}
		case "Gateway":
			for _, g := range gateways {
				if g == ns+"/"+t.Name {
					return true
				}
			}
		case "Service":
			if ns == svc.Namespace && t.Name == svc.Name {
				return true
			}
		}
	}
	return false
}

// gatewayClassFamily names the family and product of a GatewayClass from
// its name as the products install it, asking each platform
// (platform.gatewayClass); "" when the name says nothing.
func gatewayClassFamily(class string) (sources.Family, sources.Platform) {
	c := strings.ToLower(class)
	for _, p := range platforms {
		if product, ok := p.gatewayClass(c); ok {
			return p.family(), product
		}
	}
	return "", ""
}

// hostIsService reports whether an Istio destination host names the
// Service: its short name in the VirtualService's namespace, or
// name.namespace[.svc[.cluster.local]].
func hostIsService(host, vsNamespace string, svc *sources.Config) bool {
	parts := strings.Split(host, ".")
	if parts[0] != svc.Name {
		return false
	}
	if len(parts) == 1 {
		return vsNamespace == svc.Namespace
	}
	return parts[1] == svc.Namespace
}

// ingressFamily names the load balancer an Ingress configures: the
// platform whose controller the IngressClass object names when one was
// read (classObj, nil otherwise), else the first in the registry that
// its class name or the annotations it or its Service carry point to;
// "" when nothing says.
func ingressFamily(ing *sources.Config, svc *sources.Service, classObj *sources.Config) sources.Family {
	class := strings.ToLower(ing.Ingress.Class)
	if classObj != nil {
		for _, p := range platforms {
			if c := p.ingressController(); c != "" && c == classObj.IngressClass.Controller {
				return p.family()
			}
		}
	}
	for _, p := range platforms {
		if p.ingressClass(class, ing.Ingress.Annotations, svc) {
			return p.family()
		}
	}
	return ""
}

// hasKeyPrefix reports whether a key of m starts with prefix.
func hasKeyPrefix(m map[string]string, prefix string) bool {
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// servicePort finds a Service's port by name, else by number; nil when
// neither matches (or both are unset).
func servicePort(s *sources.Service, name string, number int) *sources.ServicePort {
	for i := range s.Ports {
		p := &s.Ports[i]
		if (name != "" && p.Name == name) || (name == "" && number != 0 && p.Port == number) {
			return p
		}
	}
	return nil
}

// backendConfigFor returns the BackendConfig the Service's annotation
// names for the port (see backendConfigName); nil when none was read.
func backendConfigFor(svc *sources.Config, port *sources.ServicePort, x *objectIndex) *sources.Config {
	if name := backendConfigName(svc, port); name != "" {
		return x.backendConfigs[svc.Namespace+"/"+name]
	}
	return nil
}

// backendConfigName is the BackendConfig the Service's
// cloud.google.com/backend-config annotation names for the port: by the
// port's name, then its number, then "default"; "" when it names none.
func backendConfigName(svc *sources.Config, port *sources.ServicePort) string {
	names := svc.Service.BackendConfigs
	name := names["default"]
	if port != nil {
		if n, ok := names[strconv.Itoa(port.Port)]; ok {
			name = n
		}
		if n, ok := names[port.Name]; ok && port.Name != "" {
			name = n
		}
	}
	return name
}

// targetPort resolves the container port a Service port sends to: its
// number, or its name looked up in the pod template; 0 when unknown.
func (t *target) targetPort(p *sources.ServicePort) int {
	if p.TargetPortNumber != 0 {
		return p.TargetPortNumber
	}
	return t.wl.Template.ResolvePort(p.TargetPort, p.Protocol)
}

// servedPorts are the container ports the load balancers' traffic reaches,
// each with the Service that sends it: the ports the fronts use, else
// every port of the Services that select the pods.
func (t *target) servedPorts() map[int]*sources.Config {
	out := map[int]*sources.Config{}
	for _, f := range t.Fronts {
		if f.Port != nil {
			if n := t.targetPort(f.Port); n != 0 {
				out[n] = f.Service
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, svc := range t.Services {
		for i := range svc.Service.Ports {
			if n := t.targetPort(&svc.Service.Ports[i]); n != 0 && out[n] == nil {
				out[n] = svc
			}
		}
	}
	return out
}

// judgedWorkloads are the workloads check judges, Deployments,
// StatefulSets then Argo Rollouts, each kind in input order. A Deployment
// a Rollout's workloadRef names is judged as that Rollout's pod template
// (refTemplates), not on its own: Argo Rollouts runs its pods.
func judgedWorkloads(x *objectIndex) []*sources.Config {
	refs := refTemplates(x)
	var out []*sources.Config
	for _, d := range x.byKind["Deployment"] {
		if !slices.ContainsFunc(x.byKind["Rollout"], func(r *sources.Config) bool { return refs[r] == d }) {
			out = append(out, d)
		}
	}
	out = append(out, x.byKind["StatefulSet"]...)
	return append(out, x.byKind["Rollout"]...)
}

// refTemplates maps each Rollout with a workloadRef and no template of
// its own to the Deployment it names, in its namespace.
func refTemplates(x *objectIndex) map[*sources.Config]*sources.Config {
	out := map[*sources.Config]*sources.Config{}
	for _, r := range x.byKind["Rollout"] {
		if r.Rollout == nil || r.Rollout.WorkloadRef == "" || r.Workload != nil && r.Workload.Template != nil && len(r.Workload.Template.Containers) > 0 {
			continue
		}
		kind, name, _ := strings.Cut(r.Rollout.WorkloadRef, "/")
		for _, d := range x.byKind[kind] {
			if kind != "Deployment" || d.Namespace != r.Namespace || d.Name != name || d.Workload == nil {
				continue
			}
			// Of two objects of that name (two files of one folder), the
			// one read with the Rollout.
			if prev := out[r]; prev == nil || prev.Origin.File != r.Origin.File && d.Origin.File == r.Origin.File {
				out[r] = d
			}
		}
	}
	return out
}

// notAppliedTo names, per workload kind, the causes whose static checks
// do not apply to it, and why; a kind not listed is judged by every one.
var notAppliedTo = map[string]map[string]string{
	"StatefulSet": {
		registrationLagCause.ID: "a StatefulSet replaces its pods one at a time, the old one first, without maxSurge",
	},
	"Rollout": rolloutNotApplied,
}

// NotApplied says which static checks do not judge a workload of kind,
// and why: "" when every check applies.
func NotApplied(kind string) string {
	var parts []string
	for _, r := range Rules {
		if why, ok := notAppliedTo[kind][r.Cause().ID]; ok {
			parts = append(parts, r.Cause().ID+" ("+why+")")
		}
	}
	return strings.Join(parts, "; ")
}

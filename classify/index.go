package classify

import (
	"cmp"
	"slices"
	"strings"

	"github.com/readygap/readygap/sources"
)

// objectIndex finds the objects that link a workload to its Namespace,
// pods and Services, and a Service to what routes to it, by the keys the
// links compare (namespace and name, a label), so that linking costs a
// few lookups per object rather than a scan of every object of a kind for
// each workload and each Service: a check of 10,000 workloads in one
// namespace would otherwise compare 10^8 pairs. Each list keeps the
// objects in the order read, each object once, so that the links come out
// as a scan in that order would give them.
type objectIndex struct {
	byKind map[string][]*sources.Config
	// pos is each object's position among the objects read.
	pos map[*sources.Config]int
	// namespaces maps a Namespace's name to the last one read by it.
	namespaces map[string]*sources.Config
	// podsByLabel holds the pods by each "namespace\x00key=value" of their
	// labels; deploymentsByLabel the Deployments by each of their pod
	// template's.
	podsByLabel, deploymentsByLabel map[string][]*sources.Config
	// ingresses, bindings, proxies and routes hold the Ingresses,
	// TargetGroupBindings, Contour HTTPProxies and HTTPRoutes by the
	// "namespace/name" of each Service they send to; virtualServices the
	// Istio VirtualServices by the first label of each destination host.
	ingresses, bindings, proxies, routes, virtualServices map[string][]*sources.Config
	// ingressRoutes holds Traefik's IngressRoutes by the namespace/name
	// of each Service they name.
	ingressRoutes map[string][]*sources.Config
	// gateways holds the Gateways by "namespace/name".
	gateways map[string][]*sources.Config
	// backendConfigs maps "namespace/name" to the first BackendConfig read
	// by it.
	backendConfigs map[string]*sources.Config
	// policies holds the BackendTrafficPolicies by each "Kind/namespace/name"
	// they target.
	policies map[string][]*sources.Config
	// proxyConfigMaps are the ingress-nginx controller ConfigMaps, in
	// the order read.
	proxyConfigMaps []*sources.Config
}

// indexOf returns the view's index, built once.
func (o *Objects) indexOf() *objectIndex {
	o.indexOnce.Do(func() { o.index = newObjectIndex(o.configs) })
	return o.index
}

// newObjectIndex indexes configs.
func newObjectIndex(configs []*sources.Config) *objectIndex {
	x := &objectIndex{
		byKind: map[string][]*sources.Config{}, pos: make(map[*sources.Config]int, len(configs)),
		namespaces: map[string]*sources.Config{}, podsByLabel: map[string][]*sources.Config{}, deploymentsByLabel: map[string][]*sources.Config{},
		ingresses: map[string][]*sources.Config{}, bindings: map[string][]*sources.Config{}, proxies: map[string][]*sources.Config{},
		routes: map[string][]*sources.Config{}, virtualServices: map[string][]*sources.Config{}, gateways: map[string][]*sources.Config{},
		backendConfigs: map[string]*sources.Config{}, policies: map[string][]*sources.Config{}, ingressRoutes: map[string][]*sources.Config{},
	}
	for i, c := range configs {
		x.pos[c] = i
		x.byKind[c.Kind] = append(x.byKind[c.Kind], c)
		switch c.Kind {
		case "Namespace":
			x.namespaces[c.Name] = c
		case "Pod":
			for k, v := range c.Labels {
				addOnce(x.podsByLabel, labelKey(c.Namespace, k, v), c)
			}
		case "Deployment", "StatefulSet", "Rollout":
			if c.Workload != nil {
				for k, v := range c.Workload.TemplateLabels {
					addOnce(x.deploymentsByLabel, labelKey(c.Namespace, k, v), c)
				}
			}
		case "Ingress":
			if c.Ingress != nil {
				for _, b := range c.Ingress.Backends {
					addOnce(x.ingresses, c.Namespace+"/"+b.Service, c)
				}
			}
		case "TargetGroupBinding":
			if b := c.TargetGroupBinding; b != nil {
				addOnce(x.bindings, c.Namespace+"/"+b.Service, c)
			}
		case "HTTPRoute":
			if c.HTTPRoute != nil {
				for _, rule := range c.HTTPRoute.Rules {
					for _, b := range rule.Backends {
						addOnce(x.routes, cmp.Or(b.Namespace, c.Namespace)+"/"+b.Name, c)
					}
				}
			}
		case "VirtualService":
			if c.VirtualService != nil {
				for _, r := range c.VirtualService.Routes {
					for _, d := range r.Destinations {
						name, _, _ := strings.Cut(d.Name, ".")
						addOnce(x.virtualServices, name, c)
					}
				}
			}
		case "HTTPProxy":
			if c.HTTPProxy != nil {
				for _, r := range c.HTTPProxy.Routes {
					for _, b := range r.Services {
						addOnce(x.proxies, c.Namespace+"/"+b.Name, c)
					}
				}
			}
		case "IngressRoute":
			if c.IngressRoute != nil {
				for _, r := range c.IngressRoute.Routes {
					for _, s := range r.Services {
						addOnce(x.ingressRoutes, cmp.Or(s.Namespace, c.Namespace)+"/"+s.Name, c)
					}
				}
			}
		case "Gateway":
			if c.Gateway != nil {
				addOnce(x.gateways, c.Namespace+"/"+c.Name, c)
			}
		case "BackendConfig":
			if _, ok := x.backendConfigs[c.Namespace+"/"+c.Name]; !ok {
				x.backendConfigs[c.Namespace+"/"+c.Name] = c
			}
		case "BackendTrafficPolicy":
			if c.BackendTrafficPolicy != nil {
				for _, t := range c.BackendTrafficPolicy.Targets {
					addOnce(x.policies, t.Kind+"/"+cmp.Or(t.Namespace, c.Namespace)+"/"+t.Name, c)
				}
			}
		default:
			if c.Proxy != nil { // an ingress-nginx controller ConfigMap
				x.proxyConfigMaps = append(x.proxyConfigMaps, c)
			}
		}
	}
	return x
}

// labelKey keys a label within a namespace.
func labelKey(ns, k, v string) string { return ns + "\x00" + k + "=" + v }

// addOnce appends c to m[key] unless it was the last one added there.
func addOnce(m map[string][]*sources.Config, key string, c *sources.Config) {
	if l := m[key]; len(l) == 0 || l[len(l)-1] != c {
		m[key] = append(l, c)
	}
}

// selected returns the objects of by (indexed by labelKey) in namespace ns
// that carry every label of sel, in the order read: the shortest list of
// one of sel's labels, filtered. Empty for an empty selector.
func selected(by map[string][]*sources.Config, ns string, sel map[string]string, labels func(*sources.Config) map[string]string) []*sources.Config {
	var shortest []*sources.Config
	first := true
	for k, v := range sel {
		l := by[labelKey(ns, k, v)]
		if first || len(l) < len(shortest) {
			shortest, first = l, false
		}
	}
	var out []*sources.Config
	for _, c := range shortest {
		if subset(sel, labels(c)) {
			out = append(out, c)
		}
	}
	return out
}

// policiesOf returns the BackendTrafficPolicies that target any of keys
// ("Kind/namespace/name"), once each, in the order read.
func (x *objectIndex) policiesOf(keys []string) []*sources.Config {
	var out []*sources.Config
	for _, k := range keys {
		out = append(out, x.policies[k]...)
	}
	slices.SortFunc(out, func(a, b *sources.Config) int { return cmp.Compare(x.pos[a], x.pos[b]) })
	return slices.Compact(out)
}

package classify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/readygap/readygap/sources"
)

// NotJudged is an object the static checks could not judge in full,
// because an object they need is not among those read: a workload with no
// Service, a Service nothing routes to, a route whose Gateway or Service
// is elsewhere. A check that found nothing there has not shown that
// nothing is wrong, and says so rather than "no risk".
type NotJudged struct {
	// Object is the workload, or the routing object whose Service was not
	// read.
	Object *sources.Config
	// Missing names each object that was not read, as "Service shop/web"
	// or in words when its name is not known ("a Service that selects
	// app=web").
	Missing []string
	// Reason says what the checks could not do without it.
	Reason string
}

// Coverage returns what the static checks could not judge in full, in the
// order the objects were read: every workload that serves ports without a
// Service among the objects, or whose Services nothing among them routes
// to, or whose routes lead through a Gateway or IngressClass not read; and
// every route to a Service not read.
func Coverage(objs *Objects) []*NotJudged {
	x := objs.indexOf()
	var out []*NotJudged
	for _, t := range objs.targetsOf() {
		if nj := targetCoverage(t, x); nj != nil {
			out = append(out, nj)
		}
	}
	services := map[string]bool{}
	for _, svc := range x.byKind["Service"] {
		services[svc.Namespace+"/"+svc.Name] = true
	}
	for _, c := range objs.All() {
		var names []string
		switch {
		case c.Ingress != nil:
			for _, b := range c.Ingress.Backends {
				names = append(names, c.Namespace+"/"+b.Service)
			}
		case c.HTTPRoute != nil:
			for _, r := range c.HTTPRoute.Rules {
				for _, b := range r.Backends {
					if b.Kind == "" || b.Kind == "Service" {
						names = append(names, cmp.Or(b.Namespace, c.Namespace)+"/"+b.Name)
					}
				}
			}
		case c.TargetGroupBinding != nil:
			names = append(names, c.Namespace+"/"+c.TargetGroupBinding.Service)
		}
		var missing []string
		for _, n := range names {
			if name := "Service " + n; !services[n] && !slices.Contains(missing, name) {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			out = append(out, &NotJudged{Object: c, Missing: missing,
				Reason: fmt.Sprintf("%s sends traffic to %s, not among the inputs: neither it nor the pods behind it were judged", objectName(c), strings.Join(missing, ", "))})
		}
	}
	return out
}

// targetCoverage says what is missing to judge a workload; nil when
// nothing is.
func targetCoverage(t *target, x *objectIndex) *NotJudged {
	d := t.Config
	if len(t.Services) == 0 {
		if !servesPorts(t) {
			return nil // a worker: nothing sends it traffic to judge
		}
		return &NotJudged{Object: d, Missing: []string{"a Service that selects " + labelsText(d)},
			Reason: fmt.Sprintf("no Service among the inputs selects the pods of %s, which declare container ports: what sends them traffic, and so every check of a load balancer, was not judged", objectName(d))}
	}
	if len(t.Fronts) == 0 {
		var missing, own []string
		for _, svc := range t.Services {
			if svc.Service.Type == "LoadBalancer" {
				own = append(own, objectName(svc))
				continue
			}
			missing = append(missing, "an Ingress, HTTPRoute, TargetGroupBinding or NEG annotation that sends load-balancer traffic to "+objectName(svc))
		}
		reason := fmt.Sprintf("nothing among the inputs routes load-balancer traffic to %s: the checks of a load balancer's settings were not made", objectName(d))
		if len(own) > 0 && len(missing) == 0 {
			reason = fmt.Sprintf("%s reaches %s through %s of type LoadBalancer, whose load balancer check does not judge", objectName(d), strings.Join(own, ", "), map[bool]string{true: "a Service", false: "Services"}[len(own) == 1])
		}
		return &NotJudged{Object: d, Missing: missing, Reason: reason}
	}
	var missing []string
	for _, f := range t.Fronts {
		if f.Family != "" {
			continue
		}
		switch {
		case f.Via.HTTPRoute != nil:
			for _, p := range f.Via.HTTPRoute.Parents {
				key := cmp.Or(p.Namespace, f.Via.Namespace) + "/" + p.Name
				if (p.Kind == "" || p.Kind == "Gateway") && len(x.gateways[key]) == 0 {
					missing = appendNew(missing, "Gateway "+key+" (a parent of "+objectName(f.Via)+")")
				}
			}
		case f.Via.Ingress != nil && f.Via.Ingress.ClassName != "" && ingressClassOf(x.byKind["IngressClass"], f.Via) == nil:
			missing = appendNew(missing, "IngressClass "+f.Via.Ingress.ClassName+" (named by "+objectName(f.Via)+")")
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &NotJudged{Object: d, Missing: missing,
		Reason: fmt.Sprintf("which proxy or load balancer sends traffic to %s is not known without %s", objectName(d), strings.Join(missing, ", "))}
}

// servesPorts reports whether a workload's pods declare a port to serve on
// (sidecars aside).
func servesPorts(t *target) bool {
	for _, c := range t.wl.Template.Containers {
		if !c.Sidecar && len(c.Ports) > 0 {
			return true
		}
	}
	return false
}

// labelsText writes a workload's pod labels as a selector would name
// them: "app=web", sorted; its name when it has none.
func labelsText(d *sources.Config) string {
	var kv []string
	for k, v := range d.Workload.TemplateLabels {
		kv = append(kv, k+"="+v)
	}
	if len(kv) == 0 {
		return "the pods of " + objectName(d)
	}
	slices.Sort(kv)
	return "its pods (" + strings.Join(kv, ", ") + ")"
}

// appendNew appends s unless list holds it.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Related returns the objects the static checks link to a workload: its
// Namespace, pods, Services and every object of each path that sends it
// traffic (an Ingress, a route and its Gateway, a BackendConfig...), the
// workload first; nil for an object that is no workload. A change to any
// of them may change the workload's findings.
func (o *Objects) Related(workload *sources.Config) []*sources.Config {
	o.relatedOnce.Do(func() {
		o.related = map[*sources.Config][]*sources.Config{}
		for _, t := range o.targetsOf() {
			rel := []*sources.Config{t.Config}
			if t.Namespace != nil {
				rel = append(rel, t.Namespace)
			}
			rel = append(rel, t.Pods...)
			rel = append(rel, t.Services...)
			for _, f := range t.Fronts {
				rel = append(rel, f.Via)
				if f.Objects != nil {
					rel = append(rel, f.Objects.All()...)
				}
			}
			o.related[t.Config] = rel
		}
	})
	return o.related[workload]
}

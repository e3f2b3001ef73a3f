package classify

import (
	"fmt"
	"slices"
	"strings"

	"github.com/readygap/readygap/sources"
)

// How the AWS Load Balancer Controller settles the attributes of the ALB
// an Ingress configures (pkg/ingress of kubernetes-sigs/aws-load-balancer-
// controller, docs/guide/ingress/ingress_class.md and annotations.md):
//
//   - The Ingress's class is the IngressClass its spec.ingressClassName
//     names; the legacy kubernetes.io/ingress.class annotation, which the
//     controller reads first, leaves it without one. An IngressClass of
//     the controller (ingress.k8s.aws/alb) may name an IngressClassParams
//     in spec.parameters.
//   - The Ingresses of one IngressGroup share one ALB: the group is the
//     IngressClassParams' spec.group.name, else the Ingress's
//     alb.ingress.kubernetes.io/group.name annotation, else the Ingress
//     alone. The load-balancer-attributes annotation of any of them applies
//     to the ALB (the controller refuses values that disagree).
//   - The IngressClassParams' spec.loadBalancerAttributes win over the
//     annotations, key by key.

// Names the controller reads.
const (
	annotationIngressClass  = "kubernetes.io/ingress.class"
	annotationALBGroup      = "alb.ingress.kubernetes.io/group.name"
	annotationALBAttributes = "alb.ingress.kubernetes.io/load-balancer-attributes"
	// ingressClassParamsGroup and ingressClassParamsKind are what an
	// IngressClass's spec.parameters must say to name an IngressClassParams.
	ingressClassParamsGroup = "elbv2.k8s.aws"
	ingressClassParamsKind  = "IngressClassParams"
	// ingressNginxController is ingress-nginx's IngressClass controller name.
	ingressNginxController = "k8s.io/ingress-nginx"
)

// ingressClassOf returns the IngressClass object of an Ingress among
// classes: the one spec.ingressClassName names; for an Ingress that names
// no class at all, the one class marked default, which the API server's
// admission gives it when it is created (a manifest before the deploy).
// It is nil when the legacy annotation sets the class, or no such object
// was read.
func ingressClassOf(classes []*sources.Config, ing *sources.Config) *sources.Config {
	if ing.Ingress == nil {
		return nil
	}
	if _, legacy := ing.Ingress.Annotations[annotationIngressClass]; legacy {
		return nil
	}
	var defaults []*sources.Config
	for _, c := range classes {
		switch {
		case c.IngressClass == nil:
		case ing.Ingress.ClassName != "" && c.Name == ing.Ingress.ClassName:
			return c
		case c.IngressClass.Default:
			defaults = append(defaults, c)
		}
	}
	if ing.Ingress.ClassName == "" && len(defaults) == 1 {
		return defaults[0]
	}
	return nil
}

// ingressClassParamsOf returns the IngressClassParams among params that an
// IngressClass of the AWS Load Balancer Controller names; nil for another
// controller's class, a class without parameters, or parameters not read.
func ingressClassParamsOf(params []*sources.Config, class *sources.Config) *sources.Config {
	if class == nil || class.IngressClass.Controller != sources.ALBIngressController {
		return nil
	}
	ref := class.IngressClass.Parameters
	if ref == nil || ref.Group != ingressClassParamsGroup || ref.Kind != ingressClassParamsKind {
		return nil
	}
	for _, p := range params {
		if p.IngressClassParams != nil && p.Name == ref.Name {
			return p
		}
	}
	return nil
}

// albClass is what the objects say about the ALB an Ingress configures:
// its IngressClass and IngressClassParams (nil when not read) and the
// Ingresses that share the ALB, the Ingress first.
type albClass struct {
	Class, Params *sources.Config
	Group         []*sources.Config
}

// albClassOf links an Ingress to its class, parameters and IngressGroup.
func albClassOf(objs *Objects, ing *sources.Config) albClass {
	out := albClass{Group: []*sources.Config{ing}}
	var group string
	out.Class, out.Params, group = albGroupOf(objs, ing)
	if group == "" {
		return out
	}
	for _, other := range objs.albGroupsOf()[group] {
		if other != ing {
			out.Group = append(out.Group, other)
		}
	}
	return out
}

// albGroupOf returns an Ingress's class and its parameters (nil when not
// read) and the IngressGroup it joins: the parameters' group, else its
// annotation's; "" for none.
func albGroupOf(objs *Objects, ing *sources.Config) (class, params *sources.Config, group string) {
	x := objs.indexOf()
	class = ingressClassOf(x.byKind["IngressClass"], ing)
	params = ingressClassParamsOf(x.byKind[ingressClassParamsKind], class)
	if params != nil && params.IngressClassParams.Group != "" {
		return class, params, params.IngressClassParams.Group
	}
	return class, params, ing.Ingress.Annotations[annotationALBGroup]
}

// albGroupsOf returns the Ingresses of each IngressGroup, in the order
// read, gathered once: a group's members are looked up, not searched for
// among every Ingress each time.
func (o *Objects) albGroupsOf() map[string][]*sources.Config {
	o.albGroupsOnce.Do(func() {
		o.albGroups = map[string][]*sources.Config{}
		for _, ing := range o.indexOf().byKind["Ingress"] {
			if ing.Ingress == nil {
				continue
			}
			if _, _, g := albGroupOf(o, ing); g != "" {
				o.albGroups[g] = append(o.albGroups[g], ing)
			}
		}
	})
	return o.albGroups
}

// albIdleTimeoutOf is the idle timeout of the ALB an Ingress configures,
// as the controller settles it: the IngressClassParams' attribute, else
// the load-balancer-attributes annotation of the Ingress or of another of
// its IngressGroup, else the ALB's default.
func albIdleTimeoutOf(objs *Objects, ing *sources.Config) Timeout {
	t := Timeout{What: "the ALB's idle timeout", Seconds: albIdleTimeout, Source: "the ALB default", ingress: ing}
	alb := albClassOf(objs, ing)
	if p := alb.Params; p != nil {
		if n := p.IngressClassParams.IdleTimeoutSec(); n != nil {
			t.Seconds, t.Source, t.setBy = float64(*n), fmt.Sprintf("IngressClassParams %s loadBalancerAttributes", p.Name), p
			return t
		}
	}
	for _, m := range alb.Group {
		if hc := m.HealthCheck; hc != nil && hc.IdleTimeoutSec != nil {
			t.Seconds, t.Source, t.setBy = float64(*hc.IdleTimeoutSec), fmt.Sprintf("Ingress %s/%s %s", m.Namespace, m.Name, annotationALBAttributes), m
			return t
		}
	}
	return t
}

// ingressesTo returns the Ingresses of the family whose load balancers
// send traffic to the workload (for the ALB, those whose idle timeout
// matters): those routing to the Services that select its pods, else,
// when the objects do not link them, every Ingress of the family read.
func ingressesTo(objs *Objects, wl workload, family sources.Family) []*sources.Config {
	var out []*sources.Config
	for _, f := range workloadFronts(objs, wl) {
		if f.Family == family && f.Via.Kind == "Ingress" && !containsConfig(out, f.Via) {
			out = append(out, f.Via)
		}
	}
	if len(out) > 0 {
		return out
	}
	classes := objs.ConfigsOf("IngressClass")
	for _, ing := range objs.ConfigsOf("Ingress") {
		if ing.Ingress != nil && ingressFamily(ing, &sources.Service{}, ingressClassOf(classes, ing)) == family {
			out = append(out, ing)
		}
	}
	return out
}

// How the controller settles the attributes of the target groups it makes
// for an Ingress's backends (pkg/ingress/model_build_target_group.go and
// docs/guide/ingress/annotations.md): one target group per Ingress,
// Service and port, with the target-group-attributes annotation of the
// Service when it carries one, else of the Ingress. The controller merges
// the two objects' annotations with the Service's first, so the Service's
// value replaces the Ingress's whole, not attribute by attribute; neither
// IngressClassParams nor the IngressGroup set them. A TargetGroupBinding
// the controller did not make binds a target group made outside the
// cluster, whose attributes no object holds; the ones it makes for an
// Ingress carry its ingress.k8s.aws/stack… labels
// (pkg/deploy/tracking/provider.go).
const (
	annotationALBTargetGroupAttributes = "alb.ingress.kubernetes.io/target-group-attributes"
	// albStackLabelPrefix starts the labels of the TargetGroupBindings the
	// controller makes for an Ingress: ingress.k8s.aws/stack for an
	// IngressGroup, ingress.k8s.aws/stack-namespace and -name for one
	// Ingress.
	albStackLabelPrefix = "ingress.k8s.aws/stack"
)

// targetGroupSetting is where the attributes of an ALB target group in
// front of a workload are set: the Service or Ingress whose
// target-group-attributes annotation the controller reads (Holder), or,
// for a target group made outside the cluster, the TargetGroupBinding that
// binds it (Binding).
type targetGroupSetting struct {
	Holder, Binding *sources.Config
}

// annotation is the holder's target-group-attributes annotation as read;
// "" when it has none.
func (s targetGroupSetting) annotation() string {
	switch h := s.Holder; {
	case h == nil:
	case h.Service != nil:
		return h.Service.Annotations[annotationALBTargetGroupAttributes]
	case h.Ingress != nil:
		return h.Ingress.Annotations[annotationALBTargetGroupAttributes]
	}
	return ""
}

// albTargetGroupSettings returns where the attributes of the ALB target
// groups in fronts are set, once each: for an Ingress, the Service it
// routes to when that carries the annotation, else the Ingress; for a
// TargetGroupBinding the controller did not make, the binding. When fronts
// hold no ALB path (the objects do not link the workload), every Ingress
// of the ALB among objs (nil for none).
func albTargetGroupSettings(fronts []front, objs *Objects) []targetGroupSetting {
	var out []targetGroupSetting
	add := func(s targetGroupSetting) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, f := range fronts {
		switch {
		case f.Family != sources.FamilyALB:
		case f.Via.Kind == "Ingress":
			s := targetGroupSetting{Holder: f.Via}
			if svc := f.Service; svc != nil && svc.Service != nil {
				if _, set := svc.Service.Annotations[annotationALBTargetGroupAttributes]; set {
					s.Holder = svc
				}
			}
			add(s)
		case f.Via.Kind == "TargetGroupBinding" && !hasKeyPrefix(f.Via.Labels, albStackLabelPrefix):
			add(targetGroupSetting{Binding: f.Via})
		}
	}
	if len(out) > 0 || objs == nil {
		return out
	}
	classes := objs.ConfigsOf("IngressClass")
	for _, ing := range objs.ConfigsOf("Ingress") {
		if ing.Ingress != nil && ingressFamily(ing, &sources.Service{}, ingressClassOf(classes, ing)) == sources.FamilyALB {
			add(targetGroupSetting{Holder: ing})
		}
	}
	return out
}

// workloadFronts returns the paths the objects link to the workload.
func workloadFronts(objs *Objects, wl workload) []front {
	for _, t := range objs.targetsOf() {
		if t.Config.Namespace == wl.Namespace && t.Config.Name == wl.Name {
			return t.Fronts
		}
	}
	return nil
}

// containsConfig reports whether c is among cs.
func containsConfig(cs []*sources.Config, c *sources.Config) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// withAttribute returns an ALB attributes annotation value
// (load-balancer- or target-group-attributes, "k=v,k=v") with key set to
// value: in place when the value gives it, else appended; the other
// attributes stay.
func withAttribute(annotation, key string, value int) string {
	var out []string
	found := false
	for _, attr := range strings.Split(annotation, ",") {
		attr = strings.TrimSpace(attr)
		if attr == "" {
			continue
		}
		if k, _, _ := strings.Cut(attr, "="); strings.TrimSpace(k) == key {
			attr, found = fmt.Sprintf("%s=%d", key, value), true
		}
		out = append(out, attr)
	}
	if !found {
		out = append(out, fmt.Sprintf("%s=%d", key, value))
	}
	return strings.Join(out, ",")
}

// albIdleFix lowers the idle timeout of the ALB below the app's keep-alive
// where the timeout was set: the IngressClassParams (its whole attribute
// list, as a patch replaces a list whole), else the annotation of the
// Ingress that carries it or that the timeout is for, keeping the other
// attributes.
func albIdleFix(lb Timeout, wl workload, lower int) Fix {
	fix := Fix{
		Title:  fmt.Sprintf("Or close idle connections in the ALB after %d s", lower),
		Why:    "The ALB idle timeout applies to client connections too; lowering it below the app's keep-alive ends the race from the load balancer's side.",
		AtMost: true,
	}
	if p := lb.setBy; p != nil && p.IngressClassParams != nil {
		var attrs []any
		for _, a := range p.IngressClassParams.LoadBalancerAttributes {
			if a.Key == sources.ALBIdleTimeoutAttribute {
				a.Value = fmt.Sprint(lower)
			}
			attrs = append(attrs, map[string]any{"key": a.Key, "value": a.Value})
		}
		fix.Why += fmt.Sprintf(" IngressClassParams %s sets it for every ALB of its IngressClasses, over the Ingresses' annotation.", p.Name)
		fix.Patch = objectPatch(ingressClassParamsGroup+"/v1beta1", ingressClassParamsKind, "", p.Name, nil, map[string]any{"loadBalancerAttributes": attrs})
		return fix
	}
	ing := lb.setBy
	if ing == nil {
		ing = lb.ingress
	}
	ns, name, value := wl.Namespace, placeholderName("Ingress"), ""
	if ing != nil {
		ns, name = ing.Namespace, ing.Name
		if ing.Ingress != nil {
			value = ing.Ingress.Annotations[annotationALBAttributes]
		}
	}
	fix.Patch = objectPatch("networking.k8s.io/v1", "Ingress", ns, name, map[string]any{"annotations": map[string]any{
		annotationALBAttributes: withAttribute(value, sources.ALBIdleTimeoutAttribute, lower)}}, nil)
	return fix
}

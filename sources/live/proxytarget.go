package live

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ProxyTarget is one set of proxy pods whose logs are read: every replica
// of a Deployment, DaemonSet or StatefulSet, every pod a label selector
// matches, or one pod, in one namespace; every container, or one.
type ProxyTarget struct {
	// Namespace is where the pods are; empty means the -n namespace (or the
	// kubeconfig context's).
	Namespace string
	// Kind is the workload: one of the ProxyKind constants; KindSelector
	// when Selector picks the pods.
	Kind ProxyKind
	// Name is the workload's or the pod's name.
	Name string
	// Selector is the label selector, for KindSelector.
	Selector string
	// Container is the one container read; empty means every container
	// (and native sidecars: init containers that keep running).
	Container string
}

// ProxyKind is what a ProxyTarget names.
type ProxyKind string

// The kinds of ProxyTarget, named as kubectl's short names.
const (
	KindDeployment  ProxyKind = "deploy"
	KindDaemonSet   ProxyKind = "ds"
	KindStatefulSet ProxyKind = "sts"
	KindPod         ProxyKind = "pod"
	KindSelector    ProxyKind = "-l"
)

// proxyKinds maps every name kubectl accepts for a kind (singular, plural,
// short, group-qualified) to the kind, and the workload kinds to their
// resource.
var proxyKinds = map[string]ProxyKind{}

// proxyWorkloads is the resource of each workload kind.
var proxyWorkloads = map[ProxyKind]schema.GroupVersionResource{
	KindDeployment:  {Group: "apps", Version: "v1", Resource: "deployments"},
	KindDaemonSet:   {Group: "apps", Version: "v1", Resource: "daemonsets"},
	KindStatefulSet: {Group: "apps", Version: "v1", Resource: "statefulsets"},
}

func init() {
	for kind, names := range map[ProxyKind][]string{
		KindDeployment:  {"deploy", "deployment", "deployments"},
		KindDaemonSet:   {"ds", "daemonset", "daemonsets"},
		KindStatefulSet: {"sts", "statefulset", "statefulsets"},
		KindPod:         {"po", "pod", "pods"},
	} {
		for _, n := range names {
			proxyKinds[n] = kind
			if kind != KindPod {
				proxyKinds[n+".apps"] = kind
			}
		}
	}
}

// proxyTargetForms is what a --proxy-logs value may be, for error messages.
const proxyTargetForms = "[NAMESPACE/]deploy/NAME, [NAMESPACE/]ds/NAME, [NAMESPACE/]sts/NAME, [NAMESPACE/]pod/NAME or [NAMESPACE/]-l SELECTOR, then optionally -c CONTAINER"

// ParseProxyTarget reads a --proxy-logs value as kubectl users write the
// arguments of `kubectl logs`, with the namespace in front:
//
//	istio-system/deploy/istio-ingressgateway
//	ingress-nginx/deploy/ingress-nginx-controller
//	envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=eg -c envoy
//	projectcontour/ds/envoy -c envoy
//	deploy/web -c istio-proxy            (the -n namespace: a workload's sidecars)
//	istio-system/istio-ingressgateway-7d9f-abcde   (one pod)
//
// KIND is any name kubectl takes for a Deployment, DaemonSet, StatefulSet
// or Pod (deploy, deployment, deployments.apps, ds, sts, po...). The
// selector is written -l SEL, -lSEL, -l=SEL, --selector SEL or
// --selector=SEL, the container likewise with -c or --container.
func ParseProxyTarget(spec string) (ProxyTarget, error) {
	bad := func(why string) (ProxyTarget, error) {
		return ProxyTarget{}, fmt.Errorf("%q: %s; want %s", spec, why, proxyTargetForms)
	}
	fields := strings.Fields(spec)
	if len(fields) == 0 {
		return bad("empty")
	}
	var t ProxyTarget
	head, rest := fields[0], fields[1:]
	if i := strings.Index(head, "/-"); i > 0 && !strings.Contains(head[:i], "/") {
		// NAMESPACE/-l...: the selector itself may hold slashes.
		t.Namespace, head = head[:i], head[i+1:]
	}
	if strings.HasPrefix(head, "-") {
		rest = append([]string{head}, rest...)
	} else {
		parts := strings.Split(head, "/")
		switch {
		case len(parts) == 3:
			t.Namespace, parts = parts[0], parts[1:]
		case len(parts) == 2 && proxyKinds[strings.ToLower(parts[0])] == "":
			// NAMESPACE/POD
			t.Namespace, parts = parts[0], []string{"pod", parts[1]}
		case len(parts) == 1:
			parts = []string{"pod", parts[0]}
		case len(parts) > 3:
			return bad("too many slashes")
		}
		kind := proxyKinds[strings.ToLower(parts[0])]
		if kind == "" {
			return bad(fmt.Sprintf("%q is not a Deployment, DaemonSet, StatefulSet or Pod", parts[0]))
		}
		t.Kind, t.Name = kind, parts[1]
		if errs := validation.IsDNS1123Subdomain(t.Name); len(errs) > 0 {
			return bad(fmt.Sprintf("%q is not a valid name: %s", t.Name, errs[0]))
		}
	}
	if err := t.parseFlags(rest); err != nil {
		return bad(err.Error())
	}
	if t.Namespace != "" {
		if errs := validation.IsDNS1123Label(t.Namespace); len(errs) > 0 {
			return bad(fmt.Sprintf("%q is not a valid namespace: %s", t.Namespace, errs[0]))
		}
	}
	return t, nil
}

// parseFlags reads the -l and -c flags that follow a target's head. A
// selector's value runs to the next flag, since a set-based selector
// (`tier in (edge, internal)`) may hold spaces.
func (t *ProxyTarget) parseFlags(args []string) error {
	for len(args) > 0 {
		name, value, ok := cutFlag(args[0])
		if !ok {
			return fmt.Errorf("unexpected %q", args[0])
		}
		args = args[1:]
		// A container's value is one word; a selector's runs to the next flag.
		n := 0
		for n < len(args) && !isFlag(args[n]) && (name == "l" || value == "" && n == 0) {
			n++
		}
		value = strings.TrimSpace(value + " " + strings.Join(args[:n], " "))
		args = args[n:]
		if value == "" {
			return fmt.Errorf("-%s needs a value", name)
		}
		switch name {
		case "l":
			if t.Kind != "" || t.Selector != "" {
				return errors.New("a selector goes alone, without a KIND/NAME or a second -l")
			}
			sel, err := labels.Parse(value)
			if err != nil {
				return fmt.Errorf("bad selector: %v", err)
			}
			if sel.Empty() {
				return errors.New("the selector matches every pod")
			}
			t.Kind, t.Selector = KindSelector, sel.String()
		case "c":
			if t.Container != "" {
				return errors.New("one -c at most")
			}
			if errs := validation.IsDNS1123Label(value); len(errs) > 0 {
				return fmt.Errorf("%q is not a valid container name: %s", value, errs[0])
			}
			t.Container = value
		}
	}
	if t.Kind == "" {
		return errors.New("no KIND/NAME, POD or -l SELECTOR")
	}
	return nil
}

// cutFlag splits a -l or -c flag (short or long, with its value attached
// by = or, for the short form, directly) into its short name and value.
func cutFlag(arg string) (name, value string, ok bool) {
	for _, f := range []struct{ short, long string }{{"l", "selector"}, {"c", "container"}} {
		for _, p := range []string{"--" + f.long, "-" + f.short} {
			rest, found := strings.CutPrefix(arg, p)
			if !found {
				continue
			}
			switch {
			case rest == "":
				return f.short, "", true
			case rest[0] == '=':
				return f.short, rest[1:], true
			case p == "-"+f.short:
				return f.short, rest, true
			}
		}
	}
	return "", "", false
}

// isFlag reports whether arg is one of the flags a target takes.
func isFlag(arg string) bool {
	_, _, ok := cutFlag(arg)
	return ok
}

// String writes the target back in the form ParseProxyTarget reads, with
// the namespace in front when it has one.
func (t ProxyTarget) String() string {
	var b strings.Builder
	if t.Namespace != "" {
		b.WriteString(t.Namespace + "/")
	}
	if t.Kind == KindSelector {
		b.WriteString("-l " + t.Selector)
	} else {
		b.WriteString(string(t.Kind) + "/" + t.Name)
	}
	if t.Container != "" {
		b.WriteString(" -c " + t.Container)
	}
	return b.String()
}

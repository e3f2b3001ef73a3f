package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// SourceKubernetes names the Kubernetes source in reports and errors.
const SourceKubernetes = "kubernetes"

// kubeListLimit is the page size of a Kubernetes list call.
const kubeListLimit = 500

// kubeResource is one kind Kubernetes lists.
type kubeResource struct {
	gvr schema.GroupVersionResource
	// optional resources (CRDs) that are not installed are skipped.
	optional bool
}

// kubeResources are the objects the analysis reads, events first.
var (
	kubeEvents  = kubeResource{gvr: schema.GroupVersionResource{Version: "v1", Resource: "events"}}
	kubeObjects = []kubeResource{
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}},
		{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}},
		{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}},
		{gvr: schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}},
		{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}},
		{gvr: schema.GroupVersionResource{Group: "cloud.google.com", Version: "v1", Resource: "backendconfigs"}, optional: true},
		{gvr: schema.GroupVersionResource{Group: "elbv2.k8s.aws", Version: "v1beta1", Resource: "targetgroupbindings"}, optional: true},
	}
)

// Kubernetes fetches a namespace's events and the objects the analysis
// reads (Pods, ReplicaSets, Deployments, Services, EndpointSlices,
// Ingresses, BackendConfigs and TargetGroupBindings when installed, and the
// Namespace itself) into kubectl-style List files. It lists through the
// dynamic client, so objects keep every field the server sent, as
// `kubectl get -o json` does.
type Kubernetes struct {
	// Kubeconfig is an explicit kubeconfig file; empty means KUBECONFIG or
	// ~/.kube/config.
	Kubeconfig string
	// Context is the kubeconfig context; empty means the current one.
	Context string
	// Namespace is the namespace read; empty means the context's.
	Namespace string

	config *rest.Config
}

// ErrKubeNotConfigured is returned by Kubernetes.Resolve when no
// kubeconfig is found.
var ErrKubeNotConfigured = errors.New("no kubeconfig found")

// Resolve loads the kubeconfig and fills in the namespace. It returns
// ErrKubeNotConfigured when there is no kubeconfig at all.
func (k *Kubernetes) Resolve() error {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.Kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.Context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return ErrKubeNotConfigured
		}
		return fetchErrorf(SourceKubernetes, err, "kubeconfig: %v", err)
	}
	if k.Namespace == "" {
		if k.Namespace, _, err = cc.Namespace(); err != nil || k.Namespace == "" {
			k.Namespace = "default"
		}
	}
	cfg.UserAgent = "readygap"
	k.config = cfg
	return nil
}

// Plan returns the list calls Fetch makes, as kubectl commands.
func (k *Kubernetes) Plan(Window) []string {
	out := []string{fmt.Sprintf("kubectl get namespace %s -o json", k.Namespace)}
	for _, r := range append([]kubeResource{kubeEvents}, kubeObjects...) {
		out = append(out, fmt.Sprintf("kubectl get %s -n %s -o json", kubeResourceName(r.gvr), k.Namespace))
	}
	return out
}

// kubeResourceName is a resource as kubectl names it (pods, replicasets.apps).
func kubeResourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

// Fetch lists the events of the namespace that may fall in w into
// dir/kube/events.json and the objects into dir/kube/objects.json. Objects
// have no time and are all kept. A list that is forbidden is an error
// naming the RBAC verb and resource; the others are still written.
func (k *Kubernetes) Fetch(ctx context.Context, w Window, dir string, progress Progress) (FetchReport, error) {
	rep := FetchReport{Source: SourceKubernetes, Queries: k.Plan(w), Files: []string{}}
	if k.config == nil {
		if err := k.Resolve(); err != nil {
			return rep, err
		}
	}
	dc, err := dynamic.NewForConfig(k.config)
	if err != nil {
		return rep, fetchErrorf(SourceKubernetes, err, "kubeconfig: %v", err)
	}
	var errs []error
	events, err := k.list(ctx, dc, kubeEvents)
	if err != nil {
		errs = append(errs, err)
	}
	kept := events[:0]
	for _, e := range events {
		if kubeEventMayOverlap(e.Object, w) {
			kept = append(kept, e)
		}
	}
	rep.Records += len(kept)
	report := func() {
		if progress != nil {
			progress(SourceKubernetes, rep.Records, rep.Bytes)
		}
	}
	report()
	var objects []unstructured.Unstructured
	if ns, err := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(ctx, k.Namespace, metav1.GetOptions{}); err == nil {
		objects = append(objects, *ns)
	} else if apierrors.IsForbidden(err) {
		rep.Notes = append(rep.Notes, fmt.Sprintf("namespace %s not read (RBAC: get namespaces is forbidden): pod readiness gate injection is unknown", k.Namespace))
	} else if !apierrors.IsNotFound(err) {
		errs = append(errs, kubeError(err, "get", "namespaces", k.Namespace))
	}
	for _, r := range kubeObjects {
		items, err := k.list(ctx, dc, r)
		switch {
		case err == nil:
			objects = append(objects, items...)
			rep.Records += len(items)
			report()
		case errors.Is(err, errKubeMissing):
			rep.Notes = append(rep.Notes, kubeResourceName(r.gvr)+" not installed: skipped")
		default:
			errs = append(errs, err)
		}
	}
	for _, out := range []struct {
		rel   string
		items []unstructured.Unstructured
	}{{"kube/events.json", kept}, {"kube/objects.json", objects}} {
		n, err := writeKubeList(dir, out.rel, out.items)
		if err != nil {
			return rep, err
		}
		rep.Bytes += n
		rep.Files = append(rep.Files, out.rel)
	}
	report()
	if len(kept) == 0 && len(errs) == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no events in namespace %s for %s (events expire after an hour)", k.Namespace, w))
	}
	return rep, errors.Join(errs...)
}

// errKubeMissing marks a list whose resource the server does not serve.
var errKubeMissing = errors.New("resource not served")

// list lists one resource of the namespace, page by page.
func (k *Kubernetes) list(ctx context.Context, dc dynamic.Interface, r kubeResource) ([]unstructured.Unstructured, error) {
	var items []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: kubeListLimit}
	for {
		l, err := dc.Resource(r.gvr).Namespace(k.Namespace).List(ctx, opts)
		if err != nil {
			if r.optional && apierrors.IsNotFound(err) {
				return nil, errKubeMissing
			}
			return nil, kubeError(err, "list", kubeResourceName(r.gvr), k.Namespace)
		}
		items = append(items, l.Items...)
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			return items, nil
		}
	}
}

// kubeError words a Kubernetes API error as a FetchError.
func kubeError(err error, verb, resource, namespace string) *FetchError {
	switch {
	case apierrors.IsForbidden(err):
		return fetchErrorf(SourceKubernetes, err, "RBAC: %s %s in namespace %s is forbidden: grant verb %q on %q", verb, resource, namespace, verb, resource)
	case apierrors.IsUnauthorized(err):
		return fetchErrorf(SourceKubernetes, err, "credentials rejected by the API server: refresh the kubeconfig's credentials")
	}
	return fetchErrorf(SourceKubernetes, err, "%s %s in namespace %s: %v", verb, resource, namespace, err)
}

// kubeEventMayOverlap reports whether an event's occurrences may fall in
// w: it is false only when its last time is before w or its first time is
// at or after w's end. Events without times are kept.
func kubeEventMayOverlap(ev map[string]any, w Window) bool {
	first, last := kubeTime(ev, "firstTimestamp", "eventTime"), kubeTime(ev, "lastTimestamp", "eventTime")
	if s, ok := ev["series"].(map[string]any); ok {
		if t := kubeTime(s, "lastObservedTime"); !t.IsZero() {
			last = t
		}
	}
	if first.IsZero() {
		first = last
	}
	if last.IsZero() {
		last = first
	}
	if last.IsZero() {
		return true
	}
	return !last.Before(w.Since) && first.Before(w.Until)
}

// kubeTime returns the first of the named fields that holds an RFC 3339 time.
func kubeTime(m map[string]any, keys ...string) time.Time {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// writeKubeList writes items as a `kubectl get -o json` List. Items listed
// through the dynamic client carry their apiVersion and kind.
func writeKubeList(dir, rel string, items []unstructured.Unstructured) (int64, error) {
	list := struct {
		APIVersion string           `json:"apiVersion"`
		Kind       string           `json:"kind"`
		Items      []map[string]any `json:"items"`
		Metadata   map[string]any   `json:"metadata"`
	}{APIVersion: "v1", Kind: "List", Items: make([]map[string]any, 0, len(items)), Metadata: map[string]any{"resourceVersion": ""}}
	for _, it := range items {
		list.Items = append(list.Items, it.Object)
	}
	b, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		return 0, err
	}
	f, err := createBundleFile(dir, rel)
	if err != nil {
		return 0, err
	}
	f.Write(append(b, '\n'))
	return f.n, f.Close()
}

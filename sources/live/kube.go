package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/readygap/readygap/sources/bundle"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// SourceKubernetes names the Kubernetes source in reports and errors.
const SourceKubernetes = "kubernetes"

// kubeListLimit is the page size of a Kubernetes list call.
const kubeListLimit = 500

// kubeResource is one kind Kubernetes lists.
type kubeResource struct {
	gvr schema.GroupVersionResource
	// kind is the kind of its objects, which the API server leaves out of
	// a list's items: the saved items carry it, as kubectl's do.
	kind string
	// optional resources (CRDs) that are not installed are skipped.
	optional bool
	// impact says what its absence takes from the analysis.
	impact string
}

// kubeResources are the objects the analysis reads, events first.
var (
	kubeEvents = kubeResource{gvr: schema.GroupVersionResource{Version: "v1", Resource: "events"}, kind: "Event",
		impact: "Kubernetes events are missing: pod starts, readiness changes, terminations and load-balancer registrations they record are not on the timeline"}
	kubeObjects = []kubeResource{
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, kind: "Pod",
			impact: "pod IPs, probes and container ports are unknown: failures may not be tied to pods and probe ports cannot be checked"},
		{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, kind: "ReplicaSet",
			impact: "which pods are old and which new is inferred from times only"},
		{gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, kind: "Deployment",
			impact: "the rollout strategy (maxUnavailable, maxSurge, minReadySeconds) is unknown"},
		{gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}, kind: "Service",
			impact: "service target ports are unknown: probe ports cannot be checked against the serving port"},
		{gvr: schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, kind: "EndpointSlice",
			impact: "the current endpoints and their readiness are unknown"},
		{gvr: schema.GroupVersionResource{Group: "networking.k8s.io", Version: "v1", Resource: "ingresses"}, kind: "Ingress",
			impact: "which services the load balancer routes to is unknown"},
		{gvr: schema.GroupVersionResource{Group: "cloud.google.com", Version: "v1", Resource: "backendconfigs"}, kind: "BackendConfig", optional: true,
			impact: "GKE health-check settings are unknown: fixes use the defaults"},
		{gvr: schema.GroupVersionResource{Group: "elbv2.k8s.aws", Version: "v1beta1", Resource: "targetgroupbindings"}, kind: "TargetGroupBinding", optional: true,
			impact: "target groups cannot be tied to services"},
		// Envoy-based gateways and meshes: routes, retries and health checks.
		{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gateways"}, kind: "Gateway", optional: true,
			impact: "the Gateways' listeners are unknown"},
		{gvr: schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}, kind: "HTTPRoute", optional: true,
			impact: "which Services the routes send to is unknown: fixes cannot name the route"},
		{gvr: schema.GroupVersionResource{Group: "gateway.envoyproxy.io", Version: "v1alpha1", Resource: "backendtrafficpolicies"}, kind: "BackendTrafficPolicy", optional: true,
			impact: "Envoy Gateway's retries and health checks are unknown: fixes assume the defaults"},
		{gvr: schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1", Resource: "destinationrules"}, kind: "DestinationRule", optional: true,
			impact: "Istio's outlier detection is unknown: fixes assume the defaults"},
		{gvr: schema.GroupVersionResource{Group: "networking.istio.io", Version: "v1", Resource: "virtualservices"}, kind: "VirtualService", optional: true,
			impact: "Istio's retries are unknown: fixes assume the defaults and cannot name the route"},
		{gvr: schema.GroupVersionResource{Group: "projectcontour.io", Version: "v1", Resource: "httpproxies"}, kind: "HTTPProxy", optional: true,
			impact: "Contour's routes, retries and health checks are unknown: fixes assume the defaults"},
		// Progressive delivery: the Rollout's and Canary's own settings.
		{gvr: schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "rollouts"}, kind: "Rollout", optional: true,
			impact: "Argo Rollouts' strategies and scale-down delays are unknown: fixes assume Argo's defaults"},
		{gvr: schema.GroupVersionResource{Group: "flagger.app", Version: "v1beta1", Resource: "canaries"}, kind: "Canary", optional: true,
			impact: "Flagger Canaries' providers and analysis intervals are unknown"},
	}
)

// impactNamespace is what a namespace that could not be read takes from the analysis.
const impactNamespace = "pod readiness gate injection (the namespace's label) is unknown"

// Client-side rate limit of the Kubernetes client. client-go's default of 5
// requests a second would take 80 s to page 200 000 events at
// kubeListLimit; the API server protects itself with priority and fairness
// (on by default since Kubernetes 1.20).
const (
	kubeQPS   = 50
	kubeBurst = 100
)

// Kubernetes fetches a namespace's events and the objects the analysis
// reads (Pods, ReplicaSets, Deployments, Services, EndpointSlices,
// Ingresses; BackendConfigs, TargetGroupBindings, Gateways, HTTPRoutes,
// BackendTrafficPolicies, DestinationRules, VirtualServices and
// HTTPProxies when installed; and the Namespace itself) into kubectl-style
// List files. It lists through the
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
	// Timeouts bound the connection, each request and the whole fetch.
	Timeouts Timeouts
	// ObjectsOnly skips the events: `readygap check` reads the objects'
	// specs and needs no history.
	ObjectsOnly bool

	config *rest.Config
}

// ErrKubeNotConfigured is returned by Kubernetes.Resolve when no
// kubeconfig is found.
var ErrKubeNotConfigured = errors.New("no kubeconfig found")

// Resolve loads the kubeconfig and fills in the namespace. It returns
// ErrKubeNotConfigured when there is no kubeconfig at all.
func (k *Kubernetes) Resolve() error {
	cfg, ns, err := loadKubeconfig(SourceKubernetes, k.Kubeconfig, k.Context)
	if err != nil {
		return err
	}
	if k.Namespace == "" {
		k.Namespace = ns
	}
	k.config = cfg
	return nil
}

// loadKubeconfig loads the kubeconfig file (empty: KUBECONFIG or
// ~/.kube/config) with the context (empty: the current one) and returns the
// client configuration and the context's namespace ("default" when it names
// none). It returns ErrKubeNotConfigured when there is no kubeconfig at
// all, and otherwise errors worded for source.
func loadKubeconfig(source, kubeconfig, context string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if clientcmd.IsEmptyConfig(err) {
			return nil, "", ErrKubeNotConfigured
		}
		return nil, "", fetchErrorf(source, err, "kubeconfig: %v", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil || ns == "" {
		ns = "default"
	}
	cfg.UserAgent = "readygap"
	return cfg, ns, nil
}

// Plan returns the list calls Fetch makes, as kubectl commands.
func (k *Kubernetes) Plan(Window) []string {
	out := []string{fmt.Sprintf("kubectl get namespace %s -o json", k.Namespace)}
	for _, r := range k.resources() {
		out = append(out, fmt.Sprintf("kubectl get %s -n %s -o json", kubeResourceName(r.gvr), k.Namespace))
	}
	return out
}

// resources are the kinds Fetch lists, events first unless ObjectsOnly.
func (k *Kubernetes) resources() []kubeResource {
	if k.ObjectsOnly {
		return kubeObjects
	}
	return append([]kubeResource{kubeEvents}, kubeObjects...)
}

// kubeResourceName is a resource as kubectl names it (pods, replicasets.apps).
func kubeResourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource
	}
	return gvr.Resource + "." + gvr.Group
}

// kubeRestConfig returns a copy of the client configuration base with t's
// deadlines: a connect timeout on the dial and the TLS handshake, a
// first-byte and an idle-read timeout on every request, server warnings
// dropped (they are server text), and the API server's requests to retry
// bounded (retryWatcher) and reported to the call's hook, answers read
// whole bounded (kubeAnswerLimit), and a redirect to another host refused
// (redirectGuard: client-go's bearer round-tripper would send the token
// there).
func kubeRestConfig(base *rest.Config, t Timeouts) *rest.Config {
	cfg := rest.CopyConfig(base)
	cfg.Dial = dialer(t).DialContext
	cfg.WarningHandler = rest.NoWarnings{}
	cfg.QPS, cfg.Burst = kubeQPS, kubeBurst
	prev := cfg.WrapTransport
	asked := &retryCount{}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		// client-go allows 10 s for the TLS handshake; it is part of
		// connecting. The transport is this configuration's own (its
		// dialer is in the cache key).
		for inner := rt; inner != nil; {
			if tr, ok := inner.(*http.Transport); ok {
				tr.TLSHandshakeTimeout = t.Connect
				break
			}
			w, ok := inner.(utilnet.RoundTripperWrapper)
			if !ok {
				break
			}
			inner = w.WrappedRoundTripper()
		}
		// A redirect to another host fails the call before client-go
		// follows it with the credentials.
		rt = redirectGuard{next: rt}
		if prev != nil {
			rt = prev(rt)
		}
		return &retryWatcher{next: kubeAnswerLimit{next: newDeadlineTransport(rt, t)}, maxWait: t.Response, asked: asked}
	}
	return cfg
}

// kubeMaxAttempts is how many answers in a row asking to retry (429, or 5xx
// with Retry-After) a source takes from the API server before it gives up,
// as many as an AWS call makes (awsMaxAttempts). client-go's own limit, 10
// retries of every call each waiting what the server asks, kept the
// Kubernetes source on an API server that answered 503 with Retry-After: 1
// to everything for 160 s (16 lists, 11 requests each).
const kubeMaxAttempts = awsMaxAttempts

// retryWatcher bounds client-go's retries of one source's calls and tells a
// request's retry hook when one is made. client-go retries a 429 or 5xx
// answer only when it carries Retry-After, after waiting that many seconds;
// retryWatcher removes the header, so that the call fails with the
// server's answer, once kubeMaxAttempts answers in a row (across the
// source's calls: an API server that refuses every call costs one call's
// attempts, not each call's) asked to retry, or when the wait asked for is
// longer than maxWait (the response timeout: such a server does not answer
// in time).
type retryWatcher struct {
	next    http.RoundTripper
	maxWait time.Duration
	// asked is shared by the clients of one source.
	asked *retryCount
}

// retryCount counts the answers in a row that asked to retry.
type retryCount struct {
	mu     sync.Mutex
	inARow int
}

// RoundTrip implements http.RoundTripper.
func (w *retryWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	wait, asks := retryAfter(resp)
	c := w.asked
	c.mu.Lock()
	if !asks {
		c.inARow = 0
		c.mu.Unlock()
		return resp, nil
	}
	c.inARow++
	giveUp := c.inARow >= kubeMaxAttempts || wait > w.maxWait
	c.mu.Unlock()
	if giveUp {
		resp.Header.Del("Retry-After")
		return resp, nil
	}
	if hook, ok := req.Context().Value(retryHookKey{}).(func(string)); ok {
		hook(fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode)))
	}
	return resp, nil
}

// retryAfter returns the wait an answer asks for before a retry, and
// whether client-go retries it: a 429 or 5xx status with Retry-After in
// whole seconds (client-go reads no other form).
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil {
		return 0, false
	}
	return time.Duration(s) * time.Second, true
}

// silenceClientGo keeps client-go from printing to standard error: it logs
// unexpected body-read errors through klog, quoting what the server sent.
var silenceClientGo sync.Once

// Fetch lists the events of the namespace that may fall in w into
// dir/kube/events.json and the objects into dir/kube/objects.json (those of
// CRDs that are not installed are skipped, in one note), page by
// page (limit/continue), writing item by item, so memory stays bounded
// whatever the namespace's size. Objects have no time and are all kept;
// env values, last-applied-configuration and Secret data are removed. A
// list that is forbidden is reported naming the RBAC verb and resource and
// the others are still written; rejected credentials or a dead API server
// stop the source.
func (k *Kubernetes) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	t := k.Timeouts.withDefaults()
	r := newRun(ctx, SourceKubernetes, "list", dir, t, progress)
	r.rep.Queries = k.Plan(w)
	var forbidden []string
	// calls maps the reason of a call that failed with the server's
	// answer to the call ("list pods").
	calls := map[string]string{}
	r.summarize = func(bad []bundle.Item, total map[string]int) string {
		return kubeSummary(k.Namespace, forbidden, calls, bad, total)
	}
	if k.config == nil {
		if err := k.Resolve(); err != nil {
			var fe *FetchError
			if !errors.As(err, &fe) {
				fe = fetchErrorf(SourceKubernetes, err, "%v", err)
			}
			r.stop(fe)
			return r.finish()
		}
	}
	silenceClientGo.Do(func() { klog.SetLogger(logr.Discard()) })
	rc, err := kubeListClient(kubeRestConfig(k.config, t))
	if err != nil {
		r.stop(fetchErrorf(SourceKubernetes, err, "kubeconfig: %v", err))
		return r.finish()
	}
	dc := dynamic.New(rc)
	counts := map[string]int{}
	events := &kubeListFile{f: newBundleFile(dir, "kube/events.json", kubeListHead, "\n]}\n")}
	objects := &kubeListFile{f: newBundleFile(dir, "kube/objects.json", kubeListHead, "\n]}\n")}
	word := func(verb, resource string) func(error) *FetchError {
		return func(err error) *FetchError {
			fe := kubeError(err, verb, resource, k.Namespace, k.config.Host)
			call := verb + " " + resource
			switch {
			case apierrors.IsForbidden(err):
				forbidden = append(forbidden, call)
			case strings.HasPrefix(fe.Msg, call+" in namespace "+k.Namespace+": "):
				calls[fe.Msg] = call
			}
			return fe
		}
	}
	var absent []string
	if !k.ObjectsOnly {
		k.list(r, rc, kubeEvents, events, func(ev map[string]any) bool { return kubeEventMayOverlap(ev, w) }, counts, word, &absent)
	}
	k.getNamespace(r, dc, objects, counts, word)
	k.getVersion(r, rc)
	for _, res := range kubeObjects {
		k.list(r, rc, res, objects, nil, counts, word, &absent)
	}
	if len(absent) > 0 {
		r.note("not installed, so not listed: %s", strings.Join(absent, ", "))
	}
	for _, l := range []*kubeListFile{events, objects} {
		if err := l.f.Close(); err != nil {
			r.stop(fetchErrorf(SourceKubernetes, err, "writing %s: %v", l.f.rel, err).stopping())
		}
	}
	r.redacted(counts)
	rep, err := r.finish()
	if err == nil && events.items == 0 && !k.ObjectsOnly {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no events in namespace %s for %s (events expire after an hour)", k.Namespace, w))
	}
	return rep, err
}

// kubeListHead opens a `kubectl get -o json` List; its items follow one
// per line.
const kubeListHead = `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[`

// kubeListFile is a List being written item by item.
type kubeListFile struct {
	f     *bundleFile
	items int
}

// add writes one item and returns the bytes written.
func (l *kubeListFile) add(obj map[string]any) (int64, error) {
	b, err := json.Marshal(obj)
	if err != nil {
		return 0, err
	}
	before := l.f.n
	if l.items > 0 {
		l.f.Write([]byte(","))
	}
	l.f.Write([]byte("\n"))
	_, err = l.f.Write(b)
	l.items++
	return l.f.n - before, err
}

// getNamespace reads the Namespace object (its labels say whether the ALB
// controller injects readiness gates). Many users may not get namespaces,
// so a failure only limits the analysis.
func (k *Kubernetes) getNamespace(r *run, dc dynamic.Interface, out *kubeListFile, counts map[string]int, word func(verb, resource string) func(error) *FetchError) {
	i := r.add(bundle.Item{Kind: "list", Name: fmt.Sprintf("kubectl get namespace %s -o json", k.Namespace), Status: bundle.ItemNotRequested, Impact: impactNamespace, Optional: true})
	if why := r.stopReason(); why != "" {
		r.update(i, func(it *bundle.Item) { it.Reason = why })
		return
	}
	ns, err := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(r.ctx, k.Namespace, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		r.update(i, func(it *bundle.Item) { it.Status, it.Impact = bundle.ItemComplete, "" })
		return
	}
	if err != nil {
		why := r.fail(err, word("get", "namespaces"))
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return
	}
	redactKubeObject(ns.Object, counts)
	n, err := out.add(ns.Object)
	if err != nil {
		r.stop(fetchErrorf(SourceKubernetes, err, "writing %s: %v", out.f.rel, err).stopping())
	}
	r.update(i, func(it *bundle.Item) {
		it.Status, it.File, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, out.f.rel, 1, n, ""
	})
	r.saved(1, n)
}

// getVersion reads the API server's version (GET /version, which every
// authenticated user may read) into the report, for the fixes that depend
// on it; a server that does not answer it leaves a note, not a failure.
func (k *Kubernetes) getVersion(r *run, rc rest.Interface) {
	if r.stopReason() != "" {
		return
	}
	raw, err := rc.Get().AbsPath("/version").Do(r.ctx).Raw()
	var info version.Info
	if err == nil {
		err = json.Unmarshal(raw, &info)
	}
	if err == nil && info.GitVersion == "" {
		err = errors.New("no gitVersion in the answer")
	}
	if err != nil {
		msg, _ := Redact(err.Error())
		r.note("server version not read (GET /version: %s): fixes that depend on it say so", msg)
		return
	}
	r.rep.ServerVersion = info.GitVersion
}

// kubeListClient returns a REST client of cfg's API server that reads
// JSON, for any group and version: the dynamic client's configuration
// (dynamic.ConfigFor) without CBOR, which readKubeList does not read.
func kubeListClient(cfg *rest.Config) (*rest.RESTClient, error) {
	c := dynamic.ConfigFor(cfg)
	c.AcceptContentTypes = "application/json"
	c.GroupVersion = nil
	return rest.UnversionedRESTClientFor(c)
}

// kubeListPath is the path of a resource's list in a namespace.
func kubeListPath(gvr schema.GroupVersionResource, namespace string) []string {
	if gvr.Group == "" {
		return []string{"/api", gvr.Version, "namespaces", namespace, gvr.Resource}
	}
	return []string{"/apis", gvr.Group, gvr.Version, "namespaces", namespace, gvr.Resource}
}

// list lists one resource of the namespace page by page (limit/continue)
// into out, keeping the items keep accepts (all when nil). Each page is
// read as a stream, item by item, none larger than kubeMaxItemBytes; the
// list stops after listItemLimit items, or as many pages as that many
// items fill, whether the server ignored limit or paged without end, and
// then says so in the item's reason. An optional resource the cluster does
// not serve is added to absent.
func (k *Kubernetes) list(r *run, rc rest.Interface, res kubeResource, out *kubeListFile, keep func(map[string]any) bool,
	counts map[string]int, word func(verb, resource string) func(error) *FetchError, absent *[]string) {
	resource := kubeResourceName(res.gvr)
	i := r.add(bundle.Item{Kind: "list", Name: fmt.Sprintf("kubectl get %s -n %s -o json", resource, k.Namespace), Status: bundle.ItemNotRequested, Impact: res.impact})
	if why := r.stopReason(); why != "" {
		r.update(i, func(it *bundle.Item) { it.Reason = why })
		return
	}
	ctx := streamed(withRetryHook(r.ctx, func(why string) { r.retry(resource, why) }))
	defer r.settle(resource)
	endpoint := endpointOf(rc.Get().URL())
	n, read, bytes, pages := 0, 0, int64(0), 0
	cont := ""
	// failed records why the list stopped: partial once items were read.
	failed := func(why string) {
		r.update(i, func(it *bundle.Item) {
			it.Status, it.Records, it.Bytes, it.Reason = bundle.ItemFailed, n, bytes, why
			if read > 0 {
				it.Status, it.File = bundle.ItemPartial, out.f.rel
				it.Impact = fmt.Sprintf("only the first %d items were read: %s", read, res.impact)
			}
		})
	}
	for {
		req := rc.Get().AbsPath(kubeListPath(res.gvr, k.Namespace)...).Param("limit", strconv.Itoa(kubeListLimit))
		if cont != "" {
			req = req.Param("continue", cont)
		}
		body, err := req.Stream(ctx)
		if err != nil {
			if res.optional && apierrors.IsNotFound(err) && pages == 0 {
				*absent = append(*absent, resource)
				r.update(i, func(it *bundle.Item) { it.Status, it.Impact = bundle.ItemComplete, "" })
				return
			}
			failed(r.fail(err, word("list", resource)))
			return
		}
		r.settle(resource)
		pn, pb := 0, int64(0)
		var werr error
		cut := false
		page, err := readKubeList(body, endpoint, kubeMaxItemBytes, func(obj map[string]any) error {
			if read >= listItemLimit {
				cut = true
				return errStopList
			}
			read++
			if keep != nil && !keep(obj) {
				return nil
			}
			if _, ok := obj["kind"]; !ok {
				obj["apiVersion"], obj["kind"] = res.gvr.GroupVersion().String(), res.kind
			}
			redactKubeObject(obj, counts)
			b, err := out.add(obj)
			if err != nil {
				werr = err
				return err
			}
			pn++
			pb += b
			return nil
		})
		body.Close()
		n, bytes = n+pn, bytes+pb
		r.saved(pn, pb)
		pages++
		switch {
		case werr != nil:
			r.stop(fetchErrorf(SourceKubernetes, werr, "writing %s: %v", out.f.rel, werr).stopping())
			failed(r.stopReason())
			return
		case err != nil:
			failed(r.fail(err, word("list", resource)))
			return
		case page.Continue != "" && page.Continue == cont:
			failed(fmt.Sprintf("list %s in namespace %s: the API server %s sent a continue token it had sent before: the list would not end",
				resource, k.Namespace, endpoint))
			return
		case cut || (page.Continue != "" && (read >= listItemLimit || pages >= listItemLimit/kubeListLimit)):
			how := "paged on past them"
			if page.Items > kubeListLimit {
				how = fmt.Sprintf("ignored limit=%d", kubeListLimit)
			}
			failed(fmt.Sprintf("list %s in namespace %s: cut at %d items, readygap's bound on one list: the API server %s %s",
				resource, k.Namespace, listItemLimit, endpoint, how))
			return
		}
		if page.Continue == "" {
			break
		}
		cont = page.Continue
	}
	r.update(i, func(it *bundle.Item) {
		it.Status, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, n, bytes, ""
		if n > 0 {
			it.File = out.f.rel
		}
	})
}

// kubeError words a Kubernetes API error as a FetchError: a dead API
// server or rejected credentials stop the source; a forbidden list names
// the RBAC verb and resource.
func kubeError(err error, verb, resource, namespace, host string) *FetchError {
	if fe := transportError(SourceKubernetes, err); fe != nil {
		return fe
	}
	switch {
	case apierrors.IsForbidden(err):
		return fetchErrorf(SourceKubernetes, err, "RBAC: %s %s in namespace %s is forbidden: grant verb %q on %q", verb, resource, namespace, verb, resource)
	case apierrors.IsUnauthorized(err):
		return fetchErrorf(SourceKubernetes, err, "credentials rejected by the API server %s (401 Unauthorized): refresh the kubeconfig's credentials (`aws eks update-kubeconfig`, `gcloud container clusters get-credentials`)", host).stopping()
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		return fetchErrorf(SourceKubernetes, err, "%s %s in namespace %s: %d %s: %s", verb, resource, namespace, s.Code, s.Reason, s.Message)
	}
	return fetchErrorf(SourceKubernetes, err, "%s %s in namespace %s: %v", verb, resource, namespace, err)
}

// kubeSummary words the lists not complete as one line: the forbidden
// ones together, with the verbs and resources to grant, then the others,
// those that got the same answer from the server together ("list events,
// list pods in namespace shop: 503 ServiceUnavailable: ..."). calls maps
// the reason of a call that failed with the server's answer to the call.
func kubeSummary(namespace string, forbidden []string, calls map[string]string, bad []bundle.Item, total map[string]int) string {
	var rest []bundle.Item
	for _, it := range bad {
		if !strings.HasPrefix(it.Reason, "RBAC: ") {
			rest = append(rest, it)
		}
	}
	var parts []string
	if len(forbidden) > 0 && len(rest) < len(bad) {
		grant := "grant each verb on its resource"
		if len(forbidden) == 1 {
			verb, resource, _ := strings.Cut(forbidden[0], " ")
			grant = fmt.Sprintf("grant verb %q on %q", verb, resource)
		}
		parts = append(parts, fmt.Sprintf("RBAC forbids %s in namespace %s: %s (a Role in the namespace, or the ClusterRole in docs/triage.md)",
			strings.Join(forbidden, ", "), namespace, grant))
	}
	answer := func(reason string) string {
		return strings.TrimPrefix(reason, calls[reason]+" in namespace "+namespace+": ")
	}
	same := map[string][]string{}
	for _, it := range rest {
		if call, ok := calls[it.Reason]; ok {
			a := answer(it.Reason)
			same[a] = append(same[a], call)
		}
	}
	for i, it := range rest {
		if _, ok := calls[it.Reason]; ok {
			if a := answer(it.Reason); len(same[a]) > 1 {
				rest[i].Reason = strings.Join(same[a], ", ") + " in namespace " + namespace + ": " + a
			}
		}
	}
	if s := summarizeItems(rest, total); s != "" {
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
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

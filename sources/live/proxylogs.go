package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/readygap/readygap/internal/safego"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources/bundle"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// SourceProxyLogs names the proxy pod log source in reports and errors.
const SourceProxyLogs = "proxy-logs"

// DefaultProxyLogLimit is the most of log read from one pod, all its
// containers together: 25 times the kubelet's default containerLogMaxSize
// (10 MiB), which is the most it serves of a running container (only the
// current log file is served), leaving room for clusters that raise it and
// for a previous instance, while one chatty replica cannot fill the disk.
const DefaultProxyLogLimit int64 = 256 << 20

// podLogWorkers is how many pods' logs are read at once: kubectl's default
// --max-log-requests, which keeps the API server and the kubelets from
// serving many streams to one client.
const podLogWorkers = 5

// podGoneMargin is how long before the window a pod may have been told to
// stop and still have logged inside it: the default
// terminationGracePeriodSeconds, 30 s.
const podGoneMargin = 30 * time.Second

// podLogRotationGap is how long after a container started the first line
// of its log file may come and still be the container's first line. The
// kubelet serves only a container's current log file; one that begins
// later was begun by log rotation, and the lines before it are gone.
// Proxies write startup lines within seconds of starting (Envoy's
// initialization at the default info level, ingress-nginx's banner).
const podLogRotationGap = time.Minute

// podLogProbeBytes is how much of the start of a log file is read to learn
// the time of its first line: more than a line's time and a short line.
const podLogProbeBytes = 1 << 10

// eventsTTL is how long the API server keeps events (kube-apiserver's
// --event-ttl default, an hour): pods deleted before it cannot be named.
const eventsTTL = time.Hour

// impactProxyLog is what a log that did not come back takes from the
// analysis.
const impactProxyLog = "the requests this proxy replica logged are missing: failure counts may be low and the incident window cut short"

// ProxyLogs reads the logs of gateway and ingress-controller pods (Istio
// and Envoy Gateway proxies, Contour's Envoy, ingress-nginx controllers,
// sidecars) through the Kubernetes API's pods/log, as `kubectl logs
// --timestamps --since-time` does, for every replica of each target and
// every container (or the one named), into proxy-logs/NAMESPACE/POD/
// CONTAINER.log in the bundle, where the analysis detects their format by
// content. A container that restarted in the window also gives its
// previous instance's log (CONTAINER.previous.log).
//
// Lines before the window are dropped and reading stops at its end; each
// pod's logs are capped at LimitBytes. What cannot be read is named in the
// manifest without failing the source: pods of a target deleted during the
// window (found in the namespace's events), instances of a container
// older than its previous one, a log cut by the limit or, likely, by the
// kubelet's log rotation.
type ProxyLogs struct {
	// Kubeconfig and Context select the cluster as for Kubernetes.
	Kubeconfig, Context string
	// Namespace is the namespace of targets that name none; empty means
	// the kubeconfig context's.
	Namespace string
	// Targets are the sets of pods read.
	Targets []ProxyTarget
	// LimitBytes caps what is read of one pod; 0 means
	// DefaultProxyLogLimit.
	LimitBytes int64
	// Timeouts bound the connection, each request (a log stream that
	// pauses longer than Timeouts.Idle is given up) and the whole fetch.
	Timeouts Timeouts

	config *rest.Config
}

// Resolve loads the kubeconfig and fills in the default namespace. It
// returns ErrKubeNotConfigured when there is no kubeconfig at all.
func (p *ProxyLogs) Resolve() error {
	cfg, ns, err := loadKubeconfig(SourceProxyLogs, p.Kubeconfig, p.Context)
	if err != nil {
		return err
	}
	if p.Namespace == "" {
		p.Namespace = ns
	}
	p.config = cfg
	return nil
}

// namespace is where t's pods are.
func (p *ProxyLogs) namespace(t ProxyTarget) string {
	if t.Namespace != "" {
		return t.Namespace
	}
	if p.Namespace != "" {
		return p.Namespace
	}
	return "default"
}

// limit is the byte budget of one pod.
func (p *ProxyLogs) limit() int64 {
	if p.LimitBytes > 0 {
		return p.LimitBytes
	}
	return DefaultProxyLogLimit
}

// Plan returns what Fetch asks for, as the kubectl commands that ask the
// same: one `kubectl logs` per target and the events list of each
// namespace, which names the pods deleted during the window.
func (p *ProxyLogs) Plan(w Window) []string {
	var out []string
	seen := map[string]bool{}
	var nss []string
	for _, t := range p.Targets {
		ns := p.namespace(t)
		out = append(out, kubectlLogs(ns, t, w))
		if t.Kind != KindPod && !seen[ns] {
			seen[ns] = true
			nss = append(nss, ns)
		}
	}
	for _, ns := range nss {
		out = append(out, fmt.Sprintf("kubectl get events -n %s -o json", ns))
	}
	if len(p.Targets) > 0 {
		out = append(out, fmt.Sprintf("(with --previous too for containers that restarted in the window; lines from %s on dropped; at most %s a pod)",
			w.Until.UTC().Format(time.RFC3339), words.Bytes(p.limit())))
	}
	return out
}

// kubectlLogs is the kubectl command that reads what Fetch reads of t.
func kubectlLogs(ns string, t ProxyTarget, w Window) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kubectl logs -n %s ", ns)
	switch t.Kind {
	case KindSelector:
		// kubectl reads only the last 10 lines of each pod of a selector
		// unless told otherwise.
		fmt.Fprintf(&b, "-l %s --tail=-1", shellWord(t.Selector))
	case KindPod:
		b.WriteString(t.Name)
	default:
		fmt.Fprintf(&b, "%s/%s --all-pods", t.Kind, t.Name)
	}
	if t.Container != "" {
		b.WriteString(" -c " + t.Container)
	} else {
		b.WriteString(" --all-containers")
	}
	fmt.Fprintf(&b, " --timestamps --since-time=%s", w.Since.UTC().Format(time.RFC3339))
	return b.String()
}

// shellWord quotes s for a POSIX shell when it holds anything but the
// characters of a simple label selector.
func shellWord(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return shellQuote(s)
}

// shellSafe matches what a shell reads as one word without quotes.
var shellSafe = regexp.MustCompile(`^[A-Za-z0-9._/=,!-]+$`)

// podLog is one log stream to read: a container instance of a pod.
type podLog struct {
	container string
	previous  bool
	// started is when the instance started; zero when unknown.
	started time.Time
	item    int
	file    string
}

// podLogs are the logs of one pod, read one after the other under the
// pod's byte budget.
type podLogs struct {
	ns, pod string
	logs    []podLog
	files   map[string]bool
}

// proxyNamespace gathers, per namespace, what recognises the pods of the
// targets that are gone: the controllers that create them and the pods
// that are there.
type proxyNamespace struct {
	ns string
	// owners maps a controller's name to its kind (ReplicaSet, DaemonSet,
	// StatefulSet) and containers to the container a target reads of its
	// pods ("" for all).
	owners     map[string]string
	containers map[string]string
	// present and presentUIDs are the pods listed.
	present     map[string]bool
	presentUIDs map[string]bool
}

// Fetch reads the logs of every pod of every target that fall in w into
// dir/proxy-logs, streaming each to its file, pods podLogWorkers at a
// time. A target that cannot be resolved, a log that is forbidden, stalls
// or breaks off fails the source (what was saved is kept); pods deleted
// during the window, a container's lost instances and logs cut by the
// limit are listed as gone or partial without failing it.
func (p *ProxyLogs) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	t := p.Timeouts.withDefaults()
	r := newRun(ctx, SourceProxyLogs, "log", dir, t, progress)
	r.rep.Queries = p.Plan(w)
	if p.config == nil {
		if err := p.Resolve(); err != nil {
			var fe *FetchError
			if !errors.As(err, &fe) {
				fe = fetchErrorf(SourceProxyLogs, err, "%v", err)
			}
			r.stop(fe)
			return r.finish()
		}
	}
	silenceClientGo.Do(func() { klog.SetLogger(logr.Discard()) })
	cfg := kubeRestConfig(p.config, t)
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		r.stop(fetchErrorf(SourceProxyLogs, err, "kubeconfig: %v", err))
		return r.finish()
	}
	logs, codec, err := podLogClient(cfg)
	if err != nil {
		r.stop(fetchErrorf(SourceProxyLogs, err, "kubeconfig: %v", err))
		return r.finish()
	}
	pods := map[string]*podLogs{}
	var order []*podLogs
	spaces := map[string]*proxyNamespace{}
	var spaceOrder []*proxyNamespace
	for _, target := range p.Targets {
		ns := p.namespace(target)
		space := spaces[ns]
		if space == nil {
			space = &proxyNamespace{ns: ns, owners: map[string]string{}, containers: map[string]string{}, present: map[string]bool{}, presentUIDs: map[string]bool{}}
			spaces[ns] = space
			spaceOrder = append(spaceOrder, space)
		}
		found := p.resolve(r, dc, target, ns, space)
		for _, pod := range found {
			key := ns + "/" + pod.Name
			pl := pods[key]
			if pl == nil {
				pl = &podLogs{ns: ns, pod: pod.Name, files: map[string]bool{}}
				pods[key] = pl
				order = append(order, pl)
			}
			p.planPod(r, pl, pod, target.Container, w)
		}
	}
	for _, space := range spaceOrder {
		if len(space.owners) > 0 {
			p.findGone(r, dc, space, w)
		}
	}
	var wg safego.Group // a worker's panic reaches the command's recovery
	jobs := make(chan *podLogs)
	for range min(podLogWorkers, len(order)) {
		wg.Go(func() {
			defer func() {
				for range jobs { // drained, so that the loop below never waits for ever
				}
			}()
			for pl := range jobs {
				p.readPod(r, logs, codec, pl, w, dir)
			}
		})
	}
	for _, pl := range order {
		jobs <- pl
	}
	close(jobs)
	wg.Wait()
	rep, err := r.finish()
	if err == nil && rep.Records == 0 && len(order) > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no log lines of the proxies in %s", w))
	}
	return rep, err
}

// word returns how an error of the call verb on resource in ns is worded,
// as for Kubernetes, for this source.
func (p *ProxyLogs) word(verb, resource, ns string) func(error) *FetchError {
	return func(err error) *FetchError {
		fe := kubeError(err, verb, resource, ns, p.config.Host)
		fe.Source = SourceProxyLogs
		return fe
	}
}

// podLogClient returns a REST client of the core API group for pods/log
// streams (client-go's typed clients would link every API group in) and
// the codec of its query parameters.
func podLogClient(cfg *rest.Config) (rest.Interface, runtime.ParameterCodec, error) {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, nil, err
	}
	c := rest.CopyConfig(cfg)
	c.APIPath = "/api"
	c.GroupVersion = &corev1.SchemeGroupVersion
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	return rc, runtime.NewParameterCodec(scheme), err
}

// resolve finds the pods of target in ns, recording the target as an
// item, and adds to space the controllers that create its pods and the
// pods found.
func (p *ProxyLogs) resolve(r *run, dc dynamic.Interface, target ProxyTarget, ns string, space *proxyNamespace) []*corev1.Pod {
	spec := target
	spec.Namespace = ns
	i := r.add(bundle.Item{Kind: "target", Name: spec.String(), Status: bundle.ItemNotRequested,
		Impact: "the requests these proxies logged are missing: failure counts may be low and the cause unnamed"})
	failed := func(why string) []*corev1.Pod {
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		return nil
	}
	if why := r.stopReason(); why != "" {
		r.update(i, func(it *bundle.Item) { it.Reason = why })
		return nil
	}
	podsGVR := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	var pods []*corev1.Pod
	selector := target.Selector
	switch target.Kind {
	case KindPod:
		obj, err := dc.Resource(podsGVR).Namespace(ns).Get(r.ctx, target.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return failed(fmt.Sprintf("pod %s not found in namespace %s (a deleted pod's logs are gone with it)", target.Name, ns))
		}
		if err != nil {
			return failed(r.fail(err, p.word("get", "pods", ns)))
		}
		pod, err := toPod(obj)
		if err != nil {
			return failed(err.Error())
		}
		pods = []*corev1.Pod{pod}
	case KindDeployment, KindDaemonSet, KindStatefulSet:
		gvr := proxyWorkloads[target.Kind]
		obj, err := dc.Resource(gvr).Namespace(ns).Get(r.ctx, target.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return failed(fmt.Sprintf("%s %s not found in namespace %s", strings.TrimSuffix(gvr.Resource, "s"), target.Name, ns))
		}
		if err != nil {
			return failed(r.fail(err, p.word("get", kubeResourceName(gvr), ns)))
		}
		if selector, err = workloadSelector(obj); err != nil {
			return failed(fmt.Sprintf("%s %s: %v", strings.TrimSuffix(gvr.Resource, "s"), target.Name, err))
		}
		switch target.Kind {
		case KindDaemonSet:
			space.owners[target.Name] = "DaemonSet"
		case KindStatefulSet:
			space.owners[target.Name] = "StatefulSet"
		}
	}
	if target.Kind != KindPod {
		items, why := p.listAll(r, dc, podsGVR, ns, selector)
		if why != "" {
			return failed(why)
		}
		for j := range items {
			pod, err := toPod(&items[j])
			if err != nil {
				r.note("%s: %v", spec, err)
				continue
			}
			pods = append(pods, pod)
		}
		if target.Kind == KindDeployment || target.Kind == KindSelector {
			// Every ReplicaSet of the pods' template, old ones included:
			// their pods deleted by a rollout of the proxies are gone.
			rsGVR := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
			j := r.add(bundle.Item{Kind: "list", Name: fmt.Sprintf("kubectl get replicasets -n %s -l %s -o json", ns, shellWord(selector)), Status: bundle.ItemNotRequested,
				Optional: true, Impact: "the pods of old ReplicaSets deleted during the window cannot be named: their missing logs go without a warning"})
			if rss, why := p.listAll(r, dc, rsGVR, ns, selector); why == "" {
				for _, rs := range rss {
					space.owners[rs.GetName()] = "ReplicaSet"
				}
				r.update(j, func(it *bundle.Item) { it.Status, it.Impact = bundle.ItemComplete, "" })
			} else {
				r.update(j, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
			}
		}
	}
	for _, pod := range pods {
		space.present[pod.Name] = true
		space.presentUIDs[string(pod.UID)] = true
		if c := metav1.GetControllerOf(pod); target.Kind != KindPod && c != nil && (c.Kind == "ReplicaSet" || c.Kind == "DaemonSet" || c.Kind == "StatefulSet") {
			space.owners[c.Name] = c.Kind
		}
	}
	for owner := range space.owners {
		if _, ok := space.containers[owner]; !ok {
			space.containers[owner] = target.Container
		}
	}
	if target.Container != "" && len(pods) > 0 {
		has := false
		for _, pod := range pods {
			has = has || len(podContainers(pod, target.Container)) > 0
		}
		if !has {
			return failed(fmt.Sprintf("no pod of %s has a container named %s (%s has %s)", spec, target.Container,
				pods[0].Name, strings.Join(podContainers(pods[0], ""), ", ")))
		}
	}
	if len(pods) == 0 {
		if target.Kind == KindSelector {
			return failed(fmt.Sprintf("no pod in namespace %s matches -l %s", ns, selector))
		}
		return failed(fmt.Sprintf("%s has no pods", spec))
	}
	r.update(i, func(it *bundle.Item) { it.Status, it.Impact = bundle.ItemComplete, "" })
	return pods
}

// listAll lists every object of gvr in ns that selector matches, page by
// page; it returns the failure's reason instead when a page fails.
func (p *ProxyLogs) listAll(r *run, dc dynamic.Interface, gvr schema.GroupVersionResource, ns, selector string) ([]unstructured.Unstructured, string) {
	var out []unstructured.Unstructured
	opts := metav1.ListOptions{Limit: kubeListLimit, LabelSelector: selector}
	for {
		l, err := dc.Resource(gvr).Namespace(ns).List(r.ctx, opts)
		if err != nil {
			return nil, r.fail(err, p.word("list", kubeResourceName(gvr), ns))
		}
		out = append(out, l.Items...)
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			return out, ""
		}
	}
}

// workloadSelector returns a workload's spec.selector as a label selector.
func workloadSelector(obj *unstructured.Unstructured) (string, error) {
	m, ok, _ := unstructured.NestedMap(obj.Object, "spec", "selector")
	if !ok {
		return "", errors.New("no spec.selector")
	}
	var ls metav1.LabelSelector
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ls); err != nil {
		return "", err
	}
	sel, err := metav1.LabelSelectorAsSelector(&ls)
	if err != nil {
		return "", err
	}
	if sel.Empty() {
		return "", errors.New("an empty spec.selector")
	}
	return sel.String(), nil
}

// toPod converts a listed object into a Pod.
func toPod(obj *unstructured.Unstructured) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, pod); err != nil {
		return nil, fmt.Errorf("pod %s: %v", obj.GetName(), err)
	}
	return pod, nil
}

// podContainers names the containers of pod that are read: the one named
// container when the pod has it (none otherwise), or else every container
// and every native sidecar (an init container that keeps running, as
// Istio's istio-proxy is with native sidecars).
func podContainers(pod *corev1.Pod, container string) []string {
	var out []string
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.InitContainers {
		if container == c.Name || c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = append(out, c.Name)
		}
	}
	if container == "" {
		return out
	}
	if containsString(out, container) {
		return []string{container}
	}
	return nil
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// containerStatus returns the status of the named container of pod.
func containerStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// planPod adds to pl, as items, the logs of pod's containers that may hold
// lines of w, following what the kubelet serves (pkg/kubelet's
// validateContainerLogStatus): without previous, the running instance, or
// the terminated one, or, while the container waits to restart, the last
// terminated one; with previous, the last terminated instance. It also
// lists, as gone, instances older than the previous one that ran inside
// the window: the kubelet keeps one terminated instance.
func (p *ProxyLogs) planPod(r *run, pl *podLogs, pod *corev1.Pod, container string, w Window) {
	for _, name := range podContainers(pod, container) {
		st := containerStatus(pod, name)
		base := path.Join("proxy-logs", pl.ns, pl.pod, name)
		add := func(previous bool, started time.Time, file string) {
			if pl.files[file] {
				return
			}
			pl.files[file] = true
			i := r.add(bundle.Item{Kind: "log", Name: kubectlContainerLog(pl.ns, pl.pod, name, previous, w), Status: bundle.ItemNotRequested, Impact: impactProxyLog})
			pl.logs = append(pl.logs, podLog{container: name, previous: previous, started: started, item: i, file: file})
		}
		if st == nil {
			r.note("%s/%s: container %s has not started: no logs", pl.ns, pl.pod, name)
			continue
		}
		type instance struct{ started, finished time.Time }
		var cur, prev *instance
		last := st.LastTerminationState.Terminated
		switch s := st.State; {
		case s.Running != nil:
			cur = &instance{started: s.Running.StartedAt.Time}
		case s.Terminated != nil && s.Terminated.ContainerID != "":
			cur = &instance{started: s.Terminated.StartedAt.Time, finished: s.Terminated.FinishedAt.Time}
		case last != nil && last.ContainerID != "":
			// Waiting to restart: the kubelet serves the last instance.
			cur, last = &instance{started: last.StartedAt.Time, finished: last.FinishedAt.Time}, nil
		default:
			why := "has not started"
			if s.Waiting != nil && s.Waiting.Reason != "" {
				why = "is waiting to start (" + s.Waiting.Reason + ")"
			}
			r.note("%s/%s: container %s %s: no logs", pl.ns, pl.pod, name, why)
			continue
		}
		if last != nil && last.ContainerID != "" {
			prev = &instance{started: last.StartedAt.Time, finished: last.FinishedAt.Time}
		}
		inWindow := func(in *instance) bool {
			return in != nil && (in.finished.IsZero() || !in.finished.Before(w.Since)) && (in.started.IsZero() || in.started.Before(w.Until))
		}
		if inWindow(prev) {
			add(true, prev.started, base+".previous.log")
		}
		if inWindow(cur) {
			add(false, cur.started, base+".log")
		}
		served := 1
		oldest := cur
		if prev != nil {
			served, oldest = 2, prev
		}
		if int(st.RestartCount)+1 > served && !oldest.started.IsZero() && oldest.started.After(w.Since) {
			if key := base + " earlier"; !pl.files[key] {
				pl.files[key] = true
				r.add(bundle.Item{Kind: "log", Name: kubectlContainerLog(pl.ns, pl.pod, name, true, w) + " (instances before the previous one)",
					Status: bundle.ItemGone, Optional: true, Impact: impactProxyLog,
					Reason: fmt.Sprintf("the container restarted %d times and the kubelet keeps the log of one terminated instance only: the instances that ran before %s are gone",
						st.RestartCount, oldest.started.UTC().Format(time.RFC3339))})
			}
		}
	}
}

// kubectlContainerLog is the kubectl command that reads one container's log.
func kubectlContainerLog(ns, pod, container string, previous bool, w Window) string {
	s := fmt.Sprintf("kubectl logs -n %s %s -c %s --timestamps --since-time=%s", ns, pod, container, w.Since.UTC().Format(time.RFC3339))
	if previous {
		s += " --previous"
	}
	return s
}

// readPod reads the logs of one pod in turn, sharing the pod's budget.
func (p *ProxyLogs) readPod(r *run, rc rest.Interface, codec runtime.ParameterCodec, pl *podLogs, w Window, dir string) {
	remaining := p.limit()
	for _, l := range pl.logs {
		if why := r.stopReason(); why != "" {
			r.update(l.item, func(it *bundle.Item) { it.Reason = why })
			continue
		}
		if remaining <= 0 {
			r.update(l.item, func(it *bundle.Item) {
				it.Optional = true
				it.Reason = fmt.Sprintf("the limit of %s a pod (--proxy-logs-limit) was used up by its other logs", words.Bytes(p.limit()))
			})
			continue
		}
		remaining -= p.readLog(r, rc, codec, pl, l, remaining, w, dir)
	}
}

// readLog streams one container's log into its file and returns the bytes
// read.
func (p *ProxyLogs) readLog(r *run, rc rest.Interface, codec runtime.ParameterCodec, pl *podLogs, l podLog, budget int64, w Window, dir string) int64 {
	key := l.file
	// The log is streamed, bounded by the budget (copyPodLog).
	ctx := streamed(withRetryHook(r.ctx, func(why string) { r.retry(key, why) }))
	defer r.settle(key)
	ask := budget + 1
	opts := &corev1.PodLogOptions{Container: l.container, Previous: l.previous, Timestamps: true,
		SinceTime: &metav1.Time{Time: w.Since}, LimitBytes: &ask}
	body, err := rc.Get().Namespace(pl.ns).Resource("pods").Name(pl.pod).SubResource("log").VersionedParams(opts, codec).Stream(ctx)
	if err != nil {
		stopped := r.stopReason()
		switch {
		case stopped == "" && apierrors.IsNotFound(err):
			r.update(l.item, func(it *bundle.Item) {
				it.Status, it.Optional = bundle.ItemGone, true
				it.Reason = "the pod was deleted before its log was read, and the log with it"
			})
		case stopped == "" && apierrors.IsBadRequest(err):
			// The kubelet has no such log (a container waiting to start, no
			// previous instance after all): the pod changed since it was listed.
			msg, n := Redact(apiMessage(err))
			r.redacted(map[string]int{redactedErrorText: n})
			r.update(l.item, func(it *bundle.Item) { it.Status, it.Optional, it.Reason = bundle.ItemFailed, true, msg })
		default:
			why := r.fail(err, p.word("get", "pods/log", pl.ns))
			r.update(l.item, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
		}
		return 0
	}
	f := newBundleFile(dir, l.file, "", "")
	c, err := copyPodLog(f, body, w, budget, r.saved)
	body.Close()
	if cerr := f.Close(); err == nil && cerr != nil {
		err = &writeError{cerr}
	}
	var we *writeError
	if errors.As(err, &we) {
		r.stop(fetchErrorf(SourceProxyLogs, err, "writing %s: %v", l.file, err).stopping())
	}
	status, why, optional := bundle.ItemComplete, "", false
	var lost time.Time
	switch {
	case err != nil:
		status, why = bundle.ItemFailed, r.fail(err, p.word("get", "pods/log", pl.ns))
		if c.lines > 0 {
			status = bundle.ItemPartial
		}
	case c.limited:
		status, optional = bundle.ItemPartial, true
		why = fmt.Sprintf("cut at the limit of %s a pod (--proxy-logs-limit)", words.Bytes(p.limit()))
		if !c.lastSaved.IsZero() {
			why += ": the lines after " + c.lastSaved.UTC().Format(time.RFC3339Nano) + " were not read"
		}
	case !l.started.IsZero() && l.started.Before(w.Since) && c.first.After(w.Since):
		// The container ran before the window but its first line came
		// after the window's start: a quiet proxy, or a log file begun by
		// rotation after it.
		if begins := p.fileStart(r, rc, codec, pl, l); begins.After(w.Since) && begins.Sub(l.started) > podLogRotationGap {
			status, optional = bundle.ItemPartial, true
			why = fmt.Sprintf("the kubelet's log file of this container begins at %s, %s after the window's start: it serves only the current file (containerLogMaxSize, 10 MiB by default), so the lines before were rotated away",
				begins.UTC().Format(time.RFC3339Nano), begins.Sub(w.Since).Round(time.Second))
			lost = begins
		}
	}
	r.update(l.item, func(it *bundle.Item) {
		it.Status, it.Records, it.Bytes, it.Reason, it.Optional = status, c.lines, f.n, why, optional
		if f.n > 0 {
			it.File = l.file
		}
		switch {
		case status == bundle.ItemComplete:
			it.Impact = ""
		case !lost.IsZero():
			it.Impact = "the requests this proxy replica logged before " + lost.UTC().Format(time.RFC3339Nano) + " are missing: failure counts may be low and the incident's start unseen"
		case !c.lastSaved.IsZero():
			it.Impact = "the requests this proxy replica logged after " + c.lastSaved.UTC().Format(time.RFC3339Nano) + " are missing: failure counts may be low and the incident window cut short"
		}
	})
	return c.read
}

// fileStart returns the time of the first line of the log file the
// kubelet serves for l, or zero when it cannot tell.
func (p *ProxyLogs) fileStart(r *run, rc rest.Interface, codec runtime.ParameterCodec, pl *podLogs, l podLog) time.Time {
	limit := int64(podLogProbeBytes)
	opts := &corev1.PodLogOptions{Container: l.container, Previous: l.previous, Timestamps: true, LimitBytes: &limit}
	body, err := rc.Get().Namespace(pl.ns).Resource("pods").Name(pl.pod).SubResource("log").VersionedParams(opts, codec).Stream(streamed(r.ctx))
	if err != nil {
		return time.Time{}
	}
	defer body.Close()
	b := make([]byte, podLogProbeBytes)
	n, _ := io.ReadFull(body, b)
	t, _ := podLogStamp(b[:n])
	return t
}

// apiMessage is the message of an API error.
func apiMessage(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return st.Status().Message
	}
	return err.Error()
}

// gonePod is a pod of a target known from the namespace's events but no
// longer there.
type gonePod struct {
	name string
	// created is its earliest event that is not about its deletion, last
	// its latest event; deleted is when it was told to stop (zero if no
	// event says).
	created, last, deleted time.Time
	owner                  string
}

// findGone lists the events of the namespace and names, as gone items,
// the pods of the targets' controllers that ran in the window and are no
// longer there: their logs went with them. Events are lossy and kept an
// hour, so this is a lower bound.
func (p *ProxyLogs) findGone(r *run, dc dynamic.Interface, space *proxyNamespace, w Window) {
	i := r.add(bundle.Item{Kind: "list", Name: fmt.Sprintf("kubectl get events -n %s -o json", space.ns), Status: bundle.ItemNotRequested, Optional: true,
		Impact: "the proxy pods deleted during the window cannot be named: their missing logs go without a warning"})
	if why := r.stopReason(); why != "" {
		r.update(i, func(it *bundle.Item) { it.Reason = why })
		return
	}
	gone := map[string]*gonePod{}
	opts := metav1.ListOptions{Limit: kubeListLimit}
	for {
		l, err := dc.Resource(kubeEvents.gvr).Namespace(space.ns).List(r.ctx, opts)
		if err != nil {
			why := r.fail(err, p.word("list", "events", space.ns))
			r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, why })
			return
		}
		for j := range l.Items {
			space.noteEvent(l.Items[j].Object, gone)
		}
		if opts.Continue = l.GetContinue(); opts.Continue == "" {
			break
		}
	}
	r.update(i, func(it *bundle.Item) { it.Status, it.Impact = bundle.ItemComplete, "" })
	if time.Since(w.Since) > eventsTTL {
		r.note("the API server keeps events an hour (--event-ttl): proxy pods of %s deleted before %s cannot be named, so their missing logs may go without a warning",
			space.ns, time.Now().Add(-eventsTTL).UTC().Format(time.RFC3339))
	}
	var names []string
	for name, g := range gone {
		if g.last.Before(w.Since.Add(-podGoneMargin)) || !g.created.IsZero() && !g.created.Before(w.Until) {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g := gone[name]
		why := fmt.Sprintf("the pod is gone (last seen in an event at %s), and its logs with it", g.last.UTC().Format(time.RFC3339))
		if !g.deleted.IsZero() {
			when := "during the window"
			switch {
			case g.deleted.Before(w.Since):
				when = "just before the window"
			case !g.deleted.Before(w.Until):
				when = "after the window"
			}
			why = fmt.Sprintf("the pod was deleted at %s, %s, and its logs with it", g.deleted.UTC().Format(time.RFC3339), when)
		}
		if space.present[name] {
			why = "an earlier pod of this name: " + why
		}
		c := space.containers[g.owner]
		cmd := fmt.Sprintf("kubectl logs -n %s %s --all-containers --timestamps --since-time=%s", space.ns, name, w.Since.UTC().Format(time.RFC3339))
		if c != "" {
			cmd = kubectlContainerLog(space.ns, name, c, false, w)
		}
		r.add(bundle.Item{Kind: "log", Name: cmd, Status: bundle.ItemGone, Optional: true, Reason: why, Impact: impactProxyLog})
	}
}

// Messages of the ReplicaSet, DaemonSet and StatefulSet controllers' events
// that name a pod they created or deleted (pkg/controller).
var (
	controllerPodEvent = regexp.MustCompile(`^(?:Created|Deleted) pod: (\S+)$`)
	statefulPodEvent   = regexp.MustCompile(`^(?:create|delete) Pod (\S+) in StatefulSet \S+ successful$`)
)

// noteEvent adds to gone the pod an event names when it belongs to one of
// the space's controllers and is not there (or is there as another pod of
// the same name, a StatefulSet's).
func (space *proxyNamespace) noteEvent(ev map[string]any, gone map[string]*gonePod) {
	io, _ := ev["involvedObject"].(map[string]any)
	kind, _ := io["kind"].(string)
	name, _ := io["name"].(string)
	uid, _ := io["uid"].(string)
	reason, _ := ev["reason"].(string)
	msg, _ := ev["message"].(string)
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
		return
	}
	var pod, owner string
	deletion := false
	switch kind {
	case "Pod":
		owner = space.ownerOf(name)
		if owner == "" || uid != "" && space.presentUIDs[uid] || uid == "" && space.present[name] {
			return
		}
		pod, deletion = name, reason == "Killing"
	case "ReplicaSet", "DaemonSet", "StatefulSet":
		if space.owners[name] != kind {
			return
		}
		m := controllerPodEvent.FindStringSubmatch(msg)
		if m == nil {
			m = statefulPodEvent.FindStringSubmatch(msg)
		}
		if m == nil || space.present[m[1]] {
			return
		}
		pod, owner, deletion = m[1], name, strings.HasPrefix(reason, "SuccessfulDelete")
	default:
		return
	}
	g := gone[pod]
	if g == nil {
		g = &gonePod{name: pod, owner: owner}
		gone[pod] = g
	}
	if last.After(g.last) {
		g.last = last
	}
	if deletion {
		if g.deleted.IsZero() || first.Before(g.deleted) {
			g.deleted = first
		}
	} else if g.created.IsZero() || first.Before(g.created) {
		g.created = first
	}
}

// ownerOf returns the controller of the space whose pods are named like
// name (`<ReplicaSet or DaemonSet>-<5 characters>`,
// `<StatefulSet>-<ordinal>`), or "".
func (space *proxyNamespace) ownerOf(name string) string {
	for owner, kind := range space.owners {
		suffix, ok := strings.CutPrefix(name, owner+"-")
		if !ok {
			continue
		}
		if kind == "StatefulSet" && suffix != "" && strings.Trim(suffix, "0123456789") == "" {
			return owner
		}
		if kind != "StatefulSet" && len(suffix) == generatedSuffixLen && strings.Trim(suffix, "abcdefghijklmnopqrstuvwxyz0123456789") == "" {
			return owner
		}
	}
	return ""
}

// generatedSuffixLen is the length of the random suffix the API server
// adds to a generateName (apiserver's names.SimpleNameGenerator), which
// ReplicaSet and DaemonSet pods are named with.
const generatedSuffixLen = 5

package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live/livetest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// at is a time of the night of midnightWindow: hours before 12 are on
// 2024-05-02.
func at(h, m, s int) time.Time {
	d := 1
	if h < 12 {
		d = 2
	}
	return time.Date(2024, 5, d, h, m, s, 0, time.UTC)
}

// istioLine is an access line in Istio's default text format, as an
// ingress gateway writes it.
func istioLine(t time.Time, status int, flags, upstream string) string {
	details := "via_upstream"
	if flags != "-" {
		details = "upstream_reset_before_response_started{remote_connection_failure,delayed_connect_error:_Connection_refused}"
	}
	return fmt.Sprintf(`[%s] "GET /api/items HTTP/1.1" %d %s %s - "-" 0 512 9 8 "198.51.100.12" "curl/8.5.0" "cef6611d-3eee-4317-ac34-5155c3ad8745" "shop.example.com" "%s" outbound|80||web.shop.svc.cluster.local 10.244.11.227:47401 10.244.11.227:8080 198.51.100.12:43367 - web`,
		t.UTC().Format("2006-01-02T15:04:05.000Z"), status, flags, details, upstream)
}

// egLine is an access line in Envoy Gateway's default JSON format (v1.4
// and later: typed values).
func egLine(t time.Time, status int, upstream string) string {
	return fmt.Sprintf(`{"start_time":"%s","method":"GET","x-envoy-origin-path":"/api/items","protocol":"HTTP/1.1","response_code":%d,"response_flags":"-","response_code_details":"via_upstream","connection_termination_details":null,"upstream_transport_failure_reason":null,"bytes_received":0,"bytes_sent":565,"duration":3,"x-envoy-upstream-service-time":null,"x-forwarded-for":"203.0.113.38","user-agent":"curl/8.5.0","x-request-id":"839f924d-ef4e-437f-bfea-4e662f4173c0",":authority":"shop.example.com","upstream_host":"%s","upstream_cluster":"httproute/shop/web/rule/0","upstream_local_address":"10.244.11.85:50390","downstream_local_address":"10.244.11.85:10080","downstream_remote_address":"203.0.113.38:59530","requested_server_name":null,"route_name":"httproute/shop/web/rule/0/match/0/shop_example_com"}`,
		t.UTC().Format("2006-01-02T15:04:05.000Z"), status, upstream)
}

// lines makes log lines at the given times with line(t).
func lines(line func(time.Time) string, times ...time.Time) []livetest.LogLine {
	var out []livetest.LogLine
	for _, t := range times {
		out = append(out, livetest.LogLine{Time: t.Add(3 * time.Millisecond), Text: line(t)})
	}
	return out
}

// testPod describes a proxy pod of the fake API server.
type testPod struct {
	ns, name, owner, ownerKind string
	labels                     map[string]string
	containers, sidecars       []string
	// status of every container: running since started; restarts, and
	// the last terminated instance when lastStarted is set.
	started                   time.Time
	restarts                  int32
	lastStarted, lastFinished time.Time
}

// json renders the pod as the API server lists it.
func (p testPod) json() string {
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: p.ns, UID: fakeUID(p.name), Labels: p.labels}}
	if p.owner != "" {
		yes := true
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: p.ownerKind, Name: p.owner, UID: fakeUID(p.owner), Controller: &yes}}
	}
	status := func(name string) corev1.ContainerStatus {
		s := corev1.ContainerStatus{Name: name, Ready: true, RestartCount: p.restarts, ContainerID: "containerd://" + name,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(p.started)}}}
		if !p.lastStarted.IsZero() {
			s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", ContainerID: "containerd://old-" + name,
				StartedAt: metav1.NewTime(p.lastStarted), FinishedAt: metav1.NewTime(p.lastFinished)}
		}
		return s
	}
	for _, c := range p.containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "proxy:1"})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, status(c))
	}
	always := corev1.ContainerRestartPolicyAlways
	pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: "istio-init", Image: "proxy:1"})
	for _, c := range p.sidecars {
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, corev1.Container{Name: c, Image: "proxy:1", RestartPolicy: &always})
		pod.Status.InitContainerStatuses = append(pod.Status.InitContainerStatuses, status(c))
	}
	pod.Status.Phase = corev1.PodRunning
	b, _ := json.Marshal(pod)
	return string(b)
}

// fakeUID is the UID the fake gives the object named name.
func fakeUID(name string) k8stypes.UID {
	return k8stypes.UID("uid-" + strings.ReplaceAll(name, "-", ""))
}

// podEvent is an event about a pod (or, with kind, a controller).
func podEvent(ns, kind, name, uid, reason, msg string, t time.Time) string {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{"name": name + "." + reason, "namespace": ns},
		"involvedObject": map[string]any{"kind": kind, "namespace": ns, "name": name, "uid": uid},
		"reason":         reason, "message": msg, "type": "Normal", "firstTimestamp": t.Format(time.RFC3339), "lastTimestamp": t.Format(time.RFC3339), "count": 1})
	return string(b)
}

// proxyTestServer serves, in midnightWindow:
//   - istio-system: Deployment istio-ingressgateway, its ReplicaSets
//     5d9f7 (current) and 7c4b2 (old); pods abcde (running all along),
//     fghij (restarted once in the window), klmno (listed, then gone:
//     its log answers 404), rstuv (restarted three times, the last two in
//     the window); events naming two old pods deleted in the window, one
//     deleted long before it, and pods of another Deployment;
//   - envoy-gateway-system: an Envoy Gateway proxy of Gateway eg (envoy
//     and shutdown-manager containers) and one of another Gateway;
//   - shop: Deployment web whose pods carry istio-proxy as a native sidecar.
func proxyTestServer(t *testing.T) *livetest.Kube {
	k := livetest.NewKube(t)
	ig := map[string]string{"app": "istio-ingressgateway"}
	k.Paths["/apis/apps/v1/namespaces/istio-system/deployments/istio-ingressgateway"] = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"istio-ingressgateway","namespace":"istio-system","uid":"uid-ig"},"spec":{"selector":{"matchLabels":{"app":"istio-ingressgateway"}}}}`
	k.List("/apis/apps/v1/namespaces/istio-system/replicasets", "apps/v1", "ReplicaSetList",
		`{"metadata":{"name":"istio-ingressgateway-5d9f7","namespace":"istio-system","labels":{"app":"istio-ingressgateway","pod-template-hash":"5d9f7"}}}`,
		`{"metadata":{"name":"istio-ingressgateway-7c4b2","namespace":"istio-system","labels":{"app":"istio-ingressgateway","pod-template-hash":"7c4b2"}}}`,
		`{"metadata":{"name":"other-5d9f7","namespace":"istio-system","labels":{"app":"other"}}}`)
	pods := []testPod{
		{name: "istio-ingressgateway-5d9f7-abcde", started: at(22, 0, 0)},
		{name: "istio-ingressgateway-5d9f7-fghij", started: at(23, 52, 5), restarts: 1, lastStarted: at(22, 0, 0), lastFinished: at(23, 52, 0)},
		{name: "istio-ingressgateway-5d9f7-klmno", started: at(22, 0, 0)},
		{name: "istio-ingressgateway-5d9f7-rstuv", started: at(23, 55, 5), restarts: 3, lastStarted: at(23, 50, 0), lastFinished: at(23, 55, 0)},
	}
	var podJSON []string
	for _, p := range pods {
		p.ns, p.owner, p.ownerKind, p.labels, p.containers = "istio-system", "istio-ingressgateway-5d9f7", "ReplicaSet", ig, []string{"istio-proxy"}
		podJSON = append(podJSON, p.json())
	}
	podJSON = append(podJSON, testPod{ns: "istio-system", name: "other-5d9f7-aaaaa", owner: "other-5d9f7", ownerKind: "ReplicaSet",
		labels: map[string]string{"app": "other"}, containers: []string{"app"}, started: at(22, 0, 0)}.json())
	k.List("/api/v1/namespaces/istio-system/pods", "v1", "PodList", podJSON...)
	k.List("/api/v1/namespaces/istio-system/events", "v1", "EventList",
		podEvent("istio-system", "Pod", "istio-ingressgateway-5d9f7-abcde", "uid-istioingressgateway5d9f7abcde", "Started", "Started container istio-proxy", at(22, 0, 0)),
		podEvent("istio-system", "Pod", "istio-ingressgateway-7c4b2-pqrst", "uid-old1", "Killing", "Stopping container istio-proxy", at(23, 45, 0)),
		podEvent("istio-system", "Pod", "istio-ingressgateway-7c4b2-zzzzz", "uid-old2", "Killing", "Stopping container istio-proxy", at(22, 0, 0)),
		podEvent("istio-system", "ReplicaSet", "istio-ingressgateway-7c4b2", "uid-rs", "SuccessfulDelete", "Deleted pod: istio-ingressgateway-7c4b2-uvwxy", at(23, 58, 0)),
		podEvent("istio-system", "ReplicaSet", "istio-ingressgateway-5d9f7", "uid-rs2", "SuccessfulCreate", "Created pod: istio-ingressgateway-5d9f7-abcde", at(22, 0, 0)),
		podEvent("istio-system", "Pod", "other-5d9f7-bbbbb", "uid-other", "Killing", "Stopping container app", at(23, 50, 0)))
	istio := func(t time.Time) string { return istioLine(t, 200, "-", "10.244.1.211:8080") }
	// What pilot-agent writes when the proxy has started.
	ready := func(t time.Time) livetest.LogLine {
		return livetest.LogLine{Time: t, Text: t.Format("2006-01-02T15:04:05.000000Z") + "\tinfo\tEnvoy proxy is ready"}
	}
	k.PodLogs["istio-system/istio-ingressgateway-5d9f7-abcde"] = map[string]*livetest.ContainerLogs{
		"istio-proxy": {Current: append([]livetest.LogLine{ready(at(22, 0, 1))}, lines(istio, at(23, 30, 0), at(23, 40, 1), at(23, 50, 0), at(0, 9, 58), at(0, 10, 0), at(0, 20, 0))...)},
	}
	k.PodLogs["istio-system/istio-ingressgateway-5d9f7-fghij"] = map[string]*livetest.ContainerLogs{
		"istio-proxy": {
			Previous: append([]livetest.LogLine{ready(at(22, 0, 1))}, lines(istio, at(23, 45, 0), at(23, 51, 59))...),
			Current:  append([]livetest.LogLine{ready(at(23, 52, 5))}, lines(istio, at(23, 52, 10), at(0, 5, 0))...),
		},
	}
	k.PodLogs["istio-system/istio-ingressgateway-5d9f7-rstuv"] = map[string]*livetest.ContainerLogs{
		"istio-proxy": {Previous: lines(istio, at(23, 50, 1)), Current: lines(istio, at(23, 55, 6))},
	}
	eg := map[string]string{"gateway.envoyproxy.io/owning-gateway-name": "eg", "gateway.envoyproxy.io/owning-gateway-namespace": "default"}
	k.List("/api/v1/namespaces/envoy-gateway-system/pods", "v1", "PodList",
		testPod{ns: "envoy-gateway-system", name: "envoy-default-eg-e41e7b31-6f8d9c7b5d-wxyz1", owner: "envoy-default-eg-e41e7b31-6f8d9c7b5d", ownerKind: "ReplicaSet",
			labels: eg, containers: []string{"envoy", "shutdown-manager"}, started: at(22, 0, 0)}.json(),
		testPod{ns: "envoy-gateway-system", name: "envoy-default-other-0a1b2c3d-7f8e9d6c5b-qrstu", owner: "envoy-default-other-0a1b2c3d-7f8e9d6c5b", ownerKind: "ReplicaSet",
			labels: map[string]string{"gateway.envoyproxy.io/owning-gateway-name": "other"}, containers: []string{"envoy"}, started: at(22, 0, 0)}.json())
	k.List("/apis/apps/v1/namespaces/envoy-gateway-system/replicasets", "apps/v1", "ReplicaSetList")
	k.List("/api/v1/namespaces/envoy-gateway-system/events", "v1", "EventList")
	k.PodLogs["envoy-gateway-system/envoy-default-eg-e41e7b31-6f8d9c7b5d-wxyz1"] = map[string]*livetest.ContainerLogs{
		"envoy": {Current: append([]livetest.LogLine{{Time: at(22, 0, 1), Text: "[2024-05-01 22:00:01.123][1][info][main] [source/server/server.cc:985] starting main dispatch loop"}},
			lines(func(t time.Time) string { return egLine(t, 200, "10.244.2.136:8080") }, at(23, 41, 0), at(23, 59, 0))...)},
		"shutdown-manager": {Current: []livetest.LogLine{{Time: at(22, 0, 1), Text: `{"level":"info","ts":"2024-05-01T22:00:01Z","msg":"starting shutdown manager"}`}}},
	}
	k.Paths["/apis/apps/v1/namespaces/shop/deployments/web"] = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"matchLabels":{"app":"web"}}}}`
	k.List("/apis/apps/v1/namespaces/shop/replicasets", "apps/v1", "ReplicaSetList")
	k.List("/api/v1/namespaces/shop/events", "v1", "EventList")
	k.List("/api/v1/namespaces/shop/pods", "v1", "PodList",
		testPod{ns: "shop", name: "web-7d9f-abcde", owner: "web-7d9f", ownerKind: "ReplicaSet", labels: map[string]string{"app": "web"},
			containers: []string{"web"}, sidecars: []string{"istio-proxy"}, started: at(22, 0, 0)}.json())
	k.PodLogs["shop/web-7d9f-abcde"] = map[string]*livetest.ContainerLogs{
		"web":         {Current: []livetest.LogLine{{Time: at(23, 50, 0), Text: "GET /api/items 200"}}},
		"istio-proxy": {Current: append([]livetest.LogLine{ready(at(22, 0, 2))}, lines(func(t time.Time) string { return istioLine(t, 200, "-", "10.244.3.7:8080") }, at(23, 50, 0))...)},
	}
	return k
}

// proxyTargets parses --proxy-logs values.
func proxyTargets(t *testing.T, specs ...string) []ProxyTarget {
	var out []ProxyTarget
	for _, s := range specs {
		pt, err := ParseProxyTarget(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pt)
	}
	return out
}

// logRequests returns the pods/log requests srv answered for a window
// (those with a sinceTime), their query decoded and sorted, without
// limitBytes.
func logRequests(srv *livetest.Kube) []string {
	var out []string
	for _, r := range srv.Requests() {
		r = r[:strings.Index(r, " auth=")]
		path, query, _ := strings.Cut(strings.TrimPrefix(r, "GET "), "?")
		q, _ := url.ParseQuery(query)
		if !strings.HasSuffix(path, "/log") || !q.Has("sinceTime") {
			continue
		}
		var keys []string
		for k := range q {
			if k != "limitBytes" {
				keys = append(keys, k+"="+q.Get(k))
			}
		}
		sort.Strings(keys)
		out = append(out, path+" "+strings.Join(keys, "&"))
	}
	sort.Strings(out)
	return out
}

func TestProxyLogsFetch(t *testing.T) {
	srv := proxyTestServer(t)
	p := &ProxyLogs{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "proxy-token-secret"), Timeouts: faultTimeouts,
		Targets: proxyTargets(t, "istio-system/deploy/istio-ingressgateway", "envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=eg", "deploy/web -c istio-proxy")}
	if err := p.Resolve(); err != nil || p.Namespace != "shop" {
		t.Fatalf("resolve: %v, namespace %q", err, p.Namespace)
	}
	dir := t.TempDir()
	var prog progressLog
	rep, err := p.Fetch(context.Background(), midnightWindow, dir, prog.fn)
	if err != nil {
		t.Fatal(err)
	}
	const q = "&sinceTime=2024-05-01T23:40:00Z&timestamps=true"
	want := []string{
		"/api/v1/namespaces/envoy-gateway-system/pods/envoy-default-eg-e41e7b31-6f8d9c7b5d-wxyz1/log container=envoy" + q,
		"/api/v1/namespaces/envoy-gateway-system/pods/envoy-default-eg-e41e7b31-6f8d9c7b5d-wxyz1/log container=shutdown-manager" + q,
		"/api/v1/namespaces/istio-system/pods/istio-ingressgateway-5d9f7-abcde/log container=istio-proxy" + q,
		"/api/v1/namespaces/istio-system/pods/istio-ingressgateway-5d9f7-fghij/log container=istio-proxy&previous=true" + q,
		"/api/v1/namespaces/istio-system/pods/istio-ingressgateway-5d9f7-fghij/log container=istio-proxy" + q,
		"/api/v1/namespaces/istio-system/pods/istio-ingressgateway-5d9f7-klmno/log container=istio-proxy" + q,
		"/api/v1/namespaces/istio-system/pods/istio-ingressgateway-5d9f7-rstuv/log container=istio-proxy&previous=true" + q,
		"/api/v1/namespaces/istio-system/pods/istio-ingressgateway-5d9f7-rstuv/log container=istio-proxy" + q,
		"/api/v1/namespaces/shop/pods/web-7d9f-abcde/log container=istio-proxy" + q,
	}
	if got := logRequests(srv); !slices.Equal(got, want) {
		t.Fatalf("log requests\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Each pod's first log may take the whole limit, and one byte more to
	// tell a log cut by the limit; the next ones what is left of it.
	seen := map[string]bool{}
	for _, r := range srv.Requests() {
		path, _, _ := strings.Cut(r, "?")
		if !strings.HasSuffix(path, "/log") || !strings.Contains(r, "sinceTime=") {
			continue
		}
		if got := strings.Contains(r, "limitBytes=268435457&"); got == seen[path] {
			t.Errorf("limitBytes of %s", r)
		}
		seen[path] = true
	}
	wantFiles := []string{
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-abcde/istio-proxy.log",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-fghij/istio-proxy.previous.log",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-fghij/istio-proxy.log",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-rstuv/istio-proxy.previous.log",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-rstuv/istio-proxy.log",
		"proxy-logs/envoy-gateway-system/envoy-default-eg-e41e7b31-6f8d9c7b5d-wxyz1/envoy.log",
		"proxy-logs/shop/web-7d9f-abcde/istio-proxy.log",
	}
	if !slices.Equal(rep.Files, wantFiles) || !rep.Complete || rep.Records != 3+2+3+1+1+2+1 {
		t.Fatalf("files\n%s\nwant\n%s\nreport %+v", strings.Join(rep.Files, "\n"), strings.Join(wantFiles, "\n"), rep)
	}
	b, _ := os.ReadFile(filepath.Join(dir, wantFiles[0]))
	wantLog := "2024-05-01T23:40:01.003000000Z " + istioLine(at(23, 40, 1), 200, "-", "10.244.1.211:8080") + "\n" +
		"2024-05-01T23:50:00.003000000Z " + istioLine(at(23, 50, 0), 200, "-", "10.244.1.211:8080") + "\n" +
		"2024-05-02T00:09:58.003000000Z " + istioLine(at(0, 9, 58), 200, "-", "10.244.1.211:8080") + "\n"
	if string(b) != wantLog {
		t.Fatalf("%s:\n%s\nwant\n%s", wantFiles[0], b, wantLog)
	}
	var gone []string
	for _, it := range rep.Items {
		if it.Status != bundle.ItemComplete {
			gone = append(gone, string(it.Status)+" "+it.Name+": "+it.Reason)
		}
	}
	since := "--timestamps --since-time=2024-05-01T23:40:00Z"
	wantGone := []string{
		"gone kubectl logs -n istio-system istio-ingressgateway-5d9f7-klmno -c istio-proxy " + since + ": the pod was deleted before its log was read, and the log with it",
		"gone kubectl logs -n istio-system istio-ingressgateway-5d9f7-rstuv -c istio-proxy " + since + " --previous (instances before the previous one): the container restarted 3 times and the kubelet keeps the log of one terminated instance only: the instances that ran before 2024-05-01T23:50:00Z are gone",
		"gone kubectl logs -n istio-system istio-ingressgateway-7c4b2-pqrst --all-containers " + since + ": the pod was deleted at 2024-05-01T23:45:00Z, during the window, and its logs with it",
		"gone kubectl logs -n istio-system istio-ingressgateway-7c4b2-uvwxy --all-containers " + since + ": the pod was deleted at 2024-05-01T23:58:00Z, during the window, and its logs with it",
	}
	sort.Strings(gone)
	if !slices.Equal(gone, wantGone) {
		t.Fatalf("items not complete\n%s\nwant\n%s", strings.Join(gone, "\n"), strings.Join(wantGone, "\n"))
	}
	ws := manifestOf(t, dir, rep)
	if len(ws) != 4 || !strings.HasPrefix(ws[2], "proxy-logs: 1 of 12 logs (kubectl logs -n istio-system istio-ingressgateway-7c4b2-pqrst --all-containers "+since+") gone (the pod was deleted at 2024-05-01T23:45:00Z, during the window, and its logs with it): "+impactProxyLog) {
		t.Fatalf("warnings:\n%s", strings.Join(ws, "\n"))
	}
	if last := prog.last(); last.Records != rep.Records || last.Bytes != rep.Bytes {
		t.Fatalf("progress ended at %+v, saved %d records, %d bytes", last, rep.Records, rep.Bytes)
	}
	res, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler { return nopHandler{} })
	if err != nil {
		t.Fatal(err)
	}
	var formats []string
	for _, in := range res.Inputs {
		formats = append(formats, fmt.Sprintf("%s %s %d/%d", strings.TrimPrefix(in.Name, dir+"/"), in.Format, in.Records, in.Skipped))
	}
	wantFormats := []string{
		"proxy-logs/envoy-gateway-system/envoy-default-eg-e41e7b31-6f8d9c7b5d-wxyz1/envoy.log envoy-json 2/0",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-abcde/istio-proxy.log envoy-access 3/0",
		// pilot-agent's "Envoy proxy is ready" is no access line, and no
		// malformed one either: it is passed over, not skipped.
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-fghij/istio-proxy.log envoy-access 2/0",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-fghij/istio-proxy.previous.log envoy-access 2/0",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-rstuv/istio-proxy.log envoy-access 1/0",
		"proxy-logs/istio-system/istio-ingressgateway-5d9f7-rstuv/istio-proxy.previous.log envoy-access 1/0",
		"proxy-logs/shop/web-7d9f-abcde/istio-proxy.log envoy-access 1/0",
	}
	if !slices.Equal(formats, wantFormats) || len(res.Warnings) != 0 {
		t.Fatalf("read back\n%s\nwant\n%s\nwarnings %q", strings.Join(formats, "\n"), strings.Join(wantFormats, "\n"), res.Warnings)
	}
}

func TestProxyLogsPlan(t *testing.T) {
	p := &ProxyLogs{Namespace: "shop", Targets: proxyTargets(t, "istio-system/deploy/istio-ingressgateway", "edge/-l tier in (edge,internal) -c envoy", "web-1")}
	want := []string{
		"kubectl logs -n istio-system deploy/istio-ingressgateway --all-pods --all-containers --timestamps --since-time=2024-05-01T23:40:00Z",
		"kubectl logs -n edge -l 'tier in (edge,internal)' --tail=-1 -c envoy --timestamps --since-time=2024-05-01T23:40:00Z",
		"kubectl logs -n shop web-1 --all-containers --timestamps --since-time=2024-05-01T23:40:00Z",
		"kubectl get events -n istio-system -o json",
		"kubectl get events -n edge -o json",
		"(with --previous too for containers that restarted in the window; lines from 2024-05-02T00:10:00Z on dropped; at most 256.0 MiB a pod)",
	}
	if got := p.Plan(midnightWindow); !slices.Equal(got, want) {
		t.Fatalf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// oneProxyServer serves ingress-nginx/deploy/ingress-nginx-controller with
// one pod, running since before midnightWindow, whose controller container
// logged one access line a minute through the window.
func oneProxyServer(t *testing.T) (*livetest.Kube, []livetest.LogLine) {
	k := livetest.NewKube(t)
	k.Paths["/apis/apps/v1/namespaces/ingress-nginx/deployments/ingress-nginx-controller"] = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ingress-nginx-controller","namespace":"ingress-nginx"},"spec":{"selector":{"matchLabels":{"app.kubernetes.io/name":"ingress-nginx","app.kubernetes.io/component":"controller"}}}}`
	k.List("/apis/apps/v1/namespaces/ingress-nginx/replicasets", "apps/v1", "ReplicaSetList")
	k.List("/api/v1/namespaces/ingress-nginx/events", "v1", "EventList")
	k.List("/api/v1/namespaces/ingress-nginx/pods", "v1", "PodList",
		testPod{ns: "ingress-nginx", name: "ingress-nginx-controller-6d5f8b7c9-x2x4z", owner: "ingress-nginx-controller-6d5f8b7c9", ownerKind: "ReplicaSet",
			labels:     map[string]string{"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"},
			containers: []string{"controller"}, started: at(22, 0, 0)}.json())
	var log []livetest.LogLine
	for ts := midnightWindow.Since; ts.Before(midnightWindow.Until); ts = ts.Add(time.Minute) {
		log = append(log, livetest.LogLine{Time: ts, Text: fmt.Sprintf(`203.0.113.7 - - [%s] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 95 0.004 [shop-web-80] [] 10.0.12.34:8080 512 0.004 200 5d1b3a0c8f1e2d3c4b5a69788796a5b4`,
			ts.Format("02/Jan/2006:15:04:05 -0700"))})
	}
	k.PodLogs["ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z"] = map[string]*livetest.ContainerLogs{"controller": {Current: log}}
	return k, log
}

// nginxLogPath is the pods/log path of oneProxyServer's pod.
const nginxLogPath = "/api/v1/namespaces/ingress-nginx/pods/ingress-nginx-controller-6d5f8b7c9-x2x4z/log"

// nginxProxy is a ProxyLogs source reading oneProxyServer's Deployment.
func nginxProxy(t *testing.T, srv *livetest.Kube) *ProxyLogs {
	return &ProxyLogs{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts,
		Targets: proxyTargets(t, "ingress-nginx/deploy/ingress-nginx-controller")}
}

// logItem returns the one log item of rep.
func logItem(t *testing.T, rep bundle.FetchReport) bundle.Item {
	t.Helper()
	var out []bundle.Item
	for _, it := range rep.Items {
		if it.Kind == "log" {
			out = append(out, it)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d log items: %+v", len(out), rep.Items)
	}
	return out[0]
}

// stampedLen is the length of lines as the kubelet sends them with
// timestamps=true.
func stampedLen(log []livetest.LogLine) int64 {
	var n int64
	for _, l := range log {
		n += int64(len(l.Time.UTC().Format("2006-01-02T15:04:05.000000000Z07:00")) + 1 + len(l.Text) + 1)
	}
	return n
}

func TestDeadEndpointsProxyLogs(t *testing.T) {
	deadEndpoints(t, func(t *testing.T, endpoint, dir string) (bundle.FetchReport, error) {
		p := &ProxyLogs{Kubeconfig: livetest.KubeconfigFor(t, t.TempDir(), endpoint, "t"), Timeouts: faultTimeouts,
			Targets: proxyTargets(t, "istio-system/deploy/istio-ingressgateway", "ingress-nginx/deploy/ingress-nginx-controller")}
		return p.Fetch(context.Background(), midnightWindow, dir, nil)
	}, "http://", "proxy-logs: no answer from ADDR in 500 ms", "proxy-logs: cannot connect to ADDR: connection refused")
}

func TestProxyLogsFaults(t *testing.T) {
	t.Run("a stream that stalls keeps its whole lines", func(t *testing.T) {
		srv, log := oneProxyServer(t)
		keep := stampedLen(log[:3])
		srv.Faults[nginxLogPath] = &livetest.Fault{Stall: true, StallAfter: int(keep) + 10}
		dir := t.TempDir()
		start := time.Now()
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, dir, nil)
		took := time.Since(start)
		want := "proxy-logs: cut short: the answer from " + srv.URL + fmt.Sprintf(" stalled: no data for 500 ms after %s", words.Bytes(keep+10))
		if err == nil || err.Error() != want {
			t.Fatalf("error\n%v\nwant\n%s", err, want)
		}
		if took < faultTimeouts.Idle || took > giveUpBound {
			t.Fatalf("gave up after %v", took)
		}
		it := logItem(t, rep)
		b, _ := os.ReadFile(filepath.Join(dir, "proxy-logs/ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z/controller.log"))
		if it.Status != bundle.ItemPartial || it.Records != 3 || int64(len(b)) != keep || it.Optional || rep.Complete {
			t.Fatalf("item %+v, %d bytes saved of %d", it, len(b), keep)
		}
		if ws := manifestOf(t, dir, rep); len(ws) != 1 || !strings.Contains(ws[0], "cut short") || !strings.Contains(ws[0], "logged after 2024-05-01T23:42:00Z are missing") {
			t.Fatalf("warnings %q", ws)
		}
	})
	t.Run("pauses shorter than the idle timeout", func(t *testing.T) {
		srv, log := oneProxyServer(t)
		srv.Faults[nginxLogPath] = &livetest.Fault{Stall: true, StallAfter: 100, StallFor: faultTimeouts.Idle / 3}
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
		if err != nil || !rep.Complete || rep.Records != len(log) {
			t.Fatalf("%v %+v", err, rep)
		}
	})
	t.Run("403 on pods/log names the RBAC to grant", func(t *testing.T) {
		srv, _ := oneProxyServer(t)
		srv.Forbidden[nginxLogPath] = true
		srv.Message = plantedMessage
		dir := t.TempDir()
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, dir, nil)
		want := `proxy-logs: RBAC: get pods/log in namespace ingress-nginx is forbidden: grant verb "get" on "pods/log"`
		if err == nil || err.Error() != want || rep.Items[0].Status != bundle.ItemComplete || len(rep.Files) != 0 {
			t.Fatalf("error\n%v\nwant\n%s\n%+v", err, want, rep)
		}
		b, _ := json.Marshal(rep)
		assertNoSecrets(t, dir, err.Error(), string(b))
	})
	t.Run("403 on replicasets only weakens the gone-pod check", func(t *testing.T) {
		srv, log := oneProxyServer(t)
		srv.Forbidden["/apis/apps/v1/namespaces/ingress-nginx/replicasets"] = true
		dir := t.TempDir()
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, dir, nil)
		if err != nil || !rep.Complete || rep.Records != len(log) {
			t.Fatalf("%v %+v", err, rep)
		}
		ws := manifestOf(t, dir, rep)
		want := `proxy-logs: 1 of 2 lists (kubectl get replicasets -n ingress-nginx -l app.kubernetes.io/component=controller,app.kubernetes.io/name=ingress-nginx -o json) not saved (RBAC: list replicasets.apps in namespace ingress-nginx is forbidden: grant verb "list" on "replicasets.apps"): the pods of old ReplicaSets deleted during the window cannot be named`
		if len(ws) != 1 || !strings.HasPrefix(ws[0], want) {
			t.Fatalf("warnings %q\nwant %s", ws, want)
		}
	})
	t.Run("401 stops after one call", func(t *testing.T) {
		srv, _ := oneProxyServer(t)
		srv.Unauthorized, srv.Message = true, plantedMessage
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
		if err == nil || !strings.HasPrefix(err.Error(), "proxy-logs: credentials rejected by the API server") || len(srv.Requests()) != 1 || rep.Items[0].Status != bundle.ItemFailed {
			t.Fatalf("%v, %d requests, %+v", err, len(srv.Requests()), rep.Items)
		}
	})
	t.Run("503 with Retry-After then the log", func(t *testing.T) {
		srv, log := oneProxyServer(t)
		srv.Faults[nginxLogPath] = &livetest.Fault{Status: 503, Times: 2, Header: map[string]string{"Retry-After": "0"}, ContentType: "application/json",
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","code":503}`}
		var prog progressLog
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, t.TempDir(), prog.fn)
		if err != nil || rep.Records != len(log) {
			t.Fatalf("%v %+v", err, rep)
		}
		if r := prog.retries(); !slices.Equal(r, []string{"retrying 1 log (503 Service Unavailable)"}) {
			t.Fatalf("retries shown: %q", r)
		}
	})
	t.Run("503 forever is given up after kubeMaxAttempts", func(t *testing.T) {
		srv, _ := oneProxyServer(t)
		srv.Faults[nginxLogPath] = &livetest.Fault{Status: 503, Header: map[string]string{"Retry-After": "0"}, ContentType: "application/json",
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"` + plantedMessage + `","reason":"ServiceUnavailable","code":503}`}
		dir := t.TempDir()
		var prog progressLog
		start := time.Now()
		rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, dir, prog.fn)
		took := time.Since(start)
		n := 0
		for _, r := range srv.Requests() {
			if strings.HasPrefix(r, "GET "+nginxLogPath+"?") {
				n++
			}
		}
		want := "proxy-logs: get pods/log in namespace ingress-nginx: 503 ServiceUnavailable: request to https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted] denied; Authorization: [redacted] access_token=[redacted] aws_secret_access_key=[redacted] [redacted]"
		if err == nil || err.Error() != want || n != kubeMaxAttempts || took > giveUpBound {
			t.Fatalf("error\n%v\nwant\n%s\nafter %d requests in %v", err, want, n, took)
		}
		if it := logItem(t, rep); it.Status != bundle.ItemFailed || it.Optional || rep.Complete {
			t.Fatalf("item %+v", it)
		}
		if r := prog.retries(); !slices.Equal(r, []string{"retrying 1 log (503 Service Unavailable)"}) {
			t.Fatalf("retries shown: %q", r)
		}
		ws := manifestOf(t, dir, rep)
		if len(ws) != 1 || !strings.HasPrefix(ws[0], "proxy-logs: kubectl logs -n ingress-nginx ingress-nginx-controller-6d5f8b7c9-x2x4z -c controller --timestamps --since-time=2024-05-01T23:40:00Z not saved (get pods/log in namespace ingress-nginx: 503 ServiceUnavailable: ") {
			t.Fatalf("warnings %q", ws)
		}
		b, _ := json.Marshal(rep)
		assertNoSecrets(t, dir, err.Error(), string(b), strings.Join(ws, "\n"))
	})
	t.Run("targets that give nothing fail the source", func(t *testing.T) {
		srv, _ := oneProxyServer(t)
		p := nginxProxy(t, srv)
		p.Targets = proxyTargets(t, "ingress-nginx/deploy/missing", "ingress-nginx/-l app=none", "ingress-nginx/deploy/ingress-nginx-controller -c envoy")
		rep, err := p.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
		var got []string
		for _, it := range rep.Items {
			if it.Kind == "target" {
				got = append(got, string(it.Status)+" "+it.Reason)
			}
		}
		want := []string{
			"failed deployment missing not found in namespace ingress-nginx",
			"failed no pod in namespace ingress-nginx matches -l app=none",
			"failed no pod of ingress-nginx/deploy/ingress-nginx-controller -c envoy has a container named envoy (ingress-nginx-controller-6d5f8b7c9-x2x4z has controller)",
		}
		if !slices.Equal(got, want) || err == nil || err.Error() != "proxy-logs: 1 of 3 targets not saved: "+strings.TrimPrefix(want[0], "failed ")+
			"; 1 of 3 targets not saved: "+strings.TrimPrefix(want[1], "failed ")+"; 1 of 3 targets not saved: "+strings.TrimPrefix(want[2], "failed ") {
			t.Fatalf("%v\nitems\n%s\nwant\n%s", err, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

func TestProxyLogsLimit(t *testing.T) {
	for _, tt := range []struct {
		name   string
		less   int64
		status bundle.ItemStatus
		lines  int
	}{
		{"the window's log fits the limit exactly", 0, bundle.ItemComplete, 30},
		{"one byte short of it", 1, bundle.ItemPartial, 29},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, log := oneProxyServer(t)
			p := nginxProxy(t, srv)
			p.LimitBytes = stampedLen(log) - tt.less
			dir := t.TempDir()
			rep, err := p.Fetch(context.Background(), midnightWindow, dir, nil)
			it := logItem(t, rep)
			if err != nil || !rep.Complete || it.Status != tt.status || it.Records != tt.lines || it.Bytes != stampedLen(log[:tt.lines]) {
				t.Fatalf("%v %+v", err, it)
			}
			ws := manifestOf(t, dir, rep)
			if tt.status == bundle.ItemComplete {
				if len(ws) != 0 {
					t.Fatalf("warnings %q", ws)
				}
				return
			}
			want := fmt.Sprintf("(cut at the limit of %s a pod (--proxy-logs-limit): the lines after 2024-05-02T00:08:00Z were not read)", words.Bytes(p.LimitBytes))
			if len(ws) != 1 || !it.Optional || !strings.Contains(ws[0], want) {
				t.Fatalf("item %+v warnings %q, want %s", it, ws, want)
			}
		})
	}
}

func TestProxyLogsRotatedAway(t *testing.T) {
	since := midnightWindow.Since
	for _, tt := range []struct {
		name string
		// started is when the container started, begins when the log
		// file the kubelet serves begins (with a banner line when it
		// comes before the access lines from 23:45 on).
		started, begins time.Time
		warn            bool
	}{
		{"the file begins an hour after the container started, inside the window", at(22, 0, 0), at(23, 45, 0), true},
		{"the file begins when the container started: a quiet proxy", at(22, 0, 0), at(22, 0, 30), false},
		{"the file begins just more than the gap after the start", since.Add(-30 * time.Second), since.Add(-30*time.Second + podLogRotationGap + time.Second), true},
		{"the file begins just less than the gap after the start", since.Add(-30 * time.Second), since.Add(-30*time.Second + podLogRotationGap - time.Second), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, log := oneProxyServer(t)
			srv.List("/api/v1/namespaces/ingress-nginx/pods", "v1", "PodList",
				testPod{ns: "ingress-nginx", name: "ingress-nginx-controller-6d5f8b7c9-x2x4z", owner: "ingress-nginx-controller-6d5f8b7c9", ownerKind: "ReplicaSet",
					labels:     map[string]string{"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"},
					containers: []string{"controller"}, started: tt.started}.json())
			var kept []livetest.LogLine
			if tt.begins.Before(at(23, 45, 0)) {
				kept = append(kept, livetest.LogLine{Time: tt.begins, Text: "NGINX Ingress controller"})
			}
			for _, l := range log {
				if !l.Time.Before(at(23, 45, 0)) {
					kept = append(kept, l)
				}
			}
			srv.PodLogs["ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z"]["controller"].Current = kept
			dir := t.TempDir()
			rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, dir, nil)
			it := logItem(t, rep)
			probed := false
			for _, r := range srv.Requests() {
				probed = probed || strings.Contains(r, "/log?") && !strings.Contains(r, "sinceTime") && strings.Contains(r, "limitBytes=1024&")
			}
			lines := 25
			if tt.begins.After(since) && tt.begins.Before(at(23, 45, 0)) {
				lines++ // the banner is inside the window
			}
			if err != nil || !rep.Complete || it.Records != lines || !probed {
				t.Fatalf("%v %+v, probed %v", err, it, probed)
			}
			ws := manifestOf(t, dir, rep)
			if !tt.warn {
				if it.Status != bundle.ItemComplete || len(ws) != 0 {
					t.Fatalf("%+v %q", it, ws)
				}
				return
			}
			want := fmt.Sprintf("(the kubelet's log file of this container begins at %s, %s after the window's start: it serves only the current file (containerLogMaxSize, 10 MiB by default), so the lines before were rotated away): the requests this proxy replica logged before %s are missing",
				tt.begins.Format(time.RFC3339Nano), tt.begins.Sub(since), tt.begins.Format(time.RFC3339Nano))
			if it.Status != bundle.ItemPartial || !it.Optional || len(ws) != 1 || !strings.Contains(ws[0], want) {
				t.Fatalf("%+v\n%q\nwant %s", it, ws, want)
			}
		})
	}
}

func TestProxyLogsGoneMargin(t *testing.T) {
	// Two old pods told to stop just inside and just outside the time a pod
	// may still log after it (podGoneMargin) before the window.
	srv, _ := oneProxyServer(t)
	since := midnightWindow.Since
	srv.List("/apis/apps/v1/namespaces/ingress-nginx/replicasets", "apps/v1", "ReplicaSetList",
		`{"metadata":{"name":"ingress-nginx-controller-5b8c4d7f6","namespace":"ingress-nginx","labels":{"app.kubernetes.io/name":"ingress-nginx","app.kubernetes.io/component":"controller"}}}`)
	srv.List("/api/v1/namespaces/ingress-nginx/events", "v1", "EventList",
		podEvent("ingress-nginx", "Pod", "ingress-nginx-controller-5b8c4d7f6-inmrg", "uid-in", "Killing", "Stopping container controller", since.Add(-podGoneMargin+time.Second)),
		podEvent("ingress-nginx", "Pod", "ingress-nginx-controller-5b8c4d7f6-outmr", "uid-out", "Killing", "Stopping container controller", since.Add(-podGoneMargin-time.Second)),
		// Created after the window: never in it.
		podEvent("ingress-nginx", "ReplicaSet", "ingress-nginx-controller-5b8c4d7f6", "uid-rs", "SuccessfulCreate", "Created pod: ingress-nginx-controller-5b8c4d7f6-later", midnightWindow.Until),
		podEvent("ingress-nginx", "ReplicaSet", "ingress-nginx-controller-5b8c4d7f6", "uid-rs", "SuccessfulDelete", "Deleted pod: ingress-nginx-controller-5b8c4d7f6-later", midnightWindow.Until.Add(time.Minute)))
	rep, err := nginxProxy(t, srv).Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	var gone []string
	for _, it := range rep.Items {
		if it.Status == bundle.ItemGone {
			gone = append(gone, it.Name+": "+it.Reason)
		}
	}
	want := []string{"kubectl logs -n ingress-nginx ingress-nginx-controller-5b8c4d7f6-inmrg --all-containers --timestamps --since-time=2024-05-01T23:40:00Z: " +
		"the pod was deleted at 2024-05-01T23:39:31Z, just before the window, and its logs with it"}
	if err != nil || !rep.Complete || !slices.Equal(gone, want) {
		t.Fatalf("%v\ngone\n%s\nwant\n%s", err, strings.Join(gone, "\n"), strings.Join(want, "\n"))
	}
}

func TestProxyLogsReadsFivePodsAtOnce(t *testing.T) {
	srv, log := oneProxyServer(t)
	stalled := make(chan string, 10)
	var pods []string
	for i := range podLogWorkers + 1 {
		name := fmt.Sprintf("ingress-nginx-controller-6d5f8b7c9-p%04d", i)
		pods = append(pods, testPod{ns: "ingress-nginx", name: name, owner: "ingress-nginx-controller-6d5f8b7c9", ownerKind: "ReplicaSet",
			labels:     map[string]string{"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"},
			containers: []string{"controller"}, started: at(22, 0, 0)}.json())
		srv.PodLogs["ingress-nginx/"+name] = map[string]*livetest.ContainerLogs{"controller": {Current: log}}
		// Each stream pauses for a second after its first line.
		srv.Faults["/api/v1/namespaces/ingress-nginx/pods/"+name+"/log"] = &livetest.Fault{Stall: true, StallAfter: 100, StallFor: time.Second, Stalled: stalled}
	}
	srv.List("/api/v1/namespaces/ingress-nginx/pods", "v1", "PodList", pods...)
	p := nginxProxy(t, srv)
	p.Timeouts.Idle = 3 * time.Second
	done := make(chan error, 1)
	go func() {
		_, err := p.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
		done <- err
	}()
	for range podLogWorkers {
		<-stalled
	}
	// The sixth stream starts only when one of the five ends, a second on.
	select {
	case <-stalled:
		t.Fatalf("more than %d logs read at once", podLogWorkers)
	case <-time.After(200 * time.Millisecond):
	}
	<-stalled
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestProxyLogsInterrupted(t *testing.T) {
	srv, _ := oneProxyServer(t)
	step := midnightWindow.Until.Sub(midnightWindow.Since) / 3000
	srv.PodLogs["ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z"]["controller"].Lines = func(i int) (livetest.LogLine, bool) {
		ts := midnightWindow.Since.Add(time.Duration(i) * step)
		return livetest.LogLine{Time: ts, Text: egLine(ts, 200, "10.244.2.136:8080")}, i < 3000
	}
	// The stream stalls in the middle of a line, after more than the
	// bytes between two progress reports.
	srv.Faults[nginxLogPath] = &livetest.Fault{Stall: true, StallAfter: podLogProgress*3/2 + 7}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	progress := func(_ string, s ProgressState) {
		if s.Records > 0 {
			cancel() // Ctrl-C once lines are saved
		}
	}
	dir := t.TempDir()
	p := nginxProxy(t, srv)
	// The fake makes the whole 2 MB answer before sending its first bytes.
	p.Timeouts.Response, p.Timeouts.Idle = 10*time.Second, 10*time.Second
	rep, err := p.Fetch(ctx, midnightWindow, dir, progress)
	it := logItem(t, rep)
	b, _ := os.ReadFile(filepath.Join(dir, "proxy-logs/ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z/controller.log"))
	if err == nil || !errors.Is(err, context.Canceled) || it.Status != bundle.ItemPartial || it.Reason != reasonInterrupted || it.Records == 0 ||
		it.Records != strings.Count(string(b), "\n") || !strings.HasSuffix(string(b), "}\n") || it.Bytes != int64(len(b)) {
		t.Fatalf("%v %+v, %d bytes kept", err, it, len(b))
	}
}

// TestProxyLogsBigLogBoundedMemory streams one pod's log of about 200 MB
// of Envoy Gateway JSON lines, made on demand by the fake, and checks that
// the heap in use stays bounded by the line buffers, not the log's size;
// it reports the throughput. Opt in with READYGAP_TRIAGE_MEMORY=1.
func TestProxyLogsBigLogBoundedMemory(t *testing.T) {
	if os.Getenv("READYGAP_TRIAGE_MEMORY") == "" {
		t.Skip("set READYGAP_TRIAGE_MEMORY=1 to run")
	}
	const lineCount = 300_000
	const maxHeap = 32 << 20
	srv, _ := oneProxyServer(t)
	step := midnightWindow.Until.Sub(midnightWindow.Since) / lineCount
	srv.PodLogs["ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z"]["controller"].Lines = func(i int) (livetest.LogLine, bool) {
		ts := midnightWindow.Since.Add(time.Duration(i) * step)
		return livetest.LogLine{Time: ts, Text: egLine(ts, 200, fmt.Sprintf("10.244.2.%d:8080", i%250))}, i < lineCount
	}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	p := nginxProxy(t, srv)
	p.Timeouts = Timeouts{}
	start := time.Now()
	rep, err := p.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	took := time.Since(start)
	close(done)
	if err != nil || rep.Records != lineCount {
		t.Fatalf("%v %+v", err, rep)
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	// The baseline, in the same run: the same stream through the same
	// client, copied to a file without looking at it.
	rc, codec, err := podLogClient(kubeRestConfig(p.config, p.Timeouts))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.Create(filepath.Join(t.TempDir(), "raw.log"))
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	body, err := rc.Get().Namespace("ingress-nginx").Resource("pods").Name("ingress-nginx-controller-6d5f8b7c9-x2x4z").SubResource("log").
		VersionedParams(&corev1.PodLogOptions{Container: "controller", Timestamps: true, SinceTime: &metav1.Time{Time: midnightWindow.Since}}, codec).Stream(streamed(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(raw, body)
	body.Close()
	raw.Close()
	rawTook := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines, %.1f MB saved in %v (%.0f MB/s through the loopback API server); heap in use grew by at most %.1f MB",
		rep.Records, float64(rep.Bytes)/(1<<20), took.Round(time.Millisecond), float64(rep.Bytes)/(1<<20)/took.Seconds(), float64(grew)/(1<<20))
	t.Logf("baseline, io.Copy of the same stream to a file: %.1f MB in %v (%.0f MB/s): the fetch takes %.2f× its time",
		float64(n)/(1<<20), rawTook.Round(time.Millisecond), float64(n)/(1<<20)/rawTook.Seconds(), took.Seconds()/rawTook.Seconds())
	if grew > maxHeap {
		t.Fatalf("heap grew by %.1f MB, want under %d MB", float64(grew)/(1<<20), maxHeap>>20)
	}
}

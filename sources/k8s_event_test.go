package sources

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventTime0 is the time every table event occurred at.
var eventTime0 = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

// testEvent builds a legacy-recorder Event about obj ("Kind/namespace/name")
// that occurred once at eventTime0.
func testEvent(obj, reason, msg string, src corev1.EventSource) *corev1.Event {
	parts := strings.SplitN(obj, "/", 3)
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Namespace: parts[1]},
		InvolvedObject: corev1.ObjectReference{Kind: parts[0], Namespace: parts[1], Name: parts[2]},
		Reason:         reason,
		Message:        msg,
		Source:         src,
		FirstTimestamp: metav1.NewTime(eventTime0),
		LastTimestamp:  metav1.NewTime(eventTime0),
		Count:          1,
	}
}

// emitOne runs emitKubeEvent on ev and returns the one record it emits.
func emitOne(t *testing.T, ev *corev1.Event, at time.Time) Lifecycle {
	t.Helper()
	c := &collector{}
	em := newEmitter(c, &Options{}, &InputReport{}, nil)
	emitKubeEvent(ev, at, Origin{File: "events", Line: 1}, FormatK8sEvents, em)
	if len(c.lifecycle) != 1 {
		t.Fatalf("emitted %d records, want 1", len(c.lifecycle))
	}
	return c.lifecycle[0]
}

// wantEvent is what a table case expects of the interpreted record.
type wantEvent struct {
	kind           LifecycleKind
	pod            string
	ip             string
	port           int
	zone, node     string
	group          string
	count, from    int
	reason, status string
	source         string
}

// checkEvent compares l with w and with the table defaults (time eventTime0).
func checkEvent(t *testing.T, l Lifecycle, w wantEvent) {
	t.Helper()
	var ip netip.Addr
	if w.ip != "" {
		ip = netip.MustParseAddr(w.ip)
	}
	got := wantEvent{l.Kind, l.Pod, "", l.Port, l.Zone, l.Node, l.Group, l.Count, l.From, l.Reason, l.Status, l.Source}
	w.ip = ""
	if got != w || l.IP != ip {
		t.Errorf("got  %+v ip=%v\nwant %+v ip=%v", got, l.IP, w, ip)
	}
	if !l.Time.Equal(eventTime0) || l.Time.Location() != time.UTC {
		t.Errorf("time = %v, want %v UTC", l.Time, eventTime0)
	}
}

var (
	kubeletOn    = func(host string) corev1.EventSource { return corev1.EventSource{Component: "kubelet", Host: host} }
	negCtrl      = corev1.EventSource{Component: "neg-controller"}
	negReflector = corev1.EventSource{Component: "neg-readiness-reflector"}
	deployCtrl   = corev1.EventSource{Component: "deployment-controller"}
	rsCtrl       = corev1.EventSource{Component: "replicaset-controller"}
)

// TestKubeEventRolloutMessages covers every reason and message quoted in
// nginx-k8s.md §3.3 (format strings instantiated) and §6.4 (real lines).
func TestKubeEventRolloutMessages(t *testing.T) {
	const pod = "Pod/shop/web-6b7f9c9d5d-x2k4q"
	const dep = "Deployment/shop/web"
	other := func(reason, src string) wantEvent {
		return wantEvent{kind: LifecycleOther, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: reason, source: src}
	}
	probe := func(kind, ip string, port int) wantEvent {
		return wantEvent{kind: ProbeFailed, pod: "web-6b7f9c9d5d-x2k4q", ip: ip, port: port, node: "node-a", count: 1, from: -1, reason: kind, source: "kubelet"}
	}
	scaled := func(kind LifecycleKind, rs string, to, from int) wantEvent {
		return wantEvent{kind: kind, group: rs, count: to, from: from, reason: "ScalingReplicaSet", source: "deployment-controller"}
	}
	cases := []struct {
		name, obj, reason, msg string
		src                    corev1.EventSource
		want                   wantEvent
	}{
		// §3.3 ScalingReplicaSet, all forms.
		{"scale legacy up", dep, "ScalingReplicaSet", "Scaled up replica set web-6b7f9c9d5d to 3", deployCtrl,
			scaled(ScaledUp, "web-6b7f9c9d5d", 3, -1)},
		{"scale legacy down", dep, "ScalingReplicaSet", "Scaled down replica set web-5d4c3b2a1f to 0", deployCtrl,
			scaled(ScaledDown, "web-5d4c3b2a1f", 0, -1)},
		{"scale to-from", dep, "ScalingReplicaSet", "Scaled down replica set web-5d4c3b2a1f to 2 from 3", deployCtrl,
			scaled(ScaledDown, "web-5d4c3b2a1f", 2, 3)},
		{"scale from-to", dep, "ScalingReplicaSet", "Scaled up replica set nginx-deployment-96b9d695 from 3 to 5", deployCtrl,
			scaled(ScaledUp, "nginx-deployment-96b9d695", 5, 3)},
		{"scale from-to down", dep, "ScalingReplicaSet", "Scaled down replica set web-5d4c3b2a1f from 1 to 0", deployCtrl,
			scaled(ScaledDown, "web-5d4c3b2a1f", 0, 1)},
		{"scale unknown wording", dep, "ScalingReplicaSet", "Scaled up replica set web", deployCtrl,
			wantEvent{kind: LifecycleOther, count: 1, from: -1, reason: "ScalingReplicaSet", source: "deployment-controller"}},
		// §3.3 ReplicaSet pod control.
		{"successful create", "ReplicaSet/shop/web-6b7f9c9d5d", "SuccessfulCreate", "Created pod: web-6b7f9c9d5d-x2k4q", rsCtrl,
			wantEvent{kind: PodCreated, pod: "web-6b7f9c9d5d-x2k4q", count: 1, from: -1, reason: "SuccessfulCreate", source: "replicaset-controller"}},
		{"successful delete", "ReplicaSet/shop/web-5d4c3b2a1f", "SuccessfulDelete", "Deleted pod: web-5d4c3b2a1f-abcde", rsCtrl,
			wantEvent{kind: PodDeleted, pod: "web-5d4c3b2a1f-abcde", count: 1, from: -1, reason: "SuccessfulDelete", source: "replicaset-controller"}},
		{"failed create", "ReplicaSet/shop/web-6b7f9c9d5d", "FailedCreate", `Error creating: pods "web-6b7f9c9d5d-x2k4q" is forbidden`, rsCtrl,
			wantEvent{kind: LifecycleOther, count: 1, from: -1, reason: "FailedCreate", source: "replicaset-controller"}},
		{"failed delete", "ReplicaSet/shop/web-5d4c3b2a1f", "FailedDelete", `Error deleting: pods "web-5d4c3b2a1f-abcde" not found`, rsCtrl,
			wantEvent{kind: LifecycleOther, count: 1, from: -1, reason: "FailedDelete", source: "replicaset-controller"}},
		// §3.3 scheduler and kubelet.
		{"scheduled", pod, "Scheduled", "Successfully assigned shop/web-6b7f9c9d5d-x2k4q to node-b", corev1.EventSource{Component: "default-scheduler"},
			wantEvent{kind: PodScheduled, pod: "web-6b7f9c9d5d-x2k4q", node: "node-b", count: 1, from: -1, reason: "Scheduled", source: "default-scheduler"}},
		{"pulling", pod, "Pulling", `Pulling image "nginx:1.7.9"`, kubeletOn("node-a"), other("Pulling", "kubelet")},
		{"pulled recent", pod, "Pulled", `Successfully pulled image "nginx:1.27" in 1.2s (3.4s including waiting). Image size: 72099410 bytes.`, kubeletOn("node-a"), other("Pulled", "kubelet")},
		{"pulled present", pod, "Pulled", `Container image "nginx:1.27" already present on machine`, kubeletOn("node-a"), other("Pulled", "kubelet")},
		{"pulled present newest", pod, "Pulled", `Container image "nginx:1.27" already present on machine and can be accessed by the pod`, kubeletOn("node-a"), other("Pulled", "kubelet")},
		{"created colon", pod, "Created", "Created container: web", kubeletOn("node-a"), other("Created", "kubelet")},
		{"created old", pod, "Created", "Created container web", kubeletOn("node-a"), other("Created", "kubelet")},
		{"started", pod, "Started", "Started container web", kubeletOn("node-a"),
			wantEvent{kind: ContainerStarted, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: "Started", source: "kubelet"}},
		{"killing", pod, "Killing", "Stopping container web", kubeletOn("node-a"),
			wantEvent{kind: Killing, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: "Killing", source: "kubelet"}},
		{"killing liveness", pod, "Killing", "Container web failed liveness probe, will be restarted", kubeletOn("node-a"),
			wantEvent{kind: Killing, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: "Killing", source: "kubelet"}},
		{"killing startup", pod, "Killing", "Container web failed startup probe, will be restarted", kubeletOn("node-a"),
			wantEvent{kind: Killing, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: "Killing", source: "kubelet"}},
		{"unhealthy quoted url", pod, "Unhealthy", `Readiness probe failed: Get "http://10.0.1.5:8080/healthz": dial tcp 10.0.1.5:8080: connect: connection refused`, kubeletOn("node-a"),
			probe("Readiness", "10.0.1.5", 8080)},
		{"unhealthy unquoted url", pod, "Unhealthy", `Readiness probe failed: Get http://10.48.8.21:80/wp-login.php: dial tcp 10.48.8.21:80: connect: connection refused`, kubeletOn("node-a"),
			probe("Readiness", "10.48.8.21", 80)},
		{"unhealthy statuscode", pod, "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", kubeletOn("node-a"),
			probe("Liveness", "", 0)},
		{"unhealthy https timeout", pod, "Unhealthy", `Liveness probe failed: Get "https://10.244.46.210:8443/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, kubeletOn("node-a"),
			probe("Liveness", "10.244.46.210", 8443)},
		{"unhealthy old timeout", pod, "Unhealthy", `Readiness probe failed: Get http://10.86.55.2:80/_status/check: net/http: request canceled (Client.Timeout exceeded while awaiting headers)`, kubeletOn("node-a"),
			probe("Readiness", "10.86.55.2", 80)},
		{"unhealthy tcp", pod, "Unhealthy", "Startup probe failed: dial tcp 10.244.1.57:3000: connect: connection refused", kubeletOn("node-a"),
			probe("Startup", "10.244.1.57", 3000)},
		{"unhealthy ipv6", pod, "Unhealthy", `Readiness probe failed: Get "http://[fd00:10:244::5]:8080/": dial tcp [fd00:10:244::5]:8080: connect: connection refused`, kubeletOn("node-a"),
			probe("Readiness", "fd00:10:244::5", 8080)},
		{"unhealthy errored", pod, "Unhealthy", "Readiness probe errored: rpc error: code = Unknown desc = container not running", kubeletOn("node-a"),
			probe("Readiness", "", 0)},
		{"unhealthy errored state", pod, "Unhealthy", "Liveness probe errored and resulted in unknown state: rpc error: code = DeadlineExceeded desc = context deadline exceeded", kubeletOn("node-a"),
			probe("Liveness", "", 0)},
		{"unhealthy other wording", pod, "Unhealthy", "Service is unhealthy", kubeletOn("node-a"), other("Unhealthy", "kubelet")},
		{"probe warning", pod, "ProbeWarning", "Readiness probe warning: Probe terminated redirects", kubeletOn("node-a"), other("ProbeWarning", "kubelet")},
		{"prestop failed", pod, "FailedPreStopHook", "PreStopHook failed", kubeletOn("node-a"),
			wantEvent{kind: PreStopFailed, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: "FailedPreStopHook", source: "kubelet"}},
		{"poststart failed", pod, "FailedPostStartHook", "PostStartHook failed", kubeletOn("node-a"), other("FailedPostStartHook", "kubelet")},
		{"backoff", pod, "BackOff", "Back-off restarting failed container web in pod web-6b7f9c9d5d-x2k4q_shop(0f6b8526-3587-433e-91fd-1d10ead72f88)", kubeletOn("node-a"), other("BackOff", "kubelet")},
		{"reload", pod, "RELOAD", "NGINX reload triggered due to a change in configuration", corev1.EventSource{Component: "nginx-ingress-controller", Host: "node-a"}, other("RELOAD", "nginx-ingress-controller")},

		// §6.4 real lines: cert-manager-webhook-hetzner#91.
		{"hetzner scheduled", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Scheduled", "Successfully assigned cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc to lxkubenode04", corev1.EventSource{Component: "default-scheduler"},
			wantEvent{kind: PodScheduled, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", node: "lxkubenode04", count: 1, from: -1, reason: "Scheduled", source: "default-scheduler"}},
		{"hetzner liveness", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Unhealthy", `Liveness probe failed: Get "https://10.244.46.210:8443/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, kubeletOn("lxkubenode04"),
			wantEvent{kind: ProbeFailed, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", ip: "10.244.46.210", port: 8443, node: "lxkubenode04", count: 1, from: -1, reason: "Liveness", source: "kubelet"}},
		{"hetzner readiness", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Unhealthy", `Readiness probe failed: Get "https://10.244.46.210:8443/healthz": context deadline exceeded`, kubeletOn("lxkubenode04"),
			wantEvent{kind: ProbeFailed, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", ip: "10.244.46.210", port: 8443, node: "lxkubenode04", count: 1, from: -1, reason: "Readiness", source: "kubelet"}},
		{"hetzner killing", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Killing", "Container cert-manager-webhook-hetzner failed liveness probe, will be restarted", kubeletOn("lxkubenode04"),
			wantEvent{kind: Killing, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", node: "lxkubenode04", count: 1, from: -1, reason: "Killing", source: "kubelet"}},
		{"hetzner pulled", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Pulled", `Container image "cert-manager-webhook-hetzner:1.3.3" already present on machine`, kubeletOn("lxkubenode04"),
			wantEvent{kind: LifecycleOther, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", node: "lxkubenode04", count: 1, from: -1, reason: "Pulled", source: "kubelet"}},
		{"hetzner created", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Created", "Created container: cert-manager-webhook-hetzner", kubeletOn("lxkubenode04"),
			wantEvent{kind: LifecycleOther, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", node: "lxkubenode04", count: 1, from: -1, reason: "Created", source: "kubelet"}},
		{"hetzner started", "Pod/cert-manager/cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", "Started", "Started container cert-manager-webhook-hetzner", kubeletOn("lxkubenode04"),
			wantEvent{kind: ContainerStarted, pod: "cert-manager-webhook-hetzner-6d56ff8dd9-rw6vc", node: "lxkubenode04", count: 1, from: -1, reason: "Started", source: "kubelet"}},
		// §6.4 oomichi/try-kubernetes#129.
		{"oomichi pulling", "Pod/default/nginx-deployment-7759cfdc55-2xczh", "Pulling", `Pulling image "nginx:1.7.9"`, kubeletOn(""),
			wantEvent{kind: LifecycleOther, pod: "nginx-deployment-7759cfdc55-2xczh", count: 1, from: -1, reason: "Pulling", source: "kubelet"}},
		{"oomichi pulled", "Pod/default/nginx-deployment-7759cfdc55-2xczh", "Pulled", `Successfully pulled image "nginx:1.7.9" in 16.244892095s`, kubeletOn(""),
			wantEvent{kind: LifecycleOther, pod: "nginx-deployment-7759cfdc55-2xczh", count: 1, from: -1, reason: "Pulled", source: "kubelet"}},
		{"oomichi created", "Pod/default/nginx-deployment-7759cfdc55-2xczh", "Created", "Created container nginx", kubeletOn(""),
			wantEvent{kind: LifecycleOther, pod: "nginx-deployment-7759cfdc55-2xczh", count: 1, from: -1, reason: "Created", source: "kubelet"}},
		{"oomichi started", "Pod/default/nginx-deployment-7759cfdc55-2xczh", "Started", "Started container nginx", kubeletOn(""),
			wantEvent{kind: ContainerStarted, pod: "nginx-deployment-7759cfdc55-2xczh", count: 1, from: -1, reason: "Started", source: "kubelet"}},
		{"oomichi create", "ReplicaSet/default/nginx-deployment-7759cfdc55", "SuccessfulCreate", "Created pod: nginx-deployment-7759cfdc55-2xczh", rsCtrl,
			wantEvent{kind: PodCreated, pod: "nginx-deployment-7759cfdc55-2xczh", count: 1, from: -1, reason: "SuccessfulCreate", source: "replicaset-controller"}},
		{"oomichi scale", "Deployment/default/nginx-deployment", "ScalingReplicaSet", "Scaled up replica set nginx-deployment-7759cfdc55 to 1", deployCtrl,
			scaled(ScaledUp, "nginx-deployment-7759cfdc55", 1, -1)},
		// §6.4 kubebb/core#130, kedacore/http-add-on#601.
		{"kubebb killing", "Pod/kubebb-system/my-nginx-replicas-example-1-57994bdcf7-7sl55", "Killing", "Stopping container nginx", kubeletOn(""),
			wantEvent{kind: Killing, pod: "my-nginx-replicas-example-1-57994bdcf7-7sl55", count: 1, from: -1, reason: "Killing", source: "kubelet"}},
		{"keda scale", "Deployment/default/podinfo", "ScalingReplicaSet", "Scaled up replica set podinfo-64cd6479c9 to 1 from 0", deployCtrl,
			scaled(ScaledUp, "podinfo-64cd6479c9", 1, 0)},
		// §6.4 probe texts: kubeapps#5360, kubernetes#51096, gravity#1335, gitea-helm-chart#46.
		{"kubeapps refused", pod, "Unhealthy", `Readiness probe failed: Get "http://10.244.83.115:8080/": dial tcp 10.244.83.115:8080: connect: connection refused`, kubeletOn("node-a"),
			probe("Readiness", "10.244.83.115", 8080)},
		{"k8s 51096 unquoted", "Pod/default/wordpress-1", "Unhealthy", `Readiness probe failed: Get http://10.48.8.21:80/wp-login.php: dial tcp 10.48.8.21:80: connect: connection refused`, kubeletOn("gke-shop-mates-pool-3-10336c2f-q5jf"),
			wantEvent{kind: ProbeFailed, pod: "wordpress-1", ip: "10.48.8.21", port: 80, node: "gke-shop-mates-pool-3-10336c2f-q5jf", count: 1, from: -1, reason: "Readiness", source: "kubelet"}},
		{"gravity statuscode", pod, "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", kubeletOn("node-a"),
			probe("Readiness", "", 0)},
		{"gitea tcp", pod, "Unhealthy", "Readiness probe failed: dial tcp 10.244.1.57:3000: connect: connection refused", kubeletOn("node-a"),
			probe("Readiness", "10.244.1.57", 3000)},
		// §6.4 devworkspace-operator#1168, pachyderm#1372, kubernetes#42571.
		{"devworkspace prestop", pod, "FailedPreStopHook", "PreStopHook failed", kubeletOn("node-a"),
			wantEvent{kind: PreStopFailed, pod: "web-6b7f9c9d5d-x2k4q", node: "node-a", count: 1, from: -1, reason: "FailedPreStopHook", source: "kubelet"}},
		{"pachyderm scale", "Deployment/kube-system/monitoring-grafana", "ScalingReplicaSet", "Scaled up replica set monitoring-grafana-3344903701 to 1", deployCtrl,
			scaled(ScaledUp, "monitoring-grafana-3344903701", 1, -1)},
		{"ganalytics scale", "Deployment/prod/ganalytics-prod", "ScalingReplicaSet", "Scaled up replica set ganalytics-prod-3154642894 to 2", deployCtrl,
			scaled(ScaledUp, "ganalytics-prod-3154642894", 2, -1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := testEvent(c.obj, c.reason, c.msg, c.src)
			l := emitOne(t, ev, time.Time{})
			checkEvent(t, l, c.want)
			if l.Message != c.msg {
				t.Errorf("message = %q, want the raw message", l.Message)
			}
			if ns := strings.SplitN(c.obj, "/", 3)[1]; l.Namespace != ns {
				t.Errorf("namespace = %q, want %q", l.Namespace, ns)
			}
			if parts := strings.SplitN(c.obj, "/", 3); l.Object != parts[0]+"/"+parts[2] {
				t.Errorf("object = %q", l.Object)
			}
		})
	}
}

// Names used by the GKE cases built from format strings.
const (
	testNEG  = "k8s1-1a2b3c4d-default-web-80-5e6f7a8b"
	testZone = "us-central1-a"
)

// TestKubeEventGKE covers the NEG controller and readiness reflector events of
// gcp.md §3.2 and §4.1 (format strings instantiated) and §7.1-7.7 (real lines).
func TestKubeEventGKE(t *testing.T) {
	const svc = "Service/default/web"
	const pod = "Pod/default/web-7d9f-abc"
	neg := func(kind LifecycleKind, reason, group, zone string, n int) wantEvent {
		return wantEvent{kind: kind, group: group, zone: zone, count: n, from: -1, reason: reason, source: "neg-controller"}
	}
	gate := func(reason, status, zone string) wantEvent {
		return wantEvent{kind: ReadinessGate, pod: "web-7d9f-abc", zone: zone, group: negReadinessGate, count: 1, from: -1, reason: reason, status: status, source: "neg-readiness-reflector"}
	}
	const (
		neg1463   = "k8s1-c5d09f7f-default-nginx-service-80-c3aae96e"
		negGreet  = "k8s1-f6eb789c-default-greeting-go-clusterip-80-d9016e0c"
		negSWS    = "k8s1-70b04f80-default-sws-service-80-135d96a0"
		mark      = `Marking condition "cloud.google.com/load-balancer-neg-ready" to True.`
		testNEGKy = `"Key{\"` + testNEG + `\", zone: \"` + testZone + `\"}"`
	)
	cases := []struct {
		name, obj, reason, msg string
		src                    corev1.EventSource
		want                   wantEvent
		ip                     string
	}{
		// §3.2 format strings.
		{"attach", svc, "Attach", `Attach 3 network endpoint(s) (NEG "` + testNEG + `" in zone "` + testZone + `")`, negCtrl,
			neg(NEGAttach, "Attach", testNEG, testZone, 3), ""},
		{"detach", svc, "Detach", `Detach 1 network endpoint(s) (NEG "` + testNEG + `" in zone "us-central1-b")`, negCtrl,
			neg(NEGDetach, "Detach", testNEG, "us-central1-b", 1), ""},
		{"detach combined", svc, "Detach", `(combined from similar events): Detach 2 network endpoint(s) (NEG "` + testNEG + `" in zone "` + testZone + `")`, negCtrl,
			neg(NEGDetach, "Detach", testNEG, testZone, 2), ""},
		{"attach pre-2018", svc, "Attach", `Attach 2 network endpoints to NEG "` + testNEG + `" in "` + testZone + `".`, negCtrl,
			neg(NEGAttach, "Attach", testNEG, testZone, 2), ""},
		{"attach failed", svc, "AttachFailed", `Failed to Attach 1 network endpoint(s) (NEG "` + testNEG + `" in zone "` + testZone + `"): googleapi: Error 503: Internal error, backendError`, negCtrl,
			neg(NEGOperationFailed, "AttachFailed", testNEG, testZone, 1), ""},
		{"detach failed combined", svc, "DetachFailed", `(combined from similar events): Failed to Detach 4 network endpoint(s) (NEG "` + testNEG + `" in zone "` + testZone + `"): googleapi: Error 404: The resource was not found, notFound`, negCtrl,
			neg(NEGOperationFailed, "DetachFailed", testNEG, testZone, 4), ""},
		{"create", svc, "Create", `Created NEG "` + testNEG + `" for default/web-` + testNEG + `--/80-8080-GCE_VM_IP_PORT-L7 in "` + testZone + `".`, negCtrl,
			neg(LifecycleOther, "Create", testNEG, testZone, 1), ""},
		{"delete", svc, "Delete", `Deleted NEG "` + testNEG + `" for default/web-` + testNEG + `--/80-8080-GCE_VM_IP_PORT-L7 in "` + testZone + `".`, negCtrl,
			neg(LifecycleOther, "Delete", testNEG, testZone, 1), ""},
		{"sync failed", svc, "SyncNetworkEndpointGroupFailed", `Failed to sync NEG "` + testNEG + `" (will retry): googleapi: Error 500`, negCtrl,
			neg(LifecycleOther, "SyncNetworkEndpointGroupFailed", "", "", 1), ""},
		{"attach unknown wording", svc, "Attach", "Attach something else", negCtrl,
			neg(LifecycleOther, "Attach", "", "", 1), ""},
		// §4.1 reflector format strings.
		{"ready healthy", pod, "LoadBalancerNegReady", `Pod has become Healthy in NEG ` + testNEGKy + ` attached to BackendService "Key{\"` + testNEG + `\"}". ` + mark, negReflector,
			gate("LoadBalancerNegReady", "True", testZone), ""},
		{"without health check", pod, "LoadBalancerNegWithoutHealthCheck", `Pod is in NEG ` + testNEGKy + `. NEG is not attached to any BackendService with health checking. ` + mark, negReflector,
			gate("LoadBalancerNegWithoutHealthCheck", "True", testZone), ""},
		{"ready no neg", pod, "LoadBalancerNegReady", `Pod does not belong to any NEG. ` + mark, negReflector,
			gate("LoadBalancerNegReady", "True", ""), ""},
		{"timeout", pod, "LoadBalancerNegTimeout", `Timeout waiting for pod to become healthy in at least one of the NEG(s): [` + testNEG + ` k8s1-1a2b3c4d-default-web-443-0a1b2c3d]. ` + mark, negReflector,
			gate("LoadBalancerNegTimeout", "True", ""), ""},
		{"ready other subnet", pod, "LoadBalancerNegReady", `Pod belongs to a node in non-default subnet. ` + mark, negReflector,
			gate("LoadBalancerNegReady", "True", ""), ""},
		{"not ready waiting", pod, "LoadBalancerNegNotReady", `Waiting for pod to become healthy in at least one of the NEG(s): [` + testNEG + `]`, negReflector,
			gate("LoadBalancerNegNotReady", "", ""), ""},
		{"not ready node", pod, "LoadBalancerNegNotReady", `Unable to determine the pod's node name.`, negReflector,
			gate("LoadBalancerNegNotReady", "", ""), ""},
		{"not ready subnet", pod, "LoadBalancerNegNotReady", `Unable to determine if the pod is in the default subnet.`, negReflector,
			gate("LoadBalancerNegNotReady", "", ""), ""},
		// §7.1 ingress-gce#1718.
		{"1718 not ready", pod, "LoadBalancerNegNotReady", `Waiting for pod to become healthy in at least one of the NEG(s): [k8s1-600f13cf-default-my-svc-8080-f82bf741]`, negReflector,
			gate("LoadBalancerNegNotReady", "", ""), ""},
		{"1718 without hc", pod, "LoadBalancerNegWithoutHealthCheck", `Pod is in NEG "Key{\"k8s1-600f13cf-default-my-svc-8080-f82bf741\", zone: \"europe-west1-c\"}". NEG is not attached to any Backend Service with health checking. Marking condition "cloud.google.com/load-balancer-neg-ready" to True.`, negReflector,
			gate("LoadBalancerNegWithoutHealthCheck", "True", "europe-west1-c"), ""},
		{"1718 unhealthy", pod, "Unhealthy", `Readiness probe failed: Get "http://10.129.128.130:8080/healthz": dial tcp 10.129.128.130:8080: connect: connection refused`, kubeletOn(""),
			wantEvent{kind: ProbeFailed, pod: "web-7d9f-abc", count: 1, from: -1, port: 8080, reason: "Readiness", source: "kubelet"}, "10.129.128.130"},
		{"1718 wrapped line joined", pod, "LoadBalancerNegWithoutHealthCheck", `Pod is in NEG "Key{\"k8s1-600f13cf-default-xrivals-apiserver-svc-8080-f82bf741\", zone: \"europe-west1-b\"}". NEG is not attached to any Backend Service with health checking. Marking condition "cloud.google.com/load-balancer-neg-ready" to True.`, negReflector,
			gate("LoadBalancerNegWithoutHealthCheck", "True", "europe-west1-b"), ""},
		// §7.2 ingress-gce#931.
		{"931 not ready", pod, "LoadBalancerNegNotReady", `Waiting for pod to become healthy in at least one of the NEG(s): [k8s1-74b928a2-default-ww-api-8080-a3c1e454]`, negReflector,
			gate("LoadBalancerNegNotReady", "", ""), ""},
		// §7.3 gke-autoneg-controller#137, redacted: classifies, no zone.
		{"autoneg redacted", pod, "LoadBalancerNegWithoutHealthCheck", `Pod is in NEG "Key{\".....", zone: \"us-central1-f\"}". NEG is not attached to any BackendService with health checking. Marking condition "cloud.google.com/load-balancer-neg-ready" to True.`, negReflector,
			gate("LoadBalancerNegWithoutHealthCheck", "True", ""), ""},
		// §7.4 ingress-gce#1463, whitespace inside the zone as published.
		{"1463 attach failed", svc, "AttachFailed", `Failed to Attach 2 network endpoint(s) (NEG "k8s1-c5d09f7f-default-nginx-service-80-c3aae96e" in zone "us-central1-    a"): googleapi: Error 400: Invalid value for field 'resource.ipAddress': '10.0.0.13'. Specified IP address 10.0.0.13 doesn't belong to the (sub)network default or to the instance gke-demo-gce-cluster-default-pool-18343f80-4cnf., invalid`, negCtrl,
			neg(NEGOperationFailed, "AttachFailed", neg1463, "us-central1-a", 2), "10.0.0.13"},
		// §7.5 Create and Attach on a Service.
		{"greeting create", svc, "Create", `Created NEG "k8s1-f6eb789c-default-greeting-go-clusterip-80-d9016e0c" for default/greeting-go-clusterip-k8s1-f6eb789c-default-greeting-go-clusterip-80-d9016e0c--/80-8080-GCE_VM_IP_PORT-L7 in "us-central1-c".`, negCtrl,
			neg(LifecycleOther, "Create", negGreet, "us-central1-c", 1), ""},
		{"greeting attach b", svc, "Attach", `Attach 1 network endpoint(s) (NEG "k8s1-f6eb789c-default-greeting-go-clusterip-80-d9016e0c" in zone "us-central1-b")`, negCtrl,
			neg(NEGAttach, "Attach", negGreet, "us-central1-b", 1), ""},
		{"greeting attach c", svc, "Attach", `Attach 1 network endpoint(s) (NEG "k8s1-f6eb789c-default-greeting-go-clusterip-80-d9016e0c" in zone "us-central1-c")`, negCtrl,
			neg(NEGAttach, "Attach", negGreet, "us-central1-c", 1), ""},
		{"greeting attach a", svc, "Attach", `Attach 1 network endpoint(s) (NEG "k8s1-f6eb789c-default-greeting-go-clusterip-80-d9016e0c" in zone "us-central1-a")`, negCtrl,
			neg(NEGAttach, "Attach", negGreet, "us-central1-a", 1), ""},
		{"sws create", svc, "Create", `Created NEG "k8s1-70b04f80-default-sws-service-80-135d96a0" for default/sws-service-k8s1-70b04f80-default-sws-service-80-135d96a0--/80-1234-GCE_VM_IP_PORT-L7 in "us-central1-a".`, negCtrl,
			neg(LifecycleOther, "Create", negSWS, "us-central1-a", 1), ""},
		{"sws attach", svc, "Attach", `Attach 1 network endpoint(s) (NEG "k8s1-70b04f80-default-sws-service-80-135d96a0" in zone "us-central1-a")`, negCtrl,
			neg(NEGAttach, "Attach", negSWS, "us-central1-a", 1), ""},
		// §7.6 regional Gateway backend service.
		{"gateway ready", pod, "LoadBalancerNegReady", `Pod has become Healthy in NEG "Key{\"k8s1-49691aaf-default-unified-recml-pool-ips-d243-5432-b58739a6\", zone: \"us-west1-a\"}" attached to BackendService "Key{\"gkegw1-h5cw-defaul-unified-recml-pool-ips-d2-54321-6qvws6sxbhfq\", region: \"us-west1\"}". Marking condition "cloud.google.com/load-balancer-neg-ready" to True.`, negReflector,
			gate("LoadBalancerNegReady", "True", "us-west1-a"), ""},
		// §7.7 kubectl get events.
		{"reports timeout", pod, "LoadBalancerNegTimeout", `Timeout waiting for pod to become healthy in at least one of the NEG(s): [k8s1-138e3498-argentina-arcus-reports-svc-80-52906662]. Marking condition "cloud.google.com/load-balancer-neg-ready" to True.`, negReflector,
			gate("LoadBalancerNegTimeout", "True", ""), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := emitOne(t, testEvent(c.obj, c.reason, c.msg, c.src), time.Time{})
			c.want.ip = c.ip
			checkEvent(t, l, c.want)
			if l.Message != c.msg {
				t.Errorf("message = %q, want the raw message", l.Message)
			}
			if l.Namespace != "default" {
				t.Errorf("namespace = %q", l.Namespace)
			}
		})
	}
}

// TestKubeEventTime checks which of an event's times becomes the record time,
// that Cloud Logging's time overrides them, and the occurrence count.
func TestKubeEventTime(t *testing.T) {
	at := func(s string) metav1.Time {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return metav1.NewTime(tm.Local())
	}
	micro := func(s string) metav1.MicroTime { return metav1.MicroTime(at(s)) }
	cases := []struct {
		name      string
		ev        corev1.Event
		override  time.Time
		want      time.Time
		wantCount int
	}{
		{"legacy aggregated: last occurrence",
			corev1.Event{FirstTimestamp: at("2024-01-02T03:04:05Z"), LastTimestamp: at("2024-01-02T03:04:15Z"), Count: 3},
			time.Time{}, time.Date(2024, 1, 2, 3, 4, 15, 0, time.UTC), 3},
		{"scheduler: null legacy stamps, eventTime",
			corev1.Event{EventTime: micro("2024-01-02T03:04:01.512345Z")},
			time.Time{}, time.Date(2024, 1, 2, 3, 4, 1, 512345000, time.UTC), 0},
		{"series: lastObservedTime",
			corev1.Event{EventTime: micro("2023-07-11T04:25:44.224298Z"), Series: &corev1.EventSeries{Count: 3, LastObservedTime: micro("2023-07-11T04:40:44.264058Z")}},
			time.Time{}, time.Date(2023, 7, 11, 4, 40, 44, 264058000, time.UTC), 3},
		{"eventTime keeps microseconds over the same second",
			corev1.Event{EventTime: micro("2024-01-02T03:04:05.250000Z"), LastTimestamp: at("2024-01-02T03:04:05Z"), Count: 1},
			time.Time{}, time.Date(2024, 1, 2, 3, 4, 5, 250000000, time.UTC), 1},
		{"only firstTimestamp",
			corev1.Event{FirstTimestamp: at("2024-01-02T03:04:05Z")},
			time.Time{}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 0},
		{"all null: creationTimestamp",
			corev1.Event{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: at("2024-01-02T03:04:01Z")}},
			time.Time{}, time.Date(2024, 1, 2, 3, 4, 1, 0, time.UTC), 0},
		{"Cloud Logging time wins",
			corev1.Event{FirstTimestamp: at("2024-01-02T03:04:05Z"), LastTimestamp: at("2024-01-02T03:04:15Z"), Count: 2},
			time.Date(2024, 1, 2, 3, 4, 9, 123000000, time.UTC), time.Date(2024, 1, 2, 3, 4, 9, 123000000, time.UTC), 2},
		{"negative count",
			corev1.Event{LastTimestamp: at("2024-01-02T03:04:05Z"), Count: -4},
			time.Time{}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.ev.Reason = "Pulling"
			l := emitOne(t, &c.ev, c.override)
			if !l.Time.Equal(c.want) || l.Time.Location() != time.UTC {
				t.Errorf("time = %v, want %v", l.Time, c.want)
			}
			if l.Count != c.wantCount {
				t.Errorf("count = %d, want %d", l.Count, c.wantCount)
			}
		})
	}
}

// TestKubeEventSourceFallbacks checks Source and Node when the legacy source
// is empty (events.k8s.io recorders) and Namespace from the event itself.
func TestKubeEventSourceFallbacks(t *testing.T) {
	ev := &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Namespace: "shop"},
		InvolvedObject:      corev1.ObjectReference{Kind: "Pod", Name: "web-1"},
		Reason:              "Killing",
		Message:             "Stopping container web",
		LastTimestamp:       metav1.NewTime(eventTime0),
		ReportingController: "kubelet",
		ReportingInstance:   "node-c",
	}
	l := emitOne(t, ev, time.Time{})
	if l.Source != "kubelet" || l.Node != "node-c" || l.Namespace != "shop" || l.Pod != "web-1" || l.Kind != Killing {
		t.Errorf("got %+v", l)
	}
}

package sources

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// k8sPod is a Deployment pod with a named readiness port that differs from
// the serving port, a preStop sleep, and status from a rolling update.
const k8sPod = `{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {
    "name": "web-7d9f6c5b8d-abcde", "namespace": "shop",
    "creationTimestamp": "2024-01-02T03:04:05Z",
    "deletionTimestamp": "2024-01-02T03:10:45Z", "deletionGracePeriodSeconds": 40,
    "labels": {"app": "web", "pod-template-hash": "7d9f6c5b8d"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f6c5b8d",
      "uid": "u1", "controller": true, "blockOwnerDeletion": true}]
  },
  "spec": {
    "nodeName": "node-a", "terminationGracePeriodSeconds": 40,
    "containers": [{
      "name": "app",
      "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                {"name": "admin", "containerPort": 9090, "protocol": "TCP"}],
      "readinessProbe": {"httpGet": {"path": "/ready", "port": "admin", "scheme": "HTTP"},
        "initialDelaySeconds": 2, "periodSeconds": 5, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3},
      "livenessProbe": {"tcpSocket": {"port": 8080}},
      "startupProbe": {"grpc": {"port": 9000, "service": null}, "failureThreshold": 30, "periodSeconds": 2},
      "lifecycle": {"preStop": {"exec": {"command": ["sh", "-c", "sleep 15"]}}}
    }],
    "initContainers": [{"name": "proxy", "restartPolicy": "Always",
      "ports": [{"name": "proxy", "containerPort": 15001}],
      "readinessProbe": {"exec": {"command": ["cat", "/tmp/ready"]}}}]
  },
  "status": {
    "phase": "Running", "podIP": "10.8.1.23", "podIPs": [{"ip": "10.8.1.23"}],
    "startTime": "2024-01-02T03:04:06Z",
    "conditions": [
      {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:05Z"},
      {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:07Z"},
      {"type": "ContainersReady", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:20Z"},
      {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-01-02T03:04:20Z"}
    ],
    "containerStatuses": [{"name": "app", "ready": true, "restartCount": 1,
      "state": {"running": {"startedAt": "2024-01-02T03:04:09Z"}}}],
    "initContainerStatuses": [{"name": "proxy", "ready": true, "restartCount": 0,
      "state": {"running": {"startedAt": "2024-01-02T03:04:07Z"}}}]
  }
}`

func k8sTime(h, m, s int) time.Time { return time.Date(2024, 1, 2, h, m, s, 0, time.UTC) }

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

// oneConfig runs one element and requires exactly one Config and no skip.
func oneConfig(t *testing.T, elem string) (*Config, *collector) {
	t.Helper()
	c, rep := runJSON(t, k8sObjects{}, "objects.json", elem)
	if rep.Skipped != 0 || len(c.configs) != 1 {
		t.Fatalf("skipped %d (%v), configs %d; want 0, 1", rep.Skipped, rep.SkipSamples(), len(c.configs))
	}
	return c.configs[0], c
}

func TestK8sObjectsPodSpec(t *testing.T) {
	cfg, _ := oneConfig(t, k8sPod)
	if cfg.Kind != "Pod" || cfg.Namespace != "shop" || cfg.Name != "web-7d9f6c5b8d-abcde" ||
		cfg.Format != FormatK8sObjects || cfg.Origin != (Origin{"objects.json", 1}) || !cfg.Created.Equal(k8sTime(3, 4, 5)) {
		t.Fatalf("identity = %+v", cfg)
	}
	want := &PodSpec{
		TerminationGracePeriodSec: 40,
		Containers: []Container{{
			Name: "app",
			Ports: []ContainerPort{{Name: "http", Number: 8080, Protocol: "TCP"},
				{Name: "admin", Number: 9090, Protocol: "TCP"}},
			Readiness: &Probe{Handler: "httpGet", Port: 9090, PortName: "admin", Path: "/ready", Scheme: "HTTP",
				InitialDelaySec: 2, PeriodSec: 5, TimeoutSec: 1, SuccessThreshold: 1, FailureThreshold: 3},
			Liveness: &Probe{Handler: "tcpSocket", Port: 8080, PeriodSec: 10, TimeoutSec: 1, SuccessThreshold: 1, FailureThreshold: 3},
			Startup:  &Probe{Handler: "grpc", Port: 9000, PeriodSec: 2, TimeoutSec: 1, SuccessThreshold: 1, FailureThreshold: 30},
			PreStop:  &PreStop{Handler: "exec", Command: []string{"sh", "-c", "sleep 15"}, Description: "exec: sh -c sleep 15", SleepSec: intp(15)},
		}, {
			Name: "proxy", Sidecar: true,
			Ports:     []ContainerPort{{Name: "proxy", Number: 15001}},
			Readiness: &Probe{Handler: "exec", Command: "cat /tmp/ready", PeriodSec: 10, TimeoutSec: 1, SuccessThreshold: 1, FailureThreshold: 3},
		}},
	}
	if !reflect.DeepEqual(cfg.PodSpec, want) {
		t.Errorf("PodSpec =\n%+v\nwant\n%+v", *cfg.PodSpec, *want)
	}
	// The Service targets the named port "http" (8080); the readiness probe checks 9090.
	if got := cfg.PodSpec.ResolvePort("http", ""); got != 8080 {
		t.Errorf("ResolvePort(http) = %d, want 8080", got)
	}
	if got := cfg.PodSpec.ResolvePort("proxy", "TCP"); got != 15001 {
		t.Errorf("ResolvePort(proxy) = %d, want 15001 (sidecar)", got)
	}
	if got := cfg.PodSpec.ResolvePort("http", "UDP"); got != 0 {
		t.Errorf("ResolvePort(http, UDP) = %d, want 0", got)
	}
}

func TestK8sObjectsPodStatus(t *testing.T) {
	cfg, _ := oneConfig(t, k8sPod)
	want := &PodStatus{
		IP: netip.MustParseAddr("10.8.1.23"), Node: "node-a", Phase: "Running",
		ReplicaSet: "web-7d9f6c5b8d", PodTemplateHash: "7d9f6c5b8d",
		Started: k8sTime(3, 4, 6), Deleted: k8sTime(3, 10, 45), DeletionGracePeriodSec: intp(40),
		Conditions: []PodCondition{
			{Type: "PodScheduled", Status: "True", LastTransition: k8sTime(3, 4, 5)},
			{Type: "Initialized", Status: "True", LastTransition: k8sTime(3, 4, 7)},
			{Type: "ContainersReady", Status: "True", LastTransition: k8sTime(3, 4, 20)},
			{Type: "Ready", Status: "True", LastTransition: k8sTime(3, 4, 20)},
		},
		Containers: []ContainerStatus{
			{Name: "app", Ready: true, RestartCount: 1, StartedAt: k8sTime(3, 4, 9)},
			{Name: "proxy", Ready: true, StartedAt: k8sTime(3, 4, 7)},
		},
	}
	if !reflect.DeepEqual(cfg.Pod, want) {
		t.Errorf("Pod =\n%+v\nwant\n%+v", *cfg.Pod, *want)
	}
	if got := cfg.Pod.TerminationStarted(cfg.PodSpec); !got.Equal(k8sTime(3, 10, 5)) {
		t.Errorf("TerminationStarted = %v", got)
	}
}

func TestK8sObjectsPodLifecycle(t *testing.T) {
	_, c := oneConfig(t, k8sPod)
	type rec struct {
		kind                  LifecycleKind
		at                    time.Time
		status, reason, group string
	}
	want := []rec{
		{PodCreated, k8sTime(3, 4, 5), "", "", ""},
		{PodScheduled, k8sTime(3, 4, 5), "True", "", ""},
		{PodReady, k8sTime(3, 4, 20), "True", "", ""},
		{ContainerStarted, k8sTime(3, 4, 9), "", "", "app"},
		{ContainerStarted, k8sTime(3, 4, 7), "", "", "proxy"},
		{PodDeleted, k8sTime(3, 10, 5), "", "Terminating", ""},
	}
	if len(c.lifecycle) != len(want) {
		t.Fatalf("got %d lifecycle records, want %d: %+v", len(c.lifecycle), len(want), c.lifecycle)
	}
	for i, w := range want {
		l := c.lifecycle[i]
		got := rec{l.Kind, l.Time, l.Status, l.Reason, l.Group}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("record %d = %+v, want %+v", i, got, w)
		}
		if l.Pod != "web-7d9f6c5b8d-abcde" || l.Namespace != "shop" || l.IP != netip.MustParseAddr("10.8.1.23") ||
			l.Node != "node-a" || l.Object != "Pod/web-7d9f6c5b8d-abcde" || l.Format != FormatK8sObjects ||
			l.Origin != (Origin{"objects.json", 1}) || l.From != -1 {
			t.Errorf("record %d identity = %+v", i, l)
		}
	}
}

// k8sPodWith wraps a spec and status fragment into a minimal Pod.
func k8sPodWith(spec, status string) string {
	return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","creationTimestamp":null},` +
		`"spec":` + spec + `,"status":` + status + `}`
}

func TestK8sObjectsProbePorts(t *testing.T) {
	tests := []struct {
		name, probe string
		port        int
		portName    string
	}{
		{"named port of the same container", `{"httpGet":{"path":"/","port":"admin"}}`, 9090, "admin"},
		{"number", `{"httpGet":{"path":"/","port":8080}}`, 8080, ""},
		{"digits as a string", `{"tcpSocket":{"port":"8081"}}`, 8081, "8081"},
		{"name of another container", `{"tcpSocket":{"port":"metrics"}}`, 0, "metrics"},
		{"unknown name", `{"httpGet":{"port":"nope"}}`, 0, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := `{"containers":[{"name":"a","ports":[{"name":"admin","containerPort":9090}],"readinessProbe":` + tt.probe + `},` +
				`{"name":"b","ports":[{"name":"metrics","containerPort":9100}]}]}`
			cfg, _ := oneConfig(t, k8sPodWith(spec, `{}`))
			p := cfg.PodSpec.Containers[0].Readiness
			if p.Port != tt.port || p.PortName != tt.portName {
				t.Errorf("port = %d %q, want %d %q", p.Port, p.PortName, tt.port, tt.portName)
			}
		})
	}
}

func TestK8sObjectsPreStop(t *testing.T) {
	tests := []struct {
		name, hook, desc string
		sleep            *int
	}{
		{"sleep action", `{"sleep":{"seconds":20}}`, "sleep 20", intp(20)},
		{"sh -c sleep", `{"exec":{"command":["sh","-c","sleep 15"]}}`, "exec: sh -c sleep 15", intp(15)},
		{"/bin/sh -c sleep then quit", `{"exec":{"command":["/bin/sh","-c","sleep 5 && nginx -s quit"]}}`, "exec: /bin/sh -c sleep 5 && nginx -s quit", intp(5)},
		{"/bin/sleep", `{"exec":{"command":["/bin/sleep","10"]}}`, "exec: /bin/sleep 10", intp(10)},
		{"sleep with suffix", `{"exec":{"command":["sleep","1m"]}}`, "exec: sleep 1m", intp(60)},
		{"sleep;", `{"exec":{"command":["bash","-c","sleep 3; kill 1"]}}`, "exec: bash -c sleep 3; kill 1", intp(3)},
		{"sleep;next", `{"exec":{"command":["sh","-c","sleep 7;nginx -s quit"]}}`, "exec: sh -c sleep 7;nginx -s quit", intp(7)},
		{"sleep then newline", `{"exec":{"command":["sh","-c","sleep 8\nkill 1"]}}`, "exec: sh -c sleep 8\nkill 1", intp(8)},
		{"sleep backgrounded", `{"exec":{"command":["sh","-c","sleep 9 &"]}}`, "exec: sh -c sleep 9 &", nil},
		{"sleep with two arguments", `{"exec":{"command":["sh","-c","sleep 1 2"]}}`, "exec: sh -c sleep 1 2", nil},
		{"sleep not first", `{"exec":{"command":["/bin/sh","-c","nginx -s quit; sleep 5"]}}`, "exec: /bin/sh -c nginx -s quit; sleep 5", nil},
		{"sleep piped", `{"exec":{"command":["sh","-c","sleep 5 | cat"]}}`, "exec: sh -c sleep 5 | cat", nil},
		{"fraction", `{"exec":{"command":["sleep","0.5"]}}`, "exec: sleep 0.5", nil},
		{"httpGet", `{"httpGet":{"path":"/shutdown","port":8080}}`, "httpGet :8080/shutdown", nil},
		{"tcpSocket named", `{"tcpSocket":{"port":"http"}}`, "tcpSocket :http", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := `{"containers":[{"name":"a","lifecycle":{"preStop":` + tt.hook + `}}]}`
			cfg, _ := oneConfig(t, k8sPodWith(spec, `{}`))
			want := &PreStop{Description: tt.desc, SleepSec: tt.sleep}
			var h struct {
				Exec *struct {
					Command []string `json:"command"`
				} `json:"exec"`
			}
			_ = json.Unmarshal([]byte(tt.hook), &h)
			want.Handler, _, _ = strings.Cut(strings.TrimPrefix(tt.hook, `{"`), `"`)
			if h.Exec != nil {
				want.Command = h.Exec.Command
			}
			if got := cfg.PodSpec.Containers[0].PreStop; !reflect.DeepEqual(got, want) {
				t.Errorf("PreStop = %+v (sleep %v), want %+v", got, got.SleepSec, want)
			}
		})
	}
}

func TestK8sObjectsNullAndOmittedFields(t *testing.T) {
	elem := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","creationTimestamp":null,` +
		`"deletionTimestamp":null,"labels":null},"spec":{"containers":[{"name":"a","ports":null,"readinessProbe":` +
		`{"httpGet":{"port":80}},"lifecycle":null}],"readinessGates":null},"status":{"podIP":"","conditions":` +
		`[{"type":"Ready","status":"False","lastProbeTime":null,"lastTransitionTime":null}]}}`
	cfg, c := oneConfig(t, elem)
	if !cfg.PodSpec.TerminationGraceDefaulted || cfg.PodSpec.TerminationGracePeriodSec != 30 {
		t.Errorf("grace = %d defaulted %v, want 30 true", cfg.PodSpec.TerminationGracePeriodSec, cfg.PodSpec.TerminationGraceDefaulted)
	}
	p := cfg.PodSpec.Containers[0].Readiness
	if p.PeriodSec != 10 || p.TimeoutSec != 1 || p.SuccessThreshold != 1 || p.FailureThreshold != 3 || p.InitialDelaySec != 0 {
		t.Errorf("probe defaults = %+v", p)
	}
	if cfg.PodSpec.Containers[0].PreStop != nil || cfg.Pod.IP.IsValid() || !cfg.Created.IsZero() ||
		!cfg.Pod.Deleted.IsZero() || cfg.Pod.DeletionGracePeriodSec != nil {
		t.Errorf("unset facts = %+v %+v", cfg.PodSpec.Containers[0], cfg.Pod)
	}
	if len(c.lifecycle) != 0 {
		t.Errorf("lifecycle records without times: %+v", c.lifecycle)
	}
}

func TestK8sObjectsNEGReadinessGate(t *testing.T) {
	// gcp.md §7.2 (kubernetes/ingress-gce#931): the gate condition waits with an empty status.
	const gate = "cloud.google.com/load-balancer-neg-ready"
	const msg = "Waiting for pod to become healthy in at least one of the NEG(s): [k8s1-74b928a2-default-ww-api-8080-a3c1e454]"
	status := `{"podIP":"10.4.2.9","conditions":[
	  {"type":"` + gate + `","lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:30Z","reason":"LoadBalancerNegNotReady","message":"` + msg + `"},
	  {"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:05Z"},
	  {"type":"Ready","status":"False","lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:05Z","reason":"ReadinessGatesNotReady","message":"corresponding condition of pod readiness gate \"` + gate + `\" does not exist."},
	  {"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:25Z"},
	  {"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:04:05Z"}]}`
	spec := `{"readinessGates":[{"conditionType":"` + gate + `"}],"containers":[{"name":"a"}]}`
	cfg, c := oneConfig(t, k8sPodWith(spec, status))
	if !reflect.DeepEqual(cfg.PodSpec.ReadinessGates, []string{gate}) {
		t.Errorf("gates = %v", cfg.PodSpec.ReadinessGates)
	}
	if pc := cfg.Pod.Conditions[0]; pc.Type != gate || pc.Status != "" || pc.Reason != "LoadBalancerNegNotReady" || pc.Message != msg {
		t.Errorf("gate condition = %+v", pc)
	}
	var kinds []LifecycleKind
	for _, l := range c.lifecycle {
		kinds = append(kinds, l.Kind)
	}
	if want := []LifecycleKind{ReadinessGate, PodNotReady, PodScheduled}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds = %v, want %v", kinds, want)
	}
	l := c.lifecycle[0]
	if l.Group != gate || l.Status != "" || l.Reason != "LoadBalancerNegNotReady" || l.Message != msg ||
		!l.Time.Equal(k8sTime(3, 4, 30)) || l.IP != netip.MustParseAddr("10.4.2.9") {
		t.Errorf("gate record = %+v", l)
	}
	if l := c.lifecycle[1]; l.Status != "False" || l.Reason != "ReadinessGatesNotReady" {
		t.Errorf("not-ready record = %+v", l)
	}
}

func TestK8sObjectsALBReadinessGate(t *testing.T) {
	// aws.md §3.4: the four constructed conditions, with a transition time added.
	const gate = "target-health.elbv2.k8s.aws/k8s-default-myapp-a1b2c3d4e5"
	tests := []struct {
		name, cond, status, reason, message string
	}{
		{"just registered", `"status":"False","reason":"Elb.RegistrationInProgress","message":"Target registration is in progress"`,
			"False", "Elb.RegistrationInProgress", "Target registration is in progress"},
		{"wrong port", `"status":"False","reason":"Target.FailedHealthChecks","message":"Health checks failed"`,
			"False", "Target.FailedHealthChecks", "Health checks failed"},
		{"wrong path", `"status":"False","reason":"Target.ResponseCodeMismatch","message":"Health checks failed with these codes: [404]"`,
			"False", "Target.ResponseCodeMismatch", "Health checks failed with these codes: [404]"},
		{"healthy", `"status":"True"`, "True", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := `{"conditions":[{"type":"` + gate + `",` + tt.cond + `,"lastProbeTime":null,"lastTransitionTime":"2024-01-02T03:05:00Z"}]}`
			spec := `{"readinessGates":[{"conditionType":"` + gate + `"}],"containers":[{"name":"a"}]}`
			_, c := oneConfig(t, k8sPodWith(spec, status))
			if len(c.lifecycle) != 1 {
				t.Fatalf("records = %+v", c.lifecycle)
			}
			l := c.lifecycle[0]
			if l.Kind != ReadinessGate || l.Group != gate || l.Status != tt.status || l.Reason != tt.reason ||
				l.Message != tt.message || !l.Time.Equal(k8sTime(3, 5, 0)) || l.Pod != "p" || l.Namespace != "ns" {
				t.Errorf("record = %+v", l)
			}
		})
	}
}

func TestK8sObjectsWorkloads(t *testing.T) {
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop",
	  "annotations":{"deployment.kubernetes.io/revision":"4"}},
	  "spec":{"replicas":3,"minReadySeconds":10,"selector":{"matchLabels":{"app":"web"}},
	    "strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":"25%","maxUnavailable":0}},
	    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app"}]}}}}`
	cfg, _ := oneConfig(t, deploy)
	w := cfg.Workload
	if w == nil || *w.Replicas != 3 || w.MinReadySeconds != 10 || w.Strategy != "RollingUpdate" ||
		w.MaxSurge != "25%" || w.MaxUnavailable != "0" || w.Selector["app"] != "web" || w.Revision != "4" ||
		w.TemplateLabels["app"] != "web" || w.Template.TerminationGracePeriodSec != 30 || w.Template.Containers[0].Name != "app" {
		t.Errorf("Deployment = %+v", w)
	}

	rs := `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-7d9f6c5b8d","namespace":"shop",
	  "creationTimestamp":"2024-01-02T03:04:01Z",
	  "labels":{"app":"web","pod-template-hash":"7d9f6c5b8d"},
	  "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":"d1","controller":true}]},
	  "spec":{"selector":{"matchLabels":{"app":"web","pod-template-hash":"7d9f6c5b8d"}},
	    "template":{"spec":{"terminationGracePeriodSeconds":60,"containers":[]}}}}`
	cfg, _ = oneConfig(t, rs)
	w = cfg.Workload
	if w == nil || w.Replicas != nil || w.Deployment != "web" || w.PodTemplateHash != "7d9f6c5b8d" ||
		w.Strategy != "" || w.MaxSurge != "" || w.Template.TerminationGracePeriodSec != 60 || !cfg.Created.Equal(k8sTime(3, 4, 1)) {
		t.Errorf("ReplicaSet = %+v", w)
	}
}

func TestK8sObjectsService(t *testing.T) {
	svc := `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop","annotations":{
	    "cloud.google.com/neg":"{\"ingress\": true}",
	    "cloud.google.com/neg-status":"{\"network_endpoint_groups\":{\"80\":\"k8s1-600f13cf-shop-web-80-f82bf741\"},\"zones\":[\"europe-west1-b\",\"europe-west1-c\"]}",
	    "cloud.google.com/backend-config":"{\"ports\": {\"http\":\"web-bc\"}, \"default\": \"all-bc\"}",
	    "kubectl.kubernetes.io/last-applied-configuration":"{}"}},
	  "spec":{"type":"ClusterIP","selector":{"app":"web"},"ports":[
	    {"name":"http","port":80,"targetPort":"http","protocol":"TCP"},
	    {"name":"metrics","port":9100,"targetPort":9100},
	    {"name":"grpc","port":9000}]}}`
	cfg, _ := oneConfig(t, svc)
	want := &Service{
		Type: "ClusterIP", Selector: map[string]string{"app": "web"},
		Ports: []ServicePort{
			{Name: "http", Protocol: "TCP", Port: 80, TargetPort: "http"},
			{Name: "metrics", Port: 9100, TargetPort: "9100", TargetPortNumber: 9100},
			{Name: "grpc", Port: 9000, TargetPortNumber: 9000},
		},
		NEG: `{"ingress": true}`, NEGIngress: true,
		NEGs:           map[string]string{"80": "k8s1-600f13cf-shop-web-80-f82bf741"},
		NEGZones:       []string{"europe-west1-b", "europe-west1-c"},
		BackendConfigs: map[string]string{"http": "web-bc", "default": "all-bc"},
	}
	got := *cfg.Service
	got.Annotations = nil
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("Service =\n%+v\nwant\n%+v", got, *want)
	}
	if len(cfg.Service.Annotations) != 3 || cfg.HealthCheck != nil {
		t.Errorf("annotations = %v, health check = %+v", cfg.Service.Annotations, cfg.HealthCheck)
	}
}

// TestK8sObjectsStandaloneNEG checks that the ports a standalone NEG
// exposes are read, in order, and that a NEG for Ingress exposes none.
func TestK8sObjectsStandaloneNEG(t *testing.T) {
	for neg, want := range map[string][]int{
		`{\"exposed_ports\": {\"8443\": {}, \"80\": {\"name\": \"web-neg\"}, \"x\": {}}}`: {80, 8443},
		`{\"ingress\": true}`: nil,
		`not json`:            nil,
	} {
		cfg, _ := oneConfig(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop","annotations":{"cloud.google.com/neg":"`+neg+`"}},"spec":{"ports":[{"port":80}]}}`)
		if !reflect.DeepEqual(cfg.Service.NEGExposedPorts, want) {
			t.Errorf("%s: exposed ports %v, want %v", neg, cfg.Service.NEGExposedPorts, want)
		}
	}
}

// TestK8sObjectsTopologySpread checks that topology spread constraints are
// read with the API default for whenUnsatisfiable, and that only a zone key
// counts as spreading over zones.
func TestK8sObjectsTopologySpread(t *testing.T) {
	dep := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{"template":{"spec":{
	  "containers":[{"name":"app"}],
	  "topologySpreadConstraints":[
	    {"maxSkew":1,"topologyKey":"kubernetes.io/hostname","whenUnsatisfiable":"ScheduleAnyway"},
	    {"maxSkew":2,"topologyKey":"topology.kubernetes.io/zone"}]}}}}`
	cfg, _ := oneConfig(t, dep)
	tmpl := cfg.Workload.Template
	want := []TopologySpread{{Key: "kubernetes.io/hostname", MaxSkew: 1, WhenUnsatisfiable: "ScheduleAnyway"}, {Key: LabelZone, MaxSkew: 2, WhenUnsatisfiable: "DoNotSchedule"}}
	if !reflect.DeepEqual(tmpl.TopologySpread, want) || !tmpl.SpreadsOverZones() {
		t.Errorf("spread = %+v (over zones %v)", tmpl.TopologySpread, tmpl.SpreadsOverZones())
	}
	if tmpl.HasNEGReadinessGate() || !(&PodSpec{ReadinessGates: []string{"x/y", NEGReadinessGate}}).HasNEGReadinessGate() {
		t.Error("NEG readiness gate misread")
	}
	tmpl.TopologySpread = tmpl.TopologySpread[:1]
	if tmpl.SpreadsOverZones() {
		t.Error("a hostname spread counts as a zone spread")
	}
}

func TestK8sObjectsIngressALB(t *testing.T) {
	ing := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"shop","annotations":{
	    "alb.ingress.kubernetes.io/target-type":"ip",
	    "alb.ingress.kubernetes.io/healthcheck-port":"traffic-port",
	    "alb.ingress.kubernetes.io/healthcheck-path":"/healthz",
	    "alb.ingress.kubernetes.io/healthcheck-interval-seconds":"5",
	    "alb.ingress.kubernetes.io/healthcheck-timeout-seconds":"2",
	    "alb.ingress.kubernetes.io/healthy-threshold-count":"2",
	    "alb.ingress.kubernetes.io/unhealthy-threshold-count":"3",
	    "alb.ingress.kubernetes.io/success-codes":"200-399",
	    "alb.ingress.kubernetes.io/target-group-attributes":"deregistration_delay.timeout_seconds=30,slow_start.duration_seconds=0",
	    "kubectl.kubernetes.io/last-applied-configuration":"{}"}},
	  "spec":{"ingressClassName":"alb",
	    "defaultBackend":{"service":{"name":"fallback","port":{"number":8080}}},
	    "rules":[{"host":"shop.example.com","http":{"paths":[
	      {"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"name":"http"}}}},
	      {"path":"/static","pathType":"Prefix","backend":{"resource":{"kind":"StorageBucket","name":"b"}}}]}},
	      {"host":"empty.example.com"}]}}`
	cfg, _ := oneConfig(t, ing)
	if cfg.Ingress.Class != "alb" || len(cfg.Ingress.Annotations) != 9 {
		t.Errorf("class %q annotations %v", cfg.Ingress.Class, cfg.Ingress.Annotations)
	}
	wantBackends := []IngressBackend{
		{Service: "fallback", PortNumber: 8080},
		{Host: "shop.example.com", Path: "/", Service: "web", PortName: "http"},
	}
	if !reflect.DeepEqual(cfg.Ingress.Backends, wantBackends) {
		t.Errorf("backends = %+v", cfg.Ingress.Backends)
	}
	wantHC := &LBHealthCheck{
		Source: "Ingress annotations", IntervalSec: intp(5), TimeoutSec: intp(2), HealthyThreshold: intp(2),
		UnhealthyThreshold: intp(3), Port: "traffic-port", Path: "/healthz", SuccessCodes: "200-399",
		DeregistrationDelaySec: intp(30), TargetType: "ip",
	}
	if !reflect.DeepEqual(cfg.HealthCheck, wantHC) {
		t.Errorf("health check = %+v", cfg.HealthCheck)
	}

	legacy := `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"n","annotations":{
	    "kubernetes.io/ingress.class":"nginx","alb.ingress.kubernetes.io/healthcheck-port":"8081"}},"spec":{}}`
	cfg, _ = oneConfig(t, legacy)
	if cfg.Ingress.Class != "nginx" || cfg.HealthCheck.Port != "8081" || cfg.HealthCheck.PortNumber != 8081 ||
		cfg.HealthCheck.IntervalSec != nil || cfg.HealthCheck.DeregistrationDelaySec != nil {
		t.Errorf("class %q health check %+v", cfg.Ingress.Class, cfg.HealthCheck)
	}
}

func TestK8sObjectsBackendConfig(t *testing.T) {
	tests := []struct {
		name, elem string
		want       *LBHealthCheck
	}{
		{"v1 health check and draining", `{"apiVersion":"cloud.google.com/v1","kind":"BackendConfig",
		  "metadata":{"name":"web-bc","namespace":"shop"},
		  "spec":{"healthCheck":{"checkIntervalSec":5,"timeoutSec":5,"healthyThreshold":1,"unhealthyThreshold":2,
		    "type":"HTTP","requestPath":"/healthz","port":8080},"connectionDraining":{"drainingTimeoutSec":60}}}`,
			&LBHealthCheck{Source: "BackendConfig", IntervalSec: intp(5), TimeoutSec: intp(5), HealthyThreshold: intp(1),
				UnhealthyThreshold: intp(2), Protocol: "HTTP", Path: "/healthz", Port: "8080", PortNumber: 8080, DrainingTimeoutSec: intp(60)}},
		{"v1beta1 draining only", `{"apiVersion":"cloud.google.com/v1beta1","kind":"BackendConfig",
		  "metadata":{"name":"bc"},"spec":{"connectionDraining":{"drainingTimeoutSec":0}}}`,
			&LBHealthCheck{Source: "BackendConfig", DrainingTimeoutSec: intp(0)}},
		{"partial health check", `{"apiVersion":"cloud.google.com/v1","kind":"BackendConfig",
		  "metadata":{"name":"bc"},"spec":{"healthCheck":{"requestPath":"/ready"},"timeoutSec":40}}`,
			&LBHealthCheck{Source: "BackendConfig", Path: "/ready"}},
		{"request-log sampling", `{"apiVersion":"cloud.google.com/v1","kind":"BackendConfig",
		  "metadata":{"name":"bc"},"spec":{"logging":{"enable":true,"sampleRate":0.25}}}`,
			&LBHealthCheck{Source: "BackendConfig", LogSampleRate: floatp(0.25)}},
		{"no health settings", `{"apiVersion":"cloud.google.com/v1","kind":"BackendConfig",
		  "metadata":{"name":"bc"},"spec":{"cdn":{"enabled":true}}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := oneConfig(t, tt.elem)
			if cfg.Kind != "BackendConfig" || !reflect.DeepEqual(cfg.HealthCheck, tt.want) {
				t.Errorf("%s health check = %+v, want %+v", cfg.Kind, cfg.HealthCheck, tt.want)
			}
		})
	}
}

func floatp(f float64) *float64 { return &f }

func TestK8sObjectsTargetGroupBinding(t *testing.T) {
	const arn = "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/k8s-default-myapp-a1b2c3d4e5/0123456789abcdef"
	tests := []struct {
		port, wantPort string
	}{
		{`80`, "80"},
		{`"http"`, "http"},
	}
	for _, tt := range tests {
		elem := `{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"TargetGroupBinding",
		  "metadata":{"name":"k8s-default-myapp-a1b2c3d4e5","namespace":"default"},
		  "spec":{"serviceRef":{"name":"myapp","port":` + tt.port + `},"targetGroupARN":"` + arn + `","targetType":"ip"}}`
		cfg, _ := oneConfig(t, elem)
		want := &TargetGroupBinding{Service: "myapp", ServicePort: tt.wantPort, TargetGroupARN: arn, TargetType: "ip",
			ReadinessGate: "target-health.elbv2.k8s.aws/k8s-default-myapp-a1b2c3d4e5"}
		if !reflect.DeepEqual(cfg.TargetGroupBinding, want) {
			t.Errorf("TargetGroupBinding = %+v, want %+v", cfg.TargetGroupBinding, want)
		}
	}
}

// TestK8sObjectsIngressClass reads IngressClasses as the AWS Load Balancer
// Controller's and ingress-nginx's documentation write them: the
// controller, the default-class annotation and the parameters reference.
func TestK8sObjectsIngressClass(t *testing.T) {
	tests := []struct {
		name, elem string
		want       *IngressClass
	}{
		{"ALB with parameters", `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"awesome-class"},
		  "spec":{"controller":"ingress.k8s.aws/alb","parameters":{"apiGroup":"elbv2.k8s.aws","kind":"IngressClassParams","name":"awesome-class-cfg"}}}`,
			&IngressClass{Controller: ALBIngressController, Parameters: &ObjectRef{Group: "elbv2.k8s.aws", Kind: "IngressClassParams", Name: "awesome-class-cfg"}}},
		{"default, no parameters", `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"alb",
		  "annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}},"spec":{"controller":"ingress.k8s.aws/alb"}}`,
			&IngressClass{Controller: ALBIngressController, Default: true}},
		{"not default", `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx",
		  "annotations":{"ingressclass.kubernetes.io/is-default-class":"false"}},"spec":{"controller":"k8s.io/ingress-nginx"}}`,
			&IngressClass{Controller: "k8s.io/ingress-nginx"}},
		{"namespaced parameters", `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"ext"},
		  "spec":{"controller":"example.com/ingress","parameters":{"apiGroup":"k8s.example.com","kind":"Params","name":"p","scope":"Namespace","namespace":"ops"}}}`,
			&IngressClass{Controller: "example.com/ingress", Parameters: &ObjectRef{Group: "k8s.example.com", Kind: "Params", Namespace: "ops", Name: "p"}}},
	}
	for _, tt := range tests {
		cfg, _ := oneConfig(t, tt.elem)
		if cfg.Kind != "IngressClass" || cfg.Namespace != "" || !reflect.DeepEqual(cfg.IngressClass, tt.want) {
			t.Errorf("%s: %s %+v, want %+v", tt.name, cfg.Kind, cfg.IngressClass, tt.want)
		}
	}
}

// TestK8sObjectsIngressClassParams reads the load-balancer attributes and
// group of IngressClassParams, in the controller documentation's shape,
// and the idle timeout among them; a value that is not a string (the CRD
// says string) is a malformed object, reported.
func TestK8sObjectsIngressClassParams(t *testing.T) {
	tests := []struct {
		name, elem string
		want       *IngressClassParams
		idle       *int
	}{
		{"attributes", `{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"IngressClassParams","metadata":{"name":"awesome-class"},
		  "spec":{"loadBalancerAttributes":[{"key":"deletion_protection.enabled","value":"true"},{"key":"idle_timeout.timeout_seconds","value":"120"}]}}`,
			&IngressClassParams{LoadBalancerAttributes: []Attribute{{"deletion_protection.enabled", "true"}, {"idle_timeout.timeout_seconds", "120"}}}, intp(120)},
		{"group only", `{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"IngressClassParams","metadata":{"name":"awesome-class"},
		  "spec":{"group":{"name":"my-group"},"scheme":"internal"}}`,
			&IngressClassParams{Group: "my-group"}, nil},
		{"idle timeout not a number", `{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"IngressClassParams","metadata":{"name":"x"},
		  "spec":{"loadBalancerAttributes":[{"key":"idle_timeout.timeout_seconds","value":"2m"}]}}`,
			&IngressClassParams{LoadBalancerAttributes: []Attribute{{"idle_timeout.timeout_seconds", "2m"}}}, nil},
	}
	for _, tt := range tests {
		cfg, _ := oneConfig(t, tt.elem)
		if !reflect.DeepEqual(cfg.IngressClassParams, tt.want) || !reflect.DeepEqual(cfg.IngressClassParams.IdleTimeoutSec(), tt.idle) {
			t.Errorf("%s: %+v (idle %v), want %+v (idle %v)", tt.name, cfg.IngressClassParams, cfg.IngressClassParams.IdleTimeoutSec(), tt.want, tt.idle)
		}
	}
	c, rep := runJSON(t, k8sObjects{}, "objects.json", `{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"IngressClassParams","metadata":{"name":"x"},
	  "spec":{"loadBalancerAttributes":[{"key":"idle_timeout.timeout_seconds","value":120}]}}`)
	if rep.Skipped != 1 || len(c.configs) != 0 || !strings.Contains(strings.Join(rep.SkipSamples(), " "), "objects.json:1") {
		t.Errorf("a number for a string: skipped %d %v, configs %d", rep.Skipped, rep.SkipSamples(), len(c.configs))
	}
}

// TestK8sObjectsALBIdleTimeout reads the idle timeout from an Ingress's
// load-balancer-attributes annotation, and not from a Service's, which
// the controller does not read (nor the NLB annotation).
func TestK8sObjectsALBIdleTimeout(t *testing.T) {
	ing, _ := oneConfig(t, `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","namespace":"shop","annotations":{
	    "alb.ingress.kubernetes.io/load-balancer-attributes":"deletion_protection.enabled=true, idle_timeout.timeout_seconds=120"}},
	  "spec":{"ingressClassName":"internal-alb"}}`)
	if ing.HealthCheck == nil || !reflect.DeepEqual(ing.HealthCheck.IdleTimeoutSec, intp(120)) || ing.Ingress.ClassName != "internal-alb" {
		t.Errorf("Ingress: health check %+v, class %q", ing.HealthCheck, ing.Ingress.ClassName)
	}
	legacy, _ := oneConfig(t, `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"web","annotations":{"kubernetes.io/ingress.class":"alb"}},"spec":{}}`)
	if legacy.Ingress.Class != "alb" || legacy.Ingress.ClassName != "" {
		t.Errorf("annotation class: %+v", legacy.Ingress)
	}
	svc, _ := oneConfig(t, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop","annotations":{
	    "alb.ingress.kubernetes.io/load-balancer-attributes":"idle_timeout.timeout_seconds=120",
	    "service.beta.kubernetes.io/aws-load-balancer-attributes":"idle_timeout.timeout_seconds=120"}},"spec":{"ports":[{"port":80}]}}`)
	if svc.HealthCheck != nil {
		t.Errorf("Service: health check %+v", svc.HealthCheck)
	}
}

func TestK8sObjectsNamespace(t *testing.T) {
	cfg, _ := oneConfig(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop",
	  "labels":{"elbv2.k8s.aws/pod-readiness-gate-inject":"enabled","kubernetes.io/metadata.name":"shop"}}}`)
	if cfg.Name != "shop" || cfg.Namespace != "" || !cfg.ALBReadinessGateInjected() {
		t.Errorf("Namespace = %+v", cfg)
	}
	cfg, _ = oneConfig(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}}`)
	if cfg.ALBReadinessGateInjected() {
		t.Errorf("unlabelled namespace injects gates")
	}
}

func TestK8sObjectsEndpointSlice(t *testing.T) {
	elem := `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","addressType":"IPv4",
	  "metadata":{"name":"web-abc12","namespace":"shop","labels":{"kubernetes.io/service-name":"web",
	    "endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"}},
	  "ports":[{"name":"http","protocol":"TCP","port":8080}],
	  "endpoints":[
	    {"addresses":["10.8.1.23"],"conditions":{"ready":true,"serving":true,"terminating":false},
	     "targetRef":{"kind":"Pod","namespace":"shop","name":"web-new-1"},"nodeName":"node-a","zone":"europe-west1-b"},
	    {"addresses":["10.8.0.7"],"conditions":{"ready":false,"serving":true,"terminating":true},
	     "targetRef":{"kind":"Pod","namespace":"shop","name":"web-old-1"},"nodeName":"node-b","zone":"europe-west1-c"},
	    {"addresses":["10.8.0.9"],"conditions":{"ready":false,"serving":false,"terminating":true},
	     "targetRef":{"kind":"Pod","namespace":"shop","name":"web-old-2"}},
	    {"addresses":["10.8.2.2","bogus"],"conditions":{}}]}`
	cfg, _ := oneConfig(t, elem)
	es := cfg.EndpointSlice
	if es.Service != "web" || es.AddressType != "IPv4" || !reflect.DeepEqual(es.Ports, []EndpointPort{{Name: "http", Protocol: "TCP", Port: 8080}}) {
		t.Errorf("slice = %+v", es)
	}
	want := []Endpoint{
		{Addresses: []netip.Addr{netip.MustParseAddr("10.8.1.23")}, Ready: boolp(true), Serving: boolp(true), Terminating: boolp(false),
			Pod: "web-new-1", Node: "node-a", Zone: "europe-west1-b"},
		{Addresses: []netip.Addr{netip.MustParseAddr("10.8.0.7")}, Ready: boolp(false), Serving: boolp(true), Terminating: boolp(true),
			Pod: "web-old-1", Node: "node-b", Zone: "europe-west1-c"},
		{Addresses: []netip.Addr{netip.MustParseAddr("10.8.0.9")}, Ready: boolp(false), Serving: boolp(false), Terminating: boolp(true), Pod: "web-old-2"},
		{Addresses: []netip.Addr{netip.MustParseAddr("10.8.2.2")}},
	}
	if !reflect.DeepEqual(es.Endpoints, want) {
		t.Errorf("endpoints =\n%+v\nwant\n%+v", es.Endpoints, want)
	}
	type sem struct{ ready, serving, terminating bool }
	wantSem := []sem{{true, true, false}, {false, true, true}, {false, false, true}, {true, true, false}}
	for i, e := range es.Endpoints {
		if got := (sem{e.IsReady(), e.IsServing(), e.IsTerminating()}); got != wantSem[i] {
			t.Errorf("endpoint %d semantics = %+v, want %+v", i, got, wantSem[i])
		}
	}
}

func TestK8sObjectsIgnoredAndMalformed(t *testing.T) {
	tests := []struct {
		name, elem string
		skipped    int
		reason     string
	}{
		{"ConfigMap", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{}}`, 0, ""},
		// Foreign elements are rejected so that the pipeline hands them to their own adapter.
		{"Event", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"reason":"Killing"}`, 1, "an Event, not an object"},
		{"Deployment of another group", `{"apiVersion":"extensions.example.com/v1","kind":"Deployment","metadata":{"name":"d"}}`, 0, ""},
		{"no kind", `{"metadata":{"name":"x"}}`, 1, "not a Kubernetes object"},
		{"not JSON", `{"apiVersion":"v1","kind":"Pod",`, 1, "invalid JSON object"},
		{"array", `[1,2]`, 1, "invalid JSON object"},
		{"spec of the wrong type", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":"x"}`, 1, "Pod: cannot unmarshal"},
		{"bad time", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","creationTimestamp":"yesterday"}}`, 1, "Pod: "},
		{"float port", `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetPort":80.5}]}}`, 1, "Service: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runJSON(t, k8sObjects{}, "x.json", tt.elem)
			if len(c.configs)+len(c.lifecycle) != 0 || rep.Skipped != tt.skipped || rep.Records != 0 {
				t.Fatalf("configs %d lifecycle %d skipped %d records %d", len(c.configs), len(c.lifecycle), rep.Skipped, rep.Records)
			}
			if tt.skipped > 0 && !strings.Contains(rep.SkipSamples()[0], "x.json:1: "+tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", rep.SkipSamples()[0], tt.reason)
			}
		})
	}
}

func TestK8sObjectsMatchJSON(t *testing.T) {
	tests := []struct {
		name, elem string
		want       bool
	}{
		{"pod", k8sPod, true},
		{"pod cut short", k8sPod[:300], true},
		{"deployment compact", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}`, true},
		{"core event", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"involvedObject":{"kind":"Pod"}}`, false},
		{"events.k8s.io event", `{"apiVersion": "events.k8s.io/v1", "kind" : "Event", "metadata": {}, "regarding": {"kind": "Pod"}}`, false},
		{"audit event", `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","objectRef":{},"metadata":{}}`, false},
		{"cloud logging entry", `{"logName":"projects/p/logs/events","jsonPayload":{"apiVersion":"v1","kind":"Event","metadata":{}}}`, false},
		{"no metadata", `{"apiVersion":"v1","kind":"Status","status":"Failure"}`, false},
		{"alb log", `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188`, false},
	}
	for _, tt := range tests {
		if got := (k8sObjects{}).MatchJSON([]byte(tt.elem)); got != tt.want {
			t.Errorf("%s: MatchJSON = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// runK8sSample feeds every item of a Kubernetes List file to the adapter.
func runK8sSample(t testing.TB, file string) (*collector, *InputReport) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "samples", "k8s-objects", file))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	rep := &InputReport{Name: file, Format: FormatK8sObjects}
	em := newEmitter(c, &Options{}, rep, newDedupSet())
	for i, item := range list.Items {
		o := Origin{File: file, Line: i + 1}
		if err := (k8sObjects{}).ParseJSON(item, o, em); err != nil {
			em.Skip(o, err.Error())
		}
	}
	return c, rep
}

func TestK8sObjectsSamples(t *testing.T) {
	tests := []struct {
		file      string
		kind      string
		configs   int
		lifecycle int
	}{
		{"replicatedhq--troubleshoot--deployments-default.json", "Deployment", 3, 0},
		{"replicatedhq--troubleshoot--message-pod-crashloop-backoff.json", "Pod", 1, 3},
		{"replicatedhq--troubleshoot--pods-default.json", "Pod", 6, 17},
		{"vmware-tanzu--sonobuoy--core_v1_pods.json", "Pod", 14, 46},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, rep := runK8sSample(t, tt.file)
			if rep.Skipped != 0 || len(c.configs) != tt.configs || len(c.lifecycle) != tt.lifecycle ||
				rep.Records != tt.configs+tt.lifecycle {
				t.Errorf("skipped %d %v, configs %d, lifecycle %d, records %d; want 0, %d, %d",
					rep.Skipped, rep.SkipSamples(), len(c.configs), len(c.lifecycle), rep.Records, tt.configs, tt.lifecycle)
			}
			for _, cfg := range c.configs {
				if cfg.Kind != tt.kind {
					t.Errorf("%s is a %s", cfg.Name, cfg.Kind)
				}
			}
		})
	}
}

func k8sSampleConfig(t *testing.T, file, name string) *Config {
	t.Helper()
	c, _ := runK8sSample(t, file)
	for _, cfg := range c.configs {
		if cfg.Name == name {
			return cfg
		}
	}
	t.Fatalf("%s: no object %s", file, name)
	return nil
}

func TestK8sObjectsSampleFacts(t *testing.T) {
	pod := k8sSampleConfig(t, "replicatedhq--troubleshoot--pods-default.json", "backend-api-75fb46b7bd-xtkrh")
	if pod.Pod.IP != netip.MustParseAddr("10.42.0.16") || pod.Pod.Node != "c9b7eea91" || pod.Pod.ReplicaSet != "backend-api-75fb46b7bd" ||
		pod.Pod.PodTemplateHash != "75fb46b7bd" || pod.Pod.Phase != "Running" || !pod.Created.Equal(time.Date(2025, 9, 11, 20, 50, 19, 0, time.UTC)) {
		t.Errorf("backend-api pod = %+v", pod.Pod)
	}
	if r := pod.PodSpec.Containers[0].Readiness; r.Handler != "httpGet" || r.Port != 8080 || r.Path != "/health" || r.PeriodSec != 10 || r.InitialDelaySec != 5 {
		t.Errorf("backend-api readiness = %+v", r)
	}
	if pod.PodSpec.TerminationGraceDefaulted || pod.PodSpec.TerminationGracePeriodSec != 30 {
		t.Errorf("backend-api grace = %+v", pod.PodSpec)
	}

	dns := k8sSampleConfig(t, "vmware-tanzu--sonobuoy--core_v1_pods.json", "coredns-74ff55c5b-cpfqs")
	c := dns.PodSpec.Containers[0]
	if c.Readiness.Port != 8181 || c.Readiness.Path != "/ready" || c.Liveness.Port != 8080 || c.Liveness.FailureThreshold != 5 ||
		dns.PodSpec.ResolvePort("dns", "UDP") != 53 || dns.PodSpec.ResolvePort("metrics", "") != 9153 {
		t.Errorf("coredns container = %+v", c)
	}
	etcd := k8sSampleConfig(t, "vmware-tanzu--sonobuoy--core_v1_pods.json", "etcd-kind-control-plane")
	if s := etcd.PodSpec.Containers[0].Startup; s == nil || s.Port != 2381 || s.FailureThreshold != 24 || s.TimeoutSec != 15 {
		t.Errorf("etcd startup probe = %+v", s)
	}
	if etcd.Pod.IP != netip.MustParseAddr("172.18.0.4") || etcd.Pod.Node != "kind-control-plane" {
		t.Errorf("etcd pod = %+v", etcd.Pod)
	}

	d := k8sSampleConfig(t, "replicatedhq--troubleshoot--deployments-default.json", "cpu-intensive-app")
	if w := d.Workload; *w.Replicas != 3 || w.MaxSurge != "25%" || w.MaxUnavailable != "25%" || w.Strategy != "RollingUpdate" ||
		w.Selector["app"] != "cpu-hog" || w.Template.Containers[0].Name != "cpu-burner" {
		t.Errorf("cpu-intensive-app = %+v", w)
	}
}

func TestK8sObjectsSampleLifecycle(t *testing.T) {
	c, _ := runK8sSample(t, "replicatedhq--troubleshoot--pods-default.json")
	var got []Lifecycle
	for _, l := range c.lifecycle {
		if l.Pod == "memory-hungry-app-59c695fbfb-4vnq4" {
			got = append(got, l)
		}
	}
	at := func(m, s int) time.Time { return time.Date(2025, 9, 11, 20, m, s, 0, time.UTC) }
	want := []struct {
		kind LifecycleKind
		at   time.Time
	}{{PodCreated, at(50, 18)}, {PodReady, at(50, 33)}, {PodScheduled, at(50, 18)}, {ContainerStarted, at(50, 20)}}
	if len(got) != len(want) {
		t.Fatalf("records = %+v", got)
	}
	for i, w := range want {
		if got[i].Kind != w.kind || !got[i].Time.Equal(w.at) || got[i].IP != netip.MustParseAddr("10.42.0.14") || got[i].Node != "c9b7eea91" {
			t.Errorf("record %d = %v %v %v %v, want %v %v", i, got[i].Kind, got[i].Time, got[i].IP, got[i].Node, w.kind, w.at)
		}
	}
}

func FuzzK8sObjects(f *testing.F) {
	for _, s := range []string{k8sPod, k8sPodWith(`{"containers":[{"name":"a","lifecycle":{"preStop":{"exec":{"command":["sh","-c","sleep 15"]}}}}]}`, `{}`),
		`{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"e"},"endpoints":[{"addresses":["10.0.0.1"],"conditions":{"terminating":true}}]}`,
		`{"apiVersion":"cloud.google.com/v1","kind":"BackendConfig","metadata":{"name":"b"},"spec":{"healthCheck":{"port":8080}}}`,
		`{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"TargetGroupBinding","metadata":{"name":"t"},"spec":{"serviceRef":{"name":"s","port":"http"}}}`,
		`{"apiVersion":"elbv2.k8s.aws/v1beta1","kind":"IngressClassParams","metadata":{"name":"p"},"spec":{"group":{"name":"g"},"loadBalancerAttributes":[{"key":"idle_timeout.timeout_seconds","value":"120"}]}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"c"},"spec":{"controller":"ingress.k8s.aws/alb","parameters":{"apiGroup":"elbv2.k8s.aws","kind":"IngressClassParams","name":"p"}}}`,
		`{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i","annotations":{"alb.ingress.kubernetes.io/target-group-attributes":"deregistration_delay.timeout_seconds=30"}}}`,
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s","annotations":{"cloud.google.com/backend-config":"{\"default\":\"b\"}"}},"spec":{"ports":[{"port":80,"targetPort":"http"}]}}`,
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "samples", "k8s-objects", "*.json"))
	for _, file := range files {
		data, _ := os.ReadFile(file)
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(data, &list) == nil {
			for _, item := range list.Items {
				f.Add([]byte(item))
			}
		}
	}
	f.Fuzz(func(t *testing.T, elem []byte) {
		(k8sObjects{}).MatchJSON(elem)
		c, rep := runJSON(t, k8sObjects{}, "fuzz.json", string(elem))
		if rep.Skipped < 0 || rep.Skipped > 1 || rep.Records != len(c.configs)+len(c.lifecycle) {
			t.Fatalf("skipped %d records %d configs %d lifecycle %d", rep.Skipped, rep.Records, len(c.configs), len(c.lifecycle))
		}
		if len(c.configs) > 1 || (rep.Skipped == 1 && len(c.configs) != 0) {
			t.Fatalf("configs %d with skipped %d", len(c.configs), rep.Skipped)
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() || l.Pod == "" && c.configs[0].Name != "" || l.Format != FormatK8sObjects {
				t.Fatalf("bad lifecycle record %+v", l)
			}
		}
		for _, cfg := range c.configs {
			if cfg.Kind == "" || cfg.Format != FormatK8sObjects {
				t.Fatalf("bad config %+v", cfg)
			}
		}
	})
}

// TestK8sObjectsAutoscaler reads the target and replica bounds of a
// HorizontalPodAutoscaler, v2 and v1 alike, minReplicas nil when unset;
// and the progress deadline of a Deployment, nil when unset.
func TestK8sObjectsAutoscaler(t *testing.T) {
	for _, c := range []struct {
		elem string
		want *Autoscaler
	}{
		{`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web-scaler","namespace":"shop"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"minReplicas":2,"maxReplicas":10,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":70}}}]}}`,
			&Autoscaler{TargetKind: "Deployment", TargetName: "web", MinReplicas: intp(2), MaxReplicas: 10}},
		{`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"shop"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web"},"maxReplicas":4,"targetCPUUtilizationPercentage":80}}`,
			&Autoscaler{TargetKind: "Deployment", TargetName: "web", MaxReplicas: 4}},
	} {
		cfg, _ := oneConfig(t, c.elem)
		if cfg.Kind != "HorizontalPodAutoscaler" || cfg.Namespace != "shop" || !reflect.DeepEqual(cfg.Autoscaler, c.want) {
			t.Errorf("%s %s/%s: %+v, want %+v", cfg.Kind, cfg.Namespace, cfg.Name, cfg.Autoscaler, c.want)
		}
	}
	for _, c := range []struct {
		spec string
		want *int
	}{
		{`"progressDeadlineSeconds":120,`, intp(120)},
		{``, nil},
	} {
		cfg, _ := oneConfig(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"shop"},"spec":{`+c.spec+`"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web"}]}}}}`)
		if got := cfg.Workload.ProgressDeadlineSec; !reflect.DeepEqual(got, c.want) {
			t.Errorf("progressDeadlineSeconds %v, want %v", got, c.want)
		}
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live/livetest"
	"sigs.k8s.io/yaml"
)

// proxyFixture is a recreated incident whose gateway logs triage reads
// from the pods of a proxy target.
type proxyFixture struct {
	name string
	// target is the --proxy-logs value; ns, deployment and labels say
	// where its pods are; containers the pods', the first logging.
	target, ns, deployment string
	labels                 map[string]string
	containers             []string
	// logs are the fixture's gateway log files, one per pod, named
	// POD.log; format is what analyze reads them as.
	logs   []string
	format string
}

var proxyFixtures = []proxyFixture{
	{name: "nginx-wrong-probe-port", target: "ingress-nginx/deploy/ingress-nginx-controller", ns: "ingress-nginx", deployment: "ingress-nginx-controller",
		labels: map[string]string{"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"}, containers: []string{"controller"},
		logs: []string{"ingress-nginx-controller.log"}, format: "ingress-nginx"},
	{name: "istio-wrong-probe-port", target: "istio-system/deploy/istio-ingressgateway", ns: "istio-system", deployment: "istio-ingressgateway",
		labels: map[string]string{"app": "istio-ingressgateway", "istio": "ingressgateway"}, containers: []string{"istio-proxy"},
		logs: []string{"gateway-logs/istio-ingressgateway-6hlpmcpc9x-gjzqz.log", "gateway-logs/istio-ingressgateway-6hlpmcpc9x-wg48z.log"}, format: "envoy-access"},
	{name: "envoy-gateway-wrong-probe-port", target: "envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=web-gateway", ns: "envoy-gateway-system",
		labels:     map[string]string{"gateway.envoyproxy.io/owning-gateway-name": "web-gateway", "gateway.envoyproxy.io/owning-gateway-namespace": "shop"},
		containers: []string{"envoy", "shutdown-manager"},
		logs:       []string{"gateway-logs/envoy-shop-web-gateway-lsx78t4q-4j6p5frp2s-2f6gk.log", "gateway-logs/envoy-shop-web-gateway-lsx78t4q-4j6p5frp2s-sfl6p.log"},
		format:     "envoy-json"},
	{name: "envoy-gateway-termination-race", target: "envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=web-gateway -c envoy", ns: "envoy-gateway-system",
		labels:     map[string]string{"gateway.envoyproxy.io/owning-gateway-name": "web-gateway"},
		containers: []string{"envoy", "shutdown-manager"},
		logs:       []string{"gateway-logs/envoy-shop-web-gateway-zw769p5c-5769jqf7zm-fbf6n.log", "gateway-logs/envoy-shop-web-gateway-zw769p5c-5769jqf7zm-nkkt8.log"},
		format:     "envoy-json"},
}

// kubeResourcePaths are where the API server lists each kind of the
// fixtures' objects in namespace shop.
var kubeResourcePaths = map[string]string{
	"Pod":                  "/api/v1/namespaces/shop/pods",
	"Service":              "/api/v1/namespaces/shop/services",
	"Deployment":           "/apis/apps/v1/namespaces/shop/deployments",
	"ReplicaSet":           "/apis/apps/v1/namespaces/shop/replicasets",
	"EndpointSlice":        "/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices",
	"Ingress":              "/apis/networking.k8s.io/v1/namespaces/shop/ingresses",
	"Gateway":              "/apis/gateway.networking.k8s.io/v1/namespaces/shop/gateways",
	"HTTPRoute":            "/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes",
	"BackendTrafficPolicy": "/apis/gateway.envoyproxy.io/v1alpha1/namespaces/shop/backendtrafficpolicies",
	"DestinationRule":      "/apis/networking.istio.io/v1/namespaces/shop/destinationrules",
	"VirtualService":       "/apis/networking.istio.io/v1/namespaces/shop/virtualservices",
}

// serve puts the fixture on a fake API server: its events and the objects
// triage lists in namespace shop, and its gateway logs as the current
// logs of the target's pods, each started a second before its first line.
// It returns the number of log lines.
func (f proxyFixture) serve(t *testing.T, k *livetest.Kube) int {
	dir := filepath.Join("..", "..", "fixtures", f.name)
	events, err := os.ReadFile(filepath.Join(dir, "events.json"))
	if err != nil {
		t.Fatal(err)
	}
	k.Paths["/api/v1/namespaces/shop/events"] = string(events)
	y, err := os.ReadFile(filepath.Join(dir, "objects.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var objects struct{ Items []json.RawMessage }
	if err := yaml.Unmarshal(y, &objects); err != nil {
		t.Fatal(err)
	}
	byKind := map[string][]string{}
	for _, o := range objects.Items {
		var head struct{ Kind string }
		json.Unmarshal(o, &head)
		byKind[head.Kind] = append(byKind[head.Kind], string(o))
	}
	for kind, path := range kubeResourcePaths {
		k.List(path, "v1", "List", byKind[kind]...)
	}
	if f.deployment != "" {
		sel, _ := json.Marshal(f.labels)
		k.Paths["/apis/apps/v1/namespaces/"+f.ns+"/deployments/"+f.deployment] = fmt.Sprintf(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":%q,"namespace":%q},"spec":{"selector":{"matchLabels":%s}}}`, f.deployment, f.ns, sel)
	}
	k.List("/apis/apps/v1/namespaces/"+f.ns+"/replicasets", "apps/v1", "ReplicaSetList")
	k.List("/api/v1/namespaces/"+f.ns+"/events", "v1", "EventList")
	var pods []string
	n := 0
	for i, file := range f.logs {
		lines := livetest.ReadLogLines(t, filepath.Join(dir, file))
		n += len(lines)
		pod := strings.TrimSuffix(filepath.Base(file), ".log")
		if f.deployment == "ingress-nginx-controller" {
			pod = fmt.Sprintf("ingress-nginx-controller-7c9d8f6b5-q2w4%c", 'a'+i)
		}
		pods = append(pods, proxyPodJSON(f.ns, pod, f.labels, lines[0].Time.Add(-time.Second), f.containers...))
		logs := map[string]*livetest.ContainerLogs{f.containers[0]: {Current: lines}}
		for _, c := range f.containers[1:] {
			logs[c] = &livetest.ContainerLogs{}
		}
		k.PodLogs[f.ns+"/"+pod] = logs
	}
	k.List("/api/v1/namespaces/"+f.ns+"/pods", "v1", "PodList", pods...)
	return n
}

// verdict is what a report concludes, without the names of its inputs.
type verdict struct {
	Summary struct {
		Incidents, FailedRequests, Requests, AppErrors int
	} `json:"summary"`
	Incidents []struct {
		Cause, Variant, Confidence, Start, End, Summary string
		FailedRequests                                  int            `json:"failed_requests"`
		HiddenFailures                                  int            `json:"hidden_failures"`
		StatusCounts                                    map[string]int `json:"status_counts"`
		Backends                                        []struct {
			IP, Pod, Role  string
			Failures       int
			FailedRequests int `json:"failed_requests"`
		}
		Remediation []struct{ Title, Why, Patch string }
	} `json:"incidents"`
	Inputs []struct{ Name, Format string } `json:"inputs"`
}

// readVerdict decodes a report's verdict from its JSON.
func readVerdict(t *testing.T, report string) verdict {
	t.Helper()
	var v verdict
	if err := json.Unmarshal([]byte(report), &v); err != nil {
		t.Fatalf("%v\n%.2000s", err, report)
	}
	// A fix says which file and line it read a setting at: a fixture's
	// file or a triage bundle's, the same setting.
	for i := range v.Incidents {
		for j := range v.Incidents[i].Remediation {
			r := &v.Incidents[i].Remediation[j]
			r.Why = readAtLine.ReplaceAllString(r.Why, "read at FILE:LINE")
		}
	}
	return v
}

// readAtLine matches where a fix says a setting was read.
var readAtLine = regexp.MustCompile(`read at [^ ,;)]+:\d+`)

// formatsOf returns the formats of the inputs whose name contains sub.
func (v verdict) formatsOf(sub string) []string {
	var out []string
	for _, in := range v.Inputs {
		if strings.Contains(in.Name, sub) {
			out = append(out, in.Format)
		}
	}
	return out
}

func TestTriageProxyLogsVerdictMatchesAnalyze(t *testing.T) {
	for _, f := range proxyFixtures {
		t.Run(f.name, func(t *testing.T) {
			// The test cluster answers /version with 1.29
			// (livetest.KubeVersionJSON): the bundle records it, and the
			// fixes of its analysis follow it.
			want, errOut, code := runCLI(t, "", "analyze", filepath.Join("..", "..", "fixtures", f.name), "-o", "json", "--kube-version", "1.29")
			if code != exitOK {
				t.Fatalf("analyze exit %d\n%s", code, errOut)
			}
			wantV := readVerdict(t, want)
			if len(wantV.Incidents) == 0 {
				t.Fatal("the fixture has no incident to compare")
			}
			k := livetest.NewKube(t)
			lines := f.serve(t, k)
			isolateAWS(t, "", "")
			kubeconfig := k.Kubeconfig(t, t.TempDir(), testKubeToken)
			var first, last time.Time
			for _, file := range f.logs {
				ls := livetest.ReadLogLines(t, filepath.Join("..", "..", "fixtures", f.name, file))
				if first.IsZero() || ls[0].Time.Before(first) {
					first = ls[0].Time
				}
				if l := ls[len(ls)-1].Time; l.After(last) {
					last = l
				}
			}
			dir := filepath.Join(t.TempDir(), "bundle")
			out, errOut, code := runCLI(t, "", "triage", "--kubeconfig", kubeconfig, "-n", "shop", "--proxy-logs", f.target,
				"--since", first.Add(-time.Minute).Format(time.RFC3339), "--until", last.Add(time.Minute).Format(time.RFC3339), "--save", dir, "-o", "json")
			if code != exitOK {
				t.Fatalf("triage exit %d\n%s", code, errOut)
			}
			if want := fmt.Sprintf("proxy-logs: %d lines, ", lines); !strings.Contains(errOut, want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
			got := readVerdict(t, out)
			if formats := got.formatsOf("proxy-logs/"); len(formats) != len(f.logs) || slices.ContainsFunc(formats, func(s string) bool { return s != f.format }) {
				t.Errorf("proxy logs read as %q, want %d × %s", formats, len(f.logs), f.format)
			}
			got.Inputs, wantV.Inputs = nil, nil
			if !reflect.DeepEqual(got, wantV) {
				g, _ := json.MarshalIndent(got, "", "  ")
				w, _ := json.MarshalIndent(wantV, "", "  ")
				t.Fatalf("triage concluded\n%s\nanalyze of the fixture\n%s", g, w)
			}
			ws, err := bundle.ManifestWarnings(dir)
			if err != nil || len(ws) != 3 || !slices.Contains(ws, "s3-alb: not fetched (no --alb-logs)") {
				t.Fatalf("manifest warnings %v: %q", err, ws)
			}
			assertNoSecrets(t, dir, out, errOut)
		})
	}
}

func TestTriageProxyLogsFlags(t *testing.T) {
	help, _, code := runCLI(t, "", "triage", "--help")
	for _, want := range []string{"--proxy-logs stringArray", "--proxy-logs-limit string", `(default "256Mi")`,
		"--proxy-logs istio-system/deploy/istio-ingressgateway", "'envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=eg'",
		"--proxy-logs ingress-nginx/deploy/ingress-nginx-controller"} {
		if code != exitOK || !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	for _, tt := range []struct{ args, want []string }{
		{[]string{"--proxy-logs", "istio-system/svc/istio-ingressgateway"}, []string{`--proxy-logs "istio-system/svc/istio-ingressgateway": "svc" is not a Deployment, DaemonSet, StatefulSet or Pod; want [NAMESPACE/]deploy/NAME`}},
		{[]string{"--proxy-logs", "deploy/x", "--proxy-logs-limit", "lots"}, []string{`--proxy-logs-limit "lots": want a positive size such as 256Mi or 1Gi`}},
		{[]string{"--proxy-logs", "deploy/x", "--proxy-logs-limit", "0"}, []string{`--proxy-logs-limit "0"`}},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"triage"}, tt.args...)...)
		for _, w := range tt.want {
			if code != exitUsage || !strings.Contains(errOut, w) {
				t.Errorf("triage %q: exit %d, want %d and %q:\n%s", tt.args, code, exitUsage, w, errOut)
			}
		}
	}
	// --envoy-format and repeated --proxy-logs reach the options as given
	// (a selector's commas are not split).
	var got *triageOptions
	cmd := newTriageCmd(func(o *triageOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--envoy-format", `{"s":"%RESPONSE_CODE%"}`, "--proxy-logs", "ns/-l a=b,c=d", "--proxy-logs", "deploy/x"})
	if err := cmd.Execute(); err != nil || got.EnvoyFormat != `{"s":"%RESPONSE_CODE%"}` || !slices.Equal(got.ProxyLogs, []string{"ns/-l a=b,c=d", "deploy/x"}) {
		t.Fatalf("%v %+v", err, got)
	}
	// No kubeconfig: one line, exit 1.
	isolateAWS(t, "", "")
	t.Setenv("HOME", t.TempDir())
	_, errOut, code := runCLI(t, "", "triage", "--proxy-logs", "deploy/x", "--log-group", "/g", "-q")
	if code != exitError || !slices.Contains(errorLines(errOut), "error: proxy-logs: no kubeconfig found: --proxy-logs reads pod logs through the Kubernetes API (--kubeconfig, KUBECONFIG or ~/.kube/config)") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	// The dry run prints the kubectl commands; 64Mi is read as 64 MiB.
	k := livetest.NewKube(t)
	out, errOut, code := runCLI(t, "", "triage", "--kubeconfig", k.Kubeconfig(t, t.TempDir(), testKubeToken), "-n", "shop", "--dry-run",
		"--proxy-logs", "istio-system/deploy/istio-ingressgateway", "--proxy-logs", "deploy/web -c istio-proxy", "--proxy-logs-limit", "64Mi",
		"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339))
	for _, want := range []string{
		"proxy-logs: kubectl logs -n istio-system deploy/istio-ingressgateway --all-pods --all-containers --timestamps --since-time=2024-05-01T23:40:00Z\n",
		"proxy-logs: kubectl logs -n shop deploy/web --all-pods -c istio-proxy --timestamps --since-time=2024-05-01T23:40:00Z\n",
		"proxy-logs: kubectl get events -n istio-system -o json\n",
		"proxy-logs: (with --previous too for containers that restarted in the window; lines from 2024-05-02T00:10:00Z on dropped; at most 64.0 MiB a pod)\n",
	} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q: exit %d\n%s\n%s", want, code, out, errOut)
		}
	}
	if len(k.Requests()) != 0 {
		t.Fatalf("the dry run called the API server: %q", k.Requests())
	}
}

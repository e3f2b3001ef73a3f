package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"cloud.google.com/go/logging/apiv2/loggingpb"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live"
	"github.com/readygap/readygap/sources/live/livetest"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/encoding/protojson"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// Secrets the tests give the SDKs; none may show up anywhere.
const (
	testAccessKey    = "AKIDTRIAGE0SECRET01"
	testSecretKey    = "triageSecretKey/0123456789abcdefghij"
	testSessionToken = "triageSessionToken0123456789"
	testKubeToken    = "triage-kube-bearer-token-0123"
)

// triageFakes are the four fake services of one test.
type triageFakes struct {
	s3         *livetest.S3
	logging    *livetest.Logging
	cloudwatch *livetest.CloudWatch
	kube       *livetest.Kube
	kubeconfig string
	wantKeys   []string
}

var (
	triageSince = time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC)
	triageUntil = time.Date(2024, 5, 2, 0, 10, 0, 0, time.UTC)
)

// isolateAWS points the AWS SDK at the fakes with static keys and away
// from the developer's configuration.
func isolateAWS(t *testing.T, s3URL, logsURL string) {
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o600)
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE": empty, "AWS_SHARED_CREDENTIALS_FILE": empty, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CA_BUNDLE": "", "AWS_PROFILE": "", "AWS_REGION": "", "AWS_DEFAULT_REGION": "",
		"AWS_ACCESS_KEY_ID": testAccessKey, "AWS_SECRET_ACCESS_KEY": testSecretKey, "AWS_SESSION_TOKEN": testSessionToken,
		"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": s3URL, "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS": logsURL,
		"AWS_MAX_ATTEMPTS": "1", "KUBECONFIG": filepath.Join(t.TempDir(), "none"),
	} {
		t.Setenv(k, v)
	}
}

// startTriageFakes starts the four servers with a small rollout in the
// window of 2024-05-01 23:40 to 2024-05-02 00:10.
func startTriageFakes(t *testing.T) *triageFakes {
	f := &triageFakes{s3: livetest.NewS3(t, "alb-logs"), logging: livetest.NewLogging(t), cloudwatch: livetest.NewCloudWatch(t), kube: livetest.NewKube(t)}
	at := func(d, h, m int) time.Time { return time.Date(2024, 5, d, h, m, 0, 0, time.UTC) }
	for _, o := range []struct {
		delivered, end time.Time
		want           bool
	}{
		{at(1, 12, 0), at(1, 23, 30), false},
		{at(1, 12, 0), at(1, 23, 45), true},
		{at(2, 12, 0), at(1, 23, 55), true}, // the next day's folder
		{at(2, 12, 0), at(2, 0, 5), true},
		{at(2, 12, 0), at(2, 0, 25), false},
	} {
		key := livetest.ALBKey("prod", "", "111122223333", "us-east-1", o.delivered, o.end, "10.0.1.25")
		f.s3.Put(t, "alb-logs", key, livetest.Gzip(
			livetest.ALBLine(o.end.Add(-4*time.Minute), "10.0.12.34:8080"),
			livetest.ALBLine(o.end.Add(-3*time.Minute), ""),
			livetest.ALBLine(o.end.Add(-time.Minute), "10.0.12.35:8080")))
		if o.want {
			f.wantKeys = append(f.wantKeys, key)
		}
	}
	for _, doc := range []string{
		`{"insertId":"r1","logName":"projects/shop-prod/logs/requests","resource":{"type":"http_load_balancer","labels":{"project_id":"shop-prod","url_map_name":"k8s2-um-web","backend_service_name":"k8s1-web"}},"timestamp":"2024-05-01T23:50:01.5Z","severity":"WARNING","httpRequest":{"requestMethod":"GET","requestUrl":"https://shop.example.com/","status":502,"requestSize":"79","responseSize":"332","latency":"0.001s","remoteIp":"203.0.113.7"},"jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","statusDetails":"failed_to_pick_backend"}}`,
		`{"insertId":"r2","logName":"projects/shop-prod/logs/requests","resource":{"type":"http_load_balancer","labels":{"project_id":"shop-prod","url_map_name":"k8s2-um-web","backend_service_name":"k8s1-web"}},"timestamp":"2024-05-01T23:50:09Z","severity":"INFO","httpRequest":{"requestMethod":"GET","requestUrl":"https://shop.example.com/%zz","status":200,"requestSize":"79","responseSize":"1024","latency":"0.004s","remoteIp":"203.0.113.7","serverIp":"10.52.1.23"},"jsonPayload":{"statusDetails":"response_sent_by_backend"}}`,
		`{"insertId":"e1","logName":"projects/shop-prod/logs/events","resource":{"type":"k8s_pod","labels":{"project_id":"shop-prod","cluster_name":"prod-1","namespace_name":"shop","pod_name":"web-1"}},"timestamp":"2024-05-01T23:49:00Z","severity":"INFO","jsonPayload":{"apiVersion":"v1","kind":"Event","metadata":{"name":"web-1.1","namespace":"shop"},"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-1"},"reason":"Killing","message":"Stopping container web","type":"Normal","source":{"component":"kubelet"}}}`,
	} {
		e := &loggingpb.LogEntry{}
		if err := protojson.Unmarshal([]byte(doc), e); err != nil {
			t.Fatal(err)
		}
		f.logging.Entries = append(f.logging.Entries, e)
	}
	ms := at(1, 23, 50).UnixMilli()
	f.cloudwatch.Groups["/aws/eks/prod/lbc"] = []livetest.CloudWatchEvent{
		{Stream: "s", Timestamp: ms, Message: `{"level":"info","ts":"2024-05-01T23:50:00Z","msg":"registering targets","arn":"arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web-a1b2c3d4e5/0123456789abcdef","targets":[{"Id":"10.0.12.35","Port":8080}]}`},
		{Stream: "s", Timestamp: ms + 400, Message: `{"level":"info","ts":"2024-05-01T23:50:00.4Z","msg":"registered targets","arn":"arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web-a1b2c3d4e5/0123456789abcdef"}`},
		{Stream: "s", Timestamp: ms + 60000, Message: `{"level":"info","ts":"2024-05-01T23:51:00Z","msg":"deRegistering targets","arn":"arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-shop-web-a1b2c3d4e5/0123456789abcdef","targets":[{"Id":"10.0.12.34","Port":8080}]}`},
	}
	f.kube.Paths["/api/v1/namespaces/shop"] = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`
	f.kube.List("/api/v1/namespaces/shop/events", "v1", "EventList",
		`{"metadata":{"name":"web-2.1","namespace":"shop"},"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-2"},"reason":"Killing","message":"Stopping container web","type":"Normal","source":{"component":"kubelet"},"firstTimestamp":"2024-05-01T23:51:00Z","lastTimestamp":"2024-05-01T23:51:00Z","count":1}`)
	f.kube.List("/api/v1/namespaces/shop/pods", "v1", "PodList",
		`{"metadata":{"name":"web-3","namespace":"shop","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:2","ports":[{"containerPort":8080}]}]},"status":{"phase":"Running","podIP":"10.0.12.35"}}`)
	for _, p := range []string{"/apis/apps/v1/namespaces/shop/replicasets", "/apis/apps/v1/namespaces/shop/deployments", "/api/v1/namespaces/shop/services",
		"/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices", "/apis/networking.k8s.io/v1/namespaces/shop/ingresses"} {
		f.kube.List(p, "v1", "List")
	}
	// ingress-nginx in front of the same pods, one replica.
	f.kube.Paths["/apis/apps/v1/namespaces/ingress-nginx/deployments/ingress-nginx-controller"] = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ingress-nginx-controller","namespace":"ingress-nginx"},"spec":{"selector":{"matchLabels":{"app.kubernetes.io/name":"ingress-nginx"}}}}`
	f.kube.List("/apis/apps/v1/namespaces/ingress-nginx/replicasets", "apps/v1", "ReplicaSetList")
	f.kube.List("/api/v1/namespaces/ingress-nginx/events", "v1", "EventList")
	f.kube.List("/api/v1/namespaces/ingress-nginx/pods", "v1", "PodList",
		proxyPodJSON("ingress-nginx", "ingress-nginx-controller-6d5f8b7c9-x2x4z", map[string]string{"app.kubernetes.io/name": "ingress-nginx"}, at(1, 22, 0), "controller"))
	var nginx []livetest.LogLine
	for i, backend := range []string{"10.0.12.34:8080", "10.0.12.35:8080", "10.0.12.35:8080"} {
		ts := at(1, 23, 50).Add(time.Duration(i) * time.Second)
		nginx = append(nginx, livetest.LogLine{Time: ts, Text: fmt.Sprintf(`203.0.113.7 - - [%s] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 95 0.004 [shop-web-80] [] %s 512 0.004 200 5d1b3a0c8f1e2d3c4b5a69788796a5b4`,
			ts.Format("02/Jan/2006:15:04:05 -0700"), backend)})
	}
	f.kube.PodLogs["ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z"] = map[string]*livetest.ContainerLogs{"controller": {Current: append(
		[]livetest.LogLine{{Time: at(1, 22, 0), Text: "NGINX Ingress controller"}}, nginx...)}}
	f.kubeconfig = f.kube.Kubeconfig(t, t.TempDir(), testKubeToken)
	isolateAWS(t, f.s3.URL, f.cloudwatch.URL)
	return f
}

// proxyPodJSON is a running pod of a ReplicaSet named for it, its
// containers started at started, as the API server lists it.
func proxyPodJSON(ns, name string, labels map[string]string, started time.Time, containers ...string) string {
	yes := true
	rs := name[:strings.LastIndex(name, "-")]
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: k8stypes.UID("uid-" + name), Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: k8stypes.UID("uid-" + rs), Controller: &yes}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "proxy:1"})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{Name: c, Ready: true, ContainerID: "containerd://" + c,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}})
	}
	b, _ := json.Marshal(pod)
	return string(b)
}

// args returns the triage command line for the fakes.
func (f *triageFakes) args(extra ...string) []string {
	return append([]string{"triage", "--project", "shop-prod", "--logging-endpoint", f.logging.Addr, "--url-map", "k8s2-um-web", "--cluster", "prod-1",
		"--alb-logs", "s3://alb-logs/prod", "--region", "us-east-1", "--log-group", "/aws/eks/prod/lbc",
		"--kubeconfig", f.kubeconfig, "-n", "shop", "--proxy-logs", "ingress-nginx/deploy/ingress-nginx-controller",
		"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339)}, extra...)
}

func TestTriageMatchesAnalyzeOfTheBundle(t *testing.T) {
	f := startTriageFakes(t)
	dir := filepath.Join(t.TempDir(), "bundle")
	out, errOut, code := runCLI(t, "", f.args("--save", dir, "-o", "json")...)
	if code != exitOK {
		t.Fatalf("triage exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"gcp-logging: 3 records", "s3-alb: 3 objects", "cloudwatch-logs: 3 records", "kubernetes: 3 records", "proxy-logs: 3 lines, "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	again, errOut2, code := runCLI(t, "", "analyze", dir, "-o", "json")
	if code != exitOK {
		t.Fatalf("analyze exit %d\n%s", code, errOut2)
	}
	if out != again {
		t.Fatalf("triage printed\n%s\nanalyze of the bundle printed\n%s", out, again)
	}
	for _, name := range []string{"gcp/logging.json", "cloudwatch/aws_eks_prod_lbc.json", "kube/events.json", "kube/objects.json",
		"proxy-logs/ingress-nginx/ingress-nginx-controller-6d5f8b7c9-x2x4z/controller.log"} {
		if !strings.Contains(out, filepath.Join(dir, name)) {
			t.Errorf("report does not read %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, `"warnings": [
    "`) {
		t.Errorf("analysis of the bundle warns:\n%s", out)
	}
	got := f.s3.Gets("alb-logs")
	slices.Sort(got)
	if !slices.Equal(got, f.wantKeys) {
		t.Fatalf("fetched keys\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(f.wantKeys, "\n"))
	}
	man, err := os.ReadFile(filepath.Join(dir, bundle.ManifestName))
	if err != nil || !strings.Contains(string(man), `"since": "2024-05-01T23:40:00Z"`) || !strings.Contains(string(man), `"source": "s3-alb"`) {
		t.Fatalf("manifest: %v\n%s", err, man)
	}
}

func TestTriageNeverShowsSecrets(t *testing.T) {
	f := startTriageFakes(t)
	f.kube.Forbidden["/api/v1/namespaces/shop/pods"] = true
	dir := filepath.Join(t.TempDir(), "bundle")
	// One log group that does not exist, one RBAC denial: errors are printed too.
	out, errOut, code := runCLI(t, "", f.args("--log-group", "/missing", "--save", dir, "-o", "markdown")...)
	if code != exitError {
		t.Fatalf("exit %d, want %d\n%s", code, exitError, errOut)
	}
	for _, want := range []string{"error: cloudwatch-logs: 1 of 2 log groups not saved: not found: log group /missing\n",
		`error: kubernetes: RBAC forbids list pods in namespace shop: grant verb "list" on "pods" (a Role in the namespace, or the ClusterRole in docs/triage.md)` + "\n"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	dry, dryErr, code := runCLI(t, "", f.args("--dry-run")...)
	if code != exitOK || !strings.Contains(dry, "s3-alb: s3://alb-logs/prod/AWSLogs/*/elasticloadbalancing/us-east-1/2024/05/02/") {
		t.Fatalf("dry run exit %d:\n%s\n%s", code, dry, dryErr)
	}
	texts := map[string]string{"stdout": out + dry, "stderr": errOut + dryErr}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			texts[p] = string(b)
		}
		return nil
	})
	if len(texts) < 6 {
		t.Fatalf("bundle has only %d files", len(texts)-2)
	}
	for name, s := range texts {
		for _, secret := range []string{testAccessKey, testSecretKey, testSessionToken, testKubeToken, "X-Amz-Signature", "Signature=", "Credential=", "Authorization"} {
			if strings.Contains(s, secret) {
				t.Errorf("%s contains %q", name, secret)
			}
		}
	}
}

func TestTriageSkipsUnconfiguredSources(t *testing.T) {
	f := startTriageFakes(t)
	out, errOut, code := runCLI(t, "", "triage", "--log-group", "/aws/eks/prod/lbc", "--around", "2024-05-01T23:55:00Z", "-q", "-o", "json")
	// The controller's logs alone hold no request: the report says it
	// cannot judge.
	if code != exitNotJudged || !strings.Contains(out, `"verdict": "cannot_judge"`) || !strings.Contains(out, "the inputs read hold only controller logs") {
		t.Fatalf("exit %d\n%s\n%s", code, errOut, out)
	}
	for _, want := range []string{"gcp-logging: skipped (no --project)", "s3-alb: skipped (no --alb-logs)", "kubernetes: skipped (no kubeconfig)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "records") || !strings.Contains(out, `"format": "aws-lbc"`) {
		t.Fatalf("quiet run printed progress or missed the logs:\n%s\n%s", errOut, out)
	}
	if len(f.cloudwatch.Requests()) == 0 || !strings.Contains(f.cloudwatch.Requests()[0], "start=1714606800000 end=1714608599999") {
		t.Fatalf("--around window not sent: %v", f.cloudwatch.Requests())
	}
	_, errOut, code = runCLI(t, "", "triage", "--since", "1h")
	if code != exitUsage || !strings.Contains(errOut, "no source configured") {
		t.Fatalf("nothing configured: exit %d %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "", "triage", "--around", "2024-05-01T23:55:00Z", "--since", "1h", "--log-group", "x")
	if code != exitUsage {
		t.Fatalf("--around with --since: exit %d %s", code, errOut)
	}
}

// TestTriageBig times a 30-minute triage over ~200 S3 objects holding
// ~1 M ALB lines on the loopback S3 server. Opt in with READYGAP_BIG_TRIAGE=1.
func TestTriageBig(t *testing.T) {
	if os.Getenv("READYGAP_BIG_TRIAGE") == "" {
		t.Skip("set READYGAP_BIG_TRIAGE=1 to run")
	}
	const objects, linesPer = 200, 5000
	s3 := livetest.NewS3(t, "alb-logs")
	isolateAWS(t, s3.URL, "http://127.0.0.1:1")
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var stored int64
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	t0 := time.Now()
	for i := range objects {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			end := start.Add(time.Duration(i%6+1) * 5 * time.Minute)
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
			for j := range linesPer {
				ts := end.Add(-5*time.Minute + time.Duration(j)*time.Minute*5/linesPer)
				target := fmt.Sprintf("10.0.%d.%d:8080", rng.IntN(8), rng.IntN(250))
				if rng.IntN(100) < 3 {
					target = ""
				}
				line := livetest.ALBLine(ts, target)
				line = strings.Replace(line, "0123456789abcdef01234567", fmt.Sprintf("%024x", rng.Uint64()), 1)
				zw.Write([]byte(line + "\n"))
			}
			zw.Close()
			s3.Put(t, "alb-logs", livetest.ALBKey("", "", "111122223333", "us-east-1", end, end, fmt.Sprintf("10.0.1.%d", i)), b.Bytes())
			mu.Lock()
			stored += int64(b.Len())
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("stored %d objects, %d lines, %.1f MB gzip'd in %v", objects, objects*linesPer, float64(stored)/(1<<20), time.Since(t0))
	t0 = time.Now()
	out, errOut, code := runCLI(t, "", "triage", "--alb-logs", "s3://alb-logs", "--account", "111122223333", "--region", "us-east-1",
		"--since", "2024-05-01T12:00:00Z", "--until", "2024-05-01T12:30:00Z", "-q", "-o", "json")
	wall := time.Since(t0)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if n := strings.Count(out, `"format": "alb-access"`); n != objects {
		t.Fatalf("%d ALB inputs in the report, want %d", n, objects)
	}
	if !strings.Contains(out, fmt.Sprintf(`"records": %d`, linesPer)) {
		t.Fatalf("objects not fully read:\n%.2000s", out)
	}
	t.Logf("triage of %d lines in %d objects: %v wall (%d download workers, %d parse workers)", objects*linesPer, objects, wall, live.DefaultS3Workers, runtime.GOMAXPROCS(0))
}

// faultFlags are the short timeouts the fault tests give; the defaults
// are what --help documents.
var faultFlags = []string{"--connect-timeout", "1s", "--response-timeout", "300ms", "--idle-timeout", "300ms", "--source-timeout", "20s"}

// giveUpBound is the most triage may take to give up on dead endpoints
// with faultFlags: well above one timeout, well below one per attempt or
// per resource.
const giveUpBound = 2 * time.Second

// Secrets planted in what the fake servers send: a presigned URL in error
// text, a bearer token, a pod's env value and its last-applied-configuration.
const (
	plantedSignature = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
	plantedMessage   = "denied for https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAPLANTED0EXAMPLE7%2F20240501%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=" +
		plantedSignature + " with Authorization: Bearer plantedBearerTokenValue0123456789"
	plantedEnvValue = "s3cr3t-Db-Passw0rd-planted-env"
	plantedApplied  = "planted-last-applied-marker"
)

// plantedParts must never appear in any output or saved file.
var plantedParts = []string{plantedSignature, "AKIAPLANTED0EXAMPLE7", "plantedBearerTokenValue", plantedEnvValue, plantedApplied,
	testAccessKey, testSecretKey, testSessionToken, testKubeToken}

// assertNoSecrets fails when a planted secret is in texts or under dir.
func assertNoSecrets(t *testing.T, dir string, texts ...string) {
	t.Helper()
	check := func(where, s string) {
		for _, p := range plantedParts {
			if strings.Contains(s, p) {
				t.Errorf("%s holds the planted secret %q:\n%.3000s", where, p, s)
			}
		}
	}
	for i, s := range texts {
		check(fmt.Sprintf("output %d", i), s)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			check(p, string(b))
		}
		return nil
	})
}

// errorLines returns the lines of stderr that start with "error: ".
func errorLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "error: ") {
			out = append(out, l)
		}
	}
	return out
}

func TestTriageDeadEndpoints(t *testing.T) {
	for _, tt := range []struct {
		mode    string
		addr    func(testing.TB) string
		atLeast time.Duration
		want    []string
	}{
		{"silent", livetest.Silent, 300 * time.Millisecond, []string{
			"error: gcp-logging: no answer from ADDR in 300 ms",
			"error: s3-alb: no answer from http://ADDR in 300 ms",
			"error: cloudwatch-logs: no answer from http://ADDR in 300 ms",
			"error: kubernetes: no answer from http://ADDR in 300 ms",
		}},
		{"refused", livetest.Refused, 0, []string{
			"error: gcp-logging: cannot connect to ADDR: connection refused",
			"error: s3-alb: cannot connect to http://ADDR: connection refused",
			"error: cloudwatch-logs: cannot connect to http://ADDR: connection refused",
			"error: kubernetes: cannot connect to http://ADDR: connection refused",
		}},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			addr := tt.addr(t)
			isolateAWS(t, "http://"+addr, "http://"+addr)
			kubeconfig := livetest.KubeconfigFor(t, t.TempDir(), "http://"+addr, testKubeToken)
			dir := filepath.Join(t.TempDir(), "bundle")
			start := time.Now()
			out, errOut, code := runCLI(t, "", append([]string{"triage", "--project", "p", "--logging-endpoint", addr,
				"--alb-logs", "s3://alb-logs/prod", "--region", "us-east-1", "--log-group", "/g", "--kubeconfig", kubeconfig, "-n", "shop",
				"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339), "--save", dir}, faultFlags...)...)
			took := time.Since(start)
			if code != exitError {
				t.Fatalf("exit %d, want %d\n%s", code, exitError, errOut)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, strings.ReplaceAll(w, "ADDR", addr))
			}
			if got := errorLines(errOut); !slices.Equal(got, want) {
				t.Fatalf("error lines\n%s\nwant\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), errOut)
			}
			if !strings.HasSuffix(errOut, "4 of 4 sources failed (see above)") {
				t.Fatalf("final error:\n%s", errOut)
			}
			if took < tt.atLeast || took > giveUpBound {
				t.Fatalf("gave up after %v, want between %v and %v", took, tt.atLeast, giveUpBound)
			}
			man, err := bundle.ReadManifest(dir)
			if err != nil || len(man.Sources) != 4 || len(man.Errors) != 4 {
				t.Fatalf("manifest: %v %+v", err, man)
			}
			for i, s := range man.Sources {
				if s.Complete || s.Error == "" || len(s.Items) == 0 || s.Items[0].Status != bundle.ItemFailed {
					t.Errorf("manifest source %d: %+v", i, s)
				}
			}
			ws, err := bundle.ManifestWarnings(dir)
			if err != nil || len(ws) < 4 {
				t.Fatalf("warnings %v: %q", err, ws)
			}
			assertNoSecrets(t, dir, out, errOut)
		})
	}
}

func TestTriagePartialResultsAndSecrets(t *testing.T) {
	f := startTriageFakes(t)
	// S3: one object denied, with a presigned URL in the server's text.
	f.s3.Faults[f.wantKeys[1]] = &livetest.Fault{Status: 403, ContentType: "application/xml", Body: livetest.S3Error("AccessDenied", plantedMessage)}
	// CloudWatch: a group that is not there, said with secrets.
	f.cloudwatch.Faults["/missing "] = &livetest.Fault{Status: 400, ContentType: "application/x-amz-json-1.1",
		Body: livetest.CloudWatchError("com.amazonaws.logs#ResourceNotFoundException", plantedMessage)}
	// Kubernetes: pods forbidden with secrets in the message; a Deployment
	// whose pod template carries a secret env value.
	f.kube.Forbidden["/api/v1/namespaces/shop/pods"] = true
	f.kube.Message = plantedMessage
	f.kube.List("/apis/apps/v1/namespaces/shop/deployments", "apps/v1", "DeploymentList",
		`{"metadata":{"name":"web","namespace":"shop","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"`+plantedApplied+`"}},`+
			`"spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:2","env":[{"name":"DB_PASSWORD","value":"`+plantedEnvValue+`"}]}]}}}}`)
	dir := filepath.Join(t.TempDir(), "bundle")
	out, errOut, code := runCLI(t, "", f.args(append([]string{"--log-group", "/missing", "--parallel", "1", "--save", dir, "-o", "json"}, faultFlags...)...)...)
	if code != exitError {
		t.Fatalf("exit %d, want %d\n%s", code, exitError, errOut)
	}
	want := []string{
		"error: s3-alb: 1 of 3 objects not saved: permission denied: the credentials need s3:GetObject on arn:aws:s3:::alb-logs/prod/AWSLogs/*",
		"error: cloudwatch-logs: 1 of 2 log groups not saved: not found: log group /missing",
		`error: kubernetes: RBAC forbids list pods in namespace shop: grant verb "list" on "pods" (a Role in the namespace, or the ClusterRole in docs/triage.md)`,
	}
	if got := errorLines(errOut); !slices.Equal(got, want) {
		t.Fatalf("error lines\n%s\nwant\n%s\nstderr:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), errOut)
	}
	// The objects after the denied one were still fetched, and the
	// progress line counts what was saved.
	if got := f.s3.Gets("alb-logs"); len(got) != 3 || !strings.Contains(errOut, "s3-alb: 2 objects, ") || !strings.Contains(errOut, "(1 of 3 objects incomplete)") {
		t.Fatalf("gets %v\n%s", got, errOut)
	}
	man, err := bundle.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	var s3rep bundle.FetchReport
	for _, s := range man.Sources {
		if s.Source == live.SourceS3ALB {
			s3rep = s
		}
	}
	var objects []string
	for _, it := range s3rep.Items {
		if it.Kind == "object" {
			if it.Status == bundle.ItemComplete && (it.File == "" || it.Records != 1 || it.Bytes == 0) {
				t.Errorf("saved object without file or size: %+v", it)
			}
			objects = append(objects, string(it.Status))
		}
	}
	if !slices.Equal(objects, []string{"complete", "failed", "complete"}) || s3rep.Records != 2 || len(s3rep.Files) != 2 || slices.Contains(s3rep.Files, "") {
		t.Fatalf("manifest of s3-alb: %+v", s3rep)
	}
	ws, err := bundle.ManifestWarnings(dir)
	if err != nil || len(ws) != 3 || !strings.HasPrefix(ws[0], "cloudwatch-logs: 1 of 2 log groups (/missing) not saved (not found: log group /missing)") {
		t.Fatalf("warnings %v:\n%s", err, strings.Join(ws, "\n"))
	}
	// The report printed says the same: what is missing and what it takes.
	var printed struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &printed); err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if !slices.Contains(printed.Warnings, w) {
			t.Errorf("the report's warnings lack %q:\n%s", w, strings.Join(printed.Warnings, "\n"))
		}
	}
	objectsJSON, _ := os.ReadFile(filepath.Join(dir, "kube/objects.json"))
	if !strings.Contains(string(objectsJSON), `{"name":"DB_PASSWORD","value":"[redacted]"}`) ||
		man.Sources[2].Source != live.SourceKubernetes || man.Sources[2].Redacted["container env values"] != 1 || man.Sources[2].Redacted["last-applied-configuration annotations"] != 1 {
		t.Fatalf("env value not redacted (%v):\n%s", man.Sources[2].Redacted, objectsJSON)
	}
	assertNoSecrets(t, dir, out, errOut)
}

// runCLIContext runs the CLI like runCLI under ctx (cancelled as Ctrl-C does).
func runCLIContext(t *testing.T, ctx context.Context, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRootCmd(strings.NewReader(""), &out, &errOut)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), exitCode(err)
}

func TestTriageInterruptKeepsWhatWasSaved(t *testing.T) {
	for _, save := range []bool{true, false} {
		t.Run(fmt.Sprintf("save=%v", save), func(t *testing.T) {
			s3 := livetest.NewS3(t, "alb-logs")
			isolateAWS(t, s3.URL, "http://127.0.0.1:1")
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			var keys []string
			for i := range 4 {
				end := time.Date(2024, 5, 1, 23, 45+i, 0, 0, time.UTC)
				k := livetest.ALBKey("", "", "111122223333", "us-east-1", end, end, fmt.Sprintf("10.0.1.%d", i))
				s3.Put(t, "alb-logs", k, livetest.Gzip(livetest.ALBLine(end.Add(-time.Minute), "")))
				keys = append(keys, k)
			}
			stalled := make(chan string, 1)
			s3.Faults[keys[3]] = &livetest.Fault{Stall: true, Stalled: stalled}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-stalled
				cancel() // Ctrl-C while the fourth object is being fetched
			}()
			args := []string{"triage", "--alb-logs", "s3://alb-logs", "--account", "111122223333", "--region", "us-east-1", "--parallel", "1",
				"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339)}
			dir := filepath.Join(t.TempDir(), "bundle")
			if save {
				args = append(args, "--save", dir)
			}
			_, errOut, code := runCLIContext(t, ctx, args...)
			if code != exitError || !strings.Contains(errOut, "s3-alb: 3 objects, ") || !strings.Contains(errOut, "(1 of 4 objects incomplete)") {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			if !save {
				if ents, _ := os.ReadDir(tmp); len(ents) != 0 || !strings.HasSuffix(errOut, "interrupted") {
					t.Fatalf("temporary bundle left: %v\n%s", ents, errOut)
				}
				return
			}
			if !strings.HasSuffix(errOut, "interrupted: what was fetched is kept in "+dir+" (its manifest says what is missing)") {
				t.Fatalf("stderr:\n%s", errOut)
			}
			man, err := bundle.ReadManifest(dir)
			if err != nil || !man.Interrupted || len(man.Sources) != 1 || man.State != bundle.StateComplete {
				t.Fatalf("manifest %v %+v", err, man)
			}
			var got []string
			for _, it := range man.Sources[0].Items {
				if it.Kind == "object" {
					got = append(got, string(it.Status)+" "+it.Reason)
				}
			}
			if want := []string{"complete ", "complete ", "complete ", "failed interrupted"}; !slices.Equal(got, want) {
				t.Fatalf("objects %q, want %q", got, want)
			}
			if files, _ := filepath.Glob(filepath.Join(dir, "alb", "*")); len(files) != 3 {
				t.Fatalf("files %v", files)
			}
			ws, _ := bundle.ManifestWarnings(dir)
			if len(ws) < 2 || !strings.HasPrefix(ws[0], "the fetch was interrupted") {
				t.Fatalf("warnings %q", ws)
			}
		})
	}
}

// TestTriageKilledLeavesAnIncompleteBundle kills a triage (SIGKILL, as the
// OOM killer does) while it fetches: the bundle it leaves says it is in
// progress, and analyze of it cannot judge and exits 6, where the same
// files in a complete bundle are judged.
func TestTriageKilledLeavesAnIncompleteBundle(t *testing.T) {
	s3 := livetest.NewS3(t, "alb-logs")
	isolateAWS(t, s3.URL, "http://127.0.0.1:1")
	var keys []string
	for i := range 4 {
		end := time.Date(2024, 5, 1, 23, 45+i, 0, 0, time.UTC)
		k := livetest.ALBKey("", "", "111122223333", "us-east-1", end, end, fmt.Sprintf("10.0.1.%d", i))
		s3.Put(t, "alb-logs", k, livetest.Gzip(livetest.ALBLine(end.Add(-time.Minute), "10.0.12.34:8080")))
		keys = append(keys, k)
	}
	stalled := make(chan string, 1)
	s3.Faults[keys[3]] = &livetest.Fault{Stall: true, Stalled: stalled}
	dir := filepath.Join(t.TempDir(), "bundle")
	cmd := exec.Command(os.Args[0], "triage", "--alb-logs", "s3://alb-logs", "--account", "111122223333", "--region", "us-east-1", "--parallel", "1",
		"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339), "--save", dir)
	cmd.Env = append(os.Environ(), "READYGAP_RUN_MAIN=1")
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-stalled: // the fourth object is being fetched
	case err := <-exited:
		t.Fatalf("triage ended before the fourth object: %v\n%s", err, errOut.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	man, err := bundle.ReadManifest(dir)
	if err != nil || man.State != bundle.StateInProgress || len(man.Sources) != 0 {
		t.Fatalf("manifest %v %+v", err, man)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "alb", "*")); len(files) == 0 {
		t.Fatalf("no ALB object saved before the kill")
	}
	out, aerr, code := runCLI(t, "", "analyze", dir)
	want := "Cannot judge: the bundle " + dir + " is incomplete: the fetch that began writing it at "
	if code != exitNotJudged || !strings.HasPrefix(strings.Join(strings.Fields(out), " "), want) {
		t.Fatalf("analyze: exit %d, want %d and a headline %q:\n%s\n%s", code, exitNotJudged, want, out, aerr)
	}
	jout, _, code := runCLI(t, "", "analyze", "-o", "json", "--exit-code", dir)
	var rep struct {
		Summary struct{ Verdict, CannotJudge string }
	}
	if err := json.Unmarshal([]byte(jout), &rep); err != nil || code != exitNotJudged || rep.Summary.Verdict != "cannot_judge" {
		t.Fatalf("analyze -o json: exit %d %v %+v", code, err, rep)
	}
	// The control: the same files, the fetch marked complete.
	man.State = bundle.StateComplete
	must(t, bundle.WriteManifest(dir, man))
	if out, aerr, code := runCLI(t, "", "analyze", dir); code != exitOK || strings.Contains(out, "Cannot judge") {
		t.Fatalf("complete bundle: exit %d\n%s\n%s", code, out, aerr)
	}
}

func TestTriageHelpDocumentsTimeouts(t *testing.T) {
	out, _, code := runCLI(t, "", "triage", "--help")
	for _, want := range []string{"--connect-timeout duration", "(default 5s)", "--response-timeout duration", "(default 10s)",
		"--idle-timeout duration", "(default 20s)", "--source-timeout duration", "(default 10m0s)"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
	_, errOut, code := runCLI(t, "", "triage", "--log-group", "g", "--response-timeout", "0s")
	if code != exitUsage || !strings.Contains(errOut, "--response-timeout must be positive") {
		t.Fatalf("exit %d %s", code, errOut)
	}
}

// TestTriageGiveUpTimes measures, with the default timeouts, how long each
// source takes to give up on a silent and on a refused endpoint, and
// prints the table. Opt in with READYGAP_TRIAGE_TIMES=1; it takes about a
// minute.
func TestTriageGiveUpTimes(t *testing.T) {
	if os.Getenv("READYGAP_TRIAGE_TIMES") == "" {
		t.Skip("set READYGAP_TRIAGE_TIMES=1 to run")
	}
	window := []string{"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339), "-q"}
	sources := []struct {
		name string
		args func(t *testing.T, addr string) []string
	}{
		{live.SourceS3ALB + " (http)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "http://"+addr, "http://"+addr)
			t.Setenv("AWS_MAX_ATTEMPTS", "")
			return []string{"--alb-logs", "s3://alb-logs/prod", "--region", "us-east-1"}
		}},
		{live.SourceS3ALB + " (https)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "https://"+addr, "https://"+addr)
			t.Setenv("AWS_MAX_ATTEMPTS", "")
			return []string{"--alb-logs", "s3://alb-logs/prod", "--region", "us-east-1"}
		}},
		{live.SourceCloudWatch + " (http)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "http://"+addr, "http://"+addr)
			t.Setenv("AWS_MAX_ATTEMPTS", "")
			return []string{"--log-group", "/g", "--region", "us-east-1"}
		}},
		{live.SourceCloudWatch + " (https)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "https://"+addr, "https://"+addr)
			t.Setenv("AWS_MAX_ATTEMPTS", "")
			return []string{"--log-group", "/g", "--region", "us-east-1"}
		}},
		{live.SourceGCPLogging + " (plaintext gRPC)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "", "")
			return []string{"--project", "p", "--logging-endpoint", addr}
		}},
		{live.SourceKubernetes + " (http)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "", "")
			return []string{"--kubeconfig", livetest.KubeconfigFor(t, t.TempDir(), "http://"+addr, testKubeToken), "-n", "shop"}
		}},
		{live.SourceKubernetes + " (https)", func(t *testing.T, addr string) []string {
			isolateAWS(t, "", "")
			return []string{"--kubeconfig", livetest.KubeconfigFor(t, t.TempDir(), "https://"+addr, testKubeToken), "-n", "shop"}
		}},
	}
	for _, scheme := range []string{"http", "https"} {
		// The Kubernetes source runs beside it, on the same endpoint.
		sources = append(sources, struct {
			name string
			args func(t *testing.T, addr string) []string
		}{live.SourceProxyLogs + " (" + scheme + ")", func(t *testing.T, addr string) []string {
			isolateAWS(t, "", "")
			return []string{"--kubeconfig", livetest.KubeconfigFor(t, t.TempDir(), scheme+"://"+addr, testKubeToken), "-n", "shop",
				"--proxy-logs", "istio-system/deploy/istio-ingressgateway"}
		}})
	}
	var table []string
	for _, src := range sources {
		row := "| " + src.name + " |"
		for _, mode := range []func(testing.TB) string{livetest.Silent, livetest.Refused} {
			var took time.Duration
			var line string
			t.Run(src.name, func(t *testing.T) {
				addr := mode(t)
				args := append(append([]string{"triage"}, src.args(t, addr)...), window...)
				start := time.Now()
				_, errOut, code := runCLI(t, "", args...)
				took = time.Since(start)
				source, _, _ := strings.Cut(src.name, " ")
				for _, l := range errorLines(errOut) {
					if strings.HasPrefix(l, "error: "+source+": ") {
						line = l
					}
				}
				if code != exitError || line == "" {
					t.Fatalf("exit %d\n%s", code, errOut)
				}
			})
			t.Logf("%s: %.1f s: %s", src.name, took.Seconds(), line)
			row += fmt.Sprintf(" %.1f s |", took.Seconds())
		}
		table = append(table, row)
	}
	t.Logf("time to give up with the default timeouts\n| source | silent endpoint | refused endpoint |\n|---|---:|---:|\n%s", strings.Join(table, "\n"))
}

// TestTriageManyEvents runs the triage binary on a namespace of 200 000
// events served page by page and checks that all are saved with a peak
// RSS under 256 MB. Opt in with READYGAP_TRIAGE_MEMORY=1 (about a minute):
//
//	READYGAP_TRIAGE_MEMORY=1 go test -run TestTriageManyEvents -v ./cmd/readygap
func TestTriageManyEvents(t *testing.T) {
	if os.Getenv("READYGAP_TRIAGE_MEMORY") == "" {
		t.Skip("set READYGAP_TRIAGE_MEMORY=1 to run")
	}
	const events = 200_000
	const maxRSS = 256 << 20
	bin := filepath.Join(t.TempDir(), "readygap")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	kube := livetest.NewKube(t)
	kube.Paths["/api/v1/namespaces/shop"] = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`
	start := triageSince.Add(time.Minute)
	kube.Lists["/api/v1/namespaces/shop/events"] = &livetest.PagedList{APIVersion: "v1", Kind: "EventList", N: events, Item: func(i int) string {
		ts := start.Add(time.Duration(i) * 25 * time.Minute / events).Format(time.RFC3339)
		pod := fmt.Sprintf("web-%05d", i/4)
		ev := [4][2]string{{"Scheduled", "Successfully assigned shop/" + pod + " to node-1"}, {"Pulled", `Container image "web:2" already present on machine`},
			{"Started", "Started container web"}, {"Killing", "Stopping container web"}}[i%4]
		reason, msg := ev[0], ev[1]
		return fmt.Sprintf(`{"metadata":{"name":"%s.%x","namespace":"shop","uid":"%08x-0000-4000-8000-000000000000","resourceVersion":"%d","creationTimestamp":%q},`+
			`"involvedObject":{"kind":"Pod","namespace":"shop","name":%q,"uid":"%08x-1111-4000-8000-000000000000","apiVersion":"v1","resourceVersion":"%d","fieldPath":"spec.containers{web}"},`+
			`"reason":%q,"message":%q,"source":{"component":"kubelet","host":"node-1"},"firstTimestamp":%q,"lastTimestamp":%q,"count":1,"type":"Normal","eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-1"}`,
			pod, i, i, 1000+i, ts, pod, i/4, 1000+i, reason, msg, ts, ts)
	}}
	for _, p := range []string{"/api/v1/namespaces/shop/pods", "/apis/apps/v1/namespaces/shop/replicasets", "/apis/apps/v1/namespaces/shop/deployments",
		"/api/v1/namespaces/shop/services", "/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices", "/apis/networking.k8s.io/v1/namespaces/shop/ingresses"} {
		kube.List(p, "v1", "List")
	}
	dir := filepath.Join(t.TempDir(), "bundle")
	cmd := exec.Command(bin, "triage", "--kubeconfig", kube.Kubeconfig(t, t.TempDir(), testKubeToken), "-n", "shop",
		"--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339), "--save", dir, "-q", "-o", "json")
	cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	man, err := bundle.ReadManifest(dir)
	if err != nil || len(man.Sources) != 1 || man.Sources[0].Items[0].Records != events || !man.Sources[0].Complete {
		t.Fatalf("manifest: %v %+v", err, man)
	}
	st, _ := os.Stat(filepath.Join(dir, "kube/events.json"))
	t.Logf("%d events saved (%.1f MB) and analyzed in %v: peak RSS %.1f MB", events, float64(st.Size())/(1<<20), wall.Round(time.Millisecond), float64(rss)/(1<<20))
	if !strings.Contains(stdout.String(), fmt.Sprintf(`"records": %d`, events)) {
		t.Errorf("the analysis did not read every event:\n%.2000s", stdout.String())
	}
	// The same analysis on the saved bundle, to tell the fetch's share
	// from the analysis's.
	acmd := exec.Command(bin, "analyze", dir, "-o", "json")
	acmd.Stdout = io.Discard
	if err := acmd.Run(); err != nil {
		t.Fatal(err)
	}
	arss := acmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	t.Logf("readygap analyze of the saved bundle alone: peak RSS %.1f MB", float64(arss)/(1<<20))
	if rss > maxRSS {
		t.Fatalf("peak RSS %.1f MB, want under %d MB (analyze of the bundle alone: %.1f MB)", float64(rss)/(1<<20), maxRSS>>20, float64(arss)/(1<<20))
	}
}

func TestProgressLineShowsRetries(t *testing.T) {
	var b bytes.Buffer
	p := newProgressLine(&b, false, false)
	p.update(live.SourceS3ALB, live.ProgressState{Records: 1, Bytes: 10})
	p.update(live.SourceS3ALB, live.ProgressState{Records: 1, Bytes: 10, Retrying: "retrying 1 object (SlowDown)"})
	p.update(live.SourceS3ALB, live.ProgressState{Records: 1, Bytes: 10, Retrying: "retrying 3 objects (SlowDown)"})
	p.update(live.SourceS3ALB, live.ProgressState{Records: 4, Bytes: 40})
	p.update(live.SourceS3ALB, live.ProgressState{Records: 4, Bytes: 40, Retrying: "retrying 1 object (\x1b[31mHTTP 500)"})
	if want := "s3-alb: retrying 1 object (SlowDown)\ns3-alb: retrying 1 object (\\x1b[31mHTTP 500)\n"; b.String() != want {
		t.Fatalf("off a terminal:\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	p = newProgressLine(&b, true, false)
	p.update(live.SourceS3ALB, live.ProgressState{Records: 1, Bytes: 2048, Retrying: "retrying 3 objects (SlowDown)"})
	if want := "\r\x1b[Kfetching: s3-alb 1 (2.0 KiB) retrying 3 objects (SlowDown)"; b.String() != want {
		t.Fatalf("on a terminal: %q, want %q", b.String(), want)
	}
	b.Reset()
	p = newProgressLine(&b, false, true)
	p.update(live.SourceS3ALB, live.ProgressState{Retrying: "retrying 1 object (SlowDown)"})
	if b.Len() != 0 {
		t.Fatalf("quiet: %q", b.String())
	}
}

// TestREADMEDocumentsTriageFlags checks that every flag of triage is in
// the triage section of docs/triage.md.
func TestREADMEDocumentsTriageFlags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "triage.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "## Triage (live)")
	if start < 0 {
		t.Fatal("docs/triage.md has no triage section")
	}
	section := readme[start:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:1+end]
	}
	newTriageCmd(nil).Flags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(section, "`--"+f.Name) && !strings.Contains(section, "--"+f.Name+"`") {
			t.Errorf("docs/triage.md's triage section does not document --%s", f.Name)
		}
	})
}

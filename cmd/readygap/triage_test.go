package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/logging/apiv2/loggingpb"
	"github.com/readygap/readygap/sources/live"
	"github.com/readygap/readygap/sources/live/livetest"
	"google.golang.org/protobuf/encoding/protojson"
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
	f.kubeconfig = f.kube.Kubeconfig(t, t.TempDir(), testKubeToken)
	isolateAWS(t, f.s3.URL, f.cloudwatch.URL)
	return f
}

// args returns the triage command line for the fakes.
func (f *triageFakes) args(extra ...string) []string {
	return append([]string{"triage", "--project", "shop-prod", "--logging-endpoint", f.logging.Addr, "--url-map", "k8s2-um-web", "--cluster", "prod-1",
		"--alb-logs", "s3://alb-logs/prod", "--region", "us-east-1", "--log-group", "/aws/eks/prod/lbc",
		"--kubeconfig", f.kubeconfig, "-n", "shop", "--since", triageSince.Format(time.RFC3339), "--until", triageUntil.Format(time.RFC3339)}, extra...)
}

func TestTriageMatchesAnalyzeOfTheBundle(t *testing.T) {
	f := startTriageFakes(t)
	dir := filepath.Join(t.TempDir(), "bundle")
	out, errOut, code := runCLI(t, "", f.args("--save", dir, "-o", "json")...)
	if code != exitOK {
		t.Fatalf("triage exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"gcp-logging: 3 records", "s3-alb: 3 objects", "cloudwatch-logs: 3 records", "kubernetes: 3 records"} {
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
	for _, name := range []string{"gcp/logging.json", "cloudwatch/aws_eks_prod_lbc.json", "kube/events.json", "kube/objects.json"} {
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
	man, err := os.ReadFile(filepath.Join(dir, live.ManifestName))
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
		`error: kubernetes: RBAC forbids list pods in namespace shop: grant verb "list" on "pods" (a Role in the namespace, or the README's ClusterRole)` + "\n"} {
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
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
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

package live

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live/livetest"
	"google.golang.org/grpc/codes"
)

// faultTimeouts are the short timeouts the fault tests inject; the
// defaults are what the triage flags document. The response and idle
// timeouts leave a loaded test machine time to answer a healthy call (at
// 300 ms a busy CI runner retried a page that had answered), and a stall
// is still given up well within giveUpBound.
var faultTimeouts = Timeouts{Connect: time.Second, Response: 500 * time.Millisecond, Idle: 500 * time.Millisecond, Source: 20 * time.Second}

// giveUpBound is the most a fault test may take to give up on a silent or
// refused endpoint with faultTimeouts: well above one timeout, well below
// what a retry per attempt or per resource would take.
const giveUpBound = 2 * time.Second

// Secrets planted in what the fake servers send: a presigned URL in an
// error message, a bearer token, a Google access token, a pod's env value.
const (
	plantedSignature = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
	plantedKeyID     = "AKIAPLANTED0EXAMPLE7"
	plantedURL       = "https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + plantedKeyID +
		"%2F20240501%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240501T235000Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=" + plantedSignature
	plantedGoogleToken = "ya29.a0AfB_plantedGoogleAccessToken0123"
	plantedBearer      = "Bearer plantedBearerTokenValue0123456789"
	plantedSecretKey   = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTEDKEY"
	plantedEnvValue    = "s3cr3t-Db-Passw0rd-planted-env"
	plantedApplied     = "planted-last-applied-marker"
)

// plantedMessage is a server error text carrying every planted secret.
const plantedMessage = "request to " + plantedURL + " denied; Authorization: " + plantedBearer +
	" access_token=" + plantedGoogleToken + " aws_secret_access_key=" + plantedSecretKey + " " + plantedSecretKey

// plantedParts are the substrings that must never appear in any output.
var plantedParts = []string{plantedSignature, plantedKeyID, "X-Amz-Credential=A", "plantedGoogleAccessToken", "plantedBearerTokenValue",
	"bPxRfiCYPLANTEDKEY", plantedEnvValue, plantedApplied}

// assertNoSecrets fails when a planted secret is in texts or in a file under dir.
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
		check(fmt.Sprintf("text %d", i), s)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			check(p, string(b))
		}
		return nil
	})
}

// fastAWSBackoff makes the AWS SDK's retries quick for the test's duration.
func fastAWSBackoff(t *testing.T) {
	old := awsBackoff
	awsBackoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 5 * time.Millisecond, nil })
	t.Cleanup(func() { awsBackoff = old })
}

// progressLog records progress calls.
type progressLog struct {
	mu     sync.Mutex
	states []ProgressState
}

func (p *progressLog) fn(_ string, s ProgressState) {
	p.mu.Lock()
	p.states = append(p.states, s)
	p.mu.Unlock()
}

// retries returns the distinct Retrying texts seen.
func (p *progressLog) retries() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, s := range p.states {
		if s.Retrying != "" && !slices.Contains(out, s.Retrying) {
			out = append(out, s.Retrying)
		}
	}
	return out
}

// last returns the last state seen.
func (p *progressLog) last() ProgressState {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.states) == 0 {
		return ProgressState{}
	}
	return p.states[len(p.states)-1]
}

// manifestOf writes rep as a bundle manifest into dir and returns the
// warnings bundle.ManifestWarnings gives for it.
func manifestOf(t *testing.T, dir string, rep bundle.FetchReport) []string {
	t.Helper()
	if err := bundle.WriteManifest(dir, &bundle.Manifest{Created: time.Now(), Sources: []bundle.FetchReport{rep}}); err != nil {
		t.Fatal(err)
	}
	w, err := bundle.ManifestWarnings(dir)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// statuses returns "status reason" of every item whose name contains sub.
func statuses(rep bundle.FetchReport, sub string) []string {
	var out []string
	for _, it := range rep.Items {
		if strings.Contains(it.Name, sub) {
			out = append(out, string(it.Status)+" "+it.Reason)
		}
	}
	return out
}

// deadEndpoints runs fetch against a silent and a refused endpoint and
// checks the time to give up, the one-line error and the manifest.
func deadEndpoints(t *testing.T, fetch func(t *testing.T, endpoint string, dir string) (bundle.FetchReport, error), scheme, wantSilent, wantRefused string) {
	for _, tt := range []struct {
		name     string
		addr     string
		want     string
		atLeast  time.Duration
		wantTime time.Duration
	}{
		{"silent", livetest.Silent(t), wantSilent, faultTimeouts.Response, giveUpBound},
		{"refused", livetest.Refused(t), wantRefused, 0, giveUpBound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			rep, err := fetch(t, scheme+tt.addr, dir)
			took := time.Since(start)
			want := strings.ReplaceAll(tt.want, "ADDR", scheme+tt.addr)
			if err == nil || err.Error() != want {
				t.Fatalf("error\n%v\nwant\n%s", err, want)
			}
			if took < tt.atLeast || took > tt.wantTime {
				t.Fatalf("gave up after %v, want between %v and %v", took, tt.atLeast, tt.wantTime)
			}
			if rep.Complete || rep.Error != strings.TrimPrefix(want, rep.Source+": ") || len(rep.Items) == 0 {
				t.Fatalf("report %+v", rep)
			}
			for _, it := range rep.Items {
				if it.Status == bundle.ItemComplete || it.Reason == "" {
					t.Fatalf("item %+v of a dead endpoint", it)
				}
			}
			if ws := manifestOf(t, dir, rep); len(ws) == 0 {
				t.Fatal("no warning for a dead endpoint")
			}
		})
	}
}

func TestDeadEndpointsS3(t *testing.T) {
	deadEndpoints(t, func(t *testing.T, endpoint, dir string) (bundle.FetchReport, error) {
		cfg := testAWSConfig(endpoint)
		cfg.RetryMaxAttempts = 0 // the product's retries
		WithAWSTimeouts(&cfg, faultTimeouts)
		a := &ALBLogs{Client: NewS3Client(cfg), Bucket: "alb-logs", Prefix: "prod", Timeouts: faultTimeouts}
		return a.Fetch(context.Background(), midnightWindow, dir, nil)
	}, "http://", "s3-alb: no answer from ADDR in 500 ms", "s3-alb: cannot connect to ADDR: connection refused")
}

func TestDeadEndpointsCloudWatch(t *testing.T) {
	deadEndpoints(t, func(t *testing.T, endpoint, dir string) (bundle.FetchReport, error) {
		cfg := testAWSConfig(endpoint)
		cfg.RetryMaxAttempts = 0
		WithAWSTimeouts(&cfg, faultTimeouts)
		c := &CloudWatchLogs{Client: NewCloudWatchClient(cfg), LogGroups: []string{"/a", "/b"}, Timeouts: faultTimeouts}
		return c.Fetch(context.Background(), midnightWindow, dir, nil)
	}, "http://", "cloudwatch-logs: no answer from ADDR in 500 ms", "cloudwatch-logs: cannot connect to ADDR: connection refused")
}

func TestDeadEndpointsCloudLogging(t *testing.T) {
	deadEndpoints(t, func(t *testing.T, endpoint, dir string) (bundle.FetchReport, error) {
		g := &GCPLogging{Project: "p", Endpoint: endpoint, Timeouts: faultTimeouts}
		return g.Fetch(context.Background(), midnightWindow, dir, nil)
	}, "", "gcp-logging: no answer from ADDR in 500 ms", "gcp-logging: cannot connect to ADDR: connection refused")
}

func TestDeadEndpointsKubernetes(t *testing.T) {
	deadEndpoints(t, func(t *testing.T, endpoint, dir string) (bundle.FetchReport, error) {
		k := &Kubernetes{Kubeconfig: livetest.KubeconfigFor(t, t.TempDir(), endpoint, "t"), Timeouts: faultTimeouts}
		return k.Fetch(context.Background(), midnightWindow, dir, nil)
	}, "http://", "kubernetes: no answer from ADDR in 500 ms", "kubernetes: cannot connect to ADDR: connection refused")
}

func TestALBLogsObjectFaults(t *testing.T) {
	fastAWSBackoff(t)
	srv := livetest.NewS3(t, "alb-logs")
	var keys []string
	for i := range 6 {
		end := time.Date(2024, 5, 1, 23, 45+i, 0, 0, time.UTC)
		k := livetest.ALBKey("prod", "", "111122223333", "us-east-1", end, end, fmt.Sprintf("10.0.1.%d", i))
		srv.Put(t, "alb-logs", k, livetest.Gzip(livetest.ALBLine(end.Add(-time.Minute), "10.0.12.34:8080"), livetest.ALBLine(end.Add(-30*time.Second), "")))
		keys = append(keys, k)
	}
	slowDown := livetest.S3Error("SlowDown", "Please reduce your request rate. "+plantedMessage)
	srv.Faults[keys[1]] = &livetest.Fault{Status: 403, ContentType: "application/xml", Body: livetest.S3Error("AccessDenied", plantedMessage)}
	srv.Faults[keys[2]] = &livetest.Fault{Status: 503, ContentType: "application/xml", Body: slowDown, Times: 3}
	srv.Faults[keys[3]] = &livetest.Fault{Status: 503, ContentType: "application/xml", Body: slowDown}
	srv.Faults[keys[4]] = &livetest.Fault{Stall: true, StallAfter: 20}
	// A pause shorter than the idle timeout is waited out.
	srv.Faults[keys[5]] = &livetest.Fault{Stall: true, StallAfter: 20, StallFor: faultTimeouts.Idle / 6}
	cfg := testAWSConfig(srv.URL)
	cfg.RetryMaxAttempts = 0
	WithAWSTimeouts(&cfg, faultTimeouts)
	dir := t.TempDir()
	a := &ALBLogs{Client: NewS3Client(cfg), Bucket: "alb-logs", Prefix: "prod", Account: "111122223333", Region: "us-east-1", Workers: 1, Timeouts: faultTimeouts}
	var prog progressLog
	rep, err := a.Fetch(context.Background(), midnightWindow, dir, prog.fn)

	gets := map[string]int{}
	for _, k := range srv.Gets("alb-logs") {
		gets[k]++
	}
	for i, want := range []int{1, 1, 4, awsMaxAttempts, 1, 1} {
		if gets[keys[i]] != want {
			t.Errorf("object %d requested %d times, want %d", i, gets[keys[i]], want)
		}
	}
	endpoint := srv.URL
	wantErr := "s3-alb: 1 of 6 objects not saved: permission denied: the credentials need s3:GetObject on arn:aws:s3:::alb-logs/prod/AWSLogs/*; " +
		"1 of 6 objects not saved: s3:GetObject on arn:aws:s3:::alb-logs/prod/AWSLogs/* failed after retries: SlowDown (HTTP 503): Please reduce your request rate. request to https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted] denied; Authorization: [redacted] access_token=[redacted] aws_secret_access_key=[redacted] [redacted]; " +
		"1 of 6 objects cut short: the answer from " + endpoint + " stalled: no data for 500 ms after 20 B"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("error\n%v\nwant\n%s", err, wantErr)
	}
	var got []string
	for _, k := range keys {
		got = append(got, strings.Join(statuses(rep, k), ""))
	}
	want := []string{
		"complete ",
		"failed permission denied: the credentials need s3:GetObject on arn:aws:s3:::alb-logs/prod/AWSLogs/*",
		"complete ",
		"failed s3:GetObject on arn:aws:s3:::alb-logs/prod/AWSLogs/* failed after retries: SlowDown (HTTP 503): Please reduce your request rate. request to https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted] denied; Authorization: [redacted] access_token=[redacted] aws_secret_access_key=[redacted] [redacted]",
		"partial the answer from " + endpoint + " stalled: no data for 500 ms after 20 B",
		"complete ",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("items\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Records != 3 || len(rep.Files) != 4 || rep.Complete {
		t.Fatalf("report: %d records, files %v", rep.Records, rep.Files)
	}
	if last := prog.last(); last.Records != 3 || last.Retrying != "" {
		t.Fatalf("last progress %+v", last)
	}
	if r := prog.retries(); !slices.Equal(r, []string{"retrying 1 object (SlowDown)"}) {
		t.Fatalf("retries shown: %q", r)
	}
	ws := manifestOf(t, dir, rep)
	if len(ws) != 3 || ws[0] != "s3-alb: 1 of 6 objects (s3://alb-logs/"+keys[1]+") not saved (permission denied: the credentials need s3:GetObject on arn:aws:s3:::alb-logs/prod/AWSLogs/*): "+impactALBObject ||
		!strings.HasPrefix(ws[2], "s3-alb: 1 of 6 objects (s3://alb-logs/"+keys[4]+") cut short (the answer from ") {
		t.Fatalf("warnings:\n%s", strings.Join(ws, "\n"))
	}
	b, _ := json.Marshal(rep)
	assertNoSecrets(t, dir, err.Error(), string(b), strings.Join(ws, "\n"))
}

func TestCloudWatchLogsFaults(t *testing.T) {
	fastAWSBackoff(t)
	srv := livetest.NewCloudWatch(t)
	ms := midnightWindow.Since.UnixMilli()
	groups := []string{"/throttled", "/unavailable", "/denied", "/stalled", "/ok"}
	for _, g := range groups {
		for i := range 5 {
			srv.Groups[g] = append(srv.Groups[g], livetest.CloudWatchEvent{Stream: "s", Timestamp: ms + int64(i)*1000, Message: fmt.Sprintf(`{"msg":"event %d"}`, i)})
		}
	}
	throttle := livetest.CloudWatchError("ThrottlingException", "Rate exceeded")
	unavailable := livetest.CloudWatchError("ServiceUnavailableException", plantedMessage)
	srv.Faults["/throttled "] = &livetest.Fault{Status: 400, Body: throttle, ContentType: "application/x-amz-json-1.1", Times: 3}
	srv.Faults["/unavailable p2"] = &livetest.Fault{Status: 503, Body: unavailable, ContentType: "application/x-amz-json-1.1"}
	srv.Faults["/stalled "] = &livetest.Fault{Stall: true, StallAfter: 12}
	// IAM may deny one log group and allow the others.
	srv.Faults["/denied "] = &livetest.Fault{Status: 400, Body: livetest.CloudWatchError("AccessDeniedException", plantedMessage), ContentType: "application/x-amz-json-1.1"}
	cfg := testAWSConfig(srv.URL)
	cfg.RetryMaxAttempts = 0
	WithAWSTimeouts(&cfg, faultTimeouts)
	dir := t.TempDir()
	c := &CloudWatchLogs{Client: NewCloudWatchClient(cfg), LogGroups: groups, Timeouts: faultTimeouts}
	var prog progressLog
	rep, err := c.Fetch(context.Background(), midnightWindow, dir, prog.fn)
	wantErr := "cloudwatch-logs: 1 of 5 log groups cut short: logs:FilterLogEvents on log group /unavailable failed after retries: ServiceUnavailableException (HTTP 503): request to https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted] denied; Authorization: [redacted] access_token=[redacted] aws_secret_access_key=[redacted] [redacted]; " +
		"1 of 5 log groups not saved: permission denied: the credentials need logs:FilterLogEvents on log group /denied; " +
		"1 of 5 log groups not saved: the answer from " + srv.URL + " stalled: no data for 500 ms after 12 B"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("error\n%v\nwant\n%s", err, wantErr)
	}
	var got []string
	for _, it := range rep.Items {
		got = append(got, fmt.Sprintf("%s %s %d", it.Name, it.Status, it.Records))
	}
	if want := []string{"/throttled complete 5", "/unavailable partial 2", "/denied failed 0", "/stalled failed 0", "/ok complete 5"}; !slices.Equal(got, want) {
		t.Fatalf("items %q, want %q", got, want)
	}
	if !strings.Contains(rep.Items[1].Impact, "after 2024-05-01T23:40:01Z are missing") {
		t.Fatalf("impact of a partial group: %s", rep.Items[1].Impact)
	}
	if r := prog.retries(); !slices.Contains(r, "retrying 1 log group (ThrottlingException)") || !slices.Contains(r, "retrying 1 log group (ServiceUnavailableException)") {
		t.Fatalf("retries shown: %q", r)
	}
	for _, f := range rep.Files {
		var doc struct{ Events []map[string]any }
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s is not valid JSON after a fault: %v", f, err)
		}
	}
	ws := manifestOf(t, dir, rep)
	if len(ws) != 3 || !strings.HasPrefix(ws[1], "cloudwatch-logs: 1 of 5 log groups (/denied) not saved (permission denied: the credentials need logs:FilterLogEvents on log group /denied): the events of /denied are missing") {
		t.Fatalf("warnings:\n%s", strings.Join(ws, "\n"))
	}
	b, _ := json.Marshal(rep)
	assertNoSecrets(t, dir, err.Error(), string(b), strings.Join(ws, "\n"))
}

func TestGCPLoggingFaults(t *testing.T) {
	fastGCPBackoff(t)
	docs := []string{gcpRef14, gcpRef15, gcpRef16, gcpRef53Pulling}
	for _, tt := range []struct {
		name         string
		code         codes.Code
		after, count int
		stall        bool
		status       bundle.ItemStatus
		records      int
		wantErr      string
		wantRetrying string
	}{
		{name: "unavailable three times then success", code: codes.Unavailable, count: 3, status: bundle.ItemComplete, records: 4, wantRetrying: "retrying 1 page (Unavailable)"},
		{name: "unavailable forever after the first page", code: codes.Unavailable, after: 1, count: -1, status: bundle.ItemPartial, records: 2,
			wantErr:      "gcp-logging: cut short: ListLogEntries failed after 6 attempts: Unavailable: request to https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted] denied; Authorization: [redacted] access_token=[redacted] aws_secret_access_key=[redacted] [redacted]",
			wantRetrying: "retrying 1 page (Unavailable)"},
		{name: "permission denied", code: codes.PermissionDenied, count: -1, status: bundle.ItemFailed,
			wantErr: "gcp-logging: permission denied: the credentials need logging.logEntries.list on projects/p (roles/logging.viewer)"},
		// A page is one message: its call is given up after the response
		// and the idle timeouts together, and not retried.
		{name: "the second page never answers", stall: true, after: 1, count: -1, status: bundle.ItemPartial, records: 2,
			wantErr: "gcp-logging: cut short: no answer from ADDR in 1 s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := livetest.NewLogging(t)
			srv.Entries = gcpTestEntries(t, docs...)
			srv.FailCode, srv.FailAfter, srv.FailCount, srv.FailMessage, srv.Stall = tt.code, tt.after, tt.count, plantedMessage, tt.stall
			dir := t.TempDir()
			var prog progressLog
			start := time.Now()
			rep, err := (&GCPLogging{Project: "p", Endpoint: srv.Addr, Timeouts: faultTimeouts}).Fetch(context.Background(), midnightWindow, dir, prog.fn)
			took := time.Since(start)
			wantErr := strings.ReplaceAll(tt.wantErr, "ADDR", srv.Addr)
			if (err == nil) != (wantErr == "") || (err != nil && err.Error() != wantErr) {
				t.Fatalf("error\n%v\nwant\n%s", err, wantErr)
			}
			if tt.stall && (took < faultTimeouts.Response+faultTimeouts.Idle || took > giveUpBound || len(srv.Requests()) != 2) {
				t.Fatalf("gave up after %v and %d calls", took, len(srv.Requests()))
			}
			if it := rep.Items[0]; it.Status != tt.status || it.Records != tt.records || rep.Records != tt.records {
				t.Fatalf("item %+v", it)
			}
			if r := prog.retries(); tt.wantRetrying != "" && !slices.Equal(r, []string{tt.wantRetrying}) {
				t.Fatalf("retries shown: %q", r)
			}
			if tt.status == bundle.ItemPartial {
				var entries []map[string]any
				b, _ := os.ReadFile(filepath.Join(dir, gcpLoggingFile))
				if err := json.Unmarshal(b, &entries); err != nil || len(entries) != tt.records {
					t.Fatalf("partial file: %v, %d entries", err, len(entries))
				}
			}
			ws := manifestOf(t, dir, rep)
			b, _ := json.Marshal(rep)
			assertNoSecrets(t, dir, fmt.Sprint(err), string(b), strings.Join(ws, "\n"))
		})
	}
}

func TestKubernetesFaults(t *testing.T) {
	t.Run("401", func(t *testing.T) {
		srv := kubeTestServer(t)
		srv.Unauthorized, srv.Message = true, plantedMessage
		dir := t.TempDir()
		k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts}
		rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
		want := "kubernetes: credentials rejected by the API server " + srv.URL + " (401 Unauthorized): refresh the kubeconfig's credentials (`aws eks update-kubeconfig`, `gcloud container clusters get-credentials`)"
		if err == nil || err.Error() != want {
			t.Fatalf("error\n%v\nwant\n%s", err, want)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Fatalf("%d requests after a 401, want 1", n)
		}
		if last := len(rep.Items) - 1; len(rep.Items) != 2+len(kubeObjects) || rep.Items[last].Status != bundle.ItemNotRequested || rep.Items[last].Reason != strings.TrimPrefix(want, "kubernetes: ") {
			t.Fatalf("items %+v", rep.Items)
		}
		b, _ := json.Marshal(rep)
		assertNoSecrets(t, dir, err.Error(), string(b))
	})
	t.Run("403 on two lists", func(t *testing.T) {
		srv := kubeTestServer(t)
		srv.Message = plantedMessage
		srv.Forbidden["/api/v1/namespaces/shop/pods"] = true
		srv.Forbidden["/api/v1/namespaces/shop/services"] = true
		dir := t.TempDir()
		k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts}
		rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
		want := "kubernetes: RBAC forbids list pods, list services in namespace shop: grant each verb on its resource (a Role in the namespace, or the ClusterRole in docs/triage.md)"
		if err == nil || err.Error() != want {
			t.Fatalf("error\n%v\nwant\n%s", err, want)
		}
		if got := statuses(rep, " pods "); !slices.Equal(got, []string{`failed RBAC: list pods in namespace shop is forbidden: grant verb "list" on "pods"`}) {
			t.Fatalf("pods: %q", got)
		}
		if rep.Records != 2+1+3 {
			t.Fatalf("the other lists were not saved: %+v", rep)
		}
		ws := manifestOf(t, dir, rep)
		if len(ws) != 2 || ws[0] != `kubernetes: 1 of 18 lists (kubectl get pods -n shop -o json) not saved (RBAC: list pods in namespace shop is forbidden: grant verb "list" on "pods"): `+kubeObjects[0].impact {
			t.Fatalf("warnings:\n%s", strings.Join(ws, "\n"))
		}
		b, _ := json.Marshal(rep)
		assertNoSecrets(t, dir, err.Error(), string(b))
	})
	t.Run("slow paged list", func(t *testing.T) {
		const n = 1200 // three pages of kubeListLimit
		for _, tt := range []struct {
			name    string
			delay   time.Duration
			stall   *livetest.Fault
			status  bundle.ItemStatus
			records int
		}{
			{name: "pauses shorter than the idle timeout", delay: faultTimeouts.Idle / 6, status: bundle.ItemComplete, records: n},
			{name: "the third page stalls", stall: &livetest.Fault{After: 2, Stall: true, StallAfter: 40}, status: bundle.ItemPartial, records: 2 * kubeListLimit},
		} {
			t.Run(tt.name, func(t *testing.T) {
				srv := kubeTestServer(t)
				srv.Lists["/api/v1/namespaces/shop/events"] = &livetest.PagedList{APIVersion: "v1", Kind: "EventList", N: n, PageDelay: tt.delay, Item: func(i int) string {
					return fmt.Sprintf(`{"metadata":{"name":"e%d","namespace":"shop"},"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-%d"},"reason":"Killing","message":"Stopping container web","type":"Normal","firstTimestamp":"2024-05-01T23:50:00Z","lastTimestamp":"2024-05-01T23:50:00Z","count":1}`, i, i)
				}}
				if tt.stall != nil {
					srv.Faults["/api/v1/namespaces/shop/events"] = tt.stall
				}
				dir := t.TempDir()
				k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts}
				rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
				ev := rep.Items[0]
				if ev.Status != tt.status || ev.Records != tt.records {
					t.Fatalf("events %+v (%v)", ev, err)
				}
				if tt.status == bundle.ItemPartial {
					want := "kubernetes: 1 of 18 lists cut short: the answer from " + srv.URL + " stalled: no data for 500 ms after 40 B"
					if err == nil || err.Error() != want || !strings.HasPrefix(ev.Impact, "only the first 1000 items were read") {
						t.Fatalf("error\n%v\nwant\n%s\nimpact %s", err, want, ev.Impact)
					}
				} else if err != nil {
					t.Fatal(err)
				}
				var list struct{ Items []json.RawMessage }
				b, _ := os.ReadFile(filepath.Join(dir, "kube/events.json"))
				if err := json.Unmarshal(b, &list); err != nil || len(list.Items) != tt.records {
					t.Fatalf("events.json: %v, %d items", err, len(list.Items))
				}
			})
		}
	})
	t.Run("stalled get and list print nothing", func(t *testing.T) {
		srv := kubeTestServer(t)
		srv.Faults["/api/v1/namespaces/shop"] = &livetest.Fault{Stall: true, StallAfter: 10}
		srv.Faults["/api/v1/namespaces/shop/pods"] = &livetest.Fault{Stall: true, StallAfter: 10}
		k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts}
		r, w, _ := os.Pipe()
		stderr := os.Stderr
		os.Stderr = w // client-go logs a broken body through klog to standard error
		rep, err := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
		os.Stderr = stderr
		w.Close()
		printed, _ := io.ReadAll(r)
		if len(printed) > 0 {
			t.Errorf("printed on standard error:\n%s", printed)
		}
		want := "kubernetes: 2 of 18 lists not saved: the answer from " + srv.URL + " stalled: no data for 500 ms after 10 B"
		if err == nil || err.Error() != want || rep.Items[1].Status != bundle.ItemFailed || rep.Items[2].Status != bundle.ItemFailed || rep.Items[3].Status != bundle.ItemComplete {
			t.Fatalf("error\n%v\nwant\n%s\n%+v", err, want, rep.Items)
		}
	})
	t.Run("503 with Retry-After then success", func(t *testing.T) {
		srv := kubeTestServer(t)
		srv.Faults["/api/v1/namespaces/shop/pods"] = &livetest.Fault{Status: 503, Times: 2, Header: map[string]string{"Retry-After": "0"},
			Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","code":503}`}
		var prog progressLog
		k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts}
		rep, err := k.Fetch(context.Background(), midnightWindow, t.TempDir(), prog.fn)
		if err != nil || !rep.Complete {
			t.Fatalf("%v %+v", err, rep)
		}
		if r := prog.retries(); !slices.Equal(r, []string{"retrying 1 list (503 Service Unavailable)"}) {
			t.Fatalf("retries shown: %q", r)
		}
	})
	t.Run("503 retried up to kubeMaxAttempts in a row", func(t *testing.T) {
		for _, tt := range []struct {
			name       string
			times      int // 0: every request
			retryAfter string
			response   time.Duration
			requests   int
			complete   bool
		}{
			{name: "refused one attempt fewer than the limit", times: kubeMaxAttempts - 1, retryAfter: "0", requests: kubeMaxAttempts, complete: true},
			{name: "refused as often as the limit", times: kubeMaxAttempts, retryAfter: "0", requests: kubeMaxAttempts},
			{name: "refused forever", retryAfter: "0", requests: kubeMaxAttempts},
			{name: "a wait as long as the response timeout", times: 1, retryAfter: "1", response: time.Second, requests: 2, complete: true},
			{name: "a wait longer than the response timeout", times: 1, retryAfter: "2", response: time.Second, requests: 1},
		} {
			t.Run(tt.name, func(t *testing.T) {
				srv := kubeTestServer(t)
				srv.Faults["/api/v1/namespaces/shop/pods"] = &livetest.Fault{Status: 503, Times: tt.times, Header: map[string]string{"Retry-After": tt.retryAfter}, ContentType: "application/json",
					Body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"` + plantedMessage + `","reason":"ServiceUnavailable","code":503}`}
				timeouts := faultTimeouts
				if tt.response > 0 {
					timeouts.Response = tt.response
				}
				dir := t.TempDir()
				var prog progressLog
				k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: timeouts}
				rep, err := k.Fetch(context.Background(), midnightWindow, dir, prog.fn)
				n := 0
				for _, r := range srv.Requests() {
					if strings.HasPrefix(r, "GET /api/v1/namespaces/shop/pods?") {
						n++
					}
				}
				if n != tt.requests {
					t.Fatalf("pods listed %d times, want %d", n, tt.requests)
				}
				if tt.complete {
					if err != nil || !rep.Complete {
						t.Fatalf("%v %+v", err, rep)
					}
					return
				}
				want := "kubernetes: 1 of 18 lists not saved: list pods in namespace shop: 503 ServiceUnavailable: request to https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted] denied; Authorization: [redacted] access_token=[redacted] aws_secret_access_key=[redacted] [redacted]"
				if err == nil || err.Error() != want {
					t.Fatalf("error\n%v\nwant\n%s", err, want)
				}
				if rep.Records != 2+1+4 || rep.Complete {
					t.Fatalf("the other lists were not saved: %+v", rep)
				}
				if ws := manifestOf(t, dir, rep); len(ws) != 1 || !strings.HasPrefix(ws[0], "kubernetes: 1 of 18 lists (kubectl get pods -n shop -o json) not saved (list pods in namespace shop: 503 ServiceUnavailable: ") {
					t.Fatalf("warnings:\n%s", strings.Join(ws, "\n"))
				}
				b, _ := json.Marshal(rep)
				assertNoSecrets(t, dir, err.Error(), string(b))
			})
		}
	})
	t.Run("an API server that answers 503 to everything", func(t *testing.T) {
		var mu sync.Mutex
		requests := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			requests++
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(503)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","code":503}`)
		}))
		defer srv.Close()
		dir := t.TempDir()
		start := time.Now()
		k := &Kubernetes{Kubeconfig: livetest.KubeconfigFor(t, t.TempDir(), srv.URL, "t"), Timeouts: faultTimeouts}
		rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
		took := time.Since(start)
		// The first call takes the attempts; the 17 others and /version
		// are asked once.
		if requests != kubeMaxAttempts+18 || took > giveUpBound {
			t.Fatalf("%d requests in %v, want %d", requests, took, kubeMaxAttempts+18)
		}
		var calls []string
		for _, res := range append([]kubeResource{kubeEvents}, kubeObjects...) {
			calls = append(calls, "list "+kubeResourceName(res.gvr))
		}
		want := "kubernetes: 17 of 18 lists not saved: " + strings.Join(calls, ", ") + " in namespace shop: 503 ServiceUnavailable: the server is currently unable to handle the request"
		if err == nil || err.Error() != want {
			t.Fatalf("error\n%v\nwant\n%s", err, want)
		}
		for _, it := range rep.Items {
			if it.Status != bundle.ItemFailed || !strings.Contains(it.Reason, "503 ServiceUnavailable") {
				t.Fatalf("item %+v", it)
			}
		}
	})
}

func TestKubernetesRedactsObjects(t *testing.T) {
	srv := kubeTestServer(t)
	srv.List("/api/v1/namespaces/shop/pods", "v1", "PodList",
		`{"metadata":{"name":"web-1","namespace":"shop","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"env\":\"`+plantedApplied+`\"}","keep":"me"}},`+
			`"spec":{"initContainers":[{"name":"init","env":[{"name":"INIT_TOKEN","value":"`+plantedEnvValue+`"}]}],"containers":[{"name":"web","args":["--db-password=`+plantedEnvValue+`","--port=8080"],`+
			`"env":[{"name":"DB_PASSWORD","value":"`+plantedEnvValue+`"},{"name":"FROM_SECRET","valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}}]}]},"status":{"podIP":"10.0.12.34"}}`)
	srv.List("/apis/apps/v1/namespaces/shop/deployments", "apps/v1", "DeploymentList",
		`{"metadata":{"name":"web","namespace":"shop"},"spec":{"template":{"spec":{"containers":[{"name":"web","env":[{"name":"API_KEY","value":"`+plantedEnvValue+`"}]}]}}}}`)
	srv.List("/api/v1/namespaces/shop/services", "v1", "List",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop"},"data":{"password":"`+plantedEnvValue+`"}}`)
	dir := t.TempDir()
	k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), Timeouts: faultTimeouts}
	rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{redactedEnvValues: 3, redactedLastApplied: 1, redactedArgs: 1, redactedSecretData: 1}
	if fmt.Sprint(rep.Redacted) != fmt.Sprint(want) {
		t.Fatalf("redacted %v, want %v", rep.Redacted, want)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "kube/objects.json"))
	for _, keep := range []string{`"name":"DB_PASSWORD","value":"[redacted]"`, `"secretKeyRef":{"key":"password","name":"db"}`, `"keep":"me"`, `"--port=8080"`, `"--db-password=[redacted]"`} {
		if !strings.Contains(string(b), keep) {
			t.Errorf("objects.json lacks %s:\n%s", keep, b)
		}
	}
	assertNoSecrets(t, dir)
}

func TestRedact(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{plantedURL, "https://alb-logs.s3.us-east-1.amazonaws.com/prod/x.log.gz?[redacted]"},
		{"https://user:pass@host/p", "https://[redacted]@host/p"},
		{"Authorization: Bearer abc.def", "Authorization: [redacted]"},
		{"sent Bearer abcdefgh.ijk", "sent Bearer [redacted]"},
		{`{"token": "abc", "name": "x"}`, `{"token": "[redacted]", "name": "x"}`},
		{"key " + plantedKeyID + " used", "key [redacted] used"},
		{"secret " + plantedSecretKey, "secret [redacted]"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "jwt [redacted]"},
		// Kept: what a person needs to act.
		{"arn:aws:s3:::alb-logs/prod/AWSLogs/111122223333/elasticloadbalancing/us-east-1/2024/05/01/111122223333_elasticloadbalancing_us-east-1_app.k8s-shop-web-0123456789.1a2b3c4d5e6f7a8b_20240501T2345Z_10.0.1.25_2k8f9x1a.log.gz", ""},
		{"RequestId 4442587FB7D0A2F9, pods is forbidden: User \"system:serviceaccount:shop:readygap\" cannot list resource \"pods\"", ""},
		{"no answer from http://127.0.0.1:4567 in 10 s", ""},
		{"0123456789abcdef0123456789abcdef0123456789abcdef", ""},
	} {
		want := tt.want
		if want == "" {
			want = tt.in
		}
		if got, _ := Redact(tt.in); got != want {
			t.Errorf("Redact(%q)\n= %q\nwant %q", tt.in, got, want)
		}
	}
}

// TestKubernetesManyEventsBoundedMemory fetches a namespace of 200 000
// events and checks that the heap in use stays bounded by the page size,
// not the namespace's size. Opt in with READYGAP_TRIAGE_MEMORY=1.
func TestKubernetesManyEventsBoundedMemory(t *testing.T) {
	if os.Getenv("READYGAP_TRIAGE_MEMORY") == "" {
		t.Skip("set READYGAP_TRIAGE_MEMORY=1 to run")
	}
	const events = 200_000
	const maxHeap = 64 << 20
	srv := kubeTestServer(t)
	srv.Lists["/api/v1/namespaces/shop/events"] = &livetest.PagedList{APIVersion: "v1", Kind: "EventList", N: events, Item: func(i int) string {
		return fmt.Sprintf(`{"metadata":{"name":"web-%05d.%x","namespace":"shop","uid":"%08x-0000-4000-8000-000000000000","resourceVersion":"%d"},`+
			`"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-%05d","apiVersion":"v1","fieldPath":"spec.containers{web}"},"reason":"Started","message":"Started container web",`+
			`"source":{"component":"kubelet","host":"node-1"},"firstTimestamp":"2024-05-01T23:50:00Z","lastTimestamp":"2024-05-01T23:50:00Z","count":1,"type":"Normal"}`, i/4, i, i, 1000+i, i/4)
	}}
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
	dir := t.TempDir()
	start := time.Now()
	k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t")}
	rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
	close(done)
	if err != nil || rep.Items[0].Records != events {
		t.Fatalf("%v %+v", err, rep.Items[0])
	}
	grew := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("%d events, %.1f MB written in %v; heap in use grew by at most %.1f MB", events, float64(rep.Bytes)/(1<<20), time.Since(start).Round(time.Millisecond), float64(grew)/(1<<20))
	if grew > maxHeap {
		t.Fatalf("heap grew by %.1f MB, want under %d MB", float64(grew)/(1<<20), maxHeap>>20)
	}
}

// TestSilentTLSEndpoint: a server that accepts and never answers the TLS
// handshake is given up after the connect timeout, with one call.
func TestSilentTLSEndpoint(t *testing.T) {
	addr := livetest.Silent(t)
	tt := faultTimeouts
	tt.Connect, tt.Response = 300*time.Millisecond, time.Second
	start := time.Now()
	k := &Kubernetes{Kubeconfig: livetest.KubeconfigFor(t, t.TempDir(), "https://"+addr, "t"), Timeouts: tt}
	_, err := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	took := time.Since(start)
	if want := "kubernetes: no answer from https://" + addr + " in 300 ms"; err == nil || err.Error() != want {
		t.Fatalf("error\n%v\nwant\n%s", err, want)
	}
	if took < tt.Connect || took > tt.Response {
		t.Fatalf("gave up after %v, want between the connect timeout %v and the response timeout %v", took, tt.Connect, tt.Response)
	}
}

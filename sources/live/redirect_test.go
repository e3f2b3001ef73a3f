package live

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/readygap/readygap/sources/live/livetest"
)

// elsewhere is a loopback server that records what reaches it: the host a
// redirect sends credentials to.
type elsewhere struct {
	URL  string
	mu   sync.Mutex
	seen []string // method, path and credential headers of each request
}

// newElsewhere starts an elsewhere on addr ("127.0.0.1:0", "127.0.0.2:0"),
// over TLS when tls is set; nil when addr cannot be listened on.
func newElsewhere(t *testing.T, addr string, tls bool) *elsewhere {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		t.Logf("%s: %v", addr, err)
		return nil
	}
	e := &elsewhere{}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen = append(e.seen, fmt.Sprintf("%s %s authorization=%q x-amz-security-token=%q", r.Method, r.URL.Path,
			r.Header.Get("Authorization"), r.Header.Get("X-Amz-Security-Token")))
		e.mu.Unlock()
		// What a host collecting credentials answers: an empty, valid list.
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":"1"},"items":[]}`)
	}))
	ts.Listener.Close()
	ts.Listener = lis
	if tls {
		ts.StartTLS()
	} else {
		ts.Start()
	}
	t.Cleanup(ts.Close)
	e.URL = ts.URL
	return e
}

// requests returns what reached e.
func (e *elsewhere) requests() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.seen...)
}

// redirecting starts a loopback server (over TLS when tls is set) that
// answers every request with status and a Location on to's origin, and
// records the requests it gets.
func redirecting(t *testing.T, to string, status int, tls bool) *httptest.Server {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, to+r.URL.RequestURI(), status)
	})
	var ts *httptest.Server
	if tls {
		ts = httptest.NewTLSServer(h)
	} else {
		ts = httptest.NewServer(h)
	}
	t.Cleanup(ts.Close)
	return ts
}

// redirectTargets are the other hosts a redirect may point at: another
// port of the same address, and another loopback address.
var redirectTargets = []struct{ name, addr string }{{"another port", "127.0.0.1:0"}, {"another host", "127.0.0.2:0"}}

// redirectTarget starts an elsewhere on the address of a redirectTargets
// entry; it skips the test where that address cannot be listened on.
func redirectTarget(t *testing.T, addr string, tls bool) *elsewhere {
	e := newElsewhere(t, addr, tls)
	if e == nil {
		t.Skipf("cannot listen on %s", addr)
	}
	return e
}

// TestKubernetesRedirectKeepsToken points an https kubeconfig with a
// bearer token at an API server that answers 302 to another host: the
// token must not arrive there, nothing from there is saved, and the error
// names both hosts.
func TestKubernetesRedirectKeepsToken(t *testing.T) {
	const token = "kube-token-secret"
	for _, rt := range redirectTargets {
		t.Run(rt.name, func(t *testing.T) {
			target := redirectTarget(t, rt.addr, true)
			api := redirecting(t, target.URL, http.StatusFound, true)
			k := &Kubernetes{Kubeconfig: httpsKubeconfig(t, api, token), Timeouts: faultTimeouts}
			dir := t.TempDir()
			rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
			if got := target.requests(); len(got) > 0 {
				t.Fatalf("the redirect was followed: %q", got)
			}
			var re *RedirectError
			if err == nil || !errors.As(err, &re) || !strings.Contains(err.Error(), api.URL) || !strings.Contains(err.Error(), target.URL) {
				t.Fatalf("error = %v, want a RedirectError naming %s and %s", err, api.URL, target.URL)
			}
			if len(rep.Files) > 0 || rep.Records > 0 {
				t.Fatalf("saved %v (%d records) from the other host", rep.Files, rep.Records)
			}
		})
	}
}

// TestKubernetesSameHostRedirect is the control: a redirect to another
// path of the API server itself is followed, with the token.
func TestKubernetesSameHostRedirect(t *testing.T) {
	srv := kubeTestServer(t)
	inner := srv.URL
	front := httptest.NewTLSServer(nil)
	t.Cleanup(front.Close)
	front.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
			proxyTo(t, w, r, inner+p)
			return
		}
		http.Redirect(w, r, "/moved"+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
	k := &Kubernetes{Kubeconfig: httpsKubeconfig(t, front, "kube-token-secret"), Timeouts: faultTimeouts}
	rep, err := k.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	if err != nil || rep.Records != 2+1+5 {
		t.Fatalf("error %v, %d records", err, rep.Records)
	}
	for _, r := range srv.Requests() {
		if !strings.HasSuffix(r, " auth=Bearer kube-token-secret") {
			t.Fatalf("request without the token: %s", r)
		}
	}
}

// proxyTo forwards r to url with its Authorization header and copies the
// answer back.
func proxyTo(t *testing.T, w http.ResponseWriter, r *http.Request, url string) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, url+"?"+r.URL.RawQuery, nil)
	if err != nil {
		t.Error(err)
		return
	}
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		w.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// httpsKubeconfig writes a kubeconfig for the TLS server api, trusting its
// certificate, with a bearer token.
func httpsKubeconfig(t *testing.T, api *httptest.Server, token string) string {
	ca := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw}))
	p := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: %q, certificate-authority-data: %s}
users:
- name: fake
  user: {token: %q}
contexts:
- name: fake
  context: {cluster: fake, user: fake, namespace: shop}
current-context: fake
`, api.URL, ca, token)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// redirectAWSConfig is an AWS configuration for url with a session token,
// its HTTP client the one triage builds (AWSHTTPClient, WithAWSTimeouts).
func redirectAWSConfig(url string) aws.Config {
	cfg := aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(url), RetryMaxAttempts: 1, HTTPClient: AWSHTTPClient(faultTimeouts),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLIVETEST", "SECRETLIVETEST", "SESSIONLIVETEST")}
	WithAWSTimeouts(&cfg, faultTimeouts)
	return cfg
}

// TestAWSRedirectKeepsSignature has S3 and CloudWatch Logs answer 307 (the
// redirect the AWS SDK follows) to another host: neither the signature nor
// the session token arrives there, and the error names both hosts.
func TestAWSRedirectKeepsSignature(t *testing.T) {
	for _, rt := range redirectTargets {
		for _, src := range []struct {
			name  string
			fetch func(endpoint, dir string) error
		}{
			{"s3", func(endpoint, dir string) error {
				a := &ALBLogs{Client: NewS3Client(redirectAWSConfig(endpoint)), Bucket: "alb-logs", Prefix: "prod/", Timeouts: faultTimeouts}
				_, err := a.Fetch(context.Background(), midnightWindow, dir, nil)
				return err
			}},
			{"cloudwatch", func(endpoint, dir string) error {
				c := &CloudWatchLogs{Client: NewCloudWatchClient(redirectAWSConfig(endpoint)), LogGroups: []string{"/a"}, Timeouts: faultTimeouts}
				_, err := c.Fetch(context.Background(), midnightWindow, dir, nil)
				return err
			}},
		} {
			t.Run(rt.name+"/"+src.name, func(t *testing.T) {
				target := redirectTarget(t, rt.addr, false)
				api := redirecting(t, target.URL, http.StatusTemporaryRedirect, false)
				err := src.fetch(api.URL, t.TempDir())
				if got := target.requests(); len(got) > 0 {
					t.Fatalf("the redirect was followed: %q", got)
				}
				var re *RedirectError
				if err == nil || !errors.As(err, &re) || !strings.Contains(err.Error(), api.URL) || !strings.Contains(err.Error(), target.URL) {
					t.Fatalf("error = %v, want a RedirectError naming %s and %s", err, api.URL, target.URL)
				}
			})
		}
	}
}

// TestAWSSameHostRedirect is the control: S3 answering 307 to itself is
// followed, signed.
func TestAWSSameHostRedirect(t *testing.T) {
	srv := livetest.NewS3(t, "alb-logs")
	front := httptest.NewServer(nil)
	t.Cleanup(front.Close)
	front.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/moved"); ok {
			proxyTo(t, w, r, srv.URL+p)
			return
		}
		http.Redirect(w, r, "/moved"+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	})
	end := midnightWindow.Until.Add(-5 * time.Minute)
	key := livetest.ALBKey("prod", "", "111122223333", "us-east-1", midnightWindow.Until, end, "10.0.1.25")
	srv.Put(t, "alb-logs", key, livetest.Gzip(livetest.ALBLine(end.Add(-time.Minute), "10.0.12.34:8080")))
	a := &ALBLogs{Client: NewS3Client(redirectAWSConfig(front.URL)), Bucket: "alb-logs", Prefix: "prod/", Timeouts: faultTimeouts}
	rep, err := a.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	if err != nil || rep.Records != 1 {
		t.Fatalf("error %v, %d records", err, rep.Records)
	}
	if len(srv.Requests()) == 0 {
		t.Fatal("the same-host redirect was not followed")
	}
	for _, r := range srv.Requests() {
		if !strings.Contains(r, "auth=AWS4-HMAC-SHA256 Credential=AKIDLIVETEST/") {
			t.Fatalf("request without the signature: %s", r)
		}
	}
}

// TestGuardRedirects checks the helper every HTTP client of a live source
// is built with (Athena's, BigQuery's): a redirect to another port, host or
// scheme fails before it is sent; one to the same origin is followed.
func TestGuardRedirects(t *testing.T) {
	for _, rt := range redirectTargets {
		t.Run(rt.name, func(t *testing.T) {
			target := redirectTarget(t, rt.addr, false)
			api := redirecting(t, target.URL, http.StatusFound, false)
			req, _ := http.NewRequest("GET", api.URL+"/q", nil)
			req.Header.Set("Authorization", "Bearer secret")
			_, err := guardRedirects(nil).Do(req)
			var re *RedirectError
			if !errors.As(err, &re) || re.From != api.URL || re.To != target.URL || re.Status != http.StatusFound {
				t.Errorf("error %v, want a RedirectError from %s to %s", err, api.URL, target.URL)
			}
			if got := target.requests(); len(got) > 0 {
				t.Errorf("the redirect was followed: %q", got)
			}
		})
	}
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			http.Redirect(w, r, "/b", http.StatusFound)
			return
		}
		fmt.Fprint(w, r.Header.Get("Authorization"))
	}))
	t.Cleanup(same.Close)
	req, _ := http.NewRequest("GET", same.URL+"/a", nil)
	req.Header.Set("Authorization", "Bearer secret")
	resp, err := guardRedirects(nil).Do(req)
	if err != nil || resp.Request.URL.Path != "/b" {
		t.Fatalf("same origin: %v", err)
	}
	resp.Body.Close()
	for _, tt := range []struct {
		from, to string
		same     bool
	}{
		{"https://api.example.com", "https://api.example.com:443/x", true},
		{"http://127.0.0.1:80", "http://127.0.0.1/x", true},
		{"https://api.example.com", "http://api.example.com/x", false},
		{"https://api.example.com", "https://api.example.com:6443/x", false},
		{"https://api.example.com", "https://sub.api.example.com/x", false},
	} {
		from, _ := http.NewRequest("GET", tt.from, nil)
		to, _ := http.NewRequest("GET", tt.to, nil)
		if got := crossHostRedirect(from.URL, to.URL, 302) == nil; got != tt.same {
			t.Errorf("%s -> %s: same origin %v, want %v", tt.from, tt.to, got, tt.same)
		}
	}
}

// TestGCPLoggingRedirectNotFollowed points Cloud Logging at an endpoint
// that answers its gRPC calls (HTTP/2) with a 302 to another port or
// host: gRPC follows no redirect, so the call fails, nothing reaches the
// other place and nothing is saved.
func TestGCPLoggingRedirectNotFollowed(t *testing.T) {
	fastGCPBackoff(t)
	for _, rt := range redirectTargets {
		t.Run(rt.name, func(t *testing.T) {
			target := redirectTarget(t, rt.addr, false)
			var calls atomic.Int32
			api := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				http.Redirect(w, r, target.URL+r.URL.Path, http.StatusFound)
			}))
			api.Config.Protocols = new(http.Protocols)
			api.Config.Protocols.SetHTTP1(true)
			api.Config.Protocols.SetUnencryptedHTTP2(true)
			api.Start()
			t.Cleanup(api.Close)
			dir := t.TempDir()
			rep, err := (&GCPLogging{Project: "p", Endpoint: api.Listener.Addr().String(), Timeouts: faultTimeouts}).Fetch(context.Background(), midnightWindow, dir, nil)
			want := "gcp-logging: " + api.Listener.Addr().String() + " redirected the call elsewhere (HTTP 302 (Found); gRPC does not say where): not followed, since the call carries credentials for " + api.Listener.Addr().String() + " only"
			if err == nil || err.Error() != want {
				t.Fatalf("error\n%v\nwant\n%s", err, want)
			}
			if calls.Load() == 0 {
				t.Fatal("the endpoint was never called")
			}
			if got := target.requests(); len(got) > 0 {
				t.Fatalf("the redirect was followed: %q", got)
			}
			if rep.Records > 0 {
				t.Fatalf("saved %d records", rep.Records)
			}
		})
	}
}

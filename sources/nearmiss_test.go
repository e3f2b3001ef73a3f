package sources

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// nearMissCases are inputs in no format readygap reads, as users hand them
// over, with the format each comes closest to and what its reason must say.
var nearMissCases = []struct {
	name, text string
	closest    Format
	why        string
}{
	{"kubectl 1.7 describe events table",
		"Events:\n  FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubObjectPath\tType\tReason\tMessage\n  ---------\t--------\t-----\t----\t\t\t-------------\t--------\t------\t-------\n",
		FormatK8sEvents, "`kubectl describe` text of kubectl 1.3–1.7"},
	{"kubectl describe pod",
		"Name:             web-7c9d8f6b5-x2k4q\nNamespace:        shop\nNode:             node-a/10.0.0.4\n",
		FormatK8sObjects, "`kubectl describe` text"},
	{"kubectl get pods table",
		"NAME                  READY   STATUS    RESTARTS   AGE\nweb-7c9d8f6b5-x2k4q   1/1     Running   0          16m\n",
		FormatK8sObjects, "`kubectl get` table"},
	{"gcloud's default YAML",
		"---\nhttpRequest:\n  status: 502\ninsertId: 1x2y3z\nlogName: projects/p/logs/requests\n",
		FormatGCPLogging, "gcloud's default YAML output"},
	{"Envoy JSON dictionary of its own with no time key",
		`{"code":503,"flags":"UH","upstream":"10.0.0.1:8080","path":"/api"}` + "\n",
		FormatEnvoyJSON, "no time key"},
	{"Envoy default keys without start_time, pretty-printed array",
		"[\n  {\n    \"response_code\": 503,\n    \"response_flags\": \"UH\",\n    \"upstream_host\": \"-\"\n  }\n]\n",
		FormatEnvoyJSON, "no time key"},
	{"nginx JSON with no time key",
		`{"remote_addr":"203.0.113.9","status":502,"request_time":0.004,"bytes_sent":150}` + "\n",
		FormatIngressNginxJSON, "no time key"},
	{"ingress-nginx line in a custom log-format-upstream",
		`203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 10.244.2.31:8080 200 0.004` + "\n",
		FormatIngressNginx, "--nginx-format"},
	{"nginx line in a format of its own",
		`203.0.113.9 [04/Mar/2026:10:15:03 +0000] "GET /a HTTP/1.1" 502 10.8.2.31:8080 502` + "\n",
		FormatIngressNginx, "give its log_format with --nginx-format"},
	{"ALB access line cut short",
		`http 2024-01-02T03:04:05.123456Z app/my-alb/50dc6c495c0c9188 203.0.113.9:46532 10.0.0.5:8080 0.000 0.001 0.000 200 200 34 366 "GET http://shop.example.com:80/ HTTP/1.1"` + "\n",
		FormatALBAccess, "fields where ALB writes at least 25"},
	{"gcloud entries as a CloudWatch export of something else",
		`{"events":[{"logStreamName":"s","timestamp":1772619303004,"message":"Events:","ingestionTime":1772619305120,"eventId":"1"},{"logStreamName":"s","timestamp":1772619303005,"message":"  Type    Reason   Age   From     Message","ingestionTime":1772619305120,"eventId":"2"}],"searchedLogStreams":[]}`,
		FormatKubectlDescribe, "a kubectl table inside a wrapper"},
}

func TestNearMiss(t *testing.T) {
	for _, tc := range nearMissCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := detect([]byte(tc.text), true, lineAdapters)
			var u errUnknownFormat
			if !errors.As(err, &u) {
				t.Fatalf("detect = %v, want an unknown format", err)
			}
			if u.closest != tc.closest || !strings.Contains(u.why, tc.why) {
				t.Errorf("closest %s (%s), want %s (%s)", u.closest, u.why, tc.closest, tc.why)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "not in a format readygap reads; closest: "+string(tc.closest)+", not taken: ") ||
				!strings.HasSuffix(msg, "; export it as "+formatInfo(tc.closest).HowToGet) {
				t.Errorf("message %q", msg)
			}
		})
	}
}

// TestNearMissNone checks that an input like no format gets the plain
// message rather than a guess.
func TestNearMissNone(t *testing.T) {
	for _, text := range []string{
		"hello world\nthis is a README\n",
		`{"name":"web","replicas":3}` + "\n",
		"2024-01-02 03:04:05 INFO starting server on :8080\n",
		"| a | b |\n|---|---|\n| 1 | 2 |\n",
	} {
		_, err := detect([]byte(text), true, lineAdapters)
		var u errUnknownFormat
		if !errors.As(err, &u) || u.closest != "" || err.Error() != "not in a format readygap reads" {
			t.Errorf("%.40q: %v", text, err)
		}
	}
}

// TestNearMissThroughRead checks that the warning a run gives names the
// closest format.
func TestNearMissThroughRead(t *testing.T) {
	dir := t.TempDir()
	var cut string
	for _, tc := range nearMissCases {
		if tc.name == "ALB access line cut short" {
			cut = tc.text
		}
	}
	bad := writeFile(t, dir, "gateway.log", []byte(cut))
	good := writeFile(t, dir, "nginx.log", []byte(nginxAccessCases[0].line+"\n"))
	res, _ := readPaths(t, Options{}, bad, good)
	want := filepath.Join(dir, "gateway.log") + ": not in a format readygap reads; closest: alb-access, not taken: an ALB access line with"
	found := false
	for _, w := range res.Warnings {
		found = found || strings.HasPrefix(w, want)
	}
	if !found {
		t.Errorf("warnings %q lack %q", res.Warnings, want)
	}
}

// FuzzNearMiss checks that any input detection cannot read gets an answer
// without failing: a closest format always comes with its reason and how
// to export it.
func FuzzNearMiss(f *testing.F) {
	for _, tc := range nearMissCases {
		f.Add([]byte(tc.text))
	}
	f.Add([]byte("hello world\n"))
	f.Fuzz(func(t *testing.T, head []byte) {
		_, err := detect(head, true, lineAdapters)
		var u errUnknownFormat
		if errors.As(err, &u) && u.closest != "" && (u.why == "" || u.howTo == "" || formatInfo(u.closest).ID != u.closest) {
			t.Fatalf("closest %q without a reason or export: %+v", u.closest, u)
		}
	})
}

package live

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/live/livetest"
)

// testAWSConfig is an AWS configuration pointing at url with static keys
// and no retries.
func testAWSConfig(url string) aws.Config {
	return aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(url), RetryMaxAttempts: 1,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLIVETEST", "SECRETLIVETEST", "")}
}

// midnightWindow spans midnight, so that the next-day delivery folder matters.
var midnightWindow = Window{Since: time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC), Until: time.Date(2024, 5, 2, 0, 10, 0, 0, time.UTC)}

func TestALBLogsFetchesOnlyTheWindow(t *testing.T) {
	srv := livetest.NewS3(t, "alb-logs")
	day1, day2 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), time.Date(2024, 5, 2, 12, 0, 0, 0, time.UTC)
	at := func(d, h, m int) time.Time { return time.Date(2024, 5, d, h, m, 0, 0, time.UTC) }
	key := func(kind string, delivered time.Time, end time.Time) string {
		return livetest.ALBKey("prod", kind, "111122223333", "us-east-1", delivered, end, "10.0.1.25")
	}
	objects := map[string]bool{ // key -> wanted
		key("", day1, at(1, 23, 35)):                                              false, // ends before the window
		key("", day1, at(1, 23, 45)):                                              true,
		key("health_check_log_", day1, at(1, 23, 45)):                             true,
		key("conn_log_", day1, at(1, 23, 45)):                                     false, // connection logs are not read
		key("", day2, at(1, 23, 55)):                                              true,  // delivered the next day
		key("", day2, at(2, 0, 5)):                                                true,
		key("", day2, at(2, 0, 20)):                                               false, // starts after the window
		key("", at(30, 0, 0).AddDate(0, -1, 0), at(30, 23, 55).AddDate(0, -1, 0)): false, // a folder never listed
	}
	for k := range objects {
		end, _ := sources.ALBObjectEnd(k)
		body := livetest.Gzip(livetest.ALBLine(end.Add(-time.Minute), "10.0.12.34:8080"), livetest.ALBLine(end.Add(-30*time.Second), ""))
		if strings.Contains(k, "health_check_log_") {
			body = livetest.Gzip("http " + end.Add(-time.Minute).Format(time.RFC3339Nano) + " 0.001 10.0.12.34:8080 k8s-shop-web PASS 200 -")
		}
		srv.Put(t, "alb-logs", k, body)
	}
	dir := t.TempDir()
	a := &ALBLogs{Client: NewS3Client(testAWSConfig(srv.URL)), Bucket: "alb-logs", Prefix: "prod/", Workers: 3}
	var calls int
	rep, err := a.Fetch(context.Background(), midnightWindow, dir, func(string, ProgressState) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for k, ok := range objects {
		if ok {
			want = append(want, k)
		}
	}
	got := srv.Gets("alb-logs")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("fetched\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var lists []string
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r, "GET /alb-logs?") {
			lists = append(lists, r[:strings.Index(r, " auth=")])
		}
	}
	wantLists := []string{
		"GET /alb-logs?delimiter=%2F&list-type=2&prefix=prod%2FAWSLogs%2F",
		"GET /alb-logs?delimiter=%2F&list-type=2&prefix=prod%2FAWSLogs%2F111122223333%2Felasticloadbalancing%2F",
		"GET /alb-logs?list-type=2&prefix=prod%2FAWSLogs%2F111122223333%2Felasticloadbalancing%2Fus-east-1%2F2024%2F05%2F01%2F",
		"GET /alb-logs?list-type=2&prefix=prod%2FAWSLogs%2F111122223333%2Felasticloadbalancing%2Fus-east-1%2F2024%2F05%2F02%2F",
	}
	if !slices.Equal(lists, wantLists) {
		t.Fatalf("listings\n%s\nwant\n%s", strings.Join(lists, "\n"), strings.Join(wantLists, "\n"))
	}
	if rep.Records != 4 || len(rep.Files) != 4 || rep.Bytes == 0 || calls != 4 {
		t.Fatalf("report %+v, progress calls %d", rep, calls)
	}
	for _, f := range rep.Files {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Fatalf("%s is not the gzip'd object as stored: %v", f, err)
		}
	}
	res, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler { return nopHandler{} })
	if err != nil {
		t.Fatal(err)
	}
	records := 0
	for _, in := range res.Inputs {
		records += in.Records
		if in.Skipped > 0 {
			t.Errorf("%s: %d lines skipped: %v", in.Name, in.Skipped, res.Warnings)
		}
	}
	if records != 3*2+1 {
		t.Fatalf("read %d records from the bundle, want 7; %v", records, res.Warnings)
	}
}

func TestALBLogsErrors(t *testing.T) {
	srv := livetest.NewS3(t, "alb-logs")
	a := &ALBLogs{Client: NewS3Client(testAWSConfig(srv.URL)), Bucket: "missing", Account: "1", Region: "us-east-1"}
	_, err := a.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	if err == nil || err.Error() != "s3-alb: bucket not found: arn:aws:s3:::missing" {
		t.Fatalf("missing bucket: %v", err)
	}
	a.Bucket = "alb-logs"
	rep, err := a.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
	if err != nil || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "no ALB log objects") {
		t.Fatalf("empty window: %+v %v", rep, err)
	}
	a.Account = ""
	if _, err = a.Fetch(context.Background(), midnightWindow, t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "no AWSLogs/<account>/ folders") {
		t.Fatalf("no account folder: %v", err)
	}

	noCreds := testAWSConfig(srv.URL)
	noCreds.Credentials = credentials.StaticCredentialsProvider{}
	a = &ALBLogs{Client: NewS3Client(noCreds), Bucket: "alb-logs"}
	if _, err = a.Fetch(context.Background(), midnightWindow, t.TempDir(), nil); err == nil || !strings.HasPrefix(err.Error(), "s3-alb: no AWS credentials: set --profile") {
		t.Fatalf("no credentials: %v", err)
	}

	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(403)
		w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
	}))
	defer denied.Close()
	a = &ALBLogs{Client: NewS3Client(testAWSConfig(denied.URL)), Bucket: "alb-logs", Account: "1", Region: "us-east-1"}
	for _, acct := range []string{"1", ""} { // given, or to be discovered
		a.Account = acct
		_, err = a.Fetch(context.Background(), midnightWindow, t.TempDir(), nil)
		if err == nil || err.Error() != "s3-alb: permission denied: the credentials need s3:ListBucket on arn:aws:s3:::alb-logs" {
			t.Fatalf("denied, account %q: %v", acct, err)
		}
	}
}

func TestParseS3URL(t *testing.T) {
	for in, want := range map[string]string{"s3://b/p/q/": "b p/q", "s3://b": "b ", "s3://b/": "b "} {
		b, p, err := ParseS3URL(in)
		if err != nil || b+" "+p != want {
			t.Errorf("%s: %q %q %v", in, b, p, err)
		}
	}
	for _, in := range []string{"b/p", "https://b/p", "s3:///p"} {
		if _, _, err := ParseS3URL(in); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

package live

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live/livetest"
)

func TestCloudWatchLogsFetch(t *testing.T) {
	srv := livetest.NewCloudWatch(t)
	w := Window{Since: time.Date(2024, 5, 1, 11, 45, 0, 0, time.UTC), Until: time.Date(2024, 5, 1, 12, 15, 0, 0, time.UTC)}
	ms := func(h, m int) int64 { return time.Date(2024, 5, 1, h, m, 0, 0, time.UTC).UnixMilli() }
	fluent := `{"time":"2024-05-01T12:00:01.5Z","stream":"stderr","_p":"F","log":"2024-05-01T12:00:01.5Z stderr F ` +
		strings.ReplaceAll(lbcRegistering4324, `"`, `\"`) + `","kubernetes":{"pod_name":"aws-load-balancer-controller-7d9c8f6b5-abcde","namespace_name":"kube-system"}}`
	srv.Groups["/aws/containerinsights/prod/application"] = []livetest.CloudWatchEvent{
		{Stream: "s1", Timestamp: ms(11, 30), Message: lbcRegistered3069}, // before the window
		{Stream: "s1", Timestamp: ms(12, 0), Message: lbcDeregistering3069},
		{Stream: "s1", Timestamp: ms(12, 0) + 1, Message: lbcDeregistered3069},
		{Stream: "s2", Timestamp: ms(12, 1), Message: fluent},
		{Stream: "s2", Timestamp: ms(12, 2), Message: lbcRegistered3069},
		{Stream: "s2", Timestamp: ms(12, 15), Message: lbcRegistered3069}, // at the window's end: out
	}
	srv.Groups["/empty"] = nil
	dir := t.TempDir()
	c := &CloudWatchLogs{Client: NewCloudWatchClient(testAWSConfig(srv.URL)),
		LogGroups: []string{"/aws/containerinsights/prod/application", "/empty", "/missing"}, FilterPattern: `{ $.kubernetes.container_name = "aws-load-balancer-controller" }`}
	rep, err := c.Fetch(context.Background(), w, dir, nil)
	if err == nil || err.Error() != "cloudwatch-logs: 1 of 3 log groups not saved: not found: log group /missing" {
		t.Fatalf("error = %v", err)
	}
	var calls []string
	for _, r := range srv.Requests() {
		calls = append(calls, r[:strings.Index(r, " auth=")])
	}
	const pre = `Logs_20140328.FilterLogEvents application/x-amz-json-1.1 group=`
	const pat = ` pattern="{ $.kubernetes.container_name = \"aws-load-balancer-controller\" }" start=1714563900000 end=1714565699999`
	want := []string{
		pre + "/aws/containerinsights/prod/application" + pat + ` token=""`,
		pre + "/aws/containerinsights/prod/application" + pat + ` token="e2"`, // an empty page with a token
		pre + "/aws/containerinsights/prod/application" + pat + ` token="p2"`,
		pre + "/empty" + pat + ` token=""`,
		pre + "/missing" + pat + ` token=""`,
	}
	if !slices.Equal(calls, want) {
		t.Fatalf("calls\n%s\nwant\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
	if rep.Records != 4 || !slices.Equal(rep.Files, []string{"cloudwatch/aws_containerinsights_prod_application.json"}) ||
		rep.Items[1].Status != bundle.ItemComplete || rep.Items[2].Status != bundle.ItemFailed {
		t.Fatalf("report %+v", rep)
	}
	b, _ := os.ReadFile(filepath.Join(dir, rep.Files[0]))
	var doc struct {
		Events []map[string]any `json:"events"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Events) != 4 || doc.Events[0]["logStreamName"] != "s1" || doc.Events[0]["eventId"] != "1" {
		t.Fatalf("%v %s", err, b)
	}
	c2 := &collector{}
	res, err := sources.Read(context.Background(), []string{filepath.Join(dir, rep.Files[0])}, sources.Options{}, func(*sources.InputReport) sources.Handler { return c2 })
	if err != nil || res.Inputs[0].Format != sources.FormatAWSLBC || res.Inputs[0].Skipped != 0 || len(c2.lifecycle) != 4 {
		t.Fatalf("read back: %v %+v %v %d", err, res.Inputs, res.Warnings, len(c2.lifecycle))
	}
}

func TestCloudWatchLogsDenied(t *testing.T) {
	srv := livetest.NewCloudWatch(t)
	srv.DenyGroups["/g"] = true
	c := &CloudWatchLogs{Client: NewCloudWatchClient(testAWSConfig(srv.URL)), LogGroups: []string{"/g"}}
	_, err := c.Fetch(context.Background(), Window{Since: time.Unix(0, 0), Until: time.Unix(60, 0)}, t.TempDir(), nil)
	if err == nil || err.Error() != "cloudwatch-logs: permission denied: the credentials need logs:FilterLogEvents on log group /g" {
		t.Fatalf("error = %v", err)
	}
	if got := cloudWatchFileName("arn:aws:logs:us-east-1:1:log-group:/a/b"); got != "cloudwatch/arn_aws_logs_us-east-1_1_log-group__a_b.json" {
		t.Fatal(got)
	}
}

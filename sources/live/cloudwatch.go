package live

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/readygap/readygap/sources/bundle"
)

// SourceCloudWatch names the CloudWatch Logs source in reports and errors.
const SourceCloudWatch = "cloudwatch-logs"

// CloudWatchLogs fetches the events of log groups (the AWS Load Balancer
// Controller's, ingress-nginx's, a Container Insights application group)
// with FilterLogEvents and writes each group as
// `aws logs filter-log-events --output json` would.
type CloudWatchLogs struct {
	// Client is the CloudWatch Logs client.
	Client *cloudwatchlogs.Client
	// LogGroups are the log group names (or ARNs) to read.
	LogGroups []string
	// FilterPattern is the CloudWatch filter pattern; empty matches every event.
	FilterPattern string
	// Timeouts gives the source's budget; the per-call timeouts are the
	// client's (WithAWSTimeouts).
	Timeouts Timeouts
}

// Plan returns the calls Fetch makes for w, as `aws logs` command lines.
func (c *CloudWatchLogs) Plan(w Window) []string {
	var out []string
	for _, g := range c.LogGroups {
		q := fmt.Sprintf("aws logs filter-log-events --log-group-name %s --start-time %d --end-time %d", g, w.Since.UnixMilli(), w.Until.UnixMilli()-1)
		if c.FilterPattern != "" {
			q += " --filter-pattern " + shellQuote(c.FilterPattern)
		}
		out = append(out, q)
	}
	return out
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// cloudWatchFileName turns a log group name into a bundle file name.
func cloudWatchFileName(group string) string {
	var b strings.Builder
	for _, r := range group {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return "cloudwatch/" + strings.Trim(b.String(), "_") + ".json"
}

// cloudWatchEventJSON is one element of the events array of
// `aws logs filter-log-events --output json`.
type cloudWatchEventJSON struct {
	LogStreamName string `json:"logStreamName"`
	Timestamp     int64  `json:"timestamp"`
	Message       string `json:"message"`
	IngestionTime int64  `json:"ingestionTime"`
	EventID       string `json:"eventId"`
}

// Fetch reads every log group over w (times in milliseconds, end
// inclusive, so until-1), following nextToken through empty pages, into
// dir/cloudwatch/<group>.json. A group that fails does not stop the others,
// and a group that breaks off keeps the pages read; a dead endpoint or
// rejected credentials stop the source.
func (c *CloudWatchLogs) Fetch(ctx context.Context, w Window, dir string, progress Progress) (bundle.FetchReport, error) {
	r := newRun(ctx, SourceCloudWatch, "log group", dir, c.Timeouts, progress)
	r.rep.Queries = c.Plan(w)
	for _, g := range c.LogGroups {
		c.fetchGroup(r, g, w, dir)
	}
	rep, err := r.finish()
	if err == nil && rep.Records == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no events in %s for %s", strings.Join(c.LogGroups, ", "), w))
	}
	return rep, err
}

// fetchGroup reads one log group into its file, page by page.
func (c *CloudWatchLogs) fetchGroup(r *run, group string, w Window, dir string) {
	i := r.add(bundle.Item{Kind: "log group", Name: group, Status: bundle.ItemNotRequested,
		Impact: fmt.Sprintf("the events of %s are missing: target registrations, deregistrations or proxy errors logged there are not on the timeline", group)})
	if why := r.stopReason(); why != "" {
		r.update(i, func(it *bundle.Item) { it.Reason = why })
		return
	}
	in := &cloudwatchlogs.FilterLogEventsInput{
		StartTime: aws.Int64(w.Since.UnixMilli()),
		EndTime:   aws.Int64(w.Until.UnixMilli() - 1),
	}
	if strings.HasPrefix(group, "arn:") {
		in.LogGroupIdentifier = aws.String(group)
	} else {
		in.LogGroupName = aws.String(group)
	}
	if c.FilterPattern != "" {
		in.FilterPattern = aws.String(c.FilterPattern)
	}
	f := newBundleFile(dir, cloudWatchFileName(group), `{"events":[`, "\n]}\n")
	ctx := withRetryHook(r.ctx, func(why string) { r.retry(group, why) })
	defer r.settle(group)
	n := 0
	var last int64
	p := cloudwatchlogs.NewFilterLogEventsPaginator(c.Client, in)
	var fetchErr error
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			fetchErr = err
			break
		}
		before := f.n
		for _, e := range page.Events {
			b, err := json.Marshal(cloudWatchEventJSON{
				LogStreamName: aws.ToString(e.LogStreamName), Timestamp: aws.ToInt64(e.Timestamp),
				Message: aws.ToString(e.Message), IngestionTime: aws.ToInt64(e.IngestionTime), EventID: aws.ToString(e.EventId),
			})
			if err != nil {
				continue // strings and integers always marshal
			}
			if n > 0 {
				f.Write([]byte(","))
			}
			f.Write([]byte("\n"))
			f.Write(b)
			n++
			last = max(last, aws.ToInt64(e.Timestamp))
		}
		r.settle(group)
		r.saved(len(page.Events), f.n-before)
	}
	if err := f.Close(); err != nil && fetchErr == nil {
		fe := fetchErrorf(SourceCloudWatch, err, "writing %s: %v", f.rel, err).stopping()
		r.stop(fe)
		r.update(i, func(it *bundle.Item) { it.Status, it.Reason = bundle.ItemFailed, fe.Msg })
		return
	}
	file := ""
	if f.n > 0 {
		file = f.rel
	}
	if fetchErr == nil {
		r.update(i, func(it *bundle.Item) {
			it.Status, it.File, it.Records, it.Bytes, it.Impact = bundle.ItemComplete, file, n, f.n, ""
		})
		return
	}
	why := r.fail(fetchErr, func(err error) *FetchError {
		return awsError(SourceCloudWatch, "logs:FilterLogEvents", "log group "+group, err)
	})
	r.update(i, func(it *bundle.Item) {
		it.Status, it.File, it.Records, it.Bytes, it.Reason = bundle.ItemFailed, file, n, f.n, why
		if n > 0 {
			it.Status = bundle.ItemPartial
			it.Impact = fmt.Sprintf("the events of %s after %s are missing: target registrations, deregistrations or proxy errors logged after it are not on the timeline",
				group, time.UnixMilli(last).UTC().Format(time.RFC3339Nano))
		}
	})
}

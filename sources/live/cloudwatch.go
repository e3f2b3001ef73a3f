package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
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
// dir/cloudwatch/<group>.json. A group that fails does not stop the others;
// the errors are joined.
func (c *CloudWatchLogs) Fetch(ctx context.Context, w Window, dir string, progress Progress) (FetchReport, error) {
	rep := FetchReport{Source: SourceCloudWatch, Queries: c.Plan(w), Files: []string{}}
	var errs []error
	for _, g := range c.LogGroups {
		if err := c.fetchGroup(ctx, g, w, dir, &rep, progress); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && rep.Records == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("no events in %s for %s", strings.Join(c.LogGroups, ", "), w))
	}
	return rep, errors.Join(errs...)
}

// fetchGroup reads one log group into its file.
func (c *CloudWatchLogs) fetchGroup(ctx context.Context, group string, w Window, dir string, rep *FetchReport, progress Progress) error {
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
	f, err := createBundleFile(dir, cloudWatchFileName(group))
	if err != nil {
		return err
	}
	f.WriteString(`{"events":[`)
	n := 0
	p := cloudwatchlogs.NewFilterLogEventsPaginator(c.Client, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			f.Remove()
			return awsError(SourceCloudWatch, "logs:FilterLogEvents", "log group "+group, err)
		}
		for _, e := range page.Events {
			b, err := json.Marshal(cloudWatchEventJSON{
				LogStreamName: aws.ToString(e.LogStreamName), Timestamp: aws.ToInt64(e.Timestamp),
				Message: aws.ToString(e.Message), IngestionTime: aws.ToInt64(e.IngestionTime), EventID: aws.ToString(e.EventId),
			})
			if err != nil {
				f.Remove()
				return err
			}
			if n > 0 {
				f.WriteString(",")
			}
			f.WriteString("\n")
			f.Write(b)
			n++
		}
		if progress != nil {
			progress(SourceCloudWatch, rep.Records+n, rep.Bytes+f.n)
		}
	}
	f.WriteString("\n]}\n")
	if err := f.Close(); err != nil {
		return err
	}
	rep.Records += n
	rep.Bytes += f.n
	rep.Files = append(rep.Files, f.rel)
	return nil
}

package report

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/internal/golden"
)

// TestRenderMarkdownGolden compares the Markdown report of each fixture
// with testdata/NAME.md (go test -update rewrites them) and checks that the
// summary comes first.
func TestRenderMarkdownGolden(t *testing.T) {
	for _, name := range textFixtures {
		t.Run(name, func(t *testing.T) {
			rep := saved(t, name)
			md := render(t, Markdown, rep)
			golden.Assert(t, filepath.Join("testdata", name+".md"), []byte(md))
			first := strings.Index(md, "\n### ")
			if first < 0 {
				t.Fatalf("no section:\n%s", md)
			}
			head := md[:first]
			for _, want := range []string{"Data: ", strconv.Itoa(rep.Summary.Requests) + " requests"} {
				if !strings.Contains(head, want) {
					t.Errorf("summary before the first section lacks %q:\n%s", want, head)
				}
			}
			if len(rep.Incidents) > 0 {
				for i, c := range rep.Summary.Changes {
					if !strings.Contains(head, strconv.Itoa(i+1)+". "+mdText(c.Title)) {
						t.Errorf("summary lacks change %d %q", i+1, c.Title)
					}
				}
			}
		})
	}
}

// TestMarkdownWithoutIncidentKeepsEveryCount checks that the control's
// report states the requests, the application's own 5xx and the requests a
// retry rescued, as the text report does.
func TestMarkdownWithoutIncidentKeepsEveryCount(t *testing.T) {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	rep := &Report{Summary: Summary{Requests: 1234, AppErrors: 17, First: start, Last: start.Add(time.Minute)},
		Series: &Series{Start: start, StepSeconds: 60, Columns: SeriesColumns, Values: [][]int{{1200, 17, 0, 0, 0, 0, 0, 0, 9}}}}
	for _, f := range []Format{Markdown, Text} {
		out := render(t, f, rep)
		for _, want := range []string{"No incident", "1234 requests", "17 application 5xx", "9 requests outside incidents failed on a first attempt"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", f, want, out)
			}
		}
	}
}

var (
	reMermaidPad     = regexp.MustCompile(`"leftPadding": (\d+)`)
	reMermaidSection = regexp.MustCompile(`^    section (.*)$`)
	reMermaidTask    = regexp.MustCompile(`^    (\S[^:]*) :(?:\w+, )*(\S+), (\S+)$`)
)

// TestMermaidTasksNeverOverlap checks the gantt chart of every fixture:
// the tasks of a section (one lane) follow each other without overlapping,
// every task is one of the four states or a failure run, and the left
// margin holds the longest section title, so that no label lies on a bar.
func TestMermaidTasksNeverOverlap(t *testing.T) {
	const layout = "2006-01-02T15:04:05.000"
	for _, name := range append(textFixtures, "eks-alb-large", "hostile-content") {
		md := render(t, Markdown, saved(t, name))
		i := strings.Index(md, "```mermaid\n")
		if i < 0 {
			t.Fatalf("%s: no Mermaid chart", name)
		}
		chart := md[i : i+strings.Index(md[i+3:], "```")+3]
		m := reMermaidPad.FindStringSubmatch(chart)
		if m == nil {
			t.Fatalf("%s: no leftPadding", name)
		}
		pad, _ := strconv.Atoi(m[1])
		var prevEnd time.Time
		sections := 0
		for _, line := range strings.Split(chart, "\n") {
			if s := reMermaidSection.FindStringSubmatch(line); s != nil {
				sections++
				prevEnd = time.Time{}
				if w := len([]rune(s[1])) * mermaidCharWidth; w > pad {
					t.Errorf("%s: section %q needs %d px, the margin is %d", name, s[1], w, pad)
				}
				continue
			}
			task := reMermaidTask.FindStringSubmatch(line)
			if task == nil {
				continue
			}
			switch task[1] {
			case "starting", "Ready", "LB-healthy", "terminating", "5xx":
			default:
				t.Errorf("%s: unexpected task %q", name, task[1])
			}
			from, err1 := time.Parse(layout, task[2])
			to, err2 := time.Parse(layout, task[3])
			if err1 != nil || err2 != nil || !to.After(from) {
				t.Errorf("%s: task %q has no extent", name, line)
			}
			if from.Before(prevEnd) {
				t.Errorf("%s: task %q starts before the previous one of its section ends (%s)", name, line, prevEnd.Format(layout))
			}
			prevEnd = to
		}
		if sections == 0 || sections > maxMermaidLanes+1 {
			t.Errorf("%s: %d sections, want 1..%d", name, sections, maxMermaidLanes+1)
		}
	}
}

// TestMarkdownBoundsBackends pins the Markdown backends table to the text's
// bound on each side: maxTableBackends rows, then one line for the rest.
func TestMarkdownBoundsBackends(t *testing.T) {
	for n, rest := range map[int]string{
		MaxTableBackends:     "",
		MaxTableBackends + 1: "\n…and 1 more old backend, with 1 failed attempt; the JSON report lists every one.\n",
		MaxTableBackends + 2: "\n…and 2 more backends (2 old), 1 failed attempt each; the JSON report lists every one.\n",
	} {
		md := render(t, Markdown, boundsReport(n, n))
		more := rest != "" && strings.Contains(md, rest)
		if rows := strings.Count(md, "\n| old | "); rows != MaxTableBackends || more != (rest != "") || (rest == "" && strings.Contains(md, "…and ")) {
			t.Errorf("%d backends: %d rows, the line for the rest %q present %v:\n%s", n, rows, rest, more, md)
		}
	}
}

// TestSummaryNamesAWorkloadOnce checks that the text and Markdown summaries
// name a workload that rolled out twice once, each rollout under it with
// its own steps, while a workload that rolled out once keeps its title.
func TestSummaryNamesAWorkloadOnce(t *testing.T) {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	rep := &Report{Summary: Summary{Incidents: 3, First: start, Last: start.Add(time.Hour)}}
	for i, ro := range []Rollout{
		{ID: "rollout-1", Workload: "Deployment/web", Namespace: "shop", OldReplicaSets: []string{"web-aaaa"}, NewReplicaSet: "web-bbbb"},
		{ID: "rollout-2", Workload: "Deployment/web", Namespace: "shop", OldReplicaSets: []string{"web-bbbb"}, NewReplicaSet: "web-cccc"},
		{ID: "rollout-3", Workload: "Deployment/api", Namespace: "shop", OldReplicaSets: []string{"api-aaaa"}, NewReplicaSet: "api-bbbb"},
	} {
		ro.Start, ro.End = start.Add(time.Duration(i)*20*time.Minute), start.Add(time.Duration(i)*20*time.Minute+2*time.Minute)
		rep.Rollouts = append(rep.Rollouts, ro)
		rep.Incidents = append(rep.Incidents, Incident{ID: "incident-" + strconv.Itoa(i+1), Rollout: ro.ID, Cause: "termination_race", Confidence: "high",
			Start: ro.Start.Add(time.Minute), End: ro.End, DurationSeconds: 60, FailedRequests: 10 * (i + 1)})
	}
	text := renderTextAt(t, rep, 80)
	md := render(t, Markdown, rep)
	for _, c := range []struct {
		format, out string
		want        []string
	}{
		{"text", text, []string{"\nRollouts of Deployment/web in shop\n10:00:00–10:02:00: web-aaaa → web-bbbb\n  #1 ",
			"\n10:20:00–10:22:00: web-bbbb → web-cccc\n  #2 ", "\nRollout of Deployment/api in shop, 10:40:00–10:42:00: api-aaaa → api-bbbb\n  #3 "}},
		{"Markdown", md, []string{"**Rollouts of Deployment/web in shop**\n\n| Rollout (UTC) | # |",
			"|\n| 10:00:00–10:02:00: web-aaaa → web-bbbb | [1](#", "|\n| 10:20:00–10:22:00: web-bbbb → web-cccc | [2](#",
			"**Rollout of Deployment/api in shop, 10:40:00–10:42:00: api-aaaa → api-bbbb**\n\n| # | Start (UTC) |", "| [3](#"}},
	} {
		summary := c.out[:strings.Index(strings.ToLower(c.out), "incident 1 of 3:")]
		for _, w := range c.want {
			if !strings.Contains(summary, w) {
				t.Errorf("%s summary lacks %q:\n%s", c.format, w, summary)
			}
		}
		if n := strings.Count(summary, "Deployment/web"); n != 1 {
			t.Errorf("%s summary names Deployment/web %d times, want once:\n%s", c.format, n, summary)
		}
	}
}

// TestTimeoutLabelsCapitalised checks that a timeout, named in lower case
// for the middle of a sentence, starts its line in upper case where it is
// a label: in Markdown's list and HTML's; the text report keeps it in a
// sentence.
func TestTimeoutLabelsCapitalised(t *testing.T) {
	rep := &Report{Schema: SchemaVersion, Summary: Summary{Incidents: 1, FailedRequests: 5},
		Incidents: []Incident{{ID: "incident-1", Start: day0, End: day0.Add(time.Minute), DurationSeconds: 60, Cause: "keepalive_timeout", Confidence: "high", FailedRequests: 5,
			Timeouts: []Timeout{{What: "the ALB's idle timeout", Seconds: 60, Source: "the ALB default"}, {What: "ingress-nginx upstream-keepalive-timeout", Seconds: 60, Source: "default"}}}}}
	for f, wants := range map[Format][]string{
		Markdown: {"- **The ALB's idle timeout:** 60 s", "- **Ingress-nginx upstream-keepalive-timeout:** 60 s"},
		HTML:     {"<li>The ALB&#39;s idle timeout: 60 s", "<li>Ingress-nginx upstream-keepalive-timeout: 60 s"},
		Text:     {"Timeouts: the ALB's idle timeout 60 s"},
	} {
		out := render(t, f, rep)
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", f, want, out)
			}
		}
	}
}

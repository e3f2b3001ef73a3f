package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
)

// day0 is the start of the synthetic data of these tests.
var day0 = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// collect feeds requests of one second each, from (offset, count) pairs,
// and the given failures to a collector and builds the report.
func reportOf(t *testing.T, seconds map[time.Time]int, failures []time.Time, win *report.Window) *report.Report {
	t.Helper()
	c := correlate.NewCollector()
	backend := netip.MustParseAddrPort("10.0.0.5:8080")
	for at, n := range seconds {
		for i := 0; i < n; i++ {
			c.Request(&sources.Request{Time: at, Status: 200, Generator: sources.GeneratedByBackend, Backend: backend, Format: sources.FormatALBAccess})
		}
	}
	for i, at := range failures {
		c.Request(&sources.Request{Time: at, Status: 503, Generator: sources.GeneratedByLB, Failure: sources.FailureNoBackend,
			Format: sources.FormatALBAccess, Origin: sources.Origin{File: "alb.log", Line: i + 1}})
	}
	a := correlate.Analyze(correlate.Merge(c), correlate.Options{})
	return newReport(&sources.Result{}, a, classify.Classify(a), win)
}

// TestSeriesIsBoundedWhateverTheSpan checks the series of data with
// records a week apart and of data with stray records in year 1 and 9999:
// the overview never holds more than maxSeriesPoints rows, an incident's
// detail is at one second, stray records are counted in Outside and a
// warning but size nothing, and every request of the axis is in a row.
func TestSeriesIsBoundedWhateverTheSpan(t *testing.T) {
	seconds := map[time.Time]int{}
	for s := 0; s < 600; s++ {
		seconds[day0.Add(time.Duration(s)*time.Second)] = 3
	}
	var fails []time.Time
	for s := 0; s < 20; s++ {
		fails = append(fails, day0.Add(300*time.Second+time.Duration(s)*time.Second))
	}
	t.Run("a week apart", func(t *testing.T) {
		week := map[time.Time]int{}
		for k, v := range seconds {
			week[k] = v
			week[k.Add(7*24*time.Hour)] = v // the same traffic a week later: real data, widening the axis
		}
		rep := reportOf(t, week, fails, nil)
		s := rep.Series
		if n := len(s.Values); n > maxSeriesPoints || s.StepSeconds < 600 {
			t.Errorf("%d rows of %d s for a week, want at most %d", n, s.StepSeconds, maxSeriesPoints)
		}
		if len(s.Detail) != 1 || s.Detail[0].StepSeconds != 1 || len(s.Detail[0].Values) > int((20*time.Second+2*detailContext)/time.Second)+1 {
			t.Fatalf("detail %+v, want the incident and its context at one second", s.Detail)
		}
		if got := sumColumn(s.Values, report.ColOK); got != 2*600*3 {
			t.Errorf("overview holds %d ok requests, want %d", got, 2*600*3)
		}
		if got := lbFailedRows(s.Detail[0].Values); got != 20 {
			t.Errorf("detail holds %d failures, want 20", got)
		}
		if rep.Summary.Last.Sub(rep.Summary.First) < 7*24*time.Hour || s.Outside != 0 {
			t.Errorf("axis %v – %v, outside %d: a week of real data must be on the axis", rep.Summary.First, rep.Summary.Last, s.Outside)
		}
	})
	t.Run("stray years", func(t *testing.T) {
		stray := map[time.Time]int{}
		for k, v := range seconds {
			stray[k] = v
		}
		stray[time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)] = 1
		stray[time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)] = 2
		rep := reportOf(t, stray, fails, nil)
		s := rep.Series
		if s.StepSeconds != 1 || len(s.Values) != 600 || s.Outside != 3 {
			t.Errorf("step %d, %d rows, %d outside; want the 600 seconds at 1 s and the 3 stray requests outside", s.StepSeconds, len(s.Values), s.Outside)
		}
		if !rep.Summary.First.Equal(day0) || !rep.Summary.Last.Equal(day0.Add(600*time.Second)) {
			t.Errorf("axis %v – %v, want the 10 minutes of data", rep.Summary.First, rep.Summary.Last)
		}
		// Said once, as a caveat: not again among the warnings.
		warned := strings.Join(rep.Summary.Caveats, "\n")
		if !strings.Contains(warned, "3 records (3 requests, 0 events) lie more than 24 h 0 min from the rest") || !strings.Contains(warned, "0001-01-01 00:00:00 – 9999-12-31 23:59:59") {
			t.Errorf("no caveat about the stray records: %s", warned)
		}
		for _, w := range rep.Warnings {
			if strings.Contains(w, "lie more than") {
				t.Errorf("the stray records are a warning too: %s", w)
			}
		}
		if rep.Summary.Requests != 600*3+3+20 {
			t.Errorf("summary counts %d requests, want every one of %d, stray ones too", rep.Summary.Requests, 600*3+3+20)
		}
		var buf bytes.Buffer
		must(t, report.Write(&buf, report.JSON, rep))
		if buf.Len() > 200_000 {
			t.Errorf("JSON of 10 minutes with stray years is %d bytes", buf.Len())
		}
	})
}

func sumColumn(rows [][]int, col int) int {
	n := 0
	for _, r := range rows {
		n += r[col]
	}
	return n
}

func lbFailedRows(rows [][]int) int {
	n := 0
	for _, r := range rows {
		n += report.LBFailed(r)
	}
	return n
}

// TestStepFor pins the step choice on each side of the bound.
func TestStepFor(t *testing.T) {
	for _, tt := range []struct {
		first, end, want int64
	}{
		{0, maxSeriesPoints, 1},
		{0, maxSeriesPoints + 1, 2},
		{1, 2 * maxSeriesPoints, 2},   // rows of 2 s from 0 cover [1, 2000) in 1000
		{1, 2*maxSeriesPoints + 1, 5}, // … but not [1, 2001)
		{0, 86400 * maxSeriesPoints, 86400},
		{0, 86400*maxSeriesPoints + 1, 2 * 86400},
	} {
		if got := stepFor(tt.first, tt.end, maxSeriesPoints); got != tt.want {
			t.Errorf("stepFor(%d, %d) = %d, want %d", tt.first, tt.end, got, tt.want)
		}
		step := stepFor(tt.first, tt.end, maxSeriesPoints)
		if rows := (tt.end - floorDiv(tt.first, step)*step + step - 1) / step; rows > maxSeriesPoints {
			t.Errorf("stepFor(%d, %d) = %d gives %d rows", tt.first, tt.end, step, rows)
		}
	}
}

// TestLaneStates pins how a backend's lifecycle (correlate.Lifecycle, where
// the stages themselves are tested) is drawn on the axis: clamped to it, a
// stage begun before it marked so, one after it left out, each stage named
// as the contract does.
func TestLaneStates(t *testing.T) {
	at := func(s int) time.Time { return day0.Add(time.Duration(s) * time.Second) }
	x := dataAxis{correlate.Axis{First: at(0), Last: at(100), OK: true}}
	type st struct {
		state    string
		from, to int
		inferred string
	}
	pod := func(ms map[correlate.Milestone]int) *correlate.Backend {
		b := &correlate.Backend{Namespace: "shop", Pod: "web-a-1"}
		for m, s := range ms {
			b.Moments[m] = &correlate.Moment{Time: at(s)}
		}
		return b
	}
	healthyLate := pod(map[correlate.Milestone]int{correlate.Created: 10})
	healthyLate.FirstServed, healthyLate.LastServed = at(40), at(99)
	for _, tt := range []struct {
		name string
		b    *correlate.Backend
		want []st
	}{
		{"every state, named as the contract does", pod(map[correlate.Milestone]int{correlate.Created: 10, correlate.Ready: 20, correlate.LBHealthy: 35, correlate.Terminating: 80, correlate.Deleted: 90}),
			[]st{{report.StateStarting, 10, 20, ""}, {report.StateReady, 20, 35, ""}, {report.StateLBHealthy, 35, 80, ""}, {report.StateTerminating, 80, 90, ""}}},
		{"how a state was found is kept", healthyLate,
			[]st{{report.StateStarting, 10, 40, ""}, {report.StateLBHealthy, 40, 100, "first served"}}},
		{"created before the data", pod(map[correlate.Milestone]int{correlate.Created: -50, correlate.Ready: -40}),
			[]st{{report.StateReady, 0, 100, "before the data began"}}},
		{"gone before the data", pod(map[correlate.Milestone]int{correlate.Created: -50, correlate.Deleted: -10}), nil},
		{"created after the data", pod(map[correlate.Milestone]int{correlate.Created: 150}), nil},
		{"past the data's end", pod(map[correlate.Milestone]int{correlate.Created: 90, correlate.Ready: 95, correlate.Deleted: 300}),
			[]st{{report.StateStarting, 90, 95, ""}, {report.StateReady, 95, 100, ""}}},
	} {
		var got []st
		for _, s := range laneStates(tt.b, x) {
			if s.From.Location() != time.UTC || s.To.Location() != time.UTC {
				t.Errorf("%s: %v–%v not in UTC", tt.name, s.From, s.To)
			}
			got = append(got, st{s.State, int(s.From.Sub(day0) / time.Second), int(s.To.Sub(day0) / time.Second), s.Inferred})
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestCutByWindow pins the flag on incidents the window may have cut: a
// first failure closer to --since than the merge gap, a last one closer to
// --until.
func TestCutByWindow(t *testing.T) {
	gap := 5 * time.Second
	in := report.Incident{Start: day0.Add(4 * time.Second), End: day0.Add(20 * time.Second)}
	for _, tt := range []struct {
		win  *report.Window
		want string
	}{
		{nil, ""},
		{&report.Window{Since: day0}, "starts before --since"},
		{&report.Window{Since: day0.Add(-time.Second)}, ""}, // 5 s before the first failure: no failure could join it
		{&report.Window{Until: day0.Add(24 * time.Second)}, "ends after --until"},
		{&report.Window{Until: day0.Add(25 * time.Second)}, ""},
		{&report.Window{Since: day0, Until: day0.Add(21 * time.Second)}, "starts before --since, ends after --until"},
	} {
		if got := cutBy(tt.win, in, gap); got != tt.want {
			t.Errorf("window %+v: %q, want %q", tt.win, got, tt.want)
		}
	}
}

// TestRendersTheFieldsTheRulesWillFill renders a synthetic report with the
// contract fields the rules do not fill yet (rollouts, clocks, notes, a
// spread-out rate, timeouts, sampled counts, per-backend requests and
// joins, a trigger and a cut) and checks that every format shows them.
func TestRendersTheFieldsTheRulesWillFill(t *testing.T) {
	at := func(s int) time.Time { return day0.Add(time.Duration(s) * time.Second) }
	rep := &report.Report{Schema: report.SchemaVersion,
		Inputs:   []report.Input{{Name: "bundle/lb.json", Format: "gcp-logging", Records: 100, First: at(0), Last: at(600)}},
		Clocks:   []report.Clock{{Source: "kubernetes", OffsetSeconds: -2.5, Pairs: 4, How: "NEG attach against the first request to the new pod"}},
		Rollouts: []report.Rollout{{ID: "rollout-1", Workload: "Deployment/web", Namespace: "shop", OldReplicaSets: []string{"web-old1"}, NewReplicaSet: "web-new2", Revision: "7", Start: at(60), End: at(300)}},
		Notes:    []string{"2 LB 5xx at 00:01 without a mechanism"},
		Incidents: []report.Incident{{ID: "incident-1", Start: at(100), End: at(130), DurationSeconds: 30, Cause: "termination_race", Confidence: "high",
			Rollout: "rollout-1", Trigger: "node_drain", Cut: "starts before --since", FailedRequests: 120, LoggedFailedRequests: 12, SampleRate: 0.1,
			StatusCounts: map[string]int{"502": 120}, Summary: "Old pods stopped listening.",
			Backends: []report.Backend{{IP: "10.0.0.5", Pod: "web-old1-abcde", ReplicaSet: "web-old1", Role: "old", Failures: 15, FailedRequests: 12,
				Start: at(100), End: at(130), Why: "terminating from 00:01:40", Joined: "EndpointSlice at 00:01:35"}},
			Remediation: []report.Remediation{{Title: "Delay SIGTERM", Why: "because", Patch: "a: 1\n"}},
			Rate:        &report.Rate{PerHour: 3.5, Share: 0.0002, Backends: 7, Hours: 5.5},
			Timeouts:    []report.Timeout{{What: "ALB idle timeout", Seconds: 60, Source: "default"}, {What: "app keep-alive", Seconds: 5, Source: "Deployment/web env KEEPALIVE"}},
		}},
	}
	rep.Summary = report.Summary{Incidents: 1, FailedRequests: 120, LoggedFailedRequests: 12, Requests: 1000,
		Changes: []report.Change{{Remediation: rep.Incidents[0].Remediation[0], Incidents: []string{"incident-1"}}}}
	rep.Summary.Caveats = caveats(rep, dataAxis{})
	for _, f := range report.Formats {
		out := render(t, f, rep)
		if f == report.JSON {
			var back report.Report
			must(t, json.Unmarshal([]byte(out), &back))
			continue
		}
		for _, want := range []string{
			"Deployment/web", "web-old1 → web-new2", // the rollout the incident belongs to
			"shifted by -2.5 s", "sampled at 10 %", "estimated from 12 logged", // caveats and sampled counts
			"starts before --since", "triggered by node drain",
			"3.5 failed requests an hour", "ALB idle timeout", "Deployment/web env KEEPALIVE",
			"12 requests", "15 attempts", "EndpointSlice at 00:01:35", // requests and attempts named as such
			"2 LB 5xx at 00:01 without a mechanism",
		} {
			if f == report.HTML {
				want = strings.ReplaceAll(want, "→", "→")
			}
			if f == report.Markdown {
				want = report.MdInline(want)
			}
			if f == report.HTML && (want == "12 requests" || want == "15 attempts") {
				continue // the HTML table has a column for each
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q", f, want)
			}
		}
		if f == report.HTML && !strings.Contains(out, "<th class=\"num\">failed requests</th><th class=\"num\">failed attempts</th>") {
			t.Errorf("HTML backends table lacks the requests and attempts columns")
		}
	}
}

// reDigits are the numbers of a patch, which sizing changes.
var reDigits = regexp.MustCompile(`[0-9]+`)

// TestSummaryStatesEachChangeOnce checks the fixtures with several
// incidents of one workload: no two changes of the summary set the same
// fields (their patches differ in more than numbers), and every fix of
// every incident is a change listed for that incident that sets the same
// fields to numbers at least its own. Their preStop sleeps differ, so the
// summary's is the longest.
func TestSummaryStatesEachChangeOnce(t *testing.T) {
	for _, name := range []string{"eks-alb-ip-reuse", "nginx-wrong-probe-port-two-rollouts", "nginx-canary-wrong-probe-port", "gke-neg-zone-move"} {
		t.Run(name, func(t *testing.T) {
			rep := analyze(t, fixture(name))
			shape := func(r report.Remediation) string {
				if r.Patch == "" {
					return r.Title + "\n" + r.Why
				}
				return reDigits.ReplaceAllString(r.Patch, "N")
			}
			seen := map[string]int{}
			for i, c := range rep.Summary.Changes {
				if j, ok := seen[shape(c.Remediation)]; ok {
					t.Errorf("changes %d and %d set the same fields:\n%s", j+1, i+1, c.Patch)
				}
				seen[shape(c.Remediation)] = i
			}
			for _, in := range rep.Incidents {
				for _, r := range in.Remediation {
					i, ok := seen[shape(r)]
					if !ok || !slices.Contains(rep.Summary.Changes[i].Incidents, in.ID) {
						t.Errorf("%s: fix %q is no change listed for it", in.ID, r.Title)
						continue
					}
					got, want := reDigits.FindAllString(rep.Summary.Changes[i].Patch, -1), reDigits.FindAllString(r.Patch, -1)
					for k := range want {
						g, _ := strconv.Atoi(got[k])
						w, _ := strconv.Atoi(want[k])
						if g < w {
							t.Errorf("%s: change %d sets %d where the incident's own fix needs %d:\n%s", in.ID, i+1, g, w, rep.Summary.Changes[i].Patch)
						}
					}
				}
			}
		})
	}
	rep := analyze(t, fixture("eks-alb-ip-reuse"))
	longest, sleeps := 0, map[int]bool{}
	for _, in := range rep.Incidents {
		for _, r := range in.Remediation {
			var s int
			if n, _ := fmt.Sscanf(r.Title, "Delay SIGTERM with a %d s preStop sleep", &s); n == 1 {
				sleeps[s] = true
				longest = max(longest, s)
			}
		}
	}
	want := fmt.Sprintf("Delay SIGTERM with a %d s preStop sleep", longest)
	if len(sleeps) < 2 || len(rep.Summary.Changes) == 0 || rep.Summary.Changes[0].Title != want || len(rep.Summary.Changes[0].Incidents) != len(rep.Incidents) {
		t.Errorf("the incidents' sleeps %v; the summary's first change %+v, want %q for every incident", sleeps, rep.Summary.Changes, want)
	}
}

// TestObjectTimesDoNotStretchTheAxis checks that the times a snapshot of
// Kubernetes objects gives (an old pod created three days before the logs)
// neither widen the axis nor count as stray records, however many of them
// there are, while as many events from an event log at that time are data
// and widen it; objects alone still give an axis.
func TestObjectTimesDoNotStretchTheAxis(t *testing.T) {
	seconds := map[time.Time]int{}
	for s := 0; s < 100; s++ {
		seconds[day0.Add(time.Duration(s)*time.Second)] = 1
	}
	old := day0.Add(-72 * time.Hour)
	build := func(requests map[time.Time]int, format sources.Format, events int) *report.Report {
		c := correlate.NewCollector()
		for at, n := range requests {
			for i := 0; i < n; i++ {
				c.Request(&sources.Request{Time: at, Status: 200, Generator: sources.GeneratedByBackend, Backend: netip.MustParseAddrPort("10.0.0.5:8080"), Format: sources.FormatALBAccess})
			}
		}
		for i := 0; i < events; i++ {
			c.Lifecycle(&sources.Lifecycle{Time: old.Add(time.Duration(i) * time.Second), Kind: sources.PodCreated, Namespace: "shop", Pod: fmt.Sprintf("web-7c9f8d6b5d-p%04d", i),
				From: -1, FromAPI: true, Format: format, Origin: sources.Origin{File: "objects.yaml", Line: i + 1}})
		}
		a := correlate.Analyze(correlate.Merge(c), correlate.Options{})
		return newReport(&sources.Result{}, a, classify.Classify(a), nil)
	}
	// Ten records are 10 % of the data: far above farShare.
	rep := build(seconds, sources.FormatK8sObjects, 10)
	if !rep.Summary.First.Equal(day0) || !rep.Summary.Last.Equal(day0.Add(100*time.Second)) || len(rep.Summary.Caveats) != 0 {
		t.Errorf("objects: axis %v – %v, caveats %q; want the 100 s of logs and no caveat", rep.Summary.First, rep.Summary.Last, rep.Summary.Caveats)
	}
	if rep := build(seconds, sources.FormatK8sEvents, 10); !rep.Summary.First.Equal(old) {
		t.Errorf("events: axis from %v, want it widened to the events at %v", rep.Summary.First, old)
	}
	if rep := build(nil, sources.FormatK8sObjects, 10); !rep.Summary.First.Equal(old) || !rep.Summary.Last.Equal(old.Add(9*time.Second)) {
		t.Errorf("objects alone: axis %v – %v, want theirs", rep.Summary.First, rep.Summary.Last)
	}
}

// TestRequestWordsAPortOnlyWhenLogged checks that a backend the log names
// without a port (Google's load balancer logs serverIp alone) is written as
// its IP, not with a port 0 no log gave, and one with a port keeps it.
func TestRequestWordsAPortOnlyWhenLogged(t *testing.T) {
	for backend, want := range map[string]string{"10.52.2.182:0": "502 connection refused from 10.52.2.182 (", "10.0.1.5:8080": "from 10.0.1.5:8080 ("} {
		r := &sources.Request{Method: "GET", Path: "/", Status: 502, Generator: sources.GeneratedByLB, Failure: sources.FailureRefused,
			Backend: netip.MustParseAddrPort(backend), Detail: "failed_to_connect_to_backend"}
		if got := describeRequest(r); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", backend, got, want)
		}
		r.AttemptOnly = true
		if got, ip := describeRequest(r), strings.TrimSuffix(backend, ":0"); !strings.Contains(got, "attempt to "+ip+" failed") {
			t.Errorf("%s, an attempt: %q lacks the backend %s", backend, got, ip)
		}
	}
}

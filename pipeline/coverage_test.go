package pipeline

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
)

// probeFixed is a fixture whose rollout goes well: its request log covers
// the rollout, and it gives no incident.
func probeFixed(name string) string { return filepath.Join(fixture("nginx-probe-fixed"), name) }

// assertVerdictEverywhere checks that every format of rep heads with want
// ("No incident:", "Cannot judge:") and, for cannot judge, names why.
func assertVerdictEverywhere(t *testing.T, rep *report.Report, want, why string) {
	t.Helper()
	for _, f := range report.Formats {
		out := render(t, f, rep)
		if f == report.JSON {
			var doc struct {
				Summary struct {
					Verdict     string `json:"verdict"`
					CannotJudge string `json:"cannot_judge"`
					Coverage    []report.Coverage
				}
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("json: %v\n%s", err, out)
			}
			if doc.Summary.Verdict != rep.Summary.Verdict || !strings.Contains(doc.Summary.CannotJudge, why) || len(doc.Summary.Coverage) < len(alwaysListed) {
				t.Errorf("json summary %+v, want verdict %s naming %q", doc.Summary, rep.Summary.Verdict, why)
			}
			continue
		}
		// Text wraps at spaces, Markdown and HTML mark words up.
		out = strings.Join(strings.Fields(strings.ReplaceAll(strings.ReplaceAll(out, "<wbr>", ""), "**", "")), " ")
		if !strings.Contains(out, want) || (why != "" && !strings.Contains(out, why)) {
			t.Errorf("%s does not say %q %q:\n%s", f, want, why, out[:min(len(out), 1500)])
		}
		if want != "No incident:" && strings.Contains(out, "No incident") {
			t.Errorf("%s says No incident:\n%s", f, out[:min(len(out), 1500)])
		}
	}
}

func TestCoverageOnlyEventsAndObjectsCannotJudge(t *testing.T) {
	rep := analyze(t, probeFixed("events.json"), probeFixed("objects.yaml"))
	if rep.Summary.Verdict != report.VerdictCannotJudge || len(rep.Incidents) != 0 {
		t.Fatalf("verdict %q with %d incidents, want cannot_judge", rep.Summary.Verdict, len(rep.Incidents))
	}
	assertVerdictEverywhere(t, rep, "Cannot judge:", "no request log was read: the inputs read hold only events and objects")
	// The control: the same inputs with the request log judge.
	full := analyze(t, fixture("nginx-probe-fixed"))
	if full.Summary.Verdict != report.VerdictNoIncident || full.Summary.CannotJudge != "" {
		t.Fatalf("with the request log: verdict %q (%s), want no_incident", full.Summary.Verdict, full.Summary.CannotJudge)
	}
	assertVerdictEverywhere(t, full, "No incident:", "")
}

func TestCoverageUnknownFormatCannotJudge(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "table.txt"), []byte("NAME  READY  STATUS\nweb-1  1/1  Running\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "empty.json"), nil, 0o644))
	rep, err := Analyze(t.Context(), []string{dir}, Options{})
	if err != nil {
		t.Fatalf("an input in no known format is a report, not an error: %v", err)
	}
	if rep.Summary.Verdict != report.VerdictCannotJudge || len(rep.Unread) != 2 {
		t.Fatalf("verdict %q, unread %+v", rep.Summary.Verdict, rep.Unread)
	}
	for _, u := range rep.Unread {
		if u.Reason == "" || !strings.HasPrefix(u.Name, dir) {
			t.Errorf("unread %+v: no reason", u)
		}
	}
	// The per-file reason the reading gives is what the headline shows.
	why := "no request log was read: 2 files not read (" + rep.Unread[0].Name + ": " + rep.Unread[0].Reason
	assertVerdictEverywhere(t, rep, "Cannot judge:", why)
	if text := render(t, report.Text, rep); !strings.Contains(text, "not read") || !strings.Contains(text, "request logs     none read") {
		t.Errorf("text lacks the coverage lines:\n%s", text)
	}
}

func TestCoverageLinesCountEachKind(t *testing.T) {
	rep := analyze(t, fixture("nginx-probe-fixed"))
	got := map[string]report.Coverage{}
	for _, c := range rep.Summary.Coverage {
		got[c.Kind] = c
	}
	if len(rep.Summary.Coverage) != 4 {
		t.Fatalf("coverage %+v, want the four kinds every report lists", rep.Summary.Coverage)
	}
	want := map[string]int{"request_logs": 1837, "events": 40, "objects": 22, "controller_logs": 0}
	for kind, n := range want {
		if c := got[kind]; c.Records != n || (n > 0) != (c.Files == 1) {
			t.Errorf("%s: %+v, want %d records", kind, c, n)
		}
	}
	req := got["request_logs"]
	// The first request started at 06:19:45.000217 (its line, written
	// 2 ms later, less its $request_time).
	if req.First != time.Date(2026, 2, 11, 6, 19, 45, 217458, time.UTC) || req.Last.Format(time.TimeOnly) != "06:22:44" {
		t.Errorf("request logs cover %s – %s", req.First, req.Last)
	}
	// Every record of every input is counted under one kind.
	records, kinds := 0, 0
	for _, in := range rep.Inputs {
		records += in.Records
	}
	for _, c := range rep.Summary.Coverage {
		kinds += c.Records
	}
	if records != kinds {
		t.Errorf("the inputs hold %d records, the kinds %d", records, kinds)
	}
}

// cutLog writes the lines of the fixture's request log whose time is before
// until, and returns its path.
func cutLog(t *testing.T, until string) string {
	t.Helper()
	f, err := os.Open(probeFixed("ingress-nginx-controller.log"))
	must(t, err)
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if sc.Text() < until {
			b.WriteString(sc.Text() + "\n")
		}
	}
	path := filepath.Join(t.TempDir(), "ingress-nginx.log")
	must(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

func TestCoverageRequestLogMissesTheRollout(t *testing.T) {
	for _, c := range []struct {
		until, verdict, why string
	}{
		{"2026-02-11T06:20:00", report.VerdictCannotJudge, "lies outside the request logs: the request logs cover 2026-02-11 06:19:45 – 06:19:59 UTC"},
		{"2026-02-11T06:21:30", report.VerdictCannotJudge, "is only partly inside the request logs"},
		{"2026-02-11T06:23", report.VerdictNoIncident, ""},
	} {
		t.Run(c.until, func(t *testing.T) {
			rep := analyze(t, cutLog(t, c.until), probeFixed("events.json"), probeFixed("objects.yaml"))
			if rep.Summary.Verdict != c.verdict || !strings.Contains(rep.Summary.CannotJudge, c.why) {
				t.Fatalf("verdict %q (%s), want %q naming %q", rep.Summary.Verdict, rep.Summary.CannotJudge, c.verdict, c.why)
			}
			if c.why != "" && !strings.Contains(rep.Summary.CannotJudge, "the rollout of Deployment/web") {
				t.Errorf("the reason does not name the rollout: %s", rep.Summary.CannotJudge)
			}
		})
	}
}

func TestRolloutGapStampResolution(t *testing.T) {
	t0 := time.Date(2026, 2, 11, 6, 20, 0, 0, time.UTC)
	req := report.Coverage{First: t0, Last: t0.Add(time.Minute), Records: 10, Files: 1}
	for _, c := range []struct {
		start, end time.Duration
		want       string
	}{
		{0, time.Minute, ""},
		{-stampResolution, time.Minute + stampResolution, ""},
		{-stampResolution - time.Millisecond, time.Minute, "only partly inside"},
		{0, time.Minute + stampResolution + time.Millisecond, "only partly inside"},
		{-time.Minute, -stampResolution - time.Millisecond, "lies outside"},
		{-time.Minute, -stampResolution, "only partly inside"},
		{time.Minute + stampResolution + time.Millisecond, 2 * time.Minute, "lies outside"},
	} {
		r := &correlate.Rollout{Workload: "web", Start: t0.Add(c.start), End: t0.Add(c.end), How: correlate.FoundByScaling}
		got := rolloutGap(r, req)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("rollout %v – %v: %q, want %q", c.start, c.end, got, c.want)
		}
		r.How = correlate.FoundByTraffic
		if got := rolloutGap(r, req); got != "" {
			t.Errorf("a rollout found in the traffic is covered by it: %q", got)
		}
	}
}

// writeBundle copies the fixture into a bundle directory with a manifest in
// state (none when state is "-").
func writeBundle(t *testing.T, state string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"events.json", "objects.yaml", "ingress-nginx-controller.log"} {
		b, err := os.ReadFile(probeFixed(name))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	if state != "-" {
		must(t, bundle.WriteManifest(dir, &bundle.Manifest{State: state, Created: time.Date(2026, 2, 11, 6, 25, 0, 0, time.UTC)}))
	}
	return dir
}

func TestIncompleteBundleCannotJudge(t *testing.T) {
	for _, c := range []struct {
		state, verdict string
	}{
		{bundle.StateInProgress, report.VerdictCannotJudge},
		{bundle.StateComplete, report.VerdictNoIncident},
		{"", report.VerdictNoIncident},  // a bundle written before the state existed
		{"-", report.VerdictNoIncident}, // a directory of exports
	} {
		t.Run(c.state, func(t *testing.T) {
			dir := writeBundle(t, c.state)
			rep := analyze(t, dir)
			if rep.Summary.Verdict != c.verdict {
				t.Fatalf("verdict %q (%s), want %q", rep.Summary.Verdict, rep.Summary.CannotJudge, c.verdict)
			}
			if c.verdict == report.VerdictCannotJudge {
				assertVerdictEverywhere(t, rep, "Cannot judge:", "the bundle "+dir+" is incomplete: the fetch that began writing it at 2026-02-11T06:25:00Z never finished")
			}
		})
	}
	// A manifest cut short leaves the bundle's state unknown.
	dir := writeBundle(t, "-")
	must(t, os.WriteFile(filepath.Join(dir, bundle.ManifestName), []byte(`{"schema":"readygap-bundle/v1","sta`), 0o644))
	if rep := analyze(t, dir); rep.Summary.Verdict != report.VerdictCannotJudge || !strings.Contains(rep.Summary.CannotJudge, "unreadable manifest") {
		t.Fatalf("verdict %q (%s)", rep.Summary.Verdict, rep.Summary.CannotJudge)
	}
}

// Every kind of source sources counts has a name for people and a
// snake_case name for the contract.
func TestCoverageKindNames(t *testing.T) {
	for k := range sources.NumRecordKinds {
		if kindNames[k] == "" || strings.Contains(k.String(), " ") {
			t.Errorf("kind %d: %q, %q", k, k.String(), kindNames[k])
		}
	}
	for _, c := range newCoverage(&sources.Result{}) {
		if c.Name == "" || strings.Contains(c.Name, "_") {
			t.Errorf("coverage of %s named %q", c.Kind, c.Name)
		}
	}
}

// An input not read beside a request log that was: the verdict stands, and
// its first lines say what it does not rest on.
func TestCoverageUnreadBesideARequestLog(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "gateway.log")
	must(t, os.WriteFile(notes, []byte("“GET / HTTP/1.1” 502\n"), 0o644))
	rep := analyze(t, fixture("nginx-probe-fixed"), notes)
	want := "1 file not read (" + notes + ": not in a format readygap reads): the verdict rests on the other inputs"
	if rep.Summary.Verdict != report.VerdictNoIncident || len(rep.Summary.Caveats) != 1 || rep.Summary.Caveats[0] != want {
		t.Fatalf("verdict %q, caveats %q, want %q", rep.Summary.Verdict, rep.Summary.Caveats, want)
	}
	for _, f := range []report.Format{report.Text, report.Markdown} {
		out := render(t, f, rep)
		head := strings.Join(strings.Fields(out[:min(len(out), 1200)]), " ")
		if !strings.Contains(head, want) {
			t.Errorf("%s: the summary lacks the caveat:\n%s", f, head)
		}
	}
	// The controls: without it, or with an input that holds no data (an
	// export of a window without events), no caveat; the empty input is
	// still listed as not read.
	if rep := analyze(t, fixture("nginx-probe-fixed")); len(rep.Summary.Caveats) != 0 {
		t.Errorf("caveats %q", rep.Summary.Caveats)
	}
	empty := filepath.Join(t.TempDir(), "events.json")
	must(t, os.WriteFile(empty, []byte(`{"apiVersion":"v1","items":[],"kind":"List"}`), 0o644))
	if rep := analyze(t, fixture("nginx-probe-fixed"), empty); len(rep.Summary.Caveats) != 0 || len(rep.Unread) != 1 {
		t.Errorf("an empty input: caveats %q, unread %+v", rep.Summary.Caveats, rep.Unread)
	}
}

// workerEvents is a rollout of a workload behind no load balancer, at
// 07:00, long after the request log of nginx-probe-fixed ends.
const workerEvents = `{"apiVersion":"v1","kind":"List","items":[
{"apiVersion":"v1","kind":"Event","metadata":{"name":"worker.1","namespace":"jobs"},"involvedObject":{"apiVersion":"apps/v1","kind":"Deployment","name":"worker","namespace":"jobs"},"reason":"ScalingReplicaSet","message":"Scaled up replica set worker-7c9d to 1","source":{"component":"deployment-controller"},"firstTimestamp":"2026-02-11T07:00:00Z","lastTimestamp":"2026-02-11T07:00:00Z","count":1,"type":"Normal"},
{"apiVersion":"v1","kind":"Event","metadata":{"name":"worker.2","namespace":"jobs"},"involvedObject":{"apiVersion":"apps/v1","kind":"Deployment","name":"worker","namespace":"jobs"},"reason":"ScalingReplicaSet","message":"Scaled down replica set worker-5b8f to 0 from 1","source":{"component":"deployment-controller"},"firstTimestamp":"2026-02-11T07:00:20Z","lastTimestamp":"2026-02-11T07:00:20Z","count":1,"type":"Normal"}]}`

// A rollout none of whose pods the request logs show, beside one they
// cover, is of a workload behind no load balancer read: a caveat, not a
// reason to withhold the verdict. Alone, it is the verdict's reason.
func TestCoverageRolloutBehindNoLoadBalancerRead(t *testing.T) {
	worker := filepath.Join(t.TempDir(), "worker-events.json")
	must(t, os.WriteFile(worker, []byte(workerEvents), 0o644))
	rep := analyze(t, fixture("nginx-probe-fixed"), worker)
	want := "the rollout of Deployment/worker in jobs (2026-02-11 07:00:00 – 07:00:20 UTC) lies outside the request logs, and none of its pods shows in them: not judged"
	if rep.Summary.Verdict != report.VerdictNoIncident || !slices.Contains(rep.Summary.Caveats, want) {
		t.Fatalf("verdict %q (%s), caveats %q, want no_incident and %q", rep.Summary.Verdict, rep.Summary.CannotJudge, rep.Summary.Caveats, want)
	}
	rep = analyze(t, probeFixed("ingress-nginx-controller.log"), worker)
	if rep.Summary.Verdict != report.VerdictCannotJudge || !strings.Contains(rep.Summary.CannotJudge, "the rollout of Deployment/worker in jobs (2026-02-11 07:00:00 – 07:00:20 UTC) lies outside the request logs") {
		t.Fatalf("without the web rollout: verdict %q (%s)", rep.Summary.Verdict, rep.Summary.CannotJudge)
	}
}

// A time window that keeps no request says so in the reason.
func TestCoverageWindowKeepsNoRequest(t *testing.T) {
	rep, err := Analyze(t.Context(), []string{fixture("nginx-probe-fixed")}, Options{Read: sources.Options{Since: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}})
	must(t, err)
	want := probeFixed("ingress-nginx-controller.log") + " (ingress-nginx): 0 records, 0 skipped, 1837 outside the time window"
	if rep.Summary.Verdict != report.VerdictCannotJudge || !strings.Contains(rep.Summary.CannotJudge, want) {
		t.Fatalf("verdict %q (%s), want the reason %q", rep.Summary.Verdict, rep.Summary.CannotJudge, want)
	}
}

// TestCoverageOrderOnlyRequestsCannotJudge checks that access lines read
// without their time (Envoy lines pasted without [%START_TIME%]) never
// give "No incident": when they happened against a rollout is not known.
// The control, the same lines with their times, does.
func TestCoverageOrderOnlyRequestsCannotJudge(t *testing.T) {
	const line = `"GET /api/items HTTP/1.1" 200 - 0 19 3 2 "-" "curl/8.5.0" "6f3c9a2e-1b7d-4e2a-9c8f-0d1e2f3a4b5c" "shop.example.com" "10.8.2.31:8080"`
	dir := t.TempDir()
	var cut, whole []string
	for i := range 4 {
		cut = append(cut, line)
		whole = append(whole, "[2026-03-04T10:15:0"+string(rune('0'+i))+".000Z] "+line)
	}
	must(t, os.WriteFile(filepath.Join(dir, "cut.log"), []byte(strings.Join(cut, "\n")+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "whole.log"), []byte(strings.Join(whole, "\n")+"\n"), 0o644))
	rep, err := Analyze(t.Context(), []string{filepath.Join(dir, "cut.log")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Verdict != report.VerdictCannotJudge {
		t.Fatalf("verdict %q (%s), want cannot_judge", rep.Summary.Verdict, rep.Summary.CannotJudge)
	}
	assertVerdictEverywhere(t, rep, "Cannot judge:", "4 of the 4 requests read have no time of their own")
	full, err := Analyze(t.Context(), []string{filepath.Join(dir, "whole.log")}, Options{})
	if err != nil || full.Summary.Verdict != report.VerdictNoIncident {
		t.Fatalf("with their times: %v, verdict %q (%s), want no_incident", err, full.Summary.Verdict, full.Summary.CannotJudge)
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
)

// sampleMaxRSS bounds one `readygap analyze` of a real file: the promise
// that analyze needs no more than a small container's memory on whatever
// file a user hands it. That it never hangs is held by the test binary's
// own deadline (go test -timeout), not by a time of this machine: a child
// still running near it is stopped and named (childDeadlineMargin).
const sampleMaxRSS = 256 << 20

// childDeadlineMargin is how much of the test binary's time a child run
// leaves when it is stopped for still running, so that the test names the
// run that hung instead of the binary dying in a panic that names none. A
// fraction of the time left, so that it scales with -timeout.
const childDeadlineMargin = 0.1

// sampleDirs are the folders of real files from other projects, relative to
// this package: the samples the adapters' tests read, and the reference
// samples beside the repository, when a checkout has them.
var sampleDirs = []string{
	filepath.Join("..", "..", "sources", "testdata", "samples"),
	filepath.Join("..", "..", "..", "shared", "reference", "samples"),
}

// reCrash matches what the Go runtime or the command's panic recovery
// writes when the program failed rather than the input.
var reCrash = regexp.MustCompile(`(?m)^(panic: |fatal error: |goroutine \d+ \[|runtime: out of memory)|internal error: `)

// run is one `readygap analyze` in a child process.
type run struct {
	code    int
	stdout  []byte
	stderr  []byte
	peakRSS int64 // bytes
	timeout bool
}

// runReadygap runs this test binary as readygap (see TestMain) with args
// and returns its exit code, output and peak RSS. The child is stopped
// only when the test binary's own deadline nears (childContext).
func runReadygap(t *testing.T, args ...string) run {
	t.Helper()
	ctx, cancel := childContext(t)
	defer cancel()
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "READYGAP_RUN_MAIN=1", "READYGAP_PEAK_FILE="+peakFile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{stdout: stdout.Bytes(), stderr: stderr.Bytes(), timeout: ctx.Err() != nil}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("readygap %s: %v", strings.Join(args, " "), err)
	}
	r.code = cmd.ProcessState.ExitCode()
	r.peakRSS = childPeakRSS(cmd.ProcessState, peakFile)
	return r
}

// childContext bounds a child run by the test's deadline less
// childDeadlineMargin of the time left; without a deadline (-timeout 0) a
// child is never stopped.
func childContext(t *testing.T) (context.Context, context.CancelFunc) {
	d, ok := t.Deadline()
	if !ok {
		return context.WithCancel(context.Background())
	}
	left := time.Until(d)
	return context.WithDeadline(context.Background(), d.Add(-time.Duration(float64(left)*childDeadlineMargin)))
}

// childPeakRSS is the peak resident size in bytes of a child that ran with
// READYGAP_PEAK_FILE=peakFile. The kernel's own figure for a child,
// rusage's ru_maxrss, is no use here: Go starts a child with vfork, so the
// child's figure starts from the parent's peak (a /bin/true run by a test
// that holds 200 MB reports 200 MB). The child writes the high-water mark of
// its own memory instead (VmHWM on Linux); where it cannot, or when it died
// before writing it, ru_maxrss is the fallback, an overestimate.
func childPeakRSS(ps *os.ProcessState, peakFile string) int64 {
	if b, err := os.ReadFile(peakFile); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" { // bytes there, KiB on Linux
		return ru.Maxrss
	}
	return ru.Maxrss << 10
}

// writePeakRSS writes the process's peak resident size in bytes, from
// VmHWM in /proc/self/status, to file; nothing where there is no such line.
func writePeakRSS(file string) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				_ = os.WriteFile(file, []byte(strconv.FormatInt(kb<<10, 10)), 0o644)
			}
			return
		}
	}
}

// analyzeRunProblem says what is wrong with r, a run of analyze -o json
// without --since, --until or --exit-code: a crash, a run out of time or
// of memory, an exit code such a run never gives, or exit 0 without a
// report; "" when nothing is.
func analyzeRunProblem(r run) string {
	switch {
	case r.timeout:
		return "still running near the test binary's deadline (go test -timeout)"
	case reCrash.Match(r.stderr):
		return fmt.Sprintf("crashed (exit %d):\n%.2000s", r.code, r.stderr)
	case r.code != exitOK && r.code != exitError && r.code != exitNotJudged:
		return fmt.Sprintf("exit %d, want %d, %d or %d:\n%.2000s", r.code, exitOK, exitError, exitNotJudged, r.stderr)
	case r.peakRSS > sampleMaxRSS:
		return fmt.Sprintf("peak RSS %.1f MB, want at most %d MB", float64(r.peakRSS)/(1<<20), sampleMaxRSS>>20)
	case r.peakRSS <= 0:
		return "no peak RSS measured"
	case r.code == exitError && len(bytes.TrimSpace(r.stderr)) == 0:
		return "exit 1 without a message"
	case r.code == exitError:
		return ""
	}
	var rep report.Report
	if err := json.Unmarshal(r.stdout, &rep); err != nil || rep.Schema != report.SchemaVersion || len(rep.Inputs)+len(rep.Unread) == 0 {
		return fmt.Sprintf("exit %d without a report (%v):\n%.500s", r.code, err, r.stdout)
	}
	if judged := rep.Summary.Verdict != report.VerdictCannotJudge; judged != (r.code == exitOK) || !judged && rep.Summary.CannotJudge == "" {
		return fmt.Sprintf("exit %d with verdict %q (%s)", r.code, rep.Summary.Verdict, rep.Summary.CannotJudge)
	}
	return ""
}

// sampleFiles lists the real sample files under dir, without the notices
// that name their origin.
func sampleFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if base := d.Name(); base == "NOTICE" || strings.HasSuffix(base, ".md") {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestAnalyzeEverySample runs the whole `readygap analyze -o json`, in a
// child process, on every real sample file from other projects one by one
// and on the fixtures folder as a whole, and fails on a crash, a run past
// the test binary's deadline or a peak RSS over sampleMaxRSS: the adapters' own tests
// stop before the analysis, where a file's time span or size used to kill
// the run.
func TestAnalyzeEverySample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the analysis in a child process on every sample")
	}
	var files []string
	for i, dir := range sampleDirs {
		if _, err := os.Stat(dir); err != nil {
			if i == 0 {
				t.Fatal(err)
			}
			t.Logf("%s absent: not run", dir)
			continue
		}
		files = append(files, sampleFiles(t, dir)...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d sample files found", len(files))
	}
	failed := 0
	for _, f := range files {
		r := runReadygap(t, "analyze", "-o", "json", f)
		if p := analyzeRunProblem(r); p != "" {
			t.Errorf("%s: %s", f, p)
		}
		// A sample alone often cannot be judged (events without a
		// request log): it counts as read when its report lists it.
		var rep report.Report
		if json.Unmarshal(r.stdout, &rep) != nil || len(rep.Inputs) == 0 {
			failed++
		}
		t.Logf("%s: exit %d, peak RSS %.1f MB", f, r.code, float64(r.peakRSS)/(1<<20))
	}
	// Most samples are in a format readygap reads: a run that rejects them
	// all is broken, not careful.
	if failed > len(files)/4 {
		t.Errorf("%d of %d sample files were not read", failed, len(files))
	}
	fixtures := filepath.Join("..", "..", "fixtures")
	r := runReadygap(t, "analyze", "-o", "json", fixtures)
	if p := analyzeRunProblem(r); p != "" {
		t.Errorf("%s: %s", fixtures, p)
	}
	var rep report.Report
	if json.Unmarshal(r.stdout, &rep) == nil && len(rep.Incidents) == 0 {
		t.Errorf("%s: no incident in all the fixtures", fixtures)
	}
	t.Logf("%s: exit %d, %d inputs, %d incidents, peak RSS %.1f MB", fixtures, r.code, len(rep.Inputs), len(rep.Incidents), float64(r.peakRSS)/(1<<20))
}

// TestChildContextFollowsTestDeadline checks that a child run is bounded by
// the test binary's deadline, not by a fixed time: under -race on a loaded
// machine a fixed 20 s failed runs that were only slow.
func TestChildContextFollowsTestDeadline(t *testing.T) {
	ctx, cancel := childContext(t)
	defer cancel()
	got, bounded := ctx.Deadline()
	d, ok := t.Deadline()
	if bounded != ok {
		t.Fatalf("child bounded %v, test bounded %v", bounded, ok)
	}
	if !ok {
		return
	}
	// The child stops before the binary does, with most of the time left.
	if !got.Before(d) || time.Until(got) < time.Duration(float64(time.Until(d))*(1-2*childDeadlineMargin)) {
		t.Errorf("child deadline %v, test deadline %v", got, d)
	}
}

// TestAnalyzeRunProblem checks that analyzeRunProblem names the runs
// TestAnalyzeEverySample must fail: a panic, a fatal runtime error, an
// internal error turned into exit 1, exit 2, a timeout, too much memory
// and exit 0 without a report.
func TestAnalyzeRunProblem(t *testing.T) {
	good := run{code: exitOK, peakRSS: 30 << 20, stdout: []byte(`{"schema":"` + report.SchemaVersion + `","inputs":[{"name":"a"}]}`)}
	notJudged := []byte(`{"schema":"` + report.SchemaVersion + `","summary":{"verdict":"cannot_judge","cannot_judge":"no request log was read"},"unread":[{"name":"a","reason":"not in a format readygap reads"}]}`)
	for _, tt := range []struct {
		name string
		r    run
		want string // in the problem; "" for none
	}{
		{"a report", good, ""},
		{"no known format", run{code: exitError, peakRSS: 20 << 20, stderr: []byte("ERROR\na.txt: not in a format readygap reads.\n")}, ""},
		{"at the memory bound", run{code: exitOK, peakRSS: sampleMaxRSS, stdout: good.stdout}, ""},
		{"panic", run{code: 2, peakRSS: 20 << 20, stderr: []byte("panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n")}, "crashed"},
		{"out of memory", run{code: 2, peakRSS: 20 << 20, stderr: []byte("fatal error: runtime: out of memory\n")}, "crashed"},
		{"recovered panic", run{code: exitError, peakRSS: 20 << 20, stderr: []byte("ERROR\ninternal error: assignment to entry in nil map\n")}, "crashed"},
		{"usage error", run{code: exitUsage, peakRSS: 20 << 20, stderr: []byte("ERROR\nunknown flag\n")}, "exit 2"},
		{"killed", run{code: -1, peakRSS: 20 << 20}, "exit -1"},
		{"timeout", run{code: -1, timeout: true}, "still running"},
		{"over the memory bound", run{code: exitOK, peakRSS: sampleMaxRSS + 1, stdout: good.stdout}, "peak RSS 256.0 MB"},
		{"silent exit 1", run{code: exitError, peakRSS: 20 << 20}, "without a message"},
		{"exit 0 without JSON", run{code: exitOK, peakRSS: 20 << 20, stdout: []byte("No incident\n")}, "without a report"},
		{"cannot judge", run{code: exitNotJudged, peakRSS: 20 << 20, stdout: notJudged}, ""},
		{"exit 6 without JSON", run{code: exitNotJudged, peakRSS: 20 << 20}, "without a report"},
		{"cannot judge with exit 0", run{code: exitOK, peakRSS: 20 << 20, stdout: notJudged}, "exit 0 with verdict"},
		{"exit 6 that judged", run{code: exitNotJudged, peakRSS: 20 << 20, stdout: good.stdout}, "exit 6 with verdict"},
	} {
		got := analyzeRunProblem(tt.r)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: problem %q, want %q", tt.name, got, tt.want)
		}
	}
}

// farRecordMemorySlack is how much more peak memory an analysis may take
// for one record five years before the rest: a few MB of the collector's
// timing, never a span's worth of anything.
const farRecordMemorySlack = 8 << 20

// TestFarRecordChangesNothing adds one unrelated load-balancer request, five
// years before the rest, beside a fixture, and requires the fixture's
// verdict, the record counted in the warnings, and the same peak memory
// within farRecordMemorySlack: a record far away once sized a dense
// per-second series over the whole span.
func TestFarRecordChangesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the analysis in a child process")
	}
	for _, tt := range []struct{ fixture, file, record string }{
		{"eks-alb-no-gate", "far.log", `https 2020-11-08T17:33:05.083000Z app/k8s-api-apiadmin-74847af2a1/3f1cea65afa24ac0 203.0.113.143:3612 10.9.9.9:8080 0.001 0.004 0.000 200 200 300 1834 "GET https://api.example.com:443/api/profile HTTP/1.1" "curl/8.5.0" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:ap-northeast-2:111122223333:targetgroup/k8s-api-apiadmin-e785032ea3/540467ab538467ab "Root=1-5fa82ad1-560c369bf133f6153aff7cd6" "api.example.com" "-" 1 2020-11-08T17:33:05.079000Z "forward" "-" "-" "10.9.9.9:8080" "200" "-" "-" TID_560c369bf133f6153aff7cd670211765 "-" "-" "-" 10.0.17.40` + "\n"},
		{"gke-neg-zone-move", "far.json", `[{"httpRequest":{"latency":"0.010677s","protocol":"HTTP/1.1","remoteIp":"203.0.113.10","requestMethod":"GET","requestSize":"102","requestUrl":"https://shop.example.com/api/cart","responseSize":"2621","serverIp":"10.9.9.9","status":200},` +
			`"insertId":"far0000000001","jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","statusDetails":"response_sent_by_backend"},"logName":"projects/shop-prod-4412/logs/requests",` +
			`"receiveTimestamp":"2021-03-25T00:58:06.103169508Z","resource":{"labels":{"backend_service_name":"k8s1-9bd6860c-shop-my-app-80-56a0a703","project_id":"shop-prod-4412","zone":"global"},"type":"http_load_balancer"},"severity":"INFO","timestamp":"2021-03-25T00:58:05.103169508Z"}]` + "\n"},
	} {
		t.Run(tt.fixture, func(t *testing.T) {
			src := filepath.Join("..", "..", "fixtures", tt.fixture)
			dir := filepath.Join(t.TempDir(), tt.fixture)
			must(t, os.CopyFS(dir, os.DirFS(src)))
			base := runReadygap(t, "analyze", "-o", "json", dir)
			must(t, os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.record), 0o644))
			far := runReadygap(t, "analyze", "-o", "json", dir)
			for _, r := range []run{base, far} {
				if p := analyzeRunProblem(r); p != "" {
					t.Fatal(p)
				}
			}
			var was, is report.Report
			must(t, json.Unmarshal(base.stdout, &was))
			must(t, json.Unmarshal(far.stdout, &is))
			if len(was.Incidents) == 0 {
				t.Fatal("the fixture has no incident")
			}
			verdict := func(r *report.Report) string {
				b, err := json.Marshal([]any{r.Rollouts, r.Incidents, r.Summary.FailedRequests, r.Summary.Changes})
				must(t, err)
				return string(b)
			}
			if a, b := verdict(&was), verdict(&is); a != b {
				t.Errorf("the verdict changed:\n%.3000s\nto\n%.3000s", a, b)
			}
			if is.Summary.Requests != was.Summary.Requests+1 || !is.Summary.First.Equal(was.Summary.First) {
				t.Errorf("requests %d from %v, want %d from %v", is.Summary.Requests, is.Summary.First, was.Summary.Requests+1, was.Summary.First)
			}
			if !slices.ContainsFunc(is.Summary.Caveats, func(w string) bool { return strings.Contains(w, "1 record (1 requests, 0 events) lie more than") }) {
				t.Errorf("no caveat of the far record: %q", is.Summary.Caveats)
			}
			t.Logf("peak RSS %.1f MB, with the far record %.1f MB", float64(base.peakRSS)/(1<<20), float64(far.peakRSS)/(1<<20))
			if far.peakRSS > base.peakRSS+farRecordMemorySlack {
				t.Errorf("peak RSS %.1f MB with the far record, %.1f MB without", float64(far.peakRSS)/(1<<20), float64(base.peakRSS)/(1<<20))
			}
		})
	}
}

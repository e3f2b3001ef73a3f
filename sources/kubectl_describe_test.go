package sources

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// readText reads text as the pipeline reads standard input, detection
// included, with opts.
func readText(t testing.TB, text string, opts Options) (*collector, *InputReport) {
	t.Helper()
	c := &lockedCollector{}
	opts.Stdin = strings.NewReader(text)
	res, err := Read(context.Background(), []string{"-"}, opts, func(*InputReport) Handler { return c })
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.Inputs) != 1 {
		t.Fatalf("%d inputs, want 1 (unread: %v)", len(res.Inputs), res.Unread)
	}
	return &c.collector, res.Inputs[0]
}

// readSample reads a sample file through the pipeline.
func readSample(t testing.TB, path string, opts Options) (*collector, *InputReport) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return readText(t, string(b), opts)
}

// tableReadAt is the time of reading the tests pretend, for order-only ages.
var tableReadAt = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// accountedFor checks that every non-blank line of text is a record, a
// skip or passed over.
func accountedFor(t *testing.T, text string, rep *InputReport) {
	t.Helper()
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	// A wrapped row is one record on two lines: the continuation is passed.
	if got := rep.Records + rep.Skipped + rep.Passed + rep.Filtered; got != n {
		t.Errorf("records %d + skipped %d + passed %d + filtered %d = %d, want %d non-blank lines", rep.Records, rep.Skipped, rep.Passed, rep.Filtered, got, n)
	}
}

func TestParseKubeAge(t *testing.T) {
	for _, tc := range []struct {
		in     string
		lo, hi time.Duration
		known  bool
		bad    bool
	}{
		{in: "0s", lo: 0, hi: time.Second, known: true},
		{in: "90s", lo: 90 * time.Second, hi: 91 * time.Second, known: true},
		{in: "2m30s", lo: 150 * time.Second, hi: 151 * time.Second, known: true},
		{in: "2m", lo: 2 * time.Minute, hi: 2*time.Minute + time.Second, known: true},
		{in: "16m", lo: 16 * time.Minute, hi: 17 * time.Minute, known: true},
		{in: "3h20m", lo: 200 * time.Minute, hi: 201 * time.Minute, known: true},
		{in: "10h", lo: 10 * time.Hour, hi: 11 * time.Hour, known: true},
		{in: "2d5h", lo: 53 * time.Hour, hi: 54 * time.Hour, known: true},
		{in: "12d", lo: 12 * day, hi: 13 * day, known: true},
		{in: "3y10d", lo: 3*year + 10*day, hi: 3*year + 11*day, known: true},
		{in: "9y", lo: 9 * year, hi: 10 * year, known: true},
		// ShortHumanDuration only: one of its unit.
		{in: "1m", lo: time.Minute, hi: 2 * time.Minute, known: true},
		{in: "1h", lo: time.Hour, hi: 2 * time.Hour, known: true},
		{in: "1d", lo: day, hi: 2 * day, known: true},
		{in: "<unknown>", known: false},
		{in: "<invalid>", lo: 0, hi: time.Second, known: true},
		{in: "", bad: true},
		{in: "m", bad: true},
		{in: "5", bad: true},
		{in: "3s2m", bad: true},
		{in: "16min", bad: true},
		{in: "Normal", bad: true},
	} {
		got, ok := parseKubeAge(tc.in)
		if ok == tc.bad {
			t.Errorf("%q: ok %v, want %v", tc.in, ok, !tc.bad)
			continue
		}
		if tc.bad {
			continue
		}
		if got.known != tc.known || got.lo != tc.lo || got.hi != tc.hi {
			t.Errorf("%q: [%v, %v) known %v, want [%v, %v) known %v", tc.in, got.lo, got.hi, got.known, tc.lo, tc.hi, tc.known)
		}
	}
	s, ok := parseKubeSeries("2m (x3 over 5m)")
	if !ok || s.count != 3 || s.last.lo != 2*time.Minute || s.first.lo != 5*time.Minute {
		t.Errorf("series: %+v %v", s, ok)
	}
}

// TestDescribe1718 reads kubernetes/ingress-gce#1718's rows as published:
// no header, no object; the gate opened without a health check.
func TestDescribe1718(t *testing.T) {
	const path = "testdata/samples/kubectl-describe/ingress-gce-1718-rows.txt"
	c, rep := readSample(t, path, Options{ReadAt: tableReadAt})
	if rep.Format != FormatKubectlDescribe {
		t.Fatalf("format %s, want %s", rep.Format, FormatKubectlDescribe)
	}
	if len(c.lifecycle) != 3 || rep.Skipped != 0 {
		t.Fatalf("%d records, %d skipped, want 3 and 0: %v", len(c.lifecycle), rep.Skipped, rep.SkipSamples())
	}
	gate := c.lifecycle[1]
	if gate.Kind != ReadinessGate || gate.Gate != GateWithoutHealthCheck || gate.Reason != "LoadBalancerNegWithoutHealthCheck" {
		t.Errorf("gate record: kind %v gate %v reason %q", gate.Kind, gate.Gate, gate.Reason)
	}
	if gate.Source != "neg-readiness-reflector" || !strings.HasSuffix(gate.Message, `to True.`) {
		t.Errorf("gate source %q message %q", gate.Source, gate.Message)
	}
	// 16m: between 16 and 17 minutes before the (order-only) anchor.
	if want := tableReadAt.Add(-16*time.Minute - 30*time.Second); !gate.Time.Equal(want) || gate.TimeError != 30*time.Second {
		t.Errorf("gate time %v ± %v, want %v ± 30s", gate.Time, gate.TimeError, want)
	}
	if c.lifecycle[0].Gate != GateWaiting || !c.lifecycle[0].Time.Before(gate.Time) {
		t.Errorf("NotReady row: gate %v at %v", c.lifecycle[0].Gate, c.lifecycle[0].Time)
	}
	if c.lifecycle[2].Kind != ProbeFailed || c.lifecycle[2].Source != "kubelet" || c.lifecycle[2].IP.String() != "10.129.128.130" {
		t.Errorf("probe row: %+v", c.lifecycle[2])
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "no reference time") || !strings.Contains(rep.Warnings[0], "--now") {
		t.Errorf("warnings %q, want the order-only one", rep.Warnings)
	}
	b, _ := os.ReadFile(path)
	accountedFor(t, string(b), rep)
}

// TestDescribe1718Wrapped reads the row a terminal wrapped in the
// issue's later comment as one record with the whole message.
func TestDescribe1718Wrapped(t *testing.T) {
	now := time.Date(2022, 5, 26, 12, 0, 0, 0, time.UTC)
	c, rep := readSample(t, "testdata/samples/kubectl-describe/ingress-gce-1718-wrapped.txt", Options{TableNow: now})
	if len(c.lifecycle) != 1 || rep.Skipped != 0 {
		t.Fatalf("%d records, %d skipped: %v", len(c.lifecycle), rep.Skipped, rep.SkipSamples())
	}
	l := c.lifecycle[0]
	if !strings.Contains(l.Message, "any Backend Service with health checking. Marking") || l.Gate != GateWithoutHealthCheck {
		t.Errorf("message %q gate %v", l.Message, l.Gate)
	}
	if want := now.Add(-134*time.Second - 500*time.Millisecond); !l.Time.Equal(want) || l.TimeError != 500*time.Millisecond {
		t.Errorf("time %v ± %v, want %v ± 0.5s", l.Time, l.TimeError, want)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "anchored to --now 2022-05-26T12:00:00Z") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// TestDescribePod reads a whole `kubectl describe pod` of kubectl 1.35
// (kubernetes/kubectl DescribeEvents): the object from the describe, the
// container path off the message, the series count, and the anchor from
// the pod's Start Time against its Scheduled row.
func TestDescribePod(t *testing.T) {
	const path = "testdata/samples/kubectl-describe/describe-pod-1.35.txt"
	c, rep := readSample(t, path, Options{ReadAt: tableReadAt})
	if rep.Format != FormatKubectlDescribe || len(c.lifecycle) != 4 || rep.Skipped != 0 {
		t.Fatalf("format %s, %d records, %d skipped: %v", rep.Format, len(c.lifecycle), rep.Skipped, rep.SkipSamples())
	}
	for _, l := range c.lifecycle {
		if l.Pod != "web-7c9d8f6b5-x2k4q" || l.Namespace != "shop" || l.Object != "Pod/web-7c9d8f6b5-x2k4q" {
			t.Errorf("line %d: pod %q ns %q object %q", l.Origin.Line, l.Pod, l.Namespace, l.Object)
		}
		if strings.HasPrefix(l.Message, "spec.containers") {
			t.Errorf("line %d: container path left in %q", l.Origin.Line, l.Message)
		}
	}
	// Start Time 09:44:00 + Scheduled 16m (16m30s ± 30s) = 10:00:30.
	anchor := time.Date(2026, 3, 14, 10, 0, 30, 0, time.UTC)
	probe := c.lifecycle[2]
	if probe.Count != 5 || probe.Time != anchor.Add(-150*time.Second-500*time.Millisecond) {
		t.Errorf("probe row: count %d time %v", probe.Count, probe.Time)
	}
	if probe.TimeError != 500*time.Millisecond+30*time.Second+startTimeLag {
		t.Errorf("probe error %v", probe.TimeError)
	}
	if c.lifecycle[3].Kind != Killing {
		t.Errorf("Killing row kind %v", c.lifecycle[3].Kind)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "Start Time (2026-03-14T09:44:00Z)") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	// --now wins over the inferred anchor.
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	c, _ = readSample(t, path, Options{TableNow: now})
	if got := c.lifecycle[3].Time; got != now.Add(-90*time.Second-500*time.Millisecond) {
		t.Errorf("with --now: Killing at %v", got)
	}
	b, _ := os.ReadFile(path)
	accountedFor(t, string(b), rep)
}

// TestDescribeServiceAndIngress reads NEG attach/detach rows under a
// service's describe, and an ingress without events.
func TestDescribeServiceAndIngress(t *testing.T) {
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	c, rep := readSample(t, "testdata/samples/kubectl-describe/describe-service-neg.txt", Options{TableNow: now})
	if len(c.lifecycle) != 2 || rep.Skipped != 0 {
		t.Fatalf("%d records, %d skipped: %v", len(c.lifecycle), rep.Skipped, rep.SkipSamples())
	}
	at := c.lifecycle[0]
	if at.Kind != NEGAttach || at.Object != "Service/web" || at.Count != 1 || at.Zone != "europe-west1-c" {
		t.Errorf("attach: kind %v object %q count %d zone %q", at.Kind, at.Object, at.Count, at.Zone)
	}
	if c.lifecycle[1].Kind != NEGDetach {
		t.Errorf("detach kind %v", c.lifecycle[1].Kind)
	}
	b, _ := os.ReadFile("testdata/samples/kubectl-describe/describe-ingress-none.txt")
	c, rep = readText(t, string(b), Options{TableNow: now})
	if rep.Format != FormatKubectlDescribe || len(c.lifecycle) != 0 || rep.Skipped != 0 || len(rep.Warnings) != 0 {
		t.Errorf("ingress without events: format %s, %d records, %d skipped %v, warnings %q", rep.Format, len(c.lifecycle), rep.Skipped, rep.SkipSamples(), rep.Warnings)
	}
	accountedFor(t, string(b), rep)
}

// TestDescribeMalformed counts what is no row, and reads nothing else as
// a describe.
func TestDescribeMalformed(t *testing.T) {
	text := "Events:\n  Type    Reason  Age  From  Message\n  ----    ------  ---  ----  -------\n  Normal  Pulled  5m   kubelet  Container image pulled\n  Sometimes  things  go  wrong  here\n  Normal  Started  fifteen  kubelet  x\n"
	// The header makes it a describe; the two bad rows after a good one
	// are counted, not taken for the rest of its message, and so is the
	// line that goes on after them.
	c, rep := readText(t, text+"but this line goes on with the message\n", Options{ReadAt: tableReadAt})
	if len(c.lifecycle) != 1 || strings.Contains(c.lifecycle[0].Message, "Sometimes") || strings.Contains(c.lifecycle[0].Message, "goes on") || rep.Skipped != 3 {
		t.Errorf("%d records, %d skipped: %+v", len(c.lifecycle), rep.Skipped, c.lifecycle)
	}
	text += "but this line goes on with the message\n"
	accountedFor(t, text, rep)
	// Old-layout header: its rows are not read, and said so.
	old := "Events:\n  FirstSeen\tLastSeen\tCount\tFrom\t\t\tSubObjectPath\tType\tReason\tMessage\n"
	_, rep = readText(t, "Name: x\n"+old, Options{ReadAt: tableReadAt})
	if rep.Skipped != 1 || !strings.Contains(strings.Join(rep.SkipSamples(), ""), "1.3–1.7") {
		t.Errorf("old header: skipped %d %v", rep.Skipped, rep.SkipSamples())
	}
	for _, line := range []string{
		`10.0.0.1 - - [02/Jan/2024:03:04:05 +0000] "GET / HTTP/1.1" 502 0 "-" "-"`,
		"Normal text that says Normal  Warning things",
		"Warning  NotAReason!  16m  kubelet  msg",
	} {
		if (kubectlDescribe{}).MatchTable([][]byte{[]byte(line)}) {
			t.Errorf("%q matched as a describe", line)
		}
	}
}

func FuzzKubectlDescribe(f *testing.F) {
	for _, p := range []string{"ingress-gce-1718-rows.txt", "ingress-gce-1718-wrapped.txt", "describe-pod-1.35.txt", "describe-service-neg.txt"} {
		b, err := os.ReadFile("testdata/samples/kubectl-describe/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		fuzzTable(t, kubectlDescribe{}, text)
	})
}

// fuzzTable parses text with a and checks that every line is accounted for.
func fuzzTable(t *testing.T, a tableAdapter, text string) {
	var lines []tableLine
	var raw [][]byte
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			continue
		}
		lines = append(lines, tableLine{text: []byte(l), line: i + 1})
		raw = append(raw, []byte(l))
	}
	a.MatchTable(raw)
	c := &collector{}
	rep := &InputReport{}
	em := newEmitter(c, &Options{}, rep, nil)
	a.ParseTable(lines, &tableRead{out: em, file: "fuzz", readAt: tableReadAt})
	if got := rep.Records + rep.Skipped + rep.Passed + rep.Filtered; got > len(lines) {
		t.Errorf("%d accounted for, %d lines", got, len(lines))
	}
	for _, l := range c.lifecycle {
		if l.Time.After(tableReadAt) || l.TimeError < 0 {
			t.Errorf("record at %v ± %v after the anchor", l.Time, l.TimeError)
		}
	}
}

func BenchmarkKubectlDescribe(b *testing.B) {
	text, err := os.ReadFile("testdata/samples/kubectl-describe/describe-pod-1.35.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		readText(b, string(text), Options{ReadAt: tableReadAt})
	}
}

// TestDescribeUnknownAge: a row printed `<unknown>` (an event with no time)
// is kept, at the anchor, and says it has no time.
func TestDescribeUnknownAge(t *testing.T) {
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	text := "Events:\n  Type    Reason     Age        From               Message\n  ----    ------     ----       ----               -------\n  Normal  Scheduled  <unknown>  default-scheduler  Successfully assigned shop/web-1 to node-a\n"
	c, rep := readText(t, text, Options{TableNow: now})
	if len(c.lifecycle) != 1 || rep.Skipped != 0 {
		t.Fatalf("%d records, %d skipped", len(c.lifecycle), rep.Skipped)
	}
	l := c.lifecycle[0]
	if !l.Time.Equal(now) || l.TimeError != 0 || !strings.HasPrefix(l.Message, "(no time: printed <unknown>) ") || l.OrderOnly {
		t.Errorf("%v ± %v %q order-only %v", l.Time, l.TimeError, l.Message, l.OrderOnly)
	}
}

package sources

import (
	"os"
	"strings"
	"testing"
	"time"
)

// eventsWant is what a test asserts of one row of an events table.
type eventsWant struct {
	kind      LifecycleKind
	reason    string
	object    string
	namespace string
	age       time.Duration // before the anchor, to the middle of the interval
	err       time.Duration
	count     int
	source    string
	node      string
}

func TestKubectlEventsTables(t *testing.T) {
	now := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	pod := "Pod/web-7c9d8f6b5-x2k4q"
	half := 500 * time.Millisecond
	for _, tc := range []struct {
		file   string
		opts   Options
		anchor time.Time
		warn   string
		want   []eventsWant
	}{
		{
			file: "get-events.txt", opts: Options{TableNow: now}, anchor: now, warn: "anchored to --now",
			want: []eventsWant{
				{kind: PodScheduled, reason: "Scheduled", object: pod, namespace: "shop", age: 16*time.Minute + 30*time.Second, err: 30 * time.Second, count: 1, node: "node-a"},
				{kind: ProbeFailed, reason: "Readiness", object: pod, age: 150*time.Second + half, err: half, count: 1},
				{kind: Killing, reason: "Killing", object: pod, age: 90*time.Second + half, err: half, count: 1},
			},
		},
		{
			// The event NAME's hex time (09:43:55) and FIRST SEEN 16m give
			// the anchor: 09:43:55 + 16m30s.
			file: "get-events-wide-all.txt", opts: Options{ReadAt: tableReadAt},
			anchor: time.Date(2026, 3, 14, 10, 0, 25, 0, time.UTC), warn: "creation time in an event's NAME (2026-03-14T09:43:55Z)",
			want: []eventsWant{
				{kind: PodScheduled, reason: "Scheduled", object: pod, namespace: "shop", age: 16*time.Minute + 30*time.Second, err: 60 * time.Second, count: 1, source: "default-scheduler", node: "node-a"},
				{kind: ProbeFailed, reason: "Readiness", object: pod, namespace: "shop", age: 150*time.Second + half, err: half + 30*time.Second, count: 5, source: "kubelet", node: "node-a"},
			},
		},
		{
			// A row a terminal cut in two.
			file: "get-events-wrapped.txt", opts: Options{TableNow: now}, anchor: now, warn: "--now",
			want: []eventsWant{
				{kind: ReadinessGate, reason: "LoadBalancerNegWithoutHealthCheck", object: pod, age: 16*time.Minute + 30*time.Second, err: 30 * time.Second, count: 1},
				{kind: ProbeFailed, reason: "Readiness", object: pod, age: 16*time.Minute + 30*time.Second, err: 30 * time.Second, count: 1},
			},
		},
		{
			// kubectl ≤ 1.11: NAME and KIND are the object's.
			file: "get-events-1.11.txt", opts: Options{TableNow: now}, anchor: now, warn: "--now",
			want: []eventsWant{
				{kind: LifecycleOther, reason: "Scheduled", object: "Pod/web-7c9d8f6b5-x2k4q", age: 15*time.Minute + 30*time.Second, err: 30 * time.Second, count: 1, source: "default-scheduler"},
				{kind: ProbeFailed, reason: "Readiness", object: "Pod/web-7c9d8f6b5-x2k4q", age: 2*time.Minute + half, err: half, count: 5, source: "kubelet", node: "node-a"},
			},
		},
		{
			// kubectl 1.12–1.13: KIND alone, no name; order only.
			file: "get-events-1.12.txt", opts: Options{ReadAt: tableReadAt}, anchor: tableReadAt, warn: "no reference time",
			want: []eventsWant{
				{kind: PodScheduled, reason: "Scheduled", namespace: "shop", age: 16*time.Minute + 30*time.Second, err: 30 * time.Second, count: 1, node: "node-a"},
				{kind: ProbeFailed, reason: "Readiness", age: 150*time.Second + half, err: half, count: 1},
			},
		},
		{
			// `kubectl events`: describe's series in LAST SEEN, kinds in their case.
			file: "kubectl-events.txt", opts: Options{TableNow: now}, anchor: now, warn: "--now",
			want: []eventsWant{
				{kind: PodScheduled, reason: "Scheduled", object: pod, namespace: "shop", age: 16*time.Minute + 30*time.Second, err: 30 * time.Second, count: 1, node: "node-a"},
				{kind: ProbeFailed, reason: "Readiness", object: pod, age: 150*time.Second + half, err: half, count: 5},
			},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := "testdata/samples/kubectl-events/" + tc.file
			c, rep := readSample(t, path, tc.opts)
			if rep.Format != FormatKubectlEvents {
				t.Fatalf("format %s", rep.Format)
			}
			if len(c.lifecycle) != len(tc.want) || rep.Skipped != 0 {
				t.Fatalf("%d records, %d skipped %v; want %d", len(c.lifecycle), rep.Skipped, rep.SkipSamples(), len(tc.want))
			}
			for i, w := range tc.want {
				l := c.lifecycle[i]
				if w.object == "" && l.Object != "" && !strings.HasPrefix(l.Object, "Pod/") {
					t.Errorf("row %d: object %q", i, l.Object)
				}
				if l.Kind != w.kind || l.Reason != w.reason || w.object != "" && l.Object != w.object || l.Namespace != w.namespace {
					t.Errorf("row %d: kind %v reason %q object %q ns %q; want %v %q %q %q", i, l.Kind, l.Reason, l.Object, l.Namespace, w.kind, w.reason, w.object, w.namespace)
				}
				if want := tc.anchor.Add(-w.age); !l.Time.Equal(want) || l.TimeError != w.err {
					t.Errorf("row %d: %v ± %v, want %v ± %v", i, l.Time, l.TimeError, want, w.err)
				}
				if l.Count != w.count || w.source != "" && l.Source != w.source || l.Node != w.node {
					t.Errorf("row %d: count %d source %q node %q; want %d %q %q", i, l.Count, l.Source, l.Node, w.count, w.source, w.node)
				}
			}
			if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], tc.warn) {
				t.Errorf("warnings %q, want one with %q", rep.Warnings, tc.warn)
			}
			b, _ := os.ReadFile(path)
			accountedFor(t, string(b), rep)
		})
	}
}

func TestEventNameTime(t *testing.T) {
	// k8s#17899: `141c5346bafb15b5` is the event's firstTimestamp 2015-12-03T06:39:03Z.
	got, ok := eventNameTime("mypod.141c5346bafb15b5")
	if !ok || got.Truncate(time.Second) != time.Date(2015, 12, 3, 6, 39, 3, 0, time.UTC) {
		t.Errorf("got %v %v", got, ok)
	}
	for _, bad := range []string{"web-7c9d8f6b5-x2k4q", "web.zz9cabf804ecce00", "a.1", "web.189cabf804ecce00ff"} {
		if _, ok := eventNameTime(bad); ok {
			t.Errorf("%q read as a time", bad)
		}
	}
}

func TestKubectlEventsMalformed(t *testing.T) {
	text := "LAST SEEN   TYPE      REASON      OBJECT      MESSAGE\n" +
		"5m          Normal    Pulled      pod/web-1   Container image pulled\n" +
		"soon        Normal    Pulled      pod/web-1   x\n" +
		"5m          Unusual   Pulled      pod/web-1   x\n" +
		"LAST SEEN   TYPE      REASON      OBJECT      MESSAGE\n" +
		"7m          Warning   BackOff     pod/web-1   Back-off restarting failed container\n"
	c, rep := readText(t, text, Options{ReadAt: tableReadAt})
	// The two bad rows are tried together as one wrapped row, then counted.
	if len(c.lifecycle) != 2 || rep.Skipped != 2 {
		t.Errorf("%d records, %d skipped %v; want 2 and 2", len(c.lifecycle), rep.Skipped, rep.SkipSamples())
	}
	accountedFor(t, text, rep)
	if (kubectlEvents{}).MatchTable([][]byte{[]byte("NAME   READY   STATUS")}) {
		t.Error("a `kubectl get pods` header matched")
	}
}

func FuzzKubectlEvents(f *testing.F) {
	for _, p := range []string{"get-events.txt", "get-events-wide-all.txt", "get-events-wrapped.txt", "get-events-1.11.txt", "kubectl-events.txt"} {
		b, err := os.ReadFile("testdata/samples/kubectl-events/" + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, text string) {
		fuzzTable(t, kubectlEvents{}, text)
	})
}

func BenchmarkKubectlEvents(b *testing.B) {
	text, err := os.ReadFile("testdata/samples/kubectl-events/get-events-wide-all.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		readText(b, string(text), Options{ReadAt: tableReadAt})
	}
}

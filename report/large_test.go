package report

import (
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Shape of the synthetic large rollout: a Deployment of largePods pods
// behind an ALB, replaced one pod every largeStep over a day's morning, in
// data that spans largeSpan; three of the old pods stop listening at
// SIGTERM while the load balancer still sends to them.
const (
	largePods = 50
	largeSpan = 2 * time.Hour
	largeStep = 90 * time.Second
	// largeRate is the requests per second the load balancer logs.
	largeRate = 50
)

// largeRaces are the rollout steps whose old pod fails at termination.
var largeRaces = []int{9, 10, 31}

// largeRollout returns the report of the synthetic large rollout, built
// through the whole pipeline as every command builds one: records into a
// correlate.Collector, then correlate, classify and the report. The records
// stand in for the simulator's scenario of the same shape; once it is in
// fixtures/, analyze(t, fixture(name)) replaces them.
func largeRollout(tb testing.TB) *Report {
	tb.Helper()
	c := correlate.NewCollector()
	start := time.Date(2026, 4, 7, 9, 0, 0, 0, time.UTC)
	rolloutStart := start.Add(20 * time.Minute)
	oldIP := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 1, byte(i / 200), byte(1 + i%200)}) }
	newIP := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 2, byte(i / 200), byte(1 + i%200)}) }
	oldPod := func(i int) string { return fmt.Sprintf("web-7c9f8d6b5d-o%04d", i) }
	newPod := func(i int) string { return fmt.Sprintf("web-5f4d9c8b7a-n%04d", i) }
	line := 0
	origin := func(file string) sources.Origin { line++; return sources.Origin{File: file, Line: line} }
	event := func(at time.Time, kind sources.LifecycleKind, pod string, ip netip.Addr, rs string) {
		c.Lifecycle(&sources.Lifecycle{Time: at, Kind: kind, Namespace: "shop", Pod: pod, IP: ip, Group: rs, Object: "ReplicaSet/" + rs,
			From: -1, Format: sources.FormatK8sEvents, Origin: origin("events.json")})
	}
	// killed[i] is when old pod i began terminating; ready[i] when new pod i was Ready.
	killed := make([]time.Time, largePods)
	ready := make([]time.Time, largePods)
	for i := 0; i < largePods; i++ {
		at := rolloutStart.Add(time.Duration(i) * largeStep)
		event(at, sources.PodCreated, newPod(i), netip.Addr{}, "web-5f4d9c8b7a")
		event(at.Add(200*time.Millisecond), sources.PodScheduled, newPod(i), netip.Addr{}, "")
		event(at.Add(3*time.Second), sources.ContainerStarted, newPod(i), netip.Addr{}, "")
		ready[i] = at.Add(8 * time.Second)
		event(ready[i], sources.PodReady, newPod(i), newIP(i), "")
		killed[i] = at.Add(10 * time.Second)
		event(killed[i], sources.Killing, oldPod(i), oldIP(i), "")
		event(killed[i].Add(30*time.Second), sources.PodDeleted, oldPod(i), oldIP(i), "")
	}
	race := map[int]bool{}
	for _, i := range largeRaces {
		race[i] = true
	}
	req := sources.Request{LB: "app/k8s-shop-web/0123456789abcdef", Method: "GET", Path: "/api/items", Format: sources.FormatALBAccess}
	for s := 0; s < int(largeSpan/time.Second); s++ {
		for k := 0; k < largeRate; k++ {
			at := start.Add(time.Duration(s)*time.Second + time.Duration(k)*time.Second/largeRate)
			i := (s*largeRate + k) % largePods // the pod slot the load balancer picks
			r := req
			r.Time, r.Origin = at, origin("alb/web.log")
			r.Status, r.Generator, r.Failure = 200, sources.GeneratedByBackend, sources.FailureNone
			switch {
			case at.Before(killed[i]):
				r.Backend = netip.AddrPortFrom(oldIP(i), 8080)
			case race[i] && at.Before(killed[i].Add(8*time.Second)):
				r.Backend = netip.AddrPortFrom(oldIP(i), 8080)
				r.Status, r.Generator, r.Failure = 502, sources.GeneratedByLB, sources.FailureRefused
			default:
				r.Backend = netip.AddrPortFrom(newIP(i), 8080)
			}
			c.Request(&r)
		}
	}
	a := correlate.Analyze(correlate.Merge(c), correlate.Options{})
	res := &sources.Result{Inputs: []*sources.InputReport{
		{Name: "events.json", Format: sources.FormatK8sEvents, Records: largePods * 6, First: rolloutStart, Last: killed[largePods-1].Add(30 * time.Second)},
		{Name: "alb/web.log", Format: sources.FormatALBAccess, Records: int(largeSpan/time.Second) * largeRate, First: start, Last: start.Add(largeSpan - time.Second/largeRate)},
	}}
	return newReport(res, a, classify.Classify(a), nil)
}

// screenLines is one screen of a terminal.
const screenLines = 24

// TestLargeRolloutSummaryFitsOneScreen checks the text report of the large
// rollout: the summary before the first incident fits one screen at 80 and
// 120 columns, the lanes span the whole data, collapse alike pods and say
// so, and stay within maxTextLanes rows.
func TestLargeRolloutSummaryFitsOneScreen(t *testing.T) {
	rep := largeRollout(t)
	// One rollout, one mechanism: one incident that names each raced pod.
	if len(rep.Incidents) != 1 || len(rep.Incidents[0].Backends) != len(largeRaces) || len(rep.Lanes) != 2*largePods {
		t.Fatalf("%d incidents and %d lanes, want 1 naming %d backends and %d lanes", len(rep.Incidents), len(rep.Lanes), len(largeRaces), 2*largePods)
	}
	for _, width := range textWidths {
		out := renderTextAt(t, rep, width)
		summary := out[:strings.Index(out, "INCIDENT 1 of")]
		if n := strings.Count(summary, "\n"); n > screenLines {
			t.Errorf("at %d columns the summary takes %d lines, more than a screen (%d):\n%s", width, n, screenLines, summary)
		}
		lanes := out[strings.Index(out, "\nLanes "):]
		lanes = lanes[:strings.Index(lanes, "\nInputs")]
		if !strings.Contains(lanes, "09:00:00 → 11:00:00 UTC") {
			t.Errorf("lanes do not span the data:\n%s", lanes)
		}
		rows := strings.Count(lanes, "│\n")
		if rows > maxTextLanes+1 || !strings.Contains(lanes, " alike") {
			t.Errorf("at %d columns: %d lane rows (at most %d) or no alike lanes collapsed:\n%s", width, rows, maxTextLanes+1, lanes)
		}
	}
}

// BenchmarkRenderLargeRollout renders the large rollout's report, built
// once, in every format; the whole of it must stay well under a second.
func BenchmarkRenderLargeRollout(b *testing.B) {
	rep := largeRollout(b)
	for _, f := range formats {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Write(io.Discard, f, rep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBuildLargeRollout builds the large rollout's report from its
// records: correlate, classify and the report's lanes and series.
func BenchmarkBuildLargeRollout(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		largeRollout(b)
	}
}

// TestLargeRolloutRendersEveryFormat renders the large rollout in every
// format, so that no limit of a renderer (bars, lanes, markers, Mermaid
// tasks) breaks on it.
func TestLargeRolloutRendersEveryFormat(t *testing.T) {
	rep := largeRollout(t)
	for _, f := range formats {
		var buf bytes.Buffer
		if err := Write(&buf, f, rep); err != nil || buf.Len() == 0 {
			t.Errorf("%s: %v, %d bytes", f, err, buf.Len())
		}
	}
}

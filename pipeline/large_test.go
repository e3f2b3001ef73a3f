package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/fixtures/sim"
	"github.com/readygap/readygap/report"
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
func largeRollout(tb testing.TB) *report.Report {
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
			From: -1, Format: sources.FormatK8sEvents, FromAPI: true, Origin: origin("events.json")})
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

// simulatedRollout returns the report of the simulator's
// eks-alb-big-rollout: 50 replicas over three zones, four rollouts without
// preStop 25 minutes apart within two hours, and an idle keep-alive race
// on every backend throughout. Too large to commit, it is written into a
// temporary folder once per test binary and read as every command reads
// a folder.
func simulatedRollout(tb testing.TB) *report.Report {
	tb.Helper()
	if testing.Short() {
		tb.Skip("simulates a two-hour rollout of 50 pods")
	}
	simulatedOnce.Do(func() {
		s, ok := sim.Lookup(simulatedName)
		if !ok {
			simulatedErr = fmt.Errorf("no scenario %s", simulatedName)
			return
		}
		dir, err := os.MkdirTemp("", "readygap-"+simulatedName)
		if err != nil {
			simulatedErr = err
			return
		}
		defer os.RemoveAll(dir)
		if simulatedErr = sim.WriteDir(dir, sim.Simulate(s)); simulatedErr == nil {
			simulatedRep, simulatedErr = Analyze(context.Background(), []string{dir}, Options{})
		}
	})
	if simulatedErr != nil {
		tb.Fatal(simulatedErr)
	}
	return simulatedRep
}

// simulatedName is the simulator's 50-pod, two-hour scenario.
const simulatedName = "eks-alb-big-rollout"

var (
	simulatedOnce sync.Once
	simulatedRep  *report.Report
	simulatedErr  error
)

// screenLines is one screen of a terminal.
const screenLines = 24

// TestLargeRolloutSummaryFitsOneScreen checks the text report of the large
// rollouts, the synthetic one and the simulator's: the summary before the
// first incident (and before the file names' legend) fits one screen at
// 80 and 120 columns, each change is stated once, the lanes span the whole
// data, collapse alike pods and say so, and stay within maxTextLanes rows,
// and no incident lists more than maxTableBackends backends: in HTML the
// rest are in a folded table that lists every one.
func TestLargeRolloutSummaryFitsOneScreen(t *testing.T) {
	synthetic := largeRollout(t)
	// One rollout, one mechanism: one incident that names each raced pod.
	if len(synthetic.Incidents) != 1 || len(synthetic.Incidents[0].Backends) != len(largeRaces) || len(synthetic.Lanes) != 2*largePods {
		t.Fatalf("%d incidents and %d lanes, want 1 naming %d backends and %d lanes", len(synthetic.Incidents), len(synthetic.Lanes), len(largeRaces), 2*largePods)
	}
	simulated := simulatedRollout(t)
	// Four rollouts raced at termination, and the keep-alive race.
	if len(simulated.Incidents) != 5 || len(simulated.Lanes) < 4*largePods {
		t.Fatalf("simulated: %d incidents and %d lanes, want 5 and at least %d", len(simulated.Incidents), len(simulated.Lanes), 4*largePods)
	}
	for _, c := range []struct {
		name string
		rep  *report.Report
		span string
	}{{"synthetic", synthetic, "09:00:00 → 11:00:00 UTC"}, {"simulated", simulated, "17:24:05 → 19:24:05 UTC"}} {
		for _, width := range textWidths {
			out := renderTextAt(t, c.rep, width)
			summary := out[:strings.Index(out, "INCIDENT 1 of")]
			if i := strings.Index(summary, "\n… stands for"); i >= 0 {
				summary = summary[:i+1]
			}
			if n := strings.Count(summary, "\n"); n > screenLines {
				t.Errorf("%s at %d columns: the summary takes %d lines, more than a screen (%d):\n%s", c.name, width, n, screenLines, summary)
			}
			if n, want := strings.Count(summary, "Delay SIGTERM"), 1; n != want {
				t.Errorf("%s at %d columns: the summary names a preStop sleep %d times, want %d:\n%s", c.name, width, n, want, summary)
			}
			lanes := out[strings.Index(out, "\nLanes "):]
			lanes = lanes[:strings.Index(lanes, "\nInputs")]
			if !strings.Contains(lanes, c.span) {
				t.Errorf("%s: lanes do not span the data:\n%s", c.name, lanes)
			}
			rows := strings.Count(lanes, "│\n")
			if rows > report.MaxTextLanes+1 || !strings.Contains(lanes, " alike") {
				t.Errorf("%s at %d columns: %d lane rows (at most %d) or no alike lanes collapsed:\n%s", c.name, width, rows, report.MaxTextLanes+1, lanes)
			}
			for i, in := range c.rep.Incidents {
				section := out[strings.Index(out, fmt.Sprintf("INCIDENT %d of", i+1)):]
				section = section[strings.Index(section, "\nBackends ("):]
				section = section[:strings.Index(section, "\n\n")]
				rows := 0
				for _, role := range []string{"new", "old", "unknown"} {
					rows += strings.Count(section, "\n  "+role+" ")
				}
				if want := min(len(in.Backends), report.MaxTableBackends); rows != want {
					t.Errorf("%s at %d columns: incident %d has %d rows of backends, want %d:\n%s", c.name, width, i+1, rows, want, section)
				}
			}
		}
		page := render(t, report.HTML, c.rep)
		for i, in := range c.rep.Incidents {
			sec := page[strings.Index(page, fmt.Sprintf(`<section class="incident" id="incident-%d">`, i+1)):]
			sec = sec[:strings.Index(sec, "</section>")]
			shown, more := len(reRow.FindAllString(tableOf(sec, "backends stack"), -1)), len(reRow.FindAllString(foldedOf(sec), -1))
			if shown != min(len(in.Backends), report.MaxTableBackends) || shown+more != len(in.Backends) {
				t.Errorf("%s in HTML: incident %d shows %d backends and folds %d, want %d shown of %d", c.name, i+1, shown, more,
					min(len(in.Backends), report.MaxTableBackends), len(in.Backends))
			}
		}
	}
}

// BenchmarkRenderLargeRollout renders the large rollouts' reports, built
// once, in every format; each must stay well under a second.
func BenchmarkRenderLargeRollout(b *testing.B) {
	for _, r := range []struct {
		name string
		rep  func(testing.TB) *report.Report
	}{{"synthetic", largeRollout}, {"simulated", simulatedRollout}} {
		rep := r.rep(b)
		for _, f := range report.Formats {
			b.Run(r.name+"/"+string(f), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := report.Write(io.Discard, f, rep); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
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
	for _, f := range report.Formats {
		var buf bytes.Buffer
		if err := report.Write(&buf, f, rep); err != nil || buf.Len() == 0 {
			t.Errorf("%s: %v, %d bytes", f, err, buf.Len())
		}
	}
}

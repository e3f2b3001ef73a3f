package correlate

import (
	"net/netip"
	"time"

	"github.com/readygap/readygap/sources"
	"testing"
)

// TestLifecycleSpans pins how milestones and traffic become a backend's
// stages: the furthest stage reached, each with how it was found, and when
// the backend was gone.
func TestLifecycleSpans(t *testing.T) {
	end := at(100)
	type span struct {
		stage    Stage
		from, to float64
		how      string
	}
	pod := func(name string, ms map[Milestone]float64) *Backend {
		b := &Backend{Namespace: "shop", Pod: name}
		for m, s := range ms {
			b.Moments[m] = &Moment{Time: at(s)}
		}
		return b
	}
	bare := func(ip string, ms map[Milestone]float64) *Backend {
		b := pod("", ms)
		b.IPs = []netip.Addr{netip.MustParseAddr(ip)}
		return b
	}
	served := func(b *Backend, first, last, sent float64) *Backend {
		b.FirstServed, b.LastServed, b.LastSent = at(first), at(last), at(sent)
		return b
	}
	readyBy := pod("web-c-1", map[Milestone]float64{Created: 10})
	readyBy.ReadyBy = &Moment{Time: at(30)}
	for _, tt := range []struct {
		name string
		b    *Backend
		want []span
	}{
		{"a new pod through every stage", pod("web-a-1", map[Milestone]float64{Created: 10, Ready: 20, LBHealthy: 35, Terminating: 80, Deleted: 90}),
			[]span{{StageStarting, 10, 20, ""}, {StageReady, 20, 35, ""}, {StageLBHealthy, 35, 80, ""}, {StageTerminating, 80, 90, ""}}},
		{"Ready not recorded: healthy from its first request", served(pod("web-a-2", map[Milestone]float64{Created: 10}), 40, 99, 99),
			[]span{{StageStarting, 10, 40, ""}, {StageLBHealthy, 40, 100, HowFirstServed}}},
		{"Ready only by its Deployment's scaling", readyBy,
			[]span{{StageStarting, 10, 30, ""}, {StageReady, 30, 100, HowReadyBy}}},
		{"healthy for the LB before Ready (a readiness gate)", pod("web-a-3", map[Milestone]float64{Created: 10, LBHealthy: 25, Ready: 30}),
			[]span{{StageStarting, 10, 25, ""}, {StageLBHealthy, 25, 100, ""}}},
		{"a bare IP: healthy while it served", served(bare("10.0.0.9", nil), 0, 50, 50),
			[]span{{StageLBHealthy, 0, 50, HowFirstServed}}},
		{"deregistered, never seen deleted", served(bare("10.0.0.8", map[Milestone]float64{LBDetached: 60}), 0, 62, 62),
			[]span{{StageLBHealthy, 0, 60, HowFirstServed}, {StageTerminating, 60, 62, HowDeregistered}}},
		{"terminating, sent requests after its last response and its deregistration", served(pod("web-a-4", map[Milestone]float64{Terminating: 50, LBDetached: 52}), 0, 51, 58),
			[]span{{StageLBHealthy, 0, 50, HowFirstServed}, {StageTerminating, 50, 58, ""}}},
		{"terminating, its last request before its deregistration", served(pod("web-a-5", map[Milestone]float64{Terminating: 50, LBDetached: 52}), 0, 51, 51),
			[]span{{StageLBHealthy, 0, 50, HowFirstServed}, {StageTerminating, 50, 52, ""}}},
		{"a bare IP refused requests after its last response: nothing says it was terminating", served(bare("10.0.0.6", nil), 0, 50, 55),
			[]span{{StageLBHealthy, 0, 50, HowFirstServed}}},
		{"terminating of unknown end", pod("web-b-1", map[Milestone]float64{Terminating: 70}),
			[]span{{StageTerminating, 70, 70, ""}}},
		{"a pod that served still there when the data ends", served(pod("web-b-2", map[Milestone]float64{Created: 5, Ready: 8}), 9, 60, 60),
			[]span{{StageStarting, 5, 8, ""}, {StageReady, 8, 9, ""}, {StageLBHealthy, 9, 100, HowFirstServed}}},
	} {
		var got []span
		for _, s := range tt.b.Lifecycle().Spans(end) {
			got = append(got, span{s.Stage, s.From.Sub(t0).Seconds(), s.To.Sub(t0).Seconds(), s.How})
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
				break
			}
		}
	}
}

// TestStageNames pins the stage names the JSON contract's lane states use.
func TestStageNames(t *testing.T) {
	want := map[Stage]string{StageNone: "none", StageStarting: "starting", StageReady: "ready", StageLBHealthy: "lb_healthy", StageTerminating: "terminating", stageCount: "unknown"}
	for s, name := range want {
		if s.String() != name {
			t.Errorf("Stage(%d) = %q, want %q", s, s.String(), name)
		}
	}
}

// TestStateAtReadsTheLifecycle pins that attribution and the lanes read one
// lifecycle: a failure at a pod from its terminating stage on is at a
// terminating pod, and a deregistration alone, which the lanes draw as
// terminating, does not make a pod that went on serving terminating for
// the attribution (a failed readiness probe deregisters it too).
func TestStateAtReadsTheLifecycle(t *testing.T) {
	c := NewCollector()
	for _, ip := range []string{"10.0.0.1", "10.0.0.2"} {
		for s := 0.0; s <= 100; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(netip.MustParseAddr(ip), 8080), Format: sources.FormatALBAccess})
		}
	}
	ev := func(s float64, kind sources.LifecycleKind, pod, ip string) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Pod: pod, IP: netip.MustParseAddr(ip), Format: sources.FormatK8sEvents, From: -1})
	}
	ev(60, sources.Killing, "web-a", "10.0.0.1")
	ev(30, sources.TargetDeregistered, "web-b", "10.0.0.2")
	a := Analyze(Merge(c), Options{})

	killed := a.Backend("shop/web-a")
	spans := killed.Lifecycle().Spans(at(100))
	term := spans[len(spans)-1]
	if term.Stage != StageTerminating || term.How != "" {
		t.Fatalf("web-a's last stage: %+v, want terminating from its Killing record", term)
	}
	if _, st := a.StateAt(netip.MustParseAddr("10.0.0.1"), term.From); st != StateTerminating {
		t.Errorf("at the start of web-a's terminating stage the attribution reads %s", st)
	}
	if _, st := a.StateAt(netip.MustParseAddr("10.0.0.1"), term.From.Add(-a.termSkew()-time.Second)); st != StateServing {
		t.Errorf("before web-a's terminating stage (and the clocks' skew) the attribution reads %s", st)
	}

	flapped := a.Backend("shop/web-b")
	if r := flapped.Lifecycle().Reached[StageTerminating]; r.How != HowDeregistered || !r.Time.Equal(at(30)) {
		t.Fatalf("web-b's terminating stage: %+v, want from its deregistration at 30 s", r)
	}
	if _, st := a.StateAt(netip.MustParseAddr("10.0.0.2"), at(70)); st != StateServing {
		t.Errorf("web-b, deregistered only, serving at 70 s: the attribution reads %s", st)
	}
}

// TestLifecycleGone pins when a backend was gone and how that was found:
// its deletion; a terminating pod's last request, deregistration or
// termination, the latest; a bare IP's last response; never for a pod
// nothing says left.
func TestLifecycleGone(t *testing.T) {
	mk := func(pod string, ms map[Milestone]float64, lastServed, lastSent float64) *Backend {
		b := &Backend{Namespace: "shop", Pod: pod, LastServed: at(lastServed), LastSent: at(lastSent)}
		if pod == "" {
			b.IPs = []netip.Addr{netip.MustParseAddr("10.0.0.9")}
		}
		for m, s := range ms {
			b.Moments[m] = &Moment{Time: at(s)}
		}
		return b
	}
	for _, tt := range []struct {
		name string
		b    *Backend
		want Reach
	}{
		{"deleted", mk("web-a", map[Milestone]float64{Terminating: 50, Deleted: 70}, 52, 80), Reach{Time: at(70)}},
		{"sent requests after its termination", mk("web-b", map[Milestone]float64{Terminating: 50, LBDetached: 55}, 52, 58), Reach{at(58), HowLastRequest}},
		{"deregistered after its last request", mk("web-c", map[Milestone]float64{Terminating: 50, LBDetached: 55}, 52, 52), Reach{at(55), HowLastRequest}},
		{"a bare IP", mk("", nil, 40, 45), Reach{at(40), HowLastServed}},
		{"a pod nothing says left", mk("web-d", map[Milestone]float64{Created: 10}, 40, 45), Reach{}},
	} {
		if got := tt.b.Lifecycle().Gone; !got.Time.Equal(tt.want.Time) || got.How != tt.want.How {
			t.Errorf("%s: gone %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

package correlate

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestTimelineBounds pins the timeline's reach in the numbers its
// constants state: events from 3 min before the first failure
// (timelineBefore) to 1 min after the last (timelineAfter), the last
// success and the recovery looked for as far, the same record within 2 s
// (sameEventWithin) folded, health checks and probe failures once each,
// and at most 30 events (maxTimelineEvents).
func TestTimelineBounds(t *testing.T) {
	ip := netip.MustParseAddr("10.0.0.1")
	c := NewCollector()
	req := func(s float64, status int, f sources.FailureKind) {
		g := sources.GeneratedByBackend
		if f != sources.FailureNone {
			g = sources.GeneratedByLB
		}
		c.Request(&sources.Request{Time: at(s), Status: status, Generator: g, Failure: f, Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
	}
	req(1000-180, 200, sources.FailureNone) // the last success, 3 min before
	for s := 1000.0; s <= 1010; s++ {
		req(s, 502, sources.FailureRefused)
	}
	req(1011, 500, sources.FailureAppError) // the app's own error alone: no recovery yet
	req(1070, 200, sources.FailureNone)     // the recovery, 1 min after
	ev := func(s float64, kind sources.LifecycleKind, group, reason string) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Group: group, Object: "Deployment/web", Reason: reason, Format: sources.FormatK8sEvents, From: -1})
	}
	ev(1000-180.001, sources.ScaledUp, "web-a", "too early")
	ev(1000-180, sources.ScaledUp, "web-a", "first")
	ev(1005, sources.ScaledDown, "web-b", "fold me")
	ev(1006.999, sources.ScaledDown, "web-b", "fold me")
	ev(1007, sources.ScaledDown, "web-b", "fold me") // exactly 2 s after the first: kept
	ev(1010+60, sources.ScaledUp, "web-a", "last")
	ev(1010+60.001, sources.ScaledUp, "web-a", "too late")
	a := Analyze(Merge(c), Options{})
	w := Summarize(a.Signals)
	show := func(es []Entry) string {
		var out []string
		for _, e := range es {
			s := fmt.Sprintf("%v:%d", e.Time.Sub(t0).Seconds(), e.Kind)
			if e.Event != nil {
				s += ":" + e.Event.Reason
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	want := "820:0:first 820:5 1000:1 1005:0:fold me 1007:0:fold me 1010:2 1070:0:last 1070:6"
	if got := show(a.Timeline(w, nil)); got != want {
		t.Errorf("timeline\n%s\nwant\n%s", got, want)
	}

	// At most 30 events, the earliest.
	c = NewCollector()
	for s := 1000.0; s <= 1010; s++ {
		req(s, 502, sources.FailureRefused)
	}
	for i := 0; i < 40; i++ {
		ev(900+float64(i)*3, sources.ScaledUp, fmt.Sprintf("web-%02d", i), "")
	}
	a = Analyze(Merge(c), Options{})
	n := 0
	for _, e := range a.Timeline(Summarize(a.Signals), nil) {
		if e.Kind == EntryEvent {
			n++
		}
	}
	if n != 30 {
		t.Errorf("%d events in the timeline, want 30", n)
	}
}

// TestEntryKindNames names every entry kind once, and a kind past the
// last by its number.
func TestEntryKindNames(t *testing.T) {
	seen := map[string]bool{}
	for k := EntryEvent; k <= EntryRecovered; k++ {
		name := k.String()
		if name == "" || seen[name] || strings.HasPrefix(name, "EntryKind(") {
			t.Errorf("kind %d named %q", k, name)
		}
		seen[name] = true
	}
	if got := (EntryRecovered + 1).String(); got != "EntryKind(7)" {
		t.Errorf("a kind past the last is %q", got)
	}
}

package correlate

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestUncertainTimes: a record read from a kubectl table happened within
// Time ± TimeError, so it falls in every window that interval meets and in
// no other; a record whose time is only its order falls in none and marks
// no milestone; exact records are unchanged.
func TestUncertainTimes(t *testing.T) {
	base := time.Date(2026, 3, 14, 9, 40, 0, 0, time.UTC)
	c := NewCollector()
	add := func(l sources.Lifecycle) {
		l.From, l.Format, l.Origin = -1, sources.FormatKubectlEvents, sources.Origin{File: "events.txt", Line: 2}
		c.Lifecycle(&l)
	}
	add(sources.Lifecycle{Time: base, TimeError: 30 * time.Second, Kind: sources.Killing, Namespace: "shop", Pod: "web-a"})
	add(sources.Lifecycle{Time: base.Add(5 * time.Minute), Kind: sources.Killing, Namespace: "shop", Pod: "web-b"})
	add(sources.Lifecycle{Time: base.Add(10 * time.Minute), OrderOnly: true, Kind: sources.Killing, Namespace: "shop", Pod: "web-c"})
	a := Analyze(Merge(c), Options{})
	pods := func(from, to time.Duration) []string {
		var out []string
		for _, l := range a.EventsBetween(base.Add(from), base.Add(to), sources.Killing) {
			out = append(out, l.Pod)
		}
		return out
	}
	for _, tc := range []struct {
		from, to time.Duration
		want     []string
	}{
		{20 * time.Second, 40 * time.Second, []string{"web-a"}},           // within its ± 30 s
		{30 * time.Second, 40 * time.Second, []string{"web-a"}},           // at its edge
		{31 * time.Second, 40 * time.Second, nil},                         // past it
		{-time.Minute, -31 * time.Second, nil},                            // before it
		{-time.Minute, -30 * time.Second, []string{"web-a"}},              // at its other edge
		{5*time.Minute - time.Second, 5 * time.Minute, []string{"web-b"}}, // exact, at the end
		{5*time.Minute + time.Millisecond, 6 * time.Minute, nil},          // exact, just after: no widening
		{9 * time.Minute, 11 * time.Minute, nil},                          // order only: never
	} {
		got := pods(tc.from, tc.to)
		if len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
			t.Errorf("[%v, %v]: %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
	if b := a.Backend("shop/web-c"); b == nil || b.Moments[Terminating] != nil || len(b.Events) != 1 {
		t.Errorf("order-only Killing: backend %+v, want its event kept and no Terminating moment", b)
	}
	if b := a.Backend("shop/web-a"); b == nil || b.Moments[Terminating] == nil {
		t.Errorf("uncertain Killing: no Terminating moment")
	}
}

package pipeline

import (
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
)

// TestActiveFailureTime checks that an incident whose failing paused
// reports its active failure time (the union of its bursts) beside its
// span, in the JSON, the text and Markdown heads and the summary sentence,
// (report's TestActiveTextMatchesSummary holds their numbers together);
// per backend, where its own failures paused. The
// control, a scale-in whose failures never paused for 5 s, reports its
// span alone. The figures are the fixtures' (see their .verdict files).
func TestActiveFailureTime(t *testing.T) {
	t.Run("two bursts 46 s apart", func(t *testing.T) {
		rep := analyze(t, fixture("eks-alb-termination-race"))
		if len(rep.Incidents) != 1 {
			t.Fatalf("%d incidents", len(rep.Incidents))
		}
		in := rep.Incidents[0]
		// Two ~7 s bursts, one per wave of old pods, 46 s apart.
		if in.Bursts != 2 || in.ActiveSeconds < 13 || in.ActiveSeconds > 15 || in.DurationSeconds < 60 || in.DurationSeconds > 62 {
			t.Fatalf("active %.1f s in %d bursts over %.1f s, want about 14 s in 2 bursts over 61 s", in.ActiveSeconds, in.Bursts, in.DurationSeconds)
		}
		for name, out := range map[string]string{"text": renderTextAt(t, rep, 120), "markdown": render(t, report.Markdown, rep)} {
			if !strings.Contains(out, " failing in 2 bursts") {
				t.Errorf("the %s report does not say how long failing went on", name)
			}
		}
		if !strings.Contains(in.Summary, " of failures in 2 bursts") {
			t.Errorf("summary %q does not give the same active time", in.Summary)
		}
		paused := 0
		for _, b := range in.Backends {
			if b.ActiveSeconds > 0 {
				paused++
				if span := b.End.Sub(b.Start).Seconds(); b.ActiveSeconds >= span {
					t.Errorf("%s: active %.1f s, not under its span %.1f s", b.Pod, b.ActiveSeconds, span)
				}
			}
		}
		t.Logf("active %.3f s in %d bursts over %.3f s; %d of %d backends paused", in.ActiveSeconds, in.Bursts, in.DurationSeconds, paused, len(in.Backends))
	})
	t.Run("control: one burst", func(t *testing.T) {
		rep := analyze(t, fixture("eks-alb-hpa-scale-in"))
		if len(rep.Incidents) != 1 {
			t.Fatalf("%d incidents", len(rep.Incidents))
		}
		in := rep.Incidents[0]
		if in.Bursts != 1 || in.ActiveSeconds != in.DurationSeconds {
			t.Errorf("active %.3f s in %d bursts over %.3f s, want one burst, its span", in.ActiveSeconds, in.Bursts, in.DurationSeconds)
		}
		if text := renderTextAt(t, rep, 120); strings.Contains(text, "failing in") || strings.Contains(in.Summary, "of failures in") {
			t.Error("one burst reported as several")
		}
		for _, b := range in.Backends {
			if b.ActiveSeconds != 0 {
				t.Errorf("%s: active %.1f s set, though its failures never paused", b.Pod, b.ActiveSeconds)
			}
		}
	})
}

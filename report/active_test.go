package report

import (
	"strings"
	"testing"
)

// TestActiveTextMatchesSummary checks that an incident whose failing
// paused says its active failure time in the text and Markdown heads with
// the numbers of its summary sentence, and that one burst says nothing of
// bursts (the control).
func TestActiveTextMatchesSummary(t *testing.T) {
	rep := saved(t, "eks-alb-termination-race")
	in := rep.Incidents[0]
	if in.Bursts != 2 || in.ActiveSeconds >= in.DurationSeconds {
		t.Fatalf("saved report: active %.1f s in %d bursts over %.1f s, want 2 bursts", in.ActiveSeconds, in.Bursts, in.DurationSeconds)
	}
	want := durationText(in.ActiveSeconds) + " failing in 2 bursts"
	if !strings.Contains(in.Summary, durationText(in.ActiveSeconds)+" of failures in 2 bursts") {
		t.Errorf("summary %q does not give %s", in.Summary, durationText(in.ActiveSeconds))
	}
	for _, f := range []Format{Text, Markdown} {
		if out := render(t, f, rep); !strings.Contains(out, want) {
			t.Errorf("the %s report does not say %q", f, want)
		}
	}
	rep.Incidents[0].Bursts, rep.Incidents[0].ActiveSeconds = 1, in.DurationSeconds
	for _, f := range []Format{Text, Markdown} {
		if out := render(t, f, rep); strings.Contains(out, "failing in") {
			t.Errorf("the %s report of one burst speaks of bursts", f)
		}
	}
}

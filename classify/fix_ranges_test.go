package classify

import (
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestFixesStayInTheProvidersRanges pins the documented ranges on both
// sides: an ALB idle timeout is proposed up to 4000 s and not above, a
// deregistration delay up to 3600 s (above, the grace period is the side
// to change), a GKE draining timeout up to 3600 s.
func TestFixesStayInTheProvidersRanges(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	albFix := func(appSeconds float64) *Fix {
		app := sources.KeepAlive{Server: "uvicorn", Seconds: appSeconds, Set: true, Via: "--timeout-keep-alive 1", Unit: sources.UnitSeconds}
		for _, f := range keepaliveFixes(&Objects{}, wl, sources.FamilyALB, Timeout{Seconds: 5000}, &app) {
			if strings.HasPrefix(f.Title, "Or close idle connections in the ALB") {
				return &f
			}
		}
		return nil
	}
	if f := albFix(albMaxIdle + 1); f == nil || !strings.Contains(patchText(t, f.Patch), "idle_timeout.timeout_seconds=4000") {
		t.Errorf("app keep-alive 4001 s: ALB fix %v, want an idle timeout of 4000 s", f)
	}
	if f := albFix(albMaxIdle + 2); f != nil {
		t.Errorf("app keep-alive 4002 s: ALB fix %q, want none above 4000 s", f.Title)
	}
	drain := func(grace int) Fix { return albDrainFixes(nil, wl, grace)[0] }
	if f := drain(albMaxDeregistrationDelay); !strings.Contains(patchText(t, f.Patch), "deregistration_delay.timeout_seconds=3600") || strings.Contains(f.Why, "shorten") {
		t.Errorf("grace 3600 s: %s\n%s", f.Why, patchText(t, f.Patch))
	}
	if f := drain(albMaxDeregistrationDelay + 1); !strings.Contains(patchText(t, f.Patch), "deregistration_delay.timeout_seconds=3600") || !strings.Contains(f.Why, "shorten terminationGracePeriodSeconds to 3600 s") {
		t.Errorf("grace 3601 s: %s\n%s", f.Why, patchText(t, f.Patch))
	}
	for sleep, want := range map[int]string{gkeMaxDrainingTimeout: "drainingTimeoutSec: 3600", gkeMaxDrainingTimeout + 1: "drainingTimeoutSec: 3600", 20: "drainingTimeoutSec: 20"} {
		if f, ok := negDrainFix(backendConfigRef{Namespace: "shop", Name: "web"}, wl, sleep); !ok || !strings.Contains(patchText(t, f.Patch), want) {
			t.Errorf("sleep %d s: %v %s, want %s", sleep, ok, patchText(t, f.Patch), want)
		}
	}
}

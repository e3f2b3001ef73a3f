package classify

import (
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestALBDefaultDeregistrationDelay pins the target group's default
// deregistration delay, 300 s, from both sides: a pod terminating for
// 300 s needs no longer delay than an Ingress that sets none, one
// terminating for 301 s does, and the fix quotes the 300 s.
func TestALBDefaultDeregistrationDelay(t *testing.T) {
	ing := &sources.Config{Kind: "Ingress", Namespace: "shop", Name: "web"}
	wl := workload{Namespace: "shop", Name: "web", Known: true}
	if fixes := albDrainFixes([]targetGroupSetting{{Holder: ing}}, wl, 300); len(fixes) != 0 {
		t.Errorf("300 s of termination: %d fixes, want none", len(fixes))
	}
	fixes := albDrainFixes([]targetGroupSetting{{Holder: ing}}, wl, 301)
	if len(fixes) != 1 || !strings.Contains(fixes[0].Why, "(300 s, from the target group's default: assumed default: not in the inputs)") {
		t.Errorf("301 s of termination: fixes %+v, want one quoting the default 300 s", fixes)
	}
}

// TestTerminationCheckTieKeepsTheFirstPath checks that among paths whose
// load balancers take as long to stop sending (two ALB Ingresses) the
// check names the first.
func TestTerminationCheckTieKeepsTheFirstPath(t *testing.T) {
	objs := objectsOfYAML(t, append(twoWorkloads(), ingressTo("web-a", "alb", "web", ""), ingressTo("web-b", "alb", "web", ""))...)
	var vias []string
	for _, r := range (terminationRace{}).Check(objs) {
		if r.Workload.Name == "web" && r.Via != nil {
			vias = append(vias, r.Via.Name)
		}
	}
	if len(vias) == 0 {
		t.Fatal("no risk for web")
	}
	for _, v := range vias {
		if v != "web-a" {
			t.Errorf("a risk through %s, want every one through web-a", v)
		}
	}
}

// nginxRisks are the termination risks of Deployment web behind
// ingress-nginx with the given preStop sleep (none when 0) and grace
// period.
func nginxRisks(t *testing.T, sleep, grace int) []*Risk {
	t.Helper()
	hook := ""
	if sleep > 0 {
		hook = "lifecycle:\n  preStop:\n    exec:\n      command: [\"sh\", \"-c\", \"sleep " + itoa(sleep) + "\"]"
	}
	dep := deployment("web", "replicas: 3", webContainer("http", hook)+"\nterminationGracePeriodSeconds: "+itoa(grace))
	var out []*Risk
	for _, r := range Check(objectsOfYAML(t, dep, service("web", ""), ingressTo("web", "nginx", "web", ""))) {
		if r.Cause == terminationRaceCause.ID {
			out = append(out, r)
		}
	}
	return out
}

// TestPreStopRiskGraceFixOnlyWhenLonger checks that the preStop risk
// proposes a longer grace period only when the 10 s sleep plus 30 s of
// shutdown need more than the pod has: at 39 s, 40 s; at 40 s, none.
func TestPreStopRiskGraceFixOnlyWhenLonger(t *testing.T) {
	for _, c := range []struct {
		grace int
		want  string
	}{{39, "Give termination 40 s"}, {40, ""}} {
		rs := nginxRisks(t, 0, c.grace)
		if len(rs) != 1 {
			t.Fatalf("grace %d: %d risks, want the preStop one", c.grace, len(rs))
		}
		got := ""
		for _, f := range rs[0].Fixes {
			if strings.HasPrefix(f.Title, "Give termination") {
				got = f.Title
			}
		}
		if got != c.want {
			t.Errorf("grace %d: grace fix %q, want %q", c.grace, got, c.want)
		}
	}
}

// TestGraceRiskSaysWhenItRunsOutInTheSleep checks the grace-period risk's
// reason on each side of a grace period equal to the sleep: equal, it runs
// out as the sleep ends; a second longer, it leaves the app that second.
func TestGraceRiskSaysWhenItRunsOutInTheSleep(t *testing.T) {
	for _, c := range []struct {
		grace int
		want  string
	}{{10, "runs out before the sleep ends"}, {11, "leaves the app 1 s after SIGTERM"}} {
		rs := nginxRisks(t, 10, c.grace)
		if len(rs) != 1 || !strings.Contains(rs[0].Reason, c.want) {
			t.Errorf("sleep 10, grace %d: risks %v, want one saying %q", c.grace, rs, c.want)
		}
	}
}

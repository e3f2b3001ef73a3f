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
	if len(fixes) != 1 || !strings.Contains(fixes[0].Why, "now 300 s, from the target group's default") {
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

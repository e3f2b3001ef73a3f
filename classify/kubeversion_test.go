package classify

import (
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestPreStopFixByKubeVersion pins the preStop handler on both sides of
// Kubernetes 1.30, where the sleep handler is on by default: below it an
// exec of sleep (saying it needs the binary), from it the sleep handler,
// and with no version the sleep handler saying what older clusters need.
func TestPreStopFixByKubeVersion(t *testing.T) {
	for _, c := range []struct {
		name      string
		kube      sources.KubeVersion
		want      string
		whySays   string
		whyNot    string
		withExec  bool
		withSleep bool
	}{
		{"1.29 execs sleep", sources.KubeVersion{Major: 1, Minor: 29}, `"exec":{"command":["sleep","17"]}`, "sleep binary", "sleep handler needs", true, false},
		{"1.30 has the handler", sources.KubeVersion{Major: 1, Minor: 30}, `"sleep":{"seconds":17}`, "the cluster runs 1.30", "before that use", false, true},
		{"1.31 has the handler", sources.KubeVersion{Major: 1, Minor: 31}, `"sleep":{"seconds":17}`, "the cluster runs 1.31", "before that use", false, true},
		{"unknown keeps the handler and says both", sources.KubeVersion{}, `"sleep":{"seconds":17}`, "before that use `exec: {command: [sleep, \"17\"]}`", "the cluster runs", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			fix := preStopFix(workload{Namespace: "shop", Name: "web", Kube: c.kube}, 17)
			js := patchJSON(t, fix.Patch)
			if !strings.Contains(js, c.want) {
				t.Errorf("patch %s, want %s", js, c.want)
			}
			if got := strings.Contains(js, `"exec"`); got != c.withExec {
				t.Errorf("exec in %s: %v, want %v", js, got, c.withExec)
			}
			if got := strings.Contains(js, `"sleep":{`); got != c.withSleep {
				t.Errorf("sleep handler in %s: %v, want %v", js, got, c.withSleep)
			}
			if !strings.Contains(fix.Why, c.whySays) || strings.Contains(fix.Why, c.whyNot) {
				t.Errorf("Why %q: want %q, not %q", fix.Why, c.whySays, c.whyNot)
			}
		})
	}
}

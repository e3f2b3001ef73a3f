package classify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	"sigs.k8s.io/yaml"
)

// expected is the truth the simulator wrote beside each fixture.
type expected struct {
	Cause   string        `json:"cause"`
	Windows []truthWindow `json:"windows"`
}

// truthWindow is one window of the simulator's truth.
type truthWindow struct {
	Start          time.Time `json:"start"`
	End            time.Time `json:"end"`
	Cause          string    `json:"cause"`
	FailedRequests int       `json:"failed_requests"`
}

// analyzeDir runs the whole pipeline on a folder, as `readygap analyze` does.
func analyzeDir(t testing.TB, dir string) (*correlate.Analysis, []*Finding) {
	t.Helper()
	var mu sync.Mutex
	var cs []*correlate.Collector
	_, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler {
		c := correlate.NewCollector()
		mu.Lock()
		cs = append(cs, c)
		mu.Unlock()
		return c
	})
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	a := correlate.Analyze(correlate.Merge(cs...), correlate.Options{})
	return a, Classify(a).Findings
}

// TestFixtureVerdicts checks every recreated incident against the
// simulator's truth: the right cause, each window within 2 s, the exact
// failed-request count; the controls (the same rollout with the fix applied)
// must produce no incident.
func TestFixtureVerdicts(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	if len(dirs) < 10 {
		t.Fatalf("found only %d fixtures with a .expected.json", len(dirs))
	}
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if testing.Short() && filepath.Base(dir) == "eks-alb-large" {
				t.Skip("large fixture")
			}
			data, err := os.ReadFile(exp)
			if err != nil {
				t.Fatal(err)
			}
			var want expected
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			_, verdicts := analyzeDir(t, dir)
			want.Windows = perMechanism(want.Windows)
			if len(verdicts) != len(want.Windows) {
				for _, v := range verdicts {
					t.Logf("got %s %s–%s failed %d", v.Cause, v.Window.Start, v.Window.End, v.Window.Failed)
				}
				t.Fatalf("%d incidents, want %d", len(verdicts), len(want.Windows))
			}
			for i, w := range want.Windows {
				v := verdicts[i]
				if v.Cause != w.Cause {
					t.Errorf("incident %d: cause %s (%s), want %s", i+1, v.Cause, v.Summary, w.Cause)
				}
				if d := v.Window.Start.Sub(w.Start); d < -2*time.Second || d > 2*time.Second {
					t.Errorf("incident %d: start %s, want %s ±2 s", i+1, v.Window.Start, w.Start)
				}
				if d := v.Window.End.Sub(w.End); d < -2*time.Second || d > 2*time.Second {
					t.Errorf("incident %d: end %s, want %s ±2 s", i+1, v.Window.End, w.End)
				}
				if v.Window.Failed != w.FailedRequests {
					t.Errorf("incident %d: %d failed requests, want %d", i+1, v.Window.Failed, w.FailedRequests)
				}
				if len(v.Remediation) == 0 || v.Summary == "" || len(v.Evidence) == 0 {
					t.Errorf("incident %d: a verdict needs a summary, evidence and a fix: %+v", i+1, *v)
				}
			}
		})
	}
}

// perMechanism joins the simulator's windows, which a 20 s pause splits,
// into one per mechanism and stretch of the rollout: consecutive windows of
// the same cause less than a rollout step apart are one incident.
func perMechanism(ws []truthWindow) []truthWindow {
	var out []truthWindow
	for _, w := range ws {
		if n := len(out); n > 0 && out[n-1].Cause == w.Cause && w.Start.Sub(out[n-1].End) < sameRolloutWithin {
			out[n-1].End = w.End
			out[n-1].FailedRequests += w.FailedRequests
			continue
		}
		out = append(out, w)
	}
	return out
}

// sameRolloutWithin is how close the simulator's windows of one cause must
// be to belong to one rollout: its rollouts are ten minutes apart, its steps
// at most two.
const sameRolloutWithin = 5 * time.Minute

// TestLBOnlyIsLessCertain checks that the same rollout read from the load
// balancer's logs alone gets the same cause with less confidence.
func TestLBOnlyIsLessCertain(t *testing.T) {
	_, full := analyzeDir(t, filepath.Join("..", "fixtures", "eks-alb-no-gate"))
	_, lbOnly := analyzeDir(t, filepath.Join("..", "fixtures", "eks-alb-no-gate-lb-only"))
	if len(full) != 1 || len(lbOnly) != 1 {
		t.Fatalf("incidents: %d with events, %d LB only", len(full), len(lbOnly))
	}
	if full[0].Confidence != High || lbOnly[0].Confidence == High {
		t.Errorf("confidence %s with events and %s from LB logs alone; want high, then lower", full[0].Confidence, lbOnly[0].Confidence)
	}
	if len(lbOnly[0].Notes) == 0 {
		t.Errorf("an LB-only verdict must say that it lacked Kubernetes data")
	}
}

// TestFixesUseObservedSettings checks that fixes carry the numbers the
// objects state: the GKE seed's BackendConfig checks every 30 s.
func TestFixesUseObservedSettings(t *testing.T) {
	_, vs := analyzeDir(t, filepath.Join("..", "fixtures", "gke-neg-zone-move"))
	if len(vs) != 1 || vs[0].Variant != variantNEGWithoutHealthCheck {
		t.Fatalf("verdicts %+v", vs)
	}
	var whys string
	for _, f := range vs[0].Remediation {
		whys += f.Why + "\n" + patchText(t, f.Patch)
	}
	for _, want := range []string{"checkIntervalSec: 5", "minReadySeconds: 15", "every 30 s", "replicas: 3", "topology.kubernetes.io/zone", "name: my-app"} {
		if !strings.Contains(whys, want) {
			t.Errorf("fixes lack %q:\n%s", want, whys)
		}
	}
}

// BenchmarkAnalyzeLargestFixture reads, correlates and classifies the
// largest fixture (30 minutes at 200 requests per second behind an ALB).
func BenchmarkAnalyzeLargestFixture(b *testing.B) {
	dir := filepath.Join("..", "fixtures", "eks-alb-large")
	for b.Loop() {
		if _, vs := analyzeDir(b, dir); len(vs) == 0 {
			b.Fatal("no incident")
		}
	}
}

// patchText renders a patch as the report does.
func patchText(t testing.TB, p Patch) string {
	t.Helper()
	if p == nil {
		return ""
	}
	b, err := yaml.Marshal(map[string]any(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

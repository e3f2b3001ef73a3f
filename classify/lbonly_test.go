package classify

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestLBLogsAloneNameTheCause reads each fixture's load-balancer or proxy
// logs without its Kubernetes events and objects: every mechanism the truth
// holds must still be named (with less confidence), and no other (an
// incident too small to require a finding may be named or not).
func TestLBLogsAloneNameTheCause(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		if testing.Short() && filepath.Base(dir) == "eks-alb-large" {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			tr := readTruth(t, dir)
			var want, optional []string
			for _, in := range tr.Incidents {
				switch {
				case in.Optional || in.Mechanism == keepaliveTimeoutCause.ID && in.FailedRequests < minKeepaliveFailures:
					// Without the objects' timeouts, a trickle must be
					// longer to tell it from noise.
					optional = append(optional, in.Mechanism)
				case !slices.Contains(want, lbOnlyMechanism(in.Mechanism)):
					want = append(want, lbOnlyMechanism(in.Mechanism))
				}
			}
			lb := lbInputs(t, dir)
			if len(lb) == 0 {
				t.Skip("no load-balancer logs")
			}
			cs := correlate.NewCollectors()
			if _, err := sources.Read(context.Background(), lb, sources.Options{}, func(*sources.InputReport) sources.Handler { return cs.New() }); err != nil {
				t.Fatal(err)
			}
			a := correlate.Analyze(cs.Merge(), correlate.Options{})
			var got []string
			for _, f := range Classify(a).Findings {
				if !slices.Contains(got, f.Cause) && (slices.Contains(want, f.Cause) || !slices.Contains(optional, f.Cause)) {
					got = append(got, f.Cause)
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("from the LB logs alone: causes %v, want %v", got, want)
			}
		})
	}
}

// lbInputs lists the inputs of dir that are not Kubernetes records.
func lbInputs(t *testing.T, dir string) []string {
	t.Helper()
	res, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler { return discardHandler{} })
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range res.Inputs {
		if f := sources.FamilyOf(in.Format); f != sources.FamilyKubernetes && f != "" {
			out = append(out, in.Name)
		}
	}
	return out
}

// discardHandler keeps nothing.
type discardHandler struct{}

func (discardHandler) Request(*sources.Request)     {}
func (discardHandler) Lifecycle(*sources.Lifecycle) {}
func (discardHandler) Config(*sources.Config)       {}

// lbOnlyMechanism is the mechanism the load balancer's logs alone show of
// a cause: a progressive rollout's step is known from the controller's
// events and objects only, so its causes read as the mechanism beneath
// (a Service switch's registration lag, a scale-down's termination race).
func lbOnlyMechanism(cause string) string {
	switch cause {
	case rolloutSwitchLagCause.ID, rolloutWeightNoTargetCause.ID, rolloutAbortGoneCause.ID:
		return registrationLagCause.ID
	case rolloutScaleDownRaceCause.ID:
		return terminationRaceCause.ID
	}
	return cause
}

package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/internal/podlist"
)

// TestPodsNothingMentionsAreSetAside reads each invariant fixture beside
// a List of pods of other namespaces, which nothing in the fixture
// mentions, and requires the fixture's verdict unchanged, no lane of those
// pods, and a caveat that counts them and names their namespaces.
func TestPodsNothingMentionsAreSetAside(t *testing.T) {
	list := filepath.Join(t.TempDir(), "pods.json")
	f, err := os.Create(list)
	must(t, err)
	must(t, podlist.Write(f, podlist.Options{Pods: 200, Seed: 5}))
	must(t, f.Close())
	const caveat = "200 pods of the namespaces bulk-0, bulk-1, bulk-2 and 5 more were read and set aside: no traffic to their addresses, no event, no other object mentions them or their namespaces; not judged"
	for _, name := range invariantFixtures {
		t.Run(name, func(t *testing.T) {
			alone := analyze(t, fixture(name))
			got := analyze(t, fixture(name), list)
			if w, g := verdictOf(t, alone), verdictOf(t, got); w != g {
				t.Errorf("the pods changed the verdict: %s", lineDiff(w, g))
			}
			n := 0
			for _, c := range got.Summary.Caveats {
				if c == caveat {
					n++
				}
			}
			if n != 1 || len(got.Summary.Caveats) != len(alone.Summary.Caveats)+1 {
				t.Errorf("caveats %q; want the fixture's %q and %q", got.Summary.Caveats, alone.Summary.Caveats, caveat)
			}
			if len(got.Lanes) != len(alone.Lanes) || got.LanesOmitted != alone.LanesOmitted {
				t.Errorf("%d lanes (%d omitted); the fixture alone has %d (%d)", len(got.Lanes), got.LanesOmitted, len(alone.Lanes), alone.LanesOmitted)
			}
		})
	}
}

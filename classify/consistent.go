package classify

import (
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// ConsistentWith returns the causes whose rule claims a failure of kind k
// in some state of its backend (starting, serving, terminating, gone, on
// either side of a rollout, or with no backend at all), and the causes
// whose rule claims it in none: the rules' own Claims decide, so what
// `readygap explain` says agrees with what analyze would conclude.
func ConsistentWith(k sources.FailureKind) (consistent, ruledOut []Cause) {
	for _, r := range Rules {
		if claimsSome(r, k) {
			consistent = append(consistent, r.Cause())
		} else {
			ruledOut = append(ruledOut, r.Cause())
		}
	}
	return consistent, ruledOut
}

// claimsSome reports whether r claims a failure of kind k in any state.
func claimsSome(r Rule, k sources.FailureKind) bool {
	a := &correlate.Analysis{}
	if r.Claims(a, &correlate.Signal{Kind: k, Visible: true}) {
		return true
	}
	states := []correlate.State{correlate.StateUnknown, correlate.StateStarting, correlate.StateServing, correlate.StateTerminating, correlate.StateGone}
	roles := []correlate.Role{correlate.RoleUnknown, correlate.RoleOld, correlate.RoleNew}
	for _, st := range states {
		for _, ro := range roles {
			s := &correlate.Signal{Kind: k, Visible: true, Attempts: []correlate.Attempt{{Kind: k, State: st, Role: ro, Status: 502}}}
			if r.Claims(a, s) {
				return true
			}
		}
	}
	return false
}

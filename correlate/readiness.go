package correlate

import (
	"cmp"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// DefaultRollingUpdate is a Deployment's rollingUpdate.maxSurge and
// maxUnavailable when unset (the Kubernetes API default).
const DefaultRollingUpdate = "25%"

// RolloutBudget resolves a Deployment's maxSurge and maxUnavailable for
// replicas pods as the Deployment controller does: a number as it is, a
// percentage of replicas rounded up for maxSurge and down for
// maxUnavailable, both DefaultRollingUpdate when unset, and maxUnavailable
// 1 when both come to 0 (ResolveFenceposts in Kubernetes' deployment util).
func RolloutBudget(replicas int, maxSurge, maxUnavailable string) (surge, unavailable int) {
	surge = scaledCount(cmp.Or(maxSurge, DefaultRollingUpdate), replicas, true)
	unavailable = scaledCount(cmp.Or(maxUnavailable, DefaultRollingUpdate), replicas, false)
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable
}

// scaledCount resolves an int-or-percent of total as the Deployment
// controller does (intstr.GetScaledValueFromIntOrPercent): a number as it
// is, a percentage rounded up or down; 0 for what does not parse.
func scaledCount(v string, total int, roundUp bool) int {
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		n, err := strconv.Atoi(pct)
		if err != nil {
			return 0
		}
		if roundUp {
			return (n*total + 99) / 100
		}
		return n * total / 100
	}
	n, _ := strconv.Atoi(v)
	return n
}

// inferReady finds, for the new pods of each rollout that no record shows
// Ready, the latest time each can have become Ready (Backend.ReadyBy).
// During a rolling update the Deployment controller scales the old
// ReplicaSets down only while the pods available (Ready for
// minReadySeconds) stay at least replicas − maxUnavailable, so when it
// scales them down to b pods at T, at least replicas − maxUnavailable − b
// new pods were available. When that is every pod the new ReplicaSet had
// before T, each of those pods was Ready by T − minReadySeconds. It needs
// the Deployment's object (replicas, strategy, minReadySeconds) and the
// ReplicaSets' scaling events; without them it infers nothing.
func inferReady(d *Dataset, rollouts []*Rollout) {
	deployments := map[string]*sources.Workload{}
	for _, c := range d.Configs {
		if c.Kind == "Deployment" && c.Workload != nil {
			deployments[c.Namespace+"/"+c.Name] = c.Workload
		}
	}
	for _, r := range rollouts {
		w := deployments[r.Namespace+"/"+r.Workload]
		if w == nil || r.New == nil || len(r.Old) == 0 || (w.Strategy != "" && w.Strategy != "RollingUpdate") {
			continue
		}
		replicas := 1 // the API's default
		if w.Replicas != nil {
			replicas = *w.Replicas
		}
		_, unavailable := RolloutBudget(replicas, w.MaxSurge, w.MaxUnavailable)
		floor := replicas - unavailable
		minReady := time.Duration(w.MinReadySeconds) * time.Second
		// sizes holds each ReplicaSet's size as its last scaling event set
		// it; a ReplicaSet without one is of unknown size.
		sizes := map[string]int{}
		// before is the new ReplicaSet's size before the moment at: pods
		// it gained at that moment were not there for the controller to
		// count.
		var at time.Time
		before, known := 0, false
		for i := range d.Lifecycle {
			l := &d.Lifecycle[i]
			if (l.Kind != sources.ScaledUp && l.Kind != sources.ScaledDown) || l.Namespace != r.Namespace || !r.takesPart(l.Group) {
				continue
			}
			if !l.Time.Equal(at) {
				at = l.Time
				before, known = sizes[r.New.Name]
			}
			sizes[l.Group] = l.Count
			if l.Kind != sources.ScaledDown || l.Group == r.New.Name {
				continue
			}
			if remaining, ok := oldSize(r, sizes); ok && known && before > 0 && floor-remaining >= before {
				readyBefore(r.New, l, minReady)
			}
		}
	}
}

// takesPart reports whether the ReplicaSet named rs is one of the rollout's.
func (r *Rollout) takesPart(rs string) bool {
	if rs == r.New.Name {
		return true
	}
	for _, o := range r.Old {
		if o.Name == rs {
			return true
		}
	}
	return false
}

// oldSize adds up the sizes of the rollout's old ReplicaSets; false when
// one of them has none yet.
func oldSize(r *Rollout, sizes map[string]int) (int, bool) {
	n := 0
	for _, o := range r.Old {
		s, ok := sizes[o.Name]
		if !ok {
			return 0, false
		}
		n += s
	}
	return n, true
}

// readyBefore marks every pod of rs that appeared before the scale-down l
// and has no Ready time as Ready by l's time less minReady, unless an
// earlier time is known.
func readyBefore(rs *ReplicaSet, l *sources.Lifecycle, minReady time.Duration) {
	by := l.Time.Add(-minReady)
	for _, b := range rs.Pods {
		grew := b.grewAt()
		if grew.IsZero() || !grew.Before(l.Time) || by.Before(grew) || !b.At(Ready).IsZero() {
			continue
		}
		if term := b.At(Terminating); !term.IsZero() && term.Before(l.Time) {
			continue
		}
		if b.ReadyBy == nil || by.Before(b.ReadyBy.Time) {
			b.ReadyBy = &Moment{Time: by, Event: l}
		}
	}
}

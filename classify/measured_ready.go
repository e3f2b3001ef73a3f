package classify

import (
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
)

// readyToServed is what an incident measured of the time minReadySeconds
// must cover: from a new pod's Ready to the load balancer's first use of
// it (its health check passing, else its first response).
type readyToServed struct {
	// Took is the time measured, at least (Ready may be known only as the
	// latest time it can have been: then Took is a lower bound).
	Took time.Duration
	// Pod names the new pod it was measured on.
	Pod string
	// Ready is when the pod was Ready, and ReadyWhy where that was read;
	// ReadyBy says Ready is the latest time it can have been.
	Ready    time.Time
	ReadyWhy string
	ReadyBy  bool
	// Served is when the load balancer first used it, and ServedWhy what
	// says so.
	Served    time.Time
	ServedWhy string
}

// measureReadyToServed measures, over the incident's new pods, the longest
// time from Ready (or the latest it can have been) to the load balancer's
// first use of the pod: its health check passing or its readiness gate
// turning on the load balancer's word, else its first response in the
// request logs. ok is false when no new pod has both.
func measureReadyToServed(refs []BackendRef) (m readyToServed, ok bool) {
	for _, r := range refs {
		b := r.Of
		if b == nil || r.Role != correlate.RoleNew {
			continue
		}
		ready, readyBy := b.Moments[correlate.Ready], false
		if ready == nil {
			ready, readyBy = b.ReadyBy, true
		}
		if ready == nil || ready.Event == nil {
			continue // a Ready no record says is no measurement
		}
		served, why := b.FirstServed, fmt.Sprintf("its first response in the request logs, at %s UTC", correlate.Clock(b.FirstServed))
		if h := b.Moments[correlate.LBHealthy]; h != nil && h.Event != nil && !h.Time.Before(ready.Time) {
			served, why = h.Time, fmt.Sprintf("the load balancer's word that it was healthy, at %s UTC (recorded at %s)", correlate.Clock(h.Time), h.Event.Origin)
		}
		if served.IsZero() || !served.After(ready.Time) {
			continue
		}
		if took := served.Sub(ready.Time); !ok || took > m.Took {
			m, ok = readyToServed{Took: took, Pod: b.Name(), Ready: ready.Time, ReadyWhy: ready.Event.Origin.String(), ReadyBy: readyBy, Served: served, ServedWhy: why}, true
		}
	}
	return m, ok
}

// note says the measurement in a fix: "measured: at least 16 s from pod
// my-app-x Ready (by 00:57:01 UTC, as the scaling event recorded at
// events.json:46 says) to its first response in the request logs, at 00:57:17.428 UTC".
func (m readyToServed) note() string {
	ready := fmt.Sprintf("at %s UTC, recorded at %s", correlate.Clock(m.Ready), m.ReadyWhy)
	least := ""
	if m.ReadyBy {
		ready = fmt.Sprintf("by %s UTC, as the scaling event recorded at %s says", correlate.Clock(m.Ready), m.ReadyWhy)
		least = "at least "
	}
	return fmt.Sprintf("measured: %s%s from pod %s Ready (%s) to %s", least, seconds(m.Took), m.Pod, ready, m.ServedWhy)
}

// sizedFromMeasured raises minReady to what the incident measured plus
// measuredMargin, and says so in the fix's words: the measurement, and
// whether it or the formula set the number. The measurement was made with
// the health check in place, hc; when the fix proposes a faster one,
// basis, the time beyond the check (the load balancer's programming, the
// first check's wait) is carried over to it.
func sizedFromMeasured(minReady int, hc, basis healthCheck, m readyToServed, ok bool) (int, string) {
	if !ok {
		return minReady, ""
	}
	took, carried := m.Took, ""
	if d := hc.Time() - basis.Time(); d > 0 {
		took = max(took-d, 0)
		carried = fmt.Sprintf(" less the %s the faster check saves (%s)", seconds(d), checkFormula(hc)+" → "+checkFormula(basis))
	}
	need := ceilSeconds(took + measuredMargin)
	if need <= minReady {
		return minReady, fmt.Sprintf(" Sized by the formula, which covers the measurement%s plus a %d s margin (%s).", carried, int(measuredMargin.Seconds()), m.note())
	}
	return need, fmt.Sprintf(" Sized from what was measured%s, plus a %d s margin: %d s, above the formula's %d s (%s).", carried, int(measuredMargin.Seconds()), need, minReady, m.note())
}

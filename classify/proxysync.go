package classify

import (
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// This file judges a window against the moments a proxy learned its
// endpoints from its control plane (sources.ProxyUpdated: istiod's pushes,
// ingress-nginx's dynamic reconfigurations), when the inputs log them.
// A rule without such records is unchanged.

// proxySyncAfter is how long after the failures end a proxy update still
// counts as the one that ended them: the failures of the update's last
// second and the proxy applying what it received (Envoy applies an EDS
// update within milliseconds; ingress-nginx's Lua balancer takes a new
// backend list on its next sync, every second: balancer.lua
// BACKENDS_SYNC_INTERVAL) fit in two seconds.
const proxySyncAfter = 2 * time.Second

// proxyWho names the proxies a ProxyUpdated record is about.
func proxyWho(l *sources.Lifecycle) string {
	switch {
	case l.Proxy != "":
		return "proxy " + l.Proxy
	case l.Source == "istiod":
		return "every proxy istiod serves"
	}
	return "the proxy"
}

// proxyLearnedNote says who learned what from a ProxyUpdated record, as a
// sentence of its own (an evidence line already shows the record).
func proxyLearnedNote(l *sources.Lifecycle) string {
	what := "learned the endpoints"
	if l.Object != "" {
		what = "learned the endpoints of " + l.Object
	}
	return proxyWho(l) + " " + what
}

// firstProxyUpdate is the first ProxyUpdated record in [from, to]; nil
// when none.
func firstProxyUpdate(a *correlate.Analysis, from, to time.Time) *sources.Lifecycle {
	return firstEvent(a.EventsBetween(from, to, sources.ProxyUpdated))
}

// registrationProxySync is the evidence that the proxy learned the new
// endpoints as the failures of w ended (the lag was the control plane's
// propagation, not a health check), with ok; else, the last update during
// the failures, which did not end them (not corroborating), or nothing.
func registrationProxySync(a *correlate.Analysis, w *correlate.Window) (ev Evidence, corroborates, ok bool) {
	skew := a.Opts.Skew
	if l := firstProxyUpdate(a, w.End.Add(-skew), w.End.Add(proxySyncAfter+skew)); l != nil {
		note := fmt.Sprintf("learned by %s as the failures ended, %s after they began", proxyWho(l), seconds(l.Time.Sub(w.Start)))
		return eventEvidence(l, note), true, true
	}
	if l := lastEvent(a.EventsBetween(w.Start, w.End.Add(-skew), sources.ProxyUpdated)); l != nil {
		note := fmt.Sprintf("learned by %s during the failures, which went on for %s after it", proxyWho(l), seconds(w.End.Sub(l.Time)))
		return eventEvidence(l, note), false, true
	}
	return Evidence{}, false, false
}

// terminationProxySync is the evidence of when the proxy learned that the
// first of the pods terminating in w had left, measured from that pod's
// termination: the stop propagation the preStop sleep must outlast, read
// from the control plane's own log rather than from the failures alone.
// corroborates is true when the update came as the failures ended.
func terminationProxySync(a *correlate.Analysis, w *correlate.Window, refs []BackendRef) (ev Evidence, corroborates, ok bool) {
	var term time.Time
	for _, r := range refs {
		if r.Of == nil {
			continue
		}
		if m := r.Of.Moments[correlate.Terminating]; m != nil && (term.IsZero() || m.Time.Before(term)) {
			term = m.Time
		}
	}
	if term.IsZero() {
		return Evidence{}, false, false
	}
	skew := a.Opts.Skew
	l := firstProxyUpdate(a, term.Add(-skew), w.End.Add(proxySyncAfter+skew))
	if l == nil {
		return Evidence{}, false, false
	}
	note := fmt.Sprintf("learned by %s %s after the first old pod began terminating; requests reached the old pods until %s",
		proxyWho(l), seconds(max(l.Time.Sub(term), 0)), correlate.Clock(w.End))
	return eventEvidence(l, note), !l.Time.Before(w.End.Add(-skew)), true
}

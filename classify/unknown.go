package classify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// unknownCause is named when no rule explains a group of failures.
var unknownCause = Cause{
	ID:          "unknown",
	Name:        "unknown cause",
	Description: "errors the load balancer generated in a pattern no rule explains; the timeline is shown",
	Signature:   "anything else",
}

// unknownFinding describes failures no rule explains: what failed and
// where, which mechanism the evidence leans to, and what is missing to
// decide, so that the timeline can speak for itself.
func unknownFinding(a *correlate.Analysis, w *correlate.Window) *Finding {
	// The kind of the most signals; a tie goes to other, else to the
	// first kind.
	top := sources.FailureOther
	for _, k := range slices.Sorted(maps.Keys(w.Kinds)) {
		if w.Kinds[k] > w.Kinds[top] {
			top = k
		}
	}
	f := &Finding{Cause: unknownCause.ID, Confidence: Low, Window: w, Backends: backendRefs(a, w), Rollout: a.RolloutAt(w.Start)}
	f.Evidence = failureEvidence(w, nil)
	f.Summary = fmt.Sprintf("The load balancer generated %s (%s) over %s (%s), mostly %q, in a pattern that fits none of the known mechanisms. %s",
		words.Plural(w.Failed, "failed request"), cmp.Or(statusList(w.StatusCounts), "none client-visible"), seconds(w.Duration()), span(w), top.String(), leaning(a, w, top))
	return f
}

// leaning says which mechanism the evidence leans to and what is missing to
// decide.
func leaning(a *correlate.Analysis, w *correlate.Window, top sources.FailureKind) string {
	states := map[correlate.State]int{}
	for _, f := range w.ByIP {
		for st, n := range f.States {
			states[st] += n
		}
	}
	switch {
	case top == sources.FailureNoBackend:
		return "Answers without a backend point to registration lag, but no rollout or backend change explains them; the Kubernetes events of that time would decide."
	case states[correlate.StateServing] > 0 && top == sources.FailureClosed:
		return "Closed connections at backends that kept serving point to an idle keep-alive race; the app's keep-alive and the load balancer's idle timeout would decide."
	case states[correlate.StateServing] > 0:
		return "The backends kept serving around the failures, so no rollout step explains them; the application's own logs of that time would decide."
	case states[correlate.StateUnknown] > 0 && !a.HasKubernetes():
		return "Nothing says what the backends were doing; the Kubernetes events and pod objects of that time would decide."
	}
	return "See the timeline."
}

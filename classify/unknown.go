package classify

import (
	"fmt"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// unknownCause is named when no rule explains a window.
var unknownCause = Cause{
	ID:          "unknown",
	Name:        "unknown cause",
	Description: "errors the load balancer generated in a pattern no rule explains; the timeline is shown",
	Signature:   "anything else",
}

// unknownFinding describes a window no rule explains: what failed and where,
// without naming a mechanism, so that the timeline can speak for itself.
func unknownFinding(a *correlate.Analysis, w *correlate.Window) *Finding {
	_, refs := roleCounts(a, w, sources.FailureNoBackend, sources.FailureRefused, sources.FailureUnreachable,
		sources.FailureClosed, sources.FailureTimeout, sources.FailureOther)
	top := sources.FailureOther
	for k, n := range w.Kinds {
		if n > w.Kinds[top] || (n == w.Kinds[top] && k < top) {
			top = k
		}
	}
	return &Finding{
		Cause:      unknownCause.ID,
		Confidence: Low,
		Summary: fmt.Sprintf("The load balancer generated %s (%s) over %s (%s), mostly %q, in a pattern that fits none of registration lag, a wrong readiness-probe port or the termination race; see the timeline.",
			plural(w.Failed, "failed request"), statusList(w.StatusCounts), seconds(w.Duration()), span(w), top.String()),
		Backends: refs,
		Evidence: failureEvidence(w, nil),
	}
}

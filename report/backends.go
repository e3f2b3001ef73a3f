package report

import (
	"fmt"
	"strings"

	"github.com/readygap/readygap/internal/words"
)

// MaxTableBackends bounds the rows of an incident's backends table in the
// text, Markdown and HTML reports: as many as a reader compares at a
// glance, about a screen at 80 columns where a row takes two lines. The
// rest are counted in one line (the HTML report lists them in a folded
// table); the JSON report lists them all.
const MaxTableBackends = 10

// tableBackends splits an incident's backends into the rows its table
// shows, the first maxTableBackends in the report's order (new, old, then
// unknown, the busiest first in each), and the rest, which moreBackends
// sums up.
func tableBackends(bs []Backend) (shown, rest []Backend) {
	if len(bs) <= MaxTableBackends {
		return bs, nil
	}
	return bs[:MaxTableBackends], bs[MaxTableBackends:]
}

// moreBackends sums up the backends an incident's table leaves out, for a
// report that does not list them.
func moreBackends(rest []Backend) string {
	return restOfBackends(rest) + "; the JSON report lists every one"
}

// restOfBackends counts the backends an incident's table leaves out, by
// role, with their failed attempts: "and 190 more backends (12 new, 178
// old), 1–3 failed attempts each"; one alone reads "and 1 more old
// backend, with 2 failed attempts".
func restOfBackends(rest []Backend) string {
	if len(rest) == 1 {
		b := rest[0]
		noun := "backend of unknown role"
		if b.Role == "new" || b.Role == "old" {
			noun = b.Role + " backend"
		}
		return fmt.Sprintf("and 1 more %s, with %s", noun, words.Plural(b.Failures, "failed attempt"))
	}
	lo, hi := rest[0].Failures, rest[0].Failures
	for _, b := range rest {
		lo, hi = min(lo, b.Failures), max(hi, b.Failures)
	}
	attempts := fmt.Sprintf("%d–%d failed attempts each", lo, hi)
	if lo == hi {
		attempts = fmt.Sprintf("%s each", words.Plural(lo, "failed attempt"))
	}
	roles := strings.TrimPrefix(backendsHeading(rest), "Backends ")
	return fmt.Sprintf("and %d more backends %s, %s", len(rest), roles, attempts)
}

// backendsHeading counts the backends by role.
func backendsHeading(bs []Backend) string {
	roles := map[string]int{}
	for _, b := range bs {
		roles[b.Role]++
	}
	var parts []string
	for _, r := range []string{"new", "old", "unknown"} {
		if n := roles[r]; n > 0 {
			word := r
			if r == "unknown" {
				word = "of unknown role"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	return "Backends (" + strings.Join(parts, ", ") + ")"
}

// backendCounts names a backend's failures as requests and attempts: a
// request retried elsewhere is one failed attempt here and no failed request.
func backendCounts(b Backend) string {
	var parts []string
	if b.FailedRequests > 0 {
		parts = append(parts, words.Plural(b.FailedRequests, "request"))
	}
	if b.Failures > 0 {
		parts = append(parts, words.Plural(b.Failures, "attempt"))
	}
	if len(parts) == 0 {
		return "0 failed"
	}
	return strings.Join(parts, ", ")
}

// backendWhy says how the backend's role and pod were found, and when it failed.
func backendWhy(b Backend) string {
	var parts []string
	if !b.Start.IsZero() {
		parts = append(parts, "failed "+clockOf(b.Start)+"–"+clockOf(b.End))
	}
	if b.Why != "" {
		parts = append(parts, Sanitize(b.Why))
	}
	if b.Joined != "" {
		parts = append(parts, "joined to its pod by timing: "+Sanitize(b.Joined))
	}
	if b.ReplicaSet != "" && !strings.Contains(b.Why, b.ReplicaSet) {
		parts = append(parts, "ReplicaSet "+Sanitize(b.ReplicaSet))
	}
	return strings.Join(parts, "; ")
}

package classify

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// maxFailureEvidence bounds the failure records quoted per verdict.
const maxFailureEvidence = 4

// requestEvidence quotes one failed request.
func requestEvidence(r *sources.Request) Evidence {
	return Evidence{Time: r.Time, Source: r.Origin.String(), Text: correlate.DescribeRequest(r)}
}

// eventEvidence quotes one lifecycle record.
func eventEvidence(l *sources.Lifecycle, note string) Evidence {
	text := correlate.DescribeEvent(l)
	if who := correlate.Subject(l); who != "" {
		text = who + ": " + text
	}
	if note != "" {
		text += " — " + note
	}
	return Evidence{Time: l.Time, Source: l.Origin.String(), Text: text}
}

// failureEvidence quotes a few failure signals of the window, spread from
// the first to the last of those keep accepts (all when keep is nil).
func failureEvidence(w *correlate.Window, keep func(*sources.Request) bool) []Evidence {
	var picked []*sources.Request
	for _, r := range w.Signals {
		if keep == nil || keep(r) {
			picked = append(picked, r)
		}
	}
	if len(picked) == 0 {
		return nil
	}
	var out []Evidence
	step := len(picked) / (maxFailureEvidence - 1)
	if step == 0 {
		step = 1
	}
	for i := 0; i < len(picked) && len(out) < maxFailureEvidence-1; i += step {
		out = append(out, requestEvidence(picked[i]))
	}
	if last := picked[len(picked)-1]; len(picked) > 1 && out[len(out)-1].Source != last.Origin.String() {
		out = append(out, requestEvidence(last))
	}
	return out
}

// signalBackends returns the backends a failure signal names: for a retried
// request, those of its failed attempts.
func signalBackends(r *sources.Request) []netip.AddrPort {
	if len(r.Attempts) == 0 {
		if r.Backend.IsValid() {
			return []netip.AddrPort{r.Backend}
		}
		return nil
	}
	var out []netip.AddrPort
	for _, a := range r.Attempts {
		if a.Failure.LBGenerated() && a.Backend.IsValid() {
			out = append(out, a.Backend)
		}
	}
	return out
}

// namesIP reports whether a failure signal names one of ips.
func namesIP(ips map[netip.Addr]bool) func(*sources.Request) bool {
	return func(r *sources.Request) bool {
		for _, b := range signalBackends(r) {
			if ips[b.Addr()] {
				return true
			}
		}
		return false
	}
}

// ipsWithRole returns the IPs of the backends with the given role.
func ipsWithRole(refs []BackendRef, role correlate.Role) map[netip.Addr]bool {
	ips := map[netip.Addr]bool{}
	for _, r := range refs {
		if r.Role == role {
			ips[r.IP] = true
		}
	}
	return ips
}

// roleCounts splits the window's failure signals that name a backend by the
// role of that backend, and lists the backends.
func roleCounts(a *correlate.Analysis, w *correlate.Window, kinds ...sources.FailureKind) (map[correlate.Role]int, []BackendRef) {
	counts := map[correlate.Role]int{}
	var refs []BackendRef
	for _, f := range w.FailingIPs() {
		n := 0
		for _, k := range kinds {
			n += f.Kinds[k]
		}
		if n == 0 {
			continue
		}
		role, why := a.RoleOf(f.IP, w)
		counts[role] += n
		ref := BackendRef{IP: f.IP, Role: role, Failures: n, Why: why}
		if b := a.BackendOf(f.IP, w.Start); b != nil {
			ref.Pod = b.Pod
		}
		refs = append(refs, ref)
	}
	return counts, refs
}

// share is n/total, 0 when total is 0.
func share(n, total int) float64 {
	if total == 0 {
		return 0
	}
	return float64(n) / float64(total)
}

// seconds renders a duration in whole or tenth seconds.
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s >= 10 || s == float64(int(s)) {
		return fmt.Sprintf("%.0f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// span renders a window's time range.
func span(w *correlate.Window) string {
	return fmt.Sprintf("%s–%s UTC", correlate.Clock(w.Start), correlate.Clock(w.End))
}

// statusList renders status counts as "182×502, 3×503".
func statusList(counts map[int]int) string {
	var parts []string
	for _, code := range []int{500, 502, 503, 504} {
		if n := counts[code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d×%d", n, code))
		}
	}
	for code, n := range counts {
		if code != 500 && code != 502 && code != 503 && code != 504 && n > 0 {
			parts = append(parts, fmt.Sprintf("%d×%d", n, code))
		}
	}
	return strings.Join(parts, ", ")
}

// plural renders n with a noun in singular or plural.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// notes lists caveats about the data behind a window.
func notes(a *correlate.Analysis, w *correlate.Window) []string {
	var out []string
	if !a.HasKubernetes() {
		out = append(out, "Only load-balancer logs were given: pod roles were inferred from when each IP served traffic. Add `kubectl get events -o json` and the pod/deployment objects for a firmer verdict.")
	}
	for _, l := range a.EventsBetween(w.Start.Add(-time.Hour), w.End, sources.EventsLost) {
		out = append(out, fmt.Sprintf("The event exporter restarted at %s (%s): events before it may be missing.", correlate.Clock(l.Time), l.Origin))
	}
	if rate := logSampleRate(a); rate > 0 && rate < 1 && platformOf(w) == platformGKE {
		out = append(out, fmt.Sprintf("The load balancer logs %.0f %% of requests (BackendConfig logging.sampleRate %g): the %d failed requests logged stand for about %d.",
			rate*100, rate, w.Failed, int(float64(w.Failed)/rate+0.5)))
	}
	if w.Hidden > 0 {
		out = append(out, fmt.Sprintf("%s failed on a first attempt but succeeded on a retry; they are not in the failed-request count.", plural(w.Hidden, "request")))
	}
	return out
}

// logSampleRate is the request-log sample rate a BackendConfig states; 0 when none does.
func logSampleRate(a *correlate.Analysis) float64 {
	for _, c := range a.Configs {
		if c.HealthCheck != nil && c.HealthCheck.LogSampleRate != nil {
			return *c.HealthCheck.LogSampleRate
		}
	}
	return 0
}

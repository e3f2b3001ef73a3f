package classify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// Thresholds below which failures nobody explains are a note, not an
// incident: a busy load balancer produces a few 5xx of its own by chance
// (clients resetting, a keep-alive race), and a page at 3 a.m. for them is
// noise.
const (
	// minUnknownFailures is the fewest client-visible failures without a
	// mechanism that make an unknown incident: ten 5xx in a burst are
	// more than chance on any load balancer readygap has seen.
	minUnknownFailures = 10
	// minHiddenOnly is the fewest retried-and-rescued requests without a
	// mechanism and without any client-visible failure that make one.
	minHiddenOnly = 10
)

// incidentGroup is one set of claimed failures that becomes one finding.
type incidentGroup struct {
	// Rollout is the rollout the failures happened in; nil for another
	// episode or a stretch of time.
	Rollout *correlate.Rollout
	// Trigger is what deleted the pods, for termination races.
	Trigger correlate.Trigger
	// Explicit is set when the mechanism's own evidence names the failing
	// pods (the drain, eviction or scale-in event that deleted them): then
	// fewer failures than Opts.MinSignals still make a finding.
	Explicit bool
	Signals  []*correlate.Signal
}

// groupByRollout splits claimed failures into one group per rollout that
// covers them, and, for failures no rollout covers, one group per run of
// failures no longer than MergeGap apart.
func groupByRollout(a *correlate.Analysis, sigs []*correlate.Signal) []incidentGroup {
	return groupByEpisode(a, sigs, func(s *correlate.Signal) incidentGroup { return incidentGroup{Rollout: s.Rollout} })
}

// groupByEpisode splits claimed failures into one group per episode (a
// rollout, a node's drain, a scale-in) that episodeOf names, and, for
// failures of no episode, one group per run of failures no longer than
// MergeGap apart. Groups with fewer than MinSignals failures are kept: the
// finding they make is a note unless the mechanism's own evidence names
// its pods (see smallFinding).
func groupByEpisode(a *correlate.Analysis, sigs []*correlate.Signal, episodeOf func(*correlate.Signal) incidentGroup) []incidentGroup {
	byKey := map[string]*incidentGroup{}
	var keys []string
	var loose []*correlate.Signal
	// Failures of one episode are many: its key is built once.
	type episode struct {
		rollout *correlate.Rollout
		trigger correlate.Trigger
	}
	keyOf := map[episode]string{}
	for _, s := range sigs {
		g := episodeOf(s)
		e := episode{g.Rollout, g.Trigger}
		k, ok := keyOf[e]
		if !ok {
			k = episodeKey(g)
			keyOf[e] = k
		}
		if k == "" {
			loose = append(loose, s)
			continue
		}
		if byKey[k] == nil {
			first := g // g itself stays on the stack: it is one per failure
			byKey[k] = &first
			keys = append(keys, k)
		}
		byKey[k].Signals = append(byKey[k].Signals, s)
		byKey[k].Explicit = byKey[k].Explicit || g.Explicit
	}
	var out []incidentGroup
	for _, k := range keys {
		out = append(out, *byKey[k])
	}
	for _, run := range correlate.Split(loose, a.Opts.MergeGap) {
		out = append(out, incidentGroup{Signals: run})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Signals[0].Time().Before(out[j].Signals[0].Time()) })
	return out
}

// episodeKey identifies a group's episode; "" for none.
func episodeKey(g incidentGroup) string {
	if k := g.Trigger.Key(); k != "" {
		return k
	}
	if g.Rollout != nil {
		return "rollout/" + g.Rollout.ID()
	}
	return ""
}

// belowThreshold reports whether failures no rule explains are too few to
// be an incident, and words the note that mentions them instead.
func belowThreshold(a *correlate.Analysis, w *correlate.Window) (string, bool) {
	kind, ok := noteKindOf(a, w)
	if !ok {
		return "", false
	}
	return noteText(kind, []*correlate.Window{w}), true
}

// noteKind is why failures no rule explains are a note.
type noteKind uint8

const (
	// noteFewSignals: fewer failure signals than Opts.MinSignals.
	noteFewSignals noteKind = iota
	// noteHiddenOnly: no client saw an error, and retries hid few.
	noteHiddenOnly
	// noteFewFailed: fewer client-visible failures than minUnknownFailures.
	noteFewFailed
	// noteServedAround: answers without a backend from a load balancer
	// whose backends served other requests around them, however many.
	noteServedAround
)

// noteKindOf says whether failures no rule explains are too few to be an
// incident, and why.
func noteKindOf(a *correlate.Analysis, w *correlate.Window) (noteKind, bool) {
	var kind noteKind
	switch {
	case w.Count < a.Opts.MinSignals:
		kind = noteFewSignals
	case w.Failed == 0 && w.Hidden < minHiddenOnly:
		kind = noteHiddenOnly
	case w.Failed > 0 && w.Failed < minUnknownFailures:
		kind = noteFewFailed
	default:
		return 0, false
	}
	return kind, true
}

// noBackendServedAround reports whether s is an answer without a backend
// from a load balancer whose backends served the requests around it (see
// servedAround): never an incident of its own, however many.
func noBackendServedAround(a *correlate.Analysis, s *correlate.Signal) bool {
	return noBackendAnswer(s) && servedAround(a, s)
}

// smallFinding reports whether a rule's finding has too few client-visible
// failures to be an incident: none at all (retries hid every one), or fewer
// than Opts.MinSignals without the mechanism's own evidence naming the pods.
func smallFinding(a *correlate.Analysis, f *Finding) bool {
	return f.Window.Failed == 0 || f.Window.Failed < a.Opts.MinSignals && !f.explicit
}

// smallNote words the note that stands for a finding smallFinding set aside.
func smallNote(a *correlate.Analysis, f *Finding, cause Cause) string {
	w := f.Window
	if w.Failed == 0 {
		return fmt.Sprintf("%s between %s and %s failed on a first attempt and succeeded on a retry, as %s would fail them; no client saw an error, so no incident.",
			words.Plural(w.Hidden, "request"), correlate.Clock(w.SignalStart), correlate.Clock(w.SignalEnd), cause.Name)
	}
	hidden := ""
	if w.Hidden > 0 {
		hidden = fmt.Sprintf(", %d more hidden by retries", w.Hidden)
	}
	return fmt.Sprintf("%s (%s) between %s and %s look like %s%s; fewer than the %d client-visible failures that make an incident without the mechanism's own evidence (an event naming the pods, the manifest's setting).",
		words.Plural(w.Failed, "failed request"), statusList(w.StatusCounts), correlate.Clock(w.SignalStart), correlate.Clock(w.SignalEnd), cause.Name, hidden, a.Opts.MinSignals)
}

// maxNoteExamples is how many example records a note of several runs of
// failures quotes.
const maxNoteExamples = 3

// belowNotes words the notes of the runs of failures below the incident
// thresholds: one note per kind, in the order of each kind's first run,
// that counts the runs of its kind and quotes a few, instead of one line
// each (an hour of a busy load balancer holds hundreds).
func belowNotes(kinds []noteKind, ws []*correlate.Window) []string {
	order := make([]int, len(ws))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return ws[order[i]].SignalStart.Before(ws[order[j]].SignalStart) })
	sortedKinds := make([]noteKind, len(ws))
	sortedWs := make([]*correlate.Window, len(ws))
	for i, k := range order {
		sortedKinds[i], sortedWs[i] = kinds[k], ws[k]
	}
	return kindNotes(sortedKinds, sortedWs)
}

// kindNotes words one note per kind of the runs ws, in time order.
func kindNotes(kinds []noteKind, ws []*correlate.Window) []string {
	byKind := map[noteKind][]*correlate.Window{}
	var order []noteKind
	for i, k := range kinds {
		if byKind[k] == nil {
			order = append(order, k)
		}
		byKind[k] = append(byKind[k], ws[i])
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, noteText(k, byKind[k]))
	}
	return out
}

// noteText words the note of the runs ws of one kind, in time order, with
// what their failures are consistent with.
func noteText(kind noteKind, ws []*correlate.Window) string {
	if kind == noteServedAround {
		return noteBody(kind, ws)
	}
	return noteBody(kind, ws) + consistentNote(ws)
}

// noteBody words the note of noteText, without what the failures are
// consistent with.
func noteBody(kind noteKind, ws []*correlate.Window) string {
	first, last := ws[0], ws[len(ws)-1]
	failed, hidden, count := 0, 0, 0
	statuses := map[int]int{}
	for _, w := range ws {
		failed, hidden, count = failed+w.Failed, hidden+w.Hidden, count+w.Count
		for code, n := range w.StatusCounts {
			statuses[code] += n
		}
	}
	if kind == noteServedAround {
		return fmt.Sprintf("%s without a backend (%s) between %s and %s came while the same load balancer's backends answered the requests around them: "+
			"not a lack of healthy backends, but requests it would not route (a listener rule or target group without targets, a capacity or WAF limit); "+
			"no rollout is needed to explain them. %s",
			words.Plural(count, "answer"), cmp.Or(statusList(statuses), sources.FailureNoBackend.String()), correlate.Clock(first.SignalStart), correlate.Clock(last.SignalEnd),
			noteExamples(ws))
	}
	if len(ws) == 1 {
		w := first
		switch kind {
		case noteFewSignals:
			return fmt.Sprintf("%s of the load balancer's own at %s (%s) fit no pattern; too few to be an incident.",
				words.Plural(w.Count, "failure"), correlate.Clock(w.SignalStart), cmp.Or(statusList(w.StatusCounts), w.Signals[0].Kind.String()))
		case noteHiddenOnly:
			return fmt.Sprintf("%s between %s and %s failed on a first attempt and succeeded on a retry, in no known pattern; no client saw an error.",
				words.Plural(w.Hidden, "request"), correlate.Clock(w.SignalStart), correlate.Clock(w.SignalEnd))
		}
		return fmt.Sprintf("%s generated by the load balancer between %s and %s (%s) fit no known mechanism; below the %d that make an incident.",
			words.Plural(w.Failed, "failed request"), correlate.Clock(w.Start), correlate.Clock(w.End), statusList(w.StatusCounts), minUnknownFailures)
	}
	runs := fmt.Sprintf("%d separate runs between %s and %s", len(ws), correlate.Clock(first.SignalStart), correlate.Clock(last.SignalEnd))
	switch kind {
	case noteFewSignals:
		return fmt.Sprintf("%s of the load balancer's own (%s) in %s fit no pattern; each too few to be an incident. %s",
			words.Plural(count, "failure"), cmp.Or(statusList(statuses), first.Signals[0].Kind.String()), runs, noteExamples(ws))
	case noteHiddenOnly:
		return fmt.Sprintf("%s in %s failed on a first attempt and succeeded on a retry, in no known pattern; no client saw an error. %s",
			words.Plural(hidden, "request"), runs, noteExamples(ws))
	}
	return fmt.Sprintf("%s generated by the load balancer (%s) in %s fit no known mechanism; each below the %d that make an incident. %s",
		words.Plural(failed, "failed request"), statusList(statuses), runs, minUnknownFailures, noteExamples(ws))
}

// noteExamples quotes where the first records of a few runs are.
func noteExamples(ws []*correlate.Window) string {
	var b strings.Builder
	b.WriteString("For example ")
	for i, w := range ws[:min(len(ws), maxNoteExamples)] {
		if i > 0 {
			b.WriteString(", ")
		}
		s := w.Signals[0]
		fmt.Fprintf(&b, "%s at %s", s.Group.Origin, correlate.Clock(s.Time()))
	}
	b.WriteString(".")
	return b.String()
}

// notes lists caveats about the data behind a finding.
func notes(a *correlate.Analysis, f *Finding) []string {
	w := f.Window
	var out []string
	if !a.HasKubernetes() {
		out = append(out, "Only load-balancer logs were given: pod roles were inferred from when each IP served traffic. Add `kubectl get events -o json` and the pod/deployment objects for a firmer verdict.")
	}
	for _, l := range a.EventsBetween(w.Start.Add(-eventsLostLookback), w.End, sources.EventsLost) {
		out = append(out, fmt.Sprintf("The event exporter restarted at %s (%s): events before it may be missing.", correlate.Clock(l.Time), l.Origin))
	}
	if f.SampleRate > 0 {
		out = append(out, fmt.Sprintf("The load balancer logs %.0f %% of requests (BackendConfig logging.sampleRate %g): the %d failed requests logged stand for about %d.",
			f.SampleRate*100, f.SampleRate, w.Failed, f.Estimated()))
	}
	if w.Hidden > 0 {
		out = append(out, fmt.Sprintf("%s failed on a first attempt but succeeded on a retry; they are not in the failed-request count.", words.Plural(w.Hidden, "request")))
	}
	return out
}

// eventsLostLookback is how long before a finding an event-exporter
// restart still matters: Kubernetes keeps events for an hour (the API
// server's default --event-ttl).
const eventsLostLookback = time.Hour

// familyOf names the load-balancer family that logged the window's failures.
func familyOf(w *correlate.Window) sources.Family {
	counts := map[sources.Family]int{}
	for _, s := range w.Signals {
		if f := s.Group.ProxyFamily(); f != "" {
			counts[f] += s.Weight()
		}
	}
	return mostCounted(counts)
}

// mostCounted returns the key counted most, the least of those tied (one
// answer whatever the map's order); the zero key when there is none.
func mostCounted[K cmp.Ordered](counts map[K]int) K {
	var best K
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] > counts[best] {
			best = k
		}
	}
	return best
}

// consistentNote says, for a note on failures below the threshold, what
// the first failure's own log value means and which mechanisms failures of
// their kinds are consistent with (the rules' Claims decide, as in
// ConsistentWith): a line often says more than "no known mechanism".
func consistentNote(ws []*correlate.Window) string {
	seen := map[sources.FailureKind]bool{}
	var kinds []sources.FailureKind
	for _, w := range ws {
		for k := range w.Kinds {
			if k.LBGenerated() && !seen[k] {
				seen[k] = true
				kinds = append(kinds, k)
			}
		}
	}
	slices.Sort(kinds)
	var out string
	if w := ws[0]; len(w.Signals) > 0 && w.Signals[0].Group != nil {
		if rec := w.Signals[0].Group.Record(); rec != nil && rec.Detail != "" {
			if ms := sources.LookupMeanings(rec.Detail); len(ms) > 0 {
				out += fmt.Sprintf(" The log's %s %s means: %s.", ms[0].Field, ms[0].Value, ms[0].Means)
			}
		}
	}
	if len(kinds) == 0 {
		return out
	}
	consistent := map[string]bool{}
	var names, kindNames []string
	for _, k := range kinds {
		kindNames = append(kindNames, k.String())
		c, _ := ConsistentWith(k)
		for _, x := range c {
			if !consistent[x.ID] {
				consistent[x.ID] = true
				names = append(names, x.Name)
			}
		}
	}
	if len(names) == 0 {
		return out + fmt.Sprintf(" Their kind (%s) fits none of readygap's mechanisms.", strings.Join(kindNames, ", "))
	}
	return out + fmt.Sprintf(" Their kind (%s) is consistent with %s, depending on the backend's state then.",
		strings.Join(kindNames, ", "), joinOr(names))
}

// joinOr joins names as "a, b or c".
func joinOr(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// noBackendAnswer reports whether the load balancer answered the failure
// itself without trying a backend.
func noBackendAnswer(s *correlate.Signal) bool {
	return s.Kind == sources.FailureNoBackend && len(s.Attempts) == 0
}

package report

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/readygap/readygap/internal/words"
	"golang.org/x/term"
)

var (
	headingStyle = lipgloss.NewStyle().Bold(true)
	causeStyle   = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("1"))
	okStyle      = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("2"))
	warnStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	dimStyle     = lipgloss.NewStyle().Faint(true)
	patchStyle   = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
)

// Widths of text output.
const (
	// DefaultTextWidth is the width when the output is not a terminal.
	DefaultTextWidth = 100
	// minTextWidth is the narrowest layout; narrower terminals wrap it.
	minTextWidth = 80
	// minFlexWidth is the narrowest a wrapped column may get before a table
	// puts its whole-word columns on a line of their own instead.
	minFlexWidth = 40
	// timeWidth is the width of a time of day with milliseconds.
	timeWidth = len("15:04:05.000")
)

// textWidthOf is the width to lay text out for w: the terminal's when w is
// one (never under minTextWidth), else DefaultTextWidth.
func textWidthOf(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return max(cols, minTextWidth)
		}
	}
	return DefaultTextWidth
}

// causeName is the incident's cause for a reader: the name the report
// carries, its id in a report that carries none.
func causeName(in Incident) string { return Sanitize(cmp.Or(in.CauseName, in.Cause)) }

// variantName is the incident's variant for a reader, as causeName.
func variantName(in Incident) string { return Sanitize(cmp.Or(in.VariantName, in.Variant)) }

// renderText writes the report for a person at a terminal, laid out for
// its width. Colours are dropped when w is not a terminal or NO_COLOR is
// set; untrusted text is sanitized.
func renderText(w io.Writer, rep *Report) error {
	return WriteText(w, rep, textWidthOf(w))
}

// WriteText writes the text report laid out for width columns: a
// summary that fits one screen (counts, the incidents by rollout with their
// causes in one line each, the changes to make, what changes how to read
// them), then each incident's key moments, evidence and backends, the
// changes in full, the lanes and the inputs. Identifiers (IPs, pod names,
// reasons, file:line) are never cut: cells wrap at spaces, and long file
// names are shortened by prefixes the report names once.
func WriteText(w io.Writer, rep *Report, width int) error {
	t := &textOut{w: w, width: max(width, minTextWidth), names: newSourceNames(rep.Inputs), colour: colorprofile.Detect(w, os.Environ()) >= colorprofile.ANSI}
	t.summary(rep)
	for i, in := range rep.Incidents {
		t.incident(rep, i, in)
	}
	t.changes(rep)
	t.lanes(rep)
	t.inputs(rep)
	t.flush()
	return t.err
}

// textFlushBytes is how much text textOut gathers before it writes it out:
// the report of 100 000 inputs is 8 MB of text, which need not be held
// whole (and copied as it grows).
const textFlushBytes = 64 << 10

// textOut writes the text report to w a few lines at a time; err is the
// first write's error.
type textOut struct {
	w     io.Writer
	err   error
	b     strings.Builder
	width int
	names *sourceNames
	// colour says whether the output keeps colours (lipgloss drops them
	// from a writer that is not a terminal, or with NO_COLOR set).
	colour bool
}

func (t *textOut) line(s string) {
	t.b.WriteString(s)
	t.blank()
}

func (t *textOut) blank() {
	t.b.WriteByte('\n')
	if t.b.Len() >= textFlushBytes {
		t.flush()
	}
}

// flush writes the lines gathered, whole lines, so that a style never spans
// two writes.
func (t *textOut) flush() {
	if t.err == nil && t.b.Len() > 0 {
		_, t.err = lipgloss.Fprint(t.w, t.b.String())
	}
	t.b.Reset()
}

func (t *textOut) heading(s string) { t.line(headingStyle.Render(s)) }

// para writes text wrapped to the width, continuation lines indented.
func (t *textOut) para(head, text, indent string) {
	t.line(hanging(head, text, indent, t.width))
}

// summary writes the report at a glance.
func (t *textOut) summary(rep *Report) {
	s := rep.Summary
	switch verdict, rest := headline(rep); {
	case s.Verdict == VerdictCannotJudge:
		t.para("", warnStyle.Bold(true).Render(verdict)+" "+Sanitize(rest), "  ")
	case len(rep.Incidents) == 0:
		t.para("", okStyle.Render(verdict)+" "+rest, "")
	default:
		t.para("", causeStyle.Render(verdict+" "+rest), "  ")
	}
	t.para("", dataText(rep), "  ")
	if len(rep.Incidents) == 0 {
		t.coverage(rep)
	}
	for _, note := range rep.Notes {
		t.para(warnStyle.Render("note: "), Sanitize(note), "      ")
	}
	for _, c := range s.Caveats {
		t.para(warnStyle.Render("! "), Sanitize(c), "  ")
	}
	if len(rep.Incidents) == 0 {
		t.blank()
		t.sourceLegend()
		return
	}
	t.blank()
	groups := incidentsByRollout(rep)
	for _, grp := range groups {
		if grp.opens != "" {
			t.para("", headingStyle.Render(Sanitize("Rollouts of "+grp.opens)), "  ")
		}
		switch {
		case grp.under:
			t.para("", headingStyle.Render(Sanitize(grp.steps)), "  ")
		case grp.title != "":
			t.para("", headingStyle.Render(Sanitize(grp.title)), "  ")
		}
		for _, i := range grp.incidents {
			in := rep.Incidents[i]
			head := fmt.Sprintf("  #%-2d %s  %7s  %s  ", i+1, clockOf(in.Start), durationText(in.DurationSeconds), padLeft(strconv.Itoa(in.FailedRequests)+" failed", 11))
			t.para(head, causeLine(in), "      ")
		}
	}
	if len(s.Changes) > 0 {
		t.blank()
		t.heading("Changes to make (in full under Changes below)")
		for i, c := range s.Changes {
			head := fmt.Sprintf("  %d. ", i+1)
			t.para(head, Sanitize(c.Title)+dimStyle.Render("  ("+incidentRefs(c.Incidents)+")"), strings.Repeat(" ", len(head)))
		}
	}
	t.blank()
	t.sourceLegend()
	// With incidents, what the verdict rests on follows the summary, which
	// must fit one screen; without, it is the verdict's own second line.
	if len(s.Coverage) > 0 {
		t.heading("Read")
		t.coverage(rep)
		t.blank()
	}
}

// coverage writes what the verdict rests on, one line per kind of source,
// and the inputs not read.
func (t *textOut) coverage(rep *Report) {
	if len(rep.Summary.Coverage) == 0 {
		return
	}
	width := len("controller logs")
	for _, c := range rep.Summary.Coverage {
		width = max(width, len(c.Name))
	}
	for _, c := range rep.Summary.Coverage {
		kind, what := coverageLine(c)
		head := "  " + padRight(kind, width) + "  "
		t.para(dimStyle.Render(head), what, strings.Repeat(" ", len(head)+2))
	}
	if u := unreadLine(rep); u != "" {
		head := "  " + padRight("not read", width) + "  "
		t.para(warnStyle.Render(head), Sanitize(u), strings.Repeat(" ", len(head)+2))
	}
}

// sourceLegend states the prefixes that stand for the start of long file
// names, after the summary, which names no file.
func (t *textOut) sourceLegend() {
	legend := t.names.legend(t.width)
	for _, l := range legend {
		t.line(dimStyle.Render(l))
	}
	if len(legend) > 0 {
		t.blank()
	}
}

// causeLine is an incident's cause in one line: name, variant, trigger,
// confidence, and a cut by the window.
func causeLine(in Incident) string {
	s := causeName(in)
	if in.Variant != "" {
		s += " (" + variantName(in) + ")"
	}
	if in.Trigger != "" && in.Trigger != "rollout" && in.Trigger != "unknown" {
		s += ", triggered by " + strings.ReplaceAll(Sanitize(in.Trigger), "_", " ")
	}
	s += ", " + in.Confidence + " confidence"
	if in.Cut != "" {
		s += "; " + Sanitize(in.Cut)
	}
	return s
}

// rolloutGroup is the incidents of one rollout, by index.
type rolloutGroup struct {
	// workload names the rollout's workload and namespace, steps its time,
	// ReplicaSets and revision, title all of it; workload and steps are
	// empty for the incidents of no rollout, which title names.
	workload, steps, title string
	// under is set for a rollout of a workload that rolled out more than
	// once, in a run of such rollouts the summary heads with the workload
	// alone, named in opens on the first of the run; steps then says the
	// rest.
	under     bool
	opens     string
	incidents []int
}

// incidentsByRollout groups the incidents by the rollout they belong to,
// in the rollouts' order; incidents of no rollout come last. Without
// rollouts there is one group without a title. A workload with several
// rollouts is named once over each run of them (under, opens).
func incidentsByRollout(rep *Report) []rolloutGroup {
	groups := groupByRollout(rep)
	rollouts := map[string]int{}
	for _, g := range groups {
		rollouts[g.workload]++
	}
	for k := range groups {
		g := &groups[k]
		if g.under = g.workload != "" && rollouts[g.workload] > 1; g.under && (k == 0 || groups[k-1].workload != g.workload) {
			g.opens = g.workload
		}
	}
	return groups
}

// groupByRollout groups the incidents for incidentsByRollout.
func groupByRollout(rep *Report) []rolloutGroup {
	if len(rep.Rollouts) == 0 {
		g := rolloutGroup{}
		for i := range rep.Incidents {
			g.incidents = append(g.incidents, i)
		}
		return []rolloutGroup{g}
	}
	var out []rolloutGroup
	seen := map[int]bool{}
	for _, ro := range rep.Rollouts {
		g := rolloutGroup{workload: rolloutWorkload(ro), steps: rolloutSteps(ro), title: rolloutTitle(ro)}
		for i, in := range rep.Incidents {
			if in.Rollout == ro.ID {
				g.incidents = append(g.incidents, i)
				seen[i] = true
			}
		}
		if len(g.incidents) > 0 {
			out = append(out, g)
		}
	}
	rest := rolloutGroup{title: "Not part of a rollout"}
	for i := range rep.Incidents {
		if !seen[i] {
			rest.incidents = append(rest.incidents, i)
		}
	}
	if len(rest.incidents) > 0 {
		out = append(out, rest)
	}
	return out
}

// rolloutTitle names a rollout: workload, namespace, time and ReplicaSets;
// one found in the traffic alone says so.
func rolloutTitle(ro Rollout) string {
	if ro.Workload == "" {
		return "Rollout found in the " + cmp.Or(ro.How, "records") + ", " + rolloutSteps(ro)
	}
	return "Rollout of " + rolloutWorkload(ro) + ", " + rolloutSteps(ro)
}

// rolloutWorkload names a rollout's workload and namespace; "" when no
// record names the workload.
func rolloutWorkload(ro Rollout) string {
	if ro.Workload == "" {
		return ""
	}
	s := ro.Workload
	if ro.Namespace != "" {
		s += " in " + ro.Namespace
	}
	return s
}

// rolloutSteps names a rollout's time, ReplicaSets and revision.
func rolloutSteps(ro Rollout) string {
	var s string
	if !ro.Start.IsZero() {
		s = clockOf(ro.Start)
		if !ro.End.IsZero() {
			s += "–" + clockOf(ro.End)
		}
	}
	if len(ro.OldReplicaSets) > 0 || ro.NewReplicaSet != "" {
		s += ": " + strings.Join(ro.OldReplicaSets, ", ") + " → " + ro.NewReplicaSet
	}
	if ro.Revision != "" {
		s += " (revision " + ro.Revision + ")"
	}
	return strings.TrimPrefix(s, ": ")
}

// incidentRefs renders incident ids as "#1, #3".
func incidentRefs(ids []string) string {
	refs := make([]string, len(ids))
	for i, id := range ids {
		refs[i] = "#" + strings.TrimPrefix(id, "incident-")
	}
	return strings.Join(refs, ", ")
}

// spanText is the time the data covers.
func spanText(rep *Report) string {
	from, to, ok := laneViewSpan(rep)
	if !ok {
		return "data without times"
	}
	end := clockOf(to)
	if !words.SameDay(from, to) {
		end = to.UTC().Format(time.DateTime)
	}
	return fmt.Sprintf("%s – %s UTC", from.UTC().Format(time.DateTime), end)
}

// dataText says what the data covers: its time span, the requests read,
// the application's own errors and, without incidents, the failures
// retries hid.
//
// Client-side requests (a load test's, a curl loop's) are counted apart:
// what a client saw, not what a load balancer logged.
func dataText(rep *Report) string {
	s := rep.Summary
	parts := []string{spanText(rep), words.Plural(s.Requests, "request")}
	if n := clientRecords(rep); n > 0 {
		parts = append(parts, words.Plural(n, "client-side request"))
	}
	if s.AppErrors > 0 {
		parts = append(parts, fmt.Sprintf("%d application 5xx (sent by the backends; never an incident)", s.AppErrors))
	}
	if hidden := hiddenOutsideIncidents(rep); hidden > 0 {
		parts = append(parts, fmt.Sprintf("%s outside incidents failed on a first attempt and a retry rescued them", words.Plural(hidden, "request")))
	}
	return strings.Join(parts, " · ")
}

// hiddenOutsideIncidents counts the requests a retry rescued outside the
// incidents: all of the series' when there is none.
func hiddenOutsideIncidents(rep *Report) int {
	if rep.Series == nil {
		return 0
	}
	n := 0
	for _, v := range rep.Series.Values {
		n += v[ColHidden]
	}
	return max(n-rep.Summary.HiddenFailures, 0)
}

// failedText renders the failed requests of one incident or all of them,
// with the estimate from sampled logs and the failures retries hid.
func failedText(failed, logged, hidden int, statuses string) string {
	s := words.Plural(failed, "failed request")
	if statuses != "" {
		s += " (" + statuses + ")"
	}
	if logged > 0 && logged != failed {
		s += fmt.Sprintf(", estimated from %d logged", logged)
	}
	if hidden > 0 {
		s += fmt.Sprintf(", %d more hidden by retries", hidden)
	}
	return s
}

// incident writes one incident: what happened, the key moments, the
// evidence, the backends, and which changes fix it.
func (t *textOut) incident(rep *Report, i int, in Incident) {
	title := fmt.Sprintf("INCIDENT %d of %d: %s", i+1, len(rep.Incidents), causeLine(in))
	t.para("", causeStyle.Render(title), "  ")
	head := fmt.Sprintf("%s – %s UTC · %s · %s", shortTime(in.Start), clockOf(in.End), incidentSpanText(&in),
		failedText(in.FailedRequests, in.LoggedFailedRequests, in.HiddenFailures, statusText(in.StatusCounts)))
	t.para("", head, "  ")
	if in.Rate != nil {
		t.para("", fmt.Sprintf("Spread over %.1f h: %.1f failed requests an hour, %s of requests, on %s.",
			in.Rate.Hours, in.Rate.PerHour, words.Percent(in.Rate.Share), words.Plural(in.Rate.Backends, "backend")), "  ")
	}
	if in.Summary != "" {
		t.para("", Sanitize(in.Summary), "")
	}
	if len(in.Timeouts) > 0 {
		var parts []string
		for _, to := range in.Timeouts {
			parts = append(parts, fmt.Sprintf("%s %s (%s)", Sanitize(to.What), durationText(to.Seconds), Sanitize(to.Source)))
		}
		t.para("Timeouts: ", strings.Join(parts, "; "), "  ")
	}
	// What changes how to read the incident comes before its details.
	for _, note := range in.Notes {
		t.para(warnStyle.Render("note: "), Sanitize(note), "      ")
	}
	t.blank()
	if len(in.Timeline) > 0 {
		t.heading("Key moments (UTC)")
		rows := make([][]string, 0, len(in.Timeline))
		hasZone := false
		for _, m := range in.Timeline {
			hasZone = hasZone || m.Zone != ""
		}
		for _, m := range in.Timeline {
			row := []string{clockOf(m.Time), Sanitize(m.What), Sanitize(m.Who)}
			if hasZone {
				row = append(row, Sanitize(m.Zone))
			}
			rows = append(rows, append(row, t.names.short(m.Source)))
		}
		cols := []string{"TIME", "WHAT", "POD / IP / OBJECT", "SOURCE"}
		if hasZone {
			cols = []string{"TIME", "WHAT", "POD / IP / OBJECT", "ZONE", "SOURCE"}
		}
		t.table(cols, rows)
		t.blank()
	}
	if len(in.Evidence) > 0 {
		t.heading("Evidence")
		for _, e := range in.Evidence {
			where := t.names.short(e.Source)
			if where == "" {
				where = "(objects)"
			}
			t.flow("  "+padRight(clockOf(e.Time), timeWidth)+"  ", Sanitize(e.Text), []string{where})
		}
		t.blank()
	}
	if len(in.Backends) > 0 {
		t.heading(backendsHeading(in.Backends))
		shown, rest := tableBackends(in.Backends)
		rows := make([][]string, 0, len(shown))
		for _, be := range shown {
			pod := Sanitize(be.Pod)
			if pod == "" {
				pod = "(pod not known)"
			}
			ip := be.IP
			if ip == "" {
				ip = "(IP not known)"
			}
			rows = append(rows, []string{be.Role, pod, ip, backendCounts(be), backendWhy(be)})
		}
		t.tableFlex([]string{"ROLE", "POD", "IP", "FAILED", "WHY"}, rows, 4)
		if len(rest) > 0 {
			t.para("  ", moreBackends(rest), "  ")
		}
		t.blank()
	}
	if len(in.Remediation) > 0 {
		t.para("Fix: ", changeRefs(rep, in), "     ")
	}
	t.blank()
}

// changeRefs lists the numbers of the summary's changes an incident needs.
func changeRefs(rep *Report, in Incident) string {
	var refs []string
	for i, c := range rep.Summary.Changes {
		for _, id := range c.Incidents {
			if id == in.ID {
				refs = append(refs, strconv.Itoa(i+1))
			}
		}
	}
	if len(refs) == 0 {
		var titles []string
		for _, r := range in.Remediation {
			titles = append(titles, Sanitize(r.Title))
		}
		return strings.Join(titles, "; ")
	}
	word := "changes "
	if len(refs) == 1 {
		word = "change "
	}
	return word + strings.Join(refs, ", ") + " under Changes below"
}

// changes writes every change in full, once.
func (t *textOut) changes(rep *Report) {
	if len(rep.Summary.Changes) == 0 {
		return
	}
	t.heading("Changes")
	for i, c := range rep.Summary.Changes {
		head := fmt.Sprintf("%d. ", i+1)
		t.para(head, headingStyle.Render(Sanitize(c.Title))+dimStyle.Render("  (for "+incidentRefs(c.Incidents)+")"), "   ")
		t.para("   ", Sanitize(c.Why), "   ")
		for _, line := range foldYAML(strings.Split(strings.TrimRight(c.Patch, "\n"), "\n"), t.width-len(patchIndent)) {
			if line != "" {
				t.line(patchStyle.Render(patchIndent + Sanitize(line)))
			}
		}
	}
	t.blank()
}

// patchIndent sets a patch off from the text around it.
const patchIndent = "      "

// foldYAML moves the value of a "key: value" line longer than width onto
// the next line, indented under the key, which YAML reads the same way for
// every value but a block scalar.
func foldYAML(lines []string, width int) []string {
	var out []string
	for _, l := range lines {
		key, value, ok := strings.Cut(l, ": ")
		if !ok || lipgloss.Width(l) <= width || value == "" || value[0] == '|' || value[0] == '>' || strings.Contains(key, "#") {
			out = append(out, l)
			continue
		}
		indent := len(key) - len(strings.TrimLeft(key, " -"))
		out = append(out, key+":", strings.Repeat(" ", indent+2)+value)
	}
	return out
}

// inputs writes the inputs table and the warnings not already given.
func (t *textOut) inputs(rep *Report) {
	heading := "Inputs"
	if t.names.dir != "" {
		heading += " in " + Sanitize(t.names.dir)
	}
	day := ""
	for _, in := range rep.Inputs {
		for _, tm := range []time.Time{in.First, in.Last} {
			switch d := tm.UTC().Format(time.DateOnly); {
			case tm.IsZero():
			case day == "":
				day = d
			case day != d:
				day = "several days"
			}
		}
	}
	if day != "" && day != "several days" {
		heading += dimStyle.Render(" (times UTC, " + day + ")")
		day = "one"
	}
	if len(rep.Inputs) == 0 {
		heading = "Inputs: none read"
	}
	t.heading(heading)
	rows := make([][]string, 0, len(rep.Inputs))
	for _, in := range rep.Inputs {
		rng := "no times"
		switch {
		case in.First.IsZero():
		case day == "one":
			rng = clockOf(in.First) + "–" + clockOf(in.Last)
		default:
			rng = rangeText(in.First, in.Last)
		}
		rows = append(rows, []string{t.names.short(in.Name), in.Format, words.Plural(in.Records, "record"), fmt.Sprintf("%d skipped", in.Skipped), rng})
	}
	t.tableWhole(rows)
	if rep.PrunedObjects > 0 {
		t.line(dimStyle.Render(fmt.Sprintf("%d ALB log objects outside the time window were not read.", rep.PrunedObjects)))
	}
	if warnings := rep.Warnings; len(warnings) > 0 {
		t.blank()
		t.heading("Warnings")
		for _, wn := range warnings {
			t.para(warnStyle.Render("! "), Sanitize(wn), "  ")
		}
	}
}

// rangeText renders an input's time range.
func rangeText(first, last time.Time) string {
	if first.IsZero() {
		return "-"
	}
	if words.SameDay(first, last) {
		return shortTime(first) + " – " + clockOf(last)
	}
	return shortTime(first) + " – " + shortTime(last)
}

// statusText renders status counts as "182×502, 3×503", the usual codes first.
func statusText(counts map[string]int) string {
	codes := make([]string, 0, len(counts))
	for code := range counts {
		codes = append(codes, code)
	}
	sort.Strings(codes)
	var parts []string
	for _, code := range codes {
		if n := counts[code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d×%s", n, Sanitize(code)))
		}
	}
	return strings.Join(parts, ", ")
}

// durationText renders seconds for a person.
func durationText(s float64) string {
	switch {
	case s < 10:
		return fmt.Sprintf("%.1f s", s)
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	}
	return words.RoundSpan(time.Duration(s * float64(time.Second)))
}

// incidentSpanText renders an incident's duration: its span, and how long failing
// went on when it paused ("61 s, 14 s failing in 2 bursts"), the numbers
// of the summary's sentence.
func incidentSpanText(in *Incident) string { return durationText(in.DurationSeconds) + activeText(in) }

// activeText is ", 14 s failing in 2 bursts" for an incident whose failing
// paused, and nothing for one that did not or that is spread over time
// (its Rate says how often instead).
func activeText(in *Incident) string {
	if in.Rate != nil || in.Bursts < 2 || in.ActiveSeconds >= in.DurationSeconds {
		return ""
	}
	return fmt.Sprintf(", %s failing in %d bursts", durationText(in.ActiveSeconds), in.Bursts)
}

// shortTime renders a report time for a person: UTC, to the millisecond.
func shortTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

// clockOf renders a report time as a time of day, to the millisecond when
// the time has a fraction.
func clockOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strings.TrimSuffix(t.UTC().Format("15:04:05.000"), ".000")
}

// padRight pads s with spaces to width columns.
func padRight(s string, width int) string {
	return s + strings.Repeat(" ", max(width-lipgloss.Width(s), 0))
}

// padLeft pads s on the left to width columns.
func padLeft(s string, width int) string {
	return strings.Repeat(" ", max(width-lipgloss.Width(s), 0)) + s
}

// clientRecords is how many client-side requests the report read (its
// coverage entry client_logs).
func clientRecords(rep *Report) int {
	for _, c := range rep.Summary.Coverage {
		if c.Kind == coverageClientLogs {
			return c.Records
		}
	}
	return 0
}

// coverageClientLogs is the coverage kind of client-side requests.
const coverageClientLogs = "client_logs"

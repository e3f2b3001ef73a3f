package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/readygap/readygap/internal/words"
)

// Mermaid chart bounds: a gantt chart draws every state of every lane on a
// row of its own, so it shows few lanes (alike ones collapsed) and few runs
// of failures.
const (
	maxMermaidLanes = 12
	maxMermaidRuns  = 10
	// mermaidColumns is the resolution lanes are compared and failures
	// joined at: a hundredth of the axis.
	mermaidColumns = 100
	// mermaidCharWidth is the width in px Mermaid's default font gives a
	// character of a section title, to leave room for the longest one.
	mermaidCharWidth = 7
)

// renderMarkdown writes the report as a postmortem section to paste into an
// incident document: the same summary as the text report first, then each
// incident's key moments, evidence and backends, the changes in full, the
// rollout drawn as a Mermaid gantt chart (GitHub and GitLab render it) and
// the inputs. Log text is escaped.
func renderMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	names := newSourceNames(rep.Inputs)
	b.WriteString("## readygap: load-balancer errors during the rollout\n\n")
	writeSummaryMarkdown(&b, rep, names)
	for i, in := range rep.Incidents {
		writeIncidentMarkdown(&b, rep, i, in, names)
	}
	if len(rep.Summary.Changes) > 0 {
		b.WriteString("### Changes\n\n")
		for i, c := range rep.Summary.Changes {
			fmt.Fprintf(&b, "%d. **%s** (for %s) — %s\n\n", i+1, mdText(c.Title), incidentRefs(c.Incidents), mdText(c.Why))
			if strings.TrimSpace(c.Patch) != "" {
				fmt.Fprintf(&b, "   ```yaml\n%s   ```\n\n", indentLines(sanitizeLines(c.Patch), "   "))
			}
		}
	}
	if g := mermaidGantt(rep); g != "" {
		b.WriteString("### Rollout\n\n" + g + "\n")
	}
	b.WriteString("### Inputs\n\n")
	if len(rep.Inputs) == 0 {
		b.WriteString("None was read.\n")
	} else {
		b.WriteString("| Input | Format | Records | Skipped | First (UTC) | Last (UTC) |\n|---|---|---:|---:|---|---|\n")
	}
	for _, in := range rep.Inputs {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s |\n", mdCodeCell(names.short(in.Name)), mdCell(in.Format), in.Records, in.Skipped, shortTime(in.First), shortTime(in.Last))
	}
	if rep.PrunedObjects > 0 {
		fmt.Fprintf(&b, "\n%d ALB log objects outside the time window were not read.\n", rep.PrunedObjects)
	}
	if warnings := rep.Warnings; len(warnings) > 0 {
		b.WriteString("\n#### Warnings\n\n")
		for _, w := range warnings {
			fmt.Fprintf(&b, "- %s\n", mdText(w))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSummaryMarkdown writes the counts, what changes how to read them,
// the incidents by rollout with their causes, and the changes to make.
func writeSummaryMarkdown(b *strings.Builder, rep *Report, names *sourceNames) {
	s := rep.Summary
	verdict, rest := headline(rep)
	fmt.Fprintf(b, "**%s** %s\n\n", verdict, mdText(strings.TrimSuffix(rest, ".")+"."))
	fmt.Fprintf(b, "Data: %s.\n\n", mdText(dataText(rep)))
	if len(s.Coverage) > 0 {
		b.WriteString("| Read | Coverage |\n|---|---|\n")
		for _, c := range s.Coverage {
			kind, what := coverageLine(c)
			fmt.Fprintf(b, "| %s | %s |\n", kind, mdCell(what))
		}
		if u := unreadLine(rep); u != "" {
			fmt.Fprintf(b, "| **not read** | %s |\n", mdCell(u))
		}
		b.WriteString("\n")
	}
	if names.dir != "" || len(names.aliases) > 0 {
		var rules []string
		if names.dir != "" {
			rules = append(rules, "file names are relative to "+mdCode(names.dir))
		}
		for _, a := range names.aliases {
			rules = append(rules, mdCode(a.mark)+" stands for "+mdCode(a.prefix))
		}
		fmt.Fprintf(b, "Sources: %s.\n\n", strings.Join(rules, "; "))
	}
	for _, note := range rep.Notes {
		fmt.Fprintf(b, "> %s\n\n", mdText(note))
	}
	for _, c := range s.Caveats {
		fmt.Fprintf(b, "> **Read with care:** %s\n\n", mdText(c))
	}
	if len(rep.Incidents) == 0 {
		return
	}
	// A workload that rolled out more than once is named once, over one
	// table of its rollouts; any other group has a table of its own.
	groups := incidentsByRollout(rep)
	for k, grp := range groups {
		switch {
		case grp.opens != "":
			fmt.Fprintf(b, "**Rollouts of %s**\n\n| Rollout (UTC) | # | Start (UTC) | Duration | Failed requests | Cause |\n|---|---:|---|---:|---:|---|\n", mdText(grp.opens))
		case !grp.under:
			if grp.title != "" {
				fmt.Fprintf(b, "**%s**\n\n", mdText(grp.title))
			}
			b.WriteString("| # | Start (UTC) | Duration | Failed requests | Cause |\n|---:|---|---:|---:|---|\n")
		}
		for j, i := range grp.incidents {
			in := rep.Incidents[i]
			if grp.under {
				steps := ""
				if j == 0 {
					steps = mdCell(grp.steps)
				}
				fmt.Fprintf(b, "| %s ", steps)
			}
			fmt.Fprintf(b, "| [%d](#%s) | %s | %s | %d | %s |\n", i+1, anchorWords(incidentHeading(rep, i, in)),
				clockOf(in.Start), durationText(in.DurationSeconds), in.FailedRequests, mdCell(causeLine(in)))
		}
		if k+1 == len(groups) || !groups[k+1].under || groups[k+1].opens != "" {
			b.WriteString("\n")
		}
	}
	if len(s.Changes) > 0 {
		b.WriteString("**Changes to make** (in full under Changes below):\n\n")
		for i, c := range s.Changes {
			fmt.Fprintf(b, "%d. %s (%s)\n", i+1, mdText(c.Title), incidentRefs(c.Incidents))
		}
		b.WriteString("\n")
	}
}

// incidentHeading is the text of an incident's heading.
func incidentHeading(rep *Report, i int, in Incident) string {
	return fmt.Sprintf("Incident %d of %d: %s", i+1, len(rep.Incidents), causeLine(in))
}

// anchorWords is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, other punctuation dropped.
func anchorWords(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + ('a' - 'A')
		}
		return -1
	}, s)
}

// writeIncidentMarkdown writes one incident's section.
func writeIncidentMarkdown(b *strings.Builder, rep *Report, i int, in Incident, names *sourceNames) {
	fmt.Fprintf(b, "### %s\n\n", mdText(incidentHeading(rep, i, in)))
	fmt.Fprintf(b, "- **Window:** %s – %s UTC (%s)\n", shortTime(in.Start), clockOf(in.End), incidentSpanText(&in))
	fmt.Fprintf(b, "- **Failed requests** (generated by the load balancer or proxy): %s\n",
		mdText(failedText(in.FailedRequests, in.LoggedFailedRequests, 0, statusText(in.StatusCounts))))
	if in.HiddenFailures > 0 {
		fmt.Fprintf(b, "- **Hidden by retries** (a failed attempt, then a retry that worked): %d\n", in.HiddenFailures)
	}
	if in.Rate != nil {
		fmt.Fprintf(b, "- **Rate:** %.1f failed requests an hour over %.1f h, %s of requests, on %s\n",
			in.Rate.PerHour, in.Rate.Hours, words.Percent(in.Rate.Share), words.Plural(in.Rate.Backends, "backend"))
	}
	for _, to := range in.Timeouts {
		fmt.Fprintf(b, "- **%s:** %s (%s)\n", mdText(words.Capitalized(to.What)), durationText(to.Seconds), mdText(to.Source))
	}
	if in.Summary != "" {
		fmt.Fprintf(b, "\n%s\n", mdText(in.Summary))
	}
	b.WriteString("\n")
	// What changes how to read the incident comes before its details.
	for _, note := range in.Notes {
		fmt.Fprintf(b, "> %s\n\n", mdText(note))
	}
	if len(in.Timeline) > 0 {
		hasZone := false
		for _, m := range in.Timeline {
			hasZone = hasZone || m.Zone != ""
		}
		if hasZone {
			b.WriteString("#### Key moments\n\n| Time (UTC) | What | Pod / IP / object | Zone | Source |\n|---|---|---|---|---|\n")
		} else {
			b.WriteString("#### Key moments\n\n| Time (UTC) | What | Pod / IP / object | Source |\n|---|---|---|---|\n")
		}
		for _, m := range in.Timeline {
			zone := ""
			if hasZone {
				zone = " " + mdCell(m.Zone) + " |"
			}
			fmt.Fprintf(b, "| %s | %s | %s |%s %s |\n", clockOf(m.Time), mdCell(m.What), mdCell(m.Who), zone, mdCodeCell(names.short(m.Source)))
		}
		b.WriteString("\n")
	}
	if len(in.Evidence) > 0 {
		b.WriteString("#### Evidence\n\n")
		for _, e := range in.Evidence {
			where := mdCode(names.short(e.Source))
			if where == "" {
				where = "objects"
			}
			if !e.Time.IsZero() {
				where = clockOf(e.Time) + " " + where
			}
			fmt.Fprintf(b, "- %s — %s\n", where, MdInline(Sanitize(e.Text)))
		}
		b.WriteString("\n")
	}
	if len(in.Backends) > 0 {
		fmt.Fprintf(b, "#### %s\n\n| Role | Pod | IP | Failed | Why |\n|---|---|---|---|---|\n", backendsHeading(in.Backends))
		shown, rest := tableBackends(in.Backends)
		for _, be := range shown {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdCell(be.Role), mdCell(be.Pod), mdCell(be.IP), backendCounts(be), mdCell(backendWhy(be)))
		}
		if len(rest) > 0 {
			fmt.Fprintf(b, "\n…%s.\n", mdText(moreBackends(rest)))
		}
		b.WriteString("\n")
	}
	if len(in.Remediation) > 0 {
		fmt.Fprintf(b, "**Fix:** %s.\n\n", mdText(changeRefs(rep, in)))
	}
}

// mermaidGantt draws the lanes as a Mermaid gantt chart over the report's
// axis: one section per lane (alike lanes collapsed), one task per state,
// none overlapping, and the runs of failures as critical tasks. Every task
// has a row of its own, so a label drawn beside a short bar covers no other
// bar, and the left margin fits the longest section title.
func mermaidGantt(rep *Report) string {
	from, to, ok := laneViewSpan(rep)
	if !ok {
		return ""
	}
	quantum := max(to.Sub(from)/mermaidColumns, time.Second)
	v := buildLaneView(rep, quantum, maxMermaidLanes)
	if v == nil || v.Rows == 0 {
		return ""
	}
	const layout = "2006-01-02T15:04:05.000"
	type section struct {
		title string
		tasks []string
	}
	var sections []section
	longest := len("LB/proxy 5xx")
	names := map[string]string{StateStarting: "starting", StateReady: "Ready", StateLBHealthy: "LB-healthy", StateTerminating: "terminating"}
	tags := map[string]string{StateStarting: "done, ", StateReady: "", StateLBHealthy: "active, ", StateTerminating: "done, "}
	for _, g := range v.Groups {
		for _, l := range g.Lanes {
			title := mermaidText(mermaidName(l))
			if g.Role != "" {
				title += " (" + g.Role + ")"
			}
			longest = max(longest, len([]rune(title)))
			sec := section{title: title}
			var prevEnd time.Time
			for _, s := range l.States {
				// Every state gets at least a quantum, to be visible however
				// short; a state after a widened one starts where it ends.
				start := words.MaxTime(s.From, prevEnd)
				end := words.MaxTime(s.To, start.Add(quantum))
				sec.tasks = append(sec.tasks, fmt.Sprintf("    %s :%s%s, %s", names[s.State], tags[s.State], start.UTC().Format(layout), end.UTC().Format(layout)))
				prevEnd = end
			}
			sections = append(sections, sec)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "```mermaid\n%%%%{init: {\"gantt\": {\"leftPadding\": %d}}}%%%%\ngantt\n    dateFormat YYYY-MM-DDTHH:mm:ss.SSS\n    axisFormat %%H:%%M:%%S\n",
		longest*mermaidCharWidth+16)
	for _, sec := range sections {
		b.WriteString("    section " + sec.title + "\n")
		for _, task := range sec.tasks {
			b.WriteString(task + "\n")
		}
	}
	runs := failureRuns(rep.Series, from, to, quantum)
	if len(runs) > 0 {
		b.WriteString("    section LB/proxy 5xx\n")
		for _, r := range runs {
			fmt.Fprintf(&b, "    5xx :crit, %s, %s\n", r[0].UTC().Format(layout), r[1].UTC().Format(layout))
		}
	}
	if v.Omitted > 0 {
		fmt.Fprintf(&b, "%%%% %s more not drawn\n", words.Plural(v.Omitted, "backend"))
	}
	b.WriteString("```\n")
	if v.Omitted > 0 {
		fmt.Fprintf(&b, "\n%s more not drawn; the JSON report lists every lane.\n", words.Plural(v.Omitted, "backend"))
	}
	return b.String()
}

// maxMermaidName bounds a section title: a longer pod name keeps its end,
// where the ReplicaSet hash and pod suffix tell pods apart.
const maxMermaidName = 40

// mermaidName is a lane's section title: the pod name (its end when long)
// and the IP, or the names of the lanes collapsed into it.
func mermaidName(l viewLane) string {
	name := l.Name
	if r := []rune(name); len(r) > maxMermaidName {
		name = "…" + string(r[len(r)-maxMermaidName+1:])
	}
	if len(l.Names) > 1 {
		return fmt.Sprintf("%s +%d alike", name, len(l.Names)-1)
	}
	if l.IP != "" && l.IP != l.Name {
		name += " " + l.IP
	}
	if len(l.OneOf) > 0 {
		name += fmt.Sprintf(" (one of %d pods)", len(l.OneOf))
	}
	return name
}

// failureRuns finds the stretches of [from, to] with LB-generated
// failures, at resolution quantum, joining runs closer than one quantum and
// then the closest ones until at most maxMermaidRuns remain.
func failureRuns(s *Series, from, to time.Time, quantum time.Duration) [][2]time.Time {
	var runs [][2]time.Time
	for t := from; t.Before(to); t = t.Add(quantum) {
		if failedIn(s, t, t.Add(quantum)) == 0 {
			continue
		}
		if n := len(runs); n > 0 && !runs[n-1][1].Before(t) {
			runs[n-1][1] = t.Add(quantum)
			continue
		}
		runs = append(runs, [2]time.Time{t, t.Add(quantum)})
	}
	for len(runs) > maxMermaidRuns {
		best := 1
		for i := 2; i < len(runs); i++ {
			if runs[i][0].Sub(runs[i-1][1]) < runs[best][0].Sub(runs[best-1][1]) {
				best = i
			}
		}
		runs[best-1][1] = runs[best][1]
		runs = append(runs[:best], runs[best+1:]...)
	}
	return runs
}

// mermaidText keeps the characters Mermaid's gantt syntax allows in a name.
func mermaidText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ':' || r == '#' || r == ';' || r == '`' || r == '<' || r == '>' || r == '"' || r == '%' || r < 0x20:
			return '_'
		}
		return r
	}, Sanitize(s))
}

// mdEscaped are the ASCII punctuation characters that can start inline
// markup in CommonMark or GitHub Flavored Markdown: emphasis, code, links
// and images, raw HTML and autolinks, entities, table cells, strikethrough,
// math, headings, and the escape itself. Every one of them may be
// backslash-escaped (CommonMark 0.31, section 2.4).
const mdEscaped = "\\`*_[]<>!|~&@#$"

// mdText escapes untrusted text for Markdown that starts a block (a
// paragraph, a list item's text) so that it renders as exactly the text it
// is: mdInline's escapes, and a character that would open a block (a list
// marker, a heading underline) at its start.
func mdText(s string) string {
	s = Sanitize(s)
	if n := orderedMarker(s); n > 0 {
		return s[:n] + "\\" + MdInline(s[n:])
	}
	if s != "" && strings.IndexByte("-+=", s[0]) >= 0 {
		return "\\" + MdInline(s)
	}
	return MdInline(s)
}

// MdInline escapes sanitized text for the inside of a Markdown line: markup
// characters are backslash-escaped, and the two patterns GitHub turns into
// links without any markup, "scheme://" and "www.", are broken by escaping
// their ':' or '.'.
func MdInline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(mdEscaped, c) >= 0:
			b.WriteByte('\\')
		case c == ':' && strings.HasPrefix(s[i:], "://"):
			b.WriteByte('\\')
		case c == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www"):
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// orderedMarker returns the index of the '.' or ')' when s starts like an
// ordered list item (one to nine digits, then '.' or ')'), else 0.
func orderedMarker(s string) int {
	for i := 0; i < len(s) && i < 10; i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case (c == '.' || c == ')') && i > 0:
			return i
		default:
			return 0
		}
	}
	return 0
}

// mdCell escapes untrusted text for a Markdown table cell, where no block
// starts.
func mdCell(s string) string { return MdInline(Sanitize(s)) }

// mdCode puts a source reference in a code span, where nothing is markup;
// backticks, which would end the span, become quotes. Empty stays empty.
func mdCode(s string) string {
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(Sanitize(s), "`", "'") + "`"
}

// mdCodeCell is mdCode for a table cell, where '|' ends the cell even inside
// a code span unless escaped (GFM tables, example 200).
func mdCodeCell(s string) string { return strings.ReplaceAll(mdCode(s), "|", `\|`) }

// indentLines prefixes every line of s (which ends in a newline).
func indentLines(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	if !strings.HasSuffix(s, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

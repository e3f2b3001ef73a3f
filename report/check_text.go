package report

import (
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/readygap/readygap/internal/words"
)

// WriteCheckText writes the check report for a person, laid out for width
// columns (never fewer than minTextWidth): one line of counts, then each
// finding with its severity, rule, object and file:line, the reason with
// the numbers, and the fixes with their YAML; then the warnings. Text read
// from the inputs is sanitized; colours follow the writer (none when it is
// not a terminal or NO_COLOR is set).
func WriteCheckText(w io.Writer, rep *CheckReport, width int) error {
	width = max(width, minTextWidth)
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	heading, dim, patch := paintOf(headingStyle), paintOf(dimStyle), paintOf(patchStyle)
	for _, l := range strings.Split(hanging("", Sanitize(checkHeadline(rep)), "  ", width), "\n") {
		line(heading.Render(l))
	}
	for i, f := range rep.Findings {
		line("")
		sev := warnStyle.Render("WARNING")
		if f.Severity == "error" {
			sev = causeStyle.Render("ERROR")
		}
		line(hanging(fmt.Sprintf("%d. ", i+1), sev+"  "+heading.Render(Sanitize(f.Title)), "   ", width))
		where := []string{f.Rule}
		if loc := f.Object.Location(); loc != "" {
			where = append(where, loc)
		}
		where = append(where, f.Object.String())
		if f.Object != f.Workload {
			where = append(where, "for "+f.Workload.String())
		}
		if f.Via != nil {
			where = append(where, "via "+f.Via.String())
		}
		for _, l := range strings.Split(hanging("   ", Sanitize(strings.Join(where, " · ")), "   ", width), "\n") {
			line(dim.Render(l))
		}
		line(hanging("   ", Sanitize(f.Reason), "   ", width))
		if p := f.Prediction; p != nil {
			line(hanging("   Predicted: ", Sanitize(p.Summary)+". "+Sanitize(p.Basis), "   ", width))
		}
		for j, x := range f.Fixes {
			head := "   Fix: "
			if len(f.Fixes) > 1 {
				head = fmt.Sprintf("   Fix %d: ", j+1)
			}
			line(hanging(head, heading.Render(Sanitize(x.Title)), "        ", width))
			if x.Why != "" {
				line(hanging("        ", Sanitize(x.Why), "        ", width))
			}
			for _, l := range foldYAML(strings.Split(strings.TrimRight(x.Patch, "\n"), "\n"), width-len(checkPatchIndent)) {
				if l != "" {
					line(patch.Render(checkPatchIndent + Sanitize(l)))
				}
			}
		}
	}
	if len(rep.NotJudged) > 0 {
		line("")
		line(heading.Render("Not judged"))
		for _, n := range rep.NotJudged {
			text := n.Reason
			if loc := n.Location(); n.Object != nil && loc != "" {
				text = loc + ": " + words.Capitalized(n.Reason)
			}
			sev := warnStyle.Render("WARNING")
			if n.Severity == "error" {
				sev = causeStyle.Render("ERROR")
			}
			line(hanging("  • ", sev+" "+Sanitize(text), "    ", width))
		}
	}
	if len(rep.Warnings) > 0 {
		line("")
		line(heading.Render("Warnings"))
		for _, wn := range rep.Warnings {
			line(hanging("  • ", Sanitize(wn), "    ", width))
		}
	}
	_, err := lipgloss.Fprint(w, b.String())
	return err
}

// paint is a style's escape sequences, to wrap text already laid out
// without measuring it again (lipgloss's Render measures every line; a
// check may write thousands). lipgloss.Fprint still drops them where
// colours are off.
type paint struct{ open, close string }

// paintMark stands for the text when a style's sequences are taken apart.
const paintMark = "\uE000"

// paintOf takes a style's sequences from its rendering of a mark.
func paintOf(s lipgloss.Style) paint {
	open, close, _ := strings.Cut(s.Render(paintMark), paintMark)
	return paint{open, close}
}

// Render wraps text in the style's sequences.
func (p paint) Render(text string) string { return p.open + text + p.close }

// checkPatchIndent sets a fix's YAML off from the text around it.
const checkPatchIndent = "          "

// checkHeadline is the check at a glance: how many findings of which
// severity in how many workloads, from how many objects and inputs.
func checkHeadline(rep *CheckReport) string {
	s := rep.Summary
	from := words.Plural(len(rep.Inputs), "input")
	if len(rep.Context) > 0 {
		from += fmt.Sprintf(", %d of them context", len(rep.Context))
	}
	read := fmt.Sprintf("%s in %s (%s from %s)", words.Plural(s.Workloads, "workload"), inputsText(rep), words.Plural(s.Objects, "object"), from)
	var gaps []string
	if s.Unreadable > 0 {
		what := "1 input or document"
		if s.Unreadable > 1 {
			what = fmt.Sprintf("%d inputs or documents", s.Unreadable)
		}
		gaps = append(gaps, what+" not read")
	}
	if s.NotJudged > 0 {
		gaps = append(gaps, words.Plural(s.NotJudged, "object")+" without the Service, Ingress or Gateway it needs")
	}
	var out string
	switch {
	case len(rep.Findings) == 0 && len(gaps) == 0:
		return "No risk found: " + read
	case len(rep.Findings) == 0:
		out = fmt.Sprintf("Not judged in full: %s; no risk in the rest of %s", strings.Join(gaps, ", "), read)
	default:
		var counts []string
		if s.Errors > 0 {
			counts = append(counts, words.Plural(s.Errors, "error"))
		}
		if s.Warnings > 0 {
			counts = append(counts, words.Plural(s.Warnings, "warning"))
		}
		out = fmt.Sprintf("%s (%s) in %d of %s", words.Plural(len(rep.Findings), "risk"), strings.Join(counts, ", "), s.AtRisk, read)
		if len(gaps) > 0 {
			out += "; not judged in full: " + strings.Join(gaps, ", ")
		}
	}
	if s.Failed {
		out += fmt.Sprintf("; fails on %s", s.FailOn)
	}
	return out
}

// inputsText names where the objects came from: the live source, the one
// input, or "the inputs".
func inputsText(rep *CheckReport) string {
	switch {
	case rep.Source != "":
		return rep.Source
	case len(rep.Inputs) == 1:
		return rep.Inputs[0].Name
	}
	return "the inputs"
}

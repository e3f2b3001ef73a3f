package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"charm.land/lipgloss/v2/table"
)

var (
	headingStyle = lipgloss.NewStyle().Bold(true)
	warnStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	dimStyle     = lipgloss.NewStyle().Faint(true)
)

// renderText writes the report for a person at a terminal. Colours are
// dropped when w is not a terminal or NO_COLOR is set; untrusted text is sanitized.
func renderText(w io.Writer, rep *report) error {
	var b strings.Builder
	b.WriteString(headingStyle.Render("Inputs") + "\n")
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).BorderColumn(false).
		Headers("INPUT", "FORMAT", "RECORDS", "SKIPPED", "FIRST", "LAST").
		StyleFunc(func(row, col int) lipgloss.Style {
			s := lipgloss.NewStyle().PaddingRight(2)
			if row == table.HeaderRow {
				return s.Bold(true)
			}
			if col == 2 || col == 3 {
				return s.Align(lipgloss.Right)
			}
			return s
		})
	for _, in := range rep.Inputs {
		t.Row(sanitize(in.Name), in.Format, strconv.Itoa(in.Records), strconv.Itoa(in.Skipped), orDash(in.First), orDash(in.Last))
	}
	b.WriteString(t.String() + "\n")
	if rep.PrunedObjects > 0 {
		b.WriteString(dimStyle.Render(fmt.Sprintf("%d ALB log objects outside the time window were not read.", rep.PrunedObjects)) + "\n")
	}
	if len(rep.Warnings) > 0 {
		b.WriteString("\n" + headingStyle.Render("Warnings") + "\n")
		for _, wn := range rep.Warnings {
			b.WriteString(warnStyle.Render("! ") + sanitize(wn) + "\n")
		}
	}
	_, err := lipgloss.Fprint(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

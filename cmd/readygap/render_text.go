package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

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
	dir := commonDir(rep.Inputs)
	heading := "Inputs"
	if dir != "" {
		heading += dimStyle.Render(" in " + sanitize(dir))
	}
	b.WriteString(headingStyle.Render("Inputs") + strings.TrimPrefix(heading, "Inputs") + "\n")
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).BorderColumn(false).
		Headers("INPUT", "FORMAT", "RECORDS", "SKIPPED", "FIRST (UTC)", "LAST (UTC)").
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
		t.Row(ellipsize(sanitize(strings.TrimPrefix(in.Name, dir)), maxNameWidth), in.Format,
			strconv.Itoa(in.Records), strconv.Itoa(in.Skipped), shortTime(in.First), shortTime(in.Last))
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

// commonDir returns the directory prefix (ending in a separator) that every
// input name shares, so the table can show shorter names.
func commonDir(inputs []reportInput) string {
	if len(inputs) < 2 {
		return ""
	}
	prefix := inputs[0].Name
	for _, in := range inputs[1:] {
		for !strings.HasPrefix(in.Name, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndexAny(prefix, `/\`); i >= 0 {
		return prefix[:i+1]
	}
	return ""
}

// maxNameWidth bounds the input column so the table fits a terminal; S3
// object names of ALB logs are long.
const maxNameWidth = 56

// ellipsize shortens s to at most n runes by cutting its middle.
func ellipsize(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// shortTime renders a report time for a person: UTC, to the millisecond.
func shortTime(rfc string) string {
	t, err := time.Parse(time.RFC3339Nano, rfc)
	if err != nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000")
}

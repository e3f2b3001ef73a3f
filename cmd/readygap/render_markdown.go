package main

import (
	"fmt"
	"io"
	"strings"
)

// renderMarkdown writes the report as a Markdown section to paste into a postmortem.
func renderMarkdown(w io.Writer, rep *report) error {
	var b strings.Builder
	b.WriteString("## Inputs\n\n| Input | Format | Records | Skipped | First | Last |\n|---|---|---:|---:|---|---|\n")
	for _, in := range rep.Inputs {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %s |\n", mdCell(in.Name), in.Format, in.Records, in.Skipped, in.First, in.Last)
	}
	if len(rep.Warnings) > 0 {
		b.WriteString("\n### Warnings\n\n")
		for _, w := range rep.Warnings {
			fmt.Fprintf(&b, "- %s\n", mdCell(w))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell escapes untrusted text for a Markdown table cell or list item:
// control characters, pipes, backticks and HTML are neutralised.
func mdCell(s string) string {
	s = sanitize(s)
	r := strings.NewReplacer("|", `\|`, "`", "\\`", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`)
	return r.Replace(s)
}

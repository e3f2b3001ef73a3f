package pipeline

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
)

// textWidths are the widths the text report is checked at.
var textWidths = []int{80, 120}

// renderTextAt renders rep as text laid out for width columns.
func renderTextAt(t testing.TB, rep *report.Report, width int) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteText(&b, rep, width); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// reRow matches a row of an HTML table.
var reRow = regexp.MustCompile(`<tr><td`)

// tableOf returns the HTML table of the class in page; "" when none.
func tableOf(page, class string) string {
	i := strings.Index(page, `<table class="`+class+`">`)
	if i < 0 {
		return ""
	}
	j := strings.Index(page[i:], "</table>")
	return page[i : i+j]
}

// foldedOf is the markup of an incident's folded table of the backends
// its table leaves out; "" when it has none.
func foldedOf(section string) string {
	i := strings.Index(section, `<details class="more">`)
	if i < 0 {
		return ""
	}
	return section[i : i+strings.Index(section[i:], "</details>")]
}

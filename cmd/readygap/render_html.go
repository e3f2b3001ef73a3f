package main

import (
	"html/template"
	"io"
)

// reportPage is the self-contained HTML report.
var reportPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>readygap report</title></head>
<body><h1>readygap report</h1>
{{range .Incidents}}<section><h2>{{.Cause}} ({{.Confidence}})</h2><p>{{.Summary}}</p></section>{{else}}<p>No incident found.</p>{{end}}
</body></html>
`))

// renderHTML writes the report as one self-contained HTML page.
func renderHTML(w io.Writer, rep *report) error { return reportPage.Execute(w, rep) }

package report

import (
	"fmt"
	"io"
	"strings"
)

// Format is how a report is written; it is the value of --output.
type Format string

// The report formats.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	HTML     Format = "html"
)

// formats lists the report formats, in the order help texts name them.
var formats = []Format{Text, JSON, Markdown, HTML}

// FormatNames lists the values --output accepts, for help and completion.
func FormatNames() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	return names
}

// String implements pflag.Value.
func (f *Format) String() string { return string(*f) }

// Set implements pflag.Value; "md" is taken for markdown.
func (f *Format) Set(v string) error {
	v = strings.ToLower(v)
	if v == "md" {
		v = string(Markdown)
	}
	for _, x := range formats {
		if string(x) == v {
			*f = x
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(FormatNames(), ", "))
}

// Type implements pflag.Value.
func (f *Format) Type() string { return "format" }

// Write writes rep to w in format f.
func Write(w io.Writer, f Format, rep *Report) error {
	switch f {
	case JSON:
		return renderJSON(w, rep)
	case Markdown:
		return renderMarkdown(w, rep)
	case HTML:
		return renderHTML(w, rep)
	}
	return renderText(w, rep)
}

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

// Formats lists the report formats, in the order help texts name them.
var Formats = []Format{Text, JSON, Markdown, HTML}

// formatAliases are the other names --output takes for a format.
var formatAliases = []struct {
	name   string
	format Format
}{{"md", Markdown}}

// FormatNames lists every value --output accepts, each format followed by
// its aliases, for completion.
func FormatNames() []string {
	var names []string
	for _, f := range Formats {
		names = append(names, string(f))
		for _, a := range formatAliases {
			if a.format == f {
				names = append(names, a.name)
			}
		}
	}
	return names
}

// FormatHelp words the values --output accepts for help texts: "text,
// json, markdown (or md), html".
func FormatHelp() string {
	words := make([]string, len(Formats))
	for i, f := range Formats {
		words[i] = string(f)
		for _, a := range formatAliases {
			if a.format == f {
				words[i] += " (or " + a.name + ")"
			}
		}
	}
	return strings.Join(words, ", ")
}

// String implements pflag.Value.
func (f *Format) String() string { return string(*f) }

// Set implements pflag.Value: a format's name or alias, in any case.
func (f *Format) Set(v string) error {
	v = strings.ToLower(v)
	for _, x := range Formats {
		if string(x) == v {
			*f = x
			return nil
		}
	}
	for _, a := range formatAliases {
		if a.name == v {
			*f = a.format
			return nil
		}
	}
	names := make([]string, len(Formats))
	for i, x := range Formats {
		names[i] = string(x)
	}
	return fmt.Errorf("must be one of %s", strings.Join(names, ", "))
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

package main

import (
	"fmt"
	"io"
	"strings"
)

// outputFormat is the value of --output.
type outputFormat string

// The output formats.
const (
	outputText     outputFormat = "text"
	outputJSON     outputFormat = "json"
	outputMarkdown outputFormat = "markdown"
	outputHTML     outputFormat = "html"
)

func outputFormatNames() []string {
	return []string{string(outputText), string(outputJSON), string(outputMarkdown), string(outputHTML)}
}

// String implements pflag.Value.
func (f *outputFormat) String() string { return string(*f) }

// Set implements pflag.Value.
func (f *outputFormat) Set(v string) error {
	switch outputFormat(strings.ToLower(v)) {
	case outputText, outputJSON, outputMarkdown, outputHTML:
		*f = outputFormat(strings.ToLower(v))
		return nil
	case "md":
		*f = outputMarkdown
		return nil
	}
	return fmt.Errorf("must be one of %s", strings.Join(outputFormatNames(), ", "))
}

// Type implements pflag.Value.
func (f *outputFormat) Type() string { return "format" }

// render writes rep to w in the chosen format.
func render(w io.Writer, f outputFormat, rep *report) error {
	switch f {
	case outputJSON:
		return renderJSON(w, rep)
	case outputMarkdown:
		return renderMarkdown(w, rep)
	case outputHTML:
		return renderHTML(w, rep)
	}
	return renderText(w, rep)
}

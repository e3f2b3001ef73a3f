package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// outputFormat is one value of an --output flag: its name, the other
// names it takes, and how it writes a report of type R.
type outputFormat[R any] struct {
	name    string
	aliases []string
	write   func(io.Writer, *R) error
}

// outputFormats is the registry of the formats of one kind of report, in
// the order help texts name them: analyze's and check's flags, help texts,
// completions and writers all read theirs.
type outputFormats[R any] []outputFormat[R]

// names lists every value the flag accepts, each format followed by its
// aliases.
func (fs outputFormats[R]) names() []string {
	var out []string
	for _, f := range fs {
		out = append(append(out, f.name), f.aliases...)
	}
	return out
}

// help words the values for help texts: "text, json, markdown (or md), html".
func (fs outputFormats[R]) help() string {
	words := make([]string, len(fs))
	for i, f := range fs {
		words[i] = f.name
		for _, a := range f.aliases {
			words[i] += " (or " + a + ")"
		}
	}
	return strings.Join(words, ", ")
}

// lookup returns the format named v (a name or an alias, in any case).
func (fs outputFormats[R]) lookup(v string) (outputFormat[R], error) {
	v = strings.ToLower(v)
	for _, f := range fs {
		if f.name == v || slices.Contains(f.aliases, v) {
			return f, nil
		}
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return outputFormat[R]{}, fmt.Errorf("must be one of %s", strings.Join(names, ", "))
}

// write writes rep in the format named name; the first format (text) for
// a name the registry lacks.
func (fs outputFormats[R]) write(w io.Writer, name string, rep *R) error {
	f, err := fs.lookup(name)
	if err != nil {
		f = fs[0]
	}
	return f.write(w, rep)
}

// Format is how a report of analyze or triage is written; it is the value
// of their --output.
type Format string

// The report formats.
const (
	Text     Format = "text"
	JSON     Format = "json"
	Markdown Format = "markdown"
	HTML     Format = "html"
)

// reportFormats is the registry of the report formats.
var reportFormats = outputFormats[Report]{
	{name: string(Text), write: renderText},
	{name: string(JSON), write: renderJSON},
	{name: string(Markdown), aliases: []string{"md"}, write: renderMarkdown},
	{name: string(HTML), write: renderHTML},
}

// Formats lists the report formats, in the order help texts name them.
var Formats = formatsOf[Format](reportFormats)

// FormatNames lists every value --output accepts, each format followed by
// its aliases, for completion.
func FormatNames() []string { return reportFormats.names() }

// FormatHelp words the values --output accepts for help texts: "text,
// json, markdown (or md), html".
func FormatHelp() string { return reportFormats.help() }

// String implements pflag.Value.
func (f *Format) String() string { return string(*f) }

// Set implements pflag.Value: a format's name or alias, in any case.
func (f *Format) Set(v string) error {
	x, err := reportFormats.lookup(v)
	if err == nil {
		*f = Format(x.name)
	}
	return err
}

// Type implements pflag.Value.
func (f *Format) Type() string { return "format" }

// Write writes rep to w in format f.
func Write(w io.Writer, f Format, rep *Report) error { return reportFormats.write(w, string(f), rep) }

// CheckFormat is how a check report is written; it is the value of
// `readygap check --output`.
type CheckFormat string

// The check report formats.
const (
	CheckText  CheckFormat = "text"
	CheckJSON  CheckFormat = "json"
	CheckSARIF CheckFormat = "sarif"
	CheckJUnit CheckFormat = "junit"
)

// checkFormats is the registry of the check report formats.
var checkFormats = outputFormats[CheckReport]{
	{name: string(CheckText), write: func(w io.Writer, rep *CheckReport) error { return WriteCheckText(w, rep, textWidthOf(w)) }},
	{name: string(CheckJSON), write: func(w io.Writer, rep *CheckReport) error { return writeIndentedJSON(w, rep) }},
	{name: string(CheckSARIF), write: renderSARIF},
	{name: string(CheckJUnit), write: renderJUnit},
}

// CheckFormats lists the check formats, in the order help texts name them.
var CheckFormats = formatsOf[CheckFormat](checkFormats)

// CheckFormatNames lists the values `check --output` accepts.
func CheckFormatNames() []string { return checkFormats.names() }

// String implements pflag.Value.
func (f *CheckFormat) String() string { return string(*f) }

// Set implements pflag.Value: a format's name, in any case.
func (f *CheckFormat) Set(v string) error {
	x, err := checkFormats.lookup(v)
	if err == nil {
		*f = CheckFormat(x.name)
	}
	return err
}

// Type implements pflag.Value.
func (f *CheckFormat) Type() string { return "format" }

// WriteCheck writes rep to w in format f.
func WriteCheck(w io.Writer, f CheckFormat, rep *CheckReport) error {
	return checkFormats.write(w, string(f), rep)
}

// formatsOf lists the names of a registry's formats as values of F.
func formatsOf[F ~string, R any](fs outputFormats[R]) []F {
	out := make([]F, len(fs))
	for i, f := range fs {
		out[i] = F(f.name)
	}
	return out
}

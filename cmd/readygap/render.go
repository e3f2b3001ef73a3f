package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/readygap/readygap/report"
	"github.com/spf13/cobra"
)

// renderOptions holds what `readygap render` needs.
type renderOptions struct {
	Path   string
	Output string
	In     io.Reader
	Out    io.Writer
}

// newRenderCmd wires the render command. runF, when not nil, replaces
// renderRun so tests can check the parsed options.
func newRenderCmd(runF func(*renderOptions) error) *cobra.Command {
	opts := &renderOptions{Output: string(report.Text)}
	cmd := &cobra.Command{
		Use:   "render REPORT.json",
		Short: "Draw a saved JSON report (of analyze, triage or check) in another format",
		Long: `Read a report written with --output json ("-" reads standard input) and
write it in another format, byte for byte as the command would have written
it: the JSON report carries everything the other formats draw, so a report
saved in CI or attached to a ticket can be read as text, Markdown or HTML
later, without the inputs. Reports of analyze and triage (schema ` + report.SchemaVersion + `)
render as ` + report.FormatHelp() + `;
reports of check (schema ` + report.CheckSchemaVersion + `) as ` + strings.Join(report.CheckFormatNames(), ", ") + `.
Exits 0 once the report is written, 1 when the input cannot be read or is
no readygap report of a schema this version knows, 2 for a format the
report's kind has not.`,
		Example: `  # keep the JSON in CI, read it as HTML later
  readygap analyze -o json ./incident/ > report.json
  readygap render report.json -o html > report.html

  # a check report from a pipe, as SARIF
  readygap check -o json deploy/ \
    | readygap render - -o sarif`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(errors.New("render needs one REPORT.json, or - for standard input"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Path = args[0]
			opts.In = cmd.InOrStdin()
			opts.Out = cmd.OutOrStdout()
			if runF != nil {
				return runF(opts)
			}
			return renderRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", opts.Output, "output format: "+report.FormatHelp()+" for analyze reports; "+strings.Join(report.CheckFormatNames(), ", ")+" for check reports")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(append(report.FormatNames(), report.CheckFormatNames()...), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// renderRun reads the saved report and writes it in the format asked.
func renderRun(o *renderOptions) error {
	data, err := readReportFile(o.Path, o.In)
	if err != nil {
		return err
	}
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("%s: not a JSON report: %w", o.Path, err)
	}
	switch head.Schema {
	case report.SchemaVersion:
		var f report.Format
		if err := f.Set(o.Output); err != nil {
			return usageError(fmt.Errorf("--output for a report of %s: %w", head.Schema, err))
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %w", o.Path, err)
		}
		return report.Write(o.Out, f, &rep)
	case report.CheckSchemaVersion:
		var f report.CheckFormat
		if err := f.Set(o.Output); err != nil {
			return usageError(fmt.Errorf("--output for a report of %s: %w", head.Schema, err))
		}
		var rep report.CheckReport
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %w", o.Path, err)
		}
		return report.WriteCheck(o.Out, f, &rep)
	}
	return fmt.Errorf("%s: schema %q is not one this readygap renders (%s, %s)", o.Path, head.Schema, report.SchemaVersion, report.CheckSchemaVersion)
}

// readReportFile reads path, or in for "-".
func readReportFile(path string, in io.Reader) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(in)
	}
	return os.ReadFile(path)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/readygap/readygap/reduced"
	"github.com/spf13/cobra"
)

// reduceOptions holds what `readygap reduce` needs.
type reduceOptions struct {
	Paths []string
	// Output is the bundle file to write, named *.reduced.json; "-" writes
	// standard output.
	Output string
	Since  string
	Until  string
	TZ     string

	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Now    func() time.Time
}

// newReduceCmd wires the reduce command's flags. runF, when not nil,
// replaces reduceRun so tests can check the parsed options.
func newReduceCmd(runF func(*reduceOptions) error) *cobra.Command {
	opts := &reduceOptions{Now: time.Now}
	cmd := &cobra.Command{
		Use:   "reduce PATH...",
		Short: "Reduce ALB or Google LB request logs to a small bundle analyze reads",
		Long: `Read ALB access logs or Google Cloud load-balancer request logs and write
what the analysis keeps of them — per-second counts, the responses each
backend sent per 30 s, the failure groups with their first and last
records — as a reduced bundle (` + reduced.Schema + `, a file named
*` + reduced.Suffix + `). ` + "`readygap analyze`" + ` reads it with the events and
objects, raw, and gives the verdict of the raw logs. It is the file
` + "`triage --engine`" + ` gets from Athena or BigQuery; made locally it is a
small file to share. Events and objects among the inputs are left out;
logs that record retries or attempts (nginx, Envoy) do not reduce.
See docs/fleet-scale.md.`,
		Example: `  # an hour of ALB logs, reduced to share with the events
  readygap reduce -o alb.reduced.json alb-logs/ \
    --since 2024-05-01T11:30:00Z --until 2024-05-01T12:30:00Z
  readygap analyze alb.reduced.json events.json objects.yaml`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("reduce needs at least one PATH: a file, a directory, or - for standard input"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.In = cmd.InOrStdin()
			opts.Out = cmd.OutOrStdout()
			opts.ErrOut = cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return reduceRun(cmd, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "the bundle file to write, named *"+reduced.Suffix+" (- for standard output)")
	cmd.Flags().StringVar(&opts.Since, "since", "", "keep requests at or after this time (as analyze --since)")
	cmd.Flags().StringVar(&opts.Until, "until", "", "keep requests before this time (as analyze --until)")
	cmd.Flags().StringVar(&opts.TZ, "tz", "UTC", "time zone of --since and --until written without one")
	_ = cmd.MarkFlagRequired("output")
	return cmd
}

// reduceRun reduces the inputs and writes the bundle.
func reduceRun(cmd *cobra.Command, opts *reduceOptions) error {
	if opts.Output != "-" && !reduced.IsBundleName(opts.Output) {
		return usageError(fmt.Errorf("--output %q: a reduced bundle's name ends in %s, so that analyze reads it as one", opts.Output, reduced.Suffix))
	}
	a := analyzeOptions{Since: opts.Since, Until: opts.Until, TZ: opts.TZ, In: opts.In, Now: opts.Now}
	ropts, err := a.readOptions()
	if err != nil {
		return err
	}
	b, err := reduced.Reduce(cmd.Context(), opts.Paths, ropts)
	if err != nil {
		return err
	}
	if opts.Output == "-" {
		return b.Write(opts.Out)
	}
	if err := b.WriteFile(opts.Output); err != nil {
		return err
	}
	fmt.Fprintf(opts.ErrOut, "readygap: wrote %s: %d seconds, %d cells, %d failure groups from %d inputs\n",
		opts.Output, len(b.Seconds), len(b.Cells), len(b.Groups), len(b.Inputs))
	return nil
}

package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	"github.com/spf13/cobra"
)

// analyzeOptions holds what `readygap analyze` needs: parsed flags and streams.
type analyzeOptions struct {
	Paths  []string
	Output outputFormat
	Since  string
	Until  string
	TZ     string
	// ExitCode makes a found incident exit with code 3.
	ExitCode bool

	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Now    func() time.Time
}

// newAnalyzeCmd wires the analyze command's flags. runF, when not nil,
// replaces analyzeRun so tests can check the parsed options.
func newAnalyzeCmd(runF func(*analyzeOptions) error) *cobra.Command {
	opts := &analyzeOptions{Output: outputText, Now: time.Now}
	cmd := &cobra.Command{
		Use:   "analyze PATH...",
		Short: "Explain LB 502/503s during a rollout from exported logs, events and objects",
		Long: `Read exported files — gcloud logging JSON, ALB access and health-check logs
(.log or .log.gz, as delivered to S3), AWS Load Balancer Controller logs,
ingress-nginx controller output, kubectl events and objects (JSON or YAML) —
in any mix. Directories are walked recursively, gzip is read transparently and
"-" reads standard input. Each file's format is detected from its content.

Formats: ` + strings.Join(sources.FormatIDs(), ", ") + `. CloudWatch Logs
exports, Fluent Bit / Container Insights JSON and kubectl/CRI timestamp
prefixes are unwrapped and reported as the format they wrap.`,
		Example: `  # everything exported after an incident, in one folder
  readygap analyze ./incident-2024-05-01/

  # only the ten minutes around the rollout, as JSON for a script
  readygap analyze --since 2024-05-01T11:55:00Z --until 2024-05-01T12:05:00Z -o json alb-logs/ events.json

  # ingress-nginx logs from a pipe; nginx error-log times are in Europe/Berlin
  kubectl logs -n ingress-nginx deploy/ingress-nginx-controller --since=1h | readygap analyze --tz Europe/Berlin -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			opts.In = cmd.InOrStdin()
			opts.Out = cmd.OutOrStdout()
			opts.ErrOut = cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return analyzeRun(cmd, opts)
		},
	}
	cmd.Flags().VarP(&opts.Output, "output", "o", "output format: text, json, markdown or html")
	cmd.Flags().StringVar(&opts.Since, "since", "", "keep records at or after this time (RFC 3339, \"2006-01-02 15:04:05\", or a duration back from now such as 30m)")
	cmd.Flags().StringVar(&opts.Until, "until", "", "keep records before this time (same forms as --since)")
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit with code 3 when an incident is found (for scripts and CI)")
	cmd.Flags().StringVar(&opts.TZ, "tz", "UTC", "time zone of log times written without one (nginx error log, klog), e.g. Europe/Berlin or Local")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(outputFormatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("tz", cobra.FixedCompletions([]string{"UTC", "Local"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// readOptions turns the flags into options for the sources pipeline.
func (o *analyzeOptions) readOptions() (sources.Options, error) {
	loc, err := time.LoadLocation(o.TZ)
	if err != nil {
		return sources.Options{}, usageError(fmt.Errorf("--tz: unknown time zone %q", o.TZ))
	}
	now := o.Now()
	since, err := parseTimeFlag(o.Since, now, loc)
	if err != nil {
		return sources.Options{}, usageError(fmt.Errorf("--since: %w", err))
	}
	until, err := parseTimeFlag(o.Until, now, loc)
	if err != nil {
		return sources.Options{}, usageError(fmt.Errorf("--until: %w", err))
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return sources.Options{}, usageError(fmt.Errorf("--since %s is not before --until %s", since.Format(time.RFC3339), until.Format(time.RFC3339)))
	}
	return sources.Options{Since: since, Until: until, TZ: loc, Stdin: o.In}, nil
}

// analyzeRun reads the inputs and renders the report.
func analyzeRun(cmd *cobra.Command, opts *analyzeOptions) error {
	ropts, err := opts.readOptions()
	if err != nil {
		return err
	}
	collectors := correlate.NewCollectors()
	res, err := sources.Read(cmd.Context(), opts.Paths, ropts, func(*sources.InputReport) sources.Handler {
		return collectors.New()
	})
	if err != nil {
		return err
	}
	analysis := correlate.Analyze(collectors.Merge(), correlate.Options{})
	rep := newReport(res, analysis, classify.Classify(analysis))
	if err := render(opts.Out, opts.Output, rep); err != nil {
		return err
	}
	if opts.ExitCode && len(rep.Incidents) > 0 {
		return &codedError{code: exitIncident, err: fmt.Errorf("%s found", plural(len(rep.Incidents), "incident"))}
	}
	return nil
}

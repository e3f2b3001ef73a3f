package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/pipeline"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/spf13/cobra"
)

// analyzeOptions holds what `readygap analyze` needs: parsed flags and streams.
type analyzeOptions struct {
	Paths  []string
	Output report.Format
	Since  string
	Until  string
	TZ     string
	// EnvoyFormat is the Envoy access-log format of Envoy inputs in a custom format.
	EnvoyFormat string
	// NginxFormat is the access-log format of ingress-nginx (or nginx)
	// inputs in a custom log-format-upstream.
	NginxFormat string
	// ExitCode makes a found incident exit with code 3.
	ExitCode bool
	// TableNow is --now: when the kubectl tables among the inputs were printed.
	TableNow string
	// KubeVersion is --kube-version: the cluster's Kubernetes version.
	KubeVersion kubeVersionFlag

	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Now    func() time.Time
}

// newAnalyzeCmd wires the analyze command's flags. runF, when not nil,
// replaces analyzeRun so tests can check the parsed options.
func newAnalyzeCmd(runF func(*analyzeOptions) error) *cobra.Command {
	opts := &analyzeOptions{Output: report.Text, Now: time.Now}
	cmd := &cobra.Command{
		Use:   "analyze PATH...",
		Short: "Explain LB 502/503s during a rollout from exported logs, events and objects",
		Long: `Read exported files — gcloud logging JSON, ALB access and health-check logs
(.log or .log.gz, as delivered to S3), AWS Load Balancer Controller logs,
ingress-nginx controller output, kubectl events and objects (JSON or YAML) —
in any mix. Directories are walked recursively, gzip is read transparently and
"-" reads standard input. Each file's format is detected from its content.

Formats: ` + strings.Join(sources.FormatIDs(), ", ") + `. Envelopes taken off,
the input reported as the format they wrap: ` + strings.Join(sources.EnvelopeIDs(), ", ") + `.

The report says what it rests on: per kind of source (request logs,
events, objects, controller logs) the files, records and time read, and
the inputs not read with the reason. "No incident" needs a request log that
covers the rollouts; without one the report cannot judge, says why, and
exits 6.`,
		Example: `  # everything exported after an incident, in one folder
  readygap analyze ./incident-2024-05-01/

  # the ten minutes around the rollout, as JSON for a script
  readygap analyze -o json alb-logs/ events.json \
    --since 2024-05-01T11:55:00Z --until 2024-05-01T12:05:00Z

  # ingress-nginx with a custom log-format-upstream, as in its ConfigMap
  readygap analyze controller.log --nginx-format \
    '$time_iso8601 "$request" $status $upstream_addr $upstream_status'

  # kubectl describe output taken at 14:05 UTC: ages count back from it
  readygap analyze --now 2024-05-01T14:05:00Z describe-pod.txt

  # ingress-nginx logs from a pipe; error-log times in Berlin time
  kubectl logs -n ingress-nginx deploy/ingress-nginx-controller \
    --since=1h | readygap analyze --tz Europe/Berlin -`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("analyze needs at least one PATH: a file, a directory, or - for standard input"))
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
			return analyzeRun(cmd, opts)
		},
	}
	cmd.Flags().VarP(&opts.Output, "output", "o", "output format: "+report.FormatHelp())
	cmd.Flags().StringVar(&opts.Since, "since", "", "keep records at or after this time (RFC 3339, \"2006-01-02 15:04:05\", or a duration back from now such as 30m)")
	cmd.Flags().StringVar(&opts.Until, "until", "", "keep records before this time (same forms as --since)")
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit with code 3 when an incident is found (for scripts and CI)")
	cmd.Flags().StringVar(&opts.EnvoyFormat, "envoy-format", "", "Envoy access-log format of Envoy logs in a custom format: a format string ('[%START_TIME%] \"%REQ(:METHOD)% ...') or a JSON dictionary")
	cmd.Flags().StringVar(&opts.NginxFormat, "nginx-format", "", "nginx access-log format of ingress-nginx logs in a custom log-format-upstream (or nginx logs with $upstream_addr and $upstream_status added): the log_format string or JSON template, as configured")
	cmd.Flags().StringVar(&opts.TableNow, "now", "", "when the kubectl describe or get events tables among the inputs were printed (RFC 3339): their ages (16m, 2m30s) count back from it; without it they are anchored by an absolute time in the table, or read in order only; Envoy lines pasted without their time count on from it, in order only")
	addKubeVersionFlag(cmd.Flags(), &opts.KubeVersion)
	cmd.Flags().StringVar(&opts.TZ, "tz", "UTC", "time zone of log times written without one (nginx error log, klog), e.g. Europe/Berlin or Local")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
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
	if err := checkLogFormats(o.EnvoyFormat, o.NginxFormat); err != nil {
		return sources.Options{}, err
	}
	var tableNow time.Time
	if o.TableNow != "" {
		if tableNow, err = time.Parse(time.RFC3339Nano, strings.TrimSpace(o.TableNow)); err != nil {
			return sources.Options{}, usageError(fmt.Errorf("--now: cannot read time %q: give the time the tables were printed in RFC 3339, such as 2024-05-01T14:05:00Z", o.TableNow))
		}
	}
	return sources.Options{Since: since, Until: until, TZ: loc, Stdin: o.In, EnvoyFormat: o.EnvoyFormat, NginxFormat: o.NginxFormat,
		TableNow: tableNow.UTC(), ReadAt: now}, nil
}

// checkLogFormats makes an --envoy-format or --nginx-format readygap cannot
// read a usage error.
func checkLogFormats(envoy, nginx string) error {
	if err := sources.CheckEnvoyFormat(envoy); err != nil {
		return usageError(fmt.Errorf("--envoy-format: %w", err))
	}
	if nginx == "" {
		return nil
	}
	if err := sources.CheckNginxFormat(nginx); err != nil {
		return usageError(fmt.Errorf("--nginx-format: %w", err))
	}
	return nil
}

// analyzeRun reads the inputs and renders the report.
func analyzeRun(cmd *cobra.Command, opts *analyzeOptions) error {
	ropts, err := opts.readOptions()
	if err != nil {
		return err
	}
	rep, err := pipeline.Analyze(cmd.Context(), opts.Paths, pipeline.Options{Read: ropts, KubeVersion: opts.KubeVersion.v})
	if err != nil {
		return err
	}
	return writeReport(opts.Out, opts.Output, rep, opts.ExitCode)
}

// writeReport writes rep and turns what a script must tell apart into exit
// codes: a time window that left no record (code 4, with the time range the
// data has), a report that cannot judge (code 6, with the reason), and,
// with --exit-code, a found incident (code 3).
func writeReport(w io.Writer, f report.Format, rep *report.Report, exitOnIncident bool) error {
	if err := report.Write(w, f, rep); err != nil {
		return err
	}
	if win := rep.Window; win != nil && win.Empty {
		msg := "no record with a time lies in the window given by --since/--until"
		if !win.DataFirst.IsZero() {
			msg += fmt.Sprintf("; the data runs from %s to %s", win.DataFirst.Format(time.RFC3339Nano), win.DataLast.Format(time.RFC3339Nano))
		}
		return &codedError{code: exitNoRecord, err: errors.New(msg)}
	}
	if s := rep.Summary; s.Verdict == report.VerdictCannotJudge {
		return &codedError{code: exitNotJudged, err: errors.New("cannot judge: " + s.CannotJudge)}
	}
	if n := len(rep.Incidents); exitOnIncident && n > 0 {
		return &codedError{code: exitIncident, err: fmt.Errorf("%s found", words.Plural(n, "incident"))}
	}
	return nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/pipeline"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/live"
	"github.com/spf13/cobra"
)

// checkOptions holds what `readygap check` needs: parsed flags and streams.
type checkOptions struct {
	Paths  []string
	Output report.CheckFormat
	// KubeVersion is --kube-version: the cluster's Kubernetes version.
	KubeVersion kubeVersionFlag
	// FailOn is the severity from which the command exits with exitRisk.
	FailOn failOnFlag

	// Neighbors reads, as context, the other manifests in the directories
	// of the files given: their objects link the workloads of those files
	// to their Services and routes, and only the files given are judged.
	Neighbors bool

	Kubeconfig, Context, Namespace string
	Timeouts                       live.Timeouts
	Quiet                          bool

	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// live reports whether the objects come from a cluster: no PATH, and a
// kubeconfig, context or namespace given.
func (o *checkOptions) live() bool {
	return len(o.Paths) == 0 && (o.Kubeconfig != "" || o.Context != "" || o.Namespace != "")
}

// failOnFlag is the value of --fail-on.
type failOnFlag string

// failOnValues are the values --fail-on accepts, the strictest first.
var failOnValues = []string{string(classify.SeverityWarning), string(classify.SeverityError), "none"}

// String implements pflag.Value.
func (f *failOnFlag) String() string { return string(*f) }

// Set implements pflag.Value.
func (f *failOnFlag) Set(v string) error {
	for _, x := range failOnValues {
		if strings.EqualFold(v, x) {
			*f = failOnFlag(x)
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(failOnValues, ", "))
}

// Type implements pflag.Value.
func (f *failOnFlag) Type() string { return "severity" }

// severity is the flag as a classify severity; "" for none.
func (f failOnFlag) severity() classify.Severity {
	if f == "none" {
		return ""
	}
	return classify.Severity(f)
}

// newCheckCmd wires the check command's flags. runF, when not nil,
// replaces checkRun so tests can check the parsed options.
func newCheckCmd(runF func(*checkOptions) error) *cobra.Command {
	opts := &checkOptions{Output: report.CheckText, FailOn: failOnFlag(classify.SeverityError)}
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Find the settings that make a rollout fail requests, before the deploy",
		Long: `Read Kubernetes manifests — files, directories (walked recursively) or "-" for
standard input, multi-document YAML, JSON, Lists — or, without PATH, the
objects of a namespace of a live cluster (read-only, the list calls of
triage), and report per workload the settings that let a load balancer send
requests to pods that cannot take them: with the numbers computed from the
load balancer's own settings, the object and file:line, and the patch.

Checks:
` + checkList() + `

What it cannot judge is listed as such, never as "No risk found": an input
or document it could not read (an error), a workload whose Service, Ingress
or Gateway is not among the inputs (a warning). With --neighbors, the other
manifests in the directories of the files given are read as context, as
the pre-commit hook does.

It exits with code 5 when a finding, or something not judged, is at or
above --fail-on (error by default; warning, or none to always exit 0).`,
		Example: `  # rendered charts and kustomizations, from a pipe
  helm template shop ./charts/shop | readygap check -
  kustomize build overlays/prod | readygap check -

  # a folder of manifests, as SARIF for GitHub code scanning
  readygap check -o sarif deploy/ > readygap.sarif

  # fail CI on warnings too, with a JUnit report
  readygap check --fail-on warning -o junit k8s/ > junit.xml

  # a changed file, judged with the Service and Ingress beside it
  readygap check --neighbors deploy/web/deployment.yaml

  # the objects of a live namespace
  readygap check --context prod -n shop`,
		Args: func(cmd *cobra.Command, args []string) error {
			live := cmd.Flags().Changed("context") || cmd.Flags().Changed("namespace") || cmd.Flags().Changed("kubeconfig")
			switch {
			case len(args) > 0 && live:
				return usageError(errors.New("check reads either PATHs or a cluster (--kubeconfig, --context, -n), not both"))
			case len(args) == 0 && !live:
				return usageError(errors.New("check needs PATHs (a file, a directory, or - for standard input) or a cluster: --context and/or -n"))
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
			return checkRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	f.VarP(&opts.Output, "output", "o", "output format: "+strings.Join(report.CheckFormatNames(), ", "))
	f.BoolVar(&opts.Neighbors, "neighbors", false, "also read the other manifests in the directories of the files given, as context: their objects count, findings are reported for the files given (the pre-commit hook)")
	addKubeVersionFlag(f, &opts.KubeVersion)
	f.Var(&opts.FailOn, "fail-on", "exit with code 5 when a finding is at or above this severity: "+strings.Join(failOnValues, ", "))
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "read a live cluster with this kubeconfig file (default: KUBECONFIG or ~/.kube/config)")
	f.StringVar(&opts.Context, "context", "", "read a live cluster: this kubeconfig context (default: the current one)")
	f.StringVarP(&opts.Namespace, "namespace", "n", "", "read a live cluster: this namespace (default: the context's)")
	f.DurationVar(&opts.Timeouts.Connect, "connect-timeout", live.DefaultTimeouts.Connect, "live: longest wait to open a connection")
	f.DurationVar(&opts.Timeouts.Response, "response-timeout", live.DefaultTimeouts.Response, "live: longest wait for the first byte of an answer")
	f.DurationVar(&opts.Timeouts.Idle, "idle-timeout", live.DefaultTimeouts.Idle, "live: longest pause in the middle of an answer")
	f.DurationVar(&opts.Timeouts.Source, "source-timeout", live.DefaultTimeouts.Source, "live: total budget of the fetch")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "live: no progress on standard error")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.CheckFormatNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions(failOnValues, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// checkList names every static check for the help text, from the registry.
func checkList() string {
	var b strings.Builder
	for _, rc := range classify.StaticChecks() {
		fmt.Fprintf(&b, "  %-40s %s\n", rc.RuleID, rc.Check.Name)
	}
	return strings.TrimRight(b.String(), "\n")
}

// checkRun reads the manifests or the cluster, writes the report and turns
// a finding at or above --fail-on into exitRisk.
func checkRun(cmd *cobra.Command, o *checkOptions) error {
	paths, ropts := o.Paths, sources.Options{Stdin: o.In}
	var source string
	var fetchErr, err error
	if o.live() {
		dir, err := os.MkdirTemp("", "readygap-check-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if source, fetchErr = o.fetch(cmd, dir); source == "" {
			return fetchErr
		}
		paths = []string{dir}
	}
	copts := pipeline.CheckOptions{Read: ropts, Source: source, FailOn: o.FailOn.severity(), KubeVersion: o.KubeVersion.v}
	if o.Neighbors {
		if copts.Context, err = neighbors(paths); err != nil {
			return err
		}
	}
	rep, err := pipeline.Check(cmd.Context(), paths, copts)
	if err != nil {
		return errors.Join(fetchErr, err)
	}
	if err := report.WriteCheck(o.Out, o.Output, rep); err != nil {
		return err
	}
	if fetchErr != nil {
		return fetchErr
	}
	if rep.Summary.Failed {
		n, unread, missing := 0, 0, 0
		at := func(sev string) bool { return classify.Severity(sev).Rank() >= o.FailOn.severity().Rank() }
		for _, f := range rep.Findings {
			if at(f.Severity) {
				n++
			}
		}
		for _, nj := range rep.NotJudged {
			switch {
			case !at(nj.Severity):
			case nj.Kind == report.NotJudgedUnreadable:
				unread++
			default:
				missing++
			}
		}
		what := []string{words.Plural(n, "finding")}
		if unread > 0 {
			what = append(what, fmt.Sprintf("%d not read", unread))
		}
		if missing > 0 {
			what = append(what, fmt.Sprintf("%d not judged for want of an object", missing))
		}
		return &codedError{code: exitRisk, err: fmt.Errorf("%s at or above --fail-on %s", strings.Join(what, ", "), o.FailOn)}
	}
	return nil
}

// neighbors lists the manifests (.yaml, .yml, .json; not hidden) in the
// directories of the files among paths, other than the paths themselves,
// sorted: what a pre-commit hook that hands check only the changed files
// needs to link them to the Services and routes beside them. Directories
// and "-" among paths bring none: a directory is read whole.
func neighbors(paths []string) ([]string, error) {
	given := map[string]bool{}
	dirs := map[string]bool{}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		given[filepath.Clean(p)] = true
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			dirs[filepath.Dir(p)] = true
		}
	}
	var out []string
	for dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(dir, name)
			switch strings.ToLower(filepath.Ext(name)) {
			case ".yaml", ".yml", ".json":
			default:
				continue
			}
			if strings.HasPrefix(name, ".") || given[p] || !e.Type().IsRegular() {
				continue
			}
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// fetch lists the namespace's objects into dir, read-only, with the
// deadlines of triage. It returns the source's name for the report ("" when
// nothing was saved) and the error of a list that failed.
func (o *checkOptions) fetch(cmd *cobra.Command, dir string) (string, error) {
	for _, t := range []struct {
		flag string
		d    time.Duration
	}{{"--connect-timeout", o.Timeouts.Connect}, {"--response-timeout", o.Timeouts.Response}, {"--idle-timeout", o.Timeouts.Idle}, {"--source-timeout", o.Timeouts.Source}} {
		if t.d <= 0 {
			return "", usageError(fmt.Errorf("%s must be positive, not %s", t.flag, t.d))
		}
	}
	k := &live.Kubernetes{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: o.Namespace, Timeouts: o.Timeouts, ObjectsOnly: true}
	if err := k.Resolve(); err != nil {
		if errors.Is(err, live.ErrKubeNotConfigured) {
			return "", errors.New("no kubeconfig found: give --kubeconfig, or set KUBECONFIG")
		}
		return "", err
	}
	now := time.Now()
	rep, err := k.Fetch(cmd.Context(), live.Window{Since: now, Until: now}, dir, nil)
	if err != nil {
		fmt.Fprintf(o.ErrOut, "error: %s\n", report.Sanitize(strings.Join(strings.Fields(err.Error()), " ")))
	}
	if len(rep.Files) == 0 {
		if err == nil {
			err = fmt.Errorf("no object in namespace %s", k.Namespace)
		}
		return "", err
	}
	if !o.Quiet {
		fmt.Fprintf(o.ErrOut, "kubernetes: %s read from namespace %s\n", words.Plural(rep.Records, "object"), k.Namespace)
	}
	name := "namespace " + k.Namespace
	if o.Context != "" {
		name = "context " + o.Context + ", " + name
	}
	return name, err
}

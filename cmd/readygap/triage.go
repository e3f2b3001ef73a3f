package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/readygap/readygap/internal/safego"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/pipeline"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
	"github.com/readygap/readygap/sources/live"
)

// aroundSpan is how far --around reaches on either side of its time.
const aroundSpan = 15 * time.Minute

// defaultSince is the window's start when neither --since nor --around is given.
const defaultSince = "30m"

// triageOptions holds what `readygap triage` needs: parsed flags and streams.
type triageOptions struct {
	Project, URLMap, BackendService, Cluster, LoggingEndpoint string
	// KubeVersion is --kube-version: the cluster's Kubernetes version.
	KubeVersion kubeVersionFlag

	ALBLogs, Account, Region, Profile string
	LogGroups                         []string
	FilterPattern                     string
	Workers                           int

	Kubeconfig, Context, Namespace string

	// ProxyLogs are the --proxy-logs values and ProxyLogsLimit the size a
	// pod; proxyTargets and proxyLimit are what they were parsed into.
	ProxyLogs      []string
	ProxyLogsLimit string
	proxyTargets   []live.ProxyTarget
	proxyLimit     int64
	// EnvoyFormat is the access-log format of Envoy proxies in a custom one.
	EnvoyFormat string
	// NginxFormat is the access-log format of ingress-nginx (or nginx)
	// proxies in a custom one.
	NginxFormat string

	Timeouts live.Timeouts

	// Engine holds --engine and its flags (triage_engine.go).
	Engine engineOptions

	Since, Until, Around string
	Save                 string
	DryRun, Quiet        bool
	ExitCode             bool
	Output               report.Format

	In       io.Reader
	Out      io.Writer
	ErrOut   io.Writer
	Now      func() time.Time
	Terminal bool
}

// liveSource is one configured live source.
type liveSource interface {
	Plan(live.Window) []string
	Fetch(context.Context, live.Window, string, live.Progress) (bundle.FetchReport, error)
}

// newTriageCmd wires the triage command's flags. runF, when not nil,
// replaces triageRun so tests can check the parsed options.
func newTriageCmd(runF func(*triageOptions) error) *cobra.Command {
	opts := &triageOptions{Output: report.Text, Now: time.Now}
	cmd := &cobra.Command{
		Use:   "triage",
		Short: "Fetch the incident window live from Cloud Logging, S3, CloudWatch Logs and the cluster, then analyze it",
		Long: `Fetch exactly the data the analysis needs, straight from where it lives, and
print the verdict of analyze. Each source runs when its flags are given:

  Cloud Logging    --project [--url-map] [--backend-service] [--cluster]
  BigQuery         --engine bigquery --bq-table (repeatable) [--bq-project]
  S3 ALB logs      --alb-logs s3://bucket/prefix [--account] [--region]
  CloudWatch Logs  --log-group (repeatable) [--filter-pattern]
  Kubernetes       a kubeconfig (--kubeconfig, KUBECONFIG or ~/.kube/config)
  Proxy pod logs   --proxy-logs (repeatable) and a kubeconfig

--proxy-logs names gateway or ingress-controller pods as kubectl logs does,
with the namespace in front: [NAMESPACE/]deploy/NAME, ds/NAME, sts/NAME,
pod/NAME or -l SELECTOR, then -c CONTAINER to read one container (default:
every container and native sidecar). Every replica is read, through the
API's pods/log with --timestamps from --since on; lines from --until on are
dropped, each pod gives at most --proxy-logs-limit, and a container that
restarted in the window gives its previous instance too. Pods deleted
during the window took their logs with them: the manifest names them.

Credentials come from the standard chains only (AWS profiles, environment and
instance roles; Google application default credentials; the kubeconfig) and
need read access only. Endpoints are overridable the standard way:
AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL_CLOUDWATCH_LOGS,
--logging-endpoint, any kubeconfig.

What was fetched is written as a bundle in the formats analyze reads;
--save DIR keeps it (Kubernetes events expire after an hour) and
"readygap analyze DIR" gives the same report later. Its manifest,
.bundle.json, lists every object and query asked for, what came back and,
for each one missing, why. Ctrl-C keeps what was saved. The manifest says
the bundle is in progress before anything is written and complete only at
the end: analyze of a bundle whose triage was killed cannot judge (exit 6).

Every call has deadlines: a connect timeout, a first-byte timeout
(--response-timeout) and an idle-read timeout; each source has a total
budget. A source that fails prints one line with the permission or setting
to fix; the others still run, and the exit code is 1 after the report.
Server error text is redacted (query strings, signatures, tokens), and
container env values, last-applied-configuration annotations and Secret
data are never saved.`,
		Example: `  # GKE: the last 30 minutes of one load balancer and the events
  readygap triage --project shop-prod --url-map k8s2-um-web \
    --cluster prod-1 -n shop

  # EKS: ALB logs from S3 and the controller's logs around a
  # rollout, kept for the postmortem
  readygap triage --alb-logs s3://alb-logs/prod \
    --region us-east-1 \
    --log-group /aws/containerinsights/prod/application \
    --filter-pattern \
    '{ $.kubernetes.container_name = "aws-load-balancer-controller" }' \
    --around 2024-05-01T12:00:00Z --save ./incident-0501

  # Istio, Envoy Gateway and ingress-nginx: every replica of the
  # gateway, and the cluster's events
  readygap triage -n shop \
    --proxy-logs istio-system/deploy/istio-ingressgateway
  readygap triage -n shop --proxy-logs \
    'envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=eg'
  readygap triage -n shop --since 1h \
    --proxy-logs ingress-nginx/deploy/ingress-nginx-controller

  # the Istio sidecars of a workload (in -n's namespace), and
  # Contour's Envoy
  readygap triage -n shop --proxy-logs 'deploy/web -c istio-proxy' \
    --proxy-logs 'projectcontour/ds/envoy -c envoy'

  # a flaky network: give up on a silent endpoint after 30 s, on a
  # source after 3 minutes
  readygap triage --project shop-prod \
    --response-timeout 30s --source-timeout 3m

  # what would be asked, without asking
  readygap triage --project shop-prod --since 1h --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.In = cmd.InOrStdin()
			opts.Out = cmd.OutOrStdout()
			opts.ErrOut = cmd.ErrOrStderr()
			if f, ok := opts.ErrOut.(*os.File); ok {
				opts.Terminal = term.IsTerminal(int(f.Fd()))
			}
			if runF != nil {
				return runF(opts)
			}
			return triageRun(cmd, opts)
		},
	}
	f := cmd.Flags()
	addKubeVersionFlag(f, &opts.KubeVersion)
	addEngineFlags(f, &opts.Engine)
	f.StringVar(&opts.Project, "project", "", "Google Cloud project whose Cloud Logging is read")
	f.StringVar(&opts.URLMap, "url-map", "", "only request logs of this URL map (load balancer)")
	f.StringVar(&opts.BackendService, "backend-service", "", "only request logs of this backend service")
	f.StringVar(&opts.Cluster, "cluster", "", "only Kubernetes events of this GKE cluster (Cloud Logging)")
	f.StringVar(&opts.LoggingEndpoint, "logging-endpoint", "", "Cloud Logging API host:port (plaintext gRPC without credentials on localhost)")
	f.StringVar(&opts.ALBLogs, "alb-logs", "", "where the ALB writes its access logs: s3://bucket/prefix (the part before AWSLogs/)")
	f.StringVar(&opts.Account, "account", "", "the AWS account id in the ALB log keys (default: found by listing AWSLogs/)")
	f.StringVar(&opts.Region, "region", "", "the AWS region of the load balancer and of the API calls (default: the profile's)")
	f.StringVar(&opts.Profile, "profile", "", "the AWS shared config profile")
	f.StringArrayVar(&opts.LogGroups, "log-group", nil, "a CloudWatch log group to read (repeatable): the AWS Load Balancer Controller's, ingress-nginx's, a Container Insights application group")
	f.StringVar(&opts.FilterPattern, "filter-pattern", "", "the CloudWatch Logs filter pattern for --log-group")
	f.IntVar(&opts.Workers, "parallel", live.DefaultS3Workers, "S3 objects downloaded at once")
	f.StringVar(&opts.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG or ~/.kube/config)")
	f.StringVar(&opts.Context, "context", "", "kubeconfig context (default: the current one)")
	f.StringVarP(&opts.Namespace, "namespace", "n", "", "namespace of the workload (default: the context's)")
	f.StringArrayVar(&opts.ProxyLogs, "proxy-logs", nil, "read the logs of these gateway or ingress-controller pods (repeatable): [NAMESPACE/]deploy/NAME, ds/NAME, sts/NAME, pod/NAME or -l SELECTOR, then optionally -c CONTAINER")
	f.StringVar(&opts.ProxyLogsLimit, "proxy-logs-limit", resource.NewQuantity(live.DefaultProxyLogLimit, resource.BinarySI).String(), "most log read of one pod of --proxy-logs, all its containers together (a size: 64Mi, 1Gi)")
	f.StringVar(&opts.EnvoyFormat, "envoy-format", "", "Envoy access-log format of --proxy-logs in a custom format, as for analyze: a format string or a JSON dictionary")
	f.StringVar(&opts.NginxFormat, "nginx-format", "", "nginx access-log format of --proxy-logs in a custom format, as for analyze: the log-format-upstream string or JSON template")
	f.DurationVar(&opts.Timeouts.Connect, "connect-timeout", live.DefaultTimeouts.Connect, "longest wait to open a connection")
	f.DurationVar(&opts.Timeouts.Response, "response-timeout", live.DefaultTimeouts.Response, "longest wait for the first byte of an answer (Cloud Logging: for the connection); a silent endpoint is given up after it")
	f.DurationVar(&opts.Timeouts.Idle, "idle-timeout", live.DefaultTimeouts.Idle, "longest pause in the middle of an answer (Cloud Logging: added to --response-timeout per page)")
	f.DurationVar(&opts.Timeouts.Source, "source-timeout", live.DefaultTimeouts.Source, "total budget of each source; what was saved when it runs out is kept")
	f.StringVar(&opts.Since, "since", "", "start of the window: RFC 3339, \"2006-01-02 15:04:05\" (UTC) or a duration back from now (default 30m)")
	f.StringVar(&opts.Until, "until", "", "end of the window (same forms as --since; default now)")
	f.StringVar(&opts.Around, "around", "", "a time to look at: the window is 15 minutes either side of it")
	f.StringVar(&opts.Save, "save", "", "keep the fetched bundle in this directory (new or empty)")
	f.BoolVar(&opts.DryRun, "dry-run", false, "print the queries, filters and listings that would be made, and exit")
	f.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on standard error")
	f.VarP(&opts.Output, "output", "o", "output format: "+report.FormatHelp())
	f.BoolVar(&opts.ExitCode, "exit-code", false, "exit with code 3 when the analysis finds an incident")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// window turns --since, --until and --around into the fetch window.
func (o *triageOptions) window() (live.Window, error) {
	now := o.Now().UTC()
	if o.Around != "" {
		if o.Since != "" || o.Until != "" {
			return live.Window{}, usageError(errors.New("--around cannot be combined with --since or --until"))
		}
		t, err := parseTimeFlag(o.Around, now, time.UTC)
		if err != nil {
			return live.Window{}, usageError(fmt.Errorf("--around: %w", err))
		}
		return live.Window{Since: t.Add(-aroundSpan), Until: t.Add(aroundSpan)}, nil
	}
	if o.Since == "" {
		o.Since = defaultSince
	}
	since, err := parseTimeFlag(o.Since, now, time.UTC)
	if err != nil {
		return live.Window{}, usageError(fmt.Errorf("--since: %w", err))
	}
	until, err := parseTimeFlag(o.Until, now, time.UTC)
	if err != nil {
		return live.Window{}, usageError(fmt.Errorf("--until: %w", err))
	}
	if until.IsZero() {
		until = now
	}
	if since.IsZero() || !since.Before(until) {
		return live.Window{}, usageError(fmt.Errorf("--since %s is not before --until %s", since.Format(time.RFC3339), until.Format(time.RFC3339)))
	}
	return live.Window{Since: since, Until: until}, nil
}

// liveSources builds the configured sources and says on stderr which are
// skipped, returning those too for the manifest.
func (o *triageOptions) liveSources(ctx context.Context) (map[string]liveSource, []bundle.SkippedSource, []error) {
	srcs := map[string]liveSource{}
	var skipped []bundle.SkippedSource
	var errs []error
	skip := func(name, why string) {
		fmt.Fprintf(o.ErrOut, "%s: skipped (%s)\n", name, why)
		skipped = append(skipped, bundle.SkippedSource{Source: name, Reason: why})
	}
	if o.Project != "" {
		srcs[live.SourceGCPLogging] = &live.GCPLogging{Project: o.Project, URLMap: o.URLMap, BackendService: o.BackendService,
			Cluster: o.Cluster, Namespace: o.Namespace, Endpoint: o.LoggingEndpoint, Timeouts: o.Timeouts,
			NoRequests: o.Engine.Engine == engineBigQuery}
	} else {
		skip(live.SourceGCPLogging, "no --project")
	}
	if o.Engine.Engine == engineBigQuery {
		srcs[live.SourceBigQueryGCP] = o.bigQuerySource()
	}
	if o.ALBLogs != "" || len(o.LogGroups) > 0 {
		cfg, err := o.awsConfig(ctx)
		if err != nil {
			errs = append(errs, err)
		} else if o.ALBLogs != "" {
			bucket, prefix, _ := live.ParseS3URL(o.ALBLogs)
			logs := &live.ALBLogs{Client: live.NewS3Client(cfg), Bucket: bucket, Prefix: prefix,
				Account: o.Account, Region: o.Region, Workers: o.Workers, Timeouts: o.Timeouts}
			if o.Engine.Engine == engineAthena {
				srcs[live.SourceAthenaALB] = o.athenaSource(cfg, logs)
			} else {
				srcs[live.SourceS3ALB] = logs
			}
		}
		if err == nil && len(o.LogGroups) > 0 {
			srcs[live.SourceCloudWatch] = &live.CloudWatchLogs{Client: live.NewCloudWatchClient(cfg),
				LogGroups: o.LogGroups, FilterPattern: o.FilterPattern, Timeouts: o.Timeouts}
		}
	}
	if o.ALBLogs == "" {
		skip(live.SourceS3ALB, "no --alb-logs")
	}
	if len(o.proxyTargets) > 0 {
		p := &live.ProxyLogs{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: o.Namespace, Targets: o.proxyTargets,
			LimitBytes: o.proxyLimit, Timeouts: o.Timeouts}
		switch err := p.Resolve(); {
		case errors.Is(err, live.ErrKubeNotConfigured):
			errs = append(errs, &live.FetchError{Source: live.SourceProxyLogs, Err: err,
				Msg: "no kubeconfig found: --proxy-logs reads pod logs through the Kubernetes API (--kubeconfig, KUBECONFIG or ~/.kube/config)"})
		case err != nil:
			errs = append(errs, err)
		default:
			srcs[live.SourceProxyLogs] = p
		}
	} else {
		skip(live.SourceProxyLogs, "no --proxy-logs")
	}
	if len(o.LogGroups) == 0 {
		skip(live.SourceCloudWatch, "no --log-group")
	}
	k := &live.Kubernetes{Kubeconfig: o.Kubeconfig, Context: o.Context, Namespace: o.Namespace, Timeouts: o.Timeouts}
	switch err := k.Resolve(); {
	case errors.Is(err, live.ErrKubeNotConfigured):
		skip(live.SourceKubernetes, "no kubeconfig")
	case err != nil:
		errs = append(errs, err)
	default:
		srcs[live.SourceKubernetes] = k
	}
	return srcs, skipped, errs
}

// awsConfig loads the AWS configuration from the standard chain, with
// every call's deadlines.
func (o *triageOptions) awsConfig(ctx context.Context) (aws.Config, error) {
	lo := []func(*config.LoadOptions) error{config.WithHTTPClient(live.AWSHTTPClient(o.Timeouts))}
	if o.Region != "" {
		lo = append(lo, config.WithRegion(o.Region))
	}
	if o.Profile != "" {
		lo = append(lo, config.WithSharedConfigProfile(o.Profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		msg, _ := live.Redact("configuration: " + err.Error())
		return cfg, &live.FetchError{Source: "aws", Msg: msg, Err: err}
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	live.WithAWSTimeouts(&cfg, o.Timeouts)
	return cfg, nil
}

// triageRun fetches every configured source into a bundle and analyzes it.
func triageRun(cmd *cobra.Command, o *triageOptions) error {
	w, err := o.window()
	if err != nil {
		return err
	}
	if o.ALBLogs != "" {
		if _, _, err := live.ParseS3URL(o.ALBLogs); err != nil {
			return usageError(fmt.Errorf("--alb-logs: %w", err))
		}
	}
	if err := o.checkTimeouts(); err != nil {
		return err
	}
	if err := o.Engine.check(o.ALBLogs); err != nil {
		return err
	}
	if o.Engine.Engine == engineBigQuery && o.Project == "" && o.Engine.BQProject == "" {
		return usageError(errors.New("--engine bigquery needs --bq-project or --project: the project BigQuery runs the query in"))
	}
	if o.Engine.PrintDDL {
		return o.printDDL(cmd.Context())
	}
	if err := checkLogFormats(o.EnvoyFormat, o.NginxFormat); err != nil {
		return err
	}
	if err := o.parseProxyLogs(); err != nil {
		return err
	}
	ctx := cmd.Context()
	srcs, skipped, errs := o.liveSources(ctx)
	names := sortedKeys(srcs)
	total := len(srcs) + len(errs)
	if o.DryRun {
		fmt.Fprintf(o.Out, "window: %s\n", w)
		for _, name := range names {
			for _, q := range srcs[name].Plan(w) {
				fmt.Fprintf(o.Out, "%s: %s\n", name, q)
			}
		}
		return reportErrors(o.ErrOut, errs, total)
	}
	if len(srcs) == 0 {
		reportErrors(o.ErrOut, errs, total)
		return usageError(errors.New("no source configured: give --project, --alb-logs, --log-group, --proxy-logs or a kubeconfig"))
	}
	dir, cleanup, err := bundleDir(o.Save)
	if err != nil {
		return err
	}
	defer cleanup()
	// The bundle says it is being written before anything else is, and
	// that it is complete only once everything is: a fetch killed between
	// the two (kill -9, the OOM killer) leaves a bundle that analyze
	// refuses to judge.
	man := &bundle.Manifest{State: bundle.StateInProgress, Created: o.Now().UTC(), Since: w.Since, Until: w.Until, Skipped: skipped}
	if err := bundle.WriteManifest(dir, man); err != nil {
		return err
	}
	// The ALB objects are read as they arrive: parsing overlaps the
	// download instead of following it.
	popts := pipeline.Options{Read: sources.Options{EnvoyFormat: o.EnvoyFormat, NginxFormat: o.NginxFormat}, KubeVersion: o.KubeVersion.v}
	if logs, ok := srcs[live.SourceS3ALB].(*live.ALBLogs); ok {
		early, err := pipeline.NewEarly(ctx, popts)
		if err != nil {
			return err
		}
		defer early.Close()
		logs.Done, popts.Early = early.Add, early
	}
	prog := newProgressLine(o.ErrOut, o.Terminal, o.Quiet)
	reps := make([]bundle.FetchReport, len(names))
	fetchErrs := make([]error, len(names))
	var wg safego.Group // a fetcher's panic reaches harden's recovery
	for i, name := range names {
		wg.Go(func() {
			reps[i], fetchErrs[i] = srcs[name].Fetch(ctx, w, dir, prog.update)
			prog.done(name, reps[i], fetchErrs[i])
		})
	}
	wg.Wait()
	prog.finish()
	man.Sources = reps
	for _, err := range fetchErrs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, e := range errs {
		man.Errors = append(man.Errors, e.Error())
	}
	man.Interrupted = ctx.Err() != nil
	man.State = bundle.StateComplete
	if err := bundle.WriteManifest(dir, man); err != nil {
		return err
	}
	if ctx.Err() != nil {
		if o.Save != "" {
			return fmt.Errorf("interrupted: what was fetched is kept in %s (its manifest says what is missing)", o.Save)
		}
		return errors.New("interrupted")
	}
	failed := reportErrors(o.ErrOut, errs, total)
	if !fetchedAny(man.Sources) {
		if failed != nil {
			return failed
		}
		return fmt.Errorf("no data in %s from any source", w)
	}
	rep, err := pipeline.Analyze(ctx, []string{dir}, popts)
	if err != nil {
		return err
	}
	// A failed source is the first thing to fix: it exits 1 even when the
	// report cannot judge (which the report's headline says) or found an
	// incident.
	if err := writeReport(o.Out, o.Output, rep, o.ExitCode); err != nil && failed == nil {
		return err
	}
	return failed
}

// checkTimeouts refuses timeouts that are not positive.
func (o *triageOptions) checkTimeouts() error {
	for _, t := range []struct {
		flag string
		d    time.Duration
	}{{"--connect-timeout", o.Timeouts.Connect}, {"--response-timeout", o.Timeouts.Response}, {"--idle-timeout", o.Timeouts.Idle}, {"--source-timeout", o.Timeouts.Source}} {
		if t.d <= 0 {
			return usageError(fmt.Errorf("%s must be positive, not %s", t.flag, t.d))
		}
	}
	return nil
}

// parseProxyLogs reads the --proxy-logs targets and --proxy-logs-limit.
func (o *triageOptions) parseProxyLogs() error {
	for _, s := range o.ProxyLogs {
		t, err := live.ParseProxyTarget(s)
		if err != nil {
			return usageError(fmt.Errorf("--proxy-logs %w", err))
		}
		o.proxyTargets = append(o.proxyTargets, t)
	}
	q, err := resource.ParseQuantity(o.ProxyLogsLimit)
	if err != nil || q.Sign() <= 0 {
		return usageError(fmt.Errorf("--proxy-logs-limit %q: want a positive size such as 256Mi or 1Gi", o.ProxyLogsLimit))
	}
	o.proxyLimit = q.Value()
	return nil
}

// fetchedAny reports whether any source saved a file (a bundle holds no
// empty files).
func fetchedAny(reps []bundle.FetchReport) bool {
	for _, r := range reps {
		if len(r.Files) > 0 {
			return true
		}
	}
	return false
}

// reportErrors prints one line per failing source and returns an error
// that says how many of total sources failed, or nil.
func reportErrors(w io.Writer, errs []error, total int) error {
	for _, e := range errs {
		fmt.Fprintf(w, "error: %s\n", report.Sanitize(strings.Join(strings.Fields(e.Error()), " ")))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d sources failed (see above)", len(errs), total)
}

// bundleDir returns the directory to fetch into: save (created, and
// refused unless empty) or a temporary one that cleanup removes.
func bundleDir(save string) (dir string, cleanup func(), err error) {
	if save == "" {
		dir, err := os.MkdirTemp("", "readygap-triage-")
		return dir, func() { os.RemoveAll(dir) }, err
	}
	if err := os.MkdirAll(save, 0o755); err != nil {
		return "", nil, err
	}
	if ents, err := os.ReadDir(save); err != nil || len(ents) > 0 {
		return "", nil, usageError(fmt.Errorf("--save %s: the directory is not empty; give a new one", save))
	}
	return save, func() {}, nil
}

// sourceOrder is the order in which the sources are run and shown.
var sourceOrder = []string{live.SourceGCPLogging, live.SourceBigQueryGCP, live.SourceS3ALB, live.SourceAthenaALB, live.SourceCloudWatch, live.SourceKubernetes, live.SourceProxyLogs}

// sortedKeys returns the names of the sources in a stable order.
func sortedKeys(m map[string]liveSource) []string {
	var out []string
	for _, name := range sourceOrder {
		if m[name] != nil {
			out = append(out, name)
		}
	}
	return out
}

// progressLine shows the running state of every source on standard error:
// one line redrawn in place on a terminal, a line per finished source and
// per retry episode otherwise, nothing when quiet.
type progressLine struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	quiet    bool
	states   map[string]live.ProgressState
	last     time.Time
}

func newProgressLine(w io.Writer, terminal, quiet bool) *progressLine {
	return &progressLine{w: w, terminal: terminal, quiet: quiet, states: map[string]live.ProgressState{}}
}

// update records a source's state and redraws the terminal line at most
// ten times a second; off a terminal it prints a line when a source starts
// waiting for retries.
func (p *progressLine) update(source string, s live.ProgressState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	prev := p.states[source]
	p.states[source] = s
	if p.quiet {
		return
	}
	if !p.terminal {
		if s.Retrying != "" && prev.Retrying == "" {
			fmt.Fprintf(p.w, "%s: %s\n", source, report.Sanitize(s.Retrying))
		}
		return
	}
	if time.Since(p.last) < 100*time.Millisecond && (s.Retrying == "") == (prev.Retrying == "") {
		return
	}
	p.last = time.Now()
	var parts []string
	for _, name := range sourceOrder {
		if t, ok := p.states[name]; ok {
			part := fmt.Sprintf("%s %d (%s)", name, t.Records, words.Bytes(t.Bytes))
			if t.Retrying != "" {
				part += " " + t.Retrying
			}
			parts = append(parts, part)
		}
	}
	fmt.Fprintf(p.w, "\r\x1b[Kfetching: %s", report.Sanitize(strings.Join(parts, " · ")))
}

// done prints what a source saved; a failed source's error is printed
// later with the others.
func (p *progressLine) done(source string, rep bundle.FetchReport, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet {
		return
	}
	if p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	if err != nil && rep.Records == 0 {
		return
	}
	unit := "record"
	switch source {
	case live.SourceS3ALB:
		unit = "object"
	case live.SourceProxyLogs:
		unit = "line"
	}
	line := fmt.Sprintf("%s: %s, %s in %s", source, words.Plural(rep.Records, unit), words.Bytes(rep.Bytes), words.Plural(len(rep.Files), "file"))
	if missing, of := incompleteItems(rep); missing > 0 {
		line += fmt.Sprintf(" (%d of %d %s incomplete)", missing, of, itemNoun(rep))
	}
	fmt.Fprintln(p.w, line)
	for _, n := range rep.Notes {
		fmt.Fprintf(p.w, "%s: %s\n", source, report.Sanitize(n))
	}
}

// incompleteItems counts the items of a report's main kind (the last one
// listed: objects after listings) that are not complete.
func incompleteItems(rep bundle.FetchReport) (missing, of int) {
	if len(rep.Items) == 0 {
		return 0, 0
	}
	kind := rep.Items[len(rep.Items)-1].Kind
	for _, it := range rep.Items {
		if it.Kind == kind {
			of++
			if it.Status != bundle.ItemComplete && !it.Optional {
				missing++
			}
		}
	}
	return missing, of
}

// itemNoun is the plural of the kind of a report's last item.
func itemNoun(rep bundle.FetchReport) string {
	if len(rep.Items) == 0 {
		return "items"
	}
	if kind := rep.Items[len(rep.Items)-1].Kind; strings.HasSuffix(kind, "y") {
		return strings.TrimSuffix(kind, "y") + "ies"
	} else {
		return kind + "s"
	}
}

// finish clears the terminal line.
func (p *progressLine) finish() {
	if !p.quiet && p.terminal {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

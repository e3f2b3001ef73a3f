package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/pipeline"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/spf13/cobra"
)

// mcpOptions holds what `readygap mcp` needs.
type mcpOptions struct {
	// AllowTriage exposes the triage tool, which reaches the user's cloud
	// accounts and cluster with their credentials.
	AllowTriage bool
}

// newMCPCmd serves readygap's commands as tools of a Model Context Protocol
// server over standard input and output.
func newMCPCmd() *cobra.Command {
	opts := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve analyze and check as Model Context Protocol tools over stdio",
		Long: `Run a Model Context Protocol server on standard input and output, for an
assistant to call readygap. Its tools return the JSON contracts of the
commands (readygap/v1, readygap-check/v1):

  analyze  paths of exported logs, events and objects (files or folders)
  check    paths of Kubernetes manifests

With --allow-triage it also offers triage, which fetches live data with the
credentials of the user running the server (Cloud Logging, S3, CloudWatch
Logs, the cluster): give it only to an assistant you let do that.`,
		Example: `  # in an MCP client's configuration: command "readygap", args ["mcp"]
  readygap mcp

  # let the assistant fetch live data too
  readygap mcp --allow-triage`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return newMCPServer(opts).Run(cmd.Context(), &mcp.StdioTransport{})
		},
	}
	cmd.Flags().BoolVar(&opts.AllowTriage, "allow-triage", false, "also offer the triage tool, which reads live data with your credentials")
	return cmd
}

// mcpAnalyzeInput is the analyze tool's arguments.
type mcpAnalyzeInput struct {
	Paths       []string `json:"paths" jsonschema:"files and folders of exported load-balancer or proxy logs, Kubernetes events and objects, read as by readygap analyze"`
	Since       string   `json:"since,omitempty" jsonschema:"keep records at or after this time: RFC 3339, or a duration back from now such as 30m"`
	Until       string   `json:"until,omitempty" jsonschema:"keep records before this time (same forms as since)"`
	TZ          string   `json:"tz,omitempty" jsonschema:"time zone of log times written without one (default UTC)"`
	EnvoyFormat string   `json:"envoy_format,omitempty" jsonschema:"the Envoy access-log format of Envoy logs in a custom format"`
}

// mcpCheckInput is the check tool's arguments.
type mcpCheckInput struct {
	Paths  []string `json:"paths" jsonschema:"files and folders of Kubernetes manifests (YAML or JSON, multi-document, Lists)"`
	FailOn string   `json:"fail_on,omitempty" jsonschema:"the severity that sets summary.failed: error (default), warning or none"`
}

// mcpTriageInput is the triage tool's arguments.
type mcpTriageInput struct {
	Args []string `json:"args" jsonschema:"the flags of readygap triage, one argument each, e.g. [\"--project\", \"shop-prod\", \"--since\", \"30m\"]"`
}

// newMCPServer builds the server and its tools.
func newMCPServer(opts *mcpOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "readygap", Version: currentVersion().Version}, nil)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mcp.AddTool(s, &mcp.Tool{
		Name:  "analyze",
		Title: "Explain load-balancer 502/503s during a rollout",
		Description: "Read exported load-balancer or proxy request logs, Kubernetes events and objects, and name the mechanism " +
			"behind each incident of 502/503s (" + causeList() + ") with its evidence, count, window and manifest fix. " +
			"Returns the readygap/v1 JSON report.",
		Annotations: readOnly,
	}, mcpAnalyze)
	mcp.AddTool(s, &mcp.Tool{
		Name:  "check",
		Title: "Find rollout risks in Kubernetes manifests",
		Description: "Read Kubernetes manifests and report, per workload, the settings that make a rollout fail requests " +
			"behind a load balancer, with the numbers and the patch. Returns the readygap-check/v1 JSON report.",
		Annotations: readOnly,
	}, mcpCheck)
	if opts.AllowTriage {
		openWorld := true
		mcp.AddTool(s, &mcp.Tool{
			Name:  "triage",
			Title: "Fetch an incident window live and explain it",
			Description: "Fetch the incident window from Cloud Logging, S3, CloudWatch Logs and the Kubernetes API with the " +
				"credentials of the user running the server, then analyze it. Takes the flags of readygap triage. " +
				"Returns the readygap/v1 JSON report and the fetch's messages.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &openWorld},
		}, mcpTriage)
	}
	return s
}

// errNoStdin refuses "-": standard input carries the protocol.
var errNoStdin = errors.New(`"-" (standard input) is the MCP connection here; give file or folder paths`)

// mcpPaths checks a tool's paths.
func mcpPaths(paths []string) error {
	if len(paths) == 0 {
		return errors.New("paths is empty: give at least one file or folder")
	}
	for _, p := range paths {
		if p == "-" {
			return errNoStdin
		}
	}
	return nil
}

// mcpAnalyze runs analyze on the paths and returns the JSON report.
func mcpAnalyze(ctx context.Context, _ *mcp.CallToolRequest, in mcpAnalyzeInput) (*mcp.CallToolResult, any, error) {
	if err := mcpPaths(in.Paths); err != nil {
		return nil, nil, err
	}
	o := &analyzeOptions{Since: in.Since, Until: in.Until, TZ: in.TZ, EnvoyFormat: in.EnvoyFormat, Now: time.Now}
	if o.TZ == "" {
		o.TZ = "UTC"
	}
	ropts, err := o.readOptions()
	if err != nil {
		return nil, nil, err
	}
	rep, err := pipeline.Analyze(ctx, in.Paths, pipeline.Options{Read: ropts})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := report.Write(&b, report.JSON, rep); err != nil {
		return nil, nil, err
	}
	return jsonResult(b.Bytes(), "")
}

// mcpCheck runs check on the paths and returns the JSON report.
func mcpCheck(ctx context.Context, _ *mcp.CallToolRequest, in mcpCheckInput) (*mcp.CallToolResult, any, error) {
	if err := mcpPaths(in.Paths); err != nil {
		return nil, nil, err
	}
	failOn := failOnFlag(classify.SeverityError)
	if in.FailOn != "" {
		if err := failOn.Set(in.FailOn); err != nil {
			return nil, nil, fmt.Errorf("fail_on: %w", err)
		}
	}
	rep, err := pipeline.Check(ctx, in.Paths, pipeline.CheckOptions{Read: sources.Options{}, FailOn: failOn.severity()})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	if err := report.WriteCheck(&b, report.CheckJSON, rep); err != nil {
		return nil, nil, err
	}
	return jsonResult(b.Bytes(), "")
}

// mcpTriage runs the triage command with the given flags, JSON output and
// no progress, and returns its report and its messages.
func mcpTriage(ctx context.Context, _ *mcp.CallToolRequest, in mcpTriageInput) (*mcp.CallToolResult, any, error) {
	for _, a := range in.Args {
		if a == "-o" || strings.HasPrefix(a, "--output") || strings.HasPrefix(a, "-o") {
			return nil, nil, errors.New("args: leave out --output: the tool always returns JSON")
		}
	}
	var out, errOut bytes.Buffer
	cmd := newTriageCmd(nil)
	cmd.SetArgs(append(append([]string{}, in.Args...), "--output", "json", "--quiet"))
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(ctx)
	msgs := strings.TrimSpace(errOut.String())
	if err != nil && exitCode(err) != exitIncident {
		msgs = strings.TrimSpace(msgs + "\n" + err.Error())
	}
	if out.Len() == 0 || !json.Valid(out.Bytes()) {
		if msgs == "" {
			msgs = strings.TrimSpace(out.String())
		}
		return nil, nil, errors.New(sanitizeLines(msgs))
	}
	return jsonResult(out.Bytes(), msgs)
}

// jsonResult returns a command's JSON document as the tool's structured
// content and as text, with its messages (warnings on stderr) after it.
func jsonResult(doc []byte, msgs string) (*mcp.CallToolResult, any, error) {
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(doc)}},
		StructuredContent: json.RawMessage(doc),
	}
	if msgs != "" {
		res.Content = append(res.Content, &mcp.TextContent{Text: sanitizeLines(msgs)})
	}
	return res, nil, nil
}

// sanitizeLines makes each line of s safe to show (report.Sanitize), and
// keeps the lines.
func sanitizeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = report.Sanitize(l)
	}
	return strings.Join(lines, "\n")
}

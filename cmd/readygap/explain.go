package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/spf13/cobra"
)

// explainOptions holds what `readygap explain` needs.
type explainOptions struct {
	Items  []string
	Output string
	In     io.Reader
	Out    io.Writer
}

// explainFormats are the values of explain's --output.
var explainFormats = []string{"text", "json"}

// newExplainCmd wires the explain command. runF, when not nil, replaces
// explainRun so tests can check the parsed options.
func newExplainCmd(runF func(*explainOptions) error) *cobra.Command {
	opts := &explainOptions{Output: "text"}
	cmd := &cobra.Command{
		Use:   "explain [VALUE|LINE]...",
		Short: "Say what a response flag, status detail or log line means, and what to export to decide",
		Long: `Explain one value or log line per argument, or per line of standard input
(none, or "-"): an Envoy/Istio response flag (UH, UF, UC, URX, NR, UAEX ...) or
list of them (UF,URX), a response code detail
(upstream_reset_before_response_started{connection_failure}), a GCP load
balancer statusDetails or proxyStatus value, an nginx error message, or a
whole line readygap reads (ALB, Envoy, ingress-nginx access or error lines).

For each: what it means (with its documentation), who generated the response
(the load balancer or the application), which of readygap's mechanisms it is
consistent with and which it rules out, and the commands that export what
would decide. The meanings and classifications are those analyze uses.
Exits 1 when none of the inputs is a value or line readygap knows.`,
		Example: `  # a flag seen in an Istio access log
  readygap explain UF,URX

  # a GCP load balancer's statusDetails
  readygap explain failed_to_pick_backend

  # ALB access lines pasted into a file, one a line
  readygap explain < alb-lines.txt

  # nginx error lines from a pipe, as JSON
  kubectl logs -n ingress-nginx deploy/ingress-nginx-controller \
    | grep upstream | readygap explain -o json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Items = args
			opts.In = cmd.InOrStdin()
			opts.Out = cmd.OutOrStdout()
			if !slices.Contains(explainFormats, opts.Output) {
				return usageError(fmt.Errorf("--output: must be one of %s", strings.Join(explainFormats, ", ")))
			}
			if runF != nil {
				return runF(opts)
			}
			return explainRun(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: "+strings.Join(explainFormats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(explainFormats, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// explanation is what explain says of one input; its JSON form is the
// output of -o json.
type explanation struct {
	Input string `json:"input"`
	// ReadAs is the format a whole line was read as; "" for a value.
	ReadAs   string           `json:"read_as,omitempty"`
	Requests []explainRequest `json:"requests,omitempty"`
	Meanings []explainMeaning `json:"meanings"`
	// Known is false for an input readygap knows nothing of.
	Known bool `json:"known"`
	// ConsistentWith and RulesOut are cause ids; Export the commands.
	// Caveat qualifies ConsistentWith when a value names no failure of
	// its own (readygap counts it as "other").
	ConsistentWith []string `json:"consistent_with"`
	Caveat         string   `json:"caveat,omitempty"`
	RulesOut       []string `json:"rules_out"`
	Export         []string `json:"export"`
}

// explainRequest is one request outcome a line holds.
type explainRequest struct {
	Status    int    `json:"status"`
	Generator string `json:"generator"`
	Failure   string `json:"failure"`
	Means     string `json:"means"`
	Backend   string `json:"backend,omitempty"`
	Detail    string `json:"detail,omitempty"`
}

// explainMeaning is one value's meaning.
type explainMeaning struct {
	Field     string `json:"field"`
	Value     string `json:"value"`
	Means     string `json:"means"`
	Generator string `json:"generator"`
	Failure   string `json:"failure"`
	Doc       string `json:"doc"`
}

// explainRun explains each input and writes the result.
func explainRun(opts *explainOptions) error {
	items := opts.Items
	if len(items) == 0 || len(items) == 1 && items[0] == "-" {
		items = nil
		sc := bufio.NewScanner(opts.In)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" {
				items = append(items, l)
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
	var out []explanation
	known := 0
	for _, it := range items {
		e := explainOne(it)
		if e.Known {
			known++
		}
		out = append(out, e)
	}
	if opts.Output == "json" {
		enc := json.NewEncoder(opts.Out)
		enc.SetIndent("", "  ")
		if out == nil {
			out = []explanation{}
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		for i, e := range out {
			if i > 0 {
				fmt.Fprintln(opts.Out)
			}
			writeExplanation(opts.Out, &e)
		}
	}
	if known == 0 {
		return errors.New("nothing to explain: none of the inputs is a value or line readygap knows")
	}
	return nil
}

// explainOne explains one input: a whole line an adapter reads, else a value.
func explainOne(item string) explanation {
	e := explanation{Input: item, Meanings: []explainMeaning{}, ConsistentWith: []string{}, RulesOut: []string{}, Export: []string{}}
	var kinds []sources.FailureKind
	families := map[sources.Family]bool{}
	var meanings []sources.Meaning
	if lo := sources.ReadLine(item); lo.Format != "" {
		e.ReadAs = string(lo.Format)
		families[sources.FamilyOf(lo.Format)] = true
		for _, r := range lo.Requests {
			er := explainRequest{Status: r.Status, Generator: r.Generator.String(), Failure: r.Failure.String(), Means: r.Failure.Means(), Detail: r.Detail}
			if r.Backend.IsValid() {
				er.Backend = r.Backend.String()
			}
			e.Requests = append(e.Requests, er)
			kinds = append(kinds, r.Failure)
		}
		// The flags and details the line holds.
		for _, tok := range strings.Fields(item) {
			meanings = append(meanings, sources.LookupMeanings(tok)...)
		}
		if len(lo.Requests) > 0 && lo.Requests[0].Detail != "" {
			meanings = append(meanings, sources.LookupMeanings(lo.Requests[0].Detail)...)
		}
	} else {
		meanings = sources.LookupMeanings(item)
		for _, m := range meanings {
			kinds = append(kinds, m.Failure)
			families[m.Family] = true
		}
	}
	seen := map[string]bool{}
	for _, m := range meanings {
		if key := m.Field + "\x00" + m.Value; !seen[key] {
			seen[key] = true
			e.Meanings = append(e.Meanings, explainMeaning{Field: m.Field, Value: m.Value, Means: m.Means,
				Generator: m.Generator.String(), Failure: m.Failure.String(), Doc: m.Doc})
		}
	}
	e.Known = e.ReadAs != "" || len(e.Meanings) > 0
	if !e.Known {
		return e
	}
	if slices.Contains(kinds, sources.FailureOther) && !slices.ContainsFunc(kinds, func(k sources.FailureKind) bool { return k != sources.FailureOther && k.LBGenerated() }) {
		e.Caveat = "readygap counts it as \"other\": the mechanisms listed take any failure on the way to a backend, but the value itself names none; its meaning above says more"
	}
	consistent := map[string]bool{}
	for _, k := range kinds {
		c, _ := classify.ConsistentWith(k)
		for _, x := range c {
			consistent[x.ID] = true
		}
	}
	for _, r := range classify.Rules {
		if c := r.Cause(); consistent[c.ID] {
			e.ConsistentWith = append(e.ConsistentWith, c.ID)
		} else {
			e.RulesOut = append(e.RulesOut, r.Cause().ID)
		}
	}
	for _, f := range []sources.Family{sources.FamilyGCP, sources.FamilyALB, sources.FamilyEnvoy, sources.FamilyIngressNginx, sources.FamilyNginx} {
		if families[f] {
			e.Export = append(e.Export, sources.HowToGet(f)...)
		}
	}
	e.Export = append(e.Export, sources.HowToGet(sources.FamilyKubernetes)...)
	return e
}

// writeExplanation writes one explanation as text.
func writeExplanation(w io.Writer, e *explanation) {
	fmt.Fprintln(w, report.Sanitize(e.Input))
	if !e.Known {
		fmt.Fprintln(w, "  not a value or line readygap knows: see `readygap explain --help` for what it explains")
		return
	}
	if e.ReadAs != "" {
		fmt.Fprintf(w, "  read as %s\n", e.ReadAs)
		if len(e.Requests) == 0 {
			fmt.Fprintln(w, "  a valid line that holds no request outcome")
		}
	}
	for _, r := range e.Requests {
		fmt.Fprintf(w, "  status %d, generated by %s: %s (%s)\n", r.Status, generatorWords(r.Generator), r.Failure, r.Means)
		if r.Backend != "" {
			fmt.Fprintf(w, "  backend %s\n", r.Backend)
		}
		if r.Detail != "" {
			fmt.Fprintf(w, "  detail %s\n", report.Sanitize(r.Detail))
		}
	}
	for _, m := range e.Meanings {
		fmt.Fprintf(w, "  %s %s: %s\n", m.Field, m.Value, m.Means)
		fmt.Fprintf(w, "    a 5xx with it is generated by %s; readygap counts it as %s\n", generatorWords(m.Generator), m.Failure)
		fmt.Fprintf(w, "    %s\n", m.Doc)
	}
	fmt.Fprintf(w, "  consistent with: %s\n", explainCauses(e.ConsistentWith, "no mechanism readygap knows (the application's own answer, or no failure)"))
	if e.Caveat != "" {
		fmt.Fprintf(w, "    (%s)\n", e.Caveat)
	}
	fmt.Fprintf(w, "  rules out: %s\n", explainCauses(e.RulesOut, "none"))
	fmt.Fprintln(w, "  to decide, export and run `readygap analyze` on:")
	for _, x := range e.Export {
		fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(x, "`", ""))
	}
}

// generatorWords says who generated a response, from Generator.String().
func generatorWords(g string) string {
	switch g {
	case "lb":
		return "the load balancer or proxy"
	case "backend":
		return "the application"
	}
	return "an unknown party"
}

// explainCauses names causes by their names, or says none.
func explainCauses(ids []string, none string) string {
	if len(ids) == 0 {
		return none
	}
	var names []string
	for _, id := range ids {
		if c, ok := classify.CauseByID(id); ok {
			names = append(names, c.Name+" ("+id+")")
		}
	}
	return strings.Join(names, ", ")
}

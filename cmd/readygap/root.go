package main

import (
	"io"
	"strings"

	"github.com/readygap/readygap/classify"
	"github.com/spf13/cobra"
)

// newRootCmd builds the readygap command tree with the given streams.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "readygap",
		Short: "Explain 502/503s during Kubernetes rolling updates from LB logs and events",
		Long: `readygap lines up load-balancer request logs and Kubernetes events on one
timeline per pod and says which mechanism made the load balancer answer 502/503
during a rollout: ` + causeList() + `.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(newAnalyzeCmd(nil))
	root.AddCommand(newTriageCmd(nil))
	root.AddCommand(newExitCodesTopic())
	return root
}

// newExitCodesTopic documents the exit codes as a help topic
// (`readygap help exit-codes`).
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "Exit codes readygap uses",
		Long: `readygap exits with:

  0  the command worked (no incident found, or --exit-code not given)
  1  an error: unreadable input, no input in a known format, failed API call
  2  a mistake in the command line: unknown flag, bad time or output format
  3  with --exit-code: the analysis found an incident`,
	}
}

// causeList names the causes the rules know, for the help text.
func causeList() string {
	var names []string
	for _, c := range classify.Causes() {
		if c.ID != "unknown" {
			names = append(names, c.Name)
		}
	}
	if len(names) > 1 {
		names[len(names)-1] = "or " + names[len(names)-1]
	}
	return strings.Join(names, ", ")
}

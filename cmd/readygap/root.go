package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/internal/safego"
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
		// cobra's own default, which it applies only to the errors it makes.
		SuggestionsMinimumDistance: 2,
		// Taking the arguments here, rather than leaving cobra to reject
		// them, makes an unknown command a usage error with a suggestion.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return unknownCommand(cmd, args[0])
		},
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(newAnalyzeCmd(nil))
	root.AddCommand(newTriageCmd(nil))
	root.AddCommand(newReduceCmd(nil))
	root.AddCommand(newCheckCmd(nil))
	root.AddCommand(newExplainCmd(nil))
	root.AddCommand(newRenderCmd(nil))
	root.AddCommand(newMCPCmd())
	root.AddCommand(newVersionCmd())
	root.AddCommand(newExitCodesTopic())
	setVersion(root)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	harden(root)
	return root
}

// unknownCommand is the usage error for a command readygap does not have,
// with the closest ones as a suggestion.
func unknownCommand(root *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if s := root.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", strings.Join(s, `" or "`))
	} else {
		var names []string
		for _, c := range root.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		msg += "; the commands are " + strings.Join(names, ", ")
	}
	return usageError(fmt.Errorf("%s", msg))
}

// harden makes every command of the tree keep the exit-code promises: a
// rejected argument list is a usage error (cobra's validators return plain
// errors), and a panic is an internal error with exit code 1, never the
// runtime's 2 (worker goroutines carry theirs here, see safego).
func harden(c *cobra.Command) {
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				if errors.As(err, new(*codedError)) {
					return err
				}
				return usageError(err)
			}
			return nil
		}
	}
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, a []string) (err error) {
			defer func() {
				if r := recover(); r != nil {
					stack := debug.Stack()
					if p, ok := r.(*safego.Panic); ok { // a worker's, with its own stack
						r, stack = p.Value, p.Stack
					}
					err = internalError(r, stack)
				}
			}()
			return run(cmd, a)
		}
	}
	for _, sub := range c.Commands() {
		harden(sub)
	}
}

// stackLines bounds the stack printed with an internal error: enough to
// find the failing function in a bug report.
const stackLines = 24

// internalError turns a recovered panic into an error for exit code 1.
func internalError(r any, stack []byte) error {
	lines := strings.Split(strings.TrimSpace(string(stack)), "\n")
	if len(lines) > stackLines {
		lines = append(lines[:stackLines], "…")
	}
	return &codedError{code: exitError, err: fmt.Errorf("internal error: %v\nthis is a bug in readygap; please report it with the command line and this stack:\n%s",
		r, strings.Join(lines, "\n"))}
}

// newExitCodesTopic documents the exit codes as a help topic
// (`readygap help exit-codes`), from the same table as docs/exit-codes.md.
func newExitCodesTopic() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "Exit codes readygap uses",
		Long:  exitCodesHelp(),
	}
}

// exitCodesHelp renders exitCodes for the help topic.
func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("readygap exits with:\n")
	for _, c := range exitCodes {
		fmt.Fprintf(&b, "\n  %d  %s", c.Code, strings.ReplaceAll(c.Meaning, "`", ""))
	}
	return b.String()
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

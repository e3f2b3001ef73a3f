// Command readygap explains why users got 502/503 from a load balancer during
// a Kubernetes rolling update, from the load-balancer logs and the Kubernetes
// events of the rollout.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/fang"
	"github.com/readygap/readygap/report"
	"golang.org/x/term"
)

// Exit codes. exitCodes documents them; `readygap help exit-codes` and the
// table of docs/exit-codes.md are made from it.
const (
	exitOK        = 0
	exitError     = 1
	exitUsage     = 2
	exitIncident  = 3
	exitNoRecord  = 4
	exitRisk      = 5
	exitNotJudged = 6
)

// exitCodes is the one table of exit codes, in order. Meanings are Markdown
// (the table of docs/exit-codes.md); the help topic prints them without backticks. Only a
// mistake in the command line exits 2: the Go runtime also exits 2 when it
// dies (an unrecovered panic, a failed allocation), which is why commands
// recover their own panics, and their workers' (internal/safego), into exit 1.
var exitCodes = []struct {
	Code    int
	Meaning string
}{
	{exitOK, "the command worked (no incident found, or `--exit-code` not given)"},
	{exitError, "an error: a path that does not exist, a failed API call, an internal failure; `explain`: no input is a value or line it knows; `render`: the input is no readygap report of a schema it knows"},
	{exitUsage, "a mistake in the command line: unknown command, flag or value (bad time, time zone, output format, `--envoy-format` or `--nginx-format`, missing `PATH`); a suggestion follows"},
	{exitIncident, "with `--exit-code`: the analysis found an incident"},
	{exitNoRecord, "`--since`/`--until` left no record with a time; the warning gives the time range the data has"},
	{exitRisk, "`check`: a finding, or something not judged, at or above `--fail-on` (default `error`: an input or document not read is an error, a workload without its Service, Ingress or Gateway a warning; `--fail-on none` never exits 5)"},
	{exitNotJudged, "`analyze`, `triage`: the report was written but cannot judge, and its headline says why: no request log was read (inputs unreadable or in no known format, or only events and objects), the request logs miss a rollout the other inputs show, or a triage bundle whose fetch never finished; it comes before 3"},
}

func main() { os.Exit(runMain()) }

// runMain runs the command line of the process and returns its exit code.
func runMain() int {
	setMemoryLimit()
	root := newRootCmd(os.Stdin, os.Stdout, os.Stderr)
	if invokedAsPlugin(os.Args[0]) {
		asKubectlPlugin(root)
	}
	err := fang.Execute(context.Background(), root, fang.WithoutVersion(),
		fang.WithNotifySignal(os.Interrupt, syscall.SIGTERM), fang.WithErrorHandler(printError))
	return exitCode(err)
}

// exitCode maps the error a command returned to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitError
}

// printError writes a command's error for a person: file names keep their
// case, control characters in them are made visible line by line, and a
// mistake in the command line points at --help. An exit code that reports
// a finding (3, 5) is no error: its one line is printed plain. The ERROR
// box is drawn only on a terminal; piped, the lines are plain, with no
// padding.
func printError(w io.Writer, styles fang.Styles, err error) {
	code := exitCode(err)
	if code == exitIncident || code == exitRisk {
		fmt.Fprintf(w, "%s (exit code %d)\n", report.Sanitize(strings.Join(strings.Fields(err.Error()), " ")), code)
		return
	}
	lines := strings.Split(strings.TrimRight(err.Error(), "\n"), "\n")
	for i, line := range lines {
		line = report.Sanitize(strings.ReplaceAll(line, "\t", "  "))
		if i == len(lines)-1 && !strings.HasSuffix(line, ".") && !strings.HasSuffix(line, "?") {
			line += "."
		}
		lines[i] = line
	}
	if code == exitUsage {
		lines = append(lines, "Try --help for usage.")
	}
	if !isTerminal(w) {
		lines[0] = "Error: " + lines[0]
		fmt.Fprintln(w, strings.Join(lines, "\n"))
		return
	}
	fmt.Fprintln(w, styles.ErrorHeader.String())
	text := styles.ErrorText.UnsetTransform().UnsetWidth()
	for _, line := range lines {
		fmt.Fprintln(w, text.Render(line))
	}
	fmt.Fprintln(w)
}

// isTerminal reports whether w writes to a terminal, through the colour
// profile writer fang wraps standard error in.
func isTerminal(w io.Writer) bool {
	if cw, ok := w.(*colorprofile.Writer); ok {
		w = cw.Forward
	}
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// codedError is an error that asks for a specific exit code.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageError marks err as a mistake in the command line.
func usageError(err error) error { return &codedError{code: exitUsage, err: err} }

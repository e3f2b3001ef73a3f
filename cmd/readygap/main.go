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
	"syscall"

	"github.com/charmbracelet/fang"
	"github.com/readygap/readygap/report"
)

// Exit codes, documented in `readygap help exit-codes` and the README.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitIncident = 3
)

func main() {
	root := newRootCmd(os.Stdin, os.Stdout, os.Stderr)
	err := fang.Execute(context.Background(), root,
		fang.WithNotifySignal(os.Interrupt, syscall.SIGTERM), fang.WithErrorHandler(printError))
	os.Exit(exitCode(err))
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
// case, control characters in them are made visible, and a mistake in the
// command line points at --help.
func printError(w io.Writer, styles fang.Styles, err error) {
	fmt.Fprintln(w, styles.ErrorHeader.String())
	fmt.Fprintln(w, styles.ErrorText.UnsetTransform().Render(report.Sanitize(err.Error())+"."))
	if exitCode(err) == exitUsage {
		fmt.Fprintln(w, styles.ErrorText.UnsetTransform().Render("Try --help for usage."))
	}
	fmt.Fprintln(w)
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

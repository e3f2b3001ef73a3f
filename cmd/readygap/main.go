// Command readygap explains why users got 502/503 from a load balancer during
// a Kubernetes rolling update, from the load-balancer logs and the Kubernetes
// events of the rollout.
package main

import (
	"context"
	"errors"
	"os"
	"syscall"

	"github.com/charmbracelet/fang"
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
	err := fang.Execute(context.Background(), root, fang.WithNotifySignal(os.Interrupt, syscall.SIGTERM))
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

// codedError is an error that asks for a specific exit code.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// usageError marks err as a mistake in the command line.
func usageError(err error) error { return &codedError{code: exitUsage, err: err} }

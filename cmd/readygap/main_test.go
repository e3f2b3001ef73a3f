package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/fang"
)

func TestPrintErrorKeepsCaseAndEscapesControls(t *testing.T) {
	var b bytes.Buffer
	printError(&b, fang.Styles{}, usageError(errors.New("<stdin>: bad \x1b[31mname")))
	out := b.String()
	if strings.Contains(out, "\x1b[31m") || !strings.Contains(out, `<stdin>: bad \x1b[31mname`) || !strings.Contains(out, "Try --help") {
		t.Fatalf("error output %q", out)
	}
}

package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/fang"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpExampleWidth is the widest example line, its two-space indent
// included, that fang shows whole in a terminal of 80 columns: it draws
// examples in a block with a left margin of 2 and a padding of 2 either
// side, puts its own indent in place of the line's, and cuts a wider line
// with "…" (help.go of fang v1.0.0; measured: 74 columns pass, 75 are cut).
const helpExampleWidth = 80 - 2 - 2*2 + 2

// walkCommands calls f on c and every command below it.
func walkCommands(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walkCommands(sub, f)
	}
}

// TestHelpExamplesFitEightyColumns checks that no example is cut with "…"
// in a terminal of 80 columns, as readygap and as kubectl readygap.
func TestHelpExamplesFitEightyColumns(t *testing.T) {
	for _, plugin := range []bool{false, true} {
		root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		if plugin {
			asKubectlPlugin(root)
		}
		walkCommands(root, func(c *cobra.Command) {
			for _, line := range strings.Split(c.Example, "\n") {
				if w := lipgloss.Width(line); w > helpExampleWidth {
					t.Errorf("plugin=%v: %s: example line of %d columns (at most %d fit at 80): %q", plugin, c.CommandPath(), w, helpExampleWidth, line)
				}
			}
		})
	}
}

// TestFlagDescriptionsKeepTheirCase checks that fang's capitalisation of a
// flag description's first word ("AWS" becomes "Aws") changes nothing:
// every description starts with a word whose other letters are lower case.
func TestFlagDescriptionsKeepTheirCase(t *testing.T) {
	root := newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	n := 0
	walkCommands(root, func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			n++
			first := strings.Fields(f.Usage)
			if len(first) == 0 {
				t.Errorf("%s --%s has no description", c.CommandPath(), f.Name)
				return
			}
			for _, r := range []rune(first[0])[1:] {
				if unicode.IsUpper(r) {
					t.Errorf("%s --%s: fang would print %q as %q", c.CommandPath(), f.Name, first[0], titleCase(first[0]))
					break
				}
			}
		})
	})
	if n < 30 {
		t.Fatalf("visited %d flags; the walk missed commands", n)
	}
}

// titleCase is fang's treatment of a description's first word.
func titleCase(w string) string {
	return strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
}

// TestPrintErrorPlainWhenPiped checks that an error written to a pipe or a
// file has no box and no padding, and that an exit code reporting a finding
// is printed as a plain line, never as an ERROR.
func TestPrintErrorPlainWhenPiped(t *testing.T) {
	var b bytes.Buffer
	printError(&b, fang.Styles{}, errors.New("stat nonexist: no such file or directory"))
	if got := b.String(); got != "Error: stat nonexist: no such file or directory.\n" {
		t.Errorf("piped error %q", got)
	}
	b.Reset()
	printError(&b, fang.Styles{}, &codedError{code: exitIncident, err: errors.New("1 incident found")})
	if got := b.String(); got != "1 incident found (exit code 3)\n" {
		t.Errorf("finding %q", got)
	}
	b.Reset()
	printError(&b, fang.Styles{}, usageError(errors.New("unknown flag: --bogus")))
	if got := b.String(); got != "Error: unknown flag: --bogus.\nTry --help for usage.\n" {
		t.Errorf("usage error %q", got)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.TrimRight(line, " ") != line {
			t.Errorf("trailing spaces in %q", line)
		}
	}
}

package main

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// kubectlPluginName is the file name under which kubectl runs the binary as
// `kubectl readygap` (kubectl looks up kubectl-NAME on the PATH; krew
// installs it so).
const kubectlPluginName = "kubectl-readygap"

// kubectlDisplayName is how help and usage name the command as a plugin.
const kubectlDisplayName = "kubectl readygap"

// invokedAsPlugin reports whether arg0, the name the process was started
// by, is the kubectl plugin's (with .exe on Windows).
func invokedAsPlugin(arg0 string) bool {
	base := strings.ToLower(filepath.Base(filepath.ToSlash(arg0)))
	return strings.TrimSuffix(base, ".exe") == kubectlPluginName
}

// reProgramInExample finds the program's name where an example runs it: at
// the start of a line (after its indent) or after a pipe.
var reProgramInExample = regexp.MustCompile(`(?m)(^\s*|\|\s*)readygap(\s|$)`)

// asKubectlPlugin makes the usage lines, help and examples of every
// command say `kubectl readygap`.
func asKubectlPlugin(root *cobra.Command) {
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = kubectlDisplayName
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = reProgramInExample.ReplaceAllString(c.Example, "${1}"+kubectlDisplayName+"${2}")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

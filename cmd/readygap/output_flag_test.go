package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
)

// reOutputHelp is the --output line of a command's help and the values it
// lists.
var reOutputHelp = regexp.MustCompile(`--output format\s+output format: (.*) \(default \w+\)\n`)

// TestOutputFlagListsWhatItAccepts checks analyze, triage and check: the
// help and the shell completion of --output list exactly the values it
// accepts — every value listed is taken, no other is — and the report
// formats are all among them.
func TestOutputFlagListsWhatItAccepts(t *testing.T) {
	reports := map[string]bool{}
	for _, f := range []report.Format{report.Text, report.JSON, report.Markdown, report.HTML} {
		reports[string(f)] = true
	}
	for _, cmd := range []string{"analyze", "triage", "check"} {
		t.Run(cmd, func(t *testing.T) {
			help, _, _ := runCLI(t, "", cmd, "--help")
			m := reOutputHelp.FindStringSubmatch(help)
			if m == nil {
				t.Fatalf("no --output line in the help:\n%s", help)
			}
			var helped []string
			for _, w := range strings.Split(m[1], ", ") {
				name, alias, ok := strings.Cut(w, " (or ")
				helped = append(helped, name)
				if ok {
					helped = append(helped, strings.TrimSuffix(alias, ")"))
				}
			}
			out, _, _ := runCLI(t, "", "__complete", cmd, "--output", "")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			completed := lines[:len(lines)-1] // the last line is the directive
			if !slices.Equal(sortedCopy(helped), sortedCopy(completed)) {
				t.Errorf("help lists %q, completion %q", helped, completed)
			}
			if cmd != "check" {
				for f := range reports {
					if !slices.Contains(helped, f) {
						t.Errorf("help lacks the format %s", f)
					}
				}
			}
			accepts := func(v string) bool {
				c := newRootCmd(strings.NewReader(""), nil, nil)
				sub, _, err := c.Find([]string{cmd})
				if err != nil {
					t.Fatal(err)
				}
				return sub.Flags().Set("output", v) == nil
			}
			for _, v := range helped {
				if !accepts(v) || !accepts(strings.ToUpper(v)) {
					t.Errorf("--output %s is listed but refused", v)
				}
			}
			for _, v := range []string{"xml", "htm", "markdow", "yaml", "sarif", "junit", "md", "html", ""} {
				if accepts(v) && !slices.Contains(helped, v) {
					t.Errorf("--output %q is taken but not listed", v)
				}
			}
		})
	}
}

// sortedCopy returns s sorted, leaving s as it is.
func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

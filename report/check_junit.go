package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// JUnitSuites is a check report as JUnit XML, as CI systems read it (Jenkins, GitLab, GitHub test
// reporters): one test suite per cause, one test case per workload and
// static check. A case fails when the check found a risk at or above the
// report's fail-on severity; a risk below it passes with its text in
// system-out, so that the report and the exit code agree.
type JUnitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
	// SystemErr holds the check's warnings, in the suite of what was not
	// judged.
	SystemErr string `xml:"system-err,omitempty"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	// Error is what could not be judged, at or above fail-on; Skipped the
	// same below it, and a check of a workload not judged.
	Error     *junitFailure `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// renderJUnit writes the check report as JUnit XML. Text from the inputs
// (names, files, titles, reasons) passes through Sanitize: XML has no
// escape a CI page shows as one, so a control or invisible character would
// reach the reader raw.
func renderJUnit(w io.Writer, rep *CheckReport) error {
	byCase := map[string][]CheckFinding{}
	for _, f := range rep.Findings {
		k := f.Rule + "\x00" + f.Workload.String()
		byCase[k] = append(byCase[k], f)
	}
	workloads := checkedWorkloads(rep)
	notJudged := map[string]string{}
	for _, n := range rep.NotJudged {
		if n.Object != nil {
			notJudged[n.Object.String()] = "not judged: " + n.Reason
		}
	}
	out := JUnitSuites{Name: "readygap check"}
	// One suite per cause, one case per check and workload, in the rules'
	// order (rep.Checks lists each cause's checks together).
	for i := 0; i < len(rep.Checks); {
		cause := rep.Checks[i].Cause
		suite := junitSuite{Name: Sanitize(cause)}
		for ; i < len(rep.Checks) && rep.Checks[i].Cause == cause; i++ {
			rule := rep.Checks[i].Rule
			for _, wl := range workloads {
				if kinds := rep.Checks[i].Kinds; len(kinds) > 0 && !slices.Contains(kinds, wl.Kind) && len(byCase[rule+"\x00"+wl.String()]) == 0 {
					continue // a check that does not apply to the kind is no passed test
				}
				tc := junitCase{Name: Sanitize(wl.String()), Classname: Sanitize(rule), File: Sanitize(wl.File), Line: wl.Line}
				for _, f := range byCase[rule+"\x00"+wl.String()] {
					text := sanitizeLines(junitText(f))
					if f.Fails {
						if tc.Failure == nil {
							tc.Failure = &junitFailure{Message: Sanitize(f.Title), Type: f.Severity}
							tc.File, tc.Line = Sanitize(f.Object.File), f.Object.Line
						} else {
							tc.Failure.Text += "\n\n"
						}
						tc.Failure.Text += text
						continue
					}
					tc.SystemOut += f.Severity + ": " + text + "\n"
				}
				if why, ok := notJudged[wl.String()]; ok && tc.Failure == nil {
					tc.Skipped = &junitSkipped{Message: why}
					suite.Skipped++
				}
				if tc.Failure != nil {
					suite.Failures++
				}
				suite.Cases = append(suite.Cases, tc)
			}
		}
		if len(suite.Cases) == 0 {
			continue // no workload of a kind its checks judge
		}
		suite.Tests = len(suite.Cases)
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Suites = append(out.Suites, suite)
	}
	if nj := junitNotJudged(rep); len(nj.Cases) > 0 || nj.SystemErr != "" {
		out.Tests += nj.Tests
		out.Errors += nj.Errors
		out.Suites = append(out.Suites, nj)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitNotJudgedSuite names the suite of what the check could not judge.
const junitNotJudgedSuite = "not_judged"

// junitNotJudged is the suite of what the check could not judge: a case
// for each input, document or object, in error at or above fail-on (an
// input not read is an error, a missing Service a warning), skipped below
// it; the warnings in system-err.
func junitNotJudged(rep *CheckReport) junitSuite {
	suite := junitSuite{Name: junitNotJudgedSuite}
	for _, n := range rep.NotJudged {
		tc := junitCase{Name: n.Location(), Classname: junitNotJudgedSuite + "/" + n.Kind, File: n.File, Line: n.Line}
		if n.Object != nil {
			tc.Name = n.Object.String()
		}
		if n.Fails {
			tc.Error = &junitFailure{Message: n.Reason, Type: n.Kind, Text: strings.Join(append([]string{n.Reason}, n.Missing...), "\nmissing: ")}
			suite.Errors++
		} else {
			tc.Skipped = &junitSkipped{Message: n.Reason}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	suite.SystemErr = strings.Join(rep.Warnings, "\n")
	return suite
}

// checkedWorkloads are the workloads the checks looked at, once each, in
// the order findings name them, then the rest as the inputs list them.
func checkedWorkloads(rep *CheckReport) []ObjectRef {
	var out []ObjectRef
	seen := map[string]bool{}
	for _, f := range rep.Findings {
		if !seen[f.Workload.String()] {
			seen[f.Workload.String()] = true
			out = append(out, f.Workload)
		}
	}
	for _, wl := range rep.Workloads {
		if !seen[wl.String()] {
			seen[wl.String()] = true
			out = append(out, wl)
		}
	}
	return out
}

// junitText is a failure's body: where, why, and the fixes with their YAML.
func junitText(f CheckFinding) string {
	var b strings.Builder
	if loc := f.Object.Location(); loc != "" {
		fmt.Fprintf(&b, "%s: ", loc)
	}
	fmt.Fprintf(&b, "%s (%s)\n%s\n", f.Title, f.Object, f.Reason)
	for _, x := range f.Fixes {
		fmt.Fprintf(&b, "\nFix: %s\n%s\n", x.Title, x.Why)
		if x.Patch != "" {
			b.WriteString(x.Patch)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

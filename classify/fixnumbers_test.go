package classify

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

// numberRE matches a number as fix titles and patches write it.
var numberRE = regexp.MustCompile(`\d+(?:\.\d+)?`)

// notPatchNumbers are the phrases of fix titles whose number is not one the
// patch sets, each with the reason; every other number of a title must be
// in the patch beside it.
var notPatchNumbers = []struct {
	phrase *regexp.Regexp
	why    string
}{
	{regexp.MustCompile(`longer than the load balancer's \d+(?:\.\d+)? s`),
		"the load balancer's idle timeout as read, which the app's keep-alive the patch sets outlasts"},
}

// derivedNumbers are the phrases of fix titles whose first number is
// computed from the others, which the patch sets: ok checks it.
var derivedNumbers = []struct {
	phrase *regexp.Regexp
	ok     func(n []float64) bool
	why    string
}{
	{regexp.MustCompile(`startupProbe of (\d+) s \((\d+) × (\d+) s\)`), func(n []float64) bool { return n[0] == n[1]*n[2] },
		"a startupProbe's budget is failureThreshold × periodSeconds"},
}

// titleNumbers returns the numbers a fix title states, standing alone: not
// the digits inside a name such as k8s-api-e785032ea3.
func titleNumbers(s string) []string {
	var out []string
	for _, m := range numberRE.FindAllStringIndex(s, -1) {
		before, after := byte(' '), byte(' ')
		if m[0] > 0 {
			before = s[m[0]-1]
		}
		if m[1] < len(s) {
			after = s[m[1]]
		}
		if inName(before) || inName(after) {
			continue
		}
		out = append(out, s[m[0]:m[1]])
	}
	return out
}

// inName reports whether c belongs to a name or another number.
func inName(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_./", c) >= 0
}

// canonical writes a number one way (65, 65.0 and 65.00 alike).
func canonical(s string) string {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// fixNumberProblems checks that every number in a fix's title is one its
// patch sets (its YAML as the report prints it; its text when the change
// is no manifest), but for the phrases notPatchNumbers and derivedNumbers
// name.
func fixNumberProblems(t testing.TB, fix Fix) []string {
	var problems []string
	title := fix.Title
	for _, x := range notPatchNumbers {
		title = x.phrase.ReplaceAllString(title, "")
	}
	for _, d := range derivedNumbers {
		for _, m := range d.phrase.FindAllStringSubmatch(title, -1) {
			var n []float64
			for _, s := range m[1:] {
				f, _ := strconv.ParseFloat(s, 64)
				n = append(n, f)
			}
			if !d.ok(n) {
				problems = append(problems, fmt.Sprintf("fix %q: %q does not add up (%s)", fix.Title, m[0], d.why))
			}
			title = strings.Replace(title, m[0], strings.Join(m[2:], " "), 1)
		}
	}
	source, where := patchText(t, fix.Patch), "patch"
	if fix.Patch == nil {
		source, where = fix.Why, "text"
	}
	has := map[string]bool{}
	for _, s := range numberRE.FindAllString(source, -1) {
		has[canonical(s)] = true
		// A setting written in milliseconds (Node.js's keepAliveTimeout, a
		// bare Spring Duration) sets the title's seconds; a text that
		// names milliseconds says so itself.
		if f, err := strconv.ParseFloat(s, 64); err == nil && where == "patch" && f >= 1000 && f == float64(int64(f)) && int64(f)%1000 == 0 {
			has[canonical(strconv.FormatInt(int64(f)/1000, 10))] = true
		}
	}
	for _, s := range titleNumbers(title) {
		if !has[canonical(s)] {
			problems = append(problems, fmt.Sprintf("fix %q: %s is not in its %s:\n%s", fix.Title, s, where, source))
		}
	}
	return problems
}

// checkFixNumbers checks the numbers of every fix of a finding.
func checkFixNumbers(t testing.TB, f *Finding) []string {
	var problems []string
	for _, fix := range f.Remediation {
		problems = append(problems, fixNumberProblems(t, fix)...)
	}
	return problems
}

// TestFixNumbersCatchMismatches checks the check of fix numbers itself: a
// title that counts tries while the patch counts retries, a budget that
// does not add up, and an app number off behind the load balancer's are
// caught; the title of each fix that agrees with its patch is not.
func TestFixNumbersCatchMismatches(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	retries := objectPatch("networking.istio.io/v1", "VirtualService", "shop", "web", nil, map[string]any{"http": []any{
		map[string]any{"retries": map[string]any{"attempts": 3}}}})
	startup := containerPatch(wl, "web", map[string]any{"startupProbe": map[string]any{"failureThreshold": 12, "periodSeconds": 2}})
	keepalive := containerPatch(wl, "web", map[string]any{"args": []any{"--keep-alive", "65"}})
	cases := []struct {
		fix  Fix
		want int // problems
	}{
		{Fix{Title: "Let Istio try 4 endpoints before giving up", Patch: retries}, 1},
		{Fix{Title: "Let Istio retry up to 3 times on other endpoints before giving up", Patch: retries}, 0},
		{Fix{Title: "Give slow starts a startupProbe of 23 s (12 × 2 s)", Patch: startup}, 1},
		{Fix{Title: "Give slow starts a startupProbe of 24 s (12 × 2 s)", Patch: startup}, 0},
		{Fix{Title: "Give slow starts a startupProbe of 24 s (12 × 3 s)", Patch: startup}, 2},
		{Fix{Title: "Keep idle connections open 66 s in the app, longer than the load balancer's 60 s", Patch: keepalive}, 1},
		{Fix{Title: "Keep idle connections open 65 s in the app, longer than the load balancer's 60 s", Patch: keepalive}, 0},
		{Fix{Title: "Let the target group drain in-flight requests for 45 s (TargetGroupBinding api/k8s-api-e785032ea3)",
			Patch: objectPatch("v1", "Service", "api", "web", map[string]any{"annotations": map[string]any{"x": "deregistration_delay.timeout_seconds=45"}}, nil)}, 0},
		{Fix{Title: "Set the keep-alive to 65 s", Why: "set server.keepAliveTimeout = 65000"}, 1},
		{Fix{Title: "Keep idle connections open 65 s in the app, longer than the load balancer's 60 s",
			Patch: containerPatch(wl, "web", map[string]any{"env": []any{map[string]any{"name": "KEEP_ALIVE_TIMEOUT", "value": "65000"}}})}, 0},
		{Fix{Title: "Keep idle connections open 65 s in the app, longer than the load balancer's 60 s",
			Patch: containerPatch(wl, "web", map[string]any{"env": []any{map[string]any{"name": "KEEP_ALIVE_TIMEOUT", "value": "6500"}}})}, 1},
	}
	for _, c := range cases {
		if got := fixNumberProblems(t, c.fix); len(got) != c.want {
			t.Errorf("%q: %d problems, want %d: %v", c.fix.Title, len(got), c.want, got)
		}
	}
	// The fixes without a patch state their numbers in their text.
	for _, app := range []sources.KeepAlive{{Server: "node"}, {}} {
		for _, fix := range keepaliveFixes(&Objects{}, wl, sources.FamilyALB, Timeout{Seconds: 60}, &app) {
			for _, p := range fixNumberProblems(t, fix) {
				t.Errorf("%s app: %s", cmp.Or(app.Server, "unknown"), p)
			}
		}
	}
}

// TestCheckFixNumbers checks the numbers of the static checks' fixes on
// every manifest folder and every fixture's objects, as TestFixtureVerdicts
// does for the incidents' fixes.
func TestCheckFixNumbers(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "fixtures", "manifests", "*"))
	exps, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	for _, e := range exps {
		dirs = append(dirs, filepath.Dir(e))
	}
	fixes := 0
	for _, dir := range dirs {
		for _, r := range Check(objectsOfPaths(t, dir)) {
			for _, fix := range r.Fixes {
				fixes++
				for _, p := range fixNumberProblems(t, fix) {
					t.Errorf("%s %s: %s", filepath.Base(dir), r.RuleID(), p)
				}
			}
		}
	}
	if fixes < 20 {
		t.Errorf("only %d fixes checked", fixes)
	}
}

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/report"
)

// utf16File encodes text as UTF-16 little-endian with a byte-order mark,
// as Windows PowerShell's `>` writes it.
func utf16File(text string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(text)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// cutDocs returns a multi-document manifest without the documents of the
// kinds given.
func cutDocs(body string, kinds ...string) string {
	var keep []string
	for _, d := range strings.Split(body, "\n---\n") {
		drop := false
		for _, k := range kinds {
			if strings.Contains(d, "\nkind: "+k+"\n") || strings.HasPrefix(d, "kind: "+k+"\n") {
				drop = true
			}
		}
		if !drop {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, "\n---\n")
}

// TestCheckNotJudged checks each case check cannot judge, in every format
// and for every --fail-on: what it says, what it counts, and whether it
// fails; and the controls that it judges in full.
func TestCheckNotJudged(t *testing.T) {
	fixed, err := os.ReadFile(manifests("eks-alb-rollout-502/fixed.yaml"))
	must(t, err)
	body := string(fixed)
	gateway, err := os.ReadFile(manifests("envoy-gateway/gateway.yaml"))
	must(t, err)
	// A document past the 16 MiB bound, before the manifests.
	var big strings.Builder
	big.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: orders}\ndata:\n")
	for i := 0; big.Len() <= 16<<20; i++ {
		big.WriteString("  k" + strings.Repeat("x", 10) + string(rune('a'+i%26)) + strings.Repeat("0", 6) + ": \"" + strings.Repeat("v", 1000) + "\"\n")
		big.WriteString("  i" + strings.Repeat("y", 3) + "-" + itoa(i) + ": \"" + strings.Repeat("w", 1000) + "\"\n")
	}
	surrogate := utf16File(body)
	surrogate = append(surrogate[:400:400], append([]byte{0x00, 0xD8}, surrogate[400:]...)...)
	var be []byte
	for _, u := range utf16.Encode([]rune(body)) {
		be = append(be, byte(u>>8), byte(u))
	}
	for _, c := range []struct {
		name, file string
		data       []byte
		// unreadable and missing are the entries of each kind; line is the
		// first one's line (0 for a whole input).
		unreadable, missing, line int
		// findings is how many risks are still found.
		findings int
		say      string
	}{
		{name: "control: every object", file: "all.yaml", data: fixed},
		{name: "control: UTF-16 with a BOM is decoded", file: "utf16.yaml", data: utf16File(body)},
		{name: "control: UTF-8 with a BOM", file: "bom.yaml", data: append([]byte{0xEF, 0xBB, 0xBF}, fixed...)},
		{name: "control: a worker without ports needs no Service", file: "worker.yaml",
			data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: q}\nspec:\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n    spec: {containers: [{name: w, image: w}]}\n")},
		{name: "control: an Envoy Gateway route with its Gateway", file: "gw.yaml", data: gateway, findings: 2},
		{name: "UTF-16 with an unpaired surrogate", file: "surrogate.yaml", data: surrogate, unreadable: 1, say: "unpaired UTF-16 surrogate D800 on line"},
		{name: "UTF-16 without a BOM", file: "be.yaml", data: be, unreadable: 1, say: "not UTF-8 text"},
		{name: "an invalid UTF-8 byte", file: "latin1.yaml", data: []byte(strings.Replace(body, "name: orders-api\n  namespace", "name: orders-api # caf\xe9\n  namespace", 1)),
			unreadable: 1, line: 13, say: "invalid UTF-8 on line 16"},
		{name: "a document over 16 MiB", file: "big.yaml", data: []byte(big.String() + "---\n" + body), unreadable: 1, line: 1, say: "YAML document larger than 16 MiB"},
		{name: "a Deployment without its Service", file: "deploy.yaml", data: []byte(cutDocs(body, "Service", "Ingress")), missing: 1,
			say: "no Service among the inputs selects the pods of Deployment orders/orders-api"},
		{name: "a Service nothing routes to", file: "svc.yaml", data: []byte(cutDocs(body, "Ingress")), missing: 1,
			say: "nothing among the inputs routes load-balancer traffic to Deployment orders/orders-api"},
		{name: "an Ingress without its Service", file: "ing.yaml", data: []byte(cutDocs(body, "Service")), missing: 2,
			say: "Ingress orders/orders-api sends traffic to Service orders/orders-api, not among the inputs"},
		{name: "an HTTPRoute without its Gateway", file: "route.yaml", data: []byte(cutDocs(string(gateway), "Gateway", "BackendTrafficPolicy")), missing: 1, findings: 1,
			say: "Gateway shop/eg (a parent of HTTPRoute shop/web)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), c.file)
			must(t, os.WriteFile(p, c.data, 0o644))
			for _, failOn := range []classify.Severity{classify.SeverityError, classify.SeverityWarning, ""} {
				rep, err := Check(context.Background(), []string{p}, CheckOptions{FailOn: failOn})
				must(t, err)
				s := rep.Summary
				if s.Unreadable != c.unreadable || s.NotJudged != c.missing || len(rep.Findings) < c.findings || (c.findings == 0) != (len(rep.Findings) == 0) {
					t.Fatalf("fail-on %q: %d unreadable, %d missing, %d findings; want %d, %d, %d\n%s", failOn, s.Unreadable, s.NotJudged, len(rep.Findings),
						c.unreadable, c.missing, c.findings, renderCheck(t, report.CheckText, rep))
				}
				if c.unreadable > 0 && rep.NotJudged[0].Line != c.line {
					t.Errorf("not read at line %d, want %d", rep.NotJudged[0].Line, c.line)
				}
				wantFailed := c.findings > 0 && failOn != "" // the fixtures' findings are errors
				wantFailed = wantFailed || (c.unreadable > 0 && failOn != "") || (c.missing > 0 && failOn == classify.SeverityWarning)
				if s.Failed != wantFailed {
					t.Errorf("fail-on %q: failed %v", failOn, s.Failed)
				}
				text := renderCheck(t, report.CheckText, rep)
				judged := c.unreadable+c.missing == 0
				if strings.HasPrefix(text, "No risk found") != (judged && c.findings == 0) || !strings.Contains(strings.ToLower(strings.Join(strings.Fields(text), " ")), strings.ToLower(c.say)) {
					t.Errorf("fail-on %q: text\n%s", failOn, text)
				}
				var js report.CheckReport
				must(t, json.Unmarshal([]byte(renderCheck(t, report.CheckJSON, rep)), &js))
				if len(js.NotJudged) != c.unreadable+c.missing || js.Summary != s {
					t.Errorf("JSON: %+v", js.NotJudged)
				}
				out := renderCheck(t, report.CheckSARIF, rep)
				validateSARIF(t, c.name, []byte(out))
				var log report.SARIFLog
				must(t, json.Unmarshal([]byte(out), &log))
				inv := log.Runs[0].Invocations
				errs, warns := 0, 0
				for _, n := range inv[0].ToolExecutionNotifications {
					switch {
					case n.Level == "error":
						errs++
					case n.Level == "warning" && n.Locations != nil:
						warns++
					}
				}
				if len(inv) != 1 || inv[0].ExecutionSuccessful != (c.unreadable == 0) || errs != c.unreadable || warns != c.missing {
					t.Errorf("SARIF invocations: %+v", inv)
				}
				var suites report.JUnitSuites
				must(t, xml.Unmarshal([]byte(renderCheck(t, report.CheckJUnit, rep)), &suites))
				wantErrors := 0
				if failOn != "" {
					wantErrors = c.unreadable
				}
				if failOn == classify.SeverityWarning {
					wantErrors += c.missing
				}
				if suites.Errors != wantErrors {
					t.Errorf("fail-on %q: JUnit %d errors, want %d", failOn, suites.Errors, wantErrors)
				}
			}
		})
	}
}

// itoa writes n in decimal.
func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestCheckNotAManifest checks that files that are no manifests stay
// warnings, as a hook hands check every YAML file: a values file, and a
// binary file that is not named like a manifest; and that one named like
// a manifest is not judged.
func TestCheckNotAManifest(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "values.yaml"), []byte("replicaCount: 3\nimage: {tag: x}\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "logo.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644))
	rep, err := Check(context.Background(), []string{dir}, CheckOptions{FailOn: classify.SeverityWarning})
	must(t, err)
	if rep.Summary.Failed || len(rep.NotJudged) != 0 || len(rep.Warnings) < 2 {
		t.Errorf("not manifests: %+v, warnings %q", rep.NotJudged, rep.Warnings)
	}
	must(t, os.Rename(filepath.Join(dir, "logo.png"), filepath.Join(dir, "logo.json")))
	rep, err = Check(context.Background(), []string{dir}, CheckOptions{FailOn: classify.SeverityError})
	must(t, err)
	if !rep.Summary.Failed || len(rep.NotJudged) != 1 || !strings.Contains(rep.NotJudged[0].Reason, "not UTF-8 text") {
		t.Errorf("a binary .json: %+v", rep.NotJudged)
	}
}

// TestCheckContext checks what neighbours read as context change: the
// workload of a changed file is linked to the Service and Ingress beside
// it and judged; findings are reported for the changed file's objects and
// those linked to them, never for a neighbour's own; a neighbour in no
// known format says nothing.
func TestCheckContext(t *testing.T) {
	body, err := os.ReadFile(manifests("eks-alb-no-gate/broken.yaml"))
	must(t, err)
	other, err := os.ReadFile(manifests("nginx-wrong-probe-port/broken.yaml"))
	must(t, err)
	dir := t.TempDir()
	names := []string{"ns.yaml", "deployment.yaml", "service.yaml", "ingress.yaml"}
	docs := strings.Split(string(body), "\n---\n")
	if len(docs) != len(names) {
		t.Fatalf("%d documents", len(docs))
	}
	for i, d := range docs {
		must(t, os.WriteFile(filepath.Join(dir, names[i]), []byte(d+"\n"), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "other.yaml"), other, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "values.yaml"), []byte("replicaCount: 3\n"), 0o644))
	all := check(t, dir)
	var neighbours []string
	for _, n := range append(names, "other.yaml", "values.yaml") {
		if n != "deployment.yaml" {
			neighbours = append(neighbours, filepath.Join(dir, n))
		}
	}
	for _, changed := range []string{"deployment.yaml", "service.yaml", "ns.yaml"} {
		var ctx []string
		for _, c := range append(neighbours, filepath.Join(dir, "deployment.yaml")) {
			if filepath.Base(c) != changed {
				ctx = append(ctx, c)
			}
		}
		rep, err := Check(context.Background(), []string{filepath.Join(dir, changed)}, CheckOptions{FailOn: classify.SeverityError, Context: ctx})
		must(t, err)
		if len(rep.Findings) != 2 || len(rep.NotJudged) != 0 || len(rep.Context) != 4 || !rep.Summary.Failed || len(rep.Warnings) != 0 {
			t.Errorf("%s changed: %d findings, %+v, context %v, warnings %q", changed, len(rep.Findings), rep.NotJudged, rep.Context, rep.Warnings)
		}
		for _, f := range rep.Findings {
			if f.Workload.Name != "api-admin" {
				t.Errorf("%s changed: a neighbour's finding %s of %s", changed, f.Rule, f.Workload)
			}
		}
	}
	if len(all.Findings) <= 2 {
		t.Errorf("the folder: %d findings", len(all.Findings))
	}
	// Alone, the Deployment is not judged.
	alone := check(t, filepath.Join(dir, "deployment.yaml"))
	if len(alone.Findings) != 0 || alone.Summary.NotJudged != 1 {
		t.Errorf("alone: %d findings, %+v", len(alone.Findings), alone.NotJudged)
	}
}

// TestCheckDuplicateKeys checks that a key written twice is a warning
// naming both lines.
func TestCheckDuplicateKeys(t *testing.T) {
	body, err := os.ReadFile(manifests("eks-alb-rollout-502/fixed.yaml"))
	must(t, err)
	dup := strings.Replace(string(body), "  replicas: 3\n", "  replicas: 3\n  replicas: 1\n", 1)
	p := filepath.Join(t.TempDir(), "dup.yaml")
	must(t, os.WriteFile(p, []byte(dup), 0o644))
	rep := check(t, p)
	if len(rep.Warnings) != 1 || rep.Warnings[0] != p+`: lines 19 and 20: duplicate key "replicas" in one mapping: readygap reads the last, kubectl refuses the document` {
		t.Errorf("warnings %q", rep.Warnings)
	}
	if !bytes.Contains([]byte(renderCheck(t, report.CheckSARIF, rep)), []byte(`duplicate key \"replicas\"`)) {
		t.Error("SARIF does not carry the warning")
	}
}

// TestCheckJSONDuplicateKeysAndInvalidUTF8 checks that a JSON manifest's
// key written twice is a warning naming both lines, and a string that is
// not UTF-8 one naming its line and byte, as for YAML.
func TestCheckJSONDuplicateKeysAndInvalidUTF8(t *testing.T) {
	body := `{
  "apiVersion": "apps/v1",
  "kind": "Deployment",
  "metadata": {"name": "web", "namespace": "shop"},
  "spec": {
    "replicas": 3,
    "selector": {"matchLabels": {"app": "web"}},
    "replicas": 1,
    "template": {
      "metadata": {"labels": {"app": "web", "team": "caf` + "\xe9" + `"}},
      "spec": {"containers": [{"name": "web", "image": "web:1"}]}
    }
  }
}
`
	p := filepath.Join(t.TempDir(), "dup.json")
	must(t, os.WriteFile(p, []byte(body), 0o644))
	rep := check(t, p)
	want := []string{
		p + `: lines 6 and 8: duplicate key "replicas" in one object: readygap reads the last, kubectl refuses the object (strict field validation)`,
		p + `: line 10, byte 57: invalid UTF-8 in a string: readygap reads each such byte as U+FFFD, as Go's JSON decoders (kubectl's too) do`,
	}
	if !slices.Equal(rep.Warnings, want) {
		t.Errorf("warnings %q; want %q", rep.Warnings, want)
	}
	if rep.Summary.Objects != 1 {
		t.Errorf("%d objects read; want 1", rep.Summary.Objects)
	}
	if !bytes.Contains([]byte(renderCheck(t, report.CheckSARIF, rep)), []byte(`duplicate key \"replicas\"`)) {
		t.Error("SARIF does not carry the warning")
	}
}

// TestCheckManyUnread checks that past the documents listed one by one,
// the rest not read are one entry with their count, and that the summary
// counts every document.
func TestCheckManyUnread(t *testing.T) {
	var b strings.Builder
	for i := range checkMaxUnread + 5 {
		b.WriteString("apiVersion: v1\nkind: Namespace\nmetadata: {name: n" + itoa(i) + "}\n  bad: indentation\n---\n")
	}
	b.WriteString("apiVersion: v1\nkind: Namespace\nmetadata: {name: good}\n")
	p := filepath.Join(t.TempDir(), "many.yaml")
	must(t, os.WriteFile(p, []byte(b.String()), 0o644))
	rep := check(t, p)
	last := rep.NotJudged[len(rep.NotJudged)-1]
	if rep.Summary.Objects != 1 || len(rep.NotJudged) != checkMaxUnread+1 || rep.NotJudged[1].Line != 6 || rep.Summary.Unreadable != checkMaxUnread+5 ||
		last.Line != 0 || last.Count != 5 || last.Reason != p+": 5 more documents were not read" || len(rep.Warnings) != 1 {
		t.Errorf("%d objects, %d entries, the last %+v, warnings %q", rep.Summary.Objects, len(rep.NotJudged), last, rep.Warnings)
	}
}

package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/internal/golden"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// manifests is the path of a file or folder under fixtures/manifests/.
func manifests(name string) string { return filepath.Join("..", "fixtures", "manifests", name) }

// check runs the whole check on paths as the command does, failing on errors.
func check(t testing.TB, paths ...string) *report.CheckReport {
	t.Helper()
	rep, err := Check(context.Background(), paths, CheckOptions{FailOn: classify.SeverityError})
	if err != nil {
		t.Fatalf("check %v: %v", paths, err)
	}
	return rep
}

// renderCheck writes rep in format f (text at 100 columns).
func renderCheck(t testing.TB, f report.CheckFormat, rep *report.CheckReport) string {
	t.Helper()
	var b bytes.Buffer
	var err error
	if f == report.CheckText {
		err = report.WriteCheckText(&b, rep, report.DefaultTextWidth)
	} else {
		err = report.WriteCheck(&b, f, rep)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// manifestFixtures lists every manifest fixture file, as a golden name and a path.
func manifestFixtures(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(manifests(""), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(manifests(""), p)
		out[strings.TrimSuffix(strings.ReplaceAll(rel, string(filepath.Separator), "-"), filepath.Ext(rel))] = p
		return nil
	})
	if err != nil || len(out) < 10 {
		t.Fatalf("manifest fixtures: %v (%d)", err, len(out))
	}
	return out
}

// TestCheckGolden compares, for every manifest fixture, the text and the
// JSON of its check with testdata/check/<fixture>.txt and .json: each
// finding's wording, numbers and patch (go test ./report -run
// TestCheckGolden -update rewrites them; review the diff).
func TestCheckGolden(t *testing.T) {
	for name, p := range manifestFixtures(t) {
		t.Run(name, func(t *testing.T) {
			rep := check(t, p)
			golden.Assert(t, filepath.Join("testdata", "check", name+".txt"), []byte(renderCheck(t, report.CheckText, rep)))
			golden.Assert(t, filepath.Join("testdata", "check", name+".json"), []byte(renderCheck(t, report.CheckJSON, rep)))
		})
	}
	// SARIF and JUnit of one fixture with findings of three causes.
	rep := check(t, manifests("nginx-wrong-probe-port/broken.yaml"))
	golden.Assert(t, filepath.Join("testdata", "check", "nginx-wrong-probe-port-broken.sarif"), []byte(renderCheck(t, report.CheckSARIF, rep)))
	golden.Assert(t, filepath.Join("testdata", "check", "nginx-wrong-probe-port-broken.junit.xml"), []byte(renderCheck(t, report.CheckJUnit, rep)))
}

// findingsOf returns the findings of a cause.
func findingsOf(rep *report.CheckReport, cause string) []report.CheckFinding {
	var out []report.CheckFinding
	for _, f := range rep.Findings {
		if f.Cause == cause {
			out = append(out, f)
		}
	}
	return out
}

// findingText is a finding's reason and fixes, for assertions.
func findingText(f report.CheckFinding) string {
	s := f.Title + "\n" + f.Reason
	for _, x := range f.Fixes {
		s += "\n" + x.Title + "\n" + x.Why + "\n" + x.Patch
	}
	return s
}

// TestCheckSeeds checks the seeds' risks with their numbers on their broken
// manifests, and that their fixed manifests have none of that risk.
func TestCheckSeeds(t *testing.T) {
	for _, c := range []struct {
		seed, cause string
		rules       []string
		numbers     []string
	}{
		// GKE, 1 replica, 3 zones, checkIntervalSec 30: the fix is 5 s and minReadySeconds 15.
		{"gke-neg-zone-move", "registration_lag", []string{"registration_lag/neg-zone-move"},
			[]string{"1 replica in 3 zones", "30 s × 1 = 30 s", "minReadySeconds is 0, below the 40 s", "checkIntervalSec: 5", "minReadySeconds: 15", "replicas: 3"}},
		// ALB in IP mode without the gate, 30 s × 5 health checks: 150 s without a healthy target.
		{"eks-alb-no-gate", "registration_lag", []string{"registration_lag/alb-readiness-gate"},
			[]string{"target-type ip", "Namespace dev lacks the label", "30 s × 5 = 150 s", "below the 161 s (that plus a 10 s margin is 160 s", "elbv2.k8s.aws/pod-readiness-gate-inject: enabled"}},
		// ingress-nginx, readiness tcpSocket on the admin port 9090, traffic on 8080, no startupProbe.
		{"nginx-wrong-probe-port", "wrong_probe_port", []string{"wrong_probe_port/readiness-probe-port", "wrong_probe_port/startup-probe-missing"},
			[]string{"readinessProbe tcpSocket on port 9090 (admin)", "to port 8080 (http)", "port: http", "failureThreshold: 30", "periodSeconds: 2"}},
		// ALB, no gate with the controller's 15 s × 2, no preStop while the ALB routes for seconds.
		{"eks-alb-rollout-502", "", []string{"registration_lag/alb-readiness-gate", "termination_race/prestop"},
			[]string{"15 s × 2 = 30 s", "below the 40 s", "no preStop hook", "about 10 s", "seconds: 15", "terminationGracePeriodSeconds: 45"}},
		// Argo blue-green behind an ALB in IP mode, health check 15 s × 5 read
		// from the Ingress: 75 s without a healthy target per switch; the
		// old ReplicaSet needs 85 s, the default is 30 s. Its pod template
		// has no preStop, judged as a Deployment's would be.
		{"argo-blue-green-alb", "", []string{"rollout_scale_down_race/scale-down-delay", "rollout_switch_lag/blue-green-behind-alb", "termination_race/prestop"},
			[]string{"15 s × 5, read from Ingress shop/web", "about 75 s without a healthy target", "30 s, Argo Rollouts' default (assumed default", "scaleDownDelaySeconds: 85", "duration: 85s", "pingService: web-active", "pongService: web-preview", "kind: Rollout", "seconds: 15"}},
		// Argo canary through an ALB, the controller's default 15 s × 2: no
		// pingPong, scaleDownDelaySeconds 0, dynamicStableScale, no preStop.
		{"argo-canary-alb", "", []string{"rollout_abort_gone/dynamic-stable-scale", "rollout_scale_down_race/scale-down-delay", "rollout_weight_no_healthy_target/canary-alb-without-ping-pong", "termination_race/prestop"},
			[]string{"scaleDownDelaySeconds 0 s, read at", "scaleDownDelaySeconds: 40", "dynamicStableScale: false", "pingService: web-stable", "argo-rollouts#4433"}},
	} {
		t.Run(c.seed, func(t *testing.T) {
			broken := check(t, manifests(c.seed+"/broken.yaml"))
			var got []string
			text := ""
			for _, f := range broken.Findings {
				if c.cause == "" || f.Cause == c.cause {
					got = append(got, f.Rule)
					text += findingText(f) + "\n"
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, c.rules) {
				t.Fatalf("broken: rules %v, want %v", got, c.rules)
			}
			for _, n := range c.numbers {
				if !strings.Contains(text, n) {
					t.Errorf("broken: findings lack %q:\n%s", n, text)
				}
			}
			// fixed.yaml, and the seed's fix as posted when it differs.
			fixes, err := filepath.Glob(manifests(c.seed + "/fixed*.yaml"))
			if err != nil || len(fixes) == 0 {
				t.Fatalf("no fixed manifest: %v", err)
			}
			for _, p := range fixes {
				fixed := check(t, p)
				if c.cause == "" && len(fixed.Findings) > 0 || len(findingsOf(fixed, c.cause)) > 0 {
					t.Errorf("%s: %d findings: %+v", filepath.Base(p), len(fixed.Findings), fixed.Findings)
				}
			}
		})
	}
}

// TestCheckInputs reads the same Helm-rendered chart from a file and from
// standard input, a directory of manifests and a JSON List.
func TestCheckInputs(t *testing.T) {
	file := check(t, manifests("helm-rendered/catalog.yaml"))
	body, err := os.ReadFile(manifests("helm-rendered/catalog.yaml"))
	must(t, err)
	stdin, err := Check(context.Background(), []string{"-"}, CheckOptions{Read: sources.Options{Stdin: bytes.NewReader(body)}})
	must(t, err)
	if len(file.Findings) != 2 || len(stdin.Findings) != len(file.Findings) {
		t.Fatalf("file %d findings, stdin %d", len(file.Findings), len(stdin.Findings))
	}
	for i := range file.Findings {
		f, s := file.Findings[i], stdin.Findings[i]
		if f.Rule != s.Rule || f.Reason != s.Reason || s.Object.File != "<stdin>" || s.Object.Line != f.Object.Line {
			t.Errorf("stdin finding %d: %+v, file's %+v", i, s, f)
		}
	}
	// Each rendered document is reported at its object, not at "# Source:".
	if f := file.Findings[0]; f.Workload.Line != 53 || f.Workload.Name != "catalog" {
		t.Errorf("workload at %s", f.Workload.Location())
	}
	dir := check(t, manifests(""))
	if dir.Summary.Workloads != 22 || len(dir.Inputs) != 19 {
		t.Errorf("the folder: %d workloads from %d inputs", dir.Summary.Workloads, len(dir.Inputs))
	}
	list := check(t, manifests("live-dump/pay.json"))
	if len(list.Findings) != 1 || list.Findings[0].Rule != "registration_lag/alb-readiness-gate" || list.Findings[0].Severity != "warning" ||
		!strings.Contains(list.Findings[0].Reason, "pay-api-7c9d8f6b5-tm5rp") {
		t.Errorf("JSON List: %+v", list.Findings)
	}
}

// TestCheckLiveSource checks that objects from a cluster are named without
// file and line, and the inputs by the source.
func TestCheckLiveSource(t *testing.T) {
	rep, err := Check(context.Background(), []string{manifests("live-dump/pay.json")}, CheckOptions{Source: "context prod, namespace pay"})
	must(t, err)
	if rep.Source != "context prod, namespace pay" || rep.Inputs[0].Name != rep.Source || rep.Findings[0].Object.File != "" || rep.Findings[0].Object.Line != 0 {
		t.Errorf("live report %+v", rep)
	}
	if !strings.Contains(renderCheck(t, report.CheckText, rep), "in context prod, namespace pay") {
		t.Error("the text does not name the source")
	}
	validateSARIF(t, "live", []byte(renderCheck(t, report.CheckSARIF, rep)))
}

// TestCheckFailOn checks which findings make the check fail.
func TestCheckFailOn(t *testing.T) {
	p := manifests("nginx-wrong-probe-port/broken.yaml") // 2 errors, 1 warning
	list := manifests("live-dump/pay.json")              // 1 warning
	for _, c := range []struct {
		path   string
		failOn classify.Severity
		failed bool
	}{
		{p, classify.SeverityError, true}, {p, classify.SeverityWarning, true}, {p, "", false},
		{list, classify.SeverityError, false}, {list, classify.SeverityWarning, true},
	} {
		rep, err := Check(context.Background(), []string{c.path}, CheckOptions{FailOn: c.failOn})
		must(t, err)
		if rep.Summary.Failed != c.failed {
			t.Errorf("%s --fail-on %q: failed %v", c.path, c.failOn, rep.Summary.Failed)
		}
	}
}

// sarifSchemas are the schemas SARIF output must pass: the structure
// readygap writes (testdata/check/sarif-structure.schema.json), and the
// official OASIS SARIF 2.1.0 schema when shared/reference holds it or
// READYGAP_SARIF_SCHEMA names it.
func sarifSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	paths := []string{filepath.Join("testdata", "check", "sarif-structure.schema.json")}
	for _, p := range []string{os.Getenv("READYGAP_SARIF_SCHEMA"), filepath.Join("..", "..", "shared", "reference", "sarif-schema-2.1.0.json")} {
		if _, err := os.Stat(p); p != "" && err == nil {
			paths = append(paths, p)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "file:///" + filepath.Base(p)
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile(url)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out[p] = s
	}
	return out
}

// validateSARIF validates a SARIF log against every schema, and checks
// what no schema says: each result's ruleIndex points at its rule.
func validateSARIF(t testing.TB, name string, out []byte) {
	t.Helper()
	for p, s := range sarifSchemas(t) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("%s does not validate against %s: %v", name, p, err)
		}
	}
	var log report.SARIFLog
	must2(t, json.Unmarshal(out, &log))
	for _, r := range log.Runs[0].Results {
		if rules := log.Runs[0].Tool.Driver.Rules; r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("%s: result of %s points at rule %d", name, r.RuleID, r.RuleIndex)
		}
	}
}

func must2(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestCheckSARIFValidates validates the SARIF of every manifest fixture,
// and of findings in files whose names need escaping, and checks that the
// schema would catch a misspelt property.
func TestCheckSARIFValidates(t *testing.T) {
	for name, p := range manifestFixtures(t) {
		validateSARIF(t, name, []byte(renderCheck(t, report.CheckSARIF, check(t, p))))
	}
	dir := filepath.Join(t.TempDir(), "odd dir")
	must(t, os.MkdirAll(dir, 0o755))
	body, err := os.ReadFile(manifests("nginx-wrong-probe-port/broken.yaml"))
	must(t, err)
	odd := filepath.Join(dir, "100% #1.yaml")
	must(t, os.WriteFile(odd, body, 0o644))
	out := renderCheck(t, report.CheckSARIF, check(t, odd))
	validateSARIF(t, "escaped", []byte(out))
	if !strings.Contains(out, `odd%20dir/100%25%20%231.yaml`) || !strings.Contains(out, `"uri": "file:///`) {
		t.Errorf("artifact URI not escaped:\n%s", out)
	}
	rel := renderCheck(t, report.CheckSARIF, check(t, manifests("eks-alb-no-gate/broken.yaml")))
	if !strings.Contains(rel, `"uri": "../fixtures/manifests/eks-alb-no-gate/broken.yaml"`) || !strings.Contains(rel, `"uriBaseId": "%SRCROOT%"`) ||
		!strings.Contains(rel, `"startLine": 4`) {
		t.Errorf("relative location:\n%s", rel)
	}
	bad := strings.Replace(rel, `"ruleId"`, `"ruleID"`, 1)
	for p, s := range sarifSchemas(t) {
		doc, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if s.Validate(doc) == nil && strings.Contains(p, "structure") {
			t.Errorf("%s accepts a misspelt ruleId", p)
		}
	}
}

// TestCheckJUnit reads the JUnit report back: one case per workload and
// check that judges its kind, failures for the findings at or above fail-on, the rest in
// system-out.
func TestCheckJUnit(t *testing.T) {
	for _, failOn := range []classify.Severity{classify.SeverityError, classify.SeverityWarning, ""} {
		rep, err := Check(context.Background(), []string{manifests("nginx-wrong-probe-port/broken.yaml"), manifests("eks-alb-rollout-502/fixed.yaml")}, CheckOptions{FailOn: failOn})
		must(t, err)
		var got report.JUnitSuites
		must(t, xml.Unmarshal([]byte(renderCheck(t, report.CheckJUnit, rep)), &got))
		want := map[classify.Severity]int{classify.SeverityError: 2, classify.SeverityWarning: 3, "": 0}[failOn]
		// Both workloads are Deployments: the checks of an Argo Rollout's
		// steps do not judge them.
		checks, suites := 0, map[string]bool{}
		for _, rc := range classify.StaticChecks() {
			if classify.Judges(rc.Cause.ID, "Deployment") {
				checks++
				suites[rc.Cause.ID] = true
			}
		}
		if got.Tests != 2*checks || got.Failures != want || len(got.Suites) != len(suites) {
			t.Errorf("fail-on %q: %d tests, %d failures, %d suites; want %d failures", failOn, got.Tests, got.Failures, len(got.Suites), want)
		}
		outs := 0
		for _, s := range got.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil && (c.File == "" || c.Line == 0 || !strings.Contains(c.Failure.Text, "Fix:")) {
					t.Errorf("failure without place or fix: %+v", c)
				}
				if c.SystemOut != "" {
					outs++
				}
			}
		}
		if outs != 3-want {
			t.Errorf("fail-on %q: %d findings in system-out, want %d", failOn, outs, 3-want)
		}
	}
}

// TestCheckTextSanitized checks that names from the inputs cannot send
// terminal escapes.
func TestCheckTextSanitized(t *testing.T) {
	body, err := os.ReadFile(manifests("nginx-wrong-probe-port/broken.yaml"))
	must(t, err)
	evil := strings.ReplaceAll(string(body), "name: gateway-canary\n  namespace: gray\nspec:\n  replicas", "name: \"gateway\\e]0;pwned\\a\"\n  namespace: gray\nspec:\n  replicas")
	p := filepath.Join(t.TempDir(), "evil.yaml")
	must(t, os.WriteFile(p, []byte(evil), 0o644))
	out := renderCheck(t, report.CheckText, check(t, p))
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "gateway") {
		t.Errorf("raw control characters in:\n%q", out)
	}
}

// TestCheckReadmeTable checks that the table of checks in docs/check.md is
// the registry, row for row (go test ./report -run TestCheckReadmeTable
// -update rewrites it).
func TestCheckReadmeTable(t *testing.T) {
	var rows []string
	for _, rc := range classify.StaticChecks() {
		rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", rc.RuleID, rc.Check.Name, rc.Check.Description))
	}
	golden.AssertTable(t, filepath.Join("..", "docs", "check.md"), "| rule | what it finds | how it decides |", rows)
}

// BenchmarkCheck1000Objects times `check` of 1000 objects (250 workloads,
// each a Deployment, a Service, an Ingress and a BackendConfig, in one
// multi-document file): reading alone as the baseline, then reading,
// checking and writing the text report.
func BenchmarkCheck1000Objects(b *testing.B) {
	p := filepath.Join(b.TempDir(), "objects.yaml")
	var body strings.Builder
	for i := range 250 {
		fmt.Fprintf(&body, `---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app-%[1]d, namespace: ns-%[2]d}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: app-%[1]d}}
  template:
    metadata: {labels: {app: app-%[1]d}}
    spec:
      containers:
        - name: app
          image: registry.example.com/app:%[1]d
          args: ["--keep-alive", "5"]
          ports: [{name: http, containerPort: 8080}, {name: admin, containerPort: 9090}]
          readinessProbe: {tcpSocket: {port: admin}, periodSeconds: 5}
---
apiVersion: v1
kind: Service
metadata:
  name: app-%[1]d
  namespace: ns-%[2]d
  annotations: {cloud.google.com/neg: '{"ingress": true}', cloud.google.com/backend-config: '{"default": "app-%[1]d"}'}
spec:
  selector: {app: app-%[1]d}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: app-%[1]d, namespace: ns-%[2]d, annotations: {kubernetes.io/ingress.class: gce}}
spec: {defaultBackend: {service: {name: app-%[1]d, port: {number: 80}}}}
---
apiVersion: cloud.google.com/v1
kind: BackendConfig
metadata: {name: app-%[1]d, namespace: ns-%[2]d}
spec: {healthCheck: {checkIntervalSec: 15, healthyThreshold: 2}}
`, i, i%20, 1+i%4)
	}
	if err := os.WriteFile(p, []byte(body.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			var n int
			var mu sync.Mutex
			var k []*configKeeper
			if _, err := sources.Read(context.Background(), []string{p}, sources.Options{}, func(*sources.InputReport) sources.Handler {
				c := &configKeeper{}
				mu.Lock()
				k = append(k, c)
				mu.Unlock()
				return c
			}); err != nil {
				b.Fatal(err)
			}
			for _, c := range k {
				n += len(c.configs)
			}
			if n != 1000 {
				b.Fatalf("%d objects", n)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			rep, err := Check(context.Background(), []string{p}, CheckOptions{FailOn: classify.SeverityError})
			if err != nil || rep.Summary.Objects != 1000 || len(rep.Findings) < 250 {
				b.Fatalf("%v: %d objects, %d findings", err, rep.Summary.Objects, len(rep.Findings))
			}
			var out bytes.Buffer
			if err := report.WriteCheckText(&out, rep, report.DefaultTextWidth); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCheckPredictsSeedsTable reads the GKE zone-move seed's manifest and
// requires the predicted windows the seed measured — about 35 s of 502s at
// a 30 s interval, 12 s at 5 s, none at 5 s with minReadySeconds 15 —
// within a few seconds, in text, JSON and SARIF alike.
func TestCheckPredictsSeedsTable(t *testing.T) {
	const slack = 4 // seconds
	rep := check(t, manifests("gke-neg-zone-move/broken.yaml"))
	var f *report.CheckFinding
	for i := range rep.Findings {
		if rep.Findings[i].Rule == "registration_lag/neg-zone-move" {
			f = &rep.Findings[i]
		}
	}
	if f == nil || f.Prediction == nil {
		t.Fatalf("no prediction for the zone move: %+v", rep.Findings)
	}
	want := []int{35, 12, 0}
	if len(f.Prediction.Windows) != len(want) {
		t.Fatalf("windows %+v, want %d", f.Prediction.Windows, len(want))
	}
	for i, w := range f.Prediction.Windows {
		if d := w.Seconds - want[i]; d < -slack || d > slack || (want[i] == 0) != (w.Seconds == 0) {
			t.Errorf("%s: %d s predicted, the seed saw %d s", w.Settings, w.Seconds, want[i])
		}
	}
	predictedInEveryFormat(t, rep, f)
}

// predictedInEveryFormat requires f's prediction in the text and in the
// SARIF result of f's rule (its message and its properties).
func predictedInEveryFormat(t *testing.T, rep *report.CheckReport, f *report.CheckFinding) {
	t.Helper()
	text := renderCheck(t, report.CheckText, rep)
	if !strings.Contains(text, "Predicted: "+f.Prediction.Summary[:20]) {
		t.Errorf("text lacks the prediction:\n%s", text)
	}
	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID  string `json:"ruleId"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
				Properties struct {
					Prediction *report.CheckPrediction `json:"prediction"`
				} `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	must(t, json.Unmarshal([]byte(renderCheck(t, report.CheckSARIF, rep)), &sarif))
	found := false
	for _, r := range sarif.Runs[0].Results {
		if r.RuleID == f.Rule {
			found = true
			if p := r.Properties.Prediction; p == nil || !reflect.DeepEqual(p.Windows, f.Prediction.Windows) || !strings.Contains(r.Message.Text, "Predicted: ") {
				t.Errorf("SARIF result lacks the prediction: %+v", r)
			}
		}
	}
	if !found {
		t.Errorf("no SARIF result for %s", f.Rule)
	}
}

// TestCheckPredictsALBRisks reads the ALB manifests and requires a
// prediction for each risk the ALB models cover, in every format: the
// missing readiness gate (a window now, none with minReadySeconds or the
// gate), the missing preStop sleep (a window at each old pod, none with
// the fix's sleep) and the short keep-alive (recurring, not a window;
// none with the fix).
func TestCheckPredictsALBRisks(t *testing.T) {
	for _, c := range []struct {
		manifest, rule, per string
		recurring           bool
		want                []int // seconds; -1: more than none
	}{
		{"eks-alb-no-gate/broken.yaml", "registration_lag/alb-readiness-gate", "", false, []int{153, 0, 0}},
		{"eks-alb-no-gate/broken.yaml", "termination_race/prestop", "old pod", false, []int{7, 0}},
		{"eks-alb-rollout-502/broken.yaml", "registration_lag/alb-readiness-gate", "", false, []int{-1, 0, 0}},
		{"eks-alb-ingressclassparams/keepalive.yaml", "keepalive_timeout/keepalive", "", true, []int{0, 0}},
	} {
		t.Run(c.manifest+" "+c.rule, func(t *testing.T) {
			rep := check(t, manifests(c.manifest))
			var f *report.CheckFinding
			for i := range rep.Findings {
				if rep.Findings[i].Rule == c.rule {
					f = &rep.Findings[i]
				}
			}
			if f == nil || f.Prediction == nil {
				t.Fatalf("no prediction for %s: %+v", c.rule, rep.Findings)
			}
			p := f.Prediction
			if len(p.Windows) != len(c.want) || p.Per != c.per || p.Status != 502 {
				t.Fatalf("prediction %+v, want %d windows per %q", p, len(c.want), c.per)
			}
			for i, w := range p.Windows {
				if w.Recurring != (c.recurring && i == 0) {
					t.Errorf("%s: recurring %v", w.Settings, w.Recurring)
				}
				if c.want[i] < 0 && w.Seconds == 0 || c.want[i] >= 0 && w.Seconds != c.want[i] {
					t.Errorf("%s: %d s predicted, want %d", w.Settings, w.Seconds, c.want[i])
				}
			}
			predictedInEveryFormat(t, rep, f)
		})
	}
}

// TestCheckNamesKindsItCannotJudge reads a StatefulSet, a DaemonSet and an
// Argo Rollout beside a Deployment: each is named in a warning with where
// it was read, never passed over in silence; the Deployment, the
// StatefulSet and the Rollout are checked, the StatefulSet and the Rollout
// saying which checks they are not judged by.
func TestCheckNamesKindsItCannotJudge(t *testing.T) {
	body, err := os.ReadFile(manifests("nginx-wrong-probe-port/broken.yaml"))
	must(t, err)
	others := `
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec: {serviceName: db, selector: {matchLabels: {app: db}}, template: {metadata: {labels: {app: db}}, spec: {containers: [{name: db, image: postgres}]}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: shop}
spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: agent, image: agent}]}}}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web-rollout, namespace: shop}
spec: {strategy: {canary: {}}}
`
	p := filepath.Join(t.TempDir(), "mixed.yaml")
	must(t, os.WriteFile(p, append(body, others...), 0o644))
	rep := check(t, p)
	if rep.Summary.Workloads != 3 || len(rep.Findings) == 0 {
		t.Errorf("the Deployment, StatefulSet and Rollout beside them: %d workloads, %d findings", rep.Summary.Workloads, len(rep.Findings))
	}
	for _, c := range []struct{ want, says string }{
		{"StatefulSet shop/db (", "checked in part: not for registration_lag"},
		{"DaemonSet shop/agent (", "not checked"},
		{"Rollout shop/web-rollout (", "checked in part: not for registration_lag (judged by the rollout_* checks only)"},
	} {
		found := false
		for _, w := range rep.Warnings {
			if strings.HasPrefix(w, c.want) && strings.Contains(w, "mixed.yaml:") && strings.Contains(w, c.says) {
				found = true
			}
		}
		if !found {
			t.Errorf("no warning for %s… %s: %q", c.want, c.says, rep.Warnings)
		}
	}
}

package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources/live"
	"github.com/readygap/readygap/sources/live/livetest"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// TestMain runs the command itself when READYGAP_RUN_MAIN is set, so that
// a test can run the test binary as readygap (the GitHub Action's script,
// the analysis of every sample); with READYGAP_PEAK_FILE set too, it writes
// its peak resident size there before it exits (see childPeakRSS).
func TestMain(m *testing.M) {
	if os.Getenv("READYGAP_RUN_MAIN") == "1" {
		os.Args = append([]string{"readygap"}, os.Args[1:]...)
		code := runMain()
		if f := os.Getenv("READYGAP_PEAK_FILE"); f != "" {
			writePeakRSS(f)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// manifest is the path of a file under fixtures/manifests.
func manifest(name string) string { return filepath.Join("..", "..", "fixtures", "manifests", name) }

func TestNewCmdCheck(t *testing.T) {
	for _, c := range []struct {
		name, args string
		want       checkOptions
		code       int
		err        string
	}{
		{name: "defaults", args: "deploy/", want: checkOptions{Paths: []string{"deploy/"}, Output: report.CheckText, FailOn: "error", Timeouts: live.DefaultTimeouts}},
		{name: "sarif, warnings fail", args: "-o sarif --fail-on warning a.yaml -", want: checkOptions{Paths: []string{"a.yaml", "-"}, Output: report.CheckSARIF, FailOn: "warning", Timeouts: live.DefaultTimeouts}},
		{name: "never fail", args: "--fail-on NONE -o junit x", want: checkOptions{Paths: []string{"x"}, Output: report.CheckJUnit, FailOn: "none", Timeouts: live.DefaultTimeouts}},
		{name: "live", args: "--context prod -n shop", want: checkOptions{Paths: []string{}, Output: report.CheckText, FailOn: "error", Context: "prod", Namespace: "shop", Timeouts: live.DefaultTimeouts}},
		{name: "bad output", args: "-o html x", code: exitUsage, err: "must be one of text, json, sarif, junit"},
		{name: "bad severity", args: "--fail-on info x", code: exitUsage, err: "must be one of warning, error, none"},
		{name: "nothing to read", args: "", code: exitUsage, err: "check needs PATHs"},
		{name: "both", args: "-n shop deploy/", code: exitUsage, err: "either PATHs or a cluster"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got *checkOptions
			cmd := newCheckCmd(func(o *checkOptions) error { got = o; return nil })
			harden(cmd)
			cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
			cmd.SetArgs(strings.Fields(c.args))
			cmd.SetOut(new(strings.Builder))
			cmd.SetErr(new(strings.Builder))
			err := cmd.Execute()
			if c.code != 0 {
				if exitCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v (exit %d), want exit %d and %q", err, exitCode(err), c.code, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.In, got.Out, got.ErrOut = nil, nil, nil
			if !reflect.DeepEqual(*got, c.want) {
				t.Errorf("options\n%+v\nwant\n%+v", *got, c.want)
			}
		})
	}
}

// TestCheckExitCodes runs the command on the seeds' manifests: exit 5 on
// a finding at or above --fail-on, 0 otherwise, the report in every case.
func TestCheckExitCodes(t *testing.T) {
	broken, fixed := manifest("eks-alb-rollout-502/broken.yaml"), manifest("eks-alb-rollout-502/fixed.yaml")
	out, errOut, code := runCLI(t, "", "check", broken)
	if code != exitRisk || !strings.Contains(out, "registration_lag/alb-readiness-gate") || !strings.Contains(errOut, "2 findings at or above --fail-on error") {
		t.Errorf("broken: exit %d, stderr %q\n%s", code, errOut, out)
	}
	if _, _, code := runCLI(t, "", "check", "--fail-on", "none", broken); code != exitOK {
		t.Errorf("--fail-on none: exit %d", code)
	}
	if out, _, code := runCLI(t, "", "check", fixed); code != exitOK || !strings.Contains(out, "No risk found") {
		t.Errorf("fixed: exit %d\n%s", code, out)
	}
	body, err := os.ReadFile(broken)
	must(t, err)
	out, _, code = runCLI(t, string(body), "check", "-o", "json", "-")
	var rep report.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitRisk || rep.Schema != report.CheckSchemaVersion || len(rep.Findings) != 2 ||
		rep.Findings[0].Object.File != "<stdin>" {
		t.Errorf("stdin as JSON: exit %d, %v\n%s", code, err, out)
	}
	if _, errOut, code := runCLI(t, "", "check", filepath.Join(t.TempDir(), "missing.yaml")); code != exitError || !strings.Contains(errOut, "no such file") {
		t.Errorf("a missing file: exit %d, %q", code, errOut)
	}
}

// kubeNamespace serves namespace shop: an ALB Ingress in IP mode before a
// Deployment whose namespace lacks the readiness-gate label, with one pod.
func kubeNamespace(t *testing.T) *livetest.Kube {
	k := livetest.NewKube(t)
	k.Paths["/api/v1/namespaces/shop"] = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}}`
	tmpl := `{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"web:2","ports":[{"containerPort":8080,"name":"http"}],"readinessProbe":{"httpGet":{"path":"/ready","port":"http"}},"lifecycle":{"preStop":{"sleep":{"seconds":20}}}}],"terminationGracePeriodSeconds":60}}`
	k.List("/api/v1/namespaces/shop/pods", "v1", "PodList",
		`{"metadata":{"name":"web-7d9f-abc","namespace":"shop","labels":{"app":"web"}},"spec":`+tmpl[strings.Index(tmpl, `"spec":`)+7:len(tmpl)-1]+`,"status":{"phase":"Running","podIP":"10.0.12.34"}}`)
	k.List("/apis/apps/v1/namespaces/shop/replicasets", "apps/v1", "ReplicaSetList")
	k.List("/apis/apps/v1/namespaces/shop/deployments", "apps/v1", "DeploymentList",
		`{"metadata":{"name":"web","namespace":"shop"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":`+tmpl+`}}`)
	k.List("/api/v1/namespaces/shop/services", "v1", "ServiceList",
		`{"metadata":{"name":"web","namespace":"shop"},"spec":{"selector":{"app":"web"},"ports":[{"name":"http","port":80,"targetPort":"http"}]}}`)
	k.List("/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices", "discovery.k8s.io/v1", "EndpointSliceList")
	k.List("/apis/networking.k8s.io/v1/namespaces/shop/ingresses", "networking.k8s.io/v1", "IngressList",
		`{"metadata":{"name":"web","namespace":"shop","annotations":{"alb.ingress.kubernetes.io/target-type":"ip"}},"spec":{"ingressClassName":"alb","defaultBackend":{"service":{"name":"web","port":{"name":"http"}}}}}`)
	return k
}

// TestCheckLiveCluster reads a namespace through the real client-go
// against the in-process API server: list and get calls only, no events,
// findings named without file and line; a forbidden list still gives the
// report of the rest, then exit 1.
func TestCheckLiveCluster(t *testing.T) {
	k := kubeNamespace(t)
	cfg := k.Kubeconfig(t, t.TempDir(), "check-token")
	out, errOut, code := runCLI(t, "", "check", "--kubeconfig", cfg, "-n", "shop")
	if code != exitRisk || !strings.Contains(out, "registration_lag/alb-readiness-gate") || !strings.Contains(out, "in namespace shop") ||
		strings.Contains(out, "objects.json") || !strings.Contains(errOut, "kubernetes: 5 objects read from namespace shop") {
		t.Fatalf("exit %d, stderr %q\n%s", code, errOut, out)
	}
	for _, r := range k.Requests() {
		if !strings.HasPrefix(r, "GET ") || strings.Contains(r, "/events") {
			t.Errorf("request %s", r)
		}
	}
	k.Forbidden["/api/v1/namespaces/shop/pods"] = true
	out, errOut, code = runCLI(t, "", "check", "--kubeconfig", cfg, "-n", "shop", "-o", "json")
	var rep report.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitError || len(rep.Findings) != 1 || rep.Findings[0].Object.File != "" ||
		!strings.Contains(errOut, `RBAC forbids list pods in namespace shop`) {
		t.Errorf("forbidden pods: exit %d, %v, stderr %q\n%s", code, err, errOut, out)
	}
	k.Unauthorized = true
	if _, errOut, code := runCLI(t, "", "check", "--kubeconfig", cfg, "-n", "shop"); code != exitError || !strings.Contains(errOut, "401") {
		t.Errorf("rejected credentials: exit %d, %q", code, errOut)
	}
}

// TestActionScript runs the check step of action.yml as GitHub's runner
// does (bash -eo pipefail, its environment) with this test binary as
// readygap: the SARIF and JUnit files it writes, the job summary, and the
// step's exit code under --fail-on.
func TestActionScript(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	must(t, err)
	var action struct {
		Runs struct {
			Steps []struct {
				ID  string `json:"id"`
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"runs"`
	}
	must(t, yaml.Unmarshal(raw, &action))
	script := ""
	for _, s := range action.Runs.Steps {
		if s.ID == "check" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no check step")
	}
	self, err := os.Executable()
	must(t, err)
	for failOn, want := range map[string]int{"error": exitRisk, "none": exitOK} {
		tmp := t.TempDir()
		must(t, os.WriteFile(filepath.Join(tmp, "readygap"), []byte("#!/bin/sh\nREADYGAP_RUN_MAIN=1 exec "+self+" \"$@\"\n"), 0o755))
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+tmp, "GITHUB_OUTPUT="+filepath.Join(tmp, "output"), "GITHUB_STEP_SUMMARY="+filepath.Join(tmp, "summary"),
			"PATHS=fixtures/manifests/nginx-wrong-probe-port/broken.yaml fixtures/manifests/eks-alb-rollout-502/fixed.yaml",
			"FAIL_ON="+failOn, "SARIF_FILE="+filepath.Join(tmp, "out.sarif"), "JUNIT_FILE="+filepath.Join(tmp, "junit.xml"))
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Fatalf("fail-on %s: exit %d (%v), want %d\n%s", failOn, code, err, want, out)
		}
		sarif, _ := os.ReadFile(filepath.Join(tmp, "out.sarif"))
		var log struct{ Runs []struct{ Results []any } }
		if json.Unmarshal(sarif, &log) != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 3 {
			t.Errorf("fail-on %s: SARIF %s", failOn, sarif)
		}
		junit, _ := os.ReadFile(filepath.Join(tmp, "junit.xml"))
		var suites struct {
			Failures int `xml:"failures,attr"`
		}
		if err := xml.Unmarshal(junit, &suites); err != nil || (failOn == "error") != (suites.Failures == 2) {
			t.Errorf("fail-on %s: JUnit %v %s", failOn, err, junit)
		}
		summary, _ := os.ReadFile(filepath.Join(tmp, "summary"))
		output, _ := os.ReadFile(filepath.Join(tmp, "output"))
		if !strings.Contains(string(summary), "wrong_probe_port/readiness-probe-port") || !strings.Contains(string(output), "sarif-file=") ||
			!strings.Contains(string(out), "3 risks") {
			t.Errorf("fail-on %s: summary %q, output %q, log\n%s", failOn, summary, output, out)
		}
	}
}

// TestCheckNotJudgedExitCodes runs the command on a manifest it cannot
// read (UTF-16 with an unpaired surrogate) and on a Deployment without its
// Service, in every format and for every --fail-on: the exit code, and
// that no format says "No risk found" or passes in silence; the complete
// manifest is the control.
func TestCheckNotJudgedExitCodes(t *testing.T) {
	body, err := os.ReadFile(manifest("eks-alb-rollout-502/fixed.yaml"))
	must(t, err)
	dir := t.TempDir()
	var u16 []byte
	for _, r := range "\ufeff" + string(body) {
		u16 = append(u16, byte(r), byte(r>>8))
	}
	u16 = append(u16[:300:300], append([]byte{0x00, 0xDC}, u16[300:]...)...)
	unread := filepath.Join(dir, "unread.yaml")
	must(t, os.WriteFile(unread, u16, 0o644))
	alone := filepath.Join(dir, "alone.yaml")
	must(t, os.WriteFile(alone, body[:strings.Index(string(body), "---\napiVersion: v1\nkind: Service")], 0o644))
	for _, c := range []struct {
		path          string
		codes         map[string]int // by --fail-on
		notJudged     string         // what every format says
		junitFailures string
	}{
		{unread, map[string]int{"error": exitRisk, "warning": exitRisk, "none": exitOK}, "unpaired UTF-16 surrogate DC00", ""},
		{alone, map[string]int{"error": exitOK, "warning": exitRisk, "none": exitOK}, "no Service among the inputs selects the pods", ""},
		{manifest("eks-alb-rollout-502/fixed.yaml"), map[string]int{"error": exitOK, "warning": exitOK, "none": exitOK}, "", ""},
	} {
		for failOn, code := range c.codes {
			for _, format := range []string{"text", "json", "sarif", "junit"} {
				out, errOut, got := runCLI(t, "", "check", "-o", format, "--fail-on", failOn, c.path)
				if got != code {
					t.Errorf("%s -o %s --fail-on %s: exit %d, want %d; stderr %q", filepath.Base(c.path), format, failOn, got, code, errOut)
				}
				flat := strings.ToLower(strings.Join(strings.Fields(out), " "))
				if c.notJudged != "" && (!strings.Contains(flat, strings.ToLower(c.notJudged)) || strings.Contains(flat, "no risk found")) {
					t.Errorf("%s -o %s --fail-on %s:\n%s", filepath.Base(c.path), format, failOn, out)
				}
				if c.notJudged == "" && format == "text" && !strings.HasPrefix(out, "No risk found") {
					t.Errorf("control -o %s:\n%s", format, out)
				}
			}
		}
	}
}

// TestCheckNeighbors runs check as the pre-commit hook does, on one changed
// file with --neighbors: the Service and Ingress beside it are read as
// context, and the workload is judged.
func TestCheckNeighbors(t *testing.T) {
	body, err := os.ReadFile(manifest("eks-alb-no-gate/broken.yaml"))
	must(t, err)
	dir := t.TempDir()
	for i, d := range strings.Split(string(body), "\n---\n") {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.yaml", i)), []byte(d+"\n"), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a manifest\n"), 0o644))
	changed := filepath.Join(dir, "1.yaml") // the Deployment
	if out, _, code := runCLI(t, "", "check", changed); code != exitOK || !strings.Contains(out, "Not judged in full") {
		t.Errorf("alone: exit %d\n%s", code, out)
	}
	out, _, code := runCLI(t, "", "check", "-o", "json", "--neighbors", changed)
	var rep report.CheckReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitRisk || len(rep.Findings) != 2 || len(rep.Context) != 3 || len(rep.NotJudged) != 0 {
		t.Errorf("with neighbours: exit %d, %v\n%s", code, err, out)
	}
	got, err := neighbors([]string{changed, filepath.Join(dir, "0.yaml"), "-"})
	if err != nil || strings.Join(got, " ") != filepath.Join(dir, "2.yaml")+" "+filepath.Join(dir, "3.yaml") {
		t.Errorf("neighbors %q, %v", got, err)
	}
}

// TestPreCommitHook checks the hook definition: it runs check through the
// script that installs a release (TestPreCommitScriptInstallsRelease runs
// it), and takes YAML and JSON files.
func TestPreCommitHook(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", ".pre-commit-hooks.yaml"))
	must(t, err)
	var hooks []struct {
		ID       string   `json:"id"`
		Entry    string   `json:"entry"`
		Language string   `json:"language"`
		TypesOr  []string `json:"types_or"`
	}
	must(t, yaml.Unmarshal(raw, &hooks))
	if len(hooks) != 1 || hooks[0].ID != "readygap-check" || hooks[0].Entry != "scripts/pre-commit.sh check --neighbors" || hooks[0].Language != "script" ||
		!reflect.DeepEqual(hooks[0].TypesOr, []string{"yaml", "json"}) {
		t.Errorf("hooks %+v", hooks)
	}
	// The hook hands check every YAML file of a commit: one that is no
	// manifest is a warning, not a failure.
	if out, _, code := runCLI(t, "", "check", filepath.Join("..", "..", ".pre-commit-hooks.yaml"), filepath.Join("..", "..", "action.yml")); code != exitOK || !strings.Contains(out, "not in a format") {
		t.Errorf("non-manifest YAML: exit %d\n%s", code, out)
	}
}

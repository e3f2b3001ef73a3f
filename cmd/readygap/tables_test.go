package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
)

// ingressGCE1718 is the `kubectl describe pod` rows of
// kubernetes/ingress-gce#1718 as published.
const ingressGCE1718 = "../../sources/testdata/samples/kubectl-describe/ingress-gce-1718-rows.txt"

// analyzeJSON runs analyze -o json with args and decodes the report.
func analyzeJSON(t *testing.T, args ...string) (report.Report, int) {
	t.Helper()
	out, errOut, code := runCLI(t, "", append([]string{"analyze", "-o", "json"}, args...)...)
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	return rep, code
}

// TestAnalyze1718 checks the textbook case of a NEG readiness gate opened
// without a health check, given as the describe rows alone: registration
// lag is named as a suspicion with what to export, within a verdict that
// cannot judge and counts no failure.
func TestAnalyze1718(t *testing.T) {
	rep, code := analyzeJSON(t, "--now", "2022-05-19T10:00:00Z", ingressGCE1718)
	if code != exitNotJudged || rep.Summary.Verdict != report.VerdictCannotJudge || rep.Summary.Incidents != 0 || rep.Summary.FailedRequests != 0 {
		t.Fatalf("exit %d, verdict %s, %d incidents, %d failed", code, rep.Summary.Verdict, rep.Summary.Incidents, rep.Summary.FailedRequests)
	}
	if len(rep.Notes) != 1 {
		t.Fatalf("notes %q, want the one suspicion", rep.Notes)
	}
	n := rep.Notes[0]
	for _, want := range []string{
		"Suspected registration lag (medium confidence, no failure counted: no request log was read)",
		"opened at 09:43:30 ± 30s", "LoadBalancerNegWithoutHealthCheck", "ingress-gce-1718-rows.txt:2",
		"readiness probe was failing at the same time", "ingress-gce-1718-rows.txt:3",
		`timestamp>="2022-05-19T09:28:00Z" AND timestamp<="2022-05-19T09:59:00Z"`, "gcloud logging read",
	} {
		if !strings.Contains(n, want) {
			t.Errorf("the note lacks %q:\n%s", want, n)
		}
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "anchored to --now 2022-05-19T10:00:00Z") {
		t.Errorf("warnings %q do not say how the ages were anchored", rep.Warnings)
	}

	// Without --now the times are order-only: no clock time, no window.
	rep, _ = analyzeJSON(t, ingressGCE1718)
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "at a time the table does not give") || !strings.Contains(rep.Notes[0], `timestamp>="START"`) {
		t.Errorf("order-only notes %q", rep.Notes)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "have no reference time") {
		t.Errorf("warnings %q do not say the ages are order-only", rep.Warnings)
	}
}

// TestAnalyze1718Controls: the gate opened by the load balancer's own
// health check raises nothing; without the failing probe the suspicion
// is of low confidence.
func TestAnalyze1718Controls(t *testing.T) {
	b, err := os.ReadFile(ingressGCE1718)
	must(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	dir := t.TempDir()
	healthy := filepath.Join(dir, "healthy.txt")
	gateOK := strings.Replace(lines[1], "LoadBalancerNegWithoutHealthCheck", "LoadBalancerNegReady            ", 1)
	must(t, os.WriteFile(healthy, []byte(lines[0]+"\n"+gateOK+"\n"+lines[2]+"\n"), 0o644))
	rep, _ := analyzeJSON(t, "--now", "2022-05-19T10:00:00Z", healthy)
	if rep.Inputs[0].Records != 3 || len(rep.Notes) != 0 {
		t.Errorf("gate opened by the LB: %d records, notes %q", rep.Inputs[0].Records, rep.Notes)
	}
	noProbe := filepath.Join(dir, "noprobe.txt")
	must(t, os.WriteFile(noProbe, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644))
	rep, _ = analyzeJSON(t, "--now", "2022-05-19T10:00:00Z", noProbe)
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "(low confidence") || strings.Contains(rep.Notes[0], "readiness probe") {
		t.Errorf("without the probe: notes %q", rep.Notes)
	}
}

// TestAnalyze1718WithRequestLog: once a request log is read, the rules
// judge from the failures it holds; the events raise no suspicion of their own.
func TestAnalyze1718WithRequestLog(t *testing.T) {
	rep, _ := analyzeJSON(t, "--now", "2022-05-19T10:00:00Z", ingressGCE1718, albSample)
	if rep.Summary.Coverage[0].Records == 0 {
		t.Fatalf("the request log was not read: %+v", rep.Summary.Coverage)
	}
	for _, n := range rep.Notes {
		if strings.Contains(n, "Suspected") {
			t.Errorf("a suspicion beside a request log: %s", n)
		}
	}
}

// albSample is a real ALB access log (samples/alb-access/NOTICE).
const albSample = "../../sources/testdata/samples/alb-access/open-telemetry--opentelemetry-collector-contrib--alb_al_valid_logs.log"

package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// flaggerIstioInputs writes a Flagger canary routed by Istio as a user
// exports it: the Istio ingress gateway's access log (`kubectl logs
// --timestamps`, Istio's default text format), Flagger's events on the
// Canary (`kubectl get events -o json`: reason Synced, source flagger,
// the messages of pkg/controller/scheduler*.go) and `kubectl get
// canaries,virtualservices,svc,pods -o yaml`. Flagger advances the canary
// weight to 10 at advanceAt; podinfo-canary's pod serves from readyAt, and
// until then the gateway has no healthy upstream in the canary's cluster
// for its share of the requests (503 UH no_healthy_upstream).
func flaggerIstioInputs(t *testing.T, advanceAt, readyAt time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var log strings.Builder
	line := func(at time.Time, status int, flags, details, upstream, cluster string) {
		fmt.Fprintf(&log, "%s [%s] \"GET /api/info HTTP/1.1\" %d %s %s - \"-\" 0 %d 2 2 \"203.0.113.10\" \"curl/8.5.0\" \"7c3e6a2e-1f4b-4d7e-9a51-%012d\" \"app.example.com\" \"%s\" outbound|9898||%s.test.svc.cluster.local - 10.244.0.12:8080 203.0.113.10:40312 - -\n",
			at.Format(time.RFC3339Nano), at.Format("2006-01-02T15:04:05.000Z"), status, flags, details, map[int]int{200: 412, 503: 19}[status], at.Sub(t0).Milliseconds(), upstream, cluster)
	}
	for ms := 0; ms < 120000; ms += 100 {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		d := time.Duration(ms) * time.Millisecond
		switch {
		case ms%500 == 0 && d >= advanceAt && d < readyAt:
			line(at, 503, "UH", "no_healthy_upstream", "-", "podinfo-canary")
		case ms%500 == 0 && d >= advanceAt:
			line(at, 200, "-", "via_upstream", "10.244.2.7:9898", "podinfo-canary")
		default:
			line(at, 200, "-", "via_upstream", "10.244.1.5:9898", "podinfo-primary")
		}
	}
	ev := func(at time.Duration, msg string) string {
		ts := t0.Add(at).Format(time.RFC3339)
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"podinfo.%x","namespace":"test"},
		  "involvedObject":{"apiVersion":"flagger.app/v1beta1","kind":"Canary","name":"podinfo","namespace":"test"},
		  "reason":"Synced","message":%q,"source":{"component":"flagger"},"firstTimestamp":%q,"lastTimestamp":%q,"count":1,"type":"Normal"}`,
			int64(at), msg, ts, ts)
	}
	events := "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + strings.Join([]string{
		ev(0, "New revision detected! Scaling up podinfo.test"),
		ev(5*time.Second, "Starting canary analysis for podinfo.test"),
		ev(advanceAt, "Advance podinfo.test canary weight 10"),
	}, ",") + "]}\n"
	objects := `apiVersion: flagger.app/v1beta1
kind: Canary
metadata: {name: podinfo, namespace: test}
spec:
  provider: istio
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: podinfo}
  service: {port: 9898, gateways: [istio-system/public-gateway], hosts: [app.example.com]}
  analysis: {interval: 10s, threshold: 5, maxWeight: 50, stepWeight: 10}
---
apiVersion: networking.istio.io/v1
kind: VirtualService
metadata: {name: podinfo, namespace: test}
spec:
  gateways: [istio-system/public-gateway]
  hosts: [app.example.com]
  http:
  - route:
    - destination: {host: podinfo-primary}
      weight: 90
    - destination: {host: podinfo-canary}
      weight: 10
---
apiVersion: v1
kind: Pod
metadata:
  name: podinfo-primary-56b5dc5bc-aaaaa
  namespace: test
  creationTimestamp: "2026-03-09T08:00:00Z"
  labels: {app: podinfo-primary, pod-template-hash: 56b5dc5bc}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: podinfo-primary-56b5dc5bc, uid: rs1, controller: true}]
spec: {containers: [{name: podinfo, image: "ghcr.io/stefanprodan/podinfo:6.7.0", ports: [{name: http, containerPort: 9898}]}]}
status:
  podIP: 10.244.1.5
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-09T08:00:10Z"}]
---
apiVersion: v1
kind: Pod
metadata:
  name: podinfo-7fdb8fff6b-ccccc
  namespace: test
  creationTimestamp: "2026-03-10T12:00:01Z"
  labels: {app: podinfo, pod-template-hash: 7fdb8fff6b}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: podinfo-7fdb8fff6b, uid: rs2, controller: true}]
spec: {containers: [{name: podinfo, image: "ghcr.io/stefanprodan/podinfo:6.7.1", ports: [{name: http, containerPort: 9898}]}]}
status:
  podIP: 10.244.2.7
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-10T12:00:04Z"}]
`
	for name, body := range map[string]string{"istio-ingressgateway.log": log.String(), "events.json": events, "objects.yaml": objects} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFlaggerIstioEndToEnd reads a Flagger Canary behind the Istio
// ingress gateway through the whole analysis: the weight advanced to the
// canary at 10 s while its cluster had no healthy upstream until 22 s.
// The incident names rollout_weight_no_healthy_target, the Canary's weight
// step and the interval that lets the canary's pods pass first; the same
// Canary advancing at 27 s (the fix) reports nothing.
func TestFlaggerIstioEndToEnd(t *testing.T) {
	rep, err := Analyze(context.Background(), []string{flaggerIstioInputs(t, 10*time.Second, 22*time.Second)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Incidents) != 1 {
		for _, in := range rep.Incidents {
			t.Logf("%s: %s", in.Cause, in.Summary)
		}
		t.Fatalf("%d incidents, want 1; warnings %q", len(rep.Incidents), rep.Warnings)
	}
	in := rep.Incidents[0]
	t.Logf("%s: %s; step %+v", in.Cause, in.Summary, in.Step)
	if in.Cause != "rollout_weight_no_healthy_target" || in.FailedRequests != 24 || in.Step == nil ||
		in.Step.Who != "Canary/podinfo" || !strings.Contains(in.Step.What, "canary weight") || !strings.Contains(in.Step.Source, "events.json:") {
		t.Errorf("incident %s, %d failed, step %+v: %s", in.Cause, in.FailedRequests, in.Step, in.Summary)
	}
	if d := in.Start.Sub(time.Date(2026, 3, 10, 12, 0, 10, 0, time.UTC)); d < -time.Second || d > time.Second {
		t.Errorf("starts %v", in.Start)
	}
	if len(in.Remediation) == 0 || !strings.Contains(in.Remediation[0].Title, "analysis.interval") || !strings.Contains(in.Remediation[0].Patch, "interval: 22s") {
		t.Errorf("fixes %+v", in.Remediation)
	}
	fixed, err := Analyze(context.Background(), []string{flaggerIstioInputs(t, 27*time.Second, 22*time.Second)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.Incidents) != 0 {
		t.Errorf("the control: %d incidents, first %s", len(fixed.Incidents), fixed.Incidents[0].Summary)
	}
}

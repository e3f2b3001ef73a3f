package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/readygap/readygap/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestArgoCanaryEndToEnd writes an Argo Rollouts canary behind
// ingress-nginx as a user exports it — `kubectl logs --timestamps` of the
// controller, `kubectl get events -o json` with the controller's own
// messages, `kubectl get rollout,rs,pods -o yaml` — and reads it through the
// whole analysis: setWeight 20 sent a fifth of the requests to a canary
// Service without an endpoint for 15 s. The incident names the
// rollout_weight_no_healthy_target cause and its step, the rollout is
// Rollout/web with its steps, and every format words the step.
func TestArgoCanaryEndToEnd(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var log strings.Builder
	line := func(at time.Time, status int, upstream, addr string) {
		tail := fmt.Sprintf("%s 150 0.002 %d", addr, status)
		if addr == "-" {
			tail = "- - - -"
		}
		fmt.Fprintf(&log, "%s 203.0.113.10 - - [%s] \"GET /api/items HTTP/1.1\" %d 190 \"-\" \"curl/8.5.0\" 87 0.002 [%s] [] %s 4a2f3e4a5b6c7d8e9f0a1b2c3d4e%04d\n",
			at.Format(time.RFC3339Nano), at.Format("02/Jan/2006:15:04:05 -0700"), status, upstream, tail, at.Sub(t0).Milliseconds()%10000)
	}
	for ms := 0; ms < 120000; ms += 100 {
		at := t0.Add(time.Duration(ms) * time.Millisecond)
		switch {
		case ms%500 == 0 && ms >= 10000 && ms < 25000:
			line(at, 503, "shop-web-canary-80", "-")
		case ms%500 == 0 && ms >= 25000:
			line(at, 200, "shop-web-canary-80", "10.244.2.7:8080")
		default:
			line(at, 200, "shop-web-80", "10.244.1.5:8080")
		}
	}
	ev := func(sec int, reason, msg string) string {
		ts := t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339)
		return fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"web.%x","namespace":"shop"},
		  "involvedObject":{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","name":"web","namespace":"shop"},
		  "reason":%q,"message":%q,"source":{"component":"rollouts-controller"},"firstTimestamp":%q,"lastTimestamp":%q,"count":1,"type":"Normal"}`,
			sec, reason, msg, ts, ts)
	}
	events := "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[" + strings.Join([]string{
		ev(9, "RolloutUpdated", "Rollout updated to revision 2"),
		ev(9, "NewReplicaSetCreated", "Created ReplicaSet web-7fdb8fff6b (revision 2)"),
		ev(9, "ScalingReplicaSet", "Scaled up ReplicaSet web-7fdb8fff6b (revision 2) from 0 to 1"),
		ev(10, "TrafficWeightUpdated", "Traffic weight updated from 0 to 20"),
		ev(10, "RolloutStepCompleted", "Rollout step 1/2 completed (setWeight: 20)"),
		ev(100, "SwitchService", "Switched selector for service 'web' from '56b5dc5bc' to '7fdb8fff6b'"),
		ev(100, "RolloutCompleted", "Rollout completed update to revision 2 (7fdb8fff6b): Completed all 2 canary steps"),
		ev(110, "ScalingReplicaSet", "Scaled down ReplicaSet web-56b5dc5bc (revision 1) from 1 to 0"),
	}, ",") + "]}\n"
	objects := `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web:2, ports: [{name: http, containerPort: 8080}]}]}
  strategy:
    canary:
      canaryService: web-canary
      stableService: web
      trafficRouting: {nginx: {stableIngress: web}}
      steps: [{setWeight: 20}, {pause: {duration: 60s}}]
---
apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: web-7fdb8fff6b
  namespace: shop
  labels: {app: web, rollouts-pod-template-hash: 7fdb8fff6b}
  annotations: {rollout.argoproj.io/revision: "2"}
  ownerReferences: [{apiVersion: argoproj.io/v1alpha1, kind: Rollout, name: web, uid: r1, controller: true}]
spec:
  selector: {matchLabels: {app: web, rollouts-pod-template-hash: 7fdb8fff6b}}
  template: {spec: {containers: [{name: web, image: web:2}]}}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-7fdb8fff6b-ccccc
  namespace: shop
  creationTimestamp: "2026-03-10T12:00:09Z"
  labels: {app: web, rollouts-pod-template-hash: 7fdb8fff6b}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7fdb8fff6b, uid: rs2, controller: true}]
spec: {containers: [{name: web, image: web:2, ports: [{containerPort: 8080}]}]}
status:
  podIP: 10.244.2.7
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-10T12:00:24Z"}]
`
	for name, body := range map[string]string{"ingress-nginx-controller.log": log.String(), "events.json": events, "objects.yaml": objects} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Analyze(context.Background(), []string{dir}, Options{})
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
	const stepText = "canary weight 0% → 20%"
	if in.Cause != "rollout_weight_no_healthy_target" || in.FailedRequests != 30 || in.Step == nil || in.Step.What != stepText ||
		in.Step.Who != "Rollout/web" || !strings.Contains(in.Step.Source, "events.json:") {
		t.Errorf("incident %s, %d failed, step %+v: %s", in.Cause, in.FailedRequests, in.Step, in.Summary)
	}
	if d := in.Start.Sub(t0.Add(10 * time.Second)); d < -time.Second || d > time.Second {
		t.Errorf("starts %v", in.Start)
	}
	if len(rep.Rollouts) != 1 || rep.Rollouts[0].Workload != "Rollout/web" || len(rep.Rollouts[0].Steps) < 4 {
		t.Fatalf("rollouts %+v", rep.Rollouts)
	}
	for _, f := range report.Formats {
		var b bytes.Buffer
		if err := report.Write(&b, f, rep); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if f == report.JSON {
			var back report.Report
			if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Incidents[0].Step == nil {
				t.Errorf("JSON: %v", err)
			}
		}
		for _, want := range []string{"canary weight 0% ", "Service web switched from pods 56b5dc5bc to pods 7fdb8fff6b"} {
			if f == report.Text || f == report.Markdown || f == report.HTML {
				if want == "Service web switched from pods 56b5dc5bc to pods 7fdb8fff6b" {
					continue // after the incident's timeline: in the JSON's rollout steps only
				}
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", f, want)
			}
		}
	}
}

package sources

import (
	"reflect"
	"testing"
	"time"
)

// A blue-green Rollout as Argo Rollouts' docs write one
// (docs/features/bluegreen.md), with its status after a promotion.
func TestK8sObjectsRolloutBlueGreen(t *testing.T) {
	cfg, _ := oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout",
	  "metadata":{"name":"web","namespace":"shop","annotations":{"rollout.argoproj.io/revision":"7"}},
	  "spec":{"replicas":3,"minReadySeconds":5,"selector":{"matchLabels":{"app":"web"}},
	    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"terminationGracePeriodSeconds":45,"containers":[{"name":"app","ports":[{"containerPort":8080}]}]}},
	    "strategy":{"blueGreen":{"activeService":"web-active","previewService":"web-preview","autoPromotionEnabled":false,
	      "scaleDownDelaySeconds":60,"prePromotionAnalysis":{"templates":[{"templateName":"readygap-gate"}]}}}},
	  "status":{"stableRS":"7fdb8fff6b","currentPodHash":"7fdb8fff6b","blueGreen":{"activeSelector":"7fdb8fff6b"}}}`)
	w, r := cfg.Workload, cfg.Rollout
	if cfg.Kind != "Rollout" || w == nil || r == nil {
		t.Fatalf("Rollout = %+v", cfg)
	}
	if *w.Replicas != 3 || w.MinReadySeconds != 5 || w.Strategy != "blueGreen" || w.Revision != "7" || w.Selector["app"] != "web" ||
		w.Template.TerminationGracePeriodSec != 45 || w.Template.Containers[0].Name != "app" {
		t.Errorf("workload = %+v", w)
	}
	if r.ActiveService != "web-active" || r.PreviewService != "web-preview" || *r.ScaleDownDelaySeconds != 60 ||
		r.AbortScaleDownDelaySeconds != nil || *r.AutoPromotionEnabled || r.AutoPromotionSeconds != nil ||
		!r.PrePromotionAnalysis || r.PostPromotionAnalysis || r.StableRS != "7fdb8fff6b" || r.ActiveSelector != "7fdb8fff6b" {
		t.Errorf("rollout = %+v", r)
	}
}

// A canary Rollout with ALB traffic routing (docs/features/traffic-management/alb.md)
// and steps of every shape the reader words.
func TestK8sObjectsRolloutCanary(t *testing.T) {
	cfg, _ := oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout",
	  "metadata":{"name":"web","namespace":"shop"},
	  "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"spec":{"containers":[{"name":"app"}]}},
	    "strategy":{"canary":{"canaryService":"web-canary","stableService":"web-stable","abortScaleDownDelaySeconds":0,
	      "trafficRouting":{"alb":{"ingress":"web","servicePort":80,"rootService":"web-root"}},
	      "steps":[{"setWeight":20},{"pause":{"duration":"1m"}},{"setWeight":50},{"pause":{"duration":30}},{"pause":{}},
	        {"setCanaryScale":{"weight":100}},{"analysis":{"templates":[{"templateName":"x"}]}}]}}}}`)
	r := cfg.Rollout
	if r == nil || r.Strategy != "canary" || r.CanaryService != "web-canary" || r.StableService != "web-stable" ||
		r.TrafficRouting != "alb" || r.ALBIngress != "web" || r.RootService != "web-root" || r.PingPong ||
		r.ScaleDownDelaySeconds != nil || *r.AbortScaleDownDelaySeconds != 0 {
		t.Fatalf("rollout = %+v", r)
	}
	want := []RolloutStepSpec{{"setWeight", 20, 0, false}, {"pause", -1, time.Minute, false}, {"setWeight", 50, 0, false},
		{"pause", -1, 30 * time.Second, false}, {"pause", -1, 0, true}, {"setCanaryScale", -1, 0, false}, {"analysis", -1, 0, false}}
	if !reflect.DeepEqual(r.Steps, want) {
		t.Errorf("steps = %+v\nwant %+v", r.Steps, want)
	}

	cfg, _ = oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","metadata":{"name":"api","namespace":"shop"},
	  "spec":{"strategy":{"canary":{"pingPong":{"pingService":"api-ping","pongService":"api-pong"},
	    "trafficRouting":{"nginx":{"stableIngresses":["api"]}}}}}}`)
	if r := cfg.Rollout; r.TrafficRouting != "nginx" || r.StableIngress != "api" || !r.PingPong {
		t.Errorf("nginx rollout = %+v", r)
	}
	cfg, _ = oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","metadata":{"name":"api","namespace":"shop"},
	  "spec":{"strategy":{"canary":{"trafficRouting":{"plugins":{"argoproj-labs/gatewayAPI":{"httpRoute":"api"}}}}}}}`)
	if r := cfg.Rollout; r.TrafficRouting != "plugin:argoproj-labs/gatewayAPI" {
		t.Errorf("Gateway API rollout = %+v", r)
	}
}

// A ReplicaSet that a Rollout owns names it, and its hash and revision
// come from Argo's own label and annotation.
func TestK8sObjectsRolloutReplicaSet(t *testing.T) {
	cfg, _ := oneConfig(t, `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-7fdb8fff6b","namespace":"shop",
	  "labels":{"app":"web","rollouts-pod-template-hash":"7fdb8fff6b"},"annotations":{"rollout.argoproj.io/revision":"7"},
	  "ownerReferences":[{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","name":"web","uid":"r1","controller":true,"blockOwnerDeletion":true}]},
	  "spec":{"selector":{"matchLabels":{"app":"web","rollouts-pod-template-hash":"7fdb8fff6b"}},"template":{"spec":{"containers":[]}}}}`)
	if w := cfg.Workload; w.Rollout != "web" || w.Deployment != "" || w.PodTemplateHash != "7fdb8fff6b" || w.Revision != "7" {
		t.Errorf("ReplicaSet = %+v", w)
	}
}

// A Flagger Canary (docs/gitbook/tutorials/nginx-progressive-delivery.md).
func TestK8sObjectsFlaggerCanary(t *testing.T) {
	cfg, _ := oneConfig(t, `{"apiVersion":"flagger.app/v1beta1","kind":"Canary","metadata":{"name":"podinfo","namespace":"test"},
	  "spec":{"provider":"nginx","targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"podinfo"},
	    "service":{"port":80,"targetPort":9898},
	    "analysis":{"interval":"10s","threshold":10,"maxWeight":50,"stepWeight":5}},
	  "status":{"phase":"Succeeded"}}`)
	c := cfg.Canary
	if c == nil || c.Provider != "nginx" || c.TargetKind != "Deployment" || c.TargetName != "podinfo" || c.Port != 80 ||
		c.Interval != 10*time.Second || c.Threshold != 10 || c.MaxWeight != 50 || c.StepWeight != 5 || c.Phase != "Succeeded" {
		t.Errorf("Canary = %+v", c)
	}
}

func TestArgoDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "1m": time.Minute, "2h": 2 * time.Hour, "45": 45 * time.Second, "x": 0, "-5s": 0} {
		cfg, _ := oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","metadata":{"name":"a"},
		  "spec":{"strategy":{"canary":{"steps":[{"pause":{"duration":"`+in+`"}}]}}}}`)
		if got := cfg.Rollout.Steps[0]; got.Pause != want || got.Indefinite != (want == 0) {
			t.Errorf("%q: %+v, want %v", in, got, want)
		}
	}
}

// A Rollout that runs a Deployment's pod template
// (docs/migrating.md, spec.workloadRef): no template of its own, the
// Deployment named; without a kind the reference is to a Deployment.
func TestK8sObjectsRolloutWorkloadRef(t *testing.T) {
	cfg, _ := oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout",
	  "metadata":{"name":"web","namespace":"shop"},
	  "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"}},
	    "workloadRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web-template"},
	    "strategy":{"blueGreen":{"activeService":"web","previewService":"web-preview"}}}}`)
	if cfg.Rollout == nil || cfg.Rollout.WorkloadRef != "Deployment/web-template" {
		t.Fatalf("rollout = %+v", cfg.Rollout)
	}
	if tpl := cfg.Workload.Template; tpl != nil && len(tpl.Containers) != 0 {
		t.Errorf("template = %+v, want none of its own", tpl)
	}
	cfg, _ = oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","metadata":{"name":"web"},
	  "spec":{"workloadRef":{"name":"web-template"},"strategy":{"canary":{}}}}`)
	if cfg.Rollout.WorkloadRef != "Deployment/web-template" {
		t.Errorf("reference without a kind: %q", cfg.Rollout.WorkloadRef)
	}
	cfg, _ = oneConfig(t, `{"apiVersion":"argoproj.io/v1alpha1","kind":"Rollout","metadata":{"name":"web"},"spec":{"strategy":{"canary":{}}}}`)
	if cfg.Rollout.WorkloadRef != "" {
		t.Errorf("no reference: %q", cfg.Rollout.WorkloadRef)
	}
}

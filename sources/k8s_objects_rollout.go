package sources

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Progressive-delivery objects: Argo Rollouts' Rollout
// (argoproj.io/v1alpha1, pkg/apis/rollouts/v1alpha1/types.go) and
// Flagger's Canary (flagger.app/v1beta1, pkg/apis/flagger/v1beta1). Only
// the fields the rules read are decoded, into local types that mirror the
// upstream JSON names, so that neither project's module enters the build.

// RolloutLabelPodTemplateHash is the label Argo Rollouts puts on the
// ReplicaSets and pods of a Rollout and on the selectors of the Services it
// manages (types.go DefaultRolloutUniqueLabelKey).
const RolloutLabelPodTemplateHash = "rollouts-pod-template-hash"

// Rollout holds what an Argo Rollout says about how it moves traffic.
// Pointers are nil when the field is unset: the controller's defaults are
// the rules' business (see ArgoScaleDownDelayDefault).
type Rollout struct {
	// Strategy is "canary" or "blueGreen"; "" when neither is set.
	Strategy string
	// ActiveService and PreviewService are blueGreen's; CanaryService and
	// StableService canary's.
	ActiveService, PreviewService string
	CanaryService, StableService  string
	// ScaleDownDelaySeconds is the strategy's scaleDownDelaySeconds.
	ScaleDownDelaySeconds *int
	// AbortScaleDownDelaySeconds is abortScaleDownDelaySeconds.
	AbortScaleDownDelaySeconds *int
	// AutoPromotionEnabled and AutoPromotionSeconds are blueGreen's.
	AutoPromotionEnabled *bool
	AutoPromotionSeconds *int
	// PrePromotionAnalysis is set when blueGreen runs an analysis before
	// switching the active Service; PostPromotionAnalysis after.
	PrePromotionAnalysis, PostPromotionAnalysis bool
	// Steps are canary's steps in order.
	Steps []RolloutStepSpec
	// TrafficRouting names the canary's traffic router: alb, nginx, istio,
	// smi, ambassador, appMesh, traefik, apisix, plugin:<name>; "" when
	// none (the canary then moves traffic by replica counts).
	TrafficRouting string
	// ALBIngress is trafficRouting.alb.ingress (or the first of ingresses);
	// RootService trafficRouting.alb.rootService; StableIngress
	// trafficRouting.nginx.stableIngress (or the first of stableIngresses).
	ALBIngress, RootService, StableIngress string
	// PingPong is set when canary uses pingPong Services.
	PingPong bool
	// DynamicStableScale is canary's dynamicStableScale.
	DynamicStableScale bool
	// StableRS and CurrentPodHash are status.stableRS and
	// status.currentPodHash; ActiveSelector status.blueGreen.activeSelector.
	StableRS, CurrentPodHash, ActiveSelector string
	// WorkloadRef is spec.workloadRef as "Kind/name" ("Deployment/web"):
	// the workload whose pod template the Rollout runs in place of its
	// own spec.template; "" when unset.
	WorkloadRef string
}

// RolloutStepSpec is one canary step: the kinds readygap words, the rest
// named by their field.
type RolloutStepSpec struct {
	// Kind is the step's field: setWeight, pause, analysis, experiment,
	// setCanaryScale, setHeaderRoute, setMirrorRoute, plugin.
	Kind string
	// Weight is setWeight's value; -1 for other steps.
	Weight int
	// Pause is pause.duration; 0 with Indefinite set for `pause: {}`.
	Pause      time.Duration
	Indefinite bool
}

// ArgoScaleDownDelayDefault is Argo Rollouts' default scaleDownDelaySeconds
// for blue-green and for canary with trafficRouting, and its default
// abortScaleDownDelaySeconds (utils/defaults/defaults.go).
const ArgoScaleDownDelayDefault = 30

// FlaggerCanary holds what a Flagger Canary says about its rollout.
type FlaggerCanary struct {
	// TargetKind and TargetName are spec.targetRef's.
	TargetKind, TargetName string
	// Provider is spec.provider ("" when unset: the -mesh-provider flag,
	// istio by default).
	Provider string
	// Service is spec.service.name ("" means the target's name), Port its port.
	Service string
	Port    int
	// Interval is spec.analysis.interval; 0 when unset (60 s).
	Interval time.Duration
	// StepWeight, MaxWeight and Threshold are spec.analysis's; 0 when unset.
	StepWeight, MaxWeight, Threshold int
	// Phase is status.phase.
	Phase string
}

// argoRollout mirrors the fields of an Argo Rollout that readygap reads.
type argoRollout struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		Replicas                *int32                  `json:"replicas"`
		MinReadySeconds         int32                   `json:"minReadySeconds"`
		Selector                *metav1.LabelSelector   `json:"selector"`
		Template                corev1.PodTemplateSpec  `json:"template"`
		ProgressDeadlineSeconds *int32                  `json:"progressDeadlineSeconds"`
		Strategy                argoRolloutStrategySpec `json:"strategy"`
		WorkloadRef             *struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"workloadRef"`
	} `json:"spec"`
	Status struct {
		StableRS       string `json:"stableRS"`
		CurrentPodHash string `json:"currentPodHash"`
		BlueGreen      struct {
			ActiveSelector string `json:"activeSelector"`
		} `json:"blueGreen"`
	} `json:"status"`
}

type argoRolloutStrategySpec struct {
	BlueGreen *struct {
		ActiveService              string           `json:"activeService"`
		PreviewService             string           `json:"previewService"`
		AutoPromotionEnabled       *bool            `json:"autoPromotionEnabled"`
		AutoPromotionSeconds       *int32           `json:"autoPromotionSeconds"`
		ScaleDownDelaySeconds      *int32           `json:"scaleDownDelaySeconds"`
		AbortScaleDownDelaySeconds *int32           `json:"abortScaleDownDelaySeconds"`
		PrePromotionAnalysis       *json.RawMessage `json:"prePromotionAnalysis"`
		PostPromotionAnalysis      *json.RawMessage `json:"postPromotionAnalysis"`
	} `json:"blueGreen"`
	Canary *struct {
		CanaryService              string                       `json:"canaryService"`
		StableService              string                       `json:"stableService"`
		Steps                      []map[string]json.RawMessage `json:"steps"`
		TrafficRouting             map[string]json.RawMessage   `json:"trafficRouting"`
		ScaleDownDelaySeconds      *int32                       `json:"scaleDownDelaySeconds"`
		AbortScaleDownDelaySeconds *int32                       `json:"abortScaleDownDelaySeconds"`
		DynamicStableScale         bool                         `json:"dynamicStableScale"`
		PingPong                   *json.RawMessage             `json:"pingPong"`
	} `json:"canary"`
}

// trafficRouters are the keys of canary.trafficRouting that name a router,
// in the order readygap reports the first one set.
var trafficRouters = []string{"alb", "nginx", "istio", "smi", "ambassador", "appMesh", "traefik", "apisix", "plugins"}

// decodeRollout reads an Argo Rollout: its pod template and replicas as a
// Workload (Strategy is the Rollout's strategy), and its traffic facts as
// a Rollout.
func decodeRollout(elem []byte, c *Config, out *Emitter) error {
	var r argoRollout
	if err := json.Unmarshal(elem, &r); err != nil {
		return err
	}
	setMeta(c, &r.Metadata)
	w := workloadFacts(&r.Metadata, r.Spec.Replicas, r.Spec.MinReadySeconds, r.Spec.Selector, &r.Spec.Template)
	w.Revision = r.Metadata.Annotations["rollout.argoproj.io/revision"]
	if d := r.Spec.ProgressDeadlineSeconds; d != nil {
		n := int(*d)
		w.ProgressDeadlineSec = &n
	}
	f := &Rollout{StableRS: r.Status.StableRS, CurrentPodHash: r.Status.CurrentPodHash, ActiveSelector: r.Status.BlueGreen.ActiveSelector}
	if ref := r.Spec.WorkloadRef; ref != nil && ref.Name != "" {
		f.WorkloadRef = cmp.Or(ref.Kind, "Deployment") + "/" + ref.Name
	}
	if bg := r.Spec.Strategy.BlueGreen; bg != nil {
		f.Strategy = "blueGreen"
		f.ActiveService, f.PreviewService = bg.ActiveService, bg.PreviewService
		f.ScaleDownDelaySeconds, f.AbortScaleDownDelaySeconds = int32Ptr(bg.ScaleDownDelaySeconds), int32Ptr(bg.AbortScaleDownDelaySeconds)
		f.AutoPromotionEnabled, f.AutoPromotionSeconds = bg.AutoPromotionEnabled, int32Ptr(bg.AutoPromotionSeconds)
		f.PrePromotionAnalysis = rawSet(bg.PrePromotionAnalysis)
		f.PostPromotionAnalysis = rawSet(bg.PostPromotionAnalysis)
	} else if ca := r.Spec.Strategy.Canary; ca != nil {
		f.Strategy = "canary"
		f.CanaryService, f.StableService = ca.CanaryService, ca.StableService
		f.ScaleDownDelaySeconds, f.AbortScaleDownDelaySeconds = int32Ptr(ca.ScaleDownDelaySeconds), int32Ptr(ca.AbortScaleDownDelaySeconds)
		f.DynamicStableScale, f.PingPong = ca.DynamicStableScale, rawSet(ca.PingPong)
		for _, s := range ca.Steps {
			f.Steps = append(f.Steps, rolloutStep(s))
		}
		readTrafficRouting(f, ca.TrafficRouting)
	}
	w.Strategy = f.Strategy
	c.Workload, c.Rollout = w, f
	out.Config(c)
	return nil
}

// readTrafficRouting names the canary's router and the Ingress or Service
// it writes weights to.
func readTrafficRouting(f *Rollout, tr map[string]json.RawMessage) {
	for _, k := range trafficRouters {
		raw, ok := tr[k]
		if !ok || !rawSet(&raw) {
			continue
		}
		f.TrafficRouting = k
		switch k {
		case "alb":
			var alb struct {
				Ingress     string   `json:"ingress"`
				Ingresses   []string `json:"ingresses"`
				RootService string   `json:"rootService"`
			}
			if json.Unmarshal(raw, &alb) == nil {
				f.ALBIngress, f.RootService = alb.Ingress, alb.RootService
				if f.ALBIngress == "" && len(alb.Ingresses) > 0 {
					f.ALBIngress = alb.Ingresses[0]
				}
			}
		case "nginx":
			var ng struct {
				StableIngress   string   `json:"stableIngress"`
				StableIngresses []string `json:"stableIngresses"`
			}
			if json.Unmarshal(raw, &ng) == nil {
				f.StableIngress = ng.StableIngress
				if f.StableIngress == "" && len(ng.StableIngresses) > 0 {
					f.StableIngress = ng.StableIngresses[0]
				}
			}
		case "plugins":
			var names map[string]json.RawMessage
			if json.Unmarshal(raw, &names) == nil {
				for n := range names {
					if f.TrafficRouting == "plugins" || "plugin:"+n < f.TrafficRouting {
						f.TrafficRouting = "plugin:" + n
					}
				}
			}
		}
		return
	}
}

// rolloutStep reads one canary step.
func rolloutStep(s map[string]json.RawMessage) RolloutStepSpec {
	st := RolloutStepSpec{Weight: -1}
	for k := range s {
		if st.Kind == "" || k < st.Kind {
			st.Kind = k
		}
	}
	switch st.Kind {
	case "setWeight":
		var n int32
		if json.Unmarshal(s["setWeight"], &n) == nil {
			st.Weight = int(n)
		}
	case "pause":
		var p struct {
			Duration *intstr.IntOrString `json:"duration"`
		}
		if json.Unmarshal(s["pause"], &p) != nil || p.Duration == nil {
			st.Indefinite = true
			break
		}
		st.Pause = argoDuration(*p.Duration)
		st.Indefinite = st.Pause <= 0
	}
	return st
}

// argoDuration reads an Argo pause duration: an integer of seconds or a
// string of an integer with an optional unit s, m or h (types.go
// DurationString); 0 when it reads none.
func argoDuration(v intstr.IntOrString) time.Duration {
	if v.Type == intstr.Int {
		return time.Duration(v.IntVal) * time.Second
	}
	s := v.StrVal
	unit := time.Second
	switch {
	case strings.HasSuffix(s, "h"):
		unit, s = time.Hour, s[:len(s)-1]
	case strings.HasSuffix(s, "m"):
		unit, s = time.Minute, s[:len(s)-1]
	case strings.HasSuffix(s, "s"):
		s = s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * unit
}

// flaggerCanary mirrors the fields of a Flagger Canary that readygap reads.
type flaggerCanary struct {
	Metadata metav1.ObjectMeta `json:"metadata"`
	Spec     struct {
		TargetRef struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"targetRef"`
		Provider string `json:"provider"`
		Service  struct {
			Name string `json:"name"`
			Port int32  `json:"port"`
		} `json:"service"`
		Analysis *struct {
			Interval   string `json:"interval"`
			StepWeight int32  `json:"stepWeight"`
			MaxWeight  int32  `json:"maxWeight"`
			Threshold  int32  `json:"threshold"`
		} `json:"analysis"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase"`
	} `json:"status"`
}

// decodeFlaggerCanary reads a Flagger Canary.
func decodeFlaggerCanary(elem []byte, c *Config, out *Emitter) error {
	var fc flaggerCanary
	if err := json.Unmarshal(elem, &fc); err != nil {
		return err
	}
	setMeta(c, &fc.Metadata)
	f := &FlaggerCanary{TargetKind: fc.Spec.TargetRef.Kind, TargetName: fc.Spec.TargetRef.Name, Provider: fc.Spec.Provider,
		Service: fc.Spec.Service.Name, Port: int(fc.Spec.Service.Port), Phase: fc.Status.Phase}
	if a := fc.Spec.Analysis; a != nil {
		f.StepWeight, f.MaxWeight, f.Threshold = int(a.StepWeight), int(a.MaxWeight), int(a.Threshold)
		if d, err := time.ParseDuration(a.Interval); err == nil && d > 0 {
			f.Interval = d
		}
	}
	c.Canary = f
	out.Config(c)
	return nil
}

// int32Ptr converts an optional int32 field.
func int32Ptr(p *int32) *int {
	if p == nil {
		return nil
	}
	n := int(*p)
	return &n
}

// rawSet reports whether an optional JSON field is present and not null.
func rawSet(r *json.RawMessage) bool {
	return r != nil && len(*r) > 0 && string(*r) != "null"
}

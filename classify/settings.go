package classify

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Platform defaults, used when no object states the setting.
const (
	// gkeDefaultInterval and gkeDefaultHealthy are the health check GKE
	// Ingress creates for NEG backends without a BackendConfig: every 15 s,
	// healthy after one success (GKE Ingress docs, "Health checks").
	gkeDefaultInterval = 15
	gkeDefaultHealthy  = 1
	// albDefaultInterval and albDefaultHealthy are the AWS Load Balancer
	// Controller's target-group defaults: healthcheck-interval-seconds 15,
	// healthy-threshold-count 2 (its annotations reference).
	albDefaultInterval = 15
	albDefaultHealthy  = 2
	// defaultMaxUnavailable is a Deployment's rollingUpdate.maxUnavailable
	// when unset (the Kubernetes API default).
	defaultMaxUnavailable = "25%"
)

// workload is what is known about the Deployment behind a rollout.
type workload struct {
	Namespace, Name string
	// Replicas is spec.replicas; 0 when unknown.
	Replicas        int
	MinReadySeconds int
	MaxSurge        string
	MaxUnavailable  string
	// Template is the pod template; nil when unknown.
	Template *sources.PodSpec
	// Known is true when a Deployment object was read.
	Known bool
}

// placeholderName stands for an object whose name no record gives; fixes
// keep it visible so that a reader fills it in.
func placeholderName(kind string) string { return "<" + strings.ToLower(kind) + ">" }

// findWorkload finds the Deployment behind a finding: its rollout's
// workload, else the one Deployment object read, else the one whose pods
// failed.
func findWorkload(a *correlate.Analysis, r *correlate.Rollout, refs []BackendRef) workload {
	ns, name := "", ""
	if r != nil {
		ns, name = r.Namespace, r.Workload
	}
	if name == "" {
		for _, ref := range refs {
			if ref.Of != nil && ref.Of.Workload != "" {
				ns, name = ref.Of.Namespace, ref.Of.Workload
				break
			}
		}
	}
	deployments := a.ConfigsOf("Deployment")
	for _, c := range deployments {
		if (c.Name == name && (ns == "" || c.Namespace == ns)) || (name == "" && len(deployments) == 1) {
			return workloadOf(c)
		}
	}
	if name == "" {
		name = placeholderName("Deployment")
	}
	return workload{Namespace: ns, Name: name}
}

// workloadOf is what a Deployment object says about its rollouts.
func workloadOf(c *sources.Config) workload {
	wl := workload{Namespace: c.Namespace, Name: c.Name, Known: true}
	if c.Workload != nil {
		if c.Workload.Replicas != nil {
			wl.Replicas = *c.Workload.Replicas
		}
		wl.MinReadySeconds = c.Workload.MinReadySeconds
		wl.MaxSurge, wl.MaxUnavailable = c.Workload.MaxSurge, c.Workload.MaxUnavailable
		wl.Template = c.Workload.Template
	}
	return wl
}

// healthCheck is the load balancer's health-check timing as an object
// states it or the platform defaults it.
type healthCheck struct {
	IntervalSec, HealthyThreshold int
	// JitterSec is the longest wait before a new backend's first check
	// (Envoy's initial jitter); 0 elsewhere.
	JitterSec int
	// Object is the object the numbers came from (Kind, namespace, name);
	// Kind is "" when they are the platform's defaults, "none" when the
	// proxy runs no active check.
	Kind, Namespace, Name string
}

// Time is how long a new backend needs at the least to pass the health check.
func (h healthCheck) Time() time.Duration {
	return time.Duration(h.JitterSec+h.IntervalSec*h.HealthyThreshold) * time.Second
}

// Source says where the numbers came from, for a reader.
func (h healthCheck) Source() string {
	switch {
	case h.Kind == "none":
		return "no active health check: Envoy sends to an endpoint as soon as the control plane hands it over"
	case h.Kind == "TargetGroupBinding":
		return fmt.Sprintf("AWS's defaults for a target group made outside Kubernetes, as TargetGroupBinding %s/%s binds (%d s × %d)", h.Namespace, h.Name, h.IntervalSec, h.HealthyThreshold)
	case h.Kind == "BackendConfig" || h.Kind == "BackendTrafficPolicy":
		return fmt.Sprintf("%s %s/%s", h.Kind, h.Namespace, h.Name)
	case h.Kind != "":
		return fmt.Sprintf("the %s %s/%s annotations", h.Kind, h.Namespace, h.Name)
	}
	return fmt.Sprintf("the platform defaults (%d s × %d)", h.IntervalSec, h.HealthyThreshold)
}

// healthCheckOf reads the health-check timing the objects state for the
// load-balancer family, falling back to its defaults.
func healthCheckOf(objs *Objects, family sources.Family) healthCheck {
	if family == sources.FamilyEnvoy {
		h, _ := envoyHealthCheckOf(objs)
		return h
	}
	h := healthCheck{IntervalSec: gkeDefaultInterval, HealthyThreshold: gkeDefaultHealthy}
	from := "BackendConfig"
	if family == sources.FamilyALB {
		h = healthCheck{IntervalSec: albDefaultInterval, HealthyThreshold: albDefaultHealthy}
		from = "annotations"
	}
	for _, c := range objs.All() {
		hc := c.HealthCheck
		if hc == nil || !strings.Contains(hc.Source, from) || (hc.IntervalSec == nil && hc.HealthyThreshold == nil) {
			continue
		}
		if hc.IntervalSec != nil {
			h.IntervalSec = *hc.IntervalSec
		}
		if hc.HealthyThreshold != nil {
			h.HealthyThreshold = *hc.HealthyThreshold
		}
		h.Kind, h.Namespace, h.Name = c.Kind, c.Namespace, c.Name
		break
	}
	return h
}

// backendConfigOf returns the BackendConfig the objects name for the
// workload's Service (or the only one read); ok is false when none is known.
func backendConfigOf(objs *Objects) (ns, name string, ok bool) {
	c := firstConfig(objs, "BackendConfig")
	if c == nil {
		return "", "", false
	}
	return c.Namespace, c.Name, true
}

// ingressOf returns the Ingress the objects name (the first by name); ok is
// false when none was read.
func ingressOf(objs *Objects) (ns, name string, ok bool) {
	c := firstConfig(objs, "Ingress")
	if c == nil {
		return "", "", false
	}
	return c.Namespace, c.Name, true
}

// ceilSeconds rounds a duration up to whole seconds.
func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// upperFirst returns s with its first letter in upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

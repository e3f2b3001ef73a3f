package classify

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Platforms a window's failures can come from.
const (
	platformGKE   = "gke"
	platformALB   = "alb"
	platformNginx = "ingress-nginx"
)

// platformOf names the load balancer that logged the window's failures.
func platformOf(w *correlate.Window) string {
	counts := map[sources.Format]int{}
	for _, r := range w.Signals {
		counts[r.Format]++
	}
	switch {
	case counts[sources.FormatGCPLogging] > 0:
		return platformGKE
	case counts[sources.FormatALBAccess] > 0:
		return platformALB
	case counts[sources.FormatIngressNginx] > 0:
		return platformNginx
	}
	return ""
}

// workload is what is known about the Deployment behind the failing backends.
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

// findWorkload finds the Deployment behind the rollout of window w: the one
// object when there is one, else the one whose ReplicaSets scaled around w.
func findWorkload(a *correlate.Analysis, w *correlate.Window) workload {
	deployments := a.ConfigsOf("Deployment")
	scaled := map[string]string{} // deployment → namespace
	for _, l := range a.EventsBetween(w.Start.Add(-15*time.Minute), w.End.Add(time.Minute), sources.ScaledUp, sources.ScaledDown) {
		if name, ok := strings.CutPrefix(l.Object, "Deployment/"); ok {
			scaled[name] = l.Namespace
		}
	}
	for _, c := range deployments {
		if _, ok := scaled[c.Name]; ok || len(deployments) == 1 {
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
	}
	names := make([]string, 0, len(scaled))
	for name := range scaled {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > 0 {
		return workload{Namespace: scaled[names[0]], Name: names[0]}
	}
	return workload{Name: "<deployment>"}
}

// healthCheck is the load balancer's health-check timing as observed or defaulted.
type healthCheck struct {
	IntervalSec, HealthyThreshold int
	// Source says where the numbers came from.
	Source string
}

// Time is how long a new backend needs at the least to pass the health check.
func (h healthCheck) Time() time.Duration {
	return time.Duration(h.IntervalSec*h.HealthyThreshold) * time.Second
}

// healthCheckOf reads the health-check timing the objects state, falling
// back to the platform's defaults.
func healthCheckOf(a *correlate.Analysis, platform string) healthCheck {
	h := healthCheck{IntervalSec: 15, HealthyThreshold: 1, Source: "the GKE Ingress default for NEG backends (15 s × 1)"}
	wantSource := "BackendConfig"
	if platform == platformALB {
		h = healthCheck{IntervalSec: 15, HealthyThreshold: 2, Source: "the AWS Load Balancer Controller defaults (15 s × 2)"}
		wantSource = "annotations"
	}
	for _, c := range a.Configs {
		hc := c.HealthCheck
		if hc == nil || !strings.Contains(hc.Source, wantSource) || (hc.IntervalSec == nil && hc.HealthyThreshold == nil) {
			continue
		}
		if hc.IntervalSec != nil {
			h.IntervalSec = *hc.IntervalSec
		}
		if hc.HealthyThreshold != nil {
			h.HealthyThreshold = *hc.HealthyThreshold
		}
		h.Source = fmt.Sprintf("%s %s/%s", hc.Source, c.Namespace, c.Name)
		break
	}
	return h
}

// ceilSeconds rounds a duration up to whole seconds.
func ceilSeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

// deploymentPatch renders a strategic-merge patch of a Deployment's spec.
func deploymentPatch(wl workload, spec string) string {
	ns := ""
	if wl.Namespace != "" {
		ns = "\n  namespace: " + wl.Namespace
	}
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s%s\nspec:\n%s", wl.Name, ns, indent(spec, "  "))
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// rolloutStrategyFix keeps the old pods until the new ones are available.
func rolloutStrategyFix(wl workload) Fix {
	return Fix{
		Title: "Never take an old pod away before its replacement is available",
		Why:   fmt.Sprintf("maxUnavailable is %q; with 0 the Deployment removes an old pod only after a new one counts as available.", orDefault(wl.MaxUnavailable, "25%")),
		Patch: deploymentPatch(wl, "strategy:\n  type: RollingUpdate\n  rollingUpdate:\n    maxUnavailable: 0\n    maxSurge: 1\n"),
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

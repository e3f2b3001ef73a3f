package classify

import (
	"fmt"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// gcpPlatform is Google Cloud's Application Load Balancers as GKE
// configures them: Ingresses of class gce, Gateways of a gke-l7 class,
// standalone NEGs, each set by the BackendConfig its Service names.
type gcpPlatform struct{ genericPlatform }

func (gcpPlatform) family() sources.Family { return sources.FamilyGCP }

// ingressClass: the classes gce and gce-internal, GKE's annotations, or a
// Service with a NEG or a BackendConfig.
func (gcpPlatform) ingressClass(class string, ann map[string]string, svc *sources.Service) bool {
	return class == "gce" || class == "gce-internal" || hasKeyPrefix(ann, "ingress.gcp.kubernetes.io/") ||
		hasKeyPrefix(ann, "networking.gke.io/") || svc.NEG != "" || len(svc.BackendConfigs) > 0
}

// gatewayClass: GKE's classes are named gke-l7-*.
func (gcpPlatform) gatewayClass(class string) (sources.Platform, bool) {
	return "", strings.HasPrefix(class, "gke-l7")
}

// ingressObjects are the BackendConfig the Service names for the port.
func (gcpPlatform) ingressObjects(f *front, x *objectIndex) []*sources.Config {
	if bc := backendConfigFor(f.Service, f.Port, x); bc != nil {
		return []*sources.Config{bc}
	}
	return nil
}

// ownFronts adds the Service's NEGs: for Ingress, when no Ingress of
// Google's load balancer to it was read (the GKE Ingress is there all the
// same), and standalone, one per exposed port.
func (p gcpPlatform) ownFronts(svc *sources.Config, x *objectIndex, out []front) []front {
	s := svc.Service
	if s.NEGIngress && !hasFamily(out, p.family()) {
		f := front{Family: p.family(), Via: svc, Service: svc}
		objs := []*sources.Config{svc}
		if bc := backendConfigFor(svc, nil, x); bc != nil {
			objs = append(objs, bc)
		}
		f.Objects = NewObjects(objs)
		out = appendFront(out, f)
	}
	if !s.NEGIngress {
		for _, port := range s.NEGExposedPorts {
			f := front{Family: p.family(), Via: svc, Service: svc, Port: servicePort(s, "", port), Standalone: true}
			objs := []*sources.Config{svc}
			if bc := backendConfigFor(svc, f.Port, x); bc != nil {
				objs = append(objs, bc)
			}
			f.Objects = NewObjects(objs)
			out = appendFront(out, f)
		}
	}
	return out
}

// pathHealthCheck is the BackendConfig's the path's Service names, over
// GKE's defaults.
func (gcpPlatform) pathHealthCheck(f front) healthCheck {
	return gkeHealthCheckOf(pathBackendConfig(f))
}

// fasterCheck proposes GKE's fastest interval, in the BackendConfig the
// path's Service names (or a new one it must then name).
func (gcpPlatform) fasterCheck(hc healthCheck, wl workload) (*Fix, healthCheck) {
	if hc.IntervalSec <= fastCheckInterval {
		return nil, hc
	}
	ns, name := hc.BackendConfig.patchTarget(wl)
	point := ""
	if !hc.BackendConfig.known() {
		// A new BackendConfig does nothing until the Service names it.
		point = fmt.Sprintf(" No Service read names a BackendConfig: create this one and point the Service's cloud.google.com/backend-config annotation at it ({\"default\": \"%s\"}).", placeholderName("BackendConfig"))
	}
	return &Fix{
		Title: "Check new endpoints more often",
		Why:   fmt.Sprintf("The health check runs every %d s (from %s); a new endpoint waits up to that long for its first check.%s", hc.IntervalSec, hc.Source(), point),
		Patch: objectPatch("cloud.google.com/v1", "BackendConfig", ns, name, nil, map[string]any{"healthCheck": map[string]any{
			"checkIntervalSec": fastCheckInterval, "timeoutSec": 3, "healthyThreshold": 1, "unhealthyThreshold": 3}}),
	}, healthCheck{IntervalSec: fastCheckInterval, HealthyThreshold: hc.HealthyThreshold}
}

// healthCheckBoundsLag: the NEG readiness gate holds the rollout until
// the load balancer passed the new pod; minReadySeconds only covers the
// health check.
func (gcpPlatform) healthCheckBoundsLag() bool { return true }

// lagRisk: the NEG readiness gate, or minReadySeconds (negGateRisk).
func (gcpPlatform) lagRisk(t *target, f front) (healthCheck, *Risk) {
	return pathHealthCheck(f), negGateRisk(t, f)
}

func (gcpPlatform) stopPropagation() time.Duration { return gcpStopPropagation }
func (gcpPlatform) excludesNodes() bool            { return true }

// stopFixes: connection draining in the workload's BackendConfig.
func (gcpPlatform) stopFixes(objs *Objects, wl workload, _ *sources.PodSpec, sleep, _ int, _ sources.Platform) []Fix {
	if fix, ok := negDrainFix(backendConfigOf(objs, wl), wl, sleep); ok {
		return []Fix{fix}
	}
	return nil
}

func (gcpPlatform) drainFixes(t *target, f front, sleep, _ int) []Fix {
	if fix, ok := negDrainFix(backendConfigOfPaths([]front{f}), t.wl, sleep); ok {
		return []Fix{fix}
	}
	return nil
}

func (gcpPlatform) idleChecked() bool { return true }
func (gcpPlatform) samplesLogs() bool { return true }

// gcpFronts returns the paths from Google's load balancer among fronts.
func gcpFronts(fronts []front) []front { return familyFronts(fronts, gcpPlatform{}.family()) }

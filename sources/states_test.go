package sources

import "testing"

// TestGateState checks how readiness-gate conditions of GKE and the AWS Load
// Balancer Controller map onto the load balancer's view.
func TestGateState(t *testing.T) {
	const alb = "target-health.elbv2.k8s.aws/k8s-shop-web-6b0ba2a7bb"
	for _, c := range []struct {
		group, status, reason string
		want                  GateState
	}{
		{negReadinessGate, "True", "LoadBalancerNegReady", GateLBHealthy},
		{negReadinessGate, "True", "LoadBalancerNegWithoutHealthCheck", GateWithoutHealthCheck},
		{negReadinessGate, "True", "LoadBalancerNegTimeout", GateTimeout},
		{negReadinessGate, "", "LoadBalancerNegNotReady", GateWaiting},
		{negReadinessGate, "False", "", GateWaiting},
		{alb, "True", "", GateLBHealthy},
		{alb, "False", "Target.NotRegistered", GateWaiting},
		{"example.com/feature-ready", "True", "", GateOther},
	} {
		if got := gateState(c.group, c.status, c.reason); got != c.want {
			t.Errorf("%s %s %s: %v, want %v", c.group, c.status, c.reason, got, c.want)
		}
		if c.want.Opened() != (c.want >= GateLBHealthy) {
			t.Errorf("%v.Opened() wrong", c.want)
		}
	}
}

// TestGCPHealth checks the mapping of Cloud Logging health-check probe
// results (Google: HEALTHY ← {HEALTHY, DRAINING}, UNHEALTHY ← {UNHEALTHY,
// UNKNOWN, TIMEOUT}).
func TestGCPHealth(t *testing.T) {
	for _, c := range []struct {
		state, detailed string
		want            Health
	}{
		{"HEALTHY", "HEALTHY", HealthHealthy},
		{"HEALTHY", "DRAINING", HealthDraining},
		{"UNHEALTHY", "TIMEOUT", HealthUnhealthy},
		{"UNHEALTHY", "UNKNOWN", HealthUnhealthy},
		{"UNHEALTHY", "", HealthUnhealthy},
		{"HEALTHY", "", HealthHealthy},
		{"", "", HealthUnknown},
	} {
		if got := gcpHealth(c.state, c.detailed); got != c.want {
			t.Errorf("%s/%s: %v, want %v", c.state, c.detailed, got, c.want)
		}
	}
}

package correlate

import (
	"time"

	"github.com/readygap/readygap/sources"
)

// The known delay between a pod's stop and the load balancer's first
// failed attempt on it that is not a clock offset, per load-balancer
// family: the time its proxies take to act on an endpoint change. The
// clock pairs (see clockPairs) read this delay as lateness of the load
// balancer's clock, so estimateClock shifts the cluster's records only
// for what it does not explain. The values are the platforms'; they live
// here together so that the per-platform files can take them over.
const (
	// envoyPushLag: an Envoy-based gateway (Contour, Envoy Gateway,
	// Istio) learns of an endpoint change from its control plane's xDS
	// push, which is eventually consistent: from half a second to seconds
	// under churn (envoyproxy/gateway#6198 and #5326; 0.6-2.2 s measured
	// behind Contour and Envoy Gateway in the evaluation of issue 27).
	envoyPushLag = 2500 * time.Millisecond
)

// pushLag is the known propagation delay of family's proxies (see above);
// zero for a family whose load balancer is not known to lag that way.
func pushLag(family sources.Family) time.Duration {
	if family == sources.FamilyEnvoy {
		return envoyPushLag
	}
	return 0
}

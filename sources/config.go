package sources

// Config is one configuration fact read from a Kubernetes object: what the
// rules need to know about probes, ports, rollout strategy, load-balancer
// health checks and draining.
type Config struct {
	// Kind is the object kind (Pod, Deployment, ReplicaSet, Service, Ingress,
	// BackendConfig, TargetGroupBinding, EndpointSlice, Namespace).
	Kind      string
	Namespace string
	Name      string
	Format    Format
	Origin    Origin
}

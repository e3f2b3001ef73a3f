package correlate

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// Milestone is one step in a backend's life as Kubernetes or the load
// balancer saw it.
type Milestone uint8

// The milestones of a backend, in the order a healthy rollout passes them.
const (
	Created Milestone = iota
	Scheduled
	Started
	Ready
	LBAttached
	LBHealthy
	Terminating
	LBDetached
	Deleted
	milestoneCount
)

var milestoneNames = [...]string{"created", "scheduled", "started", "ready", "lb_attached", "lb_healthy", "terminating", "lb_detached", "deleted"}

// Milestones lists every milestone in order.
func Milestones() []Milestone {
	out := make([]Milestone, milestoneCount)
	for i := range out {
		out[i] = Milestone(i)
	}
	return out
}

// String names the milestone as the JSON contract does.
func (m Milestone) String() string {
	if int(m) < len(milestoneNames) {
		return milestoneNames[m]
	}
	return "unknown"
}

// Moment is when a milestone was reached and the record that says so.
type Moment struct {
	Time time.Time
	// Event is the lifecycle record; nil for a milestone known from the
	// load balancer's traffic alone.
	Event *sources.Lifecycle
}

// Backend is one pod, or one bare IP when no source names its pod, with its
// lifecycle as Kubernetes and the load balancer saw it.
type Backend struct {
	// Namespace and Pod name the pod; Pod is "" for a bare IP.
	Namespace, Pod string
	// ReplicaSet is the pod's ReplicaSet, from its owner or its name;
	// Workload the Deployment that owns that ReplicaSet.
	ReplicaSet, Workload string
	// IPs lists the addresses the backend had, from its leases.
	IPs        []netip.Addr
	Zone, Node string
	// Moments holds the first time each milestone was reached (Terminating:
	// the earliest sign of termination).
	Moments [milestoneCount]*Moment
	// GateStates lists the readiness-gate states seen, in time order.
	GateStates []sources.GateState
	// Spec is the pod's spec, or its workload's template; nil when unknown.
	Spec *sources.PodSpec
	// Events are all lifecycle records about this backend, in time order.
	Events []*sources.Lifecycle
	// Leases are the backend's IP leases, in time order.
	Leases []*Lease
	// Role is the backend's side in the rollout it took part in.
	Role Role
	// Rollout is that rollout; nil when the backend took part in none.
	Rollout *Rollout
	// ReadyBy, on a pod no record shows Ready, is the latest time it can
	// have become Ready, with the scaling event that says so (see
	// inferReady); nil when nothing does.
	ReadyBy *Moment
	// FirstServed and LastServed bound the responses the backend sent on
	// its IPs while it held them: a reused IP's responses in another pod's
	// lease are that pod's. Zero when it served none.
	FirstServed, LastServed time.Time
	// LastSent is the last request the load balancer or proxy sent the
	// backend while it was starting, serving or terminating, answered or
	// failed: a terminating pod still received requests until then. Zero
	// when it received none.
	LastSent time.Time
	// Alike, on a bare IP, lists the pods it was one of: pods that changed
	// at the same moment as it and other IPs did, which the records cannot
	// tell apart (see Identities.Alike); on such a pod, the IPs it may have
	// held. Empty for a backend the records identify.
	Alike []*Backend
}

// Key identifies a backend: namespace/pod, or the IP of a bare IP.
func (b *Backend) Key() string {
	if b.Pod == "" && len(b.IPs) > 0 {
		return b.IPs[0].String()
	}
	return b.Namespace + "/" + b.Pod
}

// Name is what a reader calls the backend: the pod name, or the IP.
func (b *Backend) Name() string {
	if b.Pod != "" {
		return b.Pod
	}
	if len(b.IPs) > 0 {
		return b.IPs[0].String()
	}
	return ""
}

// At returns when milestone m was reached; zero when unknown.
func (b *Backend) At(m Milestone) time.Time {
	if b.Moments[m] == nil {
		return time.Time{}
	}
	return b.Moments[m].Time
}

// mark records milestone m unless an earlier time is already known.
func (b *Backend) mark(m Milestone, l *sources.Lifecycle) {
	if cur := b.Moments[m]; cur != nil && !l.Time.Before(cur.Time) {
		return
	}
	b.Moments[m] = &Moment{Time: l.Time, Event: l}
}

func (b *Backend) addIP(ip netip.Addr) {
	if !ip.IsValid() {
		return
	}
	for _, x := range b.IPs {
		if x == ip {
			return
		}
	}
	b.IPs = append(b.IPs, ip)
}

// ReplicaSetOf guesses a pod's ReplicaSet from its name: Deployment pods are
// named <replicaset>-<5 random characters> (the ReplicaSet controller's
// generateName adds 5 characters of utilrand.String).
func ReplicaSetOf(pod string) string {
	suffix := strings.LastIndexByte(pod, '-') + 1 // 0 when there is no dash
	if suffix == 0 || len(pod)-suffix != 5 {
		return ""
	}
	return pod[:suffix-1]
}

// workloadOf guesses a ReplicaSet's Deployment from its name:
// <deployment>-<pod-template-hash>.
func workloadOf(rs string) string {
	hash := strings.LastIndexByte(rs, '-') + 1 // 0 when there is no dash
	if hash == 0 {
		return ""
	}
	return rs[:hash-1]
}

// backendSet holds the backends by key while the analysis is built.
type backendSet struct {
	byKey map[string]*Backend
	// templates maps namespace/ReplicaSet and namespace/Deployment to a pod template.
	templates map[string]*sources.PodSpec
	// deployments maps namespace/ReplicaSet to its Deployment, from ReplicaSet objects.
	deployments map[string]string
}

// pod returns the backend of namespace/name, creating it.
func (s *backendSet) pod(ns, name string) *Backend {
	if b := s.lookup(ns, name); b != nil {
		return b
	}
	b := &Backend{Namespace: ns, Pod: name, ReplicaSet: ReplicaSetOf(name)}
	s.byKey[ns+"/"+name] = b
	return b
}

// podKeyRoom is the room a pod's key is written in on the stack: a
// namespace (63 bytes at most, a DNS label), a slash and most pod names.
// A longer key is written on the heap.
const podKeyRoom = 128

// lookup returns the backend of namespace/name, nil when there is none.
// Building the key with + allocated it for every one of the several
// lookups each pod's records make (a tenth of building the backends of
// 100 000 pods).
func (s *backendSet) lookup(ns, name string) *Backend {
	var room [podKeyRoom]byte
	k := append(append(append(room[:0], ns...), '/'), name...)
	return s.byKey[string(k)]
}

// bare returns the backend of an IP no source ties to a pod, creating it.
func (s *backendSet) bare(ip netip.Addr) *Backend {
	k := ip.String()
	b := s.byKey[k]
	if b == nil {
		b = &Backend{IPs: []netip.Addr{ip}}
		s.byKey[k] = b
	}
	return b
}

// newBackendSet creates a backend for every pod that objects and events
// name, with its spec and what its records say about placement.
func newBackendSet(d *Dataset) *backendSet {
	s := &backendSet{byKey: map[string]*Backend{}, templates: map[string]*sources.PodSpec{}, deployments: map[string]string{}}
	for _, c := range d.Configs {
		if c.Workload == nil {
			continue
		}
		if c.Workload.Template != nil {
			s.templates[c.Namespace+"/"+c.Name] = c.Workload.Template
		}
		if owner := cmp.Or(c.Workload.Deployment, c.Workload.Rollout); owner != "" {
			s.deployments[c.Namespace+"/"+c.Name] = owner
			if c.Workload.Template != nil {
				s.templates[c.Namespace+"/"+owner] = c.Workload.Template
			}
		}
	}
	for _, c := range d.Configs {
		switch {
		case c.Pod != nil:
			b := s.pod(c.Namespace, c.Name)
			if c.Pod.ReplicaSet != "" {
				b.ReplicaSet = c.Pod.ReplicaSet
			}
			if c.Pod.Node != "" {
				b.Node = c.Pod.Node
			}
			b.Spec = c.PodSpec
		case c.EndpointSlice != nil:
			for _, ep := range c.EndpointSlice.Endpoints {
				if ep.Pod == "" {
					continue
				}
				b := s.pod(c.Namespace, ep.Pod)
				if b.Zone == "" {
					b.Zone = ep.Zone
				}
				if b.Node == "" {
					b.Node = ep.Node
				}
			}
		}
	}
	for i := range d.Lifecycle {
		if l := &d.Lifecycle[i]; l.Pod != "" {
			b := s.pod(l.Namespace, l.Pod)
			if rs, ok := strings.CutPrefix(l.Object, "ReplicaSet/"); ok && l.Kind == sources.PodCreated {
				b.ReplicaSet = rs
			}
		}
	}
	return s
}

// finish ties each lifecycle record to its backend (records that name only
// an IP to the pod that held the IP then) and fills in milestones, specs
// and workloads.
func (s *backendSet) finish(d *Dataset, id *Identities) []*Backend {
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		var b *Backend
		switch {
		case l.Pod != "":
			b = s.pod(l.Namespace, l.Pod)
		case l.IP.IsValid():
			if lease := id.At(l.IP, l.Time); lease != nil {
				b = lease.Backend
			} else {
				b = s.bare(l.IP)
			}
		default:
			continue
		}
		if l.Zone != "" && b.Zone == "" {
			b.Zone = l.Zone
		}
		if l.Node != "" && b.Node == "" {
			b.Node = l.Node
		}
		b.Events = append(b.Events, l)
		if !l.OrderOnly {
			// A time that is only an order marks no moment on the clock.
			applyMilestone(b, l)
		}
	}
	// In Key order; byKey holds each backend under its Key, which sorting
	// by Key() would build again at every comparison.
	keys := make([]string, 0, len(s.byKey))
	for k := range s.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]*Backend, len(keys))
	for i, k := range keys {
		out[i] = s.byKey[k]
	}
	for _, b := range out {
		if b.Pod != "" && b.ReplicaSet != "" {
			b.Workload = s.deployments[b.Namespace+"/"+b.ReplicaSet]
			if b.Workload == "" {
				b.Workload = workloadOf(b.ReplicaSet)
			}
		}
		if b.Spec == nil && b.ReplicaSet != "" {
			b.Spec = s.templates[b.Namespace+"/"+b.ReplicaSet]
			if b.Spec == nil {
				b.Spec = s.templates[b.Namespace+"/"+b.Workload]
			}
		}
		for _, l := range b.Leases {
			b.addIP(l.IP)
		}
		slices.SortFunc(b.IPs, netip.Addr.Compare)
	}
	return out
}

// applyMilestone maps one lifecycle record onto the backend's milestones.
func applyMilestone(b *Backend, l *sources.Lifecycle) {
	switch l.Kind {
	case sources.PodCreated:
		b.mark(Created, l)
	case sources.PodScheduled:
		b.mark(Scheduled, l)
	case sources.ContainerStarted:
		b.mark(Started, l)
	case sources.PodReady:
		b.mark(Ready, l)
	case sources.ReadinessGate:
		b.GateStates = append(b.GateStates, l.Gate)
		if l.Gate == sources.GateLBHealthy {
			b.mark(LBHealthy, l)
		}
	case sources.TargetRegistering, sources.TargetRegistered:
		b.mark(LBAttached, l)
	case sources.HealthCheck:
		if l.Health == sources.HealthHealthy {
			b.mark(LBHealthy, l)
		}
	case sources.Killing, sources.PodDeleted:
		b.mark(Terminating, l)
	case sources.TargetDeregistering, sources.TargetDeregistered:
		b.mark(LBDetached, l)
	}
}

// HasGate reports whether the backend's readiness gates were seen in state g.
func (b *Backend) HasGate(g sources.GateState) bool {
	for _, x := range b.GateStates {
		if x == g {
			return true
		}
	}
	return false
}

// grewAt is the first sign of the pod starting in the data: its creation,
// scheduling, start, Ready, or a readiness gate; zero when records only
// show it stopping.
func (b *Backend) grewAt() time.Time {
	t := firstTime(b.At(Created), b.At(Scheduled), b.At(Started), b.At(Ready), b.At(LBAttached), b.At(LBHealthy))
	for _, e := range b.Events {
		if e.Kind == sources.ReadinessGate || e.Kind == sources.ProbeFailed {
			t = firstTime(t, e.Time)
			break
		}
	}
	return t
}

// servedSpans bounds each backend's responses (Backend.FirstServed and
// LastServed): a pod's within its leases, a bare IP's outside every lease.
func (a *Analysis) servedSpans() {
	for _, b := range a.Backends {
		if b.Pod != "" {
			for _, l := range b.Leases {
				if t := a.Traffic[l.IP]; t != nil {
					b.served(t.Runs.FirstIn(l.From, l.To), t.Runs.LastIn(l.From, l.To))
				}
			}
			continue
		}
		for _, ip := range b.IPs {
			t := a.Traffic[ip]
			if t == nil {
				continue
			}
			for _, run := range t.Runs {
				if !a.covered(ip, run.From()) || !a.covered(ip, run.To()) {
					b.served(run.From(), run.To())
				}
			}
		}
	}
}

// served widens the backend's served span to [first, last]; zero times
// leave it as it is.
func (b *Backend) served(first, last time.Time) {
	if !first.IsZero() && (b.FirstServed.IsZero() || first.Before(b.FirstServed)) {
		b.FirstServed = first
	}
	if last.After(b.LastServed) {
		b.LastServed = last
	}
}

// lastSent finds each backend's last request (Backend.LastSent): its last
// response, or a later failed attempt at it while it had not gone.
func (a *Analysis) lastSent() {
	for _, b := range a.Backends {
		b.LastSent = b.LastServed
	}
	for _, s := range a.Signals {
		for _, at := range s.Attempts {
			if at.Of != nil && at.State != StateGone && s.End().After(at.Of.LastSent) {
				at.Of.LastSent = s.End()
			}
		}
	}
}

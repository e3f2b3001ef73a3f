package correlate

import (
	"net/netip"
	"sort"
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

// String names the milestone.
func (m Milestone) String() string {
	if int(m) < len(milestoneNames) {
		return milestoneNames[m]
	}
	return "unknown"
}

// Moment is when a milestone was reached and which record said so.
type Moment struct {
	Time   time.Time
	Origin sources.Origin
	Format sources.Format
	// What is a short description (the event reason, the controller message).
	What string
}

// Backend is one pod, or one bare IP when no source names its pod, with its
// lifecycle as Kubernetes and the load balancer saw it.
type Backend struct {
	// Namespace and Pod name the pod; Pod is "" for a bare IP.
	Namespace, Pod string
	// ReplicaSet is the pod's ReplicaSet, from its owner or its name.
	ReplicaSet string
	IPs        []netip.Addr
	Zone, Node string
	// Moments holds the first time each milestone was reached (Terminating:
	// the earliest sign of termination).
	Moments [milestoneCount]*Moment
	// GateReasons lists readiness-gate reasons seen, in order.
	GateReasons []string
	// Spec is the pod's spec, or its workload's template; nil when unknown.
	Spec *sources.PodSpec
	// Events are all lifecycle records about this backend, in time order.
	Events []*sources.Lifecycle
}

// At returns when milestone m was reached; zero when unknown.
func (b *Backend) At(m Milestone) time.Time {
	if b.Moments[m] == nil {
		return time.Time{}
	}
	return b.Moments[m].Time
}

// mark records milestone m unless an earlier time is already known.
func (b *Backend) mark(m Milestone, l *sources.Lifecycle, what string) {
	if cur := b.Moments[m]; cur != nil && !l.Time.Before(cur.Time) {
		return
	}
	b.Moments[m] = &Moment{Time: l.Time, Origin: l.Origin, Format: l.Format, What: what}
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

// replicaSetOf guesses a pod's ReplicaSet from its name: Deployment pods are
// named <replicaset>-<5 random characters>.
func replicaSetOf(pod string) string {
	i := strings.LastIndexByte(pod, '-')
	if i <= 0 || len(pod)-i-1 != 5 {
		return ""
	}
	return pod[:i]
}

// buildBackends assembles one Backend per pod (and per bare IP) from objects
// and lifecycle records. Records that name only an IP are tied to the pod
// that held the IP at that time.
func buildBackends(d *Dataset, id *Identities) map[string]*Backend {
	bs := map[string]*Backend{}
	pod := func(ns, name string) *Backend {
		k := ns + "/" + name
		b := bs[k]
		if b == nil {
			b = &Backend{Namespace: ns, Pod: name, ReplicaSet: replicaSetOf(name)}
			bs[k] = b
		}
		return b
	}
	templates := map[string]*sources.PodSpec{} // ReplicaSet or Deployment name → template
	for _, c := range d.Configs {
		if c.Workload != nil && c.Workload.Template != nil {
			templates[c.Namespace+"/"+c.Name] = c.Workload.Template
			if c.Workload.Deployment != "" {
				templates[c.Namespace+"/"+c.Workload.Deployment] = c.Workload.Template
			}
		}
	}
	for _, c := range d.Configs {
		if c.Pod == nil {
			continue
		}
		b := pod(c.Namespace, c.Name)
		if c.Pod.ReplicaSet != "" {
			b.ReplicaSet = c.Pod.ReplicaSet
		}
		b.addIP(c.Pod.IP)
		if c.Pod.Node != "" {
			b.Node = c.Pod.Node
		}
		b.Spec = c.PodSpec
	}
	for i := range d.Lifecycle {
		l := &d.Lifecycle[i]
		var b *Backend
		switch {
		case l.Pod != "":
			b = pod(l.Namespace, l.Pod)
		case l.IP.IsValid():
			if ns, name, ok := id.PodAt(l.IP, l.Time); ok {
				b = pod(ns, name)
			} else {
				k := l.IP.String()
				b = bs[k]
				if b == nil {
					b = &Backend{}
					bs[k] = b
				}
			}
		default:
			continue
		}
		b.addIP(l.IP)
		if l.Zone != "" && b.Zone == "" {
			b.Zone = l.Zone
		}
		if l.Node != "" && b.Node == "" {
			b.Node = l.Node
		}
		b.Events = append(b.Events, l)
		applyMilestone(b, l)
	}
	for _, b := range bs {
		if b.Spec == nil && b.ReplicaSet != "" {
			b.Spec = templates[b.Namespace+"/"+b.ReplicaSet]
			if i := strings.LastIndexByte(b.ReplicaSet, '-'); b.Spec == nil && i > 0 {
				b.Spec = templates[b.Namespace+"/"+b.ReplicaSet[:i]] // the Deployment
			}
		}
		for _, ip := range id.IPsOf(b.Namespace, b.Pod) {
			if b.Pod != "" {
				b.addIP(ip)
			}
		}
		sort.Slice(b.IPs, func(i, j int) bool { return b.IPs[i].Less(b.IPs[j]) })
	}
	return bs
}

// applyMilestone maps one lifecycle record onto the backend's milestones.
func applyMilestone(b *Backend, l *sources.Lifecycle) {
	switch l.Kind {
	case sources.PodCreated:
		if rs, ok := strings.CutPrefix(l.Object, "ReplicaSet/"); ok {
			b.ReplicaSet = rs
		}
		b.mark(Created, l, "created")
	case sources.PodScheduled:
		b.mark(Scheduled, l, "scheduled to "+l.Node)
	case sources.ContainerStarted:
		b.mark(Started, l, "container started")
	case sources.PodReady:
		b.mark(Ready, l, "Ready")
	case sources.ReadinessGate:
		if l.Reason != "" {
			b.GateReasons = append(b.GateReasons, l.Reason)
		}
		if l.Gate == sources.GateLBHealthy {
			b.mark(LBHealthy, l, "readiness gate "+orText(l.Reason, "True"))
		}
	case sources.TargetRegistering:
		b.mark(LBAttached, l, "target registering")
	case sources.TargetRegistered:
		b.mark(LBAttached, l, "target registered")
	case sources.HealthCheck:
		if l.Health == sources.HealthHealthy {
			if att := b.At(LBAttached); att.IsZero() || !l.Time.Before(att) {
				b.mark(LBHealthy, l, "LB health check "+l.Status)
			}
		}
	case sources.Killing, sources.PodDeleted:
		b.mark(Terminating, l, orText(l.Reason, l.Kind.String()))
	case sources.TargetDeregistering, sources.TargetDeregistered:
		b.mark(LBDetached, l, "target deregistering")
	}
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

package correlate

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestServedAndLastSent checks what a backend's lane is drawn from on an
// IP two pods held in turn: each pod's responses within its own lease
// (the old pod's last is not the new one's), and the old pod's last
// request the load balancer still sent it, a refused one after its last
// response and its deregistration; a refusal once its grace period was
// over went to no pod and does not count.
func TestServedAndLastSent(t *testing.T) {
	c := NewCollector()
	ip := netip.MustParseAddr("10.0.20.143")
	other := netip.MustParseAddr("10.0.33.9")
	serve := func(addr netip.Addr, from, to float64) {
		for s := from; s <= to; s += 0.5 {
			c.Request(&sources.Request{Time: at(s), Status: 200, Generator: sources.GeneratedByBackend,
				Backend: netip.AddrPortFrom(addr, 8080), Format: sources.FormatALBAccess})
		}
	}
	refused := func(s float64) {
		c.Request(&sources.Request{Time: at(s), Status: 502, Failure: sources.FailureRefused, Generator: sources.GeneratedByLB,
			Backend: netip.AddrPortFrom(ip, 8080), Format: sources.FormatALBAccess})
	}
	serve(ip, 0, 100)
	serve(ip, 301, 400)
	serve(other, 0, 400)
	for s := 100.5; s <= 106; s += 0.5 {
		refused(s)
	}
	refused(135) // 35 s after Killing: past the default 30 s of termination
	ev := func(s float64, kind sources.LifecycleKind, pod string, addr netip.Addr) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "api", Pod: pod, IP: addr, Format: sources.FormatK8sEvents, From: -1, FromAPI: true})
	}
	ev(100, sources.Killing, "web-7c9f8d6b5d-olda1", ip)
	ev(102, sources.TargetDeregistering, "", ip)
	ev(298, sources.PodReady, "web-5f4d9c8b7a-newb2", ip)
	a := Analyze(Merge(c), Options{})
	old, fresh := a.Backend("api/web-7c9f8d6b5d-olda1"), a.Backend("api/web-5f4d9c8b7a-newb2")
	if old == nil || fresh == nil {
		t.Fatalf("backends %v %v", old, fresh)
	}
	secs := func(tm time.Time) float64 {
		if tm.IsZero() {
			return -1
		}
		return tm.Sub(t0).Seconds()
	}
	for _, x := range []struct {
		what      string
		got, want float64
	}{
		{"old pod's first response", secs(old.FirstServed), 0},
		{"old pod's last response", secs(old.LastServed), 100},
		{"old pod's last request", secs(old.LastSent), 106},
		{"new pod's first response", secs(fresh.FirstServed), 301},
		{"new pod's last response", secs(fresh.LastServed), 400},
		{"new pod's last request", secs(fresh.LastSent), 400},
	} {
		if x.got != x.want {
			t.Errorf("%s at %v s, want %v s", x.what, x.got, x.want)
		}
	}
	// The refusal at 135 s found the IP held by nobody the records know,
	// long after its last response: sent to a backend already gone.
	bare := a.Backend(ip.String())
	if bare == nil {
		t.Fatal("no backend for the IP between its holders")
	}
	if !bare.LastSent.IsZero() {
		t.Errorf("the IP between its holders received its last request at %v s, want none: it had gone", secs(bare.LastSent))
	}
}

// TestBackendsFromRecords checks what each kind of record tells about a
// backend: ReplicaSet and node from the pod object, zone and node from
// EndpointSlices and events (the first source to say wins), the
// ReplicaSet a PodCreated event names, the Deployment from ReplicaSet
// objects or from names, the spec from the pod or its template, and the
// milestones, the earliest record of each.
func TestBackendsFromRecords(t *testing.T) {
	c := NewCollector()
	rsSpec := &sources.PodSpec{TerminationGracePeriodSec: 45}
	depSpec := &sources.PodSpec{TerminationGracePeriodSec: 60}
	podSpec := &sources.PodSpec{TerminationGracePeriodSec: 5}
	ip := func(s string) netip.Addr { return netip.MustParseAddr(s) }
	cfg := func(x *sources.Config) { x.Format = sources.FormatK8sObjects; c.Config(x) }
	cfg(&sources.Config{Kind: "ReplicaSet", Namespace: "shop", Name: "web-6b7c8d9f5", Workload: &sources.Workload{Deployment: "storefront", Template: rsSpec}})
	cfg(&sources.Config{Kind: "ReplicaSet", Namespace: "shop", Name: "cart-5d6f7a8b9", Workload: &sources.Workload{Deployment: "cart"}})
	cfg(&sources.Config{Kind: "Deployment", Namespace: "shop", Name: "api", Workload: &sources.Workload{Template: depSpec}})
	cfg(&sources.Config{Kind: "Deployment", Namespace: "shop", Name: "cart", Workload: &sources.Workload{Template: depSpec}})
	cfg(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "web-6b7c8d9f5-abcde", Pod: &sources.PodStatus{ReplicaSet: "web-6b7c8d9f5", Node: "node-1", IP: ip("10.0.0.1")}})
	cfg(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "odd", Pod: &sources.PodStatus{IP: ip("10.0.0.2")}, PodSpec: podSpec})
	cfg(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "canary", Pod: &sources.PodStatus{ReplicaSet: "canary-5f6a7b8c9", IP: ip("10.0.0.5")}})
	cfg(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "api-7f9c6d5b4-yyyyy", Pod: &sources.PodStatus{IP: ip("10.0.0.6")}})
	// A pod of a ReplicaSet no object describes: its Deployment's template
	// comes from another ReplicaSet of the same Deployment.
	cfg(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "storefront-9f8e7d6c5-ppppp", Pod: &sources.PodStatus{IP: ip("10.0.0.7")}})
	cfg(&sources.Config{Kind: "EndpointSlice", Namespace: "shop", Name: "web-x", EndpointSlice: &sources.EndpointSlice{Endpoints: []sources.Endpoint{
		{Addresses: []netip.Addr{ip("10.0.0.1")}, Pod: "web-6b7c8d9f5-abcde", Zone: "zone-a", Node: "node-2"},
		{Addresses: []netip.Addr{ip("10.0.0.3")}, Pod: "api-7f9c6d5b4-zzzzz", Zone: "zone-b", Node: "node-3"},
		{Addresses: []netip.Addr{ip("10.0.0.4")}, Zone: "zone-c", Node: "node-4"},
	}}})
	ev := func(s float64, kind sources.LifecycleKind, pod string, f func(*sources.Lifecycle)) {
		l := &sources.Lifecycle{Time: at(s), Kind: kind, Namespace: "shop", Pod: pod, Format: sources.FormatK8sEvents, From: -1}
		if f != nil {
			f(l)
		}
		c.Lifecycle(l)
	}
	ev(1, sources.PodCreated, "batch-12345", func(l *sources.Lifecycle) { l.Object = "ReplicaSet/batch-9x8y7z6w5" })
	ev(2, sources.PodScheduled, "cart-5d6f7a8b9-qqqqq", func(l *sources.Lifecycle) { l.Object = "ReplicaSet/other" })
	ev(3, sources.PodScheduled, "api-7f9c6d5b4-zzzzz", func(l *sources.Lifecycle) { l.Zone, l.Node = "zone-z", "node-z" })
	ev(4, sources.PodScheduled, "batch-12345", func(l *sources.Lifecycle) { l.Zone, l.Node = "zone-d", "node-5" })
	ev(10, sources.PodReady, "batch-12345", nil)
	ev(8, sources.PodReady, "batch-12345", nil) // earlier, read later: it wins
	ev(12, sources.ReadinessGate, "batch-12345", func(l *sources.Lifecycle) { l.Gate = sources.GateLBHealthy })
	ev(11, sources.ReadinessGate, "batch-12345", func(l *sources.Lifecycle) { l.Gate = sources.GateWithoutHealthCheck })
	ev(5, sources.ContainerStarted, "cart-5d6f7a8b9-qqqqq", nil)
	ev(20, sources.Killing, "cart-5d6f7a8b9-qqqqq", nil)
	ev(21, sources.PodDeleted, "cart-5d6f7a8b9-qqqqq", nil)
	lbc := func(s float64, kind sources.LifecycleKind, addr string, health sources.Health) {
		c.Lifecycle(&sources.Lifecycle{Time: at(s), Kind: kind, IP: ip(addr), Health: health, Format: sources.FormatAWSLBC, From: -1})
	}
	// Far from every pod's records, so that no timing joins them to a pod.
	lbc(631, sources.TargetRegistering, "10.9.9.9", 0)
	lbc(632, sources.HealthCheck, "10.9.9.9", sources.HealthUnhealthy)
	lbc(633, sources.HealthCheck, "10.9.9.9", sources.HealthHealthy)
	lbc(640, sources.TargetDeregistering, "10.9.9.9", 0)
	lbc(635, sources.HealthCheck, "10.9.9.8", sources.HealthHealthy) // never registered: its check counts
	lbc(636, sources.HealthCheck, "10.9.9.8", sources.HealthHealthy)

	a := Analyze(Merge(c), Options{})
	var got []string
	for _, b := range a.Backends {
		var ms []string
		for _, m := range Milestones() {
			if !b.At(m).IsZero() {
				ms = append(ms, fmt.Sprintf("%s@%v", m, b.At(m).Sub(t0).Seconds()))
			}
		}
		grace := ""
		if b.Spec != nil {
			grace = fmt.Sprint(b.Spec.TerminationGracePeriodSec)
		}
		got = append(got, strings.TrimSpace(fmt.Sprintf("%s name=%s rs=%s wl=%s zone=%s node=%s ips=%v grace=%s gates=%v %s",
			b.Key(), b.Name(), b.ReplicaSet, b.Workload, b.Zone, b.Node, b.IPs, grace, b.GateStates, strings.Join(ms, " "))))
	}
	want := []string{
		"10.9.9.8 name=10.9.9.8 rs= wl= zone= node= ips=[10.9.9.8] grace= gates=[] lb_healthy@635",
		"10.9.9.9 name=10.9.9.9 rs= wl= zone= node= ips=[10.9.9.9] grace= gates=[] lb_attached@631 lb_healthy@633 lb_detached@640",
		"shop/api-7f9c6d5b4-yyyyy name=api-7f9c6d5b4-yyyyy rs=api-7f9c6d5b4 wl=api zone= node= ips=[10.0.0.6] grace=60 gates=[]",
		"shop/api-7f9c6d5b4-zzzzz name=api-7f9c6d5b4-zzzzz rs=api-7f9c6d5b4 wl=api zone=zone-b node=node-3 ips=[10.0.0.3] grace=60 gates=[] scheduled@3",
		"shop/batch-12345 name=batch-12345 rs=batch-9x8y7z6w5 wl=batch zone=zone-d node=node-5 ips=[] grace= gates=[without_health_check lb_healthy] created@1 scheduled@4 ready@8 lb_healthy@12",
		"shop/canary name=canary rs=canary-5f6a7b8c9 wl=canary zone= node= ips=[10.0.0.5] grace= gates=[]",
		"shop/cart-5d6f7a8b9-qqqqq name=cart-5d6f7a8b9-qqqqq rs=cart-5d6f7a8b9 wl=cart zone= node= ips=[] grace=60 gates=[] scheduled@2 started@5 terminating@20",
		"shop/odd name=odd rs= wl= zone= node= ips=[10.0.0.2] grace=5 gates=[]",
		"shop/storefront-9f8e7d6c5-ppppp name=storefront-9f8e7d6c5-ppppp rs=storefront-9f8e7d6c5 wl=storefront zone= node= ips=[10.0.0.7] grace=45 gates=[]",
		"shop/web-6b7c8d9f5-abcde name=web-6b7c8d9f5-abcde rs=web-6b7c8d9f5 wl=storefront zone=zone-a node=node-1 ips=[10.0.0.1] grace=45 gates=[]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("backends:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	b := a.Backend("shop/batch-12345")
	if b == nil || !b.HasGate(sources.GateLBHealthy) || b.HasGate(sources.GateTimeout) {
		t.Errorf("batch-12345 gates: %+v", b)
	}
}

// TestNamesFromNames pins how ReplicaSets and Deployments are read from
// pod and ReplicaSet names.
func TestNamesFromNames(t *testing.T) {
	for pod, want := range map[string]string{
		"web-7d9f8c6b5d-abcde": "web-7d9f8c6b5d",
		"web-abcde":            "web",
		"-abcde":               "",
		"web-abcd":             "",
		"web-abcdef":           "",
		"web":                  "",
	} {
		if got := ReplicaSetOf(pod); got != want {
			t.Errorf("ReplicaSetOf(%q) = %q, want %q", pod, got, want)
		}
	}
	for rs, want := range map[string]string{"web-7d9f8c6b5d": "web", "my-web-7d9f": "my-web", "-7d9f": "", "web": ""} {
		if got := workloadOf(rs); got != want {
			t.Errorf("workloadOf(%q) = %q, want %q", rs, got, want)
		}
	}
	if got := Milestone(len(milestoneNames)).String(); got != "unknown" {
		t.Errorf("a milestone past the names is %q", got)
	}
	if got := Deleted.String(); got != "deleted" {
		t.Errorf("Deleted is %q", got)
	}
	if (&Backend{}).Name() != "" || (&Backend{}).Key() != "/" {
		t.Error("an empty backend has a name")
	}
	two := &Backend{IPs: []netip.Addr{netip.MustParseAddr("10.0.0.1")}}
	two.addIP(netip.MustParseAddr("10.0.0.1"))
	two.addIP(netip.Addr{})
	two.addIP(netip.MustParseAddr("10.0.0.2"))
	if fmt.Sprint(two.IPs) != "[10.0.0.1 10.0.0.2]" {
		t.Errorf("addIP: %v", two.IPs)
	}
}

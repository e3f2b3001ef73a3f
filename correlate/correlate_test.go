package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

var t0 = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

func failure(sec float64, k sources.FailureKind, backend string) *sources.Request {
	r := &sources.Request{Time: at(sec), Status: 502, Failure: k, Generator: sources.GeneratedByLB, Format: sources.FormatALBAccess}
	if backend != "" {
		r.Backend = netip.MustParseAddrPort(backend)
	}
	return r
}

func TestIdentitiesFollowIPReuse(t *testing.T) {
	ip := netip.MustParseAddr("10.244.2.9")
	c := NewCollector()
	c.Config(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "old-1", Created: at(-3600), Pod: &sources.PodStatus{IP: ip, Deleted: at(-1200)}})
	c.Config(&sources.Config{Kind: "Pod", Namespace: "shop", Name: "new-1", Created: at(1), Pod: &sources.PodStatus{IP: ip}})
	id := buildIdentities(Merge(c))
	for _, tc := range []struct {
		sec  float64
		want string
	}{{-3000, "old-1"}, {-1200, "old-1"}, {-600, "old-1"}, {5, "new-1"}, {9999, "new-1"}} {
		if _, pod, ok := id.PodAt(ip, at(tc.sec)); !ok || pod != tc.want {
			t.Errorf("PodAt(%v s) = %q, want %q", tc.sec, pod, tc.want)
		}
	}
	if id.leaseCount() != 2 {
		t.Errorf("%d leases, want 2", id.leaseCount())
	}
	if _, _, ok := id.PodAt(netip.MustParseAddr("10.9.9.9"), at(0)); ok {
		t.Error("an IP no source named must have no pod")
	}
}

func TestWindowsMergeShortGapsAndDropStrayFailures(t *testing.T) {
	c := NewCollector()
	for _, s := range []float64{10, 10.5, 11, 14, 15} { // gap of 3 s: one window
		c.Request(failure(s, sources.FailureNoBackend, ""))
	}
	for _, s := range []float64{40, 41, 42} { // 25 s later: another window
		c.Request(failure(s, sources.FailureRefused, "10.0.0.5:8080"))
	}
	c.Request(failure(100, sources.FailureClosed, "10.0.0.5:8080")) // a stray keep-alive 502
	app := &sources.Request{Time: at(60), Status: 500, Failure: sources.FailureAppError, Generator: sources.GeneratedByBackend,
		Backend: netip.MustParseAddrPort("10.0.0.5:8080")}
	for i := 0; i < 10; i++ {
		c.Request(app) // app 500s never make a window
	}
	a := Analyze(Merge(c), Options{})
	if len(a.Windows) != 2 {
		t.Fatalf("%d windows, want 2", len(a.Windows))
	}
	w := a.Windows[0]
	if w.Failed != 5 || !w.Start.Equal(at(10)) || !w.End.Equal(at(15)) || w.Kinds[sources.FailureNoBackend] != 5 {
		t.Errorf("first window %+v", w)
	}
	if f := a.Windows[1].ByIP[netip.MustParseAddr("10.0.0.5")]; f == nil || f.Count != 3 || f.Ports[8080] != 3 {
		t.Errorf("second window's failures by IP: %+v", f)
	}
	if n := a.At(at(60).Unix()); n.AppErrors != 10 || n.Failed() != 0 {
		t.Errorf("second 60: %+v", n)
	}
}

func TestHiddenFailuresCountButDoNotFailRequests(t *testing.T) {
	c := NewCollector()
	for i := 0; i < 4; i++ {
		c.Request(&sources.Request{Time: at(float64(i)), Status: 200, Generator: sources.GeneratedByBackend, Format: sources.FormatIngressNginx,
			Backend: netip.MustParseAddrPort("10.0.0.2:8080"),
			Attempts: []sources.Attempt{
				{Backend: netip.MustParseAddrPort("10.0.0.9:8080"), Status: 502, Failure: sources.FailureOther},
				{Backend: netip.MustParseAddrPort("10.0.0.2:8080"), Status: 200},
			}})
	}
	a := Analyze(Merge(c), Options{})
	if len(a.Windows) != 1 {
		t.Fatalf("%d windows", len(a.Windows))
	}
	w := a.Windows[0]
	if w.Failed != 0 || w.Hidden != 4 || w.ByIP[netip.MustParseAddr("10.0.0.9")].Count != 4 {
		t.Errorf("window %+v: want 0 failed, 4 hidden, all on 10.0.0.9", w)
	}
	if tr := a.Traffic[netip.MustParseAddr("10.0.0.2")]; tr.Served != 4 || a.Traffic[netip.MustParseAddr("10.0.0.9")].Failed != 4 {
		t.Errorf("traffic %+v", a.Traffic)
	}
}

func TestRoleFromScalingEvents(t *testing.T) {
	c := NewCollector()
	for i, l := range []sources.Lifecycle{
		{Time: at(0), Kind: sources.ScaledUp, Group: "web-new", Count: 1, From: 0},
		{Time: at(1), Kind: sources.PodReady, Namespace: "shop", Pod: "web-new-abcde", IP: netip.MustParseAddr("10.0.0.9")},
		{Time: at(2), Kind: sources.ScaledDown, Group: "web-old", Count: 0, From: 1},
		{Time: at(2), Kind: sources.Killing, Namespace: "shop", Pod: "web-old-fghij"},
		{Time: at(-100), Kind: sources.ProbeFailed, Namespace: "shop", Pod: "web-old-fghij", IP: netip.MustParseAddr("10.0.0.4")},
	} {
		l.Origin = sources.Origin{File: "e", Line: i + 1}
		c.Lifecycle(&l)
	}
	for _, s := range []float64{3, 3.5, 4} {
		c.Request(failure(s, sources.FailureRefused, "10.0.0.4:8080"))
		c.Request(failure(s, sources.FailureRefused, "10.0.0.9:8080"))
	}
	a := Analyze(Merge(c), Options{})
	w := a.Windows[0]
	if r, why := a.RoleOf(netip.MustParseAddr("10.0.0.9"), w); r != RoleNew {
		t.Errorf("10.0.0.9: %s (%s), want new", r, why)
	}
	if r, why := a.RoleOf(netip.MustParseAddr("10.0.0.4"), w); r != RoleOld {
		t.Errorf("10.0.0.4: %s (%s), want old", r, why)
	}
	b := a.BackendOf(netip.MustParseAddr("10.0.0.9"), w.Start)
	if b == nil || b.ReplicaSet != "web-new" || b.At(Ready) != at(1) {
		t.Errorf("backend %+v", b)
	}
	if lanes := a.Lanes(); len(lanes) != 2 || lanes[0].Name != "web-old-fghij" {
		t.Errorf("lanes %+v", lanes)
	}
	if s := a.Series(); len(s) != 2 || s[0].LBFailed[sources.FailureRefused] != 4 || s[1].Total != 2 {
		t.Errorf("series %+v", s)
	}
}

// leaseCount is the number of leases known.
func (id *Identities) leaseCount() int {
	n := 0
	for _, ls := range id.byIP {
		n += len(ls)
	}
	return n
}

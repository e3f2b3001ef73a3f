package correlate

import (
	"net/netip"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestStopPairPlacesTheLeasesAttempt checks when stopPair takes a retried
// request to have failed at the lease's IP: at its end (less nothing, a
// refusal) when the record names the IP, its last attempt; at its start
// when the IP was an earlier attempt and the record names another.
func TestStopPairPlacesTheLeasesAttempt(t *testing.T) {
	b, tr, ip := servedUntilTermination()
	other := netip.AddrPortFrom(netip.MustParseAddr("10.0.18.200"), 8080)
	for _, c := range []struct {
		name string
		req  *sources.Request
		want time.Duration
	}{
		{"the IP is the last attempt: failed at 60.4 s", &sources.Request{Backend: ip,
			Attempts: []sources.Attempt{{Backend: other, Failure: sources.FailureRefused}, {Backend: ip, Failure: sources.FailureRefused}}}, 200 * time.Millisecond},
		{"the IP is an earlier attempt: failed at 60.1 s", &sources.Request{Backend: other,
			Attempts: []sources.Attempt{{Backend: ip, Failure: sources.FailureRefused}, {Backend: other, Failure: sources.FailureRefused}}}, 50 * time.Millisecond},
	} {
		r := c.req
		r.Time, r.Duration, r.Status, r.Generator, r.Failure = at(60.1), 300*time.Millisecond, 502, sources.GeneratedByLB, sources.FailureRefused
		d, _, ok := stopPair(b, &Lease{IP: ip.Addr(), Backend: b}, tr, ones(r))
		if !ok || d != c.want {
			t.Errorf("%s: pair %v %v, want %v after the termination", c.name, d, ok, c.want)
		}
	}
}

// TestShiftClusterKeepsOneLinesOrder checks that records of one line, at
// one time, keep the order they were read in once shifted: sorting by
// time, file and line leaves equal records as they were.
func TestShiftClusterKeepsOneLinesOrder(t *testing.T) {
	o := sources.Origin{File: "events.json", Line: 7}
	d := &Dataset{Lifecycle: []sources.Lifecycle{
		{Time: at(10), Kind: sources.PodScheduled, Namespace: "shop", Pod: "web-a", Format: sources.FormatK8sEvents, FromAPI: true, Origin: o},
		{Time: at(10), Kind: sources.PodCreated, Namespace: "shop", Pod: "web-a", Format: sources.FormatK8sEvents, FromAPI: true, Origin: o},
	}}
	shiftCluster(d, 2*time.Second)
	if d.Lifecycle[0].Kind != sources.PodScheduled || d.Lifecycle[1].Kind != sources.PodCreated || !d.Lifecycle[0].Time.Equal(at(12)) {
		t.Errorf("shifted records %v %v at %v, want PodScheduled then PodCreated at 12 s", d.Lifecycle[0].Kind, d.Lifecycle[1].Kind, d.Lifecycle[0].Time.Sub(t0))
	}
}

// servedUntilTermination is a pod that began terminating at 60 s, as the
// API recorded it, and the traffic of its IP, 10.0.18.123:8080, which
// answered every half second up to then.
func servedUntilTermination() (*Backend, *Traffic, netip.AddrPort) {
	b := &Backend{Namespace: "api", Pod: "api-9hdvcsx88d-rgq2l", Spec: &sources.PodSpec{}}
	b.Moments[Terminating] = &Moment{Time: at(60), Event: &sources.Lifecycle{Format: sources.FormatK8sEvents, FromAPI: true}}
	tr := &Traffic{}
	for s := 0.0; s <= 60; s += 0.5 {
		tr.serve(at(s))
	}
	return b, tr, netip.AddrPortFrom(netip.MustParseAddr("10.0.18.123"), 8080)
}

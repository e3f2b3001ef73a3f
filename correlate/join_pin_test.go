package correlate

import (
	"math"
	"net/netip"
	"slices"
	"testing"
)

// TestCommonBits pins the leading bits two addresses share, counted bit by
// bit past the last equal byte, and none across families.
func TestCommonBits(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"10.0.0.1", "10.0.0.1", 32},
		{"10.0.0.1", "10.0.0.2", 30},
		{"10.0.0.0", "10.0.0.128", 24},
		{"10.0.0.0", "10.0.0.64", 25},
		{"10.1.1.20", "10.1.2.50", 22},
		{"10.1.1.20", "10.1.64.9", 17},
		{"10.0.0.1", "138.0.0.1", 0},
		{"fd00::1", "fd00::3", 126},
		{"10.0.0.1", "fd00::1", 0},
	} {
		if got := commonBits(netip.MustParseAddr(c.a), netip.MustParseAddr(c.b)); got != c.want {
			t.Errorf("commonBits(%s, %s) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestNearBitsUpToTheNodeBlock pins the node ranges' prefix lengths, /24
// for IPv4 and /64 for IPv6: bits shared past them count no more.
func TestNearBitsUpToTheNodeBlock(t *testing.T) {
	for _, c := range []struct {
		near, ip string
		want     int
	}{
		{"10.1.1.20", "10.1.1.21", 24},
		{"10.1.1.20", "10.1.2.50", 22},
		{"fd00:0:0:1::5", "fd00:0:0:1::9", 64},
		{"fd00:0:0:1::5", "fd00:0:0:2::9", 62},
		{"fd00::5", "fd00:0:0:0:8000::9", 64},
	} {
		p := &pending{near: []netip.Addr{netip.MustParseAddr(c.near)}}
		if got := nearBits(p, netip.MustParseAddr(c.ip)); got != c.want {
			t.Errorf("nearBits(%s, %s) = %d, want %d", c.near, c.ip, got, c.want)
		}
	}
}

// TestPin checks that pin forbids every other column of the row and every
// other row of the column, and leaves the rest as it was.
func TestPin(t *testing.T) {
	inf := math.Inf(1)
	cost := [][]float64{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}
	pin(cost, 1, 2)
	want := [][]float64{{1, 2, inf}, {inf, inf, 6}, {7, 8, inf}}
	for i := range want {
		if !slices.Equal(cost[i], want[i]) {
			t.Fatalf("pinned row 1 to column 2: %v, want %v", cost, want)
		}
	}
}

// TestNodePrefixBitsWeighAgainstTiming pins prefixBitCost (2 s a bit) from
// both sides when no candidate lies in the node's /24: against an IP
// serving from 2 s after the pod's Ready that shares 17 bits with the
// node's pods, one sharing 22 bits (5 bits, 10 s, nearer) is joined when
// it began 8 s after Ready, and not when it began 16 s after.
func TestNodePrefixBitsWeighAgainstTiming(t *testing.T) {
	if got := nodeJoin("10.1.2.50", 108, "10.1.64.9", 102); got != "10.1.2.50" {
		t.Errorf("22 bits 8 s after Ready against 17 bits 2 s after: joined %q, want 10.1.2.50", got)
	}
	if got := nodeJoin("10.1.2.50", 116, "10.1.64.9", 102); got != "10.1.64.9" {
		t.Errorf("22 bits 16 s after Ready against 17 bits 2 s after: joined %q, want 10.1.64.9", got)
	}
}

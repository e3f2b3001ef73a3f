package correlate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/sources"
)

// TestPushLagFixtureIsTheSituation checks that
// fixtures/envoy-gateway-push-lag is what its verdict test
// (pipeline.TestPushLagIsNotClockSkew) says it is: clocks that agree, pods
// seen to stop late by an Envoy gateway's proxies, whose pairs an estimator
// blind to the lag would take for an offset of at least minClockOffset
// (+1.5 s, as reported in issue 27) and the lag-aware one takes for the lag.
func TestPushLagFixtureIsTheSituation(t *testing.T) {
	cs := NewCollectors()
	if _, err := sources.Read(context.Background(), []string{filepath.Join("..", "fixtures", "envoy-gateway-push-lag")}, sources.Options{},
		func(*sources.InputReport) sources.Handler { return cs.New() }); err != nil {
		t.Fatal(err)
	}
	a := build(cs.Merge(), Options{}.withDefaults())
	pairs, lag := a.clockPairs()
	if lag != envoyPushLag || len(pairs) < minClockPairs+1 {
		t.Fatalf("pairs %v read against %v, want three or more against %v", pairs, lag, envoyPushLag)
	}
	if blind := estimateClock(pairs); blind.Offset < minClockOffset {
		t.Errorf("without the lag: %+v, want an offset of %v or more", blind, minClockOffset)
	}
	if off := estimateClockLag(pairs, lag); off.Offset != 0 || !off.WithinLag() {
		t.Errorf("with the lag: %+v, want no offset, taken for the lag", off)
	}
}

package classify

import (
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestEnvoyPlatformOf: the product the failed requests' records name,
// else the one the objects configure.
func TestEnvoyPlatformOf(t *testing.T) {
	a := &correlate.Analysis{Dataset: &correlate.Dataset{Configs: []*sources.Config{{Kind: "VirtualService", Namespace: "shop", Name: "web"}}}}
	unnamed := &correlate.Window{Signals: []*correlate.Signal{signalOf(t, failed(time.Time{}))}}
	if got := envoyPlatformOf(a, unnamed); got != sources.PlatformIstio {
		t.Errorf("records without a product: %q, want the objects' %q", got, sources.PlatformIstio)
	}
	contour := failed(time.Time{})
	contour.Platform = sources.PlatformContour
	named := &correlate.Window{Signals: []*correlate.Signal{signalOf(t, contour)}}
	if got := envoyPlatformOf(a, named); got != sources.PlatformContour {
		t.Errorf("records naming Contour: %q", got)
	}
}

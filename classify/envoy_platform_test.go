package classify

import (
	"testing"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestEnvoyPlatformOf: the product the failed requests' records name,
// else the one the objects configure.
func TestEnvoyPlatformOf(t *testing.T) {
	a := &correlate.Analysis{Dataset: &correlate.Dataset{Configs: []*sources.Config{{Kind: "VirtualService", Namespace: "shop", Name: "web"}}}}
	unnamed := &correlate.Window{Signals: []*correlate.Signal{{Req: &sources.Request{}}}}
	if got := envoyPlatformOf(a, unnamed); got != sources.PlatformIstio {
		t.Errorf("records without a product: %q, want the objects' %q", got, sources.PlatformIstio)
	}
	named := &correlate.Window{Signals: []*correlate.Signal{{Req: &sources.Request{Platform: sources.PlatformContour}}}}
	if got := envoyPlatformOf(a, named); got != sources.PlatformContour {
		t.Errorf("records naming Contour: %q", got)
	}
}

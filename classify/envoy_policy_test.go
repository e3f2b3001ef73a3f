package classify

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestEnvoyPolicyPrecedence pins which BackendTrafficPolicy applies to a
// route among policies of the same rank, in either order read: the oldest;
// and that one targeting a Gateway wins over an older one targeting the
// Service.
func TestEnvoyPolicyPrecedence(t *testing.T) {
	route := &sources.Config{Kind: "HTTPRoute", Namespace: "shop", Name: "web-route"}
	policy := func(name, created, kind, target string) *sources.Config {
		at, err := time.Parse(time.RFC3339, created)
		if err != nil {
			t.Fatal(err)
		}
		return &sources.Config{Kind: "BackendTrafficPolicy", Namespace: "shop", Name: name, Created: at,
			BackendTrafficPolicy: &sources.BackendTrafficPolicy{Targets: []sources.ObjectRef{{Kind: kind, Name: target}}}}
	}
	older := policy("zz-older", "2026-03-01T10:00:00Z", "Gateway", "eg")
	newer := policy("aa-newer", "2026-03-02T10:00:00Z", "Gateway", "eg")
	service := policy("aa-service", "2026-02-01T10:00:00Z", "Service", "web")
	for _, c := range []struct {
		name     string
		policies []*sources.Config
		want     *sources.Config
	}{
		{"the older read first", []*sources.Config{older, newer}, older},
		{"the older read last", []*sources.Config{newer, older}, older},
		{"the Gateway's over the older Service's", []*sources.Config{service, newer}, newer},
		{"the Gateway's over the older Service's, read first", []*sources.Config{newer, service}, newer},
	} {
		got := envoyPolicyFor(front{Via: route, Objects: NewObjects(c.policies)})
		if got != c.want {
			name := "none"
			if got != nil {
				name = got.Name
			}
			t.Errorf("%s: %s applies, want %s", c.name, name, c.want.Name)
		}
	}
}

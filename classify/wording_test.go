package classify

import (
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// TestObjectKey: static-check risks are told apart by their workload's
// kind, namespace and name; a risk without a workload has an empty key.
func TestObjectKey(t *testing.T) {
	if got := objectKey(nil); got != "" {
		t.Errorf("no object: %q", got)
	}
	if got := objectKey(&sources.Config{Kind: "Deployment", Namespace: "shop", Name: "web"}); got != "Deployment/shop/web" {
		t.Errorf("a Deployment: %q", got)
	}
}

// TestStatusList: counts by status code, lowest code first, leaving out
// codes counted zero times.
func TestStatusList(t *testing.T) {
	if got, want := statusList(map[int]int{503: 3, 502: 182, 504: 0}), "182×502, 3×503"; got != want {
		t.Errorf("statusList = %q, want %q", got, want)
	}
	if got := statusList(map[int]int{502: 0}); got != "" {
		t.Errorf("only zero counts: %q", got)
	}
}

// TestSeconds: tenths below 10 s unless whole, whole seconds from 10 s.
func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{
		2500 * time.Millisecond:  "2.5 s",
		3 * time.Second:          "3 s",
		9900 * time.Millisecond:  "9.9 s",
		10 * time.Second:         "10 s",
		10400 * time.Millisecond: "10 s",
	} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

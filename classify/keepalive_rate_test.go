package classify

import (
	"reflect"
	"testing"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestKeepAliveFlagInCommandBesideArgs: the command gives the flag and the
// arguments do not (they name the app): the command is the list changed.
func TestKeepAliveFlagInCommandBesideArgs(t *testing.T) {
	app := sources.KeepAlive{Server: "gunicorn", Seconds: 2, Set: true, Via: "--keep-alive 2",
		Command: []string{"gunicorn", "--keep-alive", "2"}, Args: []string{"app:app"}}
	p := keepaliveFixes(&Objects{}, workload{Namespace: "api", Name: "web"}, sources.FamilyALB, Timeout{Seconds: 60}, &app)[0].Patch
	c := p["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if want := []any{"gunicorn", "--keep-alive", "65"}; !reflect.DeepEqual(c["command"], want) || c["args"] != nil {
		t.Errorf("patch %v, want command %v", c, want)
	}
}

// TestTrickleRateWithoutSpan: data of one instant has no hours to divide
// by: the rate per hour is 0, not infinite.
func TestTrickleRateWithoutSpan(t *testing.T) {
	r := trickleRate(&correlate.Analysis{Dataset: &correlate.Dataset{}}, &correlate.Window{Failed: 3}, 1)
	if r.PerHour != 0 || r.Share != 0 || r.Hours != 0 || r.Backends != 1 {
		t.Errorf("rate %+v, want zeros over 1 backend", r)
	}
}

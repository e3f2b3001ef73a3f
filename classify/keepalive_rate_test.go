package classify

import (
	"reflect"
	"strings"
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

// TestKeepAliveFixesNginx: the ingress-nginx alternative changes the first
// ingress-nginx ConfigMap read, by namespace and name, else the chart's
// default; uvicorn's default keep-alive is raised with its own flag.
func TestKeepAliveFixesNginx(t *testing.T) {
	wl := workload{Namespace: "api", Name: "web"}
	app := &sources.KeepAlive{Server: "uvicorn", Seconds: 15}
	target := func(objs *Objects) string {
		fixes := keepaliveFixes(objs, wl, sources.FamilyIngressNginx, Timeout{Seconds: 60}, app)
		if len(fixes) != 2 {
			t.Fatalf("%d fixes, want 2", len(fixes))
		}
		if !strings.Contains(fixes[0].Why, "--timeout-keep-alive 65") {
			t.Errorf("uvicorn's fix: %q", fixes[0].Why)
		}
		m := fixes[1].Patch["metadata"].(map[string]any)
		return m["namespace"].(string) + "/" + m["name"].(string)
	}
	if got := target(&Objects{}); got != "ingress-nginx/ingress-nginx-controller" {
		t.Errorf("no ConfigMap read: %s", got)
	}
	objs := NewObjects([]*sources.Config{
		{Kind: "Service", Namespace: "a", Name: "a"},
		{Kind: "ConfigMap", Namespace: "ingress", Name: "nginx-b", Proxy: &sources.ProxySettings{}},
		{Kind: "ConfigMap", Namespace: "ingress", Name: "nginx-a", Proxy: &sources.ProxySettings{}},
	})
	if got := target(objs); got != "ingress/nginx-a" {
		t.Errorf("ConfigMaps read: %s, want ingress/nginx-a", got)
	}
}

// TestWithFlagWithoutValue: a flag that ends the command line has no value
// to change; the result still ends with the flag and the value.
func TestWithFlagWithoutValue(t *testing.T) {
	got := withFlag([]string{"app:app", "--keep-alive"}, "--keep-alive", "65")
	if n := len(got); n < 2 || got[n-2] != "--keep-alive" || got[n-1] != "65" {
		t.Errorf("withFlag = %q, want it to end with --keep-alive 65", got)
	}
}

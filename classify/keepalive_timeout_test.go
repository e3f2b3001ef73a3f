package classify

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// TestIsTrickle pins what spread means for closed connections, in the
// numbers the constants state: at least 8 of them (minKeepaliveFailures),
// over at least 5 min (minKeepaliveSpan), no minute (keepaliveBucket)
// holding more than half (maxKeepaliveBurst).
func TestIsTrickle(t *testing.T) {
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	at := func(secs ...float64) []*correlate.Signal {
		var out []*correlate.Signal
		for _, s := range secs {
			out = append(out, signalOf(t, failed(base.Add(time.Duration(s*float64(time.Second))))))
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		sigs  []*correlate.Signal
		least int
		want  bool
	}{
		{"eight over five minutes", at(0, 40, 80, 120, 160, 200, 250, 300), 8, true},
		{"seven", at(0, 40, 80, 120, 160, 200, 300), 8, false},
		{"eight over a millisecond less", at(0, 40, 80, 120, 160, 200, 250, 299.999), 8, false},
		{"four when the objects confirm", at(0, 100, 200, 300), 4, true},
		{"four in one minute of eight", at(60, 61, 62, 63, 150, 200, 250, 360), 8, true},
		{"five in one minute of eight", at(60, 61, 62, 63, 64, 200, 250, 360), 8, false},
		// Two and three either side of a minute's start: no minute holds
		// five, but two minutes or one do.
		{"two then three across a minute", at(0, 50, 55, 70, 80, 90, 200, 360), 8, true},
		{"five in a minute's two halves", at(0, 62, 63, 95, 96, 97, 200, 360), 8, false},
	} {
		if got := isTrickle(tc.sigs, tc.least); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

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

// TestKeepAliveFixRewritesTheFlag checks the patch of the app's keep-alive
// fix: the flag's value changed where the command line gives it (as two
// words or with "="), in the list that holds it, else the flag added to
// the arguments; GUNICORN_CMD_ARGS keeps its other arguments.
func TestKeepAliveFixRewritesTheFlag(t *testing.T) {
	wl := workload{Namespace: "api", Name: "web"}
	args := func(p Patch) (string, []any) {
		c := p["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		for _, k := range []string{"args", "command"} {
			if v, ok := c[k]; ok {
				return k, v.([]any)
			}
		}
		return "", nil
	}
	cases := []struct {
		name  string
		app   sources.KeepAlive
		field string
		want  []any
	}{
		{"flag in args", sources.KeepAlive{Server: "gunicorn", Seconds: 2, Set: true, Via: "--keep-alive 2", Command: []string{"gunicorn"}, Args: []string{"--keep-alive", "2", "app:app"}},
			"args", []any{"--keep-alive", "65", "app:app"}},
		{"flag with =", sources.KeepAlive{Server: "uvicorn", Seconds: 5, Set: true, Via: "--timeout-keep-alive 5", Args: []string{"main:app", "--timeout-keep-alive=5"}},
			"args", []any{"main:app", "--timeout-keep-alive=65"}},
		{"flag in command", sources.KeepAlive{Server: "gunicorn", Seconds: 2, Set: true, Via: "--keep-alive 2", Command: []string{"gunicorn", "--keep-alive", "2", "app:app"}},
			"command", []any{"gunicorn", "--keep-alive", "65", "app:app"}},
		{"default, flag added", sources.KeepAlive{Server: "gunicorn", Seconds: 2, Command: []string{"gunicorn"}, Args: []string{"app:app"}},
			"args", []any{"app:app", "--keep-alive", "65"}},
	}
	for _, c := range cases {
		fixes := keepaliveFixes(&Objects{}, wl, sources.FamilyALB, Timeout{Seconds: 60}, &c.app)
		field, got := args(fixes[0].Patch)
		if field != c.field || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s %v, want %s %v", c.name, field, got, c.field, c.want)
		}
	}
	env := sources.KeepAlive{Server: "gunicorn", Seconds: 2, Set: true, Via: "GUNICORN_CMD_ARGS --keep-alive 2", EnvValue: "--workers 4 --keep-alive=2 --bind :8000"}
	p := keepaliveFixes(&Objects{}, wl, sources.FamilyALB, Timeout{Seconds: 60}, &env)[0].Patch
	e := p["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["env"].([]any)[0].(map[string]any)
	if e["value"] != "--workers 4 --keep-alive=65 --bind :8000" {
		t.Errorf("GUNICORN_CMD_ARGS %q", e["value"])
	}
}

// TestKeepAliveLBSideFix pins minLBIdleFix on both sides: the load
// balancer's idle timeout is proposed one second below the app's
// keep-alive only when that leaves at least ten seconds, and never for
// Google's load balancer, whose 600 s is fixed.
func TestKeepAliveLBSideFix(t *testing.T) {
	wl := workload{Namespace: "api", Name: "web"}
	for _, c := range []struct {
		family sources.Family
		app    float64
		title  string
		patch  string
	}{
		{sources.FamilyALB, 11, "Or close idle connections in the ALB after 10 s", "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=10"},
		{sources.FamilyALB, 10.5, "", ""},
		{sources.FamilyIngressNginx, 30, "Or let ingress-nginx drop idle upstream connections after 29 s", `upstream-keepalive-timeout: "29"`},
		{sources.FamilyIngressNginx, 10, "", ""},
		{sources.FamilyGCP, 300, "", ""},
	} {
		app := sources.KeepAlive{Server: "uvicorn", Seconds: c.app, Set: true, Via: fmt.Sprintf("--timeout-keep-alive %g", c.app)}
		fixes := keepaliveFixes(&Objects{}, wl, c.family, Timeout{Seconds: 60}, &app)
		switch {
		case c.title == "" && len(fixes) != 1:
			t.Errorf("%v, app %g s: %d fixes, want only the app's", c.family, c.app, len(fixes))
		case c.title != "" && (len(fixes) != 2 || fixes[1].Title != c.title || !strings.Contains(patchText(t, fixes[1].Patch), c.patch)):
			t.Errorf("%v, app %g s: fixes %+v, want a second %q with %s", c.family, c.app, fixes, c.title, c.patch)
		}
	}
}

// TestALBIdleTimeoutTieKeepsTheFirst checks that among ALBs with the same
// idle timeout the first Ingress's is quoted.
func TestALBIdleTimeoutTieKeepsTheFirst(t *testing.T) {
	const idle120 = "alb.ingress.kubernetes.io/load-balancer-attributes: idle_timeout.timeout_seconds=120"
	objs := objectsOfYAML(t, append(twoWorkloads(), ingressTo("web-a", "alb", "web", idle120), ingressTo("web-b", "alb", "web", idle120))...)
	got := lbIdleTimeout(objs, sources.FamilyALB, objs.ConfigsOf("Ingress"))
	if got.Seconds != 120 || !strings.Contains(got.Source, "shop/web-a") {
		t.Errorf("idle timeout %g s from %q, want 120 s from Ingress shop/web-a", got.Seconds, got.Source)
	}
}

package classify

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/readygap/readygap/sources"
)

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

package sources

import (
	"path"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// KeepAlive is how long a container's HTTP server keeps an idle
// connection open, as its command line or environment sets it.
type KeepAlive struct {
	// Server is the server recognised from the command (gunicorn, uvicorn,
	// hypercorn, node); "" when only an environment variable says.
	Server string
	// Seconds is the keep-alive timeout; Set says whether the container
	// sets it (false: Seconds is the server's documented default).
	Seconds float64
	Set     bool
	// Via is the flag or variable that sets it, as written ("--keep-alive 2").
	Via string
	// Command and Args are the container's, as written, for a fix that
	// changes the flag in place; EnvValue is the variable's value when Via
	// names one (GUNICORN_CMD_ARGS, KEEP_ALIVE_TIMEOUT).
	Command, Args []string
	EnvValue      string
}

// keepAliveServers are the servers whose keep-alive readygap recognises:
// the command-line flags that set it and the default without them.
var keepAliveServers = []struct {
	name    string
	flags   []string
	seconds float64
}{
	// gunicorn --keep-alive, default 2 s (docs.gunicorn.org settings
	// "keepalive"), for the workers that keep connections (see
	// gunicornKeepsAlive).
	{"gunicorn", []string{"--keep-alive"}, 2},
	// uvicorn --timeout-keep-alive, default 5 s (uvicorn settings).
	{"uvicorn", []string{"--timeout-keep-alive"}, 5},
	// hypercorn --keep-alive, default 5 s (hypercorn configuration "keep_alive_timeout").
	{"hypercorn", []string{"--keep-alive"}, 5},
	// Node.js http.Server keepAliveTimeout, default 5 s; set in code, so
	// only an environment variable the app reads can say.
	{"node", nil, 5},
}

// keepAliveEnv are environment variables apps commonly read their
// keep-alive timeout from, in seconds.
var keepAliveEnv = []string{"KEEP_ALIVE_TIMEOUT", "KEEPALIVE_TIMEOUT", "HTTP_KEEP_ALIVE_TIMEOUT", "SERVER_KEEP_ALIVE_TIMEOUT"}

// keepAliveFacts reads a container's keep-alive timeout from its command,
// arguments and environment; nil when it runs no server readygap knows and
// sets no keep-alive variable, or runs gunicorn with a worker that closes
// every connection after its response.
func keepAliveFacts(c *corev1.Container) *KeepAlive {
	argv := append(append([]string(nil), c.Command...), c.Args...)
	if runs(argv, "gunicorn") && !gunicornKeepsAlive(append(argv, gunicornEnvArgs(c)...)) {
		return nil
	}
	var ka *KeepAlive
	for _, s := range keepAliveServers {
		if !runs(argv, s.name) {
			continue
		}
		ka = &KeepAlive{Server: s.name, Seconds: s.seconds, Command: c.Command, Args: c.Args}
		for _, flag := range s.flags {
			if v, ok := flagValue(argv, flag); ok {
				if n, err := strconv.ParseFloat(v, 64); err == nil {
					ka.Seconds, ka.Set, ka.Via = n, true, flag+" "+v
				}
			}
		}
		break
	}
	for _, e := range c.Env {
		if e.Name == "GUNICORN_CMD_ARGS" && gunicornKeepsAlive(append(argv, strings.Fields(e.Value)...)) {
			if v, ok := flagValue(strings.Fields(e.Value), "--keep-alive"); ok {
				if n, err := strconv.ParseFloat(v, 64); err == nil {
					ka = &KeepAlive{Server: "gunicorn", Seconds: n, Set: true, Via: "GUNICORN_CMD_ARGS --keep-alive " + v, EnvValue: e.Value}
				}
			}
		}
		for _, name := range keepAliveEnv {
			if e.Name != name {
				continue
			}
			n, err := strconv.ParseFloat(strings.TrimSpace(e.Value), 64)
			if err != nil {
				continue
			}
			if ka == nil {
				ka = &KeepAlive{}
			}
			ka.Seconds, ka.Set, ka.Via, ka.EnvValue = n, true, name+"="+e.Value, e.Value
		}
	}
	return ka
}

// gunicornKeepsAlive reports whether gunicorn, run with argv (its command
// line and GUNICORN_CMD_ARGS), keeps idle connections open. Its default
// sync worker closes every connection after the response
// (gunicorn/workers/sync.py calls resp.force_close(); the "keepalive"
// setting: "sync worker does not support persistent connections and will
// ignore this option"); gthread, gevent, eventlet, tornado and the ASGI
// workers keep them, and --threads above 1 turns sync into gthread. A
// worker class set only in a configuration file is not visible here.
func gunicornKeepsAlive(argv []string) bool {
	worker := "sync"
	for i, a := range argv {
		switch {
		case (a == "-k" || a == "--worker-class") && i+1 < len(argv):
			worker = argv[i+1]
		case strings.HasPrefix(a, "--worker-class="):
			worker = strings.TrimPrefix(a, "--worker-class=")
		case strings.HasPrefix(a, "-k") && len(a) > 2 && a[2] != '-':
			worker = strings.TrimPrefix(a[2:], "=")
		}
	}
	if v, ok := flagValue(argv, "--threads"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 1 {
			return true
		}
	}
	return worker != "sync" && worker != "gunicorn.workers.sync.SyncWorker"
}

// gunicornEnvArgs are the arguments a container passes gunicorn in
// GUNICORN_CMD_ARGS.
func gunicornEnvArgs(c *corev1.Container) []string {
	for _, e := range c.Env {
		if e.Name == "GUNICORN_CMD_ARGS" {
			return strings.Fields(e.Value)
		}
	}
	return nil
}

// runs reports whether the command line runs server: as the program, or
// as the program run by python -m or an interpreter.
func runs(argv []string, server string) bool {
	for i, a := range argv {
		if i > 2 {
			break
		}
		if path.Base(a) == server || a == "-m" && i+1 < len(argv) && argv[i+1] == server {
			return true
		}
	}
	return false
}

// flagValue returns the value of a flag given as `--flag v` or `--flag=v`.
func flagValue(argv []string, flag string) (string, bool) {
	for i, a := range argv {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
		if a == flag && i+1 < len(argv) {
			return argv[i+1], true
		}
	}
	return "", false
}

// ProxySettings are the settings of an ingress-nginx controller's
// ConfigMap that decide how it talks to upstreams.
type ProxySettings struct {
	// UpstreamKeepaliveTimeoutSec is upstream-keepalive-timeout: how long
	// the controller keeps an idle upstream connection (seconds); nil when
	// the ConfigMap does not set it.
	UpstreamKeepaliveTimeoutSec *int
}

// proxySettingsOf reads an ingress-nginx ConfigMap; nil when it is not one.
func proxySettingsOf(cm *corev1.ConfigMap) *ProxySettings {
	if cm.Labels["app.kubernetes.io/name"] != "ingress-nginx" && !strings.Contains(cm.Name, "ingress-nginx") {
		return nil
	}
	return &ProxySettings{UpstreamKeepaliveTimeoutSec: atoiPtr(cm.Data["upstream-keepalive-timeout"])}
}

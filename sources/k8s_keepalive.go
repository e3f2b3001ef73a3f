package sources

import (
	"path"
	"strconv"
	"strings"
	"time"

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
	// Unit is how the setting is written, so that a fix writes its value
	// the same way: UnitSeconds, UnitMillis or UnitDuration.
	Unit string
	// UnitNote says how the unit of a bare number was decided when the
	// setting does not say it; "" otherwise.
	UnitNote string
}

// Units of a keep-alive setting as written.
const (
	// UnitSeconds: a bare number of seconds (gunicorn, uvicorn, hypercorn flags).
	UnitSeconds = "s"
	// UnitMillis: a bare number of milliseconds (Node.js
	// server.keepAliveTimeout; a Spring Duration without a suffix).
	UnitMillis = "ms"
	// UnitDuration: a number with its unit ("5s", "500ms", "1m"), as Go's
	// time.ParseDuration and Spring's Duration read it.
	UnitDuration = "duration"
)

// Where the keep-alive units come from.
const (
	// nodeKeepAliveUnit: Node.js server.keepAliveTimeout is "the number of
	// milliseconds of inactivity a server needs to wait for additional
	// incoming data" (nodejs.org/api/http.html#serverkeepalivetimeout),
	// default 5000; a KEEP_ALIVE_TIMEOUT variable of a Node.js app feeds it.
	nodeKeepAliveUnit = UnitMillis
	// springKeepAliveProperty is Spring Boot's server.tomcat.keep-alive-timeout
	// ("Time to wait for another HTTP request before the connection is
	// closed. When not set the connectionTimeout is used", Spring Boot
	// application properties); a Duration, whose bare numbers are
	// milliseconds ("If no unit is specified, milliseconds are used",
	// Spring Boot reference, "Converting Durations"), set by the
	// --server.tomcat.keep-alive-timeout argument or, by relaxed binding,
	// the SERVER_TOMCAT_KEEPALIVETIMEOUT variable.
	springKeepAliveProperty = "server.tomcat.keep-alive-timeout"
	// minPlausibleMillis: a bare keep-alive number of an unknown server of
	// at least this much is read as milliseconds, as Node.js apps write
	// it: no load balancer keeps idle connections 1000 s or more (ALB's
	// idle timeout is at most 4000 s, Google's backend keep-alive 600 s).
	minPlausibleMillis = 1000
)

// Notes on how a bare number's unit was decided (KeepAlive.UnitNote).
const (
	nodeMillisNote      = "a bare number, read as milliseconds as Node.js's server.keepAliveTimeout takes it"
	plausibleMillisNote = "a bare number of 1000 or more, read as milliseconds as Node.js apps write it: no load balancer keeps idle connections that long"
)

// springKeepAliveEnv are the environment variables Spring Boot's relaxed
// binding maps to springKeepAliveProperty.
var springKeepAliveEnv = []string{"SERVER_TOMCAT_KEEPALIVETIMEOUT", "SERVER_TOMCAT_KEEP_ALIVE_TIMEOUT"}

// keepAliveValue reads a keep-alive value as written: a number with its
// unit (Go and Spring durations: "5s", "500ms", "1m"), else a bare number
// in the unit given (bare); ok is false when it is neither.
func keepAliveValue(v, bare string) (seconds float64, unit string, ok bool) {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if bare == UnitMillis {
			return n / 1000, UnitMillis, true
		}
		return n, UnitSeconds, true
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d.Seconds(), UnitDuration, true
	}
	if n, err := strconv.ParseFloat(strings.TrimSuffix(v, "d"), 64); err == nil && strings.HasSuffix(v, "d") {
		return n * 86400, UnitDuration, true // Spring's days
	}
	return 0, "", false
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
		ka = &KeepAlive{Server: s.name, Seconds: s.seconds, Command: c.Command, Args: c.Args, Unit: UnitSeconds}
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
					ka = &KeepAlive{Server: "gunicorn", Seconds: n, Set: true, Via: "GUNICORN_CMD_ARGS --keep-alive " + v, EnvValue: e.Value, Unit: UnitSeconds}
				}
			}
		}
		for _, name := range keepAliveEnv {
			if e.Name != name {
				continue
			}
			bare, note := UnitSeconds, ""
			switch {
			case ka != nil && ka.Server == "node":
				bare, note = nodeKeepAliveUnit, nodeMillisNote
			case ka == nil || ka.Server == "":
				if n, err := strconv.ParseFloat(strings.TrimSpace(e.Value), 64); err == nil && n >= minPlausibleMillis {
					bare, note = UnitMillis, plausibleMillisNote
				}
			}
			n, unit, ok := keepAliveValue(e.Value, bare)
			if !ok {
				continue
			}
			if ka == nil {
				ka = &KeepAlive{}
			}
			if unit == UnitDuration {
				note = ""
			}
			ka.Seconds, ka.Set, ka.Via, ka.EnvValue, ka.Unit, ka.UnitNote = n, true, name+"="+e.Value, e.Value, unit, note
		}
		for _, name := range springKeepAliveEnv {
			if e.Name != name {
				continue
			}
			if n, unit, ok := keepAliveValue(e.Value, UnitMillis); ok {
				ka = &KeepAlive{Server: "spring", Seconds: n, Set: true, Via: name + "=" + e.Value, EnvValue: e.Value, Unit: unit, Command: c.Command, Args: c.Args}
			}
		}
	}
	if v, ok := flagValue(argv, "--"+springKeepAliveProperty); ok {
		if n, unit, ok := keepAliveValue(v, UnitMillis); ok {
			ka = &KeepAlive{Server: "spring", Seconds: n, Set: true, Via: "--" + springKeepAliveProperty + " " + v, Command: c.Command, Args: c.Args, Unit: unit}
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

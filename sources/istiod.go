package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// istiod reads the log of Istio's control plane (istiod, pilot-discovery)
// for the moments it pushed endpoints to its proxies: "the proxy learned
// the endpoints at T". Istio's logger (pkg/log) writes each line as
//
//	2024-07-17T11:50:12.157700Z	info	ads	Push debounce stable[4] 1 for config ServiceEntry/default/httpbin-2.default.svc.cluster.local: 100.841761ms since last change, 100.841552ms since last push, full=false
//
// (the time in UTC with six fractional digits, the level, the scope, the
// message, separated by tabs that a paste often turns into spaces; the
// scope is left out for the default scope), or, with --log_as_json, as
// `{"level":"info","time":"...","scope":"ads","msg":"..."}`. The messages
// read are those of pilot/pkg/xds and pilot/pkg/model since Istio 1.6
// (see istiodMessages); every other valid line is passed over.
type istiod struct{}

// istiodSource is the Source of every record of this format.
const istiodSource = "istiod"

// Reasons of the ProxyUpdated records istiod's lines give.
const (
	// istiodReasonDebounce: `Push debounce stable[N] M ...`, the moment
	// istiod starts a push to every connected proxy (1.6+; `for config
	// Kind/ns/name` since 1.12, `for reason R:n` since 1.15).
	istiodReasonDebounce = "PushDebounced"
	// istiodReasonPush: `XDS: Pushing ...`, `XDS: Incremental Pushing ...`,
	// `XDS:EDSInc Pushing:...`: the push to every connected proxy began;
	// Count is ConnectedEndpoints (proxies).
	istiodReasonPush = "Push"
	// istiodReasonNoEndpoints: `Incremental push, service H at shard S has
	// no endpoints` (1.12+; `Incremental push, service H has no endpoints`
	// before): the proxies are told the Service has no endpoint.
	istiodReasonNoEndpoints = "NoEndpoints"
	// istiodReasonNewService: `Full push, new service ns/host`.
	istiodReasonNewService = "NewService"
)

// istiodLevels are the levels Istio's logger writes (LowercaseLevelEncoder).
var istiodLevels = []string{"debug", "info", "warn", "error", "fatal"}

// istiodJSON holds the keys of a --log_as_json line that readygap uses.
type istiodJSON struct {
	Level string `json:"level"`
	Time  string `json:"time"`
	Scope string `json:"scope"`
	Msg   string `json:"msg"`
}

// Format returns FormatIstiod.
func (istiod) Format() Format { return FormatIstiod }

// Match reports whether line is an Istio log line: an RFC 3339 time (or
// none, when the pipeline took it off as a wrapper's), a level word and a
// tab or a run of spaces, or a JSON object starting with `{"level":` that
// has `"time":` and `"scope":` (the AWS LB controller's zap lines have
// `"ts":`, Envoy's JSON access lines no `"scope":`).
func (istiod) Match(line []byte) bool {
	if bytes.HasPrefix(line, []byte(`{"level":`)) {
		return bytes.Contains(line, []byte(`"time":`)) && bytes.Contains(line, []byte(`"scope":`)) &&
			bytes.Contains(line, []byte(`"msg":`))
	}
	_, _, _, ok := istiodSplitText(line)
	return ok
}

// errIstiodLine is the reason a line in neither of Istio's layouts is skipped.
var errIstiodLine = errors.New("not an Istio log line (time, level, scope, message)")

// Parse reads one istiod line and reports a ProxyUpdated record for the
// messages that say a push of endpoints went out.
func (istiod) Parse(line []byte, ln *Line, out *Emitter) error {
	var t time.Time
	var msg string
	if bytes.HasPrefix(line, []byte(`{`)) {
		var e istiodJSON
		if err := json.Unmarshal(line, &e); err != nil {
			return errIstiodLine
		}
		var ok bool
		if t, ok = lex.ParseRFC3339([]byte(e.Time)); !ok {
			return errors.New("Istio JSON line with a bad time")
		}
		msg = e.Msg
	} else {
		var ok bool
		var m []byte
		if t, _, m, ok = istiodSplitText(line); !ok {
			return errIstiodLine
		}
		if t.IsZero() {
			if t = ln.Stamp; t.IsZero() {
				return errors.New("Istio log line without its time")
			}
		}
		msg = string(m)
	}
	l := Lifecycle{Time: t, Kind: ProxyUpdated, From: -1, Source: istiodSource, Format: FormatIstiod, Origin: ln.Origin}
	if !istiodMessage(msg, &l) {
		return nil
	}
	l.Message = msg
	out.Lifecycle(&l)
	return nil
}

// istiodSplitText splits a text line into its time, level and the rest
// (the scope, when there is one, and the message). The time is zero when
// the line starts at the level: the pipeline takes a leading time off
// every line as a wrapper's (see unwrapLine) and hands it over as the
// Line's Stamp. A tab, or a run of two spaces or more (a paste), follows
// the level.
func istiodSplitText(line []byte) (t time.Time, level string, rest []byte, ok bool) {
	if tt, n, ok := lex.ScanRFC3339(line); ok {
		if n == len(line) || (line[n] != '\t' && line[n] != ' ') {
			return time.Time{}, "", nil, false
		}
		t, line = tt, line[n:]
	}
	line = bytes.TrimLeft(line, " \t")
	for _, lv := range istiodLevels {
		after, found := bytes.CutPrefix(line, []byte(lv))
		if !found || len(after) == 0 {
			continue
		}
		if after[0] == '\t' || bytes.HasPrefix(after, []byte("  ")) {
			return t, lv, bytes.TrimLeft(after, " \t"), true
		}
	}
	return time.Time{}, "", nil, false
}

// istiodMessage recognises a message that says endpoints went out to the
// proxies and fills l; rest may start with the scope. It reports false for
// every other message.
func istiodMessage(rest string, l *Lifecycle) bool {
	for _, m := range istiodMessages {
		if i := strings.Index(rest, m.prefix); i >= 0 && istiodScopeOnly(rest[:i]) {
			return m.read(rest[i+len(m.prefix):], l)
		}
	}
	return false
}

// istiodScopeOnly reports whether what precedes a message is nothing or
// one scope word (`ads`, `model`, `delta`) and blank space.
func istiodScopeOnly(s string) bool {
	s = strings.TrimRight(s, " \t")
	return !strings.ContainsAny(s, " \t:")
}

// istiodMessages are the messages read, each with its reader. The prefixes
// are the format strings of istio/istio (pilot/pkg/xds/xdsgen.go,
// discovery.go, ads.go, eds.go; pilot/pkg/model/endpointshards.go).
var istiodMessages = []struct {
	prefix string
	read   func(rest string, l *Lifecycle) bool
}{
	// "%s: %s%s for node:%s resources:%d size:%v%s%s" (1.10+), with
	// ptype PUSH or PUSH INC; 1.6–1.9 "EDS: PUSH for node:%s clusters:%d
	// endpoints:%d empty:%v" and "EDS: PUSH for node:%s resources:%d ...".
	{"EDS: PUSH", istiodNodePush},
	{"Push debounce stable[", istiodDebounce},
	{"XDS: Pushing", istiodPushAll},
	{"XDS: Incremental Pushing", istiodPushAll},
	{"XDS:EDSInc Pushing:", istiodPushAll},
	{"Incremental push, service ", istiodNoEndpoints},
	{"Full push, new service ", istiodNewService},
}

// istiodNodePush reads the rest of `EDS: PUSH[ INC][ request] for node:ID
// resources:N ...`: the proxy ID (`<pod>.<namespace>`) and the count.
func istiodNodePush(rest string, l *Lifecycle) bool {
	_, after, ok := strings.Cut(rest, "for node:")
	if !ok {
		return false
	}
	fields := strings.Fields(after)
	if len(fields) == 0 {
		return false
	}
	l.Proxy, l.Reason = fields[0], "EDS"
	for _, f := range fields[1:] {
		for _, key := range []string{"resources:", "clusters:"} {
			if v, ok := strings.CutPrefix(f, key); ok {
				if n, ok := lex.Digits([]byte(v)); ok {
					l.Count = n
				}
			}
		}
	}
	return true
}

// istiodDebounce reads the rest of `Push debounce stable[N] M[ for config
// Kind/ns/name[ and K more configs]| for reason R]: ...`: the Service when
// the one config named is a ServiceEntry (which Kubernetes Services are,
// inside istiod).
func istiodDebounce(rest string, l *Lifecycle) bool {
	l.Reason = istiodReasonDebounce
	if _, cfg, ok := strings.Cut(rest, " for config "); ok {
		cfg, _, _ = strings.Cut(cfg, ": ")
		cfg, _, _ = strings.Cut(cfg, " and ")
		if kind, nsName, ok := strings.Cut(cfg, "/"); ok && kind == "ServiceEntry" {
			if ns, host, ok := strings.Cut(nsName, "/"); ok {
				istiodService(host, ns, l)
			}
		}
	}
	return true
}

// istiodPushAll reads `XDS: Pushing ...` and its older forms: the count of
// connected proxies and, in 1.6's `Services:map[host:{} ...]`, the first Service.
func istiodPushAll(rest string, l *Lifecycle) bool {
	l.Reason = istiodReasonPush
	for _, f := range strings.Fields(rest) {
		if v, ok := strings.CutPrefix(f, "ConnectedEndpoints:"); ok {
			if n, ok := lex.Digits([]byte(v)); ok {
				l.Count = n
			}
		}
		if v, ok := strings.CutPrefix(f, "Services:map["); ok {
			if host, _, ok := strings.Cut(v, ":"); ok {
				istiodService(host, "", l)
			}
		}
	}
	return true
}

// istiodNoEndpoints reads `Incremental push, service H[ at shard S] has
// no endpoints`.
func istiodNoEndpoints(rest string, l *Lifecycle) bool {
	host, _, ok := strings.Cut(rest, " ")
	if !ok || !strings.HasSuffix(rest, "has no endpoints") {
		return false
	}
	l.Reason = istiodReasonNoEndpoints
	istiodService(host, "", l)
	return true
}

// istiodNewService reads `Full push, new service ns/host`.
func istiodNewService(rest string, l *Lifecycle) bool {
	ns, host, ok := strings.Cut(strings.TrimSpace(rest), "/")
	if !ok {
		return false
	}
	l.Reason = istiodReasonNewService
	istiodService(host, ns, l)
	return true
}

// istiodService sets l's Service from an Istio host name: a Kubernetes
// Service's `name.ns.svc.<domain>` gives Service/name in ns; any other
// host is kept whole as the object.
func istiodService(host, ns string, l *Lifecycle) {
	if name, rest, ok := strings.Cut(host, "."); ok {
		if hostNS, rest, ok := strings.Cut(rest, "."); ok && strings.HasPrefix(rest, "svc.") {
			l.Namespace, l.Object = hostNS, "Service/"+name
			return
		}
	}
	l.Namespace, l.Object = ns, "ServiceEntry/"+host
}

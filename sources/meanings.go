package sources

import (
	"sort"
	"strconv"
	"strings"
)

// This file lets people ask what a value or a line means, from the tables
// the adapters classify with (envoy_outcome.go, gcp_logging.go,
// nginx_error.go): each row there carries its meaning, so what is
// explained is what the adapters count.

// Meaning is what one value a load balancer or proxy logs says.
type Meaning struct {
	// Field is where the value is logged: "Envoy response flag", "GCP statusDetails", ...
	Field string
	// Value is the value as logged; Aliases are its other spellings (an
	// Envoy flag's long name).
	Value   string
	Aliases []string
	// Means is what it says, in a sentence.
	Means string
	// Generator is who produced a 5xx carrying the value, and Failure
	// the failure readygap counts it as, as the adapter classifies it.
	Generator Generator
	Failure   FailureKind
	// Family is the load balancer or proxy that logs it.
	Family Family
	// Doc is the documentation of the value.
	Doc string
}

// The fields of the meanings.
const (
	FieldEnvoyFlag   = "Envoy response flag (%RESPONSE_FLAGS%)"
	FieldEnvoyDetail = "Envoy response code detail (%RESPONSE_CODE_DETAILS%)"
	FieldEnvoyReset  = "Envoy stream reset reason (in upstream_reset_before_response_started{...})"
	FieldEnvoyErrno  = "Envoy connect error (in %UPSTREAM_TRANSPORT_FAILURE_REASON%)"
	FieldGCPDetail   = "GCP load balancer statusDetails / proxyStatus"
	FieldNginxError  = "nginx error-log message"
	FieldNginxErrno  = "nginx error-log errno"
	FieldNginxPeer   = "ingress-nginx upstream address ($upstream_addr)"
)

// meaningStatus is the status the meanings are classified with: a 5xx
// the proxy or load balancer could have produced.
const meaningStatus = 503

// Meanings lists the meaning of every value the adapters tell apart.
func Meanings() []Meaning {
	var out []Meaning
	for _, f := range envoyFlagNames {
		rec := envoyRecord{status: meaningStatus, hasStatus: true}
		gen, kind := envoyOutcome(&rec, f.flag)
		out = append(out, Meaning{Field: FieldEnvoyFlag, Value: f.short, Aliases: []string{f.long}, Means: f.means,
			Generator: gen, Failure: kind, Family: FamilyEnvoy, Doc: envoyFlagDoc})
	}
	for _, d := range sortedKeys(envoyDetailKinds) {
		rec := envoyRecord{status: meaningStatus, hasStatus: true, details: []byte(d)}
		gen, kind := envoyOutcome(&rec, 0)
		out = append(out, Meaning{Field: FieldEnvoyDetail, Value: d, Means: envoyDetailKinds[d].means,
			Generator: gen, Failure: kind, Family: FamilyEnvoy, Doc: envoyDetailDoc})
	}
	for _, r := range sortedKeys(envoyResetKinds) {
		rec := envoyRecord{status: meaningStatus, hasStatus: true, details: []byte(envoyResetBeforeResponse + "{" + r + "}")}
		gen, kind := envoyOutcome(&rec, 0)
		out = append(out, Meaning{Field: FieldEnvoyReset, Value: r, Means: envoyResetKinds[r].means,
			Generator: gen, Failure: kind, Family: FamilyEnvoy, Doc: envoyResetDoc})
	}
	for _, e := range sortedKeys(envoyErrnoKinds) {
		rec := envoyRecord{status: meaningStatus, hasStatus: true, reason: []byte("delayed_connect_error:_" + e)}
		gen, kind := envoyOutcome(&rec, flagUF)
		out = append(out, Meaning{Field: FieldEnvoyErrno, Value: e, Means: envoyErrnoKinds[e].means,
			Generator: gen, Failure: kind, Family: FamilyEnvoy, Doc: envoyResetDoc})
	}
	for _, r := range gcpDetails {
		for _, d := range r.details {
			gen, kind := gcpOutcome(d, meaningStatus, true, false)
			out = append(out, Meaning{Field: FieldGCPDetail, Value: d, Means: r.means,
				Generator: gen, Failure: kind, Family: FamilyGCP, Doc: gcpDetailDoc})
		}
	}
	for _, m := range nginxMessages {
		out = append(out, Meaning{Field: FieldNginxError, Value: m.prefix, Means: m.means,
			Generator: GeneratedByLB, Failure: nginxErrorFailure([]byte(m.prefix)), Family: FamilyIngressNginx, Doc: nginxErrorDoc})
	}
	placeholder := nginxNewAttempt([]byte(nginxPlaceholder.String()+":80"), []byte("0"), []byte("502"))
	out = append(out, Meaning{Field: FieldNginxPeer, Value: nginxPlaceholder.String(), Aliases: []string{nginxPlaceholder.String() + ":80"},
		Means:     "the placeholder server of ingress-nginx's upstream_balancer, used when the Lua balancer returned no peer: the proxy had no endpoint for the Service",
		Generator: GeneratedByLB, Failure: placeholder.Failure, Family: FamilyIngressNginx, Doc: nginxTemplateDoc})
	errnos := make([]int, 0, len(nginxErrnos))
	for e := range nginxErrnos {
		errnos = append(errnos, e)
	}
	sort.Ints(errnos)
	for _, e := range errnos {
		msg := "connect() failed (" + strconv.Itoa(e) + ": x) while connecting to upstream"
		out = append(out, Meaning{Field: FieldNginxErrno, Value: strconv.Itoa(e), Means: nginxErrnos[e].means,
			Generator: GeneratedByLB, Failure: nginxErrorFailure([]byte(msg)), Family: FamilyIngressNginx, Doc: nginxErrorDoc})
	}
	return out
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// LookupMeanings returns the meanings of one value: an Envoy flag (short
// or long name) or a list of them (`UF,URX`), a response code detail
// (with its braces), a GCP statusDetails or proxyStatus value, an nginx
// error message or its errno. None for a value no adapter tells apart.
func LookupMeanings(value string) []Meaning {
	value = strings.Trim(strings.TrimSpace(value), `"'`)
	if value == "" {
		return nil
	}
	all := Meanings()
	var out []Meaning
	find := func(v string, fields ...string) bool {
		found := false
		for _, m := range all {
			if !containsString(fields, m.Field) {
				continue
			}
			if m.Value == v || containsString(m.Aliases, v) || m.Field == FieldNginxError && strings.HasPrefix(v, m.Value) {
				out = append(out, m)
				found = true
			}
		}
		return found
	}
	// A proxyStatus value: `error="..."; details="..."`.
	if strings.Contains(value, "error=") || strings.Contains(value, "details=") {
		for _, p := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(p, "="); ok {
				find(strings.Trim(strings.TrimSpace(v), `"`), FieldGCPDetail)
			}
		}
		return out
	}
	if strings.Contains(value, ",") && !strings.Contains(value, " ") && !strings.Contains(value, "{") {
		for _, f := range strings.Split(value, ",") {
			find(f, FieldEnvoyFlag)
		}
		return out
	}
	if inner, ok := envoyBraces([]byte(value), envoyResetBeforeResponse); ok {
		for _, part := range strings.FieldsFunc(string(inner), func(r rune) bool { return r == ',' || r == '|' }) {
			if !find(part, FieldEnvoyReset) {
				if _, e, ok := strings.Cut(part, envoyConnectErrorInfix); ok {
					find(strings.ToLower(strings.TrimLeft(e, "_")), FieldEnvoyErrno)
				}
			}
		}
		return out
	}
	if strings.HasPrefix(value, envoyResetAfterResponse) {
		return append(out, Meaning{Field: FieldEnvoyDetail, Value: envoyResetAfterResponse,
			Means:     "the upstream reset the stream after the response had started: the status is the backend's, its body was cut",
			Generator: GeneratedByBackend, Failure: FailureClosed, Family: FamilyEnvoy, Doc: envoyDetailDoc})
	}
	if value == envoyViaUpstream {
		return append(out, Meaning{Field: FieldEnvoyDetail, Value: envoyViaUpstream,
			Means: "the upstream (the application) set the status", Generator: GeneratedByBackend, Failure: FailureAppError, Family: FamilyEnvoy, Doc: envoyDetailDoc})
	}
	if find(value, FieldEnvoyFlag, FieldEnvoyDetail, FieldGCPDetail, FieldNginxError, FieldNginxPeer) {
		return out
	}
	if e, ok := nginxErrno([]byte(value)); ok {
		find(strconv.Itoa(e), FieldNginxErrno)
	}
	return out
}

// containsString reports whether list holds s.
func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Means says what a failure kind is, for people.
func (f FailureKind) Means() string {
	if int(f) < len(failureMeanings) {
		return failureMeanings[f]
	}
	return failureMeanings[FailureOther]
}

// failureMeanings say what each failure kind is, by FailureKind.
var failureMeanings = [...]string{
	"no failure: a status below 500, or the client went away",
	"the application answered with a 5xx itself: not the load balancer's doing",
	"the load balancer or proxy had no usable backend to send the request to",
	"the connection to the chosen backend was refused: nothing listened on its port",
	"the chosen backend's address did not answer at all: the pod was gone",
	"the backend closed or reset the connection before a whole response",
	"connecting to or waiting for the backend timed out",
	"another error the load balancer or proxy produced",
}

// LineOutcome is what readygap's adapters make of one pasted line.
type LineOutcome struct {
	Format Format
	// Requests are the outcomes the line holds (one, or none for a line
	// that is valid but holds no request).
	Requests []Request
	// Err is why the line was not read, when no adapter read it.
	Err error
}

// ReadLine reads one line with the line adapters that recognise it, after
// undoing what pasting does to lines (typographic quotes, non-breaking
// spaces). Formats without a time of their own read against no stamp. The
// client's formats are not tried: a bare status such as `503` is a value
// to look up, not a curl loop's line.
func ReadLine(line string) LineOutcome {
	b := []byte(strings.TrimSpace(typographicQuotes.Replace(strings.ReplaceAll(line, "\u00a0", " "))))
	var lastErr error
	for _, a := range lineAdapters {
		if FamilyOf(a.Format()) == FamilyClient || !a.Match(b) {
			continue
		}
		c := &meaningCollector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		if err := a.Parse(b, &Line{Origin: Origin{File: "explain", Line: 1}}, em); err != nil {
			lastErr = err
			continue
		}
		return LineOutcome{Format: a.Format(), Requests: c.requests}
	}
	return LineOutcome{Err: lastErr}
}

// meaningCollector keeps the requests of one line.
type meaningCollector struct{ requests []Request }

func (c *meaningCollector) Request(r *Request)   { c.requests = append(c.requests, *r.Clone()) }
func (c *meaningCollector) Lifecycle(*Lifecycle) {}
func (c *meaningCollector) Config(*Config)       {}

// HowToGet returns how users export the formats of a family, from the
// format table.
func HowToGet(f Family) []string {
	var out []string
	for _, x := range formatTable {
		if x.Family == f {
			out = append(out, string(x.ID)+": "+x.HowToGet)
		}
	}
	return out
}

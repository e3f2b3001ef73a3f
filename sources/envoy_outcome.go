package sources

import (
	"bytes"
	"errors"
	"math"
	"net/netip"
	"strings"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
)

// This file holds what every Envoy access-log layout shares: the values
// readygap reads from a record (envoyRecord), and how Envoy's response
// flags, response code details and transport failure reasons map onto the
// normalized outcome. The layouts themselves are in envoy_text.go,
// envoy_json.go and gcp_logging_mesh.go; docs/envoy.md lists the sources.

// envoyRecord is the part of one Envoy access-log record readygap uses,
// whatever its layout. The byte slices point into the line (or the JSON
// parser's memory) and are nil when the record does not log the value or
// logs it unset (`-`, null or, with omit_empty_values, empty).
type envoyRecord struct {
	// time is %START_TIME% (or %EMIT_TIME% when the format has no start
	// time); zero when not logged.
	time time.Time
	// status is %RESPONSE_CODE%; hasStatus is false when it is not logged.
	status    int
	hasStatus bool
	// method and path are the request's :method and path (X-ENVOY-ORIGINAL-PATH or :path).
	method, path []byte
	// flags is %RESPONSE_FLAGS% (short names) or %RESPONSE_FLAGS_LONG%.
	flags []byte
	// details is %RESPONSE_CODE_DETAILS%.
	details []byte
	// termination is %CONNECTION_TERMINATION_DETAILS%.
	termination []byte
	// reason is %UPSTREAM_TRANSPORT_FAILURE_REASON%.
	reason []byte
	// host is %UPSTREAM_HOST% (or %UPSTREAM_REMOTE_ADDRESS%).
	host []byte
	// hostsAttempted is %UPSTREAM_HOSTS_ATTEMPTED%, a comma-separated list.
	hostsAttempted []byte
	// cluster is %UPSTREAM_CLUSTER% or %UPSTREAM_CLUSTER_RAW%; route is %ROUTE_NAME%.
	cluster, route []byte
	// downstreamLocal is %DOWNSTREAM_LOCAL_ADDRESS%.
	downstreamLocal []byte
	// attemptCount is %UPSTREAM_REQUEST_ATTEMPT_COUNT%; 0 when not logged.
	attemptCount int
	// durationMS is %DURATION% in milliseconds; 0 when not logged.
	durationMS int
	// timedAtEnd says time is when the line was written (%EMIT_TIME%, or
	// a wrapper's stamp), not %START_TIME%: the request started
	// durationMS before it.
	timedAtEnd bool
	// platform is what the layout alone says about the product ("" when nothing).
	platform Platform
}

// envoyUnset reports whether b is how Envoy writes a value it does not have.
func envoyUnset(b []byte) bool { return len(b) == 0 || len(b) == 1 && b[0] == '-' }

// envoyValue returns b, or nil when it is unset.
func envoyValue(b []byte) []byte {
	if envoyUnset(b) {
		return nil
	}
	return b
}

// envoyFlags is a set of Envoy response flags.
type envoyFlags uint32

// The response flags readygap tells apart (envoyproxy/envoy
// source/common/stream_info/utility.h, ResponseFlagUtils); flagOther stands
// for every other known or custom flag.
const (
	flagUH    envoyFlags = 1 << iota // NoHealthyUpstream
	flagUF                           // UpstreamConnectionFailure
	flagUC                           // UpstreamConnectionTermination
	flagUR                           // UpstreamRemoteReset
	flagUT                           // UpstreamRequestTimeout
	flagLR                           // LocalReset
	flagUO                           // UpstreamOverflow
	flagURX                          // UpstreamRetryLimitExceeded
	flagNR                           // NoRouteFound
	flagNC                           // NoClusterFound
	flagDC                           // DownstreamConnectionTermination
	flagUPE                          // UpstreamProtocolError
	flagUMSDR                        // UpstreamMaxStreamDurationReached
	flagOther
)

// envoyFlagNames maps each response flag Envoy documents to its short and
// long names, as %RESPONSE_FLAGS% and %RESPONSE_FLAGS_LONG% write them, to
// the flag readygap tells it apart as (flagOther for the rest), and to what
// it means (envoyFlagDoc; the wording is Envoy's, shortened).
var envoyFlagNames = [...]struct {
	short, long string
	flag        envoyFlags
	means       string
}{
	{"UH", "NoHealthyUpstream", flagUH, "no healthy upstream host in the upstream cluster (with a 503)"},
	{"UF", "UpstreamConnectionFailure", flagUF, "the connection to the upstream failed (with a 503)"},
	{"UC", "UpstreamConnectionTermination", flagUC, "the upstream connection was terminated (with a 503)"},
	{"UR", "UpstreamRemoteReset", flagUR, "the upstream reset the stream (with a 503)"},
	{"UT", "UpstreamRequestTimeout", flagUT, "the upstream request timed out (with a 504)"},
	{"LR", "LocalReset", flagLR, "the connection was reset locally (with a 503)"},
	{"UO", "UpstreamOverflow", flagUO, "upstream overflow: a circuit breaker was open (with a 503)"},
	{"URX", "UpstreamRetryLimitExceeded", flagURX, "the request was rejected because the upstream retry limit (HTTP) or the maximum connect attempts (TCP) was reached"},
	{"NR", "NoRouteFound", flagNR, "no route is configured for the request (with a 404), or no filter chain matched the connection"},
	{"NC", "NoClusterFound", flagNC, "the upstream cluster was not found"},
	{"DC", "DownstreamConnectionTermination", flagDC, "the downstream (client) connection was terminated"},
	{"UPE", "UpstreamProtocolError", flagUPE, "the upstream response had an HTTP protocol error"},
	{"UMSDR", "UpstreamMaxStreamDurationReached", flagUMSDR, "the upstream request reached its maximum stream duration"},
	{"LH", "FailedLocalHealthCheck", flagOther, "the local service failed its health check (with a 503)"},
	{"DI", "DelayInjected", flagOther, "the request was delayed by fault injection"},
	{"FI", "FaultInjected", flagOther, "the request was aborted with a status chosen by fault injection"},
	{"RL", "RateLimited", flagOther, "the request was rate-limited locally by the HTTP rate-limit filter (with a 429)"},
	{"UAEX", "UnauthorizedExternalService", flagOther, "the request was denied by the external authorization service"},
	{"RLSE", "RateLimitServiceError", flagOther, "the request was rejected because of an error in the rate-limit service"},
	{"IH", "InvalidEnvoyRequestHeaders", flagOther, "the request set an invalid value for a strictly checked header (with a 400)"},
	{"SI", "StreamIdleTimeout", flagOther, "the stream idle timeout fired (with a 408 or 504)"},
	{"DPE", "DownstreamProtocolError", flagOther, "the downstream request had an HTTP protocol error"},
	{"DT", "DurationTimeout", flagOther, "the request or connection exceeded max_connection_duration or max_downstream_connection_duration"},
	{"OM", "OverloadManagerTerminated", flagOther, "the overload manager terminated the request"},
	{"DF", "DnsResolutionFailed", flagOther, "the request was terminated because DNS resolution failed"},
	{"DO", "DropOverload", flagOther, "the request was dropped by the load balancer's drop_overload setting (with a 503)"},
}

// envoyFlagDoc documents the response flags.
const envoyFlagDoc = "https://www.envoyproxy.io/docs/envoy/latest/configuration/observability/access_log/usage#config-access-log-format-response-flags"

// envoyDetailDoc documents the response code details.
const envoyDetailDoc = "https://www.envoyproxy.io/docs/envoy/latest/configuration/http/http_conn_man/response_code_details"

// envoyResetDoc documents the stream reset reasons Envoy puts in braces
// (Http::Utility::resetReasonToString) and the connect errors of
// %UPSTREAM_TRANSPORT_FAILURE_REASON%.
const envoyResetDoc = "https://github.com/envoyproxy/envoy/blob/main/source/common/http/utility.cc"

// envoyMeaning is what one value of an Envoy table says: the failure a 5xx
// with it counts as, and its meaning in words.
type envoyMeaning struct {
	kind  FailureKind
	means string
}

// errEnvoyFlags is the reason for rejecting a malformed response-flags value.
var errEnvoyFlags = errors.New("Envoy access log with a malformed response flags value")

// parseEnvoyFlags reads a response-flags value: `-`, or flag names joined
// by commas. Envoy joins them in the order of its flag table (older
// versions: `UH,URX`) or in the order they were set (current: `URX,UF`);
// either is read. A name is letters only, starting with a capital (Envoy
// registers custom flags in the same shape); names readygap does not tell
// apart count as flagOther.
func parseEnvoyFlags(b []byte) (envoyFlags, error) {
	if envoyUnset(b) {
		return 0, nil
	}
	var set envoyFlags
	for len(b) > 0 {
		name := b
		if i := bytes.IndexByte(b, ','); i >= 0 {
			name, b = b[:i], b[i+1:]
			if len(b) == 0 {
				return 0, errEnvoyFlags
			}
		} else {
			b = nil
		}
		if len(name) == 0 || name[0] < 'A' || name[0] > 'Z' {
			return 0, errEnvoyFlags
		}
		for _, c := range name {
			if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') {
				return 0, errEnvoyFlags
			}
		}
		set |= envoyFlagOf(name)
	}
	return set, nil
}

// envoyFlagOf returns the flag a short or long name stands for.
func envoyFlagOf(name []byte) envoyFlags {
	for _, f := range envoyFlagNames {
		if string(name) == f.short || string(name) == f.long {
			return f.flag
		}
	}
	return flagOther
}

// Response code details (envoyproxy/envoy
// docs/root/configuration/http/http_conn_man/response_code_details.rst) and
// the stream reset reasons Envoy puts inside the braces of the two
// upstream_reset details (Http::Utility::resetReasonToString).
const (
	envoyViaUpstream         = "via_upstream"
	envoyNoHealthyUpstream   = "no_healthy_upstream"
	envoyResetBeforeResponse = "upstream_reset_before_response_started"
	envoyResetAfterResponse  = "upstream_reset_after_response_started"
	envoyConnectErrorInfix   = "connect_error:"
)

// envoyDetailKinds maps whole response code details to the failure they
// report, when the status is one the proxy produced (5xx).
var envoyDetailKinds = map[string]envoyMeaning{
	envoyNoHealthyUpstream:                        {FailureNoBackend, "the upstream cluster had no healthy host"},
	"upstream_response_timeout":                   {FailureTimeout, "the upstream did not answer within the route's timeout"},
	"upstream_per_try_timeout":                    {FailureTimeout, "one try of a retried request timed out"},
	"upstream_per_try_idle_timeout":               {FailureTimeout, "one try of a retried request was idle too long"},
	"upstream_max_stream_duration_reached":        {FailureTimeout, "the upstream stream reached its maximum duration"},
	"max_duration_timeout":                        {FailureTimeout, "the request reached its maximum duration"},
	"request_overall_timeout":                     {FailureTimeout, "the request's overall timeout fired"},
	"cluster_not_found":                           {FailureOther, "the route names a cluster that does not exist"},
	"route_not_found":                             {FailureOther, "no route matched the request"},
	"maintenance_mode":                            {FailureOther, "the cluster is in maintenance mode"},
	"direct_response":                             {FailureOther, "the route answers directly, without an upstream"},
	"overload":                                    {FailureOther, "the overload manager rejected the request"},
	"response_payload_too_large":                  {FailureOther, "the upstream response was larger than the buffer limit"},
	"request_payload_exceeded_retry_buffer_limit": {FailureOther, "the request body was larger than the retry buffer"},
}

// envoyResetKinds maps the stream reset reasons inside
// upstream_reset_before_response_started{...} to failure kinds. A connection
// failure is refined by its connect error (see envoyResetKind).
var envoyResetKinds = map[string]envoyMeaning{
	"connection_failure":                  {FailureRefused, "the connection to the upstream failed"},
	"remote_connection_failure":           {FailureRefused, "the connection to the upstream failed on the upstream's side"},
	"local_connection_failure":            {FailureOther, "the connection to the upstream failed on the proxy's side"},
	"connection_timeout":                  {FailureTimeout, "connecting to the upstream timed out"},
	"connection_termination":              {FailureClosed, "the upstream connection was closed before a response"},
	"remote_reset":                        {FailureClosed, "the upstream reset the stream"},
	"remote_refused_stream_reset":         {FailureClosed, "the upstream refused the stream"},
	"local_refused_stream_reset":          {FailureOther, "the proxy refused the stream"},
	"local_reset":                         {FailureOther, "the proxy reset the stream"},
	"overflow":                            {FailureOther, "a circuit breaker or connection pool limit was reached"},
	"protocol_error":                      {FailureOther, "the upstream broke the HTTP protocol"},
	"overload_manager":                    {FailureOther, "the overload manager reset the stream"},
	"http1_premature_upstream_half_close": {FailureClosed, "the HTTP/1 upstream closed its side before the response was complete"},
}

// envoyErrnoKinds maps the connect error of a transport failure reason to
// a failure kind. Older Envoy writes the errno (`delayed_connect_error:_111`),
// current Envoy its text with spaces made underscores
// (`delayed_connect_error:_Connection_refused`); glibc and musl word some
// errors differently, so both wordings are listed. Linux errno numbers.
var envoyErrnoKinds = map[string]envoyMeaning{
	"111":                      {FailureRefused, "connection refused (ECONNREFUSED): nothing listened on the port"},
	"connection_refused":       {FailureRefused, "connection refused (ECONNREFUSED): nothing listened on the port"},
	"113":                      {FailureUnreachable, "no route to host (EHOSTUNREACH): the address is gone"},
	"no_route_to_host":         {FailureUnreachable, "no route to host (EHOSTUNREACH): the address is gone"},
	"host_is_unreachable":      {FailureUnreachable, "host unreachable (EHOSTUNREACH, musl's wording): the address is gone"},
	"101":                      {FailureUnreachable, "network unreachable (ENETUNREACH)"},
	"network_is_unreachable":   {FailureUnreachable, "network unreachable (ENETUNREACH)"},
	"110":                      {FailureTimeout, "connecting timed out (ETIMEDOUT)"},
	"connection_timed_out":     {FailureTimeout, "connecting timed out (ETIMEDOUT)"},
	"operation_timed_out":      {FailureTimeout, "connecting timed out (ETIMEDOUT, musl's wording)"},
	"104":                      {FailureClosed, "connection reset by peer (ECONNRESET)"},
	"connection_reset_by_peer": {FailureClosed, "connection reset by peer (ECONNRESET)"},
}

// envoyResetKind classifies the reset reasons inside the braces of
// upstream_reset_before_response_started{...}: `,`-separated in older Envoy,
// `|`-separated in current Envoy, where a connect error and the remote
// address may follow the reason. A connection failure is refined by the
// connect error in the braces or, failing that, in reason (the record's
// transport failure reason); without either it stays FailureRefused, the
// commonest cause (see docs/envoy.md). ok is false when no reason is known.
func envoyResetKind(inner, reason []byte) (kind FailureKind, ok bool) {
	for rest := inner; len(rest) > 0; {
		part := rest
		if i := bytes.IndexAny(rest, ",|"); i >= 0 {
			part, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if m, known := envoyResetKinds[string(part)]; known {
			kind, ok = m.kind, true
			break
		}
	}
	if !ok || kind != FailureRefused {
		return kind, ok
	}
	if k, found := envoyConnectError(inner); found {
		return k, true
	}
	if envoyTransportInBraces(inner) {
		return FailureOther, true // a TLS handshake failure, say
	}
	if k, found := envoyTransportKind(reason); found {
		return k, true
	}
	return FailureRefused, true
}

// envoyTransportInBraces reports whether the braces of a reset name a
// transport failure beside the reset reason (and the remote address current
// Envoy adds): `{remote_connection_failure|TLS_error:_...}`.
func envoyTransportInBraces(inner []byte) bool {
	for len(inner) > 0 {
		part := inner
		if i := bytes.IndexAny(inner, ",|"); i >= 0 {
			part, inner = inner[:i], inner[i+1:]
		} else {
			inner = nil
		}
		if _, reset := envoyResetKinds[string(part)]; !reset && len(part) > 0 && !bytes.HasPrefix(part, []byte("remote_address:")) {
			return true
		}
	}
	return false
}

// envoyConnectError finds a connect error (`delayed_connect_error:_111`,
// `immediate_connect_error:_Network_is_unreachable`) in text and classifies
// it by its errno. found is false when text holds none.
func envoyConnectError(text []byte) (kind FailureKind, found bool) {
	i := bytes.Index(text, []byte(envoyConnectErrorInfix))
	if i < 0 {
		return 0, false
	}
	errno := bytes.TrimLeft(text[i+len(envoyConnectErrorInfix):], "_")
	if j := bytes.IndexAny(errno, ",|}"); j >= 0 {
		errno = errno[:j]
	}
	if m, ok := envoyErrnoKinds[strings.ToLower(string(errno))]; ok {
		return m.kind, true
	}
	return FailureOther, true
}

// envoyTransportKind classifies a transport failure reason: a connect
// error by its errno, anything else (a TLS handshake failure) as
// FailureOther. found is false when reason is unset.
func envoyTransportKind(reason []byte) (kind FailureKind, found bool) {
	if len(reason) == 0 {
		return 0, false
	}
	if k, ok := envoyConnectError(reason); ok {
		return k, true
	}
	return FailureOther, true
}

// envoyDetailKind classifies a response code details value. partial is
// true for a reset after the response started: the status came from the
// backend, and the body was cut. ok is false for details readygap does not
// know (filters add their own), which leave the decision to the flags.
func envoyDetailKind(details, reason []byte) (kind FailureKind, partial, ok bool) {
	if inner, found := envoyBraces(details, envoyResetBeforeResponse); found {
		kind, ok = envoyResetKind(inner, reason)
		return kind, false, ok
	}
	if _, found := envoyBraces(details, envoyResetAfterResponse); found {
		return FailureClosed, true, true
	}
	m, ok := envoyDetailKinds[string(details)]
	return m.kind, false, ok
}

// envoyBraces returns the text between the braces of `name{...}` in
// details (without the closing brace, if the value was cut); found is
// false when details is not such a value. A bare name has empty braces.
func envoyBraces(details []byte, name string) (inner []byte, found bool) {
	rest, ok := bytes.CutPrefix(details, []byte(name))
	if !ok {
		return nil, false
	}
	if len(rest) == 0 {
		return nil, true
	}
	if rest[0] != '{' {
		return nil, false
	}
	return bytes.TrimSuffix(rest[1:], []byte("}")), true
}

// envoyFlagKinds lists, in order of precedence, the flags that say the
// proxy failed to get a response from a backend, and the failure each
// stands for when the log gives no details. UF alone does not say why the
// connection failed: a refusal is the commonest cause (a port not yet or no
// longer listening), so that is what it counts as unless a transport
// failure reason says otherwise (docs/envoy.md).
var envoyFlagKinds = [...]struct {
	flag envoyFlags
	kind FailureKind
}{
	{flagUH, FailureNoBackend},
	{flagUF, FailureRefused},
	{flagUC, FailureClosed},
	{flagUR, FailureClosed},
	{flagUT, FailureTimeout},
	{flagUMSDR, FailureTimeout},
	{flagLR, FailureOther},
	{flagUO, FailureOther},
	{flagUPE, FailureOther},
	{flagNC, FailureOther},
}

// envoyOutcome says who produced an Envoy record's status and how the
// request failed, from (in this order) the response code details, the
// response flags and the transport failure reason:
//
//   - `via_upstream`: the backend set the status; a 5xx is the
//     application's own (FailureAppError), never the proxy's;
//   - status 0 or the DC flag: the client went away before a response
//     (FailureNone: no backend failed that the client could see);
//   - details or flags naming an upstream failure, with a 5xx status: that
//     failure (a reset after the response started counts as FailureClosed
//     whatever the status, as the GCP adapter counts a partial response);
//   - no flags and a backend address: the backend's status;
//   - any other 5xx: FailureOther, produced by the proxy.
func envoyOutcome(rec *envoyRecord, flags envoyFlags) (Generator, FailureKind) {
	status := rec.status
	if string(rec.details) == envoyViaUpstream {
		if status >= 500 {
			return GeneratedByBackend, FailureAppError
		}
		return GeneratedByBackend, FailureNone
	}
	if status == 0 || flags&flagDC != 0 {
		return GeneratedByLB, FailureNone
	}
	if len(rec.details) > 0 {
		if kind, partial, ok := envoyDetailKind(rec.details, rec.reason); ok {
			switch {
			case partial:
				return GeneratedByBackend, FailureClosed
			case status >= 500:
				return GeneratedByLB, kind
			}
			return GeneratedByLB, FailureNone
		}
	}
	for _, f := range envoyFlagKinds {
		if flags&f.flag == 0 {
			continue
		}
		kind := f.kind
		if f.flag == flagUF {
			if k, found := envoyTransportKind(rec.reason); found {
				kind = k
			}
		}
		switch {
		case status >= 500:
			return GeneratedByLB, kind
		case f.flag == flagUC || f.flag == flagUR:
			// The backend's status went out, then the stream was cut.
			return GeneratedByBackend, FailureClosed
		}
		return GeneratedByLB, FailureNone
	}
	if flags == 0 && len(rec.host) > 0 {
		if status >= 500 {
			return GeneratedByBackend, FailureAppError
		}
		return GeneratedByBackend, FailureNone
	}
	if status >= 500 {
		return GeneratedByLB, FailureOther
	}
	if flags != 0 || len(rec.details) > 0 {
		return GeneratedByLB, FailureNone
	}
	return GeneratedUnknown, FailureNone
}

// envoyBackend returns the address a record's request was finally sent to:
// the upstream host. For an Istio sidecar's inbound cluster
// (`inbound|<port>||`) the upstream is the pod's own application, which
// older Istio reaches on 127.0.0.1; the pod's address is then the
// downstream local address the request arrived at.
func envoyBackend(rec *envoyRecord) netip.AddrPort {
	ap := envoyAddr(rec.host)
	if bytes.HasPrefix(rec.cluster, []byte("inbound|")) && (!ap.IsValid() || ap.Addr().IsLoopback()) {
		if local := envoyAddr(rec.downstreamLocal); local.IsValid() {
			return local
		}
	}
	return ap
}

// envoyAddr parses an Envoy address: `ip:port`, `[ipv6]:port`, a bare IP,
// optionally behind `tcp://` (older Envoy documentation shows it on
// %UPSTREAM_HOST%). Host names, pipes and internal listeners give the zero
// value.
func envoyAddr(b []byte) netip.AddrPort {
	b = bytes.TrimPrefix(b, []byte("tcp://"))
	ap, _ := lex.ParseAddrOptPort(b)
	return ap
}

// envoyPlatformPrefixes are the cluster-name prefixes of each product's
// control plane (see Platform).
var envoyPlatformPrefixes = [...]struct {
	prefix   string
	platform Platform
}{
	{"outbound|", PlatformIstio},
	{"inbound|", PlatformIstio},
	{"httproute/", PlatformEnvoyGateway},
	{"grpcroute/", PlatformEnvoyGateway},
	{"tlsroute/", PlatformEnvoyGateway},
	{"tcproute/", PlatformEnvoyGateway},
	{"udproute/", PlatformEnvoyGateway},
	{"kube-svc:", PlatformKgateway},
}

// envoyPlatform tells the product from the shape of an upstream cluster's
// name, which each control plane builds its own way (see Platform).
func envoyPlatform(cluster []byte) Platform {
	for _, p := range envoyPlatformPrefixes {
		if bytes.HasPrefix(cluster, []byte(p.prefix)) {
			return p.platform
		}
	}
	switch string(cluster) {
	case "PassthroughCluster", "BlackHoleCluster", "InboundPassthroughCluster":
		return PlatformIstio
	}
	if contourClusterName(cluster) {
		return PlatformContour
	}
	return ""
}

// contourHashDigits is how many hex digits of a SHA-1 Contour appends to
// its cluster names (projectcontour/contour internal/envoy/cluster.go,
// Clustername: fmt.Sprintf("%x", hash[:5])).
const contourHashDigits = 10

// contourClusterName reports whether c looks like Contour's
// `<namespace>/<service>/<port>/<hash>`.
func contourClusterName(c []byte) bool {
	if bytes.Count(c, []byte("/")) != 3 {
		return false
	}
	rest := c[bytes.IndexByte(c, '/')+1:]
	rest = rest[bytes.IndexByte(rest, '/')+1:]
	port, hash, _ := bytes.Cut(rest, []byte("/"))
	if _, ok := lex.Port(port); !ok || len(hash) != contourHashDigits {
		return false
	}
	for _, ch := range hash {
		if (ch < '0' || ch > '9') && (ch < 'a' || ch > 'f') {
			return false
		}
	}
	return true
}

// envoyRequestBuffer is a Request with room for a few attempts and the
// scratch space its strings are built in. Adapters keep one per call in
// their pooled state; Handlers Clone what they keep.
type envoyRequestBuffer struct {
	req      Request
	attempts [4]Attempt
	scratch  []byte
	strings  gcpInterner
	// last holds the LB, method and detail of the last record: they repeat
	// from line to line, and comparing is cheaper than interning.
	last [3]string
}

// str returns v as a string, the one of the last record in slot i when
// they are equal, else interned.
func (b *envoyRequestBuffer) str(i int, v []byte) string {
	if string(v) == b.last[i] {
		return b.last[i]
	}
	b.last[i] = b.strings.get(v)
	return b.last[i]
}

// envoyTCP reports whether rec is a TCP proxy entry (an Istio sidecar logs
// those in the same format): no method, no path and response code 0. It
// has no HTTP outcome to read.
func envoyTCP(rec *envoyRecord) bool {
	return rec.status == 0 && rec.method == nil && rec.path == nil
}

// build fills b.req from rec, whose response flags are flags, and returns it.
func (b *envoyRequestBuffer) build(rec *envoyRecord, flags envoyFlags, format Format, o Origin) *Request {
	r := &b.req
	*r = Request{Time: rec.time, Status: rec.status, Format: format, Origin: o}
	r.Generator, r.Failure = envoyOutcome(rec, flags)
	r.Backend = envoyBackend(rec)
	r.AttemptCount = rec.attemptCount
	if rec.durationMS <= math.MaxInt64/int(time.Millisecond) {
		r.Duration = time.Duration(rec.durationMS) * time.Millisecond
	}
	if rec.timedAtEnd {
		r.Time = startedBefore(rec.time, r.Duration)
		r.LoggedAfter = rec.time.Sub(r.Time)
	}
	r.RetryLimit = flags&flagURX != 0
	lb := rec.cluster
	if lb == nil {
		lb = rec.route
	}
	r.LB = b.str(0, lb)
	r.Platform = envoyPlatform(rec.cluster)
	if r.Platform == "" {
		r.Platform = rec.platform
	}
	r.Method = b.str(1, rec.method)
	r.Path = inputString(rec.path)
	b.scratch = envoyDetailText(b.scratch[:0], rec)
	r.Detail = b.str(2, b.scratch)
	r.Attempts = envoyAttempts(b.attempts[:0], rec.hostsAttempted)
	if r.Failure == FailureNoBackend && r.Backend.IsValid() && len(r.Attempts) == 0 {
		// No healthy host was left for the last try, yet a host is logged:
		// an earlier try's (UH,URX).
		r.Attempts = append(r.Attempts, Attempt{Backend: r.Backend, Failure: FailureOther})
	}
	envoyLastAttempt(r)
	return r
}

// envoyLastAttempt makes the last attempt the request's own outcome and
// the request's backend the last attempt's. With no healthy host left
// (UH), the hosts logged were earlier tries: a last attempt without a
// backend is added, and the request was sent nowhere in the end.
// Otherwise %UPSTREAM_HOST% is the final attempt's host, and the last host
// attempted stands for it when it is not logged.
func envoyLastAttempt(r *Request) {
	n := len(r.Attempts)
	switch {
	case n == 0:
		return
	case r.Failure == FailureNoBackend:
		r.Attempts = append(r.Attempts, Attempt{Status: r.Status, Failure: FailureNoBackend})
		r.Backend = netip.AddrPort{}
		return
	case r.Backend.IsValid():
		r.Attempts[n-1].Backend = r.Backend
	default:
		r.Backend = r.Attempts[n-1].Backend
	}
	r.Attempts[n-1].Status, r.Attempts[n-1].Failure = r.Status, r.Failure
}

// envoyDetailText appends what Envoy said about the outcome to dst: the
// response flags, the response code details, the transport failure reason
// (unless the details already quote it) and the connection termination
// details, each only when logged, separated by spaces.
func envoyDetailText(dst []byte, rec *envoyRecord) []byte {
	add := func(b []byte) {
		if len(b) == 0 {
			return
		}
		if len(dst) > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, b...)
	}
	add(rec.flags)
	add(rec.details)
	if !bytes.Contains(rec.details, rec.reason) {
		add(rec.reason)
	}
	add(rec.termination)
	return dst
}

// envoyAttempts returns the attempts %UPSTREAM_HOSTS_ATTEMPTED% lists,
// appended to dst, when it lists more than one: every host was tried and,
// but for the last (see envoyLastAttempt), given up on. Envoy does not log
// why, so those attempts count as FailureOther without a status. One host
// or none gives no attempts: the request's backend says it all.
func envoyAttempts(dst []Attempt, hosts []byte) []Attempt {
	if bytes.IndexByte(hosts, ',') < 0 {
		return dst
	}
	for len(hosts) > 0 {
		host := hosts
		if i := bytes.IndexByte(hosts, ','); i >= 0 {
			host, hosts = hosts[:i], hosts[i+1:]
		} else {
			hosts = nil
		}
		dst = append(dst, Attempt{Backend: envoyAddr(bytes.TrimSpace(host)), Failure: FailureOther})
	}
	return dst
}

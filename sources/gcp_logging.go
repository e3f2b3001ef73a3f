package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/sources/internal/lex"
	"github.com/valyala/fastjson"
	corev1 "k8s.io/api/core/v1"
)

// gcpLogging reads Cloud Logging LogEntry JSON (gcloud logging read
// --format=json, entries:list API responses, sink exports) and picks out the
// three kinds of entries readygap uses: Application Load Balancer request
// logs, GKE Kubernetes events written by the event exporter, and health-check
// transition logs; any other LogEntry whose payload is a line in a format
// readygap reads is read as that line (gcp_payload.go), and the rest are skipped.
type gcpLogging struct{}

// Format returns FormatGCPLogging.
func (gcpLogging) Format() Format { return FormatGCPLogging }

var (
	gcpKeyLogName = []byte(`"logName"`)
	gcpKeyInsert  = []byte(`"insertId"`)
	// gcpEnvelopeKeys are the LogEntry keys that, next to logName, mark an element as a LogEntry.
	gcpEnvelopeKeys = [][]byte{gcpKeyInsert, []byte(`"timestamp"`), []byte(`"receiveTimestamp"`), []byte(`"resource"`)}
	// gcpPayloadKeys are the LogEntry keys that sort before logName. gcloud
	// prints keys in alphabetical order, so a head cut inside a large
	// jsonPayload (a Kubernetes event with managedFields) may hold insertId
	// and a payload key but not yet logName.
	gcpPayloadKeys = [][]byte{[]byte(`"httpRequest"`), []byte(`"jsonPayload"`), []byte(`"protoPayload"`), []byte(`"textPayload"`)}
)

// MatchJSON reports whether elem, possibly cut short, looks like a LogEntry:
// logName together with another envelope key, or (for heads cut before
// logName) insertId together with a payload key.
func (gcpLogging) MatchJSON(elem []byte) bool {
	if bytes.Contains(elem, gcpKeyLogName) {
		return gcpContainsAny(elem, gcpEnvelopeKeys)
	}
	return bytes.Contains(elem, gcpKeyInsert) && gcpContainsAny(elem, gcpPayloadKeys)
}

func gcpContainsAny(b []byte, needles [][]byte) bool {
	for _, n := range needles {
		if bytes.Contains(b, n) {
			return true
		}
	}
	return false
}

// Reasons for rejecting an element.
var (
	errGCPInvalidJSON      = errors.New("invalid JSON")
	errGCPNotLogEntry      = errors.New("not a Cloud Logging entry")
	errGCPNoTime           = errors.New("LogEntry without a valid timestamp or receiveTimestamp")
	errGCPBadStatus        = errors.New("httpRequest.status is not an HTTP status number")
	errGCPBadServerIP      = errors.New("httpRequest.serverIp is not an IP address")
	errGCPBadTargetIP      = errors.New("healthCheckProbeResult.targetIp is not an IP address")
	errGCPBadTargetPort    = errors.New("healthCheckProbeResult.targetPort is not a port number")
	errGCPBadKubeEvent     = errors.New("jsonPayload of a logs/events entry is not a Kubernetes Event")
	errGCPRequestNotObject = errors.New("httpRequest is not an object")
)

// gcpEntryKind is what a LogEntry is to readygap, decided by logName and resource.type.
type gcpEntryKind uint8

const (
	gcpOtherEntry gcpEntryKind = iota
	gcpRequestEntry
	gcpEventEntry
	gcpHealthCheckEntry
	// gcpMeshEntry: a Cloud Service Mesh (Istio) access-log entry, read in gcp_logging_mesh.go.
	gcpMeshEntry
)

const (
	gcpEventsLogSuffix      = "/logs/events"
	gcpHealthCheckLogSuffix = "/logs/compute.googleapis.com%2Fhealthchecks"
	// gcpExporterRestartText is the textPayload the GKE event exporter writes when it (re)starts watching.
	gcpExporterRestartText = "Event exporter started watching. Some events may have been lost up to this point."
	// gcpEventsLostWarning starts the per-input warning about an exporter restart.
	gcpEventsLostWarning = "Kubernetes events may be missing before "
)

// gcpClassifyEntry dispatches on logName and resource.type (reference §8.2).
// Request logs are recognised by resource.type alone (plus an httpRequest):
// the three LB resource types only carry request logs, whatever the log ID.
// Events need both the events log and a Kubernetes resource type, because
// an application may well write its own log named "events".
func gcpClassifyEntry(logName, resourceType []byte, hasHTTPRequest bool) gcpEntryKind {
	switch {
	case bytes.HasSuffix(logName, []byte(gcpHealthCheckLogSuffix)):
		return gcpHealthCheckEntry
	case gcpMeshLog(logName):
		return gcpMeshEntry
	case bytes.HasSuffix(logName, []byte(gcpEventsLogSuffix)):
		switch string(resourceType) {
		case "k8s_cluster", "k8s_pod", "k8s_node", "gke_cluster":
			return gcpEventEntry
		}
	case hasHTTPRequest:
		if slices.Contains(GCPRequestResourceTypes, string(resourceType)) {
			return gcpRequestEntry
		}
	}
	return gcpOtherEntry
}

// GCPRequestResourceTypes are the resource types of Application Load
// Balancer request logs: global and classic, regional external, internal
// (reference §8.2). An entry of one of them with an httpRequest is a
// request, unless its log is one of GCPNotRequestLogSuffixes.
var GCPRequestResourceTypes = []string{"http_load_balancer", "http_external_regional_lb_rule", "internal_http_lb_rule"}

// GCPNotRequestLogSuffixes end the log names that gcpClassifyEntry reads as
// something else before it looks at the resource type: health-check logs
// and Cloud Service Mesh access logs.
var GCPNotRequestLogSuffixes = []string{gcpHealthCheckLogSuffix, gcpMeshServerLogSuffix, gcpMeshClientLogSuffix}

// GCPDetailOutcome is what the adapter makes of one statusDetails (or
// proxyStatus) value it knows: who produced the response and the failure
// it counts as with a 5xx. A FailureAppError value counts as no failure
// below 500.
type GCPDetailOutcome struct {
	Detail    string
	Generator Generator
	Failure   FailureKind
}

// GCPDetailOutcomes lists the values gcpOutcome tells apart, from
// gcpDetails: the BigQuery query (package reduced) classifies from the
// same list. Values it does not list follow GCPClientDetailPrefix or
// count as the load balancer's other failure with a 5xx.
func GCPDetailOutcomes() []GCPDetailOutcome {
	var out []GCPDetailOutcome
	for _, r := range gcpDetails {
		for _, d := range r.details {
			out = append(out, GCPDetailOutcome{Detail: d, Generator: r.gen, Failure: r.kind})
		}
	}
	return out
}

// GCPClientDetailPrefix starts the statusDetails values of requests the
// client gave up: the load balancer wrote the status, no failure counts.
const GCPClientDetailPrefix = "client_"

// gcpState is the per-call working memory: fastjson parsers are not safe
// for concurrent use and adapters are shared by inputs read in parallel, so
// each call borrows one from gcpStates.
type gcpState struct {
	p       fastjson.Parser
	scan    gcpScan
	strings gcpInterner
	req     Request
	// payload, scratch and line serve readPayload (gcp_payload.go).
	payload, scratch []byte
	line             Line
}

var gcpStates = sync.Pool{New: func() any { return &gcpState{} }}

// ParseJSON parses one LogEntry and reports its request, event or health
// check record. Entries repeated by overlapping exports (same logName and
// insertId) are counted as duplicates and give no record.
func (gcpLogging) ParseJSON(elem []byte, o Origin, out *Emitter) error {
	st := gcpStates.Get().(*gcpState)
	defer gcpStates.Put(st)
	if done, err := st.parseScanned(elem, o, out); done {
		return err
	}
	return st.parseTree(elem, o, out)
}

// parseScanned reads a request entry, or an entry without a record, with
// gcpScan (gcp_logging_scan.go) in one pass. done is false when the scan
// does not vouch for the element or it is of another kind: parseTree reads
// it then.
func (st *gcpState) parseScanned(elem []byte, o Origin, out *Emitter) (done bool, err error) {
	sc := &st.scan
	if !sc.scan(elem) {
		return false, nil
	}
	switch gcpClassifyEntry(sc.logName, sc.resourceType, sc.hasHTTPRequest) {
	case gcpRequestEntry:
		return true, st.request(sc.requestFields(), st.strings.get(sc.logName), o, out)
	}
	return false, nil
}

// parseTree reads any LogEntry from fastjson's tree of it.
func (st *gcpState) parseTree(elem []byte, o Origin, out *Emitter) error {
	v, err := st.p.ParseBytes(elem)
	if err != nil {
		return errGCPInvalidJSON
	}
	entry, err := v.Object()
	if err != nil {
		return errGCPNotLogEntry
	}
	logName := gcpString(entry.Get("logName"))
	if len(logName) == 0 {
		return errGCPNotLogEntry
	}
	resource := v.GetObject("resource")
	var resourceType []byte
	if resource != nil {
		resourceType = gcpString(resource.Get("type"))
	}
	httpRequest := entry.Get("httpRequest")
	switch gcpClassifyEntry(logName, resourceType, httpRequest != nil) {
	case gcpRequestEntry:
		if httpRequest.Type() != fastjson.TypeObject {
			return errGCPRequestNotObject
		}
		f := gcpRequestFieldsOf(entry, httpRequest, resource)
		return st.request(&f, st.strings.get(logName), o, out)
	case gcpEventEntry:
		return parseGCPEvent(entry, string(logName), o, out)
	case gcpHealthCheckEntry:
		return parseGCPHealthCheck(entry, resource, string(logName), o, out)
	case gcpMeshEntry:
		return parseGCPMeshRequest(entry, httpRequest, st.strings.get(logName), o, out)
	}
	return st.readPayload(entry, logName, resourceType, o, out)
}

// gcpDuplicate reports whether an entry with the same logName and insertId
// was seen before in this run.
func gcpDuplicate(entry *fastjson.Object, logName string, out *Emitter) bool {
	return gcpDuplicateID(gcpString(entry.Get("insertId")), logName, out)
}

// gcpDuplicateID reports whether insertID, unless empty, was seen before
// in this run under logName.
func gcpDuplicateID(insertID []byte, logName string, out *Emitter) bool {
	return len(insertID) > 0 && out.Duplicate(logName, string(insertID))
}

// gcpRequestFields are the values of a request log entry the adapter reads,
// as JSON text, whether fastjson or gcpScan read them.
type gcpRequestFields struct {
	// time is the text of timestamp, or of receiveTimestamp when timestamp
	// is absent; nil when that value is not a string.
	time     []byte
	insertID []byte
	// status is httpRequest.status, unless statusErr says why not.
	status    int
	statusErr error
	serverIP  []byte
	method    []byte
	url       []byte
	// lb is the first non-empty of the labels gcpLBLabels names.
	lb []byte
	// detail is what gcpDetail makes of jsonPayload.
	detail []byte
}

// gcpRequestFieldsOf reads the fields of a request entry from fastjson's tree.
func gcpRequestFieldsOf(entry *fastjson.Object, hr *fastjson.Value, resource *fastjson.Object) gcpRequestFields {
	f := gcpRequestFields{
		time:     gcpEntryTimeText(entry),
		insertID: gcpString(entry.Get("insertId")),
		serverIP: gcpString(hr.Get("serverIp")),
		method:   gcpString(hr.Get("requestMethod")),
		url:      gcpString(hr.Get("requestUrl")),
		lb:       gcpLBName(resource),
	}
	f.status, f.statusErr = gcpStatus(hr.Get("status"))
	if payload := entry.Get("jsonPayload"); payload != nil {
		f.detail = gcpDetail(gcpString(payload.Get("statusDetails")), gcpString(payload.Get("proxyStatus")))
	}
	return f
}

// request reports one load balancer request log entry.
func (st *gcpState) request(f *gcpRequestFields, logName string, o Origin, out *Emitter) error {
	at, ok := gcpParseTime(f.time)
	if !ok {
		return errGCPNoTime
	}
	if f.statusErr != nil {
		return f.statusErr
	}
	backend, ok := gcpParseServerIP(f.serverIP)
	if !ok {
		return errGCPBadServerIP
	}
	if gcpDuplicateID(f.insertID, logName, out) {
		return nil
	}
	detail := st.strings.get(f.detail)
	gen, failure := gcpOutcome(detail, f.status, detail != "", backend.IsValid())
	st.req = Request{
		Time:      at,
		LB:        st.strings.get(f.lb),
		Status:    f.status,
		Generator: gen,
		Failure:   failure,
		Backend:   backend,
		Method:    st.strings.get(f.method),
		Path:      st.strings.get(gcpURLPath(f.url)),
		Detail:    detail,
		Format:    FormatGCPLogging,
		Origin:    o,
	}
	out.Request(&st.req)
	return nil
}

// gcpStatus reads httpRequest.status, a JSON number; absent or null means no status was sent.
func gcpStatus(v *fastjson.Value) (int, error) {
	if v == nil || v.Type() == fastjson.TypeNull {
		return 0, nil
	}
	n, err := v.Int()
	if err != nil || n < 0 || n > 999 {
		return 0, errGCPBadStatus
	}
	return n, nil
}

// gcpLBLabels are the resource labels that name the load balancer of a
// request, in order: the backend service (global: backend_service_name,
// regional and internal: backend_target_name), or the URL map when the
// backend service label is empty.
var gcpLBLabels = [...]string{"backend_service_name", "backend_target_name", "url_map_name"}

// gcpLBName names the load balancer of a request: the first non-empty of gcpLBLabels.
func gcpLBName(resource *fastjson.Object) []byte {
	if resource == nil {
		return nil
	}
	labels := resource.Get("labels")
	for _, key := range gcpLBLabels {
		if s := gcpString(labels.Get(key)); len(s) > 0 {
			return s
		}
	}
	return nil
}

// gcpDetail returns the LB's wording of the outcome from jsonPayload's
// statusDetails (global and classic ALB) and proxyStatus: statusDetails, or
// else the details (failing that, the error) parameter of proxyStatus
// (Envoy-based regional and internal ALB). It is empty when the entry has
// neither.
func gcpDetail(statusDetails, proxyStatus []byte) []byte {
	if len(statusDetails) > 0 {
		return statusDetails
	}
	if len(proxyStatus) == 0 {
		return nil
	}
	if d := gcpProxyStatusParam(proxyStatus, "details"); len(d) > 0 {
		return d
	}
	return gcpProxyStatusParam(proxyStatus, "error")
}

// gcpProxyStatusParam returns the value of parameter name in a Proxy-Status
// member such as `error="destination_unavailable"; details="failed_to_pick_backend"`,
// without its quotes. Quoted values may contain ';'.
func gcpProxyStatusParam(ps []byte, name string) []byte {
	for len(ps) > 0 {
		ps = bytes.TrimLeft(ps, " \t")
		eq := bytes.IndexAny(ps, "=;")
		if eq < 0 {
			return nil
		}
		key := bytes.TrimRight(ps[:eq], " \t")
		if ps[eq] == ';' {
			ps = ps[eq+1:]
			continue
		}
		value, rest := gcpProxyStatusValue(ps[eq+1:])
		if string(key) == name {
			return value
		}
		ps = rest
	}
	return nil
}

// gcpProxyStatusValue splits a parameter value (token or quoted string) from
// the rest of the member, which starts after the next ';'.
func gcpProxyStatusValue(s []byte) (value, rest []byte) {
	s = bytes.TrimLeft(s, " \t")
	if len(s) > 0 && s[0] == '"' {
		end := bytes.IndexByte(s[1:], '"')
		if end < 0 {
			return s[1:], nil
		}
		value, s = s[1:1+end], s[2+end:]
	} else {
		end := bytes.IndexByte(s, ';')
		if end < 0 {
			return bytes.TrimRight(s, " \t"), nil
		}
		value, s = bytes.TrimRight(s[:end], " \t"), s[end:]
	}
	if i := bytes.IndexByte(s, ';'); i >= 0 {
		return value, s[i+1:]
	}
	return value, nil
}

// gcpDetailRow is what a group of statusDetails (or proxyStatus) values
// says: who produced a 5xx carrying one, the failure it counts as, and
// its meaning, from Google's list of statusDetails values (gcpDetailDoc).
type gcpDetailRow struct {
	details []string
	gen     Generator
	kind    FailureKind
	means   string
}

// gcpDetailDoc documents the statusDetails values.
const gcpDetailDoc = "https://cloud.google.com/load-balancing/docs/https/https-logging-monitoring#failure-messages"

// gcpDetails are the statusDetails and proxyStatus values gcpOutcome
// tells apart. A backend's value counts as the application's error with a
// 5xx, as no failure with another status.
var gcpDetails = []gcpDetailRow{
	{[]string{"response_sent_by_backend"}, GeneratedByBackend, FailureAppError, "the backend sent the response; its status is the application's"},
	{[]string{"response_from_cache", "response_from_cache_validated", "byte_range_caching"}, GeneratedByBackend, FailureAppError, "Cloud CDN served a response the backend had sent before"},
	// Proxy-Status error tokens (RFC 9209) cover Envoy entries whose
	// proxyStatus has no details parameter.
	{[]string{"failed_to_pick_backend"}, GeneratedByLB, FailureNoBackend, "the load balancer found no healthy backend to send the request to"},
	{[]string{"destination_unavailable"}, GeneratedByLB, FailureNoBackend, "Proxy-Status error (RFC 9209): the proxy had no destination available"},
	{[]string{"failed_to_connect_to_backend"}, GeneratedByLB, FailureRefused, "the load balancer could not connect to the backend it picked"},
	{[]string{"connection_refused"}, GeneratedByLB, FailureRefused, "Proxy-Status error (RFC 9209): the backend refused the connection"},
	{[]string{"backend_connection_closed_before_data_sent_to_client"}, GeneratedByLB, FailureClosed, "the backend closed the connection before the load balancer had sent the client anything: typically a keep-alive connection the backend closed as the load balancer reused it, or a backend that stopped"},
	{[]string{"backend_connection_closed_after_partial_response_sent"}, GeneratedByLB, FailureClosed, "the backend closed the connection after part of the response had gone to the client"},
	{[]string{"backend_connection_closed"}, GeneratedByLB, FailureClosed, "the backend closed the connection"},
	{[]string{"connection_terminated"}, GeneratedByLB, FailureClosed, "Proxy-Status error (RFC 9209): the backend connection was terminated"},
	{[]string{"backend_timeout"}, GeneratedByLB, FailureTimeout, "the backend did not answer within the backend service's timeout (30 s by default)"},
	{[]string{"connection_timeout"}, GeneratedByLB, FailureTimeout, "Proxy-Status error (RFC 9209): connecting to the backend timed out"},
	{[]string{"http_response_timeout"}, GeneratedByLB, FailureTimeout, "Proxy-Status error (RFC 9209): the backend's response timed out"},
	{[]string{"destination_ip_unroutable"}, GeneratedByLB, FailureUnreachable, "Proxy-Status error (RFC 9209): the backend's address could not be reached"},
	// The status was set by the backend; the client then went away.
	{[]string{"client_disconnected_after_partial_response"}, GeneratedByBackend, FailureNone, "the client went away after part of the backend's response"},
}

// gcpDetailOf returns the row of a statusDetails value; not ok for a
// value gcpDetails does not list.
func gcpDetailOf(detail string) (gcpDetailRow, bool) {
	for _, r := range gcpDetails {
		for _, d := range r.details {
			if d == detail {
				return r, true
			}
		}
	}
	return gcpDetailRow{}, false
}

// gcpOutcome says who produced the status and how the request failed, from
// the statusDetails (or proxyStatus) value. hasDetail is false when the entry
// carried neither. Envoy-based regional and internal load balancers write no
// statusDetails and set proxyStatus only when they themselves failed the
// request (RFC 9209 Proxy-Status: "the intermediary encountered an issue when
// obtaining this response"), so an entry with neither but with a serverIp
// (hasBackend) is the backend's own answer, and its 5xx an application error.
// Without a serverIp either, as in some real 404 entries of the global load
// balancer, only the status speaks and the sender stays unknown.
func gcpOutcome(detail string, status int, hasDetail, hasBackend bool) (Generator, FailureKind) {
	if !hasDetail {
		if hasBackend {
			if status >= 500 {
				return GeneratedByBackend, FailureAppError
			}
			return GeneratedByBackend, FailureNone
		}
		if status >= 500 {
			return GeneratedUnknown, FailureOther
		}
		return GeneratedUnknown, FailureNone
	}
	if row, ok := gcpDetailOf(detail); ok {
		if row.kind == FailureAppError && status < 500 {
			return GeneratedByBackend, FailureNone
		}
		return row.gen, row.kind
	}
	if strings.HasPrefix(detail, GCPClientDetailPrefix) {
		// The client gave up (disconnected, timed out, bad certificate): the
		// LB wrote the status (often 0 or 408), but no backend failed and no
		// rollout is to blame, so it is not a failure readygap counts.
		return GeneratedByLB, FailureNone
	}
	if status >= 500 {
		return GeneratedByLB, FailureOther
	}
	return GeneratedByLB, FailureNone
}

// gcpURLPath returns the path and query of an absolute requestUrl
// (scheme://host/path?query), without any fragment; an empty path is "/". A
// value without a scheme is taken to be a path already.
func gcpURLPath(url []byte) []byte {
	absolute := false
	if i := bytes.Index(url, []byte("://")); i >= 0 {
		rest := url[i+3:]
		j := bytes.IndexAny(rest, "/?#")
		if j < 0 {
			j = len(rest)
		}
		url, absolute = rest[j:], true
	}
	if i := bytes.IndexByte(url, '#'); i >= 0 {
		url = url[:i]
	}
	if absolute && (len(url) == 0 || url[0] == '?') {
		return append([]byte("/"), url...)
	}
	return url
}

// gcpParseServerIP parses httpRequest.serverIp: an IP address with or
// without a port ("10.0.0.1", "10.0.0.1:80", "FE80::0202:B3FF:FE1E:8329",
// "[2001:db8::1]:443"). An empty value means no backend was chosen.
func gcpParseServerIP(s []byte) (netip.AddrPort, bool) {
	if len(s) == 0 {
		return netip.AddrPort{}, true
	}
	return lex.ParseAddrOptPort(s)
}

// parseGCPEvent reports a Kubernetes event exported by GKE (jsonPayload is
// the core/v1 Event minus count and firstTimestamp), or the exporter's
// restart marker.
func parseGCPEvent(entry *fastjson.Object, logName string, o Origin, out *Emitter) error {
	payload := entry.Get("jsonPayload")
	if payload == nil {
		text := gcpString(entry.Get("textPayload"))
		if string(bytes.TrimSpace(text)) != gcpExporterRestartText {
			return nil
		}
		return reportGCPEventsLost(entry, logName, o, out)
	}
	if payload.Type() != fastjson.TypeObject {
		return errGCPBadKubeEvent
	}
	at, err := gcpEntryTime(entry)
	if err != nil {
		return err
	}
	var ev corev1.Event
	if err := json.Unmarshal(payload.MarshalTo(nil), &ev); err != nil {
		return errGCPBadKubeEvent
	}
	if ev.Reason == "" && ev.InvolvedObject.Kind == "" {
		// Some other JSON the exporter did not write: no event to report.
		return nil
	}
	if gcpDuplicate(entry, logName, out) {
		return nil
	}
	// The exporter writes one entry per occurrence and drops count.
	if ev.Count == 0 {
		ev.Count = 1
	}
	emitKubeEvent(&ev, at, o, FormatGCPLogging, out)
	return nil
}

// reportGCPEventsLost reports the event exporter's restart marker as an
// EventsLost record and warns, once per input, that the timeline may lack
// events from before it.
func reportGCPEventsLost(entry *fastjson.Object, logName string, o Origin, out *Emitter) error {
	at, err := gcpEntryTime(entry)
	if err != nil {
		return err
	}
	if gcpDuplicate(entry, logName, out) {
		return nil
	}
	out.Lifecycle(&Lifecycle{
		Time:    at,
		Kind:    EventsLost,
		From:    -1,
		Source:  "event-exporter",
		FromAPI: true,
		Message: gcpExporterRestartText,
		Format:  FormatGCPLogging,
		Origin:  o,
	})
	out.WarnOnce(gcpEventsLostWarning, "%s%s: the GKE event exporter restarted (%s)", gcpEventsLostWarning, at.Format(time.RFC3339Nano), o)
	return nil
}

// parseGCPHealthCheck reports one health-check transition log entry. Its
// time is the entry timestamp, not probeCompletionTimestamp, so that it sorts
// with the other Cloud Logging records by the same clock (the probe
// completes a fraction of a second earlier).
func parseGCPHealthCheck(entry *fastjson.Object, resource *fastjson.Object, logName string, o Origin, out *Emitter) error {
	probe := entry.Get("jsonPayload").Get("healthCheckProbeResult")
	if probe == nil || probe.Type() != fastjson.TypeObject {
		return nil
	}
	at, err := gcpEntryTime(entry)
	if err != nil {
		return err
	}
	ip, err := gcpProbeTarget(probe)
	if err != nil {
		return err
	}
	port, err := gcpTargetPort(probe.Get("targetPort"))
	if err != nil {
		return err
	}
	if gcpDuplicate(entry, logName, out) {
		return nil
	}
	var labels *fastjson.Value
	if resource != nil {
		labels = resource.Get("labels")
	}
	out.Lifecycle(&Lifecycle{
		Time:    at,
		Kind:    HealthCheck,
		IP:      ip,
		Port:    port,
		Zone:    gcpFirstLabel(labels, "zone", "location"),
		Status:  gcpStringField(probe, "healthState"),
		Health:  gcpHealth(gcpStringField(probe, "healthState"), gcpStringField(probe, "detailedHealthState")),
		Reason:  gcpStringField(probe, "detailedHealthState"),
		Message: gcpStringField(probe, "probeResultText"),
		Group:   gcpFirstLabel(labels, "network_endpoint_group_id", "instance_group_name", "instance_group_id"),
		From:    -1,
		Source:  "gcp-healthcheck",
		Format:  FormatGCPLogging,
		Origin:  o,
	})
	return nil
}

// gcpHealth maps a probe result's healthState and detailedHealthState onto
// Health. Google maps HEALTHY ← {HEALTHY, DRAINING} and UNHEALTHY ←
// {UNHEALTHY, UNKNOWN, TIMEOUT}; the detailed state says which.
func gcpHealth(state, detailed string) Health {
	switch detailed {
	case "DRAINING":
		return HealthDraining
	case "HEALTHY":
		return HealthHealthy
	case "UNHEALTHY", "TIMEOUT":
		return HealthUnhealthy
	}
	switch state {
	case "HEALTHY":
		return HealthHealthy
	case "UNHEALTHY":
		return HealthUnhealthy
	}
	return HealthUnknown
}

// gcpProbeTarget returns the probed address: targetIp, or ipAddress when
// targetIp is absent (the two may differ; targetIp is the endpoint).
func gcpProbeTarget(probe *fastjson.Value) (netip.Addr, error) {
	s := gcpString(probe.Get("targetIp"))
	if len(s) == 0 {
		s = gcpString(probe.Get("ipAddress"))
	}
	if len(s) == 0 {
		return netip.Addr{}, nil
	}
	ip, ok := lex.ParseAddr(s)
	if !ok {
		return netip.Addr{}, errGCPBadTargetIP
	}
	return ip, nil
}

// gcpTargetPort reads healthCheckProbeResult.targetPort; absent means unknown (0).
func gcpTargetPort(v *fastjson.Value) (int, error) {
	if v == nil || v.Type() == fastjson.TypeNull {
		return 0, nil
	}
	n, err := v.Int()
	if err != nil || n < 0 || n > 65535 {
		return 0, errGCPBadTargetPort
	}
	return n, nil
}

// gcpFirstLabel returns the first non-empty resource label among keys.
func gcpFirstLabel(labels *fastjson.Value, keys ...string) string {
	for _, k := range keys {
		if s := gcpStringField(labels, k); s != "" {
			return s
		}
	}
	return ""
}

// gcpStringField returns a copy of the string field key of v, or "".
func gcpStringField(v *fastjson.Value, key string) string {
	s := gcpString(v.Get(key))
	return string(s)
}

// gcpString returns the bytes of a JSON string value, or nil when v is
// absent or not a string. The bytes belong to the parser and are valid until
// its next Parse.
func gcpString(v *fastjson.Value) []byte {
	if v == nil || v.Type() != fastjson.TypeString {
		return nil
	}
	b, _ := v.StringBytes()
	return b
}

// gcpEntryTime returns the entry's timestamp, or its receiveTimestamp when
// timestamp is absent (the field is optional), in UTC.
func gcpEntryTime(entry *fastjson.Object) (time.Time, error) {
	t, ok := gcpParseTime(gcpEntryTimeText(entry))
	if !ok {
		return time.Time{}, errGCPNoTime
	}
	return t, nil
}

// gcpParseTime parses an entry's time. 0001-01-01T00:00:00Z is Go's zero
// time, which every record uses for "no time": Cloud Logging never writes
// it, and an entry that says it has no usable time.
func gcpParseTime(b []byte) (time.Time, bool) {
	t, ok := lex.ParseRFC3339(b)
	return t, ok && !t.IsZero()
}

// gcpEntryTimeText returns the text of the entry's timestamp, or of its
// receiveTimestamp when timestamp is absent; nil when the first of them
// present is not a string, or neither is.
func gcpEntryTimeText(entry *fastjson.Object) []byte {
	for _, key := range [...]string{"timestamp", "receiveTimestamp"} {
		if v := entry.Get(key); v != nil {
			return gcpString(v)
		}
	}
	return nil
}

// gcpInternLimit bounds the strings one gcpInterner keeps.
const gcpInternLimit = 4096

// gcpInterner turns parser-owned bytes into strings, sharing one copy of
// values that repeat from entry to entry (LB names, methods, status details,
// paths) so that a long log costs one allocation per distinct value instead
// of one per request. It stops remembering new values once full.
type gcpInterner struct {
	m map[string]string
}

func (in *gcpInterner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < gcpInternLimit {
		in.m[s] = s
	}
	return s
}

// GCPLBLabels returns the resource labels that name the load balancer of
// a request, in the order the adapter tries them (gcpLBLabels).
func GCPLBLabels() []string { return gcpLBLabels[:] }

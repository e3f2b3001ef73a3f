package sources

import (
	"bytes"
	"errors"
	"sync"

	"github.com/valyala/fastjson"
)

// Cloud Service Mesh (managed Istio on GKE) writes each sidecar's and
// gateway's access log to Cloud Logging instead of stdout: the server side
// (the destination's sidecar) as server-accesslog-stackdriver, the client
// side (the caller's sidecar or gateway) as client-accesslog-stackdriver
// (istio/proxy extensions/stackdriver/log/logger.cc; the log names
// GoogleCloudPlatform/khi queries). The entry's httpRequest holds the
// status, method and URL; its labels hold what Envoy's access log says:
// response_flag, response_details, upstream_transport_failure_reason,
// upstream_host, upstream_cluster, route_name. Such entries are Envoy
// requests inside a gcp-logging input: their Family is FamilyEnvoy.

// The log IDs of Cloud Service Mesh access logs.
const (
	gcpMeshServerLogSuffix = "/logs/server-accesslog-stackdriver"
	gcpMeshClientLogSuffix = "/logs/client-accesslog-stackdriver"
)

// gcpMeshLog reports whether logName is a Cloud Service Mesh access log.
func gcpMeshLog(logName []byte) bool {
	return bytes.HasSuffix(logName, []byte(gcpMeshServerLogSuffix)) ||
		bytes.HasSuffix(logName, []byte(gcpMeshClientLogSuffix))
}

// errGCPMeshFlags is the reason for rejecting an entry whose response_flag
// label is not a response-flags value.
var errGCPMeshFlags = errors.New("labels.response_flag is not an Envoy response-flags value")

// gcpMeshBuffers recycles the Request buffers of mesh entries.
var gcpMeshBuffers = sync.Pool{New: func() any { return new(envoyRequestBuffer) }}

// parseGCPMeshRequest reports the Request of one Cloud Service Mesh
// access-log entry. Entries without httpRequest are TCP connection logs
// and carry no record. The LB is the upstream cluster, else the route,
// else the destination service host; the backend is upstream_host, else
// httpRequest.serverIp (the destination's address).
func parseGCPMeshRequest(entry *fastjson.Object, hr *fastjson.Value, logName string, o Origin, out *Emitter) error {
	if hr == nil {
		return nil
	}
	if hr.Type() != fastjson.TypeObject {
		return errGCPRequestNotObject
	}
	at, err := gcpEntryTime(entry)
	if err != nil {
		return err
	}
	status, err := gcpStatus(hr.Get("status"))
	if err != nil {
		return err
	}
	labels := entry.Get("labels")
	rec := envoyRecord{
		time: at, status: status, hasStatus: true, platform: PlatformIstio,
		method:  envoyValue(gcpString(hr.Get("requestMethod"))),
		path:    envoyValue(gcpURLPath(gcpString(hr.Get("requestUrl")))),
		flags:   envoyValue(gcpString(labels.Get("response_flag"))),
		details: envoyValue(gcpString(labels.Get("response_details"))),
		reason:  envoyValue(gcpString(labels.Get("upstream_transport_failure_reason"))),
		host:    envoyValue(gcpString(labels.Get("upstream_host"))),
		cluster: envoyValue(gcpString(labels.Get("upstream_cluster"))),
		route:   envoyValue(gcpString(labels.Get("route_name"))),
	}
	serverIP := envoyValue(gcpString(hr.Get("serverIp")))
	if rec.host == nil {
		rec.host = serverIP
	}
	// On the server side serverIp is the pod itself: the backend of an
	// inbound cluster whose upstream host is 127.0.0.1 (see envoyBackend).
	rec.downstreamLocal = serverIP
	if rec.route == nil {
		rec.route = envoyValue(gcpString(labels.Get("destination_service_host")))
	}
	flags, err := parseEnvoyFlags(rec.flags)
	if err != nil {
		return errGCPMeshFlags
	}
	if gcpDuplicate(entry, logName, out) {
		return nil
	}
	buf := gcpMeshBuffers.Get().(*envoyRequestBuffer)
	defer gcpMeshBuffers.Put(buf)
	r := buf.build(&rec, flags, FormatGCPLogging, o)
	r.Family = FamilyEnvoy
	out.Request(r)
	return nil
}

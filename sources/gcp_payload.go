package sources

import (
	"bytes"
	"time"

	"github.com/valyala/fastjson"
)

// A Cloud Logging entry that is not a load balancer request, a health
// check, a mesh access log or a Kubernetes event may still hold a proxy's
// access line: GKE writes each line of a container's stdout and stderr as
// an entry of resource type k8s_container in logs/stdout or logs/stderr,
// a line of text in textPayload and a one-line JSON object in jsonPayload
// (https://cloud.google.com/kubernetes-engine/docs/concepts/about-logs).
// readPayload hands such a payload to the line adapter that reads it,
// whatever the resource type, with the entry's timestamp as the line's
// stamp: GKE's agent lifts a JSON line's `time` key into the entry's
// timestamp and deletes it from jsonPayload. Every entry is a record, a
// counted skip or passed over (InputReport.Passed): a proxy's own log
// line, an application's entry; the first entry an input passes over for
// want of a readable payload is named in a warning.

// readPayload reads the payload of an entry of no other kind.
func (st *gcpState) readPayload(entry *fastjson.Object, logName, resourceType []byte, o Origin, out *Emitter) error {
	var line []byte
	if text := entry.Get("textPayload"); text != nil && text.Type() == fastjson.TypeString {
		// The agent may keep the line's final newline.
		line = bytes.TrimRight(text.GetStringBytes(), "\r\n")
	} else if js := entry.Get("jsonPayload"); js != nil && js.Type() == fastjson.TypeObject {
		st.payload = js.MarshalTo(st.payload[:0])
		line = st.payload
	} else {
		gcpWarnUnread(logName, resourceType, "it has no textPayload or jsonPayload", o, out)
		return nil
	}
	if blank(line) {
		return nil
	}
	stamp := st.stampOf(entry)
	inner, innerStamp, scratch := unwrapLine(line, st.scratch)
	st.scratch = scratch
	if !innerStamp.IsZero() {
		stamp = innerStamp
	}
	a := payloadAdapter(inner, out)
	if a == nil {
		gcpWarnUnread(logName, resourceType, "its payload is in no format readygap reads", o, out)
		return nil
	}
	if gcpDuplicateID(gcpString(entry.Get("insertId")), string(logName), out) {
		return nil
	}
	st.line = Line{Origin: o, Stamp: stamp}
	return a.Parse(inner, &st.line, out)
}

// stampOf returns the entry's time, or the zero time when it has none
// that parses: the line may carry its own.
func (st *gcpState) stampOf(entry *fastjson.Object) (t time.Time) {
	t, _ = gcpParseTime(gcpEntryTimeText(entry))
	return t
}

// payloadAdapter returns the line adapter that reads line: the one that
// read the worker's last payload when it matches, else the first that does.
func payloadAdapter(line []byte, out *Emitter) lineAdapter {
	if out.payload != nil && out.payload.Match(line) {
		return out.payload
	}
	for _, a := range out.lineAdapterSet() {
		if a.Match(line) {
			out.payload = a
			return a
		}
	}
	return nil
}

// gcpUnreadWarning starts the warning about entries passed over.
const gcpUnreadWarning = "Cloud Logging entries passed over"

// gcpWarnUnread warns, once per input, that entries of no kind readygap
// reads were passed over, naming the first; InputReport.Passed counts them.
func gcpWarnUnread(logName, resourceType []byte, why string, o Origin, out *Emitter) {
	if len(resourceType) == 0 {
		resourceType = []byte("none")
	}
	out.WarnOnce(gcpUnreadWarning, "%s (not an LB request log, mesh access log, Kubernetes event or health check, and no access line in the payload); the first at %s, log %s, resource type %s: %s",
		gcpUnreadWarning, o, gcpLogID(logName), resourceType, why)
}

// gcpLogID returns the log ID of a logName, `projects/P/logs/ID`, as
// Cloud Logging shows it (URL-escaped slashes are left as they are).
func gcpLogID(logName []byte) []byte {
	if i := bytes.LastIndex(logName, []byte("/logs/")); i >= 0 {
		return logName[i+len("/logs/"):]
	}
	return logName
}

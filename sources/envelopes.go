package sources

import (
	"strings"
	"time"
)

// Envelope is the stable identifier of a wrapper that log collectors and
// viewers put around the lines a proxy wrote: kubectl's pod prefix, stern's
// pod and container names, Loki's JSON lines, a Cloud Logging entry. An
// input in an envelope is reported as the format of the lines it holds.
type Envelope string

// The envelopes readygap takes off.
const (
	EnvelopeKubectlTimestamps Envelope = "kubectl-timestamps"
	EnvelopeKubectlPrefix     Envelope = "kubectl-prefix"
	EnvelopeStern             Envelope = "stern"
	EnvelopeSternNamespaces   Envelope = "stern-all-namespaces"
	EnvelopeSternJSON         Envelope = "stern-json"
	EnvelopeLokiJSONL         Envelope = "loki-jsonl"
	EnvelopeLokiDefault       Envelope = "loki-default"
	EnvelopeGCPPayload        Envelope = "gcp-payload"
	EnvelopeCloudWatchExport  Envelope = "cloudwatch-export"
	EnvelopeCloudWatchConsole Envelope = "cloudwatch-console"
	EnvelopeAWSLogsTail       Envelope = "aws-logs-tail"
	EnvelopeAWSLogsTailShort  Envelope = "aws-logs-tail-short"
	EnvelopeFluentBit         Envelope = "fluent-bit"
	EnvelopePasted            Envelope = "pasted"
)

// EnvelopeInfo describes one envelope readygap takes off: the README's
// table of envelopes and detection come from it.
type EnvelopeInfo struct {
	ID Envelope
	// Description says what the envelope looks like, in one line (Markdown).
	Description string
	// HowToGet is the command that produces it (Markdown).
	HowToGet string

	// line takes the envelope off one line. Detection picks it for a
	// whole input when more sample lines are read through it than bare.
	// It is nil for the layers every line goes through (unwrapLine in
	// wrap.go: time prefixes, CRI, Fluent Bit records), for CloudWatch
	// exports (a layout of their own) and for Cloud Logging entries, whose
	// payloads the gcp-logging adapter reads (gcp_payload.go).
	line lineEnvelope
}

// lineEnvelope takes one kind of envelope off single text lines.
type lineEnvelope interface {
	// Unwrap returns the line the envelope holds and the envelope's time
	// (zero when it carries none). inner aliases line, or scratchOut when
	// the envelope had to be unescaped; scratchOut is scratch, possibly
	// grown, for the caller to pass again. ok is false when line is not in
	// this envelope; Unwrap must then neither fail nor allocate much, as
	// detection tries it on lines of every input.
	Unwrap(line, scratch []byte) (inner []byte, stamp time.Time, scratchOut []byte, ok bool)
}

// envelopeTable lists every envelope readygap takes off, in detection
// priority: when two envelopes make the same number of sample lines
// readable, the earlier one wins. Adding an envelope is adding its row
// here, its file, its tests and samples (sources/testdata/samples/), and
// regenerating the README's table (TestREADMEEnvelopeTable).
var envelopeTable = []EnvelopeInfo{
	{
		ID:          EnvelopeKubectlTimestamps,
		Description: "an RFC 3339 time and a space in front of each line (the kubelet's, 9 fractional digits)",
		HowToGet:    "`kubectl logs --timestamps POD`",
	},
	{
		ID: EnvelopeKubectlPrefix, line: kubectlPrefix{},
		Description: "`[pod/NAME/CONTAINER] ` in front of each line, with or without the time of `--timestamps` after it; lines of several pods in blocks or interleaved",
		HowToGet:    "`kubectl logs --prefix [--timestamps] -l app=NAME`, `kubectl logs --all-pods deploy/NAME`",
	},
	{
		ID: EnvelopeStern, line: sternEnvelope{names: 2},
		Description: "stern's default output: `POD CONTAINER ` in front of each line, with its time (`--timestamps`, `--timestamps=short`) after them; colours are taken off",
		HowToGet:    "`stern -n NAMESPACE NAME`, `stern --timestamps -n NAMESPACE NAME`",
	},
	{
		ID: EnvelopeSternNamespaces, line: sternEnvelope{names: 3},
		Description: "stern's default output over several namespaces: `NAMESPACE POD CONTAINER ` in front of each line",
		HowToGet:    "`stern --all-namespaces NAME`, `stern -n NS1 -n NS2 NAME`",
	},
	{
		ID: EnvelopeSternJSON, line: sternJSON{},
		Description: "stern's JSON outputs: `{\"message\":\"...\",\"timestamp\":\"...\",...,\"podName\":\"...\",\"containerName\":\"...\",...}` (`-o json`) and `{\"pod\": \"...\", \"container\": \"...\", \"message\": ...}` (`-o extjson`, a JSON line embedded as it is)",
		HowToGet:    "`stern -o json --timestamps -n NAMESPACE NAME`, `stern -o extjson -n NAMESPACE NAME`",
	},
	{
		ID: EnvelopeLokiJSONL, line: lokiJSONL{},
		Description: "Grafana Loki JSON lines `{\"labels\":{...},\"line\":\"...\",\"timestamp\":\"...\"}`, newest first; `--output=raw` gives the bare lines, read as they are",
		HowToGet:    "`logcli query --output=jsonl --limit=0 --since=1h '{namespace=\"ingress-nginx\"}'`",
	},
	{
		ID: EnvelopeLokiDefault, line: lokiDefault{},
		Description: "Grafana Loki's default output: `TIME {label=\"value\", ...} LINE` (`--no-labels`: `TIME LINE`)",
		HowToGet:    "`logcli query --limit=0 --since=1h '{namespace=\"ingress-nginx\"}'`",
	},
	{
		ID:          EnvelopeGCPPayload,
		Description: "Cloud Logging entries of any resource type whose `textPayload` is a line, or whose `jsonPayload` is a JSON access line, in a format readygap reads: GKE container output (`k8s_container`, `logs/stdout` and `logs/stderr`), read with the entry's `timestamp`",
		HowToGet:    "`gcloud logging read 'resource.type=\"k8s_container\" AND resource.labels.namespace_name=\"ingress-nginx\"' --format=json`",
	},
	{
		ID:          EnvelopeCloudWatchExport,
		Description: "a CloudWatch Logs JSON export: each event's `message` is a line, its `timestamp` the time",
		HowToGet:    "`aws logs filter-log-events --log-group-name GROUP --output json`",
	},
	{
		ID:          EnvelopeCloudWatchConsole,
		Description: "a copy of the CloudWatch console's log events: the time, a tab, the message (the layout of a copied viewer line; AWS does not document the console's)",
		HowToGet:    "select the events in the console's log stream view and copy them",
	},
	{
		ID: EnvelopeAWSLogsTail, line: awsLogsTail{},
		Description: "`aws logs tail` output: `TIME STREAM MESSAGE`",
		HowToGet:    "`aws logs tail GROUP --since 1h`",
	},
	{
		ID: EnvelopeAWSLogsTailShort, line: awsLogsTailShort{},
		Description: "`aws logs tail --format short` output: `TIME MESSAGE`, the time in UTC to the second, without a zone",
		HowToGet:    "`aws logs tail GROUP --since 1h --format short`",
	},
	{
		ID:          EnvelopeFluentBit,
		Description: "Fluent Bit, Container Insights and Docker json-file records (`{\"log\":\"...\",...}`), with or without the CRI prefix `TIME stdout F ` inside or in front",
		HowToGet:    "a node's `/var/log/containers/*.log`, Container Insights' `/aws/containerinsights/CLUSTER/application` group",
	},
	{
		ID: EnvelopePasted, line: pastedEnvelope{},
		Description: "lines pasted rather than exported: typographic quotes, non-breaking or doubled spaces, a log viewer's table row (`|`, `│` or tab between cells; the widest cell is the line); repaired with a warning counting the lines",
		HowToGet:    "a line copied from an issue, a chat, a wiki or a log viewer's table",
	},
}

// lineEnvelopes are the envelopes of the table that detection tries, in its order.
var lineEnvelopes = func() []lineEnvelope {
	var out []lineEnvelope
	for _, e := range envelopeTable {
		if e.line != nil {
			out = append(out, e.line)
		}
	}
	return out
}()

// Envelopes describes every envelope readygap takes off, in detection priority.
func Envelopes() []EnvelopeInfo { return append([]EnvelopeInfo(nil), envelopeTable...) }

// EnvelopeIDs lists the ids of every envelope readygap takes off, for help texts.
func EnvelopeIDs() []string {
	ids := make([]string, len(envelopeTable))
	for i, e := range envelopeTable {
		ids[i] = string(e.ID)
	}
	return ids
}

// envelopesHelp names the envelopes, for messages about unknown inputs.
func envelopesHelp() string { return strings.Join(EnvelopeIDs(), ", ") }

// unwrapSample takes env off each sample line that is in it; lines that
// are not, and all of them without env, are kept as they are.
func unwrapSample(lines [][]byte, env lineEnvelope) [][]byte {
	if env == nil {
		return lines
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		// Without a scratch of its own to reuse, each inner line is l's
		// bytes or a copy made for it alone.
		if inner, _, _, ok := env.Unwrap(l, nil); ok {
			out[i] = inner
		} else {
			out[i] = l
		}
	}
	return out
}

// isNameByte reports whether c may be in a Kubernetes object name (a DNS
// subdomain: lower-case letters, digits, '-' and '.').
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
}

// isName reports whether b is a Kubernetes object name: DNS subdomain
// characters, starting and ending with a letter or digit.
func isName(b []byte) bool {
	if len(b) == 0 || b[0] == '-' || b[0] == '.' || b[len(b)-1] == '-' || b[len(b)-1] == '.' {
		return false
	}
	for _, c := range b {
		if !isNameByte(c) {
			return false
		}
	}
	return true
}

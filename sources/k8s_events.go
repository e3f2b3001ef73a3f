package sources

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// k8sEvents reads Kubernetes Event objects as `kubectl get events -o
// json|yaml` and the API print them: core/v1 Events (involvedObject, message,
// first/lastTimestamp) and events.k8s.io/v1 Events (regarding, note,
// deprecated* fields). The pipeline hands it one Event at a time, the items
// of a List or EventList, with YAML already turned into JSON.
type k8sEvents struct{}

// Format reports FormatK8sEvents.
func (k8sEvents) Format() Format { return FormatK8sEvents }

// MatchJSON reports whether elem looks like an Event object ("kind":"Event",
// or involvedObject/regarding with a reason) and not like a Cloud Logging
// LogEntry, whose jsonPayload may hold an Event.
func (k8sEvents) MatchJSON(elem []byte) bool {
	if bytes.Contains(elem, []byte(`"logName"`)) || bytes.Contains(elem, []byte(`"jsonPayload"`)) {
		return false
	}
	if hasKindEvent(elem) {
		return true
	}
	return (bytes.Contains(elem, []byte(`"involvedObject"`)) || bytes.Contains(elem, []byte(`"regarding"`))) &&
		bytes.Contains(elem, []byte(`"reason"`))
}

// hasKindEvent reports whether some "kind" key in elem has the value "Event",
// allowing whitespace around the colon.
func hasKindEvent(elem []byte) bool {
	key := []byte(`"kind"`)
	for i := bytes.Index(elem, key); i >= 0; {
		rest := bytes.TrimLeft(elem[i+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' &&
			bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), []byte(`"Event"`)) {
			return true
		}
		j := bytes.Index(elem[i+len(key):], key)
		if j < 0 {
			break
		}
		i += len(key) + j
	}
	return false
}

// ParseJSON decodes one core/v1 or events.k8s.io/v1 Event and reports it as
// one Lifecycle record. An element that is not an Event, or an Event without
// any time, is an error.
func (k8sEvents) ParseJSON(elem []byte, o Origin, out *Emitter) error {
	ev, err := decodeKubeEvent(elem)
	if err != nil {
		return err
	}
	if kubeEventTime(ev).IsZero() {
		return errors.New("event has no timestamp")
	}
	emitKubeEvent(ev, time.Time{}, o, FormatK8sEvents, out)
	return nil
}

// eventHead is what decodeKubeEvent looks at to tell the Event APIs apart.
type eventHead struct {
	APIVersion     string          `json:"apiVersion"`
	Kind           string          `json:"kind"`
	InvolvedObject json.RawMessage `json:"involvedObject"`
	Regarding      json.RawMessage `json:"regarding"`
}

// decodeKubeEvent decodes an Event of either API into the core/v1 shape.
func decodeKubeEvent(elem []byte) (*corev1.Event, error) {
	var head eventHead
	if err := json.Unmarshal(elem, &head); err != nil {
		return nil, eventDecodeError(err)
	}
	if head.Kind != "" && head.Kind != "Event" {
		return nil, errors.New("not an Event object")
	}
	if head.Kind == "" && head.InvolvedObject == nil && head.Regarding == nil {
		return nil, errors.New("not an Event object")
	}
	if strings.HasPrefix(head.APIVersion, "events.k8s.io/") ||
		(head.APIVersion == "" && head.Regarding != nil && head.InvolvedObject == nil) {
		var ev eventsv1.Event
		if err := json.Unmarshal(elem, &ev); err != nil {
			return nil, eventDecodeError(err)
		}
		return coreEventFromV1(&ev), nil
	}
	var ev corev1.Event
	if err := json.Unmarshal(elem, &ev); err != nil {
		return nil, eventDecodeError(err)
	}
	return &ev, nil
}

// eventDecodeError turns a decoding error into a short skip reason.
func eventDecodeError(err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return errors.New("invalid JSON: " + syn.Error())
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field == "" {
		return errors.New("not a JSON object")
	}
	if errors.As(err, &typ) {
		return errors.New("bad Event field " + typ.Field + ": " + typ.Value)
	}
	return errors.New("bad Event: " + err.Error())
}

// coreEventFromV1 converts an events.k8s.io/v1 Event to core/v1: regarding
// becomes involvedObject, note the message, the deprecated* fields the legacy
// source, timestamps and count. An event without a deprecated source reports
// its reportingController as source.component.
func coreEventFromV1(e *eventsv1.Event) *corev1.Event {
	ev := &corev1.Event{
		TypeMeta:            metav1.TypeMeta{Kind: "Event", APIVersion: "v1"},
		ObjectMeta:          e.ObjectMeta,
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		Related:             e.Related,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if e.Series != nil {
		ev.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	if ev.Source.Component == "" && ev.Source.Host == "" {
		ev.Source.Component = e.ReportingController
	}
	return ev
}

// kubectlOldEventsHeader matches the header of the Events table of
// kubectl 1.3–1.7's describe, whose rows the kubectl-describe format
// does not read (the current layouts are formats of their own).
var kubectlOldEventsHeader = regexp.MustCompile(`^(FirstSeen\s+LastSeen\s+Count\s+From)`)

// NearMiss recognises the Events table of an old `kubectl describe`.
func (k8sEvents) NearMiss(s *nearSample) (nearScore, string) {
	for _, l := range s.lines {
		if kubectlOldEventsHeader.Match(l) {
			return nearKnown, "`kubectl describe` text of kubectl 1.3–1.7: its Events table gives ages, not the times of the events, in a layout readygap does not read"
		}
	}
	return nearNone, ""
}

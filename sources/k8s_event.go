package sources

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// emitKubeEvent turns one Kubernetes event (core/v1 shape; events.k8s.io/v1
// events are converted to it first) into a Lifecycle record. It is shared by
// the k8s-events adapter and by Cloud Logging's logs/events entries. A
// non-zero at overrides the event's own times (Cloud Logging's entry
// timestamp is the occurrence time).
func emitKubeEvent(ev *corev1.Event, at time.Time, o Origin, format Format, out *Emitter) {
	if at.IsZero() {
		at = ev.LastTimestamp.Time
	}
	l := Lifecycle{
		Time:      at,
		Kind:      LifecycleOther,
		Namespace: ev.InvolvedObject.Namespace,
		Object:    ev.InvolvedObject.Kind + "/" + ev.InvolvedObject.Name,
		Reason:    ev.Reason,
		Source:    ev.Source.Component,
		Message:   ev.Message,
		Count:     int(ev.Count),
		From:      -1,
		Format:    format,
		Origin:    o,
	}
	if ev.InvolvedObject.Kind == "Pod" {
		l.Pod = ev.InvolvedObject.Name
	}
	out.Lifecycle(&l)
}

package sources

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/valyala/fastjson"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pods are most of a cluster's objects: a List of 100 000 of them is
// hundreds of megabytes. encoding/json into corev1.Pod scanned each one
// three times (validation, the TypeMeta, the Pod) and built every field,
// env, volumes and resources included: most of the time of a large List
// went there. A Pod is read instead from the fastjson tree the adapter
// parses once, into the part of corev1.Pod that the facts read
// (podSpecFacts, istioSidecarFacts, podStatusFacts), by encoding/json's
// rules for what it decodes: a key matches a field exactly or else
// case-insensitively, the last of equal keys wins and decodes into what an
// earlier one set, null leaves a field as it is (and clears a pointer,
// slice or map), a string is unquoted as encoding/json does, a number must
// be whole and fit its field, a value of another type is an error. A
// value of the wrong type in a field the facts do not read is no longer an
// error: the pod is read rather than skipped.

// k8sState is the working memory of one call of the objects adapter:
// fastjson parsers are not safe for concurrent use and adapters are shared
// by the inputs read in parallel, so each call borrows one from k8sStates.
type k8sState struct {
	p fastjson.Parser
	// raw holds a scalar as written.
	raw []byte
	// lifecycle is the record a pod's lifecycle is reported in.
	lifecycle Lifecycle
	// key holds the key a pod's spec or labels are shared by (specTable).
	key []byte
	// strs keeps the strings made lately, to give a value that repeats
	// from pod to pod (namespaces, labels, condition types, container
	// names, environment) without allocating it again.
	strs [stringCacheSize]string
}

// k8sStates lend each call of the adapter its working memory.
var k8sStates = sync.Pool{New: func() any { return &k8sState{} }}

// stringCacheSize is how many strings a k8sState keeps, by hash: more
// than the distinct short values of a pod (about a hundred), so that those
// of the next pod of the same template are found.
const stringCacheSize = 1024

// stringSeed hashes the strings of every k8sState.
var stringSeed = maphash.MakeSeed()

// string returns b as a string, the one kept for an equal earlier value
// when there is one.
func (st *k8sState) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	slot := &st.strs[maphash.Bytes(stringSeed, b)%stringCacheSize]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

// podDecoder reads fastjson values into Go values by encoding/json's rules
// (see above); err keeps the first error.
type podDecoder struct {
	st  *k8sState
	err error
}

// typeError records a value of the wrong JSON type for field, a Go struct
// field named as encoding/json names it (Struct.jsonName).
func (d *podDecoder) typeError(v *fastjson.Value, field, want string) {
	if d.err != nil {
		return
	}
	k, raw := d.kind(v)
	what := map[byte]string{'{': "object", '[': "array", '"': "string", 'n': "null", 't': "bool", 'f': "bool"}[k]
	if what == "" {
		what = "number " + string(raw)
	}
	d.err = fmt.Errorf("cannot unmarshal %s into Go struct field %s of type %s", what, field, want)
}

// kind returns the first byte of v as written ('{', '[', '"', 'n', 't',
// 'f', or a number's first byte) and, for a scalar, v as written. Unlike
// Value.Type (and Value.Object's error), it leaves a string as written,
// so that it is unquoted by encoding/json's rules, not fastjson's.
func (d *podDecoder) kind(v *fastjson.Value) (byte, []byte) {
	if v.GetObject() != nil {
		return '{', nil
	}
	if v.GetArray() != nil {
		return '[', nil
	}
	d.st.raw = v.MarshalTo(d.st.raw[:0]) // a scalar, or an empty array
	return d.st.raw[0], d.st.raw
}

// isNull reports whether v is JSON null.
func (d *podDecoder) isNull(v *fastjson.Value) bool {
	k, _ := d.kind(v)
	return k == 'n'
}

// fields calls f with each key of the object v that matches one of names
// (exactly, else case-insensitively) and its value, in the order written.
// A null v does nothing; any other value that is not an object is a type
// error of field.
func (d *podDecoder) fields(v *fastjson.Value, field, want string, names []string, f func(name string, v *fastjson.Value)) {
	if d.err != nil {
		return
	}
	o := v.GetObject()
	if o == nil {
		if !d.isNull(v) {
			d.typeError(v, field, want)
		}
		return
	}
	o.Visit(func(key []byte, v *fastjson.Value) {
		if d.err != nil {
			return
		}
		if name, ok := fieldName(key, names); ok {
			f(name, v)
		}
	})
}

// fieldName returns the name among names that key matches, exactly or
// else case-insensitively, as encoding/json matches them. An ASCII key
// can fold only to a name of its length; another may hold a letter that
// folds to ASCII (the Kelvin sign K to k).
func fieldName(key []byte, names []string) (string, bool) {
	for _, n := range names {
		if string(key) == n {
			return n, true
		}
	}
	ascii := !slices.ContainsFunc(key, func(c byte) bool { return c >= utf8.RuneSelf })
	for _, n := range names {
		if (!ascii || len(key) == len(n)) && strings.EqualFold(string(key), n) {
			return n, true
		}
	}
	return "", false
}

// str decodes a JSON string into *s; null leaves it as it is.
func (d *podDecoder) str(v *fastjson.Value, field string, s *string) {
	if d.err != nil {
		return
	}
	switch k, raw := d.kind(v); k {
	case '"':
		*s = d.unquote(raw)
	case 'n':
	default:
		d.typeError(v, field, "string")
	}
}

// unquote turns a JSON string as written (quotes included) into a Go
// string as encoding/json does: escapes decoded, each byte of invalid
// UTF-8 and each unpaired surrogate becoming U+FFFD; a raw control
// character, which encoding/json rejects, is an error.
func (d *podDecoder) unquote(raw []byte) string {
	body := raw[1 : len(raw)-1]
	ascii := true
	for _, c := range body {
		switch {
		case c == '\\' || c < 0x20:
			return d.unquoteEscaped(raw)
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(body) {
		return d.unquoteEscaped(raw)
	}
	return d.st.string(body)
}

// unquoteEscaped unquotes a string with escapes, control characters or
// invalid UTF-8 with encoding/json itself.
func (d *podDecoder) unquoteEscaped(raw []byte) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil && d.err == nil {
		d.err = err
	}
	return s
}

// int64Value decodes a whole JSON number within bits; null gives ok false.
func (d *podDecoder) int64Value(v *fastjson.Value, field, want string, bits int) (n int64, ok bool) {
	if d.err != nil {
		return 0, false
	}
	k, raw := d.kind(v)
	switch k {
	case 'n':
		return 0, false
	case '{', '[', '"', 't', 'f':
		d.typeError(v, field, want)
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, bits)
	if err != nil {
		d.typeError(v, field, want)
		return 0, false
	}
	return n, true
}

// int32 decodes a whole number into *p; null leaves it as it is.
func (d *podDecoder) int32(v *fastjson.Value, field string, p *int32) {
	if n, ok := d.int64Value(v, field, "int32", 32); ok {
		*p = int32(n)
	}
}

// int64Ptr decodes a whole number into *p, allocating it when nil; null
// sets it to nil.
func (d *podDecoder) int64Ptr(v *fastjson.Value, field string, p **int64) {
	if d.err != nil {
		return
	}
	if d.isNull(v) {
		*p = nil
		return
	}
	if n, ok := d.int64Value(v, field, "int64", 64); ok {
		if *p == nil {
			*p = new(int64)
		}
		**p = n
	}
}

// boolean decodes true or false into *b; null leaves it as it is.
func (d *podDecoder) boolean(v *fastjson.Value, field string, b *bool) {
	if d.err != nil {
		return
	}
	switch k, _ := d.kind(v); k {
	case 't':
		*b = true
	case 'f':
		*b = false
	case 'n':
	default:
		d.typeError(v, field, "bool")
	}
}

// time decodes a metav1.Time as its UnmarshalJSON does: an RFC 3339
// string; null makes it zero.
func (d *podDecoder) time(v *fastjson.Value, field string, t *metav1.Time) {
	if d.err != nil {
		return
	}
	if d.isNull(v) {
		t.Time = time.Time{}
		return
	}
	var s string
	d.str(v, field, &s)
	if d.err != nil {
		return
	}
	pt, err := time.Parse(time.RFC3339, s)
	if err != nil {
		d.err = err
		return
	}
	t.Time = pt.Local()
}

// timePtr decodes a *metav1.Time; null sets it to nil.
func (d *podDecoder) timePtr(v *fastjson.Value, field string, p **metav1.Time) {
	if d.err != nil {
		return
	}
	if d.isNull(v) {
		*p = nil
		return
	}
	if *p == nil {
		*p = new(metav1.Time)
	}
	d.time(v, field, *p)
}

// intOrString decodes a port written as a number or a name, as
// IntOrString's UnmarshalJSON does.
func (d *podDecoder) intOrString(v *fastjson.Value, field string, p *intstr.IntOrString) {
	if d.err != nil {
		return
	}
	if k, raw := d.kind(v); k == '"' {
		p.Type = intstr.String
		p.StrVal = d.unquote(raw)
		return
	}
	p.Type = intstr.Int
	d.int32(v, field, &p.IntVal)
}

// stringMap decodes an object of strings into *m, adding to what it
// holds; null sets it to nil. With keep, only the keys it lists are kept.
func (d *podDecoder) stringMap(v *fastjson.Value, field string, m *map[string]string, keep []string) {
	if d.err != nil {
		return
	}
	o := v.GetObject()
	if o == nil {
		if d.isNull(v) {
			*m = nil
		} else {
			d.typeError(v, field, "map[string]string")
		}
		return
	}
	if *m == nil {
		*m = make(map[string]string, min(o.Len(), 8))
	}
	o.Visit(func(key []byte, v *fastjson.Value) {
		if keep != nil && !slices.Contains(keep, string(key)) {
			return
		}
		var s string
		d.str(v, field, &s)
		(*m)[d.key(key)] = s
	})
}

// key returns a map key as encoding/json has it: each byte of invalid
// UTF-8 becomes U+FFFD.
func (d *podDecoder) key(b []byte) string {
	if utf8.Valid(b) {
		return d.st.string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		sb.WriteRune(r)
		b = b[n:]
	}
	return sb.String()
}

// array decodes a JSON array into *s with elem, as encoding/json does:
// null sets it to nil, [] to an empty slice, and the elements decode into
// what *s held before (which matters for a key written twice).
func array[T any](d *podDecoder, v *fastjson.Value, field, want string, s *[]T, elem func(v *fastjson.Value, e *T)) {
	if d.err != nil {
		return
	}
	switch k, _ := d.kind(v); k {
	case 'n':
		*s = nil
		return
	case '[':
	default:
		d.typeError(v, field, want)
		return
	}
	vs, _ := v.Array()
	if len(vs) == 0 {
		*s = []T{}
		return
	}
	x := (*s)[:cap(*s)]
	if len(x) < len(vs) {
		x = append(x, make([]T, len(vs)-len(x))...)
	}
	x = x[:len(vs)]
	for i, e := range vs {
		elem(e, &x[i])
	}
	*s = x
}

// object decodes an object into the struct *p points to, allocating it
// when nil; null sets *p to nil.
func object[T any](d *podDecoder, v *fastjson.Value, field, want string, p **T, fill func(v *fastjson.Value, t *T)) {
	if d.err != nil {
		return
	}
	if v.GetObject() == nil {
		if d.isNull(v) {
			*p = nil
		} else {
			d.typeError(v, field, want)
		}
		return
	}
	if *p == nil {
		*p = new(T)
	}
	fill(v, *p)
}

// The JSON names of the fields of corev1.Pod that the facts read, by struct.
var (
	podFields       = []string{"metadata", "spec", "status"}
	metaFields      = []string{"name", "namespace", "labels", "annotations", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences"}
	ownerFields     = []string{"kind", "name"}
	specFields      = []string{"nodeName", "terminationGracePeriodSeconds", "readinessGates", "topologySpreadConstraints", "containers", "initContainers"}
	gateFields      = []string{"conditionType"}
	spreadFields    = []string{"maxSkew", "topologyKey", "whenUnsatisfiable"}
	containerFields = []string{"name", "command", "args", "env", "ports", "readinessProbe", "livenessProbe", "startupProbe", "lifecycle", "restartPolicy"}
	envFields       = []string{"name", "value", "valueFrom"}
	portFields      = []string{"name", "containerPort", "protocol"}
	probeFields     = []string{"exec", "httpGet", "tcpSocket", "grpc", "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"}
	handlerFields   = []string{"exec", "httpGet", "tcpSocket", "sleep"}
	execFields      = []string{"command"}
	httpGetFields   = []string{"path", "port", "scheme"}
	portOnlyFields  = []string{"port"}
	sleepFields     = []string{"seconds"}
	lifecycleFields = []string{"preStop"}
	statusFields    = []string{"phase", "podIP", "startTime", "conditions", "containerStatuses", "initContainerStatuses"}
	conditionFields = []string{"type", "status", "reason", "message", "lastTransitionTime"}
	cStatusFields   = []string{"name", "ready", "restartCount", "state"}
	stateFields     = []string{"running"}
	runningFields   = []string{"startedAt"}
)

// pod decodes a Pod object into p.
func (d *podDecoder) pod(v *fastjson.Value, p *corev1.Pod) {
	d.fields(v, "Pod", "v1.Pod", podFields, func(name string, v *fastjson.Value) {
		switch name {
		case "metadata":
			d.meta(v, &p.ObjectMeta)
		case "spec":
			d.spec(v, &p.Spec)
		case "status":
			d.status(v, &p.Status)
		}
	})
}

func (d *podDecoder) meta(v *fastjson.Value, m *metav1.ObjectMeta) {
	d.fields(v, "Pod.metadata", "v1.ObjectMeta", metaFields, func(name string, v *fastjson.Value) {
		switch name {
		case "name":
			d.str(v, "ObjectMeta.name", &m.Name)
		case "namespace":
			d.str(v, "ObjectMeta.namespace", &m.Namespace)
		case "labels":
			d.stringMap(v, "ObjectMeta.labels", &m.Labels, nil)
		case "annotations":
			d.stringMap(v, "ObjectMeta.annotations", &m.Annotations, istioPodAnnotations)
		case "creationTimestamp":
			d.time(v, "ObjectMeta.creationTimestamp", &m.CreationTimestamp)
		case "deletionTimestamp":
			d.timePtr(v, "ObjectMeta.deletionTimestamp", &m.DeletionTimestamp)
		case "deletionGracePeriodSeconds":
			d.int64Ptr(v, "ObjectMeta.deletionGracePeriodSeconds", &m.DeletionGracePeriodSeconds)
		case "ownerReferences":
			array(d, v, "ObjectMeta.ownerReferences", "[]v1.OwnerReference", &m.OwnerReferences, func(v *fastjson.Value, r *metav1.OwnerReference) {
				d.fields(v, "ObjectMeta.ownerReferences", "v1.OwnerReference", ownerFields, func(name string, v *fastjson.Value) {
					switch name {
					case "kind":
						d.str(v, "OwnerReference.kind", &r.Kind)
					case "name":
						d.str(v, "OwnerReference.name", &r.Name)
					}
				})
			})
		}
	})
}

func (d *podDecoder) spec(v *fastjson.Value, s *corev1.PodSpec) {
	d.fields(v, "Pod.spec", "v1.PodSpec", specFields, func(name string, v *fastjson.Value) {
		switch name {
		case "nodeName":
			d.str(v, "PodSpec.nodeName", &s.NodeName)
		case "terminationGracePeriodSeconds":
			d.int64Ptr(v, "PodSpec.terminationGracePeriodSeconds", &s.TerminationGracePeriodSeconds)
		case "readinessGates":
			array(d, v, "PodSpec.readinessGates", "[]v1.PodReadinessGate", &s.ReadinessGates, func(v *fastjson.Value, g *corev1.PodReadinessGate) {
				d.fields(v, "PodSpec.readinessGates", "v1.PodReadinessGate", gateFields, func(_ string, v *fastjson.Value) {
					d.str(v, "PodReadinessGate.conditionType", (*string)(&g.ConditionType))
				})
			})
		case "topologySpreadConstraints":
			array(d, v, "PodSpec.topologySpreadConstraints", "[]v1.TopologySpreadConstraint", &s.TopologySpreadConstraints, func(v *fastjson.Value, t *corev1.TopologySpreadConstraint) {
				d.fields(v, "PodSpec.topologySpreadConstraints", "v1.TopologySpreadConstraint", spreadFields, func(name string, v *fastjson.Value) {
					switch name {
					case "maxSkew":
						d.int32(v, "TopologySpreadConstraint.maxSkew", &t.MaxSkew)
					case "topologyKey":
						d.str(v, "TopologySpreadConstraint.topologyKey", &t.TopologyKey)
					case "whenUnsatisfiable":
						d.str(v, "TopologySpreadConstraint.whenUnsatisfiable", (*string)(&t.WhenUnsatisfiable))
					}
				})
			})
		case "containers":
			array(d, v, "PodSpec.containers", "[]v1.Container", &s.Containers, func(v *fastjson.Value, c *corev1.Container) {
				d.container(v, "PodSpec.containers", c)
			})
		case "initContainers":
			array(d, v, "PodSpec.initContainers", "[]v1.Container", &s.InitContainers, func(v *fastjson.Value, c *corev1.Container) {
				d.container(v, "PodSpec.initContainers", c)
			})
		}
	})
}

// container decodes one element of the array field.
func (d *podDecoder) container(v *fastjson.Value, field string, c *corev1.Container) {
	d.fields(v, field, "v1.Container", containerFields, func(name string, v *fastjson.Value) {
		switch name {
		case "name":
			d.str(v, "Container.name", &c.Name)
		case "command":
			d.stringList(v, "Container.command", &c.Command)
		case "args":
			d.stringList(v, "Container.args", &c.Args)
		case "env":
			array(d, v, "Container.env", "[]v1.EnvVar", &c.Env, func(v *fastjson.Value, e *corev1.EnvVar) {
				d.fields(v, "Container.env", "v1.EnvVar", envFields, func(name string, v *fastjson.Value) {
					switch name {
					case "name":
						d.str(v, "EnvVar.name", &e.Name)
					case "value":
						d.str(v, "EnvVar.value", &e.Value)
					case "valueFrom":
						// Only whether it is set matters to the facts.
						object(d, v, "EnvVar.valueFrom", "v1.EnvVarSource", &e.ValueFrom, func(*fastjson.Value, *corev1.EnvVarSource) {})
					}
				})
			})
		case "ports":
			array(d, v, "Container.ports", "[]v1.ContainerPort", &c.Ports, func(v *fastjson.Value, p *corev1.ContainerPort) {
				d.fields(v, "Container.ports", "v1.ContainerPort", portFields, func(name string, v *fastjson.Value) {
					switch name {
					case "name":
						d.str(v, "ContainerPort.name", &p.Name)
					case "containerPort":
						d.int32(v, "ContainerPort.containerPort", &p.ContainerPort)
					case "protocol":
						d.str(v, "ContainerPort.protocol", (*string)(&p.Protocol))
					}
				})
			})
		case "readinessProbe":
			object(d, v, "Container.readinessProbe", "v1.Probe", &c.ReadinessProbe, d.probe)
		case "livenessProbe":
			object(d, v, "Container.livenessProbe", "v1.Probe", &c.LivenessProbe, d.probe)
		case "startupProbe":
			object(d, v, "Container.startupProbe", "v1.Probe", &c.StartupProbe, d.probe)
		case "lifecycle":
			object(d, v, "Container.lifecycle", "v1.Lifecycle", &c.Lifecycle, func(v *fastjson.Value, l *corev1.Lifecycle) {
				d.fields(v, "Container.lifecycle", "v1.Lifecycle", lifecycleFields, func(_ string, v *fastjson.Value) {
					object(d, v, "Lifecycle.preStop", "v1.LifecycleHandler", &l.PreStop, d.handler)
				})
			})
		case "restartPolicy":
			if d.isNull(v) {
				c.RestartPolicy = nil
				return
			}
			var s string
			d.str(v, "Container.restartPolicy", &s)
			p := corev1.ContainerRestartPolicy(s)
			c.RestartPolicy = &p
		}
	})
}

// stringList decodes an array of strings.
func (d *podDecoder) stringList(v *fastjson.Value, field string, s *[]string) {
	array(d, v, field, "[]string", s, func(v *fastjson.Value, e *string) { d.str(v, field, e) })
}

// probe decodes a probe: its timings and its handler, inline in it.
func (d *podDecoder) probe(v *fastjson.Value, p *corev1.Probe) {
	d.fields(v, "Probe", "v1.Probe", probeFields, func(name string, v *fastjson.Value) {
		switch name {
		case "exec":
			d.exec(v, &p.Exec)
		case "httpGet":
			d.httpGet(v, &p.HTTPGet)
		case "tcpSocket":
			d.tcpSocket(v, &p.TCPSocket)
		case "grpc":
			object(d, v, "Probe.grpc", "v1.GRPCAction", &p.GRPC, func(v *fastjson.Value, g *corev1.GRPCAction) {
				d.fields(v, "Probe.grpc", "v1.GRPCAction", portOnlyFields, func(_ string, v *fastjson.Value) { d.int32(v, "GRPCAction.port", &g.Port) })
			})
		case "initialDelaySeconds":
			d.int32(v, "Probe.initialDelaySeconds", &p.InitialDelaySeconds)
		case "timeoutSeconds":
			d.int32(v, "Probe.timeoutSeconds", &p.TimeoutSeconds)
		case "periodSeconds":
			d.int32(v, "Probe.periodSeconds", &p.PeriodSeconds)
		case "successThreshold":
			d.int32(v, "Probe.successThreshold", &p.SuccessThreshold)
		case "failureThreshold":
			d.int32(v, "Probe.failureThreshold", &p.FailureThreshold)
		}
	})
}

// handler decodes a preStop hook.
func (d *podDecoder) handler(v *fastjson.Value, h *corev1.LifecycleHandler) {
	d.fields(v, "Lifecycle.preStop", "v1.LifecycleHandler", handlerFields, func(name string, v *fastjson.Value) {
		switch name {
		case "exec":
			d.exec(v, &h.Exec)
		case "httpGet":
			d.httpGet(v, &h.HTTPGet)
		case "tcpSocket":
			d.tcpSocket(v, &h.TCPSocket)
		case "sleep":
			object(d, v, "LifecycleHandler.sleep", "v1.SleepAction", &h.Sleep, func(v *fastjson.Value, s *corev1.SleepAction) {
				d.fields(v, "LifecycleHandler.sleep", "v1.SleepAction", sleepFields, func(_ string, v *fastjson.Value) {
					if n, ok := d.int64Value(v, "SleepAction.seconds", "int64", 64); ok {
						s.Seconds = n
					}
				})
			})
		}
	})
}

func (d *podDecoder) exec(v *fastjson.Value, p **corev1.ExecAction) {
	object(d, v, "exec", "v1.ExecAction", p, func(v *fastjson.Value, e *corev1.ExecAction) {
		d.fields(v, "exec", "v1.ExecAction", execFields, func(_ string, v *fastjson.Value) { d.stringList(v, "ExecAction.command", &e.Command) })
	})
}

func (d *podDecoder) httpGet(v *fastjson.Value, p **corev1.HTTPGetAction) {
	object(d, v, "httpGet", "v1.HTTPGetAction", p, func(v *fastjson.Value, h *corev1.HTTPGetAction) {
		d.fields(v, "httpGet", "v1.HTTPGetAction", httpGetFields, func(name string, v *fastjson.Value) {
			switch name {
			case "path":
				d.str(v, "HTTPGetAction.path", &h.Path)
			case "port":
				d.intOrString(v, "HTTPGetAction.port", &h.Port)
			case "scheme":
				d.str(v, "HTTPGetAction.scheme", (*string)(&h.Scheme))
			}
		})
	})
}

func (d *podDecoder) tcpSocket(v *fastjson.Value, p **corev1.TCPSocketAction) {
	object(d, v, "tcpSocket", "v1.TCPSocketAction", p, func(v *fastjson.Value, t *corev1.TCPSocketAction) {
		d.fields(v, "tcpSocket", "v1.TCPSocketAction", portOnlyFields, func(_ string, v *fastjson.Value) { d.intOrString(v, "TCPSocketAction.port", &t.Port) })
	})
}

func (d *podDecoder) status(v *fastjson.Value, s *corev1.PodStatus) {
	d.fields(v, "Pod.status", "v1.PodStatus", statusFields, func(name string, v *fastjson.Value) {
		switch name {
		case "phase":
			d.str(v, "PodStatus.phase", (*string)(&s.Phase))
		case "podIP":
			d.str(v, "PodStatus.podIP", &s.PodIP)
		case "startTime":
			d.timePtr(v, "PodStatus.startTime", &s.StartTime)
		case "conditions":
			array(d, v, "PodStatus.conditions", "[]v1.PodCondition", &s.Conditions, func(v *fastjson.Value, c *corev1.PodCondition) {
				d.fields(v, "PodStatus.conditions", "v1.PodCondition", conditionFields, func(name string, v *fastjson.Value) {
					switch name {
					case "type":
						d.str(v, "PodCondition.type", (*string)(&c.Type))
					case "status":
						d.str(v, "PodCondition.status", (*string)(&c.Status))
					case "reason":
						d.str(v, "PodCondition.reason", &c.Reason)
					case "message":
						d.str(v, "PodCondition.message", &c.Message)
					case "lastTransitionTime":
						d.time(v, "PodCondition.lastTransitionTime", &c.LastTransitionTime)
					}
				})
			})
		case "containerStatuses":
			array(d, v, "PodStatus.containerStatuses", "[]v1.ContainerStatus", &s.ContainerStatuses, d.containerStatus)
		case "initContainerStatuses":
			array(d, v, "PodStatus.initContainerStatuses", "[]v1.ContainerStatus", &s.InitContainerStatuses, d.containerStatus)
		}
	})
}

func (d *podDecoder) containerStatus(v *fastjson.Value, c *corev1.ContainerStatus) {
	d.fields(v, "PodStatus.containerStatuses", "v1.ContainerStatus", cStatusFields, func(name string, v *fastjson.Value) {
		switch name {
		case "name":
			d.str(v, "ContainerStatus.name", &c.Name)
		case "ready":
			d.boolean(v, "ContainerStatus.ready", &c.Ready)
		case "restartCount":
			d.int32(v, "ContainerStatus.restartCount", &c.RestartCount)
		case "state":
			d.fields(v, "ContainerStatus.state", "v1.ContainerState", stateFields, func(_ string, v *fastjson.Value) {
				object(d, v, "ContainerState.running", "v1.ContainerStateRunning", &c.State.Running, func(v *fastjson.Value, r *corev1.ContainerStateRunning) {
					d.fields(v, "ContainerState.running", "v1.ContainerStateRunning", runningFields, func(_ string, v *fastjson.Value) {
						d.time(v, "ContainerStateRunning.startedAt", &r.StartedAt)
					})
				})
			})
		}
	})
}

// specTable shares the facts of equal pod specs, and equal label sets,
// among the pods of a run: the pods of one template have both in common,
// and a List of 100 000 pods held as many copies of a few dozen. Two specs
// are equal when their facts encode to the same JSON, which covers every
// field they have.
type specTable struct {
	mu     sync.Mutex
	specs  map[string]*PodSpec
	labels map[string]map[string]string
}

// maxShared bounds the distinct specs, and label sets, a run remembers:
// the pods of a workload run one template, two during a rollout, so two
// thousand workloads fit. Past it, the pods of a new one keep their own
// copy.
const maxShared = 4096

func newSpecTable() *specTable {
	return &specTable{specs: map[string]*PodSpec{}, labels: map[string]map[string]string{}}
}

// share returns a spec equal to s seen earlier in the run, else s. The key
// is written in *buf, reused from pod to pod: a new one each time was a
// tenth of what reading a List allocated.
func (t *specTable) share(s *PodSpec, buf *[]byte) *PodSpec {
	if t == nil {
		return s
	}
	b := bytes.NewBuffer((*buf)[:0])
	err := json.NewEncoder(b).Encode(s)
	*buf = b.Bytes()
	if err != nil {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return remember(t.specs, *buf, s)
}

// shareLabels returns a label set equal to m seen earlier in the run, else
// m; its key is written in *buf, as share's.
func (t *specTable) shareLabels(m map[string]string, buf *[]byte) map[string]string {
	if t == nil || len(m) == 0 {
		return m
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	// Each string after its length: no two sets write the same key.
	key := (*buf)[:0]
	for _, k := range keys {
		for _, s := range [2]string{k, m[k]} {
			key = strconv.AppendInt(key, int64(len(s)), 10)
			key = append(append(key, ':'), s...)
		}
	}
	*buf = key
	t.mu.Lock()
	defer t.mu.Unlock()
	return remember(t.labels, key, m)
}

// remember returns the value kept under key, else keeps v there while the
// table holds fewer than maxShared values, and returns v.
func remember[V any](table map[string]V, key []byte, v V) V {
	if prev, ok := table[string(key)]; ok {
		return prev
	}
	if len(table) < maxShared {
		table[string(key)] = v
	}
	return v
}

package correlate

import (
	"math"
	"net/netip"
	"reflect"
	"slices"
	"time"

	"github.com/readygap/readygap/sources"
)

// A cluster's pod List holds every pod of every namespace, most of them of
// workloads the load balancer's logs never reach: a million pods held as
// their Config and status records (five or six Lifecycle records of about
// 300 bytes each) took about 2 KB each, and the analysis built a backend
// for each. A Collector holds a pod read from an object instead as a
// quietPod: its strings interned, its times packed, its status records
// reduced to their time, kind and an interned text (about 250 bytes with
// its name). At Merge, when every input has been read, the pods of the
// namespaces that something else in the inputs mentions are made whole
// again, exactly as they were read, and the others are set aside and
// counted (see Dataset.SetAside): nothing the analysis could tie a failure
// to names them. A namespace is mentioned by any other record or object in it
// (events, controller logs, workloads, Services, EndpointSlices; a
// Namespace object alone does not count), by a record naming one of its
// pods without a namespace, and by traffic to, or any record of, the IP
// of one of its pods. Pods read alone (a List and nothing else) are all set
// aside: no record the analysis could judge mentions them, and a million
// of them made whole would cost gigabytes to say that it cannot judge.

// quietPod is a pod and the records its status gave, held compactly (see
// above): quietPods.expand makes its Config and records again.
type quietPod struct {
	name   string
	labels map[string]string
	spec   *sources.PodSpec
	grace  *int
	ip     netip.Addr
	// created, started and deleted are packed times (see packTime).
	created, started, deleted int64
	// ns, file, node, phase, rs, hash and format are interned strings
	// (see quietPods.id).
	ns, file, node, phase, rs, hash, format uint32
	line                                    uint32
	// first and n are the pod's events in quietPods.events.
	first uint32
	n     uint16
	// cseq is how many of the Collector's configs came before the pod,
	// so that Merge puts its Config back in its place.
	cseq uint32
}

// quietEvent is a status record of a quiet pod: what it has beyond what
// all the pod's records share.
type quietEvent struct {
	at   int64
	text uint32 // its Status, Reason, Message and Group (see quietPods.texts)
	kind sources.LifecycleKind
	gate sources.GateState
}

// eventText is what a pod's status records say in words.
type eventText struct {
	status, reason, message, group string
}

// quietChunkSize is how many pods, or events, one chunk holds: growing
// never copies what is held.
const quietChunkSize = 4096

// quietPods are the quiet pods of one Collector.
type quietPods struct {
	pods   [][]quietPod
	events [][]quietEvent
	// nPods and nEvents count what the chunks hold.
	nPods, nEvents int
	// strs and ids intern strings, texts and textIDs event texts; the id 0
	// is the empty string.
	strs    []string
	ids     map[string]uint32
	texts   []eventText
	textIDs map[eventText]uint32
	// open is the pod whose status records may follow (the last one
	// added), nil when none may.
	open *quietPod
}

// noTime packs the zero time.
const noTime = math.MinInt64

// packTime packs t as nanoseconds since 1970, UTC; ok is false when that
// would not give t back exactly (another location, a time out of range).
func packTime(t time.Time) (int64, bool) {
	if t == (time.Time{}) {
		return noTime, true
	}
	n := t.UnixNano()
	return n, n != noTime && unpackTime(n) == t
}

// unpackTime is the time packTime packed.
func unpackTime(n int64) time.Time {
	if n == noTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// id interns s.
func (q *quietPods) id(s string) uint32 {
	if s == "" {
		return 0
	}
	if id, ok := q.ids[s]; ok {
		return id
	}
	if q.ids == nil {
		q.ids = map[string]uint32{}
		q.strs = []string{""}
	}
	id := uint32(len(q.strs))
	q.strs = append(q.strs, s)
	q.ids[s] = id
	return id
}

// textID interns an event text.
func (q *quietPods) textID(t eventText) uint32 {
	if id, ok := q.textIDs[t]; ok {
		return id
	}
	if q.textIDs == nil {
		q.textIDs = map[eventText]uint32{}
	}
	id := uint32(len(q.texts))
	q.texts = append(q.texts, t)
	q.textIDs[t] = id
	return id
}

// maxQuiet bounds the pods, and events, of one Collector that ids can
// number.
const maxQuiet = math.MaxUint32

// add holds the Pod x as a quiet pod, configs being how many Configs the
// Collector kept before it; false when x is not a Pod or holds anything
// its quietPod would not give back. The Config's conditions and container
// states are not kept: its status records tell them (see
// Collector.Config).
func (q *quietPods) add(x *sources.Config, configs int) bool {
	q.open = nil
	if x.Kind != "Pod" || x.Pod == nil || q.nPods >= maxQuiet || configs > maxQuiet || x.Origin.Line < 0 || x.Origin.Line > math.MaxUint32 {
		return false
	}
	// Whatever the Config or its status hold beyond what a quietPod
	// keeps (a field added later included) keeps the pod whole.
	rest := *x
	rest.Kind, rest.Namespace, rest.Name, rest.Format, rest.Origin, rest.Created = "", "", "", "", sources.Origin{}, time.Time{}
	rest.Labels, rest.PodSpec, rest.Pod = nil, nil, nil
	st := *x.Pod
	st.IP, st.Node, st.Phase, st.ReplicaSet, st.PodTemplateHash = netip.Addr{}, "", "", "", ""
	st.Started, st.Deleted, st.DeletionGracePeriodSec, st.Conditions, st.Containers = time.Time{}, time.Time{}, nil, nil, nil
	if !reflect.ValueOf(rest).IsZero() || !reflect.ValueOf(st).IsZero() {
		return false
	}
	created, ok1 := packTime(x.Created)
	started, ok2 := packTime(x.Pod.Started)
	deleted, ok3 := packTime(x.Pod.Deleted)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	if k := len(q.pods); k == 0 || len(q.pods[k-1]) == quietChunkSize {
		q.pods = append(q.pods, make([]quietPod, 0, quietChunkSize))
	}
	k := len(q.pods) - 1
	q.pods[k] = append(q.pods[k], quietPod{
		name: x.Name, labels: x.Labels, spec: x.PodSpec, grace: x.Pod.DeletionGracePeriodSec, ip: x.Pod.IP,
		created: created, started: started, deleted: deleted,
		ns: q.id(x.Namespace), file: q.id(x.Origin.File), node: q.id(x.Pod.Node), phase: q.id(x.Pod.Phase),
		rs: q.id(x.Pod.ReplicaSet), hash: q.id(x.Pod.PodTemplateHash), format: q.id(string(x.Format)),
		line: uint32(x.Origin.Line), first: uint32(q.nEvents), cseq: uint32(configs),
	})
	q.nPods++
	q.open = &q.pods[k][len(q.pods[k])-1]
	return true
}

// event holds l as a status record of the pod added last, when it is one
// and holds nothing its quietEvent would not give back; false otherwise,
// and no later record is then taken for one of that pod's.
func (q *quietPods) event(l *sources.Lifecycle) bool {
	p := q.open
	if p == nil {
		return false
	}
	at, ok := packTime(l.Time)
	if !ok || p.n == math.MaxUint16 || q.nEvents >= maxQuiet || !q.ofPod(p, l) {
		q.open = nil
		return false
	}
	rest := *l
	rest.Time, rest.Kind, rest.Namespace, rest.Pod, rest.IP, rest.Node, rest.Object = time.Time{}, 0, "", "", netip.Addr{}, "", ""
	rest.Status, rest.Reason, rest.Message, rest.Group, rest.Gate = "", "", "", "", 0
	rest.From, rest.FromAPI, rest.Format, rest.Origin = 0, false, "", sources.Origin{}
	if !reflect.ValueOf(rest).IsZero() {
		q.open = nil
		return false
	}
	if k := len(q.events); k == 0 || len(q.events[k-1]) == quietChunkSize {
		q.events = append(q.events, make([]quietEvent, 0, quietChunkSize))
	}
	k := len(q.events) - 1
	q.events[k] = append(q.events[k], quietEvent{
		at: at, kind: l.Kind, gate: l.Gate,
		text: q.textID(eventText{status: l.Status, reason: l.Reason, message: l.Message, group: l.Group}),
	})
	q.nEvents++
	p.n++
	return true
}

// ofPod reports whether l has what every status record of p has: its
// namespace, name, address, node, object, origin and format, from the
// API, with no replica count before it.
func (q *quietPods) ofPod(p *quietPod, l *sources.Lifecycle) bool {
	const prefix = "Pod/"
	return l.FromAPI && l.From == -1 && l.Pod == p.name && l.IP == p.ip &&
		len(l.Object) == len(prefix)+len(p.name) && l.Object[:len(prefix)] == prefix && l.Object[len(prefix):] == p.name &&
		l.Namespace == q.strs[p.ns] && l.Node == q.strs[p.node] && string(l.Format) == q.strs[p.format] &&
		l.Origin.File == q.strs[p.file] && l.Origin.Line == int(p.line)
}

// each calls f with every quiet pod, in the order they were added, and
// its index.
func (q *quietPods) each(f func(i int, p *quietPod)) {
	i := 0
	for _, ch := range q.pods {
		for j := range ch {
			f(i, &ch[j])
			i++
		}
	}
}

// eventAt returns the i-th event held.
func (q *quietPods) eventAt(i int) *quietEvent {
	return &q.events[i/quietChunkSize][i%quietChunkSize]
}

// config makes p's Config again, as Collector.Config would have kept it.
func (q *quietPods) config(p *quietPod) *sources.Config {
	return &sources.Config{
		Kind: "Pod", Namespace: q.strs[p.ns], Name: p.name, Format: sources.Format(q.strs[p.format]),
		Origin: sources.Origin{File: q.strs[p.file], Line: int(p.line)}, Created: unpackTime(p.created),
		Labels: p.labels, PodSpec: p.spec,
		Pod: &sources.PodStatus{
			IP: p.ip, Node: q.strs[p.node], Phase: q.strs[p.phase], ReplicaSet: q.strs[p.rs], PodTemplateHash: q.strs[p.hash],
			Started: unpackTime(p.started), Deleted: unpackTime(p.deleted), DeletionGracePeriodSec: p.grace,
		},
	}
}

// appendEvents appends p's status records, made again, to dst.
func (q *quietPods) appendEvents(dst []sources.Lifecycle, p *quietPod) []sources.Lifecycle {
	if p.n == 0 {
		return dst
	}
	base := sources.Lifecycle{
		Namespace: q.strs[p.ns], Pod: p.name, IP: p.ip, Node: q.strs[p.node], Object: "Pod/" + p.name,
		From: -1, FromAPI: true, Format: sources.Format(q.strs[p.format]),
		Origin: sources.Origin{File: q.strs[p.file], Line: int(p.line)},
	}
	for i := range int(p.n) {
		e := q.eventAt(int(p.first) + i)
		l := base
		t := &q.texts[e.text]
		l.Time, l.Kind, l.Gate = unpackTime(e.at), e.kind, e.gate
		l.Status, l.Reason, l.Message, l.Group = t.status, t.reason, t.message, t.group
		dst = append(dst, l)
	}
	return dst
}

// SetAside counts the pods Merge set aside (see above).
type SetAside struct {
	// Pods is how many pods were set aside, Events how many status
	// records they gave.
	Pods, Events int
	// Namespaces names their namespaces, sorted.
	Namespaces []string
}

// mentions is what the records and objects other than quiet pods mention
// (see above).
type mentions struct {
	namespaces map[string]bool
	ips        map[netip.Addr]bool
	// pods are the pods records name without a namespace.
	pods map[string]bool
	// traffic is the traffic Merge had folded before it.
	traffic map[netip.Addr]*Traffic
}

// mentionsOf gathers what the collectors' records and objects, and the
// traffic folded from them, mention.
func mentionsOf(cs []*Collector, traffic map[netip.Addr]*Traffic) *mentions {
	m := &mentions{namespaces: map[string]bool{}, ips: map[netip.Addr]bool{}, pods: map[string]bool{}, traffic: traffic}
	for _, c := range cs {
		for _, ch := range c.lifecycle.chunks {
			for i := range ch {
				l := &ch[i]
				switch {
				case l.Namespace != "":
					m.namespaces[l.Namespace] = true
				case l.Pod != "":
					m.pods[l.Pod] = true
				}
				if l.IP.IsValid() {
					m.ips[l.IP] = true
				}
			}
		}
		for _, x := range c.configs {
			if x.Kind != "Namespace" && x.Namespace != "" {
				m.namespaces[x.Namespace] = true
			}
		}
		for ip := range c.traffic {
			m.ips[ip] = true
		}
		for id := range c.failures {
			m.ips[id.key.Backend.Addr()] = true
			for _, a := range id.key.Attempts {
				m.ips[a.Backend.Addr()] = true
			}
		}
	}
	return m
}

// mentioned reports whether something mentions p, of namespace ns, by its
// namespace, name or address.
func (m *mentions) mentioned(p *quietPod, ns string) bool {
	if ns == "" || m.namespaces[ns] || m.pods[p.name] {
		return true
	}
	return p.ip.IsValid() && (m.ips[p.ip] || m.traffic[p.ip] != nil)
}

// quietPlan is which quiet pods of each collector Merge makes whole.
type quietPlan struct {
	// whole marks, per collector, the pods made whole; nil when all are.
	whole [][]bool
	// pods and events count the pods made whole and their records.
	pods, events int
	aside        SetAside
}

// planQuiet decides which quiet pods to make whole: those of the
// namespaces something mentions.
func planQuiet(cs []*Collector, traffic map[netip.Addr]*Traffic) *quietPlan {
	plan := &quietPlan{whole: make([][]bool, len(cs))}
	held := false
	for _, c := range cs {
		held = held || c.quiet.nPods > 0
	}
	if !held {
		return plan
	}
	m := mentionsOf(cs, traffic)
	kept := map[string]bool{}
	for _, c := range cs {
		c.quiet.each(func(_ int, p *quietPod) {
			if ns := c.quiet.strs[p.ns]; !kept[ns] && m.mentioned(p, ns) {
				kept[ns] = true
			}
		})
	}
	aside := map[string]bool{}
	for k, c := range cs {
		if c.quiet.nPods == 0 {
			continue
		}
		plan.whole[k] = make([]bool, c.quiet.nPods)
		c.quiet.each(func(i int, p *quietPod) {
			ns := c.quiet.strs[p.ns]
			if kept[ns] {
				plan.whole[k][i] = true
				plan.pods++
				plan.events += int(p.n)
				return
			}
			plan.aside.Pods++
			plan.aside.Events += int(p.n)
			aside[ns] = true
		})
	}
	for ns := range aside {
		plan.aside.Namespaces = append(plan.aside.Namespaces, ns)
	}
	slices.Sort(plan.aside.Namespaces)
	return plan
}

// appendEvents appends the records of collector k's pods made whole
// to dst.
func (plan *quietPlan) appendEvents(dst []sources.Lifecycle, k int, c *Collector) []sources.Lifecycle {
	if plan.whole[k] == nil {
		return dst
	}
	c.quiet.each(func(i int, p *quietPod) {
		if plan.whole[k][i] {
			dst = c.quiet.appendEvents(dst, p)
		}
	})
	return dst
}

// appendConfigs appends collector k's configs to dst, those of its pods
// made whole in the places they came in.
func (plan *quietPlan) appendConfigs(dst []*sources.Config, k int, c *Collector) []*sources.Config {
	if plan.whole[k] == nil {
		return append(dst, c.configs...)
	}
	next := 0
	c.quiet.each(func(i int, p *quietPod) {
		if !plan.whole[k][i] {
			return
		}
		at := int(p.cseq)
		dst = append(dst, c.configs[next:at]...)
		next = at
		dst = append(dst, c.quiet.config(p))
	})
	return append(dst, c.configs[next:]...)
}

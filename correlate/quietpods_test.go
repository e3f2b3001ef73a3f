package correlate

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/readygap/readygap/internal/podlist"
	"github.com/readygap/readygap/sources"
)

// wholeRecorder keeps every Config and Lifecycle as a Collector kept them
// before pods were held compactly: the reference quietPods must give back.
type wholeRecorder struct {
	configs   []*sources.Config
	lifecycle []sources.Lifecycle
}

func (w *wholeRecorder) Request(*sources.Request) {}

func (w *wholeRecorder) Lifecycle(l *sources.Lifecycle) { w.lifecycle = append(w.lifecycle, *l) }

func (w *wholeRecorder) Config(x *sources.Config) {
	cp := *x
	if x.Pod != nil {
		st := *x.Pod
		st.Conditions, st.Containers = nil, nil
		cp.Pod = &st
	}
	w.configs = append(w.configs, &cp)
}

// sorted returns what the recorders kept in the order Merge sorts it.
func sorted(ws []*wholeRecorder) ([]*sources.Config, []sources.Lifecycle) {
	var cs []*sources.Config
	var ls []sources.Lifecycle
	for _, w := range ws {
		cs, ls = append(cs, w.configs...), append(ls, w.lifecycle...)
	}
	sort.SliceStable(ls, func(i, j int) bool { return compareLifecycle(&ls[i], &ls[j]) < 0 })
	slices.SortStableFunc(cs, func(x, y *sources.Config) int { return compareOrigins(x.Origin, y.Origin) })
	return cs, ls
}

// readBoth reads paths (stdin from stdin) into a set of Collectors and
// into wholeRecorders, and returns the merged Dataset and the reference.
func readBoth(t *testing.T, paths []string, stdin []byte) (*Dataset, []*sources.Config, []sources.Lifecycle) {
	t.Helper()
	cs := NewCollectors()
	var ws []*wholeRecorder
	o := sources.Options{Stdin: bytes.NewReader(stdin)}
	if _, err := sources.Read(context.Background(), paths, o, func(*sources.InputReport) sources.Handler { return cs.New() }); err != nil {
		t.Fatal(err)
	}
	o.Stdin = bytes.NewReader(stdin)
	var mu sync.Mutex
	if _, err := sources.Read(context.Background(), paths, o, func(*sources.InputReport) sources.Handler {
		mu.Lock()
		defer mu.Unlock()
		w := &wholeRecorder{}
		ws = append(ws, w)
		return w
	}); err != nil {
		t.Fatal(err)
	}
	wc, wl := sorted(ws)
	return cs.Merge(), wc, wl
}

// sameAsWhole requires d to hold exactly the configs and records kept
// whole.
func sameAsWhole(t *testing.T, d *Dataset, wc []*sources.Config, wl []sources.Lifecycle) {
	t.Helper()
	if len(d.Configs) != len(wc) || len(d.Lifecycle) != len(wl) {
		t.Fatalf("%d configs and %d records; kept whole %d and %d", len(d.Configs), len(d.Lifecycle), len(wc), len(wl))
	}
	for i := range wc {
		if !reflect.DeepEqual(d.Configs[i], wc[i]) || !reflect.DeepEqual(d.Configs[i].Pod, wc[i].Pod) {
			t.Fatalf("config %d:\n%+v %+v\nkept whole:\n%+v %+v", i, d.Configs[i], d.Configs[i].Pod, wc[i], wc[i].Pod)
		}
	}
	for i := range wl {
		if !reflect.DeepEqual(d.Lifecycle[i], wl[i]) {
			t.Fatalf("record %d:\n%+v\nkept whole:\n%+v", i, d.Lifecycle[i], wl[i])
		}
	}
}

// TestQuietPodsGiveBackWhatWasRead reads every fixture, and a List of
// pods as kubectl prints it, and requires the pods made whole at Merge to
// be exactly the Configs and status records read, in the same order, with
// none set aside (each fixture's pods are of namespaces its other inputs
// mention; a List alone mentions no namespace).
func TestQuietPodsGiveBackWhatWasRead(t *testing.T) {
	expected, err := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	if err != nil || len(expected) == 0 {
		t.Fatal("no fixture", err)
	}
	pods := 0
	for _, e := range expected {
		dir := filepath.Dir(e)
		d, wc, wl := readBoth(t, []string{dir}, nil)
		if d.SetAside.Pods != 0 {
			t.Errorf("%s: %+v set aside", dir, d.SetAside)
		}
		sameAsWhole(t, d, wc, wl)
		for _, c := range wc {
			if c.Kind == "Pod" {
				pods++
			}
		}
	}
	if pods < 100 {
		t.Errorf("the fixtures hold %d pods; the test needs them", pods)
	}
	var list bytes.Buffer
	if err := podlist.Write(&list, podlist.Options{Pods: 300, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if d, _, _ := readBoth(t, []string{"-"}, list.Bytes()); d.SetAside.Pods != 300 || len(d.Configs) != 0 {
		t.Fatalf("the List alone: %+v set aside, %d configs kept; want all set aside", d.SetAside, len(d.Configs))
	}
	// Beside an event in each of its namespaces, every pod is made whole.
	events := filepath.Join(t.TempDir(), "events.json")
	var items []string
	for i := range 40 {
		ns := fmt.Sprintf("%s%d", podlist.Namespace, i)
		items = append(items, fmt.Sprintf(`{"metadata":{"name":"e%d","namespace":%q},"involvedObject":{"kind":"Deployment","namespace":%q,"name":"web"},"reason":"ScalingReplicaSet","message":"Scaled up replica set web-1 to 1","type":"Normal","firstTimestamp":"2026-03-10T12:00:00Z","lastTimestamp":"2026-03-10T12:00:00Z","count":1}`, i, ns, ns))
	}
	if err := os.WriteFile(events, []byte(`{"apiVersion":"v1","kind":"EventList","items":[`+strings.Join(items, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, wc, wl := readBoth(t, []string{"-", events}, list.Bytes())
	if d.SetAside.Pods != 0 || len(wc) != 300 {
		t.Fatalf("%+v set aside, %d configs", d.SetAside, len(wc))
	}
	sameAsWhole(t, d, wc, wl)
}

// quietAt is a time of the synthetic pods.
var quietAt = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// quietPodConfig is a Pod's Config as the objects adapter reports it.
func quietPodConfig(ns, name, ip string, line int) *sources.Config {
	var addr netip.Addr
	if ip != "" {
		addr = netip.MustParseAddr(ip)
	}
	grace := 20
	return &sources.Config{
		Kind: "Pod", Namespace: ns, Name: name, Format: sources.FormatK8sObjects,
		Origin: sources.Origin{File: "pods.json", Line: line}, Created: quietAt,
		Labels: map[string]string{"app": "web"}, PodSpec: &sources.PodSpec{TerminationGracePeriodSec: 30},
		Pod: &sources.PodStatus{
			IP: addr, Node: "node-1", Phase: "Running", ReplicaSet: "web-1", PodTemplateHash: "1",
			Started: quietAt.Add(time.Second), Deleted: quietAt.Add(time.Minute), DeletionGracePeriodSec: &grace,
			Conditions: []sources.PodCondition{{Type: "Ready", Status: "True", LastTransition: quietAt.Add(9 * time.Second)}},
		},
	}
}

// statusRecord is a status record of the pod of c, as the objects adapter
// reports it.
func statusRecord(c *sources.Config, kind sources.LifecycleKind, after time.Duration) *sources.Lifecycle {
	return &sources.Lifecycle{
		Time: c.Created.Add(after), Kind: kind, Namespace: c.Namespace, Pod: c.Name, IP: c.Pod.IP, Node: c.Pod.Node,
		Object: "Pod/" + c.Name, From: -1, FromAPI: true, Format: c.Format, Origin: c.Origin,
		Status: "True", Reason: "r", Message: "m", Group: "g", Gate: sources.GateLBHealthy,
	}
}

// feed gives records to a Collector and to a wholeRecorder alike.
type feed struct {
	c *Collector
	w *wholeRecorder
}

func (f feed) config(x *sources.Config) {
	f.c.Config(x)
	f.w.Config(x)
}

func (f feed) lifecycle(l *sources.Lifecycle) {
	f.c.Lifecycle(l)
	f.w.Lifecycle(l)
}

// TestQuietPodsKeepWholeWhatTheyCannotHold gives a Collector pods and
// records that a quietPod cannot give back exactly, and requires them kept
// whole, the rest held compactly, and everything back as read at Merge.
func TestQuietPodsKeepWholeWhatTheyCannotHold(t *testing.T) {
	f := feed{NewCollector(), &wholeRecorder{}}
	// Held: the pod and its two records.
	a := quietPodConfig("shop", "a", "10.0.0.1", 1)
	f.config(a)
	f.lifecycle(statusRecord(a, sources.PodCreated, 0))
	f.lifecycle(statusRecord(a, sources.PodReady, 9*time.Second))
	// A creation time in another zone: kept whole, and so its records.
	b := quietPodConfig("shop", "b", "10.0.0.2", 2)
	b.Created = b.Created.In(time.FixedZone("X", 3600))
	f.config(b)
	f.lifecycle(statusRecord(b, sources.PodCreated, 0))
	// A field a pod's Config does not have: kept whole.
	c := quietPodConfig("shop", "c", "10.0.0.3", 3)
	c.Service = &sources.Service{Type: "ClusterIP"}
	f.config(c)
	// Held, but its second record has a zone: that record and the next
	// are kept whole.
	d := quietPodConfig("shop", "d", "10.0.0.4", 4)
	f.config(d)
	f.lifecycle(statusRecord(d, sources.PodCreated, 0))
	zoned := statusRecord(d, sources.PodScheduled, time.Second)
	zoned.Zone = "eu-west-1a"
	f.lifecycle(zoned)
	f.lifecycle(statusRecord(d, sources.PodReady, 9*time.Second))
	// A record of another pod after e's Config is not e's.
	e := quietPodConfig("shop", "e", "10.0.0.5", 5)
	f.config(e)
	f.lifecycle(statusRecord(a, sources.PodNotReady, 20*time.Second))
	// An event in the namespace, from elsewhere.
	f.lifecycle(&sources.Lifecycle{Time: quietAt, Kind: sources.Killing, Namespace: "shop", Pod: "a", From: -1, FromAPI: true,
		Format: sources.FormatK8sEvents, Origin: sources.Origin{File: "events.json", Line: 7}})

	if got := f.c.quiet.nPods; got != 3 {
		t.Errorf("%d pods held compactly; want 3 (a, d, e)", got)
	}
	if got := f.c.quiet.nEvents; got != 3 {
		t.Errorf("%d records held compactly; want 3 (a's two, d's first)", got)
	}
	if got := len(f.c.configs); got != 2 {
		t.Errorf("%d configs kept whole; want 2 (b, c)", got)
	}
	wc, wl := sorted([]*wholeRecorder{f.w})
	sameAsWhole(t, Merge(f.c), wc, wl)
}

// TestQuietPodsSetAside requires the pods of the namespaces nothing else
// mentions set aside and counted, and those that anything mentions — by
// namespace, pod name, address in a record, traffic or a failed attempt —
// made whole, and the pods without a namespace always.
func TestQuietPodsSetAside(t *testing.T) {
	c := NewCollector()
	line := 0
	pod := func(ns, name, ip string) {
		line++
		x := quietPodConfig(ns, name, ip, line)
		c.Config(x)
		c.Lifecycle(statusRecord(x, sources.PodCreated, 0))
	}
	pod("shop", "shop-1", "10.0.0.1")
	pod("pay", "pay-1", "10.0.1.1")
	pod("named", "named-1", "10.0.2.1")
	pod("byip", "byip-1", "10.0.3.1")
	pod("attempt", "attempt-1", "10.0.4.1")
	pod("quiet", "quiet-1", "10.0.5.1")
	pod("quiet", "quiet-2", "10.0.5.2")
	pod("nsonly", "nsonly-1", "10.0.6.1")
	pod("", "bare-1", "10.0.7.1")
	// An event in shop.
	c.Lifecycle(&sources.Lifecycle{Time: quietAt, Kind: sources.Killing, Namespace: "shop", Pod: "shop-9", From: -1, FromAPI: true,
		Format: sources.FormatK8sEvents, Origin: sources.Origin{File: "events.json", Line: 1}})
	// A record naming named-1 without a namespace.
	c.Lifecycle(&sources.Lifecycle{Time: quietAt, Kind: sources.ProbeFailed, Pod: "named-1", From: -1,
		Format: sources.FormatK8sEvents, Origin: sources.Origin{File: "describe.txt", Line: 1}})
	// A controller log line registering byip-1's address.
	c.Lifecycle(&sources.Lifecycle{Time: quietAt, Kind: sources.TargetRegistering, IP: netip.MustParseAddr("10.0.3.1"), Port: 8080, From: -1,
		Format: sources.FormatAWSLBC, Origin: sources.Origin{File: "lbc.log", Line: 1}})
	// A Namespace object alone.
	c.Config(&sources.Config{Kind: "Namespace", Name: "nsonly", Format: sources.FormatK8sObjects, Origin: sources.Origin{File: "ns.json", Line: 1}})
	// Traffic served by pay-1, and a request whose failed attempt went to
	// attempt-1 before a retry at pay-1 succeeded.
	c.Request(&sources.Request{Time: quietAt, LB: "lb", Status: 200, Generator: sources.GeneratedByBackend,
		Backend: netip.MustParseAddrPort("10.0.1.1:8080"), Format: sources.FormatEnvoyJSON, Origin: sources.Origin{File: "envoy.log", Line: 1}})
	c.Request(&sources.Request{Time: quietAt, LB: "lb", Status: 200, Generator: sources.GeneratedByBackend,
		Backend: netip.MustParseAddrPort("10.0.1.1:8080"),
		Attempts: []sources.Attempt{
			{Backend: netip.MustParseAddrPort("10.0.4.1:8080"), Status: 503, Failure: sources.FailureRefused},
			{Backend: netip.MustParseAddrPort("10.0.1.1:8080"), Status: 200},
		},
		Format: sources.FormatEnvoyJSON, Origin: sources.Origin{File: "envoy.log", Line: 2}})

	d := Merge(c)
	want := SetAside{Pods: 3, Events: 3, Namespaces: []string{"nsonly", "quiet"}}
	if !reflect.DeepEqual(d.SetAside, want) {
		t.Errorf("set aside %+v; want %+v", d.SetAside, want)
	}
	var whole []string
	for _, x := range d.Configs {
		if x.Kind == "Pod" {
			whole = append(whole, x.Name)
		}
	}
	slices.Sort(whole)
	if w := []string{"attempt-1", "bare-1", "byip-1", "named-1", "pay-1", "shop-1"}; !slices.Equal(whole, w) {
		t.Errorf("pods made whole %v; want %v", whole, w)
	}
	for _, l := range d.Lifecycle {
		if l.Namespace == "quiet" || l.Namespace == "nsonly" {
			t.Errorf("a record of a pod set aside is left: %+v", l)
		}
	}

	// Nothing but pods and a Namespace object: nothing the analysis could
	// judge mentions them, and all are set aside.
	c = NewCollector()
	line = 0
	pod("quiet", "quiet-1", "10.0.5.1")
	pod("other", "other-1", "10.0.6.1")
	c.Config(&sources.Config{Kind: "Namespace", Name: "quiet", Format: sources.FormatK8sObjects, Origin: sources.Origin{File: "ns.json", Line: 1}})
	if d := Merge(c); d.SetAside.Pods != 2 || len(d.Configs) != 1 || len(d.Lifecycle) != 0 {
		t.Errorf("with nothing mentioning a namespace, %+v set aside, %d configs and %d records kept", d.SetAside, len(d.Configs), len(d.Lifecycle))
	}
}

// TestQuietPodSize pins what a pod held compactly costs beside its name
// and labels' share: a quietPod and its status records (five or six for
// a running pod), against about 2 KB as a Config and Lifecycle records.
func TestQuietPodSize(t *testing.T) {
	if n := unsafe.Sizeof(quietPod{}); n > 136 {
		t.Errorf("a quietPod takes %d bytes; want at most 136", n)
	}
	if n := unsafe.Sizeof(quietEvent{}); n > 16 {
		t.Errorf("a quietEvent takes %d bytes; want at most 16", n)
	}
}

package sources

import (
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The two constructed core/v1 Event items of nginx-k8s.md §3.3, verbatim.
const (
	docEventUnhealthy = `
{"apiVersion":"v1","kind":"Event","metadata":{"name":"web-6b7f9c9d5d-x2k4q.17a6f2c1b3e4d5f6","namespace":"shop","uid":"...","resourceVersion":"123","creationTimestamp":"2024-01-02T03:04:05Z"},
 "involvedObject":{"kind":"Pod","namespace":"shop","name":"web-6b7f9c9d5d-x2k4q","uid":"...","apiVersion":"v1","resourceVersion":"456","fieldPath":"spec.containers{web}"},
 "reason":"Unhealthy","message":"Readiness probe failed: Get \"http://10.244.2.31:8081/healthz\": dial tcp 10.244.2.31:8081: connect: connection refused",
 "source":{"component":"kubelet","host":"node-a"},"firstTimestamp":"2024-01-02T03:04:05Z","lastTimestamp":"2024-01-02T03:04:15Z","count":3,
 "type":"Warning","eventTime":null,"reportingComponent":"kubelet","reportingInstance":"node-a"}
`
	docEventScheduled = `
{"apiVersion":"v1","kind":"Event","metadata":{"name":"web-6b7f9c9d5d-x2k4q.17a6f2c0a1b2c3d4","namespace":"shop","creationTimestamp":"2024-01-02T03:04:01Z"},
 "involvedObject":{"kind":"Pod","namespace":"shop","name":"web-6b7f9c9d5d-x2k4q","uid":"...","apiVersion":"v1","resourceVersion":"440"},
 "reason":"Scheduled","message":"Successfully assigned shop/web-6b7f9c9d5d-x2k4q to node-a","source":{},
 "firstTimestamp":null,"lastTimestamp":null,"type":"Normal","eventTime":"2024-01-02T03:04:01.512345Z",
 "action":"Binding","reportingComponent":"default-scheduler","reportingInstance":"default-scheduler-cp-1"}
`
)

// TestK8sEventsDocItems runs the constructed JSON items of nginx-k8s.md §3.3
// through the adapter.
func TestK8sEventsDocItems(t *testing.T) {
	c, rep := runJSON(t, k8sEvents{}, "events.json", docEventUnhealthy)
	if rep.Records != 1 || rep.Skipped != 0 {
		t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
	}
	l := c.lifecycle[0]
	if l.Kind != ProbeFailed || l.Reason != "Readiness" || l.Pod != "web-6b7f9c9d5d-x2k4q" || l.Namespace != "shop" ||
		l.IP != netip.MustParseAddr("10.244.2.31") || l.Port != 8081 || l.Node != "node-a" || l.Source != "kubelet" ||
		l.Count != 3 || l.Object != "Pod/web-6b7f9c9d5d-x2k4q" || l.Format != FormatK8sEvents {
		t.Errorf("unhealthy: %+v", l)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 15, 0, time.UTC); !l.Time.Equal(want) {
		t.Errorf("unhealthy time = %v, want %v", l.Time, want)
	}

	c, rep = runJSON(t, k8sEvents{}, "events.json", docEventScheduled)
	if rep.Records != 1 || rep.Skipped != 0 {
		t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
	}
	l = c.lifecycle[0]
	if l.Kind != PodScheduled || l.Pod != "web-6b7f9c9d5d-x2k4q" || l.Namespace != "shop" || l.Node != "node-a" ||
		l.Source != "default-scheduler" || l.Count != 0 || l.From != -1 {
		t.Errorf("scheduled: %+v", l)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 1, 512345000, time.UTC); !l.Time.Equal(want) {
		t.Errorf("scheduled time = %v, want %v", l.Time, want)
	}
}

// TestK8sEventsEventsV1 reads events.k8s.io/v1 Events: one from the new
// recorder (regarding, note, series, reportingController only) and one from
// the legacy recorder read through the new API (deprecated* fields).
func TestK8sEventsEventsV1(t *testing.T) {
	const newRecorder = `{"apiVersion":"events.k8s.io/v1","kind":"Event",
 "metadata":{"name":"web-7d9f-abc.17a6f2c0a1b2c3d4","namespace":"shop","creationTimestamp":"2024-01-02T03:04:01Z"},
 "eventTime":"2024-01-02T03:04:01.512345Z","series":{"count":4,"lastObservedTime":"2024-01-02T03:05:30.250000Z"},
 "reportingController":"kubelet","reportingInstance":"node-b","action":"Probing","reason":"Unhealthy",
 "regarding":{"kind":"Pod","namespace":"shop","name":"web-7d9f-abc","fieldPath":"spec.containers{web}"},
 "note":"Readiness probe failed: Get \"http://10.8.0.7:9090/ready\": dial tcp 10.8.0.7:9090: connect: connection refused",
 "type":"Warning"}`
	c, rep := runJSON(t, k8sEvents{}, "ev.json", newRecorder)
	if rep.Records != 1 || rep.Skipped != 0 {
		t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
	}
	l := c.lifecycle[0]
	if l.Kind != ProbeFailed || l.Reason != "Readiness" || l.Pod != "web-7d9f-abc" || l.Namespace != "shop" ||
		l.IP != netip.MustParseAddr("10.8.0.7") || l.Port != 9090 || l.Source != "kubelet" || l.Node != "node-b" ||
		l.Count != 4 || !strings.HasPrefix(l.Message, "Readiness probe failed: ") {
		t.Errorf("new recorder: %+v", l)
	}
	if want := time.Date(2024, 1, 2, 3, 5, 30, 250000000, time.UTC); !l.Time.Equal(want) {
		t.Errorf("new recorder time = %v, want %v", l.Time, want)
	}

	const legacy = `{"apiVersion":"events.k8s.io/v1","kind":"Event",
 "metadata":{"name":"web.17cb4a2f9d3e5a10","namespace":"default","creationTimestamp":"2024-05-01T12:00:03Z"},
 "eventTime":null,"reportingController":"neg-controller","reportingInstance":"","reason":"Detach",
 "regarding":{"kind":"Service","namespace":"default","name":"web","apiVersion":"v1"},
 "note":"Detach 2 network endpoint(s) (NEG \"k8s1-1a2b3c4d-default-web-80-5e6f7a8b\" in zone \"us-central1-a\")",
 "type":"Normal","deprecatedSource":{"component":"neg-controller"},
 "deprecatedFirstTimestamp":"2024-05-01T12:00:03Z","deprecatedLastTimestamp":"2024-05-01T12:00:07Z","deprecatedCount":2}`
	c, rep = runJSON(t, k8sEvents{}, "ev.json", legacy)
	if rep.Records != 1 || rep.Skipped != 0 {
		t.Fatalf("records=%d skipped=%d %v", rep.Records, rep.Skipped, rep.SkipSamples())
	}
	l = c.lifecycle[0]
	if l.Kind != NEGDetach || l.Group != "k8s1-1a2b3c4d-default-web-80-5e6f7a8b" || l.Zone != "us-central1-a" ||
		l.Count != 2 || l.Object != "Service/web" || l.Namespace != "default" || l.Source != "neg-controller" {
		t.Errorf("legacy via events API: %+v", l)
	}
	if want := time.Date(2024, 5, 1, 12, 0, 7, 0, time.UTC); !l.Time.Equal(want) {
		t.Errorf("legacy time = %v, want %v", l.Time, want)
	}
}

// TestK8sEventsTimesAndErrors covers null timestamps and elements that are
// not Events.
func TestK8sEventsTimesAndErrors(t *testing.T) {
	const onlyCreation = `{"apiVersion":"v1","kind":"Event","metadata":{"name":"x.1","namespace":"shop","creationTimestamp":"2024-01-02T03:04:01Z"},
 "involvedObject":{"kind":"Pod","namespace":"shop","name":"x"},"reason":"Killing","message":"Stopping container web",
 "source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,"reportingComponent":"","reportingInstance":""}`
	c, rep := runJSON(t, k8sEvents{}, "ev.json", onlyCreation)
	if rep.Records != 1 || c.lifecycle[0].Kind != Killing || !c.lifecycle[0].Time.Equal(time.Date(2024, 1, 2, 3, 4, 1, 0, time.UTC)) {
		t.Errorf("creation fallback: records=%d %+v", rep.Records, c.lifecycle)
	}

	bad := []struct{ name, elem, reason string }{
		{"no time at all", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"x.1"},"involvedObject":{"kind":"Pod","name":"x"},"reason":"Killing","firstTimestamp":null,"lastTimestamp":null,"eventTime":null}`, "event has no timestamp"},
		{"not JSON", `{"kind":"Event",`, "invalid JSON"},
		{"array", `[]`, "not a JSON object"},
		{"a Pod", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"}}`, "not an Event object"},
		{"no kind, no object", `{"reason":"Killing"}`, "not an Event object"},
		{"bad time", `{"kind":"Event","lastTimestamp":"yesterday"}`, "bad Event"},
		{"bad count", `{"kind":"Event","count":"three"}`, "bad Event field count"},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			c, rep := runJSON(t, k8sEvents{}, "ev.json", b.elem)
			if rep.Skipped != 1 || len(c.lifecycle) != 0 {
				t.Fatalf("skipped=%d records=%d", rep.Skipped, len(c.lifecycle))
			}
			if s := rep.SkipSamples()[0]; !strings.Contains(s, b.reason) {
				t.Errorf("reason %q does not contain %q", s, b.reason)
			}
		})
	}
}

// TestK8sEventsMatchJSON checks detection on Events, on other Kubernetes
// objects and on a Cloud Logging entry holding an Event.
func TestK8sEventsMatchJSON(t *testing.T) {
	cases := []struct {
		name string
		elem string
		want bool
	}{
		{"compact", docEventScheduled, true},
		{"space after colon", `{"apiVersion": "v1", "kind": "Event", "metadata": {`, true},
		{"space before colon", `{"kind" : "Event"`, true},
		{"cut short before kind", `{"involvedObject":{"kind":"Pod","name":"x"},"reason":"Killing"`, true},
		{"events.k8s.io without kind", `{"apiVersion":"events.k8s.io/v1","regarding":{"kind":"Pod"},"reason":"Scheduled"`, true},
		{"EventList envelope head", `{"kind":"EventList","apiVersion":"v1","metadata":{}`, false},
		{"pod", `{"apiVersion":"v1","kind":"Pod","status":{"conditions":[{"reason":"PodCompleted"}]}}`, false},
		{"cloud logging entry", `{"insertId":"1","jsonPayload":{"kind":"Event","involvedObject":{},"reason":"Attach"},"logName":"projects/p/logs/events"}`, false},
		{"object without reason", `{"involvedObject":{"kind":"Pod"}}`, false},
	}
	for _, c := range cases {
		if got := (k8sEvents{}).MatchJSON([]byte(c.elem)); got != c.want {
			t.Errorf("%s: MatchJSON = %v, want %v", c.name, got, c.want)
		}
	}
}

// eventListItems reads the items of an EventList sample file.
func eventListItems(t testing.TB, name string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "samples", "k8s-events", name))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Kind  string            `json:"kind"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	if list.Kind != "EventList" {
		t.Fatalf("%s: kind %q", name, list.Kind)
	}
	return list.Items
}

// runEventList feeds every item of an EventList sample to the adapter, as the
// pipeline does, and returns what it emitted.
func runEventList(t *testing.T, name string) (*collector, *InputReport) {
	t.Helper()
	c := &collector{}
	rep := &InputReport{Name: name, Format: FormatK8sEvents}
	em := newEmitter(c, &Options{}, rep, newDedupSet())
	for i, item := range eventListItems(t, name) {
		if !(k8sEvents{}).MatchJSON(item) {
			t.Errorf("%s item %d: MatchJSON false", name, i)
		}
		o := Origin{File: name, Line: i + 1}
		if err := (k8sEvents{}).ParseJSON(item, o, em); err != nil {
			em.Skip(o, err.Error())
		}
	}
	return c, rep
}

// TestK8sEventsSamples reads the real EventList samples and checks the record
// counts of PROVENANCE.md and the interpreted kinds.
func TestK8sEventsSamples(t *testing.T) {
	cases := []struct {
		file    string
		records int
		kinds   map[LifecycleKind]int
		probes  []string // IP:port of every probe failure that names one
		first   time.Time
		last    time.Time
	}{
		{"replicatedhq--troubleshoot--events-default.json", 56,
			map[LifecycleKind]int{ScaledUp: 3, PodScheduled: 4, PodCreated: 6, ContainerStarted: 4},
			nil,
			time.Date(2025, 9, 11, 20, 39, 39, 0, time.UTC), time.Date(2025, 9, 11, 20, 53, 53, 0, time.UTC)},
		{"replicatedhq--troubleshoot--events-kube-system.json", 140,
			map[LifecycleKind]int{ScaledUp: 6, ScaledDown: 2, PodScheduled: 9, PodCreated: 9, PodDeleted: 2, ContainerStarted: 10, Killing: 2, ProbeFailed: 2},
			[]string{"10.42.0.3:10250"},
			time.Time{}, time.Time{}},
		{"replicatedhq--troubleshoot--message-container-creating-failed-mount.json", 76,
			map[LifecycleKind]int{ScaledUp: 3, PodScheduled: 8, PodCreated: 7, ContainerStarted: 5, Killing: 4, ProbeFailed: 2},
			nil, time.Time{}, time.Time{}},
		{"replicatedhq--troubleshoot--message-image-pull-fail.json", 17,
			map[LifecycleKind]int{ScaledUp: 1, PodScheduled: 2, PodCreated: 2, ContainerStarted: 1},
			nil, time.Time{}, time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			c, rep := runEventList(t, tc.file)
			if rep.Records != tc.records || rep.Skipped != 0 || len(c.lifecycle) != tc.records {
				t.Fatalf("records=%d (emitted %d) skipped=%d, want %d and 0: %v",
					rep.Records, len(c.lifecycle), rep.Skipped, tc.records, rep.SkipSamples())
			}
			kinds := map[LifecycleKind]int{}
			var probes []string
			for _, l := range c.lifecycle {
				if l.Time.IsZero() {
					t.Errorf("%s: zero time", l.Origin)
				}
				if l.Kind != LifecycleOther {
					kinds[l.Kind]++
				}
				if l.Kind == ProbeFailed && l.IP.IsValid() {
					probes = append(probes, netip.AddrPortFrom(l.IP, uint16(l.Port)).String())
				}
			}
			if len(kinds) != len(tc.kinds) {
				t.Errorf("kinds = %v, want %v", kinds, tc.kinds)
			}
			for k, n := range tc.kinds {
				if kinds[k] != n {
					t.Errorf("%v: %d, want %d", k, kinds[k], n)
				}
			}
			if strings.Join(probes, ",") != strings.Join(tc.probes, ",") {
				t.Errorf("probe targets = %v, want %v", probes, tc.probes)
			}
			if !tc.first.IsZero() && (!rep.First.Equal(tc.first) || !rep.Last.Equal(tc.last)) {
				t.Errorf("first..last = %v..%v, want %v..%v", rep.First, rep.Last, tc.first, tc.last)
			}
		})
	}
}

// TestK8sEventsSampleDetails checks a few records of the samples field by field.
func TestK8sEventsSampleDetails(t *testing.T) {
	c, _ := runEventList(t, "replicatedhq--troubleshoot--events-kube-system.json")
	find := func(kind LifecycleKind, pred func(Lifecycle) bool) Lifecycle {
		t.Helper()
		for _, l := range c.lifecycle {
			if l.Kind == kind && pred(l) {
				return l
			}
		}
		t.Fatalf("no %v record", kind)
		return Lifecycle{}
	}
	down := find(ScaledDown, func(l Lifecycle) bool { return l.Group == "coredns-5688667fd4" })
	if down.Count != 0 || down.From != 1 || down.Object != "Deployment/coredns" || down.Namespace != "kube-system" ||
		!down.Time.Equal(time.Date(2025, 9, 11, 20, 40, 4, 0, time.UTC)) {
		t.Errorf("scaled down: %+v", down)
	}
	sched := find(PodScheduled, func(l Lifecycle) bool { return l.Pod == "coredns-64fd4b4794-p72lf" })
	if sched.Node != "c9b7eea91" || sched.Source != "default-scheduler" ||
		!sched.Time.Equal(time.Date(2025, 9, 11, 20, 40, 4, 788905000, time.UTC)) {
		t.Errorf("scheduled: %+v", sched)
	}
	status := find(ProbeFailed, func(l Lifecycle) bool { return !l.IP.IsValid() })
	if status.Reason != "Readiness" || status.Count != 9 || status.Node != "c9b7eea91" ||
		!status.Time.Equal(time.Date(2025, 9, 11, 20, 40, 24, 0, time.UTC)) {
		t.Errorf("statuscode probe: %+v", status)
	}

	c, _ = runEventList(t, "replicatedhq--troubleshoot--message-image-pull-fail.json")
	series := find(LifecycleOther, func(l Lifecycle) bool { return l.Pod == "pending-pod-resources-5fddcf7688-djjfc" })
	if series.Count != 3 || series.Reason != "FailedScheduling" ||
		!series.Time.Equal(time.Date(2023, 7, 11, 4, 40, 44, 264058000, time.UTC)) {
		t.Errorf("series: %+v", series)
	}
}

// FuzzK8sEvents feeds arbitrary elements to ParseJSON: it must not panic, and
// every record must have a time, non-negative counts and a valid port.
func FuzzK8sEvents(f *testing.F) {
	f.Add(docEventUnhealthy)
	f.Add(docEventScheduled)
	f.Add(`{"apiVersion":"events.k8s.io/v1","kind":"Event","eventTime":"2024-01-02T03:04:01.512345Z","series":{"count":2,"lastObservedTime":null},"regarding":{"kind":"Pod","name":"p"},"reason":"ScalingReplicaSet","note":"Scaled up replica set p-1 from 1 to 99999999999999999999"}`)
	f.Add(`{"kind":"Event","involvedObject":{"kind":"Service","name":"web"},"reason":"AttachFailed","lastTimestamp":"2024-01-02T03:04:05Z","message":"Failed to Attach 2 network endpoint(s) (NEG \"n\" in zone \"z\"): 'resource.ipAddress': '10.0.0.13'"}`)
	for _, name := range []string{"replicatedhq--troubleshoot--message-image-pull-fail.json", "replicatedhq--troubleshoot--events-kube-system.json"} {
		for _, item := range eventListItems(f, name) {
			f.Add(string(item))
		}
	}
	f.Fuzz(func(t *testing.T, elem string) {
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		err := (k8sEvents{}).ParseJSON([]byte(elem), Origin{File: "fuzz", Line: 1}, em)
		(k8sEvents{}).MatchJSON([]byte(elem))
		if err != nil && len(c.lifecycle) != 0 {
			t.Fatalf("error %v but %d records", err, len(c.lifecycle))
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() || l.Count < 0 || l.From < -1 || l.Port < 0 || l.Port > 65535 {
				t.Fatalf("bad record %+v", l)
			}
		}
	})
}

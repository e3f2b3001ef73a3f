package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sync"
	"testing"

	"github.com/readygap/readygap/internal/podlist"
	"github.com/valyala/fastjson"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// referencePod reads a Pod as the adapter did before podDecoder, with
// encoding/json into corev1.Pod, and reports what reportPod makes of it.
func referencePod(elem []byte) (*collector, error) {
	var p corev1.Pod
	if err := json.Unmarshal(elem, &p); err != nil {
		return nil, err
	}
	return podFacts(&p), nil
}

// treePod reads a Pod with podDecoder, as the adapter does.
func treePod(elem []byte) (*collector, error) {
	st := &k8sState{}
	v, err := st.p.ParseBytes(elem)
	if err != nil {
		return nil, err
	}
	var p corev1.Pod
	d := podDecoder{st: st}
	if d.pod(v, &p); d.err != nil {
		return nil, d.err
	}
	return podFacts(&p), nil
}

// podFacts returns what reportPod reports of p.
func podFacts(p *corev1.Pod) *collector {
	c := &collector{}
	em := newEmitter(c, &Options{}, &InputReport{}, nil)
	reportPod(p, &Config{Kind: "Pod", Format: FormatK8sObjects, Origin: Origin{File: "pods.json", Line: 1}}, new(k8sState), em)
	return c
}

// comparablePod reports whether podDecoder must read elem as encoding/json
// does. Two differences are by design and outside: a key written with an
// escaped surrogate (fastjson unescapes keys its own way; no field name
// has one), and nesting deeper than fastjson's MaxDepth, which it rejects.
func comparablePod(elem []byte) bool {
	if surrogateEscape.Match(elem) {
		return false
	}
	depth, deepest := 0, 0
	for _, c := range elem {
		switch c {
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest < fastjson.MaxDepth
}

var surrogateEscape = regexp.MustCompile(`(?i)\\u[d][89a-f]`)

// checkSameFacts fails unless the two decoders agree on elem: the same
// facts when encoding/json reads it; when it does not, podDecoder may read
// it (a wrong type in a field the facts do not read, JSON that only
// fastjson accepts) but must not report anything else than the facts
// then.
func checkSameFacts(t *testing.T, name string, elem []byte) (treeErr, refErr error) {
	t.Helper()
	ref, refErr := referencePod(elem)
	tree, treeErr := treePod(elem)
	if !comparablePod(elem) {
		return treeErr, refErr
	}
	switch {
	case refErr == nil && treeErr != nil:
		t.Errorf("%s: encoding/json reads it, podDecoder fails: %v", name, treeErr)
	case refErr == nil && !reflect.DeepEqual(tree, ref):
		t.Errorf("%s: facts differ\npodDecoder:    %s\nencoding/json: %s", name, dump(tree), dump(ref))
	}
	return treeErr, refErr
}

// dump renders what a collector holds, for a failure message.
func dump(c *collector) string {
	b, _ := json.Marshal(struct {
		Configs   []*Config
		Lifecycle []Lifecycle
	}{c.configs, c.lifecycle})
	return string(b)
}

// TestPodDecoderMatchesEncodingJSON reads every pod readygap has, real and
// generated, and pods written to tell the two decoders apart, with
// podDecoder and with encoding/json: the facts must be the same.
func TestPodDecoderMatchesEncodingJSON(t *testing.T) {
	pods := 0
	for name, elem := range testPods(t) {
		pods++
		if _, err := checkSameFacts(t, name, elem); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if pods < 50 {
		t.Fatalf("only %d pods compared", pods)
	}
}

// testPods returns the pods of the real samples, of every fixture and of
// a generated List (both shapes), by where they come from.
func testPods(t testing.TB) map[string][]byte {
	t.Helper()
	pods := map[string][]byte{}
	add := func(from string, doc []byte) {
		var obj struct {
			Kind  string            `json:"kind"`
			Items []json.RawMessage `json:"items"`
		}
		if json.Unmarshal(doc, &obj) != nil {
			return
		}
		if obj.Kind == "Pod" {
			pods[from] = doc
		}
		for i, item := range obj.Items {
			var k struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(item, &k) == nil && k.Kind == "Pod" {
				pods[fmt.Sprintf("%s#%d", from, i)] = item
			}
		}
	}
	samples, _ := filepath.Glob(filepath.Join("testdata", "samples", "k8s-objects", "*.json"))
	for _, f := range samples {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(f, data)
	}
	fixtures, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "objects.yaml"))
	for _, f := range fixtures {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			js, err := yaml.YAMLToJSON(doc)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			add(fmt.Sprintf("%s/%d", f, i), js)
		}
	}
	for _, compact := range []bool{false, true} {
		var b bytes.Buffer
		if err := podlist.Write(&b, podlist.Options{Pods: 20, Seed: 3, Compact: compact}); err != nil {
			t.Fatal(err)
		}
		add("podlist", b.Bytes())
	}
	return pods
}

// TestPodDecoderEdgeCases reads pods written to find where podDecoder and
// encoding/json could part: keys in another case or written twice, nulls,
// escapes, invalid UTF-8, numbers that do not fit, values of the wrong type.
func TestPodDecoderEdgeCases(t *testing.T) {
	const (
		same    = "same facts"
		bothErr = "both fail"
		lenient = "podDecoder reads what encoding/json rejects"
	)
	tests := []struct {
		name, elem, want string
	}{
		{"keys in another case", `{"Metadata":{"NAME":"p","Namespace":"ns","Labels":{"app":"web"}},"SPEC":{"NodeName":"n","Containers":[{"Name":"web","ReadinessProbe":{"HTTPGet":{"Port":8080,"Path":"/r"}}}]},"Status":{"PodIP":"10.0.0.1","Conditions":[{"Type":"Ready","Status":"True","LastTransitionTime":"2024-01-02T03:04:05Z"}]}}`, same},
		{"the Kelvin sign folds to k", `{"metadata":{"name":"p","ownerReferences":[{"\u212aind":"ReplicaSet","name":"rs"}]}}`, same},
		{"an object written twice merges", `{"metadata":{"name":"p","labels":{"a":"1"}},"spec":{"nodeName":"n"},"spec":{"containers":[{"name":"c"}]},"metadata":{"labels":{"b":"2"}}}`, same},
		{"a list written twice reuses its elements", `{"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"http"}]},{"name":"b"}],"containers":[{"name":"z"}]}}`, same},
		{"a longer list written twice", `{"spec":{"containers":[{"name":"a"}],"containers":[{"ports":[{"containerPort":1}]},{"name":"b"}]}}`, same},
		{"nulls", `{"metadata":{"name":"p","labels":{"a":"1"},"labels":null,"creationTimestamp":null,"deletionTimestamp":null,"ownerReferences":null},"spec":{"terminationGracePeriodSeconds":null,"containers":[null,{"name":null,"command":["sleep",null],"readinessProbe":{"periodSeconds":3},"readinessProbe":null,"restartPolicy":null}]},"status":{"startTime":null,"conditions":[null],"containerStatuses":[{"state":null,"ready":null}]}}`, same},
		{"empty lists", `{"metadata":{"name":"p"},"spec":{"containers":[],"readinessGates":[]},"status":{"conditions":[]}}`, same},
		{"escapes", `{"metadata":{"name":"p\u00e9\n\"q","labels":{"a\tb":"\ud83d\ude00"}},"spec":{"containers":[{"name":"c","command":["/bin/sh","-c","sleep 5\u0026\u0026exit"]}]}}`, same},
		{"an unpaired surrogate", `{"metadata":{"name":"p\ud800x"}}`, same},
		{"invalid UTF-8", "{\"metadata\":{\"name\":\"p\xff\xfeq\",\"labels\":{\"k\xc3\":\"v\xe2\x82\"}}}", same},
		{"a probe port by name and by number", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","ports":[{"name":"http","containerPort":8080}],"readinessProbe":{"tcpSocket":{"port":"http"}},"livenessProbe":{"grpc":{"port":9000}},"startupProbe":{"exec":{"command":["true"]}}}]}}`, same},
		{"a preStop sleep", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","lifecycle":{"preStop":{"sleep":{"seconds":15}}}}]}}`, same},
		{"a native sidecar", `{"metadata":{"name":"p","annotations":{"sidecar.istio.io/inject":"true","other":"x"}},"spec":{"initContainers":[{"name":"istio-proxy","restartPolicy":"Always","env":[{"name":"TERMINATION_DRAIN_DURATION_SECONDS","value":"20"},{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]}]},"status":{"initContainerStatuses":[{"name":"istio-proxy","state":{"running":{"startedAt":"2024-01-02T03:04:05Z"}}}]}}`, same},
		{"a terminating pod", `{"metadata":{"name":"p","deletionTimestamp":"2024-01-02T03:10:45Z","deletionGracePeriodSeconds":40},"spec":{"terminationGracePeriodSeconds":30}}`, same},
		{"negative zero", `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":-0}]}]}}`, same},
		{"a port of 2^31", `{"spec":{"containers":[{"ports":[{"containerPort":2147483648}]}]}}`, bothErr},
		{"a fractional port", `{"spec":{"containers":[{"ports":[{"containerPort":80.0}]}]}}`, bothErr},
		{"an exponent", `{"spec":{"containers":[{"ports":[{"containerPort":8e3}]}]}}`, bothErr},
		{"a port as a bool", `{"spec":{"containers":[{"readinessProbe":{"httpGet":{"port":true}}}]}}`, bothErr},
		{"spec a string", `{"spec":"x"}`, bothErr},
		{"containers an object", `{"spec":{"containers":{}}}`, bothErr},
		{"labels a list", `{"metadata":{"labels":["a"]}}`, bothErr},
		{"a label a number", `{"metadata":{"labels":{"a":1}}}`, bothErr},
		{"ready a string", `{"status":{"containerStatuses":[{"ready":"true"}]}}`, bothErr},
		{"a time a number", `{"metadata":{"creationTimestamp":5}}`, bothErr},
		{"a time not RFC 3339", `{"metadata":{"creationTimestamp":"yesterday"}}`, bothErr},
		{"an empty time", `{"status":{"startTime":""}}`, bothErr},
		{"a raw control character", "{\"metadata\":{\"name\":\"a\x01b\"}}", bothErr},
		{"an invalid escape", `{"metadata":{"name":"a\qb"}}`, bothErr},
		{"a wrong type where no fact is read", `{"metadata":{"name":"p","uid":5},"spec":{"volumes":"x","containers":[{"name":"c","image":7}]},"status":{"hostIP":false}}`, lenient},
		{"an annotation readygap does not read", `{"metadata":{"name":"p","annotations":{"a":1}}}`, lenient},
		{"a leading zero where no fact is read", `{"metadata":{"name":"p","generation":01}}`, lenient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elem := []byte(`{"apiVersion":"v1","kind":"Pod",` + tt.elem[1:])
			treeErr, refErr := checkSameFacts(t, tt.name, elem)
			got := same
			switch {
			case treeErr != nil && refErr != nil:
				got = bothErr
			case treeErr == nil && refErr != nil:
				got = lenient
			case treeErr != nil:
				got = "podDecoder fails: " + treeErr.Error()
			}
			if got != tt.want {
				t.Errorf("%s (podDecoder: %v, encoding/json: %v), want %s", got, treeErr, refErr, tt.want)
			}
		})
	}
}

// FuzzPodDecoder checks podDecoder against encoding/json on any input:
// the same facts whenever encoding/json reads it, and never an error where
// it reads it (see checkSameFacts).
func FuzzPodDecoder(f *testing.F) {
	f.Add([]byte(k8sPod))
	for _, elem := range testPods(f) {
		if len(elem) < 16<<10 {
			f.Add(elem)
		}
	}
	f.Fuzz(func(t *testing.T, elem []byte) {
		checkSameFacts(t, "fuzz", elem)
	})
}

// TestPodsOfATemplateShareTheirSpec reads a List of pods of a few
// Deployments through the pipeline: the pods of one template hold one
// spec and one label set, those of different templates different ones.
func TestPodsOfATemplateShareTheirSpec(t *testing.T) {
	var b bytes.Buffer
	if err := podlist.Write(&b, podlist.Options{Pods: 300, Deployments: 6, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pods.json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var h lockedCollector
	if _, err := Read(context.Background(), []string{file}, Options{}, func(*InputReport) Handler { return &h }); err != nil {
		t.Fatal(err)
	}
	specs := map[string]*PodSpec{}
	labels := map[string]map[string]string{}
	distinctSpecs := map[*PodSpec]bool{}
	distinctLabels := map[uintptr]bool{}
	for _, c := range h.configs {
		template := c.Namespace + "/" + c.Pod.ReplicaSet
		if s, ok := specs[template]; ok && s != c.PodSpec {
			t.Errorf("%s: pods of %s hold different specs", c.Name, template)
		}
		if l, ok := labels[template]; ok && reflect.ValueOf(l).Pointer() != reflect.ValueOf(c.Labels).Pointer() {
			t.Errorf("%s: pods of %s hold different label sets", c.Name, template)
		}
		specs[template], labels[template] = c.PodSpec, c.Labels
		distinctSpecs[c.PodSpec] = true
		distinctLabels[reflect.ValueOf(c.Labels).Pointer()] = true
	}
	// Six Deployments, every fifth in the middle of a rollout (podlist):
	// eight templates. Their label sets differ (pod-template-hash); the two
	// templates of a Deployment differ only in their image, which the
	// facts do not keep, so that six specs remain.
	if len(h.configs) != 300 || len(specs) != 8 {
		t.Fatalf("%d pods of %d templates, want 300 of 8", len(h.configs), len(specs))
	}
	if len(distinctSpecs) != 6 || len(distinctLabels) != 8 {
		t.Errorf("%d specs and %d label sets, want 6 and 8", len(distinctSpecs), len(distinctLabels))
	}
}

// lockedCollector is a collector that every worker of Read shares.
type lockedCollector struct {
	mu sync.Mutex
	collector
}

func (c *lockedCollector) Request(r *Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collector.Request(r)
}

func (c *lockedCollector) Lifecycle(l *Lifecycle) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collector.Lifecycle(l)
}

func (c *lockedCollector) Config(x *Config) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.collector.Config(x)
}

package sources

import (
	"strings"
	"testing"
)

// benchLines runs a line adapter over lines, reporting bytes and
// allocations per iteration.
func benchLines(b *testing.B, a lineAdapter, lines []string) {
	size := 0
	raw := make([][]byte, len(lines))
	for i, l := range lines {
		raw[i] = []byte(l)
		size += len(l) + 1
	}
	em := newEmitter(albDiscard{}, &Options{}, &InputReport{}, nil)
	ln := &Line{Origin: Origin{File: "bench", Line: 1}}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range raw {
			if err := a.Parse(l, ln, em); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchJSON runs a JSON adapter over elements.
func benchJSON(b *testing.B, a jsonAdapter, elems []string) {
	size := 0
	raw := make([][]byte, len(elems))
	for i, e := range elems {
		raw[i] = []byte(strings.TrimSpace(e))
		size += len(raw[i]) + 1
	}
	em := newEmitter(albDiscard{}, &Options{}, &InputReport{}, newDedupSet())
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, e := range raw {
			if err := a.ParseJSON(e, Origin{File: "bench", Line: 1}, em); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkALBHealthCheckParse(b *testing.B) {
	benchLines(b, albHealthCheck{}, []string{albDocHCPass})
}

func BenchmarkAWSLBCParse(b *testing.B) {
	benchLines(b, awsLBC{}, []string{lbcDeregistering3069, lbcRegistered4324, lbcReconcile4324})
}

func BenchmarkK8sEventsParse(b *testing.B) {
	benchJSON(b, k8sEvents{}, []string{docEventUnhealthy, docEventScheduled})
}

func BenchmarkK8sObjectsParse(b *testing.B) {
	benchJSON(b, k8sObjects{}, []string{k8sPod})
}

// BenchmarkYAMLToJSON converts one Pod as kubectl writes it in a List.
func BenchmarkYAMLToJSON(b *testing.B) {
	item := []byte(`- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2026-03-10T12:00:01Z"
    labels:
      app: web
      pod-template-hash: 75fb46b7bd
    name: web-75fb46b7bd-x2k4q
    namespace: shop
    ownerReferences:
    - apiVersion: apps/v1
      controller: true
      kind: ReplicaSet
      name: web-75fb46b7bd
  spec:
    containers:
    - image: registry.example.com/web:1.2.3
      name: app
      ports:
      - containerPort: 8080
        name: http
      readinessProbe:
        httpGet:
          path: /healthz
          port: http
        periodSeconds: 5
    terminationGracePeriodSeconds: 30
  status:
    phase: Running
    podIP: 10.244.2.31
`)
	b.SetBytes(int64(len(item)))
	b.ReportAllocs()
	var out []byte
	for b.Loop() {
		var err error
		if out, err = yamlToJSON(out[:0], item, yamlItem, defaultYAMLLimits); err != nil {
			b.Fatal(err)
		}
	}
}

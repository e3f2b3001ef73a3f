package sources

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/readygap/readygap/internal/podlist"
)

// benchPods is how many pods the pod-List benchmark reads: a List of a
// large cluster, small enough to write in a second.
const benchPods = 10000

// BenchmarkK8sObjectsPodList reads a List of benchPods realistic pods
// (internal/podlist) through the whole pipeline — split, decoded on every
// core — as kubectl prints it (indented) and as triage writes it (one
// compact item per line). It reports the time and allocation per pod;
// `go test ./sources -run '^$' -bench PodList -benchmem -cpuprofile
// cpu.out` shows where they go. A whole run at cluster scale is
// `scripts/gendata -only pods -pods 100000` and `readygap analyze`.
func BenchmarkK8sObjectsPodList(b *testing.B) {
	for _, shape := range []struct {
		name    string
		compact bool
	}{{"kubectl", false}, {"compact", true}} {
		b.Run(shape.name, func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "pods.json")
			f, err := os.Create(file)
			if err != nil {
				b.Fatal(err)
			}
			if err := podlist.Write(f, podlist.Options{Pods: benchPods, Seed: 1, Compact: shape.compact}); err != nil {
				b.Fatal(err)
			}
			st, _ := f.Stat()
			f.Close()
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				var pods podCounter
				_, err := Read(context.Background(), []string{file}, Options{}, func(*InputReport) Handler { return &pods })
				if err != nil {
					b.Fatal(err)
				}
				if pods.n.Load() != benchPods {
					b.Fatalf("%d pods read, want %d", pods.n.Load(), benchPods)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchPods), "ns/pod")
		})
	}
}

// podCounter counts the Pod facts of every worker.
type podCounter struct{ n atomic.Int64 }

func (*podCounter) Request(*Request)     {}
func (*podCounter) Lifecycle(*Lifecycle) {}
func (c *podCounter) Config(x *Config) {
	if x.Kind == "Pod" {
		c.n.Add(1)
	}
}

package pipeline

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readygap/readygap/internal/podlist"
	"github.com/readygap/readygap/sources"
)

// podMemoryPods is how many pods BenchmarkPodListMemory streams: 100 000,
// or READYGAP_PODS (1000000 for the README's figure).
func podMemoryPods(b *testing.B) int {
	if s := os.Getenv("READYGAP_PODS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("READYGAP_PODS=%q", s)
		}
		return n
	}
	return 100_000
}

// BenchmarkPodListMemory analyzes a fixture beside a List of pods that its
// traffic never references (internal/podlist, as triage saves it, one item
// a line), generated while it is read through standard input — no file of
// a million pods is kept anywhere — and reports the peak heap it took per
// pod (peak-B/pod): the larger of the growth of the heap the runtime
// obtained from the system, which never shrinks, so no moment is missed,
// and the peak of the heap in use, sampled. Nothing in the fixture
// mentions the pods' namespaces: they are held compactly while reading
// and set aside at Merge (see correlate's quietPod). The fixture's verdict
// must not change. READYGAP_PODS sets the count:
//
//	READYGAP_PODS=1000000 go test ./report -run '^$' -bench PodListMemory -benchtime 1x -v
func BenchmarkPodListMemory(b *testing.B) {
	n := podMemoryPods(b)
	fixture := filepath.Join("..", "fixtures", "gke-neg-zone-move")
	alone, err := Analyze(context.Background(), []string{fixture}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(podlist.Write(pw, podlist.Options{Pods: n, Seed: 1, Compact: true})) }()
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peakInuse atomic.Uint64
		done := make(chan struct{})
		go func() {
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peakInuse.Load() {
					peakInuse.Store(m.HeapInuse)
				}
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		rep, err := Analyze(context.Background(), []string{fixture, "-"}, Options{Read: sources.Options{Stdin: pr}})
		close(done)
		if err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak := max(int64(m.HeapSys)-int64(base.HeapSys), int64(peakInuse.Load())-int64(base.HeapInuse))
		if got, want := verdictOf(b, rep), verdictOf(b, alone); got != want {
			b.Fatalf("the pods changed the verdict:\n%.2000s\nwant\n%.2000s", got, want)
		}
		b.ReportMetric(float64(peak)/float64(n), "peak-B/pod")
		b.Logf("%d pods: the heap grew by %.0f MB at its peak (%.0f B a pod)", n, float64(peak)/(1<<20), float64(peak)/float64(n))
	}
}

package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/internal/manifestgen"
	"github.com/readygap/readygap/report"
)

// BenchmarkCheck times the whole check (reading, linking, every rule, the
// text report) of manifestgen's workloads, each a Deployment with its
// Service and every other one an Ingress, at 1k, 10k and 100k workloads:
// the time per workload stays flat when the check is linear in the objects.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("workloads=%d", n), func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "objects.yaml")
			f, err := os.Create(p)
			if err != nil {
				b.Fatal(err)
			}
			if err := manifestgen.Write(f, manifestgen.Options{Workloads: n, Namespaces: 1}); err != nil {
				b.Fatal(err)
			}
			if err := f.Close(); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				rep, err := Check(context.Background(), []string{p}, CheckOptions{FailOn: classify.SeverityError})
				if err != nil || rep.Summary.Workloads != n || len(rep.Findings) < n/4 {
					b.Fatalf("%v: %d workloads, %d findings", err, rep.Summary.Workloads, len(rep.Findings))
				}
				var out bytes.Buffer
				if err := report.WriteCheckText(&out, rep, report.DefaultTextWidth); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/workload")
		})
	}
}

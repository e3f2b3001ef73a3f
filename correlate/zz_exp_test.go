package correlate

import (
	"syscall"
	"testing"
)

func cpuNow() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func BenchmarkExpCollector(b *testing.B) {
	reqs := collectorRequests(100_000)
	c0 := cpuNow()
	for b.Loop() {
		c := NewCollector()
		for i := range reqs {
			c.Request(&reqs[i])
		}
	}
	b.ReportMetric(float64(cpuNow()-c0)/float64(b.N*len(reqs)), "cpuns/request")
}

package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/readygap/readygap/pipeline"
	"github.com/readygap/readygap/sources/live"
	"github.com/readygap/readygap/sources/live/livetest"
)

// benchS3 sizes BenchmarkTriageS3: READYGAP_BENCH_S3_MB MiB of
// gzip'd ALB objects (default 64; docs/speed.md gives 256 and 1024),
// served at READYGAP_BENCH_S3_MBPS MiB a second over all connections
// (default 100; 0 for loopback's own speed).
func benchS3() (mb, mbps int) {
	mb, mbps = 64, 100
	if v, err := strconv.Atoi(os.Getenv("READYGAP_BENCH_S3_MB")); err == nil && v > 0 {
		mb = v
	}
	if v, err := strconv.Atoi(os.Getenv("READYGAP_BENCH_S3_MBPS")); err == nil && v >= 0 {
		mbps = v
	}
	return mb, mbps
}

// BenchmarkTriageS3 measures triage's ALB path on loopback S3 three ways
// over the same objects, at the same download concurrency: the download
// alone, the download then the analysis (how triage worked before it read
// objects as they arrived), and the download with the reading overlapping
// it, then the analysis (how triage works). It reports each as a multiple
// of the download alone: the overlapped one should stay near 1 while the
// link, not the parsing, is the slower.
//
//	READYGAP_BENCH_S3_MB=1024 go test -run '^$' -bench TriageS3 -benchtime 1x ./cmd/readygap
func BenchmarkTriageS3(b *testing.B) {
	mb, mbps := benchS3()
	s3 := livetest.NewS3(b, "alb-logs")
	s3.Bandwidth = int64(mbps) << 20
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	var stored int64
	for i := 0; stored < int64(mb)<<20; i++ {
		end := start.Add(time.Duration(i%12+1) * 5 * time.Minute)
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
		for j := range 20000 {
			ts := end.Add(-5*time.Minute + time.Duration(j)*5*time.Minute/20000)
			target := fmt.Sprintf("10.0.%d.%d:8080", rng.IntN(8), rng.IntN(250))
			if rng.IntN(1000) < 3 {
				target = ""
			}
			// Random trace ids and client ports compress as real logs do
			// (about 8 to 1), not as one line repeated.
			line := strings.Replace(livetest.ALBLine(ts, target), "0123456789abcdef01234567", fmt.Sprintf("%024x", rng.Uint64()), 1)
			line = strings.Replace(line, "203.0.113.10:51234", fmt.Sprintf("198.51.%d.%d:%d", rng.IntN(256), rng.IntN(256), 1024+rng.IntN(60000)), 1)
			line = strings.Replace(line, "TID_0123456789abcdef0123456789abcdef", fmt.Sprintf("TID_%016x%016x", rng.Uint64(), rng.Uint64()), 1)
			fmt.Fprintln(zw, line)
		}
		zw.Close()
		s3.Put(b, "alb-logs", livetest.ALBKey("", "", "111122223333", "us-east-1", end, end, fmt.Sprintf("10.0.%d.%d", i/250, i%250)), buf.Bytes())
		stored += int64(buf.Len())
	}
	b.Setenv("AWS_ENDPOINT_URL_S3", s3.URL)
	creds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
	})
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"), config.WithCredentialsProvider(creds))
	if err != nil {
		b.Fatal(err)
	}
	w := live.Window{Since: start, Until: start.Add(time.Hour)}
	fetch := func(done func(string)) string {
		dir := b.TempDir()
		logs := &live.ALBLogs{Client: live.NewS3Client(cfg), Bucket: "alb-logs", Account: "111122223333", Region: "us-east-1", Done: done}
		rep, err := logs.Fetch(context.Background(), w, dir, nil)
		if err != nil || rep.Records == 0 || !rep.Complete {
			b.Fatalf("fetch: %v %+v", err, rep)
		}
		return dir
	}
	analyzeDir := func(dir string, opts pipeline.Options) {
		if _, err := pipeline.Analyze(context.Background(), []string{dir}, opts); err != nil {
			b.Fatal(err)
		}
	}
	var download, sequential, overlapped time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		fetch(nil)
		download += time.Since(t0)

		t0 = time.Now()
		analyzeDir(fetch(nil), pipeline.Options{})
		sequential += time.Since(t0)

		t0 = time.Now()
		early, err := pipeline.NewEarly(context.Background(), pipeline.Options{})
		if err != nil {
			b.Fatal(err)
		}
		dir := fetch(early.Add)
		analyzeDir(dir, pipeline.Options{Early: early})
		overlapped += time.Since(t0)
	}
	b.ReportMetric(float64(stored)/(1<<20), "MiB")
	b.ReportMetric(download.Seconds()/float64(b.N), "download-s")
	b.ReportMetric(sequential.Seconds()/download.Seconds(), "sequential/download")
	b.ReportMetric(overlapped.Seconds()/download.Seconds(), "overlapped/download")
}

package pipeline

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readygap/readygap/report"
)

// determinismRuns is how many times TestSameReportEveryRun analyzes its
// fixture: enough for map iteration and the parallel reading of inputs to
// show any order they leak into the report.
const determinismRuns = 200

// oddStatuses rewrite the load balancer's own 502s of the termination race
// into other statuses ALB writes itself (its troubleshooting guide): 504
// target timeout, 503 no target, 561 authentication error, 000 for
// requests the client cut off, 501 an unsupported transfer encoding and
// 505 an unsupported HTTP version; each is applied to every nth such line.
var oddStatuses = []struct {
	every  int
	status string
}{{3, "504"}, {5, "503"}, {7, "561"}, {11, "000"}, {13, "501"}, {17, "505"}}

// TestSameReportEveryRun analyzes a fixture whose incident holds uncommon
// status codes (the ALB termination race with its 502s partly rewritten)
// many times, each in a fresh process state of the pipeline, and requires
// one JSON output byte for byte.
func TestSameReportEveryRun(t *testing.T) {
	dir := oddStatusFixture(t)
	runs := determinismRuns
	if testing.Short() {
		runs = 20
	}
	var first []byte
	for i := 0; i < runs; i++ {
		rep := analyze(t, dir)
		var buf bytes.Buffer
		must(t, report.Write(&buf, report.JSON, rep))
		if i == 0 {
			first = buf.Bytes()
			for _, o := range oddStatuses {
				if o.status != "000" && !bytes.Contains(first, []byte(`"`+o.status+`"`)) {
					t.Fatalf("the fixture's incidents lack the status %s:\n%s", o.status, first)
				}
			}
			continue
		}
		if !bytes.Equal(first, buf.Bytes()) {
			t.Fatalf("run %d differs from run 1:\n%s", i+1, lineDiff(string(first), buf.String()))
		}
	}
}

// oddStatusFixture copies the ALB termination race into a temporary
// directory with its load-balancer 502s rewritten by oddStatuses.
func oddStatusFixture(t *testing.T) string {
	t.Helper()
	src := fixture("eks-alb-termination-race")
	dst := t.TempDir()
	n := 0
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(path, ".log.gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return err
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				return err
			}
			lines := strings.Split(string(plain), "\n")
			for i, l := range lines {
				f := strings.Fields(l)
				// An ALB line whose elb_status_code is 502 and whose
				// target_status_code is "-": the load balancer's own.
				if len(f) > 9 && f[8] == "502" && f[9] == "-" {
					n++
					for _, o := range oddStatuses {
						if n%o.every == 0 {
							f[8] = o.status
						}
					}
					lines[i] = strings.Join(f, " ")
				}
			}
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			if _, err := zw.Write([]byte(strings.Join(lines, "\n"))); err != nil {
				return err
			}
			if err := zw.Close(); err != nil {
				return err
			}
			data = buf.Bytes()
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Fatalf("only %d load-balancer 502s to rewrite", n)
	}
	return dst
}

// lineDiff shows the first lines where a and b differ.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(al), len(bl))
}

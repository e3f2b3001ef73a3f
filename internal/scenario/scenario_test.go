package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
)

// records keeps what a scenario hands over.
type records struct {
	requests   []sources.Request
	lifecycles []sources.Lifecycle
	configs    []sources.Config
}

func (r *records) Request(q *sources.Request)     { r.requests = append(r.requests, *q) }
func (r *records) Lifecycle(l *sources.Lifecycle) { r.lifecycles = append(r.lifecycles, *l) }
func (r *records) Config(c *sources.Config)       { r.configs = append(r.configs, *c) }

// TestParse reads one line of each directive and checks the records and
// expectations they give, and that a bad line is named by file and line.
func TestParse(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.test")
	body := `at 2026-03-10T12:00:00Z
req 0s..1s every 500ms alb 200 ok backend=10.0.1.5:8080   # three requests
req 2s nginx 502 refused attempts=10.0.2.7:8080/502/refused
event 3s killing pod=web-old ip=10.0.1.5
pod web-new ip=10.0.2.7 probe=tcpSocket:9090 port=http:8080
backendconfig web-hc interval=5 healthy=2
expect incidents 1
`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var r records
	f, err := Parse(p, &r)
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	if !f.Base.Equal(base) || len(f.Expects) != 1 || f.Expects[0] != "incidents 1" {
		t.Errorf("base %v, expects %q", f.Base, f.Expects)
	}
	if len(r.requests) != 4 || !r.requests[2].Time.Equal(base.Add(time.Second)) || r.requests[3].Attempts[0].Failure != sources.FailureRefused ||
		r.requests[3].Generator != sources.GeneratedByLB || r.requests[0].Generator != sources.GeneratedByBackend {
		t.Errorf("requests %+v", r.requests)
	}
	if len(r.lifecycles) != 1 || r.lifecycles[0].Kind != sources.Killing || r.lifecycles[0].Pod != "web-old" {
		t.Errorf("events %+v", r.lifecycles)
	}
	if len(r.configs) != 2 || r.configs[0].PodSpec.Containers[0].Readiness.Port != 9090 || *r.configs[1].HealthCheck.HealthyThreshold != 2 {
		t.Errorf("configs %+v", r.configs)
	}
	if err := os.WriteFile(p, []byte("at 2026-03-10T12:00:00Z\nwait 3s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(p, &r); err == nil || !strings.Contains(err.Error(), "x.test:2: unknown directive") {
		t.Errorf("a bad line: %v", err)
	}
}

package live

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/readygap/readygap/sources"
)

// collector is a sources.Handler that keeps copies of everything it is given.
type collector struct {
	requests  []*sources.Request
	lifecycle []sources.Lifecycle
	configs   []*sources.Config
}

func (c *collector) Request(r *sources.Request)     { c.requests = append(c.requests, r.Clone()) }
func (c *collector) Lifecycle(l *sources.Lifecycle) { c.lifecycle = append(c.lifecycle, *l) }
func (c *collector) Config(x *sources.Config)       { cp := *x; c.configs = append(c.configs, &cp) }

// Real AWS Load Balancer Controller lines (from the issues named in
// sources/aws_lbc_test.go), as a CloudWatch Logs group would hold them.
const (
	lbcDeregistering3069 = `{"level":"info","ts":1676814406.2301478,"msg":"deRegistering targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:925517469638:targetgroup/k8s-rcsapp-rcssende-24d496d02c/2a976e5b7700ac18","targets":[{"AvailabilityZone":"ap-northeast-2a","Id":"172.31.178.98","Port":80}]}`
	lbcDeregistered3069  = `{"level":"info","ts":1676814406.2712817,"msg":"deRegistered targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:925517469638:targetgroup/k8s-rcsapp-rcssende-24d496d02c/2a976e5b7700ac18"}`
	lbcRegistered3069    = `{"level":"info","ts":1677210150.4308767,"msg":"registered targets","arn":"arn:aws:elasticloadbalancing:us-west-2:385595570334:targetgroup/k8s--5c1e8bc538/5d8f911b3ecff7d4"}`
	lbcRegistering4324   = `{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"registering targets","arn":"arn:aws:elasticloadbalancing:ap-northeast-2:000000000000:targetgroup/k8s-mockit-mockit-013420b522/6aac63d2d6dc0cb1","targets":[{"Id":"10.254.21.181","AvailabilityZone":null,"Port":5000}]}`
)

// nopHandler drops records.
type nopHandler struct{}

func (nopHandler) Request(*sources.Request)     {}
func (nopHandler) Lifecycle(*sources.Lifecycle) {}
func (nopHandler) Config(*sources.Config)       {}

// referenceDoc reads a reference document kept under the sources package's
// testdata/reference folder.
func referenceDoc(name string) string {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "reference", name))
	if err != nil {
		panic(err)
	}
	return strings.TrimRight(string(b), "\n")
}

var (
	gcpRef14           = referenceDoc("gcp/ref14-502-failed-to-pick-backend.json")
	gcpRef15           = referenceDoc("gcp/ref15-200-by-backend.json")
	gcpRef16           = referenceDoc("gcp/ref16-regional-503.json")
	gcpRef53Pulling    = referenceDoc("gcp/ref53-event-pulling.json")
	gcpRef53Endpoints  = referenceDoc("gcp/ref53-event-endpoints.json")
	gcpExporterRestart = referenceDoc("gcp/exporter-restart.json")
)

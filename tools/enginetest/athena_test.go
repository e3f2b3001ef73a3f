package enginetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/live"
	"github.com/readygap/readygap/sources/live/livetest"
)

// albBucket is the bucket the fake S3 holds the fixtures' ALB logs in.
const albBucket = "alb-logs"

// albFixture is an ALB fixture served by loopback S3 and Athena.
type albFixture struct {
	dir             string
	s3              *livetest.S3
	athena          *athenaFake
	account, region string
	since, until    time.Time
}

// serveALBFixture puts the fixture's ALB objects (health-check logs
// included, as S3 holds them) into a fake S3 and their lines into the
// table of a DuckDB database behind a fake Athena, each line's "$path"
// being its object's s3:// URL.
func serveALBFixture(t *testing.T, name string) *albFixture {
	t.Helper()
	f := &albFixture{dir: filepath.Join(root, "fixtures", name), s3: livetest.NewS3(t, albBucket)}
	albDir := filepath.Join(f.dir, "alb")
	var keys []string
	err := filepath.WalkDir(albDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(albDir, p)
		keys = append(keys, filepath.ToSlash(rel))
		return nil
	})
	if err != nil || len(keys) == 0 {
		t.Fatalf("no ALB objects under %s: %v", albDir, err)
	}
	parts := strings.Split(keys[0], "/") // AWSLogs/<account>/elasticloadbalancing/<region>/...
	f.account, f.region = parts[1], parts[3]
	db := newDuck(t, func(add func(line, day, path string) error) error {
		for _, k := range keys {
			body, err := os.ReadFile(filepath.Join(albDir, k))
			if err != nil {
				return err
			}
			f.s3.Put(t, albBucket, k, body)
			day := albDay.FindStringSubmatch("/" + k)[1]
			for _, line := range readLines(t, filepath.Join(albDir, k)) {
				if err := add(line, day, "s3://"+albBucket+"/"+k); err != nil {
					return err
				}
			}
		}
		return nil
	})
	f.athena = newAthenaFake(t, db)
	f.athena.PageSize = 200 // several pages on every fixture
	b, err := reduced.Reduce(context.Background(), albObjects(t, f.dir), sources.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range b.Inputs {
		if !in.First.IsZero() && (f.since.IsZero() || in.First.Before(f.since)) {
			f.since = in.First
		}
		if in.Last.After(f.until) {
			f.until = in.Last
		}
	}
	f.since, f.until = f.since.Truncate(time.Minute).Add(-time.Minute), f.until.Truncate(time.Minute).Add(2*time.Minute)
	return f
}

// env is the environment of a readygap run against the fakes: the
// endpoints set the standard way, static credentials, no shared config,
// no kubeconfig.
func (f *albFixture) env(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "AWS_ENDPOINT_URL_ATHENA="+f.athena.URL, "AWS_ENDPOINT_URL_S3="+f.s3.URL,
		"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_REGION="+f.region,
		"AWS_CONFIG_FILE="+filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(home, "none"),
		"AWS_EC2_METADATA_DISABLED=true", "KUBECONFIG="+filepath.Join(home, "none"), "HOME="+home, "NO_COLOR=1")
}

// source is the Athena source over the fixture, built as triage builds it.
func (f *albFixture) source(t *testing.T) *live.AthenaALB {
	t.Helper()
	t.Setenv("AWS_ENDPOINT_URL_ATHENA", f.athena.URL)
	t.Setenv("AWS_ENDPOINT_URL_S3", f.s3.URL)
	creds := aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
	})
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion(f.region), config.WithCredentialsProvider(creds))
	if err != nil {
		t.Fatal(err)
	}
	live.WithAWSTimeouts(&cfg, live.Timeouts{})
	logs := &live.ALBLogs{Client: live.NewS3Client(cfg), Bucket: albBucket, Account: f.account, Region: f.region}
	return &live.AthenaALB{Client: live.NewAthenaClient(cfg), Logs: logs, Table: albTable}
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// readygap builds the readygap binary once, from the main module.
func readygap(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "enginetest")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "readygap")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/readygap")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// verdict is what the reports must agree on.
type verdict struct {
	Summary struct {
		Verdict        string `json:"verdict"`
		Incidents      int    `json:"incidents"`
		FailedRequests int    `json:"failed_requests"`
		Requests       int    `json:"requests"`
		AppErrors      int    `json:"app_errors"`
	} `json:"summary"`
	Incidents []struct {
		Cause          string          `json:"cause"`
		Confidence     string          `json:"confidence"`
		Start          string          `json:"start"`
		End            string          `json:"end"`
		FailedRequests int             `json:"failed_requests"`
		StatusCounts   map[string]int  `json:"status_counts"`
		Backends       json.RawMessage `json:"backends"`
	} `json:"incidents"`
}

// analyzeVerdict runs readygap analyze -o json on paths.
func analyzeVerdict(t *testing.T, env []string, paths ...string) string {
	t.Helper()
	cmd := exec.Command(readygap(t), append([]string{"analyze", "-o", "json"}, paths...)...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 1 || ee.ExitCode() == 2 {
			t.Fatalf("analyze %v: %v\n%s", paths, err, errOut.String())
		}
	}
	var v verdict
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatalf("analyze %v: %v", paths, err)
	}
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}

// TestTriageAthenaSameVerdict drives `readygap triage --engine athena`
// against loopback S3 and Athena (the real SDK clients, their endpoints
// set by AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL_ATHENA) for every ALB
// fixture, then analyzes what it saved with the fixture's events and
// objects, and requires the verdict of `analyze` on the raw files.
func TestTriageAthenaSameVerdict(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join(root, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "eks-alb-") || testing.Short() && e.Name() == "eks-alb-large" {
			continue
		}
		n++
		t.Run(e.Name(), func(t *testing.T) {
			f := serveALBFixture(t, e.Name())
			env := f.env(t)
			save, stderr := f.triage(t, env, "readygap.alb_lines")
			errOut := bytes.NewBufferString(stderr)
			if !strings.Contains(errOut.String(), "athena-alb: query ") {
				t.Errorf("no progress of the query on stderr:\n%s", errOut.String())
			}
			calls := f.athena.Calls()
			if !slices.Contains(calls, "GetQueryResults") || slices.Index(calls, "GetTableMetadata") != 0 || slices.Index(calls, "StartQueryExecution") != 1 {
				t.Errorf("Athena calls %v", calls)
			}
			if gets := f.s3.Gets(albBucket); len(gets) != 0 {
				t.Errorf("triage --engine athena downloaded %d objects", len(gets))
			}
			want := analyzeVerdict(t, env, f.dir)
			got := analyzeVerdict(t, env, f.withBundle(save)...)
			if want != got {
				t.Errorf("triage --engine athena gives another verdict:\n%s", diff(want, got))
			}
		})
	}
	if n < 20 {
		t.Fatalf("%d ALB fixtures; the catalog holds more", n)
	}
}

// triage runs `readygap triage --engine athena` over the fixture's window
// with table, saving the bundle; it returns the bundle's folder and the
// run's stderr.
func (f *albFixture) triage(t *testing.T, env []string, table string) (string, string) {
	t.Helper()
	save := filepath.Join(t.TempDir(), "bundle")
	cmd := exec.Command(readygap(t), "triage", "--engine", "athena", "--alb-logs", "s3://"+albBucket,
		"--account", f.account, "--region", f.region, "--athena-table", table,
		"--since", f.since.Format(time.RFC3339), "--until", f.until.Format(time.RFC3339), "--save", save, "-o", "json")
	cmd.Env = env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 1 || ee.ExitCode() == 2 {
			man, _ := os.ReadFile(filepath.Join(save, ".bundle.json"))
			t.Fatalf("triage: %v\n%s\n%s", err, errOut.String(), man)
		}
	}
	return save, errOut.String()
}

// withBundle lists the saved bundle and the fixture's inputs but its ALB
// logs: what analyze reads after a triage that pushed the logs down.
func (f *albFixture) withBundle(save string) []string {
	others := []string{save}
	top, _ := os.ReadDir(f.dir)
	for _, x := range top {
		if x.Name() != "alb" {
			others = append(others, filepath.Join(f.dir, x.Name()))
		}
	}
	return others
}

// TestTriageAthenaDocumentedTable drives triage over AWS's documented ALB
// table instead of readygap's table of raw lines: with the guide's regex
// and a trailing catch-all, the verdict is analyze's on the raw files;
// with the regex as published, which no longer matches the lines ALB
// writes, every row is counted as skipped, a note says why, and the
// verdict is that the requests could not be judged.
func TestTriageAthenaDocumentedTable(t *testing.T) {
	for _, name := range []string{"eks-alb-no-gate", "eks-alb-keepalive-gunicorn"} {
		t.Run(name, func(t *testing.T) {
			f := serveALBFixture(t, name)
			addDocumentedTable(t, f.athena.db, true, false)
			env := f.env(t)
			save, stderr := f.triage(t, env, "readygap.alb_logs")
			if !strings.Contains(stderr, "documented ALB table") {
				t.Errorf("no word of the documented table on stderr:\n%s", stderr)
			}
			if want, got := analyzeVerdict(t, env, f.dir), analyzeVerdict(t, env, f.withBundle(save)...); want != got {
				t.Errorf("triage over the documented table gives another verdict:\n%s", diff(want, got))
			}
		})
	}
	t.Run("published regex", func(t *testing.T) {
		f := serveALBFixture(t, "eks-alb-no-gate")
		addDocumentedTable(t, f.athena.db, false, false)
		env := f.env(t)
		save, _ := f.triage(t, env, "readygap.alb_logs")
		man, err := os.ReadFile(filepath.Join(save, ".bundle.json"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(man), "did not match") {
			t.Errorf("the bundle does not say the table's regex matched no line:\n%s", man)
		}
		got := analyzeVerdict(t, env, f.withBundle(save)...)
		if !strings.Contains(got, `"verdict": "cannot_judge"`) && !strings.Contains(got, `"verdict": "cannot judge"`) {
			t.Errorf("a table of NULL rows gives a verdict:\n%s", got)
		}
	})
}

package classify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// The envelope invariant: a proxy's log read through any envelope a
// collector or viewer puts around it (kubectl --prefix, stern, Loki,
// Cloud Logging, CloudWatch) gives the verdict of the bare log. Each
// envelope is written here from its documented layout around every line of
// every fixture's proxy logs (the simulator writes them as
// `kubectl logs --timestamps` does), and the whole verdict of the wrapped
// fixture (causes, windows, counts, backends, evidence, fixes) must be the
// one of the bare log it wraps: with the kubelet's time for envelopes that
// carry it, without it for those that do not. (`logcli --output=raw`
// writes the bare lines, newest first: nothing to take off.)

// envelopeWrapper writes one envelope around the lines of a proxy log.
type envelopeWrapper struct {
	name string
	// stamped is true when the envelope carries the kubelet's time: the
	// bare log to compare with keeps it; otherwise it is taken off.
	stamped bool
	// precision, when set, is what the envelope keeps of the time; the
	// bare log's times are truncated to it.
	precision time.Duration
	wrap      func(lines []proxyLine, pod, container string) []byte
}

// proxyLine is one line of a fixture's proxy log: the kubelet's time, if
// any, and the line the proxy wrote.
type proxyLine struct {
	stamp time.Time
	text  string
}

// rfc3339NanoFixed is the kubelet's time layout (kuberuntime/logs).
const rfc3339NanoFixed = "2006-01-02T15:04:05.000000000Z07:00"

// envelopeZone is the local zone of the tools that print local times
// (stern, logcli): far from UTC, so that a time read in the wrong zone shows.
var envelopeZone = time.FixedZone("", 9*3600+30*60)

// lines joins text lines with a final newline.
func joinLines(ls []string) []byte {
	if len(ls) == 0 {
		return nil
	}
	return []byte(strings.Join(ls, "\n") + "\n")
}

func mapLines(lines []proxyLine, f func(proxyLine) string) []byte {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = f(l)
	}
	return joinLines(out)
}

// reversed returns lines newest first, as Loki and gcloud give them.
func reversed(lines []proxyLine) []proxyLine {
	r := slices.Clone(lines)
	slices.Reverse(r)
	return r
}

var envelopeWrappers = []envelopeWrapper{
	{name: "kubectl-prefix-timestamps", stamped: true, wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			return fmt.Sprintf("[pod/%s/%s] %s %s", pod, ctr, l.stamp.Format(rfc3339NanoFixed), l.text)
		})
	}},
	{name: "kubectl-prefix", wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string { return fmt.Sprintf("[pod/%s/%s] %s", pod, ctr, l.text) })
	}},
	{name: "stern", wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string { return pod + " " + ctr + " " + l.text })
	}},
	{name: "stern-timestamps-local", stamped: true, wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			return pod + " " + ctr + " " + l.stamp.In(envelopeZone).Format(rfc3339NanoFixed) + " " + l.text
		})
	}},
	{name: "stern-all-namespaces-color", wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			return "\x1b[95mshop\x1b[0m \x1b[95m" + pod + "\x1b[0m \x1b[35m" + ctr + "\x1b[0m " + l.text
		})
	}},
	{name: "stern-timestamps-short", wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			return pod + " " + ctr + " " + l.stamp.In(envelopeZone).Format("01-02 15:04:05") + " " + l.text
		})
	}},
	{name: "stern-json-timestamps", stamped: true, wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			// Go's json.Marshal of stern's Log struct: its field order.
			b, _ := json.Marshal(struct {
				Message       string            `json:"message"`
				Timestamp     string            `json:"timestamp"`
				NodeName      string            `json:"nodeName"`
				Namespace     string            `json:"namespace"`
				PodName       string            `json:"podName"`
				ContainerName string            `json:"containerName"`
				Labels        map[string]string `json:"labels"`
				Annotations   map[string]string `json:"annotations"`
			}{l.text, l.stamp.In(envelopeZone).Format(rfc3339NanoFixed), "gke-prod-pool-1-7xkq", "shop", pod, ctr, map[string]string{"app": "gateway"}, nil})
			return string(b)
		})
	}},
	{name: "stern-extjson", wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			msg := l.text
			if !json.Valid([]byte(msg)) {
				b, _ := json.Marshal(msg)
				msg = string(b)
			}
			return fmt.Sprintf(`{"pod": "%s", "container": "%s", "message": %s}`, pod, ctr, msg)
		})
	}},
	{name: "loki-jsonl", stamped: true, wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(reversed(lines), func(l proxyLine) string {
			b, _ := json.Marshal(map[string]any{
				"labels":    map[string]string{"pod": pod, "container": ctr},
				"line":      l.text,
				"timestamp": l.stamp.In(envelopeZone).Format(time.RFC3339Nano),
			})
			return string(b)
		})
	}},
	{name: "loki-default-nano", stamped: true, wrap: func(lines []proxyLine, pod, ctr string) []byte {
		return mapLines(reversed(lines), func(l proxyLine) string {
			return l.stamp.In(envelopeZone).Format(time.RFC3339Nano) + fmt.Sprintf(" {container=%q, pod=%q}  ", ctr, pod) + strings.TrimSpace(l.text)
		})
	}},
	{name: "gcp-k8s-container", stamped: true, wrap: gcpContainerExport},
	{name: "cloudwatch-console", stamped: true, precision: time.Millisecond, wrap: func(lines []proxyLine, _, _ string) []byte {
		return mapLines(lines, func(l proxyLine) string {
			return l.stamp.Format("2006-01-02T15:04:05.000Z07:00") + "\t" + l.text
		})
	}},
	{name: "aws-logs-tail", stamped: true, precision: time.Microsecond, wrap: func(lines []proxyLine, pod, ctr string) []byte {
		stream := "ip-10-0-1-23.ec2.internal-application.var.log.containers." + pod + "_shop_" + ctr + "-3c1f9a0b.log"
		return mapLines(lines, func(l proxyLine) string {
			return l.stamp.Format("2006-01-02T15:04:05.000000-07:00") + " " + stream + " " + l.text
		})
	}},
	{name: "aws-logs-tail-short", stamped: true, precision: time.Second, wrap: func(lines []proxyLine, _, _ string) []byte {
		return mapLines(lines, func(l proxyLine) string { return l.stamp.UTC().Format("2006-01-02T15:04:05") + " " + l.text })
	}},
	{name: "cloudwatch-container-insights", stamped: true, wrap: cloudWatchInsightsExport},
}

// gcpContainerExport writes the lines as `gcloud logging read --format=json`
// prints GKE container output: a JSON array, newest first, keys sorted; a
// JSON line in jsonPayload, any other in textPayload with its newline.
func gcpContainerExport(lines []proxyLine, pod, ctr string) []byte {
	var entries []map[string]any
	for i, l := range reversed(lines) {
		e := map[string]any{
			"insertId": fmt.Sprintf("%s-%06d", pod, i),
			"labels":   map[string]string{"compute.googleapis.com/resource_name": "gke-prod-pool-1-7xkq", "k8s-pod/app": "gateway"},
			"logName":  "projects/acme-prod/logs/stdout",
			"resource": map[string]any{"type": "k8s_container", "labels": map[string]string{
				"cluster_name": "prod", "container_name": ctr, "location": "europe-west1",
				"namespace_name": "shop", "pod_name": pod, "project_id": "acme-prod"}},
			"receiveTimestamp": l.stamp.Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano),
			"timestamp":        l.stamp.UTC().Format(time.RFC3339Nano),
		}
		var obj map[string]any
		d := json.NewDecoder(strings.NewReader(l.text))
		d.UseNumber()
		if strings.HasPrefix(l.text, "{") && d.Decode(&obj) == nil {
			e["jsonPayload"], e["severity"] = obj, "INFO"
		} else {
			e["textPayload"], e["severity"] = l.text+"\n", "ERROR"
			e["logName"] = "projects/acme-prod/logs/stderr"
		}
		entries = append(entries, e)
	}
	b, _ := json.MarshalIndent(entries, "", "  ")
	return b
}

// cloudWatchInsightsExport writes the lines as `aws logs filter-log-events
// --output json` gives Container Insights' records: each message the JSON
// of a Fluent Bit record.
func cloudWatchInsightsExport(lines []proxyLine, pod, ctr string) []byte {
	type event struct {
		LogStreamName string `json:"logStreamName"`
		Timestamp     int64  `json:"timestamp"`
		Message       string `json:"message"`
		IngestionTime int64  `json:"ingestionTime"`
		EventID       string `json:"eventId"`
	}
	var events []event
	for i, l := range lines {
		msg, _ := json.Marshal(map[string]any{
			"time": l.stamp.UTC().Format(time.RFC3339Nano), "stream": "stdout", "_p": "F", "log": l.text,
			"kubernetes": map[string]string{"pod_name": pod, "namespace_name": "shop", "container_name": ctr},
		})
		events = append(events, event{LogStreamName: "ip-10-0-1-23.ec2.internal-application.var.log.containers." + pod + "_shop_" + ctr + "-3c1f9a0b.log",
			Timestamp: l.stamp.UnixMilli(), Message: string(msg), IngestionTime: l.stamp.UnixMilli() + 2000, EventID: fmt.Sprint(i)})
	}
	b, _ := json.MarshalIndent(map[string]any{"events": events, "searchedLogStreams": []any{}}, "", "    ")
	return b
}

// proxyLogFormats are the formats of the logs a proxy writes to its
// container's output, the logs envelopes wrap.
var proxyLogFormats = []sources.Format{sources.FormatIngressNginx, sources.FormatEnvoyAccess, sources.FormatEnvoyJSON}

// fixtureProxyLogs returns the files of dir that hold a proxy's log, read
// on their own.
func fixtureProxyLogs(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") || strings.HasSuffix(path, ".gz") {
			return err
		}
		res, err := sources.Read(context.Background(), []string{path}, sources.Options{}, func(*sources.InputReport) sources.Handler { return correlate.NewCollectors().New() })
		if err == nil && len(res.Inputs) == 1 && slices.Contains(proxyLogFormats, res.Inputs[0].Format) {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// readProxyLines splits a fixture's proxy log into its lines, each with
// the kubelet's time when it has one.
func readProxyLines(t *testing.T, path string) []proxyLine {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []proxyLine
	for _, raw := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		l := proxyLine{text: raw}
		if first, rest, ok := strings.Cut(raw, " "); ok {
			if ts, err := time.Parse(time.RFC3339Nano, first); err == nil {
				l.stamp, l.text = ts, rest
			}
		}
		out = append(out, l)
	}
	return out
}

// bareLog writes the lines bare: with the kubelet's time (truncated to
// precision) when stamped, without it otherwise.
func bareLog(lines []proxyLine, stamped bool, precision time.Duration) []byte {
	return mapLines(lines, func(l proxyLine) string {
		if !stamped || l.stamp.IsZero() {
			return l.text
		}
		s := l.stamp
		if precision > 0 {
			s = s.Truncate(precision)
		}
		return s.Format(rfc3339NanoFixed) + " " + l.text
	})
}

// copyFixture copies dir to a new temporary folder, writing replace[rel]
// in place of the file at rel.
func copyFixture(t *testing.T, dir string, replace map[string][]byte) string {
	out := t.TempDir()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(out, rel), 0o755)
		}
		data, ok := replace[rel]
		if !ok {
			if data, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		return os.WriteFile(filepath.Join(out, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// evidenceLine is where a verdict names a line of its evidence: wrapped in
// a JSON array, a line is elsewhere.
var evidenceLine = regexp.MustCompile(`evidence (\S+) line \d+:`)

// readAtDir is the folder of a file a fix says a setting was read from,
// or a record it was sized from: each run writes the fixture to a folder
// of its own.
var readAtDir = regexp.MustCompile(`(read|recorded) at [^ ,;)"]*/`)

// verdictOf returns the whole verdict of dir, evidence lines left out, and
// the records read from its inputs.
func verdictOf(t *testing.T, dir string) (string, int) {
	t.Helper()
	cs := correlate.NewCollectors()
	res, err := sources.Read(context.Background(), []string{dir}, sources.Options{}, func(*sources.InputReport) sources.Handler { return cs.New() })
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	records := 0
	for _, in := range res.Inputs {
		if in.Skipped > 0 {
			t.Errorf("%s: %d skipped, first %v", in.Name, in.Skipped, in.SkipSamples())
		}
		records += in.Records
	}
	a := correlate.Analyze(cs.Merge(), correlate.Options{})
	first, _ := a.DataSpan()
	v := evidenceLine.ReplaceAllString(dumpVerdict(first, Classify(a)), "evidence $1 line N:")
	return readAtDir.ReplaceAllString(v, "$1 at "), records
}

// podOf names the pod and container a fixture's proxy log came from.
func podOf(path string) (pod, container string) {
	pod = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if !strings.HasPrefix(pod, "istio") && !strings.HasPrefix(pod, "envoy") {
		return "ingress-nginx-controller-7b9c6d-4hmzt", "controller"
	}
	return pod, "envoy"
}

// envelopeCause pins the cause that some wrapped fixtures must give,
// whatever the bare verdict: the cases of GKE proxy logs exported from
// Cloud Logging and of kubectl --prefix and stern.
var envelopeCause = map[string]string{
	"nginx-wrong-probe-port":         "wrong_probe_port",
	"envoy-gateway-wrong-probe-port": "wrong_probe_port",
	"istio-wrong-probe-port":         "wrong_probe_port",
	"envoy-gateway-termination-race": "termination_race",
	"nginx-kubectl-drain":            "termination_race",
}

// TestEnvelopeInvariant checks that every fixture's proxy logs, wrapped in
// each envelope, give the verdict of the bare logs they wrap.
func TestEnvelopeInvariant(t *testing.T) {
	exps, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", ".expected.json"))
	tested := 0
	for _, exp := range exps {
		dir := filepath.Dir(exp)
		name := filepath.Base(dir)
		logs := fixtureProxyLogs(t, dir)
		if len(logs) == 0 {
			continue // an ALB or GKE fixture: its request logs are no container's output
		}
		tested++
		if testing.Short() && tested > 3 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			lines := map[string][]proxyLine{}
			unstamped := false
			for _, p := range logs {
				lines[p] = readProxyLines(t, p)
				for _, l := range lines[p] {
					unstamped = unstamped || l.stamp.IsZero()
				}
			}
			type bareKey struct {
				stamped   bool
				precision time.Duration
			}
			bare := map[bareKey]string{}
			bareRecords := map[bareKey]int{}
			for _, w := range envelopeWrappers {
				if w.stamped && unstamped {
					continue // the envelope would need a time the log does not give
				}
				t.Run(w.name, func(t *testing.T) {
					k := bareKey{w.stamped, w.precision}
					if _, ok := bare[k]; !ok {
						rep := map[string][]byte{}
						for p, ls := range lines {
							rel, _ := filepath.Rel(dir, p)
							rep[rel] = bareLog(ls, w.stamped, w.precision)
						}
						bare[k], bareRecords[k] = verdictOf(t, copyFixture(t, dir, rep))
					}
					rep := map[string][]byte{}
					for p, ls := range lines {
						rel, _ := filepath.Rel(dir, p)
						pod, ctr := podOf(p)
						rep[rel] = w.wrap(ls, pod, ctr)
					}
					got, records := verdictOf(t, copyFixture(t, dir, rep))
					if records != bareRecords[k] {
						t.Errorf("%d records read, %d bare", records, bareRecords[k])
					}
					if got != bare[k] {
						t.Errorf("the verdict differs from the bare log's:\n%s", lineDiff(bare[k], got))
					}
					if cause, ok := envelopeCause[name]; ok && !strings.Contains(got, "cause="+cause+" ") {
						t.Errorf("no %s finding:\n%s", cause, got)
					}
				})
			}
		})
	}
	if tested < 20 {
		t.Errorf("only %d fixtures with proxy logs", tested)
	}
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b bytes.Buffer
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 8; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  bare:    %s\n  wrapped: %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}

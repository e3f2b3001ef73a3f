// Command gendata writes realistic synthetic inputs for readygap's ingest
// benchmark: ALB access logs as gzip'd S3 objects, a gcloud logging JSON export
// and ingress-nginx controller output (and, on request, the gcloud entries
// one per line and an Envoy Gateway proxy's JSON access log), with a
// rollout's worth of LB-generated 502/503s mixed into ordinary traffic. The
// output is deterministic for a seed.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/readygap/readygap/internal/manifestgen"
	"github.com/readygap/readygap/internal/podlist"
)

func main() {
	out := flag.String("out", "benchdata", "folder to write into (with -only pods, - writes the List to standard output)")
	sizeMB := flag.Int("size-mb", 1024, "approximate total uncompressed size in MB")
	seed := flag.Uint64("seed", 1, "random seed")
	span := flag.Duration("span", time.Hour, "time the records are spread over")
	only := flag.String("only", "", "write only this input (alb, gcp, nginx; or gcp-ndjson: the gcp entries one per line, envoy-json: an Envoy Gateway access log, pods: a Pod List as kubectl get pods -A -o json prints it, manifests: workloads for readygap check)")
	pods := flag.Int("pods", 100000, "with -only pods, how many pods the List holds (-size-mb is not used)")
	workloads := flag.Int("workloads", 10000, "with -only manifests, how many workloads (a Deployment and its Service each, some an Ingress) to write")
	namespaces := flag.Int("namespaces", 1, "with -only manifests, how many namespaces the workloads are spread over")
	compact := flag.Bool("compact", false, "with -only pods, write one compact item per line, as readygap triage does, rather than indented as kubectl prints")
	flag.Parse()
	var err error
	switch *only {
	case "pods":
		o := podlist.Options{Pods: *pods, Seed: *seed, Compact: *compact}
		if *out == "-" {
			err = podlist.Write(os.Stdout, o)
			break
		}
		err = writePods(filepath.Join(*out, "pods"), o)
	case "manifests":
		err = writeManifests(filepath.Join(*out, "manifests"), manifestgen.Options{Workloads: *workloads, Namespaces: *namespaces})
	default:
		err = generate(*out, int64(*sizeMB)<<20, *seed, *span, *only)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// writeManifests writes the workloads into dir/objects.yaml.
func writeManifests(dir string, o manifestgen.Options) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "objects.yaml"))
	if err != nil {
		return err
	}
	err = manifestgen.Write(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writePods writes a List of pods into dir/pods.json, created in the week
// before the other inputs' start.
func writePods(dir string, o podlist.Options) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "pods.json"))
	if err != nil {
		return err
	}
	err = podlist.Write(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// generate writes about total bytes of input into out, spread over span.
// only, when set, names the one input to write.
func generate(out string, total int64, seed uint64, span time.Duration, only string) error {
	g := &generator{rnd: rand.New(rand.NewPCG(seed, 42)), start: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), span: span}
	steps := []struct {
		dir   string
		share int64
		write func(dir string, bytes int64) error
	}{
		{"alb", 50, g.writeALB},
		{"gcp", 25, g.writeGCP},
		{"nginx", 25, g.writeNginx},
	}
	// Not part of the default mix: written only when asked for.
	extra := map[string]func(dir string, bytes int64) error{"gcp-ndjson": g.writeGCPNDJSON, "envoy-json": g.writeEnvoyJSON}
	if w, ok := extra[only]; ok {
		steps = append(steps, struct {
			dir   string
			share int64
			write func(dir string, bytes int64) error
		}{only, 100, w})
	}
	for _, s := range steps {
		if only != "" && s.dir != only {
			continue
		}
		dir := filepath.Join(out, s.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		share := s.share
		if only != "" {
			share = 100
		}
		if err := s.write(dir, total*share/100); err != nil {
			return err
		}
	}
	return nil
}

type generator struct {
	rnd   *rand.Rand
	start time.Time
	span  time.Duration
	// next is the backend the next request goes to.
	next int
	// failures counts the failed ALB requests written.
	failures int
}

// at spreads n records over the span.
func (g *generator) at(i, n int) time.Time {
	return g.start.Add(time.Duration(float64(g.span) * float64(i) / float64(n)))
}

// backends is how many pod IPs serve the generated traffic.
const backends = 1000

// podIP returns the backend of the next request: round robin over the
// pods, as a load balancer spreads requests, so that every pod serves from
// the first second whatever the size (random picks left some pods unseen
// until late in small inputs, which read as pods registered late).
func (g *generator) podIP() string {
	i := g.next % backends
	g.next++
	return fmt.Sprintf("10.0.%d.%d", 12+i/250, 2+i%250)
}

func (g *generator) clientIP() string {
	return fmt.Sprintf("203.0.%d.%d", g.rnd.IntN(256), 1+g.rnd.IntN(254))
}

var paths = []string{"/api/items", "/api/items?page=2", "/api/orders", "/healthz", "/static/app.js", "/api/users/42/profile"}
var agents = []string{
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
	"Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0",
	"curl/8.5.0",
	"okhttp/4.12.0",
}

// failing reports whether record i of n falls in one of the rollout windows.
func failing(i, n int) bool {
	frac := float64(i) / float64(n)
	return (frac > 0.30 && frac < 0.31) || (frac > 0.70 && frac < 0.705)
}

func (g *generator) writeALB(dir string, budget int64) error {
	const perFile = 5 << 20
	files := int(budget / perFile)
	if files < 1 {
		files = 1
	}
	linesPerFile := perFile / 640
	n := files * linesPerFile
	for f := 0; f < files; f++ {
		end := g.at(f*linesPerFile, n).Truncate(5 * time.Minute).Add(5 * time.Minute)
		name := fmt.Sprintf("111122223333_elasticloadbalancing_us-east-1_app.k8s-default-web-0123456789.1a2b3c4d5e6f7a8b_%s_10.0.1.%d_%08x.log.gz",
			end.Format("20060102T1504Z"), 10+f%5, g.rnd.Uint32())
		err := writeGzip(filepath.Join(dir, name), func(w io.Writer) {
			for l := 0; l < linesPerFile; l++ {
				i := f*linesPerFile + l
				g.albLine(w, g.at(i, n), failing(i, n))
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (g *generator) albLine(w io.Writer, t time.Time, fail bool) {
	target, times, elb, tgt, tlist, tslist := g.podIP()+":8080", fmt.Sprintf("0.000 0.%03d 0.000", g.rnd.IntN(200)), 200, "200", "", "200"
	tlist = `"` + target + `"`
	if fail {
		// Three in four failures find no registered target, the fourth a
		// target that refuses: a fixed mix, so that the verdict does not
		// depend on the size (a random half-and-half tipped either way).
		g.failures++
		if g.failures%4 != 0 {
			target, times, elb, tgt, tlist, tslist = "-", "-1 -1 -1", 503, "-", `"-"`, "-"
		} else {
			times, elb, tgt, tslist = "-1 -1 -1", 502, "-", "-"
		}
	}
	p := paths[g.rnd.IntN(len(paths))]
	fmt.Fprintf(w, `https %s app/k8s-default-web-0123456789/1a2b3c4d5e6f7a8b %s:%d %s %s %d %s %d %d "GET https://app.example.com:443%s HTTP/1.1" "%s" TLS_AES_128_GCM_SHA256 TLSv1.3 arn:aws:elasticloadbalancing:us-east-1:111122223333:targetgroup/k8s-default-web-a1b2c3d4e5/0123456789abcdef "Root=1-%08x-%024x" "app.example.com" "arn:aws:acm:us-east-1:111122223333:certificate/11111111-2222-3333-4444-555555555555" 1 %s "forward" "-" "-" %s "%s" "-" "-" TID_%032x "-" "-" "-" 10.0.1.25`+"\n",
		t.Format("2006-01-02T15:04:05.000000Z"), g.clientIP(), 1024+g.rnd.IntN(60000), target, times, elb, tgt,
		200+g.rnd.IntN(600), 300+g.rnd.IntN(5000), p, agents[g.rnd.IntN(len(agents))],
		uint32(t.Unix()), g.rnd.Uint64(), t.Add(-12*time.Millisecond).Format("2006-01-02T15:04:05.000000Z"),
		tlist, tslist, g.rnd.Uint64())
}

func (g *generator) writeGCP(dir string, budget int64) error {
	n := int(budget / 1150)
	return writePlain(filepath.Join(dir, "requests.json"), func(w io.Writer) {
		io.WriteString(w, "[\n")
		// gcloud prints newest first.
		for i := n - 1; i >= 0; i-- {
			g.gcpEntry(w, g.at(i, n), failing(i, n), i)
			if i > 0 {
				io.WriteString(w, ",\n")
			}
		}
		io.WriteString(w, "\n]\n")
	})
}

// writeGCPNDJSON writes the entries of writeGCP one per line, as a log
// sink or `jq -c '.[]'` writes them.
func (g *generator) writeGCPNDJSON(dir string, budget int64) error {
	n := int(budget / 1150)
	return writePlain(filepath.Join(dir, "requests.ndjson"), func(w io.Writer) {
		var entry, line bytes.Buffer
		for i := n - 1; i >= 0; i-- {
			entry.Reset()
			line.Reset()
			g.gcpEntry(&entry, g.at(i, n), failing(i, n), i)
			if err := json.Compact(&line, entry.Bytes()); err != nil {
				log.Fatal(err)
			}
			line.WriteByte('\n')
			w.Write(line.Bytes())
		}
	})
}

func (g *generator) gcpEntry(w io.Writer, t time.Time, fail bool, i int) {
	status, details, server := 200, "response_sent_by_backend", `
      "serverIp": "`+g.podIP()+`",`
	if fail {
		status, details, server = 502, "failed_to_pick_backend", ""
	}
	fmt.Fprintf(w, `  {
    "httpRequest": {
      "latency": "0.0%05ds",
      "remoteIp": "%s",
      "requestMethod": "GET",
      "requestSize": "79",
      "requestUrl": "https://shop.example.com%s",
      "responseSize": "%d",%s
      "status": %d,
      "userAgent": "%s"
    },
    "insertId": "%014x",
    "jsonPayload": {
      "@type": "type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry",
      "backendTargetProjectNumber": "projects/123456789012",
      "cacheDecision": [
        "RESPONSE_HAS_CONTENT_TYPE",
        "CACHE_MODE_USE_ORIGIN_HEADERS"
      ],
      "remoteIp": "%s",
      "statusDetails": "%s"
    },
    "logName": "projects/my-project/logs/requests",
    "receiveTimestamp": "%s",
    "resource": {
      "labels": {
        "backend_service_name": "k8s1-1a2b3c4d-default-web-80-5e6f7a8b",
        "forwarding_rule_name": "k8s2-fs-abcd1234-default-web-ingress-wxyz5678",
        "project_id": "my-project",
        "target_proxy_name": "k8s2-ts-abcd1234-default-web-ingress-wxyz5678",
        "url_map_name": "k8s2-um-abcd1234-default-web-ingress-wxyz5678",
        "zone": "global"
      },
      "type": "http_load_balancer"
    },
    "severity": "INFO",
    "spanId": "%016x",
    "timestamp": "%s",
    "trace": "projects/my-project/traces/%032x"
  }`, g.rnd.IntN(99999), g.clientIP(), paths[g.rnd.IntN(len(paths))], 300+g.rnd.IntN(5000), server, status,
		agents[g.rnd.IntN(len(agents))], uint64(i)<<8|uint64(g.rnd.IntN(256)), g.clientIP(), details,
		t.Add(600*time.Millisecond).Format(time.RFC3339Nano), g.rnd.Uint64(), t.Format("2006-01-02T15:04:05.000000Z"), g.rnd.Uint64())
}

func (g *generator) writeNginx(dir string, budget int64) error {
	n := int(budget / 260)
	return writePlain(filepath.Join(dir, "ingress-nginx-controller.log"), func(w io.Writer) {
		for i := 0; i < n; i++ {
			t := g.at(i, n)
			up, status, length := g.podIP()+":8080", 200, 512+g.rnd.IntN(4000)
			upLen, upTime, upStatus := fmt.Sprint(length), fmt.Sprintf("0.%03d", g.rnd.IntN(300)), "200"
			if failing(i, n) {
				old := g.podIP() + ":8080"
				if g.rnd.IntN(3) == 0 {
					// Refused, retried on the next upstream, rescued: every
					// upstream list has one entry per attempt.
					fmt.Fprintf(w, "%s [error] 31#31: *%d connect() failed (111: Connection refused) while connecting to upstream, client: %s, server: shop.example.com, request: \"GET /api/items HTTP/1.1\", upstream: \"http://%s/api/items\", host: \"shop.example.com\"\n",
						t.Format("2006/01/02 15:04:05"), i, g.clientIP(), old)
					up, upLen, upTime, upStatus = old+", "+up, "0, "+upLen, "0.000, "+upTime, "502, 200"
				} else {
					up, status, length, upLen, upTime, upStatus = old, 502, 0, "0", "0.000", "502"
				}
			}
			fmt.Fprintf(w, "%s - - [%s] \"GET %s HTTP/1.1\" %d %d \"-\" \"%s\" %d 0.%03d [shop-web-80] [] %s %s %s %s %032x\n",
				g.clientIP(), t.Format("02/Jan/2006:15:04:05 -0700"), paths[g.rnd.IntN(len(paths))], status, length,
				agents[g.rnd.IntN(len(agents))], 80+g.rnd.IntN(400), g.rnd.IntN(300), up, upLen, upTime, upStatus, g.rnd.Uint64())
		}
	})
}

// envoyJSONLineBytes is about the size of one Envoy Gateway access line
// below, for the line count of a budget.
const envoyJSONLineBytes = 870

// writeEnvoyJSON writes an Envoy Gateway proxy's access log as `kubectl
// logs` gives it: one JSON object per line with Envoy Gateway's default
// keys (v1.4 and later: typed values, null when unset; its
// troubleshooting page shows one). In the rollout windows three failures
// in four find no healthy upstream and the fourth an endpoint that
// refuses, as the new pods are not yet programmed into Envoy while the old
// ones are gone.
func (g *generator) writeEnvoyJSON(dir string, budget int64) error {
	n := int(budget / envoyJSONLineBytes)
	failures := 0
	return writePlain(filepath.Join(dir, "envoy-default-eg-proxy.log"), func(w io.Writer) {
		for i := 0; i < n; i++ {
			t := g.at(i, n)
			status, flags, details, reason, host, cluster, service := 200, `"-"`, `"via_upstream"`, "null", `"`+g.podIP()+`:8080"`, `"httproute/shop/web/rule/0"`, fmt.Sprintf(`"%d"`, 1+g.rnd.IntN(40))
			if failing(i, n) {
				failures++
				service = "null"
				if failures%4 != 0 {
					status, flags, details, host = 503, `"UH"`, `"no_healthy_upstream"`, "null"
				} else {
					status, flags = 503, `"UF"`
					details = `"upstream_reset_before_response_started{remote_connection_failure|delayed_connect_error:_Connection_refused}"`
					reason = `"delayed_connect_error:_Connection_refused"`
				}
			}
			fmt.Fprintf(w, `{":authority":"shop.example.com","bytes_received":0,"bytes_sent":%d,"connection_termination_details":null,`+
				`"downstream_local_address":"10.244.0.9:10080","downstream_remote_address":"%s:%d","duration":%d,"method":"GET",`+
				`"protocol":"HTTP/1.1","requested_server_name":null,"response_code":%d,"response_code_details":%s,"response_flags":%s,`+
				`"route_name":"httproute/shop/web/rule/0/match/0/shop_example_com","start_time":"%s",`+
				`"upstream_cluster":%s,"upstream_host":%s,"upstream_local_address":"10.244.0.9:%d",`+
				`"upstream_transport_failure_reason":%s,"user-agent":"%s","x-envoy-origin-path":"%s","x-envoy-upstream-service-time":%s,`+
				`"x-forwarded-for":"%s","x-request-id":"%08x-%04x-4%03x-a%03x-%012x"}`+"\n",
				300+g.rnd.IntN(5000), g.clientIP(), 1024+g.rnd.IntN(60000), 1+g.rnd.IntN(40), status, details, flags,
				t.Format("2006-01-02T15:04:05.000Z"), cluster, host, 30000+g.rnd.IntN(30000), reason,
				agents[g.rnd.IntN(len(agents))], paths[g.rnd.IntN(len(paths))], service, g.clientIP(),
				g.rnd.Uint32(), g.rnd.IntN(1<<16), g.rnd.IntN(1<<12), g.rnd.IntN(1<<12), g.rnd.Uint64()&(1<<48-1))
		}
	})
}

func writeGzip(path string, fill func(io.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := kgzip.NewWriter(f)
	bw := bufio.NewWriterSize(zw, 1<<20)
	fill(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

func writePlain(path string, fill func(io.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	fill(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

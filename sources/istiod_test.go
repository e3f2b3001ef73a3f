package sources

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// istiodWant is the expected record of one istiod line.
type istiodWant struct {
	time      time.Time
	proxy     string
	reason    string
	namespace string
	object    string
	count     int
}

func TestIstiodParse(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []istiodWant // nil: passed over
	}{
		// Real, istio/istio#23029 (1.6, tabs pasted as spaces).
		{"1.6 EDS push to a gateway",
			`2020-06-10T06:10:38.108796Z    info    ads     EDS: PUSH for node:istio-ingressgateway-ffb74c6f8-rnn77.istio-system clusters:986 endpoints:1594 empty:138`,
			[]istiodWant{{time: utc(2020, 6, 10, 6, 10, 38, 108796), proxy: "istio-ingressgateway-ffb74c6f8-rnn77.istio-system", reason: "EDS", count: 986}}},
		{"1.6 debounce without config",
			`2020-06-10T06:10:38.286542Z    info    ads     Push debounce stable[414] 1: 100.209879ms since last change, 100.209681ms since last push, full=false`,
			[]istiodWant{{time: utc(2020, 6, 10, 6, 10, 38, 286542), reason: istiodReasonDebounce}}},
		{"1.6 EDSInc push names the service",
			`2020-06-10T06:10:38.286624Z    info    ads     XDS:EDSInc Pushing:2020-06-10T06:10:37Z/350 Services:map[service-lwsttnwy-nh54r.serving-tests.svc.cluster.local:{}] ConnectedEndpoints:2`,
			[]istiodWant{{time: utc(2020, 6, 10, 6, 10, 38, 286624), reason: istiodReasonPush, namespace: "serving-tests", object: "Service/service-lwsttnwy-nh54r", count: 2}}},
		{"default scope, another message",
			`2020-06-10T06:10:38.186251Z    info    Handle EDS: 3 endpoints for service-lwsttnwy-nh54r in namespace serving-tests`, nil},
		{"a message that merely mentions a push",
			`2020-06-10T06:10:38.287115Z    info    ads     Cluster init time 481.269µs after EDS: PUSH for node:x`, nil},
		// Real, istio/istio#52110 (1.2x, tabs).
		{"debounce for a Service",
			"2024-07-17T11:50:12.157700Z\tinfo\tads\tPush debounce stable[4] 1 for config ServiceEntry/default/httpbin-2.default.svc.cluster.local: 100.841761ms since last change, 100.841552ms since last push, full=false",
			[]istiodWant{{time: utc(2024, 7, 17, 11, 50, 12, 157700), reason: istiodReasonDebounce, namespace: "default", object: "Service/httpbin-2"}}},
		{"incremental push to all",
			"2024-07-17T11:50:12.157745Z\tinfo\tads\tXDS: Incremental Pushing ConnectedEndpoints:2 Version:2024-07-17T19:49:01+08:00/2",
			[]istiodWant{{time: utc(2024, 7, 17, 11, 50, 12, 157745), reason: istiodReasonPush, count: 2}}},
		{"debug EDS PUSH INC with a space after node:",
			"2024-07-17T11:50:12.157942Z\tdebug\tads\tEDS: PUSH INC for node: envoy-f9x8x.wakanda resources:2 size:670B empty:0 cached:0/2",
			[]istiodWant{{time: utc(2024, 7, 17, 11, 50, 12, 157942), proxy: "envoy-f9x8x.wakanda", reason: "EDS", count: 2}}},
		{"CDS skip", "2024-07-17T11:50:12.157807Z\tdebug\tads\tCDS: SKIP for node: envoy-f9x8x.wakanda", nil},
		// Real, istio/istio#28120 (--log_as_json).
		{"JSON EDSInc",
			`{"level":"info","time":"2020-10-20T18:38:58.575231Z","scope":"ads","msg":"XDS:EDSInc Pushing:2020-10-20T18:11:26Z/248 Services:map[admin.private-advert-service.svc.cluster.local:{}] ConnectedEndpoints:182"}`,
			[]istiodWant{{time: utc(2020, 10, 20, 18, 38, 58, 575231), reason: istiodReasonPush, namespace: "private-advert-service", object: "Service/admin", count: 182}}},
		// Constructed from the format strings at istio/istio 86c9f01f.
		{"current per-proxy push",
			"2026-03-14T09:44:02.512034Z\tinfo\tads\tEDS: PUSH for node:web-7c9d8f6b5-x2k4q.shop resources:24 size:4.1kB",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 2, 512034), proxy: "web-7c9d8f6b5-x2k4q.shop", reason: "EDS", count: 24}}},
		{"full push to all",
			"2026-03-14T09:44:02.400001Z\tinfo\tads\tXDS: Pushing Services:41 ConnectedEndpoints:7 Version:2026-03-14T09:44:02Z/31",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 2, 400001), reason: istiodReasonPush, count: 7}}},
		{"debounce for several configs",
			"2026-03-14T09:44:02.399870Z\tinfo\tads\tPush debounce stable[31] 3 for config ServiceEntry/shop/web.shop.svc.cluster.local and 1 more configs: 100.2ms since last change, 340.1ms since last push, forced=false",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 2, 399870), reason: istiodReasonDebounce, namespace: "shop", object: "Service/web"}}},
		{"debounce for a reason",
			"2026-03-14T09:44:02.399870Z\tinfo\tads\tPush debounce stable[32] 1 for reason endpoint:1: 100.2ms since last change, 100.2ms since last push, forced=false",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 2, 399870), reason: istiodReasonDebounce}}},
		{"service without endpoints",
			"2026-03-14T09:44:01.100000Z\tinfo\tmodel\tIncremental push, service web.shop.svc.cluster.local at shard Kubernetes/Kubernetes has no endpoints",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 1, 100000), reason: istiodReasonNoEndpoints, namespace: "shop", object: "Service/web"}}},
		{"new service",
			"2026-03-14T09:44:01.100000Z\tinfo\tmodel\tFull push, new service shop/web.shop.svc.cluster.local",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 1, 100000), reason: istiodReasonNewService, namespace: "shop", object: "Service/web"}}},
		{"service entry host", "2026-03-14T09:44:01.100000Z\tinfo\tmodel\tFull push, new service shop/api.example.com",
			[]istiodWant{{time: utc(2026, 3, 14, 9, 44, 1, 100000), reason: istiodReasonNewService, namespace: "shop", object: "ServiceEntry/api.example.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, rep := runLines(t, istiod{}, "istiod.log", tt.line)
			if rep.Skipped != 0 {
				t.Fatalf("skipped: %v", rep.SkipSamples())
			}
			if !(istiod{}).Match([]byte(tt.line)) {
				t.Errorf("Match = false")
			}
			if len(c.lifecycle) != len(tt.want) {
				t.Fatalf("got %d records %+v, want %d", len(c.lifecycle), c.lifecycle, len(tt.want))
			}
			for i, w := range tt.want {
				g := c.lifecycle[i]
				if g.Kind != ProxyUpdated || !g.Time.Equal(w.time) || g.Proxy != w.proxy || g.Reason != w.reason ||
					g.Namespace != w.namespace || g.Object != w.object || g.Count != w.count || g.Pod != "" {
					t.Errorf("got %v %s proxy=%q reason=%q ns=%q object=%q count=%d pod=%q\nwant %s proxy=%q reason=%q ns=%q object=%q count=%d",
						g.Kind, g.Time.Format(time.RFC3339Nano), g.Proxy, g.Reason, g.Namespace, g.Object, g.Count, g.Pod,
						w.time.Format(time.RFC3339Nano), w.proxy, w.reason, w.namespace, w.object, w.count)
				}
				if g.Source != istiodSource || g.Format != FormatIstiod || g.Message == "" || !g.ClusterClock() {
					t.Errorf("source %q format %q message %q cluster clock %v", g.Source, g.Format, g.Message, g.ClusterClock())
				}
			}
		})
	}
}

func TestIstiodMalformed(t *testing.T) {
	for _, line := range []string{
		"2026-03-14T09:44:02.512034Z",
		"2026-03-14T09:44:02.512034Z\tloud\tads\tEDS: PUSH for node:a.b resources:1",
		"2026-03-14 09:44:02\tinfo\tads\tEDS: PUSH for node:a.b",
		`{"level":"info","time":"yesterday","scope":"ads","msg":"XDS: Pushing"}`,
		`{"level":"info","time":`,
		"\tat istio.io/istio/pilot/pkg/xds.(*DiscoveryServer).Push",
	} {
		c, rep := runLines(t, istiod{}, "istiod.log", line)
		if rep.Skipped != 1 || len(c.lifecycle) != 0 {
			t.Errorf("%q: skipped %d records %d, want one skip and no record", line, rep.Skipped, len(c.lifecycle))
		}
	}
}

func TestIstiodMatchesNoOtherFormat(t *testing.T) {
	for _, line := range []string{
		lbcDeregistering3069,
		`[2026-03-14T09:44:02.512Z] "GET / HTTP/1.1" 503 UH no_healthy_upstream - "-" 0 19 0 - "-" "curl/8.5.0" "x" "web" "-" outbound|80||web.shop.svc.cluster.local - 10.0.0.1:80 10.0.0.2:40000 - default`,
		`{"start_time":"2026-03-14T09:44:02.512Z","response_code":503,"level":"info"}`,
		`I0520 11:10:37.726813       7 controller.go:204] Dynamic reconfiguration succeeded.`,
	} {
		if (istiod{}).Match([]byte(line)) {
			t.Errorf("Match(%s) = true", line)
		}
	}
}

// TestIstiodSamplesDetected reads the real samples through the pipeline:
// each is detected as istiod, every line a record or passed over.
func TestIstiodSamplesDetected(t *testing.T) {
	want := map[string]int{"istio-23029.log": 4, "istio-52110.log": 3, "istio-28120.jsonl": 2}
	for name, n := range want {
		t.Run(name, func(t *testing.T) {
			res, h := readPaths(t, Options{}, filepath.Join("testdata/samples/istiod", name))
			in := res.Inputs[0]
			if in.Format != FormatIstiod || in.Skipped != 0 {
				t.Fatalf("format %q skipped %d, want istiod and none", in.Format, in.Skipped)
			}
			if h.lifecycle != n {
				t.Errorf("%d records, want %d", h.lifecycle, n)
			}
		})
	}
	if _, err := os.Stat("testdata/samples/istiod/NOTICE"); err != nil {
		t.Error(err)
	}
}

func FuzzIstiod(f *testing.F) {
	for _, s := range []string{
		"2024-07-17T11:50:12.157700Z\tinfo\tads\tPush debounce stable[4] 1 for config ServiceEntry/default/httpbin-2.default.svc.cluster.local: 1ms since last change",
		"2026-03-14T09:44:02.512034Z\tinfo\tads\tEDS: PUSH for node:web-7c9d8f6b5-x2k4q.shop resources:24 size:4.1kB",
		`{"level":"info","time":"2020-10-20T18:38:58.575231Z","scope":"ads","msg":"XDS:EDSInc Pushing:x Services:map[a.b.svc.cluster.local:{}] ConnectedEndpoints:182"}`,
		"2026-03-14T09:44:01.1Z info model Incremental push, service web.shop.svc.cluster.local has no endpoints",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		err := (istiod{}).Parse([]byte(line), &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if err != nil && len(c.lifecycle) != 0 {
			t.Fatalf("error %v after %d records", err, len(c.lifecycle))
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() || l.Kind != ProxyUpdated || l.Count < 0 || l.Format != FormatIstiod {
				t.Errorf("bad record %+v", l)
			}
		}
	})
}

func BenchmarkIstiod(b *testing.B) {
	line := []byte("2026-03-14T09:44:02.512034Z\tinfo\tads\tEDS: PUSH for node:web-7c9d8f6b5-x2k4q.shop resources:24 size:4.1kB")
	em := newEmitter(&collector{}, &Options{}, &InputReport{}, nil)
	ln := &Line{Origin: Origin{File: "f", Line: 1}}
	b.SetBytes(int64(len(line)))
	for i := 0; i < b.N; i++ {
		_ = (istiod{}).Parse(line, ln, em)
	}
}

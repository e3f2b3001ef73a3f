package sources

import (
	"bytes"
	"testing"
	"time"
)

// Bare lines of the formats the wrappers carry.
const (
	wrapBareALB    = `http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"`
	wrapBareAccess = `203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`
	wrapBareError  = `2024/11/03 06:09:29 [error] 184#184: *94 upstream prematurely closed connection while reading response header from upstream, client: 192.168.58.11, server: opensearch-dashboard.hi.local, request: "GET / HTTP/1.1", upstream: "http://10.244.3.84:5601/", host: "opensearch-dashboard.hi.local"`
	wrapBareKlog   = `W0601 10:05:49.745387       7 controller.go:1152] Service "bmdev-ne-linker/bmdev-ne-linker-service" does not have any active Endpoint.`
)

func TestUnwrapLine(t *testing.T) {
	ns := func(s, ns int) time.Time { return time.Date(2024, 1, 2, 3, 4, s, ns, time.UTC) }
	tests := []struct {
		name  string
		line  string
		inner string
		stamp time.Time
	}{
		{"bare ALB", wrapBareALB, wrapBareALB, time.Time{}},
		{"bare nginx access", wrapBareAccess, wrapBareAccess, time.Time{}},
		{"bare nginx error (slashes, not RFC 3339)", wrapBareError, wrapBareError, time.Time{}},
		{"bare klog", wrapBareKlog, wrapBareKlog, time.Time{}},
		{"bare controller line (logger is not log)", lbcListener1992, lbcListener1992, time.Time{}},
		{"kubectl --timestamps", "2024-01-02T03:04:05.123456789Z " + wrapBareKlog, wrapBareKlog, ns(5, 123456789)},
		{"viewer time with offset and tab", "2024-01-02T05:04:05.974+02:00\t" + wrapBareError, wrapBareError, ns(5, 974000000)},
		{"CloudWatch text export, second precision", "2024-01-02T03:04:05Z " + wrapBareAccess, wrapBareAccess, ns(5, 0)},
		{"CRI full line", "2024-01-02T03:04:05.5Z stdout F " + wrapBareAccess, wrapBareAccess, ns(5, 500000000)},
		{"CRI partial line on stderr", "2024-01-02T03:04:05.000000001Z stderr P " + wrapBareKlog, wrapBareKlog, ns(5, 1)},
		{"CRI empty line", "2024-01-02T03:04:05Z stdout F", "", ns(5, 0)},
		{"CRI behind a CloudWatch time: the CRI time wins", "2024-01-02T03:04:06.100Z 2024-01-02T03:04:05.999Z stdout F " + wrapBareAccess, wrapBareAccess, ns(5, 999000000)},
		{"CRI content that starts with its own time is kept whole", "2024-01-02T03:04:05Z stdout F 2024-01-02T03:04:04Z I! x", "2024-01-02T03:04:04Z I! x", ns(5, 0)},
		{"Docker json-file", `{"log":"` + wrapBareKlog[:10] + `\"x\"\n","stream":"stderr","time":"2024-01-02T03:04:05.25Z"}`, wrapBareKlog[:10] + `"x"`, ns(5, 250000000)},
		{"Fluent Bit with parsed CRI, CRLF dropped", `{"time":"2024-01-02T03:04:05.75Z","stream":"stdout","_p":"F","log":"a\tb\r\n"}`, "a\tb", ns(5, 750000000)},
		{"Fluent Bit without time", `{"log":"` + wrapBareAccess[:20] + `"}`, wrapBareAccess[:20], time.Time{}},
		{"Fluent Bit without time behind a CloudWatch time", `2024-01-02T03:04:05Z {"log":"x"}`, "x", ns(5, 0)},
		{"Fluent Bit with the CRI line in log", `{"log":"2024-01-02T03:04:05.3Z stderr F y","time":"2024-01-02T03:04:06Z"}`, "y", ns(5, 300000000)},
		{"unicode escapes", `{"log":"caf\u00e9 \ud83d\ude00"}`, "café 😀", time.Time{}},
		{"log is not a string", `{"log":{"a":1},"msg":"m"}`, `{"log":{"a":1},"msg":"m"}`, time.Time{}},
		{"log only in a nested object", `{"kubernetes":{"log":"x"}}`, `{"kubernetes":{"log":"x"}}`, time.Time{}},
		{"broken JSON", `{"log":"x`, `{"log":"x`, time.Time{}},
		{"time with no separator", "2024-01-02T03:04:05Zx", "2024-01-02T03:04:05Zx", time.Time{}},
		{"time alone", "2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z", time.Time{}},
		{"time and separator only", "2024-01-02T03:04:05Z ", "", ns(5, 0)},
		{"year 0 is no date (fuzz regression)", "0000-01-01T00:00:00+00:00 ", "0000-01-01T00:00:00+00:00 ", time.Time{}},
		{"February 31", "2024-02-31T03:04:05Z x", "2024-02-31T03:04:05Z x", time.Time{}},
		{"second 60 off a leap second", "2024-01-02T03:04:60Z x", "2024-01-02T03:04:60Z x", time.Time{}},
		{"month 13", "2024-13-02T03:04:05Z x", "2024-13-02T03:04:05Z x", time.Time{}},
		{"no zone", "2024-01-02T03:04:05 x", "2024-01-02T03:04:05 x", time.Time{}},
		{"space instead of T", "2024-01-02 03:04:05 x", "2024-01-02 03:04:05 x", time.Time{}},
		{"not a CRI tag", "2024-01-02T03:04:05Z stdout X y", "stdout X y", ns(5, 0)},
		{"empty", "", "", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := []byte(tt.line)
			inner, stamp, _ := unwrapLine(line, make([]byte, 0, 8))
			if string(inner) != tt.inner {
				t.Errorf("inner = %q, want %q", inner, tt.inner)
			}
			if !stamp.Equal(tt.stamp) || !stamp.IsZero() && stamp.Location() != time.UTC {
				t.Errorf("stamp = %v, want %v", stamp, tt.stamp)
			}
			if tt.inner == tt.line && len(line) > 0 && &inner[0] != &line[0] {
				t.Errorf("an unwrapped line did not come back as the same slice")
			}
		})
	}
}

func TestUnwrapLineScratch(t *testing.T) {
	scratch := make([]byte, 0, 4)
	var inner []byte
	for _, s := range []string{`{"log":"first line, longer than the scratch"}`, `{"log":"second"}`} {
		inner, _, scratch = unwrapLine([]byte(s), scratch)
	}
	if string(inner) != "second" || cap(scratch) < len("first line, longer than the scratch") {
		t.Errorf("inner %q, scratch cap %d: the grown scratch was not handed back", inner, cap(scratch))
	}
}

func TestUnwrapLineNoAllocs(t *testing.T) {
	for _, s := range []string{wrapBareALB, wrapBareAccess, wrapBareError, lbcListener1992,
		"2024-01-02T03:04:05.123456789Z " + wrapBareKlog, "2024-01-02T03:04:05Z stdout F " + wrapBareAccess} {
		line := []byte(s)
		if n := testing.AllocsPerRun(100, func() { unwrapLine(line, nil) }); n != 0 {
			t.Errorf("%.40s...: %v allocations, want 0", s, n)
		}
	}
}

// TestWrapHasLogKey pins the search for the log key at the line's edges
// and among near misses.
func TestWrapHasLogKey(t *testing.T) {
	for line, want := range map[string]bool{
		`"log"`: true, `{"log":"x"}`: true, `{"a":"g","b":"lo","log":1}`: true, `{"x":"blog"}`: false,
		`{"log ":1}`: false, `{"lg":1,"og":"g"}`: false, `log"`: false, `"log`: false, `g`: false, ``: false,
		`{"a":"\"log\""}`: false, `x"log"`: true,
	} {
		if got := wrapHasLogKey([]byte(line)); got != want {
			t.Errorf("wrapHasLogKey(%q) = %v, want %v", line, got, want)
		}
	}
}

// BenchmarkUnwrapLineEnvoyJSON times the look for a wrapper in a line that
// has none and is full of quotes.
func BenchmarkUnwrapLineEnvoyJSON(b *testing.B) {
	line := envoyJSONBenchLines(1)[0]
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		unwrapLine(line, nil)
	}
}

func BenchmarkUnwrapLineBareALB(b *testing.B) {
	line := []byte(wrapBareALB)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		unwrapLine(line, nil)
	}
}

func BenchmarkUnwrapLineCRI(b *testing.B) {
	line := []byte("2024-01-02T03:04:05.123456789Z stdout F " + wrapBareAccess)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		unwrapLine(line, nil)
	}
}

func BenchmarkUnwrapLineFluentBit(b *testing.B) {
	line := []byte(`{"log":"2024-02-12T17:48:48.974879644Z stderr F {\"level\":\"info\",\"ts\":\"2024-02-12T17:48:48Z\",\"logger\":\"backend-sg-provider\",\"msg\":\"created SecurityGroup\",\"name\":\"k8s-traffic-mlkubecluster-a083a9e7d5\",\"id\":\"sg-VVVVVVVVVVVV\"}"}`)
	b.SetBytes(int64(len(line)))
	var scratch []byte
	for b.Loop() {
		_, _, scratch = unwrapLine(line, scratch)
	}
}

func TestCloudWatchEvent(t *testing.T) {
	tests := []struct {
		name    string
		elem    string
		message string
		stamp   time.Time
		err     bool
	}{
		{"CLI filter-log-events", `{"logStreamName":"ip-10-0-101-15.ec2.internal-application.var.log.containers.x.log","timestamp":1707760128974,"message":"2024-02-12T17:48:48.974879644Z stderr F {\"level\":\"info\"}","ingestionTime":1707760130001,"eventId":"37070458927839420173823497358432904716832402489537544192"}`,
			`2024-02-12T17:48:48.974879644Z stderr F {"level":"info"}`, time.Date(2024, 2, 12, 17, 48, 48, 974000000, time.UTC), false},
		{"SDK snapshot", `{"eventId":"__EventId__","ingestionTime":1,"logStreamName":"__LogStreamName__","message":"__Message__","timestamp":1}`,
			"__Message__", time.UnixMilli(1).UTC(), false},
		{"SDK FilteredLogEvent marshalled by encoding/json", `{"EventId":"e","IngestionTime":1707760130001,"LogStreamName":"s","Message":"hello\tworld","Timestamp":1707760128974}`,
			"hello\tworld", time.Date(2024, 2, 12, 17, 48, 48, 974000000, time.UTC), false},
		{"no timestamp", `{"message":"x"}`, "x", time.Time{}, false},
		{"null timestamp", `{"message":"x","timestamp":null}`, "x", time.Time{}, false},
		{"string timestamp", `{"message":"x","timestamp":"1707760128974"}`, "", time.Time{}, true},
		{"no message", `{"timestamp":1}`, "", time.Time{}, true},
		{"message not a string", `{"message":{"a":1},"timestamp":1}`, "", time.Time{}, true},
		{"not JSON", `{"message":"x"`, "", time.Time{}, true},
		{"array", `["message"]`, "", time.Time{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, stamp, err := cloudWatchEvent([]byte(tt.elem))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if string(msg) != tt.message || !stamp.Equal(tt.stamp) {
				t.Errorf("got %q %v, want %q %v", msg, stamp, tt.message, tt.stamp)
			}
		})
	}
}

func TestCloudWatchEventMessageOutlivesParser(t *testing.T) {
	a, _, _ := cloudWatchEvent([]byte(`{"message":"first","timestamp":1}`))
	if _, _, err := cloudWatchEvent([]byte(`{"message":"second","timestamp":2}`)); err != nil {
		t.Fatal(err)
	}
	if string(a) != "first" {
		t.Errorf("first message became %q", a)
	}
}

func TestLooksLikeCloudWatchExport(t *testing.T) {
	cliHead := "{\n    \"events\": [\n        {\n            \"logStreamName\": \"ip-10-0-101-15.ec2.internal-application.var.log.containers.x.log\",\n            \"timestamp\": 1707760128974,\n            \"message\": \"{\\\"log\\\":\\\"2024-02-12T17:48:48.974879644Z stderr F {\\\\\\\"level\\\\\\\":"
	tests := []struct {
		name string
		head string
		want bool
	}{
		{"CLI export cut short inside the first message", cliHead, true},
		{"SDK snapshot", `{"events":[{"eventId":"__EventId__","ingestionTime":1,"logStreamName":"__LogStreamName__","message":"__Message__","timestamp":1}],"nextToken":"__NextToken__"}`, true},
		{"events after other keys", `{"nextToken":"t","searchedLogStreams":[{"logStreamName":"s","searchedCompletely":true}],"events":[{"message":"m","eventId":"1"}]}`, true},
		{"capitalised SDK output", `{"Events":[{"EventId":"1","Message":"m","Timestamp":1}]}`, true},
		{"get-log-events", `{"events":[{"timestamp":1,"message":"m","ingestionTime":2}],"nextForwardToken":"f"}`, true},
		{"message only", `{"events":[{"message":"m"}]}`, false},
		{"events empty", `{"events":[]}`, false},
		{"events not an array", `{"events":"x","message":"m","eventId":"1"}`, false},
		{"events nested", `{"spec":{"events":[{"message":"m","eventId":"1"}]}}`, false},
		{"key in a string value", `{"note":"\"events\":[{\"message\":\"m\",\"eventId\":\"1\"}]"}`, false},
		{"Kubernetes List", `{"apiVersion":"v1","items":[{"message":"m","eventId":"1"}],"kind":"List"}`, false},
		{"keys of the second element only", `{"events":[{"x":1},{"message":"m","eventId":"1"}]}`, false},
		{"gcloud array", `[{"insertId":"x"}]`, false},
		{"bare line", wrapBareALB, false},
		{"empty", "", false},
		{"cut after the key", `{"events"`, false},
	}
	for _, tt := range tests {
		if got := looksLikeCloudWatchExport([]byte(tt.head)); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzUnwrapLine(f *testing.F) {
	for _, s := range []string{wrapBareALB, wrapBareAccess, wrapBareError, wrapBareKlog, lbcListener1992,
		"2024-01-02T03:04:05.123456789Z " + wrapBareKlog, "2024-01-02T05:04:05.974+02:00\t" + wrapBareError,
		"2024-01-02T03:04:05Z stdout F x", "2024-01-02T03:04:06.100Z 2024-01-02T03:04:05.999Z stderr P y",
		`{"log":"2024-01-02T03:04:05.3Z stderr F y\n","time":"2024-01-02T03:04:06Z"}`,
		`2024-02-12T17:48:48.974+00:00	{"log":"2024-02-12T17:48:48.974879644Z stderr F {\"level\":\"info\",\"ts\":\"2024-02-12T17:48:48Z\",\"logger\":\"backend-sg-provider\",\"msg\":\"created SecurityGroup\",\"name\":\"k8s-traffic-mlkubecluster-a083a9e7d5\",\"id\":\"sg-VVVVVVVVVVVV\"}"}`,
		`{"log":"caf\u00e9 \ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if wrapHasLogKey(line) != bytes.Contains(line, []byte(`"log"`)) {
			t.Fatalf("wrapHasLogKey(%q) = %v", line, !bytes.Contains(line, []byte(`"log"`)))
		}
		orig := bytes.Clone(line)
		inner, stamp, scratch := unwrapLine(line, nil)
		if !bytes.Equal(line, orig) {
			t.Fatalf("line modified")
		}
		// Unwrapping only removes bytes: a prefix is cut off, or a JSON
		// string (never shorter escaped than unescaped) is taken out.
		if len(inner) > len(line) {
			t.Fatalf("inner %q longer than line %q", inner, line)
		}
		if !bytes.HasSuffix(line, inner) && !bytes.Contains(scratch, inner) {
			t.Fatalf("inner %q is neither a suffix of the line nor in scratch", inner)
		}
		if len(line) > 0 && !wrapMayStart(line) && (len(inner) != len(line) || &inner[0] != &line[0] || !stamp.IsZero()) {
			t.Fatalf("line without a wrapper start changed")
		}
		// The early answer for such a line is the one the layers give.
		if !wrapMayStart(line) {
			if _, _, ok := wrapSplitStamp(line); ok {
				t.Fatalf("wrapMayStart(%q) = false on a time prefix", line)
			}
			if _, _, _, ok := wrapFluentBitLog(line, nil); ok {
				t.Fatalf("wrapMayStart(%q) = false on a JSON wrapper", line)
			}
		}
		if !stamp.IsZero() && (stamp.Location() != time.UTC || stamp.Year() < -1 || stamp.Year() > 10000) {
			t.Fatalf("stamp %v", stamp)
		}
		// CloudWatch helpers must not panic either.
		looksLikeCloudWatchExport(line)
		if msg, _, err := cloudWatchEvent(line); err == nil && len(msg) > len(line) {
			t.Fatalf("message longer than the event")
		}
	})
}

func TestRefineWithStamp(t *testing.T) {
	sec := time.Date(2026, 3, 10, 12, 0, 2, 0, time.UTC)
	stamp := time.Date(2026, 3, 10, 12, 0, 2, 117300221, time.UTC)
	if got := refineWithStamp(sec, stamp); !got.Equal(stamp) {
		t.Errorf("stamp inside the second: got %v, want %v", got, stamp)
	}
	for _, s := range []time.Time{{}, stamp.Add(time.Second), sec.Add(-time.Millisecond)} {
		if got := refineWithStamp(sec, s); !got.Equal(sec) {
			t.Errorf("stamp %v outside the second: got %v, want %v", s, got, sec)
		}
	}
	precise := sec.Add(5 * time.Millisecond)
	if got := refineWithStamp(precise, stamp); !got.Equal(precise) {
		t.Errorf("a time with its own fraction must be kept: got %v", got)
	}
	// An access line read through kubectl --timestamps takes the stamp's precision.
	em := newEmitter(&collector{}, &Options{}, &InputReport{}, nil)
	col := em.h.(*collector)
	line := `203.0.113.10 - - [10/Mar/2026:12:00:02 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.005 [shop-web-80] [] 10.244.1.17:8080, 10.244.2.31:8080 0, 512 0.000, 0.004 502, 200 1d2f3e4a5b6c7d8e9f0a1b2c3d4e5f61`
	if err := (ingressNginx{}).Parse([]byte(line), &Line{Origin: Origin{"x", 1}, Stamp: stamp}, em); err != nil {
		t.Fatal(err)
	}
	if len(col.requests) != 1 || !col.requests[0].Logged().Equal(stamp) || !col.requests[0].Time.Equal(stamp.Add(-5*time.Millisecond)) {
		t.Fatalf("access line = %v, want logged at the stamp %v and started $request_time (5 ms) before", col.requests, stamp)
	}
}

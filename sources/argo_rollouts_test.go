package sources

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// TestArgoRolloutsSample reads the sample: the recorded events with their
// event_reason, the New weights line, and nothing from client-go's copy of
// an event or the other lines; the kubectl --timestamps stamp refines the
// whole second of logrus.
func TestArgoRolloutsSample(t *testing.T) {
	body, err := os.ReadFile("testdata/samples/argo-rollouts/controller.log")
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		kind          LifecycleKind
		object, group string
		count, from   int
		status, prev  string
		line          int
	}
	var got []rec
	for i, line := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) {
		// client-go's copy of an event names no rollout key: it is read
		// (as nothing) but does not make a file this format.
		if (argoRollouts{}).Match(line) != bytes.Contains(line, []byte("rollout")) {
			t.Errorf("line %d: Match %v", i+1, !bytes.Contains(line, []byte("rollout")))
		}
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		stamp := time.Time{}
		if i == 0 {
			stamp = time.Date(2025, 8, 29, 6, 41, 45, 605000000, time.UTC) // #4433's time of the switch
		}
		if err := (argoRollouts{}).Parse(line, &Line{Origin: Origin{File: "f", Line: i + 1}, Stamp: stamp}, em); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, l := range c.lifecycle {
			if l.Format != FormatArgoRollouts || l.Source != argoSource || l.FromAPI || l.Time.IsZero() {
				t.Errorf("line %d: %+v", i+1, l)
			}
			if i == 0 && !l.Time.Equal(stamp) {
				t.Errorf("time %v, want the stamp %v", l.Time, stamp)
			}
			got = append(got, rec{l.Kind, l.Object, l.Group, l.Count, l.From, l.Status, l.Previous, l.Origin.Line})
		}
	}
	want := []rec{
		{ServiceSwitched, "Rollout/example", "example-service-active", 0, -1, "7fdb8fff6b", "56b5dc5bc", 1},
		{TrafficWeight, "Rollout/example", "", 0, -1, "", "", 3},
		{TrafficWeight, "Rollout/example", "", 0, 100, "", "", 4},
		{RolloutCompleted, "Rollout/example", "", 0, -1, "", "", 5},
		{ScaledDown, "Rollout/example", "example-56b5dc5bc", 0, 3, "", "", 6},
		{ServiceSwitched, "Rollout/vod", "vod-stitcher", 0, -1, "f7cc77d48", "", 8},
	}
	if len(got) != len(want) {
		t.Fatalf("records %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestArgoRolloutsMalformed: a line without a valid time, or with an
// unterminated quote, is an error; lines of other formats do not match.
func TestArgoRolloutsMalformed(t *testing.T) {
	for _, line := range []string{
		`time="yesterday" level=info msg="Switched selector for service 'a' from '' to 'b'" event_reason=SwitchService namespace=x rollout=y`,
		`time="2025-08-29T06:41:45Z" level=info msg="unterminated event_reason=SwitchService rollout=y`,
		`{"event_reason":"SwitchService","msg":"x","rollout":"y","time":"2025-13-01T00:00:00Z"}`,
		`{"rollout":`,
	} {
		c := &collector{}
		if err := (argoRollouts{}).Parse([]byte(line), &Line{}, newEmitter(c, &Options{}, &InputReport{}, nil)); err == nil || len(c.lifecycle) != 0 {
			t.Errorf("%s: error %v, %d records", line, err, len(c.lifecycle))
		}
	}
	for _, line := range []string{
		`{"level":"info","ts":"2025-08-29T07:23:00Z","msg":"registering targets"}`,
		`I0829 06:41:45.605000       1 main.go:1] rollout=web`,
	} {
		if (argoRollouts{}).Match([]byte(line)) {
			t.Errorf("%s matches", line)
		}
	}
}

func FuzzArgoRollouts(f *testing.F) {
	body, err := os.ReadFile("testdata/samples/argo-rollouts/controller.log")
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) {
		f.Add(string(line), int64(0))
		f.Add(string(line), int64(1756449705605))
	}
	f.Fuzz(func(t *testing.T, line string, stampMS int64) {
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		ln := &Line{Origin: Origin{File: "f", Line: 1}, Stamp: time.UnixMilli(stampMS).UTC()}
		err := (argoRollouts{}).Parse([]byte(line), ln, em)
		if err != nil && len(c.lifecycle) != 0 {
			t.Fatalf("error %v after %d records", err, len(c.lifecycle))
		}
		for _, l := range c.lifecycle {
			if l.Time.IsZero() || l.Kind == LifecycleOther || l.Format != FormatArgoRollouts {
				t.Errorf("record %+v", l)
			}
		}
	})
}

func BenchmarkArgoRollouts(b *testing.B) {
	body, err := os.ReadFile("testdata/samples/argo-rollouts/controller.log")
	if err != nil {
		b.Fatal(err)
	}
	benchmarkLines(b, argoRollouts{}, bytes.Split(bytes.TrimSpace(body), []byte("\n")))
}

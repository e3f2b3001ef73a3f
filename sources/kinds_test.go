package sources

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// Every record kept is counted under one kind of source, whose counts add
// up to the input's and whose times lie within the input's; the window
// keeps them alike.
func TestRecordKindsOfEachInput(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "formats")
	for _, opts := range []Options{{}, {Since: time.Date(2026, 3, 10, 12, 0, 2, 0, time.UTC)}} {
		res, h := readPaths(t, opts, dir)
		var total [NumRecordKinds]int
		for _, in := range res.Inputs {
			sum := 0
			for k, s := range in.Kinds {
				sum += s.Records
				total[k] += s.Records
				if !s.First.IsZero() && (s.First.Before(in.First) || s.Last.After(in.Last)) {
					t.Errorf("%s: %s %v–%v outside the input's %v–%v", in.Name, RecordKind(k), s.First, s.Last, in.First, in.Last)
				}
			}
			if sum != in.Records {
				t.Errorf("%s: kinds hold %d records, the input %d", in.Name, sum, in.Records)
			}
		}
		if total[KindRequestLog] != h.requests || total[KindObject] < h.config {
			t.Errorf("%v: %d request-log records for %d requests, %d object records for %d configs", opts.Since, total[KindRequestLog], h.requests, total[KindObject], h.config)
		}
		if sum := total[KindEvent] + total[KindObject] + total[KindControllerLog] + total[KindHealthCheck]; sum != h.lifecycle+h.config {
			t.Errorf("%v: %d other records for %d lifecycle and %d config", opts.Since, sum, h.lifecycle, h.config)
		}
		for _, k := range []RecordKind{KindRequestLog, KindEvent, KindObject, KindControllerLog, KindHealthCheck} {
			if total[k] == 0 && opts.Since.IsZero() {
				t.Errorf("the formats fixture gave no %s", k)
			}
		}
	}
}

func TestLifecycleKind(t *testing.T) {
	for _, c := range []struct {
		l    Lifecycle
		want RecordKind
	}{
		{Lifecycle{Format: FormatK8sObjects, FromAPI: true, Kind: PodReady}, KindObject},
		{Lifecycle{Format: FormatK8sEvents, FromAPI: true, Kind: Killing}, KindEvent},
		{Lifecycle{Format: FormatGCPLogging, FromAPI: true, Kind: NEGAttach}, KindEvent},
		{Lifecycle{Format: FormatGCPLogging, Kind: HealthCheck}, KindHealthCheck},
		{Lifecycle{Format: FormatALBHealthCheck, Kind: HealthCheck}, KindHealthCheck},
		{Lifecycle{Format: FormatAWSLBC, Kind: TargetRegistered}, KindControllerLog},
		{Lifecycle{Format: FormatIngressNginx, Kind: NoEndpoints}, KindControllerLog},
	} {
		if got := lifecycleKind(&c.l); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.l.Format, c.l.Kind, got, c.want)
		}
	}
}

// Inputs that give nothing are listed with their reasons, also when none
// gives anything: Read's error then says so, and its Result still lists them.
func TestReadListsUnreadInputs(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.txt", []byte("hello\n"))
	b := writeFile(t, dir, "b.log.gz", []byte{0x1f, 0x8b, 0, 0})
	res, err := Read(context.Background(), []string{dir}, Options{}, func(*InputReport) Handler { return &countingHandler{} })
	var nothing *NothingReadError
	if !errors.As(err, &nothing) || len(res.Unread) != 2 {
		t.Fatalf("err %v, unread %+v", err, res.Unread)
	}
	if res.Unread[0].Name != a || res.Unread[0].Reason != "not in a format readygap reads" || res.Unread[1].Name != b || res.Unread[1].Reason == "" {
		t.Errorf("unread %+v", res.Unread)
	}
	if res.Unread[0].Empty || res.Unread[1].Empty {
		t.Errorf("inputs with data marked empty: %+v", res.Unread)
	}
	// Inputs that hold no data say so: they cannot hide anything.
	for _, c := range []struct{ name, text, reason string }{
		{"blank.log", " \n\n", "empty input"},
		{"entries.json", "[]\n", "empty input: a JSON document with no element"},
		{"events.json", `{"apiVersion":"v1","items":[],"kind":"List","metadata":{"resourceVersion":""}}`, "empty input: a JSON document with no element"},
	} {
		p := writeFile(t, t.TempDir(), c.name, []byte(c.text))
		res, err := Read(context.Background(), []string{p}, Options{}, func(*InputReport) Handler { return &countingHandler{} })
		if !errors.As(err, &nothing) || len(res.Unread) != 1 || !res.Unread[0].Empty || res.Unread[0].Reason != c.reason {
			t.Errorf("%s: err %v, unread %+v", c.name, err, res.Unread)
		}
	}
	// A JSON document whose elements are in no known format is not empty.
	p := writeFile(t, t.TempDir(), "other.json", []byte(`{"items":[{"a":1}]}`))
	if res, _ := Read(context.Background(), []string{p}, Options{}, func(*InputReport) Handler { return &countingHandler{} }); len(res.Unread) != 1 || res.Unread[0].Empty {
		t.Errorf("other.json: %+v", res.Unread)
	}
	known := filepath.Join("..", "fixtures", "formats", "ingress-nginx-controller.log")
	res, err = Read(context.Background(), []string{a, known}, Options{}, func(*InputReport) Handler { return &countingHandler{} })
	if err != nil || len(res.Unread) != 1 || res.Unread[0].Name != a || len(res.Inputs) != 1 {
		t.Errorf("err %v, unread %+v", err, res.Unread)
	}
}

package sources

import (
	"testing"
	"time"
)

func TestCurlLoopParse(t *testing.T) {
	stamp := utc(2026, 3, 14, 9, 41, 0, 12000)
	tests := []struct {
		name      string
		line      string
		stamp     time.Time
		status    int
		time      time.Time
		orderOnly bool
	}{
		{"status and time_total after an RFC 3339 stamp", "503 0.001102", stamp, 503, stamp, false},
		{"no response", "000 0.000000", stamp, 0, stamp, false},
		{"epoch seconds", "1773481265.012 200 0.003998", time.Time{}, 200, utc(2026, 3, 14, 9, 41, 5, 12000), false},
		{"whole epoch seconds", "1773481265 502", time.Time{}, 502, utc(2026, 3, 14, 9, 41, 5, 0), false},
		{"status alone, no time: order only", "503", time.Time{}, 503, time.Time{}, true},
		{"several numbers", "200 0.004 612 0.001", stamp, 200, stamp, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &collector{}
			rep := &InputReport{}
			em := newEmitter(c, &Options{ReadAt: utc(2026, 1, 1, 0, 0, 0, 0)}, rep, nil)
			if !(curlLoop{}).Match([]byte(tt.line)) {
				t.Errorf("Match = false")
			}
			if err := (curlLoop{}).Parse([]byte(tt.line), &Line{Origin: Origin{File: "f", Line: 3}, Stamp: tt.stamp}, em); err != nil {
				t.Fatal(err)
			}
			if len(c.requests) != 1 {
				t.Fatalf("%d requests", len(c.requests))
			}
			r := c.requests[0]
			if r.Status != tt.status || !r.ClientSide || r.OrderOnly != tt.orderOnly || r.Backend.IsValid() || r.Generator != GeneratedUnknown {
				t.Errorf("got status %d client %v order-only %v backend %v generator %v", r.Status, r.ClientSide, r.OrderOnly, r.Backend, r.Generator)
			}
			if !tt.orderOnly && !r.Time.Equal(tt.time) {
				t.Errorf("time %v, want %v", r.Time, tt.time)
			}
			if rep.Kinds[KindClientLog].Records != 1 || rep.Kinds[KindRequestLog].Records != 0 {
				t.Errorf("kinds %+v: a client-side request is no request log", rep.Kinds)
			}
		})
	}
}

func TestCurlLoopRejects(t *testing.T) {
	for _, line := range []string{
		"", "HTTP/1.1 503", "503 Service Unavailable", "999 0.1", "50 0.1", "12345 503", "10.0.0.1 503",
		"200.5", "1773481265.012 2000", ".5 200",
	} {
		if (curlLoop{}).Match([]byte(line)) {
			t.Errorf("Match(%q) = true", line)
		}
	}
}

// TestCurlLoopSample reads the sample through the pipeline: detected as
// curl-loop, five client-side requests, none skipped.
func TestCurlLoopSample(t *testing.T) {
	res, h := readPaths(t, Options{}, "testdata/samples/load-tests/curl-loop.log")
	in := res.Inputs[0]
	if in.Format != FormatCurlLoop || in.Skipped != 0 || h.requests != 5 || in.Kinds[KindClientLog].Records != 5 {
		t.Errorf("format %q skipped %d requests %d kinds %+v", in.Format, in.Skipped, h.requests, in.Kinds)
	}
}

func FuzzCurlLoop(f *testing.F) {
	for _, s := range []string{"503 0.001", "000", "1773481265.012 200 0.003998", "200"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		err := (curlLoop{}).Parse([]byte(line), &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if (err == nil) != (len(c.requests) == 1) {
			t.Fatalf("error %v with %d requests", err, len(c.requests))
		}
		for _, r := range c.requests {
			if !r.ClientSide || r.Status != 0 && (r.Status < 100 || r.Status > 599) {
				t.Errorf("bad request %+v", r)
			}
		}
	})
}

// TestReadLineIsNoCurlLoop: `readygap explain 503` looks the value up; a
// bare status is no curl loop's line there.
func TestReadLineIsNoCurlLoop(t *testing.T) {
	for _, v := range []string{"503", "502 0.004"} {
		if lo := ReadLine(v); lo.Format != "" {
			t.Errorf("ReadLine(%q) read as %s", v, lo.Format)
		}
	}
}

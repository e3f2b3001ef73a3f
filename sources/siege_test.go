package sources

import (
	"testing"
	"time"
)

func TestSiegeParse(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		status    int
		time      time.Time // zero: order only
		method    string
		path      string
		detail    string
		noRecords bool
	}{
		{"timestamped", "[Sat, 2026-03-14 09:41:00] HTTP/1.1 503     0.01 secs:     197 bytes ==> GET  /", 503, utc(2026, 3, 14, 9, 41, 0, 0), "GET", "/", "", false},
		{"cached", "HTTP/1.1 200(C)  0.00 secs:       0 bytes ==> GET  /expires/", 200, time.Time{}, "GET", "/expires/", "", false},
		{"display-id", "100) HTTP/1.1 200   0.31 secs:   35338 bytes ==> GET  /images/bbc.jpg", 200, time.Time{}, "GET", "/images/bbc.jpg", "", false},
		{"no method (older siege)", "HTTP/1.1 304   0.00 secs:       0 bytes ==> /apache_pb.gif", 304, time.Time{}, "", "/apache_pb.gif", "", false},
		{"csv", "HTTP/1.1,503,  0.01,    197,/,1,2026-03-14 09:41:00", 503, utc(2026, 3, 14, 9, 41, 0, 0), "", "/", "", false},
		{"csv with id", "   3,HTTP/1.1,502,  0.01,    157,/api,1,2026-03-14 09:41:01", 502, utc(2026, 3, 14, 9, 41, 1, 0), "", "/api", "", false},
		{"socket error", "[error] socket: unable to connect sock.c:282: Connection refused", 0, time.Time{}, "", "", "socket: unable to connect sock.c:282: Connection refused", false},
		{"other notice", "[error] descriptor table full sock.c:133: Too many open files", 0, time.Time{}, "", "", "", true},
		{"banner", "** SIEGE 4.1.6", 0, time.Time{}, "", "", "", true},
		{"summary", "Availability:		       66.67 %", 0, time.Time{}, "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := requestOfLine(t, siege{}, "siege.log", tt.line, tt.noRecords)
			if r == nil {
				return
			}
			if r.Status != tt.status || r.Method != tt.method || r.Path != tt.path || r.Detail != tt.detail || !r.ClientSide {
				t.Errorf("got %d %q %q %q client %v", r.Status, r.Method, r.Path, r.Detail, r.ClientSide)
			}
			if r.OrderOnly != tt.time.IsZero() || !tt.time.IsZero() && !r.Time.Equal(tt.time) {
				t.Errorf("time %v order-only %v, want %v", r.Time, r.OrderOnly, tt.time)
			}
		})
	}
}

func TestSiegeMalformed(t *testing.T) {
	for _, line := range []string{
		"HTTP/1.1 999 0.01 secs: 1 bytes ==> GET /",
		"[Sat, 2026-13-14 09:41:00] HTTP/1.1 503 0.01 secs: 1 bytes ==> GET /",
		"HTTP/1.1,abc,0.01,1,/,1,2026-03-14 09:41:00",
		"something else entirely",
	} {
		c, rep := runLines(t, siege{}, "siege.log", line)
		if rep.Skipped != 1 || len(c.requests) != 0 {
			t.Errorf("%q: skipped %d requests %d, want one skip", line, rep.Skipped, len(c.requests))
		}
	}
	for _, line := range []string{`10.0.0.1 - - [14/Mar/2026:09:41:00 +0000] "GET / HTTP/1.1" 503 197 "-" "curl/8.5.0"`, "503 0.01"} {
		if (siege{}).Match([]byte(line)) {
			t.Errorf("Match(%q) = true", line)
		}
	}
}

// TestSiegeSamples reads the samples through the pipeline.
func TestSiegeSamples(t *testing.T) {
	for name, want := range map[string]int{"siege.log": 6, "siege.csv": 3} {
		res, h := readPaths(t, Options{}, "testdata/samples/load-tests/"+name)
		in := res.Inputs[0]
		if in.Format != FormatSiege || in.Skipped != 0 || h.requests != want {
			t.Errorf("%s: format %q skipped %d %v requests %d, want siege, 0, %d", name, in.Format, in.Skipped, in.SkipSamples(), h.requests, want)
		}
	}
}

func FuzzSiege(f *testing.F) {
	for _, s := range []string{
		"[Sat, 2026-03-14 09:41:00] HTTP/1.1 503     0.01 secs:     197 bytes ==> GET  /",
		"   3,HTTP/1.1,502,  0.01,    157,/api,1,2026-03-14 09:41:01",
		"[error] socket: unable to connect sock.c:282: Connection refused",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		err := (siege{}).Parse([]byte(line), &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if err != nil && len(c.requests) != 0 {
			t.Fatalf("error %v after a request", err)
		}
		for _, r := range c.requests {
			if !r.ClientSide || r.Time.IsZero() || r.Status != 0 && (r.Status < 100 || r.Status > 599) {
				t.Errorf("bad request %+v", r)
			}
		}
	})
}

package sources

import (
	"strings"
	"testing"
)

func TestFortioParse(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		status int
		detail string
		none   bool
	}{
		{"non ok code", `{"ts":1773481260.012034,"level":"warn","r":40,"file":"http_client.go","line":1159,"msg":"Non ok http code","code":503,"status":"HTTP/1.1 503","thread":0,"run":0}`, 503, "HTTP/1.1 503", false},
		{"std client, no status attribute", `{"ts":1773481260.5,"level":"warn","r":40,"file":"http_client.go","line":567,"msg":"Non ok http code","code":502,"thread":0,"run":0}`, 502, "", false},
		{"connect failure", `{"ts":1773481264.301122,"level":"err","r":41,"file":"http_client.go","line":962,"msg":"Unable to connect","dest":"203.0.113.10:80","err":"dial tcp 203.0.113.10:80: connect: connection refused","numfd":9,"thread":1,"run":0}`, 0, "Unable to connect: dial tcp 203.0.113.10:80: connect: connection refused", false},
		{"start", `{"ts":1773481201.000213,"level":"info","r":1,"file":"httprunner.go","line":121,"msg":"Starting http test","run":0,"url":"http://shop.example.com/","threads":4}`, 0, "", true},
		{"no goroutine id or file", `{"ts":1773481260.012034,"level":"warn","msg":"Non ok http code","code":504,"thread":0,"run":0}`, 504, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !(fortio{}).Match([]byte(tt.line)) {
				t.Errorf("Match = false")
			}
			r := requestOfLine(t, fortio{}, "fortio.log", tt.line, tt.none)
			if r == nil {
				return
			}
			if r.Status != tt.status || r.Detail != tt.detail || !r.ClientSide || r.Time.IsZero() || r.OrderOnly {
				t.Errorf("got %d %q client %v time %v", r.Status, r.Detail, r.ClientSide, r.Time)
			}
		})
	}
	c, _ := runLines(t, fortio{}, "f", `{"ts":1773481260.012034,"level":"warn","msg":"Non ok http code","code":503}`)
	if got := c.requests[0].Time; !got.Equal(utc(2026, 3, 14, 9, 41, 0, 12034)) {
		t.Errorf("time %v", got)
	}
}

func TestFortioMalformed(t *testing.T) {
	for _, line := range []string{
		`{"ts":"now","level":"warn","msg":"Non ok http code","code":503}`,
		`{"ts":1773481260.0,"level":"warn","msg":"Non ok http code"}`,
		`{"ts":1773481260.0,"level":"warn","msg":"Non ok http code","code":42}`,
		`{"ts":1773481260.0,"level":"warn"`,
	} {
		c, rep := runLines(t, fortio{}, "fortio.log", line)
		if rep.Skipped != 1 || len(c.requests) != 0 {
			t.Errorf("%s: skipped %d requests %d", line, rep.Skipped, len(c.requests))
		}
	}
	for _, line := range []string{lbcDeregistering3069, `{"level":"info","time":"2020-10-20T18:38:58.575231Z","scope":"ads","msg":"x"}`} {
		if (fortio{}).Match([]byte(line)) {
			t.Errorf("Match(%s) = true", line)
		}
	}
}

// TestFortioSamples reads the log and the result through the pipeline: the
// log gives 22 client-side requests (21 503s, 1 without a response), the
// result none but a warning with its counts.
func TestFortioSamples(t *testing.T) {
	res, h := readPaths(t, Options{}, "testdata/samples/load-tests/fortio.log")
	if in := res.Inputs[0]; in.Format != FormatFortio || in.Skipped != 0 || h.requests != 22 {
		t.Errorf("log: format %q skipped %d requests %d", in.Format, in.Skipped, h.requests)
	}
	res, h = readPaths(t, Options{}, "testdata/samples/load-tests/fortio-result.json")
	in := res.Inputs[0]
	if in.Format != FormatFortioResult || h.requests != 0 {
		t.Fatalf("result: format %q requests %d", in.Format, h.requests)
	}
	want := "2400 requests from 2026-03-14T09:40:01Z to 2026-03-14T09:42:01Z: no response×1, 200×2378, 503×21"
	if len(in.Warnings) != 1 || !strings.Contains(in.Warnings[0], want) {
		t.Errorf("warnings %q lack %q", in.Warnings, want)
	}
}

func FuzzFortio(f *testing.F) {
	for _, s := range []string{
		`{"ts":1773481260.012034,"level":"warn","r":40,"file":"http_client.go","line":1159,"msg":"Non ok http code","code":503,"status":"HTTP/1.1 503","thread":0,"run":0}`,
		`{"ts":1773481264.301122,"level":"err","msg":"Unable to connect","err":"refused"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := &collector{}
		em := newEmitter(c, &Options{}, &InputReport{}, nil)
		err := (fortio{}).Parse([]byte(line), &Line{Origin: Origin{File: "f", Line: 1}}, em)
		if err != nil && len(c.requests) != 0 {
			t.Fatalf("error %v after a request", err)
		}
		for _, r := range c.requests {
			if !r.ClientSide || r.Status != 0 && (r.Status < 100 || r.Status > 599) {
				t.Errorf("bad request %+v", r)
			}
		}
	})
}

package sources

import (
	"bufio"
	"bytes"
	"testing"
)

// collector is a Handler that keeps copies of everything it is given.
type collector struct {
	requests  []*Request
	lifecycle []Lifecycle
	configs   []*Config
}

func (c *collector) Request(r *Request)     { c.requests = append(c.requests, r.Clone()) }
func (c *collector) Lifecycle(l *Lifecycle) { c.lifecycle = append(c.lifecycle, *l) }
func (c *collector) Config(x *Config)       { cp := *x; c.configs = append(c.configs, &cp) }

// runLines feeds every line of text to a line adapter, as the pipeline would
// for an unwrapped file named name, and returns what it emitted.
func runLines(t testing.TB, a lineAdapter, name, text string) (*collector, *InputReport) {
	t.Helper()
	c := &collector{}
	return c, runLinesTo(t, c, a, name, text)
}

// outcomeCollector is a collector that says it reads only the outcomes of
// successes (see OutcomeHandler).
type outcomeCollector struct{ *collector }

func (outcomeCollector) OnlyOutcomesOfSuccesses() {}

// runLinesTo is runLines with the Handler h.
func runLinesTo(t testing.TB, h Handler, a lineAdapter, name, text string) *InputReport {
	t.Helper()
	rep := &InputReport{Name: name, Format: a.Format()}
	em := newEmitter(h, &Options{}, rep, newDedupSet())
	sc := bufio.NewScanner(bytes.NewReader([]byte(text)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ln := &Line{Origin: Origin{File: name, Line: n}}
		if err := a.Parse(line, ln, em); err != nil {
			em.Skip(ln.Origin, err.Error())
		}
	}
	return rep
}

// runJSON feeds one JSON element to a JSON adapter and returns what it emitted.
func runJSON(t testing.TB, a jsonAdapter, name, elem string) (*collector, *InputReport) {
	t.Helper()
	c := &collector{}
	rep := &InputReport{Name: name, Format: a.Format()}
	em := newEmitter(c, &Options{}, rep, newDedupSet())
	o := Origin{File: name, Line: 1}
	if err := a.ParseJSON([]byte(elem), o, em); err != nil {
		em.Skip(o, err.Error())
	}
	return c, rep
}

// TestRequestCloneOwnsItsStrings checks that a clone survives the reuse of
// the buffer its strings were cut from.
func TestRequestCloneOwnsItsStrings(t *testing.T) {
	buf := []byte("app/lbGET/pathreason")
	r := &Request{LB: inputString(buf[0:6]), Method: inputString(buf[6:9]), Path: inputString(buf[9:14]), Detail: inputString(buf[14:]),
		Attempts: []Attempt{{Status: 502}}}
	c := r.Clone()
	for i := range buf {
		buf[i] = 'x'
	}
	r.Attempts[0].Status = 200
	if c.LB != "app/lb" || c.Method != "GET" || c.Path != "/path" || c.Detail != "reason" || c.Attempts[0].Status != 502 {
		t.Fatalf("clone changed with its source: %+v", c)
	}
}

// requestOfLine reads one line with a and returns the request it gave;
// nil, after checking it gave none, when none is true. A line must never
// be skipped.
func requestOfLine(t *testing.T, a lineAdapter, name, line string, none bool) *Request {
	t.Helper()
	c, rep := runLines(t, a, name, line)
	if rep.Skipped != 0 {
		t.Fatalf("skipped %v", rep.SkipSamples())
	}
	if none {
		if len(c.requests) != 0 {
			t.Errorf("%d requests, want none", len(c.requests))
		}
		return nil
	}
	if len(c.requests) != 1 {
		t.Fatalf("%d requests", len(c.requests))
	}
	return c.requests[0]
}

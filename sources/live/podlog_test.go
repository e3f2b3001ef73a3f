package live

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseProxyTarget(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		kind     ProxyKind
	}{
		{"istio-system/deploy/istio-ingressgateway", "istio-system/deploy/istio-ingressgateway", KindDeployment},
		{"ingress-nginx/deployment.apps/ingress-nginx-controller", "ingress-nginx/deploy/ingress-nginx-controller", KindDeployment},
		{"projectcontour/ds/envoy -c envoy", "projectcontour/ds/envoy -c envoy", KindDaemonSet},
		{"projectcontour/DaemonSets/envoy --container=envoy", "projectcontour/ds/envoy -c envoy", KindDaemonSet},
		{"gw/sts/edge -cproxy", "gw/sts/edge -c proxy", KindStatefulSet},
		{"deploy/web -c istio-proxy", "deploy/web -c istio-proxy", KindDeployment},
		{"envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=eg", "envoy-gateway-system/-l gateway.envoyproxy.io/owning-gateway-name=eg", KindSelector},
		{"envoy-gateway-system/-lgateway.envoyproxy.io/owning-gateway-name=eg,app=x -c envoy", "envoy-gateway-system/-l app=x,gateway.envoyproxy.io/owning-gateway-name=eg -c envoy", KindSelector},
		{"-c envoy --selector=app=x", "-l app=x -c envoy", KindSelector},
		{"edge/-l tier in (edge, internal) -c envoy", "edge/-l tier in (edge,internal) -c envoy", KindSelector},
		{"edge/-l=app!=canary", "edge/-l app!=canary", KindSelector},
		{"istio-system/istio-ingressgateway-7d9f-abcde", "istio-system/pod/istio-ingressgateway-7d9f-abcde", KindPod},
		{"po/web-1", "pod/web-1", KindPod},
		{"web-1", "pod/web-1", KindPod},
	} {
		got, err := ParseProxyTarget(tt.in)
		if err != nil || got.String() != tt.want || got.Kind != tt.kind {
			t.Errorf("ParseProxyTarget(%q) = %q (%s), %v; want %q (%s)", tt.in, got, got.Kind, err, tt.want, tt.kind)
		}
	}
	for _, tt := range []struct{ in, why string }{
		{"", "empty"},
		{"istio-system/svc/istio-ingressgateway", `"svc" is not a Deployment, DaemonSet, StatefulSet or Pod`},
		{"a/b/c/d", "too many slashes"},
		{"istio-system/deploy/Bad_Name", `"Bad_Name" is not a valid name`},
		{"Istio/deploy/x", `"Istio" is not a valid namespace`},
		{"deploy/x -l app=x", "a selector goes alone"},
		{"ns/-l", "-l needs a value"},
		{"ns/-l app=(", "bad selector"},
		{"deploy/x -c a -c b", "one -c at most"},
		{"deploy/x --previous", `unexpected "--previous"`},
		{"ns/-c envoy", "no KIND/NAME, POD or -l SELECTOR"},
	} {
		_, err := ParseProxyTarget(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.why) || !strings.Contains(err.Error(), "want [NAMESPACE/]deploy/NAME") {
			t.Errorf("ParseProxyTarget(%q) error %v, want one saying %q and the forms", tt.in, err, tt.why)
		}
	}
}

// stamped renders lines as the kubelet writes them with timestamps=true.
func stamped(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

// failAfter is a reader that returns r and then err instead of io.EOF.
type failAfter struct {
	r   io.Reader
	err error
}

func (f *failAfter) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		err = f.err
	}
	return n, err
}

func TestCopyPodLogWindow(t *testing.T) {
	w := Window{Since: time.Date(2024, 5, 1, 23, 40, 0, 500_000_000, time.UTC), Until: time.Date(2024, 5, 2, 0, 10, 0, 0, time.UTC)}
	in := stamped(
		"2024-05-01T23:40:00.000000000Z before the window (sinceTime is sent in whole seconds)",
		"2024-05-01T23:40:00.500000000Z at the window's start",
		"a line without a time is kept",
		"2024-05-02T00:09:59.999999999Z the last inside",
		"2024-05-02T00:10:00.000000000Z at the window's end: reading stops",
		"2024-05-02T00:20:00.000000000Z never read",
	)
	var out bytes.Buffer
	c, err := copyPodLog(&out, strings.NewReader(in), w, 1<<20, nil)
	want := stamped(
		"2024-05-01T23:40:00.500000000Z at the window's start",
		"a line without a time is kept",
		"2024-05-02T00:09:59.999999999Z the last inside",
	)
	if err != nil || out.String() != want || c.lines != 3 || c.bytes != int64(len(want)) || c.limited {
		t.Fatalf("%v %+v\n%s", err, c, out.String())
	}
	if c.first != time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC) || c.lastSaved != time.Date(2024, 5, 2, 0, 9, 59, 999999999, time.UTC) {
		t.Fatalf("first %v, last saved %v", c.first, c.lastSaved)
	}
	if stop := strings.Index(in, "2024-05-02T00:20"); c.read > int64(stop) {
		t.Fatalf("read %d bytes, past the line at the window's end (%d)", c.read, stop)
	}

	// The container's last line without a newline gets one.
	out.Reset()
	c, err = copyPodLog(&out, strings.NewReader("2024-05-01T23:50:00Z last words"), w, 1<<20, nil)
	if err != nil || out.String() != "2024-05-01T23:50:00Z last words\n" || c.lines != 1 {
		t.Fatalf("%v %q", err, out.String())
	}

	// A read error drops the line it cuts and returns the error.
	out.Reset()
	broken := errors.New("stream broke")
	c, err = copyPodLog(&out, &failAfter{strings.NewReader(stamped("2024-05-01T23:50:00Z whole") + "2024-05-01T23:50:01Z cut sh"), broken}, w, 1<<20, nil)
	if err != broken || out.String() != stamped("2024-05-01T23:50:00Z whole") || c.lines != 1 {
		t.Fatalf("%v %q", err, out.String())
	}
}

func TestCopyPodLogBudget(t *testing.T) {
	w := Window{Since: time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC), Until: time.Date(2024, 5, 2, 0, 10, 0, 0, time.UTC)}
	in := stamped("2024-05-01T23:50:00Z one", "2024-05-01T23:50:01Z two", "2024-05-01T23:50:02Z three")
	two := int64(len(stamped("2024-05-01T23:50:00Z one", "2024-05-01T23:50:01Z two")))
	for _, tt := range []struct {
		name    string
		budget  int64
		lines   int
		limited bool
	}{
		{"the whole log fits exactly", int64(len(in)), 3, false},
		{"one byte short: the last line is dropped", int64(len(in)) - 1, 2, true},
		{"exactly two lines", two, 2, true},
		{"a byte short of two lines", two - 1, 1, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// The server sends at most budget+1 bytes, cutting mid-line.
			sent := in[:min(int64(len(in)), tt.budget+1)]
			var out bytes.Buffer
			c, err := copyPodLog(&out, strings.NewReader(sent), w, tt.budget, nil)
			if err != nil || c.lines != tt.lines || c.limited != tt.limited || !strings.HasSuffix(out.String(), "\n") || int64(out.Len()) > tt.budget {
				t.Fatalf("%v %+v %q", err, c, out.String())
			}
		})
	}
}

func TestCopyPodLogLongLines(t *testing.T) {
	w := Window{Since: time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC), Until: time.Date(2024, 5, 2, 0, 10, 0, 0, time.UTC)}
	long := "2024-05-01T23:50:00Z " + strings.Repeat("x", 3*podLogLineBuffer)
	longBefore := "2024-05-01T23:00:00Z " + strings.Repeat("y", 2*podLogLineBuffer)
	in := stamped(longBefore, long, "2024-05-01T23:50:01Z short")
	var out bytes.Buffer
	var reported int64
	c, err := copyPodLog(&out, strings.NewReader(in), w, 1<<30, func(_ int, n int64) { reported += n })
	if err != nil || out.String() != stamped(long, "2024-05-01T23:50:01Z short") || c.lines != 2 || reported != int64(out.Len()) {
		t.Fatalf("%v %+v, reported %d of %d bytes", err, c, reported, out.Len())
	}
	// Cut by the budget in the middle: what was written ends with a newline.
	out.Reset()
	budget := int64(2 * podLogLineBuffer)
	c, err = copyPodLog(&out, strings.NewReader(in[len(longBefore)+1:][:budget+1]), w, budget, nil)
	if err != nil || !c.limited || c.lines != 1 || !strings.HasSuffix(out.String(), "x\n") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("%v %+v", err, c)
	}
}

package sources

import (
	"testing"
	"time"
)

func TestIngressNginxReconfiguration(t *testing.T) {
	stamp := utc(2026, 3, 14, 9, 44, 2, 0)
	tests := []struct {
		name   string
		line   string
		kind   LifecycleKind
		reason string
		time   time.Time
	}{
		// Real, kubernetes/ingress-nginx#4134 (v0.24, Infof with a period).
		{"dynamic reconfiguration", `I0520 11:10:37.726813       7 controller.go:204] Dynamic reconfiguration succeeded.`,
			ProxyUpdated, nginxReasonDynamic, utc(2026, 5, 20, 11, 10, 37, 726813)},
		// Constructed from internal/ingress/controller/controller.go at
		// dbb11b92 (InfoS quotes its message; Warningf does not).
		{"reload required", `I0314 09:44:01.912345       7 controller.go:217] "Configuration changes detected, backend reload required"`,
			LifecycleOther, nginxReasonReloadRequired, utc(2026, 3, 14, 9, 44, 1, 912345)},
		{"reloaded", `I0314 09:44:01.998765       7 controller.go:231] "Backend successfully reloaded"`,
			LifecycleOther, nginxReasonReloaded, utc(2026, 3, 14, 9, 44, 1, 998765)},
		{"v0 reloaded", `I0314 09:44:01.998765       7 controller.go:157] Backend successfully reloaded.`,
			LifecycleOther, nginxReasonReloaded, utc(2026, 3, 14, 9, 44, 1, 998765)},
		{"failed", `W0314 09:44:02.100000       7 controller.go:263] Dynamic reconfiguration failed (retrying; 14 retries left): Post "http://127.0.0.1:10246/configuration/backends": dial tcp 127.0.0.1:10246: connect: connection refused`,
			LifecycleOther, nginxReasonDynamicFailed, utc(2026, 3, 14, 9, 44, 2, 100000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &collector{}
			rep := &InputReport{}
			em := newEmitter(c, &Options{}, rep, nil)
			if err := (ingressNginx{}).Parse([]byte(tt.line), &Line{Origin: Origin{File: "f", Line: 1}, Stamp: stamp}, em); err != nil {
				t.Fatal(err)
			}
			if len(c.lifecycle) != 1 {
				t.Fatalf("%d records, want 1", len(c.lifecycle))
			}
			g := c.lifecycle[0]
			if g.Kind != tt.kind || g.Reason != tt.reason || !g.Time.Equal(tt.time) || g.Source != "ingress-nginx" || g.Message == "" {
				t.Errorf("got %v %q %s source %q message %q, want %v %q %s", g.Kind, g.Reason, g.Time, g.Source, g.Message, tt.kind, tt.reason, tt.time)
			}
		})
	}
	// Its neighbour line says nothing the next one does not: passed over.
	c, rep := runLines(t, ingressNginx{}, "f", `I0520 11:10:37.713318       7 controller.go:169] Changes handled by the dynamic configuration, skipping backend reload.`)
	if len(c.lifecycle) != 0 || rep.Skipped != 0 {
		t.Errorf("skipping-reload line: %d records, %d skipped", len(c.lifecycle), rep.Skipped)
	}
}

// TestIngressNginxReconfigurationSample reads the real lines of #4134
// through the pipeline: detected as ingress-nginx, two records.
func TestIngressNginxReconfigurationSample(t *testing.T) {
	res, h := readPaths(t, Options{}, "testdata/samples/ingress-nginx/kubernetes--ingress-nginx--4134-reconfiguration.log")
	if in := res.Inputs[0]; in.Format != FormatIngressNginx || in.Skipped != 0 || h.lifecycle != 2 {
		t.Errorf("format %q skipped %d records %d, want ingress-nginx, 0, 2", in.Format, in.Skipped, h.lifecycle)
	}
}

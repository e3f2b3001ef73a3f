package sources

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// ALB health-check log lines quoted in reference/aws.md §2.3, verbatim.
const (
	albDocHCPass = `http 2025-10-31T12:44:59.875678Z 0.019584011 172.31.20.97:80 HCLogsTestIPs PASS 200 -`
	albDocHCFail = `http 2025-10-31T12:44:58.901409Z 1.121980746 172.31.31.9:80 HCLogsTestIPs FAIL 502 TargetError`
)

func TestALBHealthCheckParseLines(t *testing.T) {
	cases := []struct {
		name   string
		line   string
		time   time.Time
		ip     string // "" for none
		port   int
		status string
		reason string
		group  string
	}{
		{"doc PASS", albDocHCPass, albUTC(2025, 10, 31, 12, 44, 59, 875678), "172.31.20.97", 80, "PASS", "", "HCLogsTestIPs"},
		{"doc FAIL TargetError", albDocHCFail, albUTC(2025, 10, 31, 12, 44, 58, 901409), "172.31.31.9", 80, "FAIL", "TargetError", "HCLogsTestIPs"},
		{"constructed 10 fields", albDocHCFail + " app/my-lb/50dc6c495c0c9188 10.0.1.25",
			albUTC(2025, 10, 31, 12, 44, 58, 901409), "172.31.31.9", 80, "FAIL", "TargetError", "HCLogsTestIPs"},
		{"constructed 11 fields, trailing pre-release dash", albDocHCPass + " app/my-lb/50dc6c495c0c9188 10.0.1.25 -",
			albUTC(2025, 10, 31, 12, 44, 59, 875678), "172.31.20.97", 80, "PASS", "", "HCLogsTestIPs"},
		{"constructed TimedOut on a wrong port", "https 2026-03-10T12:00:00.5Z 5.000 10.0.12.34:9090 k8s-default-myapp-a1b2c3d4e5 FAIL - TimedOut",
			time.Date(2026, 3, 10, 12, 0, 0, 500000000, time.UTC), "10.0.12.34", 9090, "FAIL", "TimedOut", "k8s-default-myapp-a1b2c3d4e5"},
		{"constructed IPv6 target", "h2 2026-03-10T12:00:00Z 0.002 [2001:db8::1]:8080 tg PASS 200 -",
			time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), "2001:db8::1", 8080, "PASS", "", "tg"},
		{"constructed Lambda target", "lambda 2026-03-10T12:00:00Z 0.2 arn:aws:lambda:us-east-1:111122223333:function:f tg PASS 200 -",
			time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), "", 0, "PASS", "", "tg"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !(albHealthCheck{}).Match([]byte(tc.line)) {
				t.Error("Match = false")
			}
			c, rep := runLines(t, albHealthCheck{}, "hc.log", tc.line)
			if rep.Skipped != 0 || len(c.lifecycle) != 1 {
				t.Fatalf("records %d, skipped %d %v; want 1 record", len(c.lifecycle), rep.Skipped, rep.SkipSamples())
			}
			l := c.lifecycle[0]
			var ip netip.Addr
			if tc.ip != "" {
				ip = netip.MustParseAddr(tc.ip)
			}
			if !l.Time.Equal(tc.time) || l.Time.Location() != time.UTC {
				t.Errorf("Time = %v, want %v", l.Time, tc.time)
			}
			if l.Kind != HealthCheck || l.IP != ip || l.Port != tc.port || l.Status != tc.status ||
				l.Reason != tc.reason || l.Group != tc.group {
				t.Errorf("kind/ip/port/status/reason/group = %v/%v/%d/%q/%q/%q, want health_check/%v/%d/%q/%q/%q",
					l.Kind, l.IP, l.Port, l.Status, l.Reason, l.Group, ip, tc.port, tc.status, tc.reason, tc.group)
			}
			if l.Source != "alb-healthcheck" || l.Message != tc.line || l.Format != FormatALBHealthCheck ||
				l.Origin != (Origin{File: "hc.log", Line: 1}) || l.Pod != "" || l.From != -1 {
				t.Errorf("source/message/format/origin = %q/%q/%v/%v", l.Source, l.Message, l.Format, l.Origin)
			}
		})
	}
}

func TestALBHealthCheckParseErrors(t *testing.T) {
	cases := []struct{ name, line, reason string }{
		{"too few fields", "http 2025-10-31T12:44:59.875678Z 0.019584011 172.31.20.97:80 HCLogsTestIPs PASS 200", "has 7 fields"},
		{"unknown type", strings.Replace(albDocHCPass, "http", "tcp", 1), `unknown ALB health-check type "tcp"`},
		{"bad time", strings.Replace(albDocHCPass, "59.875678Z", "59.875678", 1), "bad time"},
		{"bad latency", strings.Replace(albDocHCPass, "0.019584011", "-", 1), "bad health-check latency"},
		{"bad status", strings.Replace(albDocHCPass, "PASS", "HEALTHY", 1), "want PASS or FAIL"},
		{"bad target", strings.Replace(albDocHCPass, "172.31.20.97:80", "172.31.20.97", 1), "bad health-check target address"},
		{"access line", albDocHTTP200, "bad health-check latency"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, rep := runLines(t, albHealthCheck{}, "hc.log", tc.line)
			if len(c.lifecycle) != 0 || rep.Skipped != 1 {
				t.Fatalf("records %d, skipped %d; want 0 and 1", len(c.lifecycle), rep.Skipped)
			}
			if got := rep.SkipSamples()[0]; !strings.Contains(got, tc.reason) {
				t.Errorf("reason %q does not contain %q", got, tc.reason)
			}
		})
	}
}

// TestALBMatchKeepsFormatsApart checks that no access line is taken for a
// health-check line and the other way round.
func TestALBMatchKeepsFormatsApart(t *testing.T) {
	access := []string{albDocHTTP200, albDocHTTPS200, albDocModern200, albDoc503Empty, albDoc503Falco, albDoc502Refused, albDoc504}
	for _, line := range access {
		if (albHealthCheck{}).Match([]byte(line)) {
			t.Errorf("health-check Match(%.50q) = true", line)
		}
	}
	for _, line := range []string{albDocHCPass, albDocHCFail, albDocHCFail + " app/my-lb/50dc6c495c0c9188 10.0.1.25"} {
		if (albAccess{}).Match([]byte(line)) {
			t.Errorf("access Match(%q) = true", line)
		}
	}
	for _, line := range []string{"", albDocControl, albDocConnLog, strings.Replace(albDocHCPass, "PASS", "OK", 1)} {
		if (albHealthCheck{}).Match([]byte(line)) {
			t.Errorf("health-check Match(%q) = true", line)
		}
	}
}

func FuzzALBHealthCheck(f *testing.F) {
	for _, s := range []string{albDocHCPass, albDocHCFail, albDocHCFail + " app/my-lb/50dc6c495c0c9188 10.0.1.25",
		"h2 2026-03-10T12:00:00Z 0.002 [2001:db8::1]:8080 tg PASS 200 -", albDocHTTP200} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c := &collector{}
		rep := &InputReport{}
		err := (albHealthCheck{}).Parse([]byte(line), &Line{Origin: Origin{File: "f", Line: 1}}, newEmitter(c, &Options{}, rep, nil))
		matched := (albHealthCheck{}).Match([]byte(line))
		if (err != nil && len(c.lifecycle) != 0) || len(c.lifecycle) > 1 || rep.Records != len(c.lifecycle) || rep.Skipped < 0 {
			t.Fatalf("error %v, records %d, report %+v", err, len(c.lifecycle), rep)
		}
		for _, l := range c.lifecycle {
			if !matched || l.Time.IsZero() || l.Kind != HealthCheck || (l.Status != "PASS" && l.Status != "FAIL") ||
				l.Port < 0 || l.Port > 65535 || l.Format != FormatALBHealthCheck {
				t.Fatalf("bad record %+v (matched %v)", l, matched)
			}
		}
	})
}

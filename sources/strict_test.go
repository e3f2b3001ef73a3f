package sources

import (
	"strings"
	"testing"
)

// TestAdaptersRefuseImpossibleValues checks that every adapter reads dates,
// clocks and addresses through the shared strict parsers: a date that does
// not exist, a second 60 that is no leap second and an address with a
// leading zero are refused, where each adapter's own parser used to accept
// them.
func TestAdaptersRefuseImpossibleValues(t *testing.T) {
	const nginxAccess = `203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 10.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`
	const nginxError = `2024/01/02 03:04:06 [error] 31#31: *1234 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.10, server: shop.example.com, request: "GET /api/items HTTP/1.1", upstream: "http://10.244.1.17:8080/api/items", host: "shop.example.com"`
	const klog = `W0102 03:04:08.123456       7 controller.go:1241] Service "shop/web" does not have any active Endpoint.`
	tests := []struct {
		name     string
		a        lineAdapter
		good     string
		from, to string
	}{
		{"ALB February 31", albAccess{}, albDocModern200, "2026-03-10T", "2026-02-31T"},
		{"ALB second 60 mid-day", albAccess{}, albDocModern200, "12:00:01.", "12:00:60."},
		{"ALB target with a leading zero", albAccess{}, albDocModern200, " 10.0.12.34:8080 ", " 010.0.12.34:8080 "},
		{"ALB target port with a leading zero", albAccess{}, albDocModern200, " 10.0.12.34:8080 ", " 10.0.12.34:08080 "},
		{"ALB health check February 30", albHealthCheck{}, albDocHCPass, "2025-10-31T", "2025-02-30T"},
		{"nginx access February 31", ingressNginx{}, nginxAccess, "02/Jan/2024", "31/Feb/2024"},
		{"nginx access second 60 mid-day", ingressNginx{}, nginxAccess, "03:04:05 +0000", "03:04:60 +0000"},
		{"nginx error April 31", ingressNginx{}, nginxError, "2024/01/02", "2024/04/31"},
		{"nginx error second 60", ingressNginx{}, nginxError, "03:04:06", "03:04:60"},
		{"klog February 30", ingressNginx{}, klog, "W0102", "W0230"},
		{"klog second 60", ingressNginx{}, klog, "03:04:08.", "03:04:60."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, rep := runLines(t, tt.a, "good", tt.good); rep.Skipped != 0 || len(c.requests)+len(c.lifecycle) != 1 {
				t.Fatalf("the unchanged line gave %d skips, %d records", rep.Skipped, len(c.requests)+len(c.lifecycle))
			}
			bad := strings.Replace(tt.good, tt.from, tt.to, 1)
			if bad == tt.good {
				t.Fatalf("%q not in the line", tt.from)
			}
			c, rep := runLines(t, tt.a, "bad", bad)
			if rep.Skipped != 1 || len(c.requests)+len(c.lifecycle) != 0 {
				t.Errorf("%d skips, %d records; want the line skipped", rep.Skipped, len(c.requests)+len(c.lifecycle))
			}
		})
	}
}

// TestNginxUpstreamWithLeadingZeroHasNoBackend checks that an upstream
// address netip would refuse names no backend.
func TestNginxUpstreamWithLeadingZeroHasNoBackend(t *testing.T) {
	line := `203.0.113.10 - - [02/Jan/2024:03:04:05 +0000] "GET /api/items HTTP/1.1" 200 512 "-" "curl/8.5.0" 87 0.004 [shop-web-80] [] 010.244.2.31:8080 512 0.004 200 0c2f3e4a5b6c7d8e9f0a1b2c3d4e5f60`
	c, _ := runLines(t, ingressNginx{}, "x", line)
	if len(c.requests) != 1 || c.requests[0].Backend.IsValid() {
		t.Fatalf("requests %+v; want one without a backend", c.requests)
	}
}

// TestGCPEntryTimeIsStrict checks that a Cloud Logging entry dated on a day
// that does not exist is skipped.
func TestGCPEntryTimeIsStrict(t *testing.T) {
	const entry = `{"httpRequest":{"requestMethod":"GET","requestUrl":"https://x/","status":200,"serverIp":"10.0.0.1"},"jsonPayload":{"@type":"type.googleapis.com/google.cloud.loadbalancing.type.LoadBalancerLogEntry","statusDetails":"response_sent_by_backend"},"logName":"projects/p/logs/requests","resource":{"type":"http_load_balancer","labels":{}},"timestamp":"2024-05-01T12:00:00Z"}`
	if c, rep := runJSON(t, gcpLogging{}, "good", entry); len(c.requests) != 1 || rep.Skipped != 0 {
		t.Fatalf("good entry: %d requests, %d skipped", len(c.requests), rep.Skipped)
	}
	for _, bad := range []string{"2024-02-30T12:00:00Z", "2024-05-01T12:00:60Z"} {
		c, rep := runJSON(t, gcpLogging{}, "bad", strings.Replace(entry, "2024-05-01T12:00:00Z", bad, 1))
		if len(c.requests) != 0 || rep.Skipped != 1 {
			t.Errorf("%s: %d requests, %d skipped; want it skipped", bad, len(c.requests), rep.Skipped)
		}
	}
}

// TestIngressNginxParseDoesNotAllocate checks the access-log hot path: a
// successful request line, with one attempt or a retried one, costs no
// allocation.
func TestIngressNginxParseDoesNotAllocate(t *testing.T) {
	em := newEmitter(nginxDiscard{}, &Options{}, &InputReport{}, nil)
	ln := &Line{Origin: Origin{File: "a", Line: 1}}
	for _, line := range nginxBenchLines(60) {
		allocs := testing.AllocsPerRun(50, func() {
			if err := (ingressNginx{}).Parse(line, ln, em); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%.60q: %v allocs per line, want 0", line, allocs)
		}
	}
}

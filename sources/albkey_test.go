package sources

import (
	"testing"
	"time"
)

func TestALBObjectEnd(t *testing.T) {
	end := time.Date(2014, 2, 15, 23, 40, 0, 0, time.UTC)
	cases := []struct {
		name string
		key  string
		want time.Time // zero when not an ALB object name
	}{
		{"doc example", "s3://my-bucket/prefix/AWSLogs/123456789012/elasticloadbalancing/us-east-2/2016/05/01/123456789012_elasticloadbalancing_us-east-2_app.my-loadbalancer.1234567890abcdef_20140215T2340Z_172.160.001.192_20sg8hgm.log.gz", end},
		{"bare file name", "123456789012_elasticloadbalancing_us-east-2_app.my-loadbalancer.1234567890abcdef_20140215T2340Z_172.160.001.192_20sg8hgm.log.gz", end},
		{"decompressed", "logs/123456789012_elasticloadbalancing_us-east-2_app.my-loadbalancer.1234567890abcdef_20140215T2340Z_172.160.001.192_20sg8hgm.log", end},
		{"health check, underscore", "2025/10/31/health_check_log_123456789012_elasticloadbalancing_us-east-2_app.my-lb.50dc6c495c0c9188_20251031T1245Z_10.0.1.25_abc123.log.gz", time.Date(2025, 10, 31, 12, 45, 0, 0, time.UTC)},
		{"health check, dot", "health_check_log.123456789012_elasticloadbalancing_us-east-2_app.my-lb.50dc6c495c0c9188_20251031T1245Z_10.0.1.25_abc123.log.gz", time.Date(2025, 10, 31, 12, 45, 0, 0, time.UTC)},
		{"connection log, underscore", "conn_log_123456789012_elasticloadbalancing_eu-west-1_app.k8s-default-myapp-0123456789.1a2b3c4d5e6f7a8b_20260310T0000Z_10.0.1.25_x.log.gz", time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)},
		{"connection log, dot", "conn_log.123456789012_elasticloadbalancing_eu-west-1_app.lb.1a2b_20240229T2355Z_10.0.1.25_x.log.gz", time.Date(2024, 2, 29, 23, 55, 0, 0, time.UTC)},
		{"windows path", `C:\logs\123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234_20140215T2340Z_1.2.3.4_r.log.gz`, end},
		{"test object", "AWSLogs/123456789012/ELBAccessLogTestFile", time.Time{}},
		{"no account", "elasticloadbalancing_us-east-2_app.my-lb.1234_20140215T2340Z_1.2.3.4_r.log.gz", time.Time{}},
		{"too short", "123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234", time.Time{}},
		{"bad month", "123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234_20141315T2340Z_1.2.3.4_r.log.gz", time.Time{}},
		{"not a leap year", "123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234_20230229T2340Z_1.2.3.4_r.log.gz", time.Time{}},
		{"bad minute", "123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234_20140215T2360Z_1.2.3.4_r.log.gz", time.Time{}},
		{"missing Z", "123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234_20140215T2340_1.2.3.4_r.log.gz", time.Time{}},
		{"directory named like an object", "123456789012_elasticloadbalancing_us-east-2_app.lb.1_20140215T2340Z_1.2.3.4_r/access.log", time.Time{}},
		{"empty", "", time.Time{}},
		{"other file", "access.log", time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ALBObjectEnd(tc.key)
			if ok != !tc.want.IsZero() || !got.Equal(tc.want) {
				t.Errorf("ALBObjectEnd = %v, %v; want %v, %v", got, ok, tc.want, !tc.want.IsZero())
			}
		})
	}
}

func TestALBObjectMayOverlap(t *testing.T) {
	const key = "123456789012_elasticloadbalancing_us-east-2_app.my-lb.1234_20140215T2340Z_1.2.3.4_r.log.gz"
	at := func(h, m int) time.Time { return time.Date(2014, 2, 15, h, m, 0, 0, time.UTC) }
	cases := []struct {
		name         string
		key          string
		since, until time.Time
		want         bool
	}{
		{"no window", key, time.Time{}, time.Time{}, true},
		// The interval 23:35-23:40 widened by two minutes of delivery slack.
		{"ends before since", key, at(23, 43), time.Time{}, false},
		{"ends at since", key, at(23, 42), time.Time{}, true},
		{"starts at until", key, time.Time{}, at(23, 33), false},
		{"starts before until", key, time.Time{}, at(23, 34), true},
		{"inside", key, at(23, 36), at(23, 38), true},
		{"not an ALB object", "access.log", at(23, 41), at(23, 42), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ALBObjectMayOverlap(tc.key, tc.since, tc.until); got != tc.want {
				t.Errorf("ALBObjectMayOverlap = %v, want %v", got, tc.want)
			}
		})
	}
}

package main

import (
	"strings"
	"testing"
)

// TestKubeVersionFlag checks --kube-version on every command that emits
// fixes: a malformed version is a usage error, and check's preStop fix
// follows the version on both sides of 1.30.
func TestKubeVersionFlag(t *testing.T) {
	for _, cmd := range []string{"analyze", "triage", "check"} {
		for _, bad := range []string{"1.x", "129", "latest"} {
			_, stderr, code := runCLI(t, "", cmd, "--kube-version", bad, "x")
			if code != exitUsage || !strings.Contains(stderr, "--kube-version") {
				t.Errorf("%s --kube-version %s: exit %d, %q; want a usage error naming the flag", cmd, bad, code, stderr)
			}
		}
	}
	dir := manifest("eks-alb-rollout-502")
	for _, c := range []struct {
		version, want, not string
	}{
		{"1.29", "- sleep\\n              - \\\"15\\\"", "sleep:\\n              seconds"},
		{"v1.30.2-eks-1", "sleep:\\n              seconds: 15", "- sleep\\n"},
		{"", "sleep:\\n              seconds: 15", "- sleep\\n"},
	} {
		args := []string{"check", "-o", "json", "--fail-on", "none", dir}
		if c.version != "" {
			args = append(args, "--kube-version", c.version)
		}
		out, stderr, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if !strings.Contains(out, c.want) || strings.Contains(out, c.not) {
			t.Errorf("--kube-version %q: want %q and not %q in the patches", c.version, c.want, c.not)
		}
	}
}

package sources

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvoyDetection reads Envoy logs as users export them, bare and in
// every wrapper the pipeline takes off, and checks each input is detected
// as its Envoy format (a JSON line neither a Fluent Bit wrapper nor a
// Kubernetes or Cloud Logging element) and read in full.
func TestEnvoyDetection(t *testing.T) {
	textLines := []string{envoyTextCases[0].line, envoyTextCases[2].line, envoyTextCases[3].line}
	jsonLines := []string{envoyJSONCases[0].line, envoyJSONCases[1].line, envoyJSONCases[3].line}
	stamp := "2024-05-01T12:00:00.123456789Z"
	fluent := func(l string) string {
		b, _ := json.Marshal(map[string]string{"log": l + "\n", "stream": "stdout", "time": stamp})
		return string(b)
	}
	wrap := func(lines []string, f func(string) string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(f(l) + "\n")
		}
		return b.String()
	}
	same := func(l string) string { return l }
	kubectl := func(l string) string { return stamp + " " + l }
	cri := func(l string) string { return stamp + " stdout F " + l }
	agent := func(l string) string { return l + "\n" + stamp + "\tinfo\tEnvoy proxy is ready" }
	for _, tc := range []struct {
		name    string
		content string
		format  Format
		records int
	}{
		{"text bare", wrap(textLines, same), FormatEnvoyAccess, 3},
		{"text kubectl --timestamps with the agent's lines", wrap(textLines, func(l string) string { return kubectl(agent(l)) }), FormatEnvoyAccess, 3},
		{"text CRI", wrap(textLines, cri), FormatEnvoyAccess, 3},
		{"text Fluent Bit", wrap(textLines, fluent), FormatEnvoyAccess, 3},
		{"json bare", wrap(jsonLines, same), FormatEnvoyJSON, 3},
		{"json kubectl --timestamps", wrap(jsonLines, kubectl), FormatEnvoyJSON, 3},
		{"json CRI", wrap(jsonLines, cri), FormatEnvoyJSON, 3},
		{"json Fluent Bit", wrap(jsonLines, fluent), FormatEnvoyJSON, 3},
		{"json with Envoy's own log lines", wrap(jsonLines, func(l string) string {
			return l + "\n[2024-11-20 19:16:34.839][1][info][upstream] [source/common/upstream/cds_api_helper.cc:32] cds: add 3 cluster(s)"
		}), FormatEnvoyJSON, 3},
		{"gcloud export with mesh entries", "[" + gcpMeshClientUH + "," + gcpMeshServerUF + "," + gcpMeshTCP + "]", FormatGCPLogging, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "in.log")
			if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			c := &collector{}
			res, err := Read(context.Background(), []string{path}, Options{}, func(*InputReport) Handler { return c })
			if err != nil {
				t.Fatal(err)
			}
			in := res.Inputs[0]
			if in.Format != tc.format || in.Records != tc.records || in.Skipped != 0 || len(c.requests) != tc.records {
				t.Fatalf("format=%s records=%d skipped=%d warnings=%v", in.Format, in.Records, in.Skipped, res.Warnings)
			}
			for _, r := range c.requests {
				if r.ProxyFamily() != FamilyEnvoy {
					t.Errorf("family %q", r.ProxyFamily())
				}
			}
		})
	}
}

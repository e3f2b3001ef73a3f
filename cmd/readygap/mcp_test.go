package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/readygap/readygap/report"
)

// connectMCP starts the server in process and returns a session of the
// SDK's own client connected to it.
func connectMCP(t *testing.T, opts *mcpOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newMCPServer(opts).Connect(ctx, st, nil)
	must(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	must(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// toolText is the first text content of a tool's result.
func toolText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("the result has no content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

// TestMCPListsTools checks tools/list: analyze and check always, each with
// an input schema naming paths; triage only when allowed.
func TestMCPListsTools(t *testing.T) {
	for _, allow := range []bool{false, true} {
		cs := connectMCP(t, &mcpOptions{AllowTriage: allow})
		res, err := cs.ListTools(context.Background(), nil)
		must(t, err)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			schema, _ := json.Marshal(tool.InputSchema)
			if tool.Name != "triage" && !strings.Contains(string(schema), `"paths"`) {
				t.Errorf("%s: input schema %s names no paths", tool.Name, schema)
			}
		}
		want := []string{"analyze", "check"}
		if allow {
			want = append(want, "triage")
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Errorf("allow-triage=%v: tools %v, want %v", allow, names, want)
		}
	}
}

// TestMCPAnalyze calls analyze on a fixture through the SDK's client and
// requires the JSON contract that `readygap analyze -o json` prints.
func TestMCPAnalyze(t *testing.T) {
	cs := connectMCP(t, &mcpOptions{})
	dir := filepath.Join("..", "..", "fixtures", "gke-neg-zone-move")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "analyze", Arguments: map[string]any{"paths": []string{dir}}})
	must(t, err)
	if res.IsError {
		t.Fatalf("analyze failed: %s", toolText(t, res))
	}
	var rep report.Report
	must(t, json.Unmarshal([]byte(toolText(t, res)), &rep))
	if rep.Schema != report.SchemaVersion || len(rep.Incidents) != 1 || rep.Incidents[0].Cause != "registration_lag" ||
		rep.Incidents[0].FailedRequests != 178 {
		t.Fatalf("analyze: schema %q, incidents %+v", rep.Schema, rep.Incidents)
	}
	cli, _, code := runCLI(t, "", "analyze", "-o", "json", dir)
	if code != exitOK || cli != toolText(t, res) {
		t.Errorf("the tool's JSON differs from readygap analyze -o json (exit %d)", code)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var again report.Report
	if err := json.Unmarshal(structured, &again); err != nil || len(again.Incidents) != 1 {
		t.Errorf("structured content %v: %.200s", err, structured)
	}

	// Standard input is the connection; a missing file is a tool error the
	// assistant can read, not a broken session.
	for _, args := range []map[string]any{{"paths": []string{"-"}}, {"paths": []string{}}, {"paths": []string{"no-such-dir"}}, {"paths": []string{dir}, "since": "yesterday"}} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "analyze", Arguments: args})
		if err != nil || !res.IsError {
			t.Errorf("analyze %v: err %v, result %+v; want a tool error", args, err, res)
		}
	}
}

// TestMCPCheck calls check on a broken manifest and its fix.
func TestMCPCheck(t *testing.T) {
	cs := connectMCP(t, &mcpOptions{})
	call := func(path string) report.CheckReport {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check", Arguments: map[string]any{
			"paths": []string{filepath.Join("..", "..", "fixtures", "manifests", path)}}})
		must(t, err)
		if res.IsError {
			t.Fatalf("check %s: %s", path, toolText(t, res))
		}
		var rep report.CheckReport
		must(t, json.Unmarshal([]byte(toolText(t, res)), &rep))
		return rep
	}
	if rep := call("eks-alb-no-gate/broken.yaml"); !rep.Summary.Failed || rep.Summary.Errors != 2 {
		t.Errorf("broken manifest: %+v", rep.Summary)
	}
	if rep := call("eks-alb-rollout-502/fixed.yaml"); rep.Summary.Failed || len(rep.Findings) != 0 {
		t.Errorf("fixed manifest: %+v", rep.Summary)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"paths": []string{"x"}, "fail_on": "sometimes"}})
	if err != nil || !res.IsError {
		t.Errorf("fail_on sometimes: %v %+v", err, res)
	}
}

// TestMCPTriageNeedsTheFlag checks that triage cannot be called without
// --allow-triage, and that with it a call that configures no source is an
// error the assistant reads, with triage's own message.
func TestMCPTriageNeedsTheFlag(t *testing.T) {
	t.Setenv("KUBECONFIG", filepath.Join(t.TempDir(), "none"))
	t.Setenv("HOME", t.TempDir())
	res, err := connectMCP(t, &mcpOptions{}).CallTool(context.Background(), &mcp.CallToolParams{Name: "triage", Arguments: map[string]any{"args": []string{}}})
	if err == nil && (res == nil || !res.IsError) {
		t.Errorf("triage without --allow-triage answered %+v", res)
	}
	cs := connectMCP(t, &mcpOptions{AllowTriage: true})
	for msg, args := range map[string][]string{
		"no source configured: give --project": {},
		"leave out --output":                   {"-o", "text"},
	} {
		res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "triage", Arguments: map[string]any{"args": args}})
		if err != nil || !res.IsError || !strings.Contains(toolText(t, res), msg) || strings.Contains(toolText(t, res), `\x0a`) {
			t.Errorf("triage %v: %v %+v; want a tool error saying %q", args, err, res, msg)
		}
	}
}

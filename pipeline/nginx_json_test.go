package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
)

// nginxDefaultLine matches an ingress-nginx access line in the default
// log-format-upstream (nginx-k8s.md §1.1), after an optional kubectl
// --timestamps stamp: the four upstream lists are taken apart below.
var nginxDefaultLine = regexp.MustCompile(`^(\S+ )?(\S+) - (\S+) \[([^\]]+)\] "([^"]*)" (\d+) (\d+) "([^"]*)" "([^"]*)" (\d+) (\S+) \[([^\]]*)\] \[([^\]]*)\] (.+) ([0-9a-f]{32})$`)

// nginxUpstreamLists splits `$upstream_addr $upstream_response_length
// $upstream_response_time $upstream_status` into its four lists: a space
// after a comma, or around a colon, stays inside a list.
func nginxUpstreamLists(s string) ([]string, bool) {
	var out []string
	var cur []string
	toks := strings.Split(s, " ")
	for i := 0; i < len(toks); i++ {
		cur = append(cur, toks[i])
		switch {
		case strings.HasSuffix(toks[i], ","):
			continue
		case i+1 < len(toks) && toks[i+1] == ":":
			cur = append(cur, toks[i+1])
			i++
			continue
		}
		out = append(out, strings.Join(cur, " "))
		cur = nil
	}
	return out, len(out) == 4 && cur == nil
}

// nginxJSONKeys are the key names of a rendering: the ingress-nginx
// variable names readygap recognises on its own, or names only a template
// given with --nginx-format can explain.
type nginxJSONKeys struct {
	time, status, method, uri, name, addr, length, respTime, upStatus string
}

var (
	nginxAutoKeys   = nginxJSONKeys{"time", "status", "method", "uri", "proxy_upstream_name", "upstream_addr", "upstream_response_length", "upstream_response_time", "upstream_status"}
	nginxCustomKeys = nginxJSONKeys{"ts", "code", "verb", "target", "svc", "peer", "peer_bytes", "peer_secs", "peer_code"}
)

// template is the log-format-upstream that writes lines with these keys.
func (k nginxJSONKeys) template() string {
	return fmt.Sprintf(`{"%s": "$time_iso8601", "remote_addr": "$remote_addr", "%s": $status, "%s": "$request_method", "%s": "$request_uri", "request_time": $request_time, "%s": "$proxy_upstream_name", "%s": "$upstream_addr", "%s": "$upstream_response_length", "%s": "$upstream_response_time", "%s": "$upstream_status", "req_id": "$req_id"}`,
		k.time, k.status, k.method, k.uri, k.name, k.addr, k.length, k.respTime, k.upStatus)
}

// nginxLineAsJSON renders a default-format access line as nginx writes the
// same request with the template of keys and escape=json: `-` becomes an
// empty string, $time_local becomes $time_iso8601 in the same zone. Other
// lines (error log, klog) are returned as they are.
func nginxLineAsJSON(t *testing.T, line string, k nginxJSONKeys) string {
	m := nginxDefaultLine.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	lists, ok := nginxUpstreamLists(m[14])
	if !ok {
		t.Fatalf("cannot split the upstream lists of %q", line)
	}
	at, err := time.Parse("02/Jan/2006:15:04:05 -0700", m[4])
	if err != nil {
		t.Fatal(err)
	}
	val := func(s string) string {
		if s == "-" {
			s = ""
		}
		b, _ := json.Marshal(s)
		return string(b)
	}
	method, uri, _ := strings.Cut(m[5], " ")
	uri, _, _ = strings.Cut(uri, " ")
	status, _ := strconv.Atoi(m[6])
	return fmt.Sprintf(`%s{"%s": %s, "remote_addr": %s, "%s": %d, "%s": %s, "%s": %s, "request_time": %s, "%s": %s, "%s": %s, "%s": %s, "%s": %s, "%s": %s, "req_id": %s}`,
		m[1], k.time, val(at.Format("2006-01-02T15:04:05-07:00")), val(m[2]), k.status, status, k.method, val(method), k.uri, val(uri),
		m[11], k.name, val(m[12]), k.addr, val(lists[0]), k.length, val(lists[1]), k.respTime, val(lists[2]), k.upStatus, val(lists[3]), val(m[15]))
}

// verdictDigest is what a verdict says, without the evidence text and
// origins that name the lines.
func verdictDigest(rep *report.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "requests=%d failed=%d hidden=%d\n", rep.Summary.Requests, rep.Summary.FailedRequests, rep.Summary.HiddenFailures)
	for _, in := range rep.Incidents {
		fmt.Fprintf(&b, "%s %s %s %s–%s failed=%d logged=%d hidden=%d %v\n", in.Cause, in.Variant, in.Confidence,
			in.Start.Format(time.RFC3339Nano), in.End.Format(time.RFC3339Nano), in.FailedRequests, in.LoggedFailedRequests, in.HiddenFailures, in.StatusCounts)
		for _, be := range in.Backends {
			fmt.Fprintf(&b, "  %s %s %s\n", be.IP, be.Pod, be.Role)
		}
	}
	return b.String()
}

// TestIngressNginxJSONSameVerdict re-renders the ingress-nginx access lines
// of fixtures as a JSON log-format-upstream writes them, once with keys
// named after the ingress-nginx variables (recognised without a flag) and
// once with names only the template given with --nginx-format explains, and
// requires the verdict of the default format: the same incidents, counts,
// windows and backends, mechanisms and their controls alike.
func TestIngressNginxJSONSameVerdict(t *testing.T) {
	for _, name := range []string{"nginx-wrong-probe-port", "nginx-probe-fixed", "nginx-kubectl-drain", "nginx-local-time"} {
		base := analyze(t, fixture(name))
		want := verdictDigest(base)
		if name != "nginx-probe-fixed" && len(base.Incidents) == 0 {
			t.Fatalf("%s: the fixture gives no incident to compare", name)
		}
		for _, tc := range []struct {
			keys   nginxJSONKeys
			format string
		}{{nginxAutoKeys, ""}, {nginxCustomKeys, nginxCustomKeys.template()}} {
			t.Run(fmt.Sprintf("%s/%s", name, tc.keys.time), func(t *testing.T) {
				dir := t.TempDir()
				entries, err := os.ReadDir(fixture(name))
				must(t, err)
				converted := 0
				for _, e := range entries {
					b, err := os.ReadFile(filepath.Join(fixture(name), e.Name()))
					must(t, err)
					if e.Name() == "ingress-nginx-controller.log" {
						lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
						for i, l := range lines {
							if lines[i] = nginxLineAsJSON(t, l, tc.keys); lines[i] != l {
								converted++
							}
						}
						b = []byte(strings.Join(lines, "\n") + "\n")
					}
					must(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
				}
				if converted < 100 {
					t.Fatalf("only %d access lines re-rendered", converted)
				}
				rep, err := Analyze(context.Background(), []string{dir}, Options{Read: sources.Options{NginxFormat: tc.format}})
				must(t, err)
				for _, in := range rep.Inputs {
					if in.Name == filepath.Join(dir, "ingress-nginx-controller.log") && (in.Format != string(sources.FormatIngressNginxJSON) || in.Skipped != 0) {
						t.Errorf("%s read as %s with %d skipped", in.Name, in.Format, in.Skipped)
					}
				}
				if got := verdictDigest(rep); got != want {
					t.Errorf("JSON verdict differs from the default format's:\n got %s\nwant %s", got, want)
				}
			})
		}
	}
}

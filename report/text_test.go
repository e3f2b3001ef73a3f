package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/readygap/readygap/internal/golden"
)

// textFixtures are the fixtures whose text report is pinned at each of
// textWidths: the four seed incidents and a control without incident.
var textFixtures = []string{"gke-neg-zone-move", "eks-alb-no-gate", "nginx-wrong-probe-port", "eks-alb-termination-race", "nginx-probe-fixed"}

// textWidths are the terminal widths the text goldens are laid out for.
var textWidths = []int{80, 120}

// renderTextAt renders rep as text laid out for width columns.
func renderTextAt(t testing.TB, rep *Report, width int) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, rep, width); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestRenderTextGolden compares the text report of each fixture at 80 and
// 120 columns with testdata/NAME.wWIDTH.txt (go test -update rewrites them)
// and checks that no line is wider than the terminal.
func TestRenderTextGolden(t *testing.T) {
	for _, name := range textFixtures {
		rep := saved(t, name)
		for _, width := range textWidths {
			t.Run(fmt.Sprintf("%s/%d", name, width), func(t *testing.T) {
				out := renderTextAt(t, rep, width)
				golden.Assert(t, filepath.Join("testdata", fmt.Sprintf("%s.w%d.txt", name, width)), []byte(out))
				for i, line := range strings.Split(out, "\n") {
					if w := lipgloss.Width(line); w > width {
						t.Errorf("line %d is %d columns wide, more than %d: %q", i+1, w, width, line)
					}
				}
			})
		}
	}
}

// TestTextKeepsIdentifiersWhole checks, for each fixture at each width,
// that every IP, pod name and file:line of the JSON report's incidents
// (evidence, key moments, backends), lanes and inputs appears whole in the
// text, or shortened only by a rule the text states: names relative to the
// directory the Inputs heading names, a prefix a "… stands for" line names,
// a pod written after its ReplicaSet's heading as "…" and the rest of its
// name.
func TestTextKeepsIdentifiersWhole(t *testing.T) {
	for _, name := range append(textFixtures, "eks-alb-large", "hostile-content") {
		rep := saved(t, name)
		var buf bytes.Buffer
		must(t, renderJSON(&buf, rep))
		var doc Report // the identifiers as the contract holds them
		must(t, json.Unmarshal(buf.Bytes(), &doc))
		for _, width := range textWidths {
			out := renderTextAt(t, rep, width)
			r := readTextRules(t, out)
			for _, in := range doc.Incidents {
				for _, e := range in.Evidence {
					r.wantSource(t, e.Source)
				}
				for _, m := range in.Timeline {
					r.wantSource(t, m.Source)
				}
				for _, b := range in.Backends {
					r.wantIP(t, b.IP)
					r.wantPod(t, b.Pod)
				}
			}
			for _, l := range doc.Lanes {
				r.wantIP(t, l.IP)
				r.wantPod(t, l.Name)
			}
			for _, in := range doc.Inputs {
				r.wantSource(t, in.Name)
			}
		}
	}
}

var (
	reInputsDir = regexp.MustCompile(`(?m)^Inputs in (.*?)(?: \(times UTC.*\))?$`)
	reAlias     = regexp.MustCompile(`^(…\d*) stands for (\S+)$`)
	reGroup     = regexp.MustCompile(`^ReplicaSet (\S+) `)
	reLaneLabel = regexp.MustCompile(`^ (…\S+)`)
	reAlike     = regexp.MustCompile(`^ {3}(?:\S+ · )?alike: (.*)$`)
)

// textRules are the shortening rules a text report states, and what its
// lanes name.
type textRules struct {
	out     string
	dir     string
	aliases map[string]string
	pods    map[string]bool
}

// readTextRules reads the rules a text report states.
func readTextRules(t *testing.T, out string) *textRules {
	r := &textRules{out: out, aliases: map[string]string{}, pods: map[string]bool{}}
	if m := reInputsDir.FindStringSubmatch(out); m != nil {
		r.dir = m[1]
	}
	lines := strings.Split(out, "\n")
	group := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := reAlias.FindStringSubmatch(strings.TrimRight(line, " ")); m != nil || strings.Contains(line, " stands for ") {
			// The prefix continues on indented lines.
			fields := strings.SplitN(line, " stands for ", 2)
			prefix := strings.TrimSpace(fields[1])
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], strings.Repeat(" ", lipgloss.Width(fields[0]+" stands for "))) {
				i++
				prefix += strings.TrimSpace(lines[i])
			}
			r.aliases[fields[0]] = prefix
			continue
		}
		if m := reGroup.FindStringSubmatch(line); m != nil {
			group = m[1]
			continue
		}
		if strings.HasPrefix(line, "Backends known only by IP") || strings.HasPrefix(line, " LB/proxy 5xx") {
			group = ""
		}
		if group == "" {
			continue
		}
		if m := reLaneLabel.FindStringSubmatch(line); m != nil {
			r.pods[group+strings.TrimPrefix(m[1], "…")] = true
		}
		if m := reAlike.FindStringSubmatch(line); m != nil {
			for _, p := range strings.Split(m[1], ", ") {
				p, _, _ = strings.Cut(p, " ") // the pod, then its IP
				r.pods[group+strings.TrimPrefix(p, "…")] = true
			}
		}
	}
	return r
}

// wantSource fails unless the file or file:line s appears whole, or by a
// stated rule.
func (r *textRules) wantSource(t *testing.T, s string) {
	t.Helper()
	if s == "" || strings.Contains(r.out, Sanitize(s)) {
		return
	}
	rel := strings.TrimPrefix(s, r.dir)
	if rel != s && strings.Contains(r.out, Sanitize(rel)) {
		return
	}
	for mark, prefix := range r.aliases {
		if rest, ok := strings.CutPrefix(rel, prefix); ok && strings.Contains(r.out, mark+Sanitize(rest)) {
			return
		}
	}
	t.Errorf("%q (relative %q) does not appear whole, nor by a stated rule (dir %q, aliases %v)", s, rel, r.dir, r.aliases)
}

// wantIP fails unless ip appears as a whole address.
func (r *textRules) wantIP(t *testing.T, ip string) {
	t.Helper()
	if ip == "" {
		return
	}
	re := regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(ip) + `([^0-9]|$)`)
	if !re.MatchString(r.out) {
		t.Errorf("IP %s does not appear whole", ip)
	}
}

// wantPod fails unless the pod name appears whole, or under its
// ReplicaSet's heading in the lanes.
func (r *textRules) wantPod(t *testing.T, pod string) {
	t.Helper()
	if pod == "" || strings.Contains(r.out, Sanitize(pod)) || r.pods[Sanitize(pod)] {
		return
	}
	t.Errorf("pod %q does not appear whole, nor under its ReplicaSet in the lanes", pod)
}

// boundsReport is a report of one incident over a minute whose n backends
// are pods of ReplicaSet web-7c9f8d6b5d, alike in the lanes; the incident
// names the first named of them.
func boundsReport(n, named int) *Report {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	rep := &Report{Summary: Summary{Incidents: 1, FailedRequests: n, First: start, Last: start.Add(time.Minute)}}
	in := Incident{ID: "incident-1", Cause: "termination_race", Confidence: "high", Start: start.Add(20 * time.Second), End: start.Add(30 * time.Second), FailedRequests: n}
	for i := 0; i < n; i++ {
		pod, ip := fmt.Sprintf("web-7c9f8d6b5d-p%04d", i), fmt.Sprintf("10.1.0.%d", i+1)
		if i < named {
			in.Backends = append(in.Backends, Backend{Pod: pod, IP: ip, Role: "old", Failures: 1, FailedRequests: 1})
		}
		rep.Lanes = append(rep.Lanes, Lane{Name: pod, IP: ip, ReplicaSet: "web-7c9f8d6b5d", Role: "old",
			States: []LaneState{{State: StateLBHealthy, From: start, To: start.Add(25 * time.Second)}}})
	}
	rep.Incidents = []Incident{in}
	return rep
}

// TestTextBoundsLongLists pins the text's bounds on each side: an
// incident's table lists maxTableBackends backends and counts the rest; a
// row of alike lanes names up to maxAlikeNamed others and counts more; the
// lanes an incident names keep a row each up to half of MaxTextLanes, and
// share rows past it.
func TestTextBoundsLongLists(t *testing.T) {
	for n, rest := range map[int]string{
		MaxTableBackends:     "",
		MaxTableBackends + 1: "and 1 more old backend, with 1 failed attempt; the JSON report lists every one",
		MaxTableBackends + 2: "and 2 more backends (2 old), 1 failed attempt each; the JSON report lists every one",
	} {
		out := renderTextAt(t, boundsReport(n, n), 80)
		line := strings.Join(strings.Fields(out[strings.LastIndex(out, "\n  old "):]), " ")
		more := rest != "" && strings.Contains(line, rest)
		if rows := strings.Count(out, "\n  old "); rows != MaxTableBackends || more != (rest != "") || (rest == "" && strings.Contains(out, " more ")) {
			t.Errorf("%d backends: %d rows, the line for the rest %q present %v:\n%s", n, rows, rest, more, out)
		}
	}
	for _, n := range []int{1 + maxAlikeNamed, 2 + maxAlikeNamed} {
		out := renderTextAt(t, boundsReport(n, 0), 80)
		last := fmt.Sprintf("…-p%04d 10.1.0.%d", n-1, n)
		counted := strings.Contains(out, fmt.Sprintf("alike: %d more pods, named in the JSON report", n-1))
		if strings.Contains(out, last) == counted || counted != (n-1 > maxAlikeNamed) {
			t.Errorf("%d alike lanes: the last named %v, counted %v:\n%s", n, !counted, counted, out)
		}
	}
	for _, n := range []int{MaxTextLanes / 2, MaxTextLanes/2 + 1} {
		v := buildLaneView(boundsReport(n, n), time.Second, MaxTextLanes)
		if want := map[bool]int{true: 1, false: n}[n > MaxTextLanes/2]; v.Rows != want {
			t.Errorf("%d lanes an incident names: %d rows, want %d", n, v.Rows, want)
		}
	}
}

// TestTextLegendNamesWhatIsDrawn checks the text lanes of each seed fixture
// at each width: the legend names a lane state, the failures' mark, the
// shortened pod names and the rows of alike pods if and only if the lanes
// draw them, as the HTML legend does; the colours of new and old pods only
// when the output keeps colours and both are drawn.
func TestTextLegendNamesWhatIsDrawn(t *testing.T) {
	for _, name := range append([]string{"nginx-probe-fixed"}, seedFixtures...) {
		rep := saved(t, name)
		for _, width := range textWidths {
			out := renderTextAt(t, rep, width)
			lanes := out[strings.Index(out, "\nLanes "):]
			lanes = lanes[:strings.Index(lanes, "\nInputs")]
			head := lanes[:strings.Index(lanes, "\nReplicaSet ")]
			var rows strings.Builder
			for _, l := range strings.Split(lanes, "\n") {
				if i := strings.Index(l, "│"); i >= 0 {
					label := l[:i]
					rows.WriteString(l[i:])
					if strings.Contains(label, "…-") || strings.Contains(label, " +") {
						rows.WriteString(" " + label)
					}
				}
			}
			drawnText := rows.String()
			for mark, entry := range map[string]string{"░": "░ starting", "▒": "▒ Ready for Kubernetes", "█": "█ healthy for the LB",
				"╌": "╌ terminating", "!": "! LB/proxy 5xx", "…-": "…-x7k2q: a pod of the ReplicaSet above", " +": "+N: N more pods alike"} {
				if drawn, listed := strings.Contains(drawnText, mark), strings.Contains(head, entry); drawn != listed {
					t.Errorf("%s at %d: %q drawn %v, in the legend %v:\n%s", name, width, mark, drawn, listed, lanes)
				}
			}
			if strings.Contains(head, "blue") {
				t.Errorf("%s at %d: the legend names colours the output does not keep:\n%s", name, width, head)
			}
		}
	}
	// Colours kept: the legend names them when new and old pods are drawn.
	t.Setenv("CLICOLOR_FORCE", "1")
	t.Setenv("NO_COLOR", "")
	for name, want := range map[string]bool{"eks-alb-termination-race": true, "nginx-probe-fixed": true} {
		if got := strings.Contains(renderTextAt(t, saved(t, name), 120), "new pods blue, old yellow"); got != want {
			t.Errorf("%s with colours: the legend names them %v, want %v", name, got, want)
		}
	}
}

// TestTextAlikeKeepsPodAndIPTogether checks, at every width from 80 to 120
// columns, that a row of alike lanes lists each pod with its IP on one
// line, never broken between them.
func TestTextAlikeKeepsPodAndIPTogether(t *testing.T) {
	n := 1 + maxAlikeNamed
	rep := boundsReport(n, 0)
	for width := minTextWidth; width <= 120; width++ {
		out := renderTextAt(t, rep, width)
		for i := 1; i < n; i++ {
			if pair := fmt.Sprintf("…-p%04d 10.1.0.%d", i, i+1); !strings.Contains(out, pair) {
				t.Errorf("at %d columns %q is broken:\n%s", width, pair, out)
			}
		}
	}
}

// writeLog records the size of every write and fails from the failAt'th
// one on (never when 0).
type writeLog struct {
	sizes  []int
	failAt int
	out    bytes.Buffer
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	if w.failAt > 0 && len(w.sizes) >= w.failAt {
		return 0, fmt.Errorf("disk full")
	}
	return w.out.Write(p)
}

// TestTextWrittenInPieces renders a report of 5 000 inputs, several times
// textFlushBytes of text, and requires every input's line, in writes of
// whole lines that never hold much more than textFlushBytes, and the first
// failed write's error.
func TestTextWrittenInPieces(t *testing.T) {
	rep := saved(t, "nginx-wrong-probe-port")
	in := rep.Inputs[0]
	for i := range 5000 {
		in.Name = fmt.Sprintf("bundle/node-%04d/ingress-nginx-controller.log", i)
		rep.Inputs = append(rep.Inputs, in)
	}
	w := &writeLog{}
	must(t, WriteText(w, rep, 100))
	out := w.out.String()
	if n := strings.Count(out, "node-"); n != 5000 {
		t.Errorf("%d lines of the 5000 inputs", n)
	}
	if len(w.sizes) < 3 || len(out) < 3*textFlushBytes {
		t.Fatalf("%d writes of %d bytes", len(w.sizes), len(out))
	}
	const longestLine = 200
	pos := 0
	for i, n := range w.sizes {
		pos += n
		if n > textFlushBytes+longestLine || out[pos-1] != '\n' {
			t.Errorf("write %d: %d bytes, ending %q", i, n, out[pos-1])
		}
	}
	failing := &writeLog{failAt: 2}
	if err := WriteText(failing, rep, 100); err == nil || err.Error() != "disk full" || len(failing.sizes) != 2 {
		t.Errorf("error %v after %d writes, want the second write's", err, len(failing.sizes))
	}
}

// TestSpanAcrossDaysNamesBothDates checks that data spanning midnight is
// written with the date of each end, in the summary and the lanes.
func TestSpanAcrossDaysNamesBothDates(t *testing.T) {
	rep := boundsReport(2, 2)
	rep.Summary.First = time.Date(2026, 1, 2, 23, 50, 0, 0, time.UTC)
	rep.Summary.Last = time.Date(2026, 1, 3, 0, 10, 0, 0, time.UTC)
	out := renderTextAt(t, rep, 100)
	for _, want := range []string{"2026-01-02 23:50:00 – 2026-01-03 00:10:00 UTC", "Lanes 2026-01-02 23:50:00 → 2026-01-03 00:10:00 UTC"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	rep.Summary.Last = time.Date(2026, 1, 2, 23, 59, 0, 0, time.UTC)
	if out := renderTextAt(t, rep, 100); !strings.Contains(out, "2026-01-02 23:50:00 – 23:59:00 UTC") || !strings.Contains(out, "Lanes 23:50:00 → 23:59:00 UTC") {
		t.Errorf("one day: the end's date is repeated:\n%s", out)
	}
}

package sources

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// This file holds what the readers of kubectl's text tables share: the
// table layout (a table is read whole, since its rows mean something only
// under their header and its ages only against one reference time), how a
// printed age turns back into an interval, and how that reference time is
// found. The layouts are kubectl's own (kubernetes/kubectl pkg/describe,
// kubernetes/cli-runtime pkg/printers); ages are apimachinery's
// duration.HumanDuration and ShortHumanDuration.

// tableAdapter reads a format whose lines mean something only together: a
// table whose header names the columns, whose rows may wrap onto the next
// line, and whose times are ages relative to when it was printed.
type tableAdapter interface {
	Format() Format
	// MatchTable reports whether the first lines of an input (wrappers
	// off, trailing white space off) look like this format. It must be cheap.
	MatchTable(lines [][]byte) bool
	// ParseTable reads a whole input: every line is a row, a counted skip or
	// passed over (headers, the rest of a describe), and the rows become
	// records once their reference time is known.
	ParseTable(lines []tableLine, t *tableRead)
}

// tableLine is one line of a table input, its line break taken off.
type tableLine struct {
	text []byte
	line int
}

// tableRead is what a table adapter reads an input with.
type tableRead struct {
	out  *Emitter
	file string
	// now is the reference time the user gave (--now); zero without one.
	now time.Time
	// readAt is when the read ran: what ages are anchored to when nothing
	// else says when the table was printed.
	readAt time.Time
}

// maxTableBytes bounds the text of a table input read at once. A pasted
// table or a `kubectl describe` of a few hundred pods is well below it; a
// larger input is read up to it and the rest counted as one skip.
const maxTableBytes = 32 << 20

// readTable reads an input detected as a table: whole, into one part.
func (in *inputReader) readTable(a tableAdapter) error {
	p := in.newPart()
	var buf bytes.Buffer
	n, err := buf.ReadFrom(io.LimitReader(in.br, maxTableBytes+1))
	if err != nil {
		return err
	}
	text := buf.Bytes()
	if n > maxTableBytes {
		text = text[:bytes.LastIndexByte(text[:maxTableBytes], '\n')+1]
		p.em.Warn("table input longer than %d MiB: the lines after the first %d MiB were not read", maxTableBytes>>20, maxTableBytes>>20)
	}
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	var lines []tableLine
	var scratch []byte
	for ln := 1; len(text) > 0; ln++ {
		raw := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			raw, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		raw = bytes.TrimRight(raw, " \t\r")
		if len(raw) == 0 {
			continue
		}
		inner, _, s := unwrapLine(raw, scratch)
		scratch = s
		lines = append(lines, tableLine{text: bytes.Clone(inner), line: ln})
	}
	t := &tableRead{out: p.em, file: in.name, now: in.opts.TableNow, readAt: in.opts.ReadAt}
	if t.readAt.IsZero() {
		t.readAt = time.Now()
	}
	a.ParseTable(lines, t)
	return nil
}

// tableNearMiss is the near miss of a table format: its lines inside a
// wrapper (a CloudWatch export, a JSON log) that is read line by line, where
// a table's rows lose their header and their order.
func tableNearMiss(a tableAdapter, s *nearSample) (nearScore, string) {
	if a.MatchTable(s.lines) {
		return nearKnown, "a kubectl table inside a wrapper that is read line by line, where its rows lose their header: give the table as the text kubectl printed"
	}
	return nearNone, ""
}

// NearMiss implements nearMisser.
func (a kubectlDescribe) NearMiss(s *nearSample) (nearScore, string) { return tableNearMiss(a, s) }

// NearMiss implements nearMisser.
func (a kubectlEvents) NearMiss(s *nearSample) (nearScore, string) { return tableNearMiss(a, s) }

// passed counts a line read as valid that carries no record.
func (t *tableRead) passed() {
	t.out.accounted++
	t.out.report.Passed++
}

// skip counts a line that could not be read.
func (t *tableRead) skip(line int, reason string) {
	t.out.Skip(Origin{t.file, line}, reason)
}

// kubeAge is an age kubectl printed for an event: it happened between lo
// and hi (lo included, hi not) before the table was printed. known is
// false for `<unknown>` (no time on the event).
type kubeAge struct {
	lo, hi time.Duration
	known  bool
}

// The units HumanDuration prints.
const (
	day  = 24 * time.Hour
	year = 365 * day
)

// ageUnits are the units of a printed age, in the order they are written.
var ageUnits = []struct {
	suffix byte
	unit   time.Duration
}{{'y', year}, {'d', day}, {'h', time.Hour}, {'m', time.Minute}, {'s', time.Second}}

// parseKubeAge reads one age as HumanDuration or ShortHumanDuration print
// it (`90s`, `2m30s`, `16m`, `3h20m`, `2d5h`, `<unknown>`). The interval
// follows the printer's rounding: HumanDuration truncates to the second
// below 10 minutes, to the minute below 8 hours, to the hour below 8
// days, to the day below 8 years (apimachinery pkg/util/duration). A value
// HumanDuration never prints (`1m`, `1h`, `5h`, `1d`) is ShortHumanDuration's
// (kubectl before 1.12–1.16), truncated to its one unit.
func parseKubeAge(s string) (kubeAge, bool) {
	switch s {
	case "<unknown>":
		return kubeAge{}, true
	case "<invalid>":
		// The event's time is at least 2 s after the printing clock:
		// clocks apart. Read as printed now.
		return kubeAge{lo: 0, hi: time.Second, known: true}, true
	}
	var total time.Duration
	var units []time.Duration
	var values []int
	rest := s
	next := 0
	for len(rest) > 0 {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i == len(rest) || i > 6 {
			return kubeAge{}, false
		}
		v, _ := strconv.Atoi(rest[:i])
		u := -1
		for k := next; k < len(ageUnits); k++ {
			if ageUnits[k].suffix == rest[i] {
				u = k
				break
			}
		}
		if u < 0 {
			return kubeAge{}, false
		}
		next = u + 1
		total += time.Duration(v) * ageUnits[u].unit
		units = append(units, ageUnits[u].unit)
		values = append(values, v)
		rest = rest[i+1:]
	}
	if len(units) == 0 {
		return kubeAge{}, false
	}
	step := humanStep(total)
	if len(units) == 1 && !humanPrints(values[0], units[0]) {
		step = units[0]
	}
	return kubeAge{lo: total, hi: total + step, known: true}, true
}

// humanStep is the resolution at which HumanDuration prints a duration d.
func humanStep(d time.Duration) time.Duration {
	switch {
	case d < 10*time.Minute:
		return time.Second
	case d < 8*time.Hour:
		return time.Minute
	case d < 8*day:
		return time.Hour
	case d < 8*year:
		return day
	}
	return year
}

// humanPrints reports whether HumanDuration can print v of one unit alone.
func humanPrints(v int, unit time.Duration) bool {
	switch unit {
	case time.Second:
		return v < 120
	case time.Minute:
		return v >= 2 && v < 180
	case time.Hour:
		return v >= 3 && v < 48
	case day:
		return v >= 2 && v < 730
	case year:
		return v >= 2
	}
	return false
}

// kubeSeries is an Age or LAST SEEN cell as describe and `kubectl events`
// print it: `2m (x3 over 5m)` is the last of 3 occurrences 2 minutes ago,
// the first 5 minutes ago.
type kubeSeries struct {
	last, first kubeAge
	count       int
}

// seriesCell matches the `(xN over AGE)` form.
var seriesCell = regexp.MustCompile(`^(\S+) \(x(\d+) over (\S+)\)$`)

// parseKubeSeries reads an age cell, with or without its count.
func parseKubeSeries(s string) (kubeSeries, bool) {
	if m := seriesCell.FindStringSubmatch(s); m != nil {
		last, ok1 := parseKubeAge(m[1])
		first, ok2 := parseKubeAge(m[3])
		n, err := strconv.Atoi(m[2])
		if !ok1 || !ok2 || err != nil {
			return kubeSeries{}, false
		}
		return kubeSeries{last: last, first: first, count: n}, true
	}
	a, ok := parseKubeAge(s)
	return kubeSeries{last: a, first: a, count: 1}, ok
}

// tableAnchor is the time a table was printed, and how it was found.
type tableAnchor struct {
	at time.Time
	// err is how far at may be off the real printing time.
	err time.Duration
	// how says where at comes from, for the input's warning.
	how string
	// orderOnly marks an anchor nothing in the inputs gave: the rows'
	// order holds, their times do not.
	orderOnly bool
}

// pickAnchor returns the anchor of a table: --now, else the first inferred
// one, else the time of reading with the order-only warning.
func (t *tableRead) pickAnchor(inferred []tableAnchor) tableAnchor {
	if !t.now.IsZero() {
		return tableAnchor{at: t.now.UTC(), how: "anchored to --now " + t.now.UTC().Format(time.RFC3339)}
	}
	if len(inferred) > 0 {
		return inferred[0]
	}
	return tableAnchor{at: t.readAt.UTC().Truncate(time.Second), orderOnly: true,
		how: "have no reference time (no --now, no absolute time in the table): they were read as if printed when readygap ran (" +
			t.readAt.UTC().Format(time.RFC3339) + "), so their order holds but their times do not line up with other inputs; give the time the table was printed with --now"}
}

// warnAnchor says once per input how the ages were anchored.
func (t *tableRead) warnAnchor(a tableAnchor) {
	t.out.WarnOnce("table-anchor", "kubectl table ages %s", a.how)
}

// tableRow is one event row of a kubectl table, read but not yet timed.
type tableRow struct {
	line      int
	typ       string
	reason    string
	age       kubeSeries
	source    string // the From or SOURCE cell: `kubelet` or `kubelet, node-a`
	message   string
	kind      string // the involved object's kind, "" when the table does not say
	name      string
	namespace string
	count     int
}

// emit turns row into a Lifecycle record timed against anchor a: the event
// happened within (a−hi, a−lo]; the record's time is the middle, its
// TimeError half the width plus the anchor's own error.
func (t *tableRead) emit(row *tableRow, a tableAnchor, format Format) {
	ev := corev1.Event{
		Type:           row.typ,
		Reason:         row.reason,
		Message:        row.message,
		InvolvedObject: corev1.ObjectReference{Kind: row.kind, Name: row.name, Namespace: row.namespace},
		Count:          int32(max(row.count, row.age.count)),
	}
	ev.Source.Component, ev.Source.Host, _ = strings.Cut(row.source, ", ")
	ev.Source.Component = strings.Trim(ev.Source.Component, "{}")
	if c, h, ok := strings.Cut(ev.Source.Component, " "); ok && ev.Source.Host == "" {
		// The 2015 layout's `{kubelet node-a}`.
		ev.Source.Component, ev.Source.Host = c, h
	}
	// `<unknown>`: the event carries no time; it is kept at the anchor.
	at, spread := a.at, time.Duration(0)
	if row.age.last.known {
		lo, hi := row.age.last.lo, row.age.last.hi
		at = a.at.Add(-(lo + hi) / 2).Truncate(time.Millisecond)
		spread = (hi-lo)/2 + a.err
		if row.age.first.known {
			ev.FirstTimestamp = metav1.NewTime(a.at.Add(-(row.age.first.lo + row.age.first.hi) / 2))
		}
	}
	l := newKubeEventLifecycle(&ev, at, Origin{t.file, row.line}, format)
	l.FromAPI = true
	l.TimeError = spread
	l.OrderOnly = a.orderOnly
	if !row.age.last.known {
		l.Message = "(no time: printed <unknown>) " + l.Message
	}
	t.out.Lifecycle(&l)
}

// splitCells cuts a line at runs of at least min spaces, into at most n
// cells (the last holds the rest).
func splitCells(s string, minGap, n int) []string {
	var cells []string
	for len(cells) < n-1 {
		i := gapIndex(s, minGap)
		if i < 0 {
			break
		}
		cells = append(cells, s[:i])
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		s = s[j:]
	}
	return append(cells, s)
}

// rowShaped reports whether s has the n cells of a row, at least two
// spaces apart: a row that did not read, rather than the rest of a
// message a terminal wrapped.
func rowShaped(s string, n int) bool {
	return len(splitCells(strings.TrimSpace(s), 2, n)) >= n
}

// gapIndex returns where the first run of at least minGap spaces in s
// starts; -1 for none.
func gapIndex(s string, minGap int) int {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			run++
			if run == minGap {
				return i - minGap + 1
			}
			continue
		}
		run = 0
	}
	return -1
}

// expandTabs replaces tabs by spaces to the next multiple of 8, so that a
// table written with tabs (kubectl 1.3–1.7) splits like one with spaces.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", max(n, 2)))
			col += max(n, 2)
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// eventKinds maps the lower-cased kinds `kubectl get events` prints in its
// OBJECT column back to the API's kinds.
var eventKinds = map[string]string{
	"pod": "Pod", "service": "Service", "ingress": "Ingress", "replicaset": "ReplicaSet",
	"deployment": "Deployment", "node": "Node", "endpoints": "Endpoints", "endpointslice": "EndpointSlice",
	"statefulset": "StatefulSet", "daemonset": "DaemonSet", "rollout": "Rollout", "job": "Job",
	"horizontalpodautoscaler": "HorizontalPodAutoscaler", "targetgroupbinding": "TargetGroupBinding",
	"gateway": "Gateway", "httproute": "HTTPRoute", "canary": "Canary", "networkendpointgroup": "NetworkEndpointGroup",
}

// eventKind returns the API kind of a kind as a table prints it.
func eventKind(k string) string {
	if api, ok := eventKinds[strings.ToLower(k)]; ok {
		return api
	}
	return k
}

// eventTypes are the event types Kubernetes records.
func isEventType(s string) bool { return s == corev1.EventTypeNormal || s == corev1.EventTypeWarning }

// errNotRow is the reason for a line in an events section that is no row.
var errNotRow = fmt.Errorf("not an event row (Type, Reason, Age, From, Message)")

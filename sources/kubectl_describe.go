package sources

import (
	"bytes"
	"regexp"
	"strings"
	"time"
)

// kubectlDescribe reads the Events tables of `kubectl describe` (pods,
// ingresses, services, any object), pasted whole or as a few rows. Layout
// (kubernetes/kubectl pkg/describe DescribeEvents, since kubectl 1.8):
//
//	Events:
//	  Type     Reason     Age                  From               Message
//	  ----     ------     ----                 ----               -------
//	  Warning  Unhealthy  2m30s (x5 over 15m)  kubelet            Readiness probe failed: ...
//
// Cells are at least two spaces apart and the first four never hold two
// spaces in a row, so a row splits at its first four gaps; the message is
// the rest. A message's own line breaks, or a terminal's, continue it on
// the next line. The object is the `Name:`/`Namespace:` of the describe
// around the table, its kind guessed from the describe's fields; rows
// pasted without it have no object. Ages are anchored by --now, by the
// pod's `Start Time:` against its `Scheduled` row, or read as order-only.
type kubectlDescribe struct{}

// Format implements tableAdapter.
func (kubectlDescribe) Format() Format { return FormatKubectlDescribe }

// describeKey matches a describe field at the start of a line: `Name:`,
// `Start Time:`, `Events:`.
var describeKey = regexp.MustCompile(`^([A-Z][A-Za-z ]{0,40}):(?:\s+(.*))?$`)

// describeHeader is the Events table's header (since kubectl 1.8).
var describeHeader = regexp.MustCompile(`^Type\s{2,}Reason\s{2,}Age\s{2,}From\s{2,}Message$`)

// describeOldHeader is the header of kubectl 1.3–1.7's Events table,
// whose rows are not read.
var describeOldHeader = regexp.MustCompile(`^(FirstSeen\s+LastSeen\s+Count\s+From)`)

// containerPath is the `spec.containers{web}: ` kubectl 1.35+ puts before
// the message of an event about one container.
var containerPath = regexp.MustCompile(`^spec\.(?:initContainers|containers|ephemeralContainers)\{[^}]*\}: `)

// MatchTable implements tableAdapter: an Events header, a describe that
// has an Events section, or rows as most of the lines.
func (kubectlDescribe) MatchTable(lines [][]byte) bool {
	rows, other := 0, 0
	sawName := false
	for i, l := range lines {
		t := strings.TrimSpace(expandTabs(string(l)))
		if t == "" {
			continue
		}
		if describeHeader.MatchString(t) {
			return true
		}
		if i == 0 && strings.HasPrefix(t, "Name:") {
			sawName = true
		}
		if sawName && (t == "Events:" || strings.HasPrefix(t, "Events:  ")) {
			return true
		}
		if _, ok := describeRow(t); ok {
			rows++
		} else {
			other++
		}
	}
	return rows > 0 && rows >= other
}

// describeRow reads one row of the Events table.
func describeRow(t string) (tableRow, bool) {
	cells := splitCells(t, 2, 5)
	if len(cells) < 4 || !isEventType(cells[0]) {
		return tableRow{}, false
	}
	age, ok := parseKubeSeries(cells[2])
	if !ok || !eventReason(cells[1]) {
		return tableRow{}, false
	}
	row := tableRow{typ: cells[0], reason: cells[1], age: age, source: cells[3]}
	if len(cells) == 5 {
		row.message = cells[4]
	}
	return row, true
}

// eventReason reports whether s can be an event's reason: one word,
// letters and digits (UpperCamelCase by convention).
func eventReason(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// describedObject is the object a describe is about, from its fields.
type describedObject struct {
	kind, name, namespace string
	startTime             time.Time
}

// guessKind names the kind of a described object from one of its fields:
// only pods have a Node and Containers, ingresses Rules, services a
// TargetPort and Endpoints.
func (d *describedObject) guessKind(key string) {
	if d.kind != "" {
		return
	}
	switch key {
	case "Node", "Start Time", "Containers", "Readiness Gates", "QoS Class":
		d.kind = "Pod"
	case "Rules", "Default backend", "Ingress Class":
		d.kind = "Ingress"
	case "TargetPort", "Endpoints", "Session Affinity", "External Traffic Policy":
		d.kind = "Service"
	case "Replicas", "RollingUpdateStrategy", "NewReplicaSet":
		d.kind = "Deployment"
	}
}

// ParseTable implements tableAdapter.
func (kubectlDescribe) ParseTable(lines []tableLine, t *tableRead) {
	var rows []*tableRow
	var inferred []tableAnchor
	obj := &describedObject{}
	inEvents := false
	var last *tableRow // the row a continuation line adds to
	for _, tl := range lines {
		text := expandTabs(string(bytes.TrimRight(tl.text, " ")))
		trimmed := strings.TrimSpace(text)
		if strings.HasPrefix(trimmed, "│") || strings.HasPrefix(trimmed, "|") {
			// A k9s or viewer border around the row.
			trimmed = strings.TrimSpace(strings.Trim(trimmed, "│| "))
		}
		atLeft := text != "" && text[0] != ' '
		if atLeft {
			if m := describeKey.FindStringSubmatch(trimmed); m != nil && !strings.Contains(m[1], "  ") {
				key, value := m[1], strings.TrimSpace(m[2])
				last = nil
				switch key {
				case "Name":
					if obj.name != "" {
						obj = &describedObject{}
					}
					obj.name = value
				case "Namespace":
					obj.namespace = value
				case "Start Time":
					if st, err := time.Parse(time.RFC1123Z, value); err == nil {
						obj.startTime = st
					}
				}
				obj.guessKind(key)
				inEvents = key == "Events"
				t.passed()
				continue
			}
		}
		if row, ok := describeRow(trimmed); ok {
			row.line = tl.line
			row.message = containerPath.ReplaceAllString(row.message, "")
			if obj.name != "" {
				row.kind, row.name, row.namespace = obj.kind, obj.name, obj.namespace
			}
			if row.reason == "Scheduled" && !obj.startTime.IsZero() && row.age.last.known {
				// The kubelet sets the pod's start time when it takes
				// the pod, within seconds of its scheduling.
				lo, hi := row.age.last.lo, row.age.last.hi
				inferred = append(inferred, tableAnchor{
					at:  obj.startTime.Add((lo + hi) / 2),
					err: (hi-lo)/2 + startTimeLag,
					how: "inferred from the pod's Start Time (" + obj.startTime.UTC().Format(time.RFC3339) + ") and the age of its Scheduled row, to within a few seconds; give --now for certainty",
				})
			}
			rows = append(rows, &row)
			last = &row
			continue
		}
		switch {
		case describeHeader.MatchString(trimmed):
			inEvents = true
			t.passed()
		case isDashes(trimmed):
			// The rule under a header: the Events table's or another's
			// (an ingress's Rules).
			t.passed()
		case describeOldHeader.MatchString(trimmed):
			last = nil
			t.skip(tl.line, "the Events header of kubectl 1.3–1.7 (FirstSeen LastSeen Count ...), whose rows are not read; describe with a current kubectl")
		case last != nil && (atLeft || inEvents) && !rowShaped(trimmed, 5):
			// A message wrapped by a terminal, or with a line break of its
			// own: it goes on at the left margin.
			last.message += " " + trimmed
			t.passed()
		case inEvents:
			// What follows belongs to this line, not to the last row.
			last = nil
			t.skip(tl.line, errNotRow.Error())
		default:
			// The rest of a describe: labels, containers, conditions.
			t.passed()
		}
	}
	if len(rows) == 0 {
		return
	}
	a := t.pickAnchor(inferred)
	t.warnAnchor(a)
	for _, r := range rows {
		t.emit(r, a, FormatKubectlDescribe)
	}
}

// startTimeLag is how long after a pod's Scheduled event its Start Time
// may be: the kubelet stamps it when its first sync of the pod begins,
// usually within a second, seconds on a busy node.
const startTimeLag = 5 * time.Second

// isDashes reports whether s is a table's rule under its header: dashes
// and spaces only.
func isDashes(s string) bool {
	return s != "" && strings.Trim(s, "- ") == "" && strings.Contains(s, "--")
}

package sources

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"

	"github.com/readygap/readygap/sources/internal/lex"
)

// albHealthCheck reads AWS Application Load Balancer health-check logs, the
// per-check PASS/FAIL lines ALB writes to S3 (health_check_log_ objects).
// Each line becomes a HealthCheck Lifecycle for the target it checked: the
// direct evidence of when the LB itself started to consider a new pod
// healthy, or why it did not.
//
// Fields, space-separated: type time latency target_addr target_group_id
// status status_code reason_code [elb ip_address]. The documentation's
// examples have 8 fields and its table 10; later fields are ignored, as AWS
// asks parsers to do.
type albHealthCheck struct{}

// Positions (0-based) of the health-check log fields.
const (
	albHCFieldType = iota
	albHCFieldTime
	albHCFieldLatency
	albHCFieldTarget
	albHCFieldGroup
	albHCFieldStatus
	albHCFieldStatusCode
	albHCFieldReason
	// albHCMinFields is the field count of the documented examples.
	albHCMinFields
)

var (
	errALBHCBadLatency = errors.New("bad health-check latency")
	errALBHCBadStatus  = errors.New("bad health-check status: want PASS or FAIL")
	errALBHCBadTarget  = errors.New("bad health-check target address")
)

// Format reports FormatALBHealthCheck.
func (albHealthCheck) Format() Format { return FormatALBHealthCheck }

// Match reports whether line is a health-check log line: a known check type,
// an ISO 8601 UTC time, a decimal latency and PASS or FAIL as sixth field.
func (albHealthCheck) Match(line []byte) bool {
	var f [albHCMinFields][]byte
	n, err := albSplitFields(line, f[:])
	if err != nil || n < albHCMinFields || !albIsHealthCheckType(f[albHCFieldType]) ||
		!lex.IsDecimal(f[albHCFieldLatency]) || !albIsHealthStatus(f[albHCFieldStatus]) {
		return false
	}
	_, ok := albParseTime(f[albHCFieldTime], nil)
	return ok
}

// Parse turns one health-check line into a HealthCheck Lifecycle. Blank
// lines carry no record.
func (albHealthCheck) Parse(line []byte, ln *Line, out *Emitter) error {
	line = albTrimEnd(line)
	if len(line) == 0 {
		return nil
	}
	var f [albHCMinFields][]byte
	n, err := albSplitFields(line, f[:])
	if err != nil {
		return err
	}
	if n < albHCMinFields {
		return fmt.Errorf("ALB health-check line has %d fields, want 8 or 10", n)
	}
	if !albIsHealthCheckType(f[albHCFieldType]) {
		return fmt.Errorf("unknown ALB health-check type %q", albShorten(f[albHCFieldType]))
	}
	l, err := albHealthCheckRecord(&f, line, ln.Origin)
	if err != nil {
		return err
	}
	out.Lifecycle(&l)
	return nil
}

// albHealthCheckRecord builds the Lifecycle for the split fields of one line.
func albHealthCheckRecord(f *[albHCMinFields][]byte, line []byte, o Origin) (Lifecycle, error) {
	t, ok := albParseTime(f[albHCFieldTime], nil)
	if !ok {
		return Lifecycle{}, errALBBadTime
	}
	if !lex.IsDecimal(f[albHCFieldLatency]) {
		return Lifecycle{}, errALBHCBadLatency
	}
	status, health, ok := albHealthStatus(f[albHCFieldStatus])
	if !ok {
		return Lifecycle{}, errALBHCBadStatus
	}
	ip, port, ok := albHealthCheckTarget(f[albHCFieldTarget])
	if !ok {
		return Lifecycle{}, errALBHCBadTarget
	}
	l := Lifecycle{
		Time:    t,
		Kind:    HealthCheck,
		IP:      ip,
		Port:    port,
		Status:  status,
		Health:  health,
		Group:   string(f[albHCFieldGroup]),
		From:    -1,
		Source:  string(FormatALBHealthCheck),
		Message: string(line),
		Format:  FormatALBHealthCheck,
		Origin:  o,
	}
	if !albIsDash(f[albHCFieldReason]) {
		l.Reason = string(f[albHCFieldReason])
	}
	return l, nil
}

// albHealthCheckTarget reads target_addr: ip:port for instance and IP
// targets, a function ARN (no address) for Lambda targets.
func albHealthCheckTarget(b []byte) (netip.Addr, int, bool) {
	if bytes.HasPrefix(b, []byte("arn:")) {
		return netip.Addr{}, 0, true
	}
	ap, ok := lex.ParseAddrPort(b)
	return ap.Addr(), int(ap.Port()), ok
}

// albIsHealthCheckType reports whether b is a health-check type ALB logs.
func albIsHealthCheckType(b []byte) bool {
	switch string(b) {
	case "http", "https", "h2", "grpc", "grpcs", "lambda":
		return true
	}
	return false
}

// albIsHealthStatus reports whether b is PASS or FAIL.
func albIsHealthStatus(b []byte) bool {
	_, _, ok := albHealthStatus(b)
	return ok
}

// albHealthStatus returns the check result PASS or FAIL as a constant
// string and what it means.
func albHealthStatus(b []byte) (string, Health, bool) {
	switch string(b) {
	case "PASS":
		return "PASS", HealthHealthy, true
	case "FAIL":
		return "FAIL", HealthUnhealthy, true
	}
	return "", HealthUnknown, false
}

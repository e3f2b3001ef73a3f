package classify

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Scenario files (testdata/*.test) state in a few lines which records arrive
// at which times and what verdict must follow, in the spirit of Prometheus'
// promqltest files. Times are offsets from the `at` line. Directives:
//
//	at 2026-03-10T12:00:00Z
//	req 0s..30s every 100ms alb 200 ok backend=10.0.1.5:8080 [path=/x] [method=POST]
//	req 31s nginx 200 ok attempts=10.0.2.7:8080/502/refused,10.0.1.5:8080/200/ok
//	err 31s nginx refused backend=10.0.2.7:8080          (a proxy error-log line)
//	event 28s killing pod=web-old-abcde [ns=] [ip=] [reason=] [status=] [gate=] [health=] [group=] [count=] [from=] [zone=] [object=]
//	    [proxy=] [source=] [format=istiod]
//	pod web-new-abcde ip=10.0.2.7 [ns=] [rs=] [created=5s] [deleted=60s] [probe=tcpSocket:9090] [port=http:8080] [keepalive=gunicorn:2]
//	backendconfig web-hc [interval=5] [healthy=1] [samplerate=0.1]
//	expect incidents 1
//	expect incident cause=registration_lag [start=30s] [end=49.9s] [failed=200] [hidden=0] [confidence=medium] [variant=...] [note=WORD]
//	    [trigger=WORD] [rollout=yes|no] [backends=N] [fixes=N] [estimated=N]
//	expect backend ip=10.0.2.7 [pod=web-new-abcde] [role=new] [attempts=N] [requests=N]
//	expect fix minReadySeconds=25 [preStop.sleep.seconds=15] [title=WORD]
//	expect evidence WORDS       (an evidence note of the last incident holds WORDS)
//	expect no-evidence WORDS    (none does)
//	expect notes 1
//	expect note WORD
//
// start and end match within one second. backend and fix lines apply to
// the incident expected last: backend finds the backend by ip (or, without
// ip, by pod) and checks the rest; fix finds a fix whose patch holds every
// PATH=VALUE given, where PATH is the end of a dotted path through the
// patch (list items by index, e.g. containers.0.name) and title a word of
// its title. notes counts the notes below the incident thresholds and note
// finds a word in one.
type scenario struct {
	base    time.Time
	records *correlate.Collector
	expects []string
}

var formatNames = map[string]sources.Format{
	"alb": sources.FormatALBAccess, "gcp": sources.FormatGCPLogging, "nginx": sources.FormatIngressNginx,
	"events": sources.FormatK8sEvents, "objects": sources.FormatK8sObjects, "lbc": sources.FormatAWSLBC,
	"envoy": sources.FormatEnvoyAccess, "istiod": sources.FormatIstiod,
	"curl": sources.FormatCurlLoop, "fortio": sources.FormatFortio,
}

func parseFailure(s string) (sources.FailureKind, error) {
	for k := sources.FailureNone; k <= sources.FailureOther; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown failure kind %q", s)
}

func parseKind(s string) (sources.LifecycleKind, error) {
	for k := sources.LifecycleOther; k <= sources.ProxyUpdated; k++ {
		if k.String() == s || strings.ReplaceAll(k.String(), "_", "") == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown lifecycle kind %q", s)
}

// keyValues splits key=value words.
func keyValues(words []string) map[string]string {
	kv := map[string]string{}
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

func (s *scenario) at(off string) (time.Time, error) {
	d, err := time.ParseDuration(off)
	return s.base.Add(d), err
}

// times expands "0s..30s every 100ms" (or one offset) into record times.
func (s *scenario) times(words []string) ([]time.Time, []string, error) {
	from, to, ranged := strings.Cut(words[0], "..")
	start, err := s.at(from)
	if err != nil {
		return nil, nil, err
	}
	if !ranged {
		return []time.Time{start}, words[1:], nil
	}
	end, err := s.at(to)
	if err != nil {
		return nil, nil, err
	}
	if len(words) < 3 || words[1] != "every" {
		return nil, nil, fmt.Errorf("a range needs `every STEP`")
	}
	step, err := time.ParseDuration(words[2])
	if err != nil || step <= 0 {
		return nil, nil, fmt.Errorf("bad step %q", words[2])
	}
	var ts []time.Time
	for t := start; !t.After(end); t = t.Add(step) {
		ts = append(ts, t)
	}
	return ts, words[3:], nil
}

func parseScenario(path string) (*scenario, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &scenario{records: correlate.NewCollector()}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		words := strings.Fields(line)
		if err := s.directive(words); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
	}
	return s, sc.Err()
}

func (s *scenario) directive(words []string) error {
	switch words[0] {
	case "at":
		t, err := time.Parse(time.RFC3339Nano, words[1])
		s.base = t
		return err
	case "req", "err":
		return s.request(words[0] == "err", words[1:])
	case "event":
		return s.event(words[1:])
	case "pod":
		return s.pod(words[1:])
	case "backendconfig":
		return s.backendConfig(words[1:])
	case "expect":
		s.expects = append(s.expects, strings.Join(words[1:], " "))
		return nil
	}
	return fmt.Errorf("unknown directive %q", words[0])
}

func (s *scenario) request(attemptOnly bool, words []string) error {
	ts, rest, err := s.times(words)
	if err != nil {
		return err
	}
	r := sources.Request{AttemptOnly: attemptOnly, Method: "GET", Path: "/", LB: "test"}
	var ok bool
	if r.Format, ok = formatNames[rest[0]]; !ok {
		return fmt.Errorf("unknown format %q", rest[0])
	}
	rest = rest[1:]
	r.ClientSide = sources.FamilyOf(r.Format) == sources.FamilyClient
	if !attemptOnly {
		if r.Status, err = strconv.Atoi(rest[0]); err != nil {
			return err
		}
		rest = rest[1:]
	}
	if r.Failure, err = parseFailure(rest[0]); err != nil {
		return err
	}
	kv := keyValues(rest[1:])
	if b := kv["backend"]; b != "" {
		if r.Backend, err = netip.ParseAddrPort(b); err != nil {
			return err
		}
	}
	for _, a := range strings.Split(kv["attempts"], ",") {
		if a == "" {
			continue
		}
		parts := strings.Split(a, "/")
		if len(parts) != 3 {
			return fmt.Errorf("attempt %q is not ADDR:PORT/STATUS/KIND", a)
		}
		var at sources.Attempt
		if at.Backend, err = netip.ParseAddrPort(parts[0]); err != nil {
			return err
		}
		if at.Status, err = strconv.Atoi(parts[1]); err != nil {
			return err
		}
		if at.Failure, err = parseFailure(parts[2]); err != nil {
			return err
		}
		r.Attempts = append(r.Attempts, at)
		r.Backend = at.Backend
	}
	switch {
	case attemptOnly || r.Failure.LBGenerated():
		r.Generator = sources.GeneratedByLB
	case r.Backend.IsValid():
		r.Generator = sources.GeneratedByBackend
	}
	if v := kv["path"]; v != "" {
		r.Path = v
	}
	if v := kv["method"]; v != "" {
		r.Method = v
	}
	for i, t := range ts {
		r.Time = t
		r.Origin = sources.Origin{File: "scenario", Line: i + 1}
		s.records.Request(&r)
	}
	return nil
}

func (s *scenario) event(words []string) error {
	t, err := s.at(words[0])
	if err != nil {
		return err
	}
	l := sources.Lifecycle{Time: t, From: -1, Format: sources.FormatK8sEvents, Origin: sources.Origin{File: "scenario", Line: 1}}
	if l.Kind, err = parseKind(words[1]); err != nil {
		return err
	}
	kv := keyValues(words[2:])
	l.Pod, l.Namespace, l.Reason, l.Status, l.Group, l.Zone, l.Object = kv["pod"], kv["ns"], kv["reason"], kv["status"], kv["group"], kv["zone"], kv["object"]
	for g := sources.GateOther; g <= sources.GateTimeout; g++ {
		if kv["gate"] == g.String() {
			l.Gate = g
		}
	}
	for h := sources.HealthUnknown; h <= sources.HealthDraining; h++ {
		if kv["health"] == h.String() {
			l.Health = h
		}
	}
	if v := kv["ip"]; v != "" {
		if l.IP, err = netip.ParseAddr(v); err != nil {
			return err
		}
	}
	for k, dst := range map[string]*int{"count": &l.Count, "from": &l.From} {
		if v := kv[k]; v != "" {
			if *dst, err = strconv.Atoi(v); err != nil {
				return err
			}
		}
	}
	if l.Kind == sources.HealthCheck || l.Kind >= sources.TargetRegistering && l.Kind <= sources.TargetDeregistered {
		l.Format = sources.FormatAWSLBC
	}
	if f, ok := formatNames[kv["format"]]; ok {
		l.Format = f
	}
	l.Proxy, l.Source = kv["proxy"], kv["source"]
	s.records.Lifecycle(&l)
	return nil
}

func (s *scenario) pod(words []string) error {
	kv := keyValues(words[1:])
	c := sources.Config{Kind: "Pod", Name: words[0], Namespace: kv["ns"], Format: sources.FormatK8sObjects,
		Pod: &sources.PodStatus{ReplicaSet: kv["rs"]}, PodSpec: &sources.PodSpec{TerminationGracePeriodSec: 30}}
	var err error
	if v := kv["ip"]; v != "" {
		if c.Pod.IP, err = netip.ParseAddr(v); err != nil {
			return err
		}
	}
	if v := kv["created"]; v != "" {
		if c.Created, err = s.at(v); err != nil {
			return err
		}
	}
	if v := kv["deleted"]; v != "" {
		if c.Pod.Deleted, err = s.at(v); err != nil {
			return err
		}
	}
	ctr := sources.Container{Name: "app"}
	if v := kv["port"]; v != "" {
		name, num, _ := strings.Cut(v, ":")
		n, err := strconv.Atoi(num)
		if err != nil {
			return err
		}
		ctr.Ports = append(ctr.Ports, sources.ContainerPort{Name: name, Number: n})
	}
	if v := kv["keepalive"]; v != "" {
		server, secs, _ := strings.Cut(v, ":")
		n, err := strconv.ParseFloat(secs, 64)
		if err != nil {
			return err
		}
		ctr.KeepAlive = &sources.KeepAlive{Server: server, Seconds: n, Set: true, Via: "--keep-alive " + secs}
	}
	if v := kv["probe"]; v != "" {
		handler, num, _ := strings.Cut(v, ":")
		n, err := strconv.Atoi(num)
		if err != nil {
			return err
		}
		ctr.Readiness = &sources.Probe{Handler: handler, Port: n, PeriodSec: 5, FailureThreshold: 3}
	}
	c.PodSpec.Containers = append(c.PodSpec.Containers, ctr)
	s.records.Config(&c)
	return nil
}

func (s *scenario) backendConfig(words []string) error {
	kv := keyValues(words[1:])
	hc := &sources.LBHealthCheck{Source: "BackendConfig"}
	for k, dst := range map[string]**int{"interval": &hc.IntervalSec, "healthy": &hc.HealthyThreshold} {
		if v := kv[k]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return err
			}
			*dst = &n
		}
	}
	if v := kv["samplerate"]; v != "" {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return err
		}
		hc.LogSampleRate = &r
	}
	s.records.Config(&sources.Config{Kind: "BackendConfig", Name: words[0], Format: sources.FormatK8sObjects, HealthCheck: hc})
	return nil
}

// check compares the verdicts with the expectations.
func (s *scenario) check(t *testing.T, res *Result) {
	t.Helper()
	verdicts := res.Findings
	next := 0
	last := func() *Finding {
		if next == 0 {
			t.Fatalf("%q follows no `expect incident`", s.expects)
		}
		return verdicts[next-1]
	}
	for _, e := range s.expects {
		words := strings.Fields(e)
		switch words[0] {
		case "backend":
			expectBackend(t, last(), keyValues(words[1:]))
		case "fix":
			expectFix(t, last(), keyValues(words[1:]))
		case "evidence", "no-evidence":
			want, found := strings.Join(words[1:], " "), false
			for _, ev := range last().Evidence {
				found = found || strings.Contains(ev.Note, want)
			}
			if found != (words[0] == "evidence") {
				t.Errorf("evidence of the last incident: %q found %v", want, found)
			}
		case "notes":
			if want, _ := strconv.Atoi(words[1]); len(res.Notes) != want {
				t.Errorf("%d notes %q, want %d", len(res.Notes), res.Notes, want)
			}
		case "note":
			if !strings.Contains(strings.Join(res.Notes, "\n"), strings.Join(words[1:], " ")) {
				t.Errorf("notes %q lack %q", res.Notes, strings.Join(words[1:], " "))
			}
		case "incidents":
			want, _ := strconv.Atoi(words[1])
			if len(verdicts) != want {
				for _, v := range verdicts {
					t.Logf("got %s (%s): %s", v.Cause, v.Confidence, v.Summary)
				}
				t.Fatalf("%d incidents, want %d", len(verdicts), want)
			}
		case "incident":
			if next >= len(verdicts) {
				t.Fatalf("expected incident %d, got only %d", next+1, len(verdicts))
			}
			s.checkIncident(t, next+1, verdicts[next], keyValues(words[1:]))
			next++
		default:
			t.Fatalf("unknown expectation %q", e)
		}
	}
}

func (s *scenario) checkIncident(t *testing.T, n int, v *Finding, kv map[string]string) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Errorf("incident %d (%s, %s: %s): %s", n, v.Cause, v.Confidence, v.Summary, fmt.Sprintf(format, args...))
	}
	for key, want := range kv {
		switch key {
		case "cause":
			if v.Cause != want {
				fail("cause %s, want %s", v.Cause, want)
			}
		case "confidence":
			if string(v.Confidence) != want {
				fail("confidence %s, want %s", v.Confidence, want)
			}
		case "variant":
			if v.Variant != want {
				fail("variant %q, want %q", v.Variant, want)
			}
		case "failed", "hidden":
			got := v.Window.Failed
			if key == "hidden" {
				got = v.Window.Hidden
			}
			if w, _ := strconv.Atoi(want); got != w {
				fail("%s %d, want %d", key, got, w)
			}
		case "start", "end":
			at, err := s.at(want)
			if err != nil {
				t.Fatal(err)
			}
			got := v.Window.Start
			if key == "end" {
				got = v.Window.End
			}
			if d := got.Sub(at); d < -time.Second || d > time.Second {
				fail("%s %s, want %s ±1 s", key, got.Sub(s.base), want)
			}
		case "note":
			if !strings.Contains(strings.Join(v.Notes, " "), want) {
				fail("notes %q lack %q", v.Notes, want)
			}
		case "trigger":
			if v.Trigger != want {
				fail("trigger %q, want %q", v.Trigger, want)
			}
		case "rollout":
			if got := map[bool]string{true: "yes", false: "no"}[v.Rollout != nil]; got != want {
				fail("rollout %s, want %s", got, want)
			}
		case "backends", "fixes", "estimated":
			got := map[string]int{"backends": len(v.Backends), "fixes": len(v.Remediation), "estimated": v.Estimated()}[key]
			if w, err := strconv.Atoi(want); err != nil || got != w {
				fail("%s %d, want %s", key, got, want)
			}
		default:
			t.Fatalf("unknown incident field %q", key)
		}
	}
}

// TestScenarios runs every testdata/*.test file.
func TestScenarios(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.test"))
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test"), func(t *testing.T) {
			s, err := parseScenario(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.expects) == 0 {
				t.Fatal("a scenario must expect something")
			}
			a := correlate.Analyze(correlate.Merge(s.records), correlate.Options{})
			s.check(t, Classify(a))
		})
	}
}

// expectBackend finds the incident's backend by ip (else by pod) and checks
// the other fields given.
func expectBackend(t *testing.T, v *Finding, kv map[string]string) {
	t.Helper()
	var ref *BackendRef
	for i := range v.Backends {
		b := &v.Backends[i]
		if (kv["ip"] != "" && b.IP.String() == kv["ip"]) || (kv["ip"] == "" && b.Pod == kv["pod"]) {
			ref = b
			break
		}
	}
	if ref == nil {
		var have []string
		for _, b := range v.Backends {
			have = append(have, fmt.Sprintf("%s/%s/%s", b.IP, b.Pod, b.Role))
		}
		t.Errorf("%s incident: no backend %v among %v", v.Cause, kv, have)
		return
	}
	for key, want := range kv {
		var got string
		switch key {
		case "ip":
			continue
		case "pod":
			got = ref.Pod
		case "role":
			got = ref.Role.String()
		case "attempts":
			got = strconv.Itoa(ref.Attempts)
		case "requests":
			got = strconv.Itoa(ref.Requests)
		default:
			t.Fatalf("unknown backend field %q", key)
		}
		if got != want {
			t.Errorf("%s incident, backend %s/%s: %s %s, want %s", v.Cause, ref.IP, ref.Pod, key, got, want)
		}
	}
}

// expectFix requires a fix of the incident whose patch holds every
// PATH=VALUE given (and whose title holds the word given as title).
func expectFix(t *testing.T, v *Finding, kv map[string]string) {
	t.Helper()
	for _, f := range v.Remediation {
		leaves := map[string]string{}
		flattenPatch("", map[string]any(f.Patch), leaves)
		all := true
		for key, want := range kv {
			if key == "title" {
				all = all && strings.Contains(f.Title, want)
				continue
			}
			found := false
			for path, got := range leaves {
				if (path == key || strings.HasSuffix(path, "."+key)) && got == want {
					found = true
				}
			}
			all = all && found
		}
		if all {
			return
		}
	}
	for _, f := range v.Remediation {
		leaves := map[string]string{}
		flattenPatch("", map[string]any(f.Patch), leaves)
		t.Logf("fix %q: %v", f.Title, leaves)
	}
	t.Errorf("%s incident: no fix with %v", v.Cause, kv)
}

// flattenPatch writes every leaf of a patch as its dotted path and value.
func flattenPatch(prefix string, v any, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flattenPatch(join(k), x, out)
		}
	case Patch:
		flattenPatch(prefix, map[string]any(v), out)
	case []any:
		for i, x := range v {
			flattenPatch(join(strconv.Itoa(i)), x, out)
		}
	case []string:
		for i, x := range v {
			out[join(strconv.Itoa(i))] = x
		}
	default:
		out[prefix] = fmt.Sprint(v)
	}
}

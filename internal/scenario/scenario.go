// Package scenario reads scenario files (testdata/*.test), which state in
// a few lines which records arrive
// at which times and what verdict must follow, in the spirit of Prometheus'
// promqltest files. Times are offsets from the `at` line. Directives:
//
//	at 2026-03-10T12:00:00Z
//	req 0s..30s every 100ms alb 200 ok backend=10.0.1.5:8080 [path=/x] [method=POST]
//	req 31s nginx 200 ok attempts=10.0.2.7:8080/502/refused,10.0.1.5:8080/200/ok
//	err 31s nginx refused backend=10.0.2.7:8080          (a proxy error-log line)
//	event 28s killing pod=web-old-abcde [ns=] [ip=] [reason=] [status=] [gate=] [health=] [group=] [count=] [from=] [zone=] [object=] [previous=]
//	    [proxy=] [source=] [format=istiod]
//	pod web-new-abcde ip=10.0.2.7 [ns=] [rs=] [sts=] [created=5s] [deleted=60s] [probe=tcpSocket:9090] [port=http:8080] [keepalive=gunicorn:2]
//	backendconfig web-hc [interval=5] [healthy=1] [samplerate=0.1]
//	rollout web [ns=] strategy=blueGreen|canary [active=] [preview=] [stable=] [canary=] [router=alb] [scaledown=30] [abortscaledown=30] [pingpong=yes] [dynamic=yes]
//	expect incidents 1
//	expect incident cause=registration_lag [start=30s] [end=49.9s] [failed=200] [hidden=0] [confidence=medium] [variant=...] [note=WORD]
//	    [trigger=WORD] [rollout=yes|no] [backends=N] [fixes=N] [estimated=N] [step=KIND@OFFSET]
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
package scenario

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// File is a scenario file read: its base time and its expectations; its
// records went to the handler given to Parse.
type File struct {
	// Base is the time of the `at` line, which offsets count from.
	Base time.Time
	// Expects are the `expect` lines, without the word expect, in order.
	Expects []string
	records sources.Handler
}

// formatNames are the formats a request line names.
var formatNames = map[string]sources.Format{
	"alb": sources.FormatALBAccess, "gcp": sources.FormatGCPLogging, "nginx": sources.FormatIngressNginx,
	"events": sources.FormatK8sEvents, "objects": sources.FormatK8sObjects, "lbc": sources.FormatAWSLBC,
	"envoy": sources.FormatEnvoyAccess, "istiod": sources.FormatIstiod,
	"curl": sources.FormatCurlLoop, "fortio": sources.FormatFortio,
}

// parseFailure reads a failure kind by its name.
func parseFailure(s string) (sources.FailureKind, error) {
	for k := sources.FailureNone; k <= sources.FailureOther; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown failure kind %q", s)
}

// parseKind reads a lifecycle kind by its name, with or without
// underscores.
func parseKind(s string) (sources.LifecycleKind, error) {
	for k := sources.LifecycleOther; k <= sources.LastLifecycleKind; k++ {
		if k.String() == s || strings.ReplaceAll(k.String(), "_", "") == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown lifecycle kind %q", s)
}

// KeyValues splits key=value words.
func KeyValues(words []string) map[string]string {
	kv := map[string]string{}
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok {
			kv[k] = v
		}
	}
	return kv
}

// At is the time at offset off (a Go duration) from the `at` line.
func (s *File) At(off string) (time.Time, error) {
	d, err := time.ParseDuration(off)
	return s.Base.Add(d), err
}

// times expands "0s..30s every 100ms" (or one offset) into record times.
func (s *File) times(words []string) ([]time.Time, []string, error) {
	from, to, ranged := strings.Cut(words[0], "..")
	start, err := s.At(from)
	if err != nil {
		return nil, nil, err
	}
	if !ranged {
		return []time.Time{start}, words[1:], nil
	}
	end, err := s.At(to)
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

// Parse reads the scenario file at path, hands every record it states to
// h (a correlate.Collector, say) and returns the rest.
func Parse(path string, h sources.Handler) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &File{records: h}
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

func (s *File) directive(words []string) error {
	switch words[0] {
	case "at":
		t, err := time.Parse(time.RFC3339Nano, words[1])
		s.Base = t
		return err
	case "req", "err":
		return s.request(words[0] == "err", words[1:])
	case "event":
		return s.event(words[1:])
	case "pod":
		return s.pod(words[1:])
	case "rollout":
		return s.rollout(words[1:])
	case "backendconfig":
		return s.backendConfig(words[1:])
	case "expect":
		s.Expects = append(s.Expects, strings.Join(words[1:], " "))
		return nil
	}
	return fmt.Errorf("unknown directive %q", words[0])
}

func (s *File) request(attemptOnly bool, words []string) error {
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
	kv := KeyValues(rest[1:])
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

func (s *File) event(words []string) error {
	t, err := s.At(words[0])
	if err != nil {
		return err
	}
	l := sources.Lifecycle{Time: t, From: -1, Format: sources.FormatK8sEvents, Origin: sources.Origin{File: "scenario", Line: 1}}
	if l.Kind, err = parseKind(words[1]); err != nil {
		return err
	}
	kv := KeyValues(words[2:])
	l.Pod, l.Namespace, l.Reason, l.Status, l.Group, l.Zone, l.Object = kv["pod"], kv["ns"], kv["reason"], kv["status"], kv["group"], kv["zone"], kv["object"]
	l.Previous = kv["previous"]
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

func (s *File) pod(words []string) error {
	kv := KeyValues(words[1:])
	c := sources.Config{Kind: "Pod", Name: words[0], Namespace: kv["ns"], Format: sources.FormatK8sObjects,
		Pod: &sources.PodStatus{ReplicaSet: kv["rs"], StatefulSet: kv["sts"]}, PodSpec: &sources.PodSpec{TerminationGracePeriodSec: 30}}
	var err error
	if v := kv["ip"]; v != "" {
		if c.Pod.IP, err = netip.ParseAddr(v); err != nil {
			return err
		}
	}
	if v := kv["created"]; v != "" {
		if c.Created, err = s.At(v); err != nil {
			return err
		}
	}
	if v := kv["deleted"]; v != "" {
		if c.Pod.Deleted, err = s.At(v); err != nil {
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

// rollout reads an Argo Rollout object.
func (s *File) rollout(words []string) error {
	kv := KeyValues(words[1:])
	r := &sources.Rollout{Strategy: kv["strategy"], ActiveService: kv["active"], PreviewService: kv["preview"],
		StableService: kv["stable"], CanaryService: kv["canary"], TrafficRouting: kv["router"],
		PingPong: kv["pingpong"] == "yes", DynamicStableScale: kv["dynamic"] == "yes"}
	for k, dst := range map[string]**int{"scaledown": &r.ScaleDownDelaySeconds, "abortscaledown": &r.AbortScaleDownDelaySeconds} {
		if v := kv[k]; v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return err
			}
			*dst = &n
		}
	}
	s.records.Config(&sources.Config{Kind: "Rollout", Name: words[0], Namespace: kv["ns"], Format: sources.FormatK8sObjects,
		Origin: sources.Origin{File: "rollout.yaml", Line: 1}, Workload: &sources.Workload{Strategy: r.Strategy}, Rollout: r})
	return nil
}

func (s *File) backendConfig(words []string) error {
	kv := KeyValues(words[1:])
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

package classify

import (
	"cmp"
	"fmt"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// wrongProbePort explains failures at new pods that were Ready before their
// serving port listened: the readiness probe checks another port (an admin
// port, a sidecar) that opens first. Its symptom is a connection refused
// (or closed, or timed out) at a pod that had not served yet; the pod spec
// makes it certain when the probed port differs from the port the traffic
// went to.
type wrongProbePort struct{}

// wrongProbePortCause is the cause wrongProbePort names.
var wrongProbePortCause = Cause{
	ID:          "wrong_probe_port",
	Name:        "wrong readiness-probe port",
	Description: "the readiness probe checks a port that opens before the serving port",
	Signature:   "refused connections to new pod IPs only, for a while after each became Ready; probe port ≠ the port traffic goes to",
	Checks:      wrongProbePortChecks,
}

// Tuning of the wrong-probe-port rule.
const (
	// probeClearFit is the share of refused connections among the failures
	// above which the logs alone name the mechanism with medium confidence.
	probeClearFit = 0.8
	// startupMargin is added to the slowest measured start-to-listen time
	// for the startupProbe's budget: a start slower than any seen yet.
	startupMargin = 10 * time.Second
	// startupPeriod is the startupProbe period proposed: often enough that a
	// pod joins within 2 s of listening.
	startupPeriod = 2
	// settleMargin is added to the start-to-listen time for minReadySeconds,
	// and minSettle is the least proposed.
	settleMargin = 5 * time.Second
	minSettle    = 10
	// readinessPeriod and readinessFailures are the readiness probe the fix
	// proposes: a failing pod leaves within 15 s.
	readinessPeriod   = 5
	readinessFailures = 3
)

// Cause implements Rule.
func (wrongProbePort) Cause() Cause { return wrongProbePortCause }

// Claims implements Rule: a failed attempt at a pod that had not served yet
// and was not an old pod of the rollout.
func (wrongProbePort) Claims(_ *correlate.Analysis, s *correlate.Signal) bool {
	at := s.Last()
	return at != nil && at.State == correlate.StateStarting && at.Role != correlate.RoleOld && backendFailure(at.Kind)
}

// backendFailure reports whether a failure kind happens on the way to a
// chosen backend (as opposed to having no backend at all).
func backendFailure(k sources.FailureKind) bool {
	switch k {
	case sources.FailureRefused, sources.FailureClosed, sources.FailureUnreachable, sources.FailureTimeout, sources.FailureOther:
		return true
	}
	return false
}

// Explain implements Rule: one finding per rollout (or stretch of time).
func (wrongProbePort) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	var out []*Finding
	for _, g := range groupByRollout(a, claimed) {
		out = append(out, explainWrongProbePort(a, g))
	}
	return out
}

func explainWrongProbePort(a *correlate.Analysis, g incidentGroup) *Finding {
	w := correlate.Summarize(g.Signals)
	f := &Finding{Cause: wrongProbePortCause.ID, Window: w, Rollout: g.Rollout, Backends: backendRefs(a, w)}
	f.Evidence = failureEvidence(w, nil)
	corroborated := 0
	servingPort := mostUsedPort(w)
	wl := findWorkload(a, g.Rollout, f.Backends)
	probe, container, portName := readinessProbe(f.Backends, wl, servingPort)
	if probe != nil && probe.Port != 0 && servingPort != 0 && probe.Port != servingPort {
		corroborated += 2
		f.explicit = true // the manifest itself shows the mismatch
		f.Evidence = append(f.Evidence, factEvidence("container %s: readinessProbe %s on port %d, but the traffic goes to port %d", container, probe.Handler, probe.Port, servingPort))
	}
	for _, r := range f.Backends {
		if m := readyMoment(r.Of); m != nil {
			corroborated++
			f.Evidence = append(f.Evidence, momentEvidence(m, fmt.Sprintf("%s %s: Ready, yet connections to it were refused", r.Pod, r.IP)))
			break
		}
	}
	listen := startToListen(f.Backends, g.Rollout)
	f.grade(w.Share(sources.FailureRefused), corroborated, probeClearFit)
	portText := "the serving port"
	if servingPort != 0 {
		portText = fmt.Sprintf("port %d", servingPort)
	}
	probeText := ""
	if probe != nil && probe.Port != 0 && probe.Port != servingPort {
		probeText = fmt.Sprintf(" — their readiness probe checks port %d instead", probe.Port)
	}
	saved := ""
	if w.Hidden > 0 {
		saved = fmt.Sprintf(", %d more were saved by retries", w.Hidden)
	}
	f.Summary = fmt.Sprintf("New pods were Ready before anything listened on %s%s, so connections to %s were refused for up to %s after each joined (%s; %s failed%s).",
		portText, probeText, words.Plural(len(f.Backends), "new pod IP"), seconds(listen), span(w), words.Plural(w.Failed, "request"), saved)
	f.Remediation = wrongProbePortFixes(wl, probe, container, servingPort, portName, listen)
	if fix, ok := platformOf(w).refusalFix(objectsOf(a), envoyPlatformOf(a, w), wl); ok {
		f.Remediation = append(f.Remediation, fix)
	}
	return f
}

// readyMoment returns the Ready milestone of a backend, nil when unknown.
func readyMoment(b *correlate.Backend) *correlate.Moment {
	if b == nil {
		return nil
	}
	return b.Moments[correlate.Ready]
}

// minTime returns the earlier of two times.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// readyEarliest is the earliest a pod known from events alone could have
// been Ready: its container's start plus its readiness probe's initial
// delay; zero when either is unknown.
func readyEarliest(b *correlate.Backend) time.Time {
	if b == nil || b.Spec == nil || b.At(correlate.Started).IsZero() {
		return time.Time{}
	}
	for _, c := range b.Spec.Containers {
		if c.Readiness != nil && !c.Sidecar {
			return b.At(correlate.Started).Add(time.Duration(c.Readiness.InitialDelaySec) * time.Second)
		}
	}
	return time.Time{}
}

// mostUsedPort is the backend port the failed attempts were sent to most;
// the lowest among ties.
func mostUsedPort(w *correlate.Window) int {
	counts := map[int]int{}
	for _, f := range w.ByIP {
		for p, n := range f.Ports {
			counts[p] += n
		}
	}
	return mostCounted(counts)
}

// readinessProbe finds the readiness probe of the new pods, from their own
// spec or else the Deployment's template, with its container and the name
// that container gives the serving port ("" when unnamed).
func readinessProbe(refs []BackendRef, wl workload, servingPort int) (probe *sources.Probe, container, servingName string) {
	var specs []*sources.PodSpec
	for _, r := range refs {
		if r.Of != nil && r.Of.Spec != nil {
			specs = append(specs, r.Of.Spec)
		}
	}
	if wl.Template != nil {
		specs = append(specs, wl.Template)
	}
	for _, s := range specs {
		for _, c := range s.Containers {
			if c.Readiness == nil || c.Sidecar {
				continue
			}
			for _, p := range c.Ports {
				if p.Number == servingPort && p.Name != "" {
					servingName = p.Name
				}
			}
			return c.Readiness, c.Name, servingName
		}
	}
	return nil, "", ""
}

// startToListen is the longest a new pod took from joining (Ready; else
// its container's start plus the readiness probe's initial delay, when
// only events tell; else its first failure) to accepting connections (its
// last failure).
func startToListen(refs []BackendRef, r *correlate.Rollout) time.Duration {
	var longest time.Duration
	for _, ref := range refs {
		from := ref.Start
		switch {
		case readyMoment(ref.Of) != nil:
			from = minTime(from, readyMoment(ref.Of).Time)
		case !readyEarliest(ref.Of).IsZero():
			from = minTime(from, readyEarliest(ref.Of))
		case (ref.Of == nil || ref.Of.Pod == "") && r != nil:
			// An IP no record ties to a pod joined no earlier than the
			// last of the rollout's new pods that could have been Ready
			// before its first failure.
			for _, b := range r.New.Pods {
				if t := readyEarliest(b); !t.IsZero() && !t.After(ref.Start) && (from.Equal(ref.Start) || t.After(from)) {
					from = t
				}
			}
		}
		longest = max(longest, ref.End.Sub(from))
	}
	return longest
}

// wrongProbePortFixes points the probe at the serving port and adds a
// startupProbe sized from the measured start-to-listen time.
func wrongProbePortFixes(wl workload, probe *sources.Probe, container string, servingPort int, servingName string, listen time.Duration) []Fix {
	startup := startupFix(wl, probe, container, servingPort, servingName, listen)
	startup.Why = fmt.Sprintf("New pods took up to %s to listen after joining; %s", seconds(listen), startup.Why)
	return []Fix{
		probeFix(wl, probe, container, servingPort, servingName),
		startup,
		settleFix(wl, listen),
	}
}

// servingPortRef is how a probe should name the serving port: by the
// container's name for it, else its number; a placeholder when unknown.
func servingPortRef(servingPort int, servingName string) any {
	switch {
	case servingName != "":
		return servingName
	case servingPort != 0:
		return servingPort
	}
	return placeholderName("serving port name")
}

// probeHandler is a probe of the same kind as probe (httpGet with its
// path, gRPC, else tcpSocket) on port, replacing the handler of the probe
// it patches (replaced, nil for none): a probe has one handler, and a
// strategic merge keeps the old one beside the new unless the patch nulls
// it. A gRPC probe takes a port number only.
func probeHandler(probe *sources.Probe, port any, servingPort int, replaced *sources.Probe) map[string]any {
	var out map[string]any
	switch {
	case probe != nil && probe.Handler == "httpGet":
		out = map[string]any{"httpGet": map[string]any{"path": cmp.Or(probe.Path, "/"), "port": port}}
	case probe != nil && probe.Handler == "grpc":
		var n any = servingPort
		if servingPort == 0 {
			n = placeholderName("serving port number")
		}
		out = map[string]any{"grpc": map[string]any{"port": n}}
	default:
		out = map[string]any{"tcpSocket": map[string]any{"port": port}}
	}
	if replaced != nil && replaced.Handler != "" {
		if _, same := out[replaced.Handler]; !same {
			out[replaced.Handler] = nil
		}
	}
	return out
}

// cmpOr returns a, or b when a is nil.
func cmpOr(a, b *sources.Probe) *sources.Probe {
	if a != nil {
		return a
	}
	return b
}

// templateProbe returns a container's probe of the workload's template
// (pick chooses readiness or startup); nil when it has none or the
// template is unknown.
func templateProbe(wl workload, container string, pick func(*sources.Container) *sources.Probe) *sources.Probe {
	if wl.Template == nil {
		return nil
	}
	for i := range wl.Template.Containers {
		if c := &wl.Template.Containers[i]; c.Name == container {
			return pick(c)
		}
	}
	return nil
}

// probeFix points the readiness probe at the serving port.
func probeFix(wl workload, probe *sources.Probe, container string, servingPort int, servingName string) Fix {
	container = cmp.Or(container, mainContainer(wl))
	port := servingPortRef(servingPort, servingName)
	readiness := probeHandler(probe, port, servingPort, cmpOr(templateProbe(wl, container, func(c *sources.Container) *sources.Probe { return c.Readiness }), probe))
	readiness["periodSeconds"], readiness["failureThreshold"] = readinessPeriod, readinessFailures
	was := "the readiness probe"
	if probe != nil && probe.Port != 0 {
		was = fmt.Sprintf("the readiness probe (%s on port %d)", probe.Handler, probe.Port)
	}
	return Fix{
		Title: "Probe the port that serves the traffic",
		Why:   probeWhy(was, port, servingPort, servingName),
		Patch: containerPatch(wl, container, map[string]any{"readinessProbe": readiness}),
	}
}

// startupFix adds a startupProbe on the serving port whose budget covers a
// start of listen plus startupMargin, in whole periods. Its Why says what
// the probe does; the caller says where listen came from.
func startupFix(wl workload, probe *sources.Probe, container string, servingPort int, servingName string, listen time.Duration) Fix {
	container = cmp.Or(container, mainContainer(wl))
	// The startupProbe gives up after period × failureThreshold: cover the
	// slowest start plus a margin, in whole periods.
	failures := (ceilSeconds(listen+startupMargin) + startupPeriod - 1) / startupPeriod
	budget := failures * startupPeriod
	startup := probeHandler(probe, servingPortRef(servingPort, servingName), servingPort, templateProbe(wl, container, func(c *sources.Container) *sources.Probe { return c.Startup }))
	startup["periodSeconds"], startup["failureThreshold"] = startupPeriod, failures
	return Fix{
		Title: fmt.Sprintf("Give slow starts a startupProbe of %d s (%d × %d s)", budget, failures, startupPeriod),
		Why: fmt.Sprintf("the startupProbe holds readiness and liveness back until the serving port answers, for up to %d checks %d s apart.",
			failures, startupPeriod),
		Patch: containerPatch(wl, container, map[string]any{"startupProbe": startup}),
	}
}

// settleFix rolls out one pod at a time and keeps each unavailable for the
// start-to-listen time plus settleMargin (minSettle at the least).
func settleFix(wl workload, listen time.Duration) Fix {
	settle := max(ceilSeconds(listen+settleMargin), minSettle)
	if wl.Kind == "StatefulSet" {
		// A StatefulSet has no maxSurge, maxUnavailable (but an alpha
		// one) or progressDeadlineSeconds: it already replaces one pod
		// at a time, and minReadySeconds (GA in 1.25) holds each back.
		return Fix{
			Title: "Let each new pod settle before the next is replaced",
			Why: fmt.Sprintf("A StatefulSet replaces one pod at a time, after the previous one is Ready (podManagementPolicy OrderedReady, the default; with Parallel it does not wait); minReadySeconds %d (Kubernetes 1.25 or later) makes it wait until the new pod has been Ready that long.",
				settle),
			Patch: deploymentPatch(wl, map[string]any{"minReadySeconds": settle}),
		}
	}
	if wl.Kind == correlate.KindArgoRollout {
		// A Rollout's steps, not a rollingUpdate, pace it: minReadySeconds
		// holds each new pod back as a Deployment's does.
		spec, deadline := withMinReady(wl, map[string]any{}, settle)
		return Fix{
			Title: "Let each new pod settle before it counts as available",
			Why:   fmt.Sprintf("With minReadySeconds %d the Rollout counts a new pod available only after it has been Ready that long, so its steps and scale-down wait for it.%s", settle, deadline),
			Patch: deploymentPatch(wl, spec),
		}
	}
	spec, deadline := withMinReady(wl, map[string]any{"strategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": 0, "maxSurge": 1}}}, settle)
	return Fix{
		Title: "Roll out one pod at a time and let each settle",
		Why:   fmt.Sprintf("With maxUnavailable 0 and minReadySeconds %d the old pods keep serving while a new pod proves itself.%s%s", settle, deadline, strategyNote(wl)),
		Patch: deploymentPatch(wl, spec),
	}
}

// probeWhy explains the probe fix, naming the port by name when the
// container gives it one so that probe and Service cannot drift apart.
func probeWhy(was string, port any, servingPort int, servingName string) string {
	if servingName != "" {
		return fmt.Sprintf("Point %s at the serving port by its name, %q (%d), the port the load balancer sends requests to; a named port keeps probe and Service from drifting apart.", was, servingName, servingPort)
	}
	return fmt.Sprintf("Point %s at port %v, the port the load balancer sends requests to (better: name the container port, e.g. `http`, and probe it by name).", was, port)
}

// Static checks of the wrong probe port.
const (
	checkReadinessPort  = "readiness-probe-port"
	checkStartupPort    = "startup-probe-port"
	checkStartupMissing = "startup-probe-missing"
)

// wrongProbePortChecks describe the static checks of wrongProbePort.
var wrongProbePortChecks = []StaticCheck{
	{checkReadinessPort, "readiness probe on another port than the traffic",
		"the readiness probe's port (a named port resolved in its container) is none of the container ports the load balancer's traffic reaches: the Ingress, HTTPRoute or TargetGroupBinding backend port, through the Service's targetPort (named ports resolved); tcpSocket probes included"},
	{checkStartupPort, "startup probe on another port than the traffic",
		"the startupProbe's port is not a served port (an error when there is no readiness probe, as the startupProbe alone then makes the pod Ready)"},
	{checkStartupMissing, "no startupProbe while readiness is on a side port",
		"the readiness probe checks a side port and no startupProbe holds the pod back until the serving port answers"},
}

// assumedSlowStart is the start the startupProbe proposed before a deploy
// covers, when nothing measured one: with startupMargin, a budget of a
// minute (30 checks 2 s apart), enough for the slow starts the seeds
// describe (a serving port open some ten seconds after the admin port).
const assumedSlowStart = 50 * time.Second

// Check implements Rule: per workload, the probes that make a pod Ready
// check a port the load balancer's traffic does not go to.
func (wrongProbePort) Check(objs *Objects) []*Risk {
	var out []*Risk
	for _, t := range objs.targetsOf() {
		served := t.servedPorts()
		if len(served) == 0 {
			continue
		}
		c, port := servingContainer(t.wl.Template, served)
		if c == nil {
			continue
		}
		svc := served[port]
		name := containerPortName(c, port)
		ready, startup := c.Readiness, c.Startup
		readyWrong := ready != nil && ready.Port != 0 && served[ready.Port] == nil
		if readyWrong {
			r := newRisk(wrongProbePortCause, checkReadinessPort, SeverityError, t)
			r.Title = fmt.Sprintf("the readiness probe of %s checks port %d, the traffic goes to %d", objectName(t.Config), ready.Port, port)
			r.Reason = fmt.Sprintf("Container %s: readinessProbe %s on port %s, but %s sends the load balancer's traffic to port %s. %s",
				c.Name, ready.Handler, portText(c, ready.Port), objectName(svc), portText(c, port), probeConsequence(ready))
			r.Fixes = []Fix{probeFix(t.wl, ready, c.Name, port, name)}
			out = append(out, r)
			if startup == nil {
				r := newRisk(wrongProbePortCause, checkStartupMissing, SeverityWarning, t)
				r.Title = fmt.Sprintf("%s has no startupProbe while its readiness probe checks a side port", objectName(t.Config))
				r.Reason = fmt.Sprintf("Container %s has no startupProbe, and its readinessProbe checks port %d, not the serving port %s: nothing holds a new pod back until port %d answers.",
					c.Name, ready.Port, portText(c, port), port)
				fix := startupFix(t.wl, ready, c.Name, port, name, assumedSlowStart)
				fix.Why = fmt.Sprintf("Nothing measured a start before the deploy: this budget covers a start of up to %s (raise failureThreshold for a slower app); %s", seconds(assumedSlowStart), fix.Why)
				r.Fixes = []Fix{fix}
				out = append(out, r)
			}
		}
		if startup != nil && startup.Port != 0 && served[startup.Port] == nil && !readyWrong {
			sev, then := SeverityWarning, "readiness and liveness probes start once it answers, whether or not the serving port listens."
			if ready == nil {
				sev, then = SeverityError, "with no readiness probe, the pod is Ready, and gets requests, as soon as it answers."
			}
			r := newRisk(wrongProbePortCause, checkStartupPort, sev, t)
			r.Title = fmt.Sprintf("the startupProbe of %s checks port %d, the traffic goes to %d", objectName(t.Config), startup.Port, port)
			r.Reason = fmt.Sprintf("Container %s: startupProbe %s on port %s, but %s sends the load balancer's traffic to port %s: %s",
				c.Name, startup.Handler, portText(c, startup.Port), objectName(svc), portText(c, port), then)
			fix := startupFix(t.wl, startup, c.Name, port, name, assumedSlowStart)
			fix.Title = "Start-probe the port that serves the traffic"
			fix.Why = fmt.Sprintf("Point the startupProbe at port %v, with a budget for a start of up to %s (raise failureThreshold for a slower app); %s", servingPortRef(port, name), seconds(assumedSlowStart), fix.Why)
			r.Fixes = []Fix{fix}
			out = append(out, r)
		}
	}
	return out
}

// servingContainer picks the container that serves the traffic: the first
// regular container declaring a served port (the lowest it declares), else
// the first regular container with the lowest served port.
func servingContainer(spec *sources.PodSpec, served map[int]*sources.Config) (*sources.Container, int) {
	lowest := 0
	for p := range served {
		if lowest == 0 || p < lowest {
			lowest = p
		}
	}
	var first *sources.Container
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.Sidecar {
			continue
		}
		if first == nil {
			first = c
		}
		best := 0
		for _, p := range c.Ports {
			if served[p.Number] != nil && (best == 0 || p.Number < best) {
				best = p.Number
			}
		}
		if best != 0 {
			return c, best
		}
	}
	return first, lowest
}

// containerPortName is the name a container gives a port; "" when none.
func containerPortName(c *sources.Container, port int) string {
	for _, p := range c.Ports {
		if p.Number == port {
			return p.Name
		}
	}
	return ""
}

// portText writes a port with the container's name for it: "8080 (http)".
func portText(c *sources.Container, port int) string {
	if name := containerPortName(c, port); name != "" {
		return fmt.Sprintf("%d (%s)", port, name)
	}
	return fmt.Sprint(port)
}

// probeConsequence says what a readiness probe on a side port lets happen.
func probeConsequence(p *sources.Probe) string {
	if p.Handler == "tcpSocket" {
		return fmt.Sprintf("A tcpSocket probe only proves that something accepts connections on %d: the pod is Ready, and gets requests, while nothing may listen on the serving port yet, and every such request is refused.", p.Port)
	}
	return fmt.Sprintf("The pod is Ready, and gets requests, as soon as port %d answers, whether or not the serving port listens; until it does, the requests are refused.", p.Port)
}

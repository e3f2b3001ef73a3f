package classify

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// wrongProbePort explains windows in which new pods were Ready before their
// serving port listened: the readiness probe checks another port (an admin
// port, a sidecar) that opens first. The LB logs alone show refused
// connections to new pod IPs only, each for a while after the pod joined;
// the pod spec makes it certain when the probed port differs from the port
// the traffic went to.
type wrongProbePort struct{}

// wrongProbePortCause is the cause wrongProbePort names.
var wrongProbePortCause = Cause{
	ID:          "wrong_probe_port",
	Name:        "wrong readiness-probe port",
	Description: "the readiness probe checks a port that opens before the serving port",
	Signature:   "refused connections to new pod IPs only, for a while after each became Ready; probe port ≠ the port traffic goes to",
}

// Cause implements Rule.
func (wrongProbePort) Cause() Cause { return wrongProbePortCause }

// Evaluate implements Rule.
func (wrongProbePort) Evaluate(a *correlate.Analysis, w *correlate.Window) *Finding {
	refused := w.Kinds[sources.FailureRefused]
	if refused < 2 || w.Share(sources.FailureRefused) < 0.5 {
		return nil
	}
	roles, refs := roleCounts(a, w, sources.FailureRefused)
	newShare := share(roles[correlate.RoleNew], refused)
	if share(roles[correlate.RoleOld], refused) > 0.2 || newShare < 0.5 {
		return nil
	}
	f := &Finding{Cause: wrongProbePortCause.ID, Backends: refs}
	newIPs := ipsWithRole(refs, correlate.RoleNew)
	f.Evidence = failureEvidence(w, namesIP(newIPs))

	corroborated := 0
	servingPort := mostUsedPort(w, newIPs)
	probe, container, portName := readinessProbe(a, w, refs, servingPort)
	if probe != nil && probe.Port != 0 && servingPort != 0 && probe.Port != servingPort {
		corroborated += 2
		f.Evidence = append(f.Evidence, Evidence{Text: fmt.Sprintf("container %s: readinessProbe %s on port %d, but the traffic goes to port %d", container, probe.Handler, probe.Port, servingPort)})
	}
	listen := startToListen(a, w, newIPs)
	for _, r := range refs {
		if r.Role != correlate.RoleNew {
			continue
		}
		ip := r.IP
		if b := a.BackendOf(ip, w.Start); b != nil && !b.At(correlate.Ready).IsZero() {
			corroborated++
			m := b.Moments[correlate.Ready]
			f.Evidence = append(f.Evidence, Evidence{Time: m.Time, Source: m.Origin.String(), Text: fmt.Sprintf("%s %s: Ready, yet connections to it were refused", b.Pod, ip)})
			break
		}
	}

	f.grade(newShare, corroborated, 0.8)
	portText := "the serving port"
	if servingPort != 0 {
		portText = fmt.Sprintf("port %d", servingPort)
	}
	probeText := ""
	if probe != nil && probe.Port != 0 && probe.Port != servingPort {
		probeText = fmt.Sprintf(" — their readiness probe checks port %d instead", probe.Port)
	}
	f.Summary = fmt.Sprintf("New pods were Ready before anything listened on %s%s, so connections to %s were refused for up to %s after each joined (%s; %s failed, %d more were saved by retries).",
		portText, probeText, plural(len(newIPs), "new pod IP"), seconds(listen), span(w), plural(w.Failed, "request"), w.Hidden)
	f.Remediation = wrongProbePortFixes(findWorkload(a, w), probe, container, servingPort, portName, listen)
	return f
}

// mostUsedPort is the backend port the failed requests to ips were sent to most.
func mostUsedPort(w *correlate.Window, ips map[netip.Addr]bool) int {
	counts := map[int]int{}
	for ip := range ips {
		if f := w.ByIP[ip]; f != nil {
			for p, n := range f.Ports {
				counts[p] += n
			}
		}
	}
	best := 0
	for p, n := range counts {
		if best == 0 || n > counts[best] || (n == counts[best] && p < best) {
			best = p
		}
	}
	return best
}

// readinessProbe finds the readiness probe of the new pods, from their own
// spec or else the Deployment's template, with its container and the name
// that container gives the serving port ("" when unnamed).
func readinessProbe(a *correlate.Analysis, w *correlate.Window, refs []BackendRef, servingPort int) (probe *sources.Probe, container, servingName string) {
	specs := []*sources.PodSpec{}
	for _, r := range refs {
		if b := a.BackendOf(r.IP, w.Start); r.Role == correlate.RoleNew && b != nil && b.Spec != nil {
			specs = append(specs, b.Spec)
		}
	}
	if wl := findWorkload(a, w); wl.Template != nil {
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

// startToListen estimates how long new pods took from joining the load
// balancer (Ready, else their first failure) to accepting connections.
func startToListen(a *correlate.Analysis, w *correlate.Window, ips map[netip.Addr]bool) time.Duration {
	var longest time.Duration
	for ip := range ips {
		f := w.ByIP[ip]
		if f == nil {
			continue
		}
		from := f.First
		if b := a.BackendOf(ip, w.Start); b != nil {
			if r := b.At(correlate.Ready); !r.IsZero() && r.Before(from) {
				from = r
			}
		}
		if d := f.Last.Sub(from); d > longest {
			longest = d
		}
	}
	return longest
}

// wrongProbePortFixes points the probe at the serving port and adds a
// startupProbe sized from the measured start-to-listen time.
func wrongProbePortFixes(wl workload, probe *sources.Probe, container string, servingPort int, servingName string, listen time.Duration) []Fix {
	container = orDefault(container, "<container>")
	port := "<serving port name>"
	switch {
	case servingName != "":
		port = servingName
	case servingPort != 0:
		port = fmt.Sprint(servingPort)
	}
	budget := ceilSeconds(listen) + 10
	probeBlock := fmt.Sprintf("tcpSocket:\n  port: %s\n", port)
	if probe != nil && probe.Handler == "httpGet" {
		probeBlock = fmt.Sprintf("httpGet:\n  path: %s\n  port: %s\n", orDefault(probe.Path, "/"), port)
	}
	was := "the readiness probe"
	if probe != nil && probe.Port != 0 {
		was = fmt.Sprintf("the readiness probe (now %s on port %d)", probe.Handler, probe.Port)
	}
	return []Fix{
		{
			Title: "Probe the port that serves the traffic",
			Why:   probeWhy(was, port, servingPort, servingName),
			Patch: deploymentPatch(wl, fmt.Sprintf("template:\n  spec:\n    containers:\n    - name: %s\n      readinessProbe:\n%s        periodSeconds: 5\n        failureThreshold: 3\n", container, indent(probeBlock, "        "))),
		},
		{
			Title: fmt.Sprintf("Give slow starts a startupProbe of %d s", budget),
			Why:   fmt.Sprintf("New pods took up to %s to listen after joining; the startupProbe holds readiness and liveness back until the serving port answers, with %d s to spare.", seconds(listen), budget-ceilSeconds(listen)),
			Patch: deploymentPatch(wl, fmt.Sprintf("template:\n  spec:\n    containers:\n    - name: %s\n      startupProbe:\n%s        periodSeconds: 2\n        failureThreshold: %d\n", container, indent(probeBlock, "        "), (budget+1)/2)),
		},
		{
			Title: "Roll out one pod at a time and let each settle",
			Why:   "With maxUnavailable 0 and minReadySeconds the old pods keep serving while a new pod proves itself.",
			Patch: deploymentPatch(wl, fmt.Sprintf("minReadySeconds: %d\nstrategy:\n  rollingUpdate:\n    maxUnavailable: 0\n    maxSurge: 1\n", max(ceilSeconds(listen)+5, 10))),
		},
	}
}

// probeWhy explains the probe fix, naming the port by name when the
// container gives it one so that probe and Service cannot drift apart.
func probeWhy(was, port string, servingPort int, servingName string) string {
	if servingName != "" {
		return fmt.Sprintf("Point %s at the serving port by its name, %q (%d), the port the load balancer sends requests to; a named port keeps probe and Service from drifting apart.", was, servingName, servingPort)
	}
	return fmt.Sprintf("Point %s at port %s, the port the load balancer sends requests to (better: name the container port, e.g. `http`, and probe it by name).", was, port)
}

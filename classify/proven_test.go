package classify

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/fixtures/sim"
)

// This file proves the fixes stop the incident: for every fixture with
// client-visible failures, the changes the report proposes are read back
// from their patches — the YAML a user would paste, not the rule's
// internals — onto the simulator scenario the fixture was written from,
// and the rollout is simulated again. The failures must drop to zero, or
// the fixture is in provenResidual with the reason, and the report's fix
// text must say that reason.

// provenResidual lists the fixtures whose fixed re-run still fails, with
// the phrase of the report that names the residual.
var provenResidual = map[string]string{}

// notSimulated are the patch fields the simulator has no parameter for,
// with why leaving them out does not weaken the proof: each is a second
// defence beside a change the simulator does model, or a change of the
// same mechanism on a platform knob the model fixes.
var notSimulated = map[string]string{
	// PodDisruptionBudget, HPA behaviour and node exclusion shape how many
	// pods a drain or scale-in takes at once; the preStop sleep that
	// comes with them is what stops the race (the drain fixtures' controls
	// differ from them only by the sleep).
	"PodDisruptionBudget:spec.maxUnavailable":                                      "drain pacing",
	"PodDisruptionBudget:spec.selector.matchLabels.app":                            "drain pacing",
	"HorizontalPodAutoscaler:spec.behavior.scaleDown.policies.N.type":              "scale-in pacing",
	"HorizontalPodAutoscaler:spec.behavior.scaleDown.policies.N.value":             "scale-in pacing",
	"HorizontalPodAutoscaler:spec.behavior.scaleDown.policies.N.periodSeconds":     "scale-in pacing",
	"Node:metadata.labels.node.kubernetes.io/exclude-from-external-load-balancers": "node exclusion",
	// Retries hide failures the preStop sleep or probe fix removes; the
	// model's retry policy is the platform's default.
	"VirtualService:spec.http.N.name":                            "retries",
	"VirtualService:spec.http.N.retries.attempts":                "retries",
	"VirtualService:spec.http.N.retries.retryOn":                 "retries",
	"VirtualService:spec.http.N.route.N.destination.host":        "retries",
	"VirtualService:spec.http.N.route.N.destination.port.number": "retries",
	"BackendTrafficPolicy:spec.retry.numRetries":                 "retries",
	"BackendTrafficPolicy:spec.retry.retryOn.triggers.N":         "retries",
	"BackendTrafficPolicy:spec.targetRefs.N.group":               "retries",
	"BackendTrafficPolicy:spec.targetRefs.N.kind":                "retries",
	"BackendTrafficPolicy:spec.targetRefs.N.name":                "retries",
	"Middleware:spec.retry.attempts":                             "retries",
	"Middleware:spec.retry.initialInterval":                      "retries",
	// Topology spread places the replicas; the model places them from
	// spec.replicas over the zones (see applyFix).
	"Deployment:spec.template.spec.topologySpreadConstraints.N.labelSelector.matchLabels.app": "placement",
	"Deployment:spec.template.spec.topologySpreadConstraints.N.matchLabelKeys.N":              "placement",
	"Deployment:spec.template.spec.topologySpreadConstraints.N.maxSkew":                       "placement",
	"Deployment:spec.template.spec.topologySpreadConstraints.N.topologyKey":                   "placement",
	"Deployment:spec.template.spec.topologySpreadConstraints.N.whenUnsatisfiable":             "placement",
	// A rolling update is what the model runs.
	"Deployment:spec.strategy.type": "strategy",
	// GKE connection draining lets in-flight requests finish; the
	// model's requests are short, so it changes no outcome there.
	"BackendConfig:spec.connectionDraining.drainingTimeoutSec": "in-flight requests",
	// The model's health check passes on the first probe answered.
	"BackendConfig:spec.healthCheck.timeoutSec":         "probe timeout",
	"BackendConfig:spec.healthCheck.unhealthyThreshold": "removal of failing endpoints",
	// --aws-verify-target-group holds the next step and the old
	// ReplicaSet's scale-down until the ALB has the targets; it comes with
	// the ping-pong Services, which the model runs and which alone leave
	// the weight on registered targets.
	argoControllerKind + ":spec.template.spec.containers.N.name":   "controller flag beside ping-pong",
	argoControllerKind + ":spec.template.spec.containers.N.args.N": "controller flag beside ping-pong",
}

// argoControllerKind is how applyFix names a patch of the Argo Rollouts
// controller's own Deployment: a flag of the controller, not a change of
// the scenario's workload.
const argoControllerKind = "ArgoRolloutsController"

func TestFixesProven(t *testing.T) {
	ran := 0
	for _, s := range sim.Catalog() {
		if s.Large {
			continue
		}
		dir := filepath.Join("..", "fixtures", s.Name)
		if _, err := os.Stat(filepath.Join(dir, ".expected.json")); err != nil {
			t.Errorf("%s: no fixture written (go run ./fixtures/gen -only %s)", s.Name, s.Name)
			continue
		}
		tr := readTruth(t, dir)
		visible := 0
		for _, in := range tr.Incidents {
			visible += in.FailedRequests
		}
		if visible == 0 {
			continue
		}
		s := s
		t.Run(s.Name, func(t *testing.T) {
			if testing.Short() && s.Name == "eks-alb-large" {
				t.Skip("large fixture")
			}
			ran++
			a, findings := analyzeDir(t, dir)
			if len(findings) == 0 && allOptional(tr) {
				// A run of fewer failures than an incident needs is a
				// note without a fix: nothing to prove, but the report
				// must not pass over it.
				if !notesSay(Classify(a).Notes, tooFewNote) {
					t.Errorf("%d failures below the incident threshold and no note says %q", visible, tooFewNote)
				}
				t.Skipf("%d failures below the incident threshold, named in a note; no fix proposed", visible)
			}
			// The unchanged scenario must fail as the fixture did, so
			// that zero after the fixes is the fixes' doing.
			if again := visibleFailures(sim.Simulate(s).Truth); again != visible {
				t.Fatalf("re-simulating the scenario unchanged gives %d failures, the fixture %d: regenerate it (go run ./fixtures/gen -only %s)", again, visible, s.Name)
			}
			fixed := s
			var applied []string
			for _, f := range findings {
				for _, fx := range f.Remediation {
					if fx.Patch == nil {
						continue
					}
					got, err := applyFix(&fixed, fx.Patch)
					if err != nil {
						t.Errorf("fix %q: %v", fx.Title, err)
					}
					applied = append(applied, got...)
				}
			}
			r := sim.Simulate(fixed)
			after := visibleFailures(r.Truth)
			t.Logf("%d client-visible failures before, %d after: %s", visible, after, strings.Join(applied, ", "))
			why, residual := provenResidual[s.Name]
			switch {
			case after == 0 && residual:
				t.Errorf("no residual any more: drop %s from provenResidual", s.Name)
			case after > 0 && !residual:
				t.Errorf("%d client-visible failures remain after the fixes (%s)", after, windowsOf(r.Truth))
			case after > 0:
				if !fixTextSays(findings, why) {
					t.Errorf("%d failures remain and no fix says %q", after, why)
				}
			}
		})
	}
	if ran < 20 {
		t.Errorf("only %d fixtures with an incident re-simulated", ran)
	}
}

// tooFewNote is what the report's note says of failures too few to
// be an incident (group.go).
const tooFewNote = "too few to be an incident"

// allOptional reports whether every incident of the truth is below the
// incident threshold.
func allOptional(tr truth) bool {
	for _, in := range tr.Incidents {
		if !in.Optional && in.FailedRequests > 0 {
			return false
		}
	}
	return true
}

// notesSay reports whether a note says phrase.
func notesSay(notes []string, phrase string) bool {
	for _, n := range notes {
		if strings.Contains(n, phrase) {
			return true
		}
	}
	return false
}

// visibleFailures counts a run's client-visible LB-generated failures.
func visibleFailures(tr sim.Truth) int {
	n := 0
	for _, in := range tr.Incidents {
		n += in.FailedRequests
	}
	return n
}

// windowsOf summarises a run's failure windows.
func windowsOf(tr sim.Truth) string {
	var out []string
	for _, in := range tr.Incidents {
		out = append(out, fmt.Sprintf("%s %d at %s", in.Mechanism, in.FailedRequests, in.Start.Format(time.TimeOnly)))
	}
	return strings.Join(out, "; ")
}

// fixTextSays reports whether any fix of findings says phrase.
func fixTextSays(findings []*Finding, phrase string) bool {
	for _, f := range findings {
		for _, fx := range f.Remediation {
			if strings.Contains(fx.Title+" "+fx.Why, phrase) {
				return true
			}
		}
	}
	return false
}

// leaves flattens a patch to "path = value" pairs, list indices as numbers.
func leaves(prefix string, v any, out map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			leaves(join(prefix, k), x, out)
		}
	case Patch:
		leaves(prefix, map[string]any(v), out)
	case []any:
		for i, x := range v {
			leaves(join(prefix, strconv.Itoa(i)), x, out)
		}
	case []map[string]any:
		for i, x := range v {
			leaves(join(prefix, strconv.Itoa(i)), x, out)
		}
	case []string:
		for i, x := range v {
			leaves(join(prefix, strconv.Itoa(i)), x, out)
		}
	default:
		out[prefix] = v
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

var indexRE = regexp.MustCompile(`\.[0-9]+(\.|$)`)

// generic replaces list indices by N.
func generic(path string) string {
	for indexRE.MatchString(path) {
		path = indexRE.ReplaceAllString(path, ".N$1")
	}
	return path
}

// patchInt reads a patch value as an integer: JSON numbers, ints and
// strings holding one.
func patchInt(v any) (int, error) {
	switch v := v.(type) {
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		return int(v), nil
	case string:
		return strconv.Atoi(v)
	}
	return 0, fmt.Errorf("%v (%T) is not a number", v, v)
}

// applyFix sets the scenario parameters a patch changes and returns them
// as "field=value"; a patch field the simulator neither models nor lists
// in notSimulated is an error, so that a new kind of fix cannot pass
// unproven.
func applyFix(s *sim.Scenario, p Patch) ([]string, error) {
	kind, _ := p["kind"].(string)
	if meta, ok := p["metadata"].(map[string]any); ok && kind == "Deployment" && meta["name"] == argoControllerName {
		kind = argoControllerKind
	}
	flat := map[string]any{}
	leaves("", p, flat)
	paths := make([]string, 0, len(flat))
	for k := range flat {
		paths = append(paths, k)
	}
	sort.Strings(paths)
	var applied []string
	var errs []string
	set := func(name string, v any) { applied = append(applied, fmt.Sprintf("%s=%v", name, v)) }
	// args: gunicorn's and uvicorn's keep-alive flag and its value.
	args := map[int]string{}
	if s.Argo != nil {
		a := *s.Argo // the catalog's own stays as it was
		s.Argo = &a
	}
	for _, path := range paths {
		v := flat[path]
		g := generic(path)
		if g == "kind" || g == "apiVersion" || strings.HasPrefix(g, "metadata.namespace") {
			continue
		}
		if g == "metadata.name" {
			// A Deployment patch must name the scenario's Deployment.
			if name := fmt.Sprint(v); kind == "Deployment" && name != s.Deployment && !strings.HasPrefix(name, "<") {
				errs = append(errs, fmt.Sprintf("patches Deployment %s, the scenario's is %s", name, s.Deployment))
			}
			continue
		}
		key := kind + ":" + g
		n, nerr := patchInt(v)
		numeric := func(field string, dst *int) {
			if nerr != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, nerr))
				return
			}
			*dst = n
			set(field, n)
		}
		switch key {
		case "Deployment:spec.template.spec.containers.N.name":
			// The scenario's one container is named after the
			// Deployment; a patch must change it, not another one.
			if name := fmt.Sprint(v); name != s.Deployment && !strings.HasPrefix(name, "<") {
				errs = append(errs, fmt.Sprintf("%s: container %s, the serving one is %s", path, name, s.Deployment))
			}
		case "Deployment:spec.minReadySeconds":
			numeric("MinReadySeconds", &s.MinReadySeconds)
		case "Deployment:spec.replicas":
			numeric("Replicas", &s.Replicas)
			spread(s)
		case "Deployment:spec.strategy.rollingUpdate.maxSurge":
			numeric("MaxSurge", &s.MaxSurge)
		case "Deployment:spec.strategy.rollingUpdate.maxUnavailable":
			numeric("MaxUnavailable", &s.MaxUnavailable)
		case "Deployment:spec.template.spec.terminationGracePeriodSeconds":
			numeric("TerminationGracePeriodSeconds", &s.TerminationGracePeriodSeconds)
		case "Deployment:spec.template.spec.containers.N.lifecycle.preStop.sleep.seconds":
			numeric("PreStopSleepSeconds", &s.PreStopSleepSeconds)
		case "Deployment:spec.template.spec.containers.N.readinessProbe.tcpSocket.port",
			"Deployment:spec.template.spec.containers.N.readinessProbe.httpGet.port":
			target, err := probeTarget(s, v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, err))
				continue
			}
			s.ReadinessProbe.Target = target
			s.ReadinessProbe.TCP = strings.Contains(g, "tcpSocket")
			set("ReadinessProbe.Target", target)
		case "Deployment:spec.template.spec.containers.N.readinessProbe.periodSeconds":
			numeric("ReadinessProbe.PeriodSeconds", &s.ReadinessProbe.PeriodSeconds)
		case "Deployment:spec.template.spec.containers.N.readinessProbe.failureThreshold":
			numeric("ReadinessProbe.FailureThreshold", &s.ReadinessProbe.FailureThreshold)
		case "Deployment:spec.template.spec.containers.N.startupProbe.tcpSocket.port",
			"Deployment:spec.template.spec.containers.N.startupProbe.httpGet.port":
			target, err := probeTarget(s, v)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, err))
				continue
			}
			startup(s).Target = target
			startup(s).TCP = strings.Contains(g, "tcpSocket")
			set("StartupProbe.Target", target)
		case "Deployment:spec.template.spec.containers.N.startupProbe.periodSeconds":
			numeric("StartupProbe.PeriodSeconds", &startup(s).PeriodSeconds)
		case "Deployment:spec.template.spec.containers.N.startupProbe.failureThreshold":
			numeric("StartupProbe.FailureThreshold", &startup(s).FailureThreshold)
		case "Deployment:spec.template.spec.containers.N.args.N":
			i, _ := strconv.Atoi(path[strings.LastIndex(path, ".")+1:])
			args[i] = fmt.Sprint(v)
		case "Deployment:spec.template.spec.containers.N.env.N.name":
			// read with its value below
		case "Deployment:spec.template.spec.containers.N.env.N.value":
			name := fmt.Sprint(flat[strings.TrimSuffix(path, ".value")+".name"])
			if name != "KEEP_ALIVE_TIMEOUT" || s.KeepAlive == nil || s.KeepAlive.AppServer != "node" {
				errs = append(errs, fmt.Sprintf("%s: %s is not a setting the simulated app reads", path, name))
				continue
			}
			if nerr != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, nerr))
				continue
			}
			// Node.js server.keepAliveTimeout is in milliseconds.
			ka := *s.KeepAlive
			s.KeepAlive = &ka
			s.KeepAlive.AppTimeout = time.Duration(n) * time.Millisecond
			set("KeepAlive.AppTimeout", s.KeepAlive.AppTimeout)
		case "Rollout:spec.strategy.blueGreen.scaleDownDelaySeconds", "Rollout:spec.strategy.canary.scaleDownDelaySeconds":
			if s.Argo == nil || nerr != nil {
				errs = append(errs, fmt.Sprintf("%s: %v on a scenario without a Rollout (%v)", path, v, nerr))
				continue
			}
			s.Argo.ScaleDownDelaySeconds = &n
			set("Argo.ScaleDownDelaySeconds", n)
		case "Rollout:spec.strategy.blueGreen":
			// Replaced by the canary the other fields describe.
			if s.Argo == nil || v != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", path, v))
				continue
			}
			s.Argo.BlueGreen, s.Argo.PreviewService = false, ""
			set("Argo.BlueGreen", false)
		case "Rollout:spec.strategy.canary.pingPong.pingService", "Rollout:spec.strategy.canary.pingPong.pongService":
			if s.Argo == nil {
				errs = append(errs, fmt.Sprintf("%s: ping-pong on a scenario without a Rollout", path))
				continue
			}
			// A placeholder to fill in with a Service of the user's: the
			// scenario's second one, its canary Service.
			name := fmt.Sprint(v)
			if strings.HasPrefix(name, "<") {
				name = cmp.Or(s.Argo.CanaryService, s.Argo.PreviewService)
			}
			if strings.HasSuffix(g, "pingService") {
				s.Argo.PingService = name
			} else {
				s.Argo.PongService = name
			}
			set("Argo."+g[strings.LastIndex(g, ".")+1:], name)
		case "Rollout:spec.strategy.canary.steps.N.setCanaryScale.weight", "Rollout:spec.strategy.canary.steps.N.setWeight",
			"Rollout:spec.strategy.canary.steps.N.pause.duration":
			i, _ := strconv.Atoi(strings.Split(strings.TrimPrefix(path, "spec.strategy.canary.steps."), ".")[0])
			if s.Argo == nil {
				errs = append(errs, fmt.Sprintf("%s: a step on a scenario without a Rollout", path))
				continue
			}
			for len(s.Argo.Steps) <= i {
				s.Argo.Steps = append(s.Argo.Steps, sim.ArgoStep{})
			}
			st := &s.Argo.Steps[i]
			switch {
			case strings.HasSuffix(g, "pause.duration"):
				d, err := time.ParseDuration(fmt.Sprint(v))
				if err != nil {
					errs = append(errs, fmt.Sprintf("%s: %v", path, err))
					continue
				}
				st.Pause = d
			case nerr != nil:
				errs = append(errs, fmt.Sprintf("%s: %v", path, nerr))
				continue
			case strings.HasSuffix(g, "setWeight"):
				st.SetWeight = n
			default:
				st.SetCanaryScale = n
			}
			set(fmt.Sprintf("Argo.Steps[%d]", i), v)
		case "Rollout:spec.strategy.canary.trafficRouting.alb.rootService":
			// The Service the scenario's Ingress forwards to: its action
			// annotation holds the weights.
			if fmt.Sprint(v) != s.Service {
				errs = append(errs, fmt.Sprintf("%s: %v, the scenario's Ingress forwards to %s", path, v, s.Service))
			}
		case "Rollout:spec.strategy.canary.trafficRouting.alb.ingress", "Rollout:spec.strategy.canary.trafficRouting.alb.servicePort":
			// The scenario's one Ingress and Service port: a placeholder
			// to fill in names them.
			if !strings.HasPrefix(fmt.Sprint(v), "<") {
				errs = append(errs, fmt.Sprintf("%s: %v is not the placeholder of the scenario's one Ingress", path, v))
			}
		case "BackendConfig:spec.healthCheck.checkIntervalSec":
			numeric("HealthCheck.IntervalSeconds", &s.HealthCheck.IntervalSeconds)
		case "BackendConfig:spec.healthCheck.healthyThreshold":
			numeric("HealthCheck.HealthyThreshold", &s.HealthCheck.HealthyThreshold)
		case "Ingress:metadata.annotations.alb.ingress.kubernetes.io/target-group-attributes":
			secs, ok := attribute(fmt.Sprint(v), "deregistration_delay.timeout_seconds")
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: no deregistration delay in %q", path, v))
				continue
			}
			s.DeregistrationDelaySeconds = secs
			set("DeregistrationDelaySeconds", secs)
		case "Namespace:metadata.labels.elbv2.k8s.aws/pod-readiness-gate-inject":
			if v != "enabled" {
				errs = append(errs, fmt.Sprintf("%s: %v", path, v))
				continue
			}
			s.ReadinessGate = sim.GateALB
			set("ReadinessGate", sim.GateALB)
		case "BackendTrafficPolicy:spec.healthCheck.active.initialJitter":
			d, err := time.ParseDuration(fmt.Sprint(v))
			envoy, _ := s.Settings.(*sim.Envoy)
			if err != nil || envoy == nil || envoy.ActiveHC == nil {
				errs = append(errs, fmt.Sprintf("%s: %v on a scenario without an active health check (%v)", path, v, err))
				continue
			}
			hc := *envoy.ActiveHC
			hc.InitialJitter = d
			env := *envoy
			env.ActiveHC = &hc
			s.Settings = &env
			set("Envoy.ActiveHC.InitialJitter", d)
		default:
			if _, ok := notSimulated[key]; !ok {
				errs = append(errs, fmt.Sprintf("%s = %v: no simulator parameter and not in notSimulated", key, v))
			}
		}
	}
	if len(args) > 0 {
		list := make([]string, len(args))
		for i, a := range args {
			if i < len(list) {
				list[i] = a
			}
		}
		d, err := keepAliveArg(s, list)
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			ka := *s.KeepAlive
			s.KeepAlive = &ka
			s.KeepAlive.AppTimeout = d
			set("KeepAlive.AppTimeout", d)
		}
	}
	if len(errs) > 0 {
		return applied, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return applied, nil
}

// spread places the replicas of a topology-spread Deployment over the
// scenario's zones, as the scheduler does with maxSkew 1: old pods in
// every zone, so that no rollout moves the only pod of a zone.
func spread(s *sim.Scenario) {
	s.OldZones = make([]string, s.Replicas)
	for i := range s.OldZones {
		s.OldZones[i] = s.Zones[i%len(s.Zones)]
	}
	s.NewZones = append([]string(nil), s.Zones...)
}

// startup returns the scenario's startup probe, made when it had none.
func startup(s *sim.Scenario) *sim.Probe {
	if s.StartupProbe == nil {
		p := sim.Probe{Path: s.ReadinessProbe.Path}
		s.StartupProbe = &p
	} else {
		p := *s.StartupProbe
		s.StartupProbe = &p
	}
	return s.StartupProbe
}

// probeTarget resolves a probe's port, a number or a container port name,
// against the scenario's container ports (the serving one is named http,
// the admin one admin, as the simulator writes them).
func probeTarget(s *sim.Scenario, v any) (sim.ProbeTarget, error) {
	switch fmt.Sprint(v) {
	case "http", strconv.Itoa(s.ServingPort):
		return sim.ProbeServing, nil
	case "admin", strconv.Itoa(s.AdminPort):
		return sim.ProbeAdmin, nil
	}
	return "", fmt.Errorf("port %v is neither the serving port %d (http) nor the admin port %d", v, s.ServingPort, s.AdminPort)
}

// attribute reads key=value from an ALB attribute list "k1=v1,k2=v2".
func attribute(list, key string) (int, bool) {
	for _, kv := range strings.Split(list, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && k == key {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	return 0, false
}

// keepAliveArg reads the app server's keep-alive flag from the container
// arguments a patch carries whole: gunicorn --keep-alive (seconds),
// uvicorn --timeout-keep-alive (seconds).
func keepAliveArg(s *sim.Scenario, args []string) (time.Duration, error) {
	if s.KeepAlive == nil {
		return 0, fmt.Errorf("args %v on a scenario without keep-alive", args)
	}
	flag := map[string]string{"gunicorn": "--keep-alive", "uvicorn": "--timeout-keep-alive"}[s.KeepAlive.AppServer]
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			n, err := strconv.Atoi(args[i+1])
			if err != nil {
				return 0, fmt.Errorf("%s %q: %v", flag, args[i+1], err)
			}
			return time.Duration(n) * time.Second, nil
		}
	}
	return 0, fmt.Errorf("args %v carry no %s for %s", args, flag, s.KeepAlive.AppServer)
}

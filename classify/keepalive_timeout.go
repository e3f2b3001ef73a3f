package classify

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/internal/words"
	"github.com/readygap/readygap/sources"
)

// keepaliveTimeout explains a steady trickle of connections closed under a
// request at backends that were serving normally: the load balancer keeps
// idle upstream connections open longer than the application does, and
// now and then sends a request on one just as the application closes it
// (AWS: "Check whether the keep-alive duration of the target is shorter
// than the idle timeout value of the load balancer"). Its symptom is not a
// burst but failures spread over time and backends, away from rollouts,
// each a closed connection: ALB 502 with a target, no target status and
// response_processing_time -1, GCP
// backend_connection_closed_before_data_sent_to_client, ingress-nginx
// "upstream prematurely closed connection", Envoy UC. The timeouts in the
// objects make it certain and size the fix.
type keepaliveTimeout struct{}

// keepaliveTimeoutCause is the cause keepaliveTimeout names.
var keepaliveTimeoutCause = Cause{
	ID:          "keepalive_timeout",
	Name:        "idle keep-alive race",
	Description: "the app closes idle keep-alive connections sooner than the load balancer stops reusing them: a steady trickle of 502s on healthy pods, at any time",
	Signature:   "closed connections (ALB 502 with a target, no target status and `response_processing_time` -1, or `-1 -1 -1` on a pod that kept serving, GCP `backend_connection_closed_before_data_sent_to_client`, ingress-nginx \"upstream prematurely closed connection\", Envoy `UC`, Traefik's own 502 \"Bad Gateway\" on a pod that kept serving) spread over time and pods that kept serving; the app's keep-alive below the LB's idle timeout",
	Checks:      keepaliveChecks,
}

// Tuning of the keep-alive rule.
const (
	// minKeepaliveFailures is the fewest closed connections that make a
	// trickle: a handful is what any load balancer sees from client resets.
	minKeepaliveFailures = 8
	// minKeepaliveConfirmed is the fewest when the objects show the app's
	// keep-alive below the load balancer's idle timeout: the mechanism is
	// then known, and the failures only show it at work.
	minKeepaliveConfirmed = 4
	// minKeepaliveSpan is the shortest stretch a trickle must cover: the
	// race recurs at random as connections go idle, so it spreads over
	// minutes, where a crash or a deploy makes a burst.
	minKeepaliveSpan = 5 * time.Minute
	// keepaliveBucket and maxKeepaliveBurst say what spread means: no
	// minute may hold more than half of the failures.
	keepaliveBucket   = time.Minute
	maxKeepaliveBurst = 0.5
	// keepaliveMargin is how much longer than the load balancer's idle
	// timeout the app's keep-alive should be (AWS and Google both advise
	// "greater than"; five seconds covers the LB's own timer slack).
	keepaliveMargin = 5
	// minLBIdleFix is the shortest idle timeout proposed for the load
	// balancer when the app's keep-alive is short: below ten seconds the
	// load balancer reconnects for almost every request.
	minLBIdleFix = 10
)

// Load balancers' idle timeouts for upstream connections when no object
// sets them, from the providers' documentation.
const (
	// albIdleTimeout: ALB's connection idle timeout defaults to 60 s
	// (idle_timeout.timeout_seconds).
	albIdleTimeout = 60
	// gcpBackendKeepalive: Google's external Application Load Balancer keeps
	// backend connections alive up to 600 s (fixed, its "backend keepalive
	// timeout").
	gcpBackendKeepalive = 600
	// nginxUpstreamKeepalive: ingress-nginx upstream-keepalive-timeout
	// defaults to 60 s.
	nginxUpstreamKeepalive = 60
)

// Cause implements Rule.
func (keepaliveTimeout) Cause() Cause { return keepaliveTimeoutCause }

// Claims implements Rule: a connection closed under a request at a backend
// that was serving normally.
func (keepaliveTimeout) Claims(_ *correlate.Analysis, s *correlate.Signal) bool {
	at := s.Last()
	return at != nil && at.State == correlate.StateServing && (at.Kind == sources.FailureClosed || albIdleClose(s, at))
}

// albIdleClose reports whether an ALB 502 its source read as a refusal is,
// on a pod that keeps serving, a closed idle connection. The ALB logs both
// as `-1 -1 -1 502` with the target: request_processing_time is -1 "if the
// load balancer can't dispatch the request to a target. This can happen if
// the target closes the connection before the idle timeout" (ALB access
// log entries). A pod that refuses connections while it begins terminating
// is not serving, and stays a termination race.
func albIdleClose(s *correlate.Signal, at *correlate.Attempt) bool {
	return at.Kind == sources.FailureRefused && s.Group != nil && platformFor(s.Group.ProxyFamily()).refusalIsIdleClose()
}

// Explain implements Rule: one finding over the whole data, when the closed
// connections form a trickle rather than a burst.
func (keepaliveTimeout) Explain(a *correlate.Analysis, claimed []*correlate.Signal) []*Finding {
	if len(claimed) == 0 {
		return nil
	}
	w := correlate.Summarize(claimed)
	f := &Finding{Cause: keepaliveTimeoutCause.ID, Window: w, Backends: backendRefs(a, w)}
	family := familyOf(w)
	app, wl := appKeepAlive(a, f.Backends)
	objs := objectsOf(a)
	lb := lbIdleTimeout(objs, family, ingressesTo(objs, wl, family))
	least := minKeepaliveFailures
	if app != nil && app.Seconds < lb.Seconds {
		least = minKeepaliveConfirmed // the objects already show the mismatch
	}
	if !isTrickle(claimed, least) {
		return nil
	}
	f.Evidence = failureEvidence(w, nil)
	f.Timeouts = []Timeout{lb}
	corroborated := 0
	if app != nil {
		f.Timeouts = append(f.Timeouts, Timeout{What: "the app's keep-alive (" + cmp.Or(app.Server, "server") + ")", Seconds: app.Seconds, Source: appSource(app)})
		if app.Seconds < lb.Seconds {
			corroborated += 2
			f.Evidence = append(f.Evidence, factEvidence("%s keeps idle connections %g s, the load balancer reuses them for up to %g s (%s)", cmp.Or(app.Server, "the app"), app.Seconds, lb.Seconds, lb.Source))
		}
	}
	if len(f.Backends) > 1 {
		corroborated++
	}
	f.Rate = trickleRate(a, w, len(f.Backends))
	// Every failure claimed is a closed connection at a serving backend and
	// isTrickle has accepted their spread: the pattern fits whole, and
	// alone it is medium confidence.
	f.grade(1, corroborated, 1)
	f.Summary = keepaliveSummary(w, f.Rate, lb, app)
	f.Remediation = keepaliveFixes(objs, wl, family, lb, app)
	return []*Finding{f}
}

// isTrickle reports whether closed connections are spread like the
// keep-alive race: at least least of them, over minutes, no minute holding
// most.
func isTrickle(sigs []*correlate.Signal, least int) bool {
	n := correlate.Weight(sigs)
	end := sigs[0].Time()
	for _, s := range sigs {
		if e := s.End(); e.After(end) {
			end = e
		}
	}
	if n < least || end.Sub(sigs[0].Time()) < minKeepaliveSpan {
		return false
	}
	buckets := map[int64]int{}
	worst := 0
	for _, s := range sigs {
		// A signal's records are of one second, within one bucket.
		k := s.Time().UnixNano() / int64(keepaliveBucket)
		buckets[k] += s.Weight()
		worst = max(worst, buckets[k])
	}
	return float64(worst) <= maxKeepaliveBurst*float64(n)
}

// Timeout is one timeout setting a finding rests on.
type Timeout struct {
	// What names the setting.
	What string
	// Seconds is its value; Source where it was read, or "default".
	Seconds float64
	Source  string
	// setBy is the object that set it (nil for a default) and ingress the
	// Ingress whose load balancer it is (nil when none was read): where a
	// fix changes it.
	setBy, ingress *sources.Config
}

// Rate is how often a spread-out failure happened.
type Rate struct {
	PerHour, Share, Hours float64
	Backends              int
}

// trickleRate measures a trickle over the whole data: failures per hour,
// their share of all requests, the backends affected.
func trickleRate(a *correlate.Analysis, w *correlate.Window, backends int) *Rate {
	first, last := a.DataSpan()
	hours := last.Sub(first).Hours()
	r := &Rate{Hours: math.Round(hours*100) / 100, Backends: backends}
	if hours > 0 {
		r.PerHour = math.Round(float64(w.Failed)/hours*10) / 10
	}
	if f, l, ok := a.Span(); ok {
		if total := a.Sum(f, l).Total; total > 0 {
			r.Share = float64(w.Failed) / float64(total)
		}
	}
	return r
}

// lbIdleTimeout reads the load balancer's idle timeout for upstream
// connections where users set it, else its documented default. For the
// ALB it is that of the ALBs the Ingresses ings configure which keeps
// idle connections longest: the app's keep-alive must outlast each.
func lbIdleTimeout(objs *Objects, family sources.Family, ings []*sources.Config) Timeout {
	return platformFor(family).idleTimeout(objs, ings)
}

// albMaxIdle is the longest idle timeout an ALB takes
// (idle_timeout.timeout_seconds: "The valid range is 1-4000 seconds",
// Application Load Balancer attributes).
const albMaxIdle = 4000

// keepAliveText writes a keep-alive of seconds in the unit the setting
// was written in: milliseconds, a duration ("65s"), or seconds.
func keepAliveText(unit string, seconds int) string {
	switch unit {
	case sources.UnitMillis:
		return fmt.Sprint(seconds * 1000)
	case sources.UnitDuration:
		return fmt.Sprintf("%ds", seconds)
	}
	return fmt.Sprint(seconds)
}

// unitNote says how the unit of the app's setting was decided, when the
// setting did not say; "" otherwise.
func unitNote(app *sources.KeepAlive) string {
	if app.UnitNote == "" {
		return ""
	}
	return "; " + app.UnitNote
}

// appKeepAlive finds the keep-alive the failing backends' containers set,
// from their spec or their workload's template, and the workload.
func appKeepAlive(a *correlate.Analysis, refs []BackendRef) (*sources.KeepAlive, workload) {
	var specs []*sources.PodSpec
	for _, r := range refs {
		if r.Of != nil && r.Of.Spec != nil {
			specs = append(specs, r.Of.Spec)
		}
	}
	wl := findWorkload(a, nil, refs)
	if wl.Template != nil {
		specs = append(specs, wl.Template)
	}
	for _, s := range specs {
		if c := keepAliveContainer(s, wl.Serving); c != nil {
			if wl.Serving == "" {
				wl.Serving, wl.ServingWhy = c.Name, fmt.Sprintf("container %s of the pods read sets the keep-alive", c.Name)
			}
			return c.KeepAlive, wl
		}
	}
	return nil, wl
}

// keepAliveContainer is the container of spec whose keep-alive counts: the
// serving container when it is known (serving), else the first regular
// container that states one; nil when none does.
func keepAliveContainer(spec *sources.PodSpec, serving string) *sources.Container {
	for i := range spec.Containers {
		c := &spec.Containers[i]
		if c.KeepAlive != nil && !c.Sidecar && (serving == "" || c.Name == serving) {
			return c
		}
	}
	return nil
}

// appSource says where the app's keep-alive came from.
func appSource(k *sources.KeepAlive) string {
	if k.Set {
		return k.Via
	}
	return k.Server + "'s default"
}

// keepaliveSummary is the one sentence a human reads first.
func keepaliveSummary(w *correlate.Window, r *Rate, lb Timeout, app *sources.KeepAlive) string {
	head := fmt.Sprintf("A steady trickle of %s (%s) over %.1f hours — %.1f an hour, %.3f %% of requests — on %s that kept serving normally",
		words.Plural(w.Failed, "failed request"), statusList(w.StatusCounts), r.Hours, r.PerHour, r.Share*100, words.Plural(r.Backends, "backend"))
	if app != nil && app.Seconds < lb.Seconds {
		return head + fmt.Sprintf(": the load balancer reuses idle connections for up to %g s (%s), but %s closes them after %g s (%s), so now and then a request goes out on a connection the app is closing.",
			lb.Seconds, lb.Source, cmp.Or(app.Server, "the app"), app.Seconds, appSource(app))
	}
	return head + fmt.Sprintf(": the load balancer reuses idle connections for up to %g s (%s); an app that closes them sooner races it. The app's keep-alive timeout is not in the objects read.", lb.Seconds, lb.Source)
}

// argvPatch sets flag to value in the container's command line: where the
// command or the arguments already give it, that list with the value
// changed (a patch replaces a list whole); else the arguments with the flag
// added.
func argvPatch(wl workload, container string, app *sources.KeepAlive, flag string, value string) Patch {
	field, argv := "args", app.Args
	if !hasFlag(app.Args, flag) && hasFlag(app.Command, flag) {
		field, argv = "command", app.Command
	}
	return containerPatch(wl, container, map[string]any{field: anyList(withFlag(argv, flag, value))})
}

// hasFlag reports whether argv gives flag, as `--flag v` or `--flag=v`.
func hasFlag(argv []string, flag string) bool {
	for _, a := range argv {
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// withFlag returns a copy of argv with flag set to value: in place where
// argv gives it, else appended.
func withFlag(argv []string, flag string, v string) []string {
	out := append([]string(nil), argv...)
	for i, a := range out {
		switch {
		case a == flag && i+1 < len(out):
			out[i+1] = v
			return out
		case strings.HasPrefix(a, flag+"="):
			out[i] = flag + "=" + v
			return out
		}
	}
	return append(out, flag, v)
}

// keepaliveFixes raise the app's keep-alive above the load balancer's idle
// timeout, with the flag of the server when it is known, or lower the load
// balancer's.
func keepaliveFixes(objs *Objects, wl workload, family sources.Family, lb Timeout, app *sources.KeepAlive) []Fix {
	want := int(math.Ceil(lb.Seconds)) + keepaliveMargin
	fix := Fix{Title: fmt.Sprintf("Keep idle connections open %d s in the app, longer than the load balancer's %g s", want, lb.Seconds)}
	container := mainContainer(wl)
	switch {
	case app != nil && strings.HasPrefix(app.Via, "GUNICORN_CMD_ARGS"):
		fix.Why = fmt.Sprintf("gunicorn closes idle connections after %g s (%s). Raise --keep-alive in GUNICORN_CMD_ARGS to %d; the other arguments stay.", app.Seconds, app.Via, want)
		fix.Patch = containerPatch(wl, container, map[string]any{"env": []any{map[string]any{"name": "GUNICORN_CMD_ARGS",
			"value": strings.Join(withFlag(strings.Fields(app.EnvValue), "--keep-alive", fmt.Sprint(want)), " ")}}})
	case app != nil && app.Set && strings.HasPrefix(app.Via, "--"):
		flag, _, _ := strings.Cut(app.Via, " ")
		v := keepAliveText(app.Unit, want)
		fix.Why = fmt.Sprintf("%s closes idle connections after %g s: in the container's arguments, change `%s` to `%s %s`%s.", app.Server, app.Seconds, app.Via, flag, v, unitNote(app))
		fix.Patch = argvPatch(wl, container, app, flag, v)
	case app != nil && app.Set:
		name, _, _ := strings.Cut(app.Via, "=")
		v := keepAliveText(app.Unit, want)
		fix.Why = fmt.Sprintf("The app closes idle connections after %g s (%s%s); %s=%s is %d s in the same unit.", app.Seconds, app.Via, unitNote(app), name, v, want)
		fix.Patch = containerPatch(wl, container, map[string]any{"env": []any{map[string]any{"name": name, "value": v}}})
	case app != nil && app.Server == "node":
		fix.Why = fmt.Sprintf("Node.js closes idle connections after 5 s by default: where the server is created, set server.keepAliveTimeout to %d s (%d000, in milliseconds) and server.headersTimeout above it.", want, want)
	case app != nil && app.Server == "gunicorn":
		fix.Why = fmt.Sprintf("gunicorn closes idle connections after 2 s by default: add `--keep-alive %d` to its arguments.", want)
		fix.Patch = argvPatch(wl, container, app, "--keep-alive", fmt.Sprint(want))
	case app != nil && app.Server == "uvicorn":
		fix.Why = fmt.Sprintf("uvicorn closes idle connections after 5 s by default: add `--timeout-keep-alive %d` to its arguments.", want)
		fix.Patch = argvPatch(wl, container, app, "--timeout-keep-alive", fmt.Sprint(want))
	default:
		fix.Why = fmt.Sprintf("Set the server's keep-alive (idle) timeout to %d s: gunicorn --keep-alive, uvicorn --timeout-keep-alive, Node.js server.keepAliveTimeout.", want)
	}
	if fix.Patch != nil {
		fix.Why += servingNote(wl)
	}
	fixes := []Fix{fix}
	if app == nil || app.Seconds-1 < minLBIdleFix {
		return fixes
	}
	// Or let the load balancer give up on idle connections first, within
	// the range it takes.
	lower := int(math.Ceil(app.Seconds)) - 1
	if fix, ok := platformFor(family).idleFix(objs, wl, lb, lower); ok {
		fixes = append(fixes, fix)
	}
	return fixes
}

// proxyConfigMaps returns the ingress-nginx ConfigMaps read, by name.
func proxyConfigMaps(objs *Objects) []*sources.Config {
	out := slices.Clone(objs.indexOf().proxyConfigMaps)
	slices.SortFunc(out, func(x, y *sources.Config) int {
		return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name)
	})
	return out
}

// checkKeepalive is the static check of the keep-alive race.
const checkKeepalive = "keepalive"

// keepaliveChecks describe the static checks of keepaliveTimeout.
var keepaliveChecks = []StaticCheck{
	{checkKeepalive, "the app closes idle connections before the load balancer does",
		"the serving container's keep-alive timeout (from its command line or environment: gunicorn with a worker that keeps connections open, uvicorn, Node.js, ...) below the load balancer's idle timeout (ALB 60 s, or its IngressClassParams or Ingress annotation, Google's 600 s, ingress-nginx 60 s or its ConfigMap)"},
}

// Check implements Rule: per workload behind an ALB, Google's load
// balancer or ingress-nginx, the app's keep-alive, where its command line
// or environment shows it, is shorter than the load balancer's idle
// timeout.
func (keepaliveTimeout) Check(objs *Objects) []*Risk {
	var out []*Risk
	for _, t := range objs.targetsOf() {
		c := keepAliveContainer(t.wl.Template, t.wl.Serving)
		if c == nil {
			continue
		}
		app, container := c.KeepAlive, c.Name
		for _, f := range t.Fronts {
			p := f.platform()
			if !p.idleChecked() {
				continue // Envoy's upstream idle timeout is an hour: a short keep-alive is the common case there
			}
			var ings []*sources.Config
			if f.Via.Kind == "Ingress" {
				ings = append(ings, f.Via)
			}
			lb := p.idleTimeout(objs, ings)
			if app.Seconds >= lb.Seconds {
				continue
			}
			r := newRisk(keepaliveTimeoutCause, checkKeepalive, SeverityError, t)
			r.Via = f.Via
			r.Title = fmt.Sprintf("%s closes idle connections after %g s, %s reuses them for %g s", objectName(t.Config), app.Seconds, p.titleNoun(), lb.Seconds)
			r.Reason = fmt.Sprintf("Container %s: %s closes idle keep-alive connections after %g s (%s), but %s (%s, through %s) keeps idle connections to the pods for up to %g s and reuses them: now and then a request goes out on a connection the app is closing, and the load balancer answers 502 itself.",
				container, cmp.Or(app.Server, "the app"), app.Seconds, appSource(app), lb.What, lb.Source, objectName(f.Via), lb.Seconds)
			r.Fixes = keepaliveFixes(f.Objects, t.wl, f.Family, lb, app)
			r.Prediction = predictKeepalive(app, lb, p.titleNoun())
			out = append(out, r)
		}
	}
	return out
}

// predictKeepalive says what the keep-alive risk costs: not a window but a
// rate. Every connection the load balancer keeps idle past the app's
// keep-alive is closed by the app, and a request sent on it within a round
// trip of the close fails; how often that happens depends on how the
// traffic spaces requests per load-balancer node and pod, which no object
// says. With the app's keep-alive above the load balancer's idle timeout,
// the load balancer closes idle connections first and none fails.
func predictKeepalive(app *sources.KeepAlive, lb Timeout, noun string) *Prediction {
	want := int(math.Ceil(lb.Seconds)) + keepaliveMargin
	return &Prediction{
		Status: 502,
		Windows: []PredictedWindow{
			{Settings: fmt.Sprintf("keep-alive %g s under %s's idle timeout of %g s", app.Seconds, noun, lb.Seconds), Recurring: true},
			{Settings: fmt.Sprintf("keep-alive %d s", want)},
		},
		Basis: fmt.Sprintf("No window applies: the failures do not follow rollouts. Each time a connection sits idle between %g s (the app's keep-alive, %s) and %g s (%s), the app closes it while %s may still reuse it, and a request sent within a round trip of the close gets 502; how many an hour depends on how the traffic spaces requests per load-balancer node and pod, which no object says (analyze measures it from the request logs). With the app's keep-alive above the idle timeout, %s closes idle connections first.",
			app.Seconds, appSource(app), lb.Seconds, lb.Source, noun, noun),
	}
}

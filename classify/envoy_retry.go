package classify

import (
	"fmt"
	"strings"
	"time"

	"github.com/readygap/readygap/sources"
)

// safeRetryOn are the retry conditions under which the request never
// reached the application (Envoy's router docs: connect-failure,
// refused-stream), so retrying is safe for every method.
var safeRetryOn = []string{"connect-failure", "refused-stream"}

// istioRetryOn is Istio's default retryOn list, kept when raising attempts.
const istioRetryOn = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"

// retryWhy is what every retry fix says about what it retries.
const retryWhy = "A refused connection never reached the application, so trying another endpoint is safe for every method; " +
	"add `reset` only on idempotent routes, as a reset may come after the application began the request."

// retriesSafely reports whether a retry policy already retries refused
// connections.
func retriesSafely(r *sources.ProxyRetry) bool {
	if r == nil || (r.Retries != nil && *r.Retries <= 0) {
		return false
	}
	for _, on := range r.On {
		if strings.TrimSpace(on) == "connect-failure" {
			return true
		}
	}
	return false
}

// envoyRetryFix asks the gateway to try another endpoint when one refuses
// the connection, in the object its product configures retries with for
// the routes that send traffic to the workload (routerFronts), the user's
// other retry settings kept; when no object read routes to the workload,
// in one the fix names with a placeholder and says so. ok is false when
// the product is unknown, has no retry fix (envoyProducts) or the
// workload's routes already retry.
func envoyRetryFix(objs *Objects, product sources.Platform, wl workload) (Fix, bool) {
	if p, ok := envoyProductOf(product); ok && p.retry != nil {
		return p.retry(objs, wl)
	}
	return Fix{}, false
}

// noRouteRead says that no object of kind read routes to the workload, so
// that the fix names a placeholder.
func noRouteRead(kind string, wl workload) string {
	return fmt.Sprintf("No %s read sends traffic to %s: put the name of the one that does in place of %s. ",
		kind, workloadName(wl), placeholderName(kind))
}

// alsoRoutes names the other routing objects that need the same change;
// "" for none.
func alsoRoutes(others []*sources.Config) string {
	if len(others) == 0 {
		return ""
	}
	names := make([]string, len(others))
	for i, c := range others {
		names[i] = objectName(c)
	}
	return fmt.Sprintf("Give the same retries to the other routes to the workload: %s. ", strings.Join(names, ", "))
}

// envoyGatewayRetryFix puts the retry in the BackendTrafficPolicy that
// applies to the workload's HTTPRoute (envoyPolicyFor: the route's own
// over its Gateway's), or in a new one that targets the route when none
// does. A merge patch keeps the policy's other settings; the retry
// triggers, a list, carry the policy's own.
func envoyGatewayRetryFix(objs *Objects, wl workload) (Fix, bool) {
	routes := routerFronts(objs, wl, "HTTPRoute", sources.PlatformEnvoyGateway)
	var todo []front
	for _, f := range routes {
		if pol := envoyPolicyFor(f); pol == nil || !retriesSafely(pol.BackendTrafficPolicy.Retry) {
			todo = append(todo, f)
		}
	}
	if len(routes) > 0 && len(todo) == 0 {
		return Fix{}, false
	}
	fix := Fix{Title: "Let Envoy Gateway retry refused connections on another endpoint"}
	why := "Envoy Gateway retries only when a BackendTrafficPolicy says so. "
	newPolicy := func(ns, route string) Patch {
		return objectPatch("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", ns, route+"-retry", nil, map[string]any{
			"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": route}},
			"retry":      gatewayRetry(nil),
		})
	}
	if len(todo) == 0 {
		fix.Why = why + noRouteRead("HTTPRoute", wl) + retryWhy
		fix.Patch = newPolicy(wl.Namespace, placeholderName("HTTPRoute"))
		return fix, true
	}
	f := todo[0]
	switch pol := envoyPolicyFor(f); {
	case pol == nil:
		fix.Patch = newPolicy(f.Via.Namespace, f.Via.Name)
	default:
		fix.Patch = objectPatch("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", pol.Namespace, pol.Name, nil, map[string]any{
			"retry": gatewayRetry(pol.BackendTrafficPolicy.Retry)})
		if policyRank(pol, f) == targetsRoute {
			why += fmt.Sprintf("%s sets the policy of %s; its other settings stay. ", objectName(pol), objectName(f.Via))
		} else {
			why += fmt.Sprintf("%s sets the policy of %s, which no policy of its own overrides, and of every other route it applies to; its other settings stay. ",
				objectName(pol), objectName(f.Via))
		}
	}
	var others []*sources.Config
	for _, o := range todo[1:] {
		others = append(others, o.Via)
	}
	fix.Why = why + alsoRoutes(others) + retryWhy
	return fix, true
}

// gatewayRetry is an Envoy Gateway retry that retries refused connections,
// from the policy's retry r (nil for none): its triggers with
// safeRetryOn added, at least envoyRetries retries. Its status codes and
// per-retry timeout, which the merge patch does not touch, stay.
func gatewayRetry(r *sources.ProxyRetry) map[string]any {
	n, on := envoyRetries, safeRetryOn
	if r != nil {
		if r.Retries != nil && *r.Retries > n {
			n = *r.Retries
		}
		on = withAll(r.On, safeRetryOn)
	}
	return map[string]any{"numRetries": n, "retryOn": map[string]any{"triggers": anyList(on)}}
}

// istioRetryFix raises the retries of each http route of the workload's
// VirtualService that sends traffic to its Service: one attempt more than
// the route has (Istio's default when it sets none), at least
// istioFixRetries; its retryOn, with safeRetryOn added, and per-try
// timeout kept.
func istioRetryFix(objs *Objects, wl workload) Fix {
	vss := routerFronts(objs, wl, "VirtualService", sources.PlatformIstio)
	ns, name := wl.Namespace, placeholderName("VirtualService")
	routes := []any{map[string]any{"route": []any{map[string]any{"destination": map[string]any{"host": placeholderName("service")}}}, "retries": istioRetries(nil)}}
	attempts, now, where := istioFixRetries, fmt.Sprintf("Istio retries %d times by default", envoyRetries), noRouteRead("VirtualService", wl)
	whole := "Every route of spec.http is carried whole, only the retries of those that send to the workload changed: a merge patch replaces the list."
	template := true
	if len(vss) > 0 {
		f := vss[0]
		ns, name, routes, where, template = f.Via.Namespace, f.Via.Name, nil, "", false
		changed := 0
		for _, r := range f.Via.VirtualService.Routes {
			route := copyMap(r.Raw)
			if route == nil {
				template = true // a route read without its fields cannot be carried whole
				route = map[string]any{}
				if r.Name != "" {
					route["name"] = r.Name
				}
			}
			if routesToService(r, f) {
				retries := istioRetries(r.Retries)
				route["retries"] = retries
				changed++
				if n := retries["attempts"].(int); n > attempts {
					attempts = n
				}
				if changed == 1 && r.Retries != nil && r.Retries.Retries != nil {
					now = fmt.Sprintf("the route sets %d attempts (%s)", *r.Retries.Retries, readAt(f.Via.Origin))
				}
			}
			routes = append(routes, route)
		}
		var others []*sources.Config
		for _, o := range vss[1:] {
			others = append(others, o.Via)
		}
		where = alsoRoutes(others)
	} else {
		whole = "Write these retries into each http route of the VirtualService that sends to the workload, in its manifest: a merge patch would replace the whole list of routes."
	}
	return Fix{
		Title: fmt.Sprintf("Let Istio retry up to %d times on other endpoints before giving up", attempts),
		Why: fmt.Sprintf("%s and the failures still reached clients, so every try landed on an endpoint that refused; attempts counts the retries after the first try. %s %s%s",
			now, whole, where, retryWhy),
		Patch:    objectPatch("networking.istio.io/v1", "VirtualService", ns, name, nil, map[string]any{"http": routes}),
		Template: template,
	}
}

// copyMap returns a deep copy of a decoded JSON object, so that a fix may
// change it; nil for nil.
func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

// copyValue deep-copies one decoded JSON value.
func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return copyMap(x)
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = copyValue(x[i])
		}
		return out
	}
	return v
}

// routesToService reports whether an Istio http route sends traffic to
// the path's Service.
func routesToService(r sources.VirtualServiceRoute, f front) bool {
	for _, d := range r.Destinations {
		if hostIsService(d.Name, f.Via.Namespace, f.Service) {
			return true
		}
	}
	return false
}

// istioRetries is an Istio route's retries after the fix, from the
// route's own (nil when it sets none, which is Istio's default policy).
func istioRetries(r *sources.ProxyRetry) map[string]any {
	out := map[string]any{"attempts": istioFixRetries, "retryOn": istioRetryOn}
	if r == nil {
		return out
	}
	if r.Retries != nil && *r.Retries+1 > istioFixRetries {
		out["attempts"] = *r.Retries + 1
	}
	if len(r.On) > 0 {
		out["retryOn"] = strings.Join(withAll(r.On, safeRetryOn), ",")
	}
	if r.PerTryTimeout != nil {
		out["perTryTimeout"] = durationText(*r.PerTryTimeout)
	}
	return out
}

// contourRetryFix sets a retry policy on the routes of the workload's
// HTTPProxy that send traffic to its Service and do not retry refused
// connections yet: the route's own policy with safeRetryOn added and at
// least envoyRetries retries.
func contourRetryFix(objs *Objects, wl workload) (Fix, bool) {
	proxies := routerFronts(objs, wl, "HTTPProxy", sources.PlatformContour)
	var todo []front
	for _, f := range proxies {
		for i := range f.Via.HTTPProxy.Routes {
			r := &f.Via.HTTPProxy.Routes[i]
			if proxyRouteSendsTo(r, f.Service) && !retriesSafely(r.Retry) {
				if len(todo) == 0 || todo[len(todo)-1].Via != f.Via {
					todo = append(todo, f)
				}
			}
		}
	}
	if len(proxies) > 0 && len(todo) == 0 {
		return Fix{}, false
	}
	if len(todo) == 0 {
		return Fix{
			Title: "Let Contour retry refused connections on another endpoint",
			Why: "Write this retryPolicy into each route of the HTTPProxy that sends to the workload, in its manifest: a merge patch would replace the whole list of routes. " +
				noRouteRead("HTTPProxy", wl) + retryWhy,
			Patch: objectPatch("projectcontour.io/v1", "HTTPProxy", wl.Namespace, placeholderName("HTTPProxy"), nil, map[string]any{"routes": []any{map[string]any{
				"services": []any{map[string]any{"name": placeholderName("service"), "port": placeholderName("port")}}, "retryPolicy": contourRetry(nil)}}}),
			Template: true,
		}, true
	}
	f := todo[0]
	var routes []any
	template := false
	for i := range f.Via.HTTPProxy.Routes {
		r := &f.Via.HTTPProxy.Routes[i]
		route := copyMap(r.Raw)
		if route == nil {
			template = true // a route read without its fields cannot be carried whole
			route = map[string]any{}
		}
		if proxyRouteSendsTo(r, f.Service) && !retriesSafely(r.Retry) {
			route["retryPolicy"] = contourRetry(r.Retry)
		}
		routes = append(routes, route)
	}
	var others []*sources.Config
	for _, o := range todo[1:] {
		others = append(others, o.Via)
	}
	return Fix{
		Title: "Let Contour retry refused connections on another endpoint",
		Why: fmt.Sprintf("%s (%s): every route of spec.routes is carried whole, with a retryPolicy on those that send to the workload: a merge patch replaces the list. ", objectName(f.Via), readAt(f.Via.Origin)) +
			alsoRoutes(others) + retryWhy,
		Patch:    objectPatch("projectcontour.io/v1", "HTTPProxy", f.Via.Namespace, f.Via.Name, nil, map[string]any{"routes": routes}),
		Template: template,
	}, true
}

// proxyRouteSendsTo reports whether a Contour route sends traffic to the Service.
func proxyRouteSendsTo(r *sources.HTTPProxyRoute, svc *sources.Config) bool {
	for _, b := range r.Services {
		if b.Name == svc.Name {
			return true
		}
	}
	return false
}

// contourRetry is a Contour retryPolicy that retries refused connections,
// from the route's own (nil for none): its retryOn with safeRetryOn
// added, at least envoyRetries retries, its status codes and per-try
// timeout kept.
func contourRetry(r *sources.ProxyRetry) map[string]any {
	out := map[string]any{"count": envoyRetries, "retryOn": anyList(safeRetryOn)}
	if r == nil {
		return out
	}
	if r.Retries != nil && *r.Retries > envoyRetries {
		out["count"] = *r.Retries
	}
	out["retryOn"] = anyList(withAll(r.On, safeRetryOn))
	if len(r.StatusCodes) > 0 {
		codes := make([]any, len(r.StatusCodes))
		for i, c := range r.StatusCodes {
			codes[i] = c
		}
		out["retriableStatusCodes"] = codes
	}
	if r.PerTryTimeout != nil {
		out["perTryTimeout"] = durationText(*r.PerTryTimeout)
	}
	return out
}

// withAll returns have, trimmed, with each of want it lacks appended.
func withAll(have, want []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range append(append([]string(nil), have...), want...) {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// durationText writes a duration as Gateway API, Istio and Contour read
// it: whole seconds ("2s"), else milliseconds ("250ms").
func durationText(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", int64(d/time.Second))
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}

// anyList converts strings to a patch's list.
func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

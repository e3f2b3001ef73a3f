package classify

import (
	"fmt"
	"sort"
	"strings"

	"github.com/readygap/readygap/sources"
)

// logSampleRate is the share of requests Google's load balancer logs on
// its paths to the workload, 0 for all of them, and a note when the rate
// cannot be told.
//
// A workload the objects link to Google's load balancer takes the rate of
// the BackendConfig its Service names for the port (backendConfigOfPaths);
// one that states no rate, or no BackendConfig named, leaves the backend
// service's rate, 1.0 unless set outside Kubernetes (Compute API
// BackendServiceLogConfig.sampleRate). A BackendConfig named but not read
// gives no rate, and a note when others sample.
//
// Failures the objects tie to no workload's path take a rate stated in the
// BackendConfigs read only when every one that states a rate agrees;
// otherwise the rate is 0 and the note says the count is the logged one.
func logSampleRate(objs *Objects, wl workload) (rate float64, note string) {
	stated := statedSampleRates(objs)
	if len(stated) == 0 {
		return 0, ""
	}
	if fronts := gcpFronts(workloadFronts(objs, wl)); wl.Known && len(fronts) > 0 {
		switch ref := backendConfigOfPaths(fronts); {
		case ref.Config != nil:
			return sampleRateOf(ref.Config), ""
		case !ref.known():
			return 0, ""
		default:
			return 0, fmt.Sprintf("BackendConfig %s/%s, which the Service of Deployment %s/%s names, was not read, while others sample request logs (%s): "+
				"the failed requests are those logged, not an estimate.", ref.Namespace, ref.Name, wl.Namespace, wl.Name, rateList(stated))
		}
	}
	for _, s := range stated[1:] {
		if s.Rate != stated[0].Rate {
			return 0, fmt.Sprintf("BackendConfigs sample request logs at different rates (%s) and the objects read tie these failures to none of them: "+
				"the failed requests are those logged, not an estimate.", rateList(stated))
		}
	}
	return stated[0].Rate, ""
}

// statedRate is the request-log sample rate a BackendConfig states.
type statedRate struct {
	Object *sources.Config
	Rate   float64
}

// statedSampleRates lists the BackendConfigs read that state a request-log
// sample rate, by namespace and name.
func statedSampleRates(objs *Objects) []statedRate {
	var out []statedRate
	for _, c := range objs.ConfigsOf("BackendConfig") {
		if c.HealthCheck != nil && c.HealthCheck.LogSampleRate != nil {
			out = append(out, statedRate{c, *c.HealthCheck.LogSampleRate})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Object, out[j].Object
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	return out
}

// sampleRateOf is the request-log sample rate a BackendConfig states; 0
// when it states none.
func sampleRateOf(c *sources.Config) float64 {
	if c.HealthCheck != nil && c.HealthCheck.LogSampleRate != nil {
		return *c.HealthCheck.LogSampleRate
	}
	return 0
}

// rateList names each BackendConfig with the rate it states.
func rateList(rates []statedRate) string {
	parts := make([]string, len(rates))
	for i, r := range rates {
		parts[i] = fmt.Sprintf("%s %g", strings.TrimPrefix(objectName(r.Object), r.Object.Kind+" "), r.Rate)
	}
	return strings.Join(parts, ", ")
}

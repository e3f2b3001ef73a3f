package classify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// sampledWorkloads are two workloads behind GKE Ingresses, each Service
// naming its own BackendConfig: other's aaa-hc, which sorts first, and
// web's web-hc, with the given spec lines each.
func sampledWorkloads(aaa, web string) []string {
	ing := func(name string) string {
		return "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: " + name + "\n  namespace: shop\n  annotations:\n    kubernetes.io/ingress.class: gce\n" +
			"spec:\n  defaultBackend:\n    service:\n      name: " + name + "\n      port:\n        number: 80"
	}
	neg := func(bc string) string {
		return "cloud.google.com/neg: '{\"ingress\": true}'\ncloud.google.com/backend-config: '{\"default\": \"" + bc + "\"}'"
	}
	docs := []string{
		deployment("other", "replicas: 2", webContainer("http", "")), service("other", neg("aaa-hc")), ing("other"),
		deployment("web", "replicas: 2", webContainer("http", "")), service("web", neg("web-hc")), ing("web"),
	}
	if aaa != "" {
		docs = append(docs, backendConfigDoc("aaa-hc", aaa))
	}
	if web != "" {
		docs = append(docs, backendConfigDoc("web-hc", web))
	}
	return docs
}

// backendConfigDoc is a BackendConfig in namespace shop with the given spec lines.
func backendConfigDoc(name, spec string) string {
	return "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata:\n  name: " + name + "\n  namespace: shop\nspec:\n" + indent(spec, "  ")
}

// sampling is a BackendConfig spec that logs the given share of requests.
func sampling(rate string) string { return "logging:\n  enable: true\n  sampleRate: " + rate }

// TestLogSampleRateIsTheWorkloadsOwn checks that a workload's failures
// are scaled by the rate of the BackendConfig its own Service names, not
// by the first BackendConfig read that samples (another workload's here);
// that one whose BackendConfig states no rate, or that names none, is not
// scaled; and that one whose BackendConfig was not read is not scaled by
// another's rate and says so.
func TestLogSampleRateIsTheWorkloadsOwn(t *testing.T) {
	for _, c := range []struct {
		name, aaa, web, workload string
		want                     float64
		note                     string
	}{
		{"web samples its own", sampling("0.5"), sampling("0.1"), "web", 0.1, ""},
		{"other samples its own", sampling("0.5"), sampling("0.1"), "other", 0.5, ""},
		{"web states no rate", sampling("0.5"), "healthCheck:\n  checkIntervalSec: 5", "web", 0, ""},
		{"web's BackendConfig not read", sampling("0.5"), "", "web", 0, "BackendConfig shop/web-hc, which the Service of Deployment shop/web names, was not read"},
		{"no BackendConfig samples", "healthCheck:\n  checkIntervalSec: 5", "", "web", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs := objectsOfYAML(t, sampledWorkloads(c.aaa, c.web)...)
			rate, note := logSampleRate(objs, workloadNamed(t, objs, c.workload))
			if rate != c.want || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
				t.Errorf("rate %g note %q, want %g and a note with %q", rate, note, c.want, c.note)
			}
		})
	}
	t.Run("web names no BackendConfig", func(t *testing.T) {
		docs := sampledWorkloads(sampling("0.5"), "")
		docs[4] = service("web", "cloud.google.com/neg: '{\"ingress\": true}'")
		objs := objectsOfYAML(t, docs...)
		if rate, note := logSampleRate(objs, workloadNamed(t, objs, "web")); rate != 0 || note != "" {
			t.Errorf("rate %g note %q, want 0 and no note: other's BackendConfig does not apply to web", rate, note)
		}
	})
}

// TestLogSampleRateWithoutAWorkload checks failures the objects tie to no
// workload's path: a rate is used when every BackendConfig that states
// one agrees, and none, with a note naming them, when they differ.
func TestLogSampleRateWithoutAWorkload(t *testing.T) {
	unknown := workload{Namespace: "shop", Name: placeholderName("Deployment")}
	for _, c := range []struct {
		name string
		docs []string
		want float64
		note string
	}{
		{"one states a rate", []string{backendConfigDoc("a-hc", sampling("0.25")), backendConfigDoc("b-hc", "healthCheck:\n  checkIntervalSec: 5")}, 0.25, ""},
		{"two agree", []string{backendConfigDoc("a-hc", sampling("0.25")), backendConfigDoc("b-hc", sampling("0.25"))}, 0.25, ""},
		{"two differ", []string{backendConfigDoc("a-hc", sampling("0.25")), backendConfigDoc("b-hc", sampling("0.5"))}, 0,
			"different rates (shop/a-hc 0.25, shop/b-hc 0.5)"},
		{"none states one", []string{backendConfigDoc("a-hc", "healthCheck:\n  checkIntervalSec: 5")}, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rate, note := logSampleRate(objectsOfYAML(t, c.docs...), unknown)
			if rate != c.want || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
				t.Errorf("rate %g note %q, want %g and a note with %q", rate, note, c.want, c.note)
			}
		})
	}
	t.Run("a workload no path links", func(t *testing.T) {
		objs := objectsOfYAML(t, deployment("web", "replicas: 2", webContainer("http", "")), backendConfigDoc("a-hc", sampling("0.25")))
		if rate, _ := logSampleRate(objs, workloadNamed(t, objs, "web")); rate != 0.25 {
			t.Errorf("rate %g, want 0.25: the only rate stated, as for no workload", rate)
		}
	})
}

// TestFindingCountUsesItsWorkloadsRate checks the count a finding reports
// end to end: 100 logged failures of a rollout of web stand for 1000 at
// web's rate 0.1, not 200 at other's 0.5; and a finding of no workload,
// with the two rates differing, keeps the logged 100 and says why.
func TestFindingCountUsesItsWorkloadsRate(t *testing.T) {
	objs := objectsOfYAML(t, sampledWorkloads(sampling("0.5"), sampling("0.1"))...)
	a := analysisOf(objs.configs...)
	at := time.Date(2026, 3, 25, 1, 0, 0, 0, time.UTC)
	gcpFailed := failed(at)
	gcpFailed.Format = sources.FormatGCPLogging
	window := func() *correlate.Window {
		return &correlate.Window{Start: at, End: at.Add(time.Minute), Failed: 100,
			Signals: []*correlate.Signal{signalOf(t, gcpFailed)}}
	}
	f := &Finding{Cause: "registration_lag", Window: window(), Rollout: &correlate.Rollout{Namespace: "shop", Workload: "web"}}
	finish(a, f)
	if f.SampleRate != 0.1 || f.Estimated() != 1000 {
		t.Errorf("web: rate %g, %d failed requests, want 0.1 and 1000", f.SampleRate, f.Estimated())
	}
	u := &Finding{Cause: "unknown", Window: window()}
	finish(a, u)
	if u.SampleRate != 0 || u.Estimated() != 100 || !strings.Contains(strings.Join(u.Notes, " "), "different rates") {
		t.Errorf("no workload: rate %g, %d failed requests, notes %q; want the logged 100 and a note", u.SampleRate, u.Estimated(), u.Notes)
	}
}

// TestStatedSampleRatesOrder checks that BackendConfigs are listed by
// namespace, then name, whatever order they were read in.
func TestStatedSampleRatesOrder(t *testing.T) {
	rate := 0.5
	bc := func(ns, name string) *sources.Config {
		return &sources.Config{Kind: "BackendConfig", Namespace: ns, Name: name, HealthCheck: &sources.LBHealthCheck{LogSampleRate: &rate}}
	}
	var got []string
	for _, s := range statedSampleRates(NewObjects([]*sources.Config{bc("b", "a"), bc("a", "z"), bc("a", "b")})) {
		got = append(got, s.Object.Namespace+"/"+s.Object.Name)
	}
	if want := []string{"a/b", "a/z", "b/a"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}

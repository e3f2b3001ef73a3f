package classify

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/readygap/readygap/internal/manifestgen"
	"github.com/readygap/readygap/sources"
)

// TestIndexLinksAsAScan links workloads through the index and compares
// each target's Namespace, pods, Services and fronts with what a scan of
// every object gives, on every manifest fixture, the pods of a live dump,
// generated workloads and objects made to trip an index: two Services on
// one workload, a selector on a label many workloads share, a Namespace
// read twice, an Ingress naming one Service on two paths, Services and
// Ingresses of the same name in other namespaces.
func TestIndexLinksAsAScan(t *testing.T) {
	gen := filepath.Join(t.TempDir(), "gen.yaml")
	f, err := os.Create(gen)
	if err != nil {
		t.Fatal(err)
	}
	if err := manifestgen.Write(f, manifestgen.Options{Workloads: 60, Namespaces: 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	tricky := filepath.Join(t.TempDir(), "tricky.yaml")
	if err := os.WriteFile(tricky, []byte(strings.Join([]string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-0, labels: {first: \"yes\"}}",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-0, labels: {second: \"yes\"}}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: by-team, namespace: ns-0}\nspec: {selector: {team: team-0}, ports: [{name: http, port: 80, targetPort: http}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: app-0, namespace: ns-1}\nspec: {selector: {app: app-0}, ports: [{port: 80}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: no-selector, namespace: ns-0}\nspec: {ports: [{port: 80}]}",
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: twice, namespace: ns-0}\nspec:\n  ingressClassName: nginx\n  rules:\n    - http:\n        paths:\n          - {path: /a, pathType: Prefix, backend: {service: {name: by-team, port: {number: 80}}}}\n          - {path: /b, pathType: Prefix, backend: {service: {name: by-team, port: {number: 80}}}}\n          - {path: /c, pathType: Prefix, backend: {service: {name: app-3, port: {number: 80}}}}",
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: elsewhere, namespace: ns-2}\nspec: {ingressClassName: alb, defaultBackend: {service: {name: app-0, port: {number: 80}}}}",
	}, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var paths []string
	if err := filepath.WalkDir(filepath.Join("..", "fixtures", "manifests"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			paths = append(paths, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]string{paths, {gen, tricky}} {
		objs := objectsOfPaths(t, set...)
		targets := linkTargets(objs)
		// The workloads a scan judges: Deployments (but one a Rollout's
		// workloadRef names, whose template is the Rollout's), then
		// Rollouts, with the labels of the template they run.
		var deployments, rollouts []*sources.Config
		templateOf := map[*sources.Config]*sources.Config{}
		for _, c := range objs.All() {
			if c.Kind == "Rollout" && c.Workload != nil {
				templateOf[c] = c
				if ref := c.Rollout.WorkloadRef; ref != "" {
					templateOf[c] = nil
					for _, d := range objs.All() {
						if "Deployment/"+d.Name == ref && d.Namespace == c.Namespace && d.Origin.File == c.Origin.File {
							templateOf[c] = d
						}
					}
				}
				if tpl := templateOf[c]; tpl != nil && tpl.Workload.Template != nil {
					rollouts = append(rollouts, c)
				}
			}
		}
		for _, c := range objs.All() {
			referenced := slices.ContainsFunc(rollouts, func(r *sources.Config) bool { return templateOf[r] == c && r != c })
			if c.Kind == "Deployment" && c.Workload != nil && c.Workload.Template != nil && !referenced {
				deployments = append(deployments, c)
				templateOf[c] = c
			}
		}
		deployments = append(deployments, rollouts...)
		if len(targets) != len(deployments) || len(targets) < 10 {
			t.Fatalf("%d targets of %d Deployments and Rollouts", len(targets), len(deployments))
		}
		services := 0
		for i, tg := range targets {
			d := deployments[i]
			var ns *sources.Config
			var pods, svcs []*sources.Config
			for _, c := range objs.All() {
				switch {
				case c.Kind == "Namespace" && c.Name == d.Namespace:
					ns = c
				case c.Kind == "Pod" && c.Namespace == d.Namespace && len(d.Workload.Selector) > 0 && subset(d.Workload.Selector, c.Labels):
					pods = append(pods, c)
				case c.Kind == "Service" && c.Namespace == d.Namespace && c.Service != nil && len(c.Service.Selector) > 0 && subset(c.Service.Selector, templateOf[d].Workload.TemplateLabels):
					svcs = append(svcs, c)
				}
			}
			if tg.Config != d || tg.Namespace != ns || !slices.Equal(tg.Pods, pods) || !slices.Equal(tg.Services, svcs) {
				t.Errorf("%s (%s, target %s): namespace %v, %d pods, Services %v; a scan gives %v, %d pods, %v", objectName(d), d.Origin, tg.Config.Origin, tg.Namespace, len(tg.Pods), names(tg.Services), ns, len(pods), names(svcs))
			}
			services += len(svcs)
			var vias, want []string
			for _, f := range tg.Fronts {
				vias = append(vias, objectName(f.Via)+"→"+objectName(f.Service))
			}
			for _, svc := range svcs {
				for _, c := range objs.All() {
					if c.Kind == "Ingress" && c.Namespace == svc.Namespace && c.Ingress != nil &&
						slices.ContainsFunc(c.Ingress.Backends, func(b sources.IngressBackend) bool { return b.Service == svc.Name }) {
						want = append(want, objectName(c)+"→"+objectName(svc))
					}
				}
			}
			// An object gives several facts, and an Ingress a front per port.
			vias = slices.Compact(slices.DeleteFunc(vias, func(v string) bool { return !strings.HasPrefix(v, "Ingress ") }))
			want = slices.Compact(want)
			if !slices.Equal(vias, want) {
				t.Errorf("%s: fronts by Ingress %v, a scan gives %v", objectName(d), vias, want)
			}
		}
		if services <= len(targets)/2 {
			t.Errorf("only %d Services linked to %d targets", services, len(targets))
		}
	}
}

// names names objects for a failure message.
func names(cs []*sources.Config) []string {
	var out []string
	for _, c := range cs {
		out = append(out, objectName(c))
	}
	return out
}

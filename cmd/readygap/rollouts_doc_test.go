package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// analysisTemplate mirrors the fields of Argo Rollouts' AnalysisTemplate
// (argoproj.io/v1alpha1, pkg/apis/rollouts/v1alpha1/analysis_types.go) that
// a Job metric uses, with their JSON names; decoding it strictly rejects a
// misspelt or misplaced field. The Job's spec is Kubernetes' own type.
type analysisTemplate struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Spec struct {
		Args []struct {
			Name  string  `json:"name"`
			Value *string `json:"value"`
		} `json:"args"`
		Metrics []struct {
			Name             string `json:"name"`
			FailureLimit     *int   `json:"failureLimit"`
			Count            *int   `json:"count"`
			Interval         string `json:"interval"`
			SuccessCondition string `json:"successCondition"`
			Provider         struct {
				Job *struct {
					Spec batchv1.JobSpec `json:"spec"`
				} `json:"job"`
			} `json:"provider"`
		} `json:"metrics"`
	} `json:"spec"`
}

// canarySteps mirrors the part of a Rollout the gate's step example shows.
type canarySteps struct {
	Strategy struct {
		Canary struct {
			Steps []struct {
				SetWeight *int `json:"setWeight"`
				Pause     *struct {
					Duration string `json:"duration"`
				} `json:"pause"`
				Analysis *struct {
					Templates []struct {
						TemplateName string `json:"templateName"`
					} `json:"templates"`
					Args []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"args"`
				} `json:"analysis"`
			} `json:"steps"`
		} `json:"canary"`
	} `json:"strategy"`
}

// strictYAML decodes one YAML document into v, rejecting unknown fields.
func strictYAML(t *testing.T, doc string, v any) {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatalf("YAML: %v\n%s", err, doc)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%T: %v\n%s", v, err, doc)
	}
}

// yamlBlocks returns the ```yaml blocks of a Markdown file.
func yamlBlocks(t *testing.T, path string) []string {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(body), -1) {
		out = append(out, m[1])
	}
	return out
}

// placeholderRe finds Argo's argument placeholders.
var placeholderRe = regexp.MustCompile(`\{\{args\.([a-z-]+)\}\}`)

// TestRolloutGateExample checks the gate of docs/rollouts.md: its
// AnalysisTemplate decodes strictly, every placeholder names a declared
// argument, the image is this release's, the Job's command line parses
// with triage's own flags into a window and --exit-code, the step example
// passes arguments the template declares, and the Role grants what triage
// lists in the namespace (docs/triage.md) and the RoleBinding binds the
// Job's service account.
func TestRolloutGateExample(t *testing.T) {
	blocks := yamlBlocks(t, "../../docs/rollouts.md")
	if len(blocks) != 3 {
		t.Fatalf("%d YAML blocks, want the template, the steps and the RBAC", len(blocks))
	}
	var at analysisTemplate
	strictYAML(t, blocks[0], &at)
	if at.APIVersion != "argoproj.io/v1alpha1" || at.Kind != "AnalysisTemplate" || len(at.Spec.Metrics) != 1 {
		t.Fatalf("template %+v", at)
	}
	args := map[string]string{}
	for _, a := range at.Spec.Args {
		if a.Value == nil {
			t.Fatalf("argument %s has no default", a.Name)
		}
		args[a.Name] = *a.Value
	}
	m := at.Spec.Metrics[0]
	if m.Provider.Job == nil || m.FailureLimit == nil || *m.FailureLimit != 0 {
		t.Fatalf("metric %+v: want a Job that fails the analysis at its first failure", m)
	}
	job := m.Provider.Job.Spec
	if job.BackoffLimit == nil || *job.BackoffLimit != 0 || job.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || len(job.Template.Spec.Containers) != 1 {
		t.Fatalf("job %+v: want one container, run once", job)
	}
	c := job.Template.Spec.Containers[0]
	version, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if want := "ghcr.io/readygap/readygap:" + strings.TrimSpace(string(version)); c.Image != want {
		t.Errorf("image %s, want %s", c.Image, want)
	}
	var line []string
	for _, a := range c.Args {
		for _, p := range placeholderRe.FindAllStringSubmatch(a, -1) {
			if _, ok := args[p[1]]; !ok {
				t.Errorf("%s names no declared argument", p[0])
			}
		}
		line = append(line, placeholderRe.ReplaceAllStringFunc(a, func(p string) string { return args[placeholderRe.FindStringSubmatch(p)[1]] }))
	}
	if len(line) == 0 || line[0] != "triage" {
		t.Fatalf("args %q: want the triage command", line)
	}
	var got *triageOptions
	cmd := newTriageCmd(func(o *triageOptions) error { got = o; return nil })
	cmd.SetArgs(line[1:])
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	if err := cmd.Execute(); err != nil || got == nil {
		t.Fatalf("triage %q: %v", line[1:], err)
	}
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	got.Now = func() time.Time { return now }
	w, err := got.window()
	if err != nil || !got.ExitCode || got.Namespace != args["namespace"] || w.Until != now || now.Sub(w.Since) != 6*time.Minute {
		t.Errorf("triage options: exit code %v, namespace %q, window %v..%v (%v)", got.ExitCode, got.Namespace, w.Since, w.Until, err)
	}

	var steps canarySteps
	strictYAML(t, blocks[1], &steps)
	found := false
	for _, s := range steps.Strategy.Canary.Steps {
		if s.Analysis == nil {
			continue
		}
		found = len(s.Analysis.Templates) == 1 && s.Analysis.Templates[0].TemplateName == at.Metadata.Name
		for _, a := range s.Analysis.Args {
			if _, ok := args[a.Name]; !ok {
				t.Errorf("the step passes %s, which the template does not declare", a.Name)
			}
		}
	}
	if !found {
		t.Errorf("no step runs %s", at.Metadata.Name)
	}

	granted := map[string]bool{} // namespace group/resource verb
	bound := false
	for _, doc := range strings.Split(blocks[2], "\n---\n") {
		var meta struct{ Kind string }
		strictYAML(t, doc, &map[string]any{})
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "ServiceAccount":
			var sa corev1.ServiceAccount
			strictYAML(t, doc, &sa)
			if sa.Name != job.Template.Spec.ServiceAccountName || sa.Namespace != at.Metadata.Namespace {
				t.Errorf("ServiceAccount %s/%s is not the Job's", sa.Namespace, sa.Name)
			}
		case "Role":
			var r rbacv1.Role
			strictYAML(t, doc, &r)
			for _, rule := range r.Rules {
				for _, g := range rule.APIGroups {
					for _, res := range rule.Resources {
						for _, v := range rule.Verbs {
							granted[r.Namespace+" "+g+"/"+res+" "+v] = true
						}
					}
				}
			}
		case "RoleBinding":
			var b rbacv1.RoleBinding
			strictYAML(t, doc, &b)
			if len(b.Subjects) != 1 || b.Subjects[0].Kind != "ServiceAccount" || b.Subjects[0].Name != job.Template.Spec.ServiceAccountName || b.RoleRef.Kind != "Role" {
				t.Errorf("RoleBinding %s binds %+v", b.Name, b.Subjects)
			}
			bound = bound || b.Namespace == at.Metadata.Namespace
		default:
			t.Errorf("unexpected kind %q", meta.Kind)
		}
	}
	if !bound {
		t.Error("no RoleBinding in the template's namespace")
	}
	// What triage lists in the namespace: the ClusterRole of docs/triage.md,
	// less the cluster-scoped namespaces and the other clouds' kinds.
	var full rbacv1.ClusterRole
	for _, b := range yamlBlocks(t, "../../docs/triage.md") {
		if strings.Contains(b, "kind: ClusterRole") {
			strictYAML(t, b, &full)
		}
	}
	if len(full.Rules) == 0 {
		t.Fatal("no ClusterRole in docs/triage.md")
	}
	skip := []string{"namespaces", "backendconfigs", "backendtrafficpolicies", "httpproxies"}
	for _, rule := range full.Rules {
		for _, g := range rule.APIGroups {
			for _, res := range rule.Resources {
				if slices.Contains(skip, res) || res == "pods/log" || slices.Contains(rule.Verbs, "get") && !slices.Contains(rule.Verbs, "list") {
					continue
				}
				if !granted[at.Metadata.Namespace+" "+g+"/"+res+" list"] {
					t.Errorf("the gate's Role does not grant list %s/%s", g, res)
				}
			}
		}
	}
	if !granted["ingress-nginx /pods/log get"] {
		t.Error("no Role grants get pods/log in ingress-nginx, which --proxy-logs reads")
	}
}

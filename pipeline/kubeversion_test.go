package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
)

// TestBundleKubeVersion checks that the server version a triage bundle
// records chooses the preStop fix (an exec of sleep below 1.30), that
// --kube-version wins over it, and that without either the fix is the
// sleep handler saying what older clusters need.
func TestBundleKubeVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bundle")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "fixtures", "eks-alb-termination-race"))); err != nil {
		t.Fatal(err)
	}
	write := func(version string) {
		t.Helper()
		m := &bundle.Manifest{State: bundle.StateComplete, Created: time.Now().UTC(), Sources: []bundle.FetchReport{
			{Source: "kubernetes", Complete: true, ServerVersion: version}}}
		if err := bundle.WriteManifest(dir, m); err != nil {
			t.Fatal(err)
		}
	}
	prestop := func(opts Options) string {
		t.Helper()
		rep, err := Analyze(context.Background(), []string{dir}, opts)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, f := range rep.Incidents {
			for _, fix := range f.Remediation {
				if strings.Contains(fix.Title, "preStop sleep") {
					b.WriteString(fix.Patch + fix.Why)
				}
			}
		}
		if b.Len() == 0 {
			t.Fatal("no preStop fix: the fixture no longer has a termination race")
		}
		return b.String()
	}
	exec, handler := "- sleep\n", "sleep:\n"
	write("v1.29.3-eks-ae9a62a")
	if got := prestop(Options{}); !strings.Contains(got, exec) || strings.Contains(got, handler) || !strings.Contains(got, "Kubernetes 1.29") {
		t.Errorf("bundle at 1.29: want an exec of sleep, got\n%s", got)
	}
	if got := prestop(Options{KubeVersion: sources.KubeVersion{Major: 1, Minor: 31}}); !strings.Contains(got, handler) || strings.Contains(got, exec) {
		t.Errorf("--kube-version 1.31 over a 1.29 bundle: want the sleep handler, got\n%s", got)
	}
	write("v1.30.0")
	if got := prestop(Options{}); !strings.Contains(got, handler) || !strings.Contains(got, "the cluster runs 1.30") {
		t.Errorf("bundle at 1.30: want the sleep handler, got\n%s", got)
	}
	write("")
	if got := prestop(Options{}); !strings.Contains(got, handler) || !strings.Contains(got, "before that use `exec") {
		t.Errorf("no version: want the sleep handler and the note, got\n%s", got)
	}
}

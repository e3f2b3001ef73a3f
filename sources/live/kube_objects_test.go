package live

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestKubernetesObjectsOnly checks that an objects-only fetch lists no
// events, plans none, and writes the objects as a full fetch does.
func TestKubernetesObjectsOnly(t *testing.T) {
	srv := kubeTestServer(t)
	k := &Kubernetes{Kubeconfig: srv.Kubeconfig(t, t.TempDir(), "t"), ObjectsOnly: true}
	if err := k.Resolve(); err != nil {
		t.Fatal(err)
	}
	for _, p := range k.Plan(midnightWindow) {
		if strings.Contains(p, "events") {
			t.Errorf("plan lists events: %s", p)
		}
	}
	dir := t.TempDir()
	rep, err := k.Fetch(context.Background(), midnightWindow, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if strings.Contains(r, "/events") {
			t.Errorf("events were listed: %s", r)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kube", "events.json")); !os.IsNotExist(err) {
		t.Errorf("events.json written: %v", err)
	}
	if rep.Records != 1+5 || !slices.Contains(rep.Files, "kube/objects.json") || len(rep.Notes) != 1 {
		t.Errorf("report %+v", rep)
	}
}

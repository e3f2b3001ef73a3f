package bundle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The manifest is replaced whole: a second write is read back, no
// temporary file is left, and the file is readable by all like the rest
// of the bundle.
func TestWriteManifestReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	created := time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC)
	for _, state := range []string{StateInProgress, StateComplete} {
		if err := WriteManifest(dir, &Manifest{State: state, Created: created}); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(dir)
		if err != nil || m.State != state || m.Schema != BundleSchema {
			t.Fatalf("%s: read back %+v, %v", state, m, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 || ents[0].Name() != ManifestName {
			t.Fatalf("%s: the directory holds %v", state, ents)
		}
		if st, _ := os.Stat(filepath.Join(dir, ManifestName)); st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v", state, st.Mode())
		}
	}
	// A directory that cannot take the temporary file is an error.
	if err := WriteManifest(filepath.Join(dir, "missing"), &Manifest{}); err == nil {
		t.Error("no error writing into a missing directory")
	}
}

func TestIncomplete(t *testing.T) {
	created := time.Date(2024, 5, 1, 23, 40, 0, 0, time.UTC)
	for _, c := range []struct {
		name, manifest string
		state          string
		want           string
	}{
		{name: "no manifest"},
		{name: "in progress", state: StateInProgress, want: "is incomplete: the fetch that began writing it at 2024-05-01T23:40:00Z never finished"},
		{name: "complete", state: StateComplete},
		{name: "written before the state", state: "-"},
		{name: "cut short", manifest: `{"schema":"readygap-bundle/v1","sta`, want: "has an unreadable manifest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			switch {
			case c.manifest != "":
				os.WriteFile(filepath.Join(dir, ManifestName), []byte(c.manifest), 0o644)
			case c.state == "-":
				os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"schema":"readygap-bundle/v1","created":"2024-05-01T23:40:00Z","sources":[]}`), 0o644)
			case c.state != "":
				if err := WriteManifest(dir, &Manifest{State: c.state, Created: created}); err != nil {
					t.Fatal(err)
				}
			}
			got := Incomplete(dir)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) || (got != "" && !strings.Contains(got, dir)) {
				t.Errorf("Incomplete = %q, want %q", got, c.want)
			}
		})
	}
}

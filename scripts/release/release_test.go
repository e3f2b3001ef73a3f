package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestParseTargets(t *testing.T) {
	if ts, err := parseTargets("all"); err != nil || len(ts) != 6 {
		t.Fatalf("all: %v %v", ts, err)
	}
	ts, err := parseTargets("linux/arm64,windows/amd64,linux/arm64")
	if err != nil || !slices.Equal(ts, []target{{"linux", "arm64"}, {"windows", "amd64"}}) {
		t.Errorf("a list: %v %v", ts, err)
	}
	for _, bad := range []string{"linux", "plan9/amd64", "linux/386"} {
		if _, err := parseTargets(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestArchives checks each archive's files, their modes and times, and that
// the same inputs give the same bytes.
func TestArchives(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "readygap")
	if err := os.WriteFile(bin, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	r := &release{Version: "v1.2.3", Date: time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)}
	for _, tg := range []target{{"linux", "amd64"}, {"windows", "arm64"}} {
		path := filepath.Join(dir, r.archiveName(tg))
		if err := r.writeArchive(tg, bin, path); err != nil {
			t.Fatal(err)
		}
		first, _ := os.ReadFile(path)
		if err := r.writeArchive(tg, bin, path); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(path); string(again) != string(first) {
			t.Errorf("%s: two archives of the same files differ", tg)
		}
		got := map[string]int64{}
		if tg.OS == "windows" {
			zr, err := zip.OpenReader(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range zr.File {
				got[f.Name] = int64(f.Mode().Perm())
				if !f.Modified.Equal(r.Date) {
					t.Errorf("%s: time %v", f.Name, f.Modified)
				}
			}
			zr.Close()
		} else {
			f, _ := os.Open(path)
			gz, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			tr := tar.NewReader(gz)
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got[h.Name] = h.Mode
				if !h.ModTime.Equal(r.Date) {
					t.Errorf("%s: time %v", h.Name, h.ModTime)
				}
			}
			f.Close()
		}
		want := map[string]int64{tg.exe(): 0o755, "LICENSE": 0o644, "README.md": 0o644}
		if len(got) != len(want) {
			t.Errorf("%s: files %v, want %v", tg, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s mode %o, want %o", tg, k, got[k], v)
			}
		}
	}
	if n := r.archiveName(target{"darwin", "arm64"}); n != "readygap_1.2.3_darwin_arm64.tar.gz" {
		t.Errorf("archive name %s", n)
	}
}

// TestKrewManifest checks that each platform points at its archive with its
// checksum, and that a missing checksum is an error.
func TestKrewManifest(t *testing.T) {
	r := &release{Version: "v1.2.3", Targets: []target{{"linux", "amd64"}, {"windows", "arm64"}}}
	sums := map[string]string{"readygap_1.2.3_linux_amd64.tar.gz": "aa", "readygap_1.2.3_windows_arm64.zip": "bb"}
	out, err := r.krewManifest(sums)
	if err != nil {
		t.Fatal(err)
	}
	var p krewPlugin
	if err := yaml.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	if p.Metadata.Name != "readygap" || p.Spec.Version != "v1.2.3" || len(p.Spec.Platforms) != 2 {
		t.Fatalf("manifest %+v", p)
	}
	w := p.Spec.Platforms[1]
	if w.SHA256 != "bb" || w.Bin != "readygap.exe" || w.Selector.MatchLabels["os"] != "windows" || w.Selector.MatchLabels["arch"] != "arm64" ||
		w.URI != "https://github.com/readygap/readygap/releases/download/v1.2.3/readygap_1.2.3_windows_arm64.zip" {
		t.Errorf("windows platform %+v", w)
	}
	delete(sums, "readygap_1.2.3_linux_amd64.tar.gz")
	if _, err := r.krewManifest(sums); err == nil {
		t.Error("a platform without a checksum was written")
	}
}

// TestCycloneDX reads the build information of this test's own binary, as
// the release reads a built binary's.
func TestCycloneDX(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := &release{Version: "v1.2.3", Commit: "abc", Date: time.Date(2026, 12, 7, 20, 0, 0, 0, time.UTC)}
	out, err := cycloneDX(exe, r, target{"linux", "amd64"})
	if err != nil {
		t.Fatal(err)
	}
	var bom cdxBOM
	if err := json.Unmarshal(out, &bom); err != nil {
		t.Fatal(err)
	}
	m := bom.Metadata.Component
	if bom.BOMFormat != "CycloneDX" || bom.SpecVersion != "1.5" || !strings.HasPrefix(bom.SerialNumber, "urn:uuid:") ||
		m.Name != "github.com/readygap/readygap" || m.PURL != "pkg:golang/github.com/readygap/readygap@v1.2.3?type=module&goos=linux&goarch=amd64" ||
		len(m.Hashes) != 1 || len(m.Hashes[0].Content) != 64 {
		t.Fatalf("metadata %+v", bom.Metadata)
	}
	var yamlMod *cdxComponent
	for i, c := range bom.Components {
		if c.Name == "go.yaml.in/yaml/v3" {
			yamlMod = &bom.Components[i]
		}
	}
	if yamlMod == nil || !strings.HasPrefix(yamlMod.Version, "v3.") || len(yamlMod.Hashes) != 1 || len(yamlMod.Hashes[0].Content) != 64 {
		t.Errorf("the yaml module linked into this binary: %+v", yamlMod)
	}
	if len(bom.Dependencies) != 1 || len(bom.Dependencies[0].DependsOn) != len(bom.Components) {
		t.Errorf("dependencies %+v", bom.Dependencies)
	}
	again, _ := cycloneDX(exe, r, target{"linux", "amd64"})
	if string(again) != string(out) {
		t.Error("two SBOMs of one binary differ")
	}
}

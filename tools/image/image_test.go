package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// fakeBinary stands for readygap: a script that answers `version` as the
// stamped binary does.
const fakeBinary = "#!/bin/sh\necho 'readygap v9.9.9 (commit abc, built 2026-12-07T20:00:00Z, go1.26.7 linux/amd64)'\n"

// TestBuildThenVerify builds a layout of two platforms and verifies it from
// disk, running the host's binary.
func TestBuildThenVerify(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"linux_amd64", "linux_arm64"} {
		if err := os.MkdirAll(filepath.Join(dir, "build", p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "build", p, "readygap"), []byte(fakeBinary), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image")
	if err := build([]string{"-bin", filepath.Join(dir, "build"), "-ca", ca, "-out", out,
		"-version", "v9.9.9", "-commit", "abc", "-created", "2026-12-07T20:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if err := verify([]string{out}); err != nil {
		t.Fatalf("verify: %v", err)
	}
	// The image is reproducible: the same inputs give the same index.
	first, _ := os.ReadFile(filepath.Join(out, "index.json"))
	if err := build([]string{"-bin", filepath.Join(dir, "build"), "-ca", ca, "-out", out,
		"-version", "v9.9.9", "-commit", "abc", "-created", "2026-12-07T20:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "index.json")); string(again) != string(first) {
		t.Errorf("two builds of the same inputs differ:\n%s\n%s", first, again)
	}
	// A binary that says another version fails the run.
	if err := build([]string{"-bin", filepath.Join(dir, "build"), "-ca", ca, "-out", out,
		"-version", "v1.0.0", "-commit", "abc", "-created", "2026-12-07T20:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if err := verify([]string{out}); err == nil || !strings.Contains(err.Error(), "labels v1.0.0") {
		t.Errorf("verify of a binary of another version: %v", err)
	}
}

// TestCheckImageRefuses checks what verify rejects: root, a missing label,
// another entrypoint.
func TestCheckImageRefuses(t *testing.T) {
	p := v1.Platform{OS: "linux", Architecture: "amd64"}
	ann := map[string]string{}
	for _, k := range requiredAnnotations {
		ann[k] = "x"
	}
	certs := []byte("-----BEGIN CERTIFICATE-----\n")
	img, err := platformImage(p, []byte(fakeBinary), certs, time.Unix(0, 0), ann)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkImage("ok", img, p); err != nil {
		t.Fatalf("a good image: %v", err)
	}
	change := func(f func(*v1.ConfigFile)) v1.Image {
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		cf = cf.DeepCopy()
		f(cf)
		out, err := mutate.ConfigFile(img, cf)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	noCA, err := platformImage(p, []byte(fakeBinary), nil, time.Unix(0, 0), ann)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		img  v1.Image
		want string
	}{
		"root":        {change(func(c *v1.ConfigFile) { c.Config.User = "0:0" }), "non-root"},
		"by name":     {change(func(c *v1.ConfigFile) { c.Config.User = "nonroot" }), "non-root"},
		"entrypoint":  {change(func(c *v1.ConfigFile) { c.Config.Entrypoint = []string{"/bin/sh"} }), "entrypoint"},
		"no revision": {change(func(c *v1.ConfigFile) { delete(c.Config.Labels, "org.opencontainers.image.revision") }), "revision"},
		"no ca":       {noCA, "certificate"},
	} {
		if _, err := checkImage(name, tc.img, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error about %s", name, err, tc.want)
		}
	}
}

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// testRelease is the version of the release fakeRelease writes.
const testRelease = "v9.9.9-test"

// fakeRelease lays out a release as its download page serves it, under
// dir/VERSION/ (scripts/install.sh reads READYGAP_DOWNLOAD_URL=file://dir):
// this machine's archive, whose readygap runs this test binary's main, and
// the checksums file. It returns the archive's path.
func fakeRelease(t *testing.T, dir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the installer is a POSIX shell script")
	}
	self, err := os.Executable()
	must(t, err)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"readygap": "#!/bin/sh\nREADYGAP_RUN_MAIN=1 exec " + self + " \"$@\"\n", "LICENSE": "license\n", "README.md": "readme\n",
	} {
		must(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(body))
		must(t, err)
	}
	must(t, tw.Close())
	must(t, gz.Close())
	plain := strings.TrimPrefix(testRelease, "v")
	name := fmt.Sprintf("readygap_%s_%s_%s.tar.gz", plain, runtime.GOOS, runtime.GOARCH)
	rel := filepath.Join(dir, testRelease)
	must(t, os.MkdirAll(rel, 0o755))
	must(t, os.WriteFile(filepath.Join(rel, name), buf.Bytes(), 0o644))
	sum := sha256.Sum256(buf.Bytes())
	must(t, os.WriteFile(filepath.Join(rel, "readygap_"+plain+"_checksums.txt"),
		[]byte(hex.EncodeToString(sum[:])+"  "+name+"\n0000  readygap_"+plain+"_other_arch.tar.gz\n"), 0o644))
	return filepath.Join(rel, name)
}

// hookRepo copies what the Action and the hook run from their repository
// (the installer, the hook's entry, VERSION naming testRelease) into a
// folder, as GitHub and pre-commit check the repository out.
func hookRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
	for _, f := range []string{"install.sh", "pre-commit.sh"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "scripts", f))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, "scripts", f), b, 0o755))
	}
	must(t, os.WriteFile(filepath.Join(dir, "VERSION"), []byte(testRelease+"\n"), 0o644))
	return dir
}

// TestActionInstallsRelease runs the install step of action.yml as GitHub's
// runner does: it installs the release VERSION names (or the version
// input) into RUNNER_TEMP, and refuses an archive whose sha256 is not the
// release's, or not the one pinned in the sha256 input.
func TestActionInstallsRelease(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "action.yml"))
	must(t, err)
	var action struct {
		Runs struct {
			Steps []struct {
				Name string            `json:"name"`
				Run  string            `json:"run"`
				Env  map[string]string `json:"env"`
			} `json:"steps"`
		} `json:"runs"`
	}
	must(t, yaml.Unmarshal(raw, &action))
	script := ""
	for _, s := range action.Runs.Steps {
		if s.Name == "Install readygap" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("action.yml has no step Install readygap")
	}
	releases := t.TempDir()
	archive := fakeRelease(t, releases)
	actionPath := hookRepo(t)
	run := func(version, pinned string) (string, string, int) {
		tmp := t.TempDir()
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Env = append(os.Environ(), "RUNNER_TEMP="+tmp, "GITHUB_ACTION_PATH="+actionPath, "VERSION="+version,
			"READYGAP_SHA256="+pinned, "READYGAP_DOWNLOAD_URL=file://"+releases)
		out, _ := cmd.CombinedOutput()
		return tmp, string(out), cmd.ProcessState.ExitCode()
	}
	good, _ := os.ReadFile(archive)
	sum := sha256.Sum256(good)
	for _, tc := range []struct{ version, pinned string }{{"", ""}, {testRelease, ""}, {"", hex.EncodeToString(sum[:])}} {
		tmp, out, code := run(tc.version, tc.pinned)
		if code != 0 || !strings.Contains(out, "readygap ") {
			t.Fatalf("version %q, sha256 %q: exit %d\n%s", tc.version, tc.pinned, code, out)
		}
		if _, err := os.Stat(filepath.Join(tmp, "readygap")); err != nil {
			t.Errorf("version %q: %v", tc.version, err)
		}
	}
	if _, out, code := run("", strings.Repeat("0", 64)); code == 0 || !strings.Contains(out, "is not the pinned") {
		t.Errorf("another pinned sha256: exit %d\n%s", code, out)
	}
	if _, out, code := run("v0.0.1", ""); code == 0 || !strings.Contains(out, "cannot download") {
		t.Errorf("a release that does not exist: exit %d\n%s", code, out)
	}
	must(t, os.WriteFile(archive, append(good, 0), 0o644))
	if tmp, out, code := run("", ""); code == 0 || !strings.Contains(out, "the release says") {
		t.Errorf("a tampered archive: exit %d\n%s", code, out)
	} else if _, err := os.Stat(filepath.Join(tmp, "readygap")); err == nil {
		t.Error("a tampered archive was installed")
	}
}

// TestPreCommitScriptInstallsRelease runs the hook's entry as pre-commit
// does: the first run installs the release VERSION names into the cache,
// later runs use it without downloading, and the exit code is check's.
func TestPreCommitScriptInstallsRelease(t *testing.T) {
	releases := t.TempDir()
	fakeRelease(t, releases)
	repo := hookRepo(t)
	cache := t.TempDir()
	run := func(manifest string) (string, int) {
		cmd := exec.Command(filepath.Join(repo, "scripts", "pre-commit.sh"), "check", filepath.Join("..", "..", "fixtures", "manifests", manifest))
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "READYGAP_DOWNLOAD_URL=file://"+releases)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := run("eks-alb-no-gate/broken.yaml"); code != exitRisk || !strings.Contains(out, "registration_lag/alb-readiness-gate") {
		t.Fatalf("broken manifest: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(cache, "readygap", testRelease, "readygap")); err != nil {
		t.Fatalf("not installed into the cache: %v", err)
	}
	must(t, os.RemoveAll(releases)) // the next run must not download
	if out, code := run("eks-alb-rollout-502/fixed.yaml"); code != exitOK {
		t.Errorf("fixed manifest, from the cache: exit %d\n%s", code, out)
	}
}

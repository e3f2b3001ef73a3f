// Command release builds readygap's release: one static, stripped binary
// per target (CGO_ENABLED=0, -trimpath, -s -w, the version stamped), each
// in an archive with LICENSE and README.md (tar.gz; zip for Windows), a
// CycloneDX software bill of materials per binary read from the build
// information Go records in it, a sha256 checksums file over all of them,
// the krew plugin manifest made from those checksums, and the container
// image of the linux binaries as an OCI layout (tools/image, its own
// module, so that the registry client stays out of the binary's).
//
//	go run ./scripts/release -version v1.2.3            # the six targets
//	go run ./scripts/release -snapshot -targets host,linux/arm64
//
// Everything is written under -dist (dist/ by default, ignored by git).
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// allTargets are the platforms a release builds.
var allTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// docFiles go into every archive beside the binary.
var docFiles = []string{"LICENSE", "README.md"}

// repository is where releases are published; archive URLs in the krew
// manifest point there.
const repository = "https://github.com/readygap/readygap"

// target is one GOOS/GOARCH pair.
type target struct{ OS, Arch string }

func (t target) String() string { return t.OS + "/" + t.Arch }

// exe is the binary's file name on the target.
func (t target) exe() string {
	if t.OS == "windows" {
		return "readygap.exe"
	}
	return "readygap"
}

// release is one run's settings.
type release struct {
	Version, Commit string
	// Date is the build date stamped in the binaries and the archives' file
	// times: SOURCE_DATE_EPOCH when set (reproducible builds), else the
	// commit's time.
	Date    time.Time
	Dist    string
	Targets []target
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run() error {
	var r release
	var targets string
	var snapshot, image bool
	flag.StringVar(&r.Version, "version", "", "the version to stamp, a tag such as v1.2.3 (default: the tag at HEAD)")
	flag.BoolVar(&snapshot, "snapshot", false, "no tag needed: the version is v0.0.0-SNAPSHOT-<commit>")
	flag.StringVar(&targets, "targets", "all", `"all", or GOOS/GOARCH pairs separated by commas ("host" is this machine's)`)
	flag.StringVar(&r.Dist, "dist", "dist", "output directory (emptied first)")
	flag.BoolVar(&image, "image", true, "also build the container image of the linux targets, as an OCI layout in DIST/image")
	flag.Parse()

	var err error
	if r.Targets, err = parseTargets(targets); err != nil {
		return err
	}
	if r.Commit, err = git("rev-parse", "HEAD"); err != nil {
		return err
	}
	if r.Date, err = buildDate(); err != nil {
		return err
	}
	switch {
	case r.Version != "":
	case snapshot:
		r.Version = "v0.0.0-SNAPSHOT-" + r.Commit[:12]
	default:
		if r.Version, err = git("describe", "--tags", "--exact-match", "HEAD"); err != nil {
			return errors.New("HEAD has no tag: give -version, or -snapshot")
		}
	}
	if !snapshot {
		// A release is what its tag holds: go build and the archives read
		// the working tree.
		if changes, err := git("status", "--porcelain"); err != nil || changes != "" {
			return fmt.Errorf("the working tree is not clean (%v): build a release from a clean checkout of its tag, or give -snapshot\n%s", err, changes)
		}
	}
	if !strings.HasPrefix(r.Version, "v") {
		return fmt.Errorf("-version %q: want a tag such as v1.2.3", r.Version)
	}
	if err := os.RemoveAll(r.Dist); err != nil {
		return err
	}
	if err := os.MkdirAll(r.Dist, 0o755); err != nil {
		return err
	}
	var artifacts []string
	sums := map[string]string{}
	for _, t := range r.Targets {
		names, err := r.buildTarget(t)
		if err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		for _, n := range names {
			if sums[n], err = sha256File(filepath.Join(r.Dist, n)); err != nil {
				return err
			}
		}
		artifacts = append(artifacts, names...)
	}
	var b strings.Builder
	for _, n := range artifacts {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	checksums := r.checksumsName()
	if err := os.WriteFile(filepath.Join(r.Dist, checksums), []byte(b.String()), 0o644); err != nil {
		return err
	}
	manifest, err := r.krewManifest(sums)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(r.Dist, "plugins"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(r.Dist, "plugins", "readygap.yaml"), manifest, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s (commit %s, built %s): %d targets, %d files in %s\n", r.Version, r.Commit[:12], r.Date.Format(time.RFC3339), len(r.Targets), len(artifacts), r.Dist)
	fmt.Print(b.String())
	fmt.Printf("%s\nplugins/readygap.yaml\n", checksums)
	if image && slices.ContainsFunc(r.Targets, func(t target) bool { return t.OS == "linux" }) {
		return r.buildImage()
	}
	return nil
}

// buildImage runs tools/image on the linux binaries.
func (r *release) buildImage() error {
	dist, err := filepath.Abs(r.Dist)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "-C", filepath.Join("tools", "image"), "run", ".", "build",
		"-bin", filepath.Join(dist, "build"), "-out", filepath.Join(dist, "image"),
		"-version", r.Version, "-commit", r.Commit, "-created", r.Date.Format(time.RFC3339))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("image: %w", err)
	}
	return nil
}

// parseTargets reads -targets.
func parseTargets(s string) ([]target, error) {
	if s == "all" {
		return allTargets, nil
	}
	var ts []target
	for _, p := range strings.Split(s, ",") {
		if p == "host" {
			p = runtime.GOOS + "/" + runtime.GOARCH
		}
		os, arch, ok := strings.Cut(p, "/")
		t := target{os, arch}
		if !ok || !slices.Contains(allTargets, t) {
			return nil, fmt.Errorf("-targets: %q is not one of the release targets %v", p, allTargets)
		}
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// buildDate is SOURCE_DATE_EPOCH, else the commit's time.
func buildDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		var err error
		if s, err = git("log", "-1", "--format=%ct", "HEAD"); err != nil {
			return time.Time{}, err
		}
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("build date %q: %w", s, err)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// git runs git and returns its output without the final newline.
func git(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), strings.TrimSpace(string(ee.Stderr)))
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// plainVersion is the version without its "v", as archive names carry it.
func (r *release) plainVersion() string { return strings.TrimPrefix(r.Version, "v") }

// archiveName is the archive of one target.
func (r *release) archiveName(t target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("readygap_%s_%s_%s%s", r.plainVersion(), t.OS, t.Arch, ext)
}

// checksumsName is the checksums file.
func (r *release) checksumsName() string {
	return fmt.Sprintf("readygap_%s_checksums.txt", r.plainVersion())
}

// buildTarget builds one binary into dist/build/OS_ARCH, archives it and
// writes its SBOM; it returns the archive's and the SBOM's names.
func (r *release) buildTarget(t target) ([]string, error) {
	bin := filepath.Join(r.Dist, "build", t.OS+"_"+t.Arch, t.exe())
	ldflags := fmt.Sprintf("-s -w -X main.version=%s -X main.commit=%s -X main.date=%s", r.Version, r.Commit, r.Date.Format(time.RFC3339))
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/readygap")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=-buildvcs=false")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build: %w", err)
	}
	archive := r.archiveName(t)
	if err := r.writeArchive(t, bin, filepath.Join(r.Dist, archive)); err != nil {
		return nil, err
	}
	sbom, err := cycloneDX(bin, r, t)
	if err != nil {
		return nil, err
	}
	sbomName := strings.TrimSuffix(strings.TrimSuffix(archive, ".zip"), ".tar.gz") + ".cdx.json"
	if err := os.WriteFile(filepath.Join(r.Dist, sbomName), sbom, 0o644); err != nil {
		return nil, err
	}
	return []string{archive, sbomName}, nil
}

// archiveEntry is one file of an archive.
type archiveEntry struct {
	name string
	mode int64
	data []byte
}

// writeArchive writes the binary and the documents into a tar.gz or, for
// Windows, a zip, with the build date as every file's time.
func (r *release) writeArchive(t target, bin, path string) error {
	var entries []archiveEntry
	data, err := os.ReadFile(bin)
	if err != nil {
		return err
	}
	entries = append(entries, archiveEntry{t.exe(), 0o755, data})
	for _, d := range docFiles {
		data, err := os.ReadFile(d)
		if err != nil {
			return err
		}
		entries = append(entries, archiveEntry{d, 0o644, data})
	}
	var buf bytes.Buffer
	if t.OS == "windows" {
		zw := zip.NewWriter(&buf)
		for _, e := range entries {
			h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, Modified: r.Date}
			h.SetMode(os.FileMode(e.mode))
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			if _, err := w.Write(e.data); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
	} else {
		gw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		tw := tar.NewWriter(gw)
		for _, e := range entries {
			h := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.data)), ModTime: r.Date, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			if _, err := tw.Write(e.data); err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		if err := gw.Close(); err != nil {
			return err
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// sha256File is the hex sha256 of a file.
func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed parts.
const (
	// binaryPath is where the binary lies and the entrypoint.
	binaryPath = "/usr/local/bin/readygap"
	// nonRootID is the user and group the image runs as: distroless's
	// "nonroot", which Kubernetes' runAsNonRoot accepts as it is numeric.
	nonRootID = 65532
	// caFile is where Go's crypto/x509 looks first on Linux, and where the
	// build machine's bundle is copied.
	caFile = "/etc/ssl/certs/ca-certificates.crt"
	// source is the repository, for the source and url annotations.
	source = "https://github.com/readygap/readygap"
)

// platforms are the linux targets an image is made for, by the name of
// their folder under -bin (as scripts/release writes dist/build).
var platforms = map[string]v1.Platform{
	"linux_amd64": {OS: "linux", Architecture: "amd64"},
	"linux_arm64": {OS: "linux", Architecture: "arm64"},
}

// build writes the OCI image layout of the linux binaries found under -bin.
func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ContinueOnError)
	bin := fs.String("bin", "dist/build", "folder holding linux_amd64/readygap and linux_arm64/readygap (either may be missing)")
	version := fs.String("version", "", "the version, for the labels (v1.2.3)")
	commit := fs.String("commit", "", "the commit, for the labels")
	created := fs.String("created", "", "the build date, RFC 3339, for the labels and the files' times")
	ca := fs.String("ca", caFile, "the CA certificate bundle to copy into the image")
	out := fs.String("out", "dist/image", "the OCI layout to write (emptied first)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *commit == "" || *created == "" {
		return errors.New("build needs -version, -commit and -created")
	}
	when, err := time.Parse(time.RFC3339, *created)
	if err != nil {
		return fmt.Errorf("-created: %w", err)
	}
	certs, err := os.ReadFile(*ca)
	if err != nil {
		return fmt.Errorf("CA certificates: %w", err)
	}
	annotations := map[string]string{
		"org.opencontainers.image.title":       "readygap",
		"org.opencontainers.image.description": "Explain 502/503s during Kubernetes rolling updates from load-balancer logs and events",
		"org.opencontainers.image.version":     *version,
		"org.opencontainers.image.revision":    *commit,
		"org.opencontainers.image.created":     when.UTC().Format(time.RFC3339),
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.url":         source,
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	n := 0
	for _, dir := range []string{"linux_amd64", "linux_arm64"} {
		binary, err := os.ReadFile(filepath.Join(*bin, dir, "readygap"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		p := platforms[dir]
		img, err := platformImage(p, binary, certs, when, annotations)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
		n++
	}
	if n == 0 {
		return fmt.Errorf("no linux binary under %s (linux_amd64/readygap, linux_arm64/readygap)", *bin)
	}
	idx = mutate.Annotations(idx, annotations).(v1.ImageIndex)
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	// index.json holds one entry, the multi-platform index, named by its
	// version as skopeo and crane address an entry of a layout.
	lp, err := layout.Write(*out, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": *version,
	})); err != nil {
		return err
	}
	d, err := idx.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("image %s: %d platforms, index %s, in %s\n", *version, n, d, *out)
	return nil
}

// platformImage is the image of one platform: one layer on an empty base.
func platformImage(p v1.Platform, binary, certs []byte, when time.Time, annotations map[string]string) (v1.Image, error) {
	layerTar, err := rootFS(binary, certs, when)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = p.OS, p.Architecture
	cf.Created = v1.Time{Time: when}
	cf.Config.User = fmt.Sprintf("%d:%d", nonRootID, nonRootID)
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.WorkingDir = "/home/nonroot"
	cf.Config.Env = []string{"PATH=/usr/local/bin", "SSL_CERT_FILE=" + caFile, "HOME=/home/nonroot"}
	cf.Config.Labels = annotations
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, err
	}
	return mutate.Annotations(img, annotations).(v1.Image), nil
}

// rootFS is the layer's tar: the binary, the users, the CA bundle, a home
// and /tmp, owned by root but for the home, every time the build date.
func rootFS(binary, certs []byte, when time.Time) ([]byte, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonRootID, nonRootID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonRootID)
	type entry struct {
		name string
		mode int64
		uid  int
		data []byte
		dir  bool
	}
	entries := []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, uid: nonRootID, dir: true},
		{name: "tmp/", mode: 0o1777, dir: true},
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
		{name: "usr/local/bin/readygap", mode: 0o755, data: binary},
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, Uid: e.uid, Gid: e.uid, ModTime: when, Format: tar.FormatPAX}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// requiredAnnotations must be set, non-empty, on the index, on each
// manifest and as labels of each configuration.
var requiredAnnotations = []string{
	"org.opencontainers.image.title", "org.opencontainers.image.version", "org.opencontainers.image.revision",
	"org.opencontainers.image.created", "org.opencontainers.image.source", "org.opencontainers.image.licenses",
}

// verify reads an OCI layout back from disk and checks what a registry and
// a kubelet would rely on: every digest and size (validate), the media
// types, each platform's configuration (a numeric non-root user, the
// entrypoint, the labels), the files of its filesystem; then it runs the
// binary of this machine's platform, taken from the layer, with `version`.
func verify(args []string) error {
	if len(args) != 1 {
		return errors.New("verify needs the layout's path")
	}
	lp, err := layout.FromPath(args[0])
	if err != nil {
		return err
	}
	outer, err := lp.ImageIndex()
	if err != nil {
		return err
	}
	om, err := outer.IndexManifest()
	if err != nil {
		return err
	}
	if len(om.Manifests) != 1 || om.Manifests[0].MediaType != types.OCIImageIndex {
		return fmt.Errorf("index.json: want one OCI image index, have %d entries", len(om.Manifests))
	}
	idx, err := outer.ImageIndex(om.Manifests[0].Digest)
	if err != nil {
		return err
	}
	if err := validate.Index(idx); err != nil {
		return fmt.Errorf("the layout's digests and sizes: %w", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	if err := hasAnnotations("index", im.Annotations); err != nil {
		return err
	}
	ran := false
	for _, d := range im.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" || d.MediaType != types.OCIManifestSchema1 {
			return fmt.Errorf("manifest %s: platform %v, media type %s", d.Digest, d.Platform, d.MediaType)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			return err
		}
		name := d.Platform.OS + "/" + d.Platform.Architecture
		binary, err := checkImage(name, img, *d.Platform)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Printf("%s: %s, user %s, entrypoint %s, %d labels, binary %d bytes\n", name, d.Digest, imageUser(img), binaryPath, len(requiredAnnotations), len(binary))
		if d.Platform.Architecture == runtime.GOARCH && runtime.GOOS == "linux" {
			if err := runVersion(binary, im.Annotations["org.opencontainers.image.version"]); err != nil {
				return err
			}
			ran = true
		}
	}
	if !ran && runtime.GOOS == "linux" {
		return fmt.Errorf("the image has no linux/%s binary to run", runtime.GOARCH)
	}
	return nil
}

// checkImage checks one platform's image and returns its binary.
func checkImage(name string, img v1.Image, p v1.Platform) ([]byte, error) {
	m, err := img.Manifest()
	if err != nil {
		return nil, err
	}
	if m.Config.MediaType != types.OCIConfigJSON {
		return nil, fmt.Errorf("config media type %s", m.Config.MediaType)
	}
	if err := hasAnnotations(name+" manifest", m.Annotations); err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	if cf.OS != p.OS || cf.Architecture != p.Architecture {
		return nil, fmt.Errorf("config says %s/%s", cf.OS, cf.Architecture)
	}
	uid, gid, ok := strings.Cut(cf.Config.User, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 || !ok {
		return nil, fmt.Errorf("user %q: want a numeric non-root uid:gid (runAsNonRoot checks the number)", cf.Config.User)
	}
	if !slices.Equal(cf.Config.Entrypoint, []string{binaryPath}) {
		return nil, fmt.Errorf("entrypoint %q", cf.Config.Entrypoint)
	}
	if err := hasAnnotations(name+" labels", cf.Config.Labels); err != nil {
		return nil, err
	}
	files, err := flatten(img)
	if err != nil {
		return nil, err
	}
	bin, ok := files[strings.TrimPrefix(binaryPath, "/")]
	if !ok || bin.mode&0o111 == 0 {
		return nil, fmt.Errorf("%s missing or not executable", binaryPath)
	}
	if passwd := files["etc/passwd"]; !bytes.Contains(passwd.data, []byte(":"+uid+":"+gid+":")) {
		return nil, fmt.Errorf("/etc/passwd has no entry for %s", cf.Config.User)
	}
	if ca := files[strings.TrimPrefix(caFile, "/")]; !bytes.Contains(ca.data, []byte("BEGIN CERTIFICATE")) {
		return nil, fmt.Errorf("%s holds no certificate", caFile)
	}
	return bin.data, nil
}

// imageUser is the configuration's user.
func imageUser(img v1.Image) string {
	cf, err := img.ConfigFile()
	if err != nil {
		return "?"
	}
	return cf.Config.User
}

// hasAnnotations checks the required annotations in m.
func hasAnnotations(what string, m map[string]string) error {
	for _, k := range requiredAnnotations {
		if m[k] == "" {
			return fmt.Errorf("%s: no %s", what, k)
		}
	}
	return nil
}

// file is a regular file of the image's filesystem.
type file struct {
	mode int64
	data []byte
}

// flatten reads the image's filesystem, its layers applied in order.
func flatten(img v1.Image) (map[string]file, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]file{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		files[strings.TrimPrefix(h.Name, "/")] = file{h.Mode, data}
	}
}

// runVersion runs the image's binary with `version` and checks it names the
// image's version.
func runVersion(binary []byte, version string) error {
	dir, err := os.MkdirTemp("", "readygap-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "readygap")
	if err := os.WriteFile(path, binary, 0o755); err != nil {
		return err
	}
	out, err := exec.Command(path, "version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("the image's binary: version: %w: %s", err, out)
	}
	fmt.Printf("the image's binary: %s", out)
	if !strings.HasPrefix(string(out), "readygap "+version+" ") {
		return fmt.Errorf("the image's binary says %q, the labels %s", out, version)
	}
	return nil
}

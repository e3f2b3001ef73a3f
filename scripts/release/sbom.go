package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"time"
)

// CycloneDX 1.5 (https://cyclonedx.org/docs/1.5/json/): the parts of the
// schema an SBOM of a Go binary fills.
type (
	cdxBOM struct {
		BOMFormat    string          `json:"bomFormat"`
		SpecVersion  string          `json:"specVersion"`
		SerialNumber string          `json:"serialNumber"`
		Version      int             `json:"version"`
		Metadata     cdxMetadata     `json:"metadata"`
		Components   []cdxComponent  `json:"components"`
		Dependencies []cdxDependency `json:"dependencies"`
	}
	cdxMetadata struct {
		Timestamp string       `json:"timestamp"`
		Component cdxComponent `json:"component"`
	}
	cdxComponent struct {
		Type       string        `json:"type"`
		BOMRef     string        `json:"bom-ref"`
		Name       string        `json:"name"`
		Version    string        `json:"version"`
		PURL       string        `json:"purl"`
		Hashes     []cdxHash     `json:"hashes,omitempty"`
		Licenses   []cdxLicense  `json:"licenses,omitempty"`
		Properties []cdxProperty `json:"properties,omitempty"`
	}
	cdxHash struct {
		Alg     string `json:"alg"`
		Content string `json:"content"`
	}
	cdxLicense struct {
		License struct {
			ID string `json:"id"`
		} `json:"license"`
	}
	cdxProperty struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	cdxDependency struct {
		Ref       string   `json:"ref"`
		DependsOn []string `json:"dependsOn"`
	}
)

// purl is the package URL of a Go module (purl-spec, type golang).
func purl(path, version string, t *target) string {
	p := "pkg:golang/" + path + "@" + version + "?type=module"
	if t != nil {
		p += "&goos=" + t.OS + "&goarch=" + t.Arch
	}
	return p
}

// cycloneDX writes the SBOM of the binary at bin from the build information
// the Go toolchain recorded in it: the main module, every module linked in
// (after replacements) with its go.sum hash, and the build settings.
func cycloneDX(bin string, r *release, t target) ([]byte, error) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", bin, err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(data)
	main := cdxComponent{
		Type: "application", Name: info.Main.Path, Version: r.Version,
		Hashes: []cdxHash{{"SHA-256", hex.EncodeToString(digest[:])}},
		Properties: []cdxProperty{
			{"readygap:commit", r.Commit}, {"go:version", info.GoVersion}, {"go:goos", t.OS}, {"go:goarch", t.Arch},
		},
	}
	main.PURL = purl(info.Main.Path, r.Version, &t)
	main.BOMRef = main.PURL
	var lic cdxLicense
	lic.License.ID = "Apache-2.0"
	main.Licenses = []cdxLicense{lic}
	for _, s := range info.Settings {
		main.Properties = append(main.Properties, cdxProperty{"go:build:" + s.Key, s.Value})
	}
	bom := cdxBOM{
		BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1,
		// The same binary always gets the same serial number.
		SerialNumber: "urn:uuid:" + uuidFrom(digest),
		Metadata:     cdxMetadata{Timestamp: r.Date.Format(time.RFC3339), Component: main},
		Components:   []cdxComponent{},
	}
	dep := cdxDependency{Ref: main.BOMRef, DependsOn: []string{}}
	for _, m := range info.Deps {
		c := moduleComponent(m)
		bom.Components = append(bom.Components, c)
		dep.DependsOn = append(dep.DependsOn, c.BOMRef)
	}
	bom.Dependencies = []cdxDependency{dep}
	out, err := json.MarshalIndent(bom, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// moduleComponent is one linked module, as replaced.
func moduleComponent(m *debug.Module) cdxComponent {
	if m.Replace != nil {
		m = m.Replace
	}
	c := cdxComponent{Type: "library", Name: m.Path, Version: m.Version, PURL: purl(m.Path, m.Version, nil)}
	c.BOMRef = c.PURL
	// go.sum's h1: is the base64 SHA-256 of the module's file hashes.
	if h, ok := strings.CutPrefix(m.Sum, "h1:"); ok {
		if raw, err := base64.StdEncoding.DecodeString(h); err == nil {
			c.Hashes = []cdxHash{{"SHA-256", hex.EncodeToString(raw)}}
		}
	}
	return c
}

// uuidFrom makes an RFC 9562 version 8 UUID of a digest.
func uuidFrom(d [32]byte) string {
	u := d[:16]
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

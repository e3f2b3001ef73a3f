package main

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// krewPlugin is krew's plugin manifest
// (krew.sigs.k8s.io/docs/developer-guide/plugin-manifest).
type krewPlugin struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Version          string         `yaml:"version"`
		Homepage         string         `yaml:"homepage"`
		ShortDescription string         `yaml:"shortDescription"`
		Description      string         `yaml:"description"`
		Platforms        []krewPlatform `yaml:"platforms"`
	} `yaml:"spec"`
}

type krewPlatform struct {
	Selector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"selector"`
	URI    string     `yaml:"uri"`
	SHA256 string     `yaml:"sha256"`
	Files  []krewFile `yaml:"files"`
	Bin    string     `yaml:"bin"`
}

type krewFile struct {
	From string `yaml:"from"`
	To   string `yaml:"to"`
}

// krewDescription is the manifest's description.
const krewDescription = `When a rollout "succeeds" but users got 502/503 from the load balancer,
readygap reads the load-balancer or proxy logs and the Kubernetes events,
lines them up per pod and names the mechanism (registration lag, wrong
readiness-probe port, termination race, idle keep-alive race) with the
evidence and the manifest fix. "kubectl readygap check" finds the same
settings in manifests before the deploy.
`

// krewManifest writes plugins/readygap.yaml for the targets built, each
// pointing at its archive on the release page with its checksum.
func (r *release) krewManifest(sums map[string]string) ([]byte, error) {
	var p krewPlugin
	p.APIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	p.Kind = "Plugin"
	p.Metadata.Name = "readygap"
	p.Spec.Version = r.Version
	p.Spec.Homepage = repository
	p.Spec.ShortDescription = "Explain 502/503s during rollouts from LB logs and events"
	p.Spec.Description = krewDescription
	for _, t := range r.Targets {
		name := r.archiveName(t)
		sum, ok := sums[name]
		if !ok {
			return nil, fmt.Errorf("no checksum of %s", name)
		}
		var pl krewPlatform
		pl.Selector.MatchLabels = map[string]string{"os": t.OS, "arch": t.Arch}
		pl.URI = fmt.Sprintf("%s/releases/download/%s/%s", repository, r.Version, name)
		pl.SHA256 = sum
		pl.Files = []krewFile{{t.exe(), "."}, {"LICENSE", "."}}
		pl.Bin = t.exe()
		p.Spec.Platforms = append(p.Spec.Platforms, pl)
	}
	return yaml.Marshal(&p)
}

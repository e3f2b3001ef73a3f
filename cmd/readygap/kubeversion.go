package main

import (
	"github.com/spf13/pflag"

	"github.com/readygap/readygap/sources"
)

// kubeVersionFlag is --kube-version: the cluster's Kubernetes version,
// which the fixes choose by (the sleep preStop handler needs 1.30). A
// version that cannot be read is a usage error.
type kubeVersionFlag struct{ v sources.KubeVersion }

// String renders the version given; "" when none.
func (f *kubeVersionFlag) String() string { return f.v.String() }

// Set reads a version such as 1.29 or v1.29.3.
func (f *kubeVersionFlag) Set(s string) error {
	v, err := sources.ParseKubeVersion(s)
	if err != nil {
		return err
	}
	f.v = v
	return nil
}

// Type names the flag's value in the help.
func (f *kubeVersionFlag) Type() string { return "version" }

// kubeVersionUsage is the help of --kube-version, the same on every command.
const kubeVersionUsage = "the cluster's Kubernetes version (such as 1.29): below 1.30 the preStop fix is an exec of sleep rather than the sleep handler; without it, the version the inputs record, else the sleep handler with a note"

// addKubeVersionFlag registers --kube-version on fs.
func addKubeVersionFlag(fs *pflag.FlagSet, f *kubeVersionFlag) {
	fs.Var(f, "kube-version", kubeVersionUsage)
}

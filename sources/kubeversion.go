package sources

import (
	"fmt"
	"regexp"
	"strconv"
)

// KubeVersion is a Kubernetes server version, major and minor: what the
// fixes depend on (the sleep preStop handler needs 1.30). The zero value
// is an unknown version.
type KubeVersion struct {
	Major, Minor int
}

// kubeVersionRE matches a version as users and the API server write it:
// "1.29", "v1.29.3", "v1.29.3-gke.1200" (the /version endpoint's
// gitVersion).
var kubeVersionRE = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?$`)

// ParseKubeVersion reads a version such as "1.29", "v1.29.3" or a
// provider's "v1.29.3-gke.1200"; anything else is an error.
func ParseKubeVersion(s string) (KubeVersion, error) {
	m := kubeVersionRE.FindStringSubmatch(s)
	if m == nil {
		return KubeVersion{}, fmt.Errorf("kubernetes version %q: want MAJOR.MINOR, such as 1.29 or v1.29.3", s)
	}
	major, err1 := strconv.Atoi(m[1])
	minor, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || major == 0 {
		return KubeVersion{}, fmt.Errorf("kubernetes version %q: want MAJOR.MINOR, such as 1.29 or v1.29.3", s)
	}
	return KubeVersion{Major: major, Minor: minor}, nil
}

// Known is true when the version was read or given.
func (v KubeVersion) Known() bool { return v.Major > 0 }

// Below is true when the version is known and older than major.minor.
func (v KubeVersion) Below(major, minor int) bool {
	return v.Known() && (v.Major < major || (v.Major == major && v.Minor < minor))
}

// String renders the version as "1.29"; "" when unknown.
func (v KubeVersion) String() string {
	if !v.Known() {
		return ""
	}
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

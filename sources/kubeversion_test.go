package sources

import "testing"

func TestParseKubeVersion(t *testing.T) {
	good := map[string]KubeVersion{
		"1.29":                {1, 29},
		"v1.30":               {1, 30},
		"1.31.2":              {1, 31},
		"v1.29.3-gke.1200":    {1, 29},
		"v1.28.5-eks-5e0fdde": {1, 28},
	}
	for in, want := range good {
		got, err := ParseKubeVersion(in)
		if err != nil || got != want {
			t.Errorf("ParseKubeVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1", "129", "1.x", "latest", "0.29", "1.29 ", "v1..29"} {
		if v, err := ParseKubeVersion(in); err == nil {
			t.Errorf("ParseKubeVersion(%q) = %v, want an error", in, v)
		}
	}
	v := KubeVersion{1, 29}
	if !v.Below(1, 30) || (KubeVersion{1, 30}).Below(1, 30) || (KubeVersion{}).Below(1, 30) || (KubeVersion{2, 0}).Below(1, 30) {
		t.Error("Below: 1.29 is below 1.30; 1.30, 2.0 and an unknown version are not")
	}
}

package classify

import "testing"

// TestFixCovers pins when one fix makes another's change too: the same
// fields of the same object, numbers (in strings too) at least the other's,
// or at most for AtMost fixes, and never across objects, fields or
// directions.
func TestFixCovers(t *testing.T) {
	wl := workload{Namespace: "shop", Name: "web"}
	sleep := func(s int) Fix { return preStopFix(wl, s) }
	drain := func(s int) Fix {
		return Fix{Title: "drain", Patch: objectPatch("networking.k8s.io/v1", "Ingress", "shop", "web", map[string]any{"annotations": map[string]any{
			"alb.ingress.kubernetes.io/target-group-attributes": "deregistration_delay.timeout_seconds=" + itoa(s)}}, nil)}
	}
	idle := func(s int) Fix {
		f := drain(s)
		f.AtMost = true
		return f
	}
	other := preStopFix(workload{Namespace: "shop", Name: "api"}, 15)
	grace := graceFix(wl, 15, 30, 35)
	for _, c := range []struct {
		name string
		f, g Fix
		want bool
	}{
		{"longer sleep covers shorter", sleep(15), sleep(13), true},
		{"equal sleeps cover each other", sleep(13), sleep(13), true},
		{"shorter sleep does not cover longer", sleep(13), sleep(15), false},
		{"number inside a string", drain(34), drain(33), true},
		{"smaller number inside a string", drain(33), drain(34), false},
		{"at most: the smaller covers", idle(4), idle(9), true},
		{"at most: the larger does not", idle(9), idle(4), false},
		{"directions differ", drain(34), idle(33), false},
		{"another Deployment", other, sleep(13), false},
		{"another field", grace, sleep(13), false},
		{"no patch, same text", Fix{Title: "a", Why: "b"}, Fix{Title: "a", Why: "b"}, true},
		{"no patch, other text", Fix{Title: "a", Why: "b"}, Fix{Title: "a", Why: "c"}, false},
		{"a patch and none", sleep(13), Fix{Title: sleep(13).Title}, false},
	} {
		if got := c.f.Covers(c.g); got != c.want {
			t.Errorf("%s: Covers = %v, want %v", c.name, got, c.want)
		}
	}
	if !stringCovers("a=10,b=3", "a=9,b=3", func(a, b float64) bool { return a >= b }) ||
		stringCovers("a=10,b=3", "a=10,c=3", func(a, b float64) bool { return a >= b }) ||
		stringCovers("a=10", "a=10s", func(a, b float64) bool { return a >= b }) {
		t.Error("stringCovers compares the text between numbers wrongly")
	}
}

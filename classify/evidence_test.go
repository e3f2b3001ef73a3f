package classify

import "testing"

// TestSomePods pins maxNamedAlike on both sides: as many pods as it are
// all named, one more leaves the last counted.
func TestSomePods(t *testing.T) {
	pods := []string{"web-1", "web-2", "web-3", "web-4", "web-5"}
	for _, c := range []struct {
		n    int
		want string
	}{
		{maxNamedAlike, "web-1, web-2, web-3"},
		{maxNamedAlike + 1, "web-1, web-2, web-3 and 1 other pod"},
		{maxNamedAlike + 2, "web-1, web-2, web-3 and 2 other pods"},
	} {
		if got := SomePods(pods[:c.n]); got != c.want {
			t.Errorf("%d pods: %q, want %q", c.n, got, c.want)
		}
	}
}

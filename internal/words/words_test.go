package words

import "testing"

// TestPlural checks the singular at one and the plural at zero and more.
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 2: "2 files"} {
		if got := Plural(n, "file"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestSomePods pins MaxNamedAlike on both sides: as many pods as it are
// all named, one more leaves the last counted.
func TestSomePods(t *testing.T) {
	pods := []string{"web-1", "web-2", "web-3", "web-4", "web-5"}
	for _, c := range []struct {
		n    int
		want string
	}{
		{MaxNamedAlike, "web-1, web-2, web-3"},
		{MaxNamedAlike + 1, "web-1, web-2, web-3 and 1 other pod"},
		{MaxNamedAlike + 2, "web-1, web-2, web-3 and 2 other pods"},
	} {
		if got := SomePods(pods[:c.n]); got != c.want {
			t.Errorf("%d pods: %q, want %q", c.n, got, c.want)
		}
	}
}

// TestBytes pins each unit's threshold on both sides.
func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1<<20 - 1: "1024.0 KiB", 1 << 20: "1.0 MiB",
		16 << 20: "16.0 MiB", 3 << 29: "1.5 GiB", 1 << 40: "1.0 TiB", 1 << 60: "1024.0 PiB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

package report

import "testing"

// TestRestOfBackendsWording checks the line that counts the backends a
// table leaves out, for one backend and for many: the count, the roles
// and the failed attempts, in words that agree with the number.
func TestRestOfBackendsWording(t *testing.T) {
	b := func(role string, failures int) Backend { return Backend{Role: role, Failures: failures} }
	for _, c := range []struct {
		rest []Backend
		want string
	}{
		{[]Backend{b("old", 1)}, "and 1 more old backend, with 1 failed attempt"},
		{[]Backend{b("new", 3)}, "and 1 more new backend, with 3 failed attempts"},
		{[]Backend{b("unknown", 2)}, "and 1 more backend of unknown role, with 2 failed attempts"},
		{[]Backend{b("old", 1), b("old", 1)}, "and 2 more backends (2 old), 1 failed attempt each"},
		{[]Backend{b("new", 2), b("old", 2), b("old", 2)}, "and 3 more backends (1 new, 2 old), 2 failed attempts each"},
		{[]Backend{b("new", 1), b("old", 3), b("unknown", 2)}, "and 3 more backends (1 new, 1 old, 1 of unknown role), 1–3 failed attempts each"},
	} {
		if got := restOfBackends(c.rest); got != c.want {
			t.Errorf("%+v: %q, want %q", c.rest, got, c.want)
		}
	}
}

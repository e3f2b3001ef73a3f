package golden

import (
	"strings"
	"testing"
)

func TestDiffShowsOnlyTheChange(t *testing.T) {
	var want, got strings.Builder
	for i := 0; i < 100; i++ {
		line := "line " + string(rune('a'+i%26)) + "\n"
		want.WriteString(line)
		if i == 50 {
			line = "changed\n"
		}
		got.WriteString(line)
	}
	d := Diff("x.golden", []byte(want.String()), []byte(got.String()))
	if !strings.Contains(d, "-line y\n+changed\n") || !strings.HasPrefix(d, "--- x.golden\n+++ got\n") {
		t.Fatalf("diff:\n%s", d)
	}
	if n := strings.Count(d, "\n"); n > 12 {
		t.Errorf("diff has %d lines; a one-line change should show about %d", n, 2*contextLines+5)
	}
	if Diff("x", []byte("a\n"), []byte("a\n")) != "" {
		t.Error("equal inputs differ")
	}
}

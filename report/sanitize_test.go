package report

import (
	"testing"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text: GET /api/items", "plain text: GET /api/items"},
		{"ünïcödé ok", "ünïcödé ok"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"bell\a and nul\x00", `bell\x07 and nul\x00`},
		{"tab\tand\nnewline\r", `tab\x09and\x0anewline\x0d`},
		{"bad utf8 \xff\xfe", `bad utf8 \xff\xfe`},
		{"c1 \u009b csi", `c1 \u{009b} csi`},
		{"line sep \u2028", `line sep \u{2028}`},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("\x1b]52;c;ZXZpbA==\a")
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("Sanitize(%q) left control rune %U", s, r)
			}
		}
	})
}

package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/fang"
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
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	f.Add("\x1b]52;c;ZXZpbA==\a")
	f.Fuzz(func(t *testing.T, s string) {
		out := sanitize(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("sanitize(%q) left control rune %U", s, r)
			}
		}
	})
}

func TestPrintErrorKeepsCaseAndEscapesControls(t *testing.T) {
	var b bytes.Buffer
	printError(&b, fang.Styles{}, usageError(errors.New("<stdin>: bad \x1b[31mname")))
	out := b.String()
	if strings.Contains(out, "\x1b[31m") || !strings.Contains(out, `<stdin>: bad \x1b[31mname`) || !strings.Contains(out, "Try --help") {
		t.Fatalf("error output %q", out)
	}
}

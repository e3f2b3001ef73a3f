package sources

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

// encodeUTF16 writes s as UTF-16 in order, after a byte-order mark.
func encodeUTF16(s string, order binary.ByteOrder) []byte {
	app := order.(binary.AppendByteOrder)
	out := app.AppendUint16(nil, 0xFEFF)
	for _, u := range utf16.Encode([]rune(s)) {
		out = app.AppendUint16(out, u)
	}
	return out
}

// TestUTF16Reader decodes UTF-16 in both byte orders, with characters
// outside the BMP (surrogate pairs) falling across the reader's blocks and
// a reader that hands over one byte at a time; an unpaired surrogate and
// an odd last byte end the read with an error naming the line, after the
// text before them.
func TestUTF16Reader(t *testing.T) {
	text := strings.Repeat("apiVersion: v1 # café 🚀 名前\n", 5000) // over one block
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		enc := encodeUTF16(text, order)
		if got := utf16BOM(enc); got != order {
			t.Fatalf("BOM %v, want %v", got, order)
		}
		for _, r := range []io.Reader{bytes.NewReader(enc), iotest.OneByteReader(bytes.NewReader(enc))} {
			got, err := io.ReadAll(newUTF16Reader(r, order))
			if err != nil || string(got) != text {
				t.Fatalf("%v: %d bytes, %v", order, len(got), err)
			}
		}
	}
	if utf16BOM([]byte{0xFF, 0xFE, 0, 0}) != nil || utf16BOM([]byte("ab")) != nil {
		t.Error("a UTF-32 BOM or plain text taken for UTF-16")
	}
	enc := encodeUTF16("line 1\nline 2\n", binary.LittleEndian)
	bad := append(append(enc[:len(enc):len(enc)], 0x00, 0xD8), encodeUTF16("x\n", binary.LittleEndian)[2:]...)
	got, err := io.ReadAll(newUTF16Reader(bytes.NewReader(bad), binary.LittleEndian))
	if err == nil || err.Error() != "unpaired UTF-16 surrogate D800 on line 3" || string(got) != "line 1\nline 2\n" {
		t.Errorf("unpaired surrogate: %q, %v", got, err)
	}
	got, err = io.ReadAll(newUTF16Reader(bytes.NewReader(append(enc, 'A')), binary.LittleEndian))
	if err == nil || !strings.Contains(err.Error(), "an odd byte at the end") || string(got) != "line 1\nline 2\n" {
		t.Errorf("odd byte: %q, %v", got, err)
	}
}

// TestUTF16ManifestIsRead reads a manifest as Windows PowerShell's `>`
// writes it (UTF-16 LE with a BOM): the same objects as its UTF-8; with an
// unpaired surrogate it is unreadable, and UTF-16 without a BOM is not
// text. Neither is taken for a format.
func TestUTF16ManifestIsRead(t *testing.T) {
	body := readFixtureFormat(t, "objects.yaml")
	dir := t.TempDir()
	plain := writeFile(t, dir, "plain.yaml", []byte(body))
	wide := writeFile(t, dir, "wide.yaml", encodeUTF16(body, binary.LittleEndian))
	_, want := readPaths(t, Options{}, plain)
	res, got := readPaths(t, Options{}, wide)
	if got.config != want.config || want.config == 0 || res.Inputs[0].Format != FormatK8sObjects || len(res.Warnings) != 0 {
		t.Errorf("UTF-16: %d objects, want %d; warnings %q", got.config, want.config, res.Warnings)
	}
	enc := encodeUTF16(body, binary.LittleEndian)
	broken := writeFile(t, dir, "broken.yaml", append(enc[:100:100], append([]byte{0x00, 0xDC}, enc[100:]...)...))
	noBOM := writeFile(t, dir, "nobom.yaml", encodeUTF16(body, binary.BigEndian)[2:])
	res, _ = Read(t.Context(), []string{broken, noBOM, plain}, Options{}, func(*InputReport) Handler { return &countingHandler{} })
	if len(res.Unread) != 2 || !errors.As(res.Unread[0].Err, new(utf16Error)) || !IsNotText(res.Unread[1].Err) || !IsUnknownFormat(res.Unread[1].Err) || IsUnknownFormat(res.Unread[0].Err) {
		t.Errorf("failed %+v", res.Unread)
	}
}

// TestYAMLInvalidUTF8AndDuplicateKeys checks that a document with a byte
// that is not UTF-8 is skipped from its first line, naming the line of the
// byte, the documents around it read; and that a key written twice in a
// mapping is a warning naming both lines, the document read as go-yaml
// reads it (the last wins).
func TestYAMLInvalidUTF8AndDuplicateKeys(t *testing.T) {
	doc := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n"
	body := strings.ReplaceAll(doc, "%s", "one") + "---\n" + strings.ReplaceAll(doc, "%s", "caf\xe9") + "---\n" +
		"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: two\n  labels: {a: p, a: q}\n  name: three\n"
	p := writeFile(t, t.TempDir(), "ns.yaml", []byte(body))
	res, h := readPaths(t, Options{}, p)
	in := res.Inputs[0]
	if h.config != 2 || in.Skipped != 1 || len(in.Skips()) != 1 || in.Skips()[0].Origin.Line != 6 || in.Skips()[0].Reason != "invalid UTF-8 on line 9: not read (kubectl refuses the file too)" {
		t.Errorf("%d objects, skips %+v", h.config, in.Skips())
	}
	if !hasWarning(res, "ns.yaml: line 15: duplicate key \"a\"") || !hasWarning(res, "ns.yaml: lines 14 and 16: duplicate key \"name\" in one mapping") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

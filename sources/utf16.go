package sources

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// Text that is not UTF-8. Windows PowerShell 5.1's `>` and Out-File write
// UTF-16 little-endian with a byte-order mark (FF FE); kubectl reads such a
// manifest, decoding UTF-16 after a BOM (k8s.io/cli-runtime's FileVisitor,
// unicode.BOMOverride), and so does readygap: an input that starts with a
// UTF-16 BOM is decoded to UTF-8 before anything else reads it. The
// decoding is exact or it stops: an unpaired surrogate or an odd last byte
// ends the read with an error naming the line, never a replacement
// character standing for bytes that were not read.

// utf16BOM reports the byte order an input's UTF-16 byte-order mark gives;
// nil when head starts with none. A UTF-32 little-endian BOM (FF FE 00 00)
// is not one.
func utf16BOM(head []byte) binary.ByteOrder {
	switch {
	case len(head) >= 4 && bytes.Equal(head[:4], []byte{0xFF, 0xFE, 0, 0}):
		return nil
	case len(head) >= 2 && head[0] == 0xFF && head[1] == 0xFE:
		return binary.LittleEndian
	case len(head) >= 2 && head[0] == 0xFE && head[1] == 0xFF:
		return binary.BigEndian
	}
	return nil
}

// utf16Reader decodes UTF-16 in the given byte order to UTF-8; the BOM is
// dropped.
type utf16Reader struct {
	r     io.Reader
	order binary.ByteOrder
	in    []byte // bytes read, not yet decoded
	out   []byte // decoded, not yet returned
	line  int    // the line being decoded, for errors
	bom   bool   // whether the BOM was dropped
	err   error
}

// utf16Error says where UTF-16 text cannot be decoded.
type utf16Error string

func (e utf16Error) Error() string { return string(e) }

// utf16ReadSize is how much UTF-16 is decoded at a time.
const utf16ReadSize = 64 << 10

func newUTF16Reader(r io.Reader, order binary.ByteOrder) *utf16Reader {
	return &utf16Reader{r: r, order: order, in: make([]byte, 0, utf16ReadSize), line: 1}
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill reads and decodes the next block.
func (u *utf16Reader) fill() {
	n, err := io.ReadAtLeast(u.r, u.in[len(u.in):cap(u.in)], 4)
	u.in = u.in[:len(u.in)+n]
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	if !u.bom && len(u.in) >= 2 {
		u.in, u.bom = u.in[2:], true
	}
	out := u.out[:0]
	i := 0
	for ; i+1 < len(u.in); i += 2 {
		c := rune(u.order.Uint16(u.in[i:]))
		if utf16.IsSurrogate(c) {
			if i+3 >= len(u.in) {
				if err == nil {
					break // its pair is in the next block
				}
				u.err = utf16Error(fmt.Sprintf("unpaired UTF-16 surrogate %04X on line %d", c, u.line))
				break
			}
			r := utf16.DecodeRune(c, rune(u.order.Uint16(u.in[i+2:])))
			if r == utf8.RuneError {
				u.err = utf16Error(fmt.Sprintf("unpaired UTF-16 surrogate %04X on line %d", c, u.line))
				break
			}
			out = utf8.AppendRune(out, r)
			i += 2
			continue
		}
		if c == '\n' {
			u.line++
		}
		out = utf8.AppendRune(out, c)
	}
	if u.err == nil && err != nil && i < len(u.in) && i+1 >= len(u.in) {
		u.err = utf16Error(fmt.Sprintf("an odd byte at the end of UTF-16 text, after line %d", u.line))
	}
	rest := copy(u.in, u.in[i:])
	u.in = u.in[:rest]
	u.out = out
	if u.err == nil && err != nil {
		u.err = err
	}
}

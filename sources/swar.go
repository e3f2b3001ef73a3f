package sources

// SWAR (SIMD within a register): the adapters' fast paths test eight bytes
// of a line at a time. A word that repeats one byte, xor'ed with eight
// bytes of input, has a zero byte where the input holds that byte.

// Words of eight copies of a byte the fast paths look for.
const (
	swarSpaces      = 0x2020202020202020
	swarQuotes      = 0x2222222222222222
	swarBackslashes = 0x5c5c5c5c5c5c5c5c
	swarBrackets    = 0x5d5d5d5d5d5d5d5d
)

// A one in each byte of a word, the low seven bits of each byte, and the
// high bit of each byte.
const (
	swarOnes  = 0x0101010101010101
	swarLow7  = 0x7f7f7f7f7f7f7f7f
	swarHighs = 0x8080808080808080
)

// swarZero flags the zero bytes of w with their high bit; the lowest flag
// is exact (a borrow can flag a byte above it), which is all a search for
// the first match needs.
func swarZero(w uint64) uint64 {
	return (w - swarOnes) & ^w & swarHighs
}

// swarZeros sets the high bit of each byte of x that is zero, and no other
// bit. Adding 0x7f to a byte's low seven bits sets its high bit unless
// they are all zero, and cannot carry into the next byte; or'ed with the
// byte's own high bit, it is set exactly when the byte is not zero.
func swarZeros(x uint64) uint64 {
	return ^(((x & swarLow7) + swarLow7) | x | swarLow7)
}

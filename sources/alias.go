package sources

import "unsafe"

// inputString returns the bytes of b as a string without copying them. The
// string aliases the input's read buffer, which is reused once the record
// it went into has been handed to the Handler: it may be put in a Request
// passed to a Handler (which must Clone what it keeps), never kept by an
// adapter. It is what keeps the per-line hot paths free of allocations.
func inputString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

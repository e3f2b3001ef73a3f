package correlate

import (
	"strings"
	"testing"
)

// TestPodKeyRoom pins podKeyRoom (128 bytes) from both sides: looking up
// a pod whose namespace/name key takes 128 bytes allocates nothing, one of
// 129 bytes writes its key on the heap.
func TestPodKeyRoom(t *testing.T) {
	s := &backendSet{byKey: map[string]*Backend{}}
	for _, c := range []struct {
		keyLen int
		allocs float64
	}{{128, 0}, {129, 1}} {
		name := strings.Repeat("w", c.keyLen-len("shop/"))
		s.pod("shop", name)
		if got := testing.AllocsPerRun(100, func() {
			if s.lookup("shop", name) == nil {
				t.Fatal("pod not found")
			}
		}); got != c.allocs {
			t.Errorf("a %d-byte key: %g allocations a lookup, want %g", c.keyLen, got, c.allocs)
		}
	}
}

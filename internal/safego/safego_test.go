package safego

import (
	"strings"
	"sync/atomic"
	"testing"
)

// panicsIn runs f and returns the value it panicked with, nil if none.
func panicsIn(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// boom panics with a nil map write, the kind of bug a worker meets.
func boom(m map[string]int) { m["x"]++ }

func TestWaitCarriesTheFirstPanic(t *testing.T) {
	var g Group
	var ran atomic.Int32
	jobs := make(chan int)
	for w := range 3 {
		g.Go(func() {
			defer func() {
				for range jobs { // drained, so the feeder never waits for ever
				}
			}()
			for j := range jobs {
				ran.Add(1)
				if w == 0 || j == 5 {
					boom(nil)
				}
			}
		})
	}
	for j := range 100 {
		jobs <- j
	}
	close(jobs)
	r := panicsIn(g.Wait)
	p, ok := r.(*Panic)
	if !ok {
		t.Fatalf("Wait panicked with %T %v, want a *Panic", r, r)
	}
	if !strings.Contains(p.Error(), "assignment to entry in nil map") || !strings.Contains(string(p.Stack), "safego.boom") {
		t.Errorf("panic %q with stack:\n%s", p.Error(), p.Stack)
	}
	if ran.Load() == 0 {
		t.Error("no job ran")
	}
}

func TestWaitWithoutPanic(t *testing.T) {
	var g Group
	var n atomic.Int32
	for range 4 {
		g.Go(func() { n.Add(1) })
	}
	if r := panicsIn(g.Wait); r != nil || n.Load() != 4 {
		t.Fatalf("panic %v, %d goroutines ran", r, n.Load())
	}
}

// TestNestedGroupKeepsTheStack checks that a panic carried out of an inner
// group keeps the stack of the goroutine where it began.
func TestNestedGroupKeepsTheStack(t *testing.T) {
	var outer Group
	outer.Go(func() {
		var inner Group
		inner.Go(func() { boom(nil) })
		inner.Wait()
	})
	p, ok := panicsIn(outer.Wait).(*Panic)
	if !ok || !strings.Contains(string(p.Stack), "safego.boom") {
		t.Fatalf("panic %v", p)
	}
}

// Package safego runs worker goroutines whose panics reach the goroutine
// that waits for them. A panic that no goroutine recovers ends the process
// with the Go runtime's exit code 2, which readygap keeps for mistakes in
// the command line; carried to the waiting goroutine, it reaches the
// command's own recovery, which reports an internal error with exit code 1.
package safego

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// Panic is a worker's panic: the value it panicked with and the worker's
// stack at that moment.
type Panic struct {
	Value any
	Stack []byte
}

// Error implements error: the value the worker panicked with.
func (p *Panic) Error() string { return fmt.Sprint(p.Value) }

// Group is a sync.WaitGroup whose Wait panics with the first panic of its
// goroutines, as a *Panic. The zero Group is ready to use.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	first *Panic
}

// Go runs f on a new goroutine. A worker that feeds on a channel must drain
// it when f panics (a deferred loop), or the goroutine feeding it would wait
// for ever once every worker is gone.
func (g *Group) Go(f func()) {
	g.wg.Go(func() {
		defer g.catch()
		f()
	})
}

// catch keeps the first panic of the group's goroutines.
func (g *Group) catch() {
	r := recover()
	if r == nil {
		return
	}
	p, ok := r.(*Panic)
	if !ok {
		p = &Panic{Value: r, Stack: debug.Stack()}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.first == nil {
		g.first = p
	}
}

// Wait waits for every goroutine of the group, then panics with the first
// panic among them, if any.
func (g *Group) Wait() {
	g.wg.Wait()
	if g.first != nil {
		panic(g.first)
	}
}

package sources

import (
	"context"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/readygap/readygap/internal/safego"
)

// Early reads inputs while others are still being fetched: triage hands
// it each file the moment its download is complete, so that parsing
// overlaps the transfer instead of following it. Read, given the Early in
// Options.Early, waits for it, takes the report of each file it read
// instead of reading the file again, and reads the rest; its Result is the
// one it would give had it read every file itself. Early uses the Options
// it was made with (the window, the formats, the time of reading); Read
// uses them too.
type Early struct {
	ctx      context.Context
	opts     Options
	dedup    *dedupSet
	specs    *specTable
	handlers *handlerPool

	mu     sync.Mutex
	cond   *sync.Cond
	queue  []string
	queued map[string]bool
	closed bool
	read   map[string]earlyRead
	g      safego.Group
}

// earlyRead is how Early read one file.
type earlyRead struct {
	rep *InputReport
	err error
}

// NewEarly starts an Early reader with opts.Workers workers (GOMAXPROCS
// for 0), each record going to a Handler newHandler makes as Read does.
// It stops reading when ctx is done.
func NewEarly(ctx context.Context, opts Options, newHandler func(*InputReport) Handler) (*Early, error) {
	if err := opts.prepare(); err != nil {
		return nil, err
	}
	if opts.ReadAt.IsZero() {
		opts.ReadAt = time.Now()
	}
	e := &Early{ctx: ctx, opts: opts, dedup: newDedupSet(), specs: newSpecTable(),
		handlers: &handlerPool{new: newHandler}, read: map[string]earlyRead{}, queued: map[string]bool{}}
	e.cond = sync.NewCond(&e.mu)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for range workers {
		e.g.Go(e.work)
	}
	return e, nil
}

// Add queues the complete file at path to be read, once however often it
// is added; it never waits for the reading. A file outside the time
// window by its ALB object name is left to Read, which counts it as
// pruned.
func (e *Early) Add(path string) {
	path = filepath.Clean(path)
	if !e.opts.Since.IsZero() || !e.opts.Until.IsZero() {
		if !ALBObjectMayOverlap(path, e.opts.Since, e.opts.Until) {
			return
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || e.queued[path] {
		return
	}
	e.queued[path] = true
	e.queue = append(e.queue, path)
	e.cond.Signal()
}

// work reads queued files until the queue is closed and empty, or the
// context is done.
func (e *Early) work() {
	for {
		e.mu.Lock()
		for len(e.queue) == 0 && !e.closed {
			e.cond.Wait()
		}
		if len(e.queue) == 0 || e.ctx.Err() != nil {
			e.mu.Unlock()
			return
		}
		path := e.queue[0]
		e.queue = e.queue[1:]
		e.mu.Unlock()
		// Many objects: each is read by one worker, as Read reads all but
		// its last inputs.
		rep, err := readInput(e.ctx, path, &e.opts, e.dedup, e.specs, e.handlers, true)
		e.mu.Lock()
		e.read[path] = earlyRead{rep, err}
		e.mu.Unlock()
	}
}

// Close stops taking files and waits for those queued to be read. Read
// closes the Early it is given; a caller whose analysis never runs closes
// it itself.
func (e *Early) Close() {
	e.mu.Lock()
	e.closed = true
	e.cond.Broadcast()
	e.mu.Unlock()
	e.g.Wait()
}

// take returns how the file at path was read, and removes it; ok is false
// when Early did not read it.
func (e *Early) take(path string) (earlyRead, bool) {
	path = filepath.Clean(path)
	r, ok := e.read[path]
	delete(e.read, path)
	return r, ok
}

// rest returns the files Early read that Read did not take, sorted: files
// Read's paths do not name, whose records were handed on all the same.
func (e *Early) rest() []string {
	var out []string
	for p := range e.read {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

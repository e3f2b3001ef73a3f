package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/readygap/readygap/sources/bundle"
)

// reasonInterrupted is the reason of an item the user interrupted.
const reasonInterrupted = "interrupted"

// budgetError is the cause of a source's context when its budget ran out.
type budgetError struct{ budget time.Duration }

// Error implements error.
func (e *budgetError) Error() string {
	return fmt.Sprintf("the source's time budget of %s ran out (--source-timeout)", humanDuration(e.budget))
}

// run is one source's fetch in progress: its contexts (the caller's, its
// budget, a stop when the source cannot go on), the items it asked for, its
// running totals and what waits for a retry. Its methods are safe for
// concurrent use.
type run struct {
	source string
	// kind is the noun of what is retried, for progress ("object").
	kind  string
	dir   string
	outer context.Context
	// ctx is outer with the budget and the stop.
	ctx     context.Context
	stopCtx context.CancelCauseFunc
	release func()

	mu       sync.Mutex
	rep      bundle.FetchReport
	stopped  *FetchError
	progress Progress
	records  int
	bytes    int64
	retrying map[string]string
	// summarize words the items not complete as the source's one-line
	// error; nil means summarizeItems.
	summarize func(bad []bundle.Item, total map[string]int) string
}

// newRun starts a source's fetch into dir under ctx with t's budget.
func newRun(ctx context.Context, source, kind, dir string, t Timeouts, progress Progress) *run {
	t = t.withDefaults()
	bctx, cancelBudget := context.WithTimeoutCause(ctx, t.Source, &budgetError{budget: t.Source})
	sctx, stop := context.WithCancelCause(bctx)
	return &run{
		source: source, kind: kind, dir: dir, outer: ctx, ctx: sctx, stopCtx: stop,
		release:  func() { stop(nil); cancelBudget() },
		rep:      bundle.FetchReport{Source: source, Queries: []string{}, Items: []bundle.Item{}, Files: []string{}},
		progress: progress, retrying: map[string]string{},
	}
}

// add records an item asked for and returns its index.
func (r *run) add(it bundle.Item) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Items = append(r.rep.Items, it)
	return len(r.rep.Items) - 1
}

// update changes item i.
func (r *run) update(i int, f func(*bundle.Item)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.rep.Items[i])
}

// note adds a one-line remark, redacted.
func (r *run) note(format string, args ...any) {
	msg, n := Redact(fmt.Sprintf(format, args...))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Notes = append(r.rep.Notes, msg)
	r.countRedacted(redactedErrorText, n)
}

// countRedacted adds n to the count of kind; the caller holds r.mu.
func (r *run) countRedacted(kind string, n int) {
	if n == 0 {
		return
	}
	if r.rep.Redacted == nil {
		r.rep.Redacted = map[string]int{}
	}
	r.rep.Redacted[kind] += n
}

// redacted adds the counts of what was removed from saved data.
func (r *run) redacted(counts map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, n := range counts {
		r.countRedacted(k, n)
	}
}

// saved adds what was written to the running totals and reports progress.
func (r *run) saved(records int, bytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records += records
	r.bytes += bytes
	r.report()
}

// retry records that op waits for a retry because of reason.
func (r *run) retry(op, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.retrying[op] == reason {
		return
	}
	r.retrying[op] = reason
	r.report()
}

// settle records that op no longer waits for a retry.
func (r *run) settle(op string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.retrying[op]; !ok {
		return
	}
	delete(r.retrying, op)
	r.report()
}

// report sends the running state to progress; the caller holds r.mu.
func (r *run) report() {
	if r.progress == nil {
		return
	}
	s := ProgressState{Records: r.records, Bytes: r.bytes}
	if n := len(r.retrying); n > 0 {
		seen := map[string]bool{}
		var reasons []string
		for _, why := range r.retrying {
			if !seen[why] {
				seen[why] = true
				reasons = append(reasons, why)
			}
		}
		sort.Strings(reasons)
		s.Retrying = fmt.Sprintf("retrying %d %s (%s)", n, bundle.Plural(r.kind, n), strings.Join(reasons, ", "))
	}
	r.progress(r.source, s)
}

// stop stops the source: calls in flight are cancelled and no more are
// made. The first error that stops it is the one reported.
func (r *run) stop(fe *FetchError) {
	r.mu.Lock()
	if r.stopped == nil {
		r.stopped = fe
	}
	r.mu.Unlock()
	r.stopCtx(fe)
}

// stopReason returns why the source stopped, or "" while it runs: the
// interrupt, the budget or the error that stopped it.
func (r *run) stopReason() string {
	if r.outer.Err() != nil {
		return reasonInterrupted
	}
	if r.ctx.Err() == nil {
		return ""
	}
	var be *budgetError
	if cause := context.Cause(r.ctx); errors.As(cause, &be) {
		r.stop(&FetchError{Source: r.source, Msg: be.Error(), Err: be, stops: true})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped != nil {
		return r.stopped.Msg
	}
	return context.Cause(r.ctx).Error()
}

// fail returns the reason an item failed with err: the interrupt, the
// budget or the stop when the source is stopping, else err as word words
// it, stopping the source when the error means that no further call can
// work.
func (r *run) fail(err error, word func(error) *FetchError) string {
	if why := r.stopReason(); why != "" {
		return why
	}
	fe := word(err)
	r.mu.Lock()
	_, n := Redact(fmt.Sprint(err))
	r.countRedacted(redactedErrorText, n)
	r.mu.Unlock()
	if fe.stops {
		r.stop(fe)
	}
	return fe.Msg
}

// finish closes the run and returns its report with totals, the files
// written and the one-line error, if any item that matters is not complete.
func (r *run) finish() (bundle.FetchReport, error) {
	r.release()
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := r.rep
	rep.Records, rep.Bytes, rep.Complete = 0, 0, r.stopped == nil
	seen := map[string]bool{}
	var bad []bundle.Item
	total := map[string]int{}
	reasons := map[string]bool{}
	for _, it := range rep.Items {
		if it.File != "" && it.Bytes > 0 && !seen[it.File] {
			seen[it.File] = true
			rep.Files = append(rep.Files, it.File)
		}
		rep.Records += it.Records
		total[it.Kind]++
		if it.Status != bundle.ItemComplete && !it.Optional {
			rep.Complete = false
			reasons[it.Reason] = true
		}
	}
	// An optional item counts when it failed for a reason that failed others.
	for _, it := range rep.Items {
		if it.Status != bundle.ItemComplete && reasons[it.Reason] {
			bad = append(bad, it)
		}
	}
	for _, f := range rep.Files {
		if st, err := os.Stat(filepath.Join(r.dir, filepath.FromSlash(f))); err == nil {
			rep.Bytes += st.Size()
		}
	}
	summarize := r.summarize
	if summarize == nil {
		summarize = summarizeItems
	}
	msg := summarize(bad, total)
	if msg == "" && r.stopped != nil {
		msg = r.stopped.Msg
	}
	if msg == "" {
		return rep, nil
	}
	rep.Error = msg
	fe := &FetchError{Source: r.source, Msg: msg}
	if r.stopped != nil {
		fe.Err = r.stopped.Err
	}
	if r.outer.Err() != nil {
		fe.Err = r.outer.Err()
	}
	return rep, fe
}

// summarizeItems words the items not complete as one line: the reason
// alone when every item failed for it, else per reason how many of how many
// were not saved.
func summarizeItems(bad []bundle.Item, total map[string]int) string {
	type group struct {
		reason  string
		kinds   map[string]bool
		n       int
		partial int
	}
	var groups []*group
	for _, it := range bad {
		var g *group
		for _, x := range groups {
			if x.reason == it.Reason {
				g = x
			}
		}
		if g == nil {
			g = &group{reason: it.Reason, kinds: map[string]bool{}}
			groups = append(groups, g)
		}
		g.kinds[it.Kind] = true
		g.n++
		if it.Status == bundle.ItemPartial {
			g.partial++
		}
	}
	var parts []string
	for _, g := range groups {
		of, noun := 0, "items"
		for k := range g.kinds {
			of += total[k]
			noun = bundle.Plural(k, of)
		}
		if len(g.kinds) > 1 {
			noun = "items"
		}
		if len(groups) == 1 && g.n == of {
			if g.partial == g.n {
				return "cut short: " + g.reason
			}
			if g.partial == 0 {
				return g.reason
			}
		}
		verb := "not saved"
		switch {
		case g.partial == g.n:
			verb = "cut short"
		case g.partial > 0:
			verb = fmt.Sprintf("not saved (%d cut short)", g.partial)
		}
		parts = append(parts, fmt.Sprintf("%d of %d %s %s: %s", g.n, of, noun, verb, g.reason))
	}
	return strings.Join(parts, "; ")
}

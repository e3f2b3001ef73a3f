package live

import (
	"context"
	"time"
)

// pollBackoff is how a query engine's job is polled: the first look after
// First, each wait after half as long again, up to Max.
type pollBackoff struct{ First, Max time.Duration }

// poll calls check until it reports the job done or fails, waiting as b
// says between calls. When the run's context ends first, or a failed
// check finds it ended, it calls stop (which asks the engine to stop the
// job, so that it scans and bills no more) and returns a FetchError of
// source that says the job stopped before it finished.
func poll(r *run, b pollBackoff, source, job string, check func() (done bool, err error), stop func()) error {
	delay := b.First
	for {
		select {
		case <-r.ctx.Done():
			stop()
			return fetchErrorf(source, context.Cause(r.ctx), "%s stopped before it finished: %v", job, context.Cause(r.ctx))
		case <-time.After(delay):
		}
		delay = min(delay*3/2, b.Max)
		done, err := check()
		if err != nil {
			if r.ctx.Err() != nil {
				stop()
			}
			return err
		}
		if done {
			return nil
		}
	}
}

package pipeline

import (
	"context"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Early reads an analysis's inputs while they are still being fetched:
// triage adds each object the moment its download is complete, so that
// parsing overlaps the transfer. Analyze, given it in Options.Early, takes
// what it read and reads the rest; the report is the one it gives when it
// reads every input itself.
type Early struct {
	collectors *correlate.Collectors
	read       *sources.Early
}

// NewEarly starts reading with opts' reading options; it stops when ctx
// is done. Analyze with the Early in Options must use the same options.
func NewEarly(ctx context.Context, opts Options) (*Early, error) {
	c := correlate.NewCollectors()
	r, err := sources.NewEarly(ctx, opts.Read, func(*sources.InputReport) sources.Handler { return c.New() })
	if err != nil {
		return nil, err
	}
	return &Early{collectors: c, read: r}, nil
}

// Add queues the complete file at path; it never waits for the reading.
func (e *Early) Add(path string) { e.read.Add(path) }

// Close stops the reading when no analysis will take it.
func (e *Early) Close() { e.read.Close() }

package report

import (
	"context"
	"sync"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
)

// Options are what an analysis needs besides the names of its inputs.
type Options struct {
	// Read tunes how inputs are read: the time window, the zone of zone-less
	// times, standard input.
	Read sources.Options
}

// Analyze reads every input named in paths (files, directories, "-" for
// standard input) and returns the report on them: the one way from inputs
// to a verdict, sources → correlate → classify → report, that every command
// and test uses. It fails only when no input can be read at all (see
// sources.Read); everything else is a warning in the report.
func Analyze(ctx context.Context, paths []string, opts Options) (*Report, error) {
	var mu sync.Mutex
	var collectors []*correlate.Collector
	res, err := sources.Read(ctx, paths, opts.Read, func(*sources.InputReport) sources.Handler {
		c := correlate.NewCollector()
		mu.Lock()
		collectors = append(collectors, c)
		mu.Unlock()
		return c
	})
	if err != nil {
		return nil, err
	}
	a := correlate.Analyze(correlate.Merge(collectors...), correlate.Options{})
	return newReport(res, a, classify.Classify(a)), nil
}

package report

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
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
	rep := newReport(res, a, classify.Classify(a))
	rep.Warnings = append(bundleWarnings(paths), rep.Warnings...)
	return rep, nil
}

// bundleWarnings says what the triage bundles among paths lack, from their
// manifests: objects, pages or sources that did not come back.
func bundleWarnings(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		ws, err := bundle.ManifestWarnings(p)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: unreadable bundle manifest: %v", p, err))
		}
		out = append(out, ws...)
	}
	return out
}

// Package pipeline is readygap's one way from inputs to a report: it reads
// the inputs (sources), lines them up per backend (correlate), names the
// mechanisms (classify) and builds the versioned report contract of package
// report from what they found — the incidents, the coverage and verdict,
// the lanes' states and the outcome series. Analyze serves analyze, triage
// and the tests; Check serves check. Package report draws the contract and
// imports none of these.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/readygap/readygap/classify"
	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/report"
	"github.com/readygap/readygap/sources"
	"github.com/readygap/readygap/sources/bundle"
)

// Options are what an analysis needs besides the names of its inputs.
type Options struct {
	// Read tunes how inputs are read: the time window, the zone of zone-less
	// times, standard input.
	Read sources.Options
	// KubeVersion is the cluster's Kubernetes version as given
	// (--kube-version); zero to take the one the inputs record, if any.
	KubeVersion sources.KubeVersion
	// Early, when set, has read some inputs while they were fetched
	// (NewEarly); the analysis takes what it read.
	Early *Early
}

// Analyze reads every input named in paths (files, directories, "-" for
// standard input) and returns the report on them: the one way from inputs
// to a verdict, sources → correlate → classify → report, that every command
// and test uses. It fails only when a path does not exist or the reading is
// cancelled; inputs that cannot be read are listed in the report, whose
// verdict then says it cannot judge (as it does for a triage bundle whose
// fetch never finished). When the time window leaves no record with a
// time, the report says what time range the data has, from what the one
// read saw of the records it left out.
func Analyze(ctx context.Context, paths []string, opts Options) (*report.Report, error) {
	collectors := correlate.NewCollectors()
	if opts.Early != nil {
		collectors, opts.Read.Early = opts.Early.collectors, opts.Early.read
		defer opts.Early.read.Close()
	}
	bundles, raw, err := reducedBundles(paths)
	if err != nil {
		return nil, err
	}
	res := &sources.Result{}
	if len(raw) > 0 || len(bundles) == 0 || opts.Early != nil {
		res, err = sources.Read(ctx, raw, opts.Read, func(*sources.InputReport) sources.Handler {
			return collectors.New()
		})
		if err != nil && !errors.As(err, new(*sources.NothingReadError)) {
			return nil, err
		}
	}
	notes := readBundles(bundles, opts.Read, collectors, res)
	win := readWindow(opts.Read, res)
	if win != nil && win.Empty {
		win.DataFirst, win.DataLast = dataRange(res)
	}
	kube, kubeWarnings := opts.KubeVersion, []string(nil)
	if !kube.Known() {
		kube, kubeWarnings = bundleKubeVersion(paths)
	}
	a := correlate.Analyze(collectors.Merge(), correlate.Options{KubeVersion: kube})
	rep := newReport(res, a, classify.Classify(a), win)
	rep.Warnings = append(append(bundleWarnings(paths), kubeWarnings...), rep.Warnings...)
	rep.Notes = append(notes, rep.Notes...)
	for _, p := range paths {
		if why := incompleteBundle(p); why != "" {
			cannotJudgeFirst(rep, why)
		}
	}
	return rep, nil
}

// incompleteBundle says why p is a triage bundle whose fetch never
// finished; "" when p is no directory, no bundle or a complete one.
func incompleteBundle(p string) string {
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return ""
	}
	return bundle.Incomplete(p)
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

// bundleKubeVersion is the Kubernetes version the triage bundles among
// paths recorded (their kubernetes source's server_version): zero when
// none did, or when two disagree, which a warning then says.
func bundleKubeVersion(paths []string) (sources.KubeVersion, []string) {
	var v sources.KubeVersion
	from := ""
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		m, err := bundle.ReadManifest(p)
		if err != nil {
			continue // bundleWarnings says why
		}
		for _, s := range m.Sources {
			if s.ServerVersion == "" {
				continue
			}
			got, err := sources.ParseKubeVersion(s.ServerVersion)
			if err != nil {
				return sources.KubeVersion{}, []string{fmt.Sprintf("%s: the bundle's server version %q cannot be read (%v): the fixes do not depend on it; give --kube-version", p, s.ServerVersion, err)}
			}
			if v.Known() && got != v {
				return sources.KubeVersion{}, []string{fmt.Sprintf("%s records Kubernetes %s and %s records %s: the fixes do not depend on either; give --kube-version", from, v, p, got)}
			}
			v, from = got, p
		}
	}
	return v, nil
}

// readWindow describes the window of o as applied to res; nil without one.
func readWindow(o sources.Options, res *sources.Result) *report.Window {
	if o.Since.IsZero() && o.Until.IsZero() {
		return nil
	}
	w := &report.Window{Since: utc(o.Since), Until: utc(o.Until), Empty: true}
	filtered := 0
	for _, in := range res.Inputs {
		filtered += in.Filtered
		if !in.First.IsZero() {
			w.Empty = false
		}
	}
	w.Empty = w.Empty && (filtered > 0 || res.Pruned > 0)
	return w
}

// dataRange is the earliest and latest record time of the inputs, inside
// the window or not, and of the ALB objects their names left unread; zero
// when no record has a time.
func dataRange(res *sources.Result) (first, last time.Time) {
	widen := func(from, to time.Time) {
		if from.IsZero() {
			return
		}
		if first.IsZero() || from.Before(first) {
			first = from
		}
		if to.After(last) {
			last = to
		}
	}
	for _, in := range res.Inputs {
		widen(in.First, in.Last)
		widen(in.FilteredFirst, in.FilteredLast)
	}
	widen(res.PrunedFirst, res.PrunedLast)
	return utc(first), utc(last)
}

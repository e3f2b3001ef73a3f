package pipeline

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/readygap/readygap/correlate"
	"github.com/readygap/readygap/reduced"
	"github.com/readygap/readygap/sources"
)

// reducedBundles splits paths into the reduced bundles they name or hold
// (files named *.reduced.json, given or found in a folder given) and the
// paths read raw: every path but a bundle given as a file.
func reducedBundles(paths []string) (bundles, raw []string, err error) {
	for _, p := range paths {
		if p == "-" {
			raw = append(raw, p)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if !st.IsDir() {
			if reduced.IsBundleName(p) {
				bundles = append(bundles, p)
			} else {
				raw = append(raw, p)
			}
			continue
		}
		raw = append(raw, p)
		// Errors are the raw reading's to report: it walks the same folder.
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if path != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && reduced.IsBundleName(d.Name()) {
				bundles = append(bundles, path)
			}
			return nil
		})
	}
	return bundles, raw, nil
}

// readBundles hands the rows of each reduced bundle to a Collector of cs
// and lists the bundle's inputs in res; a bundle that cannot be read is
// listed as unread. It returns the notes saying where each bundle's
// reduction ran and what it cost.
func readBundles(names []string, o sources.Options, cs *correlate.Collectors, res *sources.Result) []string {
	var notes []string
	for _, name := range names {
		b, err := reduced.ReadFile(name)
		if err != nil {
			w := fmt.Sprintf("%s: unreadable reduced bundle: %v", name, err)
			res.Unread = append(res.Unread, sources.Unread{Name: name, Reason: err.Error(), Err: err, Warning: w})
			res.Warnings = append(res.Warnings, w)
			continue
		}
		for _, in := range res.Inputs {
			if in.Kinds[sources.KindRequestLog].Records > 0 && b.HasFormat(string(in.Format)) {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s: read beside raw %s logs (%s): if it was reduced from the same logs, their requests count twice", name, in.Format, in.Name))
				break
			}
		}
		b.Feed(cs.New())
		res.Inputs = append(res.Inputs, b.InputReports(name)...)
		notes = append(notes, b.Describe(name))
		if !o.Since.IsZero() || !o.Until.IsZero() {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: a reduced bundle keeps the window it was reduced over (%s); --since and --until do not cut it again", name, b.Window))
		}
	}
	return notes
}

package sources

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
	"sigs.k8s.io/yaml"
)

const (
	// readBufferSize is the read buffer of one input; a line may be this long.
	readBufferSize = 1 << 20
	// headSize is how much of an input detection looks at.
	headSize = 256 << 10
	// stdinName names standard input in reports.
	stdinName = "<stdin>"
)

// Result is what Read reports about a run.
type Result struct {
	// Inputs lists every input read, in the order given, directories expanded
	// in lexical order.
	Inputs []*InputReport
	// Warnings lists problems worth a human's attention: inputs in no known
	// format, truncated gzip streams, the first skipped lines of each input.
	Warnings []string
	// Pruned counts ALB log objects skipped because the end time in their
	// name lies outside the time window.
	Pruned int
}

// Read reads every input named in paths (files, directories walked
// recursively, "-" for standard input) and reports each input's records to
// the Handler newHandler returns for it. Inputs are read in parallel; one
// Handler is only ever called from one goroutine. An input in no known format
// is a warning, not an error; Read fails only when a path cannot be found or
// when no input at all is in a known format.
func Read(ctx context.Context, paths []string, opts Options, newHandler func(*InputReport) Handler) (*Result, error) {
	files, err := expand(paths)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	files = pruneALBObjects(files, &opts, res)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	reports := make([]*InputReport, len(files))
	errs := make([]error, len(files))
	dedup := newDedupSet()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				reports[i], errs[i] = readInput(ctx, files[i], &opts, dedup, newHandler)
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	known, unknown := 0, 0
	for i, rep := range reports {
		if errs[i] != nil {
			if errors.As(errs[i], new(errUnknownFormat)) {
				unknown++
			}
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", files[i], errs[i]))
			continue
		}
		known++
		res.Inputs = append(res.Inputs, rep)
		res.Warnings = append(res.Warnings, rep.allWarnings()...)
	}
	switch {
	case len(files) == 0:
		return res, errors.New("no input files found")
	case known == 0 && len(files) == 1:
		return res, fmt.Errorf("%s: %w; %s", files[0], errs[0], formatsHelp())
	case known == 0:
		return res, fmt.Errorf("none of the %d inputs is in a format readygap reads; %s", len(files), formatsHelp())
	case unknown > 0:
		res.Warnings = append(res.Warnings, formatsHelp())
	}
	return res, nil
}

// allWarnings returns the input's warnings and skip samples, each naming the input.
func (r *InputReport) allWarnings() []string {
	var out []string
	for _, w := range r.Warnings {
		out = append(out, r.Name+": "+w)
	}
	out = append(out, r.skipSamples...)
	if more := r.Skipped - len(r.skipSamples); more > 0 {
		out = append(out, fmt.Sprintf("%s: %d more lines skipped", r.Name, more))
	}
	return out
}

// expand turns paths into the list of files to read.
func expand(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		if p == "-" {
			files = append(files, "-")
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if path != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, nil
}

// pruneALBObjects drops ALB log objects whose interval, read from their S3
// name, lies outside the time window.
func pruneALBObjects(files []string, opts *Options, res *Result) []string {
	if opts.Since.IsZero() && opts.Until.IsZero() {
		return files
	}
	kept := files[:0:0]
	for _, f := range files {
		if !albObjectMayOverlap(f, opts.Since, opts.Until) {
			res.Pruned++
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// readInput reads one input from start to end.
func readInput(ctx context.Context, name string, opts *Options, dedup *dedupSet, newHandler func(*InputReport) Handler) (*InputReport, error) {
	var r io.Reader
	display := name
	if name == "-" {
		display = stdinName
		r = opts.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, readBufferSize)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := kgzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("unreadable gzip: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(zr, readBufferSize)
	}
	head, herr := br.Peek(headSize)
	complete := herr != nil
	if herr != nil && herr != io.EOF && herr != bufio.ErrBufferFull && len(head) == 0 {
		return nil, fmt.Errorf("unreadable: %w", herr)
	}
	p, err := detect(head, complete)
	if err != nil {
		return nil, err
	}
	rep := &InputReport{Name: display, Format: p.format}
	counter := &formatCounter{Handler: newHandler(rep)}
	em := newEmitter(counter, opts, rep, dedup)
	in := &inputReader{ctx: ctx, name: display, br: br, em: em}
	switch p.layout {
	case layoutLines:
		err = in.lines(p.line)
	case layoutJSON:
		err = in.json(br, 0)
	case layoutYAML:
		err = in.yaml()
	case layoutCloudWatch:
		err = in.cloudWatch(p.line)
	}
	if err != nil && ctx.Err() == nil {
		rep.Warnings = append(rep.Warnings, readWarning(err))
	}
	if f := counter.dominant(); f != "" {
		rep.Format = f
	}
	return rep, ctx.Err()
}

// readWarning words a read error that ended an input early.
func readWarning(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, kgzip.ErrChecksum) || errors.Is(err, kgzip.ErrHeader) {
		return fmt.Sprintf("truncated or corrupt gzip (%v): the records before the damage were read", err)
	}
	return fmt.Sprintf("read stopped early: %v", err)
}

// inputReader cuts one input into lines or elements for its adapters.
type inputReader struct {
	ctx  context.Context
	name string
	br   *bufio.Reader
	em   *Emitter
}

// lines hands every line, unwrapped, to a.
func (in *inputReader) lines(a lineAdapter) error {
	var scratch []byte
	lineNo := 0
	for {
		line, err := in.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			lineNo++
			in.em.Skip(Origin{in.name, lineNo}, fmt.Sprintf("line longer than %d MiB", readBufferSize>>20))
			if err = in.discardLine(); err != nil {
				return endOfInput(err)
			}
			continue
		}
		if len(line) > 0 {
			lineNo++
			if lineNo&4095 == 0 && in.ctx.Err() != nil {
				return in.ctx.Err()
			}
			scratch = in.parseLine(a, line, Origin{in.name, lineNo}, time.Time{}, scratch)
		}
		if err != nil {
			return endOfInput(err)
		}
	}
}

// parseLine unwraps one raw line and hands it to a.
func (in *inputReader) parseLine(a lineAdapter, raw []byte, o Origin, stamp time.Time, scratch []byte) []byte {
	raw = bytes.TrimRight(raw, "\r\n")
	if len(bytes.TrimSpace(raw)) == 0 {
		return scratch
	}
	inner, innerStamp, scratch := unwrapLine(raw, scratch)
	if len(bytes.TrimSpace(inner)) == 0 {
		return scratch
	}
	if !innerStamp.IsZero() {
		stamp = innerStamp
	}
	ln := Line{Origin: o, Stamp: stamp}
	if err := a.Parse(inner, &ln, in.em); err != nil {
		in.em.Skip(o, err.Error())
	}
	return scratch
}

// discardLine drops the rest of an over-long line.
func (in *inputReader) discardLine() error {
	for {
		_, err := in.br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

// endOfInput turns the error that ended a read into nil at a clean end.
func endOfInput(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// json hands every JSON element of r to the adapter that matches it. Elements
// are reported at their own line plus lineOffset.
func (in *inputReader) json(r io.Reader, lineOffset int) error {
	s := newJSONSplitter(r, 256<<10)
	var last jsonAdapter
	for n := 0; ; n++ {
		elem, line, err := s.Next()
		if err == io.EOF {
			return s.ReadErr()
		}
		o := Origin{in.name, line + lineOffset}
		if n&1023 == 0 && in.ctx.Err() != nil {
			return in.ctx.Err()
		}
		if err != nil {
			if s.ReadErr() != nil {
				return s.ReadErr()
			}
			in.em.Skip(o, err.Error())
			continue
		}
		if last == nil || !last.MatchJSON(elem) {
			last = jsonAdapterFor(elem)
		}
		if last == nil {
			in.em.Skip(o, "JSON element in no known format")
			continue
		}
		if err := last.ParseJSON(elem, o, in.em); err != nil {
			in.em.Skip(o, err.Error())
		}
	}
}

// yaml converts each YAML document to JSON and reads its elements. Elements
// are reported at the line their document starts on.
func (in *inputReader) yaml() error {
	var doc bytes.Buffer
	lineNo, docStart := 0, 1
	flush := func() error {
		if len(bytes.TrimSpace(doc.Bytes())) == 0 {
			doc.Reset()
			return nil
		}
		js, err := yaml.YAMLToJSON(doc.Bytes())
		doc.Reset()
		if err != nil {
			in.em.Skip(Origin{in.name, docStart}, "YAML: "+err.Error())
			return nil
		}
		if string(js) == "null" { // a document of comments only
			return nil
		}
		return in.json(bytes.NewReader(js), docStart-1)
	}
	for {
		line, err := in.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line = append(bytes.Clone(line), mustReadLine(in.br)...)
			err = nil
		}
		if len(line) > 0 {
			lineNo++
			if bytes.HasPrefix(line, []byte("---")) && len(bytes.TrimSpace(line[3:])) == 0 {
				if ferr := flush(); ferr != nil {
					return ferr
				}
				docStart = lineNo + 1
			} else if doc.Len()+len(line) > maxElementBytes {
				in.em.Skip(Origin{in.name, docStart}, fmt.Sprintf("YAML document larger than %d MiB", maxElementBytes>>20))
				doc.Reset()
			} else {
				doc.Write(line)
			}
		}
		if err != nil {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			return endOfInput(err)
		}
	}
}

// mustReadLine returns the rest of a line longer than the read buffer.
func mustReadLine(br *bufio.Reader) []byte {
	var rest []byte
	for {
		part, err := br.ReadSlice('\n')
		rest = append(rest, part...)
		if err != bufio.ErrBufferFull {
			return rest
		}
	}
}

// cloudWatch reads the events of a CloudWatch Logs export as lines for a.
func (in *inputReader) cloudWatch(a lineAdapter) error {
	s := newJSONSplitter(in.br, 256<<10)
	var scratch []byte
	for {
		elem, line, err := s.Next()
		if err == io.EOF {
			return s.ReadErr()
		}
		o := Origin{in.name, line}
		if err != nil {
			if s.ReadErr() != nil {
				return s.ReadErr()
			}
			in.em.Skip(o, err.Error())
			continue
		}
		msg, stamp, err := cloudWatchEvent(elem)
		if err != nil {
			in.em.Skip(o, err.Error())
			continue
		}
		// One event may hold several lines (a multi-line record, a batch).
		for len(msg) > 0 {
			line := msg
			if i := bytes.IndexByte(msg, '\n'); i >= 0 {
				line, msg = msg[:i], msg[i+1:]
			} else {
				msg = nil
			}
			scratch = in.parseLine(a, line, o, stamp, scratch)
		}
	}
}

// formatCounter forwards records and counts them by format, so that an input
// mixing formats (a List of events and pods) reports the one it holds most of.
type formatCounter struct {
	Handler
	counts map[Format]int
}

func (c *formatCounter) count(f Format) {
	if c.counts == nil {
		c.counts = make(map[Format]int)
	}
	c.counts[f]++
}

func (c *formatCounter) Request(r *Request)     { c.count(r.Format); c.Handler.Request(r) }
func (c *formatCounter) Lifecycle(l *Lifecycle) { c.count(l.Format); c.Handler.Lifecycle(l) }
func (c *formatCounter) Config(x *Config)       { c.count(x.Format); c.Handler.Config(x) }

// dominant returns the format with the most records, or "" when there were none.
func (c *formatCounter) dominant() Format {
	var best Format
	for f, n := range c.counts {
		if f != "" && (best == "" || n > c.counts[best] || (n == c.counts[best] && f < best)) {
			best = f
		}
	}
	return best
}

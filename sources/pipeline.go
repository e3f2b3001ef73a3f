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
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/readygap/readygap/internal/safego"
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
	// name lies outside the time window; PrunedFirst and PrunedLast bound
	// the logging intervals their names give.
	Pruned                  int
	PrunedFirst, PrunedLast time.Time
	// Unread lists the inputs found that gave nothing, each with the reason
	// (also among Warnings), in the order given.
	Unread []Unread
}

// NothingReadError is the error of Read when no input could be read: none
// was found, or each one found is unreadable or in no known format. The
// Result returned with it lists them in Unread, so that a caller can still
// say what it could not judge.
type NothingReadError struct{ Err error }

// Error implements error.
func (e *NothingReadError) Error() string { return e.Err.Error() }

// Unwrap returns the error that says why.
func (e *NothingReadError) Unwrap() error { return e.Err }

// FormatsHelp is the warning Read adds when an input is in no known
// format: the formats readygap reads.
func FormatsHelp() string { return formatsHelp() }

// IsUnknownFormat reports whether err says that an input is in no format
// readygap reads (rather than unreadable: a failed read, bad UTF-16).
func IsUnknownFormat(err error) bool { return errors.As(err, new(errUnknownFormat)) }

// IsNotText reports whether err says that an input is not text: in no
// known format (IsUnknownFormat holds too), and holding NUL bytes.
func IsNotText(err error) bool { return errors.As(err, new(errNotText)) }

// errNotText is returned for an input in no known format that holds NUL
// bytes: UTF-16 or UTF-32 without a byte-order mark, or a binary file. It
// is an errUnknownFormat too.
type errNotText struct{}

func (errNotText) Error() string {
	return errUnknownFormat{}.Error() + ": not UTF-8 text (NUL bytes: UTF-16 or UTF-32 without a byte-order mark, or a binary file)"
}

func (errNotText) Unwrap() error { return errUnknownFormat{} }

// Read reads every input named in paths (files, directories walked
// recursively, "-" for standard input) and reports its records to Handlers.
// Inputs are read in parallel, and each input is parsed by several workers,
// each reporting to a Handler of its own. Handlers are reused: when an input
// is done, its workers' Handlers serve the next inputs, and newHandler is
// called (with the report of the input that needs it) only when none is
// free, so there are at most as many Handlers as workers at once, whatever
// the number of inputs. A Handler is never called from two goroutines at
// once. Records therefore arrive in no particular order. An input in no known format
// is a warning, not an error; Read fails only when a path cannot be found or
// when no input at all is in a known format.
func Read(ctx context.Context, paths []string, opts Options, newHandler func(*InputReport) Handler) (*Result, error) {
	early := opts.Early
	if early != nil {
		early.Close()
		opts = early.opts
	}
	if err := opts.prepare(); err != nil {
		return nil, err
	}
	if opts.ReadAt.IsZero() {
		// One time of reading for every input and worker: order-only
		// records count from it.
		opts.ReadAt = time.Now()
	}
	files, walkWarnings, err := expand(paths)
	if err != nil {
		return nil, err
	}
	res := &Result{Warnings: walkWarnings}
	files = pruneALBObjects(files, &opts, res)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	reports := make([]*InputReport, len(files))
	errs := make([]error, len(files))
	dedup := newDedupSet()
	specs := newSpecTable()
	if early != nil {
		dedup, specs = early.dedup, early.specs
		for i, f := range files {
			if r, ok := early.take(f); ok {
				reports[i], errs[i] = r.rep, r.err
			}
		}
		// What Early read that paths do not name reached the Handlers all
		// the same: it is listed after the rest, never lost.
		for _, f := range early.rest() {
			r, _ := early.take(f)
			files, reports, errs = append(files, f), append(reports, r.rep), append(errs, r.err)
		}
	}
	handlers := &handlerPool{new: newHandler}
	jobs := make(chan int)
	// A worker's panic is carried to this goroutine by Wait; the worker
	// drains the jobs first, so that this loop never waits for ever.
	var g safego.Group
	for w := 0; w < workers; w++ {
		g.Go(func() {
			defer drain(jobs)
			for i := range jobs {
				if reports[i] != nil || errs[i] != nil {
					continue // read early
				}
				reports[i], errs[i] = readInput(ctx, files[i], &opts, dedup, specs, handlers, len(files)-i > workers)
			}
		})
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	g.Wait()
	// The blocks kept for the next inputs are not needed any more: what
	// comes after reading (the analysis) may use their memory.
	batches.drain()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	known, unknown := 0, 0
	for i, rep := range reports {
		if errs[i] != nil {
			if errors.As(errs[i], new(errUnknownFormat)) {
				unknown++
			}
			w := fmt.Sprintf("%s: %v", displayName(files[i]), errs[i])
			res.Warnings = append(res.Warnings, w)
			res.Unread = append(res.Unread, Unread{Name: displayName(files[i]), Reason: errs[i].Error(), Empty: errors.Is(errs[i], errEmpty), Err: errs[i], Warning: w})
			continue
		}
		known++
		res.Inputs = append(res.Inputs, rep)
		res.Warnings = append(res.Warnings, rep.allWarnings()...)
	}
	if unknown > 0 {
		res.Warnings = append(res.Warnings, formatsHelp())
	}
	switch {
	case len(files) == 0:
		return res, &NothingReadError{errors.New("no input files found")}
	case known == 0 && len(files) == 1:
		return res, &NothingReadError{fmt.Errorf("%s: %w; %s", displayName(files[0]), errs[0], formatsHelp())}
	case known == 0:
		return res, &NothingReadError{fmt.Errorf("none of the %d inputs is in a format readygap reads; %s", len(files), formatsHelp())}
	}
	return res, nil
}

// displayName names an input in reports: its path, or <stdin> for "-".
func displayName(name string) string {
	if name == "-" {
		return stdinName
	}
	return name
}

// allWarnings returns the input's warnings and skip samples, each naming the input.
func (r *InputReport) allWarnings() []string {
	var out []string
	for _, w := range r.Warnings {
		out = append(out, r.Name+": "+w)
	}
	out = append(out, r.SkipSamples()...)
	if more := r.Skipped - len(r.skipSamples); more > 0 {
		out = append(out, fmt.Sprintf("%s: %d more lines skipped", r.Name, more))
	}
	return out
}

// expand turns paths into the list of files to read. Directories are walked
// recursively, following symbolic links to files and directories (a link
// back into a directory being walked is a loop and is skipped); entries whose
// name starts with a dot are skipped, and so, with a warning, are named
// pipes, devices and sockets inside them. A file or directory reached twice —
// named twice, named with its folder, or through two links — is read once,
// with a warning: read twice, its lines would count twice. A directory or
// link that cannot be read is a warning, not an error: the rest is read; so
// is a named pipe, device or socket found in a directory, which is
// skipped (named alone, as `<(cmd)` names a pipe, it is read). Only a
// named path that does not exist fails.
func expand(paths []string) (files, warnings []string, err error) {
	w := &walker{readDir: readDir, seen: map[fileID]string{}}
	for _, p := range paths {
		if p == "-" {
			w.files = append(w.files, "-")
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, w.warnings, err
		}
		if !st.IsDir() {
			if IsReducedBundle(p) {
				continue
			}
			if w.first(p, st) {
				w.files = append(w.files, p)
			}
			continue
		}
		from := len(w.files)
		if w.first(p, st) {
			w.dir(p, st, nil)
		}
		sort.Strings(w.files[from:])
	}
	return w.files, w.warnings, nil
}

// ReducedSuffix ends the name of a reduced request-stream bundle (see
// package reduced): Read leaves such files, given or found in a folder,
// to the reader of bundles.
const ReducedSuffix = ".reduced.json"

// IsReducedBundle reports whether the file name is a reduced bundle's.
func IsReducedBundle(name string) bool { return strings.HasSuffix(name, ReducedSuffix) }

// slowJSON, set by tests, reads every JSON input through jsonSplitter, to
// compare the layouts cut by lines with it.
var slowJSON bool

// readDir lists a directory; see walker.
var readDir = os.ReadDir

// walker collects the files under a directory.
type walker struct {
	files, warnings []string
	// readDir is os.ReadDir; tests replace it to make a directory unreadable
	// (the tests run as root, whom permissions do not stop).
	readDir func(string) ([]fs.DirEntry, error)
	// seen holds the path each file and directory was first reached by.
	seen map[fileID]string
}

// first reports whether path, whose FileInfo (links followed) is st, is
// reached for the first time; if not, it warns that it is read once.
func (w *walker) first(path string, st fs.FileInfo) bool {
	id, ok := idOf(st)
	if !ok {
		return true
	}
	prev, dup := w.seen[id]
	if !dup {
		w.seen[id] = path
		return true
	}
	what := "file"
	if st.IsDir() {
		what = "folder"
	}
	if prev == path {
		w.warnings = append(w.warnings, fmt.Sprintf("%s: reached twice, read once", path))
	} else {
		w.warnings = append(w.warnings, fmt.Sprintf("%s: the same %s as %s, read once", path, what, prev))
	}
	return false
}

// dir walks the directory path, whose own FileInfo is st; parents are the
// directories being walked above it, to tell a symbolic-link loop.
func (w *walker) dir(path string, st fs.FileInfo, parents []fs.FileInfo) {
	parents = append(parents, st)
	entries, err := w.readDir(path)
	if err != nil {
		w.warnings = append(w.warnings, fmt.Sprintf("%s: unreadable directory, skipped: %v", path, unwrapPathError(err)))
		// ReadDir returns the entries it read before the error.
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || IsReducedBundle(e.Name()) {
			continue
		}
		child := filepath.Join(path, e.Name())
		mode := e.Type()
		var info fs.FileInfo
		if mode&fs.ModeSymlink != 0 || mode.IsDir() {
			// Stat follows links; a dangling link is worth a warning.
			info, err = os.Stat(child)
		} else {
			info, err = e.Info()
		}
		if err != nil {
			w.warnings = append(w.warnings, fmt.Sprintf("%s: unreadable, skipped: %v", child, unwrapPathError(err)))
			continue
		}
		switch mode = info.Mode(); {
		case mode.IsDir() && slices.ContainsFunc(parents, func(p fs.FileInfo) bool { return os.SameFile(p, info) }):
			w.warnings = append(w.warnings, fmt.Sprintf("%s: symbolic link loop, skipped", child))
		case mode.IsDir():
			if w.first(child, info) {
				w.dir(child, info, parents)
			}
		case mode.IsRegular():
			if w.first(child, info) {
				w.files = append(w.files, child)
			}
		default:
			// Reading a named pipe found in a folder could wait for ever
			// for a writer; a device or socket is no file of records.
			w.warnings = append(w.warnings, fmt.Sprintf("%s: %s, not a regular file: skipped (name it alone to read it)", child, irregularKind(mode)))
		}
	}
}

// irregularKind names what a directory entry that is neither a file nor a
// directory is.
func irregularKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	}
	return "an irregular file"
}

// unwrapPathError drops the path an fs.PathError repeats.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pruneALBObjects drops ALB log objects whose interval, read from their S3
// name, lies outside the time window.
func pruneALBObjects(files []string, opts *Options, res *Result) []string {
	if opts.Since.IsZero() && opts.Until.IsZero() {
		return files
	}
	kept := files[:0:0]
	for _, f := range files {
		if !ALBObjectMayOverlap(f, opts.Since, opts.Until) {
			res.Pruned++
			if end, ok := ALBObjectEnd(f); ok {
				res.PrunedFirst, res.PrunedLast = widen(res.PrunedFirst, res.PrunedLast, end.Add(-ALBLogInterval), end)
			}
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// readInput reads one input from start to end.
func readInput(ctx context.Context, name string, opts *Options, dedup *dedupSet, specs *specTable, handlers *handlerPool, serial bool) (*InputReport, error) {
	var r io.Reader
	display := displayName(name)
	if name == "-" {
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
	raw := getRawReader(r)
	defer rawPool.Put(raw)
	var br *bufio.Reader
	var inflated io.Reader
	if magic, _ := raw.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, _ := gzipPool.Get().(*kgzip.Reader)
		var err error
		if zr == nil {
			zr, err = kgzip.NewReader(raw)
		} else {
			err = zr.Reset(raw)
		}
		if err != nil {
			return nil, fmt.Errorf("unreadable gzip: %w", err)
		}
		defer gzipPool.Put(zr)
		br, inflated = getReader(zr), zr
	} else {
		br = getReader(raw)
	}
	defer readerPool.Put(br)
	if bom, _ := br.Peek(4); utf16BOM(bom) != nil {
		br, inflated = getReader(newUTF16Reader(br, utf16BOM(bom))), nil
		defer readerPool.Put(br)
	}
	head, herr := br.Peek(headSize)
	if errors.As(herr, new(utf16Error)) {
		return nil, fmt.Errorf("unreadable: %w", herr)
	}
	if herr != nil && herr != io.EOF && herr != bufio.ErrBufferFull && len(head) == 0 {
		return nil, fmt.Errorf("unreadable: %w", herr)
	}
	if crOnly(head) {
		br, inflated = getReader(&crReader{r: br}), nil
		defer readerPool.Put(br)
		head, herr = br.Peek(headSize)
	}
	complete := herr != nil
	p, err := detect(head, complete, opts.lineAdapterSet())
	if err != nil {
		if bytes.IndexByte(head, 0) >= 0 {
			return nil, errNotText{}
		}
		return nil, err
	}
	if slowJSON && (p.layout == layoutPrettyArray || p.layout == layoutNDJSON) {
		p.layout = layoutJSON
	}
	rep := &InputReport{Name: display, Format: p.format}
	in := &inputReader{ctx: ctx, name: display, br: br, inflated: inflated, opts: opts, dedup: dedup, specs: specs, rep: rep, handlers: handlers, serial: serial, env: p.env}
	if z, ok := p.line.(zoneLearner); ok && p.layout == layoutLines {
		var warning string
		if in.zone, in.dated, warning = learnZone(z, unwrapSample(textSample(head, complete), p.env), opts.location()); warning != "" {
			rep.Warnings = append(rep.Warnings, warning)
		}
	}
	switch p.layout {
	case layoutLines:
		err = in.parallel(in.produceLines, in.lineConsumer(p.line))
	case layoutJSON:
		err = in.parallel(in.produceJSON, in.consumeJSON)
	case layoutPrettyArray:
		err = in.parallel(in.producePrettyArray, in.consumePrettyArray)
	case layoutNDJSON:
		err = in.parallel(in.produceNDJSON, in.consumeNDJSON)
	case layoutYAML:
		err = in.parallel(in.produceYAML, in.consumeYAML)
	case layoutCloudWatch:
		err = in.parallel(in.produceJSON, in.cloudWatchConsumer(p.line))
	case layoutJoinedJSON:
		err = in.parallel(in.produceJoinedJSON, in.joinedJSONConsumer(p.line))
	case layoutTable:
		err = in.readTable(p.table)
	}
	in.merge()
	for _, p := range in.parts {
		if f, ok := p.counter.Handler.(Flusher); ok {
			f.Flush()
		}
		handlers.put(p.counter.Handler)
	}
	if err != nil && ctx.Err() == nil {
		rep.Incomplete = readWarning(err)
		rep.Warnings = append(rep.Warnings, rep.Incomplete)
	}
	return rep, ctx.Err()
}

// readerPool, rawPool and gzipPool recycle the read buffers (1 MiB and
// rawReaderSize) and gzip readers of finished inputs, so that many small
// inputs cost no more than a few large ones.
var (
	readerPool sync.Pool
	rawPool    sync.Pool
	gzipPool   sync.Pool
)

// rawReaderSize is the buffer an input's bytes are first read through: the
// decompressor of a gzip'd input reads from it a little at a time, and a
// plain input is read through a second, large reader, which reads past it
// once it is empty. Only the decompressed text needs 1 MiB.
const rawReaderSize = 64 << 10

// getRawReader returns a pooled reader of rawReaderSize reading r.
func getRawReader(r io.Reader) *bufio.Reader {
	if br, ok := rawPool.Get().(*bufio.Reader); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, rawReaderSize)
}

// getReader returns a pooled reader of readBufferSize reading r.
func getReader(r io.Reader) *bufio.Reader {
	if br, ok := readerPool.Get().(*bufio.Reader); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, readBufferSize)
}

// crOnly reports whether head, the start of an input, breaks its lines with
// carriage returns alone (classic Mac OS, some Windows tools' exports): it
// holds a CR and no LF.
func crOnly(head []byte) bool {
	return bytes.IndexByte(head, '\n') < 0 && bytes.IndexByte(head, '\r') >= 0
}

// crReader turns every carriage return into a line feed, to read an input
// whose lines end with CR alone.
type crReader struct{ r io.Reader }

func (c *crReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\r')
		if j < 0 {
			break
		}
		p[i+j] = '\n'
		i += j + 1
	}
	return n, err
}

// readWarning words a read error that ended an input early.
func readWarning(err error) string {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, kgzip.ErrChecksum) || errors.Is(err, kgzip.ErrHeader) {
		return fmt.Sprintf("truncated or corrupt gzip (%v): the records before the damage were read", err)
	}
	return fmt.Sprintf("read stopped early: %v", err)
}

// batchBytes is the size one batch of lines or elements grows to before it
// is handed to a parsing worker.
const batchBytes = 1 << 20

// batch is a run of consecutive lines or JSON elements of one input, copied
// out of the read buffer so that a worker can parse it while the next one is read.
type batch struct {
	buf   []byte
	items []batchItem
	// firstLine is the number of the first line in buf, for blocks of lines.
	firstLine int
}

// batchItem is one line or element of a batch.
type batchItem struct {
	start, end int
	line       int
	// skip, when set, is the reason the reader already rejected the item.
	skip string
	// yaml tells how a YAML chunk is to be read.
	yaml yamlChunkKind
}

func (b *batch) add(data []byte, line int) {
	b.items = append(b.items, batchItem{start: len(b.buf), end: len(b.buf) + len(data), line: line})
	b.buf = append(b.buf, data...)
}

func (b *batch) addSkip(line int, reason string) {
	b.items = append(b.items, batchItem{line: line, skip: reason})
}

// batchCap is the capacity a batch's buffer is made with: a block and room
// for a line or element that does not end in it.
const batchCap = batchBytes + 64<<10

// batches keeps the batches of finished work for the next ones. Unlike a
// sync.Pool it survives garbage collections, which handed every batch's
// megabyte back to the runtime to be faulted in again by the next read: a
// third of the time of a plain-text input went to that.
var batches = batchList{free: make(chan *batch, runtime.GOMAXPROCS(0)*(2*runtime.GOMAXPROCS(0)+1))}

// batchList is a bounded free list of batches; its size is how many batches
// are in flight at once (each input reader has one, its channel as many as
// workers, each worker one; as many inputs as workers are read at once).
type batchList struct{ free chan *batch }

func (l *batchList) get() *batch {
	select {
	case b := <-l.free:
		return b
	default:
		return &batch{buf: make([]byte, 0, batchCap)}
	}
}

// drain lets go of every batch the list keeps.
func (l *batchList) drain() {
	for {
		select {
		case <-l.free:
		default:
			return
		}
	}
}

func (l *batchList) put(b *batch) {
	if cap(b.buf) > 2*batchCap { // grown for a rare big YAML chunk
		return
	}
	b.buf, b.items, b.firstLine = b.buf[:0], b.items[:0], 0
	select {
	case l.free <- b:
	default:
	}
}

// part is one parsing worker's share of an input: its own Handler, Emitter
// and statistics, merged into the input's report at the end.
type part struct {
	em      *Emitter
	rep     InputReport
	counter *formatCounter
	scratch []byte
	// line is the Line handed to the adapter, reused from line to line.
	line Line
	// env is the envelope around each line of the input (see envelopes.go),
	// nil when the lines come bare; envScratch is its scratch.
	env        lineEnvelope
	envScratch []byte
	// repairs counts the damages the pasted envelope undid; joined
	// counts the JSON objects read as lines (layoutJoinedJSON).
	repairs repairCounts
	joined  int
	// yamlJSON is the buffer YAML chunks are converted into.
	yamlJSON []byte
	// duplicateKeys counts the duplicate YAML keys warned of, up to
	// the emitter's bound on warnings.
	duplicateKeys int
	// jsonKeys scans the Kubernetes objects of JSON inputs, and
	// jsonIssues counts what it found, warned of up to the emitter's
	// bound (see parseJSONElement).
	jsonKeys   jsonKeyScanner
	jsonIssues int
}

// inputReader cuts one input into batches of lines or elements and parses
// them on several workers.
type inputReader struct {
	ctx  context.Context
	name string
	br   *bufio.Reader
	// inflated, for a gzip'd input, is the decompressor br reads from (see
	// read).
	inflated io.Reader
	opts     *Options
	dedup    *dedupSet
	specs    *specTable
	rep      *InputReport
	handlers *handlerPool
	parts    []*part
	// env is the envelope detection found around the input's lines.
	env lineEnvelope
	// zone is the zone learned from the input's zoned times, if any, and
	// dated the time it was learned from (see Emitter).
	zone  *time.Location
	dated time.Time
	// serial parses the input on the goroutine that reads it: set while more
	// inputs wait than there are workers, which keep every core busy.
	serial bool
}

func (in *inputReader) newPart() *part {
	p := &part{rep: InputReport{Name: in.name, Format: in.rep.Format}, env: in.env}
	p.counter = &formatCounter{Handler: in.handlers.get(in.rep)}
	p.em = newEmitter(p.counter, in.opts, &p.rep, in.dedup)
	p.em.zone, p.em.dated = in.zone, in.dated
	p.em.specs = in.specs
	in.parts = append(in.parts, p)
	return p
}

// parallel runs produce, which hands batches to send, and parses the batches
// on as many workers as there are cores. It returns the producer's error.
func (in *inputReader) parallel(produce func(send func(*batch)) error, consume func(*part, *batch)) error {
	if in.serial {
		p := in.newPart()
		return produce(func(b *batch) {
			consume(p, b)
			batches.put(b)
		})
	}
	workers := runtime.GOMAXPROCS(0)
	ch := make(chan *batch, workers)
	var g safego.Group // see Read
	for w := 0; w < workers; w++ {
		p := in.newPart()
		g.Go(func() {
			defer drain(ch)
			for b := range ch {
				consume(p, b)
				batches.put(b)
			}
		})
	}
	err := produce(func(b *batch) { ch <- b })
	close(ch)
	g.Wait()
	return err
}

// drain receives what is left on ch until it is closed: a worker that
// panicked leaves the rest of its work undone, but never its feeder waiting.
func drain[T any](ch <-chan T) {
	for range ch {
	}
}

// merge adds the workers' statistics into the input's report.
func (in *inputReader) merge() {
	var skips []skipSample
	for _, p := range in.parts {
		r := &p.rep
		in.rep.Records += r.Records
		in.rep.Skipped += r.Skipped
		in.rep.Filtered += r.Filtered
		in.rep.Duplicates += r.Duplicates
		in.rep.Passed += r.Passed
		in.rep.OrderOnly += r.OrderOnly
		for k := range r.Kinds {
			in.rep.Kinds[k].merge(r.Kinds[k])
		}
		in.rep.First, in.rep.Last = widen(in.rep.First, in.rep.Last, r.First, r.Last)
		in.rep.FilteredFirst, in.rep.FilteredLast = widen(in.rep.FilteredFirst, in.rep.FilteredLast, r.FilteredFirst, r.FilteredLast)
		in.rep.Warnings = append(in.rep.Warnings, r.Warnings...)
		skips = append(skips, r.skipSamples...)
	}
	var repairs repairCounts
	for _, p := range in.parts {
		for i, n := range p.repairs {
			repairs[i] += n
		}
	}
	if w := repairs.warning(); w != "" {
		in.rep.Warnings = append(in.rep.Warnings, w)
	}
	joined := 0
	for _, p := range in.parts {
		joined += p.joined
	}
	if joined > 0 {
		in.rep.Warnings = append(in.rep.Warnings, fmt.Sprintf("JSON access lines pretty-printed or wrapped over several lines (pasted from a viewer, jq or a terminal) were made one line each before reading: %d", joined))
	}
	sort.SliceStable(skips, func(i, j int) bool { return skips[i].origin.Line < skips[j].origin.Line })
	if max := in.parts[0].em.maxWarnings(); len(skips) > max {
		skips = skips[:max]
	}
	in.rep.skipSamples = skips
	counts := map[Format]int{}
	for _, p := range in.parts {
		p.counter.flush()
		for f, n := range p.counter.counts {
			counts[f] += n
		}
	}
	if f := dominant(counts); f != "" {
		in.rep.Format = f
	}
}

// serialBlockBytes is how much text a serial input reads before parsing
// it. Read in 1 MiB blocks, the 102 gzip'd ALB objects of the ingest
// benchmark (576 MB of text) took 2 to 3% more CPU time than in blocks of
// 32 to 256 KiB, which were alike (medians of 7 and 15 interleaved runs).
const serialBlockBytes = 64 << 10

// produceLines cuts the input into blocks of whole lines, read straight
// into each batch's buffer; the workers find the line breaks. A line longer
// than a block is skipped.
func (in *inputReader) produceLines(send func(*batch)) error {
	line := 1
	var carry []byte // the start of a line cut by the previous block
	for {
		if err := in.ctx.Err(); err != nil {
			return err
		}
		b := batches.get()
		buf := append(b.buf[:0], carry...)[:cap(b.buf)]
		filled := len(carry)
		// A serial input is parsed as soon as a block is read: a small
		// block is parsed while its text is still in the core's cache.
		// The carry holds no line break; a line longer than the block
		// makes it grow to the buffer's end.
		want, broken := len(buf), false
		if in.serial {
			want = min(len(buf), filled+serialBlockBytes)
		}
		var err error
		for filled < len(buf) && err == nil && (filled < want || !broken) {
			var n int
			n, err = in.read(buf[filled:want])
			if !broken {
				broken = bytes.IndexByte(buf[filled:filled+n], '\n') >= 0
			}
			filled += n
			if filled == want && !broken {
				want = min(len(buf), want+serialBlockBytes)
			}
		}
		data := buf[:filled]
		carry = carry[:0]
		if err == nil {
			cut := bytes.LastIndexByte(data, '\n')
			if cut < 0 { // one line fills the whole block
				b.buf = data[:0]
				b.addSkip(line, fmt.Sprintf("line longer than %d MiB", readBufferSize>>20))
				send(b)
				line++
				if err = in.discardLine(); err != nil {
					return endOfInput(err)
				}
				continue
			}
			carry = append(carry, data[cut+1:]...)
			data = data[:cut+1]
		}
		b.buf, b.firstLine = data, line
		line += bytes.Count(data, []byte{'\n'})
		if len(data) > 0 {
			send(b)
		} else {
			batches.put(b)
		}
		if err != nil {
			return endOfInput(err)
		}
	}
}

// read reads the input into p. Once detection's look ahead is used up (br
// holds nothing), a gzip'd input is read straight from its decompressor:
// through br each byte was copied twice, into br and out of it, and the
// second copy was 2% of the CPU time of reading gzip'd ALB objects. The
// decompressor repeats its errors and its end on every later call, as br
// does, so what follows is the same.
func (in *inputReader) read(p []byte) (int, error) {
	if in.inflated != nil && in.br.Buffered() == 0 {
		return in.inflated.Read(p)
	}
	return in.br.Read(p)
}

// lineConsumer parses a block of lines with a.
func (in *inputReader) lineConsumer(a lineAdapter) func(*part, *batch) {
	return func(p *part, b *batch) {
		for _, it := range b.items {
			p.em.Skip(Origin{in.name, it.line}, it.skip)
		}
		data, line := b.buf, b.firstLine
		for len(data) > 0 {
			raw := data
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				raw, data = data[:i], data[i+1:]
			} else {
				data = nil
			}
			p.parseLine(a, raw, Origin{in.name, line}, time.Time{})
			line++
		}
	}
}

// parseLine unwraps one raw line and hands it to a.
func (p *part) parseLine(a lineAdapter, raw []byte, o Origin, stamp time.Time) {
	for len(raw) > 0 && (raw[len(raw)-1] == '\r' || raw[len(raw)-1] == '\n') {
		raw = raw[:len(raw)-1]
	}
	if blank(raw) {
		return
	}
	if p.env != nil {
		// A line without the envelope (kubectl's `error: ...` on stdout)
		// is read as it is: the adapter reads or skips it.
		var envStamp time.Time
		var ok bool
		var inner []byte
		if _, pasted := p.env.(pastedEnvelope); pasted {
			var done damage
			if raw, done = repairLine(raw); done != 0 {
				p.repairs.add(done)
			}
		} else if inner, envStamp, p.envScratch, ok = p.env.Unwrap(raw, p.envScratch); ok {
			raw = inner
			if !envStamp.IsZero() {
				stamp = envStamp
			}
		}
	}
	var inner []byte
	var innerStamp time.Time
	inner, innerStamp, p.scratch = unwrapLine(raw, p.scratch)
	if blank(inner) {
		// An envelope or a wrapper around nothing: read, and nothing in it.
		p.em.report.Passed++
		return
	}
	if !innerStamp.IsZero() {
		stamp = innerStamp
	}
	// The Line goes through an interface call and would escape: the part's
	// own is reused, so that a line costs no allocation.
	p.line = Line{Origin: o, Stamp: stamp}
	before := p.em.accounted
	err := a.Parse(inner, &p.line, p.em)
	if err != nil && p.env != nil {
		// An envelope may merge the output of several containers (stern
		// over a namespace, Loki over a label): a line the input's
		// adapter rejects is given to another that takes it.
		if other := otherLineAdapter(p.em.lineAdapterSet(), a, inner); other != nil {
			err = other.Parse(inner, &p.line, p.em)
		}
	}
	if err != nil {
		p.em.Skip(o, err.Error())
		return
	}
	p.em.accountFor(before)
}

// otherLineAdapter returns the first of adapters, other than a, that
// matches line; nil when none does.
func otherLineAdapter(adapters []lineAdapter, a lineAdapter, line []byte) lineAdapter {
	for _, b := range adapters {
		// Adapters are compared by format: some hold slices.
		if b.Format() != a.Format() && b.Match(line) {
			return b
		}
	}
	return nil
}

// blank reports whether line holds only white space. A line that starts
// with a letter, a digit or a brace, as records do, is answered at once.
func blank(line []byte) bool {
	if len(line) > 0 && line[0] > ' ' && line[0] < 0x80 {
		return false
	}
	return len(bytes.TrimSpace(line)) == 0
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

// produceJSON cuts the input into batches of JSON elements.
func (in *inputReader) produceJSON(send func(*batch)) error {
	return in.splitJSON(in.br, jsonReadBuffer, func(_, line int) int { return line }, send)
}

// jsonReadBuffer is the read buffer of the JSON splitter on a stream.
const jsonReadBuffer = 256 << 10

// splitJSON cuts r into batches of JSON elements, reading bufSize bytes at
// a time. lineOf gives the line to report for the n-th element (or error)
// that starts on line of r.
func (in *inputReader) splitJSON(r io.Reader, bufSize int, lineOf func(n, line int) int, send func(*batch)) error {
	s := newJSONSplitter(r, bufSize)
	b := batches.get()
	flush := func() {
		if len(b.items) > 0 {
			send(b)
			b = batches.get()
		}
	}
	defer func() { flush(); batches.put(b) }()
	for n := 0; ; n++ {
		elem, line, err := s.Next()
		if err == io.EOF {
			return s.ReadErr()
		}
		if err != nil {
			if s.ReadErr() != nil {
				return s.ReadErr()
			}
			b.addSkip(lineOf(n, line), err.Error())
			continue
		}
		b.add(elem, lineOf(n, line))
		if len(b.buf) >= batchBytes {
			if in.ctx.Err() != nil {
				return in.ctx.Err()
			}
			flush()
		}
	}
}

// errNoAdapter is the reason for skipping a JSON element no adapter matches.
var errNoAdapter = errors.New("JSON element in no known format")

// consumeJSON hands each element of a batch to the JSON adapter that matches it.
func (in *inputReader) consumeJSON(p *part, b *batch) {
	var last jsonAdapter
	for _, it := range b.items {
		o := Origin{in.name, it.line}
		if it.skip != "" {
			p.em.Skip(o, it.skip)
			continue
		}
		p.parseJSONElement(b.buf[it.start:it.end], o, &last)
	}
}

// parseElement hands one JSON element to the adapter that matches it.
// Elements of one input are almost always of one format: the adapter of
// the previous element, *last, is tried first, and another is looked for
// only when it rejects this one. It reports whether an adapter read it.
func (p *part) parseElement(elem []byte, o Origin, last *jsonAdapter) bool {
	before := p.em.accounted
	err := errNoAdapter
	if *last != nil {
		err = (*last).ParseJSON(elem, o, p.em)
	}
	if err != nil {
		if other := jsonAdapterFor(elem); other != nil && other != *last {
			*last = other
			err = other.ParseJSON(elem, o, p.em)
		}
	}
	if err != nil {
		p.em.Skip(o, err.Error())
		return false
	}
	p.em.accountFor(before)
	return true
}

// parseJSONElement is parseElement for an element as a JSON input wrote
// it. A Kubernetes object is also scanned for keys written twice in one
// object and strings that are not UTF-8 (see jsonKeyScanner), each warned of
// with its lines; a YAML document's are found as it is converted.
func (p *part) parseJSONElement(elem []byte, o Origin, last *jsonAdapter) {
	if !p.parseElement(elem, o, last) {
		return
	}
	if _, ok := (*last).(k8sObjects); !ok {
		return
	}
	p.jsonKeys.issues(elem, func(is jsonIssue) {
		if p.jsonIssues++; p.jsonIssues > p.em.maxWarnings() {
			return
		}
		if is.Key == "" {
			p.em.Warn("line %d, byte %d: invalid UTF-8 in a string: readygap reads each such byte as U+FFFD, as Go's JSON decoders (kubectl's too) do", o.Line+is.Line-1, is.Column)
			return
		}
		lines := fmt.Sprintf("lines %d and %d", o.Line+is.First-1, o.Line+is.Second-1)
		if is.First == is.Second {
			lines = fmt.Sprintf("line %d", o.Line+is.First-1)
		}
		p.em.Warn("%s: duplicate key %q in one object: readygap reads the last, kubectl refuses the object (strict field validation)", lines, is.Key)
	})
}

// maxKeptYAMLBuffer is the largest JSON buffer a worker keeps between YAML
// chunks; a larger one, left by a rare big object, is dropped.
const maxKeptYAMLBuffer = 4 << 20

// consumeYAML converts each YAML chunk of a batch to JSON and hands its
// elements to the JSON adapters.
func (in *inputReader) consumeYAML(p *part, b *batch) {
	var last jsonAdapter
	for _, it := range b.items {
		o := Origin{in.name, it.line}
		if it.skip != "" {
			p.em.Skip(o, it.skip)
			continue
		}
		js, err := convertYAML(p.yamlJSON[:0], b.buf[it.start:it.end], it.yaml, defaultYAMLLimits, func(d yamlDuplicate) {
			if p.duplicateKeys++; p.duplicateKeys <= p.em.maxWarnings() {
				lines := fmt.Sprintf("lines %d and %d", it.line+d.First-1, it.line+d.Second-1)
				if d.First == d.Second {
					lines = fmt.Sprintf("line %d", it.line+d.First-1)
				}
				p.em.Warn("%s: duplicate key %q in one mapping: readygap reads the last, kubectl refuses the document", lines, d.Key)
			}
		})
		if cap(js) <= maxKeptYAMLBuffer {
			p.yamlJSON = js
		}
		switch {
		case err != nil:
			p.em.Skip(o, err.Error())
		case len(js) == 0:
		case it.yaml == yamlItem:
			p.parseElement(js, o, &last)
		default: // a document may hold several elements: an array, a List
			// The document is in memory: a read buffer of its size takes
			// it in one read, where jsonReadBuffer for each of many small
			// documents was most of the time of reading them.
			s := newJSONSplitter(bytes.NewReader(js), min(len(js)+1, jsonReadBuffer))
			for {
				elem, _, err := s.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					p.em.Skip(o, err.Error())
					continue
				}
				p.parseElement(elem, o, &last)
			}
		}
	}
}

// produceJoinedJSON cuts an input of JSON access lines spread over
// several lines into elements, each made one line (jsonLineJoiner); the
// elements' lines are the input's.
func (in *inputReader) produceJoinedJSON(send func(*batch)) error {
	j := newJSONLineJoiner(in.br)
	return in.splitJSON(j, jsonReadBuffer, func(_, line int) int { return j.line(line) }, send)
}

// joinedJSONConsumer parses each JSON element, made one line by the
// splitter, with a (layoutJoinedJSON).
func (in *inputReader) joinedJSONConsumer(a lineAdapter) func(*part, *batch) {
	return func(p *part, b *batch) {
		for _, it := range b.items {
			o := Origin{in.name, it.line}
			if it.skip != "" {
				p.em.Skip(o, it.skip)
				continue
			}
			p.joined++
			p.parseLine(a, b.buf[it.start:it.end], o, time.Time{})
		}
	}
}

// cloudWatchConsumer reads the events of a CloudWatch Logs export as lines for a.
func (in *inputReader) cloudWatchConsumer(a lineAdapter) func(*part, *batch) {
	return func(p *part, b *batch) {
		for _, it := range b.items {
			o := Origin{in.name, it.line}
			if it.skip != "" {
				p.em.Skip(o, it.skip)
				continue
			}
			msg, stamp, err := cloudWatchEvent(b.buf[it.start:it.end])
			if err != nil {
				p.em.Skip(o, err.Error())
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
				p.parseLine(a, line, o, stamp)
			}
		}
	}
}

// produceYAML cuts the input into YAML chunks (see yamlSplitter), each
// reported at the line its document or List item starts on.
func (in *inputReader) produceYAML(send func(*batch)) error {
	b := batches.get()
	flush := func() {
		if len(b.items) > 0 {
			send(b)
			b = batches.get()
		}
	}
	s := &yamlSplitter{ctx: in.ctx, br: in.br, limits: defaultYAMLLimits,
		emit: func(text []byte, line int, kind yamlChunkKind) {
			b.add(text, line)
			b.items[len(b.items)-1].yaml = kind
			if len(b.buf) >= batchBytes {
				flush()
			}
		},
		skip: func(line int, reason string) { b.addSkip(line, reason) },
	}
	err := s.run()
	flush()
	batches.put(b)
	return err
}

// handlerPool hands out the Handlers of finished inputs again, so that their
// number follows the workers, not the inputs.
type handlerPool struct {
	mu   sync.Mutex
	free []Handler
	new  func(*InputReport) Handler
}

func (p *handlerPool) get(rep *InputReport) Handler {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		h := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return h
	}
	p.mu.Unlock()
	return p.new(rep)
}

func (p *handlerPool) put(h Handler) {
	p.mu.Lock()
	p.free = append(p.free, h)
	p.mu.Unlock()
}

// formatCounter forwards records and counts them by format, so that an input
// mixing formats (a List of events and pods) reports the one it holds most of.
// Runs of one format, the rule, are counted without a map lookup.
type formatCounter struct {
	Handler
	counts map[Format]int
	last   Format
	run    int
}

func (c *formatCounter) count(f Format) {
	if f == c.last {
		c.run++
		return
	}
	c.flush()
	c.last, c.run = f, 1
}

// flush adds the current run to counts.
func (c *formatCounter) flush() {
	if c.run == 0 {
		return
	}
	if c.counts == nil {
		c.counts = make(map[Format]int)
	}
	c.counts[c.last] += c.run
	c.run = 0
}

func (c *formatCounter) Request(r *Request)     { c.count(r.Format); c.Handler.Request(r) }
func (c *formatCounter) Lifecycle(l *Lifecycle) { c.count(l.Format); c.Handler.Lifecycle(l) }
func (c *formatCounter) Config(x *Config)       { c.count(x.Format); c.Handler.Config(x) }

// dominant returns the format with the most records, or "" when there were none.
func dominant(counts map[Format]int) Format {
	var best Format
	for f, n := range counts {
		if f != "" && (best == "" || n > counts[best] || (n == counts[best] && f < best)) {
			best = f
		}
	}
	return best
}

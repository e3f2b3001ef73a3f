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
// recursively, "-" for standard input) and reports its records to Handlers.
// Inputs are read in parallel, and each input is parsed by several workers:
// newHandler is called once per worker with the input's report, and each
// Handler it returns is only ever called from that worker's goroutine.
// Records therefore arrive in no particular order. An input in no known format
// is a warning, not an error; Read fails only when a path cannot be found or
// when no input at all is in a known format.
func Read(ctx context.Context, paths []string, opts Options, newHandler func(*InputReport) Handler) (*Result, error) {
	if err := opts.prepare(); err != nil {
		return nil, err
	}
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
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %v", displayName(files[i]), errs[i]))
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
		return res, fmt.Errorf("%s: %w; %s", displayName(files[0]), errs[0], formatsHelp())
	case known == 0:
		return res, fmt.Errorf("none of the %d inputs is in a format readygap reads; %s", len(files), formatsHelp())
	case unknown > 0:
		res.Warnings = append(res.Warnings, formatsHelp())
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
		if !ALBObjectMayOverlap(f, opts.Since, opts.Until) {
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
	p, err := detect(head, complete, opts.lineAdapterSet())
	if err != nil {
		return nil, err
	}
	rep := &InputReport{Name: display, Format: p.format}
	in := &inputReader{ctx: ctx, name: display, br: br, opts: opts, dedup: dedup, rep: rep, newHandler: newHandler}
	switch p.layout {
	case layoutLines:
		err = in.parallel(in.produceLines, in.lineConsumer(p.line))
	case layoutJSON:
		err = in.parallel(in.produceJSON, in.consumeJSON)
	case layoutYAML:
		err = in.parallel(in.produceYAML, in.consumeJSON)
	case layoutCloudWatch:
		err = in.parallel(in.produceJSON, in.cloudWatchConsumer(p.line))
	}
	in.merge()
	if err != nil && ctx.Err() == nil {
		rep.Warnings = append(rep.Warnings, readWarning(err))
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
}

func (b *batch) add(data []byte, line int) {
	b.items = append(b.items, batchItem{start: len(b.buf), end: len(b.buf) + len(data), line: line})
	b.buf = append(b.buf, data...)
}

func (b *batch) addSkip(line int, reason string) {
	b.items = append(b.items, batchItem{line: line, skip: reason})
}

var batchPool = sync.Pool{New: func() any { return &batch{buf: make([]byte, 0, batchBytes+64<<10)} }}

// part is one parsing worker's share of an input: its own Handler, Emitter
// and statistics, merged into the input's report at the end.
type part struct {
	em      *Emitter
	rep     InputReport
	counter *formatCounter
	scratch []byte
}

// inputReader cuts one input into batches of lines or elements and parses
// them on several workers.
type inputReader struct {
	ctx        context.Context
	name       string
	br         *bufio.Reader
	opts       *Options
	dedup      *dedupSet
	rep        *InputReport
	newHandler func(*InputReport) Handler
	parts      []*part
}

func (in *inputReader) newPart() *part {
	p := &part{rep: InputReport{Name: in.name, Format: in.rep.Format}}
	p.counter = &formatCounter{Handler: in.newHandler(in.rep)}
	p.em = newEmitter(p.counter, in.opts, &p.rep, in.dedup)
	in.parts = append(in.parts, p)
	return p
}

// parallel runs produce, which hands batches to send, and parses the batches
// on as many workers as there are cores. It returns the producer's error.
func (in *inputReader) parallel(produce func(send func(*batch)) error, consume func(*part, *batch)) error {
	workers := runtime.GOMAXPROCS(0)
	ch := make(chan *batch, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		p := in.newPart()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range ch {
				consume(p, b)
				b.buf, b.items, b.firstLine = b.buf[:0], b.items[:0], 0
				batchPool.Put(b)
			}
		}()
	}
	err := produce(func(b *batch) { ch <- b })
	close(ch)
	wg.Wait()
	return err
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
		if !r.First.IsZero() && (in.rep.First.IsZero() || r.First.Before(in.rep.First)) {
			in.rep.First = r.First
		}
		if r.Last.After(in.rep.Last) {
			in.rep.Last = r.Last
		}
		in.rep.Warnings = append(in.rep.Warnings, r.Warnings...)
		skips = append(skips, r.skipSamples...)
	}
	sort.SliceStable(skips, func(i, j int) bool { return skips[i].origin.Line < skips[j].origin.Line })
	if max := in.parts[0].em.maxWarnings(); len(skips) > max {
		skips = skips[:max]
	}
	in.rep.skipSamples = skips
	counts := map[Format]int{}
	for _, p := range in.parts {
		for f, n := range p.counter.counts {
			counts[f] += n
		}
	}
	if f := dominant(counts); f != "" {
		in.rep.Format = f
	}
}

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
		b := batchPool.Get().(*batch)
		buf := append(b.buf[:0], carry...)[:cap(b.buf)]
		filled := len(carry)
		var err error
		for filled < len(buf) && err == nil {
			var n int
			n, err = in.br.Read(buf[filled:])
			filled += n
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
			batchPool.Put(b)
		}
		if err != nil {
			return endOfInput(err)
		}
	}
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
	raw = bytes.TrimRight(raw, "\r\n")
	if len(bytes.TrimSpace(raw)) == 0 {
		return
	}
	var inner []byte
	var innerStamp time.Time
	inner, innerStamp, p.scratch = unwrapLine(raw, p.scratch)
	if len(bytes.TrimSpace(inner)) == 0 {
		return
	}
	if !innerStamp.IsZero() {
		stamp = innerStamp
	}
	ln := Line{Origin: o, Stamp: stamp}
	if err := a.Parse(inner, &ln, p.em); err != nil {
		p.em.Skip(o, err.Error())
	}
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
	b := batchPool.Get().(*batch)
	flush := func() {
		if len(b.items) > 0 {
			send(b)
			b = batchPool.Get().(*batch)
		}
	}
	defer func() { flush(); batchPool.Put(b) }()
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
		elem := b.buf[it.start:it.end]
		// Elements of one input are almost always of one format: try the
		// adapter of the previous element first and look for another only
		// when it rejects this one.
		err := errNoAdapter
		if last != nil {
			err = last.ParseJSON(elem, o, p.em)
		}
		if err != nil {
			if other := jsonAdapterFor(elem); other != nil && other != last {
				last = other
				err = other.ParseJSON(elem, o, p.em)
			}
		}
		if err != nil {
			p.em.Skip(o, err.Error())
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

// produceYAML converts each YAML document to JSON and cuts it into batches
// of elements, each reported at the line its List item (or its document)
// starts on.
func (in *inputReader) produceYAML(send func(*batch)) error {
	// Documents are mostly small (a manifest is a few KiB): gather their
	// elements into one batch rather than send a batch per document.
	var pending *batch
	out := send
	gather := func(b *batch) {
		if pending == nil {
			pending = b
		} else {
			for _, it := range b.items {
				if it.skip != "" {
					pending.addSkip(it.line, it.skip)
				} else {
					pending.add(b.buf[it.start:it.end], it.line)
				}
			}
			b.buf, b.items, b.firstLine = b.buf[:0], b.items[:0], 0
			batchPool.Put(b)
		}
		if len(pending.buf) >= batchBytes {
			out(pending)
			pending = nil
		}
	}
	defer func() {
		if pending != nil {
			out(pending)
		}
	}()
	send = gather
	var doc bytes.Buffer
	// contentStart is the first line of the document that is neither blank
	// nor a comment (Helm writes "# Source: ..." above each): where the
	// object is reported.
	lineNo, docStart, contentStart := 0, 1, 0
	flush := func() error {
		defer doc.Reset()
		if len(bytes.TrimSpace(doc.Bytes())) == 0 {
			return nil
		}
		at := docStart
		if contentStart > 0 {
			at = contentStart
		}
		js, err := yaml.YAMLToJSON(doc.Bytes())
		if err != nil {
			b := batchPool.Get().(*batch)
			b.addSkip(at, "YAML: "+err.Error())
			send(b)
			return nil
		}
		if string(js) == "null" { // a document of comments only
			return nil
		}
		items, start := yamlItemLines(doc.Bytes()), docStart
		// The document is in memory: a buffer of its size reads it at once.
		return in.splitJSON(bytes.NewReader(js), min(len(js)+1, jsonReadBuffer), func(n, _ int) int {
			if n < len(items) {
				return start + items[n]
			}
			return at
		}, send)
	}
	for {
		line, err := in.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			line = append(bytes.Clone(line), mustReadLine(in.br)...)
			err = nil
		}
		if len(line) > 0 {
			lineNo++
			switch {
			case bytes.HasPrefix(line, []byte("---")) && len(bytes.TrimSpace(line[3:])) == 0:
				if ferr := flush(); ferr != nil {
					return ferr
				}
				docStart, contentStart = lineNo+1, 0
			case doc.Len()+len(line) > maxElementBytes:
				b := batchPool.Get().(*batch)
				b.addSkip(docStart, fmt.Sprintf("YAML document larger than %d MiB", maxElementBytes>>20))
				send(b)
				doc.Reset()
			default:
				if t := bytes.TrimSpace(line); contentStart == 0 && len(t) > 0 && t[0] != '#' {
					contentStart = lineNo
				}
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

// yamlItemLines returns, for a YAML List document, the 0-based line on which
// each entry of its top-level items sequence starts; nil for other documents.
func yamlItemLines(doc []byte) []int {
	var lines []int
	inItems, indent := false, -1
	for i, line := range bytes.Split(doc, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " ")
		depth := len(line) - len(trimmed)
		switch {
		case depth == 0 && bytes.HasPrefix(line, []byte("items:")):
			inItems, indent = true, -1
		case !inItems || len(trimmed) == 0 || trimmed[0] == '#':
		case bytes.HasPrefix(trimmed, []byte("- ")) || bytes.Equal(bytes.TrimSpace(trimmed), []byte("-")):
			if indent < 0 {
				indent = depth
			}
			if depth == indent {
				lines = append(lines, i)
			}
		case depth == 0:
			inItems = false
		}
	}
	return lines
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
func dominant(counts map[Format]int) Format {
	var best Format
	for f, n := range counts {
		if f != "" && (best == "" || n > counts[best] || (n == counts[best] && f < best)) {
			best = f
		}
	}
	return best
}

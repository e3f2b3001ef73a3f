package live

import (
	"bufio"
	"bytes"
	"io"
	"time"
)

// podLogLineBuffer is the read buffer of a pod log stream. A line up to
// this long is written whole or not at all; a longer one (rare: Envoy and
// nginx access lines are well under 64 KiB even with long URLs) is
// streamed through in pieces, so memory never follows a line's length.
const podLogLineBuffer = 256 << 10

// podLogProgress is how many bytes of one log are saved between two
// progress reports.
const podLogProgress = 1 << 20

// podLogCopy is what copyPodLog read and saved of one log stream.
type podLogCopy struct {
	// lines and bytes count what was written.
	lines int
	bytes int64
	// read counts the bytes received.
	read int64
	// first is the time of the first line received, saved or not.
	first time.Time
	// lastSaved is the time of the last line written.
	lastSaved time.Time
	// limited says that the byte budget ran out: the lines after
	// lastSaved were not read.
	limited bool
}

// writeError is a failure to write the bundle file, as opposed to one of
// reading the stream.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// copyPodLog copies into dst the lines of src, a pod log read with
// timestamps=true (each line `<RFC 3339 time> <what the container
// wrote>`), that lie in w: lines before w.Since are dropped, and reading
// stops at the first line at or after w.Until (a container's lines come in
// the order the runtime stamped them). A line without a time is kept.
//
// At most budget bytes are read; the stream is asked for one more (the
// request's limitBytes) so that a budget that runs out is told from a log
// that ends exactly there. Only whole lines are written: the line that
// crosses the budget, or that a read error cuts, is dropped, and a line
// longer than podLogLineBuffer that is cut is ended with a newline. A last
// line the container ended without a newline gets one. progress, when not
// nil, receives the lines and bytes written since its last call.
//
// Errors writing dst are returned as *writeError.
func copyPodLog(dst io.Writer, src io.Reader, w Window, budget int64, progress func(lines int, bytes int64)) (podLogCopy, error) {
	var c podLogCopy
	br := bufio.NewReaderSize(src, podLogLineBuffer)
	var reportedLines int
	var reportedBytes int64
	report := func() {
		if progress != nil && c.bytes > reportedBytes {
			progress(c.lines-reportedLines, c.bytes-reportedBytes)
			reportedLines, reportedBytes = c.lines, c.bytes
		}
	}
	defer report()
	write := func(p []byte) error {
		n, err := dst.Write(p)
		c.bytes += int64(n)
		if err != nil {
			return &writeError{err}
		}
		return nil
	}
	// inLine is set while a line longer than the buffer is being read;
	// keep says whether it is written.
	inLine, keep := false, false
	endCut := func() error {
		if inLine && keep {
			c.lines++
			return write([]byte{'\n'})
		}
		return nil
	}
	// cut ends what was written of a line a read error cut and returns
	// the read error, or the write error ending it failed with.
	cut := func(err error) error {
		if werr := endCut(); werr != nil {
			return werr
		}
		return err
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			c.read += int64(len(chunk))
			if c.read > budget {
				c.limited = true
				return c, endCut()
			}
			if !inLine {
				t, ok := podLogStamp(chunk)
				if ok && c.first.IsZero() {
					c.first = t
				}
				if ok && !t.Before(w.Until) {
					return c, nil
				}
				keep = !ok || !t.Before(w.Since)
				if keep && ok {
					c.lastSaved = t
				}
			}
			complete := err == nil || err == io.EOF
			if keep {
				if !complete && err != bufio.ErrBufferFull {
					// Cut by a read error: drop it, or end what was written of it.
					return c, cut(err)
				}
				if werr := write(chunk); werr != nil {
					return c, werr
				}
				if complete {
					c.lines++
					if chunk[len(chunk)-1] != '\n' {
						if werr := write([]byte{'\n'}); werr != nil {
							return c, werr
						}
					}
				}
			}
			inLine = err == bufio.ErrBufferFull
			if c.bytes-reportedBytes >= podLogProgress {
				report()
			}
		}
		switch {
		case err == io.EOF:
			return c, nil
		case err != nil && err != bufio.ErrBufferFull:
			return c, cut(err)
		}
	}
}

// podLogStamp reads the time the kubelet puts before a line with
// timestamps=true (RFC 3339 with nanoseconds, then a space).
func podLogStamp(line []byte) (time.Time, bool) {
	i := bytes.IndexByte(line, ' ')
	if i <= 0 || i > len("2006-01-02T15:04:05.000000000+07:00") {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(line[:i]))
	return t, err == nil
}

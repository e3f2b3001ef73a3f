// Package live fetches an incident window straight from where the data lives
// — Cloud Logging, S3 (ALB access logs), CloudWatch Logs, the Kubernetes
// API and the logs of proxy pods through it — and writes it into a bundle
// directory in the formats users export (`gcloud logging read
// --format=json`, the ALB objects as stored, `aws logs filter-log-events
// --output json`, `kubectl get -o json`, `kubectl logs --timestamps`), so
// that the offline analysis reads a bundle exactly as it reads exported
// files.
//
// Every call has deadlines (Timeouts), one failed object or page never
// stops the others, and the bundle's manifest names every item asked for,
// what came back and, for each gap, why and what it takes from the
// analysis (bundle.ManifestWarnings). Server error text is redacted before it is
// printed or saved, and container env values, last-applied-configuration
// annotations and Secret data never reach a bundle.
package live

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Window is the time range a live fetch asks for: [Since, Until), in UTC.
type Window struct {
	Since, Until time.Time
}

// String renders the window for progress lines and manifests.
func (w Window) String() string {
	return w.Since.UTC().Format(time.RFC3339) + " to " + w.Until.UTC().Format(time.RFC3339)
}

// ProgressState is the running state of one source.
type ProgressState struct {
	// Records and Bytes count only what was saved.
	Records int
	Bytes   int64
	// Retrying says what waits for a retry, e.g. "retrying 3 objects
	// (SlowDown)"; empty when nothing does.
	Retrying string
}

// Progress receives the running state of one source while it fetches.
// Calls are never concurrent, but may come from different goroutines.
type Progress func(source string, s ProgressState)

// FetchError is an error a user can act on, worded as one redacted line
// that names the source and, for a denied request, the permission that is
// missing.
type FetchError struct {
	Source string
	Msg    string
	Err    error
	// stops is set when the error means that further calls of the source
	// cannot work either: a dead endpoint, missing or rejected credentials.
	stops bool
}

// Error implements error.
func (e *FetchError) Error() string { return e.Source + ": " + e.Msg }

// Unwrap returns the underlying error.
func (e *FetchError) Unwrap() error { return e.Err }

// fetchErrorf builds a FetchError; the message is made one line and
// redacted, since it may quote a server.
func fetchErrorf(source string, err error, format string, args ...any) *FetchError {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
	msg, _ = Redact(msg)
	return &FetchError{Source: source, Msg: msg, Err: err}
}

// stopping marks e as an error that stops its source.
func (e *FetchError) stopping() *FetchError {
	e.stops = true
	return e
}

// transportError words an error that happened before any service answered
// (a timeout, a refused connection, a redirect to another host) as a
// FetchError that stops the source, or returns nil.
func transportError(source string, err error) *FetchError {
	var te *TimeoutError
	if errors.As(err, &te) {
		fe := fetchErrorf(source, err, "%s", te.Error())
		if !te.Stalled {
			fe.stopping()
		}
		return fe
	}
	var ce *ConnectError
	if errors.As(err, &ce) {
		return fetchErrorf(source, err, "%s", ce.Error()).stopping()
	}
	var re *RedirectError
	if errors.As(err, &re) {
		return fetchErrorf(source, err, "%s", re.Error()).stopping()
	}
	return nil
}

// bundleFile is a file being written into a bundle: buffered, counting
// bytes, and created only when something is written to it, so that a
// bundle never holds an empty file.
type bundleFile struct {
	dir, rel string
	// head is written first when the file is created, tail when it is
	// closed, if it was created (a JSON document's opening and closing).
	head, tail string
	f          *os.File
	w          *bufio.Writer
	n          int64
	err        error
}

// bundleFileBuffer is the write buffer of a bundle file.
const bundleFileBuffer = 256 << 10

// newBundleFile prepares rel (slash-separated) under dir.
func newBundleFile(dir, rel, head, tail string) *bundleFile {
	return &bundleFile{dir: dir, rel: rel, head: head, tail: tail}
}

// open creates the file with its parents and writes the head.
func (b *bundleFile) open() error {
	if b.f != nil || b.err != nil {
		return b.err
	}
	path := filepath.Join(b.dir, filepath.FromSlash(b.rel))
	if b.err = os.MkdirAll(filepath.Dir(path), 0o755); b.err != nil {
		return b.err
	}
	if b.f, b.err = os.Create(path); b.err != nil {
		return b.err
	}
	b.w = bufio.NewWriterSize(b.f, bundleFileBuffer)
	_, err := b.write([]byte(b.head))
	return err
}

// write writes p to the open file, counting bytes.
func (b *bundleFile) write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.w.Write(p)
	b.n += int64(n)
	b.err = err
	return n, err
}

// Write implements io.Writer, creating the file on the first write.
func (b *bundleFile) Write(p []byte) (int, error) {
	if err := b.open(); err != nil {
		return 0, err
	}
	return b.write(p)
}

// Close writes the tail, flushes and closes the file, if it was created.
func (b *bundleFile) Close() error {
	if b.f == nil {
		return b.err
	}
	b.write([]byte(b.tail))
	ferr := b.w.Flush()
	if err := b.f.Close(); ferr == nil {
		ferr = err
	}
	if b.err == nil {
		b.err = ferr
	}
	b.f = nil
	return b.err
}

// Remove closes and deletes the file.
func (b *bundleFile) Remove() {
	if b.f != nil {
		b.f.Close()
		os.Remove(b.f.Name())
		b.f = nil
	}
}

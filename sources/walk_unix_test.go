//go:build unix

package sources

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestIrregularFilesAreWarned checks that a named pipe and a device found
// in a directory are skipped with a warning, not read (a pipe would wait
// for ever) nor passed over in silence, and that a pipe named alone is read.
func TestIrregularFilesAreWarned(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.log", []byte(albLines(2, "\n")))
	fifo := filepath.Join(dir, "pipe.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(dir, "null.log")); err != nil {
		t.Fatal(err)
	}
	res, h := readPaths(t, Options{}, dir)
	if h.requests != 2 || !hasWarning(res, "pipe.log: a named pipe (FIFO), not a regular file: skipped") ||
		!hasWarning(res, "null.log: a character device, not a regular file: skipped") {
		t.Errorf("%d requests, warnings %q", h.requests, res.Warnings)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.WriteString(albLines(3, "\n"))
			f.Close()
		}
	}()
	if _, h := readPaths(t, Options{}, fifo); h.requests != 3 {
		t.Errorf("the pipe named alone: %d requests", h.requests)
	}
}

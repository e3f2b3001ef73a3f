//go:build unix

package sources

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestIrregularFilesAreWarned puts a named pipe and a link to a device in
// a folder beside a log: the log is read, and each of the others is a
// warning naming it and its kind, never read (a pipe would wait for a
// writer forever) and never skipped silently.
func TestIrregularFilesAreWarned(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.log", []byte(albLines(2, "\n")))
	fifo := filepath.Join(dir, "pipe.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dev := filepath.Join(dir, "null.log")
	if err := os.Symlink(os.DevNull, dev); err != nil {
		t.Fatal(err)
	}
	res, err := Read(context.Background(), []string{dir}, Options{}, func(*InputReport) Handler { return &collector{} })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Inputs) != 1 || res.Inputs[0].Records != 2 {
		t.Fatalf("inputs %+v", res.Inputs)
	}
	if !hasWarning(res, fifo, "a named pipe, not a regular file: skipped") || !hasWarning(res, dev, "a character device, not a regular file: skipped") {
		t.Fatalf("warnings %q", res.Warnings)
	}
}

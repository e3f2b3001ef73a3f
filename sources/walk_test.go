package sources

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/readygap/readygap/internal/safego"
)

// albLines returns n ALB access lines, one second apart, joined by sep.
func albLines(n int, sep string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Replace(albDocModern200, "12:00:01", "12:"+twoDigits(i/60%60)+":"+twoDigits(i%60), 1))
		b.WriteString(sep)
	}
	return b.String()
}

func twoDigits(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 2 {
		s = "0" + s
	}
	return s
}

func hasWarning(res *Result, parts ...string) bool {
	for _, w := range res.Warnings {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

// TestSymlinksAreFollowed checks a symlinked directory argument, a
// symlinked file and directory inside a directory, a loop back to a parent
// and a dangling link: every file is read once, the loop, the dangling
// link and the file reached by two links are warnings.
func TestSymlinksAreFollowed(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	other := filepath.Join(root, "other")
	for _, d := range []string{data, other, filepath.Join(data, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, data, "a.log", []byte(albLines(2, "\n")))
	writeFile(t, filepath.Join(data, "sub"), "b.log", []byte(albLines(3, "\n")))
	writeFile(t, other, "c.log", []byte(albLines(4, "\n")))
	for link, target := range map[string]string{
		filepath.Join(data, "c-link.log"): filepath.Join(other, "c.log"),
		filepath.Join(data, "other-dir"):  other,
		filepath.Join(data, "sub", "up"):  data,
		filepath.Join(data, "dangling"):   filepath.Join(root, "missing"),
		filepath.Join(root, "data-link"):  data,
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	res, h := readPaths(t, Options{}, filepath.Join(root, "data-link"))
	// a (2) + sub/b (3) + c (4), which the file link and the directory link
	// both reach: read twice, its requests would count twice.
	if h.requests != 9 {
		t.Errorf("%d requests, want 9", h.requests)
	}
	if len(res.Inputs) != 3 {
		t.Errorf("%d inputs, want 3", len(res.Inputs))
	}
	if !hasWarning(res, "other-dir/c.log: the same file as", "c-link.log, read once") {
		t.Errorf("no warning for the file reached twice in %q", res.Warnings)
	}
	if !hasWarning(res, "up", "loop") {
		t.Errorf("no loop warning in %q", res.Warnings)
	}
	if !hasWarning(res, "dangling", "skipped") {
		t.Errorf("no warning for the dangling link in %q", res.Warnings)
	}
}

// TestSameFileReadOnce names a file twice, a folder and a file in it, and
// one folder under two names (a link): every file is read once, and each
// second path is a warning.
func TestSameFileReadOnce(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "data")
	if err := os.MkdirAll(filepath.Join(data, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	a := writeFile(t, data, "a.log", []byte(albLines(2, "\n")))
	b := writeFile(t, filepath.Join(data, "sub"), "b.log", []byte(albLines(3, "\n")))
	if err := os.Symlink(data, filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name     string
		paths    []string
		requests int
		warning  []string
	}{
		{"a file twice", []string{a, a}, 2, []string{a + ": reached twice, read once"}},
		{"a file and its folder", []string{b, data}, 5, []string{b + ": reached twice, read once"}},
		{"a file through a link and its folder", []string{filepath.Join(root, "alias", "a.log"), data}, 5, []string{a + ": the same file as " + filepath.Join(root, "alias", "a.log") + ", read once"}},
		{"a folder and its link", []string{data, filepath.Join(root, "alias")}, 5, []string{filepath.Join(root, "alias") + ": the same folder as " + data}},
		{"a folder and a folder in it", []string{filepath.Join(data, "sub"), data}, 5, []string{filepath.Join(data, "sub") + ": reached twice, read once"}},
	} {
		res, h := readPaths(t, Options{}, tt.paths...)
		if h.requests != tt.requests || !hasWarning(res, tt.warning...) {
			t.Errorf("%s: %d requests, warnings %q; want %d and %q", tt.name, h.requests, res.Warnings, tt.requests, tt.warning)
		}
	}
	// Files that are copies, not the same file, are both read: only the
	// inputs' own record ids (Cloud Logging's insertId) tell copies apart.
	c := writeFile(t, data, "copy.log", []byte(albLines(2, "\n")))
	if res, h := readPaths(t, Options{}, a, c); h.requests != 4 || len(res.Warnings) != 0 {
		t.Errorf("a copy: %d requests, warnings %q; want 4 and none", h.requests, res.Warnings)
	}
}

// TestUnreadableDirectoryIsAWarning checks that a subdirectory that cannot
// be listed is reported and the rest of the walk is read.
func TestUnreadableDirectoryIsAWarning(t *testing.T) {
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	if err := os.MkdirAll(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "a.log", []byte(albLines(2, "\n")))
	writeFile(t, locked, "b.log", []byte(albLines(3, "\n")))
	defer func(orig func(string) ([]fs.DirEntry, error)) { readDir = orig }(readDir)
	readDir = func(p string) ([]fs.DirEntry, error) {
		if p == locked {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		}
		return os.ReadDir(p)
	}
	res, h := readPaths(t, Options{}, root)
	if h.requests != 2 {
		t.Errorf("%d requests, want the readable file's 2", h.requests)
	}
	if !hasWarning(res, "locked", "unreadable directory", "permission denied") {
		t.Errorf("no warning for the locked directory in %q", res.Warnings)
	}
}

// TestCROnlyLineEndings checks that an input whose lines end with CR alone
// is read line by line.
func TestCROnlyLineEndings(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "mac.log", []byte(albLines(300, "\r")))
	res, h := readPaths(t, Options{}, p)
	if h.requests != 300 || res.Inputs[0].Skipped != 0 {
		t.Errorf("%d requests, %d skipped; want 300 and 0", h.requests, res.Inputs[0].Skipped)
	}
	gz := writeFile(t, dir, "mac.log.gz", gzipBytes(t, []byte(albLines(300, "\r"))))
	if _, h := readPaths(t, Options{}, gz); h.requests != 300 {
		t.Errorf("gzip'd: %d requests, want 300", h.requests)
	}
	crlf := writeFile(t, dir, "dos.log", []byte(albLines(300, "\r\n")))
	if res, h := readPaths(t, Options{}, crlf); h.requests != 300 || res.Inputs[0].Skipped != 0 {
		t.Errorf("CRLF: %d requests, %d skipped", h.requests, res.Inputs[0].Skipped)
	}
}

// panickyHandler panics at the nth request it gets, as a bug in a handler
// or an adapter would, on a parsing worker's goroutine.
type panickyHandler struct {
	countingHandler
	n int
}

func (p *panickyHandler) Request(r *Request) {
	p.countingHandler.Request(r)
	p.mu.Lock()
	n := p.requests
	p.mu.Unlock()
	if n == p.n {
		var m map[string]int
		m[r.Method]++
	}
}

// TestWorkerPanicReachesTheCaller checks that a panic on a worker
// goroutine, reading one of several inputs, comes out of Read in the
// caller's goroutine with the worker's stack, where the command recovers
// it, instead of ending the process with the runtime's exit code 2; and
// that Read does not hang meanwhile.
func TestWorkerPanicReachesTheCaller(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 4 {
		paths = append(paths, writeFile(t, dir, fmt.Sprintf("%d.log", i), []byte(albLines(3000, "\n"))))
	}
	for _, n := range []int{1, 2000, 11999} {
		h := &panickyHandler{n: n}
		r := func() (r any) {
			defer func() { r = recover() }()
			_, _ = Read(context.Background(), paths, Options{}, func(*InputReport) Handler { return h })
			return nil
		}()
		p, ok := r.(*safego.Panic)
		if !ok || !strings.Contains(p.Error(), "nil map") || !strings.Contains(string(p.Stack), "panickyHandler") {
			t.Errorf("panic at request %d: %T %v", n, r, r)
		}
	}
}

// Command mutate measures how well the tests pin the analysis: it changes one
// tuning constant or one comparison at a time in the non-test files of the
// given packages and runs their tests against each change (a mutant). A
// mutant the tests still pass survived: nothing pins that value or branch.
//
//	go run ./scripts/mutate [-pkgs ./correlate,./classify] [-j 2] [-sample 40] [-v]
//
// Mutants: every numeric constant ×2 and ÷2 (±1 for integers up to 3), and
// every comparison < ↔ <=, > ↔ >=, == ↔ != (with -logical, also && ↔ ||).
//
// The tree is never written. A constant's mutant is its file rewritten into
// a temporary folder and handed to `go test -overlay`, one build per
// mutant. The comparisons share one build (with -schema, the default):
// each becomes a call that behaves as written unless MUTATE_ACTIVE names
// its number, so a mutant costs a run of the test binaries; the overlay
// adds the calls' file to each package. Mutants run side by side (-j).
//
// Each mutant's tests run in two steps: first every test but the slow ones
// (-slow) with -failfast, then, only if all passed, the slow ones; the
// mutated package's own tests go first. A mutant is killed when a test
// fails, panics or passes the time limit (-timeout); one that does not
// compile (a constant that becomes a zero divisor or overflows) is counted
// apart as "unbuildable" and left out of the rate: it was never a program
// the tests could judge. Before the mutants the unchanged tree, and then
// the shared build with no mutant active, must pass the same tests, so a
// mutant's build failure is the mutation's.
//
// Mutants listed in equivalent.txt beside this program (the same
// behaviour whatever the input, each with its reason) are skipped and
// counted apart.
//
// It prints each survivor as `file:line: original -> mutant`, then the
// totals and the survival rate, survivors / (killed + survived).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of the flags.
const (
	// defaultSlow names the tests run only for mutants that pass the rest:
	// they replay every fixture (about 30 s of the classify package's 31),
	// while the scenario and unit tests kill most mutants in well under a
	// second.
	defaultSlow = "^(TestFixtureVerdicts|TestFixtureVerdictFiles|TestLBLogsAloneNameTheCause)$"

	// timeoutFactor and minTimeout set the time limit of one mutant's
	// tests when -timeout is 0: four times what the unchanged tree took
	// (mutants run beside each other and other work, so a slower run is
	// not a loop), and at least a minute.
	timeoutFactor = 4
	minTimeout    = time.Minute

	// killGrace is how long past the time limit go test gets to report
	// its own timeout before the whole process group is killed.
	killGrace = 30 * time.Second

	// defaultMemMB bounds the address space of the tests (and of the
	// compiler they need), so that a mutant that allocates without end
	// fails instead of taking the machine's memory; the unchanged suite
	// runs within 3 GB.
	defaultMemMB = 4096
)

// outcome is what became of a mutant.
type outcome int

const (
	killed outcome = iota
	survived
	unbuildable
	timedOut
)

// result is one mutant's outcome.
type result struct {
	m    mutant
	out  outcome
	took time.Duration
	// why is the first failing test or the build error, for -v.
	why string
}

type config struct {
	pkgs, tests []string
	jobs        int
	timeout     time.Duration
	slow        string
	sample      int
	only        *regexp.Regexp
	logical     bool
	list        bool
	verbose     bool
	failAbove   float64
	exclude     string
	memMB       int
	schema      bool
}

func main() {
	var c config
	pkgs := flag.String("pkgs", "./correlate,./classify", "comma-separated packages whose non-test files are mutated")
	tests := flag.String("test", "", "comma-separated packages whose tests judge each mutant (default: -pkgs)")
	flag.IntVar(&c.jobs, "j", 1, "mutants tested at once")
	flag.DurationVar(&c.timeout, "timeout", 0, "time limit of one mutant's tests; past it the mutant counts as killed (0: four times the unchanged tree's, at least a minute)")
	flag.StringVar(&c.slow, "slow", defaultSlow, "tests run only for mutants that pass all the others (empty: one step)")
	flag.IntVar(&c.sample, "sample", 0, "test only this many mutants, spread evenly over the list (0: all)")
	only := flag.String("run", "", "test only mutants whose `file:line: original -> mutant` matches this regexp")
	flag.BoolVar(&c.logical, "logical", false, "also swap && and ||")
	flag.BoolVar(&c.list, "list", false, "list the mutants and exit (with -v, as equivalent.txt names them)")
	flag.BoolVar(&c.verbose, "v", false, "print every mutant's outcome as it comes")
	flag.Float64Var(&c.failAbove, "fail-above", -1, "exit 1 when the survival rate in percent is above this (negative: never)")
	flag.StringVar(&c.exclude, "exclude", "", "equivalent-mutant list (default: equivalent.txt beside this program)")
	flag.BoolVar(&c.schema, "schema", true, "compile every comparison mutant into one build (false: a build per mutant)")
	flag.IntVar(&c.memMB, "mem", defaultMemMB, "address-space limit in MB of the tests and their build (0: none)")
	flag.Parse()
	c.pkgs = splitList(*pkgs)
	c.tests = splitList(*tests)
	if len(c.tests) == 0 {
		c.tests = c.pkgs
	}
	if *only != "" {
		var err error
		if c.only, err = regexp.Compile(*only); err != nil {
			fatal(err)
		}
	}
	code, err := run(c)
	if err != nil {
		fatal(err)
	}
	os.Exit(code)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func run(c config) (int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	if c.exclude == "" {
		c.exclude = filepath.Join(root, "scripts", "mutate", "equivalent.txt")
	}
	exData, err := os.ReadFile(c.exclude)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	excluded, err := exclusions(exData)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", c.exclude, err)
	}
	all, sources, err := collect(root, c.pkgs, c.logical)
	if err != nil {
		return 0, err
	}
	var todo []mutant
	var skipped int
	used := map[string]bool{}
	for _, m := range all {
		if _, ok := excluded[m.Key()]; ok {
			skipped++
			used[m.Key()] = true
			continue
		}
		if c.only != nil && !c.only.MatchString(m.String()) {
			continue
		}
		todo = append(todo, m)
	}
	for key := range excluded {
		if !used[key] {
			fmt.Fprintf(os.Stderr, "mutate: %s lists a mutant that no longer exists: %s\n", filepath.Base(c.exclude), key)
		}
	}
	todo = sample(todo, c.sample)
	tests, testers, err := testersOf(root, c.tests)
	if err != nil {
		return 0, err
	}
	if c.list {
		for _, m := range todo {
			if c.verbose {
				fmt.Println(m.Key()) // as equivalent.txt names it
				continue
			}
			fmt.Println(m)
		}
		fmt.Printf("%d mutants (%d excluded as equivalent)\n", len(todo), skipped)
		return 0, nil
	}
	if c.memMB > 0 {
		lim := uint64(c.memMB) << 20
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			return 0, fmt.Errorf("memory limit: %v", err)
		}
	}
	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-interrupt
		stopAll()
		os.RemoveAll(tmp)
		os.Exit(130)
	}()

	start := time.Now()
	auto := c.timeout == 0
	if auto {
		c.timeout = 10 * minTimeout
	}
	base := test(c, root, "", tmp, tests)
	if base.out != survived {
		return 0, fmt.Errorf("the unchanged tree does not pass its tests:\n%s", base.why)
	}
	if auto {
		// Timed again now that the build is cached, as a mutant's is but
		// for its own package and those that import it.
		base = test(c, root, "", tmp, tests)
		c.timeout = max(timeoutFactor*base.took, minTimeout).Round(time.Second)
	}
	fmt.Fprintf(os.Stderr, "mutate: %d mutants of %s, tested by %s; the unchanged tree passes in %s, time limit %s\n",
		len(todo), strings.Join(c.pkgs, " "), strings.Join(c.tests, " "), base.took.Round(time.Second), c.timeout)
	var sch *schema
	if c.schema {
		dir := filepath.Join(tmp, "schema")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		if sch, err = buildSchema(c, root, dir, todo, sources, tests); err != nil {
			return 0, err
		}
		n := 0
		for _, m := range todo {
			if m.id > 0 {
				n++
			}
		}
		fmt.Fprintf(os.Stderr, "mutate: %d mutants in one build, whose tests pass in %s with none active\n", n, sch.took.Round(time.Second))
	}

	results := make([]result, len(todo))
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < max(c.jobs, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				r := runMutant(c, root, tmp, sch, i, todo[i], sources[todo[i].File], testers[todo[i].pkg])
				results[i] = r
				mu.Lock()
				done++
				if c.verbose {
					fmt.Fprintf(os.Stderr, "[%d/%d] %-11s %s (%s)%s\n", done, len(todo), r.out, r.m, r.took.Round(100*time.Millisecond), indent(r.why))
				} else if done%25 == 0 || done == len(todo) {
					fmt.Fprintf(os.Stderr, "mutate: %d/%d mutants tested, %s\n", done, len(todo), time.Since(start).Round(time.Second))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range todo {
		work <- i
	}
	close(work)
	wg.Wait()

	count := map[outcome]int{}
	for _, r := range results {
		count[r.out]++
		if r.out == survived {
			fmt.Println(r.m)
		}
	}
	judged := count[killed] + count[timedOut] + count[survived]
	rate := 0.0
	if judged > 0 {
		rate = 100 * float64(count[survived]) / float64(judged)
	}
	fmt.Printf("%d mutants: %d killed (%d by the time limit), %d survived, %d unbuildable; %d excluded as equivalent\n",
		len(todo), count[killed]+count[timedOut], count[timedOut], count[survived], count[unbuildable], skipped)
	fmt.Printf("survival rate %.1f%% (%d of %d), %s\n", rate, count[survived], judged, time.Since(start).Round(time.Second))
	if c.failAbove >= 0 && rate > c.failAbove {
		return 1, nil
	}
	return 0, nil
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "\n\t" + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n\t")
}

func (o outcome) String() string {
	return [...]string{"killed", "SURVIVED", "unbuildable", "timeout"}[o]
}

// moduleRoot is the folder of the main module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside a Go module")
	}
	return filepath.Dir(mod), nil
}

// collect lists the mutants of the packages' non-test files, in file and
// source order, and the files' contents by their relative path.
func collect(root string, pkgs []string, logical bool) ([]mutant, map[string][]byte, error) {
	args := append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}}{{range .GoFiles}} {{.}}{{end}}"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list: %v", err)
	}
	var all []mutant
	files := map[string][]byte{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		for _, name := range f[2:] {
			abs := filepath.Join(f[1], name)
			rel, err := filepath.Rel(root, abs)
			if err != nil {
				return nil, nil, err
			}
			rel = filepath.ToSlash(rel)
			src, err := os.ReadFile(abs)
			if err != nil {
				return nil, nil, err
			}
			ms, err := findMutants(rel, src, logical)
			if err != nil {
				return nil, nil, err
			}
			for i := range ms {
				ms[i].pkg = f[0]
			}
			files[rel] = src
			all = append(all, ms...)
		}
	}
	return all, files, nil
}

// sample keeps n mutants spread evenly over the list (all when n <= 0).
func sample(ms []mutant, n int) []mutant {
	if n <= 0 || n >= len(ms) {
		return ms
	}
	out := make([]mutant, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, ms[i*len(ms)/n])
	}
	return out
}

// runMutant tests a mutant: a comparison in the schema's binaries, any
// other in a build of its own, from its file written into its own folder.
func runMutant(c config, root, tmp string, sch *schema, i int, m mutant, src []byte, tests []testPkg) result {
	if len(tests) == 0 {
		// No test package reaches the file: nothing can kill it.
		return result{m: m, out: survived}
	}
	// The mutated package's own tests first: they are the quickest to
	// build and the likeliest to fail.
	tests = append([]testPkg(nil), tests...)
	sort.SliceStable(tests, func(i, j int) bool { return tests[i].Path == m.pkg && tests[j].Path != m.pkg })
	if m.id > 0 {
		r := runTests(c, sch.bin, nil, []string{fmt.Sprintf("%s=%d", schemaVar, m.id)}, tests)
		r.m = m
		return r
	}
	dir := filepath.Join(tmp, fmt.Sprint(i))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return result{m: m, out: unbuildable, why: err.Error()}
	}
	defer os.RemoveAll(dir)
	mutated := filepath.Join(dir, filepath.Base(m.File))
	overlay := filepath.Join(dir, "overlay.json")
	data, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(root, filepath.FromSlash(m.File)): mutated}})
	if err := os.WriteFile(mutated, m.apply(src), 0o644); err != nil {
		return result{m: m, out: unbuildable, why: err.Error()}
	}
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		return result{m: m, out: unbuildable, why: err.Error()}
	}
	r := test(c, root, overlay, dir, tests)
	r.m = m
	return r
}

// testPkg is a package whose tests judge mutants.
type testPkg struct {
	// Path is its import path, Dir its folder (where its tests run).
	Path, Dir string
	// Bin is the file name of its test binary.
	Bin string
}

// testersOf resolves the test packages and maps each package to those
// whose test binary includes it: only those can tell its mutants apart, so
// only those are built and run for them.
func testersOf(root string, patterns []string) ([]testPkg, map[string][]testPkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}}"}, patterns...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list %s: %v", strings.Join(patterns, " "), err)
	}
	var tests []testPkg
	bins := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		t := testPkg{Path: path, Dir: dir, Bin: pathBase(path) + ".test"}
		if bins[t.Bin] {
			return nil, nil, fmt.Errorf("two test packages named %s", t.Bin)
		}
		bins[t.Bin] = true
		tests = append(tests, t)
	}
	testers := map[string][]testPkg{}
	for _, t := range tests {
		cmd := exec.Command("go", "list", "-test", "-deps", "-f", "{{.ImportPath}}", t.Path)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			return nil, nil, fmt.Errorf("go list -test -deps %s: %v", t.Path, err)
		}
		seen := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, "[") { // the " [x.test]" of a test variant
				continue
			}
			if !seen[p] {
				seen[p] = true
				testers[p] = append(testers[p], t)
			}
		}
	}
	return tests, testers, nil
}

func pathBase(importPath string) string {
	return importPath[strings.LastIndex(importPath, "/")+1:]
}

// test builds the test binaries of the packages with the overlay (none
// when it is "") into dir and runs them; see runTests.
func test(c config, root, overlay, dir string, tests []testPkg) result {
	bin := filepath.Join(dir, "bin")
	defer os.RemoveAll(bin)
	build := func(t testPkg) (outcome, string) {
		args := []string{"test", "-c", "-vet=off", "-o", filepath.Join(bin, t.Bin)}
		if overlay != "" {
			args = append(args, "-overlay", overlay)
		}
		o, out := command(root, c.timeout+killGrace, nil, "go", append(args, t.Path)...)
		if o == killed {
			o = unbuildable
		}
		return o, buildErrors(out)
	}
	return runTests(c, bin, build, nil, tests)
}

// runTests runs the test binaries of the packages in bin, in two steps:
// the fast tests first, then the slow ones if all passed. Packages go in
// the order given, each built (when build is not nil) only when its turn
// comes and once for both steps: a mutant the first package's tests kill
// costs no build of the others. env is added to the tests' environment.
func runTests(c config, bin string, build func(testPkg) (outcome, string), env []string, tests []testPkg) result {
	start := time.Now()
	done := func(o outcome, why string) result { return result{out: o, why: why, took: time.Since(start)} }
	built := map[string]bool{}
	steps := [][]string{{"-test.skip", c.slow}, {"-test.run", c.slow}}
	if c.slow == "" {
		steps = [][]string{nil}
	}
	for _, step := range steps {
		for _, t := range tests {
			exe := filepath.Join(bin, t.Bin)
			if build != nil && !built[t.Path] {
				if o, why := build(t); o != survived {
					return done(o, why)
				}
				built[t.Path] = true
			}
			if _, err := os.Stat(exe); err != nil {
				continue // a package without tests
			}
			args := append([]string{"-test.count=1", "-test.failfast", "-test.timeout", c.timeout.String()}, step...)
			o, out := command(t.Dir, c.timeout+killGrace, env, exe, args...)
			if o == killed && strings.Contains(out, "panic: test timed out") {
				o = timedOut
			}
			if o != survived {
				return done(o, failures(out))
			}
		}
	}
	return done(survived, "")
}

// running holds the process groups started, for an interrupt to end them.
var running = struct {
	sync.Mutex
	groups  map[int]bool
	stopped bool
}{groups: map[int]bool{}}

// stopAll kills every process group still running and lets no other start.
func stopAll() {
	running.Lock()
	defer running.Unlock()
	running.stopped = true
	for pg := range running.groups {
		_ = syscall.Kill(-pg, syscall.SIGKILL)
	}
}

// command runs a program in its own process group, with env added to its
// environment, killed with its children past the limit: survived when it exits 0, timedOut past the
// limit, killed otherwise; with its output.
func command(dir string, limit time.Duration, env []string, name string, args ...string) (outcome, string) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	running.Lock()
	if running.stopped {
		running.Unlock()
		select {} // interrupted: wait for the exit
	}
	if err := cmd.Start(); err != nil {
		running.Unlock()
		return killed, err.Error()
	}
	running.groups[cmd.Process.Pid] = true
	running.Unlock()
	err := cmd.Wait()
	running.Lock()
	delete(running.groups, cmd.Process.Pid)
	running.Unlock()
	switch {
	case err == nil:
		return survived, buf.String()
	case ctx.Err() != nil:
		return timedOut, buf.String()
	}
	return killed, buf.String()
}

// buildErrors keeps the compiler's messages.
func buildErrors(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".go:") {
			keep = append(keep, l)
		}
	}
	return firstLines(strings.Join(keep, "\n"), 3)
}

// failures keeps the names of the failed tests and any panic.
func failures(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") || strings.HasPrefix(l, "panic:") {
			keep = append(keep, strings.TrimSpace(l))
		}
	}
	sort.Strings(keep)
	return firstLines(strings.Join(keep, "\n"), 3)
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = append(lines[:n], "…")
	}
	return strings.Join(lines, "\n")
}
